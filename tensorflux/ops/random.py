"""Random ops (`tf.random`): seeded streams with TensorFlow's global/op seed rules.

Seeds. `set_seed(s)` sets the global seed and restarts the op-seed counter. Each random op resolves
its `seed=` argument the way TensorFlow does (`get_seed`):
  no global seed, no op seed  -> nondeterministic (fresh OS entropy);
  global seed, no op seed     -> op seed drawn from a sequence `set_seed` restarts (eager: a Python RNG
                                 seeded by the global seed, as in TensorFlow; graph: a per-graph counter),
                                 so a rerun of the same program repeats its numbers while two calls of
                                 the same op differ;
  op seed given               -> deterministic per (global seed or TensorFlow's default graph seed,
                                 op seed); repeated eager calls with the same seeds continue one stream,
                                 like TensorFlow's eager kernel cache.

Where the state lives. A random op's state is a `RandomStream` (a NumPy Generator keyed by the two
seeds) created when the op is created: eagerly it is looked up in (or added to) the eager stream cache,
in a graph a new stream is made for the new node. The stream is passed to the kernel as a static attr
(`stream=`), not captured in a closure, because an OpDef has one kernel shared by every node of its type:
a per-node closure would need a per-node kernel, which the registry, the executor and codegen do not
have. As an attr the stream is visible in the graph (it prints its seeds), it is bound once into the
generated code, and every execution of the graph advances the same Generator, so calling a traced
function twice gives different numbers, as in TensorFlow. Graph passes must therefore keep attrs by
identity and never merge or fold stateful ops (they are `stateful=True`).

Exact numbers cannot match TensorFlow's Philox streams; distributions, shapes, dtypes and seeding
semantics do. Stateless ops (`stateless_uniform`, `stateless_normal`) derive a fresh Generator from
their seed tensor on every run.
"""
import random as _pyrandom
import weakref

import ml_dtypes
import numpy as np

from ..framework import errors
from ..framework.context import state as _state
from ..framework.tensor import Tensor
from ..types import dtypes as _dt
from ..types.shape import TensorShape
from . import math as _math
from .convert import convert_to_tensor, constant
from .registry import OpDef, apply, constant_value

__all__ = ["set_seed", "get_seed", "RandomStream", "uniform", "normal", "truncated_normal", "shuffle",
           "categorical", "stateless_uniform", "stateless_normal"]

# TensorFlow's graph seed used when only an op seed is given.
DEFAULT_GRAPH_SEED = 87654321
_MAX_SEED = 2 ** 63 - 1


class _SeedState:
    __slots__ = ("global_seed", "eager_op_seeds", "eager_streams", "graph_counters")

    def __init__(self):
        self.global_seed = None
        self.eager_op_seeds = _pyrandom.Random(None)       # TensorFlow's context RNG for eager op seeds
        self.eager_streams = {}                          # (op type, seed, seed2, dtype) -> RandomStream
        self.graph_counters = weakref.WeakKeyDictionary()  # graph -> number of seeded ops created in it


_seeds = _SeedState()


def set_seed(seed):
    """`tf.random.set_seed`: sets the global seed and restarts every eager random stream."""
    if seed is not None:
        seed = int(seed)
    _seeds.global_seed = seed
    _seeds.eager_op_seeds = _pyrandom.Random(seed)
    _seeds.eager_streams.clear()


def _next_op_seed():
    """An op seed for an op without one: the next draw of a sequence that `set_seed` restarts.

    Eagerly the sequence is a Python RNG seeded by the global seed (so derived seeds rarely collide with
    small user op seeds); in a graph it counts the seeded ops created in that graph, so tracing the same
    function twice after the same `set_seed` gives the same seeds.
    """
    graph = _state.graph
    if graph is not None:
        try:
            count = _seeds.graph_counters.get(graph, 0) + 1
            _seeds.graph_counters[graph] = count
            return count
        except TypeError:  # a graph that cannot be weakly referenced: use the eager sequence
            pass
    return _seeds.eager_op_seeds.randint(0, 2 ** 31 - 1)


def get_seed(op_seed):
    """The `(seed, seed2)` pair an op uses, by TensorFlow's rules; `(None, None)` is nondeterministic."""
    global_seed = _seeds.global_seed
    if op_seed is not None:
        if isinstance(op_seed, Tensor):
            op_seed = constant_value(op_seed)
            if op_seed is None:
                raise TypeError("`seed` must be a Python integer, not a symbolic tensor.")
        op_seed = int(op_seed)
    if global_seed is None:
        if op_seed is None:
            return None, None
        return DEFAULT_GRAPH_SEED, op_seed
    if op_seed is None:
        op_seed = _next_op_seed()
    return global_seed, op_seed


