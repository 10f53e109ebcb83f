"""`keras.ops` (and `keras.ops.numpy`): reductions, statistics, sorting and searching — quantiles and
medians (with NaN-skipping variants), histograms, bincount, correlation, cumulative products, `unique`.

As in Keras 3: indices are int32; integer inputs of statistics give float32; quantiles interpolate by
`method` ("linear", "lower", "higher", "midpoint", "nearest") along `axis` (all axes for None).
"""
import numpy as np

import tensorflux as tf
import tensorflux.experimental.numpy as tnp

from .ops_base import FLOATX, as_dtype, axis_arg, convert_to_tensor, floating, int32_sum_dtype, operation, promote


def _to_last(x, axis):
    """`x` with the reduced axes flattened into one last axis (all of them for None)."""
    if axis is None:
        return tf.reshape(x, [-1]), None
    axes = [a % x.shape.rank for a in (axis if isinstance(axis, (list, tuple)) else [axis])]
    kept = [i for i in range(x.shape.rank) if i not in axes]
    moved = tf.transpose(x, kept + axes)
    return tf.reshape(moved, [x.shape[i] if x.shape[i] is not None else -1 for i in kept] + [-1]), axes


def _quantile(x, q, axis, method, keepdims, skip_nan):
    x = floating(x)
    q = tf.cast(convert_to_tensor(q), tf.float64)
    flat, axes = _to_last(x, axis)
    if skip_nan:
        missing = tf.math.is_nan(flat)
        flat = tf.where(missing, tf.constant(np.inf, flat.dtype), flat)
        count = tf.reduce_sum(tf.cast(~missing, tf.float64), axis=-1)
    else:
        count = tf.cast(tf.shape(flat)[-1], tf.float64) * tf.ones(tf.shape(flat)[:-1], tf.float64)
    ordered = tf.sort(flat, axis=-1)
    q_shape = q.shape.as_list()
    qs = tf.reshape(q, [-1])
    count = tf.expand_dims(count, -1)                       # [..., 1] against positions [..., Q]
    position = qs * (count - 1.0)
    low = tf.floor(position)
    high = tf.math.ceil(position)
    if method == "lower":
        picked = [low]
    elif method == "higher":
        picked = [high]
    elif method == "nearest":
        picked = [tf.round(position)]
    elif method in ("linear", "midpoint"):
        picked = [low, high]
    else:
        raise ValueError(f"`method` must be one of 'linear', 'lower', 'higher', 'midpoint', 'nearest'. "
                         f"Received: method={method}")
    limit = tf.maximum(count - 1.0, 0.0)
    values = [tf.gather(ordered, tf.cast(tf.clip_by_value(p, 0.0, limit), tf.int32), axis=-1, batch_dims=ordered.shape.rank - 1)
              for p in picked]
    if method == "linear":
        weight = tf.cast(position - low, ordered.dtype)
        result = values[0] + (values[1] - values[0]) * weight
    elif method == "midpoint":
        result = (values[0] + values[1]) / 2
    else:
        result = values[0]
    if skip_nan:
        result = tf.where(tf.equal(count, 0.0) & tf.ones_like(result, tf.bool), tf.constant(np.nan, result.dtype), result)
    rank = result.shape.rank
    result = tf.transpose(result, [rank - 1] + list(range(rank - 1)))   # the quantile axis first, as NumPy
    if keepdims:
        reduced = list(range(x.shape.rank)) if axes is None else axes
        shape = [1 if i in reduced else x.shape[i] for i in range(x.shape.rank)]
        result = tf.reshape(result, [-1] + shape)
    return tf.reshape(result, tf.shape(result)[1:]) if not q_shape else result


def _quantile_op(name, skip_nan, scale):
    def quantile(x, q, axis=None, method="linear", keepdims=False):
        return _quantile(x, tf.cast(convert_to_tensor(q), tf.float64) / scale, axis, method, keepdims, skip_nan)
    quantile.__name__ = quantile.__qualname__ = name
    quantile.__doc__ = f"`keras.ops.{name}`: the q-th {'percentile' if scale == 100 else 'quantile'} along `axis`" + \
        (" of the values that are not NaN." if skip_nan else ".")
    return operation(quantile)


quantile = _quantile_op("quantile", False, 1.0)
percentile = _quantile_op("percentile", False, 100.0)
nanquantile = _quantile_op("nanquantile", True, 1.0)
nanpercentile = _quantile_op("nanpercentile", True, 100.0)


