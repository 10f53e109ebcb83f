"""Convolution and pooling (`tf.nn.conv2d`, `max_pool2d`, `avg_pool2d`, `max_pool`, `avg_pool`).

conv2d is im2col + one matmul: `as_strided` gives a view of every receptive field as
[N, OH, OW, KH, KW, C] without copying; reshaping it to [N·OH·OW, KH·KW·C] is the single copy, and one
BLAS matmul with the filter reshaped to [KH·KW·C, O] does the arithmetic. Large 3×3 stride-1
convolutions (and their input gradients) go through Winograd's F(2×2, 3×3) instead (`winograd.py`,
when numba is installed): 2.25× fewer flops and no im2col copy. Pooling reduces over the
kernel taps with one whole-array `np.maximum`/`np.add` per tap (KH·KW steps, never a loop over pixels).

Output sizes follow TensorFlow: effective kernel `(k - 1)·dilation + 1`; VALID gives
`(in - eff) // stride + 1`; SAME gives `ceil(in / stride)` with the padding split low/high as
`total // 2`, `total - total // 2`; EXPLICIT pads by the given pairs. Attrs are stored in TensorFlow's
form (4-long strides/ksize/dilations in `data_format` order, flat `explicit_paddings`). NCHW, which
TensorFlow only runs on GPUs, is accepted here by transposing to NHWC around the kernel.
"""
import itertools

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ...framework import errors
from ...framework.tensor import Tensor
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..array.basic import expand_dims, shape, shape_of, squeeze
from ..convert import constant, convert_to_tensor
from . import winograd
from ..registry import OpDef, apply, constant_value

__all__ = ["conv2d", "conv1d", "depthwise_conv2d", "conv2d_transpose", "separable_conv2d", "max_pool2d", "avg_pool2d", "max_pool", "avg_pool", "max_pool1d", "avg_pool1d",
           "max_pool3d", "avg_pool3d"]

_NARROW = (np.dtype(_dt.float16._np), np.dtype(_dt.bfloat16._np))


def _dims_text(shape):
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


def _node_text(op_name, *shapes):
    texts = ", ".join("?" if s.rank is None else _dims_text(s._dims) for s in shapes)
    return f"for '{{{{node {op_name}}}}}' with input shapes: {texts}."


# -- shared window geometry --------------------------------------------------------------------------
def _spatial_axes(rank, data_format):
    """Indices of the spatial dimensions for a tensor of `rank` in `data_format` ("NHWC"-like/"NCHW")."""
    return tuple(range(2, rank)) if data_format.startswith("NC") else tuple(range(1, rank - 1))


