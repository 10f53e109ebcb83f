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
import enum
import itertools
import random as _pyrandom
import weakref

import ml_dtypes
import numpy as np

from ..framework import errors
from ..framework.context import state as _state
from ..framework.tensor import Tensor
from ..types import dtypes as _dt
from ..types.shape import TensorShape
from .array import basic as _array
from .array import creation as _creation
from .array import indexing as _indexing
from .math import arith as _math
from .math import reduce as _reduce
from .convert import convert_to_tensor, constant
from .registry import OpDef, apply, constant_value
from .state import ASSIGN_VARIABLE, READ_VARIABLE, ResourceHandle, VariableResource

__all__ = ["set_seed", "get_seed", "RandomStream", "uniform", "normal", "truncated_normal", "shuffle",
           "categorical", "stateless_uniform", "stateless_normal", "Generator", "Algorithm",
           "get_global_generator", "set_global_generator"]

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
    return _truncated_normal(stream.generator, _check_shape_value(shape), dtype)


def _truncated_normal(generator, dims, dtype):
    # Resampling only the rejected draws keeps this vectorised; ~4.6% are redrawn each round.
    work = np.float64 if dtype == np.float64 else np.float32
    values = generator.standard_normal(dims, dtype=work)
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


# -- tf.random.Generator -----------------------------------------------------------------------------
# A Generator's state is an int64 vector [counter words…, key] (Philox: 2 counter words; ThreeFry: 1) in a
# variable resource, so a traced function captures it by reference: each call runs `RngReadAndSkip`,
# which reads the state and advances the counter by 256 per requested element (TensorFlow's stride), and
# the draws come from a counter-based Philox stream at that (key, counter). NumPy's Philox takes key and
# counter directly, and consumes far fewer than 256 counter steps per element, so successive calls use
# disjoint parts of one stream; the numbers themselves differ from TensorFlow's.

class Algorithm(enum.Enum):
    """`tf.random.Algorithm`: the counter-based RNG a Generator uses."""
    PHILOX = 1
    THREEFRY = 2
    AUTO_SELECT = 3


_ALGORITHM_NAMES = {"philox": 1, "threefry": 2, "auto_select": 3}
_STATE_SIZES = {1: 3, 2: 2}
_SKIP_STRIDE = 256
_WORD = 2 ** 64


def _algorithm(alg):
    if alg is None:
        return Algorithm.PHILOX.value
    if isinstance(alg, Algorithm):
        alg = alg.value
    elif isinstance(alg, str):
        if alg.lower() not in _ALGORITHM_NAMES:
            raise ValueError(f"Argument `alg` got unsupported value {alg}. Supported values are philox for the "
                             f"Philox algorithm, threefry for the ThreeFry algorithm, and auto_select for "
                             f"auto-selection.")
        alg = _ALGORITHM_NAMES[alg.lower()]
    if alg not in (1, 2, 3):
        raise ValueError(f"Argument `alg` got unsupported value {alg}. Supported values are philox for the Philox "
                         f"algorithm, threefry for the ThreeFry algorithm, and auto_select for auto-selection.")
    return 1 if alg == 3 else alg  # auto_select picks Philox on CPU, as TensorFlow does


def _words(value, size):
    """A Python integer as `size` little-endian 64-bit words (int64, two's complement, like TensorFlow)."""
    value %= _WORD ** size
    words = [(value >> (64 * i)) % _WORD for i in range(size)]
    return np.array(words, dtype=np.uint64).view(np.int64)


def _read_and_skip_kernel(resource, alg, delta):
    state = resource.value
    if state.dtype != np.int64 or state.ndim != 1 or state.shape[0] < 2:
        raise errors.InvalidArgumentError(None, None, "The RNG state must be an int64 vector of size 2 or 3, got "
                                                      f"{state.dtype} of shape {list(state.shape)}")
    counter_words = state.shape[0] - 1
    if int(alg) == 1 and counter_words < 2:
        raise errors.InvalidArgumentError(None, None, f"The size of the state must be at least 3; got "
                                                      f"{state.shape[0]}")
    unsigned = state.view(np.uint64)
    counter = sum(int(unsigned[i]) << (64 * i) for i in range(counter_words))
    advanced = _words(counter + _SKIP_STRIDE * int(delta), counter_words)
    resource.value = np.concatenate([advanced, state[counter_words:]])  # a new array: earlier reads keep theirs
    counter_part = state[:counter_words] if counter_words == 2 else np.array([state[0], 0], np.int64)
    return np.concatenate([counter_part, state[counter_words:counter_words + 1]])


