"""Baseline JPEG encoding that writes the very bytes TensorFlow's `encode_jpeg` writes (libjpeg-turbo
with TensorFlow's settings): the same JFIF header, quantisation tables scaled from the standard ones by
the quality factor, RGB -> YCbCr in 16-bit fixed point, 2x2 chroma averaging with alternating rounding,
the accurate integer forward DCT, rounding quantisation, and the standard Huffman tables -- or, with
`optimize_size`, the optimal ones built from the image's own symbol counts. `progressive=True` codes the
same coefficients in libjpeg-turbo's progressive scans (jpeg_progressive.py).
"""
import struct

import numpy as np

from ...framework import errors
from . import jpeg_progressive
from .jpeg_decode import ZIGZAG

_LUMA = np.array([
    16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56,
    14, 17, 22, 29, 51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92,
    49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99], dtype=np.int64)
_CHROMA = np.full(64, 99, dtype=np.int64)
_CHROMA[[0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 24, 25]] = [17, 18, 24, 47, 18, 21, 26, 66, 24, 26, 56, 47, 66]

# The standard Huffman tables (counts of codes per length 1..16, then the symbols), DC then AC.
_STD_DC_LUMA = (bytes.fromhex("00010501010101010100000000000000"), bytes(range(12)))
_STD_DC_CHROMA = (bytes.fromhex("00030101010101010101010000000000"), bytes(range(12)))
_STD_AC_LUMA = (bytes.fromhex("0002010303020403050504040000017d"), bytes.fromhex(
    "01020300041105122131410613516107227114328191a1082342b1c11552d1f02433627282090a161718191a25262728292a"
    "3435363738393a434445464748494a535455565758595a636465666768696a737475767778797a838485868788898a929394"
    "95969798999aa2a3a4a5a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9cad2d3d4d5d6d7d8d9dae1e2e3e4e5e6e7e8"
    "e9eaf1f2f3f4f5f6f7f8f9fa"))
_STD_AC_CHROMA = (bytes.fromhex("00020102040403040705040400010277"), bytes.fromhex(
    "000102031104052131061241510761711322328108144291a1b1c109233352f0156272d10a162434e125f11718191a262728"
    "292a35363738393a434445464748494a535455565758595a636465666768696a737475767778797a82838485868788898a92"
    "939495969798999aa2a3a4a5a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9cad2d3d4d5d6d7d8d9dae2e3e4e5e6e7"
    "e8e9eaf2f3f4f5f6f7f8f9fa"))


def invalid(message):
    return errors.InvalidArgumentError(None, None, message)


