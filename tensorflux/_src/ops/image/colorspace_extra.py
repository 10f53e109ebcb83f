"""More of `tf.image`: the YIQ and YUV colour spaces, `adjust_gamma`, `sobel_edges`, `ssim` and
`ssim_multiscale`, and the stateless random adjustments (`stateless_random_flip_left_right`, …, each
drawing its factor with `tf.random.stateless_uniform` from the given seed, as TensorFlow does).

Filters are computed from shifted slices of the (padded) images, which keeps this family below the nn
ops and differentiable through the slicing and arithmetic ops.
"""
import numpy as np

from ...types import dtypes as _dt
from ..array import indexing as _indexing
from ..array import join as _join
from ..array import padding as _padding
from ..array import reorder as _reorder
from ..control_flow import cond_while as _cond
from ..convert import convert_to_tensor
from ..linalg import matrix as _matrix
from ..math import arith as _math
from ..math import logic as _logic
from ..math import reduce as _reduce
from ..random import stateless as _stateless
from ..shapes import creators as _creators
from ..shapes import shape_ops as _shape_ops
from ..shapes import shaping as _shaping
from . import color as _color

# The linear maps between RGB and YIQ / YUV (TensorFlow's kernels, applied as image @ kernel).
_RGB_TO_YIQ = [[0.299, 0.59590059, 0.2115], [0.587, -0.27455667, -0.52273617], [0.114, -0.32134392, 0.31119955]]
_YIQ_TO_RGB = [[1, 1, 1], [0.95598634, -0.27201283, -1.10674021], [0.6208248, -0.64720424, 1.70423049]]
_RGB_TO_YUV = [[0.299, -0.14714119, 0.61497538], [0.587, -0.28886916, -0.51496512], [0.114, 0.43601035, -0.10001026]]
_YUV_TO_RGB = [[1, 1, 1], [0, -0.394642334, 2.03206185], [1.13988303, -0.58062185, 0]]


def _linear_colour(images, kernel):
    images = convert_to_tensor(images)
    if not images.dtype.is_floating:
        raise TypeError(f"images must be a float tensor, got dtype {images.dtype.name}")
    if images.shape[-1] is not None and images.shape[-1] != 3:
        raise ValueError(f"images must have 3 channels in the last dimension, got shape {images.shape}")
    kernel = convert_to_tensor(np.asarray(kernel, images.dtype.as_numpy_dtype))
    return _matrix.tensordot(images, kernel, axes=[[images.shape.rank - 1], [0]])


def rgb_to_yiq(images):
    """RGB images (floats in [0, 1]) in the YIQ colour space."""
    return _linear_colour(images, _RGB_TO_YIQ)


def yiq_to_rgb(images):
    return _linear_colour(images, _YIQ_TO_RGB)


def rgb_to_yuv(images):
    """RGB images (floats in [0, 1]) in the YUV colour space."""
    return _linear_colour(images, _RGB_TO_YUV)


def yuv_to_rgb(images):
    return _linear_colour(images, _YUV_TO_RGB)


def adjust_gamma(image, gamma=1, gain=1):
    """gain · image ** gamma (integer images are scaled to floats in [0, 1] first and converted back)."""
    image = convert_to_tensor(image)
    if isinstance(gamma, (int, float)) and gamma < 0:
        raise ValueError("Gamma should be a non-negative real number.")
    working = image if image.dtype.is_floating else _color.convert_image_dtype(image, _dt.float32)
    adjusted = _math.multiply(_math.cast(gain, working.dtype), _math.pow(working, _math.cast(gamma, working.dtype)))
    return adjusted if image.dtype.is_floating else _color.convert_image_dtype(adjusted, image.dtype, saturate=True)


def _shifted(padded, dy, dx, height, width):
    return padded[:, dy:dy + height, dx:dx + width, :]


