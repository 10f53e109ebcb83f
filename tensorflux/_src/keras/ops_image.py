"""`keras.ops.image`: resizing, colour conversions, padding and cropping, patches, projective warps,
`map_coordinates`, Gaussian blur, Sobel edges and SSIM, on channels_last images ([batch,] height, width,
channels) unless `data_format="channels_first"`.

Warps follow TensorFlow's ImageProjectiveTransform convention (Keras' TensorFlow backend): the 8 numbers
[a0, a1, a2, b0, b1, b2, c0, c1] map an output point (x, y) to the input point
((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k) with k = c0 x + c1 y + 1.
"""
import numpy as np

import tensorflux as tf

from .ops_base import convert_to_tensor, floating, operation


def _last(images, data_format):
    images = convert_to_tensor(images)
    if data_format == "channels_first":
        rank = images.shape.rank
        images = tf.transpose(images, [0, 2, 3, 1] if rank == 4 else [1, 2, 0])
    return images


def _back(images, data_format):
    if data_format == "channels_first":
        rank = images.shape.rank
        images = tf.transpose(images, [0, 3, 1, 2] if rank == 4 else [2, 0, 1])
    return images


def _batched(images):
    return (images, False) if images.shape.rank == 4 else (tf.expand_dims(images, 0), True)


@operation
def resize(images, size, interpolation="bilinear", antialias=False, crop_to_aspect_ratio=False,
           pad_to_aspect_ratio=False, fill_mode="constant", fill_value=0.0, data_format=None):
    images = _last(images, data_format)
    height, width = images.shape[-3], images.shape[-2]
    target_h, target_w = size
    if crop_to_aspect_ratio:
        crop_h = min(height, int(round(width * target_h / target_w)))
        crop_w = min(width, int(round(height * target_w / target_h)))
        top, left = (height - crop_h) // 2, (width - crop_w) // 2
        images = images[..., top:top + crop_h, left:left + crop_w, :]
    elif pad_to_aspect_ratio:
        pad_h = max(height, int(round(width * target_h / target_w)))
        pad_w = max(width, int(round(height * target_w / target_h)))
        top, left = (pad_h - height) // 2, (pad_w - width) // 2
        spec = [[0, 0]] * (images.shape.rank - 3) + [[top, pad_h - height - top], [left, pad_w - width - left], [0, 0]]
        images = tf.pad(images, spec, constant_values=tf.cast(fill_value, images.dtype))
    result = tf.image.resize(images, (target_h, target_w), method=interpolation, antialias=antialias)
    return _back(result, data_format)


@operation
def rgb_to_grayscale(images, data_format=None):
    return _back(tf.image.rgb_to_grayscale(floating(_last(images, data_format))), data_format)


@operation
def rgb_to_hsv(images, data_format=None):
    return _back(tf.image.rgb_to_hsv(floating(_last(images, data_format))), data_format)


@operation
def hsv_to_rgb(images, data_format=None):
    return _back(tf.image.hsv_to_rgb(floating(_last(images, data_format))), data_format)


def _margins(size, first, last, target, names):
    if target is None:
        if first is None or last is None:
            raise ValueError(f"Provide either `{names[2]}` or both `{names[0]}` and `{names[1]}`.")
        return first, last
    if first is None and last is None:
        raise ValueError(f"Provide `{names[0]}` or `{names[1]}` with `{names[2]}`.")
    if first is None:
        return abs(target - size) - last, last
    return first, abs(target - size) - first


@operation
def pad_images(images, top_padding=None, left_padding=None, bottom_padding=None, right_padding=None,
               target_height=None, target_width=None, data_format=None):
    images = _last(images, data_format)
    height, width = images.shape[-3], images.shape[-2]
    top, bottom = _margins(height, top_padding, bottom_padding, target_height,
                           ("top_padding", "bottom_padding", "target_height"))
    left, right = _margins(width, left_padding, right_padding, target_width,
                           ("left_padding", "right_padding", "target_width"))
    spec = [[0, 0]] * (images.shape.rank - 3) + [[top, bottom], [left, right], [0, 0]]
    return _back(tf.pad(images, spec), data_format)


