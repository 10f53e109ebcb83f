"""Activation layers: ReLU, LeakyReLU, ELU, PReLU and Softmax.

They keep the input's shape. As in Keras 3, ReLU's arguments must all be non-negative, LeakyReLU's
`negative_slope` defaults to 0.3 (Keras 2's `alpha=` still sets it), and PReLU learns one slope per
entry of `input_shape[1:]` except along `shared_axes`, starting from zeros (so it begins as a plain ReLU).
"""
import warnings

import tensorflux as tf

from .. import activations as _activations
from .. import constraints as _constraints
from .. import initializers as _initializers
from .. import regularizers as _regularizers
from .layer import Layer


class _Elementwise(Layer):
    supports_masking = True     # masks pass through (keras.masks)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)


class ReLU(_Elementwise):
    """`x` above `threshold` (capped at `max_value`), `negative_slope * (x - threshold)` below it."""

    def __init__(self, max_value=None, negative_slope=0.0, threshold=0.0, **kwargs):
        super().__init__(**kwargs)
        if max_value is not None and max_value < 0.0:
            raise ValueError(f"max_value of a ReLU layer cannot be a negative value. Received: max_value={max_value}")
        for arg, value in (("negative_slope", negative_slope), ("threshold", threshold)):
            if value is None or value < 0.0:
                raise ValueError(f"{arg} of a ReLU layer cannot be None or a negative value. Received: "
                                 f"{arg}={value}")
        self.max_value = max_value
        self.negative_slope = negative_slope
        self.threshold = threshold

    def call(self, inputs):
        if self.max_value is None and self.negative_slope == 0.0 and self.threshold == 0.0:
            return tf.nn.relu(inputs)
        # Computed here rather than by activations.relu, which keeps `x` at exactly `threshold`, where
        # Keras gives 0.
        outputs = tf.where(inputs > self.threshold, inputs, self.negative_slope * (inputs - self.threshold))
        if self.max_value is not None:
            outputs = tf.minimum(outputs, tf.cast(self.max_value, outputs.dtype))
        return outputs


class LeakyReLU(_Elementwise):
    """`x` for `x >= 0`, `negative_slope * x` below."""

    def __init__(self, negative_slope=0.3, **kwargs):
        if "alpha" in kwargs:  # Keras 2's name for the slope; Keras 3 still honours it, with a warning
            negative_slope = kwargs.pop("alpha")
            warnings.warn("Argument `alpha` is deprecated. Use `negative_slope` instead.", stacklevel=3)
        super().__init__(**kwargs)
        if negative_slope is None or negative_slope < 0:
            raise ValueError(f"The negative_slope value of a Leaky ReLU layer cannot be None or negative value. "
                             f"Expected a float. Received: negative_slope={negative_slope}")
        self.negative_slope = negative_slope

    def call(self, inputs):
        return _activations.leaky_relu(inputs, negative_slope=self.negative_slope)


class ELU(_Elementwise):
    """`x` for `x > 0`, `alpha * (exp(x) - 1)` otherwise."""

    def __init__(self, alpha=1.0, **kwargs):
        super().__init__(**kwargs)
        self.alpha = alpha

    def call(self, inputs):
        return _activations.elu(inputs, alpha=self.alpha)


class PReLU(_Elementwise):
    """Leaky ReLU with a learned slope: `relu(x) - alpha * relu(-x)`."""

    def __init__(self, alpha_initializer="Zeros", alpha_regularizer=None, alpha_constraint=None, shared_axes=None,
                 **kwargs):
        super().__init__(**kwargs)
        self.alpha_initializer = _initializers.get(alpha_initializer)
        self.alpha_regularizer = _regularizers.get(alpha_regularizer)
        self.alpha_constraint = _constraints.get(alpha_constraint)
        if shared_axes is None:
            self.shared_axes = None
        elif isinstance(shared_axes, (list, tuple)):
            self.shared_axes = list(shared_axes)
        else:
            self.shared_axes = [shared_axes]

    def build(self, input_shape):
        # Axis i of the input is entry i - 1 of alpha, which has no batch axis (Keras indexes negative
        # shared axes the same way).
        param_shape = list(input_shape[1:])
        for axis in self.shared_axes or ():
            param_shape[axis - 1] = 1
        if None in param_shape:
            raise ValueError(f"PReLU needs every non-shared input dimension to be known to create `alpha`. "
                             f"Received: input_shape={tuple(input_shape)}, shared_axes={self.shared_axes}")
        self.alpha = self.add_weight(shape=param_shape, initializer=self.alpha_initializer,
                                     regularizer=self.alpha_regularizer, constraint=self.alpha_constraint,
                                     name="alpha")

    def call(self, inputs):
        return tf.nn.relu(inputs) - self.alpha * tf.nn.relu(-inputs)


class Softmax(_Elementwise):
    """Softmax over `axis` (an int or a tuple of axes). Entries where an optional boolean `mask` is False
    get probability 0."""

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs, mask=None):
        if mask is not None:
            # Like Keras: a large negative logit where masked, then exact zeros there (a row masked
            # entirely is all zeros, not uniform).
            keep = tf.cast(mask, inputs.dtype)
            inputs = inputs + (1.0 - keep) * -1e9
        if isinstance(self.axis, int):
            outputs = tf.nn.softmax(inputs, axis=self.axis)
        else:
            outputs = tf.exp(inputs - tf.reduce_logsumexp(inputs, axis=list(self.axis), keepdims=True))
        if mask is not None:
            outputs = outputs * keep
        return outputs


API = {"keras.layers": ["ReLU", "LeakyReLU", "ELU", "PReLU", "Softmax"]}
