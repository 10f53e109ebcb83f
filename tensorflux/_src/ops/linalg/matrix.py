"""`tf.linalg`: matrix products (`tf.matmul`: MatMul / BatchMatMulV2; einsum/tensordot from einsum.py) and
matrix functions (inverse, determinants, solve, Cholesky, diagonals, band part, trace, norms).

`tf.matmul` picks TensorFlow's op the way TensorFlow does: MatMul when both operands have rank <= 2,
BatchMatMulV2 (broadcasting batch dimensions) otherwise. `tensordot` is an Einsum whose equation is
built from `axes`, which gives the same result as TensorFlow's transpose/reshape/MatMul chain.
"""
import collections as _collections

import numpy as np

from ...framework import errors
from ...framework.tensor import Tensor
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..convert import convert_to_tensor
from ..infer import broadcast_shape
from ..registry import OpDef, apply, constant_value, COMPLEX
from ..array import reorder as _reorder
from . import blas_threads as _blas
from . import exact_matmul as _exact
from ..shapes import shape_ops as _shape_ops
from ..shapes import shaping as _shaping
from ..shapes import creators as _creators
from ..math import summation as _summation
from ..math import arith as _math
from ..math import reduce as _reduce
# Einsum and tensordot live in einsum.py (with the operand helpers both files use); re-exported here.
from .einsum import (EINSUM, einsum, tensordot, MATMUL_TYPES as _MATMUL_TYPES, operand_pair as _pair,
    shape_text as _shape_text, dims_text as _dims_text)

_BF16 = _dt.bfloat16._np


def _product(a, b):
    """np.matmul / einsum helper: bfloat16 has no NumPy matmul loop, so it is computed in float32."""
    if a.dtype.kind == "V" and a.dtype == _BF16:     # the kind first: comparing to bfloat16 costs more
        return _blas.matmul(a.astype(np.float32), b.astype(np.float32)).astype(_BF16)
    return _blas.matmul(a, b)


def _swap(a):
    return a.swapaxes(-1, -2)     # the method: np.swapaxes' dispatch costs 1 us per MatMul operand


# -- MatMul (rank 2) ----------------------------------------------------------------------------

def _matmul_kernel(a, b, transpose_a=False, transpose_b=False):
    for i, x in enumerate((a, b)):
        if x.ndim < 2:
            raise errors.InvalidArgumentError(None, None, f"In[{i}] ndims must be >= 2")
    x = _swap(a) if transpose_a else a
    y = _swap(b) if transpose_b else b
    if x.shape[-1] != y.shape[-2]:
        raise errors.InvalidArgumentError(
            None, None, f"Matrix size-incompatible: In[0]: {_dims_text(a.shape)}, In[1]: {_dims_text(b.shape)}")
    if _exact.covers(x, y, transposed=transpose_a or transpose_b):   # small float32: TensorFlow's bits
        return _exact.tensorflow_matmul(x, y)
    return _product(x, y)


def _infer_matmul(inputs, attrs):
    a, b = inputs[0].shape, inputs[1].shape
    dtype = inputs[0].dtype
    for s in (a, b):
        if s.rank is not None and s.rank != 2:
            raise ValueError(f"Shape must be rank 2 but is rank {s.rank} for 'MatMul' with input shapes: "
                             f"{_shape_text(a)}, {_shape_text(b)}.")
    ad = a.as_list() if a.rank is not None else [None, None]
    bd = b.as_list() if b.rank is not None else [None, None]
    if attrs.get("transpose_a"):
        ad = ad[::-1]
    if attrs.get("transpose_b"):
        bd = bd[::-1]
    _check_inner(ad[1], bd[0], "MatMul", a, b)
    return [(dtype, TensorShape([ad[0], bd[1]]))]


def _check_inner(k1, k2, op_name, a, b):
    if k1 is not None and k2 is not None and k1 != k2:
        raise ValueError(f"Dimensions must be equal, but are {k1} and {k2} for '{op_name}' with input shapes: "
                         f"{_shape_text(a)}, {_shape_text(b)}.")


def _matmul_grad(op, grad):
    # C = op(A) op(B) with op a plain transpose; for complex inputs the gradient uses conj(A), conj(B).
    a, b = _math.conj(op.inputs[0]), _math.conj(op.inputs[1])
    ta, tb = op.attrs.get("transpose_a", False), op.attrs.get("transpose_b", False)
    if not ta and not tb:
        return [matmul(grad, b, transpose_b=True), matmul(a, grad, transpose_a=True)]
    if not ta:
        return [matmul(grad, b), matmul(grad, a, transpose_a=True)]
    if not tb:
        return [matmul(b, grad, transpose_b=True), matmul(a, grad)]
    return [matmul(b, grad, transpose_a=True, transpose_b=True), matmul(grad, a, transpose_a=True, transpose_b=True)]


