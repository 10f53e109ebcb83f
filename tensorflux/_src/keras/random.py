"""`keras.random`: random tensors drawn as Keras 3 draws them, by where their `seed` comes from.

- `seed=None`: TensorFlow's global random state (`tf.random.set_seed` makes runs repeatable);
- an int: a stateless draw, so the same seed gives the same values on every call;
- a `SeedGenerator`: a stateful stream (a `tf.random.Generator` seeded once) that advances with each draw,
  also inside a traced `fit` step — what layers and custom `train_step`s hold to draw fresh noise.

Shapes may mix Python ints with scalar tensors (`(tf.shape(x)[0], 16)`), as Keras accepts them. The values
follow tensorflux's generators, not TensorFlow's bit streams.
"""
import tensorflux as tf

_FLOATX = "float32"


class SeedGenerator:
    """A stream of random draws: `keras.random.normal(shape, seed=SeedGenerator(1337))`."""

    def __init__(self, seed=None, name=None, **kwargs):
        if kwargs:
            raise ValueError(f"Unrecognized keyword arguments passed to SeedGenerator: {kwargs}")
        if seed is not None and not isinstance(seed, int):
            raise ValueError(f"Argument `seed` must be an integer. Received: seed={seed}")
        self.name = name or "seed_generator"
        self._initial_seed = seed
        self._generator = tf.random.Generator.from_seed(seed) if seed is not None else \
            tf.random.Generator.from_non_deterministic_state()

    @property
    def state(self):
        return self._generator.state

    def get_config(self):
        return {"seed": self._initial_seed}


def _shape(shape):
    """A static shape stays a list of ints; one holding scalar tensors becomes an int32 shape tensor."""
    if isinstance(shape, (tf.Tensor, tf.Variable)):
        return shape
    dims = list(shape)
    if any(isinstance(d, (tf.Tensor, tf.Variable)) for d in dims):
        return tf.stack([tf.cast(d, tf.int32) for d in dims])
    return [int(d) for d in dims]


def _dtype(dtype):
    return tf.as_dtype(getattr(dtype, "name", dtype) or _FLOATX)


def _stateless_seed(seed):
    return tf.constant([seed, 0], tf.int64)


def normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    shape, dtype = _shape(shape), _dtype(dtype)
    if isinstance(seed, SeedGenerator):
        return seed._generator.normal(shape, mean=mean, stddev=stddev, dtype=dtype)
    if seed is None:
        return tf.random.normal(shape, mean=mean, stddev=stddev, dtype=dtype)
    return tf.random.stateless_normal(shape, _stateless_seed(seed), mean=mean, stddev=stddev, dtype=dtype)


def uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None):
    shape, dtype = _shape(shape), _dtype(dtype)
    if isinstance(seed, SeedGenerator):
        return seed._generator.uniform(shape, minval=minval, maxval=maxval, dtype=dtype)
    if seed is None:
        return tf.random.uniform(shape, minval=minval, maxval=maxval, dtype=dtype)
    return tf.random.stateless_uniform(shape, _stateless_seed(seed), minval=minval, maxval=maxval, dtype=dtype)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    shape, dtype = _shape(shape), _dtype(dtype)
    if isinstance(seed, SeedGenerator):
        return seed._generator.truncated_normal(shape, mean=mean, stddev=stddev, dtype=dtype)
    if seed is None:
        return tf.random.truncated_normal(shape, mean=mean, stddev=stddev, dtype=dtype)
    return tf.random.stateless_truncated_normal(shape, _stateless_seed(seed), mean=mean, stddev=stddev, dtype=dtype)


def randint(shape, minval, maxval, dtype="int32", seed=None):
    return tf.cast(tf.floor(uniform(shape, float(minval), float(maxval), dtype="float32", seed=seed)), _dtype(dtype))


def dropout(inputs, rate, noise_shape=None, seed=None):
    """Zeroes each entry with probability `rate` and scales the rest by 1 / (1 - rate)."""
    inputs = tf.convert_to_tensor(inputs)
    if not 0 <= rate < 1:
        raise ValueError(f"Invalid value received for argument `rate`. Expected a float value between 0 and 1. "
                         f"Received: rate={rate}")
    keep = uniform(noise_shape if noise_shape is not None else tf.shape(inputs), dtype=inputs.dtype,
                   seed=seed) >= rate
    return tf.where(keep, inputs / (1.0 - rate), tf.zeros_like(inputs))


def shuffle(x, axis=0, seed=None):
    """`x` with its entries along `axis` in a random order."""
    x = tf.convert_to_tensor(x)
    keys = uniform(tf.shape(x)[axis:axis + 1], seed=seed)
    return tf.gather(x, tf.argsort(keys), axis=axis)


API = {"keras.random": ["SeedGenerator", "normal", "uniform", "truncated_normal", "randint", "dropout", "shuffle"]}
