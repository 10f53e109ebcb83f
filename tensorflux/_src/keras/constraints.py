"""`keras.constraints`: projections applied to a weight after each optimizer update.

    Dense(8, kernel_constraint=keras.constraints.MaxNorm(2.0))   # each kernel column's L2 norm <= 2

As in Keras 3: `MaxNorm` rescales the slices (along `axis`) whose L2 norm exceeds `max_value`,
`MinMaxNorm` moves each norm into [min_value, max_value] at `rate`, `UnitNorm` gives every slice norm 1,
`NonNeg` zeroes negative entries; norms are divided with Keras' epsilon (1e-7) added.
"""
import tensorflux as tf

_EPSILON = 1e-7  # keras.config.epsilon()


class Constraint:
    """Base class: `constraint(w)` returns the projected weight (the base class returns `w` unchanged)."""

    def __call__(self, w):
        return w

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def _norms(w, axis):
    return tf.sqrt(tf.reduce_sum(tf.square(w), axis=axis, keepdims=True))


class MaxNorm(Constraint):
    """Rescales each slice along `axis` whose L2 norm is above `max_value` down to `max_value`."""

    def __init__(self, max_value=2, axis=0):
        self.max_value = max_value
        self.axis = axis

    def __call__(self, w):
        w = tf.convert_to_tensor(w)
        norms = _norms(w, self.axis)
        desired = tf.clip_by_value(norms, tf.cast(0, w.dtype), tf.cast(self.max_value, w.dtype))
        return w * (desired / (tf.cast(_EPSILON, w.dtype) + norms))

    def get_config(self):
        return {"max_value": self.max_value, "axis": self.axis}


class NonNeg(Constraint):
    """Zeroes the negative entries."""

    def __call__(self, w):
        w = tf.convert_to_tensor(w)
        return tf.maximum(w, tf.zeros((), w.dtype))     # as Keras: +0.0 where w < 0 (w * mask gives -0.0)


class UnitNorm(Constraint):
    """Scales each slice along `axis` to L2 norm 1."""

    def __init__(self, axis=0):
        self.axis = axis

    def __call__(self, w):
        w = tf.convert_to_tensor(w)
        return w / (tf.cast(_EPSILON, w.dtype) + _norms(w, self.axis))

    def get_config(self):
        return {"axis": self.axis}


class MinMaxNorm(Constraint):
    """Moves each slice's L2 norm towards [min_value, max_value]: `rate=1` clips it there, smaller rates
    move it part of the way."""

    def __init__(self, min_value=0.0, max_value=1.0, rate=1.0, axis=0):
        self.min_value = min_value
        self.max_value = max_value
        self.rate = rate
        self.axis = axis

    def __call__(self, w):
        w = tf.convert_to_tensor(w)
        norms = _norms(w, self.axis)
        clipped = tf.clip_by_value(norms, tf.cast(self.min_value, w.dtype), tf.cast(self.max_value, w.dtype))
        desired = tf.cast(self.rate, w.dtype) * clipped + tf.cast(1 - self.rate, w.dtype) * norms
        return w * (desired / (tf.cast(_EPSILON, w.dtype) + norms))

    def get_config(self):
        return {"min_value": self.min_value, "max_value": self.max_value, "rate": self.rate, "axis": self.axis}


max_norm, non_neg, unit_norm, min_max_norm = MaxNorm, NonNeg, UnitNorm, MinMaxNorm

# The names `get`/`deserialize` accept: Keras' class names and their snake_case aliases (an allow-list: a
# name read from a config file never reaches an attribute lookup).
_BY_NAME = {"Constraint": Constraint, "MaxNorm": MaxNorm, "NonNeg": NonNeg, "UnitNorm": UnitNorm,
            "MinMaxNorm": MinMaxNorm, "max_norm": MaxNorm, "non_neg": NonNeg, "unit_norm": UnitNorm,
            "min_max_norm": MinMaxNorm}


def serialize(constraint):
    """The Keras 3 config of a constraint: `{"module": "keras.constraints", "class_name": …, "config": …}`."""
    if constraint is None:
        return None
    return {"module": "keras.constraints", "class_name": type(constraint).__name__,
            "config": constraint.get_config(), "registered_name": None}


def deserialize(config, custom_objects=None):
    """A constraint from a Keras config dict or a name ("max_norm", "MaxNorm"); `custom_objects` maps
    further names to classes."""
    known = dict(_BY_NAME, **(custom_objects or {}))
    if isinstance(config, str):
        cls = known.get(config)
        if cls is None:
            raise ValueError(f"Could not interpret constraint identifier: {config}")
        return cls()
    if isinstance(config, dict) and "class_name" in config:
        cls = known.get(config.get("registered_name") or config["class_name"]) or known.get(config["class_name"])
        if cls is None:
            raise ValueError(f"Could not interpret constraint identifier: {config}")
        return cls.from_config(config.get("config") or {})
    raise ValueError(f"Could not interpret constraint identifier: {config}")


def get(identifier):
    """A constraint from None (None), a name, a config dict, or a callable (returned as it is)."""
    if identifier is None:
        return None
    if isinstance(identifier, (str, dict)):
        return deserialize(identifier)
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret constraint identifier: {identifier}")


API = {"keras.constraints": ["Constraint", "MaxNorm", "MinMaxNorm", "NonNeg", "UnitNorm", "max_norm", "min_max_norm",
                             "non_neg", "unit_norm", "serialize", "deserialize", "get"]}
