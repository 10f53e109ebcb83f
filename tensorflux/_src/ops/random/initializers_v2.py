"""TensorFlow's own initializers (`tf.constant_initializer`, `tf.zeros_initializer`, `tf.ones_initializer`,
`tf.random_normal_initializer`, `tf.random_uniform_initializer`): callables `init(shape, dtype)` returning a
tensor, with `get_config`/`from_config`. A seeded random initializer draws with the stateless ops at seed
`[seed, 0]` (so it repeats, as TensorFlow's does); an unseeded one uses the global-seeded random ops."""
import numpy as np


from ...types import dtypes as _dt
from ..convert import constant
from ..shapes.creators import ones, zeros
from .stateful import normal, uniform
from .stateless import stateless_normal, stateless_uniform

__all__ = ["Initializer", "Constant", "Zeros", "Ones", "RandomNormal", "RandomUniform"]


class Initializer:
    """The base of TensorFlow's initializers: `init(shape, dtype=None, **kwargs)` makes the initial value."""

    def __call__(self, shape, dtype=None, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must define __call__.")

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config.pop("dtype", None)   # TensorFlow 1 initializers carried a dtype
        return cls(**config)


def _numeric_or_bool(dtype):
    dtype = _dt.as_dtype(dtype)
    if not (dtype.is_floating or dtype.is_integer or dtype.is_complex or dtype.is_bool):
        raise TypeError(f"Expected numeric or boolean dtype, got {dtype.name}.")
    return dtype


class Zeros(Initializer):
    """`tf.zeros_initializer()`: a tensor of zeros."""

    def __call__(self, shape, dtype=_dt.float32, **kwargs):
        return zeros(shape, _numeric_or_bool(dtype))


class Ones(Initializer):
    """`tf.ones_initializer()`: a tensor of ones."""

    def __call__(self, shape, dtype=_dt.float32, **kwargs):
        return ones(shape, _numeric_or_bool(dtype))


class Constant(Initializer):
    """`tf.constant_initializer(value)`: `tf.constant(value, dtype, shape)`; `value` is Python data or a
    NumPy array (a tensor is refused, as TensorFlow refuses it)."""

    def __init__(self, value=0, support_partition_info=False):
        if not (np.isscalar(value) or isinstance(value, (list, tuple, np.ndarray))):
            raise TypeError(f"Invalid type for initial value: {type(value).__name__}. Expected Python scalar, "
                            f"list or tuple of values, or numpy.ndarray.")
        self.value = value
        self.support_partition_info = support_partition_info

    def __call__(self, shape, dtype=None, **kwargs):
        return constant(self.value, dtype=None if dtype is None else _dt.as_dtype(dtype), shape=shape)

    def get_config(self):
        return {"value": self.value}


class RandomNormal(Initializer):
    """`tf.random_normal_initializer(mean=0.0, stddev=0.05, seed=None)`: normal draws (floating dtypes)."""

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def __call__(self, shape, dtype=_dt.float32, **kwargs):
        dtype = _dt.as_dtype(dtype)
        if not dtype.is_floating:
            raise ValueError(f"Argument `dtype` is expected to be floating point. Received: <dtype: '{dtype.name}'>.")
        if self.seed:
            return stateless_normal(shape, [self.seed, 0], self.mean, self.stddev, dtype)
        return normal(shape, self.mean, self.stddev, dtype)

    def get_config(self):
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}


class RandomUniform(Initializer):
    """`tf.random_uniform_initializer(minval=-0.05, maxval=0.05, seed=None)`: uniform draws in [minval,
    maxval) (floating or integer dtypes)."""

    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        self.minval, self.maxval, self.seed = minval, maxval, seed

    def __call__(self, shape, dtype=_dt.float32, **kwargs):
        dtype = _dt.as_dtype(dtype)
        if not (dtype.is_floating or dtype.is_integer):
            raise ValueError(f"Argument `dtype` is expected to be floating point or integer. Received: <dtype: '{dtype.name}'>.")
        if self.seed:
            return stateless_uniform(shape, [self.seed, 0], self.minval, self.maxval, dtype)
        return uniform(shape, self.minval, self.maxval, dtype)

    def get_config(self):
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed}



API = {"": ["constant_initializer=Constant", "zeros_initializer=Zeros", "ones_initializer=Ones",
            "random_normal_initializer=RandomNormal", "random_uniform_initializer=RandomUniform"]}
