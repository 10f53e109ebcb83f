"""More `keras.layers`: normalization (BatchNormalization, LayerNormalization), Embedding, global pooling,
Conv1D and DepthwiseConv2D.

They follow Keras 3's numerics: batch normalization computes `x * inv + (beta - mean * inv)` with
`inv = gamma / sqrt(variance + epsilon)` using the batch's biased moments while training and the moving
statistics otherwise, and moves those statistics by `moving * momentum + batch * (1 - momentum)`.
"""
import tensorflux as tf

from ...ops.nn.normalization import fused_layer_norm
from .. import constraints as _constraints
from .. import activations as _activations
from .. import bias as _bias
from .. import initializers as _initializers
from .. import regularizers as _regularizers
from . import core as _layers
from .layer import Layer
from .core import _channels_last, _pair, _padding, _window_output, conv2d_output_shape


def _axes(axis, rank, layer):
    """`axis` (an int or a list) as sorted non-negative axes of a rank-`rank` input."""
    axes = [axis] if isinstance(axis, int) else list(axis)
    out = []
    for a in axes:
        if not -rank <= a < rank:
            raise ValueError(f"Axis {a} is out of bounds for input of rank {rank} in {layer}. Received: "
                             f"axis={axis}")
        out.append(a % rank)
    return sorted(set(out))


def _initializer(identifier):
    # Keras's "uniform"/"normal" shorthands are RandomUniform/RandomNormal with their default ranges.
    if identifier == "uniform":
        return _initializers.RandomUniform()
    if identifier == "normal":
        return _initializers.RandomNormal()
    return _initializers.get(identifier)


def _param_shape(input_shape, axes):
    return tuple(input_shape[a] for a in axes)


def _broadcastable(v, rank, axes):
    """A weight over `axes` reshaped to broadcast against a rank-`rank` input (unchanged for the last axis)."""
    if v is None or axes == [rank - 1]:
        return v
    shape = [1] * rank
    for a, d in zip(axes, v.shape.as_list()):
        shape[a] = d
    return tf.reshape(v, shape)


class BatchNormalization(Layer):
    """Normalizes each feature (the `axis` entries) by the batch's statistics while training and by moving
    averages of them at inference."""

    supports_masking = True     # masks pass through (keras.masks)

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True, beta_initializer="zeros",
                 gamma_initializer="ones", moving_mean_initializer="zeros", moving_variance_initializer="ones",
                 beta_regularizer=None, gamma_regularizer=None, beta_constraint=None, gamma_constraint=None,
                 synchronized=False, **kwargs):
        super().__init__(**kwargs)
        self.beta_constraint = _constraints.get(beta_constraint)
        self.gamma_constraint = _constraints.get(gamma_constraint)
        self.axis = axis
        self.momentum = float(momentum)
        self.epsilon = float(epsilon)
        self.center, self.scale = center, scale
        self.beta_initializer = _initializers.get(beta_initializer)
        self.gamma_initializer = _initializers.get(gamma_initializer)
        self.moving_mean_initializer = _initializers.get(moving_mean_initializer)
        self.moving_variance_initializer = _initializers.get(moving_variance_initializer)
        self.beta_regularizer, self.gamma_regularizer = beta_regularizer, gamma_regularizer
        self.gamma = self.beta = None

    def build(self, input_shape):
        rank = len(input_shape)
        self._feature_axes = _axes(self.axis, rank, "BatchNormalization")
        shape = _param_shape(input_shape, self._feature_axes)
        if None in shape:
            raise ValueError(f"Axis {self.axis} of input tensor should have a defined dimension but the layer "
                             f"received an input with shape {tuple(input_shape)}.")
        self._reduction_axes = [a for a in range(rank) if a not in self._feature_axes]
        if self.scale:
            self.gamma = self.add_weight(shape=shape, initializer=self.gamma_initializer, name="gamma",
                                         regularizer=self.gamma_regularizer, constraint=self.gamma_constraint)
        if self.center:
            self.beta = self.add_weight(shape=shape, initializer=self.beta_initializer, name="beta",
                                        regularizer=self.beta_regularizer, constraint=self.beta_constraint)
        self.moving_mean = self.add_weight(shape=shape, initializer=self.moving_mean_initializer,
                                           name="moving_mean", trainable=False)
        self.moving_variance = self.add_weight(shape=shape, initializer=self.moving_variance_initializer,
                                               name="moving_variance", trainable=False)

    def call(self, inputs, training=None):
        rank = inputs.shape.rank
        if training and self.trainable:
            mean, variance = tf.nn.moments(inputs, self._reduction_axes)
            self.moving_mean.assign(self.moving_mean * self.momentum + mean * (1.0 - self.momentum))
            self.moving_variance.assign(self.moving_variance * self.momentum + variance * (1.0 - self.momentum))
        else:
            mean, variance = self.moving_mean, self.moving_variance
        axes = self._feature_axes
        inv = tf.math.rsqrt(_broadcastable(tf.convert_to_tensor(variance), rank, axes) + self.epsilon)
        if self.gamma is not None:
            inv = inv * _broadcastable(tf.convert_to_tensor(self.gamma), rank, axes)
        shift = -_broadcastable(tf.convert_to_tensor(mean), rank, axes) * inv
        if self.beta is not None:
            shift = shift + _broadcastable(tf.convert_to_tensor(self.beta), rank, axes)
        return inputs * inv + shift

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)


