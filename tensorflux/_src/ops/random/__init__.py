"""Random ops (`tf.random`): seeded streams with TensorFlow's global/op seed rules.

Seeds (seeds.py). `set_seed(s)` sets the global seed and restarts the op-seed counter. Each random op
resolves its `seed=` argument the way TensorFlow does (`get_seed`):
  no global seed, no op seed  -> nondeterministic (fresh OS entropy);
  global seed, no op seed     -> op seed drawn from a sequence `set_seed` restarts (eager: a Python RNG
                                 seeded by the global seed, as in TensorFlow; graph: a per-graph counter),
                                 so a rerun of the same program repeats its numbers while two calls of
                                 the same op differ;
  op seed given               -> deterministic per (global seed or TensorFlow's default graph seed,
                                 op seed); repeated eager calls with the same seeds continue one stream,
                                 like TensorFlow's eager kernel cache.

The rest: sampling.py (what every op shares), stateful.py (`uniform`, `normal`, …: state in a
`RandomStream` attr), stateless.py (`stateless_*` and the key/counter ops) and generator.py
(the ops of `tf.random.Generator`, whose class lives in distribute/random_generator.py). uniform, normal, truncated_normal, the stateless ops and Generator draw
TensorFlow's own Philox numbers (ops/philox.py), bit for bit on CPU; shuffle, categorical and dropout
keep NumPy streams with TensorFlow's seeding semantics but not its numbers.
"""
from .seeds import RandomStream, get_seed, set_seed
from .stateful import categorical, normal, shuffle, truncated_normal, uniform
from .stateless import stateless_normal, stateless_truncated_normal, stateless_uniform
from .generator import Algorithm

__all__ = ["set_seed", "get_seed", "RandomStream", "uniform", "normal", "truncated_normal", "shuffle",
           "categorical", "stateless_uniform", "stateless_normal",
           "stateless_truncated_normal", "Algorithm"]
