"""The stateful random ops (`tf.random.uniform`, `normal`, `truncated_normal`, `shuffle`, `categorical`).

Each op's `RandomStream` (seeds.py) is passed to the kernel as a static attr (`stream=`), not captured
in a closure, because an OpDef has one kernel shared by every node of its type. As an attr the stream
is visible in the graph, bound once into generated code, and every execution of the graph advances the
same stream, so calling a traced function twice gives different numbers, as in TensorFlow. Graph
passes must therefore keep attrs by identity and never merge or fold these ops (`stateful=True`).

`uniform`, `normal` and `truncated_normal` draw TensorFlow's own Philox numbers (ops/philox.py), scaled
in the output dtype as TensorFlow scales them; `categorical` samples as TensorFlow's kernel does
(multinomial.py) and `shuffle` permutes as its kernel does, from the same streams.
"""
import numpy as np

from ...framework import errors
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..convert import convert_to_tensor
from .. import jit as _jit
from .. import philox
from ..registry import OpDef, apply, constant_value
from ..shapes.creators import _no_gradient   # random draws: TensorFlow registers no gradient
from .sampling import (_SHAPE_TYPES, _UNIFORM_DTYPES, _affine, _bounds, _check_dtype, _check_shape_value,
    _float_dtype, _infer_random, _output_shape, _scale_shift, _shape_tensor)
from . import multinomial as _multinomial
from .seeds import _stream


def _random_uniform_kernel(shape, dtype, seed, seed2, stream):
    return stream.draw(_check_shape_value(shape), dtype, "uniform")


def _random_normal_kernel(shape, dtype, seed, seed2, stream):
    return stream.draw(_check_shape_value(shape), dtype, "normal")


def _truncated_normal_kernel(shape, dtype, seed, seed2, stream):
    return stream.draw(_check_shape_value(shape), dtype, "truncated_normal")


def _random_uniform_int_kernel(shape, minval, maxval, seed, seed2, stream):
    lo, hi = _bounds(minval, maxval)
    return stream.draw(_check_shape_value(shape), minval.dtype, "uniform", lo, hi)


def _infer_uniform_int(inputs, attrs):
    return [(inputs[1].dtype, _output_shape(inputs[0]))]


def _build_swaps(numba):
    @numba.njit(cache=False, nogil=True)
    def apply_swaps(order, targets):
        for i in range(targets.shape[0]):
            j = targets[i]
            order[i], order[j] = order[j], order[i]
    return apply_swaps


