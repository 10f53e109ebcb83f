"""`tf.io.encode_jpeg` and the JPEG-quality image adjustments (`tf.image.adjust_jpeg_quality`,
`random_jpeg_quality`, `stateless_random_jpeg_quality`): encode at a quality, decode again, so an image
carries the artefacts of that compression -- byte for byte and pixel for pixel what TensorFlow 2.21 gives.

    noisy = tf.image.adjust_jpeg_quality(image, 30)   # same shape and dtype as `image`
"""
import numpy as np

from ...framework import errors
from ...framework.context import executing_eagerly
from ...framework.tensor import Tensor
from ...ops.convert import convert_to_tensor
from ...ops.image.color import convert_image_dtype
from ...ops.random.stateful import uniform
from ...ops.random.stateless import stateless_uniform
from ...ops.registry import OpDef, apply
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from . import image_ops, jpeg_encode

_FORMATS = ("", "grayscale", "rgb")
_UNITS = ("in", "cm")


def _invalid(message):
    return errors.InvalidArgumentError(None, None, message)


def _shape_text(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def _encode(image, quality, format, progressive, optimize_size, chroma_downsampling, density_unit, x_density,
            y_density, xmp_metadata):
    if image.ndim != 3:
        raise _invalid(f"image must be 3-dimensional{_shape_text(image.shape)}")
    channels = image.shape[2]
    if format == "" and channels not in (1, 3):
        raise _invalid(f"image must have 1 or 3 channels, got {_shape_text(image.shape)}")
    if format and channels != (1 if format == "grayscale" else 3):
        raise _invalid(f"format {format} expects {1 if format == 'grayscale' else 3} channels, got "
                       f"{_shape_text(image.shape)}")
    quality = int(quality)
    if not 0 <= quality <= 100:
        raise _invalid(f"quality must be in [0,100], got {quality}")
    if image.shape[0] == 0 or image.shape[1] == 0:
        raise errors.InternalError(None, None, "JPEG encoding failed")
    data = jpeg_encode.encode(image, quality, progressive, optimize_size, chroma_downsampling, density_unit,
                              x_density, y_density, xmp_metadata)
    return np.array(data, dtype=object)


def _variable_quality_kernel(image, quality):
    q = np.asarray(quality)
    if q.dtype != np.int32:
        raise _invalid(f"cannot compute EncodeJpegVariableQuality as input #1(zero-based) was expected to be a "
                       f"int32 tensor but is a {_dt.as_dtype(q.dtype).name} tensor")
    if q.ndim != 0:
        raise _invalid(f"quality must be a scalar, got shape{list(q.shape)}")
    return _encode(image, int(q), "", False, False, True, "in", 300, 300, b"")


def _encode_infer(inputs, attrs):
    shape = inputs[0].shape
    if shape.rank is not None and shape.rank != 3:
        raise ValueError(f"Shape must be rank 3 but is rank {shape.rank} for the image input of EncodeJpeg")
    return [(_dt.string, TensorShape([]))]


ENCODE_JPEG = OpDef("EncodeJpeg", _encode_infer, _encode, allowed=(_dt.uint8,), input_names=("image",))
ENCODE_JPEG_VARIABLE_QUALITY = OpDef("EncodeJpegVariableQuality", _encode_infer, _variable_quality_kernel,
                                     allowed=(_dt.uint8,), input_names=("images", "quality"))


def _choice(value, allowed, name):
    value = value.decode() if isinstance(value, bytes) else value
    if not isinstance(value, str):
        raise TypeError(f"Expected string for argument '{name}' not {value!r}.")
    if value not in allowed:
        listed = ", ".join(f'"{a}"' for a in allowed)
        message = f"Value for attr '{name}' of \"{value}\" is not in the list of allowed values: {listed}"
        if executing_eagerly():
            raise _invalid(message)
        raise ValueError(message)
    return value


def encode_jpeg(image, format="", quality=95, progressive=False, optimize_size=False, chroma_downsampling=True,
                density_unit="in", x_density=300, y_density=300, xmp_metadata="", name=None):
    """`tf.io.encode_jpeg`: JPEG bytes of a uint8 `[height, width, 1 or 3]` image, identical to
    TensorFlow's (baseline, or libjpeg-turbo's progressive scans with `progressive=True`)."""
    xmp = xmp_metadata.encode() if isinstance(xmp_metadata, str) else bytes(xmp_metadata)
    attrs = {"format": _choice(format, _FORMATS, "format"), "quality": image_ops._int_attr(quality, "quality"),
             "progressive": bool(progressive), "optimize_size": bool(optimize_size),
             "chroma_downsampling": bool(chroma_downsampling),
             "density_unit": _choice(density_unit, _UNITS, "density_unit"),
             "x_density": image_ops._int_attr(x_density, "x_density"),
             "y_density": image_ops._int_attr(y_density, "y_density"), "xmp_metadata": xmp}
    return apply(ENCODE_JPEG, (_uint8_image(image),), attrs, name or "EncodeJpeg")


def _uint8_image(image):
    """A tensor or NumPy array keeps its dtype (the op checks it); Python values convert to uint8, as
    TensorFlow's wrapper converts them (a string is a TypeError)."""
    if isinstance(image, (Tensor, np.ndarray, np.generic)):
        return convert_to_tensor(image)
    if isinstance(image, (str, bytes)):
        raise TypeError(f"Cannot convert {image!r} to EagerTensor of dtype uint8")
    return convert_to_tensor(image, dtype=_dt.uint8)


def adjust_jpeg_quality(image, jpeg_quality, dct_method="", name=None):
    """`tf.image.adjust_jpeg_quality`: the image after JPEG compression at `jpeg_quality` (0-100), in its
    own dtype (floats are saturated to uint8 for the round trip)."""
    image = convert_to_tensor(image)
    if image.shape.rank == 0:
        raise ValueError(f"image must be at least rank 1 (an image is [height, width, channels]), got a scalar "
                         f"{image.dtype.name} tensor")
    channels = image.shape.as_list()[-1] if image.shape.rank else None
    original = image.dtype
    pixels = convert_image_dtype(image, _dt.uint8, saturate=True)
    quality = jpeg_quality if isinstance(jpeg_quality, Tensor) else convert_to_tensor(jpeg_quality, dtype=_dt.int32)
    encoded = apply(ENCODE_JPEG_VARIABLE_QUALITY, (pixels, quality), {}, "EncodeJpegVariableQuality")
    decoded = image_ops.decode_jpeg(encoded, channels=channels or 0, dct_method=dct_method)
    return convert_image_dtype(decoded, original, saturate=True)


def _check_range(low, high):
    if low < 0 or high < 0 or low > 100 or high > 100:
        raise ValueError("jpeg encoding range must be between 0 and 100.")
    if low >= high:
        raise ValueError("`min_jpeg_quality` must be less than `max_jpeg_quality`.")


def random_jpeg_quality(image, min_jpeg_quality, max_jpeg_quality, seed=None):
    """`tf.image.random_jpeg_quality`: `adjust_jpeg_quality` at a quality drawn from [min, max)."""
    _check_range(min_jpeg_quality, max_jpeg_quality)
    quality = uniform([], min_jpeg_quality, max_jpeg_quality, dtype=_dt.int32, seed=seed)
    return adjust_jpeg_quality(image, quality)


def stateless_random_jpeg_quality(image, min_jpeg_quality, max_jpeg_quality, seed):
    """`tf.image.stateless_random_jpeg_quality`: as `random_jpeg_quality`, the quality drawn from `seed`."""
    _check_range(min_jpeg_quality, max_jpeg_quality)
    quality = stateless_uniform([], seed, min_jpeg_quality, max_jpeg_quality, dtype=_dt.int32)
    return adjust_jpeg_quality(image, quality)


API = {"io": ["encode_jpeg"],
       "image": ["encode_jpeg", "adjust_jpeg_quality", "random_jpeg_quality", "stateless_random_jpeg_quality"]}
