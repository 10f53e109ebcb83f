"""WebP decoding for `tf.io.decode_webp` and `decode_image`: the container's header is read here (the
channel count and animation flag TensorFlow decides on, and TensorFlow's header error), the pixels come
from libwebp through Pillow, an optional dependency of the `[io]` extra.

Why Pillow: libwebp's lossy (VP8) decoder and its YUV -> RGB upsampler are what TensorFlow links, and
Pillow's wheels link the same library; its pixels were checked equal to TensorFlow 2.21's on lossless,
lossy, alpha and animated files (tests/io_formats/test_webp_decode.py). Frames of an animation are the
composited canvas libwebp's animation decoder gives, as TensorFlow returns them.
"""
import io
import struct

import numpy as np

from ...framework import errors

HEADER_ERROR = "Failed to decode WebP header."
IMAGE_ERROR = "Failed to decode WebP image."


def _invalid(message):
    return errors.InvalidArgumentError(None, None, message)


def features(data):
    """`(width, height, has_alpha, animated)` from the first chunk, as libwebp's WebPGetFeatures reads them;
    TensorFlow's header error when that chunk is short or unknown."""
    if len(data) < 20:
        raise _invalid(HEADER_ERROR)
    fourcc, body = data[12:16], data[20:]
    if fourcc == b"VP8X" and len(body) >= 10:
        flags = body[0]
        width = 1 + int.from_bytes(body[4:7], "little")
        height = 1 + int.from_bytes(body[7:10], "little")
        return width, height, bool(flags & 0x10), bool(flags & 0x02)
    if fourcc == b"VP8L" and len(body) >= 5 and body[0] == 0x2F:
        bits = struct.unpack_from("<I", body, 1)[0]
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1, bool((bits >> 28) & 1), False
    if fourcc == b"VP8 " and len(body) >= 10 and body[3:6] == b"\x9d\x01\x2a":
        width, height = struct.unpack_from("<HH", body, 6)
        return width & 0x3FFF, height & 0x3FFF, False, False
    raise _invalid(HEADER_ERROR)


def _pillow():
    try:
        from PIL import Image
    except ImportError:
        raise ImportError('Decoding WebP needs Pillow (libwebp): pip install "tensorflux[io]"') from None
    return Image


def decode(data, channels):
    """uint8 `[frames, height, width, channels]` of WebP bytes: 3 channels for a file without alpha, 4 with
    it (TensorFlow converts neither way), every frame of an animation as RGBA."""
    width, height, alpha, animated = features(data)
    if channels not in (0, 3, 4):
        raise _invalid("WebP only supports 3 or 4 channels")
    native = 4 if alpha else 3
    if channels and channels != native:
        raise _invalid("Number of channels requested does not match input")
    if animated and native != 4:
        # TensorFlow decodes animations as RGBA only; for one without the alpha flag its kernel writes
        # four channels into a three-channel buffer. Refuse instead.
        raise _invalid("Number of channels requested does not match input")
    Image = _pillow()
    mode = "RGBA" if native == 4 else "RGB"
    try:
        with Image.open(io.BytesIO(data), formats=["WEBP"]) as image:
            frames = []
            for index in range(getattr(image, "n_frames", 1)):
                image.seek(index)
                frames.append(np.asarray(image.convert(mode) if image.mode != mode else image))
    except (OSError, ValueError, EOFError, SyntaxError):
        raise _invalid(IMAGE_ERROR) from None
    pixels = np.stack(frames)
    if pixels.shape[1:3] != (height, width):
        raise _invalid(IMAGE_ERROR)
    return np.ascontiguousarray(pixels, dtype=np.uint8)