class LayerNormalization(Layer):
    """Normalizes each example over `axis` (its mean and biased variance), then scales and shifts."""

    supports_masking = True     # masks pass through (keras.masks)

    def __init__(self, axis=-1, epsilon=1e-3, center=True, scale=True, rms_scaling=False,
                 beta_initializer="zeros", gamma_initializer="ones", beta_regularizer=None, gamma_regularizer=None,
                 beta_constraint=None, gamma_constraint=None, **kwargs):
        super().__init__(**kwargs)
        self.beta_constraint = _constraints.get(beta_constraint)
        self.gamma_constraint = _constraints.get(gamma_constraint)
        self.axis = axis
        self.epsilon = float(epsilon)
        self.center, self.scale, self.rms_scaling = center, scale, rms_scaling
        self.beta_initializer = _initializers.get(beta_initializer)
        self.gamma_initializer = _initializers.get(gamma_initializer)
        self.beta_regularizer, self.gamma_regularizer = beta_regularizer, gamma_regularizer
        self.gamma = self.beta = None

    def build(self, input_shape):
        self._norm_axes = _axes(self.axis, len(input_shape), "LayerNormalization")
        shape = _param_shape(input_shape, self._norm_axes)
        if self.scale or self.rms_scaling:
            self.gamma = self.add_weight(shape=shape, initializer=self.gamma_initializer, name="gamma",
                                         regularizer=self.gamma_regularizer, constraint=self.gamma_constraint)
        if self.center and not self.rms_scaling:
            self.beta = self.add_weight(shape=shape, initializer=self.beta_initializer, name="beta",
                                        regularizer=self.beta_regularizer, constraint=self.beta_constraint)

    def call(self, inputs):
        inputs = tf.convert_to_tensor(inputs)
        rank, axes = inputs.shape.rank, self._norm_axes
        if not self.rms_scaling and inputs.dtype.is_floating and axes == list(range(rank - len(axes), rank)):
            # The trailing axes: one fused op each way (same values as the composite below).
            shape = _param_shape(inputs.shape.as_list(), axes)
            gamma = tf.ones(shape, inputs.dtype) if self.gamma is None else tf.cast(self.gamma, inputs.dtype)
            beta = tf.zeros(shape, inputs.dtype) if self.beta is None else tf.cast(self.beta, inputs.dtype)
            return fused_layer_norm(inputs, gamma, beta, axes[0], self.epsilon)
        mean, variance = tf.nn.moments(inputs, axes, keepdims=True)
        inv = tf.math.rsqrt(variance + self.epsilon)
        if self.rms_scaling:  # Keras's (deprecated) rms_scaling divides by the variance's root, not the RMS
            out = inputs * inv
            return out * _broadcastable(tf.convert_to_tensor(self.gamma), rank, axes)
        if self.gamma is not None:
            inv = inv * _broadcastable(tf.convert_to_tensor(self.gamma), rank, axes)
        shift = -mean * inv
        if self.beta is not None:
            shift = shift + _broadcastable(tf.convert_to_tensor(self.beta), rank, axes)
        return inputs * inv + shift

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)


