"""Batch statistics of `tf.nn` built from reductions: `sufficient_statistics` (count, sum, sum of squares,
shift), `normalize_moments` (mean and variance from them), `weighted_moments` (frequency-weighted mean and
variance), and the loss scaling helpers `compute_average_loss`/`scale_regularization_loss` (one replica:
the global batch is the local batch).
"""
from ...framework.tensor import Tensor
from ...types import dtypes as _dt
from ..convert import convert_to_tensor
from ..shapes import creators as _creators
from ..shapes import shape_ops as _shape_ops
from ..shapes import shaping as _shaping
from ..array import gather as _gather
from .normalization import batch_normalization
from ..math import arith as _math
from ..math import reduce as _reduce


def _tensor(x, dtype=None):
    return x if isinstance(x, Tensor) else convert_to_tensor(x, dtype=dtype)


def sufficient_statistics(x, axes, shift=None, keepdims=False, name=None):
    """`tf.nn.sufficient_statistics`: (count, sum(x - shift), sum((x - shift)^2), shift) over `axes`."""
    x = _tensor(x)
    axes = [axes] if isinstance(axes, int) else list(axes)
    dims = x.shape._dims
    if dims is not None and all(dims[a] is not None for a in axes):
        size = 1
        for a in axes:
            size *= dims[a]
        count = convert_to_tensor(float(size), dtype=x.dtype)
    else:
        shape = _shape_ops.shape(x)
        count = _math.cast(_reduce.reduce_prod(_gather_dims(shape, axes)), x.dtype)
    if shift is not None:
        shift = _tensor(shift, x.dtype)
        centred = _math.subtract(x, shift)
    else:
        centred = x
    mean_ss = _reduce.reduce_sum(centred, axis=axes, keepdims=keepdims)
    variance_ss = _reduce.reduce_sum(_math.square(centred), axis=axes, keepdims=keepdims)
    return count, mean_ss, variance_ss, shift


def _gather_dims(shape, axes):
    return _gather.gather(shape, axes)


def normalize_moments(counts, mean_ss, variance_ss, shift, name=None):
    """`tf.nn.normalize_moments`: (mean, variance) from the sufficient statistics."""
    mean_ss = _tensor(mean_ss)
    variance_ss = _tensor(variance_ss, mean_ss.dtype)
    divisor = _math.reciprocal(_tensor(counts, mean_ss.dtype))
    shifted_mean = _math.multiply(mean_ss, divisor)
    mean = _math.add(shifted_mean, _tensor(shift, mean_ss.dtype)) if shift is not None else shifted_mean
    variance = _math.subtract(_math.multiply(variance_ss, divisor), _math.square(shifted_mean))
    return mean, variance


def weighted_moments(x, axes, frequency_weights, keepdims=False, name=None):
    """`tf.nn.weighted_moments`: the mean and variance of `x` over `axes`, each element counted
    `frequency_weights` times (broadcast against x)."""
    x = _tensor(x)
    weights = _tensor(frequency_weights, x.dtype)
    axes = [axes] if isinstance(axes, int) else list(axes)
    weighted_sum = _reduce.reduce_sum(_math.multiply(weights, x), axis=axes, keepdims=True)
    total_weight = _reduce.reduce_sum(_broadcast_like(weights, x), axis=axes, keepdims=True)
    divisor = _math.divide_no_nan(_math.cast(1, x.dtype), total_weight)
    mean = _math.multiply(weighted_sum, divisor)
    variance = _math.multiply(_reduce.reduce_sum(_math.multiply(weights, _math.squared_difference(x, mean)),
                                                 axis=axes, keepdims=True), divisor)
    if not keepdims:
        mean = _reduce_keepdims_off(mean, axes)
        variance = _reduce_keepdims_off(variance, axes)
    return mean, variance


def _broadcast_like(weights, x):
    """`weights` broadcast to x's shape, so that summing it counts each element of x once."""
    return _math.add(weights, _creators.zeros_like(x))


def _reduce_keepdims_off(t, axes):
    return _shaping.squeeze(t, axis=axes)


def batch_norm_with_global_normalization(t=None, m=None, v=None, beta=None, gamma=None, variance_epsilon=None,
                                         scale_after_normalization=None, name=None, input=None, mean=None,  # noqa: A002
                                         variance=None):
    """`tf.nn.batch_norm_with_global_normalization`: batch_normalization with the given moments, scaled by
    `gamma` only when `scale_after_normalization`."""
    x = input if input is not None else t
    mean = mean if mean is not None else m
    variance = variance if variance is not None else v
    scale = gamma if scale_after_normalization else None
    return batch_normalization(x, mean, variance, beta, scale, variance_epsilon, name=name)


def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None):
    """`tf.nn.compute_average_loss`: sum(per_example_loss * sample_weight) / global_batch_size (the batch
    size by default, as with one replica)."""
    losses = _tensor(per_example_loss)
    if sample_weight is not None:
        losses = _math.multiply(losses, _tensor(sample_weight, losses.dtype))
    if global_batch_size is None:
        global_batch_size = _math.cast(_shape_ops.shape(losses, out_type=_dt.int64)[0], losses.dtype) \
            if losses.shape.rank != 0 else convert_to_tensor(1, dtype=losses.dtype)
    else:
        global_batch_size = _math.cast(_tensor(global_batch_size), losses.dtype)
    return _math.divide_no_nan(_reduce.reduce_sum(losses), global_batch_size)


def scale_regularization_loss(regularization_loss):
    """`tf.nn.scale_regularization_loss`: the loss divided by the number of replicas (one here)."""
    loss = regularization_loss
    if isinstance(loss, (list, tuple)):
        loss = _math.add_n([_tensor(t) for t in loss])
    return _math.divide(_tensor(loss), _math.cast(1, _tensor(loss).dtype))


API = {"nn": ["sufficient_statistics", "normalize_moments", "weighted_moments", "compute_average_loss",
              "scale_regularization_loss", "batch_norm_with_global_normalization"]}
