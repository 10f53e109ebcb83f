"""Reshaping, 1-D pooling, noise and wrapper layers: RepeatVector, Permute, UpSampling1D/2D, ZeroPadding1D/2D,
Cropping1D/2D, Identity, MaxPooling1D, AveragePooling1D, GaussianNoise, GaussianDropout, SpatialDropout1D/2D
and TimeDistributed.

Inputs are channels_last (another `data_format` is refused). The noise layers act only when called with
`training=True` (as inside `fit`) and pass inputs through otherwise; given a `seed`, a fresh layer draws the
same noise sequence every time, each call drawing new values. TimeDistributed folds the time axis into the
batch, so a wrapped layer that computes batch statistics (BatchNormalization while training) sees all steps
at once, where Keras 3 normalizes each step separately.
"""
import math

import tensorflux as tf

from . import core as _layers
from .layer import Layer


def _positive_int(value, arg):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"Expected an integer value for `{arg}`, got {type(value)}.")
    if value <= 0:
        raise ValueError(f"Argument `{arg}` should be a positive integer. Received: {arg}={value}")
    return value


def _int_tuple(value, count, arg, minimum):
    """`value` (an int, or `count` ints) as a tuple of `count` ints that are all at least `minimum`."""
    values = (value,) * count if isinstance(value, int) else tuple(value) if isinstance(value, (list, tuple)) \
        else None
    if values is None or len(values) != count or not all(isinstance(v, int) and not isinstance(v, bool)
                                                          for v in values):
        raise ValueError(f"The `{arg}` argument must be a tuple of {count} integers. Received {arg}={value}")
    if any(v < minimum for v in values):
        raise ValueError(f"The `{arg}` argument must be a tuple of {count} integers of at least {minimum}. "
                         f"Received {arg}={value}")
    return values


def _spatial_pairs(value, arg):
    """A 2-D layer's `padding`/`cropping`: an int, (rows, cols), or ((top, bottom), (left, right))."""
    if isinstance(value, int):
        value = (value, value)
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise ValueError(f"`{arg}` should have two elements. Received: {arg}={value}.")
    return tuple(_int_tuple(v, 2, arg, 0) for v in value)


def _check_rank(input_shape, rank, layer):
    if len(input_shape) != rank:
        raise ValueError(f"Input 0 of layer '{layer.name}' is incompatible with the layer: expected ndim={rank}, "
                         f"found ndim={len(input_shape)}. Full shape received: {tuple(input_shape)}")


def _dims(tensor):
    """The tensor's dimensions: ints where statically known, scalar tensors elsewhere."""
    dynamic = None
    dims = []
    for i, d in enumerate(tensor.shape.as_list()):
        if d is None:
            dynamic = tf.shape(tensor) if dynamic is None else dynamic
            d = dynamic[i]
        dims.append(d)
    return dims


def _reshape(tensor, dims):
    """tf.reshape to `dims` (ints, -1 or scalar tensors) keeping the int entries as the static shape."""
    if all(isinstance(d, int) for d in dims):
        return tf.reshape(tensor, dims)
    out = tf.reshape(tensor, tf.stack(dims))
    out.set_shape([d if isinstance(d, int) and d >= 0 else None for d in dims])
    return out


def _scaled(size, factor):
    return None if size is None else size * factor


class RepeatVector(Layer):
    """Repeats a `(batch, features)` input `n` times: `(batch, n, features)`."""

    def __init__(self, n, **kwargs):
        super().__init__(**kwargs)
        self.n = _positive_int(n, "n")

    def build(self, input_shape):
        _check_rank(input_shape, 2, self)

    def call(self, inputs):
        return tf.repeat(tf.expand_dims(inputs, 1), self.n, axis=1)

    def compute_output_shape(self, input_shape):
        return (input_shape[0], self.n, input_shape[1])