def _infer_read_and_skip(inputs, attrs):
    return [(_dt.int64, TensorShape([3]))]


RNG_READ_AND_SKIP = OpDef("RngReadAndSkip", _infer_read_and_skip, _read_and_skip_kernel, stateful=True,
                          input_names=("resource", "alg", "delta"))


def _philox(key, counter):
    """The NumPy Generator of the Philox stream at `key` [1] and `counter` [2] (int64 words)."""
    if key.shape != (1,) or counter.shape != (2,):
        raise errors.InvalidArgumentError(
            None, None, f"key must have shape [1] and counter shape [2], got [{','.join(map(str, key.shape))}] and "
                        f"[{','.join(map(str, counter.shape))}]")
    words = counter.astype(np.int64).view(np.uint64)
    bits = np.random.Philox(counter=np.array([words[0], words[1], 0, 0], np.uint64),
                            key=np.array([key.astype(np.int64).view(np.uint64)[0], 0], np.uint64))
    return np.random.Generator(bits)


def _keyed_uniform_kernel(shape, key, counter, alg, dtype):
    return _uniform_unit(_philox(key, counter), _check_shape_value(shape), dtype)


def _keyed_normal_kernel(shape, key, counter, alg, dtype):
    return _standard_normal(_philox(key, counter), _check_shape_value(shape), dtype)


def _keyed_truncated_normal_kernel(shape, key, counter, alg, dtype):
    return _truncated_normal(_philox(key, counter), _check_shape_value(shape), dtype)


def _keyed_uniform_int_kernel(shape, key, counter, alg, minval, maxval):
    lo, hi = _bounds(minval, maxval)
    return _philox(key, counter).integers(lo, hi, _check_shape_value(shape), dtype=minval.dtype)


def _keyed_full_int_kernel(shape, key, counter, alg, dtype):
    info = np.iinfo(dtype)
    return _philox(key, counter).integers(info.min, info.max, _check_shape_value(shape), dtype=dtype, endpoint=True)


def _infer_keyed_int(inputs, attrs):
    return [(inputs[4].dtype, _output_shape(inputs[0]))]


_KEYED_INPUTS = ("shape", "key", "counter", "alg")
STATELESS_UNIFORM_V2 = OpDef("StatelessRandomUniformV2", _infer_random, _keyed_uniform_kernel,
                             allowed=_SHAPE_TYPES, input_names=_KEYED_INPUTS)
STATELESS_NORMAL_V2 = OpDef("StatelessRandomNormalV2", _infer_random, _keyed_normal_kernel,
                            allowed=_SHAPE_TYPES, input_names=_KEYED_INPUTS)
STATELESS_TRUNCATED_NORMAL_V2 = OpDef("StatelessTruncatedNormalV2", _infer_random, _keyed_truncated_normal_kernel,
                                      allowed=_SHAPE_TYPES, input_names=_KEYED_INPUTS)
STATELESS_UNIFORM_INT_V2 = OpDef("StatelessRandomUniformIntV2", _infer_keyed_int, _keyed_uniform_int_kernel,
                                 allowed=_SHAPE_TYPES, input_names=_KEYED_INPUTS + ("minval", "maxval"))
STATELESS_UNIFORM_FULL_INT_V2 = OpDef("StatelessRandomUniformFullIntV2", _infer_random, _keyed_full_int_kernel,
                                      allowed=_SHAPE_TYPES, input_names=_KEYED_INPUTS)

_generator_ids = itertools.count(1)


