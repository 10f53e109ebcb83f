"""`tf.image`: resizing, flips and rotations, crops and pads, random augmentation, image gradients,
total variation, patch extraction and PSNR; colour ops live in `image_color.py`, the resampling
kernels in `image_resize.py`, and this module exports the whole namespace.

Images are `[height, width, channels]` or batches `[batch, height, width, channels]`. Most functions
are compositions of existing ops (reverse, transpose, slice, pad, where…), as in TensorFlow, so they
trace into graphs and differentiate for free. Sizes and offsets may be Python ints or tensors: known
values are checked at once with TensorFlow's ValueError, unknown ones by an Assert op at run time.
"""
import numpy as np

from ...framework import errors
from ...framework.context import state as _state
from ...framework.tensor import Tensor
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..array import join as _join
from ..array import padding as _padding
from ..array import reorder as _reorder
from ..shapes import shape_ops as _shape_ops
from ..shapes import shaping as _shaping
from ..control_flow import cond_while as _control_flow
from ..shapes import creators as _creators
from ..array import indexing as _indexing
from ..array import where as _where
from .. import assertion as _assertion
from ..math import arith as _math
from ..math import logic as _logic
from ..math import reduce as _reduce
from ..random import stateful as _random
from . import resize as _resize
from ..convert import convert_to_tensor
from .color import (convert_image_dtype, adjust_brightness, adjust_contrast, adjust_saturation, adjust_hue,
    rgb_to_hsv, hsv_to_rgb, rgb_to_grayscale, grayscale_to_rgb, per_image_standardization)
from ..registry import OpDef, apply, constant_value, NUMBER

__all__ = ["ResizeMethod", "resize", "resize_with_pad", "flip_left_right", "flip_up_down", "rot90", "transpose",
           "central_crop", "crop_to_bounding_box", "pad_to_bounding_box", "resize_with_crop_or_pad",
           "random_flip_left_right", "random_flip_up_down", "random_brightness", "random_contrast",
           "random_saturation", "random_hue", "random_crop", "image_gradients", "total_variation",
           "extract_patches", "psnr"]


# -- shape helpers ---------------------------------------------------------------------------------------
def _static(value):
    """A Python int/float/bool for a Python number or a tensor with a known value, else None."""
    if isinstance(value, Tensor):
        v = constant_value(value)
        return None if v is None or np.ndim(v) != 0 else np.asarray(v)[()].item()
    if isinstance(value, (np.generic, np.ndarray)):
        return np.asarray(value)[()].item() if np.ndim(value) == 0 else None
    return value


def _require(condition, message):
    """TensorFlow's `_assert`: a known condition raises ValueError now, a tensor one becomes an Assert."""
    if isinstance(condition, Tensor):
        known = _static(condition)
        if known is None or _state.graph is not None:
            _assertion.Assert(condition, [message])
            return
        condition = known
    if not condition:
        raise ValueError(message)


def _image_dims(image, rank):
    """Each dimension as a Python int when static, else a scalar int32 tensor (TensorFlow's rule)."""
    dims = image.shape.as_list() if image.shape.rank is not None else [None] * rank
    if all(d is not None for d in dims):
        return dims
    dynamic = _shape_ops.shape(image)
    return [d if d is not None else dynamic[i] for i, d in enumerate(dims)]


def _check_at_least_3d(image):
    shape = image.shape
    if shape.rank is not None and shape.rank < 3:
        raise ValueError(f"'image' (shape {shape}) must be at least three-dimensional.")
    if shape.rank is not None and any(d == 0 for d in shape.as_list()[-3:]):
        raise ValueError(f"inner 3 dims of 'image.shape' must be > 0: {shape}")


def _as_batch(image):
    """(4-D image, whether the input was already a batch); rank other than 3/4 is TensorFlow's ValueError."""
    rank = image.shape.rank
    if rank == 4:
        return image, True
    if rank == 3 or rank is None:
        return _shaping.expand_dims(image, 0), False
    raise ValueError(f"'image' (shape {image.shape}) must have either 3 or 4 dimensions.")