class RandomStream:
    """The state of one random op: a NumPy Generator seeded by the op's `(seed, seed2)`."""

    __slots__ = ("seed", "seed2", "generator")

    def __init__(self, seed, seed2):
        self.seed = seed
        self.seed2 = seed2
        if seed is None:
            self.generator = np.random.default_rng()
        else:
            entropy = [seed & _MAX_SEED, seed2 & _MAX_SEED]
            self.generator = np.random.Generator(np.random.PCG64(np.random.SeedSequence(entropy)))

    def __repr__(self):
        return f"RandomStream(seed={self.seed}, seed2={self.seed2})"


def _stream(op_type, seed, dtype=None):
    """The stream for a new random op: new in a graph; eagerly, cached per explicit op seed (TensorFlow's
    kernel cache) so repeated calls continue one stream, and new for derived seeds (each is unique)."""
    explicit = seed is not None
    seed, seed2 = get_seed(seed)
    if seed is None:
        return RandomStream(None, None), 0, 0
    if explicit and _state.graph is None:
        key = (op_type, seed, seed2, dtype)
        stream = _seeds.eager_streams.get(key)
        if stream is None:
            stream = _seeds.eager_streams[key] = RandomStream(seed, seed2)
        return stream, seed, seed2
    return RandomStream(seed, seed2), seed, seed2


# -- shapes ------------------------------------------------------------------------------------------
def _shape_tensor(shape):
    if isinstance(shape, Tensor):
        return shape
    if isinstance(shape, TensorShape):
        shape = shape.as_list()
    if isinstance(shape, (list, tuple)) and any(isinstance(d, Tensor) for d in shape):
        values = [constant_value(d) for d in shape]
        if any(v is None for v in values):
            raise TypeError("Random op shapes built from symbolic tensors need `tf.stack`; pass a shape tensor.")
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
    if rank_shape.rank == 1 and rank_shape._dims[0] is not None:
        return TensorShape([None] * rank_shape._dims[0])
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


def _uniform_unit(generator, dims, dtype):
    """Uniform floats in [0, 1) of `dtype`, rounded down so that narrow floats never round up to 1."""
    if dtype in _NATIVE:
        return generator.random(dims, dtype=dtype)
    bits = ml_dtypes.finfo(dtype).nmant + 1
    scale = float(2 ** bits)
    return (np.floor(generator.random(dims, dtype=np.float32) * scale) / scale).astype(dtype)


def _random_uniform_kernel(shape, dtype, seed, seed2, stream):
    return _uniform_unit(stream.generator, _check_shape_value(shape), dtype)


def _standard_normal(generator, dims, dtype):
    if dtype in _NATIVE:
        return generator.standard_normal(dims, dtype=dtype)
    return generator.standard_normal(dims, dtype=np.float32).astype(dtype)


def _random_normal_kernel(shape, dtype, seed, seed2, stream):
    return _standard_normal(stream.generator, _check_shape_value(shape), dtype)


def _truncated_normal_kernel(shape, dtype, seed, seed2, stream):
    # Resampling only the rejected draws keeps this vectorised; ~4.6% are redrawn each round.
    generator = stream.generator
    work = np.float64 if dtype == np.float64 else np.float32
    values = generator.standard_normal(_check_shape_value(shape), dtype=work)
    rejected = np.abs(values) > 2.0
    while rejected.any():
        values[rejected] = generator.standard_normal(int(rejected.sum()), dtype=work)
        rejected = np.abs(values) > 2.0
    return values.astype(dtype, copy=False)


def _bounds(minval, maxval):
    for name, v in (("minval", minval), ("maxval", maxval)):
        if v.ndim != 0:
            raise errors.InvalidArgumentError(
                None, None, f"{name} must be 0-D, got shape [{','.join(str(d) for d in v.shape)}]")
    lo, hi = int(minval), int(maxval)
    if lo >= hi:
        raise errors.InvalidArgumentError(None, None, f"Need minval < maxval, got {lo} >= {hi}")
    return lo, hi


def _random_uniform_int_kernel(shape, minval, maxval, seed, seed2, stream):
    lo, hi = _bounds(minval, maxval)
    return stream.generator.integers(lo, hi, _check_shape_value(shape), dtype=minval.dtype)


def _infer_uniform_int(inputs, attrs):
    return [(inputs[1].dtype, _output_shape(inputs[0]))]


def _shuffle_kernel(value, seed, seed2, stream):
    if value.ndim == 0 or value.shape[0] <= 1:
        return value
    return value[stream.generator.permutation(value.shape[0])]


def _infer_same(inputs, attrs):
    return [(inputs[0].dtype, inputs[0].shape)]


