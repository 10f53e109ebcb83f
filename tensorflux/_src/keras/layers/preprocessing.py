"""Preprocessing layers: Rescaling, Normalization, Resizing and CenterCrop here; the vocabulary layers
(preprocessing_lookup, preprocessing_text), hashing (preprocessing_encoding) and image augmentation
(preprocessing_augmentation, preprocessing_color) live beside it and are exported through this module's table.

They compute in float32 (integer images too); Resizing alone gives integer inputs back in their own dtype,
rounded. Images are channels_last, batched `(batch, height, width, channels)` or single `(height, width,
channels)`. Normalization divides by `max(sqrt(variance), 1e-7)`; `adapt` replaces (never accumulates) its
statistics, which it keeps in non-trainable weights (`mean`, `variance` and Keras's unused int64 `count`)
and reads at every call, so `set_weights` takes effect at once.
"""
import numpy as np

import tensorflux as tf

from . import core as _layers
from .layer import Layer
from .reshaping import _dims, _resize_method

_EPSILON = 1e-7  # Keras's backend epsilon: the smallest standard deviation Normalization divides by


class Rescaling(Layer):
    """`inputs * scale + offset` (both may be scalars or arrays broadcasting against the inputs)."""

    _allow_non_tensor_positional_args = True     # a Keras data layer: Python values are accepted

    def __init__(self, scale, offset=0.0, **kwargs):
        super().__init__(**kwargs)
        self.scale = scale
        self.offset = offset

    def call(self, inputs):
        inputs = tf.cast(inputs, tf.float32)
        return inputs * tf.constant(self.scale, tf.float32) + tf.constant(self.offset, tf.float32)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)


