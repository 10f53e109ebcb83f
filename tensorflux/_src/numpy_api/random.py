"""`tnp.random`: NumPy's random functions over TensorFlow's stateful random ops.

`seed(s)` sets TensorFlow's global seed (`tf.random.set_seed`), so the draws follow TensorFlow's streams.
Floats are float64 unless float32 is preferred (`experimental_enable_numpy_behavior(prefer_float32=True)`).
"""
import numpy as np

from . import dtypes as _d
from ._tf import random as _random
from ._tf import cond_while as _cf
from ._tf import tf


def _size(size):
    if size is None:
        return []
    return [size] if isinstance(size, (int, np.integer)) else list(size)


def _float():
    return _d.tf_dtype(_d.default_float())


def seed(s):
    """Seeds the random functions (TensorFlow's global seed)."""
    _random.set_seed(int(np.asarray(s)))


def uniform(low=0.0, high=1.0, size=None):
    """Floats drawn uniformly from [low, high)."""
    dtype = _float()
    low, high = tf.cast(_d.to_tensor(low), dtype), tf.cast(_d.to_tensor(high), dtype)
    shape = _size(size) if size is not None else tf.shape(low + high)
    return _random.uniform(shape, dtype=dtype) * (high - low) + low


def random(size=None):
    """Floats drawn uniformly from [0, 1)."""
    return uniform(0.0, 1.0, size)


def rand(*size):
    """Floats drawn uniformly from [0, 1), of shape `size`."""
    return uniform(0.0, 1.0, list(size))


def standard_normal(size=None):
    """Draws from the standard normal distribution."""
    return _random.normal(_size(size), dtype=_float())


def randn(*args):
    """Draws from the standard normal distribution, of shape `args`."""
    return _random.normal(list(args), dtype=_float())


def randint(low, high=None, size=None, dtype=np.int64):
    """Integers drawn uniformly from [low, high) ([0, low) when `high` is None)."""
    if high is None:
        low, high = 0, low
    dtype = _d.np_dtype(dtype)
    if dtype.kind not in "iu":
        raise ValueError(f"Only np.int32 or np.int64 types are supported, got {dtype}")
    wide = _d.tf_dtype(np.int64)
    drawn = _random.uniform(_size(size), minval=low, maxval=high, dtype=wide)
    return tf.cast(drawn, _d.tf_dtype(dtype))


def poisson(lam=1.0, size=None):
    """Counts drawn from the Poisson distribution of rate `lam`, by inverting its CDF: one uniform draw
    per element, then the smallest k whose cumulative probability reaches it (int64)."""
    dtype = _d.tf_dtype(np.float64)
    lam = tf.cast(_d.to_tensor(lam), dtype)
    shape = _size(size) if size is not None else tf.shape(lam)
    u = _random.uniform(shape, dtype=dtype)
    lam = tf.broadcast_to(lam, tf.shape(u))
    probability = tf.exp(-lam)
    k = tf.zeros_like(u)

    def body(k, probability, cdf):
        more = cdf < u
        k_next = k + 1.0
        next_probability = probability * lam / k_next
        return (tf.where(more, k_next, k), tf.where(more, next_probability, probability),
                tf.where(more, cdf + next_probability, cdf))

    def keep_going(k, probability, cdf):
        return tf.reduce_any((cdf < u) & (probability > 0))

    k, _, _ = _cf.while_loop(keep_going, body, [k, probability, probability])
    return tf.cast(k, _d.tf_dtype(np.int64))


API = {"experimental.numpy.random": ["seed", "uniform", "random", "rand", "standard_normal", "randn", "randint",
                                     "poisson"]}
