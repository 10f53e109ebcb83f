"""Image augmentation layers: RandomFlip, RandomRotation, RandomZoom, RandomTranslation, RandomContrast,
RandomBrightness, RandomCrop, RandomShear, RandomErasing, RandomPerspective, and the legacy tf.keras RandomHeight and RandomWidth.

Each draws its random numbers as Keras 3 on TensorFlow does: the layer holds a seed stream (Keras'
SeedGenerator: an int64 state `[seed, n]` whose value seeds one stateless draw and whose `n` then advances;
`seed=None` picks a random seed), and every draw is `tf.random.stateless_uniform` with that state taken
modulo 2**31 - 2 as an int32 seed. So with a seed, the flips, angles and zooms are TensorFlow's. The state
is a variable, so the layers draw fresh values at every call in eager code, inside `tf.function` and in
`Dataset.map`. With `training=False` a layer returns its input (as float32). Geometric layers warp with
`keras.ops.image.affine_transform` (TensorFlow's projective-transform convention; edge pixels may differ
slightly from TensorFlow's kernel in the "reflect"/"wrap" fill modes). Images are channels_last or
channels_first, batched (rank 4) or single (rank 3).
"""
import math
import random as _python_random

import tensorflux as tf

from . import core as _layers
from .layer import Layer
from .preprocessing_encoding import _base_config

_INT32_SEED_MODULUS = 2 ** 31 - 2       # Keras' TensorFlow backend folds the int64 state into int32 seeds
_FILL_MODES = ("reflect", "wrap", "constant", "nearest")
_INTERPOLATIONS = ("nearest", "bilinear")


class _SeedStream:
    """Keras' SeedGenerator: `next()` gives the current `[seed, n]` state and advances `n`."""

    def __init__(self, seed):
        seed = _python_random.randint(1, int(1e9)) if seed is None else seed
        if not isinstance(seed, int):
            raise ValueError(f"Argument `seed` must be an integer. Received: seed={seed}")
        self.state = tf.Variable([seed, 0], dtype=tf.int64, trainable=False, name="seed_generator_state")

    def next(self):
        value = tf.identity(self.state.read_value())
        self.state.assign_add(tf.constant([0, 1], tf.int64))
        return tf.cast(tf.math.floormod(value, _INT32_SEED_MODULUS), tf.int32)

    def uniform(self, shape, minval=0.0, maxval=1.0):
        return tf.random.stateless_uniform(shape, seed=self.next(), minval=minval, maxval=maxval, dtype=tf.float32)


def _symmetric_range(factor, bounds, message):
    """(lower, upper) from a number (±|factor| clipped to `bounds`) or a pair (sorted)."""
    if isinstance(factor, (tuple, list)):
        if len(factor) != 2 or factor[0] > bounds[1] or factor[1] < bounds[0]:
            raise ValueError(message)
        return tuple(sorted(factor))
    if isinstance(factor, (int, float)):
        if not bounds[0] <= factor <= bounds[1]:
            raise ValueError(message)
        factor = abs(factor)
        return (max(-factor, bounds[0]), factor)
    raise ValueError(message)


