"""Small regularizing layers: ActivityRegularization (adds an L1/L2 penalty on its input to the losses),
AlphaDropout (dropout that keeps SELU's mean and variance) and ThresholdedReLU (x where x > theta)."""
import numpy as np

import tensorflux as tf

from .. import regularizers as _regularizers
from . import reshaping as _reshaping
from .layer import Layer

_SELU_ALPHA_PRIME = -1.7580993408473766  # -scale · alpha of SELU: where dropped units are set


class ActivityRegularization(Layer):
    """Passes its input through and adds l1 · Σ|x| + l2 · Σx² (per batch example) to the layer's losses."""

    def __init__(self, l1=0.0, l2=0.0, **kwargs):
        super().__init__(activity_regularizer=_regularizers.L1L2(l1=l1, l2=l2), **kwargs)
        self.l1, self.l2 = l1, l2

    def call(self, inputs):
        return inputs

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)


class AlphaDropout(_reshaping._RandomLayer):
    """In training, sets a fraction `rate` of units to SELU's negative saturation and rescales so that
    mean and variance are kept; an identity otherwise."""

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        if not 0 <= rate <= 1:
            raise ValueError(f"Invalid value received for argument `rate`. Expected a float value between 0 and 1. "
                             f"Received: rate={rate}")
        self.rate, self.noise_shape = rate, noise_shape

    def call(self, inputs, training=False):
        if not training or self.rate == 0:
            return inputs
        shape = tf.shape(inputs) if self.noise_shape is None else self.noise_shape
        keep = tf.cast(self._uniform(shape) >= self.rate, inputs.dtype)
        a = ((1 - self.rate) * (1 + self.rate * _SELU_ALPHA_PRIME ** 2)) ** -0.5
        b = -a * _SELU_ALPHA_PRIME * self.rate
        dropped = inputs * keep + _SELU_ALPHA_PRIME * (1 - keep)
        return a * dropped + b


class ThresholdedReLU(Layer):
    """x where x > theta, else 0."""

    def __init__(self, theta=1.0, **kwargs):
        super().__init__(**kwargs)
        if theta is None or theta < 0 or not np.isfinite(theta):
            raise ValueError(f"The theta value of a Thresholded ReLU layer cannot be None or negative. "
                             f"Received: theta={theta}")
        self.theta = theta

    def call(self, inputs):
        inputs = tf.convert_to_tensor(inputs)
        return inputs * tf.cast(inputs > self.theta, inputs.dtype)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)


API = {"keras.layers": ["ActivityRegularization", "AlphaDropout", "ThresholdedReLU"]}
