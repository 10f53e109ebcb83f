"""Rank-generic convolution and pooling entry points of `tf.nn`, dispatching on the number of spatial
dimensions to the 1-D/2-D/3-D ops: `convolution`, `conv_transpose`, `conv1d_transpose` (a conv2d_transpose
over a height-1 image, as TensorFlow runs it) and `pool`; and `max_pool_with_argmax` (MaxPoolWithArgmax:
the max and the flat index it came from, whose gradient routes to that index).
"""
import collections

import numpy as np

from ...framework import errors
from ...framework.tensor import Tensor
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..convert import convert_to_tensor
from ..registry import OpDef, apply
from ..shapes import shaping as _shaping
from ..shapes import shape_ops as _shape_ops
from ..shapes import creators as _creators
from ..math import arith as _math
from ..array import segment as _segment
from ..array import join as _join
from .conv import conv1d, conv2d, conv2d_transpose
from .conv3d import conv3d, conv3d_transpose
from .pooling import max_pool, avg_pool

MaxPoolWithArgmax = collections.namedtuple("MaxPoolWithArgmax", ["output", "argmax"])


def _tensor(x, dtype=None):
    return x if isinstance(x, Tensor) else convert_to_tensor(x, dtype=dtype)


def _spatial_rank(filters_rank, what):
    if filters_rank not in (3, 4, 5):
        raise ValueError(f"`{what}` must have rank 3, 4 or 5 (1-D, 2-D or 3-D), received rank {filters_rank}")
    return filters_rank - 2


def convolution(input, filters, strides=None, padding="VALID", data_format=None, dilations=None,  # noqa: A002
                name=None):
    """`tf.nn.convolution`: conv1d, conv2d or conv3d chosen by the rank of `filters` [*K, C, O]."""
    filters = _tensor(filters)
    n = _spatial_rank(filters.shape.rank, "filters")
    strides = 1 if strides is None else strides
    dilations = 1 if dilations is None else dilations
    if n == 1:
        return conv1d(input, filters, strides, padding, data_format or "NWC", dilations, name)
    if n == 2:
        return conv2d(input, filters, strides, padding, data_format or "NHWC", dilations, name)
    return conv3d(input, filters, strides, padding, data_format or "NDHWC", dilations, name)


def conv1d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NWC",  # noqa: A002
                     dilations=None, name=None):
    """`tf.nn.conv1d_transpose`: the transpose of conv1d, as a conv2d_transpose over a height-1 image."""
    if data_format not in ("NWC", None):
        raise ValueError(f"`data_format` must be 'NWC' on CPU, received {data_format}")
    x = _shaping.expand_dims(_tensor(input), 1)
    w = _shaping.expand_dims(_tensor(filters, x.dtype), 0)
    shape = _tensor(output_shape, _dt.int32)
    shape = _join.concat([shape[:1], convert_to_tensor([1], dtype=shape.dtype), shape[1:]], axis=0)
    stride, rate = _width_step(strides), _width_step(1 if dilations is None else dilations)
    out = conv2d_transpose(x, w, shape, [1, 1, stride, 1], padding, "NHWC", [1, 1, rate, 1], name=name)
    return _shaping.squeeze(out, axis=[1])


def _width_step(value):
    """The width entry of an int, [w] or [1, w, 1] stride/dilation argument of a 1-D convolution."""
    if isinstance(value, int):
        return value
    values = [int(v) for v in value]
    return values[1] if len(values) == 3 else values[0]


def conv_transpose(input, filters, output_shape, strides, padding="SAME", data_format=None,  # noqa: A002
                   dilations=None, name=None):
    """`tf.nn.conv_transpose`: conv1d/2d/3d_transpose chosen by the length of `output_shape`."""
    n = len(output_shape) - 2 if not isinstance(output_shape, Tensor) else output_shape.shape.as_list()[0] - 2
    if n == 1:
        return conv1d_transpose(input, filters, output_shape, strides, padding, data_format or "NWC", dilations, name)
    if n == 2:
        return conv2d_transpose(input, filters, output_shape, strides, padding, data_format or "NHWC", dilations,
                                name)
    if n == 3:
        return conv3d_transpose(input, filters, output_shape, strides, padding, data_format or "NDHWC", dilations,
                                name)
    raise ValueError(f"`output_shape` must be of length 3, 4 or 5 but was {n + 2}.")


def pool(input, window_shape, pooling_type, strides=None, padding="VALID", data_format=None,  # noqa: A002
         dilations=None, name=None):
    """`tf.nn.pool`: max or average pooling over len(window_shape) spatial dimensions (no dilation)."""
    window = [int(w) for w in window_shape]
    if pooling_type not in ("MAX", "AVG"):
        raise ValueError(f"Invalid pooling_type: {pooling_type}")
    if dilations is not None and any(int(r) != 1 for r in dilations):
        raise ValueError("tensorflux's tf.nn.pool supports dilation_rate 1 only")
    strides = [1] * len(window) if strides is None else [int(s) for s in strides]
    fn = max_pool if pooling_type == "MAX" else avg_pool
    return fn(input, window, strides, padding, data_format, name=name)


# -- MaxPoolWithArgmax --------------------------------------------------------------------------------

