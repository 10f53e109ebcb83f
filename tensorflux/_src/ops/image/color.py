"""Pixel-value ops of `tf.image`: dtype conversion with TensorFlow's scaling rules, brightness, contrast,
saturation and hue, RGB <-> HSV, grayscale, per-image standardization.

`convert_image_dtype` is the hinge: integer images are read as fractions of their dtype's maximum,
float images as [0, 1], so the adjust_* functions convert an integer image to float32, work there
and convert back (saturating where TensorFlow does). AdjustContrastv2, AdjustSaturation, AdjustHue,
RGBToHSV and HSVToRGB are ops with vectorised kernels; like TensorFlow, only RGBToHSV has a gradient.
"""
import numpy as np

from ...framework import errors
from ...framework.context import state as _state
from ...framework.tensor import Tensor
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..array import join as _join
from ..array import padding as _padding
from ..shapes import shape_ops as _shape_ops
from ..shapes import shaping as _shaping
from ..shapes import creators as _creators
from ..array import where as _where
from ..linalg import einsum as _einsum
from ..math import arith as _math
from ..math import logic as _logic
from ..math import reduce as _reduce
from ..convert import convert_to_tensor
from ..registry import OpDef, apply, constant_value, FLOAT

__all__ = ["convert_image_dtype", "adjust_brightness", "adjust_contrast", "adjust_saturation", "adjust_hue",
           "rgb_to_hsv", "hsv_to_rgb", "rgb_to_grayscale", "grayscale_to_rgb", "per_image_standardization"]

_F32 = np.float32
_HALF_OR_FLOAT = (_dt.float16, _dt.float32)


def _bad(message):
    return errors.InvalidArgumentError(None, None, message)


