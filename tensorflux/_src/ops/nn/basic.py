"""`tf.nn.bias_add` and `tf.nn.dropout`: the per-layer ops that are neither activations, losses nor
normalisation. Convolution and pooling live in conv.py.

Ops TensorFlow implements as one kernel keep its op type; functions TensorFlow composes from several
math ops in Python are one fused NumPy kernel here, under a descriptive op name: same values, dtypes and
errors, fewer graph nodes.
"""
import math

import numpy as np

from ...framework import errors
from ...framework.tensor import Tensor
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..math import arith as _math
from ..math import reduce as _reduce
from ..random.sampling import _float32_unit_at_least, _uniform_unit
from ..random.seeds import _stream
from ..convert import convert_to_tensor
from ..infer import broadcast_shape
from ..registry import OpDef, apply, constant_value
from . import compiled_dropout
from .activations import _HALF_TO_DOUBLE, _NARROW, _blockable, _widen, by_blocks
from ..shapes.common import fmt_shape as _dims_text


# -- bias_add ----------------------------------------------------------------------------------------
def _bias_add_kernel(value, bias, data_format):
    if value.ndim < 2:
        raise errors.InvalidArgumentError(
            None, None, f"Input tensor must be at least 2D: {_dims_text(value.shape)}")
    if bias.ndim != 1:
        raise errors.InvalidArgumentError(None, None, f"Biases must be 1D: {_dims_text(bias.shape)}")
    channel = 1 if data_format == "NCHW" else value.ndim - 1
    if bias.shape[0] != value.shape[channel]:
        raise errors.InvalidArgumentError(
            None, None, f"Must provide as many biases as the last dimension of the input tensor: "
                        f"{_dims_text(bias.shape)} vs. {_dims_text(value.shape)}")
    if channel != value.ndim - 1:
        bias = bias.reshape(bias.shape + (1,) * (value.ndim - 2))
    elif _blockable(value) and value.dtype == bias.dtype and value.dtype.kind == "f":
        # Channels last: blocks of whole rows of channels, each plus the bias, over the worker threads.
        rows = value.size // max(1, value.shape[-1])
        return by_blocks(lambda v, out: np.add(v, bias, out=out), np.empty_like(value), value, rows=rows)
    return np.add(value, bias)


def _infer_bias_add(inputs, attrs):
    value, bias = inputs
    dims = value.shape._dims
    if dims is None:
        return [(value.dtype, value.shape)]
    if len(dims) < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {len(dims)} for '{{{{node BiasAdd}}}}' "
                         f"with input shapes: {_shape_text(value.shape)}, {_shape_text(bias.shape)}.")
    if bias.shape.rank is not None and bias.shape.rank != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {bias.shape.rank} for '{{{{node BiasAdd}}}}' "
                         f"with input shapes: {_shape_text(value.shape)}, {_shape_text(bias.shape)}.")
    channel = 1 if attrs["data_format"] == "NCHW" else len(dims) - 1
    c, b = dims[channel], bias.shape._dims[0] if bias.shape.rank == 1 else None
    if c is not None and b is not None and c != b:
        raise ValueError(f"Dimensions must be equal, but are {c} and {b} for '{{{{node BiasAdd}}}}' with input "
                         f"shapes: {_shape_text(value.shape)}, {_shape_text(bias.shape)}.")
    if c is None and b is not None:
        dims = dims[:channel] + (b,) + dims[channel + 1:]
    return [(value.dtype, TensorShape(dims))]


def _shape_text(shape):
    if shape.rank is None:
        return "?"
    return "[" + ",".join("?" if d is None else str(d) for d in shape._dims) + "]"


def _bias_add_grad(op, grad):
    """The bias gets TensorFlow's BiasAddGrad of the gradient: summed over every dimension but the channel
    one, in its own order of additions (not reduce_sum's)."""
    from .bias_add_grad import bias_add_grad    # a lazy room: loaded on the first gradient of a bias
    return [grad, bias_add_grad(grad, op.attrs["data_format"])]


BIAS_ADD = OpDef("BiasAdd", _infer_bias_add, _bias_add_kernel, grad=_bias_add_grad, same_dtype=True,
                 allowed=(_dt.float32, _dt.float64, _dt.int32, _dt.uint8, _dt.int16, _dt.int8, _dt.int64,
                          _dt.bfloat16, _dt.uint16, _dt.float16, _dt.uint32, _dt.uint64, _dt.complex64,
                          _dt.complex128),
                 input_names=("value", "bias"))


def bias_add(value, bias, data_format=None, name=None):
    """`tf.nn.bias_add`: adds the 1-D `bias` along the channel dimension (last, or 1 for "NC…" formats)."""
    value = convert_to_tensor(value)
    bias = convert_to_tensor(bias, dtype=value.dtype) if not isinstance(bias, Tensor) else bias
    data_format = "NCHW" if data_format is not None and str(data_format).startswith("NC") else "NHWC"
    return apply(BIAS_ADD, (value, bias), {"data_format": data_format}, name or "BiasAdd")