MATMUL = OpDef("MatMul", _infer_matmul, _matmul_kernel, same_dtype=True, allowed=_MATMUL_TYPES,
               input_names=("a", "b"), grad=_matmul_grad)
MATMUL.fresh_output = True     # every path above returns a product array of its own


# -- BatchMatMulV2 ----------------------------------------------------------------------------------

def _adjoint(x):
    return np.conj(_swap(x)) if x.dtype.kind == "c" else _swap(x)


def _batch_matmul_kernel(a, b, adj_x=False, adj_y=False):
    for i, x in enumerate((a, b)):
        if x.ndim < 2:
            raise errors.InvalidArgumentError(None, None, f"In[{i}] ndims must be >= 2")
    try:
        np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except ValueError:
        raise errors.InvalidArgumentError(
            None, None, f"In[0] and In[1] must have compatible batch dimensions: {_dims_text(a.shape)} vs. "
                        f"{_dims_text(b.shape)}") from None
    x = _adjoint(a) if adj_x else a
    y = _adjoint(b) if adj_y else b
    if x.shape[-1] != y.shape[-2]:
        raise errors.InvalidArgumentError(
            None, None, f"Matrix size-incompatible: In[0]: {_dims_text(a.shape)}, In[1]: {_dims_text(b.shape)}")
    return _product(x, y)


def _infer_batch_matmul(inputs, attrs):
    a, b = inputs[0].shape, inputs[1].shape
    dtype = inputs[0].dtype
    for s in (a, b):
        if s.rank is not None and s.rank < 2:
            raise ValueError(f"Shape must be at least rank 2 but is rank {s.rank} for 'BatchMatMulV2' with input "
                             f"shapes: {_shape_text(a)}, {_shape_text(b)}.")
    if a.rank is None or b.rank is None:
        return [(dtype, TensorShape(None))]
    ad, bd = a.as_list(), b.as_list()
    m, ka = (ad[-1], ad[-2]) if attrs.get("adj_x") else (ad[-2], ad[-1])
    kb, n = (bd[-1], bd[-2]) if attrs.get("adj_y") else (bd[-2], bd[-1])
    _check_inner(ka, kb, "BatchMatMulV2", a, b)
    batch = broadcast_shape(TensorShape(ad[:-2]), TensorShape(bd[:-2]))
    return [(dtype, TensorShape(batch.as_list() + [m, n]))]


def _batch_matmul_grad(op, grad):
    # C = op(X) op(Y) with op the adjoint; batch dims that were broadcast are summed back.
    x, y = op.inputs
    adj_x, adj_y = op.attrs.get("adj_x", False), op.attrs.get("adj_y", False)
    if not adj_x and not adj_y:
        gx, gy = matmul(grad, y, adjoint_b=True), matmul(x, grad, adjoint_a=True)
    elif not adj_x:
        gx, gy = matmul(grad, y), matmul(grad, x, adjoint_a=True)
    elif not adj_y:
        gx, gy = matmul(y, grad, adjoint_b=True), matmul(x, grad)
    else:
        gx, gy = matmul(y, grad, adjoint_a=True, adjoint_b=True), matmul(grad, x, adjoint_a=True, adjoint_b=True)
    return [_summation.reduce_to(gx, x), _summation.reduce_to(gy, y)]


BATCH_MATMUL = OpDef("BatchMatMulV2", _infer_batch_matmul, _batch_matmul_kernel, same_dtype=True,
                     allowed=_MATMUL_TYPES, input_names=("x", "y"), grad=_batch_matmul_grad)


