"""Layers over volumes, `(batch, depth, height, width, channels)`: Conv3D, Conv3DTranspose, MaxPooling3D,
AveragePooling3D, GlobalMax/AveragePooling3D, UpSampling3D, ZeroPadding3D, Cropping3D and SpatialDropout3D,
plus the Convolution1D/2D/3D(Transpose) aliases Keras keeps.

Inputs are channels_last (another `data_format` is refused, as by the 1-D and 2-D layers); output sizes
follow Keras: "valid" windows give floor((n - (k - 1)·d - 1) / s) + 1 steps, "same" ceil(n / s).
"""
import tensorflux as tf

from .. import activations as _activations
from .. import bias as _bias
from .. import constraints as _constraints
from .. import initializers as _initializers
from .. import regularizers as _regularizers
from . import convolutional as _convolutional
from . import core as _core
from . import normalization as _normalization
from . import reshaping as _reshaping
from .layer import Layer


def _triple(value, arg, minimum=1):
    values = (value,) * 3 if isinstance(value, int) else tuple(value)
    if len(values) != 3 or not all(isinstance(v, int) and v >= minimum for v in values):
        raise ValueError(f"The `{arg}` argument must be a tuple of 3 integers. Received {arg}={value}")
    return values


def _window(size, window, stride, padding, dilation=1):
    if size is None:
        return None
    if padding == "same":
        return -(-size // stride)
    return (size - ((window - 1) * dilation + 1)) // stride + 1


class Conv3D(Layer):
    """3-D convolution over volumes, plus bias and activation (kernel [kd, kh, kw, in, filters])."""

    def __init__(self, filters, kernel_size, strides=(1, 1, 1), padding="valid", data_format=None,
                 dilation_rate=(1, 1, 1), groups=1, activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        if not isinstance(filters, int) or filters <= 0:
            raise ValueError(f"Invalid value for argument `filters`. Expected a strictly positive value. "
                             f"Received filters={filters}.")
        if groups != 1:
            raise ValueError(f"tensorflux's Conv3D supports groups=1 only. Received: groups={groups}")
        self.filters = filters
        self.kernel_size = _triple(kernel_size, "kernel_size")
        self.strides = _triple(strides, "strides")
        self.dilation_rate = _triple(dilation_rate, "dilation_rate")
        _core.check_strides_and_dilation(self.strides, self.dilation_rate)
        self.padding = _core._padding(padding)
        self.data_format = _core._channels_last(data_format)
        self.activation = _activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = _initializers.get(kernel_initializer)
        self.bias_initializer = _initializers.get(bias_initializer)
        self.kernel_regularizer = _regularizers.get(kernel_regularizer)
        self.bias_regularizer = _regularizers.get(bias_regularizer)
        self.kernel_constraint = _constraints.get(kernel_constraint)
        self.bias_constraint = _constraints.get(bias_constraint)

    def build(self, input_shape):
        channels = _core.channel_dim(input_shape)
        self.kernel = self.add_weight(shape=self.kernel_size + (channels, self.filters),
                                      initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint, name="kernel")
        self.bias = self.add_weight(shape=(self.filters,), initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                                    name="bias") if self.use_bias else None

    def call(self, inputs):
        x = tf.nn.conv3d(inputs, self.kernel, (1,) + self.strides + (1,), self.padding.upper(),
                         dilations=(1,) + self.dilation_rate + (1,))
        if self.bias is not None:
            x = _bias.add(x, self.bias)
        return self.activation(x)

    def compute_output_shape(self, input_shape):
        return (input_shape[0],) + tuple(
            _window(n, k, s, self.padding, d) for n, k, s, d in
            zip(input_shape[1:4], self.kernel_size, self.strides, self.dilation_rate)) + (self.filters,)


class Conv3DTranspose(Layer):
    """The transposed 3-D convolution (kernel [kd, kh, kw, filters, in]); sizes as Keras computes them."""

    def __init__(self, filters, kernel_size, strides=(1, 1, 1), padding="valid", data_format=None,
                 output_padding=None, dilation_rate=(1, 1, 1), activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros", kernel_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
                 **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        if not isinstance(filters, int) or filters <= 0:
            raise ValueError(f"Invalid value for argument `filters`. Expected a strictly positive value. "
                             f"Received filters={filters}.")
        self.filters = filters
        self.kernel_size = _triple(kernel_size, "kernel_size")
        self.strides = _triple(strides, "strides")
        self.dilation_rate = _triple(dilation_rate, "dilation_rate")
        self.output_padding = None if output_padding is None else _triple(output_padding, "output_padding", 0)
        self.padding = _core._padding(padding)
        self.data_format = _core._channels_last(data_format)
        self.activation = _activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = _initializers.get(kernel_initializer)
        self.bias_initializer = _initializers.get(bias_initializer)
        self.kernel_regularizer = _regularizers.get(kernel_regularizer)
        self.bias_regularizer = _regularizers.get(bias_regularizer)
        self.kernel_constraint = _constraints.get(kernel_constraint)
        self.bias_constraint = _constraints.get(bias_constraint)

    def build(self, input_shape):
        channels = _core.channel_dim(input_shape)
        self.kernel = self.add_weight(shape=self.kernel_size + (self.filters, channels),
                                      initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint, name="kernel")
        self.bias = self.add_weight(shape=(self.filters,), initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                                    name="bias") if self.use_bias else None

    def _lengths(self, sizes):
        extra = self.output_padding or (None,) * 3
        return [_convolutional.transpose_output_length(n, k, s, self.padding, p, d) for n, k, s, p, d in
                zip(sizes, self.kernel_size, self.strides, extra, self.dilation_rate)]

    def call(self, inputs):
        static = inputs.shape.as_list()[1:4]
        dynamic = tf.unstack(tf.shape(inputs))
        sizes = [s if s is not None else dynamic[i + 1] for i, s in enumerate(static)]
        output_shape = tf.stack([dynamic[0]] + self._lengths(sizes) + [self.filters])
        x = tf.nn.conv3d_transpose(inputs, self.kernel, output_shape, (1,) + self.strides + (1,),
                                   self.padding.upper(), dilations=(1,) + self.dilation_rate + (1,))
        if self.bias is not None:
            x = _bias.add(x, self.bias)
        return self.activation(x)

    def compute_output_shape(self, input_shape):
        lengths = [None if n is None else length for n, length in
                   zip(input_shape[1:4], self._lengths([n or 1 for n in input_shape[1:4]]))]
        return (input_shape[0],) + tuple(lengths) + (self.filters,)


class _Pooling3D(Layer):
    _pool = None

    def __init__(self, pool_size=(2, 2, 2), strides=None, padding="valid", data_format=None, name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self.pool_size = _triple(pool_size, "pool_size")
        self.strides = self.pool_size if strides is None else _triple(strides, "strides")
        self.padding = _core._padding(padding)
        self.data_format = _core._channels_last(data_format)

    def call(self, inputs):
        return type(self)._pool(inputs, (1,) + self.pool_size + (1,), (1,) + self.strides + (1,),
                                self.padding.upper())

    def compute_output_shape(self, input_shape):
        return (input_shape[0],) + tuple(_window(n, k, s, self.padding) for n, k, s in
                                         zip(input_shape[1:4], self.pool_size, self.strides)) + (input_shape[4],)


class MaxPooling3D(_Pooling3D):
    """Maximum over `pool_size` windows of each volume."""

    @staticmethod
    def _pool(*args):
        return tf.nn.max_pool3d(*args)


class AveragePooling3D(_Pooling3D):
    """Mean over `pool_size` windows of each volume."""

    # Keras' average pooling takes no default window (its max pooling does)
    def __init__(self, pool_size, strides=None, padding="valid", data_format=None, name=None, **kwargs):
        super().__init__(pool_size, strides, padding, data_format, name=name, **kwargs)

    @staticmethod
    def _pool(*args):
        return tf.nn.avg_pool3d(*args)


class _GlobalPooling3D(Layer):
    _reduce = None

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(**kwargs)
        self.data_format = _core._channels_last(data_format)
        self.keepdims = keepdims

    def call(self, inputs):
        return type(self)._reduce(inputs, axis=[1, 2, 3], keepdims=self.keepdims)

    def compute_output_shape(self, input_shape):
        return (input_shape[0], 1, 1, 1, input_shape[4]) if self.keepdims else (input_shape[0], input_shape[4])


class GlobalMaxPooling3D(_GlobalPooling3D):
    """The maximum over each volume's spatial axes."""
    _reduce = staticmethod(tf.reduce_max)


class GlobalAveragePooling3D(_GlobalPooling3D):
    """The mean over each volume's spatial axes."""
    _reduce = staticmethod(tf.reduce_mean)


class UpSampling3D(Layer):
    """Repeats each voxel `size` = (depth, rows, cols) times along the spatial axes."""

    def __init__(self, size=(2, 2, 2), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.size = _triple(size, "size")
        self.data_format = _core._channels_last(data_format)

    def call(self, inputs):
        for axis, times in enumerate(self.size, start=1):
            inputs = tf.repeat(inputs, times, axis=axis)
        return inputs

    def compute_output_shape(self, input_shape):
        return (input_shape[0],) + tuple(None if n is None else n * t for n, t in
                                         zip(input_shape[1:4], self.size)) + (input_shape[4],)


def _pairs(value, arg):
    """((before, after),) * 3 from an int, three ints, or three pairs."""
    if isinstance(value, int):
        return ((value, value),) * 3
    value = tuple(value)
    if len(value) == 3 and all(isinstance(v, int) for v in value):
        return tuple((v, v) for v in value)
    if len(value) == 3 and all(isinstance(v, (list, tuple)) and len(v) == 2 for v in value):
        return tuple(tuple(v) for v in value)
    raise ValueError(f"`{arg}` should be either an int, a tuple of 3 ints, or a tuple of 3 tuples of 2 ints. "
                     f"Received: {arg}={value}")


class ZeroPadding3D(Layer):
    """Zeros added before and after each spatial axis of a volume."""

    def __init__(self, padding=((1, 1), (1, 1), (1, 1)), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.padding = _pairs(padding, "padding")
        self.data_format = _core._channels_last(data_format)

    def call(self, inputs):
        return tf.pad(inputs, [[0, 0]] + [list(p) for p in self.padding] + [[0, 0]])

    def compute_output_shape(self, input_shape):
        return (input_shape[0],) + tuple(None if n is None else n + a + b for n, (a, b) in
                                         zip(input_shape[1:4], self.padding)) + (input_shape[4],)


class Cropping3D(Layer):
    """Voxels removed before and after each spatial axis of a volume."""

    def __init__(self, cropping=((1, 1), (1, 1), (1, 1)), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.cropping = _pairs(cropping, "cropping")
        self.data_format = _core._channels_last(data_format)

    def call(self, inputs):
        (d0, d1), (h0, h1), (w0, w1) = self.cropping
        shape = inputs.shape
        return inputs[:, d0:shape[1] - d1 if shape[1] is not None else -d1 or None,
                      h0:shape[2] - h1 if shape[2] is not None else -h1 or None,
                      w0:shape[3] - w1 if shape[3] is not None else -w1 or None, :]

    def compute_output_shape(self, input_shape):
        return (input_shape[0],) + tuple(None if n is None else n - a - b for n, (a, b) in
                                         zip(input_shape[1:4], self.cropping)) + (input_shape[4],)


class SpatialDropout3D(_reshaping._SpatialDropout):
    """Dropout of whole feature volumes: one keep/drop draw per (example, channel)."""
    _rank = 5

    def __init__(self, rate, data_format=None, seed=None, name=None, dtype=None):
        super().__init__(rate, seed=seed, name=name, dtype=dtype)
        self.data_format = _core._channels_last(data_format)


MaxPool3D, AvgPool3D = MaxPooling3D, AveragePooling3D
GlobalMaxPool3D, GlobalAvgPool3D = GlobalMaxPooling3D, GlobalAveragePooling3D
Convolution3D, Convolution3DTranspose = Conv3D, Conv3DTranspose
Convolution1D, Convolution2D = _normalization.Conv1D, _core.Conv2D

API = {"keras.layers": ["Conv3D", "Conv3DTranspose", "Convolution3D", "Convolution3DTranspose", "Convolution1D",
                        "Convolution2D", "MaxPooling3D", "AveragePooling3D", "MaxPool3D", "AvgPool3D",
                        "GlobalMaxPooling3D", "GlobalAveragePooling3D", "GlobalMaxPool3D", "GlobalAvgPool3D",
                        "UpSampling3D", "ZeroPadding3D", "Cropping3D", "SpatialDropout3D"]}
