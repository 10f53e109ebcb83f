"""`keras.layers`: the built-in layers (Dense, Conv2D, pooling, Flatten, Reshape, Dropout, Activation)."""
import inspect
import math

import tensorflux as tf

from .. import activations as _activations
from .. import bias as _bias
from .. import constraints as _constraints
from .. import initializers as _initializers
from .. import regularizers as _regularizers
from .layer import Layer


def _pair(value, arg):
    if isinstance(value, int):
        return (value, value)
    value = tuple(value)
    if len(value) != 2 or not all(isinstance(v, int) for v in value):
        raise ValueError(f"The `{arg}` argument must be a tuple of 2 integers. Received {arg}={value}")
    return value


def _padding(value):
    padding = str(value).lower()
    if padding not in ("valid", "same"):
        raise ValueError(f"The `padding` argument must be a string with one of the following values: "
                         f"valid, same. Received: padding={value}")
    return padding


def _channels_last(data_format):
    if data_format == "channels_first":
        raise NotImplementedError("tensorflux's Keras layers implement data_format='channels_last' only. "
                                  "Received: data_format=channels_first")
    if data_format not in (None, "channels_last"):
        raise ValueError(f"The `data_format` argument must be one of {{'channels_first', 'channels_last'}}. "
                         f"Received: data_format={data_format}")
    return "channels_last"


def _window_output(size, window, stride, padding, dilation=1):
    if size is None:
        return None
    if padding == "same":
        return -(-size // stride)
    effective = (window - 1) * dilation + 1
    return (size - effective) // stride + 1


def conv2d_output_shape(layer, input_shape, channels_out):
    """(batch, height, width, channels_out) after a 2-D windowed conv layer (kernel_size, strides, padding,
    dilation_rate) slides over a channels_last `input_shape`."""
    batch, height, width = input_shape[:3]
    return (batch,
            _window_output(height, layer.kernel_size[0], layer.strides[0], layer.padding, layer.dilation_rate[0]),
            _window_output(width, layer.kernel_size[1], layer.strides[1], layer.padding, layer.dilation_rate[1]),
            channels_out)


def channel_dim(input_shape):
    """The (channels-last) channel count of a convolution's input shape, which must be known."""
    channels = input_shape[-1]
    if channels is None:
        raise ValueError(f"The channel dimension of the inputs should be defined. The input_shape received is "
                         f"{input_shape}, where axis -1 (0-based) is the channel dimension, which found to be "
                         f"`None`.")
    return channels


def check_strides_and_dilation(strides, dilation_rate):
    if any(s != 1 for s in strides) and any(d != 1 for d in dilation_rate):
        raise ValueError(f"`strides > 1` not supported in conjunction with `dilation_rate > 1`. Received: "
                         f"strides={strides} and dilation_rate={dilation_rate}")

class Dense(Layer):
    """`activation(inputs @ kernel + bias)` over the last axis."""

    supports_masking = True     # masks pass through (keras.masks)

    def __init__(self, units, activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(units, int) or units <= 0:
            raise ValueError(f"Received an invalid value for `units`, expected a positive integer. "
                             f"Received: units={units}")
        self.units = units
        self.activation = _activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = _initializers.get(kernel_initializer)
        self.bias_initializer = _initializers.get(bias_initializer)
        self.kernel_regularizer = _regularizers.get(kernel_regularizer)
        self.bias_regularizer = _regularizers.get(bias_regularizer)
        self.kernel_constraint = _constraints.get(kernel_constraint)
        self.bias_constraint = _constraints.get(bias_constraint)

    def build(self, input_shape):
        input_dim = input_shape[-1]
        if input_dim is None:
            raise ValueError("The last dimension of the inputs to a Dense layer should be defined. Found None. "
                             f"Full input shape received: {input_shape}")
        self.kernel = self.add_weight(shape=(input_dim, self.units), initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer, constraint=self.kernel_constraint,
                                      name="kernel")
        self.bias = self.add_weight(shape=(self.units,), initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                                    name="bias") if self.use_bias else None

    def call(self, inputs):
        if inputs.shape.rank == 2:
            x = tf.matmul(inputs, self.kernel)
        else:
            x = tf.tensordot(inputs, self.kernel, [[inputs.shape.rank - 1], [0]])
        if self.bias is not None:
            x = _bias.add(x, self.bias)
        return self.activation(x)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)[:-1] + (self.units,)


class Flatten(Layer):
    """Reshapes `(batch, d1, d2, ...)` to `(batch, d1 * d2 * ...)`."""

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = _channels_last(data_format)

    def call(self, inputs):
        dims = inputs.shape.as_list()[1:] if inputs.shape.rank is not None else [None]
        if inputs.shape.rank == 1:
            return tf.expand_dims(inputs, 1)
        if None in dims:
            return tf.reshape(inputs, tf.stack([tf.shape(inputs)[0], -1]))
        return tf.reshape(inputs, [-1, math.prod(dims)])

    def compute_output_shape(self, input_shape):
        rest = tuple(input_shape)[1:]
        return (input_shape[0], None if None in rest else math.prod(rest))


class Reshape(Layer):
    """Reshapes the non-batch dimensions to `target_shape` (one entry may be -1)."""

    def __init__(self, target_shape, **kwargs):
        super().__init__(**kwargs)
        self.target_shape = tuple(target_shape)

    def call(self, inputs):
        batch = inputs.shape[0]
        if batch is None:
            if -1 not in self.target_shape:     # -1 for the batch keeps the other dimensions static
                return tf.reshape(inputs, (-1,) + self.target_shape)
            outputs = tf.reshape(inputs, tf.concat([tf.shape(inputs)[:1], self.target_shape], 0))
            outputs.set_shape(self.compute_output_shape(tuple(inputs.shape.as_list())))
            return outputs
        return tf.reshape(inputs, (batch,) + self.target_shape)

    def compute_output_shape(self, input_shape):
        target = list(self.target_shape)
        if -1 in target:
            rest = tuple(input_shape)[1:]
            known = math.prod(d for d in target if d != -1)
            target[target.index(-1)] = None if None in rest else math.prod(rest) // known
        return (input_shape[0],) + tuple(target)


class Dropout(Layer):
    """Zeroes a fraction `rate` of the inputs while training (scaling the rest by 1 / (1 - rate))."""

    supports_masking = True     # masks pass through (keras.masks)

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        if not 0 <= rate <= 1:
            raise ValueError(f"Invalid value received for argument `rate`. Expected a float value between 0 and "
                             f"1. Received: rate={rate}")
        self.rate = rate
        self.noise_shape = noise_shape
        self.seed = seed

    def call(self, inputs, training=False):
        if not training or self.rate == 0:
            return inputs
        if self.rate == 1:
            return tf.zeros_like(inputs)
        return tf.nn.dropout(inputs, self.rate, noise_shape=self.noise_shape, seed=self.seed)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)


