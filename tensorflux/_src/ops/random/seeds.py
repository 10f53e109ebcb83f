"""TensorFlow's seed rules for the stateful random ops: the global seed (`tf.random.set_seed`), the op seed
each op resolves (`get_seed`), and the `RandomStream` that holds one op's state.

A random op's stream is made when the op is made: eagerly it is looked up in (or added to) the eager
stream cache keyed by op type, dtypes and the resolved `(seed, seed2)` — TensorFlow's kernel cache, which
holds kernels for derived seeds as well as explicit ones — so repeated calls continue one stream until
`set_seed` clears the cache; in a graph a new stream is made for the new node.
"""
import os
import random as _pyrandom
import threading
import weakref

import numpy as np

from ...framework.context import state as _state
from ...framework.tensor import Tensor
from ..registry import constant_value
from .. import philox


# TensorFlow's graph seed used when only an op seed is given.
DEFAULT_GRAPH_SEED = 87654321
# TensorFlow reduces both seeds modulo this before the kernel sees them.
_MAXINT32 = 2 ** 31 - 1
_MAX_SEED = 2 ** 63 - 1


class _SeedState:
    __slots__ = ("global_seed", "eager_op_seeds", "eager_streams", "graph_counters")

    def __init__(self):
        self.global_seed = None
        self.eager_op_seeds = _pyrandom.Random(None)       # TensorFlow's context RNG for eager op seeds
        self.eager_streams = {}                          # (op type, dtypes, seed, seed2) -> RandomStream
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

    Eagerly the sequence is a Python RNG seeded by the global seed, as in TensorFlow; in a graph it
    counts the seeded ops created in that graph from 0 (TensorFlow's per-graph counter), so tracing the
    same function twice after the same `set_seed` gives the same seeds.
    """
    graph = _state.graph
    if graph is not None:
        try:
            count = _seeds.graph_counters.get(graph, 0)
            _seeds.graph_counters[graph] = count + 1
            return count
        except TypeError:  # a graph that cannot be weakly referenced: use the eager sequence
            pass
    return _seeds.eager_op_seeds.randint(0, _MAXINT32)


def get_seed(op_seed):
    """The `(seed, seed2)` pair an op uses, by TensorFlow's rules; `(None, None)` is nondeterministic.

    Both seeds are reduced modulo 2**31 - 1, and (0, 0) — which the kernels would read as "no seed" —
    becomes (0, 2**31 - 1)."""
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
        seeds = DEFAULT_GRAPH_SEED, op_seed % _MAXINT32
    else:
        if op_seed is None:
            op_seed = _next_op_seed()
        seeds = global_seed % _MAXINT32, op_seed % _MAXINT32
    if seeds == (0, 0):
        return 0, _MAXINT32
    return seeds


class RandomStream:
    """The state of one random op: TensorFlow's Philox stream for the op's `(seed, seed2)` (without
    seeds, two fresh random 64-bit seeds, as TensorFlow's kernels pick). `draw` is atomic, so kernels
    running at once never read the same part of the stream."""

    __slots__ = ("seed", "seed2", "_philox", "_lock", "_generator")

    def __init__(self, seed, seed2):
        self.seed = seed
        self.seed2 = seed2
        if seed is None:
            entropy = int.from_bytes(os.urandom(16), "little")   # os.urandom: `secrets` costs ~5 ms to import
            self._philox = philox.SeededStream(entropy >> 64, entropy & (2 ** 64 - 1))
        else:
            self._philox = philox.SeededStream(seed, seed2)
        self._lock = threading.Lock()
        self._generator = None

    def draw(self, shape, dtype, dist, minval=None, maxval=None):
        """The next `shape` values of `dist` in NumPy `dtype` (see `philox.draw`)."""
        with self._lock:
            return self._philox.draw(shape, dtype, dist, minval, maxval)

    def reserve(self, blocks):
        """The stream's current Philox position, moving the stream `blocks` Philox blocks on (atomically):
        for kernels that read the stream their own way (Multinomial)."""
        with self._lock:
            position = self._philox.position
            self._philox.position = position.skip(blocks)
            return position

    @property
    def generator(self):
        """A NumPy Generator seeded from this stream's seeds, for the ops whose TensorFlow sampling
        algorithm is not reproduced (the fused dropout): their numbers differ from TensorFlow's."""
        if self._generator is None:
            if self.seed is None:
                self._generator = np.random.default_rng()
            else:
                entropy = [self.seed & _MAX_SEED, self.seed2 & _MAX_SEED]
                self._generator = np.random.Generator(np.random.PCG64(np.random.SeedSequence(entropy)))
        return self._generator

    def __repr__(self):
        return f"RandomStream(seed={self.seed}, seed2={self.seed2})"


def _stream(op_type, seed, dtype=None):
    """The stream for a new random op: new in a graph; eagerly, one per cached kernel (op type, dtypes,
    seeds), so repeated calls with the same resolved seeds continue one stream, as TensorFlow's do."""
    seed, seed2 = get_seed(seed)
    if seed is None:
        return RandomStream(None, None), 0, 0
    if _state.graph is None:
        key = (op_type, dtype, seed, seed2)
        stream = _seeds.eager_streams.get(key)
        if stream is None:
            stream = _seeds.eager_streams[key] = RandomStream(seed, seed2)
        return stream, seed, seed2
    return RandomStream(seed, seed2), seed, seed2


API = {"random": ["set_seed"]}