def _unbatch(image, is_batch):
    return image if is_batch else _shaping.squeeze(image, axis=[0])


def _known(dims):
    """A static shape from dims that are ints, Dimensions/None, or tensors (unknown)."""
    return [None if isinstance(d, Tensor) else d for d in dims]


def _either_tensor(*values):
    return any(isinstance(v, Tensor) for v in values)


def _max(x, y):
    return _math.maximum(x, y) if _either_tensor(x, y) else max(x, y)


def _min(x, y):
    return _math.minimum(x, y) if _either_tensor(x, y) else min(x, y)


def _int_value(value):
    """A Python int when known statically, the int32 tensor otherwise."""
    known = _static(value)
    if known is not None:
        return int(known)
    return value if value.dtype is _dt.int32 else _math.cast(value, _dt.int32)


# -- resize ----------------------------------------------------------------------------------------------
class ResizeMethod:
    """`tf.image.ResizeMethod`: the names `resize` accepts for `method`."""
    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"


_FILTER_METHODS = ("lanczos3", "lanczos5", "gaussian", "mitchellcubic")


def _preserved_size(images, size):
    """The largest size inside `size` with the image's aspect ratio (float32 arithmetic, round half even)."""
    _, height, width, _ = _image_dims(images, 4)
    known = constant_value(size)
    if known is not None and not _either_tensor(height, width):
        h, w = np.float32(height), np.float32(width)
        factor = min(np.float32(known[0]) / h, np.float32(known[1]) / w)
        return convert_to_tensor([int(np.round(factor * h)), int(np.round(factor * w))], dtype=_dt.int32)
    as_float = lambda t: _math.cast(t, _dt.float32)  # noqa: E731
    h, w = as_float(height), as_float(width)
    factor = _math.minimum(as_float(size[0]) / h, as_float(size[1]) / w)
    return _join.stack([_math.cast(_math.round(factor * h), _dt.int32),
                         _math.cast(_math.round(factor * w), _dt.int32)])


def resize(images, size, method=ResizeMethod.BILINEAR, preserve_aspect_ratio=False, antialias=False, name=None):
    """`tf.image.resize` (TF2: half-pixel centres). Bilinear, bicubic, area and the filter methods give
    float32; nearest keeps the dtype. `antialias` widens the bilinear/bicubic filter when shrinking."""
    images = convert_to_tensor(images)
    if images.shape.rank is None:
        raise ValueError("'images' contains no shape.")
    if images.shape.rank not in (3, 4):
        raise ValueError("'images' must have either 3 or 4 dimensions.")
    batch, is_batch = _as_batch(images)
    try:
        size = convert_to_tensor(size, dtype=_dt.int32)
    except (TypeError, ValueError):
        raise ValueError("'size' must be a 1-D int32 Tensor") from None
    if not size.shape.is_compatible_with([2]):
        raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
    if preserve_aspect_ratio:
        size = _preserved_size(batch, size)
    method = getattr(method, "value", method)
    if method == ResizeMethod.BILINEAR and not antialias:
        out = _resize.resize_bilinear(batch, size)
    elif method == ResizeMethod.NEAREST_NEIGHBOR:
        out = _resize.resize_nearest_neighbor(batch, size)
    elif method == ResizeMethod.BICUBIC and not antialias:
        out = _resize.resize_bicubic(batch, size)
    elif method == ResizeMethod.AREA:
        out = _resize.resize_area(batch, size)
    elif method in (ResizeMethod.BILINEAR, ResizeMethod.BICUBIC) or method in _FILTER_METHODS:
        kernel = {"bilinear": "triangle", "bicubic": "keyscubic"}.get(method, method)
        spatial = _shape_ops.shape(batch)[1:3] if not batch.shape[1:3].is_fully_defined() else \
            convert_to_tensor(batch.shape[1:3].as_list(), dtype=_dt.int32)
        scale = _math.divide(_math.cast(size, _dt.float32), _math.cast(spatial, _dt.float32))
        out = _resize.scale_and_translate(batch, size, scale, _creators.zeros([2]), kernel, antialias)
    else:
        raise ValueError(f"Resize method is not implemented: {method}")
    return _unbatch(out, is_batch)


