"""Making arrays: `array`, `asarray`, `zeros`, `arange`, `linspace`, `eye`, `tri`, `meshgrid`, …

Created floats are float64 (NumPy's default) unless a dtype is given or float32 is preferred.
"""
import numpy as np

from . import dtypes as _d
from ._tf import Tensor, linalg, tf

ndarray = Tensor  # TensorFlow 2.21: tnp.ndarray is tf.Tensor


def _dtype_or(dtype, default):
    return _d.tf_dtype(dtype) if dtype is not None else _d.tf_dtype(default)


def _shape(shape):
    return [shape] if isinstance(shape, (int, np.integer)) else shape


def asarray(a, dtype=None):
    """`a` as a tensor (a tensor of the right dtype is returned as it is)."""
    return _d.to_tensor(a, dtype)


def array(val, dtype=None, copy=True, ndmin=0):
    """A tensor holding `val`, with at least `ndmin` dimensions (leading ones added)."""
    result = _d.to_tensor(val, dtype)
    if copy and result is val:
        result = tf.identity(result)
    missing = ndmin - result.shape.rank
    if missing > 0:
        result = tf.reshape(result, [1] * missing + _dynamic_shape(result))
    return result


def _dynamic_shape(t):
    dims = t.shape.as_list()
    return dims if None not in dims else tf.unstack(tf.shape(t))


def asanyarray(a, dtype=None):
    return _d.to_tensor(a, dtype)


def ascontiguousarray(a, dtype=None):
    return array(a, dtype, ndmin=1)


def copy(a):
    return array(a, copy=True)


def zeros(shape, dtype=float):
    return tf.zeros(_shape(shape), _dtype_or(dtype, float))


def ones(shape, dtype=float):
    return tf.ones(_shape(shape), _dtype_or(dtype, float))


def empty(shape, dtype=float):
    """An array of `shape` (zeros: a tensor has no uninitialised memory to show)."""
    return zeros(shape, dtype)


def full(shape, fill_value, dtype=None):
    value = _d.to_tensor(fill_value, dtype)
    return tf.broadcast_to(value, _shape(shape))


def _like(a, dtype):
    a = _d.to_tensor(a)
    return a, (_d.tf_dtype(dtype) if dtype is not None else a.dtype)


def zeros_like(a, dtype=None):
    a, dtype = _like(a, dtype)
    return tf.zeros_like(a, dtype)


def ones_like(a, dtype=None):
    a, dtype = _like(a, dtype)
    return tf.ones_like(a, dtype)


def empty_like(a, dtype=None):
    return zeros_like(a, dtype)


def full_like(a, fill_value, dtype=None):
    a, dtype = _like(a, dtype)
    return tf.broadcast_to(tf.cast(_d.to_tensor(fill_value), dtype), tf.shape(a))


def eye(N, M=None, k=0, dtype=float):  # noqa: N803  (NumPy's names)
    M = N if M is None else M
    dtype = _dtype_or(dtype, float)
    if k == 0:
        return tf.eye(N, M, dtype=dtype)
    if k >= M or -k >= N:
        return tf.zeros([N, M], dtype)
    diagonal = tf.ones([min(N + min(k, 0), M - max(k, 0))], dtype)
    return linalg.diag(diagonal, k=k, num_rows=N, num_cols=M)


def identity(n, dtype=float):
    return eye(n, dtype=dtype)


def arange(start, stop=None, step=1, dtype=None):
    """`start`, `start + step`, … below `stop`; ints give int64, floats float64 unless `dtype`."""
    if stop is None:
        start, stop = 0, start
    if dtype is None:
        dtype = _d.result_type(start, stop, step)
        if dtype.is_integer:
            dtype = _d.tf_dtype(np.int64)
    else:
        dtype = _d.tf_dtype(dtype)
    if step == 0:
        raise ValueError("Value for `step` argument to arange must be non-zero, received 0.")
    count = int(np.ceil((float(stop) - float(start)) / float(step))) if not any(
        isinstance(v, Tensor) for v in (start, stop, step)) else None
    if count is not None and count <= 0:
        return tf.zeros([0], dtype)
    if dtype.is_integer:
        return tf.range(start, stop, step, dtype=dtype)
    values = tf.range(0, count, dtype=_d.tf_dtype(np.float64)) * float(step) + float(start)
    return tf.cast(values, dtype)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=float, axis=0):
    """`num` evenly spaced values from `start` to `stop` (inclusive unless `endpoint=False`)."""
    wide = _d.tf_dtype(np.float64)
    start, stop = tf.cast(_d.to_tensor(start), wide), tf.cast(_d.to_tensor(stop), wide)
    divisions = (num - 1 if endpoint else num) or 1
    step = (stop - start) / float(divisions)
    shape = [num] + [1] * start.shape.rank
    ticks = tf.reshape(tf.range(0, num, dtype=wide), shape)
    values = start + ticks * step
    if endpoint and num > 1:
        values = tf.concat([values[:-1], tf.expand_dims(stop, 0)], 0)
    if axis != 0:
        rank = values.shape.rank
        axis = axis % rank
        values = tf.transpose(values, list(range(1, axis + 1)) + [0] + list(range(axis + 1, rank)))
    values = tf.cast(values, _dtype_or(dtype, float))
    return (values, tf.cast(step, values.dtype)) if retstep else values


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=float, axis=0):
    exponents = linspace(start, stop, num, endpoint=endpoint, dtype=np.float64, axis=axis)
    return tf.cast(tf.pow(tf.cast(base, exponents.dtype), exponents), _dtype_or(dtype, float))