def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False, a_is_sparse=False,
           b_is_sparse=False, name=None):
    """`tf.linalg.matmul`: the matrix product of the innermost two dimensions (batch dimensions broadcast).

    The `*_is_sparse` flags are TensorFlow's performance hints; the product is computed densely.
    """
    if transpose_a and adjoint_a:
        raise ValueError(f"Only one of `transpose_a` and `adjoint_a` can be True. Received `transpose_a`="
                         f"{transpose_a}, `adjoint_a`={adjoint_a}.")
    if transpose_b and adjoint_b:
        raise ValueError(f"Only one of `transpose_b` and `adjoint_b` can be True. Received `transpose_b`="
                         f"{transpose_b}, `adjoint_b`={adjoint_b}.")
    a, b = _pair(a, b)
    name = name or "MatMul"
    rank_a, rank_b = a.shape.rank, b.shape.rank
    complex_adjoint = (adjoint_a or adjoint_b) and a.dtype.is_complex
    if rank_a is not None and rank_b is not None and rank_a <= 2 and rank_b <= 2 and not complex_adjoint:
        attrs = None
        if transpose_a or transpose_b or adjoint_a or adjoint_b:
            attrs = {"transpose_a": bool(transpose_a or adjoint_a), "transpose_b": bool(transpose_b or adjoint_b)}
        return apply(MATMUL, (a, b), attrs, name)
    if a.dtype.is_complex and (transpose_a or transpose_b):
        raise ValueError("transpose of complex batched matrices is not supported; use adjoint_a/adjoint_b")
    attrs = None
    if transpose_a or transpose_b or adjoint_a or adjoint_b:
        attrs = {"adj_x": bool(transpose_a or adjoint_a), "adj_y": bool(transpose_b or adjoint_b)}
    return apply(BATCH_MATMUL, (a, b), attrs, name)


# ==================================================================================================
# Matrix functions: inverse, determinants, solve, Cholesky, diagonals, band part, trace, norms
# ==================================================================================================
# The kernels work on the innermost two dimensions with NumPy's batched linalg routines; TensorFlow's
# CPU kernels for these ops accept float32/float64/complex64/complex128.

_LINALG_TYPES = (_dt.float32, _dt.float64) + COMPLEX
_INDEX_TYPES = (_dt.int32, _dt.int64)
LogMatrixDeterminant = _collections.namedtuple("LogMatrixDeterminant", ["sign", "log_abs_determinant"])


def _bad(message):
    return errors.InvalidArgumentError(None, None, message)


def _check_square(x):
    if x.ndim < 2:
        raise _bad(f"Input tensor 0 must have rank >= 2, got {x.ndim}")
    if x.shape[-1] != x.shape[-2]:
        raise _bad("Input matrix must be square.")


def _infer_square(inputs, attrs, drop=0):
    """A batch of square matrices in, the same shape out (`drop` trailing dims removed)."""
    x = inputs[0]
    dims = x.shape._dims
    if dims is None:
        return TensorShape(None)
    if len(dims) < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {len(dims)}")
    if dims[-1] is not None and dims[-2] is not None and dims[-1] != dims[-2]:
        raise ValueError(f"Dimensions must be equal, but are {dims[-2]} and {dims[-1]}")
    return TensorShape(dims[:len(dims) - drop])


def _matrix_inverse_kernel(x, adjoint=False):
    _check_square(x)
    a = _adjoint(x) if adjoint else x
    try:
        return np.linalg.inv(a).astype(x.dtype, copy=False)
    except np.linalg.LinAlgError:
        raise _bad("Input is not invertible.") from None


def _matrix_inverse_grad(op, grad):
    # d(A^-1) = -A^-1 dA A^-1, so the gradient is -Y^H G Y^H (with A^H inverted instead: -Y G^H Y).
    y = op.outputs[0]
    if op.attrs.get("adjoint"):
        return [_math.negative(matmul(y, matmul(grad, y, adjoint_a=True)))]
    return [_math.negative(matmul(y, matmul(grad, y, adjoint_b=True), adjoint_a=True))]


MATRIX_INVERSE = OpDef("MatrixInverse", lambda i, a: [(i[0].dtype, _infer_square(i, a))], _matrix_inverse_kernel,
                       allowed=_LINALG_TYPES, input_names=("input",), grad=_matrix_inverse_grad)


def _per_matrix(t):
    """A batch of scalars shaped [..., 1, 1] to scale a batch of matrices."""
    return _shaping.expand_dims(_shaping.expand_dims(t, -1), -1)


def _determinant_kernel(x):
    _check_square(x)
    return np.asarray(np.linalg.det(x)).astype(x.dtype, copy=False)


def _determinant_grad(op, grad):
    # d det(A) / dA = det(A) A^-H
    scale = _per_matrix(_math.multiply(grad, op.outputs[0]))
    return [_math.multiply(scale, inv(op.inputs[0], adjoint=True))]


