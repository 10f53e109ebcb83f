"""Image resampling ops behind `tf.image.resize`: ResizeBilinear, ResizeNearestNeighbor, ResizeBicubic,
ResizeArea and ScaleAndTranslate, with their gradient ops.

Every method is separable: an output row mixes input rows with weights that depend only on the two
heights, and likewise for columns. The kernels therefore build a small per-axis table (indices and
weights, or a dense `[out, in]` weight matrix) and apply it with a gather or two matrix products, so
there is no loop over pixels. The tables follow TensorFlow's kernels with `half_pixel_centers=True`
(the TF2 behaviour): bilinear interpolates `(i + 0.5) * in/out - 0.5` between its floor and ceil
(clamped), nearest takes `floor((i + 0.5) * in/out)`, bicubic uses Keys' cubic (a = -0.5) sampled from
a 1024-entry table with taps outside the image dropped and the rest renormalised, area averages the
covered input cells, and ScaleAndTranslate (lanczos, gaussian, mitchellcubic, and the antialiased
bilinear/bicubic) evaluates a filter kernel widened by the downscale factor when antialiasing.
Coordinates are computed in float32, as TensorFlow does, so the sampled positions agree exactly.
A gradient op is the transpose of its forward weights applied to the incoming gradient.
"""
import numpy as np

from ...framework import errors
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..shapes import shape_ops as _shape_ops
from ..shapes.common import partial_dims
from ..registry import OpDef, apply, constant_value, FLOAT, REAL

__all__ = ["RESIZE_BILINEAR", "RESIZE_BILINEAR_GRAD", "RESIZE_NEAREST_NEIGHBOR", "RESIZE_NEAREST_NEIGHBOR_GRAD",
           "RESIZE_BICUBIC", "RESIZE_BICUBIC_GRAD", "RESIZE_AREA", "SCALE_AND_TRANSLATE",
           "SCALE_AND_TRANSLATE_GRAD", "resize_bilinear", "resize_nearest_neighbor", "resize_bicubic",
           "resize_area", "scale_and_translate"]

_F32 = np.float32
_RESIZE_TYPES = tuple(d for d in REAL if d not in (_dt.uint32, _dt.uint64))


# -- checks and static inference -------------------------------------------------------------------------
def _bad(message):
    return errors.InvalidArgumentError(None, None, message)


def _check_images_and_size(images, size):
    if images.ndim != 4:
        raise _bad(f"input must be 4-dimensional[{','.join(str(d) for d in images.shape)}]")
    if size.shape != (2,):
        raise _bad(f"shape_t must be 1-dimensional with 2 elements "
                   f"[{','.join(str(d) for d in size.shape)}]")
    out_h, out_w = int(size[0]), int(size[1])
    if out_h <= 0 or out_w <= 0:
        raise _bad("output dimensions must be positive")
    if images.shape[1] <= 0 or images.shape[2] <= 0:
        raise _bad("input image must be of non-zero size")
    return out_h, out_w


def _static_size(size_tensor):
    value = constant_value(size_tensor)
    if value is not None and np.shape(value) == (2,):
        return [int(d) for d in np.asarray(value)]
    partial = partial_dims(size_tensor)       # a size known in part (tf.shape(...)), as TensorFlow
    if partial is not None and len(partial) == 2:
        return [d if d is not None and d >= 0 else None for d in partial]
    return [None, None]


def _check_rank(shape, rank, op_name, what="input"):
    if shape.rank is not None and shape.rank != rank:
        raise ValueError(f"Shape must be rank {rank} but is rank {shape.rank} for '{{{{node {op_name}}}}}' "
                         f"({what})")


def _infer_resize(dtype_fn, op_name):
    def infer(inputs, attrs):
        images, size = inputs[0], inputs[1]
        _check_rank(images.shape, 4, op_name)
        _check_rank(size.shape, 1, op_name, "size")
        dtype = dtype_fn(images.dtype)
        if images.shape.rank is None:
            batch = depth = None
        else:
            batch, _, _, depth = images.shape.as_list()
        h, w = _static_size(size)
        return [(dtype, TensorShape([batch, h, w, depth]))]
    return infer


def _always_float32(dtype):
    return _dt.float32


def _same_dtype(dtype):
    return dtype


def _infer_grad_like_original(inputs, attrs):
    """Gradient ops: the original image's dtype and shape (its spatial size comes from that input)."""
    return [(inputs[1].dtype, inputs[1].shape)]


