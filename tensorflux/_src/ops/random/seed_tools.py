"""Working with stateless seeds: `tf.random.split` (new independent seeds drawn from one),
`tf.random.fold_in` (a seed combined with data, e.g. a step number) and `tf.random.create_rng_state`
(the state a Generator starts from)."""
import numpy as np

from ...types import dtypes as _dt
from ..array import join as _join
from ..convert import convert_to_tensor
from . import generator as _generator
from . import stateless as _stateless


def _seed_tensor(seed):
    seed = convert_to_tensor(seed) if not hasattr(seed, "dtype") else seed
    if seed.dtype not in (_dt.int32, _dt.int64):
        raise TypeError(f"seed must be int32 or int64, got {seed.dtype.name}")
    return seed


def split(seed, num=2, alg="auto_select"):
    """`num` new seeds ([num, 2], the seed's dtype) drawn from `seed` with the stateless generator."""
    seed = _seed_tensor(seed)
    return _stateless.stateless_uniform([num, 2], seed, minval=None, maxval=None, dtype=seed.dtype, alg=alg)


def fold_in(seed, data, alg="auto_select"):
    """A new seed from `seed` and an integer `data`: [a value drawn from `seed`, data] (int32 unless
    `data` is int64)."""
    seed = _seed_tensor(seed)
    data = convert_to_tensor(data) if not hasattr(data, "dtype") else data
    drawn = _stateless.stateless_uniform([], seed, minval=None, maxval=None, dtype=data.dtype, alg=alg)
    return _join.stack([drawn, data])


def create_rng_state(seed, alg):
    """The int64 state array a Generator of algorithm `alg` starts from: an int seed fills the first word,
    a list of ints the last words."""
    alg = _generator._algorithm(alg)
    size = _generator._STATE_SIZES[alg]
    if isinstance(seed, (int, np.integer)):
        return np.asarray([int(seed)] + [0] * (size - 1), np.int64)
    words = [int(v) for v in np.asarray(seed).reshape(-1)]
    if len(words) > size:
        raise ValueError(f"The size of `seed` ({len(words)}) must not exceed the state size ({size}) of the "
                         f"algorithm.")
    return np.asarray([0] * (size - len(words)) + words, np.int64)


API = {"random": ["split", "fold_in", "create_rng_state"],
       "random.experimental": ["stateless_split=split", "stateless_fold_in=fold_in", "create_rng_state"]}
