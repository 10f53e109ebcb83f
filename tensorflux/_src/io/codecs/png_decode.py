"""PNG decoding to the pixels TensorFlow's `decode_png` gives: every colour type and bit depth of the
standard, palettes (with transparency), Adam7 interlacing, and TensorFlow's conversions between channel
counts and between 8 and 16 bits.

The bytes are untrusted: chunk lengths are checked against the data, the decompressed size is bounded by
what the header promises (no decompression bomb beyond it), and anything malformed raises
`InvalidArgumentError`.
"""
import struct
import zlib

import numpy as np

from ...framework import errors

SIGNATURE = b"\x89PNG\r\n\x1a\n"
_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}      # samples per pixel by colour type
_DEPTHS = {0: (1, 2, 4, 8, 16), 2: (8, 16), 3: (1, 2, 4, 8), 4: (8, 16), 6: (8, 16)}
# Adam7 passes: (x start, y start, x step, y step).
_ADAM7 = ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2))


def invalid(message):
    return errors.InvalidArgumentError(None, None, message)


def _chunks(data):
    i = len(SIGNATURE)
    while i + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[i:i + 8])
        if i + 12 + length > len(data):
            raise invalid("Invalid PNG data, size %d" % len(data))
        yield kind, data[i + 8:i + 8 + length]
        i += 12 + length
        if kind == b"IEND":
            return
    raise invalid("Invalid PNG data, size %d" % len(data))


def _unfilter(raw, rows, row_bytes, bpp):
    """Undo the per-row filters (none, sub, up, average, Paeth) of `rows` rows of `row_bytes` bytes."""
    out = np.zeros((rows, row_bytes), dtype=np.uint8)
    prev = np.zeros(row_bytes, dtype=np.int32)
    stride = row_bytes + 1
    for r in range(rows):
        kind = raw[r * stride]
        line = np.frombuffer(raw, dtype=np.uint8, count=row_bytes, offset=r * stride + 1).astype(np.int32)
        if kind == 0:
            cur = line
        elif kind == 2:
            cur = (line + prev) & 0xFF
        elif kind in (1, 3, 4):
            cur = line.copy()
            if kind == 1 and bpp == 1:
                cur = np.cumsum(line) & 0xFF
            elif kind == 1:
                for lane in range(bpp):   # each byte lane is a running sum
                    cur[lane::bpp] = np.cumsum(line[lane::bpp]) & 0xFF
            else:       # average and Paeth depend on the reconstructed left byte: sequential
                values = cur.tolist()
                up = prev.tolist()
                for x in range(row_bytes):
                    a = values[x - bpp] if x >= bpp else 0
                    b = up[x]
                    if kind == 3:
                        values[x] = (values[x] + ((a + b) >> 1)) & 0xFF
                    else:
                        c = up[x - bpp] if x >= bpp else 0
                        p = a + b - c
                        pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                        pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                        values[x] = (values[x] + pred) & 0xFF
                cur = np.array(values, dtype=np.int32)
        else:
            raise invalid(f"Invalid PNG data: unknown filter type {kind}")
        out[r] = cur
        prev = cur
    return out


def _samples(lines, width, depth, channels):
    """Unfiltered rows -> [rows, width, channels] samples (uint8, or uint16 for depth 16)."""
    if depth == 16:
        return lines.view(">u2").reshape(lines.shape[0], -1)[:, :width * channels].astype(np.uint16).reshape(
            lines.shape[0], width, channels)
    if depth == 8:
        return lines[:, :width * channels].reshape(lines.shape[0], width, channels)
    bits = np.unpackbits(lines, axis=1)
    groups = bits[:, :width * depth].reshape(lines.shape[0], width, depth)
    weights = (1 << np.arange(depth - 1, -1, -1)).astype(np.uint8)
    return (groups * weights).sum(axis=2, dtype=np.uint8)[:, :, None]