def resize_with_pad(image, target_height, target_width, method=ResizeMethod.BILINEAR, antialias=False):
    """`tf.image.resize_with_pad`: resizes keeping the aspect ratio, then pads to the target size."""
    image = convert_to_tensor(image)
    batch, is_batch = _as_batch(image)
    _check_at_least_3d(batch)
    _require(_positive(target_width), "target_width must be > 0.")
    _require(_positive(target_height), "target_height must be > 0.")
    _, height, width, _ = _image_dims(batch, 4)
    f = lambda v: _math.cast(v, _dt.float32)  # noqa: E731
    f_height, f_width, f_target_h, f_target_w = f(height), f(width), f(target_height), f(target_width)
    ratio = _math.maximum(f_width / f_target_w, f_height / f_target_h)
    new_h, new_w = f_height / ratio, f_width / ratio
    resized = resize(batch, _join.stack([_math.cast(_math.floor(new_h), _dt.int32),
                                          _math.cast(_math.floor(new_w), _dt.int32)]), method, antialias=antialias)
    pad_h = _math.maximum(0, _math.cast(_math.floor((f_target_h - new_h) / 2), _dt.int32))
    pad_w = _math.maximum(0, _math.cast(_math.floor((f_target_w - new_w) / 2), _dt.int32))
    padded = pad_to_bounding_box(resized, pad_h, pad_w, target_height, target_width)
    return _unbatch(padded, is_batch)


def _positive(value):
    return value > 0


# -- flips, rotations, transpose -------------------------------------------------------------------------
def _flip(image, axis, missing_space=""):
    image = convert_to_tensor(image)
    _check_at_least_3d(image)
    rank = image.shape.rank
    if rank is not None and rank not in (3, 4):
        raise ValueError(f"'image' (shape {image.shape}){missing_space}must have either 3 or 4 dimensions.")
    # counted from the end, the height/width axes are the same for an image and a batch
    return _reorder.reverse(image, [axis])


def flip_left_right(image):
    """`tf.image.flip_left_right`: mirrors the width axis."""
    return _flip(image, -2)


def flip_up_down(image):
    """`tf.image.flip_up_down`: mirrors the height axis."""
    return _flip(image, -3)


def _rotated(image, k, batch_axes):
    """`image` rotated by k * 90 degrees counter-clockwise, for a static k in 0..3."""
    h, w = batch_axes, batch_axes + 1
    perm = list(range(batch_axes)) + [w, h, w + 1]
    if k == 1:
        return _reorder.transpose(_reorder.reverse(image, [w]), perm)
    if k == 2:
        return _reorder.reverse(image, [h, w])
    if k == 3:
        return _reorder.reverse(_reorder.transpose(image, perm), [w])
    return image


def rot90(image, k=1, name=None):
    """`tf.image.rot90`: rotates counter-clockwise by `k` quarter turns."""
    image = convert_to_tensor(image)
    _check_at_least_3d(image)
    k = convert_to_tensor(k, dtype=_dt.int32)
    if k.shape.rank is not None and k.shape.rank != 0:
        raise ValueError(f"Shape {k.shape} must have rank 0")
    rank = image.shape.rank
    if rank is not None and rank not in (3, 4):
        raise ValueError(f"'image' (shape {image.shape}) must have either 3 or 4 dimensions.")
    known = _static(k)

    def rotate(batch_axes):
        if known is not None:
            return _rotated(image, known % 4, batch_axes)
        quarter = _math.floormod(k, 4)
        branches = [lambda i=i: _rotated(image, i, batch_axes) for i in range(4)]
        return _control_flow.switch_case(quarter, branches)

    if rank is None:
        return _control_flow.cond(_logic.equal(_shape_ops.rank(image), 3), lambda: rotate(0), lambda: rotate(1))
    return rotate(rank - 3)