def _infer_nearest_grad(inputs, attrs):
    grads = inputs[0]
    batch, depth = (None, None) if grads.shape.rank is None else (grads.shape[0], grads.shape[3])
    h, w = _static_size(inputs[1])
    return [(grads.dtype, TensorShape([batch, h, w, depth]))]


# -- per-axis sampling tables ----------------------------------------------------------------------------
def _scale(in_size, out_size):
    return _F32(in_size) / _F32(out_size)


def _linear_taps(in_size, out_size):
    """Lower index, upper index and float32 fraction of every output position (bilinear)."""
    pos = (np.arange(out_size, dtype=_F32) + _F32(0.5)) * _scale(in_size, out_size) - _F32(0.5)
    floor = np.floor(pos)
    lower = np.maximum(floor, 0).astype(np.int64)
    upper = np.minimum(np.ceil(pos), in_size - 1).astype(np.int64)
    return lower, upper, (pos - floor).astype(_F32)


def _linear_matrix(in_size, out_size):
    lower, upper, frac = _linear_taps(in_size, out_size)
    w = np.zeros((out_size, in_size), _F32)
    rows = np.arange(out_size)
    np.add.at(w, (rows, lower), _F32(1) - frac)
    np.add.at(w, (rows, upper), frac)
    return w


def _nearest_index(in_size, out_size):
    pos = (np.arange(out_size, dtype=_F32) + _F32(0.5)) * _scale(in_size, out_size)
    return np.clip(np.floor(pos).astype(np.int64), 0, in_size - 1)


def _keys_table():
    """TensorFlow's cubic coefficient table: Keys' kernel (a = -0.5) at 1025 fractional offsets."""
    a = -0.5
    x = np.arange(1025, dtype=np.float64) / 1024
    table = np.empty((1025, 2), _F32)
    table[:, 0] = ((a + 2) * x - (a + 3)) * x * x + 1
    x1 = x + 1
    table[:, 1] = ((a * x1 - 5 * a) * x1 + 8 * a) * x1 - 4 * a
    return table


_KEYS_TABLE = _keys_table()


def _cubic_matrix(in_size, out_size):
    pos = (np.arange(out_size, dtype=_F32) + _F32(0.5)) * _scale(in_size, out_size) - _F32(0.5)
    base = np.floor(pos).astype(np.int64)
    offset = np.rint((pos - np.floor(pos)) * _F32(1024)).astype(np.int64)
    weights = np.stack([_KEYS_TABLE[offset, 1], _KEYS_TABLE[offset, 0],
                        _KEYS_TABLE[1024 - offset, 0], _KEYS_TABLE[1024 - offset, 1]], axis=1)
    taps = base[:, None] + np.arange(-1, 3)
    inside = (taps >= 0) & (taps < in_size)
    weights = np.where(inside, weights, _F32(0))
    total = weights.sum(axis=1, dtype=_F32, keepdims=True)
    usable = np.abs(total) >= _F32(1000) * np.finfo(_F32).tiny
    weights = np.where(usable, weights / np.where(usable, total, _F32(1)), weights).astype(_F32)
    w = np.zeros((out_size, in_size), _F32)
    rows = np.broadcast_to(np.arange(out_size)[:, None], taps.shape)
    np.add.at(w, (rows, np.clip(taps, 0, in_size - 1)), weights)
    return w


def _area_matrix(in_size, out_size):
    """Overlap of output cell i (input span [i*s, (i+1)*s)) with every input cell, in float32."""
    scale = _scale(in_size, out_size)
    out = np.arange(out_size, dtype=_F32)
    start, stop = out * scale, (out + _F32(1)) * scale
    first = np.floor(start).astype(np.int64)
    count = int(np.max(np.ceil(stop).astype(np.int64) - first))
    cells = first[:, None] + np.arange(count)
    cell_f = cells.astype(_F32)
    overlap = np.minimum(cell_f + _F32(1), stop[:, None]) - np.maximum(cell_f, start[:, None])
    overlap = np.where(cells < np.ceil(stop).astype(np.int64)[:, None], overlap, _F32(0)).astype(_F32)
    w = np.zeros((out_size, in_size), _F32)
    rows = np.broadcast_to(np.arange(out_size)[:, None], cells.shape)
    np.add.at(w, (rows, np.clip(cells, 0, in_size - 1)), overlap)
    return w