class Embedding(Layer):
    """Maps integer indices in [0, input_dim) to rows of an `(input_dim, output_dim)` embedding matrix."""

    def __init__(self, input_dim, output_dim, embeddings_initializer="uniform", embeddings_regularizer=None,
                 embeddings_constraint=None, mask_zero=False, weights=None, lora_rank=None, **kwargs):
        input_length = kwargs.pop("input_length", None)
        if input_length is not None and "input_shape" not in kwargs:
            kwargs["input_shape"] = (input_length,)
        super().__init__(**kwargs)
        for arg, value in (("input_dim", input_dim), ("output_dim", output_dim)):
            if not isinstance(value, int) or value <= 0:
                raise ValueError(f"Received an invalid value for `{arg}`, expected a positive integer. Received: "
                                 f"{arg}={value}")
        if lora_rank is not None:
            raise NotImplementedError(f"tensorflux's Embedding does not implement LoRA (low-rank adaptation of the "
                                      f"kernel). Received: lora_rank={lora_rank!r}")
        self.embeddings_constraint = _constraints.get(embeddings_constraint)
        self.input_dim, self.output_dim = input_dim, output_dim
        self.mask_zero = bool(mask_zero)
        self.supports_masking = self.mask_zero
        self.embeddings_initializer = _initializer(embeddings_initializer)
        self.embeddings_regularizer = embeddings_regularizer
        self._initial_weights = weights

    def build(self, input_shape=None):
        self.embeddings = self.add_weight(shape=(self.input_dim, self.output_dim),
                                          initializer=self.embeddings_initializer, name="embeddings",
                                          regularizer=self.embeddings_regularizer,
                                          constraint=self.embeddings_constraint)
        if self._initial_weights is not None:
            self.set_weights(self._initial_weights)

    def call(self, inputs):
        inputs = tf.convert_to_tensor(inputs)
        if inputs.dtype not in (tf.int32, tf.int64):
            inputs = tf.cast(inputs, tf.int32)
        return tf.gather(self.embeddings, inputs)

    def compute_mask(self, inputs, mask=None):
        """With `mask_zero`, index 0 is padding: the mask is True where the input is not 0."""
        if not self.mask_zero:
            return None
        return tf.not_equal(inputs, tf.zeros_like(tf.convert_to_tensor(inputs)))

    def compute_output_shape(self, input_shape):
        return tuple(input_shape) + (self.output_dim,)


class _GlobalPooling(Layer):
    _spatial_rank = None
    _reduce = None

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(**kwargs)
        self.data_format = _channels_last(data_format)
        self.keepdims = keepdims

    def call(self, inputs):
        axes = list(range(1, 1 + self._spatial_rank))
        return type(self)._reduce(inputs, axis=axes, keepdims=self.keepdims)

    def compute_output_shape(self, input_shape):
        input_shape = tuple(input_shape)
        if self.keepdims:
            return (input_shape[0],) + (1,) * self._spatial_rank + input_shape[-1:]
        return (input_shape[0], input_shape[-1])


class GlobalAveragePooling1D(_GlobalPooling):
    _spatial_rank = 1
    _reduce = staticmethod(tf.reduce_mean)


class GlobalAveragePooling2D(_GlobalPooling):
    _spatial_rank = 2
    _reduce = staticmethod(tf.reduce_mean)


class GlobalMaxPooling1D(_GlobalPooling):
    _spatial_rank = 1
    _reduce = staticmethod(tf.reduce_max)


class GlobalMaxPooling2D(_GlobalPooling):
    _spatial_rank = 2
    _reduce = staticmethod(tf.reduce_max)


GlobalAvgPool1D, GlobalAvgPool2D = GlobalAveragePooling1D, GlobalAveragePooling2D
GlobalMaxPool1D, GlobalMaxPool2D = GlobalMaxPooling1D, GlobalMaxPooling2D


def _positive_filters(filters):
    if not isinstance(filters, int) or filters <= 0:
        raise ValueError(f"Invalid value for argument `filters`. Expected a strictly positive value. Received "
                         f"filters={filters}.")
    return filters


def _single(value, arg):
    if isinstance(value, int):
        return value
    value = tuple(value)
    if len(value) != 1 or not isinstance(value[0], int):
        raise ValueError(f"The `{arg}` argument must be a tuple of 1 integers. Received {arg}={value}")
    return value[0]