def transpose(image, name=None):
    """`tf.image.transpose`: swaps the height and width axes."""
    image = convert_to_tensor(image)
    _check_at_least_3d(image)
    rank = image.shape.rank
    if rank == 3:
        return _reorder.transpose(image, [1, 0, 2], name=name or "transpose")
    if rank == 4:
        return _reorder.transpose(image, [0, 2, 1, 3], name=name or "transpose")
    if rank is None:
        return _control_flow.cond(_logic.equal(_shape_ops.rank(image), 3),
                                  lambda: _reorder.transpose(image, [1, 0, 2]),
                                  lambda: _reorder.transpose(image, [0, 2, 1, 3]))
    raise ValueError(f"'image' (shape {image.shape}) must have either 3 or 4 dimensions.")


# -- crops and pads --------------------------------------------------------------------------------------
def central_crop(image, central_fraction):
    """`tf.image.central_crop`: keeps the central `central_fraction` of the height and width."""
    image = convert_to_tensor(image)
    fraction = _static(central_fraction)
    if fraction is None:
        raise ValueError("`central_fraction` must be a Python float or a tensor with a known value")
    if fraction <= 0.0 or fraction > 1.0:
        raise ValueError("central_fraction must be within (0, 1]")
    if fraction == 1.0:
        return image
    _check_at_least_3d(image)
    rank = image.shape.rank
    if rank not in (3, 4):
        raise ValueError(f"`image` should either be a Tensor with rank = 3 or rank = 4. Had rank = {rank}.")
    dims = _image_dims(image, rank)
    h, w = dims[-3], dims[-2]

    def start(size):
        if isinstance(size, Tensor):
            as_double = _math.cast(size, _dt.float64)
            return _math.cast((as_double - as_double * fraction) / 2, _dt.int32)
        return int((float(size) - float(size) * fraction) / 2)

    top, left = start(h), start(w)
    begin = [top, left, 0] if rank == 3 else [0, top, left, 0]
    size = [h - top * 2, w - left * 2, -1] if rank == 3 else [-1, h - top * 2, w - left * 2, -1]
    return _indexing.slice(image, _join.stack(begin) if _either_tensor(*begin) else begin,
                           _join.stack(size) if _either_tensor(*size) else size)


def crop_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """`tf.image.crop_to_bounding_box`: the `target` box whose top-left corner is at the offsets."""
    image = convert_to_tensor(image)
    batch, is_batch = _as_batch(image)
    _check_at_least_3d(batch)
    offset_height, offset_width = _int_value(offset_height), _int_value(offset_width)
    target_height, target_width = _int_value(target_height), _int_value(target_width)
    _, height, width, _ = _image_dims(batch, 4)
    _require(offset_width >= 0, "offset_width must be >= 0.")
    _require(offset_height >= 0, "offset_height must be >= 0.")
    _require(target_width > 0, "target_width must be > 0.")
    _require(target_height > 0, "target_height must be > 0.")
    _require(width >= target_width + offset_width, "width must be >= target + offset.")
    _require(height >= target_height + offset_height, "height must be >= target + offset.")
    begin = [0, offset_height, offset_width, 0]
    size = [-1, target_height, target_width, -1]
    cropped = _indexing.slice(batch, _join.stack(begin) if _either_tensor(*begin) else begin,
                              _join.stack(size) if _either_tensor(*size) else size)
    cropped.set_shape(_known([batch.shape[0], target_height, target_width, batch.shape[3]]))
    return _unbatch(cropped, is_batch)