MATRIX_DETERMINANT = OpDef("MatrixDeterminant", lambda i, a: [(i[0].dtype, _infer_square(i, a, drop=2))],
                           _determinant_kernel, allowed=_LINALG_TYPES, input_names=("input",),
                           grad=_determinant_grad)


def _log_determinant_kernel(x):
    _check_square(x)
    sign, log_abs = np.linalg.slogdet(x)
    return np.asarray(sign).astype(x.dtype), np.asarray(log_abs).astype(x.dtype)


def _log_determinant_grad(op, grad_sign, grad_log_abs):
    # d log|det A| / dA = A^-H; the sign is piecewise constant.
    return [_math.multiply(_per_matrix(grad_log_abs), inv(op.inputs[0], adjoint=True))]


def _infer_log_determinant(inputs, attrs):
    shape = _infer_square(inputs, attrs, drop=2)
    return [(inputs[0].dtype, shape), (inputs[0].dtype, shape)]


LOG_MATRIX_DETERMINANT = OpDef("LogMatrixDeterminant", _infer_log_determinant, _log_determinant_kernel,
                               allowed=_LINALG_TYPES, input_names=("input",), multi=True,
                               grad=_log_determinant_grad)


def _matrix_solve_kernel(matrix, rhs, adjoint=False):
    _check_square(matrix)
    if matrix.ndim != rhs.ndim:
        raise _bad("All input tensors must have the same rank.")
    if matrix.shape[:-2] != rhs.shape[:-2]:
        raise _bad("All input tensors must have the same outer dimensions.")
    if matrix.shape[-1] != rhs.shape[-2]:
        raise _bad("Input matrix and rhs are incompatible.")
    a = _adjoint(matrix) if adjoint else matrix
    try:
        return np.linalg.solve(a, rhs).astype(matrix.dtype, copy=False)
    except np.linalg.LinAlgError:
        raise _bad("Input matrix is not invertible.") from None


def _infer_matrix_solve(inputs, attrs):
    _infer_square(inputs, attrs)
    rhs = inputs[1].shape
    if rhs.rank is not None and rhs.rank < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {rhs.rank}")
    return [(inputs[0].dtype, rhs)]


def _matrix_solve_grad(op, grad):
    # X = A^-1 B: dB = A^-H G, dA = -dB X^H (transposed roles when solving with A^H).
    matrix, x = op.inputs[0], op.outputs[0]
    adjoint = op.attrs.get("adjoint", False)
    grad_rhs = solve(matrix, grad, adjoint=not adjoint)
    if adjoint:
        return [_math.negative(matmul(x, grad_rhs, adjoint_b=True)), grad_rhs]
    return [_math.negative(matmul(grad_rhs, x, adjoint_b=True)), grad_rhs]


MATRIX_SOLVE = OpDef("MatrixSolve", _infer_matrix_solve, _matrix_solve_kernel, same_dtype=True, allowed=_LINALG_TYPES,
                     input_names=("matrix", "rhs"), grad=_matrix_solve_grad)


def _cholesky_kernel(x):
    _check_square(x)
    try:
        return np.linalg.cholesky(x).astype(x.dtype, copy=False)
    except np.linalg.LinAlgError:
        pass
    # Some matrix is not positive definite: TensorFlow does not raise, it fills that factor with NaN.
    flat = x.reshape((-1,) + x.shape[-2:])
    out = np.empty_like(flat)
    failed = np.tril(np.full(x.shape[-2:], np.nan, dtype=x.dtype))
    for i, m in enumerate(flat):  # only on this failure path: one factorisation per matrix
        try:
            out[i] = np.linalg.cholesky(m)
        except np.linalg.LinAlgError:
            out[i] = failed
    return out.reshape(x.shape)


def _cholesky_grad(op, grad):
    # For A = L L^H: grad_A = sym(L^-H Phi(L^H G) L^-1) with Phi taking the lower triangle and halving its
    # diagonal, sym(M) = (M + M^H) / 2.
    l = op.outputs[0]
    l_inverse = inv(l)
    middle = matmul(l, grad, adjoint_a=True)
    middle = _math.subtract(middle, _math.multiply(diag(diag_part(middle)), _math.cast(0.5, middle.dtype)))
    middle = band_part(middle, -1, 0)
    grad_a = matmul(matmul(l_inverse, middle, adjoint_a=True), l_inverse)
    grad_a = _math.add(grad_a, adjoint(grad_a))
    return [_math.multiply(grad_a, _math.cast(0.5, grad_a.dtype))]