class Normalization(Layer):
    """`(inputs - mean) / sqrt(variance)` per entry of the kept `axis` (an int, a tuple, or None for one
    mean over everything), with `mean` and `variance` given or learned by `adapt(data)`; `invert=True`
    maps normalized values back."""

    _allow_non_tensor_positional_args = True     # a Keras data layer: Python values are accepted

    def __init__(self, axis=-1, mean=None, variance=None, invert=False, **kwargs):
        super().__init__(**kwargs)
        if (mean is None) != (variance is None):
            raise ValueError(f"When setting values directly, both `mean` and `variance` must be set. Received: "
                             f"mean={mean} and variance={variance}")
        self.axis = () if axis is None else (axis,) if isinstance(axis, int) else tuple(axis)
        self.input_mean, self.input_variance = mean, variance
        self.invert = invert
        self._broadcast_shape = None

    def build(self, input_shape):
        rank = len(input_shape)
        if any(not -rank <= a < rank for a in self.axis):
            raise ValueError(f"All `axis` values must be in the range [-ndim, ndim). Received inputs with "
                             f"ndim={rank}, while axis={self.axis}")
        self._kept_axes = sorted({a % rank for a in self.axis})
        kept_shape = tuple(input_shape[a] for a in self._kept_axes)
        if None in kept_shape:
            raise ValueError(f"All `axis` values to be kept must have a known shape. Received axis={self.axis}, "
                             f"inputs.shape={tuple(input_shape)}")
        self._broadcast_shape = [input_shape[a] if a in self._kept_axes else 1 for a in range(rank)]
        if self.input_mean is None:
            self.adapt_mean = self.add_weight(shape=kept_shape, initializer="zeros", trainable=False, name="mean")
            self.adapt_variance = self.add_weight(shape=kept_shape, initializer="ones", trainable=False,
                                                  name="variance")
            self.add_weight(shape=(), initializer="zeros", dtype="int64", trainable=False, name="count")
        else:
            self._given_mean = self._broadcast(self.input_mean, "mean")
            self._given_variance = self._broadcast(self.input_variance, "variance")

    def _broadcast(self, value, arg):
        value = np.asarray(value, np.float32)
        try:
            return tf.constant(np.broadcast_to(value, self._broadcast_shape))
        except ValueError:
            raise ValueError(f"Argument `{arg}` of shape {value.shape} does not broadcast to the shape "
                             f"{tuple(self._broadcast_shape)} of the kept axes {self.axis}.") from None

    @property
    def mean(self):
        """The mean, shaped to broadcast against the inputs (None until the layer is built)."""
        if self._broadcast_shape is None:
            return None
        if self.input_mean is not None:
            return self._given_mean
        return tf.reshape(self.adapt_mean, self._broadcast_shape)

    @property
    def variance(self):
        if self._broadcast_shape is None:
            return None
        if self.input_variance is not None:
            return self._given_variance
        return tf.reshape(self.adapt_variance, self._broadcast_shape)

    def call(self, inputs):
        inputs = tf.cast(inputs, tf.float32)
        stddev = tf.maximum(tf.sqrt(self.variance), _EPSILON)
        if self.invert:
            return self.mean + inputs * stddev
        return (inputs - self.mean) / stddev

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def adapt(self, data):
        """Sets mean and variance to those of `data` (a NumPy array, a tensor, or a tf.data.Dataset whose
        elements, or their first entries, are batches) over every axis not kept."""
        if self.input_mean is not None:
            raise ValueError("adapt() cannot be used on a Normalization layer created with `mean` and "
                             "`variance`.")
        if isinstance(data, tf.data.Dataset):
            batches = (element[0] if isinstance(element, (tuple, list)) else element for element in data)
        elif isinstance(data, (np.ndarray, tf.Tensor, tf.Variable)):
            batches = [data]
        else:
            raise TypeError(f"adapt() expects a NumPy array, a tensor or a tf.data.Dataset. Received: data of "
                            f"type {type(data)}")
        count, mean, variance = 0, 0.0, 0.0
        for batch in batches:
            batch = np.asarray(batch, np.float64)
            self._check_adapt_shape(batch.shape)
            reduced = tuple(a for a in range(batch.ndim) if a not in self._kept_axes)
            batch_count = int(np.prod([batch.shape[a] for a in reduced]))
            batch_mean, batch_variance = batch.mean(axis=reduced), batch.var(axis=reduced)
            # Chan et al.'s pairwise combination: each part's variance about the combined mean, weighted.
            total = count + batch_count
            new_mean = mean * (count / total) + batch_mean * (batch_count / total)
            variance = ((variance + (mean - new_mean) ** 2) * (count / total)
                        + (batch_variance + (batch_mean - new_mean) ** 2) * (batch_count / total))
            count, mean = total, new_mean
        if count == 0:
            raise ValueError("adapt() received no data.")
        self.adapt_mean.assign(np.asarray(mean, np.float32))
        self.adapt_variance.assign(np.asarray(variance, np.float32))

    def _check_adapt_shape(self, shape):
        if not self.built:
            self._build_with_shape(shape)
            return
        built = self._broadcast_shape
        if len(shape) != len(built) or any(shape[a] != built[a] for a in self._kept_axes):
            raise ValueError(f"The layer was built for inputs whose kept axes {self.axis} have sizes "
                             f"{[built[a] for a in self._kept_axes]}, but adapt() is being called with data "
                             f"with an incompatible shape, data.shape={shape}")


def _crop_box(height, width, target_height, target_width):
    """(top, left, crop height, crop width) of the largest centred box shaped like the target (at least 1x1),
    with sizes truncated as Keras truncates them. Works on ints and on scalar tensors."""
    height_f, width_f = tf.cast(height, tf.float32), tf.cast(width, tf.float32)
    crop_height = tf.cast(width_f * target_height / target_width, tf.int32)
    crop_width = tf.cast(height_f * target_width / target_height, tf.int32)
    crop_height = tf.maximum(tf.minimum(height, crop_height), 1)
    crop_width = tf.maximum(tf.minimum(width, crop_width), 1)
    return (height - crop_height) // 2, (width - crop_width) // 2, crop_height, crop_width


def _resize_cropped(images, target_height, target_width, method="bilinear", antialias=False):
    """Crops the centred box with the target's aspect ratio, then resizes it to the target size."""
    height, width = _dims(images)[-3:-1]
    top, left, crop_height, crop_width = _crop_box(height, width, target_height, target_width)
    cropped = images[..., top:top + crop_height, left:left + crop_width, :]
    return tf.image.resize(cropped, [target_height, target_width], method=method, antialias=antialias)