def _multinomial_kernel(logits, num_samples, output_dtype, seed, seed2, stream):
    if logits.ndim != 2:
        raise errors.InvalidArgumentError(
            None, None, f"logits should be a matrix, got shape [{','.join(str(d) for d in logits.shape)}]")
    n = int(num_samples)
    if n < 0:
        raise errors.InvalidArgumentError(None, None, f"num_samples should be non-negative, got {n}")
    batch, classes = logits.shape
    if classes == 0:
        raise errors.InvalidArgumentError(None, None, f"num_classes should be positive, got {classes}")
    # Inverse-CDF sampling over the finite logits only; a row with none gives `classes`, like TensorFlow.
    work = logits.astype(np.float64)
    finite = np.isfinite(work)
    row_max = np.max(np.where(finite, work, -np.inf), axis=1, keepdims=True)
    with np.errstate(invalid="ignore", over="ignore"):
        weights = np.where(finite, np.exp(work - np.where(np.isfinite(row_max), row_max, 0.0)), 0.0)
    cdf = np.cumsum(weights, axis=1)
    total = cdf[:, -1:]
    empty = total[:, 0] <= 0
    cdf = cdf / np.where(empty[:, None], 1.0, total)
    # One searchsorted for all rows: row i's normalised cdf is shifted into [i, i + 1].
    rows = np.arange(batch, dtype=np.float64)[:, None]
    flat_cdf = (cdf + rows).ravel()
    targets = stream.generator.random((batch, n)) + rows
    samples = np.searchsorted(flat_cdf, targets.ravel(), side="right").reshape(batch, n)
    samples = np.minimum(samples - np.arange(batch)[:, None] * classes, classes - 1)
    samples[empty] = classes
    return samples.astype(output_dtype)


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
                       allowed=_SHAPE_TYPES, input_names=("shape",))
RANDOM_UNIFORM_INT = OpDef("RandomUniformInt", _infer_uniform_int, _random_uniform_int_kernel, stateful=True,
                           allowed=_SHAPE_TYPES, input_names=("shape", "minval", "maxval"))
RANDOM_STANDARD_NORMAL = OpDef("RandomStandardNormal", _infer_random, _random_normal_kernel, stateful=True,
                               allowed=_SHAPE_TYPES, input_names=("shape",))
TRUNCATED_NORMAL = OpDef("TruncatedNormal", _infer_random, _truncated_normal_kernel, stateful=True,
                         allowed=_SHAPE_TYPES, input_names=("shape",))
RANDOM_SHUFFLE = OpDef("RandomShuffle", _infer_same, _shuffle_kernel, stateful=True, input_names=("value",))
MULTINOMIAL = OpDef("Multinomial", _infer_multinomial, _multinomial_kernel, stateful=True,
                    allowed=(_dt.float32, _dt.float64, _dt.float16, _dt.bfloat16),
                    input_names=("logits", "num_samples"))


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
        attrs = _seed_attrs("RandomUniformInt", seed, dtype._np)
        return apply(RANDOM_UNIFORM_INT, (shape_t, low, high), attrs, name or "random_uniform")
    if maxval is None:
        maxval = 1
    attrs = _seed_attrs("RandomUniform", seed, dtype._np)
    attrs["dtype"] = dtype._np
    unit = apply(RANDOM_UNIFORM, (shape_t,), attrs, name or "random_uniform")
    return _affine(unit, minval, maxval, dtype)


def _float_dtype(dtype):
    dtype = _dt.as_dtype(dtype)
    if not dtype.is_floating:
        # TensorFlow converts the default mean 0.0 to `dtype` first, which is what fails.
        raise TypeError(f"Cannot convert 0.0 to EagerTensor of dtype {dtype.name}")
    return dtype


def normal(shape, mean=0.0, stddev=1.0, dtype=_dt.float32, seed=None, name=None):
    """`tf.random.normal`: draws from N(mean, stddev²)."""
    dtype = _float_dtype(dtype)
    shape_t = _shape_tensor(shape)
    attrs = _seed_attrs("RandomStandardNormal", seed, dtype._np)
    attrs["dtype"] = dtype._np
    values = apply(RANDOM_STANDARD_NORMAL, (shape_t,), attrs, name or "random_normal")
    return _scale_shift(values, mean, stddev, dtype)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=_dt.float32, seed=None, name=None):
    """`tf.random.truncated_normal`: normal draws, redrawn when more than 2 stddev from the mean."""
    dtype = _float_dtype(dtype)
    shape_t = _shape_tensor(shape)
    attrs = _seed_attrs("TruncatedNormal", seed, dtype._np)
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


