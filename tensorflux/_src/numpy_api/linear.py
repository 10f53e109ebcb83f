"""Products: `dot`, `matmul`, `tensordot`, `einsum`, `inner`, `outer`, `vdot`, `kron`, `cross`, `polyval`.

Operands are promoted to their NumPy result type first; booleans multiply as integers would and are
then turned back into booleans only where NumPy does (`dot` of booleans is boolean).
"""
import numpy as np

from . import dtypes as _d
from ._tf import math, tf


def _operands(*args):
    tensors = _d.promoted(*args)
    if tensors[0].dtype.is_bool:
        return [tf.cast(t, _d.tf_dtype(np.int64)) for t in tensors], True
    return tensors, False


def _back(result, was_bool):
    return tf.cast(result, _d.tf_dtype(np.bool_)) if was_bool else result


def dot(a, b):
    """NumPy's dot: a product of scalars, the inner product of vectors, a matrix product, or a sum over
    the last axis of `a` and the second-to-last of `b`."""
    (a, b), was_bool = _operands(a, b)
    if a.shape.rank == 0 or b.shape.rank == 0:
        return _back(a * b, was_bool)
    b_axis = 0 if b.shape.rank == 1 else b.shape.rank - 2
    return _back(tf.tensordot(a, b, [[a.shape.rank - 1], [b_axis]]), was_bool)


def vdot(a, b):
    """The dot product of the flattened inputs, the first one conjugated."""
    (a, b), was_bool = _operands(a, b)
    a = tf.reshape(a, [-1])
    if a.dtype.is_complex:
        a = math.conj(a)
    return _back(tf.reduce_sum(a * tf.reshape(b, [-1])), was_bool)


def inner(a, b):
    """Sum over the last axes of `a` and `b`."""
    (a, b), was_bool = _operands(a, b)
    if a.shape.rank == 0 or b.shape.rank == 0:
        return _back(a * b, was_bool)
    if a.shape[-1] is not None and b.shape[-1] is not None and a.shape[-1] != b.shape[-1]:
        raise ValueError(f"shapes {a.shape.as_list()} and {b.shape.as_list()} not aligned: the last dimensions "
                         f"differ ({a.shape[-1]} != {b.shape[-1]})")
    return _back(tf.tensordot(a, b, [[a.shape.rank - 1], [b.shape.rank - 1]]), was_bool)


def outer(a, b):
    """Every element of flattened `a` times every element of flattened `b`: a matrix."""
    (a, b), was_bool = _operands(a, b)
    return _back(tf.reshape(a, [-1, 1]) * tf.reshape(b, [1, -1]), was_bool)


def matmul(x1, x2):
    """The matrix product, with NumPy's rules for vectors (a 1-D operand gains, then loses, an axis)."""
    (a, b), was_bool = _operands(x1, x2)
    if a.shape.rank == 0 or b.shape.rank == 0:
        raise ValueError("matmul: Input operand does not have enough dimensions (scalars are not allowed)")
    vector_a, vector_b = a.shape.rank == 1, b.shape.rank == 1
    if vector_a:
        a = tf.expand_dims(a, 0)
    if vector_b:
        b = tf.expand_dims(b, 1)
    result = tf.matmul(a, b)
    if vector_a:
        result = tf.squeeze(result, -2)
    if vector_b:
        result = tf.squeeze(result, -1)
    return _back(result, was_bool)


def tensordot(a, b, axes=2):
    (a, b), was_bool = _operands(a, b)
    return _back(tf.tensordot(a, b, axes), was_bool)


def einsum(subscripts, *operands, **kwargs):
    """Einstein summation over the operands (promoted to one dtype); `casting`/`optimize` are accepted."""
    tensors, was_bool = _operands(*operands)
    return _back(tf.einsum(subscripts, *tensors), was_bool)


def kron(a, b):
    """The Kronecker product: blocks of `b` scaled by each element of `a`."""
    (a, b), was_bool = _operands(a, b)
    rank = max(a.shape.rank, b.shape.rank)
    a = tf.reshape(a, [1] * (rank - a.shape.rank) + a.shape.as_list())
    b = tf.reshape(b, [1] * (rank - b.shape.rank) + b.shape.as_list())
    interleaved_a = tf.reshape(a, [d for n in a.shape.as_list() for d in (n, 1)])
    interleaved_b = tf.reshape(b, [d for n in b.shape.as_list() for d in (1, n)])
    product = interleaved_a * interleaved_b
    return _back(tf.reshape(product, [x * y for x, y in zip(a.shape.as_list(), b.shape.as_list())]), was_bool)


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """The cross product of 3-vectors (2-vectors are taken with a zero third component) along the axes."""
    if axis is not None:
        axisa = axisb = axisc = axis
    (a, b), was_bool = _operands(a, b)
    a = _last(a, axisa)
    b = _last(b, axisb)
    if a.shape[-1] not in (2, 3) or b.shape[-1] not in (2, 3):
        raise ValueError("incompatible dimensions for cross product (dimension must be 2 or 3)")
    if a.shape[-1] == 2 and b.shape[-1] == 2:
        return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
    a, b = _three(a), _three(b)
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    result = tf.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], -1)
    rank = result.shape.rank
    axisc = axisc % rank
    if axisc != rank - 1:
        result = tf.transpose(result, list(range(axisc)) + [rank - 1] + list(range(axisc, rank - 1)))
    return result


def _last(t, axis):
    rank = t.shape.rank
    axis = axis % rank
    if axis == rank - 1:
        return t
    return tf.transpose(t, [i for i in range(rank) if i != axis] + [axis])


def _three(t):
    if t.shape[-1] == 3:
        return t
    return tf.concat([t, tf.zeros_like(t[..., :1])], -1)


def polyval(p, x):
    """The polynomial with coefficients `p` (highest power first) evaluated at `x` (Horner's scheme)."""
    common = _d.np_dtype(_d.result_type(p, x))
    x = _d.to_tensor(x)
    coefficients = _d.to_tensor(p)
    x = tf.cast(x, _d.tf_dtype(common))
    coefficients = tf.cast(coefficients, _d.tf_dtype(common))
    result = tf.zeros_like(x)
    for i in range(coefficients.shape[0]):
        result = result * x + coefficients[i]
    return result


API = {"experimental.numpy": ["dot", "vdot", "inner", "outer", "matmul", "tensordot", "einsum", "kron", "cross",
                              "polyval"]}