def _window(size, k, stride, dilation, padding, pads):
    """(output size, pad before, pad after) for one spatial dim; output None when size is None.

    Returns output < 0 (with the effective kernel size) when the window does not fit, for callers to
    report in their own error style.
    """
    eff = (k - 1) * dilation + 1
    if padding == "SAME":
        if size is None:
            return None, 0, 0
        out = -(-size // stride)
        total = max((out - 1) * stride + eff - size, 0)
        return out, total // 2, total - total // 2
    before, after = pads if padding == "EXPLICIT" else (0, 0)
    if size is None:
        return None, before, after
    padded = size + before + after
    if padded < eff:
        return -1, before, after
    return (padded - eff) // stride + 1, before, after


def _normalize_list(value, what, rank, data_format, default=1):
    """TensorFlow's 1/2/N-long `strides`/`ksize`/`dilations` argument as a full `rank`-long tuple."""
    n = rank - 2
    if value is None:
        value = default
    if isinstance(value, Tensor):
        raise TypeError(f"`{what}` must be a static int or list of ints, not a tensor.")
    if isinstance(value, (int, np.integer)):
        value = [int(value)] * n
    value = [int(v) for v in value]
    if len(value) == 1:
        value = value * n
    if len(value) == n:
        value = ([1, 1] + value) if data_format.startswith("NC") else ([1] + value + [1])
    elif len(value) != rank:
        allowed = f"1, {n} or {rank}"
        raise ValueError(f"{what} should be of length {allowed}. Received: {what}={value} of length {len(value)}")
    return tuple(value)


def _normalize_padding(padding, rank, data_format, allow_explicit=True):
    """(padding string, flat explicit_paddings) from "SAME"/"VALID" or a list of `rank` [before, after] pairs."""
    if isinstance(padding, str):
        return padding, ()
    if not allow_explicit:
        raise TypeError(f"Expected string for argument 'padding' not {padding!r}.")
    pairs = [list(p) for p in padding]
    if len(pairs) != rank:
        raise ValueError(f"When padding is a list, it must be of size {rank}. Received: padding={padding} of size "
                         f"{len(pairs)}")
    return "EXPLICIT", tuple(int(v) for p in pairs for v in p)


def _check_padding_attr(padding, op_name, explicit_ok=True):
    allowed = ("SAME", "VALID", "EXPLICIT") if explicit_ok else ("SAME", "VALID")
    if padding not in allowed:
        names = ", ".join(f'"{a}"' for a in allowed)
        raise errors.InvalidArgumentError(
            None, op_name, f"Value for attr 'padding' of \"{padding}\" is not in the list of allowed values: {names}")


def _explicit_pairs(explicit_paddings, rank):
    flat = explicit_paddings or (0,) * (2 * rank)
    return [tuple(flat[2 * i:2 * i + 2]) for i in range(rank)]


def _to_channels_last(x, data_format):
    return np.moveaxis(x, 1, -1) if data_format.startswith("NC") else x


def _from_channels_last(x, data_format):
    return np.moveaxis(x, -1, 1) if data_format.startswith("NC") else x


# -- conv2d ------------------------------------------------------------------------------------------
def _conv_geometry(in_spatial, filter_spatial, attrs):
    """[(out, before, after)] for the two spatial dims, and the per-dim (stride, dilation, eff)."""
    data_format = attrs["data_format"]
    axes = _spatial_axes(4, data_format)
    strides, dilations = attrs["strides"], attrs["dilations"]
    pairs = _explicit_pairs(attrs["explicit_paddings"], 4)
    geometry = []
    for i, axis in enumerate(axes):
        geometry.append(_window(in_spatial[i], filter_spatial[i], strides[axis], dilations[axis],
                                attrs["padding"], pairs[axis]))
    return geometry


def _check_conv_attrs(attrs, exc):
    """Raises `exc(message)` for static attr problems (TensorFlow checks these in the kernel)."""
    data_format = attrs["data_format"]
    axes = _spatial_axes(4, data_format)
    others = [i for i in range(4) if i not in axes]
    strides, dilations = attrs["strides"], attrs["dilations"]
    if any(strides[i] != 1 for i in others):
        raise errors.UnimplementedError(
            None, "Conv2D", "Current implementation does not yet support strides in the batch and depth dimensions.")
    if any(strides[i] <= 0 for i in axes):
        raise exc("Row and column strides should be larger than 0.")
    if any(dilations[i] != 1 for i in others):
        raise errors.UnimplementedError(
            None, "Conv2D",
            "Current implementation does not yet support dilations in the batch and depth dimensions.")
    if any(dilations[i] <= 0 for i in axes):
        raise exc("Dilated rates should be larger than 0.")
    if attrs["padding"] == "EXPLICIT":
        pairs = _explicit_pairs(attrs["explicit_paddings"], 4)
        if any(v < 0 for p in pairs for v in p):
            raise exc("All elements of explicit_paddings must be nonnegative")
        if any(pairs[i] != (0, 0) for i in others):
            raise exc("Nonzero explicit padding in the batch or depth dimensions is not supported")


def _kernel_error(message):
    return errors.InvalidArgumentError(None, None, message)


def _strided_windows(x, out_sizes, kernel_sizes, strides, dilations):
    """A [N, *out, *k, C] view of the receptive fields of NHWC-like `x` (no copy)."""
    sn, *spatial, sc = x.strides
    shape = (x.shape[0],) + tuple(out_sizes) + tuple(kernel_sizes) + (x.shape[-1],)
    step = tuple(s * st for s, st in zip(spatial, strides))
    tap = tuple(s * d for s, d in zip(spatial, dilations))
    return as_strided(x, shape, (sn,) + step + tap + (sc,), writeable=False)


def _conv2d_kernel(x, w, strides, padding, explicit_paddings, data_format, dilations):
    if x.ndim < 4:
        raise _kernel_error(f"convolution input must be 4-dimensional: {_dims_text(x.shape)}")
    if w.ndim != 4:
        raise _kernel_error(f"convolution filter must be 4-dimensional: {_dims_text(w.shape)}")
    attrs = {"strides": strides, "padding": padding, "explicit_paddings": explicit_paddings,
             "data_format": data_format, "dilations": dilations}
    _check_conv_attrs(attrs, _kernel_error)
    out_dtype = x.dtype
    batch_shape = x.shape[:-3]
    x = x.reshape((-1,) + x.shape[-3:])
    x = _to_channels_last(x, data_format)
    n, h, wd, c = x.shape
    kh, kw, cin, cout = w.shape
    if cin == 0 or c % cin:
        raise _kernel_error(f"input depth must be evenly divisible by filter depth: {c} vs {cin}")
    groups = c // cin
    if cout % groups:
        raise _kernel_error(f"output depth must be evenly divisible by number of groups: {cout} vs {groups}")
    geometry = _conv_geometry((h, wd), (kh, kw), attrs)
    axes = _spatial_axes(4, data_format)
    for (out, _, _), size, k, axis in zip(geometry, (h, wd), (kh, kw), axes):
        if out < 0:
            eff = (k - 1) * dilations[axis] + 1
            raise _kernel_error(f"Computed output size would be negative: {(size - eff) // strides[axis] + 1} "
                                f"[input_size: {size}, effective_filter_size: {eff}, stride: {strides[axis]}]")
    if x.dtype in _NARROW:
        x, w = x.astype(np.float32), w.astype(np.float32)
    (oh, _, _), (ow, _, _) = geometry
    if _winograd_fits(x, w, groups, strides, dilations, axes, n * oh * ow):
        out = winograd.conv2d_3x3(np.ascontiguousarray(x), np.ascontiguousarray(w),
                                  [(b, a) for _, b, a in geometry])
        out = _from_channels_last(out, data_format)
        return out.reshape(batch_shape + out.shape[1:]).astype(out_dtype, copy=False)
    pads = [(0, 0)] + [(b, a) for _, b, a in geometry] + [(0, 0)]
    if any(p != (0, 0) for p in pads):
        x = np.pad(x, pads)
    x = np.ascontiguousarray(x)
    windows = _strided_windows(x, (oh, ow), (kh, kw), [strides[a] for a in axes], [dilations[a] for a in axes])
    rows = n * oh * ow
    if groups == 1:
        out = windows.reshape(rows, kh * kw * c) @ w.reshape(kh * kw * c, cout)
    else:
        cols = windows.reshape(rows, kh * kw, groups, cin)
        per_group = w.reshape(kh * kw, cin, groups, cout // groups)
        out = np.einsum("mkgc,kcgo->mgo", cols, per_group, optimize=True).reshape(rows, cout)
    out = out.reshape((n, oh, ow, cout))
    out = _from_channels_last(out, data_format)
    return out.reshape(batch_shape + out.shape[1:]).astype(out_dtype, copy=False)


def _winograd_fits(x, w, groups, strides, dilations, axes, pixels):
    """Winograd for big 3×3 stride-1 convolutions of finite values: its transforms subtract
    neighbouring inputs, so an inf would turn into inf - inf = NaN where a direct sum gives ±inf."""
    return (groups == 1 and w.shape[:2] == (3, 3) and all(strides[a] == 1 and dilations[a] == 1 for a in axes)
            and x.dtype == w.dtype and winograd.preferred(pixels, w.shape[2], w.shape[3], x.dtype)
            and np.isfinite(w).all() and np.isfinite(x).all())


def _infer_conv2d(inputs, attrs):
    x, w = inputs
    _check_conv_attrs(attrs, ValueError)
    data_format = attrs["data_format"]
    wdims = w.shape._dims
    if wdims is not None and len(wdims) != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {len(wdims)} {_node_text('Conv2D', x.shape, w.shape)}")
    cout = wdims[3] if wdims is not None else None
    xdims = x.shape._dims
    if xdims is None:
        return [(x.dtype, TensorShape([None, None, None, cout] if data_format == "NHWC"
                                      else [None, cout, None, None]))]
    if len(xdims) < 4:
        raise ValueError(f"Shape must be rank 4 but is rank {len(xdims)} {_node_text('Conv2D', x.shape, w.shape)}")
    axes = tuple(a + len(xdims) - 4 for a in _spatial_axes(4, data_format))
    channel = len(xdims) - 1 if data_format == "NHWC" else len(xdims) - 3
    c = xdims[channel]
    if wdims is not None:
        cin = wdims[2]
        if c is not None and cin is not None and (cin == 0 or c % cin):
            raise ValueError(f"Depth of input ({c}) is not a multiple of input depth of filter ({cin}) "
                             f"{_node_text('Conv2D', x.shape, w.shape)}")
    ksizes = wdims[:2] if wdims is not None else (None, None)
    out = list(xdims)
    for i, axis in enumerate(axes):
        if ksizes[i] is None:
            out[axis] = None
            continue
        size = xdims[axis]
        o, before, after = _window(size, ksizes[i], attrs["strides"][axis - len(xdims) + 4],
                                   attrs["dilations"][axis - len(xdims) + 4], attrs["padding"],
                                   _explicit_pairs(attrs["explicit_paddings"], 4)[axis - len(xdims) + 4])
        if o is not None and o < 0:
            eff = (ksizes[i] - 1) * attrs["dilations"][axis - len(xdims) + 4] + 1
            raise ValueError(f"Negative dimension size caused by subtracting {eff} from {size + before + after} "
                             f"{_node_text('Conv2D', x.shape, w.shape)}")
        out[axis] = o
    out[channel] = cout
    return [(x.dtype, TensorShape(out))]


# -- conv2d gradients: Conv2DBackpropInput / Conv2DBackpropFilter -----------------------------------
def _conv_backprop_setup(x_dims, w_dims, dy, attrs):
    """Geometry shared by both backprop kernels: NHWC batch-flattened sizes, the gradient as [N, OH, OW, O]."""
    data_format = attrs["data_format"]
    flat = (int(np.prod(x_dims[:-3], dtype=np.int64)),) + tuple(x_dims[-3:])
    n, h, wd, c = (flat[0], flat[2], flat[3], flat[1]) if data_format.startswith("NC") else flat
    kh, kw, cin, cout = w_dims
    geometry = _conv_geometry((h, wd), (kh, kw), attrs)
    dy = _to_channels_last(dy.reshape((-1,) + dy.shape[-3:]), data_format)
    if dy.dtype in _NARROW:
        dy = dy.astype(np.float32)
    return (n, h, wd, c), geometry, dy, c // cin if cin else 1


def _conv2d_backprop_input_kernel(input_sizes, w, dy, strides, padding, explicit_paddings, data_format, dilations):
    """Each output gradient spreads over its receptive field: one matmul to per-tap columns, then one
    strided add per kernel tap into the padded input (the transpose of the forward im2col)."""
    attrs = {"strides": strides, "padding": padding, "explicit_paddings": explicit_paddings,
             "data_format": data_format, "dilations": dilations}
    x_dims = tuple(int(d) for d in np.reshape(input_sizes, -1))
    if len(x_dims) < 4 or w.ndim != 4 or dy.ndim != len(x_dims):
        raise _kernel_error(f"Conv2DCustomBackpropInput: input_sizes, filter and out_backprop must be 4-dimensional: "
                            f"{_dims_text(x_dims)}, {_dims_text(w.shape)}, {_dims_text(dy.shape)}")
    (n, h, wd, c), geometry, g, groups = _conv_backprop_setup(x_dims, w.shape, dy, attrs)
    kh, kw, cin, cout = w.shape
    _check_backprop_dims("Conv2DCustomBackpropInput", (h, wd), (kh, kw), c, cin, cout, geometry, g.shape, attrs)
    work = w.astype(np.float32) if w.dtype in _NARROW else w
    (oh, top, bottom), (ow, left, right) = geometry
    axes = _spatial_axes(4, data_format)
    if (max(top, bottom, left, right) <= 2 and g.dtype == work.dtype
            and _winograd_fits(g, np.swapaxes(work, 2, 3), groups, strides, dilations, axes, n * h * wd)):
        # Stride 1: dx is the VALID correlation of dy, padded by 2 - (forward padding), with the filter
        # turned 180° and its in/out channels swapped.
        flipped = np.ascontiguousarray(work[::-1, ::-1].transpose(0, 1, 3, 2))
        dx = winograd.conv2d_3x3(np.ascontiguousarray(g), flipped, [(2 - top, 2 - bottom), (2 - left, 2 - right)])
        return _from_channels_last(dx, data_format).reshape(x_dims).astype(w.dtype, copy=False)
    rows = n * oh * ow
    if groups == 1:
        cols = g.reshape(rows, cout) @ work.reshape(kh * kw * c, cout).T
    else:
        cols = np.einsum("mgo,kcgo->mkgc", g.reshape(rows, groups, cout // groups),
                         work.reshape(kh * kw, cin, groups, cout // groups), optimize=True)
    cols = cols.reshape(n, oh, ow, kh, kw, c)
    (sh, sw), (dh, dw) = [strides[a] for a in axes], [dilations[a] for a in axes]
    padded = np.zeros((n, h + top + bottom, wd + left + right, c), dtype=cols.dtype)
    for i in range(kh):
        for j in range(kw):
            padded[:, i * dh:i * dh + (oh - 1) * sh + 1:sh, j * dw:j * dw + (ow - 1) * sw + 1:sw] += cols[:, :, :, i, j]
    dx = _from_channels_last(padded[:, top:top + h, left:left + wd], data_format)
    return dx.reshape(x_dims).astype(w.dtype, copy=False)


def _check_backprop_dims(label, spatial, ksizes, c, cin, cout, geometry, dy_shape, attrs):
    """TensorFlow's checks that an out_backprop [N, OH, OW, O] fits the input and filter it claims."""
    if cin == 0 or c % cin:
        raise _kernel_error(f"{label}: input depth must be evenly divisible by filter depth: {c} vs {cin}")
    if dy_shape[-1] != cout:
        raise _kernel_error(f"{label}: filter and out_backprop must have the same out_depth: {cout} vs "
                            f"{dy_shape[-1]}")
    axes = _spatial_axes(4, attrs["data_format"])
    for i, ((out, _, _), size, k, axis) in enumerate(zip(geometry, spatial, ksizes, axes)):
        if out != dy_shape[1 + i]:
            raise _kernel_error(f"{label}: Size of out_backprop doesn't match computed: actual = {dy_shape[1 + i]}, "
                                f"computed = {out} spatial_dim: {axis} input: {size} filter: {k} output: "
                                f"{dy_shape[1 + i]} stride: {attrs['strides'][axis]} dilation: "
                                f"{attrs['dilations'][axis]}")


def _conv2d_backprop_filter_kernel(x, filter_sizes, dy, strides, padding, explicit_paddings, data_format,
                                   dilations):
    """Σ over output pixels of receptive field ⊗ output gradient: the forward im2col, transposed matmul."""
    attrs = {"strides": strides, "padding": padding, "explicit_paddings": explicit_paddings,
             "data_format": data_format, "dilations": dilations}
    w_dims = tuple(int(d) for d in np.reshape(filter_sizes, -1))
    (n, h, wd, c), geometry, g, groups = _conv_backprop_setup(x.shape, w_dims, dy, attrs)
    kh, kw, cin, cout = w_dims
    work = _to_channels_last(x.reshape((-1,) + x.shape[-3:]), data_format)
    if work.dtype in _NARROW:
        work = work.astype(np.float32)
    pads = [(0, 0)] + [(b, a) for _, b, a in geometry] + [(0, 0)]
    work = np.ascontiguousarray(np.pad(work, pads) if any(p != (0, 0) for p in pads) else work)
    axes = _spatial_axes(4, data_format)
    (oh, _, _), (ow, _, _) = geometry
    windows = _strided_windows(work, (oh, ow), (kh, kw), [strides[a] for a in axes], [dilations[a] for a in axes])
    rows = n * oh * ow
    if groups == 1:
        dw = windows.reshape(rows, kh * kw * c).T @ g.reshape(rows, cout)
    else:
        dw = np.einsum("mkgc,mgo->kcgo", windows.reshape(rows, kh * kw, groups, cin),
                       g.reshape(rows, groups, cout // groups), optimize=True)
    return dw.reshape(w_dims).astype(x.dtype, copy=False)


def _infer_sized(size_index, dtype_index, rank):
    """Inference for an op whose output shape is the value of input `size_index`."""
    def infer(inputs, attrs):
        value = constant_value(inputs[size_index])
        dtype = inputs[dtype_index].dtype
        if value is None:
            n = inputs[size_index].shape[0] if inputs[size_index].shape.rank == 1 else rank
            return [(dtype, TensorShape([None] * n) if n is not None else TensorShape(None))]
        return [(dtype, TensorShape([int(d) for d in np.reshape(value, -1)]))]
    return infer


def _shape_input(t):
    dims = shape_of(t)
    return constant(np.array(dims, dtype=np.int32)) if isinstance(dims, list) else shape(t)


def _conv2d_grad(op, grad):
    x, w = op.inputs
    return [apply(CONV2D_BACKPROP_INPUT, (_shape_input(x), w, grad), op.attrs, "Conv2DBackpropInput"),
            apply(CONV2D_BACKPROP_FILTER, (x, _shape_input(w), grad), op.attrs, "Conv2DBackpropFilter")]


def _conv2d_backprop_input_grad(op, grad):
    _, w, dy = op.inputs
    return [None, apply(CONV2D_BACKPROP_FILTER, (grad, _shape_input(w), dy), op.attrs, "Conv2DBackpropFilter"),
            apply(CONV2D, (grad, w), op.attrs, "Conv2D")]


def _conv2d_backprop_filter_grad(op, grad):
    x, _, dy = op.inputs
    return [apply(CONV2D_BACKPROP_INPUT, (_shape_input(x), grad, dy), op.attrs, "Conv2DBackpropInput"), None,
            apply(CONV2D, (x, grad), op.attrs, "Conv2D")]


CONV2D = OpDef("Conv2D", _infer_conv2d, _conv2d_kernel, grad=_conv2d_grad, same_dtype=True,
               allowed=(_dt.float16, _dt.bfloat16, _dt.float32, _dt.float64, _dt.int32),
               input_names=("input", "filter"))
CONV2D_BACKPROP_INPUT = OpDef("Conv2DBackpropInput", _infer_sized(0, 1, 4), _conv2d_backprop_input_kernel,
                              grad=_conv2d_backprop_input_grad, input_names=("input_sizes", "filter", "out_backprop"))
CONV2D_BACKPROP_FILTER = OpDef("Conv2DBackpropFilter", _infer_sized(1, 0, 4), _conv2d_backprop_filter_kernel,
                               grad=_conv2d_backprop_filter_grad, input_names=("input", "filter_sizes", "out_backprop"))


def conv2d(input, filters, strides, padding, data_format="NHWC", dilations=None, name=None):
    """`tf.nn.conv2d`: 2-D convolution of `input` [batch…, H, W, C] with `filters` [KH, KW, C, O]."""
    x = convert_to_tensor(input)
    w = convert_to_tensor(filters, dtype=x.dtype) if not isinstance(filters, Tensor) else filters
    data_format = data_format or "NHWC"
    if data_format not in ("NHWC", "NCHW"):
        raise errors.InvalidArgumentError(
            None, "Conv2D", f"Value for attr 'data_format' of \"{data_format}\" is not in the list of allowed "
                            f"values: \"NHWC\", \"NCHW\"")
    strides = _normalize_list(strides, "strides", 4, data_format)
    dilations = _normalize_list(dilations, "dilations", 4, data_format)
    padding, explicit = _normalize_padding(padding, 4, data_format)
    _check_padding_attr(padding, "Conv2D")
    attrs = {"strides": strides, "padding": padding, "explicit_paddings": explicit, "data_format": data_format,
             "dilations": dilations}
    return apply(CONV2D, (x, w), attrs, name or "Conv2D")


# -- conv1d, conv2d_transpose, depthwise and separable convolutions ----------------------------------
def conv1d(input, filters, stride, padding, data_format="NWC", dilations=None, name=None):
    """`tf.nn.conv1d`: `input` [batch…, W, C] (NWC) with `filters` [K, C, O], as TensorFlow runs it: a
    Conv2D over a height-1 image between ExpandDims and Squeeze, so the gradient is Conv2D's."""
    data_format = data_format or "NWC"
    if data_format not in ("NWC", "NCW"):
        raise ValueError(f"`data_format` must be 'NWC' or 'NCW'. Received: data_format={data_format}")
    channels_first = data_format == "NCW"
    x = convert_to_tensor(input)
    w = convert_to_tensor(filters, dtype=x.dtype) if not isinstance(filters, Tensor) else filters
    stride = _normalize_list(stride, "stride", 3, data_format)
    dilation = _normalize_list(dilations, "dilations", 3, data_format)
    if channels_first:
        strides, dilations = (1, 1, 1, stride[2]), (1, 1, 1, dilation[2])
    else:
        strides, dilations = (1, 1, stride[1], 1), (1, 1, dilation[1], 1)
    if not isinstance(padding, str):
        pairs = [list(p) for p in padding]
        if len(pairs) != 3:
            raise ValueError(f"When padding is a list, it must be of size 3. Received: padding={padding}")
        padding = pairs[:-1] + [[0, 0]] + pairs[-1:] if channels_first else pairs[:1] + [[0, 0]] + pairs[1:]
    y = conv2d(expand_dims(x, -2 if channels_first else -3), expand_dims(w, 0), strides, padding,
               "NCHW" if channels_first else "NHWC", dilations, name=name or "conv1d")
    return squeeze(y, [-2 if channels_first else -3])


def conv2d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NHWC", dilations=None,
                     name=None):
    """`tf.nn.conv2d_transpose`: the gradient of conv2d w.r.t. its input, run forward (Conv2DBackpropInput):
    `input` [N, H, W, O] spread over an output of `output_shape` [N, OH, OW, C] by `filters` [KH, KW, C, O]."""
    y = convert_to_tensor(input)
    w = convert_to_tensor(filters, dtype=y.dtype) if not isinstance(filters, Tensor) else filters
    data_format = data_format or "NHWC"
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError(f"`data_format` must be 'NHWC' or 'NCHW'. Received: data_format={data_format}")
    sizes = output_shape if isinstance(output_shape, Tensor) else convert_to_tensor(output_shape, dtype=_dt.int32)
    if sizes.dtype not in (_dt.int32, _dt.int64):
        raise TypeError(f"`output_shape` must be int32 or int64, not {sizes.dtype.name}")
    strides = _normalize_list(strides, "strides", 4, data_format)
    dilations = _normalize_list(dilations, "dilations", 4, data_format)
    padding, explicit = _normalize_padding(padding, 4, data_format)
    _check_padding_attr(padding, "Conv2DBackpropInput")
    attrs = {"strides": strides, "padding": padding, "explicit_paddings": explicit, "data_format": data_format,
             "dilations": dilations}
    _check_conv_attrs(attrs, ValueError)
    return apply(CONV2D_BACKPROP_INPUT, (sizes, w, y), attrs, name or "conv2d_transpose")


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
DEPTHWISE_BACKPROP_INPUT = OpDef("DepthwiseConv2dNativeBackpropInput", _infer_sized(0, 1, 4),
                                 _depthwise_backprop_input_kernel, grad=_depthwise_backprop_input_grad,
                                 input_names=("input_sizes", "filter", "out_backprop"))
DEPTHWISE_BACKPROP_FILTER = OpDef("DepthwiseConv2dNativeBackpropFilter", _infer_sized(1, 0, 4),
                                  _depthwise_backprop_filter_kernel, grad=_depthwise_backprop_filter_grad,
                                  input_names=("input", "filter_sizes", "out_backprop"))


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


# -- pooling -----------------------------------------------------------------------------------------
def _check_pool_attrs(ksize, strides, data_format, exc):
    rank = len(ksize)
    axes = _spatial_axes(rank, data_format)
    if any(k <= 0 for k in ksize):
        raise exc(f"Sliding window ksize must be positive. The specified or inferred ksize is: "
                  f"{','.join(str(k) for k in ksize)}")
    if any(s <= 0 for s in strides):
        raise exc(f"Sliding window stride must be positive. The specified or inferred stride is: "
                  f"{','.join(str(s) for s in strides)}")
    batch, depth = 0, (1 if data_format.startswith("NC") else rank - 1)
    if ksize[batch] != 1 or strides[batch] != 1:
        raise errors.UnimplementedError(None, None, "Pooling is not yet supported on the batch dimension.")
    if ksize[depth] != 1 or strides[depth] != 1:
        raise errors.UnimplementedError(None, None, "Depthwise pooling is not supported: ksize and strides of "
                                                    "the depth dimension must be 1.")
    return axes


def _pool_kernel(x, ksize, strides, padding, explicit_paddings, data_format, average):
    rank = len(ksize)
    if x.ndim != rank:
        raise _kernel_error(f"input must be {rank}-dimensional: {_dims_text(x.shape)}")
    axes = _check_pool_attrs(ksize, strides, data_format, _kernel_error)
    pairs = _explicit_pairs(explicit_paddings, rank)
    out_dtype = x.dtype
    x = _to_channels_last(x, data_format)
    spatial = x.shape[1:-1]
    ks = [ksize[a] for a in axes]
    st = [strides[a] for a in axes]
    geometry = [_window(size, k, s, 1, padding, pairs[a]) for size, k, s, a in zip(spatial, ks, st, axes)]
    for (out, _, _), size, k, s in zip(geometry, spatial, ks, st):
        if out < 0:
            raise _kernel_error(f"Computed output size would be negative: {(size - k) // s + 1} "
                                f"[input_size: {size}, effective_filter_size: {k}, stride: {s}]")
    work = x.astype(np.float32) if x.dtype in _NARROW else x
    pads = [(0, 0)] + [(b, a) for _, b, a in geometry] + [(0, 0)]
    if average:
        fill = 0
    elif work.dtype.kind == "f":
        fill = -np.inf
    else:
        fill = np.iinfo(work.dtype).min
    if any(p != (0, 0) for p in pads):
        work = np.pad(work, pads, constant_values=fill)
    outs = [g[0] for g in geometry]
    result = None
    # One whole-array step per kernel tap: KH·KW strided slices, each covering every output pixel.
    for offsets in itertools.product(*[range(k) for k in ks]):
        index = (slice(None),) + tuple(slice(o, o + (n - 1) * s + 1, s) for o, n, s in zip(offsets, outs, st))
        tap = work[index]
        if result is None:
            result = tap.astype(np.float64 if average and work.dtype == np.float64 else work.dtype, copy=True)
        elif average:
            result += tap
        else:
            np.maximum(result, tap, out=result)
    if average:
        result /= _window_counts(spatial, outs, ks, st, geometry).astype(result.dtype)[None, ..., None]
    result = _from_channels_last(result, data_format)
    return result.astype(out_dtype, copy=False)


def _window_counts(spatial, outs, ks, st, geometry):
    """How many real (unpadded) elements each output window covers: TensorFlow's SAME average divisor."""
    counts = None
    for size, n, k, s, (_, before, _) in zip(spatial, outs, ks, st, geometry):
        start = np.arange(n) * s - before
        per_dim = np.minimum(start + k, size) - np.maximum(start, 0)
        counts = per_dim if counts is None else np.multiply.outer(counts, per_dim)
    return counts


def _max_pool_kernel(x, ksize, strides, padding, explicit_paddings, data_format):
    return _pool_kernel(x, ksize, strides, padding, explicit_paddings, data_format, average=False)


def _avg_pool_kernel(x, ksize, strides, padding, data_format):
    return _pool_kernel(x, ksize, strides, padding, (), data_format, average=True)


def _infer_pool(op_name):
    def infer(inputs, attrs):
        x = inputs[0]
        ksize, strides = attrs["ksize"], attrs["strides"]
        rank = len(ksize)
        data_format = attrs["data_format"]
        dims = x.shape._dims
        if dims is None:
            return [(x.dtype, TensorShape([None] * rank))]
        if len(dims) != rank:
            raise ValueError(f"Shape must be rank {rank} but is rank {len(dims)} {_node_text(op_name, x.shape)}")
        axes = _check_pool_attrs(ksize, strides, data_format, ValueError)
        pairs = _explicit_pairs(attrs.get("explicit_paddings", ()), rank)
        out = list(dims)
        for a in axes:
            o, before, after = _window(dims[a], ksize[a], strides[a], 1, attrs["padding"], pairs[a])
            if o is not None and o < 0:
                raise ValueError(f"Negative dimension size caused by subtracting {ksize[a]} from "
                                 f"{dims[a] + before + after} {_node_text(op_name, x.shape)}")
            out[a] = o
        return [(x.dtype, TensorShape(out))]
    return infer


# -- pooling gradients ------------------------------------------------------------------------------
def _pool_plan(spatial, ksize, strides, padding, explicit_paddings, data_format):
    """(per-dim ksize, stride, (out, before, after)) for the spatial dims, as the forward kernel uses."""
    rank = len(ksize)
    axes = _spatial_axes(rank, data_format)
    pairs = _explicit_pairs(explicit_paddings, rank)
    ks = [ksize[a] for a in axes]
    st = [strides[a] for a in axes]
    geometry = [_window(size, k, s, 1, padding, pairs[a]) for size, k, s, a in zip(spatial, ks, st, axes)]
    return ks, st, geometry


def _taps(ks, st, geometry):
    """For each kernel tap, the strided index of the padded input it reads for every output position."""
    outs = [g[0] for g in geometry]
    for offsets in itertools.product(*[range(k) for k in ks]):
        yield (slice(None),) + tuple(slice(o, o + (n - 1) * s + 1, s) for o, n, s in zip(offsets, outs, st))


def _unpad(padded, geometry, spatial):
    return padded[(slice(None),) + tuple(slice(b, b + size) for (_, b, _), size in zip(geometry, spatial))]


def _max_pool_choice(x, y, ksize, strides, padding, explicit_paddings, data_format):
    """The padded NHWC-like input, the plan, and per tap the mask of outputs whose maximum it supplies
    (the first tap holding the maximum in row-major window order, as TensorFlow's CPU kernel chooses)."""
    x, y = _to_channels_last(x, data_format), _to_channels_last(y, data_format)
    spatial = x.shape[1:-1]
    ks, st, geometry = _pool_plan(spatial, ksize, strides, padding, explicit_paddings, data_format)
    fill = -np.inf if x.dtype.kind == "f" or x.dtype in _NARROW else np.iinfo(x.dtype).min
    pads = [(0, 0)] + [(b, a) for _, b, a in geometry] + [(0, 0)]
    work = np.pad(x, pads, constant_values=fill) if any(p != (0, 0) for p in pads) else x
    unclaimed = np.ones(y.shape, dtype=bool)
    choices = []
    for index in _taps(ks, st, geometry):
        chosen = unclaimed & (work[index] == y)
        unclaimed &= ~chosen
        choices.append((index, chosen))
    return work.shape, spatial, geometry, choices


def _max_pool_grad_kernel(x, y, dy, ksize, strides, padding, explicit_paddings, data_format):
    padded_shape, spatial, geometry, choices = _max_pool_choice(x, y, ksize, strides, padding, explicit_paddings,
                                                                data_format)
    g = _to_channels_last(dy, data_format)
    padded = np.zeros(padded_shape, dtype=np.float32 if g.dtype in _NARROW else g.dtype)
    for index, chosen in choices:
        padded[index] += np.where(chosen, g, 0)
    return _from_channels_last(_unpad(padded, geometry, spatial), data_format).astype(dy.dtype, copy=False)


def _max_pool_grad_grad_kernel(x, y, ddx, ksize, strides, padding, explicit_paddings, data_format):
    """The gradient of MaxPoolGrad w.r.t. its incoming gradient: each output reads `ddx` at its maximum."""
    padded_shape, spatial, geometry, choices = _max_pool_choice(x, y, ksize, strides, padding, explicit_paddings,
                                                                data_format)
    pads = [(0, 0)] + [(b, a) for _, b, a in geometry] + [(0, 0)]
    work = np.pad(_to_channels_last(ddx, data_format), pads)
    out = np.zeros(choices[0][1].shape, dtype=ddx.dtype)
    for index, chosen in choices:
        out = np.where(chosen, work[index], out)
    return _from_channels_last(out, data_format)


def _avg_pool_grad_kernel(input_shape, dy, ksize, strides, padding, data_format):
    """Each output gradient, divided by its window's real-element count, added to every tap it averaged."""
    dims = tuple(int(d) for d in np.reshape(input_shape, -1))
    g = _to_channels_last(dy, data_format)
    nhwc = (dims[0],) + dims[2:] + (dims[1],) if data_format.startswith("NC") else dims
    spatial = nhwc[1:-1]
    ks, st, geometry = _pool_plan(spatial, ksize, strides, padding, (), data_format)
    work = g.astype(np.float32) if g.dtype in _NARROW else g
    share = work / _window_counts(spatial, [o for o, _, _ in geometry], ks, st, geometry).astype(work.dtype)[
        None, ..., None]
    padded = np.zeros((nhwc[0],) + tuple(s + b + a for s, (_, b, a) in zip(spatial, geometry)) + (nhwc[-1],),
                      dtype=work.dtype)
    for index in _taps(ks, st, geometry):
        padded[index] += share
    return _from_channels_last(_unpad(padded, geometry, spatial), data_format).astype(dy.dtype, copy=False)


def _infer_like(shape_index, dtype_index):
    """Inference for a pooling-gradient op: one input's shape, another's dtype."""
    def infer(inputs, attrs):
        return [(inputs[dtype_index].dtype, inputs[shape_index].shape)]
    return infer


def _max_pool_grad(op, grad):
    grad_op = MAX_POOL_3D_GRAD if len(op.attrs["ksize"]) == 5 else MAX_POOL_GRAD
    return [apply(grad_op, (op.inputs[0], op.outputs[0], grad), op.attrs, grad_op.name)]


def _max_pool_grad_grad(op, grad):
    x, y, _ = op.inputs
    return [None, None, apply(MAX_POOL_GRAD_GRAD, (x, y, grad), op.attrs, "MaxPoolGradGrad")]


def _max_pool_grad_grad_grad(op, grad):
    x, y, _ = op.inputs
    grad_op = MAX_POOL_3D_GRAD if len(op.attrs["ksize"]) == 5 else MAX_POOL_GRAD
    return [None, None, apply(grad_op, (x, y, grad), op.attrs, grad_op.name)]


def _avg_pool_grad(op, grad):
    grad_op = AVG_POOL_3D_GRAD if len(op.attrs["ksize"]) == 5 else AVG_POOL_GRAD
    return [apply(grad_op, (_shape_input(op.inputs[0]), grad), op.attrs, grad_op.name)]


def _avg_pool_grad_grad(op, grad):
    pool = AVG_POOL_3D if len(op.attrs["ksize"]) == 5 else AVG_POOL
    return [None, apply(pool, (grad,), op.attrs, pool.name)]


_MAX_POOL_TYPES = (_dt.float16, _dt.bfloat16, _dt.float32, _dt.float64, _dt.int32, _dt.int64, _dt.uint8,
                   _dt.int16, _dt.int8, _dt.uint16)
_AVG_POOL_TYPES = (_dt.float16, _dt.bfloat16, _dt.float32, _dt.float64)

MAX_POOL = OpDef("MaxPool", _infer_pool("MaxPool"), _max_pool_kernel, grad=_max_pool_grad, allowed=_MAX_POOL_TYPES,
                 input_names=("input",))
AVG_POOL = OpDef("AvgPool", _infer_pool("AvgPool"), _avg_pool_kernel, grad=_avg_pool_grad, allowed=_AVG_POOL_TYPES,
                 input_names=("value",))
MAX_POOL_3D = OpDef("MaxPool3D", _infer_pool("MaxPool3D"), _max_pool_kernel, grad=_max_pool_grad,
                    allowed=_AVG_POOL_TYPES, input_names=("input",))
AVG_POOL_3D = OpDef("AvgPool3D", _infer_pool("AvgPool3D"), _avg_pool_kernel, grad=_avg_pool_grad,
                    allowed=_AVG_POOL_TYPES, input_names=("input",))
MAX_POOL_GRAD = OpDef("MaxPoolGrad", _infer_like(0, 2), _max_pool_grad_kernel, grad=_max_pool_grad_grad,
                      input_names=("orig_input", "orig_output", "grad"))
MAX_POOL_3D_GRAD = OpDef("MaxPool3DGrad", _infer_like(0, 2), _max_pool_grad_kernel, grad=_max_pool_grad_grad,
                         input_names=("orig_input", "orig_output", "grad"))
MAX_POOL_GRAD_GRAD = OpDef("MaxPoolGradGrad", _infer_like(1, 2),
                           _max_pool_grad_grad_kernel, grad=_max_pool_grad_grad_grad,
                           input_names=("orig_input", "orig_output", "grad"))
AVG_POOL_GRAD = OpDef("AvgPoolGrad", _infer_sized(0, 1, 4), _avg_pool_grad_kernel, grad=_avg_pool_grad_grad,
                      input_names=("orig_input_shape", "grad"))
AVG_POOL_3D_GRAD = OpDef("AvgPool3DGrad", _infer_sized(0, 1, 5), _avg_pool_grad_kernel, grad=_avg_pool_grad_grad,
                         input_names=("orig_input_shape", "grad"))

_DEFAULT_FORMATS = {3: "NWC", 4: "NHWC", 5: "NDHWC"}


def _pool(x, ksize, strides, padding, data_format, name, average, rank=None, default_name=None):
    x = convert_to_tensor(x)
    if rank is None:
        rank = x.shape.rank
        if rank is None:
            raise ValueError("`input` must have a statically known rank for tf.nn.max_pool/avg_pool.")
        if rank not in (3, 4, 5):
            raise ValueError(f"`input.shape.rank` must be 3, 4 or 5. Received: input.shape={x.shape} of rank "
                             f"{rank}")
    data_format = data_format or _DEFAULT_FORMATS[rank]
    if data_format not in ("NWC", "NCW", "NHWC", "NCHW", "NDHWC", "NCDHW"):
        raise errors.InvalidArgumentError(
            None, "MaxPool" if not average else "AvgPool",
            f"Value for attr 'data_format' of \"{data_format}\" is not in the list of allowed values: "
            f"\"NHWC\", \"NCHW\"")
    ksize = _normalize_list(ksize, "ksize", rank, data_format)
    strides = _normalize_list(strides, "strides", rank, data_format)
    padding, explicit = _normalize_padding(padding, rank, data_format, allow_explicit=not average)
    op = (AVG_POOL_3D if average else MAX_POOL_3D) if rank == 5 else (AVG_POOL if average else MAX_POOL)
    _check_padding_attr(padding, op.name, explicit_ok=not average)
    attrs = {"ksize": ksize, "strides": strides, "padding": padding, "data_format": data_format}
    if not average:
        attrs["explicit_paddings"] = explicit
    return apply(op, (x,), attrs, name or default_name or op.name)


def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):
    """`tf.nn.max_pool2d`: the maximum over each ksize window of `input` [N, H, W, C]."""
    return _pool(input, ksize, strides, padding, data_format, name, False, 4, "MaxPool2d")


def avg_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):
    """`tf.nn.avg_pool2d`: the mean over each window; SAME padding is left out of the divisor."""
    return _pool(input, ksize, strides, padding, data_format, name, True, 4, "AvgPool2D")


def max_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):
    return _pool(input, ksize, strides, padding, data_format, name, False, 3, "MaxPool1d")


def avg_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):
    return _pool(input, ksize, strides, padding, data_format, name, True, 3, "AvgPool1D")


def max_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):
    return _pool(input, ksize, strides, padding, data_format, name, False, 5, "MaxPool3D")


def avg_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):
    return _pool(input, ksize, strides, padding, data_format, name, True, 5, "AvgPool3D")


def max_pool(input, ksize, strides, padding, data_format=None, name=None):
    """`tf.nn.max_pool`: max pooling over 1, 2 or 3 spatial dims, chosen by the rank of `input`."""
    return _pool(input, ksize, strides, padding, data_format, name, False)


def avg_pool(input, ksize, strides, padding, data_format=None, name=None):
    """`tf.nn.avg_pool`: average pooling over 1, 2 or 3 spatial dims, chosen by the rank of `input`."""
    return _pool(input, ksize, strides, padding, data_format, name, True)


API = {
    "nn": ["conv2d", "conv1d", "conv2d_transpose", "depthwise_conv2d", "separable_conv2d", "max_pool2d", "avg_pool2d", "max_pool", "avg_pool", "max_pool1d", "avg_pool1d",
           "max_pool3d", "avg_pool3d"],
}