def pad_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """`tf.image.pad_to_bounding_box`: zero-pads to `target` size with the image at the offsets."""
    image = convert_to_tensor(image)
    batch, is_batch = _as_batch(image)
    offset_height, offset_width = _int_value(offset_height), _int_value(offset_width)
    target_height, target_width = _int_value(target_height), _int_value(target_width)
    _, height, width, _ = _image_dims(batch, 4)
    after_width = target_width - offset_width - width
    after_height = target_height - offset_height - height
    _check_at_least_3d(batch)
    _require(offset_height >= 0, "offset_height must be >= 0")
    _require(offset_width >= 0, "offset_width must be >= 0")
    _require(after_width >= 0, "width must be <= target - offset")
    _require(after_height >= 0, "height must be <= target - offset")
    amounts = [0, 0, offset_height, after_height, offset_width, after_width, 0, 0]
    if _either_tensor(*amounts):
        paddings = _shaping.reshape(_join.stack([_int_value(a) if isinstance(a, Tensor) else a for a in amounts]),
                                  [4, 2])
    else:
        paddings = np.reshape(np.asarray(amounts, np.int32), (4, 2))
    padded = _padding.pad(batch, paddings)
    padded.set_shape(_known([_image_dims(batch, 4)[0], target_height, target_width, batch.shape[3]]))
    return _unbatch(padded, is_batch)


