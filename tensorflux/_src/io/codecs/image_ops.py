"""`tf.io.decode_jpeg`, `decode_png`, `decode_webp`, `decode_image`, `decode_and_crop_jpeg` and `encode_png`
as ops (WebP pixels come from libwebp through Pillow, the `[io]` extra: webp_decode.py).

As in TensorFlow 2.21, every decode op reads any supported format: the data's magic number picks the
codec, and the op only decides which channel counts and dtypes it accepts and the static shape it
promises (`decode_png` of JPEG bytes decodes the JPEG). Decoding runs in the kernel, so the ops work
eagerly, inside `tf.function` and in `tf.data` pipelines alike.

    image = tf.io.decode_jpeg(tf.io.read_file(path), channels=3)   # uint8 [height, width, 3]
"""
import numpy as np

from ...framework import errors
from ...framework.context import executing_eagerly
from ...ops.convert import convert_to_tensor
from ...ops.image.color import convert_image_dtype
from ...ops.registry import OpDef, apply, constant_value
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from . import gif_bmp_decode, jpeg_decode, png_decode, png_encode, webp_decode

_UNKNOWN_FORMAT = "Unknown image file format. One of JPEG, JPEG XL, PNG, GIF, BMP, WebP required."


def _invalid(message):
    return errors.InvalidArgumentError(None, None, message)


def _scalar_bytes(contents):
    if contents.ndim != 0:
        raise _invalid(f"`contents` must be scalar but got shape{list(contents.shape)}")
    value = contents.item()
    return value if isinstance(value, bytes) else str(value).encode()


def _format(data):
    if data[:3] == b"\xff\xd8\xff":
        return "jpeg"
    if data[:8] == png_decode.SIGNATURE:
        return "png"
    if data[:4] == b"GIF8":
        return "gif"
    if data[:2] == b"BM":
        return "bmp"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    return None


def _int_attr(value, name):
    """An int attr as TensorFlow takes it (None means the default 0; anything else but an int is a TypeError)."""
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"Expected int for argument '{name}' not {value!r}.")
    return int(value)   # a float is truncated, as TensorFlow's attr conversion does


def _check_channels(channels):
    """`channels` as an int attr: a negative value fails graph construction (ValueError) as TensorFlow's
    attr minimum does; an unsupported one fails the kernel (InvalidArgumentError)."""
    channels = _int_attr(channels, "channels")
    if channels < 0 and not executing_eagerly():
        raise ValueError(f"Value for attr 'channels' of {channels} must be at least minimum 0")
    if channels not in (0, 1, 3, 4):
        raise _invalid(f"`channels` must be 0, 1, 3 or 4 but got {channels}")
    return channels


def _decode(data, channels, sixteen_bits=False, dct_method="", fancy_upscaling=True, crop=None, op="DecodeImage",
            expand_animations=False, recover_truncated=False, ratio=1):
    """Pixels of `data` in its own format: uint8, or uint16 for PNG when asked (other formats widen later).
    A GIF gives its frames `[frames, height, width, 3]` for DecodeGif (and DecodeImage expanding
    animations), else its one frame; any other format gives one image, `[1, ...]` for DecodeGif."""
    kind = _format(data)
    if kind == "gif":
        if op == "DecodeBmp":
            raise _invalid("Trying to decode GIF format using DecodeBmp op. Use `decode_gif` or `decode_image` "
                           "instead.")
        if channels not in (0, 3):
            raise _invalid(f"channels must be 0 or 3 for GIF, got {channels}")
        frames = gif_bmp_decode.decode_gif(data)
        if op == "DecodeGif" or (op == "DecodeImage" and expand_animations):
            return frames
        if len(frames) > 1 and op != "DecodeImage":
            raise _invalid(f"Got {len(frames)} frames, but animated gifs can only be decoded by tf.io.decode_gif "
                           "or tf.io.decode_image")
        return frames[0]
    if kind == "webp":
        frames = webp_decode.decode(data, channels)
        return frames if op == "DecodeWebP" or (op == "DecodeImage" and expand_animations) else frames[0]
    if op == "DecodeGif":
        return _decode(data, 3, op="DecodeImage")[None]
    if kind == "bmp":
        if channels not in (0, 3, 4):
            raise _invalid(f"`channels` must be 0, 3 or 4 for BMP, but got {channels}")
        return gif_bmp_decode.decode_bmp(data, channels)
    if kind == "jpeg":
        if channels == 4:
            raise _invalid("JPEG does not support 4 channels")
        pixels = jpeg_decode.decode(data, channels, dct_method == "INTEGER_ACCURATE", fancy_upscaling,
                                    recover_truncated, ratio)
    elif kind == "png":
        pixels = png_decode.decode(data, channels, sixteen_bits)
    else:
        raise _invalid(_UNKNOWN_FORMAT)
    if crop is not None:
        y, x, h, w = (int(v) for v in crop)
        if y < 0 or x < 0 or h <= 0 or w <= 0 or y + h > pixels.shape[0] or x + w > pixels.shape[1]:
            raise _invalid("jpeg::Uncompress failed. Invalid JPEG data or crop window.")
        pixels = pixels[y:y + h, x:x + w]
    return np.ascontiguousarray(pixels)


