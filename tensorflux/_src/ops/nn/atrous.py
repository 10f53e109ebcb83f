"""Atrous (dilated) 2-D convolutions of `tf.nn`: `atrous_conv2d` and `atrous_conv2d_transpose` are conv2d /
conv2d_transpose with the same dilation `rate` in height and width (TensorFlow builds them from
space_to_batch; the values are the same); `with_space_to_batch`, the general construction
(space_to_batch_nd, a VALID op, batch_to_space_nd) behind dilated ops.
"""
import numpy as np

from ...framework.tensor import Tensor
from ..convert import convert_to_tensor
from ..shapes import shape_ops as _shape_ops
from ..array.space_batch import space_to_batch_nd, batch_to_space, required_space_to_batch_paddings
from .conv import conv2d, conv2d_transpose


def _rate(rate):
    if int(rate) < 1:
        raise ValueError(f"all values of `dilation_rate` must be positive. Received: dilation_rate=[{rate} {rate}]")
    return int(rate)


def atrous_conv2d(value, filters, rate, padding, name=None):
    """`tf.nn.atrous_conv2d`: conv2d of NHWC `value` with `filters` sampled every `rate` pixels."""
    rate = _rate(rate)
    return conv2d(value, filters, strides=[1, 1, 1, 1], padding=padding, dilations=[1, rate, rate, 1], name=name)


def atrous_conv2d_transpose(value, filters, output_shape, rate, padding, name=None):
    """`tf.nn.atrous_conv2d_transpose`: the transpose (gradient) of atrous_conv2d, to `output_shape`."""
    rate = _rate(rate)
    return conv2d_transpose(value, filters, output_shape, strides=[1, 1, 1, 1], padding=padding,
                            dilations=[1, rate, rate, 1], name=name)


def with_space_to_batch(input, dilation_rate, padding, op, filter_shape=None, spatial_dims=None,  # noqa: A002
                        data_format=None):
    """`tf.nn.with_space_to_batch`: runs `op(input, num_spatial_dims, padding)` on the dilation-rate
    subsampled grids of `input` (space_to_batch_nd, `op` with VALID padding, batch_to_space_nd), which turns
    a dense op into its dilated ("atrous") form; channels-last input, spatial dims 1..N."""
    x = input if isinstance(input, Tensor) else convert_to_tensor(input)
    rates = [int(r) for r in np.asarray(dilation_rate).reshape(-1)]
    n = len(rates)
    if spatial_dims is not None and list(spatial_dims) != list(range(1, n + 1)):
        raise ValueError("tensorflux's with_space_to_batch supports the spatial dims 1..N (channels last)")
    if data_format is not None and data_format.startswith("NC"):
        raise ValueError("tensorflux's with_space_to_batch supports channels-last data formats")
    if any(r < 1 for r in rates):
        raise ValueError(f"dilation_rate must be positive. Received: {rates}")
    if all(r == 1 for r in rates):
        return op(x, n, padding)
    if padding == "SAME":
        if filter_shape is None:
            raise ValueError("filter_shape must be specified for SAME padding")
        extra = [(int(k) - 1) * r for k, r in zip(list(filter_shape)[:n], rates)]
        base = [[e // 2, e - e // 2] for e in extra]
    elif padding == "VALID":
        base = [[0, 0]] * n
    else:
        raise ValueError(f"Invalid padding method {padding!r}")
    spatial = _shape_ops.shape(x)[1:n + 1]
    paddings, crops = required_space_to_batch_paddings(spatial, rates, base_paddings=base)
    converted = space_to_batch_nd(x, rates, paddings)
    result = op(converted, n, "VALID")
    return batch_to_space(result, rates, crops)


API = {"nn": ["atrous_conv2d", "atrous_conv2d_transpose", "with_space_to_batch"]}
