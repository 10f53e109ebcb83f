"""The ops and seed rules of `tf.random.Generator`: `RngReadAndSkip` (read a counter-based stream's state
and advance it), `tf.random.Algorithm`, and the state `from_seed` starts at. The Generator class itself
is a trackable object holding a tf.Variable whose stream depends on the replica drawing from it, so it
lives on the distribute floor (`distribute/random_generator.py`).
"""
import enum

import numpy as np

from ...framework import errors
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from .. import philox
from ..registry import OpDef


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


API = {"random": ["Algorithm"]}
