"""Grayscale morphology: `tf.nn.dilation2d` (Dilation2D: the max over a window of input + filter, per
channel) and `tf.nn.erosion2d` (its dual, -dilation2d(-x, reversed filter)), with the gradient ops
Dilation2DBackpropInput/Dilation2DBackpropFilter, which route each output gradient to the input pixel and
filter tap that won the max (the first in row-major filter order on ties, as TensorFlow's CPU kernel).
"""
import numpy as np

from ...framework import errors
from ...framework.tensor import Tensor
from ...types.shape import TensorShape
from ..convert import convert_to_tensor
from ..registry import OpDef, apply, REAL
from ..math import arith as _math
from ..array import reorder as _reorder

_MORPH_TYPES = REAL


def _bad(message):
    return errors.InvalidArgumentError(None, None, message)


def _output_size(size, k, stride, rate, padding):
    """(output size, padding before) of one spatial dim, TensorFlow's SAME/VALID arithmetic."""
    effective = (k - 1) * rate + 1
    if padding == "VALID":
        return max(0, -(-(size - effective + 1) // stride)), 0
    out = -(-size // stride)
    total = max((out - 1) * stride + effective - size, 0)
    return out, total // 2


def _geometry(x_shape, f_shape, strides, rates, padding):
    _, h, w, c = x_shape
    fh, fw, fc = f_shape
    if fc != c:
        raise _bad(f"input and filter must have the same depth: {c} vs {fc}")
    oh, top = _output_size(h, fh, strides[1], rates[1], padding)
    ow, left = _output_size(w, fw, strides[2], rates[2], padding)
    return oh, ow, top, left


def _check(x, f, strides, rates):
    if x.ndim != 4:
        raise _bad(f"input must be 4-dimensional{list(x.shape)}")
    if f.ndim != 3:
        raise _bad(f"filter must be 3-dimensional: {list(f.shape)}")
    if len(strides) != 4 or len(rates) != 4 or strides[0] != 1 or strides[3] != 1 or rates[0] != 1 or rates[3] != 1:
        raise _bad("Sliding window strides field must specify 4 dimensions")


def _dilate(x, f, strides, rates, padding):
    """(output, winning filter row, winning filter column) of a dilation."""
    _check(x, f, strides, rates)
    oh, ow, top, left = _geometry(x.shape, f.shape, strides, rates, padding)
    fh, fw, _ = f.shape
    sh, sw, rh, rw = strides[1], strides[2], rates[1], rates[2]
    need_h = (oh - 1) * sh + (fh - 1) * rh + 1
    need_w = (ow - 1) * sw + (fw - 1) * rw + 1
    padded = np.full((x.shape[0], max(need_h, top + x.shape[1]), max(need_w, left + x.shape[2]), x.shape[3]),
                     -np.inf, np.float64)
    padded[:, top:top + x.shape[1], left:left + x.shape[2]] = x
    best = np.full((x.shape[0], oh, ow, x.shape[3]), -np.inf)
    arg_y = np.zeros(best.shape, np.int64)
    arg_x = np.zeros(best.shape, np.int64)
    for dy in range(fh):
        for dx in range(fw):
            window = padded[:, dy * rh:dy * rh + (oh - 1) * sh + 1:sh, dx * rw:dx * rw + (ow - 1) * sw + 1:sw]
            value = window + f[dy, dx]
            better = value > best  # strictly greater: the first maximum wins ties
            best = np.where(better, value, best)
            arg_y = np.where(better, dy, arg_y)
            arg_x = np.where(better, dx, arg_x)
    return best, arg_y, arg_x, (top, left)


def _dilation_kernel(x, f, strides, rates, padding):
    return _dilate(x, f, strides, rates, padding)[0].astype(x.dtype)


def _backprop_input_kernel(x, f, grad, strides, rates, padding):
    _, arg_y, arg_x, (top, left) = _dilate(x, f, strides, rates, padding)
    oh, ow = arg_y.shape[1:3]
    rows = np.arange(oh)[None, :, None, None] * strides[1] + arg_y * rates[1] - top
    cols = np.arange(ow)[None, None, :, None] * strides[2] + arg_x * rates[2] - left
    b = np.broadcast_to(np.arange(x.shape[0])[:, None, None, None], arg_y.shape)
    c = np.broadcast_to(np.arange(x.shape[3])[None, None, None, :], arg_y.shape)
    inside = (rows >= 0) & (rows < x.shape[1]) & (cols >= 0) & (cols < x.shape[2])
    out = np.zeros(x.shape, np.float64)
    np.add.at(out, (b[inside], rows[inside], cols[inside], c[inside]), grad[inside])
    return out.astype(x.dtype)


def _backprop_filter_kernel(x, f, grad, strides, rates, padding):
    _, arg_y, arg_x, _ = _dilate(x, f, strides, rates, padding)
    c = np.broadcast_to(np.arange(x.shape[3])[None, None, None, :], arg_y.shape)
    out = np.zeros(f.shape, np.float64)
    np.add.at(out, (arg_y.reshape(-1), arg_x.reshape(-1), c.reshape(-1)), grad.reshape(-1))
    return out.astype(f.dtype)


def _infer_dilation(inputs, attrs):
    x, f = inputs[0].shape, inputs[1].shape
    if x.rank is not None and x.rank != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {x.rank} for 'Dilation2D'")
    if f.rank is not None and f.rank != 3:
        raise ValueError(f"Shape must be rank 3 but is rank {f.rank} for 'Dilation2D'")
    if x.rank is None:
        return [(inputs[0].dtype, TensorShape([None] * 4))]
    b, h, w, c = x.as_list()
    fh, fw, _ = f.as_list() if f.rank is not None else (None, None, None)
    strides, rates, padding = attrs["strides"], attrs["rates"], attrs["padding"]
    oh = _output_size(h, fh, strides[1], rates[1], padding)[0] if None not in (h, fh) else None
    ow = _output_size(w, fw, strides[2], rates[2], padding)[0] if None not in (w, fw) else None
    return [(inputs[0].dtype, TensorShape([b, oh, ow, c]))]


def _dilation_grad(op, grad):
    x, f = op.inputs
    attrs = dict(op.attrs)
    return [apply(DILATION_BACKPROP_INPUT, (x, f, grad), attrs, "Dilation2DBackpropInput"),
            apply(DILATION_BACKPROP_FILTER, (x, f, grad), attrs, "Dilation2DBackpropFilter")]


DILATION2D = OpDef("Dilation2D", _infer_dilation, _dilation_kernel, same_dtype=True, allowed=_MORPH_TYPES,
                   input_names=("input", "filter"), grad=_dilation_grad)
DILATION_BACKPROP_INPUT = OpDef("Dilation2DBackpropInput", lambda i, a: [(i[0].dtype, i[0].shape)],
                                _backprop_input_kernel, same_dtype=True, allowed=_MORPH_TYPES,
                                input_names=("input", "filter", "out_backprop"))
DILATION_BACKPROP_FILTER = OpDef("Dilation2DBackpropFilter", lambda i, a: [(i[1].dtype, i[1].shape)],
                                 _backprop_filter_kernel, same_dtype=True, allowed=_MORPH_TYPES,
                                 input_names=("input", "filter", "out_backprop"))


def _four(value, what):
    values = [int(value)] * 2 if isinstance(value, int) else [int(v) for v in value]
    if len(values) == 2:
        values = [1] + values + [1]
    if len(values) != 4 or values[0] != 1 or values[3] != 1:
        raise ValueError(f"`{what}` must be a list of 4 ints [1, h, w, 1] (or 2 ints), received {value}")
    return tuple(values)


def _attrs(strides, padding, data_format, dilations):
    if data_format != "NHWC":
        raise ValueError("`data_format` must be 'NHWC'. Received: data_format=" + str(data_format))
    padding = padding.upper() if isinstance(padding, str) else padding
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"`padding` must be 'SAME' or 'VALID'. Received: padding={padding}")
    return {"strides": _four(strides, "strides"), "rates": _four(dilations if dilations is not None else 1,
                                                                   "dilations"), "padding": padding}


def dilation2d(input, filters, strides, padding, data_format="NHWC", dilations=None, name=None):  # noqa: A002
    """`tf.nn.dilation2d`: out[b, y, x, c] = max over the window of input + filters[dy, dx, c]."""
    input = input if isinstance(input, Tensor) else convert_to_tensor(input)
    filters = filters if isinstance(filters, Tensor) else convert_to_tensor(filters, dtype=input.dtype)
    return apply(DILATION2D, (input, filters), _attrs(strides, padding, data_format, dilations),
                 name or "dilation2d")


def erosion2d(value, filters, strides, padding, data_format="NHWC", dilations=None, name=None):
    """`tf.nn.erosion2d`: out = min over the window of value - filters (reflected), i.e.
    -dilation2d(-value, reverse(filters))."""
    value = value if isinstance(value, Tensor) else convert_to_tensor(value)
    filters = filters if isinstance(filters, Tensor) else convert_to_tensor(filters, dtype=value.dtype)
    reflected = _reorder.reverse(filters, [0, 1])
    return _math.negative(dilation2d(_math.negative(value), reflected, strides, padding, data_format, dilations),
                          name=name)


API = {"nn": ["dilation2d", "erosion2d"]}