def decode_native(data):
    """(pixels in the file's own layout, bit depth, colour type, palette, transparency)."""
    data = bytes(data)
    if not data.startswith(SIGNATURE):
        raise invalid("Invalid PNG header, data size %d" % len(data))
    header, palette, trns, idat = None, None, None, []
    for kind, body in _chunks(data):
        if kind == b"IHDR":
            if len(body) != 13:
                raise invalid("Invalid PNG header")
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"PLTE":
            palette = np.frombuffer(body, np.uint8)[:len(body) // 3 * 3].reshape(-1, 3)
        elif kind == b"tRNS":
            trns = body
        elif kind == b"IDAT":
            idat.append(body)
    if header is None or not idat:
        raise invalid("Invalid PNG data, size %d" % len(data))
    width, height, depth, ctype, compression, filtering, interlace = header
    if ctype not in _CHANNELS or depth not in _DEPTHS[ctype] or compression or filtering or interlace > 1:
        raise invalid(f"Invalid PNG header: bit depth {depth}, color type {ctype}")
    if width == 0 or height == 0 or width * height > (1 << 29):
        raise invalid(f"Invalid PNG image size {width}x{height}")
    channels = _CHANNELS[ctype]
    bpp = max(1, channels * depth // 8)
    passes = _ADAM7 if interlace else ((0, 0, 1, 1),)
    sizes = []
    for xs, ys, dx, dy in passes:
        w, h = -(-(width - xs) // dx) if width > xs else 0, -(-(height - ys) // dy) if height > ys else 0
        sizes.append((w, h, (w * channels * depth + 7) // 8))
    expected = sum(h * (rb + 1) for w, h, rb in sizes if w and h)
    inflater = zlib.decompressobj()
    try:
        raw = inflater.decompress(b"".join(idat), expected)
    except zlib.error as e:
        raise invalid(f"Invalid PNG data: {e}") from None
    if len(raw) < expected:
        raise invalid("Invalid PNG data: image data ends early")
    dtype = np.uint16 if depth == 16 else np.uint8
    image = np.zeros((height, width, channels), dtype=dtype)
    offset = 0
    for (xs, ys, dx, dy), (w, h, row_bytes) in zip(passes, sizes):
        if not w or not h:
            continue
        lines = _unfilter(raw[offset:offset + h * (row_bytes + 1)], h, row_bytes, bpp)
        offset += h * (row_bytes + 1)
        image[ys::dy, xs::dx] = _samples(lines, w, depth, channels)
    if ctype == 3 and palette is None:
        raise invalid("Invalid PNG data: palette image without a palette")
    return image, depth, ctype, palette, trns


# RGB -> gray weights (0.299, 0.587, 0.114 in 15-bit fixed point, as TensorFlow's PNG reader rounds them):
# 8-bit samples are truncated, 16-bit ones rounded.
_GRAY = (9797, 19234, 3737)


def _to_gray(rgb, sixteen):
    r, g, b = (rgb[..., i].astype(np.int64) for i in range(3))
    gray = (_GRAY[0] * r + _GRAY[1] * g + _GRAY[2] * b + (16384 if sixteen else 0)) >> 15
    return gray.astype(rgb.dtype)[..., None]


def decode(data, channels=0, sixteen_bits=False):
    """`[height, width, channels]` pixels (uint16 when `sixteen_bits`, else uint8) as TensorFlow decodes
    PNG bytes for the requested channel count (0: the file's own)."""
    image, depth, ctype, palette, trns = decode_native(data)
    filler = (1 << depth) - 1          # an added alpha channel is opaque at the file's own bit depth
    if ctype == 3:
        index = image[..., 0]
        if index.max(initial=0) >= len(palette):
            raise invalid("Invalid PNG data: palette index out of range")
        rgb = palette[index]
        if trns is not None:
            alpha = np.full(len(palette), 255, np.uint8)
            given = np.frombuffer(trns, np.uint8)[:len(palette)]
            alpha[:len(given)] = given
            rgb = np.concatenate([rgb, alpha[index][..., None]], axis=-1)
        image, depth = rgb, 8
    elif depth < 8:     # gray at 1, 2 or 4 bits scales to 8 (the added alpha keeps the file's depth)
        image = (image.astype(np.int32) * 255 // filler).astype(np.uint8)
    sixteen = image.dtype == np.uint16
    native = image.shape[-1]
    key = None
    if trns is not None and ctype in (0, 2) and len(trns) >= 2 * native:
        key = np.frombuffer(trns[:2 * native], ">u2").astype(image.dtype)
    if channels in (1, 3, 4) and native != channels:
        colour = image[..., :3] if native >= 3 else image[..., :1]
        if channels == 1:
            image = _to_gray(colour, sixteen) if native >= 3 else colour
        else:
            rgb = colour if native >= 3 else np.repeat(colour, 3, axis=-1)
            if channels == 3:
                image = rgb
            elif native in (2, 4):
                image = np.concatenate([rgb, image[..., -1:]], axis=-1)
            else:
                alpha = np.full(rgb.shape[:-1] + (1,), filler if depth < 16 else 65535, image.dtype)
                if key is not None:      # tRNS: the listed colour is transparent
                    alpha[np.all(image == key, axis=-1)] = 0
                image = np.concatenate([rgb, alpha], axis=-1)
    if sixteen_bits and not sixteen:
        image = image.astype(np.uint16) * np.uint16(257)
    elif sixteen and not sixteen_bits:
        image = (image >> 8).astype(np.uint8)
    return np.ascontiguousarray(image)
