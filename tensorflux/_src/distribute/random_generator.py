"""`tf.random.Generator` and the global generator: a counter-based random stream whose state is a
`tf.Variable` ("StateVar", the generator's one trackable child `_state_var`, so checkpoints and
SavedModels hold it under TensorFlow's key `…/_state_var/.ATTRIBUTES/VARIABLE_VALUE`).

Each draw runs `RngReadAndSkip` on the variable's handle (read the state, advance the counter by 256 per
element) and a stateless Philox op at the (key, counter) it read, so a Generator gives TensorFlow's own
numbers, eagerly and in traced functions alike.

Replicas (TensorFlow's rules): a generator created under a distribution strategy remembers it. Drawing in
one of that strategy's replicas hashes the key with the replica id (a `StatelessRandomUniformFullIntV2`
draw keyed by the state's key at counter [replica id, 0]), so each replica has its own stream; created in
the strategy's scope, its state variable is mirrored (one copy per local replica, `values.py`), so every
replica advances its own copy. A generator created outside any strategy is one stream the replicas draw
from in turn. This dependency on the replica context is why the class lives on the distribute floor.
"""

import numpy as np

from ..framework.context import init_scope
from ..framework.tensor import Tensor
from ..ops.array import indexing as _indexing
from ..ops.array import join as _join
from ..ops.convert import constant, convert_to_tensor
from ..ops.math import arith as _math
from ..ops.math import reduce as _reduce
from ..ops.random.generator import RNG_READ_AND_SKIP, Algorithm, _STATE_SIZES, _algorithm, _seed_state
from ..ops.random.sampling import _UNIFORM_DTYPES, _affine, _check_dtype, _float_dtype, _scale_shift, \
    _shape_tensor
from ..ops.random.stateless import (STATELESS_NORMAL_V2, STATELESS_TRUNCATED_NORMAL_V2,
                                    STATELESS_UNIFORM_FULL_INT_V2, STATELESS_UNIFORM_INT_V2, STATELESS_UNIFORM_V2)
from ..ops.registry import apply, constant_value
from ..ops.shapes import creators as _creators
from ..state.variables import Variable
from ..types import dtypes as _dt
from . import strategies as _strategies

__all__ = ["Generator", "get_global_generator", "set_global_generator"]

class Generator:
    """`tf.random.Generator`: a counter-based random stream whose state lives in a variable resource.

        g = tf.random.Generator.from_seed(1234)
        g.normal([2, 3])      # deterministic for the seed; each call (eager or traced) advances the state
    """

    def __init__(self, copy_from=None, state=None, alg=None):
        self._strategy = _strategies.get_strategy() if _strategies.has_strategy() else None
        if copy_from is not None:
            if state is not None or alg is not None:
                raise ValueError("When `copy_from` is not None, neither `state` nor `alg` may be given.")
            alg, state = copy_from.algorithm, copy_from.state.numpy()
        elif state is None:
            raise ValueError("Generator needs either `copy_from` or `state`; use Generator.from_seed or "
                             "Generator.from_non_deterministic_state to create one from a seed.")
        self._alg = _algorithm(alg)
        if isinstance(state, Variable):
            self._state_value(state.numpy())       # checks the shape
            self._state_var = state                # TensorFlow reuses a variable given as the state
        else:
            with init_scope():
                self._state_var = Variable(self._state_value(state), trainable=False, name="StateVar")

    def _trackable_children(self):
        return [("_state_var", self._state_var)]

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
        """The state variable: int64 [counter words…, key]."""
        return self._state_var

    @property
    def key(self):
        return self._state_var[-1]

    def reset(self, state):
        self._state_var.assign(self._state_value(state), read_value=False)

    def reset_from_seed(self, seed):
        self.reset(_seed_state(seed, self._alg))

    def reset_from_key_counter(self, key, counter):
        self.reset(np.concatenate([np.reshape(np.asarray(counter, np.int64), -1),
                                   np.reshape(np.asarray(key, np.int64), -1)]))

    def skip(self, delta):
        """Advances the counter by 256·`delta` and returns the state before it, as [counter0, counter1, key]."""
        return self._read_and_skip(_math.cast(convert_to_tensor(delta, dtype=_dt.int64), _dt.uint64))

    def _read_and_skip(self, delta):
        return apply(RNG_READ_AND_SKIP, (self._state_var.handle, constant(np.int32(self._alg)), delta), None,
                     "RngReadAndSkip")

    def _key_counter(self, shape_t):
        """Reserves a part of the stream for `shape_t` elements: (key [1], counter [2]) of its start."""
        dims = constant_value(shape_t)
        if dims is not None:
            delta = constant(np.uint64(np.prod(dims, dtype=np.int64)))   # TensorFlow's delta is uint64
        else:
            delta = _math.cast(_reduce.reduce_prod(shape_t), _dt.uint64)
        start = self._read_and_skip(delta)
        # the stateless ops take key and counter as uint64, bit for bit the state's int64 words (TensorFlow
        # bitcasts; a Cast between the two 64-bit types keeps the bits too, and loads back from a SavedModel)
        key = _math.cast(_indexing.slice(start, [2], [1]), _dt.uint64)
        counter = _math.cast(_indexing.slice(start, [0], [2]), _dt.uint64)
        return self._replica_key(key), counter

    def _replica_key(self, key):
        """In a replica of the strategy this generator was made under, the key hashed with the replica id."""
        if self._strategy is None:
            return key
        context = _strategies.get_replica_context()
        if context is None or context.strategy is not self._strategy:
            return key
        counter = constant(np.array([context.replica_id_in_sync_group, 0], np.uint64))
        return apply(STATELESS_UNIFORM_FULL_INT_V2, (constant(np.array([1], np.int32)), key, counter,
                                                     constant(np.int32(self._alg))),
                     {"dtype": np.dtype(np.uint64)}, "StatelessRandomUniformFullIntV2")

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
    "random": ["Generator", "get_global_generator", "set_global_generator"],
    "random.experimental": ["Generator", "get_global_generator", "set_global_generator"],
}
