"""Matrices with structure: setting a diagonal (`tf.linalg.set_diag`, MatrixSetDiagV3), diagonal tensors
(`tensor_diag`/`tensor_diag_part`: Diag, DiagPart), triangular systems (`triangular_solve`,
MatrixTriangularSolve; `cholesky_solve` on top of it) and tridiagonal systems (`tridiagonal_solve`,
TridiagonalSolve).

A triangular solve is back substitution as TensorFlow does it: a zero on the diagonal gives inf/nan, not an
error, and only the named triangle of the matrix is read.
"""
import numpy as np

from ...framework import errors
from ...framework.tensor import Tensor
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..convert import convert_to_tensor
from ..infer import broadcast_shape
from ..registry import OpDef, apply, COMPLEX, NUMBER, ALL_TYPES
from ..shapes import creators as _creators
from ..shapes import shaping as _shaping
from ..math import arith as _math
from ..math import reduce as _reduce
from ..array import join as _join
from ..array import padding as _padding
from .matrix import matmul, band_part, diag_part, matrix_transpose

_SOLVE_TYPES = (_dt.float64, _dt.float32, _dt.float16) + COMPLEX
_HALF = np.dtype(np.float16)


def _bad(message):
    return errors.InvalidArgumentError(None, None, message)


def _dims_text(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def _operand(x, dtype=None):
    if isinstance(x, Tensor):
        return x
    return convert_to_tensor(x, dtype=dtype)


# -- MatrixSetDiagV3 (main diagonal) --------------------------------------------------------------

def _set_diag_kernel(x, diagonal, k, align="RIGHT_LEFT"):
    k = int(np.asarray(k).reshape(-1)[0]) if np.ndim(k) else int(k)
    rows, cols = x.shape[-2:]
    length = max(0, min(rows + min(k, 0), cols - max(k, 0)))
    expected = x.shape[:-2] + (length,)
    if diagonal.shape != expected:
        raise _bad(
            "Either first dimensions of diagonal don't match input.shape[:-2], or diagonal.shape[:-1] is not "
            "equal to the longests diagonal in range [lower_diag_index:upper_diag_index].\nInput shape: "
            f"{_dims_text(x.shape)}\nDiagonal shape: {_dims_text(diagonal.shape)}\nExpected diagonal shape: "
            f"{_dims_text(expected)}")
    out = x.copy()
    i = np.arange(length)
    r, c = (i, i + k) if k >= 0 else (i - k, i)
    out[..., r, c] = diagonal
    return out


def _infer_set_diag(inputs, attrs):
    x, diagonal = inputs[0], inputs[1]
    if x.shape.rank is not None and x.shape.rank < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {x.shape.rank} for 'MatrixSetDiagV3'")
    return [(x.dtype, x.shape)]


def _set_diag_grad(op, grad):
    # The diagonal that was written receives grad's diagonal; the input keeps grad everywhere else.
    k = op.inputs[2]
    return [_set_diag_op(grad, _creators.zeros_like(op.inputs[1]), k), diag_part(grad, k=k), None]


SET_DIAG = OpDef("MatrixSetDiagV3", _infer_set_diag, _set_diag_kernel, allowed=ALL_TYPES,
                 input_names=("input", "diagonal", "k"), grad=_set_diag_grad)


def _set_diag_op(x, diagonal, k):
    return apply(SET_DIAG, (x, diagonal, k), {"align": "RIGHT_LEFT"}, "MatrixSetDiagV3")


def set_diag(input, diagonal, name="set_diag", k=0, align="RIGHT_LEFT"):  # noqa: A002 - TensorFlow's name
    """`tf.linalg.set_diag`: `input` with its k-th diagonal replaced by `diagonal` (one k, not a band)."""
    input = _operand(input)
    diagonal = _operand(diagonal, dtype=input.dtype)
    if isinstance(k, (list, tuple)) or np.ndim(k):
        values = np.asarray(k).reshape(-1)
        if values.size != 1 and values[0] != values[-1]:
            raise NotImplementedError("tf.linalg.set_diag of a band of diagonals (k = (low, high)) is not "
                                      "implemented in tensorflux; set one diagonal at a time")
        k = int(values[0])
    return apply(SET_DIAG, (input, diagonal, convert_to_tensor(int(k), dtype=_dt.int32)),
                 {"align": align}, name or "MatrixSetDiagV3")


# -- Diag / DiagPart ----------------------------------------------------------------------------

def _tensor_diag_kernel(d):
    out = np.zeros(d.shape + d.shape, d.dtype)
    flat = out.reshape(d.size, d.size)
    flat[np.arange(d.size), np.arange(d.size)] = d.reshape(-1)
    return out


def _infer_tensor_diag(inputs, attrs):
    d = inputs[0]
    if d.shape.rank is None:
        return [(d.dtype, TensorShape(None))]
    return [(d.dtype, TensorShape(list(d.shape._dims) * 2))]


def _tensor_diag_part_kernel(x):
    if x.ndim % 2:
        raise _bad(f"The rank of the tensor should be even and positive, got shape {_dims_text(x.shape)}")
    half = x.shape[:x.ndim // 2]
    if x.shape[x.ndim // 2:] != half:
        raise _bad(f"Invalid shape {_dims_text(x.shape)}: dimensions 0 and {x.ndim // 2} do not match.")
    n = int(np.prod(half, dtype=np.int64))
    return x.reshape(n, n)[np.arange(n), np.arange(n)].reshape(half)


def _infer_tensor_diag_part(inputs, attrs):
    x = inputs[0]
    dims = x.shape._dims
    if dims is None:
        return [(x.dtype, TensorShape(None))]
    if len(dims) % 2 or not dims:
        raise ValueError(f"Input must have even and non-zero rank, input rank is {len(dims)} for 'DiagPart'")
    half = len(dims) // 2
    return [(x.dtype, TensorShape([a if a is not None else b for a, b in zip(dims[:half], dims[half:])]))]


DIAG = OpDef("Diag", _infer_tensor_diag, _tensor_diag_kernel, allowed=NUMBER, input_names=("diagonal",),
             grad=lambda op, grad: [tensor_diag_part(grad)])
DIAG_PART = OpDef("DiagPart", _infer_tensor_diag_part, _tensor_diag_part_kernel, allowed=NUMBER,
                  input_names=("input",), grad=lambda op, grad: [tensor_diag(grad)])


def tensor_diag(diagonal, name=None):
    """`tf.linalg.tensor_diag`: the rank-2k tensor with `diagonal` (rank k) on its diagonal."""
    return apply(DIAG, (_operand(diagonal),), None, name or "Diag")


def tensor_diag_part(input, name=None):  # noqa: A002
    """`tf.linalg.tensor_diag_part`: the diagonal of a rank-2k tensor (output[i..] = input[i.., i..])."""
    return apply(DIAG_PART, (_operand(input),), None, name or "DiagPart")


# -- MatrixTriangularSolve ---------------------------------------------------------------------------

def _triangular_solve_kernel(matrix, rhs, lower=True, adjoint=False):
    for i, t in enumerate((matrix, rhs)):
        if t.ndim < 2:
            raise _bad(f"In[{i}] ndims must be >= 2: {t.ndim}")
    if matrix.shape[-1] != matrix.shape[-2]:
        raise _bad(f"In[0] matrices in the last dimensions must be square ({matrix.shape[-1]} =/= "
                   f"{matrix.shape[-2]})")
    if matrix.shape[-1] != rhs.shape[-2]:
        raise _bad(f"In[0] mismatch In[1] shape: {matrix.shape[-1]} vs. {rhs.shape[-2]}: "
                   f"{_dims_text(matrix.shape)} {_dims_text(rhs.shape)} {int(lower)} {int(adjoint)}")
    try:
        batch = np.broadcast_shapes(matrix.shape[:-2], rhs.shape[:-2])
    except ValueError:
        raise _bad(f"Incompatible shapes: {_dims_text(matrix.shape)} vs. {_dims_text(rhs.shape)}") from None
    work = np.float32 if matrix.dtype == _HALF else matrix.dtype
    a = np.tril(matrix) if lower else np.triu(matrix)
    a = a.astype(work)
    if adjoint:  # solving with A^H: the triangle flips
        a = np.conj(np.swapaxes(a, -1, -2))
        lower = not lower
    n = a.shape[-1]
    a = np.broadcast_to(a, batch + (n, n))
    x = np.array(np.broadcast_to(rhs.astype(work), batch + rhs.shape[-2:]))
    order = range(n) if lower else range(n - 1, -1, -1)
    for i in order:  # substitution, one row at a time, vectorised over the batch and the right-hand sides
        others = slice(0, i) if lower else slice(i + 1, n)
        if (i > 0 and lower) or (i < n - 1 and not lower):
            x[..., i, :] -= np.einsum("...j,...jk->...k", a[..., i, others], x[..., others, :])
        with np.errstate(divide="ignore", invalid="ignore"):  # a zero pivot gives inf/nan, as in TensorFlow
            x[..., i, :] /= a[..., i, i][..., None]
    return x.astype(matrix.dtype, copy=False)


def _infer_triangular_solve(inputs, attrs):
    a, b = inputs[0].shape, inputs[1].shape
    dtype = inputs[0].dtype
    for s in (a, b):
        if s.rank is not None and s.rank < 2:
            raise ValueError(f"Shape must be at least rank 2 but is rank {s.rank} for 'MatrixTriangularSolve'")
    if a.rank is None or b.rank is None:
        return [(dtype, TensorShape(None))]
    ad, bd = a.as_list(), b.as_list()
    for x, y in ((ad[-2], ad[-1]), (ad[-1], bd[-2])):
        if x is not None and y is not None and x != y:
            raise ValueError(f"Dimensions must be equal, but are {x} and {y} for 'MatrixTriangularSolve' with "
                             f"input shapes: {a}, {b}.")
    batch = broadcast_shape(TensorShape(ad[:-2]), TensorShape(bd[:-2]))
    return [(dtype, TensorShape(batch.as_list() + [bd[-2], bd[-1]]))]


def _sum_to(t, shape_of):
    """`t` summed over the batch dims that broadcasting added relative to `shape_of`'s static shape."""
    target = shape_of.shape._dims
    have = t.shape._dims
    if target is None or have is None or len(have) == len(target) and have == target:
        return t
    lead = len(have) - len(target)
    axes = list(range(lead)) + [lead + i for i, d in enumerate(target[:-2]) if d == 1 and have[lead + i] != 1]
    if not axes:
        return t
    return _shaping.reshape(_reduce.reduce_sum(t, axis=axes), list(target))


def _triangular_solve_grad(op, grad):
    a, b = op.inputs
    c = op.outputs[0]
    adjoint_a, lower_a = op.attrs.get("adjoint", False), op.attrs.get("lower", True)
    grad_b = triangular_solve(a, grad, lower=lower_a, adjoint=not adjoint_a)
    if adjoint_a:
        grad_a = _math.negative(matmul(c, grad_b, adjoint_b=True))
    else:
        grad_a = _math.negative(matmul(grad_b, c, adjoint_b=True))
    grad_a = band_part(grad_a, -1, 0) if lower_a else band_part(grad_a, 0, -1)
    return [_sum_to(grad_a, a), _sum_to(grad_b, b)]


TRIANGULAR_SOLVE = OpDef("MatrixTriangularSolve", _infer_triangular_solve, _triangular_solve_kernel,
                         same_dtype=True, allowed=_SOLVE_TYPES, input_names=("matrix", "rhs"),
                         grad=_triangular_solve_grad)


def triangular_solve(matrix, rhs, lower=True, adjoint=False, name=None):
    """`tf.linalg.triangular_solve`: X with T @ X = rhs for the lower (or upper) triangle T of `matrix`
    (T^H with `adjoint`); batch dims broadcast."""
    matrix = _operand(matrix)
    rhs = _operand(rhs, dtype=matrix.dtype if not isinstance(rhs, Tensor) else None)
    return apply(TRIANGULAR_SOLVE, (matrix, rhs), {"lower": bool(lower), "adjoint": bool(adjoint)},
                 name or "MatrixTriangularSolve")


def cholesky_solve(chol, rhs, name=None):
    """`tf.linalg.cholesky_solve`: X with A @ X = rhs, given the Cholesky factor `chol` of A."""
    y = triangular_solve(chol, rhs, lower=True, adjoint=False)
    return triangular_solve(chol, y, lower=True, adjoint=True, name=name)


# -- TridiagonalSolve ---------------------------------------------------------------------------

def _dense_from_compact(diagonals):
    """[..., 3, M] (super, main, sub) -> [..., M, M]; the unused corners of the compact form are ignored."""
    m = diagonals.shape[-1]
    out = np.zeros(diagonals.shape[:-2] + (m, m), diagonals.dtype)
    i = np.arange(m)
    out[..., i, i] = diagonals[..., 1, :]
    out[..., i[:-1], i[1:]] = diagonals[..., 0, :-1]
    out[..., i[1:], i[:-1]] = diagonals[..., 2, 1:]
    return out


def _tridiagonal_solve_kernel(diagonals, rhs, partial_pivoting=True, perturb_singular=False):
    if diagonals.ndim < 2 or diagonals.shape[-2] != 3:
        raise _bad(f"Expected diagonals to have shape [..., 3, M], got {_dims_text(diagonals.shape)}")
    if rhs.ndim < 2 or rhs.shape[-2] != diagonals.shape[-1]:
        raise _bad(f"Expected rhs to have shape [..., {diagonals.shape[-1]}, K], got {_dims_text(rhs.shape)}")
    dense = _dense_from_compact(diagonals)
    work = np.float32 if dense.dtype == _HALF else dense.dtype
    try:
        out = np.linalg.solve(dense.astype(work), rhs.astype(work))
    except np.linalg.LinAlgError:
        out = np.full(np.broadcast_shapes(dense.shape[:-2], rhs.shape[:-2]) + rhs.shape[-2:], np.nan, work)
        flat_a = dense.reshape((-1,) + dense.shape[-2:])
        flat_b = np.broadcast_to(rhs, dense.shape[:-2] + rhs.shape[-2:]).reshape((-1,) + rhs.shape[-2:])
        flat_out = out.reshape((-1,) + rhs.shape[-2:])
        for i in range(flat_a.shape[0]):  # a singular system is nan (TensorFlow's result), the others solve
            try:
                flat_out[i] = np.linalg.solve(flat_a[i], flat_b[i])
            except np.linalg.LinAlgError:
                pass
    return out.astype(diagonals.dtype, copy=False)


def _infer_tridiagonal_solve(inputs, attrs):
    d, r = inputs[0], inputs[1]
    return [(d.dtype, r.shape)]


def _padded(diagonal, at_end):
    """A length M-1 diagonal as a compact row of length M: superdiagonals end with 0, subdiagonals start."""
    rank = diagonal.shape.rank
    return _padding.pad(diagonal, [[0, 0]] * (rank - 1) + ([[0, 1]] if at_end else [[1, 0]]))


def _tridiagonal_solve_grad(op, grad):
    # X = A^-1 B: grad_B = A^-T G (A^T swaps the super and sub diagonals); grad_A = -grad_B X^T, read on
    # the three diagonals.
    diagonals = op.inputs[0]
    x = op.outputs[0]
    superdiag, maindiag, subdiag = diagonals[..., 0, :], diagonals[..., 1, :], diagonals[..., 2, :]
    transposed = _join.stack([_padded(subdiag[..., 1:], True), maindiag, _padded(superdiag[..., :-1], False)],
                             axis=-2)
    grad_rhs = apply(TRIDIAGONAL_SOLVE, (transposed, grad), dict(op.attrs), "TridiagonalSolve")
    outer = _math.negative(matmul(grad_rhs, x, transpose_b=True))
    grad_diagonals = _join.stack([_padded(diag_part(outer, k=1), True), diag_part(outer),
                                  _padded(diag_part(outer, k=-1), False)], axis=-2)
    return [grad_diagonals, grad_rhs]


TRIDIAGONAL_SOLVE = OpDef("TridiagonalSolve", _infer_tridiagonal_solve, _tridiagonal_solve_kernel,
                          same_dtype=True, allowed=_SOLVE_TYPES, input_names=("diagonals", "rhs"),
                          grad=_tridiagonal_solve_grad)


def tridiagonal_solve(diagonals, rhs, diagonals_format="compact", transpose_rhs=False, conjugate_rhs=False,
                      name=None, partial_pivoting=True, perturb_singular=False):
    """`tf.linalg.tridiagonal_solve`: X with A @ X = rhs for tridiagonal A given as `diagonals` in the
    "compact" ([..., 3, M]: super, main, sub), "sequence" (three tensors) or "matrix" ([..., M, M]) format."""
    if diagonals_format == "sequence":
        if not isinstance(diagonals, (list, tuple)) or len(diagonals) != 3:
            raise ValueError("Expected diagonals to be a sequence of length 3.")
        diagonals = _join.stack([_operand(d) for d in diagonals], axis=-2)
    elif diagonals_format == "matrix":
        matrix = _operand(diagonals)
        diagonals = _join.stack([_padded(diag_part(matrix, k=1), True), diag_part(matrix),
                                 _padded(diag_part(matrix, k=-1), False)], axis=-2)
    elif diagonals_format == "compact":
        diagonals = _operand(diagonals)
    else:
        raise ValueError(f"Unrecognized diagonals_format: {diagonals_format}")
    rhs = _operand(rhs, dtype=diagonals.dtype if not isinstance(rhs, Tensor) else None)
    if conjugate_rhs and rhs.dtype.is_complex:
        rhs = _math.conj(rhs)
    vector = rhs.shape.rank is not None and diagonals.shape.rank is not None and \
        rhs.shape.rank == diagonals.shape.rank - 1
    if vector:
        rhs = _shaping.expand_dims(rhs, -1)
    elif transpose_rhs:
        rhs = matrix_transpose(rhs)
    out = apply(TRIDIAGONAL_SOLVE, (diagonals, rhs),
                {"partial_pivoting": bool(partial_pivoting), "perturb_singular": bool(perturb_singular)},
                name or "TridiagonalSolve")
    if vector:
        return _shaping.squeeze(out, axis=[-1])
    return out


API = {
    "linalg": ["set_diag", "tensor_diag", "tensor_diag_part", "triangular_solve", "cholesky_solve",
               "tridiagonal_solve"],
}