# Filter kernels of ScaleAndTranslate: (radius, function of |x|).
def _lanczos(radius):
    def kernel(x):
        px = x.astype(np.float64) * np.pi
        safe = np.where(px <= 1e-3, 1.0, px)
        value = radius * np.sin(safe) * np.sin(safe / radius) / (safe * safe)
        return np.where(x > radius, 0.0, np.where(px <= 1e-3, 1.0, value))
    return radius, kernel


def _gaussian(x):
    sigma = 1.5 / 3.0
    return np.where(x >= 1.5, 0.0, np.exp(-x.astype(np.float64) ** 2 / (2 * sigma * sigma)))


def _triangle(x):
    return np.where(x < 1, 1.0 - x, 0.0)


def _box(x):
    return np.where(x < 0.5, 1.0, np.where(x == 0.5, 0.5, 0.0))


def _keys_cubic(x):
    x = x.astype(np.float64)
    return np.where(x >= 2, 0.0, np.where(x >= 1, ((-0.5 * x + 2.5) * x - 4) * x + 2,
                                          ((1.5 * x - 2.5) * x) * x + 1))


def _mitchell_cubic(x):
    x = x.astype(np.float64)
    return np.where(x >= 2, 0.0, np.where(x >= 1, (((-7.0 / 18) * x + 2) * x - 10.0 / 3) * x + 16.0 / 9,
                                          (((7.0 / 6) * x - 2) * x) * x + 8.0 / 9))


FILTERS = {"lanczos1": _lanczos(1), "lanczos3": _lanczos(3), "lanczos5": _lanczos(5),
           "gaussian": (1.5, _gaussian), "box": (1.0, _box), "triangle": (1.0, _triangle),
           "keyscubic": (2.0, _keys_cubic), "mitchellcubic": (2.0, _mitchell_cubic)}


def _filter_matrix(in_size, out_size, scale, translate, kernel_type, antialias):
    radius, kernel = FILTERS[kernel_type]
    inv_scale = _F32(1) / _F32(scale)
    inv_translate = -inv_scale * _F32(translate)
    kernel_scale = max(inv_scale, _F32(1)) if antialias else _F32(1)
    reach = _F32(radius) * kernel_scale
    sample = (np.arange(out_size, dtype=_F32) + _F32(0.5)) * inv_scale + inv_translate
    start = np.clip(np.ceil(sample - reach - _F32(0.5)).astype(np.int64), 0, in_size - 1)
    stop = np.clip(np.floor(sample + reach - _F32(0.5)).astype(np.int64), 0, in_size - 1) + 1
    span = min(2 * int(np.ceil(radius * kernel_scale)) + 1, in_size)
    taps = start[:, None] + np.arange(max(span, int(np.max(stop - start))))
    valid = (taps < stop[:, None]) & ((sample >= 0) & (sample <= in_size))[:, None]
    distance = np.abs((taps.astype(_F32) + _F32(0.5) - sample[:, None]) / kernel_scale)
    weights = np.where(valid, kernel(distance), 0.0).astype(_F32)
    total = weights.sum(axis=1, dtype=_F32, keepdims=True)
    usable = np.abs(total) >= _F32(1000) * np.finfo(_F32).tiny
    weights = np.where(usable, weights / np.where(usable, total, _F32(1)), _F32(0)).astype(_F32)
    w = np.zeros((out_size, in_size), _F32)
    rows = np.broadcast_to(np.arange(out_size)[:, None], taps.shape)
    np.add.at(w, (rows, np.clip(taps, 0, in_size - 1)), weights)
    return w


def _separable(x, wy, wx):
    """`x` [B, H, W, C] mixed by `wy` [H', H] along rows and `wx` [W', W] along columns."""
    b, h, w, c = x.shape
    rows = np.matmul(wy.astype(x.dtype, copy=False), x.reshape(b, h, w * c))     # [B, H', W*C]
    rows = rows.reshape(b * wy.shape[0], w, c)
    return np.matmul(wx.astype(x.dtype, copy=False), rows).reshape(b, wy.shape[0], wx.shape[0], c)


def _separable_transpose(g, wy, wx):
    return _separable(g, wy.T, wx.T)


# -- kernels ---------------------------------------------------------------------------------------------
def _as_f32(images):
    return images.astype(_F32, copy=False)


