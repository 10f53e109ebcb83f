"""Reductions, scans, sorting and selection: `sum`, `mean`, `std`, `argmax`, `cumsum`, `sort`, `nonzero`, …

Dtypes as NumPy: `sum`/`prod`/`cumsum`/`cumprod` of booleans and narrow integers accumulate in int64
(uint64 for unsigned), `mean`/`std`/`var` of integers are float64, `argmax`/`argsort`/`count_nonzero`
give int64. `axis=None` reduces (or, for `argmax`, `sort`, `cumsum`, the flattened array).
"""
import numpy as np

from . import dtypes as _d
from ._tf import math, tf

_INT64 = np.dtype(np.int64)


def _axis(axis):
    return list(axis) if isinstance(axis, tuple) else axis


def _accumulating(a, dtype):
    """`a` in the dtype NumPy sums it in: `dtype` if given, else int64/uint64 for bools and narrow ints."""
    a = _d.to_tensor(a)
    if dtype is not None:
        return tf.cast(a, _d.tf_dtype(dtype))
    if a.dtype.is_bool or (a.dtype.is_integer and a.dtype.size < 8):
        return tf.cast(a, _d.tf_dtype(np.uint64 if a.dtype.is_unsigned else np.int64))
    return a


def _flat(a):
    return tf.reshape(a, [-1])


def sum(a, axis=None, dtype=None, keepdims=None):  # noqa: A001  (NumPy's name)
    return tf.reduce_sum(_accumulating(a, dtype), axis=_axis(axis), keepdims=bool(keepdims))


def prod(a, axis=None, dtype=None, keepdims=None):
    return tf.reduce_prod(_accumulating(a, dtype), axis=_axis(axis), keepdims=bool(keepdims))


def _float_input(a, dtype):
    return tf.cast(_d.to_tensor(a), _d.tf_dtype(dtype)) if dtype is not None else _d.floating(a)


def mean(a, axis=None, dtype=None, out=None, keepdims=None):
    if out is not None:
        raise ValueError("Setting out is not supported.")
    return tf.reduce_mean(_float_input(a, dtype), axis=_axis(axis), keepdims=bool(keepdims))


def _centered_power(a, axis, ddof, keepdims):
    mean_ = tf.reduce_mean(a, axis=_axis(axis), keepdims=True)
    centered = a - mean_
    squares = math.real(centered * math.conj(centered)) if a.dtype.is_complex else centered * centered
    total = tf.reduce_sum(squares, axis=_axis(axis), keepdims=bool(keepdims))
    count = tf.cast(tf.size(a), total.dtype) / tf.cast(tf.size(mean_), total.dtype)
    return total / (count - tf.cast(ddof, total.dtype))


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=None):
    if out is not None:
        raise ValueError("Setting out is not supported.")
    return _centered_power(_float_input(a, dtype), axis, ddof, keepdims)


def std(a, axis=None, keepdims=None):
    return tf.sqrt(_centered_power(_d.floating(a), axis, 0, keepdims))


def average(a, axis=None, weights=None, returned=False):
    """The (weighted) mean along `axis`; with `returned`, also the sum of the weights."""
    if weights is None:
        result = mean(a, axis)
        total = tf.cast(tf.size(_d.to_tensor(a)), result.dtype) / tf.cast(tf.size(result), result.dtype)
        return (result, tf.broadcast_to(total, tf.shape(result))) if returned else result
    a, weights = _d.promoted(_d.floating(a), weights)
    if weights.shape.rank != a.shape.rank:
        if axis is None or weights.shape.rank != 1:
            raise ValueError("Axis must be specified when shapes of a and weights differ.")
        shape = [1] * a.shape.rank
        shape[axis] = -1
        weights = tf.reshape(weights, shape)
    total_weight = tf.reduce_sum(weights * tf.ones_like(a), axis=_axis(axis))
    result = tf.reduce_sum(a * weights, axis=_axis(axis)) / total_weight
    return (result, total_weight) if returned else result


def _extreme(reduce, a, axis, keepdims):
    a = _d.to_tensor(a)
    if a.dtype.is_bool:
        reduce = tf.reduce_any if reduce is tf.reduce_max else tf.reduce_all
    return reduce(a, axis=_axis(axis), keepdims=bool(keepdims))


def max(a, axis=None, keepdims=None):  # noqa: A001  (NumPy's name)
    return _extreme(tf.reduce_max, a, axis, keepdims)


def amax(a, axis=None, out=None, keepdims=None):
    return _extreme(tf.reduce_max, a, axis, keepdims)


def min(a, axis=None, keepdims=None):  # noqa: A001  (NumPy's name)
    return _extreme(tf.reduce_min, a, axis, keepdims)


def amin(a, axis=None, out=None, keepdims=None):
    return _extreme(tf.reduce_min, a, axis, keepdims)