@operation
def crop_images(images, top_cropping=None, left_cropping=None, bottom_cropping=None, right_cropping=None,
                target_height=None, target_width=None, data_format=None):
    images = _last(images, data_format)
    height, width = images.shape[-3], images.shape[-2]
    top, bottom = _margins(height, top_cropping, bottom_cropping, target_height,
                           ("top_cropping", "bottom_cropping", "target_height"))
    left, right = _margins(width, left_cropping, right_cropping, target_width,
                           ("left_cropping", "right_cropping", "target_width"))
    return _back(images[..., top:height - bottom, left:width - right, :], data_format)


@operation
def extract_patches(images, size, strides=None, dilation_rate=1, padding="valid", data_format=None):
    """Patches of `size` as vectors: [batch, rows, cols, patch_h · patch_w · channels]."""
    images = _last(images, data_format)
    images, unbatched = _batched(images)
    kh, kw = (size, size) if isinstance(size, int) else size
    sh, sw = (kh, kw) if strides is None else ((strides, strides) if isinstance(strides, int) else strides)
    rate = dilation_rate if isinstance(dilation_rate, int) else dilation_rate[0]
    patches = tf.image.extract_patches(images, [1, kh, kw, 1], [1, sh, sw, 1], [1, rate, rate, 1], padding.upper())
    patches = patches[0] if unbatched else patches
    return _back(patches, data_format)


def _fill_index(coordinate, size, fill_mode):
    """Maps an out-of-range integer coordinate inside [0, size) as `fill_mode` says; returns (index, valid)."""
    if fill_mode == "constant":
        return tf.clip_by_value(coordinate, 0, size - 1), (coordinate >= 0) & (coordinate < size)
    if fill_mode == "nearest":
        return tf.clip_by_value(coordinate, 0, size - 1), tf.ones_like(coordinate, tf.bool)
    if fill_mode == "wrap":
        return tf.math.floormod(coordinate, size), tf.ones_like(coordinate, tf.bool)
    if fill_mode in ("reflect", "mirror"):
        period = 2 * size if fill_mode == "reflect" else max(2 * size - 2, 1)
        c = tf.math.floormod(coordinate, period)
        mirrored = (period - 1 - c) if fill_mode == "reflect" else (period - c)
        return tf.where(c >= size, mirrored, c), tf.ones_like(coordinate, tf.bool)
    raise ValueError(f"Invalid value for argument `fill_mode`. Expected one of {{'constant', 'nearest', 'wrap', "
                     f"'reflect', 'mirror'}}. Received: fill_mode={fill_mode}")


def _sample(images, x, y, interpolation, fill_mode, fill_value):
    """images [B, H, W, C] sampled at float coordinates x, y of shape [B, H', W']."""
    height, width = images.shape[1], images.shape[2]
    batch = tf.broadcast_to(tf.reshape(tf.range(tf.shape(images)[0]), [-1, 1, 1]), tf.shape(x))
    fill = tf.cast(fill_value, images.dtype)

    def gather(xi, yi):
        xi, valid_x = _fill_index(xi, width, fill_mode)
        yi, valid_y = _fill_index(yi, height, fill_mode)
        values = tf.gather_nd(images, tf.stack([batch, yi, xi], -1))
        return tf.where(tf.expand_dims(valid_x & valid_y, -1), values, fill)

    if interpolation == "nearest":
        return gather(tf.cast(tf.round(x), tf.int32), tf.cast(tf.round(y), tf.int32))
    if interpolation != "bilinear":
        raise ValueError(f"Invalid value for argument `interpolation`. Expected one of {{'nearest', 'bilinear'}}. "
                         f"Received: interpolation={interpolation}")
    x0, y0 = tf.floor(x), tf.floor(y)
    wx, wy = tf.expand_dims(x - x0, -1), tf.expand_dims(y - y0, -1)
    x0, y0 = tf.cast(x0, tf.int32), tf.cast(y0, tf.int32)
    top = gather(x0, y0) * (1 - wx) + gather(x0 + 1, y0) * wx
    bottom = gather(x0, y0 + 1) * (1 - wx) + gather(x0 + 1, y0 + 1) * wx
    return top * (1 - wy) + bottom * wy