@operation
def median(x, axis=None, keepdims=False):
    return _quantile(x, 0.5, axis, "linear", keepdims, False)


@operation
def nanmedian(x, axis=None, keepdims=False):
    return _quantile(x, 0.5, axis, "linear", keepdims, True)


def _without_nan(x, fill):
    x = convert_to_tensor(x)
    if not x.dtype.is_floating:
        return x
    return tf.where(tf.math.is_nan(x), tf.cast(fill, x.dtype), x)


def _nan_reduce(name, reduce, fill):
    def nan_reduce(x, axis=None, keepdims=False):
        x = convert_to_tensor(x)
        if not x.dtype.is_floating:
            return reduce(tf.cast(x, int32_sum_dtype(x)) if reduce in (tf.reduce_sum, tf.reduce_prod) else x,
                          axis=axis_arg(axis), keepdims=keepdims)
        result = reduce(_without_nan(x, fill), axis=axis_arg(axis), keepdims=keepdims)
        if fill in (np.inf, -np.inf):     # all NaN: the reduction of nothing is NaN, as NumPy warns and gives
            every = tf.reduce_all(tf.math.is_nan(x), axis=axis_arg(axis), keepdims=keepdims)
            result = tf.where(every, tf.constant(np.nan, x.dtype), result)
        return result
    nan_reduce.__name__ = nan_reduce.__qualname__ = name
    nan_reduce.__doc__ = f"`keras.ops.{name}`: the reduction ignoring NaN."
    return operation(nan_reduce)


nansum = _nan_reduce("nansum", tf.reduce_sum, 0)
nanprod = _nan_reduce("nanprod", tf.reduce_prod, 1)
nanmax = _nan_reduce("nanmax", tf.reduce_max, -np.inf)
nanmin = _nan_reduce("nanmin", tf.reduce_min, np.inf)


def _nan_moments(x, axis, keepdims):
    x = floating(x)
    present = tf.cast(~tf.math.is_nan(x), x.dtype)
    count = tf.reduce_sum(present, axis=axis_arg(axis), keepdims=True)
    mean_ = tf.reduce_sum(_without_nan(x, 0), axis=axis_arg(axis), keepdims=True) / count
    squares = tf.reduce_sum(tf.square(_without_nan(x - mean_, 0)), axis=axis_arg(axis), keepdims=keepdims)
    if not keepdims:
        count = tf.reduce_sum(present, axis=axis_arg(axis))
        mean_ = tf.reduce_sum(_without_nan(x, 0), axis=axis_arg(axis)) / count
    return mean_, squares / count


@operation
def nanmean(x, axis=None, keepdims=False):
    return _nan_moments(x, axis, keepdims)[0]


@operation
def nanvar(x, axis=None, keepdims=False):
    return _nan_moments(x, axis, keepdims)[1]


@operation
def nanstd(x, axis=None, keepdims=False):
    return tf.sqrt(_nan_moments(x, axis, keepdims)[1])


def _nan_arg(name, numpy_fn, fill):
    def nan_arg(x, axis=None, keepdims=False):
        x = convert_to_tensor(x)
        result = tf.cast(numpy_fn(_without_nan(x, fill), axis), tf.int32)
        if keepdims:
            result = tf.reshape(result, [1] * x.shape.rank) if axis is None else tf.expand_dims(result, axis)
        return result
    nan_arg.__name__ = nan_arg.__qualname__ = name
    nan_arg.__doc__ = f"`keras.ops.{name}`: the index (int32) of the extreme value, ignoring NaN."
    return operation(nan_arg)


nanargmax = _nan_arg("nanargmax", tnp.argmax, -np.inf)
nanargmin = _nan_arg("nanargmin", tnp.argmin, np.inf)


def _scan(name, numpy_fn, fill):
    def scan(x, axis=None, dtype=None):
        x = convert_to_tensor(x)
        x = tf.cast(x, as_dtype(dtype)) if dtype else x
        if fill is not None:
            x = _without_nan(x, fill)
        result = numpy_fn(x, axis)
        return tf.cast(result, x.dtype)       # tnp widens narrow integers; Keras keeps the input's dtype
    scan.__name__ = scan.__qualname__ = name
    scan.__doc__ = f"`keras.ops.{name}`: the running {'sum' if 'sum' in name else 'product'} along `axis`" + \
        (" treating NaN as " + ("zero." if "sum" in name else "one.") if fill is not None else ".")
    return operation(scan)


