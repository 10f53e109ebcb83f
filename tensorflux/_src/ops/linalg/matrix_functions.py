"""Functions of matrices built on the decompositions: `expm` (scaling and squaring with a degree-13 Padé
approximant), `logm` (MatrixLogarithm), `sqrtm` (MatrixSquareRoot), `pinv` and `matrix_rank` (from the
SVD), `lstsq` (MatrixSolveLs), the LU helpers `lu_solve`/`lu_reconstruct`/`lu_matrix_inverse`, `cross`
(Cross) and `normalize`.

`expm` is composite in TensorFlow; here it is one op (MatrixExponential) whose gradient is the Fréchet
derivative read off the exponential of a block matrix, exp([[A^H, G], [0, A^H]]) = [[., grad_A], [0, .]].
"""
import numpy as np

from ...framework import errors
from ...framework.tensor import Tensor
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..convert import convert_to_tensor
from ..infer import broadcast_shape
from ..registry import OpDef, apply, COMPLEX, NUMBER
from ..shapes import creators as _creators
from ..shapes import shape_ops as _shape_ops
from ..math import arith as _math
from ..math import reduce as _reduce
from ..math import complex as _complex
from ..math import logic as _logic
from ..array import creation as _creation
from ..array import gather as _gather
from ..array import join as _join
from ..array import sorting as _sorting
from ..array import where as _where
from .matrix import matmul, adjoint, band_part, cholesky, norm
from .structured import triangular_solve, cholesky_solve
from .decompositions import svd

_FUNCTION_TYPES = (_dt.float64, _dt.float32, _dt.float16) + COMPLEX
_HALF = np.dtype(np.float16)


def _bad(message):
    return errors.InvalidArgumentError(None, None, message)


def _operand(x, dtype=None):
    return x if isinstance(x, Tensor) else convert_to_tensor(x, dtype=dtype)


def _check_square(x):
    if x.ndim < 2:
        raise _bad(f"Input tensor 0 must have rank >= 2, got {x.ndim}")
    if x.shape[-1] != x.shape[-2]:
        raise _bad("Input matrix must be square.")


def _infer_square(inputs, attrs, op_name):
    x = inputs[0]
    dims = x.shape._dims
    if dims is not None:
        if len(dims) < 2:
            raise ValueError(f"Shape must be at least rank 2 but is rank {len(dims)} for '{op_name}'")
        if dims[-1] is not None and dims[-2] is not None and dims[-1] != dims[-2]:
            raise ValueError(f"Dimensions must be equal, but are {dims[-2]} and {dims[-1]} for '{op_name}'")
    return [(x.dtype, x.shape)]


# -- MatrixExponential -------------------------------------------------------------------------------

# Higham (2005): the [13/13] Padé coefficients and the 1-norm bound below which no squaring is needed.
_PADE_13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
            129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0, 40840800.0,
            960960.0, 16380.0, 182.0, 1.0)
_THETA_13 = 5.371920351148152


def _expm_one(a):
    n = a.shape[-1]
    norm1 = np.abs(a).sum(axis=0).max() if n else 0.0
    squarings = max(0, int(np.ceil(np.log2(norm1 / _THETA_13)))) if norm1 > _THETA_13 else 0
    a = a / (2.0 ** squarings)
    b = _PADE_13
    ident = np.eye(n, dtype=a.dtype)
    a2 = a @ a
    a4 = a2 @ a2
    a6 = a4 @ a2
    u = a @ (a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * ident)
    v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * ident
    r = np.linalg.solve(v - u, v + u)
    for _ in range(squarings):
        r = r @ r
    return r


def _expm_kernel(x):
    _check_square(x)
    work = x.astype(np.float64 if x.dtype.kind == "f" else np.complex128)
    flat = work.reshape((-1,) + x.shape[-2:])
    out = np.stack([_expm_one(m) for m in flat]) if flat.shape[0] else flat
    return out.reshape(x.shape).astype(x.dtype)


def _expm_grad(op, grad):
    a = op.inputs[0]
    a_h = adjoint(a)
    zeros = _creators.zeros_like(a)
    block = _join.concat([_join.concat([a_h, grad], axis=-1), _join.concat([zeros, a_h], axis=-1)], axis=-2)
    n = _shape_ops.shape(a)[-1]
    return [expm(block)[..., :n, n:]]


MATRIX_EXPONENTIAL = OpDef("MatrixExponential", lambda i, a: _infer_square(i, a, "MatrixExponential"),
                           _expm_kernel, allowed=_FUNCTION_TYPES, input_names=("input",), grad=_expm_grad)


def expm(input, name=None):  # noqa: A002 - TensorFlow's argument name
    """`tf.linalg.expm`: the matrix exponential of each square matrix in the innermost two dims."""
    return apply(MATRIX_EXPONENTIAL, (_operand(input),), None, name or "MatrixExponential")