def _image_output_shape(input_shape, height, width):
    input_shape = tuple(input_shape)
    return input_shape[:-3] + (height, width, input_shape[-1])


class Resizing(Layer):
    """Resizes images to (`height`, `width`) with tf.image.resize's `interpolation` method; with
    `crop_to_aspect_ratio=True` it first crops the centred box shaped like the target so nothing is
    distorted."""

    _allow_non_tensor_positional_args = True     # a Keras data layer: Python values are accepted

    def __init__(self, height, width, interpolation="bilinear", crop_to_aspect_ratio=False,
                 pad_to_aspect_ratio=False, fill_mode="constant", fill_value=0.0, antialias=False,
                 data_format=None, **kwargs):
        super().__init__(**kwargs)
        if pad_to_aspect_ratio:
            raise NotImplementedError("tensorflux's Resizing does not implement `pad_to_aspect_ratio=True`. "
                                      "Received: pad_to_aspect_ratio=True")
        self.height, self.width = height, width
        self.interpolation = _resize_method(interpolation)
        self.crop_to_aspect_ratio = crop_to_aspect_ratio
        self.pad_to_aspect_ratio = pad_to_aspect_ratio
        self.fill_mode, self.fill_value = fill_mode, fill_value  # used by padding only, which is refused
        self.antialias = antialias
        self.data_format = _layers._channels_last(data_format)

    def call(self, inputs):
        if self.crop_to_aspect_ratio:
            outputs = _resize_cropped(inputs, self.height, self.width, self.interpolation, self.antialias)
        else:
            outputs = tf.image.resize(inputs, [self.height, self.width], method=self.interpolation,
                                      antialias=self.antialias)
        if inputs.dtype.is_integer and outputs.dtype != inputs.dtype:
            outputs = tf.cast(tf.round(outputs), inputs.dtype)
        return outputs

    def compute_output_shape(self, input_shape):
        return _image_output_shape(input_shape, self.height, self.width)


class CenterCrop(Layer):
    """Crops the centre (`height`, `width`) of images; an image smaller than that on either side is
    instead cropped to the target's aspect ratio and resized (bilinear) to the target size."""

    _allow_non_tensor_positional_args = True     # a Keras data layer: Python values are accepted

    def __init__(self, height, width, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.height, self.width = height, width
        self.data_format = _layers._channels_last(data_format)

    def call(self, inputs):
        inputs = tf.cast(inputs, tf.float32)
        height, width = _dims(inputs)[-3:-1]
        if isinstance(height, int) and isinstance(width, int):
            fits = height >= self.height and width >= self.width
            return self._crop(inputs, height, width) if fits else self._resize(inputs)
        fits = tf.logical_and(height >= self.height, width >= self.width)
        outputs = tf.cond(fits, lambda: self._crop(inputs, height, width), lambda: self._resize(inputs))
        outputs.set_shape(_image_output_shape(inputs.shape.as_list(), self.height, self.width))
        return outputs

    def _crop(self, images, height, width):
        top, left = (height - self.height) // 2, (width - self.width) // 2
        return images[..., top:top + self.height, left:left + self.width, :]

    def _resize(self, images):
        return _resize_cropped(images, self.height, self.width)

    def compute_output_shape(self, input_shape):
        return _image_output_shape(input_shape, self.height, self.width)


# The Keras room lists this module as its preprocessing source: the layers of the sibling modules
# (split by idea) are exported through its table.
from . import preprocessing_encoding as _encoding, preprocessing_lookup as _lookup, \
    preprocessing_text as _text, preprocessing_augmentation as _augmentation, \
    preprocessing_color as _color  # noqa: E402 - re-exported

API = {"keras.layers": ["Rescaling", "Normalization", "Resizing", "CenterCrop"]}
for _module in (_encoding, _lookup, _text, _augmentation, _color):
    for _name in _module.API["keras.layers"]:
        globals()[_name] = getattr(_module, _name)
        API["keras.layers"].append(_name)