def _jpeg_kernel(contents, channels, ratio, fancy_upscaling, try_recover_truncated, acceptable_fraction,
                 dct_method):
    return _decode(_scalar_bytes(contents), channels, dct_method=dct_method, fancy_upscaling=fancy_upscaling,
                   op="DecodeJpeg", recover_truncated=try_recover_truncated, ratio=ratio)


def _crop_kernel(contents, crop_window, channels, ratio, fancy_upscaling, try_recover_truncated,
                 acceptable_fraction, dct_method):
    window = np.asarray(crop_window)
    if window.shape != (4,):
        raise _invalid(f"crop_window must be shape [4] but got shape{list(window.shape)}")
    return _decode(_scalar_bytes(contents), channels, dct_method=dct_method, fancy_upscaling=fancy_upscaling,
                   crop=window, op="DecodeAndCropJpeg", recover_truncated=try_recover_truncated, ratio=ratio)


def _gif_kernel(contents):
    return _decode(_scalar_bytes(contents), 0, op="DecodeGif")


def _bmp_kernel(contents, channels):
    return _decode(_scalar_bytes(contents), channels, op="DecodeBmp")


def _webp_kernel(contents, channels, dtype):
    data = _scalar_bytes(contents)
    if not data:
        raise _invalid("Input is empty.")
    return _decode(data, channels, op="DecodeWebP")


def _png_kernel(contents, channels, dtype):
    return _decode(_scalar_bytes(contents), channels, sixteen_bits=dtype is _dt.uint16, op="DecodePng").astype(
        dtype._np)


def _image_kernel(contents, channels, dtype, expand_animations):
    """uint8, uint16 or float32 pixels: a PNG is read at 16 bits for the wider outputs (so a 16-bit file
    keeps its precision); 8-bit pixels widen as `convert_image_dtype` does (x 256 to uint16, times
    float32(1 / 255) to float32)."""
    data = _scalar_bytes(contents)
    if not data:
        raise _invalid("Input is empty.")
    pixels = _decode(data, channels, sixteen_bits=dtype is not _dt.uint8 and _format(data) == "png",
                     expand_animations=expand_animations)
    if dtype is _dt.uint8:
        return pixels
    if dtype is _dt.uint16:
        return pixels if pixels.dtype == np.uint16 else pixels.astype(np.uint16) << 8
    scale = np.float32(1.0 / (65535 if pixels.dtype == np.uint16 else 255))
    return pixels.astype(np.float32) * scale


def _scalar_contents(inputs):
    shape = inputs[0].shape
    if shape.rank is not None and shape.rank != 0:
        raise ValueError(f"Shape must be rank 0 but is rank {shape.rank} for the contents input")


def _decode_infer(dtype_of, rank3_of=lambda a: True):
    def infer(inputs, attrs):
        _scalar_contents(inputs)
        return [(dtype_of(attrs), _image_shape(attrs["channels"], rank3_of(attrs)))]
    return infer


def _image_shape(channels, rank3=True):
    return TensorShape([None, None, channels or None]) if rank3 else TensorShape(None)


DECODE_JPEG = OpDef("DecodeJpeg", _decode_infer(lambda a: _dt.uint8), _jpeg_kernel,
                    allowed=(_dt.string,), input_names=("contents",))