@operation
def affine_transform(images, transform, interpolation="bilinear", fill_mode="constant", fill_value=0,
                     data_format=None):
    """`images` warped by projective transforms (one row of 8 numbers, or one per image)."""
    images = floating(_last(images, data_format))
    images, unbatched = _batched(images)
    transform = tf.cast(convert_to_tensor(transform), images.dtype)
    if transform.shape.rank == 1:
        transform = tf.expand_dims(transform, 0)
    transform = tf.broadcast_to(transform, tf.stack([tf.shape(images)[0], 8]))
    height, width = images.shape[1], images.shape[2]
    ys, xs = tf.meshgrid(tf.range(height, dtype=images.dtype), tf.range(width, dtype=images.dtype), indexing="ij")
    t = [tf.reshape(transform[:, i], [-1, 1, 1]) for i in range(8)]
    k = t[6] * xs + t[7] * ys + 1.0
    source_x = (t[0] * xs + t[1] * ys + t[2]) / k
    source_y = (t[3] * xs + t[4] * ys + t[5]) / k
    result = _sample(images, source_x, source_y, interpolation, fill_mode, fill_value)
    return _back(result[0] if unbatched else result, data_format)


def _projective_from_points(start, end):
    """The 8 transform numbers mapping each `end` point to its `start` point (output to input)."""
    start, end = np.asarray(start, np.float64), np.asarray(end, np.float64)
    rows, rhs = [], []
    for (x, y), (u, v) in zip(end, start):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y])
        rhs += [u, v]
    return np.linalg.solve(np.asarray(rows), np.asarray(rhs))


@operation
def perspective_transform(images, start_points, end_points, interpolation="bilinear", fill_value=0,
                          data_format=None):
    """`images` warped so that the four `start_points` ([x, y] corners) land on `end_points`."""
    start = np.asarray(convert_to_tensor(start_points))
    end = np.asarray(convert_to_tensor(end_points))
    if start.ndim == 2:
        start, end = start[None], end[None]
    transforms = np.stack([_projective_from_points(s, e) for s, e in zip(start, end)]).astype(np.float32)
    return affine_transform(images, tf.constant(transforms), interpolation, "constant", fill_value, data_format)


@operation
def map_coordinates(inputs, coordinates, order, fill_mode="constant", fill_value=0):
    """`inputs` sampled at `coordinates` (one array per input axis) by nearest (order 0) or linear
    (order 1) interpolation."""
    inputs = convert_to_tensor(inputs)
    coordinates = [floating(c) for c in (tf.unstack(convert_to_tensor(coordinates)) if not isinstance(
        coordinates, (list, tuple)) else coordinates)]
    if order not in (0, 1):
        raise ValueError(f"Invalid value for argument `order`. Expected one of {{0, 1}}. Received: order={order}")
    shape = inputs.shape.as_list()
    fill = tf.cast(fill_value, inputs.dtype)

    def gather(indices):
        fixed, valid = zip(*[_fill_index(i, size, fill_mode) for i, size in zip(indices, shape)])
        ok = fixed and valid[0]
        for v in valid[1:]:
            ok = ok & v
        return tf.where(ok, tf.gather_nd(inputs, tf.stack(fixed, -1)), fill)

    if order == 0:
        return gather([tf.cast(tf.round(c), tf.int32) for c in coordinates])
    lows = [tf.floor(c) for c in coordinates]
    weights = [c - low for c, low in zip(coordinates, lows)]
    lows = [tf.cast(low, tf.int32) for low in lows]
    result = None
    for corner in np.ndindex(*([2] * len(coordinates))):
        weight = None
        for w, bit in zip(weights, corner):
            factor = w if bit else 1.0 - w
            weight = factor if weight is None else weight * factor
        term = tf.cast(weight, inputs.dtype) * gather([low + bit for low, bit in zip(lows, corner)])
        result = term if result is None else result + term
    return result


