"""3-D convolution: `tf.nn.conv3d` (Conv3D, NDHWC) and `tf.nn.conv3d_transpose` (Conv3DBackpropInputV2),
with the gradient ops Conv3DBackpropInputV2/Conv3DBackpropFilterV2, each differentiable in turn.

Kernels loop over the filter taps (KD*KH*KW strided slices of the padded input, each contracted over the
channels with one tap), so memory stays the size of the output; like TensorFlow's CPU kernel, dilation
rates other than 1 are refused.
"""
import itertools

import numpy as np

from ...framework import errors
from ...framework.tensor import Tensor
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..convert import convert_to_tensor
from ..registry import OpDef, apply, constant_value
from ..shapes import shape_ops as _shape_ops
from ..shapes.common import partial_dims

_CONV_TYPES = (_dt.float16, _dt.bfloat16, _dt.float32, _dt.float64)


def _bad(message):
    return errors.InvalidArgumentError(None, None, message)


def _geometry(spatial, kernel, strides, padding):
    """(output sizes, padding before each dim, padding after) with TensorFlow's SAME/VALID arithmetic."""
    out, before, after = [], [], []
    for size, k, s in zip(spatial, kernel, strides):
        if padding == "VALID":
            o = max(0, -(-(size - k + 1) // s))
            total = 0
        else:
            o = -(-size // s)
            total = max((o - 1) * s + k - size, 0)
        out.append(o)
        before.append(total // 2)
        after.append(total - total // 2)
    return out, before, after


def _check(x, w, strides, dilations):
    if x.ndim != 5:
        raise _bad(f"input must be 5-dimensional{list(x.shape)}")
    if w.ndim != 5:
        raise _bad(f"filter must be 5-dimensional: {list(w.shape)}")
    if x.shape[4] != w.shape[3]:
        raise _bad(f"Input depth must be evenly divisible by filter depth: {x.shape[4]} vs {w.shape[3]}")
    if any(d != 1 for d in dilations):
        raise _bad("CPU implementation of Conv3D currently only supports dilated rates of 1.")
    if strides[0] != 1 or strides[4] != 1:
        raise _bad("Current implementation does not yet support strides in the batch and depth dimensions.")


def _taps(kernel, out, strides, before):
    """For every filter tap: (tap index, slices of the padded input it reads for every output position)."""
    for tap in itertools.product(*(range(k) for k in kernel)):
        yield tap, tuple(slice(t, t + (o - 1) * s + 1, s) for t, o, s in zip(tap, out, strides))


def _conv3d_kernel(x, w, strides, padding, dilations=(1, 1, 1, 1, 1), data_format="NDHWC"):
    _check(x, w, strides, dilations)
    spatial, kernel, steps = x.shape[1:4], w.shape[:3], strides[1:4]
    out, before, after = _geometry(spatial, kernel, steps, padding)
    padded = np.pad(x, [(0, 0)] + list(zip(before, after)) + [(0, 0)])
    wide = np.float32 if x.dtype.itemsize < 4 else x.dtype
    result = np.zeros([x.shape[0]] + out + [w.shape[4]], wide)
    for tap, where in _taps(kernel, out, steps, before):
        result += np.tensordot(padded[(slice(None),) + where].astype(wide), w[tap].astype(wide), axes=([4], [0]))
    return result.astype(x.dtype)


def _backprop_input_kernel(input_sizes, w, grad, strides, padding, dilations=(1, 1, 1, 1, 1), data_format="NDHWC"):
    shape = [int(d) for d in input_sizes]
    spatial, kernel, steps = shape[1:4], w.shape[:3], strides[1:4]
    out, before, after = _geometry(spatial, kernel, steps, padding)
    expected = [shape[0]] + out + [w.shape[4]]
    if list(grad.shape) != expected:
        raise _bad(f"Conv3DBackpropInputOp: out_backprop has shape {list(grad.shape)}, but input_sizes "
                   f"{shape} with this filter, strides and padding give {expected}")
    wide = np.float32 if grad.dtype.itemsize < 4 else grad.dtype
    padded = np.zeros([shape[0]] + [s + b + a for s, b, a in zip(spatial, before, after)] + [shape[4]], wide)
    for tap, where in _taps(kernel, out, steps, before):
        padded[(slice(None),) + where] += np.tensordot(grad.astype(wide), w[tap].astype(wide), axes=([4], [1]))
    inner = tuple(slice(b, b + s) for b, s in zip(before, spatial))
    return padded[(slice(None),) + inner].astype(grad.dtype)


def _backprop_filter_kernel(x, filter_sizes, grad, strides, padding, dilations=(1, 1, 1, 1, 1),
                            data_format="NDHWC"):
    shape = [int(d) for d in filter_sizes]
    spatial, kernel, steps = x.shape[1:4], shape[:3], strides[1:4]
    out, before, after = _geometry(spatial, kernel, steps, padding)
    padded = np.pad(x, [(0, 0)] + list(zip(before, after)) + [(0, 0)])
    wide = np.float32 if x.dtype.itemsize < 4 else x.dtype
    result = np.zeros(shape, wide)
    for tap, where in _taps(kernel, out, steps, before):
        result[tap] = np.tensordot(padded[(slice(None),) + where].astype(wide), grad.astype(wide),
                                   axes=([0, 1, 2, 3], [0, 1, 2, 3]))
    return result.astype(x.dtype)


def _infer_conv3d(inputs, attrs):
    x, w = inputs[0].shape, inputs[1].shape
    for s, what in ((x, "input"), (w, "filter")):
        if s.rank is not None and s.rank != 5:
            raise ValueError(f"Shape must be rank 5 but is rank {s.rank} for 'Conv3D' ({what})")
    if x.rank is None:
        return [(inputs[0].dtype, TensorShape([None] * 5))]
    dims = x.as_list()
    kernel = w.as_list()[:3] if w.rank is not None else [None] * 3
    out_channels = w.as_list()[4] if w.rank is not None else None
    sizes = []
    for size, k, s in zip(dims[1:4], kernel, attrs["strides"][1:4]):
        sizes.append(None if size is None or k is None else _geometry([size], [k], [s], attrs["padding"])[0][0])
    return [(inputs[0].dtype, TensorShape([dims[0]] + sizes + [out_channels]))]


def _infer_sized(which):
    def infer(inputs, attrs):
        known = constant_value(inputs[which])
        dtype = inputs[2].dtype
        if known is None:
            partial = partial_dims(inputs[which])    # the sizes known through tf.shape(...), as TensorFlow
            if partial is not None and len(partial) == 5:
                return [(dtype, TensorShape([d if d is not None and d >= 0 else None for d in partial]))]
            return [(dtype, TensorShape([None] * 5))]
        return [(dtype, TensorShape([int(d) for d in np.asarray(known).reshape(-1)]))]
    return infer


def _attrs_of(op):
    return {k: op.attrs[k] for k in ("strides", "padding", "dilations", "data_format") if k in op.attrs}


def _conv3d_grad(op, grad):
    x, w = op.inputs
    attrs = _attrs_of(op)
    return [apply(CONV3D_BACKPROP_INPUT, (_shape_ops.shape(x), w, grad), attrs, "Conv3DBackpropInputV2"),
            apply(CONV3D_BACKPROP_FILTER, (x, _shape_ops.shape(w), grad), attrs, "Conv3DBackpropFilterV2")]


def _backprop_input_grad(op, grad):
    sizes, w, out_backprop = op.inputs
    attrs = _attrs_of(op)
    return [None, apply(CONV3D_BACKPROP_FILTER, (grad, _shape_ops.shape(w), out_backprop), attrs,
                        "Conv3DBackpropFilterV2"),
            apply(CONV3D, (grad, w), attrs, "Conv3D")]


def _backprop_filter_grad(op, grad):
    x, sizes, out_backprop = op.inputs
    attrs = _attrs_of(op)
    return [apply(CONV3D_BACKPROP_INPUT, (_shape_ops.shape(x), grad, out_backprop), attrs, "Conv3DBackpropInputV2"),
            None, apply(CONV3D, (x, grad), attrs, "Conv3D")]


CONV3D = OpDef("Conv3D", _infer_conv3d, _conv3d_kernel, same_dtype=True, allowed=_CONV_TYPES,
               input_names=("input", "filter"), grad=_conv3d_grad)
CONV3D_BACKPROP_INPUT = OpDef("Conv3DBackpropInputV2", _infer_sized(0), _backprop_input_kernel,
                              input_names=("input_sizes", "filter", "out_backprop"), grad=_backprop_input_grad)
CONV3D_BACKPROP_FILTER = OpDef("Conv3DBackpropFilterV2", _infer_sized(1), _backprop_filter_kernel,
                               input_names=("input", "filter_sizes", "out_backprop"), grad=_backprop_filter_grad)


def _five(value, what):
    values = [int(value)] * 3 if isinstance(value, int) else [int(v) for v in value]
    if len(values) == 1:
        values = values * 3
    if len(values) == 3:
        values = [1] + values + [1]
    if len(values) != 5:
        raise ValueError(f"`{what}` must be an int or a list of 1, 3 or 5 ints, received {value}")
    return tuple(values)


def _attrs(strides, padding, data_format, dilations):
    if data_format not in (None, "NDHWC"):
        raise errors.InvalidArgumentError(None, "Conv3D", f"Conv3D on CPU supports only the NDHWC data_format, "
                                                          f"got {data_format}")
    padding = padding.upper() if isinstance(padding, str) else padding
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"`padding` must be 'SAME' or 'VALID', received {padding}")
    return {"strides": _five(strides, "strides"), "padding": padding,
            "dilations": _five(dilations if dilations is not None else 1, "dilations"), "data_format": "NDHWC"}


def conv3d(input, filters, strides, padding, data_format="NDHWC", dilations=None, name=None):  # noqa: A002
    """`tf.nn.conv3d`: `input` [N, D, H, W, C] with `filters` [KD, KH, KW, C, O] (NDHWC)."""
    x = input if isinstance(input, Tensor) else convert_to_tensor(input)
    w = filters if isinstance(filters, Tensor) else convert_to_tensor(filters, dtype=x.dtype)
    return apply(CONV3D, (x, w), _attrs(strides, padding, data_format, dilations), name or "Conv3D")


def conv3d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NDHWC",  # noqa: A002
                     dilations=None, name=None):
    """`tf.nn.conv3d_transpose`: the gradient of conv3d with respect to its input, run forward: `input`
    [N, D', H', W', O] spread over `output_shape` [N, D, H, W, C] by `filters` [KD, KH, KW, C, O]."""
    x = input if isinstance(input, Tensor) else convert_to_tensor(input)
    w = filters if isinstance(filters, Tensor) else convert_to_tensor(filters, dtype=x.dtype)
    sizes = output_shape if isinstance(output_shape, Tensor) else convert_to_tensor(list(output_shape),
                                                                                   dtype=_dt.int32)
    return apply(CONV3D_BACKPROP_INPUT, (sizes, w, x), _attrs(strides, padding, data_format, dilations),
                 name or "conv3d_transpose")


API = {"nn": ["conv3d", "conv3d_transpose"]}
