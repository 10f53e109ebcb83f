"""Pooling (`tf.nn.max_pool2d`, `avg_pool2d`, `max_pool`, `avg_pool`, 1-D and 3-D variants) and the pooling
gradient ops. Pooling reduces over the kernel taps with one whole-array `np.maximum`/`np.add` per tap
(KH·KW steps, never a loop over pixels); window geometry comes from windows.py.
"""
import itertools

import numpy as np

from ...framework import errors
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..convert import convert_to_tensor
from ..registry import OpDef, apply
from . import compiled_pooling
from .conv import _kernel_error
from .windows import (_NARROW, _check_padding_attr, _dims_text, _explicit_pairs, _from_channels_last,
    _infer_sized, _node_text, _normalize_list, _normalize_padding, _shape_input, _spatial_axes, _to_channels_last,
    _window)


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
    if not average and x.ndim == 4 and x.size and all(out > 0 for out, _, _ in geometry):
        # the compiled single pass (numba, once hot); the taps below otherwise
        out = compiled_pooling.max_pool_2d(x, ks, st, [before for _, before, _ in geometry],
                                           [out for out, _, _ in geometry])
        if out is not None:
            return _from_channels_last(out, data_format)
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
    if x.ndim == 4 and x.shape[-1] > 0:
        # the compiled single pass (numba, once hot); NumPy below otherwise
        xl, yl, gl = (_to_channels_last(a, data_format) for a in (x, y, dy))
        ks, st, geometry = _pool_plan(xl.shape[1:-1], ksize, strides, padding, explicit_paddings, data_format)
        if all(out == size for (out, _, _), size in zip(geometry, yl.shape[1:-1])):
            dx = compiled_pooling.max_pool_grad_2d(xl, yl, gl, ks, st, [before for _, before, _ in geometry])
            if dx is not None:
                return _from_channels_last(dx, data_format)
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


API = {"nn": ["max_pool2d", "avg_pool2d", "max_pool", "avg_pool", "max_pool1d", "avg_pool1d", "max_pool3d",
              "avg_pool3d"]}