# -- stateless ops -----------------------------------------------------------------------------------
def _seed_generator(seed):
    if seed.shape != (2,):
        raise errors.InvalidArgumentError(
            None, None, f"seed must have shape [2], not [{','.join(str(d) for d in seed.shape)}]")
    entropy = [int(s) & _MAX_SEED for s in seed]
    return np.random.Generator(np.random.Philox(np.random.SeedSequence(entropy)))


def _stateless_uniform_kernel(shape, seed, dtype):
    return _uniform_unit(_seed_generator(seed), _check_shape_value(shape), dtype)


def _stateless_normal_kernel(shape, seed, dtype):
    return _standard_normal(_seed_generator(seed), _check_shape_value(shape), dtype)


def _stateless_uniform_int_kernel(shape, seed, minval, maxval):
    lo, hi = _bounds(minval, maxval)
    return _seed_generator(seed).integers(lo, hi, _check_shape_value(shape), dtype=minval.dtype)


def _stateless_full_int_kernel(shape, seed, dtype):
    info = np.iinfo(dtype)
    return _seed_generator(seed).integers(info.min, info.max, _check_shape_value(shape), dtype=dtype,
                                          endpoint=True)


def _infer_stateless_int(inputs, attrs):
    return [(inputs[2].dtype, _output_shape(inputs[0]))]


STATELESS_UNIFORM = OpDef("StatelessRandomUniform", _infer_random, _stateless_uniform_kernel,
                          allowed=_SHAPE_TYPES, input_names=("shape", "seed"))
STATELESS_NORMAL = OpDef("StatelessRandomNormal", _infer_random, _stateless_normal_kernel,
                         allowed=_SHAPE_TYPES, input_names=("shape", "seed"))
STATELESS_UNIFORM_INT = OpDef("StatelessRandomUniformInt", _infer_stateless_int, _stateless_uniform_int_kernel,
                              allowed=_SHAPE_TYPES, input_names=("shape", "seed", "minval", "maxval"))
STATELESS_UNIFORM_FULL_INT = OpDef("StatelessRandomUniformFullInt", _infer_random, _stateless_full_int_kernel,
                                   allowed=_SHAPE_TYPES, input_names=("shape", "seed"))


def _seed_tensor(seed):
    seed = convert_to_tensor(seed)
    if seed.dtype not in (_dt.int32, _dt.int64):
        raise errors.InvalidArgumentError(
            None, "StatelessRandomGetKeyCounter",
            f"Value for attr 'Tseed' of {seed.dtype.name} is not in the list of allowed values: int32, int64")
    return seed


def stateless_uniform(shape, seed, minval=0, maxval=None, dtype=_dt.float32, name=None, alg="auto_select"):
    """`tf.random.stateless_uniform`: like `uniform`, but the same `seed` [2] always gives the same values."""
    dtype = _check_dtype(dtype, _UNIFORM_DTYPES + (_dt.uint32, _dt.uint64))
    shape_t, seed_t = _shape_tensor(shape), _seed_tensor(seed)
    if dtype.is_integer:
        if minval is None and maxval is None:
            return apply(STATELESS_UNIFORM_FULL_INT, (shape_t, seed_t), {"dtype": dtype._np},
                         name or "stateless_random_uniform")
        if minval is None or maxval is None:
            raise ValueError(f"For integer `dtype` argument <dtype: '{dtype.name}'>, argument `minval` and "
                             f"`maxval` must be both None or not None. Got `minval`={minval} and `maxval`={maxval}.")
        low = convert_to_tensor(minval, dtype=dtype)
        high = convert_to_tensor(maxval, dtype=dtype)
        return apply(STATELESS_UNIFORM_INT, (shape_t, seed_t, low, high), None,
                     name or "stateless_random_uniform")
    if maxval is None:
        maxval = 1
    unit = apply(STATELESS_UNIFORM, (shape_t, seed_t), {"dtype": dtype._np}, name or "stateless_random_uniform")
    return _affine(unit, minval, maxval, dtype)


def stateless_normal(shape, seed, mean=0.0, stddev=1.0, dtype=_dt.float32, name=None, alg="auto_select"):
    """`tf.random.stateless_normal`: like `normal`, but the same `seed` [2] always gives the same values."""
    dtype = _float_dtype(dtype)
    shape_t, seed_t = _shape_tensor(shape), _seed_tensor(seed)
    values = apply(STATELESS_NORMAL, (shape_t, seed_t), {"dtype": dtype._np}, name or "stateless_random_normal")
    return _scale_shift(values, mean, stddev, dtype)


API = {
    "random": ["set_seed", "uniform", "normal", "truncated_normal", "shuffle", "categorical",
               "stateless_uniform", "stateless_normal"],
}
