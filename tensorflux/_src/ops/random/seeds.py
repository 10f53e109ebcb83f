"""TensorFlow's seed rules for the stateful random ops: the global seed (`tf.random.set_seed`), the op seed
each op resolves (`get_seed`), and the `RandomStream` that holds one op's state.

A random op's stream is made when the op is made: eagerly it is looked up in (or added to) the eager
stream cache keyed by the explicit op seed (TensorFlow's kernel cache), so repeated calls continue one
stream; in a graph a new stream is made for the new node.
"""
import random as _pyrandom
import weakref

import numpy as np

from ...framework.context import state as _state
from ...framework.tensor import Tensor
from ..registry import constant_value


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


API = {"random": ["set_seed"]}
