"""`keras.regularizers`: penalties on a weight added to the training loss (through `layer.losses`).

    Dense(8, kernel_regularizer=keras.regularizers.L2(1e-4))     # adds 1e-4 · Σ kernel² to the loss

As in Keras: L1 is `l1 · Σ|w|`, L2 is `l2 · Σ w²` (no ½), L1L2 both; OrthogonalRegularizer penalises the
mean |cosine| between distinct rows (or columns) of a matrix. `get` knows exactly Keras 3's names ("l1",
"L1", "l2", "L2", "l1l2", "L1L2", "orthogonal_regularizer", ...; case matters): the name `l1_l2` (the class L1L2) is
public, but the string "l1_l2" is not a name Keras accepts, so it is rejected with Keras' error.
"""
import numpy as np

import tensorflux as tf

__all__ = ["Regularizer", "L1", "L2", "L1L2", "OrthogonalRegularizer", "get"]


class Regularizer:
    """Base class: `regularizer(weight)` returns a scalar penalty."""

    def __call__(self, x):
        return 0.0

    def get_config(self):
        # As Keras 3: a regularizer that is saved must say how to rebuild it (the base has nothing to write).
        raise NotImplementedError(f"{self} does not implement get_config()")

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def _factor(value, name):
    value = float(value)
    if value < 0 or value != value:
        raise ValueError(f"Value for argument `{name}` should be a positive float. Received: {name}={value}")
    return value


class L1(Regularizer):
    def __init__(self, l1=0.01):
        self.l1 = _factor(l1, "l1")

    def __call__(self, x):
        return self.l1 * tf.reduce_sum(tf.abs(x))

    def get_config(self):
        # Keras 3 keeps L1's factor as a float32 tensor, so its config holds the float32 value
        # (0.005 -> 0.004999999888241291); L2 and L1L2 keep the Python float.
        return {"l1": float(np.float32(self.l1))}


class L2(Regularizer):
    def __init__(self, l2=0.01):
        self.l2 = _factor(l2, "l2")

    def __call__(self, x):
        return self.l2 * tf.reduce_sum(tf.square(x))

    def get_config(self):
        return {"l2": self.l2}


class L1L2(Regularizer):
    def __init__(self, l1=0.0, l2=0.0):
        self.l1, self.l2 = _factor(l1, "l1"), _factor(l2, "l2")

    def __call__(self, x):
        penalty = tf.constant(0.0, x.dtype)
        if self.l1:
            penalty += self.l1 * tf.reduce_sum(tf.abs(x))
        if self.l2:
            penalty += self.l2 * tf.reduce_sum(tf.square(x))
        return penalty

    def get_config(self):
        return {"l1": self.l1, "l2": self.l2}


class OrthogonalRegularizer(Regularizer):
    """`factor · mean |<u_i, u_j>|` over the pairs i < j of L2-normalised rows (`mode="rows"`) or columns
    (`mode="columns"`) of a rank-2 weight."""

    def __init__(self, factor=0.01, mode="rows"):
        self.factor = _factor(factor, "factor")
        if mode not in {"rows", "columns"}:
            raise ValueError(f'Invalid value for argument `mode`. Expected one of {{"rows", "columns"}}. '
                             f"Received: mode={mode}")
        self.mode = mode

    def __call__(self, x):
        x = tf.convert_to_tensor(x)
        if len(x.shape) != 2:
            raise ValueError(f"Inputs to OrthogonalRegularizer must have rank 2. Received: inputs.shape={x.shape}")
        axis = 1 if self.mode == "rows" else 0
        # Keras normalises as x * min(rsqrt(Σx²), 1/ε) with its epsilon 1e-7 (a zero row stays zero).
        inverse_norm = tf.minimum(tf.math.rsqrt(tf.reduce_sum(tf.square(x), axis=axis, keepdims=True)),
                                  tf.cast(1.0 / 1e-7, x.dtype))
        x = x * inverse_norm
        product = tf.matmul(x, x, transpose_b=True) if axis == 1 else tf.matmul(x, x, transpose_a=True)
        size = x.shape[1 - axis]
        off_diagonal = product * (1.0 - tf.eye(size, dtype=x.dtype))
        pairs = size * (size - 1.0) / 2.0
        return self.factor * 0.5 * tf.reduce_sum(tf.abs(off_diagonal)) / pairs

    def get_config(self):
        return {"factor": float(np.float32(self.factor)), "mode": self.mode}


# As Keras 3: `l1_l2` is the class L1L2 itself (defaults 0.0; TensorFlow 2's Keras had a function, 0.01).
l1, l2, l1_l2, orthogonal_regularizer = L1, L2, L1L2, OrthogonalRegularizer
# Keras 3's own table of names (regularizers.ALL_OBJECTS_DICT): exact, case-sensitive, no "l1_l2".
_BY_NAME = {"Regularizer": Regularizer, "regularizer": Regularizer, "L1": L1, "l1": L1, "L2": L2, "l2": L2,
            "L1L2": L1L2, "l1l2": L1L2, "OrthogonalRegularizer": OrthogonalRegularizer,
            "orthogonal_regularizer": OrthogonalRegularizer}
_CLASSES = {"L1": L1, "L2": L2, "L1L2": L1L2, "OrthogonalRegularizer": OrthogonalRegularizer,
            "Regularizer": Regularizer}


def get(identifier):
    """A regularizer from None, a name ("l2"), a config dict, or a callable (returned as is)."""
    if identifier is None or callable(identifier) and not isinstance(identifier, type):
        return identifier
    if isinstance(identifier, type) and issubclass(identifier, Regularizer):
        return identifier()
    if isinstance(identifier, str):
        factory = _BY_NAME.get(identifier)
        if factory is None:
            raise ValueError(f"Could not interpret regularizer identifier: {identifier}")
        return factory()
    if isinstance(identifier, dict) and "class_name" in identifier:
        factory = _CLASSES.get(identifier["class_name"])
        if factory is None:
            raise ValueError(f"Could not interpret regularizer identifier: {identifier}")
        return factory(**identifier.get("config", {}))
    raise ValueError(f"Could not interpret regularizer identifier: {identifier}")


API = {"keras.regularizers": __all__ + ["l1", "l2", "l1_l2", "orthogonal_regularizer"]}