class Generator:
    """`tf.random.Generator`: a counter-based random stream whose state lives in a variable resource.

        g = tf.random.Generator.from_seed(1234)
        g.normal([2, 3])      # deterministic for the seed; each call (eager or traced) advances the state
    """

    def __init__(self, copy_from=None, state=None, alg=None):
        if copy_from is not None:
            if state is not None or alg is not None:
                raise ValueError("When `copy_from` is not None, neither `state` nor `alg` may be given.")
            alg, state = copy_from.algorithm, copy_from.state.numpy()
        elif state is None:
            raise ValueError("Generator needs either `copy_from` or `state`; use Generator.from_seed or "
                             "Generator.from_non_deterministic_state to create one from a seed.")
        self._alg = _algorithm(alg)
        value = self._state_value(state)
        resource = VariableResource(value, value.dtype, value.shape, "StateVar", -next(_generator_ids))
        self._handle = ResourceHandle(resource)

    def _state_value(self, state):
        size = _STATE_SIZES[self._alg]
        value = np.asarray(constant_value(state) if isinstance(state, Tensor) else state)
        if value.shape != (size,):
            raise ValueError(f"Shapes {value.shape} and [{size}] are incompatible")
        return value.astype(np.int64)

    # -- constructors ------------------------------------------------------------------------------
    @classmethod
    def from_seed(cls, seed, alg=None):
        """A generator whose state is `seed` (any Python int) spread over the state's 64-bit words."""
        alg = _algorithm(alg)
        return cls(state=_words(int(seed), _STATE_SIZES[alg]), alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg=None):
        alg = _algorithm(alg)
        words = np.random.SeedSequence().generate_state(_STATE_SIZES[alg], np.uint64)
        return cls(state=words.view(np.int64), alg=alg)

    @classmethod
    def from_state(cls, state, alg):
        return cls(state=state, alg=alg)

    @classmethod
    def from_key_counter(cls, key, counter, alg):
        counter = np.reshape(np.asarray(counter, dtype=np.int64), -1)
        key = np.reshape(np.asarray(key, dtype=np.int64), -1)
        return cls(state=np.concatenate([counter, key]), alg=alg)

    # -- state -------------------------------------------------------------------------------------
    @property
    def algorithm(self):
        return self._alg

    @property
    def state(self):
        """The current state [counter words…, key], read now (eagerly or in the graph being traced)."""
        return apply(READ_VARIABLE, (self._handle,), {"dtype": np.dtype(np.int64),
                                                      "shape": (_STATE_SIZES[self._alg],)}, "ReadVariableOp")

    @property
    def key(self):
        return self.state[-1]

    def reset(self, state):
        apply(ASSIGN_VARIABLE, (self._handle, convert_to_tensor(self._state_value(state))), None, "AssignVariableOp")

    def reset_from_seed(self, seed):
        self.reset(_words(int(seed), _STATE_SIZES[self._alg]))

    def reset_from_key_counter(self, key, counter):
        self.reset(np.concatenate([np.reshape(np.asarray(counter, np.int64), -1),
                                   np.reshape(np.asarray(key, np.int64), -1)]))

    def skip(self, delta):
        """Advances the counter by 256·`delta` and returns the state before it, as [counter0, counter1, key]."""
        return self._read_and_skip(convert_to_tensor(delta, dtype=_dt.int64))

    def _read_and_skip(self, delta):
        return apply(RNG_READ_AND_SKIP, (self._handle, constant(np.int32(self._alg)), delta), None,
                     "RngReadAndSkip")

    def _key_counter(self, shape_t):
        """Reserves a part of the stream for `shape_t` elements: (key [1], counter [2]) of its start."""
        dims = constant_value(shape_t)
        if dims is not None:
            delta = constant(np.int64(np.prod(dims, dtype=np.int64)))
        else:
            delta = _math.cast(_reduce.reduce_prod(shape_t), _dt.int64)
        start = self._read_and_skip(delta)
        return _indexing.slice(start, [2], [1]), _indexing.slice(start, [0], [2])

    def _keyed(self, op, shape, dtype, name, extra=()):
        shape_t = _shape_tensor(shape)
        key, counter = self._key_counter(shape_t)
        attrs = {"dtype": dtype._np} if dtype is not None else None
        return apply(op, (shape_t, key, counter, constant(np.int32(self._alg))) + tuple(extra), attrs, name)

    # -- sampling ----------------------------------------------------------------------------------
    def normal(self, shape, mean=0.0, stddev=1.0, dtype=_dt.float32, name=None):
        dtype = _float_dtype(dtype)
        values = self._keyed(STATELESS_NORMAL_V2, shape, dtype, name or "stateful_normal")
        return _scale_shift(values, mean, stddev, dtype)

    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=_dt.float32, name=None):
        dtype = _float_dtype(dtype)
        values = self._keyed(STATELESS_TRUNCATED_NORMAL_V2, shape, dtype, name or "stateful_truncated_normal")
        return _scale_shift(values, mean, stddev, dtype)

    def uniform(self, shape, minval=0, maxval=None, dtype=_dt.float32, name=None):
        """Floats in [minval, maxval) (default [0, 1)); ints in [minval, maxval), or over the whole dtype
        when both bounds are None."""
        dtype = _check_dtype(dtype, _UNIFORM_DTYPES + (_dt.uint32, _dt.uint64))
        if dtype.is_integer:
            if minval is None and maxval is None:
                return self.uniform_full_int(shape, dtype, name)
            if minval is None or maxval is None:
                raise ValueError(f"For integer dtype {dtype!r}, minval and maxval must be both `None` or both "
                                 f"non-`None`; got minval={minval} and maxval={maxval}")
            low, high = convert_to_tensor(minval, dtype=dtype), convert_to_tensor(maxval, dtype=dtype)
            return self._keyed(STATELESS_UNIFORM_INT_V2, shape, None, name or "stateful_uniform", (low, high))
        unit = self._keyed(STATELESS_UNIFORM_V2, shape, dtype, name or "stateful_uniform")
        return _affine(unit, 0 if minval is None else minval, 1 if maxval is None else maxval, dtype)

    def uniform_full_int(self, shape, dtype=_dt.uint64, name=None):
        dtype = _check_dtype(dtype, (_dt.int32, _dt.int64, _dt.uint32, _dt.uint64))
        return self._keyed(STATELESS_UNIFORM_FULL_INT_V2, shape, dtype, name or "stateful_uniform_full_int")

    def make_seeds(self, count=1):
        """`count` seeds for the stateless ops, as an int64 [2, count] tensor (one draw per seed)."""
        drawn = self.uniform_full_int([count], _dt.int64)
        return _array.stack([drawn, _creation.zeros([count], _dt.int64)])

    def split(self, count=1):
        """`count` new generators on independent keys drawn from this one (which advances)."""
        keys = self.uniform_full_int([count], _dt.int64)
        values = constant_value(keys)
        if values is None:
            raise ValueError("Generator.split creates new generators and cannot run inside a tf.function.")
        counter = np.zeros(_STATE_SIZES[self._alg] - 1, np.int64)
        return [Generator(state=np.concatenate([counter, [k]]), alg=self._alg) for k in values]

    def __repr__(self):
        return f"<tf.random.Generator algorithm={Algorithm(self._alg).name}>"


_global_generator = [None]


def get_global_generator():
    """`tf.random.get_global_generator`: the process-wide Generator, created from fresh entropy on first use
    (`tf.random.set_seed` does not reseed it, as in TensorFlow)."""
    if _global_generator[0] is None:
        _global_generator[0] = Generator.from_non_deterministic_state()
    return _global_generator[0]


def set_global_generator(generator):
    """`tf.random.set_global_generator`: replaces the Generator `get_global_generator` returns."""
    if not isinstance(generator, Generator):
        raise TypeError(f"`generator` must be a tf.random.Generator, got {type(generator).__name__}")
    _global_generator[0] = generator


API = {
    "random": ["set_seed", "uniform", "normal", "truncated_normal", "shuffle", "categorical",
               "stateless_uniform", "stateless_normal", "Generator", "Algorithm", "get_global_generator",
               "set_global_generator"],
    "random.experimental": ["Generator", "get_global_generator", "set_global_generator"],
}
