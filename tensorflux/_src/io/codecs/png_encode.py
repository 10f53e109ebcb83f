"""PNG encoding of uint8 and uint16 images with 1-4 channels (gray, gray + alpha, RGB, RGBA).

Rows are written unfiltered and deflated at the requested zlib level (TensorFlow's -1 is zlib's default).
The pixels round-trip exactly; the bytes differ from TensorFlow's, whose libpng picks a filter per row.
"""
import struct
import zlib

import numpy as np

from ...framework import errors

_COLOR_TYPES = {1: 0, 2: 4, 3: 2, 4: 6}


def _chunk(kind, payload):
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))


def encode_batch(images, compression=-1):
    """A string array of the leading (batch) shape: one PNG file per `[height, width, channels]` image."""
    images = np.asarray(images)
    if images.ndim < 3:
        dims = ",".join(str(d) for d in images.shape)
        raise errors.InvalidArgumentError(None, None, f"images must be at least rank 3[{dims}]")
    if images.shape[-1] not in _COLOR_TYPES:
        raise errors.InvalidArgumentError(None, None, "image must have 1, 2, 3, or 4 channels, got "
                                          f"{images.shape[-1]}")
    if not -1 <= compression <= 9:
        raise errors.InvalidArgumentError(None, None, f"compression should be in [-1,9], got {compression}")
    batch = int(np.prod(images.shape[:-3]))
    if images.shape[-3] == 0 or images.shape[-2] == 0:
        failed = ", ".join(str(i) for i in range(batch))
        raise errors.InternalError(None, None, f"PNG encoding failed at the following flattened batch indices: "
                                   f"{failed}")
    flat = images.reshape((batch,) + images.shape[-3:])
    out = np.empty(batch, dtype=object)
    for i, image in enumerate(flat):
        out[i] = encode(image, compression)
    return out.reshape(images.shape[:-3])


def encode(image, compression=-1):
    """One PNG file of a uint8 or uint16 `[height, width, channels]` image."""
    height, width, channels = image.shape
    depth = 16 if image.dtype == np.uint16 else 8
    samples = image.astype(">u2").view(np.uint8) if depth == 16 else image.astype(np.uint8)
    rows = samples.reshape(height, -1)
    raw = np.concatenate([np.zeros((height, 1), np.uint8), rows], axis=1).tobytes()
    header = struct.pack(">IIBBBBB", width, height, depth, _COLOR_TYPES[channels], 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(raw, compression))
            + _chunk(b"IEND", b""))
