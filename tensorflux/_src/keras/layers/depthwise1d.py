"""DepthwiseConv1D: each input channel convolved with its own `depth_multiplier` filters over the steps of
`(batch, steps, channels)` (kernel [kernel_size, channels, depth_multiplier]), plus bias and activation."""
import tensorflux as tf

from .. import activations as _activations
from .. import bias as _bias
from .. import constraints as _constraints
from .. import initializers as _initializers
from .. import regularizers as _regularizers
from . import core as _core
from .layer import Layer


def _single(value, arg):
    value = value[0] if isinstance(value, (list, tuple)) and len(value) == 1 else value
    if not isinstance(value, int) or value < 1:
        raise ValueError(f"The `{arg}` argument must be a tuple of 1 integers. Received {arg}={value}")
    return value


class DepthwiseConv1D(Layer):
    """A depthwise 1-D convolution (output channels = channels · depth_multiplier)."""

    def __init__(self, kernel_size, strides=1, padding="valid", depth_multiplier=1, data_format=None, dilation_rate=1,
                 activation=None, use_bias=True, depthwise_initializer="glorot_uniform", bias_initializer="zeros",
                 depthwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 depthwise_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.kernel_size = _single(kernel_size, "kernel_size")
        self.strides = _single(strides, "strides")
        self.dilation_rate = _single(dilation_rate, "dilation_rate")
        _core.check_strides_and_dilation((self.strides,), (self.dilation_rate,))
        self.padding = _core._padding(padding)
        self.depth_multiplier = depth_multiplier
        self.data_format = _core._channels_last(data_format)
        self.activation = _activations.get(activation)
        self.use_bias = use_bias
        self.depthwise_initializer = _initializers.get(depthwise_initializer)
        self.bias_initializer = _initializers.get(bias_initializer)
        self.depthwise_regularizer = _regularizers.get(depthwise_regularizer)
        self.bias_regularizer = _regularizers.get(bias_regularizer)
        self.depthwise_constraint = _constraints.get(depthwise_constraint)
        self.bias_constraint = _constraints.get(bias_constraint)

    def build(self, input_shape):
        channels = _core.channel_dim(input_shape)
        self.kernel = self.add_weight(shape=(self.kernel_size, channels, self.depth_multiplier),
                                      initializer=self.depthwise_initializer, regularizer=self.depthwise_regularizer,
                                      constraint=self.depthwise_constraint, name="kernel")
        self.bias = self.add_weight(shape=(channels * self.depth_multiplier,), initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                                    name="bias") if self.use_bias else None

    def call(self, inputs):
        x = tf.nn.depthwise_conv2d(tf.expand_dims(inputs, 1), tf.expand_dims(self.kernel, 0),
                                   [1, 1, self.strides, 1], self.padding.upper(), dilations=[1, self.dilation_rate])
        x = tf.squeeze(x, 1)
        if self.bias is not None:
            x = _bias.add(x, self.bias)
        return self.activation(x)

    def compute_output_shape(self, input_shape):
        steps = _core._window_output(input_shape[1], self.kernel_size, self.strides, self.padding, self.dilation_rate)
        return (input_shape[0], steps, input_shape[2] * self.depth_multiplier)


API = {"keras.layers": ["DepthwiseConv1D"]}
