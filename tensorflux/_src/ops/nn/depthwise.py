"""Depthwise and separable convolutions (`tf.nn.depthwise_conv2d`, `separable_conv2d`): the
DepthwiseConv2dNative ops and their gradients, computed as conv2d's kernels with one filter group per
input channel.
"""
import numpy as np

from ...framework.tensor import Tensor
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..shapes.shape_ops import shape
from ..convert import convert_to_tensor
from ..registry import OpDef, apply
from .conv import (_check_conv_attrs, _conv2d_backprop_filter_kernel, _conv2d_backprop_input_kernel,
    _conv2d_kernel, _infer_conv2d, _kernel_error, conv2d)
from .windows import (_check_padding_attr, _dims_text, _node_text, _normalize_list, _normalize_padding,
    _shape_input, _typed_kernel, _typed_sized)


def _grouped_filter(w):
    """A depthwise filter [KH, KW, C, M] as the grouped-conv filter [KH, KW, 1, C·M] it equals: output
    channel c·M + m of both is input channel c through multiplier m."""
    kh, kw, c, m = w.shape
    return w.reshape(kh, kw, 1, c * m)


def _depthwise_kernel(x, w, strides, padding, explicit_paddings, data_format, dilations):
    if w.ndim != 4:
        raise _kernel_error(f"filter must be 4-dimensional: {_dims_text(w.shape)}")
    if x.ndim != 4:
        raise _kernel_error(f"input must be 4-dimensional{_dims_text(x.shape)}")
    c = x.shape[1] if data_format.startswith("NC") else x.shape[3]
    if w.shape[2] != c:
        raise _kernel_error(f"input depth must be evenly divisible by filter depth: {c} vs {w.shape[2]}")
    return _conv2d_kernel(x, _grouped_filter(w), strides, padding, explicit_paddings, data_format, dilations)


def _depthwise_backprop_input_kernel(input_sizes, w, dy, **attrs):
    return _conv2d_backprop_input_kernel(input_sizes, _grouped_filter(w), dy, **attrs)


def _depthwise_backprop_filter_kernel(x, filter_sizes, dy, **attrs):
    kh, kw, c, m = (int(d) for d in np.reshape(filter_sizes, -1))
    dw = _conv2d_backprop_filter_kernel(x, np.array([kh, kw, 1, c * m]), dy, **attrs)
    return dw.reshape(kh, kw, c, m)


def _infer_depthwise(inputs, attrs):
    x, w = inputs
    wdims = w.shape._dims
    if wdims is not None and len(wdims) != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {len(wdims)} "
                         f"{_node_text('DepthwiseConv2dNative', x.shape, w.shape)}")
    xdims = x.shape._dims
    if xdims is not None and len(xdims) != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {len(xdims)} "
                         f"{_node_text('DepthwiseConv2dNative', x.shape, w.shape)}")
    channel = 1 if attrs["data_format"].startswith("NC") else 3
    if xdims is not None and wdims is not None and None not in (xdims[channel], wdims[2]) \
            and xdims[channel] != wdims[2]:
        raise ValueError(f"Dimensions must be equal, but are {xdims[channel]} and {wdims[2]} "
                         f"{_node_text('DepthwiseConv2dNative', x.shape, w.shape)}")
    multiplier = wdims[3] if wdims is not None else None
    channels = xdims[channel] if xdims is not None else None
    if channels is None and wdims is not None:
        channels = wdims[2]
    grouped = _SpecLike(w.dtype, TensorShape(
        [None if wdims is None else wdims[0], None if wdims is None else wdims[1], 1,
         None if None in (channels, multiplier) else channels * multiplier]))
    return _infer_conv2d([x, grouped], attrs)


class _SpecLike:
    """What `infer` functions read from an input: a dtype and a shape."""

    __slots__ = ("dtype", "shape")

    def __init__(self, dtype, shape):
        self.dtype, self.shape = dtype, shape


def _depthwise_grad(op, grad):
    x, w = op.inputs
    return [apply(DEPTHWISE_BACKPROP_INPUT, (_shape_input(x), w, grad), op.attrs,
                  "DepthwiseConv2dNativeBackpropInput"),
            apply(DEPTHWISE_BACKPROP_FILTER, (x, _shape_input(w), grad), op.attrs,
                  "DepthwiseConv2dNativeBackpropFilter")]


def _depthwise_backprop_input_grad(op, grad):
    _, w, dy = op.inputs
    return [None, apply(DEPTHWISE_BACKPROP_FILTER, (grad, _shape_input(w), dy), op.attrs,
                        "DepthwiseConv2dNativeBackpropFilter"),
            apply(DEPTHWISE, (grad, w), op.attrs, "DepthwiseConv2dNative")]


def _depthwise_backprop_filter_grad(op, grad):
    x, _, dy = op.inputs
    return [apply(DEPTHWISE_BACKPROP_INPUT, (_shape_input(x), grad, dy), op.attrs,
                  "DepthwiseConv2dNativeBackpropInput"), None,
            apply(DEPTHWISE, (x, grad), op.attrs, "DepthwiseConv2dNative")]


_CONV_FLOATS = (_dt.float16, _dt.bfloat16, _dt.float32, _dt.float64)
DEPTHWISE = OpDef("DepthwiseConv2dNative", _infer_depthwise, _depthwise_kernel, grad=_depthwise_grad,
                  same_dtype=True, allowed=_CONV_FLOATS, input_names=("input", "filter"))