class Permute(Layer):
    """Permutes the non-batch axes: `dims` lists them (numbered from 1) in their new order."""

    def __init__(self, dims, **kwargs):
        super().__init__(**kwargs)
        self.dims = tuple(dims)
        if sorted(self.dims) != list(range(1, len(self.dims) + 1)):
            raise ValueError(f"Invalid permutation argument `dims` for Permute Layer. The set of indices in `dims` "
                             f"must be consecutive and start from 1. Received dims={dims}")

    def build(self, input_shape):
        _check_rank(input_shape, len(self.dims) + 1, self)

    def call(self, inputs):
        return tf.transpose(inputs, (0,) + self.dims)

    def compute_output_shape(self, input_shape):
        return (input_shape[0],) + tuple(input_shape[d] for d in self.dims)


class UpSampling1D(Layer):
    """Repeats each step of a `(batch, steps, features)` input `size` times."""

    def __init__(self, size=2, **kwargs):
        super().__init__(**kwargs)
        self.size = _positive_int(size, "size")

    def call(self, inputs):
        return tf.repeat(inputs, self.size, axis=1)

    def compute_output_shape(self, input_shape):
        return (input_shape[0], _scaled(input_shape[1], self.size), input_shape[2])


_RESIZE_METHODS = ("bilinear", "nearest", "lanczos3", "lanczos5", "bicubic", "area")


def _resize_method(interpolation):
    if interpolation not in _RESIZE_METHODS:
        raise ValueError(f"Invalid value for argument `interpolation`. Expected of one {_RESIZE_METHODS}. "
                         f"Received: interpolation={interpolation}")
    return interpolation


class UpSampling2D(Layer):
    """Enlarges images `size` = (rows, cols) times: repeating pixels ("nearest") or resampling them with
    tf.image.resize's `interpolation` method."""

    def __init__(self, size=(2, 2), data_format=None, interpolation="nearest", **kwargs):
        super().__init__(**kwargs)
        self.size = _int_tuple(size, 2, "size", 1)
        self.data_format = _layers._channels_last(data_format)
        self.interpolation = _resize_method(interpolation)

    def call(self, inputs):
        if self.interpolation == "nearest":
            return tf.repeat(tf.repeat(inputs, self.size[0], axis=1), self.size[1], axis=2)
        height, width = _dims(inputs)[1:3]
        new_size = [height * self.size[0], width * self.size[1]]
        if not all(isinstance(d, int) for d in new_size):
            new_size = tf.stack(new_size)
        return tf.image.resize(inputs, new_size, method=self.interpolation)

    def compute_output_shape(self, input_shape):
        batch, height, width, channels = input_shape
        return (batch, _scaled(height, self.size[0]), _scaled(width, self.size[1]), channels)