CHOLESKY = OpDef("Cholesky", lambda i, a: [(i[0].dtype, _infer_square(i, a))], _cholesky_kernel,
                 allowed=_LINALG_TYPES, input_names=("input",), grad=_cholesky_grad)


def _linalg_operand(x):
    return x if isinstance(x, Tensor) else convert_to_tensor(x)


def inv(input, adjoint=False, name=None):  # noqa: A002 - TensorFlow's argument name
    """`tf.linalg.inv`: the inverse of each square matrix in the innermost two dims (of its adjoint if asked)."""
    attrs = {"adjoint": True} if adjoint else None
    return apply(MATRIX_INVERSE, (_linalg_operand(input),), attrs, name or "MatrixInverse")


def det(input, name=None):  # noqa: A002
    """`tf.linalg.det`: the determinant of each square matrix in the innermost two dims."""
    return apply(MATRIX_DETERMINANT, (_linalg_operand(input),), None, name or "MatrixDeterminant")


def slogdet(input, name=None):  # noqa: A002
    """`tf.linalg.slogdet`: (sign, log|det|) of each square matrix, without overflowing the determinant."""
    sign, log_abs = apply(LOG_MATRIX_DETERMINANT, (_linalg_operand(input),), None, name or "LogMatrixDeterminant")
    return LogMatrixDeterminant(sign, log_abs)


def solve(matrix, rhs, adjoint=False, name=None):
    """`tf.linalg.solve`: X with matrix @ X = rhs (matrix^H @ X = rhs with `adjoint`), per batch entry."""
    matrix, rhs = _pair(matrix, rhs)
    attrs = {"adjoint": True} if adjoint else None
    return apply(MATRIX_SOLVE, (matrix, rhs), attrs, name or "MatrixSolve")


def cholesky(input, name=None):  # noqa: A002
    """`tf.linalg.cholesky`: the lower-triangular L with L @ L^H = input (only the lower triangle is read)."""
    return apply(CHOLESKY, (_linalg_operand(input),), None, name or "Cholesky")


def logdet(matrix, name=None):
    """`tf.linalg.logdet`: log(det(matrix)) of Hermitian positive definite matrices, via Cholesky."""
    name = name or "logdet"
    diagonal = diag_part(cholesky(matrix, name=f"{name}/Cholesky"))
    if diagonal.dtype.is_complex:
        diagonal = _math.abs(diagonal)
    total = _reduce.reduce_sum(_math.log(diagonal, name=f"{name}/Log"), -1, name=f"{name}/Sum")
    return _math.multiply(_math.cast(2.0, total.dtype), total, name=name)


# -- diagonals and bands ---------------------------------------------------------------------------------

def _single_k(k):
    k = np.asarray(k).reshape(-1)
    if k.size == 2 and k[0] != k[1]:
        raise errors.UnimplementedError(None, None, "tensorflux supports a single diagonal (k as one integer), "
                                                    "not a band of diagonals.")
    if k.size not in (1, 2):
        raise _bad(f"diag_index must be a scalar or vector with one or two elements. Received size: {k.size}")
    return int(k[0])


def _diag_dims(length, k, num_rows, num_cols):
    """The (rows, cols) of the matrix holding a length-`length` diagonal at offset k, with TF's checks."""
    min_rows, min_cols = length + max(-k, 0), length + max(k, 0)
    if num_rows == -1 and num_cols == -1:
        num_rows = num_cols = max(min_rows, min_cols)
    elif num_rows == -1:
        num_rows = min_rows
    elif num_cols == -1:
        num_cols = min_cols
    if num_rows != min_rows and num_cols != min_cols:
        raise _bad("The number of rows or columns is not consistent with the specified d_lower, d_upper, and "
                   "diagonal.")
    if num_rows < min_rows:
        raise _bad("The number of rows is too small.")
    if num_cols < min_cols:
        raise _bad("The number of columns is too small.")
    return num_rows, num_cols


def _matrix_diag_kernel(diagonal, k, num_rows, num_cols, padding_value, align="RIGHT_LEFT"):
    if diagonal.ndim < 1:
        raise _bad(f"diagonal must be at least 1-dim, received shape: {_dims_text(diagonal.shape)}")
    k = _single_k(k)
    length = diagonal.shape[-1]
    rows, cols = _diag_dims(length, k, int(num_rows), int(num_cols))
    out = np.full(diagonal.shape[:-1] + (rows, cols), padding_value, dtype=diagonal.dtype)
    i = np.arange(length)
    out[..., i + max(-k, 0), i + max(k, 0)] = diagonal
    return out