class Conv1D(Layer):
    """1-D convolution over `(batch, steps, channels)` inputs; padding "valid", "same" or "causal" (left
    zeros only, so output t sees inputs up to t)."""

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None, dilation_rate=1,
                 groups=1, activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None,
                 bias_regularizer=None, kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(**kwargs)
        if groups != 1:
            raise ValueError(f"tensorflux's Conv1D supports groups=1 only. Received: groups={groups}")
        self.kernel_constraint = _constraints.get(kernel_constraint)
        self.bias_constraint = _constraints.get(bias_constraint)
        self.filters = _positive_filters(filters)
        self.kernel_size = _single(kernel_size, "kernel_size")
        self.strides = _single(strides, "strides")
        self.dilation_rate = _single(dilation_rate, "dilation_rate")
        causal = str(padding).lower() == "causal"
        self.padding = "causal" if causal else _padding(padding)
        self.data_format = _channels_last(data_format)
        self.activation = _activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = _initializers.get(kernel_initializer)
        self.bias_initializer = _initializers.get(bias_initializer)
        self.kernel_regularizer = _regularizers.get(kernel_regularizer)
        self.bias_regularizer = _regularizers.get(bias_regularizer)

    def build(self, input_shape):
        channels = _layers.channel_dim(input_shape)
        self.kernel = self.add_weight(shape=(self.kernel_size, channels, self.filters),
                                      initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint, name="kernel")
        self.bias = self.add_weight(shape=(self.filters,), initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                                    name="bias") if self.use_bias else None

    def call(self, inputs):
        padding = self.padding.upper()
        if self.padding == "causal":
            inputs = tf.pad(inputs, [[0, 0], [(self.kernel_size - 1) * self.dilation_rate, 0], [0, 0]])
            padding = "VALID"
        x = tf.nn.conv1d(inputs, self.kernel, self.strides, padding, dilations=self.dilation_rate)
        if self.bias is not None:
            x = _bias.add(x, self.bias)
        return self.activation(x)

    def compute_output_shape(self, input_shape):
        batch, steps, _ = input_shape
        if self.padding == "causal":
            steps = None if steps is None else steps + (self.kernel_size - 1) * self.dilation_rate
        padding = "valid" if self.padding == "causal" else self.padding
        return (batch, _window_output(steps, self.kernel_size, self.strides, padding, self.dilation_rate),
                self.filters)


class DepthwiseConv2D(Layer):
    """Each input channel convolved with its own `depth_multiplier` filters (no mixing across channels)."""

    def __init__(self, kernel_size, strides=(1, 1), padding="valid", depth_multiplier=1, data_format=None,
                 dilation_rate=(1, 1), activation=None, use_bias=True, depthwise_initializer="glorot_uniform",
                 bias_initializer="zeros", depthwise_regularizer=None, bias_regularizer=None,
                 depthwise_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(depth_multiplier, int) or depth_multiplier <= 0:
            raise ValueError(f"Invalid value for argument `depth_multiplier`. Expected a strictly positive value. "
                             f"Received depth_multiplier={depth_multiplier}.")
        self.kernel_size = _pair(kernel_size, "kernel_size")
        self.strides = _pair(strides, "strides")
        self.dilation_rate = _pair(dilation_rate, "dilation_rate")
        _layers.check_strides_and_dilation(self.strides, self.dilation_rate)
        self.padding = _padding(padding)
        self.depth_multiplier = depth_multiplier
        self.data_format = _channels_last(data_format)
        self.activation = _activations.get(activation)
        self.use_bias = use_bias
        self.depthwise_initializer = _initializers.get(depthwise_initializer)
        self.bias_initializer = _initializers.get(bias_initializer)
        self.depthwise_regularizer = _regularizers.get(depthwise_regularizer)
        self.bias_regularizer = _regularizers.get(bias_regularizer)
        self.depthwise_constraint = _constraints.get(depthwise_constraint)
        self.bias_constraint = _constraints.get(bias_constraint)

    def build(self, input_shape):
        channels = _layers.channel_dim(input_shape)
        self.kernel = self.add_weight(shape=self.kernel_size + (channels, self.depth_multiplier),
                                      initializer=self.depthwise_initializer, regularizer=self.depthwise_regularizer,
                                      constraint=self.depthwise_constraint, name="kernel")
        self.bias = self.add_weight(shape=(channels * self.depth_multiplier,), initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                                    name="bias") if self.use_bias else None

    def call(self, inputs):
        x = tf.nn.depthwise_conv2d(inputs, self.kernel, (1,) + self.strides + (1,), self.padding.upper(),
                                   dilations=self.dilation_rate)
        if self.bias is not None:
            x = _bias.add(x, self.bias)
        return self.activation(x)

    def compute_output_shape(self, input_shape):
        return conv2d_output_shape(self, input_shape, input_shape[3] * self.depth_multiplier)


API = {"keras.layers": ["BatchNormalization", "LayerNormalization", "Embedding", "GlobalAveragePooling1D",
                        "GlobalAveragePooling2D", "GlobalMaxPooling1D", "GlobalMaxPooling2D", "GlobalAvgPool1D", "GlobalAvgPool2D",
                        "GlobalMaxPool1D", "GlobalMaxPool2D", "Conv1D",
                        "DepthwiseConv2D"]}
