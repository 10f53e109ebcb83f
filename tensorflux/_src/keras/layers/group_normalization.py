"""Normalization layers beyond Batch/LayerNormalization: GroupNormalization (statistics per example and
channel group), UnitNormalization (unit L2 norm along `axis`) and RMSNormalization (root-mean-square
scaling with a learned scale), as Keras 3 computes them."""
import tensorflux as tf

from .. import constraints as _constraints
from .. import initializers as _initializers
from .. import regularizers as _regularizers
from .layer import Layer


class GroupNormalization(Layer):
    """Normalizes each example over groups of `groups` channels (and all other non-batch axes), then scales
    by `gamma` and shifts by `beta` per channel."""

    def __init__(self, groups=32, axis=-1, epsilon=0.001, center=True, scale=True, beta_initializer="zeros",
                 gamma_initializer="ones", beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                 gamma_constraint=None, **kwargs):
        super().__init__(**kwargs)
        self.groups, self.axis, self.epsilon = groups, axis, epsilon
        self.center, self.scale = center, scale
        self.beta_initializer = _initializers.get(beta_initializer)
        self.gamma_initializer = _initializers.get(gamma_initializer)
        self.beta_regularizer = _regularizers.get(beta_regularizer)
        self.gamma_regularizer = _regularizers.get(gamma_regularizer)
        self.beta_constraint = _constraints.get(beta_constraint)
        self.gamma_constraint = _constraints.get(gamma_constraint)

    def build(self, input_shape):
        channels = input_shape[self.axis]
        if channels is None:
            raise ValueError(f"Axis {self.axis} of input tensor should have a defined dimension but the layer "
                             f"received an input with shape {input_shape}.")
        if channels < self.groups:
            raise ValueError(f"Number of groups ({self.groups}) cannot be more than the number of channels "
                             f"({channels}).")
        if channels % self.groups:
            raise ValueError(f"Number of groups ({self.groups}) must be a multiple of the number of channels "
                             f"({channels}).")
        self.gamma = self.add_weight(shape=(channels,), initializer=self.gamma_initializer,
                                     regularizer=self.gamma_regularizer, constraint=self.gamma_constraint,
                                     name="gamma") if self.scale else None
        self.beta = self.add_weight(shape=(channels,), initializer=self.beta_initializer,
                                    regularizer=self.beta_regularizer, constraint=self.beta_constraint,
                                    name="beta") if self.center else None

    def call(self, inputs):
        rank = inputs.shape.rank
        axis = self.axis % rank
        x = inputs if axis == rank - 1 else tf.transpose(inputs, [i for i in range(rank) if i != axis] + [axis])
        channels = x.shape[-1]
        dims = tf.unstack(tf.shape(x))
        grouped = tf.reshape(x, tf.stack(dims[:-1] + [self.groups, channels // self.groups]))
        reduce_axes = list(range(1, rank - 1)) + [rank]
        mean, variance = tf.nn.moments(grouped, reduce_axes, keepdims=True)
        normalized = (grouped - mean) * tf.math.rsqrt(variance + tf.cast(self.epsilon, x.dtype))
        normalized = tf.reshape(normalized, tf.shape(x))
        if self.gamma is not None:
            normalized = normalized * tf.cast(self.gamma, x.dtype)
        if self.beta is not None:
            normalized = normalized + tf.cast(self.beta, x.dtype)
        if axis != rank - 1:
            back = list(range(rank - 1))
            back.insert(axis, rank - 1)
            normalized = tf.transpose(normalized, back)
        return normalized

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)


class UnitNormalization(Layer):
    """Scales each slice along `axis` to unit L2 norm (x / max(norm, 1e-12), as Keras)."""

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = list(axis) if isinstance(axis, (list, tuple)) else axis

    def call(self, inputs):
        inputs = tf.convert_to_tensor(inputs)
        norm = tf.sqrt(tf.reduce_sum(tf.square(inputs), axis=self.axis, keepdims=True))
        return inputs / tf.maximum(norm, tf.cast(1e-12, inputs.dtype))

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)


class RMSNormalization(Layer):
    """x · rsqrt(mean(x², axis) + epsilon) · scale, with a learned `scale` (ones) along `axis`."""

    def __init__(self, axis=-1, epsilon=1e-06, **kwargs):
        super().__init__(**kwargs)
        self.axis, self.epsilon = axis, epsilon

    def build(self, input_shape):
        axes = self.axis if isinstance(self.axis, (list, tuple)) else [self.axis]
        shape = tuple(input_shape[a] for a in axes)
        self.scale = self.add_weight(shape=shape, initializer="ones", name="scale")

    def call(self, inputs):
        inputs = tf.convert_to_tensor(inputs)
        mean_square = tf.reduce_mean(tf.square(inputs), axis=self.axis, keepdims=True)
        scale = tf.cast(self.scale, inputs.dtype)
        rank = inputs.shape.rank
        axes = [a % rank for a in (self.axis if isinstance(self.axis, (list, tuple)) else [self.axis])]
        scale = tf.reshape(scale, [inputs.shape[i] if i in axes else 1 for i in range(rank)])
        return inputs * tf.math.rsqrt(mean_square + tf.cast(self.epsilon, inputs.dtype)) * scale

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)


API = {"keras.layers": ["GroupNormalization", "UnitNormalization", "RMSNormalization"]}