def ptp(a, axis=None, keepdims=None):
    """Peak to peak: max - min along `axis`."""
    return amax(a, axis, keepdims=keepdims) - amin(a, axis, keepdims=keepdims)


def all(a, axis=None, keepdims=None):  # noqa: A001  (NumPy's name)
    return tf.reduce_all(tf.cast(_d.to_tensor(a), _d.tf_dtype(np.bool_)), axis=_axis(axis), keepdims=bool(keepdims))


def any(a, axis=None, keepdims=None):  # noqa: A001  (NumPy's name)
    return tf.reduce_any(tf.cast(_d.to_tensor(a), _d.tf_dtype(np.bool_)), axis=_axis(axis), keepdims=bool(keepdims))


def _arg(fn, a, axis):
    a = _d.to_tensor(a)
    if axis is None:
        a, axis = _flat(a), 0
    if a.dtype.is_bool:
        a = tf.cast(a, _d.tf_dtype(np.int8))
    return fn(a, axis=axis, output_type=_d.tf_dtype(np.int64))


def argmax(a, axis=None):
    return _arg(tf.argmax, a, axis)


def argmin(a, axis=None):
    return _arg(tf.argmin, a, axis)


def count_nonzero(a, axis=None):
    return math.count_nonzero(_d.to_tensor(a), axis=_axis(axis), dtype=_d.tf_dtype(np.int64))


def _scan(fn, a, axis, dtype):
    a = _accumulating(a, dtype)
    if axis is None:
        a, axis = _flat(a), 0
    return fn(a, axis=axis)


def cumsum(a, axis=None, dtype=None):
    return _scan(tf.cumsum, a, axis, dtype)


def cumprod(a, axis=None, dtype=None):
    return _scan(math.cumprod, a, axis, dtype)


def _without_nan(a, fill):
    a = _d.to_tensor(a)
    if not (a.dtype.is_floating or a.dtype.is_complex):
        return a
    return tf.where(math.is_nan(a), tf.cast(fill, a.dtype) * tf.ones_like(a), a)


def nansum(a, axis=None, dtype=None, keepdims=False):
    """`sum` treating NaN as zero."""
    return sum(_without_nan(a, 0), axis, dtype, keepdims)


def nanprod(a, axis=None, dtype=None, keepdims=False):
    """`prod` treating NaN as one."""
    return prod(_without_nan(a, 1), axis, dtype, keepdims)


def nanmean(a, axis=None, dtype=None, keepdims=None):
    """`mean` of the elements that are not NaN."""
    a = _float_input(a, dtype)
    present = tf.cast(~math.is_nan(a), a.dtype)
    total = tf.reduce_sum(_without_nan(a, 0), axis=_axis(axis), keepdims=bool(keepdims))
    return total / tf.reduce_sum(present, axis=_axis(axis), keepdims=bool(keepdims))


def sort(a, axis=-1, kind="quicksort", order=None):
    """The values of `a` sorted ascending along `axis` (the flattened array for None)."""
    if order is not None:
        raise ValueError("'order' argument to sort is not supported.")
    a = _d.to_tensor(a)
    if axis is None:
        a, axis = _flat(a), 0
    if a.dtype.is_bool:
        return tf.cast(tf.sort(tf.cast(a, _d.tf_dtype(np.int8)), axis=axis), a.dtype)
    return tf.sort(a, axis=axis)


def argsort(a, axis=-1, kind="quicksort", order=None):
    """The indices (int64) that sort `a` along `axis` (stable)."""
    if order is not None:
        raise ValueError("'order' argument to argsort is not supported.")
    a = _d.to_tensor(a)
    if axis is None:
        a, axis = _flat(a), 0
    if a.dtype.is_bool:
        a = tf.cast(a, _d.tf_dtype(np.int8))
    return tf.cast(tf.argsort(a, axis=axis, stable=True), _d.tf_dtype(np.int64))


def nonzero(a):
    """One int64 index tensor per dimension, listing the positions of the nonzero elements."""
    a = _d.to_tensor(a)
    if a.shape.rank == 0:
        raise ValueError("Calling nonzero on a scalar is not allowed.")
    indices = tf.where(tf.cast(a, _d.tf_dtype(np.bool_)))
    return [indices[:, i] for i in range(a.shape.rank)]


def diff(a, n=1, axis=-1):
    """The n-th discrete difference along `axis`."""
    a = _d.to_tensor(a)
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n}")
    rank = a.shape.rank
    if rank == 0:
        raise ValueError("diff requires input that is at least one dimensional; received rank 0")
    axis = axis % rank
    for _ in range(n):
        upper = [slice(None)] * rank
        lower = [slice(None)] * rank
        upper[axis], lower[axis] = slice(1, None), slice(None, -1)
        a = tf.not_equal(a[tuple(upper)], a[tuple(lower)]) if a.dtype.is_bool else a[tuple(upper)] - a[tuple(lower)]
    return a