cumprod = _scan("cumprod", tnp.cumprod, None)
nancumsum = _scan("nancumsum", tnp.cumsum, 0)
nancumprod = _scan("nancumprod", tnp.cumprod, 1)


@operation
def amax(x, axis=None, keepdims=False):
    return tnp.amax(convert_to_tensor(x), axis_arg(axis), keepdims=keepdims)


@operation
def amin(x, axis=None, keepdims=False):
    return tnp.amin(convert_to_tensor(x), axis_arg(axis), keepdims=keepdims)


@operation
def ptp(x, axis=None, keepdims=False):
    return tnp.ptp(convert_to_tensor(x), axis_arg(axis), keepdims=keepdims)


@operation
def average(x, axis=None, weights=None):
    x = floating(x)
    if weights is not None:
        x, weights = promote(x, weights)
    return tnp.average(x, axis, weights)


@operation
def count_nonzero(x, axis=None):
    return tf.cast(tnp.count_nonzero(convert_to_tensor(x), axis_arg(axis)), tf.int32)


@operation
def sort(x, axis=-1):
    return tnp.sort(convert_to_tensor(x), axis)


@operation
def argsort(x, axis=-1):
    return tf.cast(tnp.argsort(convert_to_tensor(x), axis), tf.int32)


@operation
def argpartition(x, kth, axis=-1):
    """Indices that partition `x` around its `kth` element (a full argsort is one such partition)."""
    return tf.cast(tnp.argsort(convert_to_tensor(x), axis), tf.int32)


@operation
def searchsorted(sorted_sequence, values, side="left"):
    sorted_sequence, values = promote(sorted_sequence, values)
    return tf.searchsorted(sorted_sequence, values, side=side, out_type=tf.int32)


@operation
def digitize(x, bins):
    """The index of the bin each value falls in: i with bins[i-1] <= x < bins[i] (int32)."""
    x, bins = promote(x, bins)
    return tf.searchsorted(bins, tf.reshape(x, [-1]), side="right", out_type=tf.int32) if x.shape.rank != 1 else \
        tf.searchsorted(bins, x, side="right", out_type=tf.int32)


@operation
def bincount(x, weights=None, minlength=0, sparse=False):
    """Occurrences of each non-negative integer in `x` (summed `weights` when given), at least `minlength`."""
    x = convert_to_tensor(x)
    if weights is None:
        return tf.math.bincount(x, minlength=minlength, dtype=tf.int32)
    weights = convert_to_tensor(weights)
    return tf.math.bincount(x, weights=weights, minlength=minlength, dtype=weights.dtype)


@operation
def histogram(x, bins=10, range=None):  # noqa: A002  (NumPy's name)
    """Counts (float32) of `x` in `bins` equal bins over `range` (default: min..max), and the bin edges."""
    x = tf.reshape(floating(x), [-1])
    low, high = (tf.reduce_min(x), tf.reduce_max(x)) if range is None else \
        (tf.cast(range[0], x.dtype), tf.cast(range[1], x.dtype))
    edges = tf.cast(tnp.linspace(low, high, bins + 1), x.dtype)
    inside = (x >= low) & (x <= high)
    index = tf.searchsorted(edges, x, side="right") - 1
    index = tf.where(tf.equal(x, high), bins - 1, index)
    counts = tf.math.bincount(tf.boolean_mask(index, inside), minlength=bins, maxlength=bins, dtype=x.dtype)
    return counts, edges


@operation
def corrcoef(x):
    """Pearson correlation coefficients of the rows of `x` (each row a variable)."""
    x = floating(x)
    centered = x - tf.reduce_mean(x, axis=-1, keepdims=True)
    covariance = tf.matmul(centered, centered, transpose_b=True)
    scale = tf.sqrt(tf.linalg.diag_part(covariance))
    return tf.clip_by_value(covariance / (scale[:, None] * scale[None, :]), tf.cast(-1, x.dtype), tf.cast(1, x.dtype))


