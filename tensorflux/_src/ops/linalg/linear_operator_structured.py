"""Structured `tf.linalg.LinearOperator`s: Kronecker products, block-diagonal and block lower-triangular
operators, Householder reflections, permutations, tridiagonal matrices, low-rank updates, circulant (1-D,
2-D, 3-D, given by their spectrum) and Toeplitz matrices. Each defines its shape and dense matrix (built
from the linalg ops, so it is differentiable); the base class in `linear_operator.py` derives the rest.
"""
import numpy as np

from ...framework.tensor import Tensor
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..convert import convert_to_tensor
from ..shapes import shaping as _shaping
from ..math import arith as _math
from ..math import reduce as _reduce
from ..math import complex as _complex
from ..shapes import creators as _creators
from ..array import creation as _creation
from ..array import gather as _gather
from ..array import join as _join
from ..array import padding as _padding
from .matrix import matmul, adjoint as _adjoint, diag
from .linear_operator import LinearOperator


def _tensor(x, dtype=None):
    return x if isinstance(x, Tensor) else convert_to_tensor(x, dtype=dtype)


def _static(shape, what):
    if shape.rank is None or not all(d is not None for d in shape.as_list()[-2:]):
        raise ValueError(f"{what} needs the static shapes of its operators in tensorflux")
    return shape.as_list()


def _same_dtype(operators):
    dtypes = {op.dtype for op in operators}
    if len(dtypes) > 1:
        raise TypeError(f"Expected all operators to have the same dtype.  Found {sorted(d.name for d in dtypes)}")
    return operators[0].dtype