def take(a, indices, axis=None, out=None, mode="clip"):
    """Elements of `a` at `indices` along `axis` (of the flattened array for None); out-of-range indices
    are clipped (`mode="clip"`) or wrapped (`"wrap"`)."""
    if out is not None:
        raise ValueError("out argument is not supported in take.")
    if mode not in {"raise", "clip", "wrap"}:
        raise ValueError(f"Invalid mode '{mode}' for take")
    a = _d.to_tensor(a)
    indices = tf.cast(_d.to_tensor(indices), _d.tf_dtype(np.int64))
    if axis is None:
        a, axis = _flat(a), 0
    size = tf.cast(tf.shape(a)[axis], indices.dtype)
    if mode == "clip":
        indices = tf.clip_by_value(indices, tf.cast(0, indices.dtype), size - 1)
    elif mode == "wrap":
        indices = math.floormod(indices, size)
    else:
        indices = tf.where(indices < 0, indices + size, indices)
    return tf.gather(a, indices, axis=axis)


def take_along_axis(arr, indices, axis):
    """`arr`'s elements picked along `axis` by `indices` (same rank as `arr`, broadcast on other axes)."""
    arr = _d.to_tensor(arr)
    indices = tf.cast(_d.to_tensor(indices), _d.tf_dtype(np.int64))
    if axis is None:
        arr, axis = _flat(arr), 0
        indices = _flat(indices)
    rank = arr.shape.rank
    axis = axis % rank
    size = tf.cast(tf.shape(arr)[axis], indices.dtype)
    indices = tf.where(indices < 0, indices + size, indices)
    arr_shape, idx_shape = tf.shape(arr, out_type=indices.dtype), tf.shape(indices, out_type=indices.dtype)
    target = tf.concat([tf.maximum(arr_shape[:axis], idx_shape[:axis]), idx_shape[axis:axis + 1],
                        tf.maximum(arr_shape[axis + 1:], idx_shape[axis + 1:])], 0)
    indices = tf.broadcast_to(indices, target)
    arr = tf.broadcast_to(arr, tf.concat([target[:axis], arr_shape[axis:axis + 1], target[axis + 1:]], 0))
    perm = [axis] + [i for i in range(rank) if i != axis]
    back = [perm.index(i) for i in range(rank)]
    moved = tf.transpose(arr, perm)
    moved_indices = tf.transpose(indices, perm)
    grid = tf.meshgrid(*[tf.range(target[i]) for i in perm[1:]], indexing="ij") if rank > 1 else []
    full_index = tf.stack([moved_indices] + [tf.broadcast_to(g, tf.shape(moved_indices)) for g in grid], -1)
    return tf.transpose(tf.gather_nd(moved, full_index), back)


def compress(condition, a, axis=None):
    """The slices of `a` along `axis` (of the flattened array for None) where `condition` holds."""
    condition = tf.cast(_d.to_tensor(condition), _d.tf_dtype(np.bool_))
    a = _d.to_tensor(a)
    if condition.shape.rank != 1:
        raise ValueError(f"condition must be a 1-d array, received rank {condition.shape.rank}")
    if axis is None:
        a, axis = _flat(a), 0
    length = a.shape[axis]
    if length is not None and condition.shape[0] is not None and condition.shape[0] < length:
        condition = tf.concat([condition, tf.zeros([length - condition.shape[0]], condition.dtype)], 0)
    elif length is not None and condition.shape[0] is not None and condition.shape[0] > length:
        condition = condition[:length]
    return tf.boolean_mask(a, condition, axis=axis)


def isscalar(num):
    """True for a Python or NumPy scalar and for a tensor of rank 0."""
    if _d.is_tensor_like(num):
        return num.shape.rank == 0
    return np.isscalar(num)


def ndim(a):
    return _d.to_tensor(a).shape.rank


def shape(a):
    return _d.to_tensor(a).shape


def size(x, axis=None):
    """The number of elements (along `axis`), a NumPy int64 when static, else a tensor."""
    x = _d.to_tensor(x)
    dims = x.shape.as_list() if axis is None else [x.shape[axis]]
    if None not in dims:
        return np.int64(np.prod(dims, dtype=np.int64))
    return tf.size(x, out_type=_d.tf_dtype(np.int64)) if axis is None else tf.cast(tf.shape(x)[axis], _d.tf_dtype(np.int64))


def iscomplexobj(x):
    return _d.dtype_of(x).kind == "c"


def isrealobj(x):
    return _d.dtype_of(x).kind != "c"


API = {"experimental.numpy": [
    "sum", "prod", "mean", "var", "std", "average", "max", "amax", "min", "amin", "ptp", "all", "any", "argmax",
    "argmin", "count_nonzero", "cumsum", "cumprod", "nansum", "nanprod", "nanmean", "sort", "argsort", "nonzero",
    "diff", "take", "take_along_axis", "compress", "isscalar", "ndim", "shape", "size", "iscomplexobj",
    "isrealobj"]}
