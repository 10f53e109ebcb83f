"""`keras.utils`: seeding every random source at once, and one-hot encoding of class labels."""
import random

import numpy as np

import tensorflux as tf


def set_random_seed(seed):
    """Seeds Python's `random`, NumPy's global generator and `tf.random` (so layer initializers,
    dropout and fit's shuffling are reproducible)."""
    if not isinstance(seed, int):
        raise ValueError(f"Expected `seed` argument to be an integer. Received: seed={seed} (of type "
                         f"{type(seed)})")
    random.seed(seed)
    np.random.seed(seed)
    tf.random.set_seed(seed)


def to_categorical(x, num_classes=None):
    """One-hot rows (float64, like Keras) for integer class labels; a trailing axis of size 1 is dropped."""
    x = np.asarray(x, dtype="int64")
    shape = x.shape
    if shape and shape[-1] == 1 and len(shape) > 1:
        shape = shape[:-1]
    x = x.reshape(-1)
    if num_classes is None:
        num_classes = int(x.max()) + 1 if x.size else 0
    categorical = np.zeros((x.size, num_classes))
    categorical[np.arange(x.size), x] = 1
    return categorical.reshape(shape + (num_classes,))


API = {"keras.utils": ["set_random_seed", "to_categorical"]}
