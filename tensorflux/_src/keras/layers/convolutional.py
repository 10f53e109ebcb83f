"""More convolution layers of `keras.layers`: Conv1DTranspose, Conv2DTranspose, SeparableConv1D and
SeparableConv2D, channels_last only, with Keras 3's weight shapes and order.

Transposed convolutions hold their kernel as `(*kernel_size, filters, in_channels)` and produce, along each
spatial axis of length n (kernel k dilated to k' = (k - 1) * dilation + 1):
"valid": `(n - 1) * stride + max(k', stride)`, or `(n - 1) * stride + k' + output_padding`;
"same": `n * stride`, or `(n - 1) * stride + k' % 2 + output_padding`.
The 1-D layers run as their 2-D counterparts over a height-1 image.
"""
import tensorflux as tf

from .. import activations as _activations
from .. import bias as _bias
from .. import constraints as _constraints
from .. import initializers as _initializers
from .. import regularizers as _regularizers
from .layer import Layer
from .core import _channels_last, _padding, _window_output, channel_dim, check_strides_and_dilation


def _tuple(value, rank, arg, allow_zero=False):
    """`value` (an int or a sequence of `rank` ints) as a tuple of `rank` ints, each > 0 (>= 0 if allowed)."""
    values = (value,) * rank if isinstance(value, int) else tuple(value)
    if len(values) != rank or not all(isinstance(v, int) for v in values):
        raise ValueError(f"The `{arg}` argument must be a tuple of {rank} integers. Received {arg}={value}")
    if any(v < 0 or (v == 0 and not allow_zero) for v in values):
        requirement = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"The `{arg}` argument must be a tuple of {rank} integers, each {requirement}. "
                         f"Received {arg}={value}")
    return values


def _positive(value, arg):
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"Invalid value for argument `{arg}`. Expected a strictly positive value. "
                         f"Received {arg}={value}.")
    return value


def _set_constraints(layer, **constraints):
    """The layer's weight constraints as attributes (`kernel_constraint` ...), as Keras objects."""
    for arg, value in constraints.items():
        setattr(layer, arg, _constraints.get(value))


def transpose_output_length(size, kernel, stride, padding, output_padding, dilation):
    """Length of one spatial axis after a transposed convolution (`size` an int, a scalar tensor or None)."""
    if size is None:
        return None
    kernel = (kernel - 1) * dilation + 1
    if padding == "valid":
        extra = max(kernel, stride) - kernel if output_padding is None else output_padding
        return (size - 1) * stride + kernel + extra
    if output_padding is None:
        return size * stride
    return (size - 1) * stride + kernel % 2 + output_padding


def _as_image(inputs, rank):
    """A rank-1 layer's `(batch, steps, channels)` as a height-1 image; rank-2 inputs unchanged."""
    return tf.expand_dims(inputs, 1) if rank == 1 else inputs


def _from_image(outputs, rank):
    return tf.squeeze(outputs, [1]) if rank == 1 else outputs


def _as_2d(values, rank, fill):
    """Per-axis arguments of a rank-1 layer for the height-1 axis (`fill`) and the steps axis."""
    return (fill,) + tuple(values) if rank == 1 else tuple(values)


