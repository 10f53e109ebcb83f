"""Colour preprocessing layers: Solarization, RandomGrayscale, AutoContrast, Equalization, RandomInvert,
RandomPosterization, RandomColorDegeneration, RandomSaturation, RandomHue, RandomSharpness, RandomGaussianBlur and RandomColorJitter.

As in Keras 3, pixel values are read in `value_range` (default (0, 255)) and mapped to [0, 255] for the
computation; outputs are float32. Random draws come from the layer's Keras SeedGenerator stream (see
preprocessing_augmentation), so seeded outputs equal Keras-on-TensorFlow's. AutoContrast and Equalization
are not random and apply at inference too (Equalization only when training, as Keras); Solarization and
RandomGrayscale return their input (as float32) when `training=False`.
"""
import tensorflux as tf

from .preprocessing_augmentation import RandomBrightness, RandomContrast, _ImageAugmentation, _symmetric_range

_GRAY_WEIGHTS = (0.2989, 0.5870, 0.1140)    # ITU-R 601 luma, tf.image.rgb_to_grayscale's weights
_EPSILON = 1e-7                             # Keras' backend epsilon


def _checked_value_range(value_range):
    if not isinstance(value_range, (tuple, list)) or len(value_range) != 2:
        raise ValueError(f"The `value_range` argument should be a list of two numbers. Received: "
                         f"value_range={value_range}")
    return sorted(value_range)


def _rescale(images, source, target):
    """`images` mapped linearly from the `source` range onto the `target` range."""
    if tuple(source) == tuple(target):
        return images
    return (images - source[0]) / (source[1] - source[0]) * (target[1] - target[0]) + target[0]