def sobel_edges(image):
    """Sobel gradients of each channel, [batch, height, width, channels, 2] holding (dy, dx); the image is
    reflect-padded by one pixel."""
    image = convert_to_tensor(image)
    if not image.dtype.is_floating:
        image = _math.cast(image, _dt.float32)
    height, width = image.shape[1], image.shape[2]
    padded = _padding.pad(image, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")
    dy_kernel = np.array([[-1, -2, -1], [0, 0, 0], [1, 2, 1]], np.float64)
    outputs = []
    for kernel in (dy_kernel, dy_kernel.T):
        total = None
        for i in range(3):
            for j in range(3):
                if kernel[i, j]:
                    term = _math.multiply(_shifted(padded, i, j, height, width), _math.cast(kernel[i, j], image.dtype))
                    total = term if total is None else _math.add(total, term)
        outputs.append(total)
    return _join.stack(outputs, axis=-1)


def _gaussian(size, sigma):
    coords = np.arange(size, dtype=np.float64) - (size - 1) / 2.0
    g = np.exp(-0.5 * (coords / sigma) ** 2)
    return g / g.sum()


def _blur_valid(x, kernel):
    """Separable 'valid' filtering of [batch, height, width, channels] by the 1-D `kernel` on both axes."""
    size = len(kernel)
    height, width = x.shape[1], x.shape[2]
    rows = None
    for i, weight in enumerate(kernel):
        term = _math.multiply(x[:, i:i + height - size + 1, :, :], _math.cast(weight, x.dtype))
        rows = term if rows is None else _math.add(rows, term)
    result = None
    for j, weight in enumerate(kernel):
        term = _math.multiply(rows[:, :, j:j + width - size + 1, :], _math.cast(weight, x.dtype))
        result = term if result is None else _math.add(result, term)
    return result


def _ssim_parts(img1, img2, max_val, filter_size, filter_sigma, k1, k2):
    size = min(filter_size, img1.shape[-3], img1.shape[-2])
    kernel = _gaussian(size, filter_sigma)
    c1 = (k1 * max_val) ** 2
    c2 = (k2 * max_val) ** 2
    mean0, mean1 = _blur_valid(img1, kernel), _blur_valid(img2, kernel)
    num0 = _math.multiply(_math.multiply(mean0, mean1), _math.cast(2.0, img1.dtype))
    den0 = _math.add(_math.square(mean0), _math.square(mean1))
    luminance = _math.divide(_math.add(num0, _math.cast(c1, img1.dtype)), _math.add(den0, _math.cast(c1, img1.dtype)))
    num1 = _math.multiply(_blur_valid(_math.multiply(img1, img2), kernel), _math.cast(2.0, img1.dtype))
    den1 = _blur_valid(_math.add(_math.square(img1), _math.square(img2)), kernel)
    cs = _math.divide(_math.add(_math.subtract(num1, num0), _math.cast(c2, img1.dtype)),
                      _math.add(_math.subtract(den1, den0), _math.cast(c2, img1.dtype)))
    return luminance, cs


def _ssim_inputs(img1, img2, max_val):
    img1, img2 = convert_to_tensor(img1), convert_to_tensor(img2)
    if img1.dtype != img2.dtype:
        raise TypeError(f"img1 and img2 must have the same dtype, got {img1.dtype.name} and {img2.dtype.name}")
    if not img1.dtype.is_floating:
        scale = float(img1.dtype.max)
        img1 = _math.cast(img1, _dt.float32)
        img2 = _math.cast(img2, _dt.float32)
        max_val = float(max_val) / scale if not hasattr(max_val, "dtype") else max_val
        img1, img2 = _math.divide(img1, scale), _math.divide(img2, scale)
    batched = img1.shape.rank == 3
    if batched:
        img1, img2 = _shaping.expand_dims(img1, 0), _shaping.expand_dims(img2, 0)
    return img1, img2, float(max_val), batched


def ssim(img1, img2, max_val, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03, return_index_map=False):
    """The structural similarity of two images (per image: mean over positions and channels of
    luminance · contrast-structure, with Gaussian-weighted local statistics)."""
    img1, img2, max_val, unbatched = _ssim_inputs(img1, img2, max_val)
    luminance, cs = _ssim_parts(img1, img2, max_val, filter_size, filter_sigma, k1, k2)
    index = _math.multiply(luminance, cs)
    if return_index_map:
        result = _reduce.reduce_mean(index, axis=-1)
    else:
        result = _reduce.reduce_mean(index, axis=[-3, -2, -1])
    return result[0] if unbatched else result


_MS_SSIM_WEIGHTS = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333)


def _downsample(x):
    """2×2 average pooling with "SAME" padding: an odd edge is averaged over the pixels it has."""
    height, width = x.shape[1], x.shape[2]
    pad_h, pad_w = height % 2, width % 2
    ones = _creators.ones_like(x[..., :1])
    x = _padding.pad(x, [[0, 0], [0, pad_h], [0, pad_w], [0, 0]])
    ones = _padding.pad(ones, [[0, 0], [0, pad_h], [0, pad_w], [0, 0]])
    total = _math.add(_math.add(x[:, 0::2, 0::2], x[:, 1::2, 0::2]), _math.add(x[:, 0::2, 1::2], x[:, 1::2, 1::2]))
    count = _math.add(_math.add(ones[:, 0::2, 0::2], ones[:, 1::2, 0::2]),
                      _math.add(ones[:, 0::2, 1::2], ones[:, 1::2, 1::2]))
    return _math.divide(total, count)


