"""What every random op shares: the shape argument (as a tensor, its static value, its run-time check),
the uniform [0, 1) draw from a NumPy Generator that dropout still uses, the integer bounds), the dtype checks of the public functions and the affine map `unit * (high - low) + low`.
"""
import math

import ml_dtypes
import numpy as np

from ...framework import errors
from ...framework.tensor import Tensor
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..math import arith as _math
from ..convert import convert_to_tensor, constant
from ..registry import constant_value
from ..shapes.common import shape_from_tensor


# -- shapes ------------------------------------------------------------------------------------------
def _shape_tensor(shape):
    if isinstance(shape, Tensor):
        return shape
    if isinstance(shape, TensorShape):
        shape = shape.as_list()
    if isinstance(shape, (list, tuple)) and any(isinstance(d, Tensor) for d in shape):
        values = [constant_value(d) for d in shape]
        if any(v is None for v in values):
            return convert_to_tensor(list(shape))    # auto-packed into one shape tensor, as TensorFlow does
        shape = [int(v) for v in values]
    if isinstance(shape, (list, tuple)) and len(shape) == 0:
        return constant(np.zeros([0], np.int32))
    return convert_to_tensor(shape)


def _output_shape(shape_tensor):
    """The static output shape of a random op whose shape input is `shape_tensor`."""
    value = constant_value(shape_tensor)
    if value is not None:
        value = np.asarray(value)
        if value.ndim != 1:
            raise ValueError(f"Shape must be rank 1 but is rank {value.ndim}")
        dims = [int(d) for d in value]
        for d in dims:
            if d < 0:
                raise ValueError(f"Dimension {d} must be >= 0")
        return TensorShape(dims)
    rank_shape = shape_tensor.shape
    if rank_shape.rank == 1:
        return shape_from_tensor(shape_tensor)   # dims known through tf.shape(...), as TensorFlow
    return TensorShape(None)


def _check_shape_value(shape):
    if shape.ndim != 1:
        raise errors.InvalidArgumentError(
            None, None, f"shape must be a vector of {{int32,int64}}, got shape "
                        f"[{','.join(str(d) for d in shape.shape)}]")
    dims = tuple(int(d) for d in shape)
    for d in dims:
        if d < 0:
            raise errors.InvalidArgumentError(None, None, f"Dimension {d} must be >= 0")
    return dims


_SHAPE_TYPES = (_dt.int32, _dt.int64)


def _infer_random(inputs, attrs):
    return [(_dt.as_dtype(attrs["dtype"]), _output_shape(inputs[0]))]


# -- kernels -----------------------------------------------------------------------------------------
_NATIVE = (np.dtype(np.float32), np.dtype(np.float64))