class Activation(Layer):
    supports_masking = True     # masks pass through (keras.masks)

    def __init__(self, activation, **kwargs):
        super().__init__(**kwargs)
        self.activation = _activations.get(activation)

    def call(self, inputs):
        return self.activation(inputs)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)


# Keras 3's wording (a behaviour fact: the message users search for).
LAMBDA_SAFE_MODE_MESSAGE = (
    "Requested the deserialization of a `Lambda` layer whose `function` is a Python lambda. This carries a "
    "potential risk of arbitrary code execution and thus it is disallowed by default. If you trust the source "
    "of the artifact, you can override this error by passing `safe_mode=False` to the loading function, or "
    "calling `keras.config.enable_unsafe_deserialization().")


def refuse_python_bytecode(safe_mode):
    """Raises for a serialised Python lambda (bytecode in a config): Keras's message in safe mode; without
    it, tensorflux still refuses (files are data, never code)."""
    if safe_mode:
        raise ValueError(LAMBDA_SAFE_MODE_MESSAGE)
    raise ValueError("This config holds a Python lambda as bytecode. tensorflux never runs code from a file, "
                     "even with `safe_mode=False`: define the function in your program, register it with "
                     "`@keras.saving.register_keras_serializable()` or pass it in `custom_objects`, and save "
                     "the model again.")


