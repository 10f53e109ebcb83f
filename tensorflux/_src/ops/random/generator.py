"""`tf.random.Generator` and the global generator: a counter-based stream whose state lives in a
variable resource and advances through the `RngReadAndSkip` op.
"""
import enum
import itertools

import numpy as np

from ...framework import errors
from ...framework.tensor import Tensor
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..array import join as _join
from ..shapes import creators as _creators
from ..array import indexing as _indexing
from ..math import arith as _math
from ..math import reduce as _reduce
from ..convert import convert_to_tensor, constant
from .. import philox
from ..registry import OpDef, apply, constant_value
from ..state import ASSIGN_VARIABLE, READ_VARIABLE, ResourceHandle, VariableResource
from .sampling import _UNIFORM_DTYPES, _affine, _check_dtype, _float_dtype, _scale_shift, _shape_tensor
from .stateless import (STATELESS_NORMAL_V2, STATELESS_TRUNCATED_NORMAL_V2, STATELESS_UNIFORM_FULL_INT_V2,
    STATELESS_UNIFORM_INT_V2, STATELESS_UNIFORM_V2)


# -- tf.random.Generator -----------------------------------------------------------------------------
# A Generator's state is an int64 vector [counter words…, key] (Philox: 2 counter words; ThreeFry: 1) in a
# variable resource, so a traced function captures it by reference: each call runs `RngReadAndSkip`,
# which reads the state and advances the counter by 256 per requested element (TensorFlow's stride), and
# the draws come from TensorFlow's Philox stream at that (key, counter) (ops/philox.py), so a Generator
# gives TensorFlow's own numbers. The read and the skip happen under the state variable's lock, so
# concurrent draws never share a state. ThreeFry states can be made, but drawing from them raises
# UnimplementedError, as TensorFlow does on CPU.

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
    if int(alg) == Algorithm.THREEFRY.value:
        raise errors.UnimplementedError(None, "RngReadAndSkip", "Non-XLA devices don't support the ThreeFry "
                                                                 "algorithm.")
    with resource.lock:  # read-modify-write: two draws must never read the same state
        return _read_and_skip_locked(resource, alg, delta)


def _read_and_skip_locked(resource, alg, delta):
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


def _seed_state(seed, alg):
    """The state `from_seed(seed)` starts at: TensorFlow's for Philox; the seed's low words for ThreeFry."""
    if alg == Algorithm.PHILOX.value:
        return philox.generator_from_seed(seed)
    return _words(int(seed), _STATE_SIZES[alg])


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
        return cls(state=_seed_state(seed, alg), alg=alg)

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
        self.reset(_seed_state(seed, self._alg))

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
        return _join.stack([drawn, _creators.zeros([count], _dt.int64)])

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
    "random": ["Generator", "Algorithm", "get_global_generator", "set_global_generator"],
    "random.experimental": ["Generator", "get_global_generator", "set_global_generator"],
}