def _shuffle_kernel(value, seed, seed2, stream):
    if value.size <= 1 or value.shape[0] <= 1:
        return value
    size = value.shape[0]
    # TensorFlow's kernel: a forward Fisher-Yates shuffle taking one 32-bit Philox word per swap
    # (i + word % (size - i)), after reserving (size - 1) words rounded up to whole blocks.
    words = size - 1
    position = stream.reserve((words + 3) // 4)
    draws = philox.philox_words(position, (words + 3) // 4).reshape(-1)[:words].astype(np.int64)
    targets = np.arange(words, dtype=np.int64)
    targets += draws % (size - targets)
    order = np.arange(size, dtype=np.int64)
    swaps = _jit.when_hot("random_shuffle_swaps", _build_swaps, after=1, size=size)
    if swaps is not None:
        swaps(order, targets)
    else:                         # the swaps are sequential: on Python ints, ~0.2 µs each
        perm = order.tolist()
        for i, j in enumerate(targets.tolist()):
            perm[i], perm[j] = perm[j], perm[i]
        order = np.array(perm, np.intp)
    return value[order]


def _infer_same(inputs, attrs):
    return [(inputs[0].dtype, inputs[0].shape)]


def _multinomial_kernel(logits, num_samples, output_dtype, seed, seed2, stream):
    n = _multinomial.check(logits, num_samples)
    batch = logits.shape[0]
    if batch * n == 0:
        return np.zeros((batch, n), output_dtype)
    position = stream.reserve(_multinomial.reserved_blocks(batch, n))
    return _multinomial.sample(position, logits, n).astype(output_dtype)


def _infer_multinomial(inputs, attrs):
    logits = inputs[0]
    n = constant_value(inputs[1])
    samples = int(n) if n is not None else None
    dims = logits.shape._dims
    if dims is not None and len(dims) != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {len(dims)} for 'Multinomial' with input shapes: "
                         f"{logits.shape}.")
    batch = dims[0] if dims is not None else None
    return [(_dt.as_dtype(attrs["output_dtype"]), TensorShape([batch, samples]))]


RANDOM_UNIFORM = OpDef("RandomUniform", _infer_random, _random_uniform_kernel, stateful=True,
                       allowed=_SHAPE_TYPES, grad=_no_gradient, input_names=("shape",))
RANDOM_UNIFORM_INT = OpDef("RandomUniformInt", _infer_uniform_int, _random_uniform_int_kernel, stateful=True,
                           allowed=_SHAPE_TYPES, input_names=("shape", "minval", "maxval"))
RANDOM_STANDARD_NORMAL = OpDef("RandomStandardNormal", _infer_random, _random_normal_kernel, stateful=True,
                               allowed=_SHAPE_TYPES, grad=_no_gradient, input_names=("shape",))
TRUNCATED_NORMAL = OpDef("TruncatedNormal", _infer_random, _truncated_normal_kernel, stateful=True,
                         allowed=_SHAPE_TYPES, grad=_no_gradient, input_names=("shape",))
RANDOM_SHUFFLE = OpDef("RandomShuffle", _infer_same, _shuffle_kernel, stateful=True, grad=_no_gradient,
                       input_names=("value",))
MULTINOMIAL = OpDef("Multinomial", _infer_multinomial, _multinomial_kernel, stateful=True,
                    allowed=(_dt.float32, _dt.float64, _dt.float16, _dt.bfloat16),
                    grad=_no_gradient, input_names=("logits", "num_samples"))


def _seed_attrs(op_type, seed, dtype):
    stream, s1, s2 = _stream(op_type, seed, dtype)
    return {"seed": s1, "seed2": s2, "stream": stream}


def uniform(shape, minval=0, maxval=None, dtype=_dt.float32, seed=None, name=None):
    """`tf.random.uniform`: floats in [minval, maxval) (default [0, 1)), or ints in [minval, maxval)."""
    dtype = _check_dtype(dtype, _UNIFORM_DTYPES)
    shape_t = _shape_tensor(shape)
    if dtype.is_integer:
        if maxval is None:
            raise ValueError(f"Must specify maxval for integer dtype {dtype!r}")
        low = convert_to_tensor(minval, dtype=dtype)
        high = convert_to_tensor(maxval, dtype=dtype)
        attrs = _seed_attrs("RandomUniformInt", seed, (dtype._np, shape_t.dtype))
        return apply(RANDOM_UNIFORM_INT, (shape_t, low, high), attrs, name or "random_uniform")
    if maxval is None:
        maxval = 1
    attrs = _seed_attrs("RandomUniform", seed, (dtype._np, shape_t.dtype))
    attrs["dtype"] = dtype._np
    unit = apply(RANDOM_UNIFORM, (shape_t,), attrs, name or "random_uniform")
    return _affine(unit, minval, maxval, dtype)


def normal(shape, mean=0.0, stddev=1.0, dtype=_dt.float32, seed=None, name=None):
    """`tf.random.normal`: draws from N(mean, stddev²)."""
    dtype = _float_dtype(dtype)
    shape_t = _shape_tensor(shape)
    attrs = _seed_attrs("RandomStandardNormal", seed, (dtype._np, shape_t.dtype))
    attrs["dtype"] = dtype._np
    values = apply(RANDOM_STANDARD_NORMAL, (shape_t,), attrs, name or "random_normal")
    return _scale_shift(values, mean, stddev, dtype)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=_dt.float32, seed=None, name=None):
    """`tf.random.truncated_normal`: normal draws, redrawn when more than 2 stddev from the mean."""
    dtype = _float_dtype(dtype)
    shape_t = _shape_tensor(shape)
    attrs = _seed_attrs("TruncatedNormal", seed, (dtype._np, shape_t.dtype))
    attrs["dtype"] = dtype._np
    values = apply(TRUNCATED_NORMAL, (shape_t,), attrs, name or "truncated_normal")
    return _scale_shift(values, mean, stddev, dtype)


def shuffle(value, seed=None, name=None):
    """`tf.random.shuffle`: a random permutation of `value` along its first dimension."""
    value = convert_to_tensor(value)
    attrs = _seed_attrs("RandomShuffle", seed, None)
    return apply(RANDOM_SHUFFLE, (value,), attrs, name or "RandomShuffle")


def categorical(logits, num_samples, dtype=None, seed=None, name=None):
    """`tf.random.categorical`: `num_samples` class indices per row of `logits` [batch, classes]."""
    out_dtype = _check_dtype(dtype if dtype is not None else _dt.int64, (_dt.int32, _dt.int64))
    logits = convert_to_tensor(logits)
    num_samples = convert_to_tensor(num_samples, dtype=_dt.int32)
    attrs = _seed_attrs("Multinomial", seed, out_dtype._np)
    attrs["output_dtype"] = out_dtype._np
    return apply(MULTINOMIAL, (logits, num_samples), attrs, name or "Multinomial")


API = {"random": ["uniform", "normal", "truncated_normal", "shuffle", "categorical"]}