def _dims_text(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


# -- convert_image_dtype ---------------------------------------------------------------------------------
def convert_image_dtype(image, dtype, saturate=False, name=None):
    """`tf.image.convert_image_dtype`: casts, rescaling integers to/from the [0, 1] float range."""
    image = convert_to_tensor(image)
    dtype = _dt.as_dtype(dtype)
    if not dtype.is_floating and not dtype.is_integer:
        raise AttributeError("dtype must be either floating point or integer")
    source = image.dtype
    if not source.is_floating and not source.is_integer:
        raise AttributeError("image dtype must be either floating point or integer")
    if dtype is source:
        return _shape_ops.identity(image, name=name)
    name = name or "convert_image"
    if source.is_integer and dtype.is_integer:
        scale_in, scale_out = int(source.max), int(dtype.max)
        if scale_in > scale_out:  # drop low bits first, so the cast keeps the high ones
            scaled = _math.floordiv(image, (scale_in + 1) // (scale_out + 1))
            return (_math.saturate_cast if saturate else _math.cast)(scaled, dtype, name=name)
        widened = (_math.saturate_cast if saturate else _math.cast)(image, dtype)
        return _math.multiply(widened, (scale_out + 1) // (scale_in + 1), name=name)
    if source.is_floating and dtype.is_floating:
        return _math.cast(image, dtype, name=name)
    if source.is_integer:
        return _math.multiply(_math.cast(image, dtype), 1.0 / int(source.max), name=name)
    # float -> int: the extra half stops 1.0 - epsilon from rounding down a whole step
    scaled = _math.multiply(image, float(dtype.max) + 0.5)
    return (_math.saturate_cast if saturate else _math.cast)(scaled, dtype, name=name)


def _as_working_float(image):
    """The image itself when half/float32, else converted to float32 (how adjust_* work on it)."""
    return image if image.dtype in _HALF_OR_FLOAT else convert_image_dtype(image, _dt.float32)


def adjust_brightness(image, delta):
    """`tf.image.adjust_brightness`: adds `delta` in the [0, 1] float scale."""
    image = convert_to_tensor(image)
    flt = _as_working_float(image)
    adjusted = _math.add(flt, _math.cast(delta, flt.dtype), name="adjust_brightness")
    return convert_image_dtype(adjusted, image.dtype, saturate=True)


# -- AdjustContrastv2 ------------------------------------------------------------------------------------
def _check_at_least_3d(images):
    if images.ndim < 3:
        raise _bad(f"input must be at least 3-D, got shape{_dims_text(images.shape)}")


def _contrast_kernel(images, contrast_factor):
    _check_at_least_3d(images)
    if contrast_factor.ndim != 0:
        raise _bad(f"contrast_factor must be scalar: {_dims_text(contrast_factor.shape)}")
    x = images.astype(_F32, copy=False)
    mean = x.mean(axis=(-3, -2), keepdims=True, dtype=_F32)
    return ((x - mean) * contrast_factor + mean).astype(images.dtype, copy=False)


def _infer_same(inputs, attrs):
    return [(inputs[0].dtype, inputs[0].shape)]


ADJUST_CONTRAST = OpDef("AdjustContrastv2", _infer_same, _contrast_kernel, allowed=_HALF_OR_FLOAT,
                        input_names=("images", "contrast_factor"))


def adjust_contrast(images, contrast_factor):
    """`tf.image.adjust_contrast`: `(x - mean) * contrast_factor + mean` per image and channel."""
    images = convert_to_tensor(images)
    flt = _as_working_float(images)
    factor = convert_to_tensor(contrast_factor, dtype=_dt.float32) if not isinstance(contrast_factor, Tensor) \
        else contrast_factor
    adjusted = apply(ADJUST_CONTRAST, (flt, factor), None, "adjust_contrast")
    return convert_image_dtype(adjusted, images.dtype, saturate=True)


# -- HSV -------------------------------------------------------------------------------------------------
def _check_rgb(images, kind, op_error=errors.InvalidArgumentError):
    if images.ndim < 1:
        raise _bad(f"input must be at least 1D{_dims_text(images.shape)}")
    if images.shape[-1] != 3:
        raise op_error(None, None, f"input must have 3 channels but {kind} {images.shape[-1]} channels.")


def _hsv_parts(rgb):
    """Hue in [0, 1), saturation and value of RGB values, in rgb's dtype."""
    with np.errstate(divide="ignore", invalid="ignore"):  # grey pixels: the hue is replaced by 0 below
        return _hsv_parts_unguarded(rgb)


def _hsv_parts_unguarded(rgb):
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    value = np.max(rgb, axis=-1)
    chroma = value - np.min(rgb, axis=-1)
    one = rgb.dtype.type(1)
    saturation = np.where(value > 0, chroma / np.where(value > 0, value, one), rgb.dtype.type(0))
    norm = one / (rgb.dtype.type(6) * chroma)
    hue = np.where(r == value, norm * (g - b),
                   np.where(g == value, norm * (b - r) + rgb.dtype.type(2.0 / 6.0), norm * (r - g) + rgb.dtype.type(4.0 / 6.0)))
    hue = np.where(chroma > 0, hue, rgb.dtype.type(0))
    hue = np.where(hue < 0, hue + one, hue)
    return hue, saturation, value


def _rgb_from_hsv(h, s, v):
    dtype = h.dtype.type
    dh = h * dtype(6)
    red = np.clip(np.abs(dh - dtype(3)) - dtype(1), dtype(0), dtype(1))
    green = np.clip(dtype(2) - np.abs(dh - dtype(2)), dtype(0), dtype(1))
    blue = np.clip(dtype(2) - np.abs(dh - dtype(4)), dtype(0), dtype(1))
    grey = dtype(1) - s
    return np.stack([(grey + s * red) * v, (grey + s * green) * v, (grey + s * blue) * v], axis=-1)


def _rgb_to_hsv_kernel(images):
    _check_rgb(images, "input only has", errors.FailedPreconditionError)
    return np.stack(_hsv_parts(images), axis=-1).astype(images.dtype, copy=False)


def _hsv_to_rgb_kernel(images):
    _check_rgb(images, "input only has", errors.FailedPreconditionError)
    return _rgb_from_hsv(images[..., 0], images[..., 1], images[..., 2]).astype(images.dtype, copy=False)


def _infer_color(op_name):
    def infer(inputs, attrs):
        x = inputs[0]
        if x.shape.rank == 0:
            raise ValueError(f"Shape must be at least rank 1 but is rank 0 for '{{{{node {op_name}}}}}'")
        if x.shape.rank is not None and x.shape[-1] is not None and x.shape[-1] != 3:
            raise ValueError(f"Dimension must be 3 but is {x.shape[-1]} for '{{{{node {op_name}}}}}'")
        return [(x.dtype, x.shape)]
    return infer


def _safe_reciprocal(x):
    """1 / x where x != 0, else 0 (the rgb_to_hsv gradient is 0 where the formula divides by 0)."""
    zero = _creators.zeros_like(x)
    nonzero = _logic.not_equal(x, zero)
    return _where.where(nonzero, _math.reciprocal(_where.where(nonzero, x, _creators.ones_like(x))), zero)


def _rgb_to_hsv_grad(op, grad):
    """The derivative of H, S, V with TensorFlow's conventions: ties go to red, then green, for the
    maximum and to blue, then green, for the minimum; a channel's saturation term is 0 where that
    channel is 0, and the hue terms are 0 where the maximum is 0."""
    x = op.inputs[0]
    dtype = x.dtype
    r, g, b = x[..., 0], x[..., 1], x[..., 2]
    f = lambda t: _math.cast(t, dtype)  # noqa: E731 - masks as 0/1 factors
    big = [f(_logic.logical_and(r >= b, r >= g)), f(_logic.logical_and(g > r, g >= b)),
           f(_logic.logical_and(b > r, b > g))]
    small = [f(_logic.logical_and(r < b, r < g)), f(_logic.logical_and(g <= r, g < b)),
             f(_logic.logical_and(b <= r, b <= g))]
    channels = [r, g, b]
    top = big[0] * r + big[1] * g + big[2] * b
    bottom = small[0] * r + small[1] * g + small[2] * b
    chroma = top - bottom
    numerator = big[0] * (g - b) + big[1] * (b - r) + big[2] * (r - g)
    numerator_slopes = [big[2] - big[1], big[0] - big[2], big[1] - big[0]]
    hue_gate = f(top > 0)
    over_6chroma2 = _safe_reciprocal(chroma * chroma * 6)
    grad_h, grad_s, grad_v = grad[..., 0], grad[..., 1], grad[..., 2]
    parts = []
    for c in range(3):
        dv = big[c]
        ds = f(channels[c] > 0) * (big[c] * bottom * _safe_reciprocal(channels[c] * channels[c])
                                   - small[c] * _safe_reciprocal(top))
        dh = hue_gate * (numerator_slopes[c] * chroma - numerator * (big[c] - small[c])) * over_6chroma2
        parts.append(grad_v * dv + grad_s * ds + grad_h * dh)
    return [_join.stack(parts, axis=-1)]


RGB_TO_HSV = OpDef("RGBToHSV", _infer_color("RGBToHSV"), _rgb_to_hsv_kernel, grad=_rgb_to_hsv_grad,
                   allowed=FLOAT, input_names=("images",))
HSV_TO_RGB = OpDef("HSVToRGB", _infer_color("HSVToRGB"), _hsv_to_rgb_kernel, allowed=FLOAT,
                   input_names=("images",))


def rgb_to_hsv(images, name=None):
    """`tf.image.rgb_to_hsv`: hue, saturation and value in [0, 1] from RGB in [0, 1] (last axis)."""
    return apply(RGB_TO_HSV, (convert_to_tensor(images, dtype_hint=_dt.float32),), None, name or "RGBToHSV")


def hsv_to_rgb(images, name=None):
    """`tf.image.hsv_to_rgb`: the inverse of `rgb_to_hsv`."""
    return apply(HSV_TO_RGB, (convert_to_tensor(images, dtype_hint=_dt.float32),), None, name or "HSVToRGB")


# -- AdjustSaturation / AdjustHue ------------------------------------------------------------------------
def _check_rgb_image(images):
    _check_at_least_3d(images)
    if images.shape[-1] != 3:
        raise _bad(f"input must have 3 channels but instead has {images.shape[-1]} channels.")


def _saturation_kernel(images, scale):
    _check_rgb_image(images)
    if scale.ndim != 0:
        raise _bad(f"scale must be scalar: {_dims_text(scale.shape)}")
    rgb = images.astype(_F32, copy=False)
    h, s, v = _hsv_parts(rgb)
    s = np.clip(s * scale, _F32(0), _F32(1)).astype(_F32)
    return _rgb_from_hsv(h, s, v).astype(images.dtype, copy=False)


def _hue_kernel(images, delta):
    """Rotates the hue inside each pixel's [min, max] range, as TensorFlow's AdjustHue does."""
    _check_rgb_image(images)
    if delta.ndim != 0:
        raise _bad(f"delta must be scalar: {_dims_text(delta.shape)}")
    rgb = images.astype(_F32, copy=False)
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    high, low = rgb.max(axis=-1), rgb.min(axis=-1)
    # the sector (0..5) of the hue circle from the order of the channels, ties decided as TensorFlow does
    red_below = r < g
    sector = np.where(red_below, np.where(b < r, 1, np.where(b > g, 3, 2)),
                      np.where(b < g, 0, np.where(b > r, 4, 5)))
    mid = np.take_along_axis(rgb, np.array([1, 0, 2, 1, 0, 2])[sector][..., None], axis=-1)[..., 0]
    span = high - low
    ratio = np.where(span > 0, (mid - low) / np.where(span > 0, span, _F32(1)), _F32(0)).astype(_F32)
    odd = (sector & 1) == 1
    hue = np.where(span > 0, sector + np.where(odd, _F32(1) - ratio, ratio), _F32(0)).astype(_F32)
    hue = (hue + _F32(delta) * _F32(6)).astype(_F32)
    hue = np.where(hue < 0, hue + _F32(6), hue)
    hue = np.where(hue >= 6, hue - _F32(6), hue).astype(_F32)
    sector = np.minimum(hue.astype(np.int64), 5)
    ratio = hue - sector
    ratio = np.where((sector & 1) == 1, _F32(1) - ratio, ratio)
    mid = low + ratio * span
    order = np.array([[2, 1, 0], [1, 2, 0], [0, 2, 1], [0, 1, 2], [1, 0, 2], [2, 0, 1]])  # rank of r, g, b
    levels = np.stack([low, mid, high], axis=-1)
    out = np.take_along_axis(levels, order[sector], axis=-1)
    return out.astype(images.dtype, copy=False)


ADJUST_SATURATION = OpDef("AdjustSaturation", _infer_same, _saturation_kernel, allowed=_HALF_OR_FLOAT,
                          input_names=("images", "scale"))
ADJUST_HUE = OpDef("AdjustHue", _infer_same, _hue_kernel, allowed=_HALF_OR_FLOAT, input_names=("images", "delta"))


def _float32_scalar(value):
    return value if isinstance(value, Tensor) else convert_to_tensor(value, dtype=_dt.float32)


def adjust_saturation(image, saturation_factor, name=None):
    """`tf.image.adjust_saturation`: multiplies the HSV saturation by `saturation_factor` (clipped to [0, 1])."""
    image = convert_to_tensor(image)
    adjusted = apply(ADJUST_SATURATION, (_as_working_float(image), _float32_scalar(saturation_factor)), None,
                     name or "adjust_saturation")
    return convert_image_dtype(adjusted, image.dtype)


def adjust_hue(image, delta, name=None):
    """`tf.image.adjust_hue`: rotates the hue by `delta` (a fraction of the colour circle, in [-1, 1])."""
    if _state.graph is None:
        value = constant_value(delta) if isinstance(delta, Tensor) else delta
        if value is not None and (value < -1 or value > 1):
            raise ValueError("delta must be in the interval [-1, 1]")
    image = convert_to_tensor(image)
    adjusted = apply(ADJUST_HUE, (_as_working_float(image), _float32_scalar(delta)), None, name or "adjust_hue")
    return convert_image_dtype(adjusted, image.dtype)


# -- grayscale and standardization -----------------------------------------------------------------------
def rgb_to_grayscale(images, name=None):
    """`tf.image.rgb_to_grayscale`: ITU-R 601 luma, keeping a last axis of size 1 and the dtype."""
    images = convert_to_tensor(images)
    flt = convert_image_dtype(images, _dt.float32)
    gray = _einsum.tensordot(flt, convert_to_tensor([0.2989, 0.5870, 0.1140], dtype=_dt.float32), [-1, -1])
    return convert_image_dtype(_shaping.expand_dims(gray, -1), images.dtype, name=name)


def grayscale_to_rgb(images, name=None):
    """`tf.image.grayscale_to_rgb`: repeats the single channel three times."""
    images = convert_to_tensor(images)
    shape = images.shape
    rank = shape.rank
    if rank is not None and rank < 2:
        raise ValueError(f"A grayscale image (shape {shape}) must be at least two-dimensional.")
    if rank is not None and shape[-1] is not None and shape[-1] != 1:
        raise ValueError("Last dimension of a grayscale image should be size 1.")
    if rank is not None:
        return _padding.tile(images, [1] * (rank - 1) + [3], name=name)
    ones = _creators.ones(_shaping.expand_dims(_shape_ops.rank(images) - 1, 0), dtype=_dt.int32)
    return _padding.tile(images, _join.concat([ones, [3]], 0), name=name)


def per_image_standardization(image):
    """`tf.image.per_image_standardization`: zero mean, unit variance per image (float32), with the
    standard deviation floored at 1/sqrt(pixel count) so flat images do not divide by zero."""
    image = convert_to_tensor(image)
    rank = image.shape.rank
    if rank is not None and rank < 3:
        raise ValueError(f"'image' (shape {image.shape}) must be at least three-dimensional.")
    image = _math.cast(image, _dt.float32)
    inner = image.shape[-3:] if rank is not None else TensorShape(None)
    if inner.is_fully_defined():
        num_pixels = convert_to_tensor(int(np.prod(inner.as_list())), dtype=_dt.int32)
    else:
        num_pixels = _reduce.reduce_prod(_shape_ops.shape(image)[-3:])
    mean = _reduce.reduce_mean(image, axis=[-1, -2, -3], keepdims=True)
    stddev = _reduce.reduce_std(image, axis=[-1, -2, -3], keepdims=True)
    floor = _math.rsqrt(_math.cast(num_pixels, _dt.float32))
    return _math.divide(_math.subtract(image, mean), _math.maximum(stddev, floor),
                        name="per_image_standardization")