def _argmax_pool_kernel(x, ksize, strides, padding, Targmax=_dt.int64, include_batch_in_index=False):  # noqa: N803
    if x.ndim != 4:
        raise errors.InvalidArgumentError(None, None, "tensor_in must be 4-dimensional")
    n, h, w, c = x.shape
    kh, kw = ksize[1], ksize[2]
    sh, sw = strides[1], strides[2]
    if padding == "VALID":
        oh, ow = -(-(h - kh + 1) // sh), -(-(w - kw + 1) // sw)
        top = left = 0
    else:
        oh, ow = -(-h // sh), -(-w // sw)
        top = max((oh - 1) * sh + kh - h, 0) // 2
        left = max((ow - 1) * sw + kw - w, 0) // 2
    best = np.full((n, oh, ow, c), -np.inf)
    arg = np.zeros((n, oh, ow, c), np.int64)
    ys = np.arange(oh)[:, None] * sh - top
    xs = np.arange(ow)[None, :] * sw - left
    for dy in range(kh):
        for dx in range(kw):
            y, xx = ys + dy, xs + dx
            inside = (y >= 0) & (y < h) & (xx >= 0) & (xx < w)
            yc, xc = np.clip(y, 0, h - 1), np.clip(xx, 0, w - 1)
            values = np.where(inside[None, :, :, None], x[:, yc, xc, :].astype(np.float64), -np.inf)
            index = (yc * w + xc)[None, :, :, None] * c + np.arange(c)
            better = values > best
            best = np.where(better, values, best)
            arg = np.where(better, index, arg)
    if include_batch_in_index:
        arg = arg + (np.arange(n) * h * w * c)[:, None, None, None]
    return best.astype(x.dtype), arg.astype(_dt.as_dtype(Targmax)._np)


def _infer_argmax_pool(inputs, attrs):
    x = inputs[0]
    if x.shape.rank is not None and x.shape.rank != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {x.shape.rank} for '{{{{node MaxPoolWithArgmax}}}}' "
                         f"with input shapes: {x.shape.as_list()}.")
    dims = x.shape.as_list() if x.shape.rank is not None else [None] * 4
    out = list(dims)
    for i in (1, 2):
        size, k, s = dims[i], attrs["ksize"][i], attrs["strides"][i]
        out[i] = None if size is None else (-(-(size - k + 1) // s) if attrs["padding"] == "VALID" else -(-size // s))
    shape = TensorShape(out)
    return [(x.dtype, shape), (_dt.as_dtype(attrs["Targmax"]), shape)]


def _argmax_pool_grad(op, grad, grad_argmax):
    # The gradient of each output goes to the input element its argmax names (batch offsets added back).
    x = op.inputs[0]
    argmax = _math.cast(op.outputs[1], _dt.int64)
    shape = _shape_ops.shape(x, out_type=_dt.int64)
    size = _math.multiply(_math.multiply(shape[1], shape[2]), shape[3])
    if not op.attrs.get("include_batch_in_index", False):
        offsets = _math.multiply(_creators.range(0, shape[0], 1, dtype=_dt.int64), size)
        argmax = _math.add(argmax, _shaping.reshape(offsets, [-1, 1, 1, 1]))
    total = _math.multiply(shape[0], size)
    flat = _segment.unsorted_segment_sum(_shaping.reshape(grad, [-1]), _shaping.reshape(argmax, [-1]), total)
    return [_shaping.reshape(flat, shape)]


MAX_POOL_WITH_ARGMAX = OpDef("MaxPoolWithArgmax", _infer_argmax_pool, _argmax_pool_kernel,
                             allowed=(_dt.float16, _dt.bfloat16, _dt.float32, _dt.float64), input_names=("input",),
                             multi=True, grad=_argmax_pool_grad)
MAX_POOL_WITH_ARGMAX.none_grads = True


def _four(value, what):
    values = [int(value)] * 2 if isinstance(value, int) else [int(v) for v in value]
    if len(values) == 1:
        values = values * 2
    if len(values) == 2:
        values = [1] + values + [1]
    if len(values) != 4:
        raise ValueError(f"`{what}` must be an int or a list of 1, 2 or 4 ints, received {value}")
    return tuple(values)


def max_pool_with_argmax(input, ksize, strides, padding, data_format="NHWC", output_argmax_type=None,  # noqa: A002
                         include_batch_in_index=False, name=None):
    """`tf.nn.max_pool_with_argmax`: (max pool, flat index ((b * H + y) * W + x) * C + c of each max, the
    batch term only with include_batch_in_index)."""
    if data_format != "NHWC":
        raise ValueError("Data formats other than 'NHWC' are not yet supported")
    x = _tensor(input)
    attrs = {"ksize": _four(ksize, "ksize"), "strides": _four(strides, "strides"), "padding": padding.upper(),
             "Targmax": _dt.as_dtype(output_argmax_type or _dt.int64),
             "include_batch_in_index": bool(include_batch_in_index)}
    output, argmax = apply(MAX_POOL_WITH_ARGMAX, (x,), attrs, name or "MaxPoolWithArgmax")
    return MaxPoolWithArgmax(output, argmax)


API = {"nn": ["convolution", "conv1d_transpose", "conv_transpose", "pool", "max_pool_with_argmax"]}