# -- MatrixLogarithm / MatrixSquareRoot (by eigendecomposition) ------------------------------------

def _spectral(x, fn, real_result):
    _check_square(x)
    work = x.astype(np.complex128)
    e, v = np.linalg.eig(work)
    out = (v * fn(e)[..., None, :]) @ np.linalg.inv(v)
    if real_result:
        out = out.real
    return out.astype(x.dtype)


def _logm_kernel(x):
    return _spectral(x, np.log, False)


def _sqrtm_kernel(x):
    return _spectral(x, np.sqrt, x.dtype.kind != "c")


MATRIX_LOGARITHM = OpDef("MatrixLogarithm", lambda i, a: _infer_square(i, a, "MatrixLogarithm"), _logm_kernel,
                         allowed=COMPLEX, input_names=("input",))
MATRIX_SQUARE_ROOT = OpDef("MatrixSquareRoot", lambda i, a: _infer_square(i, a, "MatrixSquareRoot"),
                           _sqrtm_kernel, allowed=_FUNCTION_TYPES, input_names=("input",))


def logm(input, name=None):  # noqa: A002
    """`tf.linalg.logm`: the principal matrix logarithm of complex square matrices."""
    return apply(MATRIX_LOGARITHM, (_operand(input),), None, name or "MatrixLogarithm")


def sqrtm(input, name=None):  # noqa: A002
    """`tf.linalg.sqrtm`: the principal square root of square matrices (no eigenvalue on the negative axis)."""
    return apply(MATRIX_SQUARE_ROOT, (_operand(input),), None, name or "MatrixSquareRoot")


# -- Cross -----------------------------------------------------------------------------------------------

def _cross_kernel(a, b):
    if a.shape != b.shape:
        raise _bad(f"Both inputs must be of same shape: {list(a.shape)} vs. {list(b.shape)}")
    if a.ndim < 1:
        raise _bad("Input must be at least 1D")
    if a.shape[-1] != 3:
        raise errors.FailedPreconditionError(None, None, "Cross-products are only defined for 3-element vectors.")
    return np.cross(a, b).astype(a.dtype, copy=False)


def _infer_cross(inputs, attrs):
    a, b = inputs[0].shape, inputs[1].shape
    if a.rank is not None and b.rank is not None:
        if a.rank != b.rank:
            raise ValueError(f"Shapes must be equal rank, but are {a.rank} and {b.rank} for 'Cross'")
        shape = a.merge_with(b)
        if shape._dims and shape._dims[-1] is not None and shape._dims[-1] != 3:
            raise ValueError(f"Dimension must be 3 but is {shape._dims[-1]} for 'Cross'")
        return [(inputs[0].dtype, shape)]
    return [(inputs[0].dtype, a if a.rank is not None else b)]


CROSS = OpDef("Cross", _infer_cross, _cross_kernel, same_dtype=True,
              allowed=tuple(d for d in NUMBER if d not in COMPLEX), input_names=("a", "b"),
              grad=lambda op, grad: [cross(op.inputs[1], grad), cross(grad, op.inputs[0])])


def cross(a, b, name=None):
    """`tf.linalg.cross`: the pairwise cross product of 3-element vectors in the innermost dimension."""
    a = _operand(a)
    b = _operand(b, dtype=a.dtype if not isinstance(b, Tensor) else None)
    return apply(CROSS, (a, b), None, name or "Cross")


# -- MatrixSolveLs -----------------------------------------------------------------------------------

def _solve_ls_kernel(matrix, rhs, l2_regularizer, fast=True):
    for i, t in enumerate((matrix, rhs)):
        if t.ndim < 2:
            raise _bad(f"Input tensor {i} must have rank >= 2, got {t.ndim}")
    if matrix.shape[-2] != rhs.shape[-2]:
        raise _bad(f"Incompatible matrix dimensions: {matrix.shape[-2]} vs. {rhs.shape[-2]}")
    lam = float(l2_regularizer)
    work = np.float32 if matrix.dtype == _HALF else matrix.dtype
    a, b = matrix.astype(work), rhs.astype(work)
    m, n = a.shape[-2:]
    a_h = np.conj(np.swapaxes(a, -1, -2))
    if fast:  # the normal equations by Cholesky, as TensorFlow's fast path
        if m >= n:
            gram = a_h @ a + lam * np.eye(n, dtype=work)
            out = _cholesky_solve_np(gram, a_h @ b)
        else:
            gram = a @ a_h + lam * np.eye(m, dtype=work)
            out = a_h @ _cholesky_solve_np(gram, b)
    else:
        if lam != 0.0:
            raise errors.UnimplementedError(None, None, "complete orthogonal decomposition with "
                                                        "l2_regularizer != 0 is not supported")
        out = np.stack([np.linalg.lstsq(x, y, rcond=None)[0] for x, y in
                        zip(a.reshape((-1, m, n)), b.reshape((-1,) + b.shape[-2:]))]).reshape(
            a.shape[:-2] + (n, b.shape[-1]))
    return out.astype(matrix.dtype, copy=False)