_BACKPROP_INPUT_NAMES = ("input_sizes", "filter", "out_backprop")
_BACKPROP_FILTER_NAMES = ("input", "filter_sizes", "out_backprop")
DEPTHWISE_BACKPROP_INPUT = OpDef(
    "DepthwiseConv2dNativeBackpropInput",
    _typed_sized(0, (1, 2), _BACKPROP_INPUT_NAMES, "DepthwiseConv2dNativeBackpropInput", 4),
    _typed_kernel(_depthwise_backprop_input_kernel, (1, 2), "DepthwiseConv2dNativeBackpropInput"),
    grad=_depthwise_backprop_input_grad, input_names=_BACKPROP_INPUT_NAMES)
DEPTHWISE_BACKPROP_FILTER = OpDef(
    "DepthwiseConv2dNativeBackpropFilter",
    _typed_sized(1, (0, 2), _BACKPROP_FILTER_NAMES, "DepthwiseConv2dNativeBackpropFilter", 4),
    _typed_kernel(_depthwise_backprop_filter_kernel, (0, 2), "DepthwiseConv2dNativeBackpropFilter"),
    grad=_depthwise_backprop_filter_grad, input_names=_BACKPROP_FILTER_NAMES)


def _depthwise_attrs(strides, padding, data_format, dilations):
    data_format = data_format or "NHWC"
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError(f"`data_format` must be 'NHWC' or 'NCHW'. Received: data_format={data_format}")
    padding, explicit = _normalize_padding(padding, 4, data_format)
    _check_padding_attr(padding, "DepthwiseConv2dNative")
    attrs = {"strides": _normalize_list(strides, "strides", 4, data_format), "padding": padding,
             "explicit_paddings": explicit, "data_format": data_format,
             "dilations": _normalize_list(dilations, "dilations", 4, data_format)}
    _check_conv_attrs(attrs, ValueError)
    return attrs


def depthwise_conv2d(input, filter, strides, padding, data_format=None, dilations=None, name=None):
    """`tf.nn.depthwise_conv2d`: each input channel c convolved with its own `filter[:, :, c, :]` [KH, KW, M],
    giving C·M output channels (channel c·M + m)."""
    x = convert_to_tensor(input)
    w = convert_to_tensor(filter, dtype=x.dtype) if not isinstance(filter, Tensor) else filter
    return apply(DEPTHWISE, (x, w), _depthwise_attrs(strides, padding, data_format, dilations), name or "depthwise")


def separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding, data_format=None, dilations=None,
                     name=None):
    """`tf.nn.separable_conv2d`: a depthwise convolution, then a 1×1 convolution mixing its C·M channels."""
    x = convert_to_tensor(input)
    dw = convert_to_tensor(depthwise_filter, dtype=x.dtype) if not isinstance(depthwise_filter, Tensor) \
        else depthwise_filter
    pw = convert_to_tensor(pointwise_filter, dtype=x.dtype) if not isinstance(pointwise_filter, Tensor) \
        else pointwise_filter
    pdims = pw.shape._dims
    if pdims is not None and (len(pdims) != 4 or pdims[0] != 1 or pdims[1] != 1):
        raise ValueError(f"Shape must be [1, 1, in_channels, out_channels] for `pointwise_filter`. Received: "
                         f"{pw.shape}")
    ddims = dw.shape._dims
    if pdims is not None and ddims is not None and len(ddims) == 4 and None not in (ddims[2], ddims[3], pdims[2]) \
            and ddims[2] * ddims[3] != pdims[2]:
        raise ValueError(f"Dimensions must be equal, but are {ddims[2] * ddims[3]} and {pdims[2]} for "
                         f"`pointwise_filter` (in_channels must be channels * channel_multiplier).")
    attrs = _depthwise_attrs(strides, padding, data_format, dilations)
    depthwise = apply(DEPTHWISE, (x, dw), attrs, "depthwise")
    return conv2d(depthwise, pw, 1, "VALID", data_format=attrs["data_format"], name=name or "separable_conv2d")


def depthwise_conv2d_backprop_input(input_sizes, filter, out_backprop, strides, padding, data_format="NHWC",
                                    dilations=None, name=None):
    """`tf.nn.depthwise_conv2d_backprop_input`: the gradient of depthwise_conv2d with respect to its input,
    of shape `input_sizes` (a 4-vector)."""
    sizes = _sizes_tensor(input_sizes)
    w = convert_to_tensor(filter)
    dy = convert_to_tensor(out_backprop, dtype=w.dtype) if not isinstance(out_backprop, Tensor) else out_backprop
    return apply(DEPTHWISE_BACKPROP_INPUT, (sizes, w, dy), _depthwise_attrs(strides, padding, data_format, dilations),
                 name or "DepthwiseConv2dNativeBackpropInput")


def depthwise_conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding, data_format="NHWC",
                                     dilations=None, name=None):
    """`tf.nn.depthwise_conv2d_backprop_filter`: the gradient of depthwise_conv2d with respect to its filter,
    of shape `filter_sizes` (a 4-vector)."""
    x = convert_to_tensor(input)
    sizes = _sizes_tensor(filter_sizes)
    dy = convert_to_tensor(out_backprop, dtype=x.dtype) if not isinstance(out_backprop, Tensor) else out_backprop
    return apply(DEPTHWISE_BACKPROP_FILTER, (x, sizes, dy), _depthwise_attrs(strides, padding, data_format, dilations),
                 name or "DepthwiseConv2dNativeBackpropFilter")


def _sizes_tensor(sizes):
    return sizes if isinstance(sizes, Tensor) else convert_to_tensor(sizes, dtype=_dt.int32)


API = {"nn": ["depthwise_conv2d", "separable_conv2d", "depthwise_conv2d_backprop_input",
              "depthwise_conv2d_backprop_filter"]}