class LinearOperatorKronecker(LinearOperator):
    """operators[0] (x) operators[1] (x) ...: the Kronecker product of square operators."""

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name=None):
        self._operators = list(operators)
        if not self._operators:
            raise ValueError("Expected a list of >=1 operators.")
        super().__init__(_same_dtype(self._operators), is_non_singular, is_self_adjoint, is_positive_definite,
                         is_square, name or "_x_".join(op.name for op in self._operators), {"operators": operators})

    @property
    def operators(self):
        return list(self._operators)

    def _shape(self):
        rows = cols = 1
        for op in self._operators:
            dims = _static(op.shape, "LinearOperatorKronecker")
            rows, cols = rows * dims[-2], cols * dims[-1]
        return TensorShape(self._operators[0].shape.as_list()[:-2] + [rows, cols])

    def _to_dense(self):
        result = self._operators[0].to_dense()
        for op in self._operators[1:]:
            right = op.to_dense()
            a, b = result.shape.as_list(), right.shape.as_list()
            # kron(A, B)[i*p + k, j*q + l] = A[i, j] B[k, l]
            product = _math.multiply(result[..., :, None, :, None], right[..., None, :, None, :])
            result = _shaping.reshape(product, a[:-2] + [a[-2] * b[-2], a[-1] * b[-1]])
        return result

    def _determinant(self):
        # det(A (x) B) = det(A)^q det(B)^p for A p x p, B q x q.
        total = self.shape.as_list()[-1]
        result = None
        for op in self._operators:
            n = op.shape.as_list()[-1]
            term = _math.pow(op.determinant(), _math.cast(total // n, op.dtype))
            result = term if result is None else _math.multiply(result, term)
        return result


class LinearOperatorBlockDiag(LinearOperator):
    """The block-diagonal operator with `operators` (square) on its diagonal."""

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=True, name=None):
        self._operators = list(operators)
        if not self._operators:
            raise ValueError("Expected a non-empty list of operators.")
        super().__init__(_same_dtype(self._operators), is_non_singular, is_self_adjoint, is_positive_definite,
                         is_square, name or "_ds_".join(op.name for op in self._operators), {"operators": operators})

    @property
    def operators(self):
        return list(self._operators)

    def _shape(self):
        dims = [_static(op.shape, "LinearOperatorBlockDiag") for op in self._operators]
        return TensorShape(dims[0][:-2] + [sum(d[-2] for d in dims), sum(d[-1] for d in dims)])

    def _to_dense(self):
        total = self.shape.as_list()[-1]
        rows, offset = [], 0
        for op in self._operators:
            block = op.to_dense()
            width = block.shape.as_list()[-1]
            pads = [[0, 0]] * (block.shape.rank - 1) + [[offset, total - offset - width]]
            rows.append(_padding.pad(block, pads))
            offset += width
        return _join.concat(rows, axis=-2)

    def _determinant(self):
        result = self._operators[0].determinant()
        for op in self._operators[1:]:
            result = _math.multiply(result, op.determinant())
        return result


class LinearOperatorBlockLowerTriangular(LinearOperator):
    """A block lower-triangular operator: `operators[i]` lists row i's blocks, the last one on the diagonal."""

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorBlockLowerTriangular"):
        self._rows = [list(row) for row in operators]
        for i, row in enumerate(self._rows):
            if len(row) != i + 1:
                raise ValueError(f"Argument `operators[{i}]` must contain `{i + 1}` blocks. Received: {len(row)} blocks.")
        super().__init__(_same_dtype([op for row in self._rows for op in row]), is_non_singular, is_self_adjoint,
                         is_positive_definite, is_square, name, {"operators": operators})

    @property
    def operators(self):
        return [list(row) for row in self._rows]

    def _shape(self):
        sizes = [_static(row[-1].shape, "LinearOperatorBlockLowerTriangular") for row in self._rows]
        n = sum(d[-1] for d in sizes)
        return TensorShape(sizes[0][:-2] + [n, n])

    def _to_dense(self):
        total = self.shape.as_list()[-1]
        rows = []
        for row in self._rows:
            blocks = _join.concat([op.to_dense() for op in row], axis=-1)
            width = blocks.shape.as_list()[-1]
            rows.append(_padding.pad(blocks, [[0, 0]] * (blocks.shape.rank - 1) + [[0, total - width]]))
        return _join.concat(rows, axis=-2)

    def _determinant(self):
        result = self._rows[0][-1].determinant()
        for row in self._rows[1:]:
            result = _math.multiply(result, row[-1].determinant())
        return result


class LinearOperatorHouseholder(LinearOperator):
    """The reflection I - 2 v v^H / (v^H v) about the hyperplane orthogonal to `reflection_axis` v."""

    def __init__(self, reflection_axis, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorHouseholder"):
        if is_self_adjoint is False:
            raise ValueError("A Householder operator is always self adjoint.")
        if is_positive_definite is True:
            raise ValueError("A Householder operator is always non-positive definite.")
        if is_square is False:
            raise ValueError("A Householder operator is always square.")
        self._axis = _tensor(reflection_axis)
        super().__init__(self._axis.dtype, is_non_singular, True, False, True, name,
                         {"reflection_axis": reflection_axis})

    def _shape(self):
        dims = self._axis.shape.as_list()
        return TensorShape(dims + [dims[-1]])

    def _to_dense(self):
        v = self._axis
        n = self.shape.as_list()[-1]
        norm = _reduce.reduce_sum(_math.multiply(_math.conj(v), v), axis=-1)
        outer = _math.multiply(v[..., :, None], _math.conj(v)[..., None, :])
        scale = _math.divide(_math.cast(2, v.dtype), norm)[..., None, None]
        return _math.subtract(_creation.eye(n, dtype=v.dtype), _math.multiply(scale, outer))

    def _determinant(self):
        # A reflection has one eigenvalue -1 and the others 1.
        return _math.negative(_creators.ones(self._axis.shape.as_list()[:-1], dtype=self.dtype))


class LinearOperatorPermutation(LinearOperator):
    """The permutation matrix P with P[i, perm[i]] = 1, so (P x)[i] = x[perm[i]]."""

    def __init__(self, perm, dtype=_dt.float32, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorPermutation"):
        self._perm = _tensor(perm)
        if not self._perm.dtype.is_integer:
            raise TypeError(f"Argument `perm` must be integer dtype. Received: {self._perm.dtype}")
        super().__init__(dtype, is_non_singular, is_self_adjoint, is_positive_definite, True, name,
                         {"perm": perm, "dtype": dtype})

    @property
    def perm(self):
        return self._perm

    def _shape(self):
        dims = self._perm.shape.as_list()
        return TensorShape(dims + [dims[-1]])

    def _to_dense(self):
        n = self.shape.as_list()[-1]
        eye = _creation.eye(n, dtype=self.dtype)
        return _gather.gather(eye, self._perm, axis=0)

    def _matmul(self, x, adjoint, adjoint_arg):
        x = _adjoint(x) if adjoint_arg else x
        if adjoint:
            return matmul(self.to_dense(), x, adjoint_a=True)
        return _gather.gather(x, self._perm, axis=-2)


class LinearOperatorTridiag(LinearOperator):
    """A tridiagonal matrix from its diagonals: "compact" [..., 3, N] (super, main, sub), "sequence" or
    "matrix" (as tf.linalg.tridiagonal_matmul)."""

    def __init__(self, diagonals, diagonals_format="compact", is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorTridiag"):
        if diagonals_format not in ("compact", "sequence", "matrix"):
            raise ValueError(f"Diagonals Format must be one of compact, matrix, sequence, got : {diagonals_format}")
        self._format = diagonals_format
        self._diagonals = [_tensor(d) for d in diagonals] if diagonals_format == "sequence" else _tensor(diagonals)
        dtype = self._diagonals[0].dtype if diagonals_format == "sequence" else self._diagonals.dtype
        super().__init__(dtype, is_non_singular, is_self_adjoint, is_positive_definite, True, name,
                         {"diagonals": diagonals, "diagonals_format": diagonals_format})

    @property
    def diagonals(self):
        return self._diagonals

    def _parts(self):
        if self._format == "sequence":
            return self._diagonals
        d = self._diagonals
        return d[..., 0, :], d[..., 1, :], d[..., 2, :]

    def _shape(self):
        if self._format == "matrix":
            return self._diagonals.shape
        main = self._parts()[1].shape.as_list()
        return TensorShape(main + [main[-1]])

    def _to_dense(self):
        if self._format == "matrix":
            return self._diagonals
        superdiag, maindiag, subdiag = self._parts()
        n = self.shape.as_list()[-1]
        dense = diag(maindiag)
        if n > 1:
            dense = _math.add(dense, diag(superdiag[..., :-1], k=1, num_rows=n, num_cols=n))
            dense = _math.add(dense, diag(subdiag[..., 1:], k=-1, num_rows=n, num_cols=n))
        return dense


class LinearOperatorLowRankUpdate(LinearOperator):
    """base_operator + u diag(diag_update) v^H (v = u and diag_update = 1 when not given)."""

    def __init__(self, base_operator, u, diag_update=None, v=None, is_diag_update_positive=None,
                 is_non_singular=None, is_self_adjoint=None, is_positive_definite=None, is_square=None,
                 name="LinearOperatorLowRankUpdate"):
        self._base = base_operator
        self._u = _tensor(u, base_operator.dtype)
        self._v = _tensor(v, base_operator.dtype) if v is not None else None
        self._update = _tensor(diag_update, base_operator.dtype) if diag_update is not None else None
        if is_self_adjoint is None and v is None and base_operator.is_self_adjoint:
            is_self_adjoint = True
        super().__init__(base_operator.dtype, is_non_singular, is_self_adjoint, is_positive_definite, is_square,
                         name, {"base_operator": base_operator, "u": u, "diag_update": diag_update, "v": v})

    @property
    def base_operator(self):
        return self._base

    @property
    def u(self):
        return self._u

    @property
    def v(self):
        return self._v if self._v is not None else self._u

    @property
    def diag_update(self):
        return self._update

    def _shape(self):
        return self._base.shape

    def _to_dense(self):
        u = self._u
        scaled = _math.multiply(u, self._update[..., None, :]) if self._update is not None else u
        return _math.add(self._base.to_dense(), matmul(scaled, self.v, adjoint_b=True))


def _dft_matrix(n):
    k = np.arange(n)
    return np.exp(-2j * np.pi * np.outer(k, k) / n)


class _BaseCirculant(LinearOperator):
    """A (block-)circulant operator given by its spectrum over the last `_dims` dimensions:
    C = F^H diag(spectrum) F / N with F the (Kronecker product of) DFT matrices."""

    _dims = 1

    def __init__(self, spectrum, input_output_dtype=_dt.complex64, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=True, name=None):
        self._spectrum = _tensor(spectrum)
        dtype = _dt.as_dtype(input_output_dtype)
        if self._spectrum.dtype != dtype and dtype.is_complex:
            self._spectrum = _math.cast(self._spectrum, dtype)
        sizes = self._spectrum.shape.as_list()[-self._dims:]
        if any(s is None for s in sizes):
            raise ValueError("The spectrum of a circulant operator needs static sizes in tensorflux")
        self._sizes = sizes
        super().__init__(dtype, is_non_singular, is_self_adjoint, is_positive_definite, True,
                         name or type(self).__name__, {"spectrum": spectrum, "input_output_dtype": input_output_dtype})

    @property
    def spectrum(self):
        return self._spectrum

    def _shape(self):
        n = int(np.prod(self._sizes))
        return TensorShape(self._spectrum.shape.as_list()[:-self._dims] + [n, n])

    def _to_dense(self):
        n = int(np.prod(self._sizes))
        f = np.ones((1, 1), np.complex128)
        for size in self._sizes:
            f = np.kron(f, _dft_matrix(size))
        spectrum = _shaping.reshape(self._spectrum, self._spectrum.shape.as_list()[:-self._dims] + [n])
        spectrum = _math.cast(spectrum, _dt.complex128)
        dft = convert_to_tensor(f, dtype=_dt.complex128)
        dense = matmul(dft, _math.multiply(spectrum[..., :, None], dft), adjoint_a=True)
        dense = _math.divide(dense, _math.cast(n, _dt.complex128))
        return _math.cast(dense, self.dtype) if self.dtype.is_complex else _math.cast(_complex.real(dense), self.dtype)


class LinearOperatorCirculant(_BaseCirculant):
    """A circulant matrix given by its spectrum (the DFT of its first column), [..., N]."""
    _dims = 1


class LinearOperatorCirculant2D(_BaseCirculant):
    """A block-circulant matrix with circulant blocks, given by its 2-D spectrum [..., N0, N1]."""
    _dims = 2


class LinearOperatorCirculant3D(_BaseCirculant):
    """A doubly nested block-circulant matrix, given by its 3-D spectrum [..., N0, N1, N2]."""
    _dims = 3


class LinearOperatorToeplitz(LinearOperator):
    """The Toeplitz matrix with first column `col` and first row `row` (row[0] is ignored: col[0] wins)."""

    def __init__(self, col, row, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorToeplitz"):
        self._col = _tensor(col)
        self._row = _tensor(row, self._col.dtype)
        super().__init__(self._col.dtype, is_non_singular, is_self_adjoint, is_positive_definite, True, name,
                         {"col": col, "row": row})

    @property
    def col(self):
        return self._col

    @property
    def row(self):
        return self._row

    def _shape(self):
        dims = self._col.shape.as_list()
        return TensorShape(dims + [dims[-1]])

    def _to_dense(self):
        n = self.shape.as_list()[-1]
        # T[i, j] = col[i - j] for i >= j, row[j - i] above: one gather from [row reversed, col[1:]].
        values = _join.concat([self._row[..., ::-1], self._col[..., 1:]], axis=-1)
        index = np.arange(n)[:, None] - np.arange(n)[None, :] + (n - 1)
        return _gather.gather(values, convert_to_tensor(index.astype(np.int32)), axis=values.shape.rank - 1)


API = {
    "linalg": ["LinearOperatorKronecker", "LinearOperatorBlockDiag", "LinearOperatorBlockLowerTriangular",
               "LinearOperatorHouseholder", "LinearOperatorPermutation", "LinearOperatorTridiag",
               "LinearOperatorLowRankUpdate", "LinearOperatorCirculant", "LinearOperatorCirculant2D",
               "LinearOperatorCirculant3D", "LinearOperatorToeplitz"],
}