DECODE_PNG = OpDef("DecodePng", _decode_infer(lambda a: a["dtype"]), _png_kernel,
                   allowed=(_dt.string,), input_names=("contents",))
DECODE_IMAGE = OpDef("DecodeImage", _decode_infer(lambda a: a["dtype"], lambda a: not a["expand_animations"]),
                     _image_kernel, allowed=(_dt.string,), input_names=("contents",))


DECODE_GIF = OpDef("DecodeGif", lambda i, a: (_scalar_contents(i), [(_dt.uint8, TensorShape([None, None, None, 3]))])[1],
                   _gif_kernel, allowed=(_dt.string,), input_names=("contents",))
DECODE_WEBP = OpDef("DecodeWebP", lambda i, a: (_scalar_contents(i), [
    (_dt.uint8, TensorShape([None, None, None, a["channels"] or None]))])[1], _webp_kernel, allowed=(_dt.string,),
    input_names=("contents",))
DECODE_BMP = OpDef("DecodeBmp", _decode_infer(lambda a: _dt.uint8), _bmp_kernel, allowed=(_dt.string,),
                   input_names=("contents",))


def _crop_infer(inputs, attrs):
    _scalar_contents(inputs)
    window = inputs[1].shape
    if window.rank is not None and (window.rank != 1 or window.dims[0] not in (None, 4)):
        raise ValueError(f"Shape must be [4] for crop_window but is {window}")
    static = constant_value(inputs[1])
    if static is not None and np.size(static) == 4:
        h, w = int(np.asarray(static).reshape(-1)[2]), int(np.asarray(static).reshape(-1)[3])
        if h < 0 or w < 0:
            raise ValueError(f"Dimension size must be non-negative, got crop window height {h} and width {w}")
        return [(_dt.uint8, TensorShape([h, w, attrs["channels"] or None]))]
    return [(_dt.uint8, _image_shape(attrs["channels"]))]


DECODE_AND_CROP_JPEG = OpDef("DecodeAndCropJpeg", _crop_infer, _crop_kernel, allowed=(_dt.string,),
                             input_names=("contents", "crop_window"))


def _encode_kernel(image, compression):
    return png_encode.encode_batch(image, compression)


def _encode_infer(inputs, attrs):
    shape = inputs[0].shape
    if shape.rank is None:
        return [(_dt.string, TensorShape(None))]
    if shape.rank < 3:
        source = getattr(getattr(inputs[0], "op", None), "name", "image")
        dims = ",".join("?" if d is None else str(d) for d in shape.as_list())
        raise ValueError(f"Shape must be at least rank 3 but is rank {shape.rank} for '{{node EncodePng}} = "
                         f"EncodePng[T=DT_{inputs[0].dtype.name.upper()}, compression={attrs['compression']}]"
                         f"({source})' with input shapes: [{dims}].")
    return [(_dt.string, TensorShape(shape.dims[:-3]))]


ENCODE_PNG = OpDef("EncodePng", _encode_infer, _encode_kernel, allowed=(_dt.uint8, _dt.uint16),
                   input_names=("image",))


def _contents(contents):
    return convert_to_tensor(contents, dtype=_dt.string)


def _jpeg_attrs(channels, ratio, fancy_upscaling, try_recover_truncated, acceptable_fraction, dct_method):
    channels, ratio = _check_channels(channels), _int_attr(ratio, "ratio")
    if ratio not in (1, 2, 4, 8):
        raise _invalid(f"ratio must be 1, 2, 4, or 8, got {ratio}")
    dct_method = dct_method.decode() if isinstance(dct_method, bytes) else str(dct_method)
    if dct_method not in ("", "INTEGER_FAST", "INTEGER_ACCURATE"):
        raise _invalid("dct_method must be one of {'', 'INTEGER_FAST', 'INTEGER_ACCURATE'}")
    return {"channels": channels, "ratio": ratio, "fancy_upscaling": bool(fancy_upscaling),
            "try_recover_truncated": bool(try_recover_truncated), "acceptable_fraction": float(acceptable_fraction),
            "dct_method": dct_method}