def _float32_unit_at_least(generator, dims, rate):
    """`generator.random(dims, dtype=float32) >= float32(rate)` (and the generator left where that draw
    leaves it) without making the floats, for dropout's keep mask.

    NumPy makes each float32 from the next 32-bit word of the bit generator, u, as (u >> 8)·2^-24; PCG64
    serves 32-bit words as the low then the high half of each 64-bit output, keeping a pending high half
    in its state. So the floats are compared as words: (u >> 8)·2^-24 >= r holds exactly when
    u >= ceil(r·2^24)·2^8, and the words come from `random_raw`, which makes one 64-bit output per two
    floats (a [60, 128] draw 20 -> 12 us). Other bit generators take NumPy's own draw."""
    bitgen = generator.bit_generator
    count = 1
    for d in dims:
        count *= d
    if type(bitgen) is not np.random.PCG64 or count == 0:
        return generator.random(dims, dtype=np.float32) >= rate
    state = bitgen.state
    pending = state["has_uint32"]
    words = bitgen.random_raw((count - pending + 1) // 2).view(np.uint32)
    if pending:
        words = np.concatenate((np.array([state["uinteger"]], np.uint32), words))
    if len(words) != count or pending:
        # What the float draw leaves: a high half it did not use is pending. (With none pending, the
        # state's spare word is never read again; NumPy leaves its last one there, this the previous.)
        state = bitgen.state
        state["has_uint32"] = len(words) - count
        if len(words) > count:
            state["uinteger"] = int(words[-1])
        bitgen.state = state
        words = words[:count]
    r = np.float32(rate)
    if r != r:                                   # NaN: no float is >= it
        return np.zeros(dims, bool)
    steps = math.ceil(float(r) * 2 ** 24)       # exact: r·2^24 is a float32 times a power of two
    if steps <= 0:
        return np.ones(dims, bool)
    if steps >= 2 ** 24:                         # above the largest float, 1 - 2^-24
        return np.zeros(dims, bool)
    return np.greater_equal(words, np.uint32(steps << 8)).reshape(dims)


def _uniform_unit(generator, dims, dtype):
    """Uniform floats in [0, 1) of `dtype`, rounded down so that narrow floats never round up to 1."""
    if dtype in _NATIVE:
        return generator.random(dims, dtype=dtype)
    bits = ml_dtypes.finfo(dtype).nmant + 1
    scale = float(2 ** bits)
    return (np.floor(generator.random(dims, dtype=np.float32) * scale) / scale).astype(dtype)


def _bounds(minval, maxval):
    for name, v in (("minval", minval), ("maxval", maxval)):
        if v.ndim != 0:
            raise errors.InvalidArgumentError(
                None, None, f"{name} must be 0-D, got shape [{','.join(str(d) for d in v.shape)}]")
    lo, hi = int(minval), int(maxval)
    if lo >= hi:
        raise errors.InvalidArgumentError(None, None, f"Need minval < maxval, got {lo} >= {hi}")
    return lo, hi


# -- public functions --------------------------------------------------------------------------------
_UNIFORM_DTYPES = (_dt.float16, _dt.bfloat16, _dt.float32, _dt.float64, _dt.int32, _dt.int64)


def _check_dtype(dtype, accepted):
    dtype = _dt.as_dtype(dtype)
    if dtype not in accepted:
        names = ", ".join(repr(d) for d in accepted)
        raise ValueError(f"Argument `dtype` got invalid value <dtype: '{dtype.name}'>. Accepted dtypes are "
                         f"({names}).")
    return dtype


def _is_literal(value, number):
    return not isinstance(value, Tensor) and isinstance(value, (int, float)) and value == number


def _affine(unit, low, high, dtype):
    """`unit * (high - low) + low` with tensorflux math ops, skipping the identity steps."""
    if _is_literal(low, 0) and _is_literal(high, 1):
        return unit
    low_t = convert_to_tensor(low, dtype=dtype)
    high_t = convert_to_tensor(high, dtype=dtype)
    low_v, high_v = constant_value(low_t), constant_value(high_t)
    if low_v is not None and high_v is not None:
        span = np.subtract(high_v, low_v, dtype=dtype.as_numpy_dtype)
        if not (np.ndim(span) == 0 and span == 1):
            unit = _math.multiply(unit, constant(span))
        if np.ndim(low_v) == 0 and low_v == 0:
            return unit
        return _math.add(unit, low_t)
    span = _math.add(high_t, _math.multiply(low_t, constant(-1, dtype=dtype)))
    return _math.add(_math.multiply(unit, span), low_t)


def _scale_shift(values, mean, stddev, dtype):
    """`values * stddev + mean`, skipping the identity steps for the default literals."""
    if not _is_literal(stddev, 1):
        values = _math.multiply(values, convert_to_tensor(stddev, dtype=dtype))
    if not _is_literal(mean, 0):
        values = _math.add(values, convert_to_tensor(mean, dtype=dtype))
    return values


def _float_dtype(dtype):
    dtype = _dt.as_dtype(dtype)
    if not dtype.is_floating:
        # TensorFlow converts the default mean 0.0 to `dtype` first, which is what fails.
        raise TypeError(f"Cannot convert 0.0 to EagerTensor of dtype {dtype.name}")
    return dtype