def _cholesky_solve_np(gram, rhs):
    try:
        low = np.linalg.cholesky(gram)
    except np.linalg.LinAlgError:
        raise _bad("Cholesky decomposition was not successful. The input might not be valid.") from None
    return np.linalg.solve(np.conj(np.swapaxes(low, -1, -2)), np.linalg.solve(low, rhs))


def _infer_solve_ls(inputs, attrs):
    a, b = inputs[0].shape, inputs[1].shape
    for s in (a, b):
        if s.rank is not None and s.rank < 2:
            raise ValueError(f"Shape must be at least rank 2 but is rank {s.rank} for 'MatrixSolveLs'")
    if a.rank is None or b.rank is None:
        return [(inputs[0].dtype, TensorShape(None))]
    ad, bd = a.as_list(), b.as_list()
    if ad[-2] is not None and bd[-2] is not None and ad[-2] != bd[-2]:
        raise ValueError(f"Dimensions must be equal, but are {ad[-2]} and {bd[-2]} for 'MatrixSolveLs'")
    batch = broadcast_shape(TensorShape(ad[:-2]), TensorShape(bd[:-2]))
    return [(inputs[0].dtype, TensorShape(batch.as_list() + [ad[-1], bd[-1]]))]


def _regularized_gram_cholesky(a, l2, first_kind):
    gram = matmul(a, a, adjoint_a=first_kind, adjoint_b=not first_kind)
    size = _shape_ops.shape(gram)[-1]
    gram = _math.add(gram, _math.multiply(_math.cast(l2, a.dtype), _creation.eye(size, dtype=a.dtype)))
    return cholesky(gram)


def _solve_ls_grad(op, grad):
    # TensorFlow's MatrixSolveLsGrad: differentiates the regularised normal equations.
    a, b, l2 = op.inputs
    x = op.outputs[0]
    if not op.attrs.get("fast", True):
        raise ValueError("Gradient not defined for fast=False")
    dims = a.shape._dims
    if dims is None or dims[-2] is None or dims[-1] is None or dims[-2] >= dims[-1]:
        chol = _regularized_gram_cholesky(a, l2, True)
        z = cholesky_solve(chol, grad)
        xzt = matmul(x, z, adjoint_b=True)
        zx_sym = _math.add(xzt, adjoint(xzt))
        grad_a = _math.add(_math.negative(matmul(a, zx_sym)), matmul(b, z, adjoint_b=True))
        return [grad_a, matmul(a, z), None]
    chol = _regularized_gram_cholesky(a, l2, False)
    grad_b = cholesky_solve(chol, matmul(a, grad))
    tmp = cholesky_solve(chol, b)
    a1 = _math.negative(matmul(grad_b, matmul(tmp, a, adjoint_a=True)))
    a2 = matmul(tmp, _math.subtract(grad, matmul(a, grad_b, adjoint_a=True)), adjoint_b=True)
    return [_math.add(a1, a2), grad_b, None]


MATRIX_SOLVE_LS = OpDef("MatrixSolveLs", _infer_solve_ls, _solve_ls_kernel, allowed=_FUNCTION_TYPES,
                        input_names=("matrix", "rhs", "l2_regularizer"), grad=_solve_ls_grad)


def lstsq(matrix, rhs, l2_regularizer=0.0, fast=True, name=None):
    """`tf.linalg.lstsq`: the least-squares solution X of matrix @ X = rhs (ridge-regularised by
    `l2_regularizer`); `fast` solves the normal equations, `fast=False` an orthogonal decomposition."""
    matrix = _operand(matrix)
    rhs = _operand(rhs, dtype=matrix.dtype if not isinstance(rhs, Tensor) else None)
    l2 = convert_to_tensor(l2_regularizer, dtype=_dt.float64)
    return apply(MATRIX_SOLVE_LS, (matrix, rhs, l2), {"fast": bool(fast)}, name or "MatrixSolveLs")


# -- composites: pinv, matrix_rank, LU helpers, normalize -----------------------------------------

def _default_rcond(a):
    dims = a.shape._dims
    eps = float(np.finfo(a.dtype.real_dtype._np).eps)
    if dims is not None and dims[-1] is not None and dims[-2] is not None:
        return 10.0 * max(dims[-2], dims[-1]) * eps
    size = _reduce.reduce_max(_math.cast(_shape_ops.shape(a)[-2:], a.dtype.real_dtype))
    return _math.multiply(size, 10.0 * eps)