def _static_int(t):
    value = constant_value(t)
    return None if value is None else np.asarray(value)


def _infer_matrix_diag(inputs, attrs):
    diagonal = inputs[0]
    dims = diagonal.shape._dims
    if dims is None:
        return [(diagonal.dtype, TensorShape(None))]
    if not dims:
        raise ValueError("diagonal must be at least 1-dim, received shape: []")
    k, num_rows, num_cols = (_static_int(t) for t in inputs[1:4])
    rows = cols = None
    if k is not None and num_rows is not None and num_cols is not None and dims[-1] is not None:
        try:
            rows, cols = _diag_dims(dims[-1], _single_k(k), int(num_rows), int(num_cols))
        except errors.InvalidArgumentError as e:
            raise ValueError(e.message) from None
    return [(diagonal.dtype, TensorShape(list(dims[:-1]) + [rows, cols]))]


def _diagonal_length(rows, cols, k):
    return max(0, min(rows + min(k, 0), cols - max(k, 0)))


def _matrix_diag_part_kernel(x, k, padding_value, align="RIGHT_LEFT"):
    if x.ndim < 2:
        raise _bad(f"input must be at least 2-dim, received shape: {_dims_text(x.shape)}")
    k = _single_k(k)
    rows, cols = x.shape[-2:]
    if not (-rows < k < cols or k == 0):
        raise _bad(f"lower_diag_index is out of bound: {k}. It must be between {-rows} and {cols}")
    i = np.arange(_diagonal_length(rows, cols, k))
    return x[..., i + max(-k, 0), i + max(k, 0)]


def _infer_matrix_diag_part(inputs, attrs):
    x = inputs[0]
    dims = x.shape._dims
    if dims is None:
        return [(x.dtype, TensorShape(None))]
    if len(dims) < 2:
        raise ValueError(f"input must be at least 2-dim, received shape: {_dims_text(dims)}")
    k = _static_int(inputs[1])
    rows, cols = dims[-2:]
    length = None
    if k is not None and rows is not None and cols is not None:
        length = _diagonal_length(rows, cols, _single_k(k))
    return [(x.dtype, TensorShape(list(dims[:-2]) + [length]))]


def _matrix_diag_grad(op, grad):
    return [apply(MATRIX_DIAG_PART, (grad, op.inputs[1], _creators.zeros_like(op.inputs[4])),
                  {"align": op.attrs.get("align", "RIGHT_LEFT")}, "MatrixDiagPartV3"), None, None, None, None]


def _last_dims(x):
    """x's last two dims as scalar int32 tensors (constants when static, shape slices otherwise)."""
    dims = x.shape._dims
    if dims is not None and dims[-1] is not None and dims[-2] is not None:
        return convert_to_tensor(np.int32(dims[-2])), convert_to_tensor(np.int32(dims[-1]))
    shape = _shape_ops.shape(x)
    return shape[-2], shape[-1]


def _matrix_diag_part_grad(op, grad):
    x = op.inputs[0]
    rows, cols = _last_dims(x)
    padding = _creators.zeros_like(op.inputs[2])
    return [apply(MATRIX_DIAG, (grad, op.inputs[1], rows, cols, padding),
                  {"align": op.attrs.get("align", "RIGHT_LEFT")},
                  "MatrixDiagV3"), None, None]


MATRIX_DIAG = OpDef("MatrixDiagV3", _infer_matrix_diag, _matrix_diag_kernel, grad=_matrix_diag_grad,
                    input_names=("diagonal", "k", "num_rows", "num_cols", "padding_value"))
MATRIX_DIAG_PART = OpDef("MatrixDiagPartV3", _infer_matrix_diag_part, _matrix_diag_part_kernel,
                         grad=_matrix_diag_part_grad, input_names=("input", "k", "padding_value"))


def _band_kernel(x, num_lower, num_upper):
    if x.ndim < 2:
        raise _bad(f"input must be at least 2-dim, received shape: {_dims_text(x.shape)}")
    rows, cols = x.shape[-2:]
    lower, upper = int(num_lower), int(num_upper)
    if lower > rows:
        raise _bad(f"num_lower must be negative or less or equal to number of rows ({rows}) got: {lower}")
    if upper > cols:
        raise _bad(f"num_upper must be negative or less or equal to number of columns ({cols}) got: {upper}")
    offset = np.arange(cols)[None, :] - np.arange(rows)[:, None]  # j - i
    keep = ((lower < 0) | (-offset <= lower)) & ((upper < 0) | (offset <= upper))
    return np.where(keep, x, np.zeros((), x.dtype))