def _bilinear_kernel(images, size):
    out_h, out_w = _check_images_and_size(images, size)
    x = _as_f32(images)
    _, in_h, in_w, _ = x.shape
    top, bottom, y_frac = _linear_taps(in_h, out_h)
    left, right, x_frac = _linear_taps(in_w, out_w)
    x_frac = x_frac[None, None, :, None]
    upper_rows, lower_rows = x[:, top], x[:, bottom]
    top_row = upper_rows[:, :, left] + (upper_rows[:, :, right] - upper_rows[:, :, left]) * x_frac
    bottom_row = lower_rows[:, :, left] + (lower_rows[:, :, right] - lower_rows[:, :, left]) * x_frac
    return (top_row + (bottom_row - top_row) * y_frac[None, :, None, None]).astype(_F32, copy=False)


def _bilinear_grad_kernel(grads, original_image):
    _, h, w, _ = original_image.shape
    wy, wx = _linear_matrix(h, grads.shape[1]), _linear_matrix(w, grads.shape[2])
    return _separable_transpose(_as_f32(grads), wy, wx).astype(original_image.dtype, copy=False)


def _nearest_kernel(images, size):
    out_h, out_w = _check_images_and_size(images, size)
    _, in_h, in_w, _ = images.shape
    return images[:, _nearest_index(in_h, out_h)][:, :, _nearest_index(in_w, out_w)]


def _one_hot(index, in_size, dtype):
    w = np.zeros((index.size, in_size), dtype)
    w[np.arange(index.size), index] = 1
    return w


def _nearest_grad_kernel(grads, size):
    if size.shape != (2,):
        raise _bad(f"shape_t must be 1-dimensional with 2 elements [{','.join(str(d) for d in size.shape)}]")
    h, w = int(size[0]), int(size[1])
    wy = _one_hot(_nearest_index(h, grads.shape[1]), h, grads.dtype)
    wx = _one_hot(_nearest_index(w, grads.shape[2]), w, grads.dtype)
    return _separable_transpose(grads, wy, wx)


def _bicubic_kernel(images, size):
    out_h, out_w = _check_images_and_size(images, size)
    _, in_h, in_w, _ = images.shape
    return _separable(_as_f32(images), _cubic_matrix(in_h, out_h), _cubic_matrix(in_w, out_w))


def _bicubic_grad_kernel(grads, original_image):
    _, h, w, _ = original_image.shape
    wy, wx = _cubic_matrix(h, grads.shape[1]), _cubic_matrix(w, grads.shape[2])
    return _separable_transpose(_as_f32(grads), wy, wx).astype(original_image.dtype, copy=False)


def _area_kernel(images, size):
    out_h, out_w = _check_images_and_size(images, size)
    _, in_h, in_w, _ = images.shape
    scale = _F32(1) / (_scale(in_h, out_h) * _scale(in_w, out_w))
    out = _separable(_as_f32(images), _area_matrix(in_h, out_h), _area_matrix(in_w, out_w))
    return (out * scale).astype(_F32, copy=False)


def _check_pair(value, what):
    if np.shape(value) != (2,):
        raise _bad(f"{what} must be 1-dimensional with 2 elements")


def _scale_and_translate_matrices(in_h, in_w, out_h, out_w, scale, translation, kernel_type, antialias):
    _check_pair(scale, "scale")
    _check_pair(translation, "translation")
    if scale[0] <= 0 or scale[1] <= 0:
        raise _bad("Scale must be positive")
    wy = _filter_matrix(in_h, out_h, scale[0], translation[0], kernel_type, antialias)
    wx = _filter_matrix(in_w, out_w, scale[1], translation[1], kernel_type, antialias)
    return wy, wx


def _scale_and_translate_kernel(images, size, scale, translation, kernel_type, antialias):
    out_h, out_w = _check_images_and_size(images, size)
    _, in_h, in_w, _ = images.shape
    wy, wx = _scale_and_translate_matrices(in_h, in_w, out_h, out_w, scale, translation, kernel_type, antialias)
    return _separable(_as_f32(images), wy, wx)


def _scale_and_translate_grad_kernel(grads, original_image, scale, translation, kernel_type, antialias):
    _, h, w, _ = original_image.shape
    wy, wx = _scale_and_translate_matrices(h, w, grads.shape[1], grads.shape[2], scale, translation,
                                           kernel_type, antialias)
    return _separable_transpose(_as_f32(grads), wy, wx).astype(original_image.dtype, copy=False)


def _infer_scale_and_translate(inputs, attrs):
    return _infer_resize(_always_float32, "ScaleAndTranslate")(inputs[:2], attrs)


# -- gradients -------------------------------------------------------------------------------------------
def _float_image(op):
    return op.inputs[0].dtype in FLOAT


