"""GIF and BMP decoding as TensorFlow 2.21 decodes them.

GIF: every frame becomes a full RGB canvas (`[frames, height, width, 3]`): a frame starts as a copy of
the previous one (zeros for the first), its sub-rectangle is painted from its own or the global colour
table, and pixels of the frame's transparent index keep what was there (black on the first frame).
Disposal methods are ignored, as TensorFlow ignores them. LZW data is decoded with bounds checks on every
code, and interlaced frames are put back in row order.

BMP: uncompressed 8-, 24- and 32-bit images (bottom-up or top-down rows, padded to 4 bytes). TensorFlow
reads the 8-bit values as one gray channel (the palette is not applied) and BGR(A) as RGB(A).
"""
import numpy as np

from ...framework import errors


def invalid(message):
    return errors.InvalidArgumentError(None, None, message)


# -- GIF --------------------------------------------------------------------------------------------

def _lzw(data, min_code_size, pixel_count):
    """The colour indices of one frame's LZW stream (`data` already unblocked)."""
    if not 1 <= min_code_size <= 11:
        raise invalid("Failed to decode gif: bad LZW minimum code size")
    clear, end = 1 << min_code_size, (1 << min_code_size) + 1
    out = bytearray()
    prefix = [0] * 4096
    suffix = [0] * 4096
    first_of = [0] * 4096
    length = [0] * 4096
    for i in range(clear):
        suffix[i] = first_of[i] = i
        length[i] = 1
    size, next_code, previous = min_code_size + 1, end + 1, -1
    padded = list(data) + [0, 0, 0]
    total, pos = len(data) * 8, 0
    while pos + size <= total and len(out) < pixel_count:
        byte = pos >> 3    # codes are packed least significant bit first and span at most 3 bytes
        code = ((padded[byte] | (padded[byte + 1] << 8) | (padded[byte + 2] << 16)) >> (pos & 7)) & ((1 << size) - 1)
        pos += size
        if code == clear:
            size, next_code, previous = min_code_size + 1, end + 1, -1
            continue
        if code == end:
            break
        if previous < 0:
            if code >= clear:
                raise invalid("Failed to decode gif: bad LZW code")
            out.append(code)
            previous = code
            continue
        if code < next_code:
            entry = code
        elif code == next_code:
            entry = previous
        else:
            raise invalid("Failed to decode gif: bad LZW code")
        # Write the string of `entry` (plus, for the not-yet-defined code, its own first byte).
        start = len(out)
        n = length[entry]
        out.extend(bytes(n))
        c = entry
        for k in range(n - 1, -1, -1):
            out[start + k] = suffix[c]
            c = prefix[c]
        first = first_of[entry]
        if code == next_code:
            out.append(first)
        if next_code < 4096:
            prefix[next_code] = previous
            suffix[next_code] = first if code != next_code else first_of[previous]
            first_of[next_code] = first_of[previous]
            length[next_code] = length[previous] + 1
            next_code += 1
            if next_code == (1 << size) and size < 12:
                size += 1
        previous = code
    return bytes(out)


def _sub_blocks(data, i):
    chunks = []
    while True:
        if i >= len(data):
            raise invalid("Failed to decode gif: data ends inside a block")
        n = data[i]
        i += 1
        if n == 0:
            return b"".join(chunks), i
        chunks.append(data[i:i + n])
        i += n


def _deinterlace(rows):
    order = list(range(0, len(rows), 8)) + list(range(4, len(rows), 8)) + list(range(2, len(rows), 4)) + \
        list(range(1, len(rows), 2))
    out = np.empty_like(rows)
    out[order] = rows
    return out