# -- dropout -----------------------------------------------------------------------------------------
_SAME_SIZE_INT = {2: np.dtype(np.int16), 4: np.dtype(np.int32), 8: np.dtype(np.int64)}


def _noise_dims(x, noise_shape):
    """The shape of the draw: x's, or `noise_shape` (None entries taken from x) when it broadcasts to x."""
    if noise_shape is None:
        return x.shape
    dims = tuple(x.shape[i] if d is None and i < x.ndim else d for i, d in enumerate(noise_shape))
    try:
        ok = np.broadcast_shapes(dims, x.shape) == x.shape
    except ValueError:
        ok = False
    if not ok:
        raise errors.InvalidArgumentError(
            None, None, f"condition {_dims_text(dims)}, then {_dims_text(x.shape)}, and else [] must be "
                        f"broadcastable")
    return dims


_THRESHOLDS = {}      # float32 rate -> its word threshold (a training loop uses one or two rates)


def _word_threshold(rate):
    """The 32-bit word from which NumPy's float32 draw, (u >> 8)·2^-24, is >= float32(rate); 2^32 (no
    word) for NaN and rates above 1 - 2^-24 (as `_float32_unit_at_least` decides)."""
    threshold = _THRESHOLDS.get(rate)
    if threshold is None:
        r = np.float32(rate)
        steps = math.ceil(float(r) * 2 ** 24) if r == r else 2 ** 24
        threshold = 0 if steps <= 0 else (1 << 32) if steps >= 2 ** 24 else steps << 8
        if len(_THRESHOLDS) >= 64:
            _THRESHOLDS.clear()
        if rate == rate:                  # NaN keys would never be found again
            _THRESHOLDS[rate] = threshold
    return threshold


def _compiled_dropout(x, rate, scale, dims, stream):
    """The output and mask from the compiled loops (compiled_dropout.py), or None when they are not
    built (numba missing, the op not hot yet) or the generator is not NumPy's PCG64."""
    bitgen = stream.generator.bit_generator
    if type(bitgen) is not np.random.PCG64:
        return None
    loops = compiled_dropout.kernels()
    pair = loops.get(x.dtype) if loops is not None else None     # native float32/float64 only
    if pair is None:
        return None
    fused, keep_loop = pair
    state = bitgen.ctypes.state_address     # NumPy's pcg64_state, through its public ctypes interface
    limit = _word_threshold(rate) if x.dtype == np.float32 else rate
    s = x.dtype.type(scale)
    if dims == x.shape:
        out, mask = np.empty(x.shape, x.dtype), np.empty(x.shape, x.dtype)
        flat = x.reshape(-1)
        if not (flat.flags.c_contiguous and flat.flags.aligned):     # what the loop was compiled for
            flat = flat.copy()
        with bitgen.lock:                   # as NumPy's own draws: one thread at a time on a generator
            fused(flat, out.reshape(-1), mask.reshape(-1), state, limit, s)
        return out, mask
    keep = np.empty(dims, bool)
    with bitgen.lock:
        keep_loop(keep.reshape(-1), state, limit)
    return _apply_keep(x, keep, s, dims)


def _apply_keep(x, keep, s, dims):
    """x·s where kept, +0.0 elsewhere, and the mask s or +0.0, `keep` of the draw's shape `dims`."""
    bits = _SAME_SIZE_INT[x.dtype.itemsize]
    ones = np.negative(keep, dtype=bits)      # True -> -1 (all bits set), False -> 0
    out = np.multiply(x, s)
    if out.ndim == 0:                    # a 0-d x gives a NumPy scalar, which has no view
        out = np.asarray(out)
    # The second output is this draw's multiplier (0 or 1/(1 - rate)), so the gradient reuses the mask.
    mask = np.bitwise_and(ones, np.asarray(s).view(bits)).view(x.dtype)
    if dims != x.shape:                  # a noise_shape: the draw's shape, broadcast
        ones, mask = np.broadcast_to(ones, x.shape), np.broadcast_to(mask, x.shape)
    np.bitwise_and(out.view(bits), ones, out=out.view(bits))
    return out, mask