def pinv(a, rcond=None, validate_args=False, name=None):
    """`tf.linalg.pinv`: the Moore-Penrose pseudo-inverse from the SVD, singular values at or below
    rcond * max(s) dropped (rcond defaults to 10 * max(rows, cols) * eps)."""
    a = _operand(a)
    if rcond is None:
        rcond = _default_rcond(a)
    s, u, v = svd(a, full_matrices=False, compute_uv=True)
    cutoff = _math.multiply(_math.cast(rcond, s.dtype), _reduce.reduce_max(s, axis=-1, keepdims=True))
    keep = _logic.greater(s, cutoff)
    inverse = _where.where(keep, _math.divide_no_nan(_math.cast(1, s.dtype), s), _creators.zeros_like(s))
    inverse = _math.cast(inverse, a.dtype)
    return matmul(_math.multiply(v, inverse[..., None, :]), u, adjoint_b=True, name=name)


def matrix_rank(a, tol=None, validate_args=False, name=None):
    """`tf.linalg.matrix_rank`: the number of singular values above `tol` (default max(s) * max(rows,
    cols) * eps), as int32."""
    a = _operand(a)
    s = svd(a, compute_uv=False)
    if tol is None:
        dims = a.shape._dims
        eps = float(np.finfo(a.dtype.real_dtype._np).eps)
        if dims is not None and dims[-1] is not None and dims[-2] is not None:
            scale = float(max(dims[-2], dims[-1])) * eps
        else:
            scale = _math.multiply(_reduce.reduce_max(_math.cast(_shape_ops.shape(a)[-2:], s.dtype)), eps)
        tol = _math.multiply(_reduce.reduce_max(s, axis=-1, keepdims=True), scale)
    above = _math.cast(_logic.greater(s, _math.cast(tol, s.dtype)), _dt.int32)
    return _reduce.reduce_sum(above, axis=-1, name=name)


def _strict_lower(x):
    return _math.subtract(band_part(x, -1, 0), band_part(x, 0, 0))


def _unit_lower(lower_upper):
    """L of a packed LU factor: its strict lower triangle plus the unit diagonal."""
    size = _shape_ops.shape(lower_upper)[-1]
    return _math.add(_strict_lower(lower_upper), _creation.eye(size, dtype=lower_upper.dtype))


def _batch_dims(perm):
    return perm.shape.rank - 1 if perm.shape.rank is not None else 0


def lu_reconstruct(lower_upper, perm, validate_args=False, name=None):
    """`tf.linalg.lu_reconstruct`: the matrix whose `tf.linalg.lu` is (lower_upper, perm)."""
    lower_upper = _operand(lower_upper)
    perm = _operand(perm)
    product = matmul(_unit_lower(lower_upper), band_part(lower_upper, 0, -1))
    # Row i of the product is row perm[i] of the matrix: gather by the inverse permutation to undo it.
    inverse = _sorting.argsort(perm, axis=-1, stable=True)
    return _gather.gather(product, inverse, axis=-2, batch_dims=_batch_dims(perm), name=name)


def lu_solve(lower_upper, perm, rhs, validate_args=False, name=None):
    """`tf.linalg.lu_solve`: X with A @ X = rhs, given A's `tf.linalg.lu` factorisation."""
    lower_upper = _operand(lower_upper)
    perm = _operand(perm)
    rhs = _operand(rhs, dtype=lower_upper.dtype if not isinstance(rhs, Tensor) else None)
    batch_dims = _batch_dims(perm)
    permuted = _gather.gather(rhs, perm, axis=-2, batch_dims=batch_dims)
    y = triangular_solve(_unit_lower(lower_upper), permuted, lower=True)
    return triangular_solve(lower_upper, y, lower=False, name=name)


def lu_matrix_inverse(lower_upper, perm, validate_args=False, name=None):
    """`tf.linalg.lu_matrix_inverse`: the inverse of A from its `tf.linalg.lu` factorisation."""
    lower_upper = _operand(lower_upper)
    shape = _shape_ops.shape(lower_upper)
    eye = _creation.eye(shape[-1], batch_shape=shape[:-2], dtype=lower_upper.dtype)
    return lu_solve(lower_upper, perm, eye, name=name)


def normalize(tensor, ord="euclidean", axis=None, name=None):  # noqa: A002 - TensorFlow's argument name
    """`tf.linalg.normalize`: (tensor / norm, norm) with the norm kept as a broadcastable dimension."""
    tensor = _operand(tensor)
    magnitude = norm(tensor, ord=ord, axis=axis, keepdims=True)
    return _math.divide(tensor, magnitude, name=name), magnitude


API = {
    "linalg": ["expm", "logm", "sqrtm", "cross", "lstsq", "pinv", "matrix_rank", "lu_reconstruct", "lu_solve",
               "lu_matrix_inverse", "normalize"],
    "": ["matrix_square_root=sqrtm"],
}