def geomspace(start, stop, num=50, endpoint=True, dtype=float, axis=0):
    """Values spaced evenly on a log scale from `start` to `stop` (both of one sign, not zero)."""
    start, stop = float(start), float(stop)
    if start == 0 or stop == 0:
        raise ValueError("Geometric sequence cannot include zero")
    sign = -1.0 if start < 0 else 1.0
    values = logspace(np.log10(abs(start)), np.log10(abs(stop)), num, endpoint, 10.0, np.float64, axis)
    return tf.cast(values * sign, _dtype_or(dtype, float))


def tri(N, M=None, k=0, dtype=None):  # noqa: N803  (NumPy's names)
    """Ones on and below diagonal `k` of an N×M matrix."""
    M = N if M is None else M
    rows = tf.expand_dims(tf.range(N), 1)
    cols = tf.expand_dims(tf.range(M), 0)
    return tf.cast(cols <= rows + k, _dtype_or(dtype, float))


def _band(m, k, lower):
    m = _d.to_tensor(m)
    shape = m.shape.as_list()
    if len(shape) < 2:
        raise ValueError(f"Argument to {'tril' if lower else 'triu'} should have rank at least 2, "
                         f"received rank {len(shape)}")
    rows = tf.expand_dims(tf.range(tf.shape(m)[-2]), 1)
    cols = tf.expand_dims(tf.range(tf.shape(m)[-1]), 0)
    keep = cols <= rows + k if lower else cols >= rows + k
    return tf.where(keep, m, tf.zeros_like(m))


def tril(m, k=0):
    return _band(m, k, lower=True)


def triu(m, k=0):
    return _band(m, k, lower=False)


def diag(v, k=0):
    """The `k`-th diagonal of a matrix, or a matrix with vector `v` on its `k`-th diagonal."""
    v = _d.to_tensor(v)
    if v.shape.rank == 1:
        n = v.shape[0] + abs(k)
        return linalg.diag(v, k=k, num_rows=n, num_cols=n)
    if v.shape.rank == 2:
        return linalg.diag_part(v, k=k)
    raise ValueError(f"Input to diag must be 1 or 2-d, received rank {v.shape.rank}")


def diagflat(v, k=0):
    return diag(tf.reshape(_d.to_tensor(v), [-1]), k)


def diag_indices(n, ndim=2):
    if n < 0:
        raise ValueError(f"n argument to diag_indices must be nonnegative, got {n}")
    return (tf.range(n),) * ndim  # int32, as TensorFlow's tnp


def meshgrid(*xi, **kwargs):
    """Coordinate grids from 1-D coordinate vectors (`indexing="xy"` or `"ij"`)."""
    indexing = kwargs.get("indexing", "xy")
    tensors = [tf.reshape(_d.to_tensor(x), [-1]) for x in xi]
    return list(tf.meshgrid(*tensors, indexing=indexing))


def ix_(*args):
    """Open-mesh index arrays: the i-th of n 1-D inputs reshaped to put its values on axis i."""
    n = len(args)
    out = []
    for i, a in enumerate(args):
        a = _d.to_tensor(a)
        if a.shape.rank != 1:
            raise ValueError(f"Arguments must be 1-d, got arg {i} of rank {a.shape.rank}")
        if a.dtype.is_bool:
            a = tf.reshape(tf.where(a), [-1])
        out.append(tf.reshape(a, [1] * i + [-1] + [1] * (n - i - 1)))
    return out


def vander(x, N=None, increasing=False):  # noqa: N803  (NumPy's name)
    """Columns `x ** (N-1)`, …, `x ** 0` (or ascending powers with `increasing`)."""
    x = _d.to_tensor(x)
    if x.shape.rank != 1:
        raise ValueError(f"x must be a one-dimensional array, received rank {x.shape.rank}")
    N = x.shape[0] if N is None else N
    powers = tf.range(N, dtype=x.dtype) if increasing else tf.range(N - 1, -1, -1, dtype=x.dtype)
    if x.dtype.is_integer or x.dtype.is_bool:
        return tf.cast(tf.pow(tf.cast(tf.expand_dims(x, 1), _d.tf_dtype(np.int64)),
                              tf.cast(powers, _d.tf_dtype(np.int64))), x.dtype)
    return tf.pow(tf.expand_dims(x, 1), powers)


API = {"experimental.numpy": [
    "ndarray", "asarray", "array", "asanyarray", "ascontiguousarray", "copy", "zeros", "ones", "empty", "full",
    "zeros_like", "ones_like", "empty_like", "full_like", "eye", "identity", "arange", "linspace", "logspace",
    "geomspace", "tri", "tril", "triu", "diag", "diagflat", "diag_indices", "meshgrid", "ix_", "vander"]}