def _dropout_kernel(x, rate, noise_shape, seed, seed2, stream):
    dims = _noise_dims(x, noise_shape)
    rate = float(rate)
    scale = 1.0 / (1.0 - rate) if rate < 1 else 0.0
    if x.dtype.kind == "f" and x.dtype not in _NARROW:
        compiled = _compiled_dropout(x, rate, scale, dims, stream)
        if compiled is not None:
            return compiled
        # The same values as the select below, without its float64 temporaries (x·scale rounds the Python
        # float scale to x's dtype either way): a [128, 1600] float32 batch 3.2 -> 1.7 ms. The select
        # itself is a bitwise AND of each value's bits with all ones (kept) or all zeros (dropped: +0.0,
        # whatever the value was, NaN and -x included, as a select gives), 3x faster than a masked copy.
        # The keep test made from the generator's words (no floats), then five NumPy calls: the [60, 128]
        # batch of a Dense layer 55 -> 25 us.
        if x.dtype == np.float32:
            keep = _float32_unit_at_least(stream.generator, dims, rate)    # the float draw's test, as words
        else:
            keep = np.greater_equal(stream.generator.random(dims, dtype=x.dtype), rate)
        return _apply_keep(x, keep, x.dtype.type(scale), dims)
    noise = _uniform_unit(stream.generator, dims, np.dtype(np.float32) if x.dtype in _NARROW else x.dtype)
    keep = noise >= rate
    out = np.where(keep, _widen(x) * scale, 0).astype(x.dtype, copy=False)
    mask = np.broadcast_to(np.where(keep, scale, 0.0).astype(x.dtype), x.shape)
    return out, mask


def _infer_dropout(inputs, attrs):
    x = inputs[0]
    noise_shape = attrs["noise_shape"]
    if noise_shape is not None and x.shape.rank is not None:
        if len(noise_shape) > x.shape.rank:
            raise ValueError(f"`noise_shape` {list(noise_shape)} has more dimensions than `x` {x.shape}.")
        try:
            out = broadcast_shape(x.shape, TensorShape(noise_shape))
        except ValueError:
            out = None
        if out is None or not out.is_compatible_with(x.shape):
            raise ValueError(f"`noise_shape` {list(noise_shape)} does not broadcast to the shape of `x` "
                             f"{x.shape}.")
    return [(x.dtype, x.shape), (x.dtype, x.shape)]


def _dropout_grad(op, grad, grad_mask):
    """out = x·mask with mask = keep/(1 - rate): d/dx = mask, d/drate = Σ grad·x·mask/(1 - rate)."""
    if grad is None:
        return [None, None]
    x, rate = op.inputs
    mask = op.outputs[1]
    d_x = _math.multiply(grad, mask)
    d_rate = _math.divide(_reduce.reduce_sum(_math.multiply(d_x, x)), _math.subtract(1.0, rate))
    return [d_x, d_rate]


DROPOUT = OpDef("Dropout", _infer_dropout, _dropout_kernel, grad=_dropout_grad, stateful=True,
                allowed=_HALF_TO_DOUBLE, same_dtype=True, input_names=("x", "rate"), multi=True)
DROPOUT.none_grads = True  # the mask output is internal


def dropout(x, rate, noise_shape=None, seed=None, name=None):
    """`tf.nn.dropout`: zeroes each element with probability `rate` and scales the rest by 1/(1-rate)."""
    x = convert_to_tensor(x)
    if not x.dtype.is_floating:
        raise ValueError(f"`x.dtype` must be a floating point tensor as `x` will be scaled. Received: "
                         f"x_dtype=<dtype: '{x.dtype.name}'>")
    if isinstance(rate, Tensor):
        if rate.shape.rank is not None and rate.shape.rank != 0:
            raise ValueError(f"Shape {tuple(rate.shape._dims)} must have rank 0")
        if rate.dtype is not x.dtype:
            raise ValueError(f"`x.dtype` must be compatible with `rate.dtype`. Received: x.dtype=<dtype: "
                             f"'{x.dtype.name}'> and rate.dtype=<dtype: '{rate.dtype.name}'>")
        rate_t = rate
    else:
        if isinstance(rate, bool) or not isinstance(rate, (int, float, np.number)):
            raise ValueError(f"`rate` must be a scalar or scalar tensor. Received: rate={rate}")
        if not 0 <= rate < 1:
            raise ValueError(f"`rate` must be a scalar tensor or a float in the range [0, 1). Received: "
                             f"rate={rate}")
        if rate == 0:
            return x
        rate_t = convert_to_tensor(float(rate), dtype=x.dtype)
    if noise_shape is not None:
        if isinstance(noise_shape, Tensor):
            value = constant_value(noise_shape)
            if value is None:
                raise TypeError("`noise_shape` must be static (a list or a constant tensor).")
            noise_shape = value.tolist()
        noise_shape = tuple(TensorShape(noise_shape)._dims)
    stream, s1, s2 = _stream("Dropout", seed)
    attrs = {"noise_shape": noise_shape, "seed": s1, "seed2": s2, "stream": stream}
    return apply(DROPOUT, (x, rate_t), attrs, name or "dropout")[0]


API = {"nn": ["bias_add", "dropout"]}