class Solarization(_ImageAugmentation):
    """Adds a random amount to each image, then inverts (255 - x) the pixels at or above a random threshold."""

    def __init__(self, addition_factor=0.0, threshold_factor=0.0, value_range=(0, 255), seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        self.addition_factor = self._factor(addition_factor, "addition_factor")
        self.threshold_factor = self._factor(threshold_factor, "threshold_factor")
        self.value_range = _checked_value_range(value_range)

    @staticmethod
    def _factor(factor, name):
        message = (f"The `addition_factor` and `threshold_factor` arguments should be a number (or a list of two "
                   f"numbers) in the range [0, 1]. Received: {name}={factor}")
        values = factor if isinstance(factor, (tuple, list)) else [factor]
        if not isinstance(factor, (tuple, list, int, float)) or len(values) not in (1, 2) or \
                (isinstance(factor, (tuple, list)) and len(values) != 2) or any(not 0 <= v <= 1 for v in values):
            raise ValueError(message)
        return tuple(sorted(factor)) if isinstance(factor, (tuple, list)) else (0, factor)

    def _augment(self, images):
        shape = tf.stack([self._batch_size(images), 1, 1, 1])
        # Keras scales only the upper end of each range by 255.
        additions = self.generator.uniform(shape, self.addition_factor[0], self.addition_factor[1] * 255)
        thresholds = self.generator.uniform(shape, self.threshold_factor[0], self.threshold_factor[1] * 255)
        images = _rescale(images, self.value_range, (0, 255))
        results = tf.clip_by_value(images + additions, 0, 255)
        results = tf.where(results < thresholds, results, 255 - results)
        return _rescale(results, (0, 255), self.value_range)

    def get_config(self):
        return {**self._config(), "value_range": self.value_range, "addition_factor": self.addition_factor,
                "threshold_factor": self.threshold_factor, "seed": self.seed}


def _grayscale(images, channels_axis):
    weights = tf.constant(_GRAY_WEIGHTS, tf.float32)
    return tf.expand_dims(tf.tensordot(images, weights, axes=[[channels_axis % 4], [0]]), channels_axis)


class RandomGrayscale(_ImageAugmentation):
    """Turns each image to grayscale (kept as 3 equal channels) with probability `factor`."""

    def __init__(self, factor=0.5, data_format=None, seed=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        if factor < 0 or factor > 1:
            raise ValueError(f"`factor` should be between 0 and 1. Received: factor={factor}")
        self.factor = factor

    def _augment(self, images):
        channels_axis = -3 if self.data_format == "channels_first" else -1
        if images.shape[channels_axis] not in (1, 3):
            raise ValueError(f"Invalid channel size: expected 3 (RGB) or 1 (Grayscale). Received input with shape: "
                             f"images.shape={tuple(images.shape.as_list())}")
        draws = self.generator.uniform(tf.reshape(self._batch_size(images), [1]), 0.0, 1.0)
        apply = tf.reshape(draws < self.factor, [-1, 1, 1, 1])
        gray = images if images.shape[channels_axis] == 1 else _grayscale(images, channels_axis)
        return tf.where(apply, gray, images)

    def get_config(self):
        return {**self._config(), "factor": self.factor}


class AutoContrast(_ImageAugmentation):
    """Stretches each image channel so that its darkest pixel becomes 0 and its brightest 255 (in
    `value_range`'s scale); a flat channel is left as it is."""

    def __init__(self, value_range=(0, 255), **kwargs):
        super().__init__(**kwargs)
        self.value_range = _checked_value_range(value_range)

    def _call_images(self, inputs, training):
        return super()._call_images(inputs, True)      # not random: Keras applies it at inference too

    def _augment(self, images):
        original = images
        images = _rescale(images, self.value_range, (0, 255))
        low = tf.reduce_min(images, axis=(1, 2), keepdims=True)
        high = tf.reduce_max(images, axis=(1, 2), keepdims=True)
        scale = 255.0 / (high - low)
        results = tf.clip_by_value(images * scale - low * scale, 0.0, 255.0)
        results = _rescale(results, (0, 255), self.value_range)
        return tf.where(tf.math.is_nan(results), original, results)

    def get_config(self):
        return {**self._config(), "value_range": self.value_range}


class Equalization(_ImageAugmentation):
    """Histogram equalization of each channel, with one histogram of `bins` bins over the whole batch."""

    def __init__(self, value_range=(0, 255), bins=256, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.bins = bins
        self.value_range = _checked_value_range(value_range)

    def _equalize(self, channel):
        full = (0, 255)
        channel = _rescale(channel, self.value_range, full)
        bins = self.bins
        indices = tf.clip_by_value(tf.cast(channel * (bins - 1) / 255.0, tf.int32), 0, bins - 1)
        histogram = tf.math.bincount(tf.reshape(indices, [-1]), minlength=bins, maxlength=bins)
        cdf = tf.cumsum(histogram)
        cdf_min = tf.reduce_min(tf.where(cdf > 0, cdf, tf.reduce_max(cdf)))    # the first nonzero entry
        denominator = cdf[-1] - cdf_min
        denominator = tf.where(denominator == 0, tf.ones_like(denominator), denominator)
        table = tf.clip_by_value(tf.round(tf.cast(cdf - cdf_min, tf.float32) * 255.0
                                          / tf.cast(denominator, tf.float32)), 0, 255)
        lookup = tf.cast(tf.clip_by_value(channel / 255.0 * (bins - 1), 0, bins - 1), tf.int32)
        flat = tf.math.count_nonzero(histogram) <= 1
        equalized = tf.where(flat, channel, tf.gather(table, lookup))
        return _rescale(equalized, full, self.value_range)

    def _augment(self, images):
        channels_axis = 1 if self.data_format == "channels_first" else 3
        channels = tf.unstack(images, axis=channels_axis)
        return tf.stack([self._equalize(c) for c in channels], axis=channels_axis)

    def get_config(self):
        return {**self._config(), "bins": self.bins, "value_range": self.value_range}


def _batch_shape(layer, images, *trailing):
    return tf.stack([layer._batch_size(images), *trailing]) if trailing else \
        tf.reshape(layer._batch_size(images), [1])


class RandomInvert(_ImageAugmentation):
    """Inverts each image (`value_range[1] - x`) when a uniform draw falls below an inversion probability
    drawn from `factor`'s range."""

    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor=1.0, value_range=(0, 255), seed=None, data_format=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self._set_factor(factor)
        self.value_range = value_range

    def _augment(self, images):
        probability = self.generator.uniform(_batch_shape(self, images), self.factor[0], self.factor[1])
        threshold = self.generator.uniform(_batch_shape(self, images), 0.0, 1.0)
        apply = tf.reshape(threshold < probability, [-1, 1, 1, 1])
        return tf.where(apply, self.value_range[1] - images, images)

    def get_config(self):
        return {**self._config(), "factor": self.factor, "value_range": self.value_range, "seed": self.seed}


class RandomPosterization(_ImageAugmentation):
    """Keeps only the top `bits` bits of each 8-bit pixel value, `bits` drawn per image from `factor`'s range
    (1 to 8)."""

    _FACTOR_BOUNDS = (1, 8)

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self._set_factor(factor)
        self.value_range = _checked_value_range(value_range)

    def _augment(self, images):
        shape = _batch_shape(self, images)
        if self.factor[0] != self.factor[1]:
            bits = tf.random.stateless_uniform(shape, seed=self.generator.next(), minval=self.factor[0],
                                               maxval=self.factor[1], dtype=tf.int64)
        else:
            bits = tf.fill(shape, tf.constant(self.factor[0], tf.int64))
        shift = tf.reshape(tf.cast(8 - bits, tf.uint8), [-1, 1, 1, 1])
        pixels = tf.cast(_rescale(images, self.value_range, (0, 255)), tf.uint8)
        pixels = tf.bitwise.left_shift(tf.bitwise.right_shift(pixels, shift), shift)
        return _rescale(tf.cast(pixels, tf.float32), (0, 255), self.value_range)

    def get_config(self):
        return {**self._config(), "factor": self.factor, "value_range": self.value_range, "seed": self.seed}


class RandomColorDegeneration(_ImageAugmentation):
    """Blends each image towards its grayscale version by a factor drawn from `factor`'s range."""

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self._set_factor(factor)
        self.value_range = _checked_value_range(value_range)

    def _augment(self, images):
        factor = self.generator.uniform(_batch_shape(self, images, 1, 1, 1), self.factor[0], self.factor[1])
        gray = _grayscale(images, -3 if self.data_format == "channels_first" else -1)
        images = images + factor * (gray - images)
        return tf.clip_by_value(images, self.value_range[0], self.value_range[1])

    def get_config(self):
        return {**self._config(), "factor": self.factor, "value_range": self.value_range, "seed": self.seed}


def _channels_last(layer, images):
    return tf.transpose(images, [0, 2, 3, 1]) if layer.data_format == "channels_first" else images


def _channels_back(layer, images):
    return tf.transpose(images, [0, 3, 1, 2]) if layer.data_format == "channels_first" else images


class RandomSaturation(_ImageAugmentation):
    """Scales each image's HSV saturation by u / (1 - u), u drawn from `factor`'s range (clipped to
    `value_range`, as Keras clips it)."""

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self._set_factor(factor)
        self.value_range = _checked_value_range(value_range)

    def _augment(self, images):
        draw = self.generator.uniform(_batch_shape(self, images), self.factor[0], self.factor[1])
        factor = tf.reshape(draw / (1 - draw + _EPSILON), [-1, 1, 1])
        hsv = tf.image.rgb_to_hsv(_channels_last(self, images))
        saturation = tf.clip_by_value(hsv[..., 1] * factor, self.value_range[0], self.value_range[1])
        hsv = tf.stack([hsv[..., 0], saturation, hsv[..., 2]], axis=-1)
        return _channels_back(self, tf.image.hsv_to_rgb(hsv))

    def get_config(self):
        return {**self._config(), "factor": self.factor, "value_range": self.value_range, "seed": self.seed}


class RandomHue(_ImageAugmentation):
    """Rotates each image's hue by half a draw from `factor`'s range, in a random direction."""

    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self._set_factor(factor)
        self.value_range = value_range

    def _augment(self, images):
        direction = self.generator.uniform(_batch_shape(self, images), 0.0, 1.0)
        direction = tf.where(direction > 0.5, -tf.ones_like(direction), tf.ones_like(direction))
        amount = self.generator.uniform(_batch_shape(self, images), self.factor[0], self.factor[1])
        shift = tf.reshape(direction * amount * 0.5, [-1, 1, 1])
        hsv = tf.image.rgb_to_hsv(_channels_last(self, _rescale(images, self.value_range, (0, 1))))
        hue = hsv[..., 0] + shift
        hue = tf.where(hue > 1.0, hue - 1.0, hue)
        hue = tf.where(hue < 0.0, hue + 1.0, hue)
        rgb = tf.clip_by_value(tf.image.hsv_to_rgb(tf.stack([hue, hsv[..., 1], hsv[..., 2]], axis=-1)), 0, 1)
        return _channels_back(self, _rescale(rgb, (0, 1), self.value_range))

    def get_config(self):
        return {**self._config(), "factor": self.factor, "value_range": self.value_range, "seed": self.seed}


class RandomSharpness(_ImageAugmentation):
    """Blends each image with a 3x3-smoothed copy of itself by 1 - 2u, u drawn from `factor`'s range (u > 0.5
    sharpens)."""

    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self._set_factor(factor)
        self.value_range = _checked_value_range(value_range)

    def _augment(self, images):
        draw = self.generator.uniform(_batch_shape(self, images), self.factor[0], self.factor[1])
        sharpness = tf.reshape(draw * 2, [-1, 1, 1, 1])
        images = _channels_last(self, images)
        a, b = 1.0 / 13.0, 5.0 / 13.0
        kernel = tf.tile(tf.reshape(tf.constant([[a, a, a], [a, b, a], [a, a, a]], tf.float32), [3, 3, 1, 1]),
                         [1, 1, images.shape[-1], 1])
        smoothed = tf.nn.depthwise_conv2d(images, kernel, [1, 1, 1, 1], "SAME")
        images = images + (1.0 - sharpness) * (smoothed - images)
        return _channels_back(self, tf.clip_by_value(images, self.value_range[0], self.value_range[1]))

    def get_config(self):
        return {**self._config(), "factor": self.factor, "value_range": self.value_range, "seed": self.seed}


def _gaussian_blur(images, kernel_size, sigma):
    """Keras' TensorFlow-backend blur: a (kernel_size[0], kernel_size[1]) kernel, the outer product of a
    row Gaussian of sigma[1] and a column Gaussian of sigma[0] (sigma a tensor: drawn per batch), applied
    to each channel with zero padding."""
    def gaussian(size, s):
        x = tf.range(size, dtype=tf.float32) - (size - 1) / 2
        k = tf.exp(-0.5 * (x / s) ** 2)
        return k / tf.reduce_sum(k)
    kernel = tf.tensordot(gaussian(kernel_size[1], sigma[1]), gaussian(kernel_size[0], sigma[0]), axes=0)
    kernel = tf.tile(tf.reshape(kernel, [kernel_size[0], kernel_size[1], 1, 1]), [1, 1, images.shape[-1], 1])
    return tf.nn.depthwise_conv2d(images, kernel, [1, 1, 1, 1], "SAME")


class RandomGaussianBlur(_ImageAugmentation):
    """Blurs each image, with probability drawn from `factor`'s range, by a Gaussian of `kernel_size` whose
    (y, x) sigmas are drawn once per batch from `sigma`'s range."""

    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor=1.0, kernel_size=3, sigma=1.0, value_range=(0, 255), data_format=None, seed=None,
                 **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self._set_factor(factor)
        self.kernel_size = self._odd_sizes(kernel_size)
        low, high = self._FACTOR_BOUNDS
        message = (f"The `sigma` argument should be a number (or a list of two numbers) in the range [{low}, "
                   f"{high}]. Received: factor={sigma}")
        self.sigma = _symmetric_range(sigma, self._FACTOR_BOUNDS, message)
        self.value_range = value_range

    @staticmethod
    def _odd_sizes(size):
        message = f"kernel_size must be an odd number. Received: kernel_size={size}"
        if isinstance(size, (tuple, list)):
            if len(size) != 2:
                raise ValueError(f"The `kernel_size` argument should be a number (or a list of two numbers) "
                                 f"Received: kernel_size={size}")
            if size[0] % 2 == 0 or size[1] % 2 == 0:
                raise ValueError(message)
            return (size[0], size[1])
        if not isinstance(size, (int, float)) or size % 2 == 0:
            raise ValueError(message)
        return (size, size)

    def _augment(self, images):
        probability = self.generator.uniform(_batch_shape(self, images), self.factor[0], self.factor[1])
        threshold = self.generator.uniform(_batch_shape(self, images), 0.0, 1.0)
        sigma = self.generator.uniform([2], self.sigma[0], self.sigma[1]) + 1e-6
        blurred = _channels_back(self, _gaussian_blur(_channels_last(self, images), self.kernel_size, sigma))
        images = tf.where(tf.reshape(threshold < probability, [-1, 1, 1, 1]), blurred, images)
        return tf.clip_by_value(images, self.value_range[0], self.value_range[1])

    def get_config(self):
        return {**self._config(), "factor": self.factor, "kernel_size": self.kernel_size, "sigma": self.sigma,
                "value_range": self.value_range, "seed": self.seed}


class RandomColorJitter(_ImageAugmentation):
    """RandomBrightness, RandomContrast, RandomSaturation and RandomHue (those whose factor is given), applied
    in that order, all drawing from this layer's seed stream."""

    def __init__(self, value_range=(0, 255), brightness_factor=None, contrast_factor=None, saturation_factor=None,
                 hue_factor=None, seed=None, data_format=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.value_range = value_range
        self.brightness_factor, self.contrast_factor = brightness_factor, contrast_factor
        self.saturation_factor, self.hue_factor = saturation_factor, hue_factor
        steps = ((RandomBrightness, brightness_factor), (RandomContrast, contrast_factor),
                 (RandomSaturation, saturation_factor), (RandomHue, hue_factor))
        self._steps = [cls(factor=factor, value_range=value_range, seed=seed, data_format=data_format)
                       for cls, factor in steps if factor is not None]
        for step in self._steps:
            step.generator = self.generator     # Keras draws every step from the jitter layer's stream

    def _augment(self, images):
        for step in self._steps:
            images = step._augment(images)
        return images

    def get_config(self):
        return {**self._config(), "value_range": self.value_range, "brightness_factor": self.brightness_factor,
                "contrast_factor": self.contrast_factor, "saturation_factor": self.saturation_factor,
                "hue_factor": self.hue_factor, "seed": self.seed}


API = {"keras.layers": ["RandomColorJitter", "RandomGaussianBlur", "Solarization", "RandomGrayscale", "AutoContrast", "Equalization", "RandomInvert",
                        "RandomPosterization", "RandomColorDegeneration", "RandomSaturation", "RandomHue",
                        "RandomSharpness"]}