class ZeroPadding1D(Layer):
    """Adds `padding` zero steps at the start and end (an int, or (start, end)) of `(batch, steps, features)`."""

    def __init__(self, padding=1, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.padding = _int_tuple(padding, 2, "padding", 0)
        self.data_format = _layers._channels_last(data_format)

    def call(self, inputs):
        return tf.pad(inputs, [[0, 0], list(self.padding), [0, 0]])

    def compute_output_shape(self, input_shape):
        steps = input_shape[1]
        return (input_shape[0], None if steps is None else steps + sum(self.padding), input_shape[2])


class ZeroPadding2D(Layer):
    """Adds zero rows and columns around images: `padding` is an int, (rows, cols) for both sides, or
    ((top, bottom), (left, right))."""

    def __init__(self, padding=(1, 1), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.padding = _spatial_pairs(padding, "padding")
        self.data_format = _layers._channels_last(data_format)

    def call(self, inputs):
        return tf.pad(inputs, [[0, 0], list(self.padding[0]), list(self.padding[1]), [0, 0]])

    def compute_output_shape(self, input_shape):
        batch, height, width, channels = input_shape
        return (batch, None if height is None else height + sum(self.padding[0]),
                None if width is None else width + sum(self.padding[1]), channels)


def _cropped(size, cropping, layer, input_shape):
    if size is None:
        return None
    if sum(cropping) >= size:
        raise ValueError(f"`cropping` parameter of `{type(layer).__name__}` layer must be smaller than the "
                         f"input size. Received: input_shape={tuple(input_shape)}, cropping={layer.cropping}")
    return size - sum(cropping)


class Cropping1D(Layer):
    """Removes `cropping` = (start, end) steps (an int crops both ends) from `(batch, steps, features)`."""

    def __init__(self, cropping=(1, 1), **kwargs):
        super().__init__(**kwargs)
        self.cropping = _int_tuple(cropping, 2, "cropping", 0)

    def call(self, inputs):
        self.compute_output_shape(inputs.shape.as_list())  # validates the cropping against known sizes
        start, end = self.cropping
        return inputs[:, start:_dims(inputs)[1] - end]

    def compute_output_shape(self, input_shape):
        return (input_shape[0], _cropped(input_shape[1], self.cropping, self, input_shape), input_shape[2])


class Cropping2D(Layer):
    """Removes rows and columns at the borders of images: `cropping` is an int, (rows, cols) for both sides,
    or ((top, bottom), (left, right))."""

    def __init__(self, cropping=((0, 0), (0, 0)), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.cropping = _spatial_pairs(cropping, "cropping")
        self.data_format = _layers._channels_last(data_format)

    def call(self, inputs):
        self.compute_output_shape(inputs.shape.as_list())  # validates the cropping against known sizes
        (top, bottom), (left, right) = self.cropping
        height, width = _dims(inputs)[1:3]
        return inputs[:, top:height - bottom, left:width - right]

    def compute_output_shape(self, input_shape):
        batch, height, width, channels = input_shape
        return (batch, _cropped(height, self.cropping[0], self, input_shape),
                _cropped(width, self.cropping[1], self, input_shape), channels)


class Identity(Layer):
    """Returns its input unchanged."""

    def call(self, inputs):
        return inputs

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)


class _Pooling1D(Layer):
    """Pools windows of `pool_size` steps, `strides` apart (default: `pool_size`), over `(batch, steps, features)`."""

    def __init__(self, pool_size, strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.pool_size = _int_tuple(pool_size, 1, "pool_size", 1)
        self.strides = self.pool_size if strides is None else _int_tuple(strides, 1, "strides", 1)
        self.padding = _layers._padding(padding)
        self.data_format = _layers._channels_last(data_format)

    def call(self, inputs):
        return self._pool(inputs, self.pool_size, self.strides, self.padding.upper())

    def compute_output_shape(self, input_shape):
        steps = _layers._window_output(input_shape[1], self.pool_size[0], self.strides[0], self.padding)
        return (input_shape[0], steps, input_shape[2])


class MaxPooling1D(_Pooling1D):
    def __init__(self, pool_size=2, strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)

    @staticmethod
    def _pool(*args):
        return tf.nn.max_pool1d(*args)


class AveragePooling1D(_Pooling1D):
    """With "same" padding each window averages only the steps inside the input."""

    def __init__(self, pool_size, strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)

    @staticmethod
    def _pool(*args):
        return tf.nn.avg_pool1d(*args)


MaxPool1D = MaxPooling1D
AvgPool1D = AveragePooling1D


def _rate(rate):
    if not 0 <= rate <= 1:
        raise ValueError(f"Invalid value received for argument `rate`. Expected a float value between 0 and 1. "
                         f"Received: rate={rate}")
    return rate


class _RandomLayer(Layer):
    """A layer drawing random numbers: from tf.random's global stream, or from its own generator when given a
    `seed` (so a fresh layer with that seed repeats the same sequence, also inside tf.function)."""

    def __init__(self, seed=None, **kwargs):
        super().__init__(**kwargs)
        if seed is not None and not isinstance(seed, int):
            raise ValueError(f"Argument `seed` must be an integer or None. Received: seed={seed}")
        self.seed = seed
        self._generator = None if seed is None else tf.random.Generator.from_seed(seed)

    def _normal(self, shape, mean, stddev):
        if self._generator is None:
            return tf.random.normal(shape, mean, stddev)
        return self._generator.normal(shape, mean, stddev)

    def _uniform(self, shape):
        if self._generator is None:
            return tf.random.uniform(shape)
        return self._generator.uniform(shape)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)


class GaussianNoise(_RandomLayer):
    """Adds zero-centred Gaussian noise of standard deviation `stddev` while training."""

    def __init__(self, stddev, seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        if not 0 <= stddev <= 1:
            raise ValueError(f"Invalid value received for argument `stddev`. Expected a float value between 0 and "
                             f"1. Received: stddev={stddev}")
        self.stddev = stddev

    def call(self, inputs, training=None):
        if not training or self.stddev == 0:
            return inputs
        return inputs + self._normal(tf.shape(inputs), 0.0, self.stddev)


class GaussianDropout(_RandomLayer):
    """Multiplies inputs by Gaussian noise of mean 1 and standard deviation `sqrt(rate / (1 - rate))` while
    training (rate=1 fails at that division, as in Keras)."""

    def __init__(self, rate, seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        self.rate = _rate(rate)

    def call(self, inputs, training=None):
        if not training or self.rate == 0:
            return inputs
        return inputs * self._normal(tf.shape(inputs), 1.0, math.sqrt(self.rate / (1.0 - self.rate)))


class _SpatialDropout(_RandomLayer):
    """Dropout of whole feature maps: one keep/drop draw per (example, channel), shared over the other axes;
    kept values are scaled by 1 / (1 - rate)."""

    _rank = None

    def __init__(self, rate, seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        self.rate = _rate(rate)

    def build(self, input_shape):
        _check_rank(input_shape, self._rank, self)

    def call(self, inputs, training=None):
        if not training or self.rate == 0:
            return inputs
        if self.rate == 1:
            return tf.zeros_like(inputs)
        shape = tf.shape(inputs)
        noise_shape = tf.concat([shape[:1], tf.ones([self._rank - 2], tf.int32), shape[-1:]], 0)
        keep = tf.cast(self._uniform(noise_shape) >= self.rate, inputs.dtype)
        return inputs * keep / (1.0 - self.rate)


class SpatialDropout1D(_SpatialDropout):
    _rank = 3


class SpatialDropout2D(_SpatialDropout):
    _rank = 4

    def __init__(self, rate, data_format=None, seed=None, **kwargs):
        super().__init__(rate, seed=seed, **kwargs)
        self.data_format = _layers._channels_last(data_format)


class TimeDistributed(Layer):
    """Applies `layer` to every time step (axis 1) of its input: `(batch, time, ...)` is folded into
    `(batch * time, ...)` for one call of `layer`, then unfolded."""

    def __init__(self, layer, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(layer, Layer):
            raise ValueError(f"Please initialize `TimeDistributed` layer with a `keras.layers.Layer` instance. "
                             f"Received: {layer}")
        self.layer = layer

    def build(self, input_shape):
        if len(input_shape) < 3:
            raise ValueError(f"`TimeDistributed` Layer should be passed an `input_shape` with at least 3 "
                             f"dimensions, received: {tuple(input_shape)}")
        if not self.layer.built:      # as Keras: the batch size, then the step's shape
            self.layer._build_with_shape((input_shape[0],) + tuple(input_shape[2:]))

    def call(self, inputs, training=None):
        dims = _dims(inputs)
        outputs = self.layer(_reshape(inputs, [-1] + dims[2:]), training=training)
        return _reshape(outputs, dims[:2] + _dims(outputs)[1:])

    def compute_output_shape(self, input_shape):
        step_shape = self.layer.compute_output_shape((None,) + tuple(input_shape[2:]))
        return tuple(input_shape[:2]) + tuple(step_shape[1:])


API = {"keras.layers": ["RepeatVector", "Permute", "UpSampling1D", "UpSampling2D", "ZeroPadding1D", "ZeroPadding2D",
                        "Cropping1D", "Cropping2D", "Identity", "MaxPooling1D", "AveragePooling1D", "MaxPool1D",
                        "AvgPool1D", "GaussianNoise", "GaussianDropout", "SpatialDropout1D", "SpatialDropout2D",
                        "TimeDistributed"]}