@operation
def correlate(x1, x2, mode="valid"):
    """The cross-correlation of two 1-D sequences: c[k] = Σ x1[n + k] · x2[n], for the shifts `mode` keeps
    ("valid": full overlap, "same": the length of the longer, "full": any overlap)."""
    x1, x2 = promote(x1, x2)
    if not x1.dtype.is_floating:
        x1, x2 = tf.cast(x1, FLOATX), tf.cast(x2, FLOATX)
    m, n = x1.shape[0], x2.shape[0]
    padded = tf.pad(x1, [[n - 1, n - 1]])
    frames = tf.signal.frame(padded, n, 1)                      # [m + n - 1, n]
    full = tf.linalg.matvec(frames, x2)
    if mode == "full":
        return full
    if mode == "valid":
        return full[min(m, n) - 1:max(m, n)]
    if mode == "same":
        length = max(m, n)
        start = (m + n - 1 - length) // 2
        return full[start:start + length]
    raise ValueError(f"`mode` must be one of 'valid', 'same', 'full'. Received: mode={mode}")


@operation
def trapezoid(y, x=None, dx=1.0, axis=-1):
    """The integral of `y` along `axis` by the trapezoidal rule (sample points `x`, or spacing `dx`)."""
    y = floating(y)
    rank = y.shape.rank
    axis = axis % rank
    upper = [slice(None)] * rank
    lower = [slice(None)] * rank
    upper[axis], lower[axis] = slice(1, None), slice(None, -1)
    if x is None:
        spacing = tf.cast(dx, y.dtype)
    else:
        spacing = tnp.diff(tf.cast(convert_to_tensor(x), y.dtype), axis=-1 if convert_to_tensor(x).shape.rank == 1 else axis)
        if spacing.shape.rank == 1 and rank > 1:
            shape = [1] * rank
            shape[axis] = -1
            spacing = tf.reshape(spacing, shape)
    return tf.reduce_sum(spacing * (y[tuple(upper)] + y[tuple(lower)]) / 2.0, axis=axis)


@operation
def isin(x1, x2, assume_unique=False, invert=False):
    """Whether each element of `x1` occurs in `x2`."""
    x1, x2 = promote(x1, x2)
    found = tf.reduce_any(tf.equal(tf.expand_dims(x1, -1), tf.reshape(x2, [-1])), axis=-1)
    return ~found if invert else found


@operation
def unique(x, sorted=True, return_index=False, return_inverse=False, return_counts=False, axis=None,  # noqa: A002
           size=None, fill_value=None):
    """The distinct values of flattened `x` (sorted), optionally with first indices, inverse and counts."""
    if axis is not None:
        raise ValueError(f"tensorflux's keras.ops.unique supports axis=None only. Received: axis={axis}")
    flat = tf.reshape(convert_to_tensor(x), [-1])
    values = tf.sort(tf.unique(flat)[0]) if sorted else tf.unique(flat)[0]
    matches = tf.equal(tf.expand_dims(flat, 0), tf.expand_dims(values, 1))     # [unique, n]
    if size is not None:
        pad = size - values.shape[0] if values.shape[0] is not None else 0
        fill = values[0] if fill_value is None else tf.cast(fill_value, values.dtype)
        values = tf.concat([values, tf.fill([max(pad, 0)], fill)], 0)[:size]
    results = [values]
    if return_index:
        results.append(tf.cast(tf.argmax(tf.cast(matches, tf.int32), axis=1), tf.int32))
    if return_inverse:
        results.append(tf.cast(tf.argmax(tf.cast(matches, tf.int32), axis=0), tf.int32))
    if return_counts:
        results.append(tf.reduce_sum(tf.cast(matches, tf.int32), axis=1))
    return results[0] if len(results) == 1 else tuple(results)


@operation
def cdist(x1, x2):
    """Euclidean distances between every row of `x1` and every row of `x2` ([..., m, d], [..., n, d] ->
    [..., m, n])."""
    x1, x2 = promote(x1, x2)
    x1, x2 = floating(x1), floating(x2)
    difference = tf.expand_dims(x1, -2) - tf.expand_dims(x2, -3)
    return tf.sqrt(tf.reduce_sum(tf.square(difference), axis=-1))


API_NUMPY = ["quantile", "percentile", "nanquantile", "nanpercentile", "median", "nanmedian", "nansum", "nanprod",
             "nanmax", "nanmin", "nanmean", "nanvar", "nanstd", "nanargmax", "nanargmin", "cumprod", "nancumsum",
             "nancumprod", "amax", "amin", "ptp", "average", "count_nonzero", "sort", "argsort", "argpartition",
             "searchsorted", "digitize", "bincount", "histogram", "corrcoef", "correlate", "trapezoid", "isin",
             "unique"]
API = {"keras.ops": API_NUMPY + ["cdist"]}
