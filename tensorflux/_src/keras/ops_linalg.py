"""`keras.ops.linalg` (also in `keras.ops`): decompositions, solves, norms and inverses with NumPy's
return conventions (`svd` gives (u, s, vh), `lu_factor` LAPACK's row-swap pivots, `lstsq` the solution).
Integer inputs are computed as float32."""
import numpy as np

import tensorflux as tf

from .ops_base import convert_to_tensor, floating, operation


def _vector_rhs(b):
    return b.shape.rank == 1


@operation
def cholesky(x, upper=False):
    lower = tf.linalg.cholesky(floating(x))
    return tf.linalg.adjoint(lower) if upper else lower


@operation
def cholesky_inverse(x, upper=False):
    """The inverse of A from its Cholesky factor (A = L Lᴴ, or Uᴴ U with `upper`)."""
    factor = floating(x)
    lower = tf.linalg.adjoint(factor) if upper else factor
    identity = tf.eye(tf.shape(lower)[-1], batch_shape=tf.shape(lower)[:-2], dtype=lower.dtype) \
        if lower.shape.rank > 2 else tf.eye(lower.shape[-1], dtype=lower.dtype)
    return tf.linalg.cholesky_solve(lower, identity)


@operation
def det(x):
    return tf.linalg.det(floating(x))


@operation
def inv(x):
    return tf.linalg.inv(floating(x))


@operation
def eig(x):
    return tuple(tf.linalg.eig(floating(x)))


@operation
def eigh(x):
    return tuple(tf.linalg.eigh(floating(x)))


@operation
def solve(a, b):
    a, b = floating(a), floating(b)
    if _vector_rhs(b):
        return tf.squeeze(tf.linalg.solve(a, tf.expand_dims(b, -1)), -1)
    return tf.linalg.solve(a, b)


@operation
def solve_triangular(a, b, lower=False):
    a, b = floating(a), floating(b)
    if _vector_rhs(b):
        return tf.squeeze(tf.linalg.triangular_solve(a, tf.expand_dims(b, -1), lower=lower), -1)
    return tf.linalg.triangular_solve(a, b, lower=lower)


@operation
def lstsq(a, b, rcond=None):
    """The least-squares solution x of a · x ≈ b (through the pseudo-inverse, cut off at `rcond`)."""
    a, b = floating(a), floating(b)
    solution = tf.linalg.matmul(pinv(a, rcond), tf.expand_dims(b, -1) if _vector_rhs(b) else b)
    return tf.squeeze(solution, -1) if _vector_rhs(b) else solution


@operation
def pinv(x, rcond=None):
    x = floating(x)
    if rcond is None:
        rcond = 10.0 * max(x.shape[-2], x.shape[-1]) * np.finfo(x.dtype.as_numpy_dtype).eps
    return tf.linalg.pinv(x, rcond=rcond)


@operation
def qr(x, mode="reduced"):
    if mode not in ("reduced", "complete"):
        raise ValueError(f"`mode` argument value not supported. Expected one of {{'reduced', 'complete'}}. "
                         f"Received: mode={mode}")
    return tuple(tf.linalg.qr(floating(x), full_matrices=mode == "complete"))


@operation
def svd(x, full_matrices=True, compute_uv=True):
    """NumPy's svd: (u, s, vh), or the singular values alone without `compute_uv`."""
    x = floating(x)
    if not compute_uv:
        return tf.linalg.svd(x, compute_uv=False)
    s, u, v = tf.linalg.svd(x, full_matrices=full_matrices)
    return u, s, tf.linalg.adjoint(v)


@operation
def matrix_rank(x, tol=None):
    """The number of singular values above `tol` (default: largest · max(M, N) · eps), int32."""
    x = floating(x)
    s = tf.linalg.svd(x, compute_uv=False)
    if tol is None:
        tol = tf.reduce_max(s, axis=-1, keepdims=True) * max(x.shape[-2], x.shape[-1]) * \
            np.finfo(x.dtype.as_numpy_dtype).eps
    return tf.reduce_sum(tf.cast(s > tol, tf.int32), axis=-1)