def _gaussian(size, sigma):
    x = np.arange(size, dtype=np.float64) - (size - 1) / 2.0
    kernel = np.exp(-0.5 * (x / sigma) ** 2)
    return kernel / kernel.sum()


@operation
def gaussian_blur(images, kernel_size=(3, 3), sigma=(1.0, 1.0), data_format=None):
    """Each channel convolved with a separable Gaussian (zero padding, "same" size)."""
    images = floating(_last(images, data_format))
    images, unbatched = _batched(images)
    kh, kw = kernel_size
    kernel = np.outer(_gaussian(kh, sigma[0]), _gaussian(kw, sigma[1]))
    channels = images.shape[-1]
    kernel = tf.constant(np.tile(kernel[:, :, None, None], (1, 1, channels, 1)), images.dtype)
    result = tf.nn.depthwise_conv2d(images, kernel, [1, 1, 1, 1], "SAME")
    return _back(result[0] if unbatched else result, data_format)


@operation
def sobel_edges(images, data_format=None):
    """Sobel gradients [..., channels, 2] (dy, dx) of each channel, reflect-padded (TensorFlow's)."""
    images = floating(_last(images, data_format))
    images, unbatched = _batched(images)
    dy = np.array([[-1, -2, -1], [0, 0, 0], [1, 2, 1]], np.float64)
    channels = images.shape[-1]
    kernels = np.stack([dy, dy.T], -1)                                       # [3, 3, 2]
    kernel = tf.constant(np.tile(kernels[:, :, None, :], (1, 1, channels, 1)), images.dtype)
    padded = tf.pad(images, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")
    result = tf.nn.depthwise_conv2d(padded, kernel, [1, 1, 1, 1], "VALID")
    result = tf.reshape(result, [-1, result.shape[1], result.shape[2], channels, 2])
    return result[0] if unbatched else result


@operation
def ssim(image1, image2, max_val=1.0, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03, data_format=None):
    """The structural similarity of two images (Gaussian-weighted local statistics, averaged per image)."""
    image1, image2 = floating(_last(image1, data_format)), floating(_last(image2, data_format))
    image1, unbatched = _batched(image1)
    image2, _ = _batched(image2)
    channels = image1.shape[-1]
    window = np.outer(_gaussian(filter_size, filter_sigma), _gaussian(filter_size, filter_sigma))
    kernel = tf.constant(np.tile(window[:, :, None, None], (1, 1, channels, 1)), image1.dtype)

    def blur(x):
        return tf.nn.depthwise_conv2d(x, kernel, [1, 1, 1, 1], "VALID")

    c1, c2 = (k1 * max_val) ** 2, (k2 * max_val) ** 2
    mu1, mu2 = blur(image1), blur(image2)
    sigma1 = blur(image1 * image1) - mu1 * mu1
    sigma2 = blur(image2 * image2) - mu2 * mu2
    sigma12 = blur(image1 * image2) - mu1 * mu2
    luminance = (2 * mu1 * mu2 + c1) / (mu1 * mu1 + mu2 * mu2 + c1)
    structure = (2 * sigma12 + c2) / (sigma1 + sigma2 + c2)
    result = tf.reduce_mean(luminance * structure, axis=[1, 2, 3])
    return result[0] if unbatched else result


API = {"keras.ops.image": ["resize", "rgb_to_grayscale", "rgb_to_hsv", "hsv_to_rgb", "pad_images", "crop_images",
                           "extract_patches", "affine_transform", "perspective_transform", "map_coordinates",
                           "gaussian_blur", "sobel_edges", "ssim"]}