def _infer_band(inputs, attrs):
    x = inputs[0]
    if x.shape.rank is not None and x.shape.rank < 2:
        raise ValueError(f"input must be at least 2-dim, received shape: {_dims_text(x.shape.as_list())}")
    return [(x.dtype, x.shape)]


def _band_grad(op, grad):
    return [apply(MATRIX_BAND_PART, (grad, op.inputs[1], op.inputs[2]), None, "MatrixBandPart"), None, None]


MATRIX_BAND_PART = OpDef("MatrixBandPart", _infer_band, _band_kernel, grad=_band_grad,
                         input_names=("input", "num_lower", "num_upper"))


def _index_operand(value, op_name, param):
    t = value if isinstance(value, Tensor) else convert_to_tensor(value, dtype_hint=_dt.int32)
    if t.dtype not in _INDEX_TYPES:
        raise TypeError(f"Value passed to parameter '{param}' has DataType {t.dtype.name} not in list of allowed "
                        f"values: int32, int64")
    return t


def diag(diagonal, name="diag", k=0, num_rows=-1, num_cols=-1, padding_value=0, align="RIGHT_LEFT"):
    """`tf.linalg.diag`: matrices with `diagonal` on the k-th diagonal and `padding_value` elsewhere."""
    diagonal = _linalg_operand(diagonal)
    inputs = (diagonal, _index_operand(k, "MatrixDiagV3", "k"), _index_operand(num_rows, "MatrixDiagV3", "num_rows"),
              _index_operand(num_cols, "MatrixDiagV3", "num_cols"),
              padding_value if isinstance(padding_value, Tensor) else convert_to_tensor(padding_value, diagonal.dtype))
    return apply(MATRIX_DIAG, inputs, {"align": align}, name or "diag")


def diag_part(input, name="diag_part", k=0, padding_value=0, align="RIGHT_LEFT"):  # noqa: A002
    """`tf.linalg.diag_part`: the k-th diagonal of each matrix in the innermost two dims."""
    x = _linalg_operand(input)
    padding = padding_value if isinstance(padding_value, Tensor) else convert_to_tensor(padding_value, x.dtype)
    return apply(MATRIX_DIAG_PART, (x, _index_operand(k, "MatrixDiagPartV3", "k"), padding), {"align": align},
                 name or "diag_part")


def band_part(input, num_lower, num_upper, name=None):  # noqa: A002
    """`tf.linalg.band_part`: keeps num_lower sub- and num_upper super-diagonals (negative keeps all)."""
    x = _linalg_operand(input)
    lower = _index_operand(num_lower, "MatrixBandPart", "num_lower")
    upper = _index_operand(num_upper, "MatrixBandPart", "num_upper")
    if lower.dtype is not upper.dtype:
        upper = _math.cast(upper, lower.dtype)
    return apply(MATRIX_BAND_PART, (x, lower, upper), None, name or "MatrixBandPart")


def trace(x, name=None):
    """`tf.linalg.trace`: the sum of the main diagonal of each matrix in the innermost two dims."""
    name = name or "Trace"
    return _reduce.reduce_sum(diag_part(x, name=f"{name}/diag_part"), -1, name=name)


def matrix_transpose(a, name="matrix_transpose", conjugate=False):
    """`tf.linalg.matrix_transpose`: swaps the innermost two dims (conjugating if asked)."""
    a = _linalg_operand(a)
    rank = a.shape.rank
    if rank is None:
        raise ValueError("tensorflux's matrix_transpose needs an input of known rank.")
    if rank < 2:
        raise ValueError(f"Argument `a` should be a (batch) matrix with rank >= 2.  Received `a` = {a} with shape: "
                         f"{a.shape}")
    perm = list(range(rank - 2)) + [rank - 1, rank - 2]
    return _reorder.transpose(a, perm, conjugate=conjugate, name=name or "matrix_transpose")


def adjoint(matrix, name=None):
    """`tf.linalg.adjoint`: the conjugate transpose of the innermost two dims."""
    return matrix_transpose(matrix, name=name or "adjoint", conjugate=True)