def quant_table(base, quality):
    quality = min(max(quality, 1), 100)
    scale = 5000 // quality if quality < 50 else 200 - quality * 2
    return np.clip((base * scale + 50) // 100, 1, 255)


# -- colour conversion and downsampling ---------------------------------------------------------------
_SCALE = 16
_HALF = 1 << (_SCALE - 1)


def _fix(x, bits=_SCALE):
    return int(x * (1 << bits) + 0.5)


def _ycbcr(rgb):
    r, g, b = (rgb[..., i].astype(np.int64) for i in range(3))
    offset = (128 << _SCALE) + _HALF - 1
    y = (_fix(0.29900) * r + _fix(0.58700) * g + _fix(0.11400) * b + _HALF) >> _SCALE
    cb = (-_fix(0.16874) * r - _fix(0.33126) * g + _fix(0.5) * b + offset) >> _SCALE
    cr = (_fix(0.5) * r - _fix(0.41869) * g - _fix(0.08131) * b + offset) >> _SCALE
    return y, cb, cr


def _pad(plane, rows, cols):
    return np.pad(plane, ((0, max(0, rows - plane.shape[0])), (0, max(0, cols - plane.shape[1]))), mode="edge")


def _downsample_2x2(plane):
    """Averages of 2x2 pixels, rounded with a bias alternating 1, 2 along each row."""
    p = plane.astype(np.int64)
    sums = p[0::2, 0::2] + p[0::2, 1::2] + p[1::2, 0::2] + p[1::2, 1::2]
    bias = np.tile([1, 2], sums.shape[1] // 2 + 1)[:sums.shape[1]]
    return (sums + bias) >> 2


# -- forward DCT and quantisation ----------------------------------------------------------------------
_CONST_BITS, _PASS1_BITS = 13, 2
_F0298, _F0390, _F0541, _F0765 = (_fix(v, 13) for v in (0.298631336, 0.390180644, 0.541196100, 0.765366865))
_F0899, _F1175, _F1501, _F1847 = (_fix(v, 13) for v in (0.899976223, 1.175875602, 1.501321110, 1.847759065))
_F1961, _F2053, _F2562, _F3072 = (_fix(v, 13) for v in (1.961570560, 2.053119869, 2.562915447, 3.072711026))


def _descale(x, n):
    return (x + (1 << (n - 1))) >> n


def _fdct_1d(d, first_pass):
    """The accurate integer forward DCT along the last axis of `d` (`[..., 8]`)."""
    tmp0, tmp7 = d[..., 0] + d[..., 7], d[..., 0] - d[..., 7]
    tmp1, tmp6 = d[..., 1] + d[..., 6], d[..., 1] - d[..., 6]
    tmp2, tmp5 = d[..., 2] + d[..., 5], d[..., 2] - d[..., 5]
    tmp3, tmp4 = d[..., 3] + d[..., 4], d[..., 3] - d[..., 4]
    tmp10, tmp13 = tmp0 + tmp3, tmp0 - tmp3
    tmp11, tmp12 = tmp1 + tmp2, tmp1 - tmp2
    shift = _CONST_BITS - _PASS1_BITS if first_pass else _CONST_BITS + _PASS1_BITS
    out = [None] * 8
    if first_pass:
        out[0], out[4] = (tmp10 + tmp11) << _PASS1_BITS, (tmp10 - tmp11) << _PASS1_BITS
    else:
        out[0], out[4] = _descale(tmp10 + tmp11, _PASS1_BITS), _descale(tmp10 - tmp11, _PASS1_BITS)
    z1 = (tmp12 + tmp13) * _F0541
    out[2] = _descale(z1 + tmp13 * _F0765, shift)
    out[6] = _descale(z1 - tmp12 * _F1847, shift)
    z1, z2, z3, z4 = tmp4 + tmp7, tmp5 + tmp6, tmp4 + tmp6, tmp5 + tmp7
    z5 = (z3 + z4) * _F1175
    tmp4, tmp5, tmp6, tmp7 = tmp4 * _F0298, tmp5 * _F2053, tmp6 * _F3072, tmp7 * _F1501
    z1, z2 = z1 * -_F0899, z2 * -_F2562
    z3, z4 = z3 * -_F1961 + z5, z4 * -_F0390 + z5
    out[7] = _descale(tmp4 + z1 + z3, shift)
    out[5] = _descale(tmp5 + z2 + z4, shift)
    out[3] = _descale(tmp6 + z2 + z3, shift)
    out[1] = _descale(tmp7 + z1 + z4, shift)
    return np.stack(out, axis=-1)


def _quantized_blocks(plane, blocks_h, blocks_w, table):
    """`[blocks_h, blocks_w, 64]` quantised coefficients (natural order) of the plane's first blocks."""
    p = plane[:blocks_h * 8, :blocks_w * 8].astype(np.int64) - 128
    blocks = p.reshape(blocks_h, 8, blocks_w, 8).transpose(0, 2, 1, 3)
    rows = _fdct_1d(blocks, True)
    coefs = _fdct_1d(rows.swapaxes(-1, -2), False).swapaxes(-1, -2).reshape(blocks_h, blocks_w, 64)
    divisor = table * 8
    magnitude = (np.abs(coefs) + (divisor >> 1)) // divisor
    return np.where(coefs < 0, -magnitude, magnitude)


# -- entropy coding ------------------------------------------------------------------------------------

def _codes(counts, symbols):
    """{symbol: (code, length)} of a Huffman table given as counts per length and symbols."""
    table, code, k = {}, 0, 0
    for length in range(1, 17):
        for _ in range(counts[length - 1]):
            table[symbols[k]] = (code, length)
            code += 1
            k += 1
        code <<= 1
    return table


def _category(v):
    return int(abs(v)).bit_length()


def _symbols(coefs, prediction):
    """The (DC symbol, DC bits) and AC (symbol, value) run-length coding of one quantised block."""
    diff = int(coefs[0]) - prediction
    zz = coefs[ZIGZAG]
    out = [(0, diff)]
    nonzero = np.flatnonzero(zz[1:]) + 1
    last = 0
    for k in nonzero.tolist():
        run = k - last - 1
        while run > 15:
            out.append((0xF0, None))
            run -= 16
        value = int(zz[k])
        out.append(((run << 4) | _category(value), value))
        last = k
    if last != 63:
        out.append((0x00, None))
    return out


class _BitWriter:
    def __init__(self):
        self.out = bytearray()
        self.acc = 0
        self.n = 0

    def write(self, code, length):
        self.acc = (self.acc << length) | code
        self.n += length
        while self.n >= 8:
            self.n -= 8
            byte = (self.acc >> self.n) & 0xFF
            self.out.append(byte)
            if byte == 0xFF:
                self.out.append(0)
        self.acc &= (1 << self.n) - 1

    def flush(self):
        if self.n:
            self.write((1 << (8 - self.n)) - 1, 8 - self.n)
        return bytes(self.out)


def _value_bits(value):
    size = _category(value)
    return (value if value >= 0 else value + (1 << size) - 1), size


def optimal_table(frequencies):
    """JPEG's Annex K.2 procedure: code lengths from symbol frequencies (one reserved all-ones code),
    limited to 16 bits, as (counts per length, symbols by length then by value)."""
    freq = list(frequencies) + [1]          # symbol 256 reserves the all-ones code
    codesize = [0] * 257
    others = [-1] * 257
    while True:
        c1, v = -1, 1 << 62
        for i in range(257):
            if 0 < freq[i] <= v:
                v, c1 = freq[i], i
        c2, v = -1, 1 << 62
        for i in range(257):
            if 0 < freq[i] <= v and i != c1:
                v, c2 = freq[i], i
        if c2 < 0:
            break
        freq[c1] += freq[c2]
        freq[c2] = 0
        codesize[c1] += 1
        while others[c1] >= 0:
            c1 = others[c1]
            codesize[c1] += 1
        others[c1] = c2
        codesize[c2] += 1
        while others[c2] >= 0:
            c2 = others[c2]
            codesize[c2] += 1
    bits = [0] * 33
    for i in range(257):
        if codesize[i]:
            bits[codesize[i]] += 1
    for i in range(32, 16, -1):
        while bits[i] > 0:
            j = i - 2
            while bits[j] == 0:
                j -= 1
            bits[i] -= 2
            bits[i - 1] += 1
            bits[j + 1] += 2
            bits[j] -= 1
    i = 16
    while bits[i] == 0:
        i -= 1
    bits[i] -= 1            # drop the reserved code
    symbols = [s for size in range(1, 33) for s in range(256) if codesize[s] == size]
    return bytes(bits[1:17]), bytes(symbols)


def _dummy(dc):
    block = np.zeros(64, np.int64)
    block[0] = dc
    return block


# -- the file ----------------------------------------------------------------------------------------

def _segment(marker, payload):
    return b"\xff" + bytes([marker]) + struct.pack(">H", len(payload) + 2) + payload


def encode(image, quality=95, progressive=False, optimize_size=False, chroma_downsampling=True,
           density_unit="in", x_density=300, y_density=300, xmp_metadata=b""):
    """JPEG bytes of a uint8 `[height, width, 1 or 3]` image."""
    height, width, channels = image.shape
    if height == 0 or width == 0 or height > 65535 or width > 65535:
        raise invalid(f"Invalid image size {width}x{height} for JPEG")
    tables = [quant_table(_LUMA, quality), quant_table(_CHROMA, quality)]
    if channels == 3:
        planes = list(_ycbcr(image))
        sampling = [(2, 2), (1, 1), (1, 1)] if chroma_downsampling else [(1, 1)] * 3
        table_ids = [0, 1, 1]
    else:
        planes = [image[..., 0].astype(np.int64)]
        sampling, table_ids = [(1, 1)], [0]
    hmax, vmax = max(h for h, _ in sampling), max(v for _, v in sampling)
    mcus_x, mcus_y = -(-width // (8 * hmax)), -(-height // (8 * vmax))
    components = []
    for plane, (h, v), tq in zip(planes, sampling, table_ids):
        comp_w, comp_h = -(-width * h // hmax), -(-height * v // vmax)
        blocks_w, blocks_h = -(-comp_w // 8), -(-comp_h // 8)
        if (h, v) != (hmax, vmax):      # 2x2 averaging of the edge-extended full-size plane
            full = _pad(plane, comp_h * 2, blocks_w * 16)
            plane = _downsample_2x2(full)
        plane = _pad(plane, mcus_y * v * 8, blocks_w * 8)
        coefs = _quantized_blocks(plane, blocks_h, blocks_w, tables[tq])
        components.append((coefs, h, v, tq, blocks_w, blocks_h))
    # The blocks in scan order with their component, dummy blocks (past the image's blocks, inside the
    # last MCUs) taking the preceding block's DC and no AC.
    units = []
    if len(components) == 1:
        coefs = components[0][0]
        units = [(0, coefs[r, c]) for r in range(coefs.shape[0]) for c in range(coefs.shape[1])]
    else:
        for my in range(mcus_y):
            for mx in range(mcus_x):
                for index, (coefs, h, v, _, blocks_w, blocks_h) in enumerate(components):
                    last = None
                    for by in range(v):
                        row = my * v + by
                        if row < blocks_h:
                            for bx in range(h):
                                col = mx * h + bx
                                if col < blocks_w:
                                    last = coefs[row, col]
                                else:
                                    last = _dummy(last[0])
                                units.append((index, last))
                        else:
                            dc = last[0]
                            for _ in range(h):
                                last = _dummy(dc)
                                units.append((index, last))
    luma_chroma = [0] + [1] * (len(components) - 1)
    if progressive:
        scans = jpeg_progressive.encode_scans(units, [c[0] for c in components], luma_chroma, _BitWriter,
                                              optimal_table, _codes)
    else:
        scans = _baseline_scan(units, len(components), luma_chroma, optimize_size)
    unit = {"in": 1, "cm": 2}[density_unit]
    out = [b"\xff\xd8", _segment(0xE0, b"JFIF\x00\x01\x01" + bytes([unit]) + struct.pack(">HH", x_density,
                                                                                       y_density) + b"\x00\x00")]
    if xmp_metadata:
        out.append(_segment(0xE1, b"http://ns.adobe.com/xap/1.0/\x00" + xmp_metadata))
    for tq in sorted(set(table_ids)):
        out.append(_segment(0xDB, bytes([tq]) + bytes(tables[tq][ZIGZAG].astype(np.uint8))))
    frame = struct.pack(">BHHB", 8, height, width, len(components))
    for i, (_, h, v, tq, _, _) in enumerate(components):
        frame += bytes([i + 1, (h << 4) | v, tq])
    out.append(_segment(0xC2 if progressive else 0xC0, frame))
    out.append(scans)
    out.append(b"\xff\xd9")
    return b"".join(out)


def _baseline_scan(units, n_components, luma_chroma, optimize_size):
    """The Huffman tables (standard, or optimal for `optimize_size`), the one scan's header and its data."""
    symbol_lists, predictions = [], [0] * n_components
    for index, block in units:
        symbols = _symbols(block, predictions[index])
        predictions[index] = int(block[0])
        symbol_lists.append((index, symbols))
    if optimize_size:
        counts = [[[0] * 256 for _ in range(2)] for _ in range(2)]     # [table][dc/ac][symbol]
        for index, symbols in symbol_lists:
            t = luma_chroma[index]
            counts[t][0][_category(symbols[0][1])] += 1
            for s, _ in symbols[1:]:
                counts[t][1][s] += 1
        huffman = {(t, k): optimal_table(counts[t][k]) for t in range(2) for k in range(2)
                   if any(counts[t][k])}
    else:
        huffman = {(0, 0): _STD_DC_LUMA, (0, 1): _STD_AC_LUMA, (1, 0): _STD_DC_CHROMA, (1, 1): _STD_AC_CHROMA}
    codes = {key: _codes(*value) for key, value in huffman.items()}
    writer = _BitWriter()
    for index, symbols in symbol_lists:
        t = luma_chroma[index]
        dc, ac = codes[(t, 0)], codes[(t, 1)]
        diff = symbols[0][1]
        bits, size = _value_bits(diff)
        writer.write(*dc[size])
        if size:
            writer.write(bits, size)
        for s, value in symbols[1:]:
            writer.write(*ac[s])
            if value is not None:
                bits, size = _value_bits(value)
                writer.write(bits, size)
    out = []
    for t in sorted({luma_chroma[i] for i in range(n_components)}):
        for k in (0, 1):
            if (t, k) in huffman:
                counts, symbols = huffman[(t, k)]
                out.append(_segment(0xC4, bytes([(k << 4) | t]) + counts + symbols))
    scan = bytes([n_components])
    for i in range(n_components):
        scan += bytes([i + 1, (luma_chroma[i] << 4) | luma_chroma[i]])
    out.append(_segment(0xDA, scan + b"\x00\x3f\x00"))
    out.append(writer.flush())
    return b"".join(out)