def decode_jpeg(contents, channels=0, ratio=1, fancy_upscaling=True, try_recover_truncated=False,
                acceptable_fraction=1, dct_method="", name=None):
    """`tf.io.decode_jpeg`: uint8 `[height, width, channels]` pixels, as TensorFlow's libjpeg-turbo gives
    them (fast integer IDCT by default, `dct_method="INTEGER_ACCURATE"` for the accurate one)."""
    attrs = _jpeg_attrs(channels, ratio, fancy_upscaling, try_recover_truncated, acceptable_fraction, dct_method)
    return apply(DECODE_JPEG, (_contents(contents),), attrs, name or "DecodeJpeg")


def decode_and_crop_jpeg(contents, crop_window, channels=0, ratio=1, fancy_upscaling=True,
                         try_recover_truncated=False, acceptable_fraction=1, dct_method="", name=None):
    """`tf.io.decode_and_crop_jpeg`: the `[y, x, height, width]` window of the decoded image."""
    attrs = _jpeg_attrs(channels, ratio, fancy_upscaling, try_recover_truncated, acceptable_fraction, dct_method)
    window = convert_to_tensor(crop_window, dtype=_dt.int32)
    return apply(DECODE_AND_CROP_JPEG, (_contents(contents), window), attrs, name or "DecodeAndCropJpeg")


def decode_gif(contents, name=None):
    """`tf.io.decode_gif`: uint8 `[frames, height, width, 3]`, each frame painted over the previous one."""
    return apply(DECODE_GIF, (convert_to_tensor(contents),), {}, name or "DecodeGif")


def decode_bmp(contents, channels=0, name=None):
    """`tf.io.decode_bmp`: uint8 `[height, width, channels]` of an uncompressed 8/24/32-bit BMP."""
    channels = _check_channels(channels)
    return apply(DECODE_BMP, (convert_to_tensor(contents),), {"channels": channels}, name or "DecodeBmp")


def decode_png(contents, channels=0, dtype=_dt.uint8, name=None):
    """`tf.io.decode_png`: `[height, width, channels]` pixels, uint8 or uint16."""
    dtype = _dt.as_dtype(dtype)
    if dtype not in (_dt.uint8, _dt.uint16):
        raise _invalid(f"Value for attr 'dtype' of {dtype.name} is not in the list of allowed values: uint8, uint16")
    channels = _check_channels(channels)
    return apply(DECODE_PNG, (convert_to_tensor(contents),), {"channels": channels, "dtype": dtype}, name or "DecodePng")


def decode_webp(contents, channels=0, dtype=_dt.uint8, name=None):
    """`tf.io.decode_webp`: uint8 `[frames, height, width, channels]` (one frame for a still image), 3 or 4
    channels as the file has them; an animation's frames are RGBA. Needs Pillow (`tensorflux[io]`)."""
    dtype = _dt.as_dtype(dtype)
    if dtype is not _dt.uint8:
        raise _invalid(f"Value for attr 'dtype' of {dtype.name} is not in the list of allowed values: uint8")
    channels = _check_channels(channels)
    return apply(DECODE_WEBP, (convert_to_tensor(contents),),
                 {"channels": channels, "dtype": dtype}, name or "DecodeWebP")


def decode_image(contents, channels=None, dtype=_dt.uint8, name=None, expand_animations=True):
    """`tf.io.decode_image`: any supported format, converted to `dtype` as `convert_image_dtype` does
    (a 16-bit PNG keeps its 16 bits for uint16 and float outputs)."""
    dtype = _dt.as_dtype(dtype)
    channels = _check_channels(channels)
    native = dtype if dtype in (_dt.uint8, _dt.uint16, _dt.float32) else _dt.uint8
    raw = apply(DECODE_IMAGE, (convert_to_tensor(contents),),
                {"channels": channels, "dtype": native, "expand_animations": bool(expand_animations)},
                name or "decode_image")
    return raw if native is dtype else convert_image_dtype(raw, dtype)


def encode_png(image, compression=-1, name=None):
    """`tf.io.encode_png`: a PNG file of a uint8 or uint16 `[height, width, channels]` image (1-4 channels)."""
    return apply(ENCODE_PNG, (convert_to_tensor(image),), {"compression": _int_attr(compression, "compression")},
                 name or "EncodePng")


_NAMES = ["decode_jpeg", "decode_and_crop_jpeg", "decode_png", "decode_gif", "decode_bmp", "decode_webp", "decode_image",
          "encode_png"]
API = {"io": _NAMES, "image": _NAMES}