@operation
def lu_factor(x):
    """(lu, pivots): L and U packed in one matrix, and the row permutation (Keras' TensorFlow backend returns
    TensorFlow's permutation: row i of L·U is row pivots[i] of x)."""
    lu, permutation = tf.linalg.lu(floating(x))
    return lu, tf.cast(permutation, tf.int32)


def _vector_norm(x, ord, axis, keepdims):  # noqa: A002
    if ord is None or ord == 2:
        return tf.sqrt(tf.reduce_sum(tf.square(tf.abs(x)), axis=axis, keepdims=keepdims))
    magnitude = tf.abs(x)
    if ord == np.inf:
        return tf.reduce_max(magnitude, axis=axis, keepdims=keepdims)
    if ord == -np.inf:
        return tf.reduce_min(magnitude, axis=axis, keepdims=keepdims)
    if ord == 0:
        return tf.reduce_sum(tf.cast(tf.not_equal(x, 0), magnitude.dtype), axis=axis, keepdims=keepdims)
    if ord == 1:
        return tf.reduce_sum(magnitude, axis=axis, keepdims=keepdims)
    if isinstance(ord, str):
        raise ValueError(f"Invalid `ord` argument for vector norm. Received: ord={ord}")
    power = tf.cast(ord, magnitude.dtype)
    return tf.pow(tf.reduce_sum(tf.pow(magnitude, power), axis=axis, keepdims=keepdims), 1.0 / power)


def _matrix_norm(x, ord, axis, keepdims):  # noqa: A002
    rows, cols = axis
    magnitude = tf.abs(x)
    if ord in (None, "fro"):
        result = tf.sqrt(tf.reduce_sum(tf.square(magnitude), axis=list(axis), keepdims=keepdims))
        return result
    if ord == "nuc" or ord in (2, -2):
        moved = tf.transpose(x, [i for i in range(x.shape.rank) if i not in (rows, cols)] + [rows, cols])
        s = tf.linalg.svd(moved, compute_uv=False)
        result = tf.reduce_sum(s, -1) if ord == "nuc" else (tf.reduce_max(s, -1) if ord == 2 else tf.reduce_min(s, -1))
    elif ord in (1, -1):
        sums = tf.reduce_sum(magnitude, axis=rows, keepdims=True)
        result = tf.reduce_max(sums, axis=cols, keepdims=True) if ord == 1 else tf.reduce_min(sums, axis=cols, keepdims=True)
        return result if keepdims else tf.squeeze(result, [rows, cols])
    elif ord in (np.inf, -np.inf):
        sums = tf.reduce_sum(magnitude, axis=cols, keepdims=True)
        result = tf.reduce_max(sums, axis=rows, keepdims=True) if ord == np.inf else \
            tf.reduce_min(sums, axis=rows, keepdims=True)
        return result if keepdims else tf.squeeze(result, [rows, cols])
    else:
        raise ValueError(f"Invalid `ord` argument for matrix norm. Received: ord={ord}")
    if keepdims:
        for a in sorted((rows, cols)):
            result = tf.expand_dims(result, a)
    return result


@operation
def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002
    """NumPy's norm: of the flattened array (axis None), vectors along one axis, or matrices along two."""
    x = floating(x)
    rank = x.shape.rank
    if axis is None:
        if ord is None:
            result = tf.sqrt(tf.reduce_sum(tf.square(tf.abs(x))))
            return tf.reshape(result, [1] * rank) if keepdims else result
        axis = tuple(range(rank))
    if isinstance(axis, int):
        axis = (axis,)
    axis = tuple(a % rank for a in axis)
    if len(axis) == 1:
        return _vector_norm(x, ord, axis[0], keepdims)
    if len(axis) == 2:
        return _matrix_norm(x, ord, axis, keepdims)
    raise ValueError(f"Improper number of dimensions to norm. Received: axis={axis}")


API_LINALG = ["cholesky", "cholesky_inverse", "det", "inv", "eig", "eigh", "solve", "solve_triangular", "lstsq",
              "pinv", "qr", "svd", "matrix_rank", "lu_factor", "norm"]
API = {"keras.ops": API_LINALG, "keras.ops.linalg": API_LINALG}