class _ConvTranspose(Layer):
    """Transposed convolution over `rank` spatial axes (the gradient of a convolution w.r.t. its input)."""

    rank = None

    def __init__(self, filters, kernel_size, strides=1, padding="valid", output_padding=None, data_format=None,
                 dilation_rate=1, activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, **kwargs):
        super().__init__(**kwargs)
        _set_constraints(self, kernel_constraint=kernel_constraint, bias_constraint=bias_constraint)
        rank = self.rank
        self.filters = _positive(filters, "filters")
        self.kernel_size = _tuple(kernel_size, rank, "kernel_size")
        self.strides = _tuple(strides, rank, "strides")
        self.padding = _padding(padding)
        self.output_padding = None if output_padding is None else _tuple(output_padding, rank, "output_padding",
                                                                         allow_zero=True)
        self.data_format = _channels_last(data_format)
        self.dilation_rate = _tuple(dilation_rate, rank, "dilation_rate")
        if self.output_padding is not None:
            for axis, (extra, stride) in enumerate(zip(self.output_padding, self.strides)):
                if extra >= stride:
                    raise ValueError(f"`output_padding` must be strictly less than `strides` for all dimensions. "
                                     f"At dimension {axis}, `output_padding` is {extra} but `strides` is "
                                     f"{stride}. Received: output_padding={self.output_padding}, "
                                     f"strides={self.strides}")
        check_strides_and_dilation(self.strides, self.dilation_rate)
        self.activation = _activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = _initializers.get(kernel_initializer)
        self.bias_initializer = _initializers.get(bias_initializer)
        self.kernel_regularizer = _regularizers.get(kernel_regularizer)
        self.bias_regularizer = _regularizers.get(bias_regularizer)

    def build(self, input_shape):
        channels = channel_dim(input_shape)
        self.kernel = self.add_weight(shape=self.kernel_size + (self.filters, channels),
                                      initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint, name="kernel")
        self.bias = self.add_weight(shape=(self.filters,), initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                                    name="bias") if self.use_bias else None

    def _spatial_lengths(self, sizes):
        output_padding = self.output_padding or (None,) * self.rank
        return [transpose_output_length(size, k, s, self.padding, extra, d) for size, k, s, extra, d in
                zip(sizes, self.kernel_size, self.strides, output_padding, self.dilation_rate)]

    def call(self, inputs):
        sizes = inputs.shape.as_list()
        if None in sizes:
            dynamic = tf.shape(inputs)
            sizes = [dynamic[i] if size is None else size for i, size in enumerate(sizes)]
        image_shape = [sizes[0], *_as_2d(self._spatial_lengths(sizes[1:-1]), self.rank, 1), self.filters]
        dynamic_shape = any(isinstance(size, tf.Tensor) for size in image_shape)
        if dynamic_shape:
            image_shape = tf.stack([tf.cast(size, tf.int32) for size in image_shape])
        kernel = tf.expand_dims(self.kernel, 0) if self.rank == 1 else self.kernel
        x = tf.nn.conv2d_transpose(_as_image(inputs, self.rank), kernel, image_shape,
                                   strides=_as_2d(self.strides, self.rank, 1), padding=self.padding.upper(),
                                   dilations=_as_2d(self.dilation_rate, self.rank, 1))
        x = _from_image(x, self.rank)
        if dynamic_shape:  # the sizes known statically are lost in a computed output shape
            x = tf.ensure_shape(x, self.compute_output_shape(inputs.shape.as_list()))
        if self.bias is not None:
            x = _bias.add(x, self.bias)
        return self.activation(x)

    def compute_output_shape(self, input_shape):
        input_shape = tuple(input_shape)
        return (input_shape[0],) + tuple(self._spatial_lengths(input_shape[1:-1])) + (self.filters,)


class Conv1DTranspose(_ConvTranspose):
    """Transposed 1-D convolution over `(batch, steps, channels)`; kernel `(kernel_size, filters, channels)`."""

    rank = 1


class Conv2DTranspose(_ConvTranspose):
    """Transposed 2-D convolution over `(batch, height, width, channels)`; kernel
    `(kh, kw, filters, channels)`."""

    rank = 2

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", output_padding=None,
                 data_format=None, dilation_rate=(1, 1), **kwargs):
        super().__init__(filters, kernel_size, strides=strides, padding=padding, output_padding=output_padding,
                         data_format=data_format, dilation_rate=dilation_rate, **kwargs)