def matvec(a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False, b_is_sparse=False, name=None):
    """`tf.linalg.matvec`: the matrix-vector product of the innermost dims (batch dims broadcast)."""
    name = name or "MatVec"
    a, b = _pair(a, b)
    product = matmul(a, _shaping.expand_dims(b, -1), transpose_a=transpose_a, adjoint_a=adjoint_a,
                     name=f"{name}/MatMul")
    return _shaping.squeeze(product, -1, name=name)


# -- norms -------------------------------------------------------------------------------------------

_MATRIX_ORDS = ["euclidean", "fro", 1, 2, np.inf]


def _norm_axes(axis):
    """(axes tuple or None, is_matrix_norm) with TensorFlow's validation of `axis`."""
    shown = tuple(axis) if isinstance(axis, list) and len(axis) == 2 else axis  # TF shows pairs as tuples
    problem = ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique integers, got {shown}")
    if axis is None:
        return None, False
    if isinstance(axis, Tensor):
        value = constant_value(axis)
        if value is None:
            raise ValueError("`axis` of tf.norm must be statically known.")
        axis = value.tolist()
    if isinstance(axis, (list, tuple)):
        if len(axis) != 2 or not all(isinstance(a, (int, np.integer)) for a in axis) or axis[0] == axis[1]:
            raise problem
        return (int(axis[0]), int(axis[1])), True
    if isinstance(axis, (int, np.integer)) and not isinstance(axis, bool):
        return (int(axis),), False
    raise problem


def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None):  # noqa: A002 - TensorFlow's name
    """`tf.norm`: vector norms (over all elements or one axis) and matrix norms (over a pair of axes).

    Vector `ord`: 'euclidean', 1, 2, inf or any p > 0; matrix `ord`: 'euclidean'/'fro', 1, inf (and 2,
    which needs a singular value decomposition that tensorflux does not have).
    """
    name = name or "norm"
    axes, is_matrix = _norm_axes(axis)
    if is_matrix:
        if not any(ord is o or (not isinstance(ord, str) and not isinstance(o, str) and ord == o) or ord == o
                   for o in _MATRIX_ORDS):
            raise ValueError(f"'ord' must be a supported matrix norm in {_MATRIX_ORDS}, got {ord}")
    elif not (ord == "euclidean" or (not isinstance(ord, str) and ord > 0)):
        raise ValueError(f"'ord' must be a supported vector norm, got {ord}")
    tensor = _linalg_operand(tensor)
    if is_matrix and tensor.shape.rank is not None:
        rank = tensor.shape.rank
        axes = tuple(a % rank if -rank <= a < rank else a for a in axes)
    if ord in ("euclidean", "fro") or (ord == 2 and not is_matrix):
        squares = _math.multiply(tensor, _math.conj(tensor) if tensor.dtype.is_complex else tensor,
                                 name=f"{name}/mul")
        result = _math.sqrt(_reduce.reduce_sum(squares, axes, keepdims=True, name=f"{name}/Sum"), name=f"{name}/Sqrt")
    elif ord == 2:
        raise ValueError("tf.norm with ord=2 over two axes (the spectral norm) is not supported by tensorflux.")
    else:
        magnitude = _math.abs(tensor, name=f"{name}/Abs")
        if is_matrix:  # 1: the largest column sum; inf: the largest row sum
            sum_axis, max_axis = axes if ord == 1 else axes[::-1]
            sums = _reduce.reduce_sum(magnitude, sum_axis, keepdims=True, name=f"{name}/Sum")
            result = _reduce.reduce_max(sums, max_axis, keepdims=True, name=f"{name}/Max")
        elif ord == 1:
            result = _reduce.reduce_sum(magnitude, axes, keepdims=True, name=f"{name}/Sum")
        elif ord == np.inf:
            result = _reduce.reduce_max(magnitude, axes, keepdims=True, name=f"{name}/Max")
        else:
            p = convert_to_tensor(ord, dtype=magnitude.dtype)
            powered = _reduce.reduce_sum(_math.pow(magnitude, p), axes, keepdims=True, name=f"{name}/Sum")
            result = _math.pow(powered, _math.realdiv(_creators.ones_like(p), p), name=f"{name}/Pow")
    if not keepdims:
        result = _shaping.squeeze(result, list(axes) if axes is not None else None, name=f"{name}/Squeeze")
    return result


API = {
    "": ["matmul", "einsum", "tensordot", "norm"],
    "linalg": ["matmul", "einsum", "tensordot", "inv", "det", "slogdet", "logdet", "solve", "cholesky", "diag",
               "diag_part", "band_part", "trace", "norm", "matvec", "matrix_transpose", "adjoint"],
}