def decode_gif(data):
    data = bytes(data)
    if len(data) < 13 or data[:3] != b"GIF":
        raise invalid("Failed to decode gif: not a GIF file")
    width, height = int.from_bytes(data[6:8], "little"), int.from_bytes(data[8:10], "little")
    flags = data[10]
    i = 13
    global_map = None
    if flags & 0x80:
        n = 3 << ((flags & 7) + 1)
        global_map = np.frombuffer(data[i:i + n], np.uint8).reshape(-1, 3)
        i += n
    if width == 0 or height == 0 or width * height > (1 << 28):
        raise invalid(f"Failed to decode gif: bad canvas size {width}x{height}")
    frames, transparent = [], None
    while i < len(data):
        block = data[i]
        i += 1
        if block == 0x3B:       # trailer
            break
        if block == 0x21:       # extension: only the graphics control block matters
            if i >= len(data):
                break
            label = data[i]
            body, i = _sub_blocks(data, i + 1)
            if label == 0xF9 and len(body) >= 4:
                transparent = body[3] if body[0] & 1 else None
            continue
        if block != 0x2C or i + 9 > len(data):
            raise invalid("Failed to decode gif: unexpected block")
        left, top, w, h = (int.from_bytes(data[i + k:i + k + 2], "little") for k in (0, 2, 4, 6))
        fflags = data[i + 8]
        i += 9
        color_map = global_map
        if fflags & 0x80:
            n = 3 << ((fflags & 7) + 1)
            color_map = np.frombuffer(data[i:i + n], np.uint8).reshape(-1, 3)
            i += n
        if i >= len(data):
            raise invalid("Failed to decode gif: data ends inside a frame")
        lzw_size = data[i]
        raw, i = _sub_blocks(data, i + 1)
        if color_map is None:
            raise invalid("Missing color map for gif frame")
        indices = np.frombuffer(_lzw(raw, lzw_size, w * h), np.uint8)
        if len(indices) < w * h:
            indices = np.concatenate([indices, np.zeros(w * h - len(indices), np.uint8)])
        indices = indices.reshape(h, w) if w and h else np.zeros((h, w), np.uint8)
        if fflags & 0x40:
            indices = _deinterlace(indices)
        canvas = frames[-1].copy() if frames else np.zeros((height, width, 3), np.uint8)
        bottom, right = min(top + h, height), min(left + w, width)
        if top < bottom and left < right:
            region = indices[:bottom - top, :right - left]
            paint = np.ones(region.shape, bool) if transparent is None else region != transparent
            if not frames and transparent is not None:
                canvas[top:bottom, left:right][~paint] = 0
            used = region[paint]
            if used.size and int(used.max()) >= len(color_map):
                raise invalid(f"Found color index {int(used.max())} outside of color map range {len(color_map)}")
            canvas[top:bottom, left:right][paint] = color_map[used]
        frames.append(canvas)
        transparent = None
    if not frames:
        raise invalid("Failed to decode gif: no frames")
    return np.stack(frames)


# -- BMP --------------------------------------------------------------------------------------------

def decode_bmp(data, channels=0):
    data = bytes(data)
    if len(data) < 30 or data[:2] != b"BM":
        raise invalid("Invalid BMP data")
    offset = int.from_bytes(data[10:14], "little")
    width = int.from_bytes(data[18:22], "little", signed=True)
    height = int.from_bytes(data[22:26], "little", signed=True)
    bpp = int.from_bytes(data[28:30], "little")
    native = bpp // 8 if bpp % 8 == 0 else 0
    if native not in (1, 3, 4):
        raise invalid(f"Number of channels inherent in the image must be 1, 3 or 4, was {native}")
    top_down = height < 0
    height = abs(height)
    if width <= 0 or height == 0:
        raise invalid(f"Invalid BMP size {width}x{height}")
    row_bytes = (width * native + 3) // 4 * 4
    if offset < 0 or offset + row_bytes * height > len(data):
        raise invalid(f"Input size should be at least {offset + row_bytes * height} but is {len(data)}")
    rows = np.frombuffer(data, np.uint8, row_bytes * height, offset).reshape(height, row_bytes)
    pixels = rows[:, :width * native].reshape(height, width, native)
    if not top_down:
        pixels = pixels[::-1]
    if native >= 3:
        pixels = pixels[..., [2, 1, 0, 3][:native]]     # BGR(A) -> RGB(A)
    if channels in (0, native):
        return np.ascontiguousarray(pixels)
    rgb = pixels[..., :3] if native >= 3 else np.repeat(pixels, 3, axis=-1)
    if channels == 3:
        return np.ascontiguousarray(rgb)
    alpha = pixels[..., 3:] if native == 4 else np.full(rgb.shape[:-1] + (1,), 255, np.uint8)
    return np.concatenate([rgb, alpha], axis=-1)