def ssim_multiscale(img1, img2, max_val, power_factors=_MS_SSIM_WEIGHTS, filter_size=11, filter_sigma=1.5,
                    k1=0.01, k2=0.03):
    """Multi-scale SSIM: contrast-structure at each of len(power_factors) scales (halving the images
    between them) and luminance at the last, combined as a product of powers."""
    img1, img2, max_val, unbatched = _ssim_inputs(img1, img2, max_val)
    values = []
    for scale, _ in enumerate(power_factors):
        if scale:
            img1, img2 = _downsample(img1), _downsample(img2)
        luminance, cs = _ssim_parts(img1, img2, max_val, filter_size, filter_sigma, k1, k2)
        values.append(_reduce.reduce_mean(cs, axis=[-3, -2]))
    values[-1] = _reduce.reduce_mean(_math.multiply(luminance, cs), axis=[-3, -2])
    result = None
    for value, power in zip(values, power_factors):
        term = _math.pow(_math.maximum(value, _math.cast(0.0, value.dtype)), _math.cast(power, value.dtype))
        result = term if result is None else _math.multiply(result, term)
    result = _reduce.reduce_mean(result, axis=-1)
    return result[0] if unbatched else result


# -- stateless random adjustments ------------------------------------------------------------------------------
def _uniform(seed, minval=0.0, maxval=1.0, shape=()):
    return _stateless.stateless_uniform(list(shape), seed, minval, maxval)


def _random_flip(image, seed, axis):
    image = convert_to_tensor(image)
    if image.shape.rank == 3:
        flip = _logic.less(_uniform(seed), 0.5)
        return _cond.cond(flip, lambda: _reorder.reverse(image, [axis]), lambda: image)
    batch = image.shape[0] if image.shape[0] is not None else _shape_ops.shape(image)[0]
    flips = _math.round(_shaping.reshape(_uniform(seed, shape=[batch]), [-1, 1, 1, 1]))
    flips = _math.cast(flips, image.dtype)
    flipped = _reorder.reverse(image, [axis + 1])
    return _math.add(_math.multiply(flips, flipped), _math.multiply(_math.subtract(_math.cast(1, image.dtype), flips),
                                                                    image))


def stateless_random_flip_left_right(image, seed):
    return _random_flip(image, seed, 1)


def stateless_random_flip_up_down(image, seed):
    return _random_flip(image, seed, 0)


def stateless_random_brightness(image, max_delta, seed):
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    return _color.adjust_brightness(image, _uniform(seed, -max_delta, max_delta))


def stateless_random_contrast(image, lower, upper, seed):
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")
    return _color.adjust_contrast(image, _uniform(seed, lower, upper))


def stateless_random_hue(image, max_delta, seed):
    if max_delta > 0.5:
        raise ValueError("max_delta must be <= 0.5.")
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    return _color.adjust_hue(image, _uniform(seed, -max_delta, max_delta))


def stateless_random_saturation(image, lower, upper, seed):
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")
    return _color.adjust_saturation(image, _uniform(seed, lower, upper))


def stateless_random_crop(value, size, seed):
    """A `size` slice of `value` at an offset drawn from `seed` (uniform over the valid offsets)."""
    value = convert_to_tensor(value)
    size = convert_to_tensor(size, _dt.int32)
    shape = _shape_ops.shape(value)
    limit = _math.add(_math.subtract(shape, size), 1)
    offset = _math.floormod(_stateless.stateless_uniform(_shape_ops.shape(shape), seed, minval=0,
                                                         maxval=_dt.int32.max, dtype=_dt.int32), limit)
    return _indexing.slice(value, offset, size)


API = {"image": ["rgb_to_yiq", "yiq_to_rgb", "rgb_to_yuv", "yuv_to_rgb", "adjust_gamma", "sobel_edges", "ssim",
                 "ssim_multiscale", "stateless_random_flip_left_right", "stateless_random_flip_up_down",
                 "stateless_random_brightness", "stateless_random_contrast", "stateless_random_hue",
                 "stateless_random_saturation", "stateless_random_crop"]}
