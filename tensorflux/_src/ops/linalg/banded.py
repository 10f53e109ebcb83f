"""Banded and tridiagonal matrices given by their diagonals: `tf.linalg.tridiagonal_matmul`,
`tf.linalg.banded_triangular_solve` and `tf.linalg.eigh_tridiagonal`, composed from the matrix ops (the
diagonals become a dense matrix through MatrixDiagV3, whose gradient reads them back), so each is
differentiable wherever its parts are.
"""
from ...framework.tensor import Tensor
from ..convert import convert_to_tensor
from ..math import arith as _math
from ..math import logic as _logic
from ..array import indexing as _indexing
from ..array import padding as _padding
from .matrix import diag, matmul
from .structured import triangular_solve
from .decompositions import eigh, eigvalsh


def _tensor(x, dtype=None):
    return x if isinstance(x, Tensor) else convert_to_tensor(x, dtype=dtype)


def _static_size(t, what):
    size = t.shape._dims[-1] if t.shape.rank is not None else None
    if size is None:
        raise ValueError(f"{what} needs a static size of its last dimension in tensorflux")
    return size


def tridiagonal_matmul(diagonals, rhs, diagonals_format="compact", name=None):
    """`tf.linalg.tridiagonal_matmul`: A @ rhs for tridiagonal A given in the "compact" ([..., 3, M]),
    "sequence" (three [..., M] tensors) or "matrix" format; unused corner entries are ignored."""
    if diagonals_format == "compact":
        diagonals = _tensor(diagonals)
        superdiag, maindiag, subdiag = diagonals[..., 0, :], diagonals[..., 1, :], diagonals[..., 2, :]
    elif diagonals_format == "sequence":
        superdiag, maindiag, subdiag = (_tensor(d) for d in diagonals)
    elif diagonals_format == "matrix":
        return matmul(_tensor(diagonals), rhs, name=name)
    else:
        raise ValueError(f"Unrecognized diagonals_format: {diagonals_format}")
    rhs = _tensor(rhs, maindiag.dtype)
    rank = rhs.shape.rank
    # out[i] = main[i] rhs[i] + super[i] rhs[i + 1] + sub[i] rhs[i - 1], with rhs shifted by zero-padding.
    pad_below = [[0, 0]] * (rank - 2) + [[0, 1], [0, 0]]
    pad_above = [[0, 0]] * (rank - 2) + [[1, 0], [0, 0]]
    next_rows = _padding.pad(rhs[..., 1:, :], pad_below)
    previous_rows = _padding.pad(rhs[..., :-1, :], pad_above)
    column = lambda d: d[..., :, None]  # noqa: E731 - one diagonal as a column against rhs's rows
    return _math.add(_math.add(_math.multiply(column(maindiag), rhs), _math.multiply(column(superdiag), next_rows)),
                     _math.multiply(column(subdiag), previous_rows), name=name)


def banded_triangular_solve(bands, rhs, lower=True, adjoint=False, name=None):
    """`tf.linalg.banded_triangular_solve`: X with A @ X = rhs (A^H with `adjoint`) for triangular A of
    bandwidth K given as `bands` [..., K, M]: lower: row k is the k-th subdiagonal, left-padded; upper:
    row K-1-k is the k-th superdiagonal, right-padded (row K-1 the main diagonal)."""
    bands = _tensor(bands)
    rhs = _tensor(rhs, bands.dtype)
    count = bands.shape._dims[-2] if bands.shape.rank is not None else None
    size = _static_size(bands, "banded_triangular_solve")
    if count is None:
        raise ValueError("banded_triangular_solve needs a static number of bands in tensorflux")
    matrix = None
    for k in range(min(count, size)):
        if lower:
            part = diag(bands[..., k, k:], k=-k, num_rows=size, num_cols=size)
        else:
            part = diag(bands[..., count - 1 - k, :size - k], k=k, num_rows=size, num_cols=size)
        matrix = part if matrix is None else _math.add(matrix, part)
    return triangular_solve(matrix, rhs, lower=lower, adjoint=adjoint, name=name)


def eigh_tridiagonal(alpha, beta, eigvals_only=True, select="a", select_range=None, tol=None, name=None):
    """`tf.linalg.eigh_tridiagonal`: eigenvalues (and with `eigvals_only=False` eigenvectors) of the
    symmetric/Hermitian tridiagonal matrix with diagonal `alpha` and off-diagonal `beta`; `select` "a"
    (all), "i" (indices select_range[0]..select_range[1]) or "v" (values in (lo, hi]). `tol` is accepted
    for compatibility: LAPACK's solver converges to machine precision."""
    alpha = _tensor(alpha)
    beta = _tensor(beta, alpha.dtype)
    if select not in ("a", "i", "v"):
        raise ValueError(f"Invalid select {select!r}: expected 'a', 'i' or 'v'")
    size = _static_size(alpha, "eigh_tridiagonal")
    if alpha.shape.rank != 1:
        raise ValueError("alpha must be a vector")
    matrix = diag(alpha)
    if size > 1:
        matrix = _math.add(_math.add(matrix, diag(beta, k=-1, num_rows=size, num_cols=size)),
                           diag(_math.conj(beta), k=1, num_rows=size, num_cols=size))
    if eigvals_only:
        values, vectors = eigvalsh(matrix), None
    else:
        values, vectors = eigh(matrix)
    if select == "i":
        low, high = (int(v) for v in select_range)
        values = values[low:high + 1]
        vectors = vectors[:, low:high + 1] if vectors is not None else None
    elif select == "v":
        low, high = select_range
        keep = _logic.logical_and(_logic.greater(values, _math.cast(low, values.dtype)),
                                  _logic.less_equal(values, _math.cast(high, values.dtype)))
        values = _indexing.boolean_mask(values, keep)
        vectors = _indexing.boolean_mask(vectors, keep, axis=1) if vectors is not None else None
    return values if eigvals_only else (values, vectors)


API = {"linalg": ["tridiagonal_matmul", "banded_triangular_solve", "eigh_tridiagonal"]}