def _bilinear_grad(op, grad):
    if not _float_image(op):
        return [None, None]
    return [apply(RESIZE_BILINEAR_GRAD, (grad, op.inputs[0]), None, "ResizeBilinearGrad"), None]


def _bicubic_grad(op, grad):
    if not _float_image(op):
        return [None, None]
    return [apply(RESIZE_BICUBIC_GRAD, (grad, op.inputs[0]), None, "ResizeBicubicGrad"), None]


def _nearest_grad(op, grad):
    size = _shape_ops.shape(op.inputs[0])[1:3]
    return [apply(RESIZE_NEAREST_NEIGHBOR_GRAD, (grad, size), None, "ResizeNearestNeighborGrad"), None]


def _scale_and_translate_grad(op, grad):
    x, _, scale, translation = op.inputs
    out = apply(SCALE_AND_TRANSLATE_GRAD, (grad, x, scale, translation), dict(op.attrs), "ScaleAndTranslateGrad")
    return [out, None, None, None]


RESIZE_BILINEAR = OpDef("ResizeBilinear", _infer_resize(_always_float32, "ResizeBilinear"), _bilinear_kernel,
                        grad=_bilinear_grad, allowed=_RESIZE_TYPES, input_names=("images", "size"))
RESIZE_BILINEAR_GRAD = OpDef("ResizeBilinearGrad", _infer_grad_like_original, _bilinear_grad_kernel,
                             allowed=(_dt.float32,), input_names=("grads", "original_image"))
RESIZE_NEAREST_NEIGHBOR = OpDef("ResizeNearestNeighbor", _infer_resize(_same_dtype, "ResizeNearestNeighbor"),
                                _nearest_kernel, grad=_nearest_grad, allowed=_RESIZE_TYPES,
                                input_names=("images", "size"))
RESIZE_NEAREST_NEIGHBOR_GRAD = OpDef("ResizeNearestNeighborGrad", _infer_nearest_grad, _nearest_grad_kernel,
                                     allowed=FLOAT + (_dt.uint8, _dt.int8, _dt.int32), input_names=("grads", "size"))
RESIZE_BICUBIC = OpDef("ResizeBicubic", _infer_resize(_always_float32, "ResizeBicubic"), _bicubic_kernel,
                       grad=_bicubic_grad, allowed=_RESIZE_TYPES, input_names=("images", "size"))
RESIZE_BICUBIC_GRAD = OpDef("ResizeBicubicGrad", _infer_grad_like_original, _bicubic_grad_kernel,
                            allowed=(_dt.float32,), input_names=("grads", "original_image"))
RESIZE_AREA = OpDef("ResizeArea", _infer_resize(_always_float32, "ResizeArea"), _area_kernel,
                    allowed=_RESIZE_TYPES, input_names=("images", "size"))
SCALE_AND_TRANSLATE = OpDef("ScaleAndTranslate", _infer_scale_and_translate, _scale_and_translate_kernel,
                            grad=_scale_and_translate_grad, allowed=_RESIZE_TYPES,
                            input_names=("images", "size", "scale", "translation"))
SCALE_AND_TRANSLATE_GRAD = OpDef("ScaleAndTranslateGrad", _infer_grad_like_original, _scale_and_translate_grad_kernel,
                                 allowed=(_dt.float32,), input_names=("grads", "original_image"))


# -- raw-op style builders (4-D images, int32 size tensor) ------------------------------------------------
def resize_bilinear(images, size, name=None):
    return apply(RESIZE_BILINEAR, (images, size), None, name or "ResizeBilinear")


def resize_nearest_neighbor(images, size, name=None):
    return apply(RESIZE_NEAREST_NEIGHBOR, (images, size), None, name or "ResizeNearestNeighbor")


def resize_bicubic(images, size, name=None):
    return apply(RESIZE_BICUBIC, (images, size), None, name or "ResizeBicubic")


def resize_area(images, size, name=None):
    return apply(RESIZE_AREA, (images, size), None, name or "ResizeArea")


def scale_and_translate(images, size, scale, translation, kernel_type="lanczos3", antialias=True, name=None):
    if kernel_type not in FILTERS:
        raise errors.InvalidArgumentError(None, "ScaleAndTranslate", f"Unrecognized kernel type: {kernel_type}")
    return apply(SCALE_AND_TRANSLATE, (images, size, scale, translation),
                 {"kernel_type": kernel_type, "antialias": bool(antialias)}, name or "ScaleAndTranslate")