class _ImageAugmentation(Layer):
    """A random image transformation drawn per image when training, the identity otherwise."""

    _allow_non_tensor_positional_args = True     # a Keras data layer: Python values are accepted
    _FACTOR_BOUNDS = (-1, 1)

    def __init__(self, seed=None, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.seed = seed
        self.generator = _SeedStream(seed)
        self.data_format = _layers._channels_last(data_format)

    def _set_factor(self, factor):
        low, high = self._FACTOR_BOUNDS
        self.factor = _symmetric_range(factor, self._FACTOR_BOUNDS, (
            f"The `factor` argument should be a number (or a list of two numbers) in the range [{low}, {high}]. "
            f"Received: factor={factor}"))

    def _axes(self, rank):
        """(height axis, width axis) of images of `rank`."""
        return (-2, -1) if self.data_format == "channels_first" else (-3, -2)

    def call(self, inputs, training=True):
        if isinstance(inputs, dict):      # Keras' {"images": ..., "labels": ...} form
            others = sorted(set(inputs) - {"images", "labels"})
            if others:
                raise NotImplementedError(f"{type(self).__name__} in tensorflux transforms 'images' and passes "
                                          f"'labels' through; it does not transform {others} (bounding boxes and "
                                          f"segmentation masks are not supported yet).")
            outputs = {key: tf.convert_to_tensor(value) for key, value in inputs.items()}
            outputs["images"] = self._call_images(inputs["images"], training)
            return outputs
        return self._call_images(inputs, training)

    def _call_images(self, inputs, training):
        images = tf.cast(tf.convert_to_tensor(inputs) if not tf.is_tensor(inputs) else inputs, tf.float32)
        rank = images.shape.rank
        if rank not in (3, 4):
            raise ValueError(f"Expected image tensor to have rank 3 (single image) or 4 (batch of images). "
                             f"Received: data.shape={tuple(images.shape.as_list())}")
        if not training:
            return images
        batched = images if rank == 4 else tf.expand_dims(images, 0)
        outputs = self._augment(batched)
        return outputs if rank == 4 else tf.squeeze(outputs, 0)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def _batch_size(self, images):
        size = images.shape[0]
        return size if size is not None else tf.shape(images)[0]

    def _spatial_size(self, images):
        height_axis, width_axis = self._axes(4)
        shape = images.shape.as_list()
        dynamic = tf.shape(images)
        height = shape[height_axis] if shape[height_axis] is not None else dynamic[height_axis]
        width = shape[width_axis] if shape[width_axis] is not None else dynamic[width_axis]
        return height, width

    def _config(self, **entries):
        return {**_base_config(self), "data_format": self.data_format, **entries}


class RandomFlip(_ImageAugmentation):
    """Flips each image left-right and/or upside down with probability 1/2 (one coin per image for both)."""

    def __init__(self, mode="horizontal_and_vertical", seed=None, data_format=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        if mode not in ("horizontal", "vertical", "horizontal_and_vertical"):
            raise ValueError(f"RandomFlip layer {self.name} received an unknown mode argument {mode}")
        self.mode = mode

    def _augment(self, images):
        flips = self.generator.uniform(tf.stack([self._batch_size(images), 1, 1, 1])) <= 0.5
        height_axis, width_axis = self._axes(4)
        if self.mode in ("horizontal", "horizontal_and_vertical"):
            images = tf.where(flips, tf.reverse(images, [width_axis % 4]), images)
        if self.mode in ("vertical", "horizontal_and_vertical"):
            images = tf.where(flips, tf.reverse(images, [height_axis % 4]), images)
        return images

    def get_config(self):
        return {**self._config(), "seed": self.seed, "mode": self.mode}


def _check_warp_options(fill_mode, interpolation):
    if fill_mode not in _FILL_MODES:
        raise NotImplementedError(f"Unknown `fill_mode` {fill_mode}. Expected of one {_FILL_MODES}.")
    if interpolation not in _INTERPOLATIONS:
        raise NotImplementedError(f"Unknown `interpolation` {interpolation}. Expected of one {_INTERPOLATIONS}.")


class _Warp(_ImageAugmentation):
    """A random affine warp per image, sampled with `interpolation` and filled as `fill_mode` says."""

    def __init__(self, fill_mode="reflect", interpolation="bilinear", seed=None, fill_value=0.0, data_format=None,
                 **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        _check_warp_options(fill_mode, interpolation)
        self.fill_mode, self.interpolation, self.fill_value = fill_mode, interpolation, fill_value

    def _warp(self, images, transform):
        return tf.keras.ops.image.affine_transform(images, transform, interpolation=self.interpolation,
                                                   fill_mode=self.fill_mode, fill_value=self.fill_value,
                                                   data_format=self.data_format)


class RandomRotation(_Warp):
    """Rotates each image about its centre by a random fraction of a full turn in `factor`'s range."""

    def __init__(self, factor, fill_mode="reflect", interpolation="bilinear", seed=None, fill_value=0.0,
                 data_format=None, **kwargs):
        super().__init__(fill_mode, interpolation, seed, fill_value, data_format, **kwargs)
        self._set_factor(factor)

    def _augment(self, images):
        batch = self._batch_size(images)
        height, width = self._spatial_size(images)
        angle = self.generator.uniform(tf.reshape(batch, [1]) if tf.is_tensor(batch) else [batch],
                                       self.factor[0] * 360.0, self.factor[1] * 360.0)
        angle = angle * (math.pi / 180.0)
        # Keras' affine matrix (output -> input point) for a rotation about the pixel centre.
        cx = 0.5 * (tf.cast(width, tf.float32) - 1)
        cy = 0.5 * (tf.cast(height, tf.float32) - 1)
        cos, sin = tf.cos(angle), tf.sin(angle)
        a0, a1, b0, b1 = cos, -sin, sin, cos
        a2 = cx - cx * a0 - cy * a1
        b2 = cy - cx * b0 - cy * b1
        zeros = tf.zeros_like(angle)
        transform = tf.stack([a0, a1, a2, b0, b1, b2, zeros, zeros], axis=1)
        return self._warp(images, transform)

    def get_config(self):
        return {**self._config(), "factor": self.factor, "fill_mode": self.fill_mode,
                "fill_value": self.fill_value, "interpolation": self.interpolation, "seed": self.seed}


def _factor_pair(factor, name, strict_lower):
    message = (f"The `{name}` argument should be a number (or a list of two numbers) in the range [-1.0, 1.0]. "
               f"Received: {name}={factor}")
    values = factor if isinstance(factor, (tuple, list)) else [factor]
    if not isinstance(factor, (tuple, list, int, float)) or (isinstance(factor, (tuple, list)) and len(factor) != 2):
        raise ValueError(message)
    for v in values:
        if v > 1.0 or (v <= -1.0 if strict_lower else v < -1.0):
            raise ValueError(message)
    if isinstance(factor, (tuple, list)):
        return tuple(sorted(factor))
    return (-abs(factor), abs(factor))


class RandomZoom(_Warp):
    """Zooms each image about its centre: heights scaled by 1 + a draw from `height_factor`'s range (a
    positive factor zooms out), widths likewise (by the height's draw when `width_factor` is None)."""

    def __init__(self, height_factor, width_factor=None, fill_mode="reflect", interpolation="bilinear", seed=None,
                 fill_value=0.0, data_format=None, **kwargs):
        super().__init__(fill_mode, interpolation, seed, fill_value, data_format, **kwargs)
        self.height_factor, self.width_factor = height_factor, width_factor
        self.height_lower, self.height_upper = _factor_pair(height_factor, "height_factor", True)
        if width_factor is not None:
            self.width_lower, self.width_upper = _factor_pair(width_factor, "width_factor", True)

    def _augment(self, images):
        shape = tf.stack([self._batch_size(images), 1])
        height_zoom = self.generator.uniform(shape, 1.0 + self.height_lower, 1.0 + self.height_upper)
        width_zoom = height_zoom if self.width_factor is None else \
            self.generator.uniform(shape, 1.0 + self.width_lower, 1.0 + self.width_upper)
        height, width = self._spatial_size(images)
        x_offset = (tf.cast(width, tf.float32) - 1.0) / 2.0 * (1.0 - width_zoom)
        y_offset = (tf.cast(height, tf.float32) - 1.0) / 2.0 * (1.0 - height_zoom)
        zeros = tf.zeros_like(width_zoom)
        transform = tf.concat([width_zoom, zeros, x_offset, zeros, height_zoom, y_offset, zeros, zeros], axis=1)
        return self._warp(images, transform)

    def get_config(self):
        return {**_base_config(self), "data_format": self.data_format, "height_factor": self.height_factor,
                "width_factor": self.width_factor, "fill_mode": self.fill_mode, "interpolation": self.interpolation,
                "seed": self.seed, "fill_value": self.fill_value}


class RandomTranslation(_Warp):
    """Shifts each image by a random fraction of its height and of its width (the factors' ranges)."""

    def __init__(self, height_factor, width_factor, fill_mode="reflect", interpolation="bilinear", seed=None,
                 fill_value=0.0, data_format=None, **kwargs):
        super().__init__(fill_mode, interpolation, seed, fill_value, data_format, **kwargs)
        self.height_factor, self.width_factor = height_factor, width_factor
        self.height_lower, self.height_upper = _factor_pair(height_factor, "height_factor", False)
        self.width_lower, self.width_upper = _factor_pair(width_factor, "width_factor", False)

    def _augment(self, images):
        shape = tf.stack([self._batch_size(images), 1])
        height, width = self._spatial_size(images)
        dy = self.generator.uniform(shape, self.height_lower, self.height_upper) * tf.cast(height, tf.float32)
        dx = self.generator.uniform(shape, self.width_lower, self.width_upper) * tf.cast(width, tf.float32)
        ones, zeros = tf.ones_like(dx), tf.zeros_like(dx)
        transform = tf.concat([ones, zeros, -dx, zeros, ones, -dy, zeros, zeros], axis=1)
        return self._warp(images, transform)

    def get_config(self):
        return {**self._config(), "height_factor": self.height_factor, "width_factor": self.width_factor,
                "fill_mode": self.fill_mode, "interpolation": self.interpolation, "seed": self.seed,
                "fill_value": self.fill_value}


class RandomContrast(_ImageAugmentation):
    """Scales each image's deviation from its per-channel mean by a factor drawn from
    [1 - lower, 1 + upper], then clips to `value_range`."""

    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor, value_range=(0, 255), seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        self._set_factor(factor)
        self.value_range = value_range

    def _augment(self, images):
        factor = self.generator.uniform(tf.stack([self._batch_size(images), 1, 1, 1]), 1.0 - self.factor[0],
                                        1.0 + self.factor[1])
        height_axis, width_axis = self._axes(4)
        mean = tf.reduce_mean(tf.reduce_mean(images, axis=height_axis, keepdims=True), axis=width_axis,
                              keepdims=True)
        outputs = (images - mean) * factor + mean
        return tf.clip_by_value(outputs, self.value_range[0], self.value_range[1])

    def get_config(self):
        return {**self._config(), "factor": self.factor, "value_range": self.value_range, "seed": self.seed}


class RandomBrightness(_ImageAugmentation):
    """Adds to each image a random delta, a fraction (in `factor`'s range) of `value_range`'s span, then
    clips to `value_range`."""

    def __init__(self, factor, value_range=(0, 255), seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        self._set_factor(factor)
        if not isinstance(value_range, (tuple, list)) or len(value_range) != 2:
            raise ValueError(f"The `value_range` argument should be a list of two numbers. Received: "
                             f"value_range={value_range}")
        self.value_range = sorted(value_range)

    def _augment(self, images):
        delta = self.generator.uniform(tf.stack([self._batch_size(images), 1, 1, 1]), self.factor[0], self.factor[1])
        images = images + delta * (self.value_range[1] - self.value_range[0])
        return tf.clip_by_value(images, self.value_range[0], self.value_range[1])

    def get_config(self):
        return {**self._config(), "factor": self.factor, "value_range": self.value_range, "seed": self.seed}


class RandomCrop(_ImageAugmentation):
    """Crops one random (`height`, `width`) window (the same for the whole batch) when training; an image
    not larger than the window on both sides, or any image at inference, is instead cropped to the window's
    aspect ratio about its centre and resized to (`height`, `width`)."""

    def __init__(self, height, width, seed=None, data_format=None, name=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, name=name, **kwargs)
        self.seed = seed if seed is not None else _python_random.randint(1, int(1e9))   # Keras writes one
        self.height, self.width = height, width

    def _call_images(self, inputs, training):
        images = tf.cast(tf.convert_to_tensor(inputs) if not tf.is_tensor(inputs) else inputs, tf.float32)
        rank = images.shape.rank
        if rank not in (3, 4):
            raise ValueError(f"Expected image tensor to have rank 3 (single image) or 4 (batch of images). "
                             f"Received: data.shape={tuple(images.shape.as_list())}")
        height_axis, width_axis = self._axes(rank)
        in_height, in_width = images.shape[height_axis], images.shape[width_axis]
        if in_height is None or in_width is None:
            raise ValueError(f"RandomCrop requires the input to have a fully defined height and width. "
                             f"Received: images.shape={tuple(images.shape.as_list())}")
        # The window is drawn only when training on images larger than it; otherwise it is the centred box.
        if training and in_height > self.height and in_width > self.width:
            top = tf.cast(self.generator.uniform([], 0.0, float(in_height - self.height + 1)), tf.int32)
            left = tf.cast(self.generator.uniform([], 0.0, float(in_width - self.width + 1)), tf.int32)
        else:   # Keras starts the (height, width) window at the corner of the centred aspect-ratio box
            crop_height = max(min(in_height, int(float(in_width * self.height) / self.width)), 1)
            crop_width = max(min(in_width, int(float(in_height * self.width) / self.height)), 1)
            top, left = int(float(in_height - crop_height) / 2), int(float(in_width - crop_width) / 2)
        if not training:
            return images
        cropped = (min(self.height, in_height - top), min(self.width, in_width - left)) \
            if isinstance(top, int) else (self.height, self.width)
        # one Slice whose size is static (as Keras' slice): the result's height and width are known even
        # when the window's corner is drawn
        begin, size = [0] * rank, [-1] * rank
        begin[height_axis % rank], begin[width_axis % rank] = top, left
        size[height_axis % rank], size[width_axis % rank] = cropped
        images = tf.slice(images, tf.stack(begin) if tf.is_tensor(top) else begin, size)
        if cropped != (self.height, self.width):
            images = tf.keras.ops.image.resize(images, (self.height, self.width), data_format=self.data_format)
        return images

    def compute_output_shape(self, input_shape):
        shape = list(input_shape)
        height_axis, width_axis = self._axes(len(shape))
        shape[height_axis], shape[width_axis] = self.height, self.width
        return tuple(shape)

    def get_config(self):
        return {**self._config(), "height": self.height, "width": self.width, "seed": self.seed}


class RandomShear(_Warp):
    """Shears each image along x and y by amounts drawn from `x_factor`'s and `y_factor`'s ranges (one
    random sign per image for both)."""

    def __init__(self, x_factor=0.0, y_factor=0.0, interpolation="bilinear", fill_mode="reflect", fill_value=0.0,
                 data_format=None, seed=None, **kwargs):
        super().__init__(fill_mode, interpolation, seed, fill_value, data_format, **kwargs)
        self.x_factor = self._shear_range(x_factor, "x_factor")
        self.y_factor = self._shear_range(y_factor, "y_factor")

    @staticmethod
    def _shear_range(factor, name):
        message = (f"The `factor` argument should be a number (or a list of two numbers) in the range [0, 1.0]. "
                   f"Received: {name}={factor}")
        values = factor if isinstance(factor, (tuple, list)) else [factor]
        if not isinstance(factor, (tuple, list, int, float)) or (isinstance(factor, (tuple, list)) and len(factor) != 2) \
                or any(not 0.0 <= v <= 1.0 for v in values):
            raise ValueError(message)
        return tuple(sorted(factor)) if isinstance(factor, (tuple, list)) else (-abs(factor), abs(factor))

    def _augment(self, images):
        shape = tf.stack([self._batch_size(images), 1])
        sign = self.generator.uniform(shape, 0.0, 1.0)
        sign = tf.where(sign > 0.5, -tf.ones_like(sign), tf.ones_like(sign))
        shear_y = self.generator.uniform(shape, self.y_factor[0], self.y_factor[1]) * sign
        shear_x = self.generator.uniform(shape, self.x_factor[0], self.x_factor[1]) * sign
        ones, zeros = tf.ones_like(sign), tf.zeros_like(sign)
        transform = tf.concat([ones, shear_x, zeros, shear_y, ones, zeros, zeros, zeros], axis=1)
        return self._warp(images, transform)

    def get_config(self):
        return {**_base_config(self), "data_format": self.data_format, "x_factor": self.x_factor,
                "y_factor": self.y_factor, "fill_mode": self.fill_mode, "interpolation": self.interpolation,
                "seed": self.seed, "fill_value": self.fill_value}


class RandomErasing(_ImageAugmentation):
    """Erases (fills) one random box per image, with a probability drawn from `factor`'s range; box sides
    are sqrt(a draw from `scale`'s range) of the image's; the fill is `fill_value` or Gaussian noise scaled
    by `value_range[1]`, clipped to `value_range`."""

    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor=1.0, scale=(0.02, 0.33), fill_value=None, value_range=(0, 255), seed=None,
                 data_format=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self._set_factor(factor)
        low, high = self._FACTOR_BOUNDS
        self.scale = _symmetric_range(scale, self._FACTOR_BOUNDS, (
            f"The `scale` argument should be a number (or a list of two numbers) in the range [{low}, {high}]. "
            f"Received: factor={scale}"))
        if fill_value is not None and not isinstance(fill_value, (int, float)) and \
                not (isinstance(fill_value, (tuple, list)) and len(fill_value) == 3):
            raise ValueError("The `fill_value` argument should be a number (or a list of three numbers) ")
        self.fill_value = fill_value
        self.value_range = value_range

    def _bounds(self, batch, length, ratio):
        size = ratio * tf.cast(length, tf.float32)
        start = self.generator.uniform(tf.reshape(batch, [1]), 0.0, 1.0) * (tf.cast(length, tf.float32) - size)
        return tf.reshape(start, [-1, 1, 1, 1]), tf.reshape(start + size, [-1, 1, 1, 1])

    def _augment(self, images):
        batch = self._batch_size(images)
        height, width = self._spatial_size(images)
        ratios = tf.sqrt(self.generator.uniform(tf.stack([batch, 2]), self.scale[0], self.scale[1]))
        x0, x1 = self._bounds(batch, width, ratios[:, 0])
        y0, y1 = self._bounds(batch, height, ratios[:, 1])
        ys, xs = tf.meshgrid(tf.range(height, dtype=tf.float32), tf.range(width, dtype=tf.float32), indexing="ij")
        grid = [1, height, width, 1] if self.data_format == "channels_last" else [1, 1, height, width]
        xs, ys = tf.reshape(xs, grid), tf.reshape(ys, grid)
        inside = (xs >= x0) & (xs < x1) & (ys >= y0) & (ys < y1)
        probability = self.generator.uniform(tf.reshape(batch, [1]), self.factor[0], self.factor[1])
        threshold = self.generator.uniform(tf.reshape(batch, [1]), 0.0, 1.0)
        apply = tf.reshape(threshold < probability, [-1, 1, 1, 1])
        if self.fill_value is None:
            fill = tf.random.stateless_normal(tf.shape(images), seed=self.generator.next()) * self.value_range[1]
        else:
            fill = tf.ones_like(images) * tf.constant(self.fill_value, tf.float32)
        fill = tf.clip_by_value(fill, self.value_range[0], self.value_range[1])
        erased = tf.where(inside & tf.ones_like(images, tf.bool), fill, images)
        return tf.where(apply, erased, images)

    def get_config(self):
        return {**self._config(), "factor": self.factor, "scale": self.scale, "fill_value": self.fill_value,
                "value_range": self.value_range, "seed": self.seed}


def _homography(start, end):
    """The 8 projective-transform numbers mapping each of the 4 `end` points ([batch, 4, 2]) to its
    `start` point, solved as Keras' TensorFlow backend solves them (one 8x8 system per image)."""
    rows, targets = [], []
    for i in range(4):
        sx, sy, ex, ey = start[:, i, 0], start[:, i, 1], end[:, i, 0], end[:, i, 1]
        zeros, ones = tf.zeros_like(ex), tf.ones_like(ex)
        rows.append(tf.stack([ex, ey, ones, zeros, zeros, zeros, -sx * ex, -sx * ey], axis=-1))
        rows.append(tf.stack([zeros, zeros, zeros, ex, ey, ones, -sy * ex, -sy * ey], axis=-1))
        targets += [sx, sy]
    solution = tf.linalg.solve(tf.stack(rows, axis=1), tf.expand_dims(tf.stack(targets, axis=-1), -1))
    return tf.reshape(solution, [-1, 8])


class RandomPerspective(_Warp):
    """Moves each image's corners by random fractions (up to `scale / 2`) of their coordinates and warps the
    image accordingly, with a probability drawn from `factor`'s range; uncovered pixels get `fill_value`."""

    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor=1.0, scale=1.0, interpolation="bilinear", fill_value=0.0, seed=None, data_format=None,
                 **kwargs):
        if interpolation not in _INTERPOLATIONS:
            raise NotImplementedError(f"Unknown `interpolation` {interpolation}. Expected of one {_INTERPOLATIONS}.")
        super().__init__("constant", interpolation, seed, fill_value, data_format, **kwargs)
        self._set_factor(factor)
        if scale < 0.0 or scale > 1.0:
            raise ValueError(f"The `scale` argument should be a number in the range [0,1]. Received: scale={scale}")
        self.scale = scale

    def _augment(self, images):
        batch = self._batch_size(images)
        height, width = self._spatial_size(images)
        probability = self.generator.uniform(tf.reshape(batch, [1]), self.factor[0], self.factor[1])
        threshold = self.generator.uniform(tf.reshape(batch, [1]), 0.0, 1.0)
        moves = self.generator.uniform(tf.stack([batch, 4, 2]), -0.5 * self.scale, 0.5 * self.scale)
        w, h = float(width - 1), float(height - 1)
        start = tf.tile(tf.constant([[[0.0, 0.0], [w, 0.0], [0.0, h], [w, h]]], tf.float32), tf.stack([batch, 1, 1]))
        warped = self._warp(images, _homography(start, start + start * moves))
        return tf.where(tf.reshape(threshold < probability, [-1, 1, 1, 1]), warped, images)

    def get_config(self):
        return {**self._config(), "factor": self.factor, "scale": self.scale, "interpolation": self.interpolation,
                "fill_value": self.fill_value, "seed": self.seed}


class _RandomResize(Layer):
    """TensorFlow's legacy tf.keras RandomHeight / RandomWidth: resizes a batch along one axis (channels
    last, axis -3 or -2) by a factor 1 + a draw from `factor`'s range, the same for the whole batch."""

    _allow_non_tensor_positional_args = True     # a Keras data layer: Python values are accepted
    _AXIS = None

    def __init__(self, factor, interpolation="bilinear", seed=None, **kwargs):
        super().__init__(**kwargs)
        self.generator = _SeedStream(seed)
        self.factor = factor
        lower, upper = (factor[0], factor[1]) if isinstance(factor, (tuple, list)) else (-factor, factor)
        if upper < lower:
            raise ValueError(f"`factor` argument cannot have an upper bound lesser than the lower bound. Received: "
                             f"factor={factor}")
        if lower < -1.0 or upper < -1.0:
            raise ValueError(f"`factor` argument must have values larger than -1. Received: factor={factor}")
        self.lower, self.upper = lower, upper
        self.interpolation = interpolation
        self.seed = seed

    def call(self, inputs, training=True):
        images = tf.cast(tf.convert_to_tensor(inputs) if not tf.is_tensor(inputs) else inputs, tf.float32)
        if not training:
            return images
        shape = tf.shape(images)
        scale = self.generator.uniform([], 1.0 + self.lower, 1.0 + self.upper)
        size = [shape[-3], shape[-2]]
        size[self._AXIS + 3] = tf.cast(scale * tf.cast(shape[self._AXIS], tf.float32), tf.int32)
        outputs = tf.image.resize(images, tf.stack(size), method=self.interpolation)
        static = images.shape.as_list()
        static[self._AXIS] = None
        outputs.set_shape(static)
        return outputs

    def compute_output_shape(self, input_shape):
        shape = list(input_shape)
        shape[self._AXIS] = None
        return tuple(shape)

    def get_config(self):
        return {**_base_config(self), "factor": self.factor, "interpolation": self.interpolation, "seed": self.seed}


class RandomHeight(_RandomResize):
    """Resizes the images' height by a random factor (TensorFlow's legacy tf.keras layer)."""

    _AXIS = -3


class RandomWidth(_RandomResize):
    """Resizes the images' width by a random factor (TensorFlow's legacy tf.keras layer)."""

    _AXIS = -2


API = {"keras.layers": ["RandomFlip", "RandomRotation", "RandomZoom", "RandomTranslation", "RandomContrast",
                        "RandomBrightness", "RandomCrop", "RandomShear", "RandomErasing", "RandomPerspective", "RandomHeight",
                        "RandomWidth"]}