class Lambda(Layer):
    """`function(inputs, **arguments)` as a layer without weights of its own (a functional model's glue:
    `Lambda(lambda t: tf.reduce_mean(t, axis=1))(x)`). A `training` parameter of the function gets the flag."""

    def __init__(self, function, output_shape=None, mask=None, arguments=None, **kwargs):
        super().__init__(**kwargs)
        if not callable(function):
            raise ValueError(f"Argument `function` of Lambda must be callable. Received: function={function!r}")
        if mask is not None:
            raise ValueError("tensorflux's Keras layers do not support masks (`mask=`).")
        self.function = function
        self.arguments = dict(arguments or {})
        self._declared_output_shape = output_shape
        try:
            self._takes_training = "training" in inspect.signature(function).parameters
        except (TypeError, ValueError):
            self._takes_training = False

    @classmethod
    def from_config(cls, config, custom_objects=None, safe_mode=None):
        """A Lambda from its config. A function carried as Python bytecode (Keras's `"__lambda__"` form) is
        refused: with Keras's message in safe mode (the default), and by tensorflux always, since a file
        never supplies code (saving.serialization applies the same rule to whole configs)."""
        function = config.get("function")
        if isinstance(function, dict) and function.get("class_name") == "__lambda__":
            refuse_python_bytecode(safe_mode is not False)
        return cls(**config)

    def call(self, inputs, training=None):
        if self._takes_training:
            return self.function(inputs, training=training, **self.arguments)
        return self.function(inputs, **self.arguments)

    def compute_output_shape(self, input_shape):
        declared = self._declared_output_shape
        if declared is None:
            raise NotImplementedError("Lambda: pass `output_shape` to know the output shape without calling it.")
        if callable(declared):
            return tuple(declared(input_shape))
        return (tuple(input_shape)[0],) + tuple(declared)


class Conv2D(Layer):
    """2-D convolution over `(batch, height, width, channels)` inputs, plus bias and activation."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", data_format=None,
                 dilation_rate=(1, 1), groups=1, activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros", kernel_regularizer=None,
                 bias_regularizer=None, kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(**kwargs)
        self.kernel_constraint = _constraints.get(kernel_constraint)
        self.bias_constraint = _constraints.get(bias_constraint)
        if not isinstance(filters, int) or filters <= 0:
            raise ValueError(f"Invalid value for argument `filters`. Expected a strictly positive value. "
                             f"Received filters={filters}.")
        if groups != 1:
            raise ValueError(f"tensorflux's Conv2D supports groups=1 only. Received: groups={groups}")
        self.filters = filters
        self.kernel_size = _pair(kernel_size, "kernel_size")
        self.strides = _pair(strides, "strides")
        self.dilation_rate = _pair(dilation_rate, "dilation_rate")
        check_strides_and_dilation(self.strides, self.dilation_rate)
        self.padding = _padding(padding)
        self.data_format = _channels_last(data_format)
        self.activation = _activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = _initializers.get(kernel_initializer)
        self.bias_initializer = _initializers.get(bias_initializer)
        self.kernel_regularizer = _regularizers.get(kernel_regularizer)
        self.bias_regularizer = _regularizers.get(bias_regularizer)

    def build(self, input_shape):
        channels = channel_dim(input_shape)
        self.kernel = self.add_weight(shape=self.kernel_size + (channels, self.filters),
                                      initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint, name="kernel")
        self.bias = self.add_weight(shape=(self.filters,), initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                                    name="bias") if self.use_bias else None

    def call(self, inputs):
        x = tf.nn.conv2d(inputs, self.kernel, self.strides, self.padding.upper(), dilations=self.dilation_rate)
        if self.bias is not None:
            x = _bias.add(x, self.bias)
        return self.activation(x)

    def compute_output_shape(self, input_shape):
        return conv2d_output_shape(self, input_shape, self.filters)


class _Pooling2D(Layer):
    _pool = None

    def __init__(self, pool_size=(2, 2), strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.pool_size = _pair(pool_size, "pool_size")
        self.strides = self.pool_size if strides is None else _pair(strides, "strides")
        self.padding = _padding(padding)
        self.data_format = _channels_last(data_format)

    def call(self, inputs):
        return type(self)._pool(inputs, self.pool_size, self.strides, self.padding.upper())

    def compute_output_shape(self, input_shape):
        batch, height, width, channels = input_shape
        return (batch, _window_output(height, self.pool_size[0], self.strides[0], self.padding),
                _window_output(width, self.pool_size[1], self.strides[1], self.padding), channels)


class MaxPooling2D(_Pooling2D):
    @staticmethod
    def _pool(*args):
        return tf.nn.max_pool2d(*args)


class AveragePooling2D(_Pooling2D):
    # Keras' average pooling takes no default window (its max pooling does)
    def __init__(self, pool_size, strides=None, padding="valid", data_format=None, name=None, **kwargs):
        super().__init__(pool_size, strides, padding, data_format, name=name, **kwargs)

    @staticmethod
    def _pool(*args):
        return tf.nn.avg_pool2d(*args)


MaxPool2D = MaxPooling2D
AvgPool2D = AveragePooling2D

API = {"keras.layers": ["Layer", "Dense", "Flatten", "Reshape", "Dropout", "Activation", "Lambda", "Conv2D",
                        "MaxPooling2D", "AveragePooling2D", "MaxPool2D", "AvgPool2D"]}