class _SeparableConv(Layer):
    """A depthwise convolution (`depth_multiplier` filters per input channel) followed by a pointwise (1×1)
    convolution mixing the resulting channels into `filters`, plus bias and activation."""

    rank = None

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None, dilation_rate=1,
                 depth_multiplier=1, activation=None, use_bias=True, depthwise_initializer="glorot_uniform",
                 pointwise_initializer="glorot_uniform", bias_initializer="zeros", depthwise_regularizer=None,
                 pointwise_regularizer=None, bias_regularizer=None, depthwise_constraint=None,
                 pointwise_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(**kwargs)
        _set_constraints(self, depthwise_constraint=depthwise_constraint, pointwise_constraint=pointwise_constraint,
                         bias_constraint=bias_constraint)
        rank = self.rank
        self.depth_multiplier = _positive(depth_multiplier, "depth_multiplier")
        self.filters = _positive(filters, "filters")
        self.kernel_size = _tuple(kernel_size, rank, "kernel_size")
        self.strides = _tuple(strides, rank, "strides")
        self.padding = _padding(padding)
        self.data_format = _channels_last(data_format)
        self.dilation_rate = _tuple(dilation_rate, rank, "dilation_rate")
        # Keras emulates this combination by decomposing the depthwise convolution; tensorflux does not.
        check_strides_and_dilation(self.strides, self.dilation_rate)
        self.activation = _activations.get(activation)
        self.use_bias = use_bias
        self.depthwise_initializer = _initializers.get(depthwise_initializer)
        self.pointwise_initializer = _initializers.get(pointwise_initializer)
        self.bias_initializer = _initializers.get(bias_initializer)
        self.depthwise_regularizer = _regularizers.get(depthwise_regularizer)
        self.pointwise_regularizer = _regularizers.get(pointwise_regularizer)
        self.bias_regularizer = _regularizers.get(bias_regularizer)

    def build(self, input_shape):
        channels = channel_dim(input_shape)
        self.depthwise_kernel = self.add_weight(shape=self.kernel_size + (channels, self.depth_multiplier),
                                                initializer=self.depthwise_initializer,
                                                regularizer=self.depthwise_regularizer,
                                                constraint=self.depthwise_constraint, name="depthwise_kernel")
        self.pointwise_kernel = self.add_weight(shape=(1,) * self.rank + (channels * self.depth_multiplier,
                                                                          self.filters),
                                                initializer=self.pointwise_initializer,
                                                regularizer=self.pointwise_regularizer,
                                                constraint=self.pointwise_constraint, name="pointwise_kernel")
        self.bias = self.add_weight(shape=(self.filters,), initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                                    name="bias") if self.use_bias else None

    def call(self, inputs):
        depthwise, pointwise = self.depthwise_kernel, self.pointwise_kernel
        if self.rank == 1:
            depthwise, pointwise = tf.expand_dims(depthwise, 0), tf.expand_dims(pointwise, 0)
        x = tf.nn.separable_conv2d(_as_image(inputs, self.rank), depthwise, pointwise,
                                   strides=(1,) + _as_2d(self.strides, self.rank, 1) + (1,),
                                   padding=self.padding.upper(), dilations=_as_2d(self.dilation_rate, self.rank, 1))
        x = _from_image(x, self.rank)
        if self.bias is not None:
            x = _bias.add(x, self.bias)
        return self.activation(x)

    def compute_output_shape(self, input_shape):
        input_shape = tuple(input_shape)
        spatial = tuple(_window_output(size, k, s, self.padding, d) for size, k, s, d in
                        zip(input_shape[1:-1], self.kernel_size, self.strides, self.dilation_rate))
        return (input_shape[0],) + spatial + (self.filters,)


class SeparableConv1D(_SeparableConv):
    """Separable 1-D convolution: depthwise kernel `(k, channels, depth_multiplier)`, pointwise kernel
    `(1, channels * depth_multiplier, filters)`, bias `(filters,)`."""

    rank = 1


class SeparableConv2D(_SeparableConv):
    """Separable 2-D convolution: depthwise kernel `(kh, kw, channels, depth_multiplier)`, pointwise kernel
    `(1, 1, channels * depth_multiplier, filters)`, bias `(filters,)`."""

    rank = 2

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", data_format=None,
                 dilation_rate=(1, 1), **kwargs):
        super().__init__(filters, kernel_size, strides=strides, padding=padding, data_format=data_format,
                         dilation_rate=dilation_rate, **kwargs)


SeparableConvolution1D, SeparableConvolution2D = SeparableConv1D, SeparableConv2D
Convolution1DTranspose, Convolution2DTranspose = Conv1DTranspose, Conv2DTranspose

API = {"keras.layers": ["Conv1DTranspose", "Conv2DTranspose", "SeparableConv1D", "SeparableConv2D",
                        "Convolution1DTranspose", "Convolution2DTranspose", "SeparableConvolution1D",
                        "SeparableConvolution2D"]}