def resize_with_crop_or_pad(image, target_height, target_width):
    """`tf.image.resize_with_crop_or_pad`: centre-crops and/or zero-pads to the target size."""
    image = convert_to_tensor(image)
    batch, is_batch = _as_batch(image)
    _check_at_least_3d(batch)
    target_height, target_width = _int_value(target_height), _int_value(target_width)
    _require(target_width > 0, "target_width must be > 0.")
    _require(target_height > 0, "target_height must be > 0.")
    _, height, width, _ = _image_dims(batch, 4)
    width_diff, height_diff = target_width - width, target_height - height
    cropped = crop_to_bounding_box(batch, _max(-height_diff // 2, 0), _max(-width_diff // 2, 0),
                                   _min(target_height, height), _min(target_width, width))
    resized = pad_to_bounding_box(cropped, _max(height_diff // 2, 0), _max(width_diff // 2, 0),
                                  target_height, target_width)
    return _unbatch(resized, is_batch)


# -- random augmentation ---------------------------------------------------------------------------------
def _random_flip(image, axis, seed):
    image = convert_to_tensor(image)
    _check_at_least_3d(image)
    rank = image.shape.rank
    if rank is not None and rank not in (3, 4):
        raise ValueError(f"'image' (shape {image.shape}) must have either 3 or 4 dimensions.")
    flipped = _reorder.reverse(image, [axis])
    if rank == 3:
        draw = _random.uniform([], 0, 1.0, seed=seed)
        return _where.where(_logic.less(draw, 0.5), flipped, image)
    if rank is None:
        raise ValueError("'image' must have a known rank for random flips.")
    batch = _shape_ops.shape(image)[0] if image.shape[0] is None else image.shape[0]
    draws = _random.uniform(_join.stack([batch]) if isinstance(batch, Tensor) else [batch], 0, 1.0, seed=seed)
    flips = _math.cast(_math.round(_shaping.reshape(draws, [-1, 1, 1, 1])), image.dtype)
    return flips * flipped + (1 - flips) * image


def random_flip_left_right(image, seed=None):
    """`tf.image.random_flip_left_right`: mirrors each image horizontally with probability 1/2."""
    return _random_flip(image, -2, seed)


def random_flip_up_down(image, seed=None):
    """`tf.image.random_flip_up_down`: mirrors each image vertically with probability 1/2."""
    return _random_flip(image, -3, seed)


def random_brightness(image, max_delta, seed=None):
    """`tf.image.random_brightness`: adds a delta drawn from [-max_delta, max_delta)."""
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    return adjust_brightness(image, _random.uniform([], -max_delta, max_delta, seed=seed))


def random_contrast(image, lower, upper, seed=None):
    """`tf.image.random_contrast`: a contrast factor drawn from [lower, upper)."""
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")
    return adjust_contrast(image, _random.uniform([], lower, upper, seed=seed))


def random_saturation(image, lower, upper, seed=None):
    """`tf.image.random_saturation`: a saturation factor drawn from [lower, upper)."""
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")
    return adjust_saturation(image, _random.uniform([], lower, upper, seed=seed))


def random_hue(image, max_delta, seed=None):
    """`tf.image.random_hue`: a hue rotation drawn from [-max_delta, max_delta)."""
    if max_delta > 0.5:
        raise ValueError("max_delta must be <= 0.5.")
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    return adjust_hue(image, _random.uniform([], -max_delta, max_delta, seed=seed))


def random_crop(value, size, seed=None, name=None):
    """`tf.image.random_crop`: a `size` slice of `value` at a uniformly drawn offset."""
    value = convert_to_tensor(value)
    size = convert_to_tensor(size, dtype=_dt.int32)
    shape = _shape_ops.shape(value)
    _assertion.Assert(_reduce.reduce_all(_logic.greater_equal(shape, size)),
                    ["Need value.shape >= size, got ", shape, size], summarize=1000)
    limit = shape - size + 1
    offset = _math.floormod(_random.uniform(_shape_ops.shape(shape), maxval=_dt.int32.max, dtype=_dt.int32, seed=seed),
                            limit)
    return _indexing.slice(value, offset, size, name=name or "random_crop")


# -- image gradients, total variation, PSNR --------------------------------------------------------------
def image_gradients(image):
    """`tf.image.image_gradients`: forward differences (dy, dx), zero in the last row/column."""
    image = convert_to_tensor(image)
    if image.shape.rank != 4:
        raise ValueError(f"image_gradients expects a 4D tensor [batch_size, h, w, d], not {image.shape}.")
    dy = image[:, 1:, :, :] - image[:, :-1, :, :]
    dx = image[:, :, 1:, :] - image[:, :, :-1, :]
    dy = _padding.pad(dy, [[0, 0], [0, 1], [0, 0], [0, 0]])
    dx = _padding.pad(dx, [[0, 0], [0, 0], [0, 1], [0, 0]])
    return dy, dx


def total_variation(images, name=None):
    """`tf.image.total_variation`: sum of absolute neighbour differences (per image for a batch)."""
    images = convert_to_tensor(images)
    rank = images.shape.rank
    if rank == 3:
        down = images[1:, :, :] - images[:-1, :, :]
        across = images[:, 1:, :] - images[:, :-1, :]
        axis = None
    elif rank == 4:
        down = images[:, 1:, :, :] - images[:, :-1, :, :]
        across = images[:, :, 1:, :] - images[:, :, :-1, :]
        axis = [1, 2, 3]
    else:
        raise ValueError("'images' must be either 3 or 4-dimensional.")
    return _math.add(_reduce.reduce_sum(_math.abs(down), axis=axis), _reduce.reduce_sum(_math.abs(across), axis=axis),
                     name=name or "total_variation")


def psnr(a, b, max_val, name=None):
    """`tf.image.psnr`: peak signal-to-noise ratio per image, in float32 decibels."""
    a, b = convert_to_tensor(a), convert_to_tensor(b)
    shape_a, shape_b = a.shape.with_rank_at_least(3), b.shape.with_rank_at_least(3)
    shape_a[-3:].assert_is_compatible_with(shape_b[-3:])
    peak = convert_image_dtype(_math.cast(max_val, a.dtype), _dt.float32)
    a, b = convert_image_dtype(a, _dt.float32), convert_image_dtype(b, _dt.float32)
    mse = _reduce.reduce_mean(_math.squared_difference(a, b), [-3, -2, -1])
    return _math.subtract(20 * _math.log(peak) / _math.log(10.0),
                          np.float32(10 / np.log(10)) * _math.log(mse), name=name or "psnr")


# -- ExtractImagePatches ---------------------------------------------------------------------------------
def _window_plan(size, k, stride, rate, padding):
    """(output size, padding before) along one axis, with TensorFlow's SAME/VALID rules."""
    effective = (k - 1) * rate + 1
    if padding == "VALID":
        return max(-(-(size - effective + 1) // stride), 0), 0
    out = -(-size // stride)
    return out, max((out - 1) * stride + effective - size, 0) // 2


def _patch_indices(image_shape, ksizes, strides, rates, padding):
    """Row and column indices (into the zero-padded image) of every patch tap, plus the padding."""
    _, h, w, _ = image_shape
    out_h, pad_top = _window_plan(h, ksizes[1], strides[1], rates[1], padding)
    out_w, pad_left = _window_plan(w, ksizes[2], strides[2], rates[2], padding)
    rows = np.arange(out_h)[:, None] * strides[1] + np.arange(ksizes[1]) * rates[1]   # [out_h, kh]
    cols = np.arange(out_w)[:, None] * strides[2] + np.arange(ksizes[2]) * rates[2]   # [out_w, kw]
    return rows, cols, pad_top, pad_left


def _padded_extent(size, pad_before, taps):
    """Length of the zero-padded axis: the image after `pad_before`, or further if a tap reaches past it."""
    return max(int(taps.max(initial=-1)) + 1, pad_before + size)


def _extract_patches_kernel(images, ksizes, strides, rates, padding):
    if images.ndim != 4:
        raise errors.InvalidArgumentError(None, None, f"input must be 4-dimensional"
                                                      f"[{','.join(str(d) for d in images.shape)}]")
    rows, cols, pad_top, pad_left = _patch_indices(images.shape, ksizes, strides, rates, padding)
    _, h, w, _ = images.shape
    padded = np.pad(images, [(0, 0), (pad_top, _padded_extent(h, pad_top, rows) - pad_top - h),
                             (pad_left, _padded_extent(w, pad_left, cols) - pad_left - w), (0, 0)])
    patches = padded[:, rows[:, None, :, None], cols[None, :, None, :], :]   # [B, oh, ow, kh, kw, C]
    b, oh, ow, kh, kw, c = patches.shape
    return patches.reshape(b, oh, ow, kh * kw * c)


def _extract_patches_grad_kernel(grad, images, ksizes, strides, rates, padding):
    rows, cols, pad_top, pad_left = _patch_indices(images.shape, ksizes, strides, rates, padding)
    b, h, w, c = images.shape
    padded = np.zeros((b, _padded_extent(h, pad_top, rows), _padded_extent(w, pad_left, cols), c), grad.dtype)
    _, oh, ow, _ = grad.shape
    taps = grad.reshape(b, oh, ow, rows.shape[1], cols.shape[1], c)
    r = np.broadcast_to(rows[:, None, :, None], taps.shape[1:5])
    col = np.broadcast_to(cols[None, :, None, :], taps.shape[1:5])
    np.add.at(padded, (slice(None), r, col), taps)   # sums every tap back onto its pixel
    return padded[:, pad_top:pad_top + h, pad_left:pad_left + w].copy()


def _infer_extract_patches(inputs, attrs):
    x = inputs[0]
    if x.shape.rank is not None and x.shape.rank != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {x.shape.rank} for '{{{{node ExtractImagePatches}}}}'")
    if x.shape.rank is None:
        return [(x.dtype, TensorShape([None] * 4))]
    b, h, w, c = x.shape.as_list()
    ks, st, rt, pad = attrs["ksizes"], attrs["strides"], attrs["rates"], attrs["padding"]
    oh = None if h is None else _window_plan(h, ks[1], st[1], rt[1], pad)[0]
    ow = None if w is None else _window_plan(w, ks[2], st[2], rt[2], pad)[0]
    return [(x.dtype, TensorShape([b, oh, ow, None if c is None else ks[1] * ks[2] * c]))]


def _infer_extract_patches_grad(inputs, attrs):
    return [(inputs[0].dtype, inputs[1].shape)]


def _extract_patches_grad(op, grad):
    return [apply(EXTRACT_IMAGE_PATCHES_GRAD, (grad, op.inputs[0]), dict(op.attrs), "ExtractImagePatchesGrad")]


def _extract_patches_grad_grad(op, grad):
    return [apply(EXTRACT_IMAGE_PATCHES, (grad,), dict(op.attrs), "ExtractImagePatches"), None]


EXTRACT_IMAGE_PATCHES = OpDef("ExtractImagePatches", _infer_extract_patches, _extract_patches_kernel,
                              grad=_extract_patches_grad, allowed=NUMBER + (_dt.bool,), input_names=("images",))
# Not a TensorFlow op (TensorFlow differentiates through a sparse matmul): the scatter-add of patch
# gradients back onto the image, computed directly.
EXTRACT_IMAGE_PATCHES_GRAD = OpDef("ExtractImagePatchesGrad", _infer_extract_patches_grad,
                                   _extract_patches_grad_kernel, grad=_extract_patches_grad_grad,
                                   input_names=("grad", "images"))


def _four_ints(value, what):
    items = list(value) if isinstance(value, (list, tuple)) else None
    if items is None or len(items) != 4:
        raise ValueError(f"Attr '{what}' of 'ExtractImagePatches' Op passed list of length "
                         f"{len(items) if items is not None else 'unknown'} less than minimum 4.")
    return tuple(int(v) for v in items)


def extract_patches(images, sizes, strides, rates, padding, name=None):
    """`tf.image.extract_patches`: every `sizes` window (with `strides`, dilated by `rates`) flattened
    into the depth axis: [batch, out_rows, out_cols, size_rows * size_cols * depth]."""
    images = convert_to_tensor(images)
    ksizes, strides, rates = _four_ints(sizes, "ksizes"), _four_ints(strides, "strides"), _four_ints(rates, "rates")
    if ksizes[0] != 1 or ksizes[3] != 1 or strides[0] != 1 or strides[3] != 1 or rates[0] != 1 or rates[3] != 1:
        raise errors.InvalidArgumentError(
            None, "ExtractImagePatches", "Only support ksizes across space.")
    if min(ksizes + strides + rates) < 1:
        raise errors.InvalidArgumentError(None, "ExtractImagePatches", "sizes, strides and rates must be positive")
    padding = padding.upper() if isinstance(padding, str) else padding
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"Value for attr 'padding' of \"{padding}\" is not in the list of allowed values: "
                         f"\"SAME\", \"VALID\"")
    return apply(EXTRACT_IMAGE_PATCHES, (images,),
                 {"ksizes": ksizes, "strides": strides, "rates": rates, "padding": padding},
                 name or "ExtractImagePatches")


API = {
    "image": ["ResizeMethod", "resize", "resize_with_pad", "flip_left_right", "flip_up_down", "rot90", "transpose",
              "central_crop", "crop_to_bounding_box", "pad_to_bounding_box", "resize_with_crop_or_pad",
              "convert_image_dtype", "adjust_brightness", "adjust_contrast", "adjust_saturation", "adjust_hue",
              "rgb_to_hsv", "hsv_to_rgb", "rgb_to_grayscale", "grayscale_to_rgb", "per_image_standardization",
              "random_flip_left_right", "random_flip_up_down", "random_brightness", "random_contrast",
              "random_saturation", "random_hue", "random_crop", "image_gradients", "total_variation",
              "extract_patches", "psnr"],
}
