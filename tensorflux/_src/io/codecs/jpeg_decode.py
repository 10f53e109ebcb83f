"""JPEG decoding (baseline and progressive, 8-bit, Huffman-coded) to the exact pixels TensorFlow's
`decode_jpeg` gives with its defaults: libjpeg's accurate integer inverse DCT, its "fancy" triangular
chroma upsampling, and its fixed-point YCbCr -> RGB tables.

The bytes are untrusted: every marker length, table index, component reference and coefficient position
is checked before use, and anything malformed raises `InvalidArgumentError` (never an IndexError).

Speed: entropy decoding is a Python loop over Huffman symbols fed by a precomputed table of 16-bit
windows over the scan's bits (one list lookup per symbol); everything after it -- dequantisation, the
inverse DCT, upsampling and colour conversion -- is vectorised over all blocks at once.
"""
import numpy as np

from ...framework import errors
from . import jpeg_compiled, jpeg_pixels, jpeg_smoothing

# Position in the 8x8 block (row-major) of the k-th coefficient in zig-zag order.
ZIGZAG = np.array([
    0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6,
    7, 14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31,
    39, 46, 53, 60, 61, 54, 47, 55, 62, 63], dtype=np.int64)
_ZZ = ZIGZAG.tolist()
MAX_PIXELS = 1 << 28


class JpegError(Exception):
    """Malformed or unsupported JPEG data (turned into TensorFlow's InvalidArgumentError by the op)."""


def invalid(message="Invalid JPEG data or crop window."):
    return errors.InvalidArgumentError(None, None, message)


class _Component:
    __slots__ = ("ident", "h", "v", "tq", "blocks_w", "blocks_h", "coefs", "quant", "width", "height")


class _Frame:
    def __init__(self):
        self.progressive = False
        self.width = self.height = 0
        self.components = []
        self.hmax = self.vmax = 1
        self.mcus_x = self.mcus_y = 0


def _huffman_table(counts, symbols):
    """A 65536-entry lookup from the next 16 bits to (symbol << 8 | code length); 0 marks a bad code."""
    table = np.zeros(1 << 16, dtype=np.int32)
    counts, symbols = list(counts), list(symbols)
    code, k = 0, 0
    for length in range(1, 17):
        for _ in range(counts[length - 1]):
            if code >= (1 << length):
                raise JpegError("bad Huffman table")
            start = code << (16 - length)
            table[start:start + (1 << (16 - length))] = (symbols[k] << 8) | length
            code += 1
            k += 1
        code <<= 1
    return _Table(table, counts, symbols)


class _Table:
    """A Huffman lookup: its array (for the compiled loop) and, made on first use, the same as a Python
    list (the interpreted loop indexes it), and the DHT's counts and symbols (the truncated-scan reader
    builds libjpeg's own lookup from them)."""
    __slots__ = ("array", "_list", "counts", "symbols")

    def __init__(self, array, counts, symbols):
        self.array, self._list, self.counts, self.symbols = array, None, counts, symbols

    def list(self):
        if self._list is None:
            self._list = self.array.tolist()
        return self._list


def _segments(data, start):
    """The entropy-coded bytes of a scan from `start`, split at restart markers and unstuffed, and the
    offset of the marker that ends the scan."""
    segments, begin, i, n = [], start, start, len(data)
    while True:
        j = data.find(b"\xff", i)
        if j < 0:
            segments.append(data[begin:n])
            end = n
            break
        k = j + 1
        while k < n and data[k] == 0xFF:     # fill bytes before a marker
            k += 1
        if k >= n:
            segments.append(data[begin:j])
            end = n
            break
        if data[k] == 0x00 and k == j + 1:   # a stuffed 0xFF data byte
            i = k + 1
            continue
        segments.append(data[begin:j])
        if 0xD0 <= data[k] <= 0xD7:          # restart marker: a new segment
            begin = i = k + 1
            continue
        end = j
        break
    return [seg.replace(b"\xff\x00", b"\xff") for seg in segments], end


def bit_windows(segment):
    """The 16 bits starting at every bit position of `segment` (and 32 positions past its end, which
    read zeros), as int64: entry p is the next 16 bits for a reader standing at bit p."""
    data = np.frombuffer(segment + b"\x00" * 7, dtype=np.uint8).astype(np.int64)
    n = len(segment) * 8 + 32
    # Every byte with the two after it as a 24-bit value; the window at bit 8b + k is its top 16 bits
    # after dropping k bits from the left.
    triple = (data[:-2] << 16) | (data[1:-1] << 8) | data[2:]
    shifts = 8 - np.arange(8, dtype=np.int64)
    windows = (triple[:, None] >> shifts[None, :]) & 0xFFFF
    return windows.reshape(-1)[:n]


class _Bits:
    """Reads bits from one entropy-coded segment; past its end it reads zeros, as libjpeg does."""
    __slots__ = ("windows", "array", "pos", "limit")

    def __init__(self, segment):
        self.array = bit_windows(segment)
        self.windows = self.array.tolist()
        self.pos = 0
        self.limit = len(self.array) - 1

    def decode(self, table):
        pos = self.pos
        if pos > self.limit:
            raise JpegError("premature end of data")
        entry = table[self.windows[pos]]
        if not entry:
            raise JpegError("bad Huffman code")
        self.pos = pos + (entry & 0xFF)
        return entry >> 8

    def receive(self, s):
        """`s` (<= 16) raw bits as an unsigned value."""
        pos = self.pos
        if pos > self.limit:
            raise JpegError("premature end of data")
        self.pos = pos + s
        return self.windows[pos] >> (16 - s)

    def extend(self, s):
        """`s` bits as the signed value of JPEG's magnitude category coding."""
        if not s:
            return 0
        v = self.receive(s)
        return v if v >= (1 << (s - 1)) else v - (1 << s) + 1

    def bit(self):
        pos = self.pos
        if pos > self.limit:
            raise JpegError("premature end of data")
        self.pos = pos + 1
        return self.windows[pos] >> 15


def _u16(data, i):
    return (data[i] << 8) | data[i + 1]


# Segments libjpeg reads byte by byte with a local copy of the source's position (synced at their end).
_RESYNCED_SEGMENTS = frozenset([0xC0, 0xC1, 0xC2, 0xC4, 0xDA, 0xDB, 0xDD])


def _cycled_segment(data, i):
    """`data` with the segment starting at `i` (its length field), cut by the end of the data, as
    libjpeg reads it through TensorFlow's recovering source: when its local copy runs dry, the source
    (not yet synced) still reports the bytes from `i` on, so the reader starts over at `i`; the bytes
    after the segment are the rest of the last pass (see jpeg_truncated)."""
    cut = data[i:]
    if not cut:
        raise JpegError("premature end of data")
    length = (cut[0] << 8) | cut[1 % len(cut)]
    if length < 2:
        raise JpegError("bad marker length")
    segment = (cut * (length // len(cut) + 1))[:length]
    rest = length % len(cut)
    return data[:i] + segment + (cut[rest:] if rest else b"")


class _Decoder:
    def __init__(self, data, recover=False):
        self.data = data
        self.recover = recover      # try_recover_truncated: the data's end is an EOI, as libjpeg is told
        self.truncated = False
        self.quant = [None] * 4
        self.dc_tables = [None] * 4
        self.ac_tables = [None] * 4
        self.restart_interval = 0
        self.frame = None
        self.adobe_transform = None
        self.jfif = False
        self.eobrun = 0
        self.scan_number = 0
        self.coef_bits = None       # per component, the bit the first 10 coefficients are known to (-1: none)
        self.prev_bits = None       # the same before each component's latest scan
        self.last_good_row = 0      # the last MCU row the latest scan reached before its data ran out

    # -- markers -------------------------------------------------------------------------------------
    def run(self, accurate, ratio=1):
        data, n = self.data, len(self.data)
        if n < 4 or data[0] != 0xFF or data[1] != 0xD8:
            raise JpegError("not a JPEG file: starts with 0x%02x 0x%02x" % (data[0] if n else 0,
                                                                         data[1] if n > 1 else 0))
        i = 2
        while True:
            while i < n and data[i] != 0xFF:   # tolerate garbage between segments, as libjpeg warns and skips
                i += 1
            while i < n and data[i] == 0xFF:
                i += 1
            if i >= n:
                if self.recover:
                    break
                raise JpegError("premature end of data")
            marker = data[i]
            i += 1
            if marker == 0xD9:  # EOI
                break
            if 0xD0 <= marker <= 0xD7 or marker == 0x01:
                continue
            if self.recover and (i + 2 > n or i + _u16(data, i) > n):
                if marker not in _RESYNCED_SEGMENTS:
                    break               # libjpeg skips APPn/COM bodies through the source: the fake EOI
                data = self.data = _cycled_segment(data, i)
                n = len(data)
            if i + 2 > n:
                raise JpegError("premature end of data")
            length = _u16(data, i)
            if length < 2 or i + length > n:
                raise JpegError("bad marker length")
            body = data[i + 2:i + length]
            if marker == 0xDB:
                self._quant(body)
            elif marker == 0xC4:
                self._huffman(body)
            elif marker in (0xC0, 0xC1, 0xC2):
                self._frame(body, marker == 0xC2)
            elif marker in (0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF):
                raise JpegError("unsupported JPEG process: SOF type 0x%02x" % marker)
            elif marker == 0xDD:
                if len(body) < 2:
                    raise JpegError("bad DRI")
                self.restart_interval = _u16(body, 0)
            elif marker == 0xE0:
                self.jfif = self.jfif or body[:5] == b"JFIF\x00"
            elif marker == 0xEE:
                if body[:5] == b"Adobe" and len(body) >= 12:
                    self.adobe_transform = body[11]
            elif marker == 0xDA:
                i = self._scan(body, i + length)
                continue
            i += length
        if self.frame is None:
            raise JpegError("no image")
        return self._pixels(accurate, ratio)

    def _quant(self, body):
        k = 0
        while k < len(body):
            precision, tq = body[k] >> 4, body[k] & 15
            size = 128 if precision else 64
            if tq > 3 or k + 1 + size > len(body):
                raise JpegError("bad DQT")
            raw = body[k + 1:k + 1 + size]
            values = (np.frombuffer(raw, ">u2") if precision else np.frombuffer(raw, np.uint8)).astype(np.int64)
            table = np.zeros(64, np.int64)
            table[ZIGZAG] = values
            self.quant[tq] = table
            k += 1 + size

    def _huffman(self, body):
        k = 0
        while k < len(body):
            if k + 17 > len(body):
                raise JpegError("bad DHT")
            tc, th = body[k] >> 4, body[k] & 15
            counts = list(body[k + 1:k + 17])
            total = sum(counts)
            if tc > 1 or th > 3 or total > 256 or k + 17 + total > len(body):
                raise JpegError("bad DHT")
            table = _huffman_table(counts, list(body[k + 17:k + 17 + total]))
            (self.ac_tables if tc else self.dc_tables)[th] = table
            k += 17 + total

    def _frame(self, body, progressive):
        if self.frame is not None:
            raise JpegError("two frames")
        if len(body) < 6:
            raise JpegError("bad SOF")
        precision, height, width, count = body[0], _u16(body, 1), _u16(body, 3), body[5]
        if precision != 8:
            raise JpegError(f"unsupported JPEG data precision {precision}")
        if height == 0 or width == 0 or count not in (1, 3, 4) or len(body) < 6 + 3 * count:
            raise JpegError("bad SOF")
        if width * height > MAX_PIXELS:      # a 20-byte header must not make us allocate terabytes
            raise JpegError(f"image of {width}x{height} pixels is larger than tensorflux decodes ({MAX_PIXELS})")
        frame = _Frame()
        frame.progressive, frame.width, frame.height = progressive, width, height
        for c in range(count):
            comp = _Component()
            comp.ident, sampling, comp.tq = body[6 + 3 * c], body[7 + 3 * c], body[8 + 3 * c]
            comp.h, comp.v = sampling >> 4, sampling & 15
            if not (1 <= comp.h <= 4 and 1 <= comp.v <= 4) or comp.tq > 3:
                raise JpegError("bad sampling factors")
            comp.quant = None
            frame.components.append(comp)
        frame.hmax = max(c.h for c in frame.components)
        frame.vmax = max(c.v for c in frame.components)
        frame.mcus_x = -(-width // (8 * frame.hmax))
        frame.mcus_y = -(-height // (8 * frame.vmax))
        for comp in frame.components:
            comp.width = -(-width * comp.h // frame.hmax)
            comp.height = -(-height * comp.v // frame.vmax)
            comp.blocks_w = frame.mcus_x * comp.h
            comp.blocks_h = frame.mcus_y * comp.v
            comp.coefs = np.zeros((comp.blocks_h, comp.blocks_w, 64), dtype=np.int64)
        self.frame = frame

    # -- scans ---------------------------------------------------------------------------------------
    def _scan(self, body, end_of_header):
        frame = self.frame
        if frame is None or not body:
            raise JpegError("scan before frame")
        count = body[0]
        if count < 1 or count > 4 or len(body) < 1 + 2 * count + 3:
            raise JpegError("bad SOS")
        comps = []
        for c in range(count):
            ident, tables = body[1 + 2 * c], body[2 + 2 * c]
            match = [comp for comp in frame.components if comp.ident == ident]
            if not match:
                raise JpegError("bad component id in scan")
            comps.append((match[0], tables >> 4, tables & 15))
        ss, se, a = body[1 + 2 * count], body[2 + 2 * count], body[3 + 2 * count]
        ah, al = a >> 4, a & 15
        if ss > 63 or se > 63 or ss > se or al > 13:
            raise JpegError("bad progression parameters")
        for comp, _, _ in comps:
            if comp.quant is None:      # libjpeg latches a component's table when its first scan starts
                if self.quant[comp.tq] is None:
                    raise JpegError("quantization table missing")
                comp.quant = self.quant[comp.tq].copy()
        if frame.progressive:
            self._note_coef_bits(comps, ss, se, al)
        segments, end = _segments(self.data, end_of_header)
        truncated = self.recover and end == len(self.data)
        self.truncated = self.truncated or truncated
        self._decode_scan(comps, ss, se, ah, al, segments, truncated, end_of_header)
        return end

    def _note_coef_bits(self, comps, ss, se, al):
        """What libjpeg's progressive decoder records when a scan starts (its block smoothing reads it)."""
        frame = self.frame
        if self.coef_bits is None:
            self.coef_bits = [[-1] * 10 for _ in frame.components]
            self.prev_bits = [[-1] * 10 for _ in frame.components]
        self.scan_number += 1
        for comp, _, _ in comps:
            i = frame.components.index(comp)
            for k in range(min(ss, 1), min(max(se, 9), 9) + 1):
                self.prev_bits[i][k] = self.coef_bits[i][k] if self.scan_number > 1 else 0
            for k in range(ss, min(se, 9) + 1):
                self.coef_bits[i][k] = al

    def _scan_blocks(self, comps):
        """`[blocks, 3]` (component index, block row, block column) in scan order, and blocks per unit.
        An interleaved scan walks MCUs of h x v blocks per component; a one-component scan walks that
        component's blocks that hold image data, one at a time."""
        frame = self.frame
        if len(comps) == 1:
            comp = comps[0][0]
            bw, bh = -(-comp.width // 8), -(-comp.height // 8)
            rows, cols = np.divmod(np.arange(bh * bw, dtype=np.int64), bw)
            return np.stack([np.zeros_like(rows), rows, cols], axis=1), 1
        template = np.array([(index, by, bx, comp.v, comp.h) for index, (comp, _, _) in enumerate(comps)
                             for by in range(comp.v) for bx in range(comp.h)], dtype=np.int64)
        my, mx = np.divmod(np.arange(frame.mcus_y * frame.mcus_x, dtype=np.int64), frame.mcus_x)
        rows = my[:, None] * template[None, :, 3] + template[None, :, 1]
        cols = mx[:, None] * template[None, :, 4] + template[None, :, 2]
        index = np.broadcast_to(template[None, :, 0], rows.shape)
        return np.stack([index, rows, cols], axis=2).reshape(-1, 3), len(template)

    def _tables(self, comps, need_dc, need_ac):
        for _, td, ta in comps:
            if need_dc and (td > 3 or self.dc_tables[td] is None):
                raise JpegError("Huffman table missing")
            if need_ac and (ta > 3 or self.ac_tables[ta] is None):
                raise JpegError("Huffman table missing")

    def _decode_scan(self, comps, ss, se, ah, al, segments, truncated=False, scan_start=0):
        frame = self.frame
        progressive = frame.progressive
        if not progressive:
            ss, se, ah, al = 0, 63, 0, 0
        dc_scan = ss == 0
        self._tables(comps, dc_scan and ah == 0, se > 0)
        if progressive and ss == 0 and se != 0:
            raise JpegError("bad progression parameters")
        if progressive and ss > 0 and len(comps) != 1:
            raise JpegError("AC scans must have one component")
        blocks, per_unit = self._scan_blocks(comps)
        n_units = len(blocks) // per_unit
        self.last_good_row = frame.mcus_y - 1
        interval = self.restart_interval or n_units or 1
        if not progressive and not truncated:
            compiled = jpeg_compiled.baseline_segment()
            if compiled is not None:
                self._compiled_baseline_scan(compiled, comps, blocks, per_unit, interval, segments)
                return
        units = [list(map(tuple, blocks[i:i + per_unit].tolist())) for i in range(0, len(blocks), per_unit)]
        if not progressive and not truncated:
            self._baseline_scan(comps, units, interval, segments)
            return
        if truncated:
            # TensorFlow's recovery: libjpeg-turbo's reader re-reads the unit that runs out (see
            # jpeg_truncated); the scan's bytes reach the end of the data
            from . import jpeg_truncated
            try:
                scan = jpeg_truncated.TruncatedScan(self, comps, self.data[scan_start:], _ZZ)
                scan.run(units, self.restart_interval, ss, se, ah, al, progressive)
                index, row, _ = units[scan.last_good_unit][0] if units else (0, 0, 0)
                self.last_good_row = row // comps[index][0].v
            except (IndexError, jpeg_truncated.JpegError) as e:
                raise JpegError(str(e) or "premature end of data") from None
            return
        for seg_index, first in enumerate(range(0, len(units), interval)):
            if seg_index >= len(segments):
                raise JpegError("premature end of data")
            bits = _Bits(segments[seg_index])
            predictions = [0] * len(comps)
            self.eobrun = 0
            for unit in units[first:first + interval]:
                for index, row, col in unit:
                    comp, td, ta = comps[index]
                    block = comp.coefs[row, col]
                    if ss == 0:
                        if ah == 0:
                            t = bits.decode(self.dc_tables[td].list())
                            if t > 16:
                                raise JpegError("bad DC difference")
                            predictions[index] += bits.extend(t)
                            block[0] = predictions[index] << al
                        elif bits.bit():
                            block[0] |= 1 << al
                    elif ah == 0:
                        self._ac_first(bits, block, ss, se, al, self.ac_tables[ta].list())
                    else:
                        self._ac_refine(bits, block, ss, se, al, self.ac_tables[ta].list())

    def _baseline_scan(self, comps, units, interval, segments):
        """A sequential scan: all of it in one loop with local names (the hot loop of decoding), the
        coefficients of each component collected in a flat list and stored once at the end."""
        zz = _ZZ
        flats = [[0] * (c.blocks_h * c.blocks_w * 64) for c, _, _ in comps]
        widths = [c.blocks_w for c, _, _ in comps]
        dcs = [self.dc_tables[td].list() for _, td, _ in comps]
        acs = [self.ac_tables[ta].list() for _, _, ta in comps]
        for seg_index, first in enumerate(range(0, len(units), interval)):
            if seg_index >= len(segments):
                raise JpegError("premature end of data")
            w = _Bits(segments[seg_index]).windows
            pos = 0
            predictions = [0] * len(comps)
            try:
                for unit in units[first:first + interval]:
                    for index, row, col in unit:
                        flat, ac = flats[index], acs[index]
                        base = (row * widths[index] + col) * 64
                        e = dcs[index][w[pos]]
                        if not e:
                            raise JpegError("bad Huffman code")
                        pos += e & 255
                        t = e >> 8
                        if t:
                            if t > 16:
                                raise JpegError("bad DC difference")
                            v = w[pos] >> (16 - t)
                            pos += t
                            if v < (1 << (t - 1)):
                                v -= (1 << t) - 1
                            predictions[index] += v
                        flat[base] = predictions[index]
                        k = 1
                        while k < 64:
                            e = ac[w[pos]]
                            if not e:
                                raise JpegError("bad Huffman code")
                            pos += e & 255
                            s = (e >> 8) & 15
                            if s:
                                k += e >> 12
                                if k > 63:
                                    raise JpegError("bad AC run")
                                v = w[pos] >> (16 - s)
                                pos += s
                                if v < (1 << (s - 1)):
                                    v -= (1 << s) - 1
                                flat[base + zz[k]] = v
                                k += 1
                            elif e >> 12 == 15:
                                k += 16
                            else:
                                break
            except IndexError:
                raise JpegError("premature end of data") from None
        for (comp, _, _), flat in zip(comps, flats):
            comp.coefs = np.array(flat, dtype=np.int64).reshape(comp.coefs.shape)

    def _compiled_baseline_scan(self, compiled, comps, blocks, per_unit, interval, segments):
        sizes = [c.blocks_h * c.blocks_w * 64 for c, _, _ in comps]
        offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        flat = np.zeros(int(offsets[-1]), np.int64)
        dc = np.stack([self.dc_tables[td].array for _, td, _ in comps]).astype(np.int64)
        ac = np.stack([self.ac_tables[ta].array for _, _, ta in comps]).astype(np.int64)
        n_units = len(blocks) // per_unit
        widths = np.array([c.blocks_w for c, _, _ in comps], np.int64)
        comp_of = blocks[:, 0]
        base_of = offsets[comp_of] + (blocks[:, 1] * widths[comp_of] + blocks[:, 2]) * 64
        for seg_index, first in enumerate(range(0, n_units, interval)):
            if seg_index >= len(segments):
                raise JpegError("premature end of data")
            lo, hi = first * per_unit, min(n_units, first + interval) * per_unit
            status = compiled(bit_windows(segments[seg_index]), dc, ac, comp_of[lo:hi], base_of[lo:hi], flat,
                              ZIGZAG, np.zeros(len(comps), np.int64))
            if status != jpeg_compiled.OK:
                raise JpegError({jpeg_compiled.BAD_CODE: "bad Huffman code", jpeg_compiled.BAD_DC: "bad DC difference",
                                 jpeg_compiled.BAD_RUN: "bad AC run"}.get(status, "premature end of data"))
        for (comp, _, _), start, size in zip(comps, offsets[:-1], sizes):
            comp.coefs = flat[start:start + size].reshape(comp.coefs.shape)

    def _ac_first(self, bits, block, ss, se, al, table):
        if self.eobrun > 0:
            self.eobrun -= 1
            return
        k = ss
        while k <= se:
            rs = bits.decode(table)
            r, s = rs >> 4, rs & 15
            if s:
                k += r
                if k > 63:
                    raise JpegError("bad AC run")
                block[_ZZ[k]] = bits.extend(s) << al
            elif r == 15:
                k += 15
            else:
                self.eobrun = (1 << r) - 1 + (bits.receive(r) if r else 0)
                break
            k += 1

    def _ac_refine(self, bits, block, ss, se, al, table):
        p1, m1 = 1 << al, -1 << al
        k = ss
        if self.eobrun == 0:
            while k <= se:
                rs = bits.decode(table)
                r, s = rs >> 4, rs & 15
                if s:
                    s = p1 if bits.bit() else m1
                elif r != 15:
                    self.eobrun = (1 << r) + (bits.receive(r) if r else 0)
                    break
                while k <= se:
                    z = _ZZ[k]
                    coef = int(block[z])
                    if coef:
                        if bits.bit() and not coef & p1:
                            block[z] = coef + (p1 if coef >= 0 else m1)
                    else:
                        r -= 1
                        if r < 0:
                            break
                    k += 1
                if s:       # past 63, libjpeg's natural-order padding points at 63
                    block[_ZZ[k] if k < 64 else 63] = s
                k += 1
        if self.eobrun > 0:
            while k <= se:
                z = _ZZ[k]
                coef = int(block[z])
                if coef and bits.bit() and not coef & p1:
                    block[z] = coef + (p1 if coef >= 0 else m1)
                k += 1
            self.eobrun -= 1

    # -- pixels --------------------------------------------------------------------------------------
    def _pixels(self, accurate, ratio=1):
        frame = self.frame
        planes = []
        self.sizes = jpeg_pixels.scaled_sizes(frame, ratio)
        smoothing = frame.progressive and self.coef_bits is not None and \
            jpeg_smoothing.smoothing_ok(frame.components, self.coef_bits)
        for i, (comp, size) in enumerate(zip(frame.components, self.sizes)):
            if comp.quant is None:
                raise JpegError("component has no scan")
            coefs = comp.coefs
            if smoothing:       # a progressive file cut before its last scan, as libjpeg smooths it
                coefs = jpeg_smoothing.smooth(coefs, comp.quant, comp.v, frame.mcus_y, -(-comp.width // 8),
                                              -(-comp.height // 8), self.coef_bits[i],
                                              self.prev_bits[i] if self.scan_number > 1 else [-1] * 10,
                                              self.last_good_row)
            if size < 8:
                samples = jpeg_pixels.idct_scaled(coefs * comp.quant, size)
            elif accurate:
                samples = jpeg_pixels.idct_islow(coefs * comp.quant)
            else:
                samples = jpeg_pixels.idct_ifast(coefs * jpeg_pixels.ifast_multipliers(comp.quant))
            # the component's samples at this scale: ceil(image size * sampling * size / (largest sampling * 8))
            width = -(-frame.width * comp.h * size // (frame.hmax * 8))
            height = -(-frame.height * comp.v * size // (frame.vmax * 8))
            planes.append(samples[:height, :width])
        return frame, planes, self.colour_transform()

    def colour_transform(self):
        """Whether three components are YCbCr (libjpeg's rules: Adobe's flag, else JFIF, else the ids); for
        four, whether they are YCCK (Adobe's flag 2) rather than CMYK."""
        frame = self.frame
        if len(frame.components) == 4:
            return self.adobe_transform == 2
        if len(frame.components) != 3:
            return False
        if self.adobe_transform is not None:
            return self.adobe_transform != 0
        if self.jfif:
            return True
        ids = [c.ident for c in frame.components]
        return ids != [82, 71, 66]


def decode(data, channels=0, accurate=False, fancy_upscaling=True, recover_truncated=False, ratio=1):
    """`[height, width, channels]` uint8 pixels of JPEG bytes; channels 0 keeps the file's (1 or 3).
    `accurate` picks the accurate integer IDCT (TensorFlow's "INTEGER_ACCURATE"); the default is the fast
    one, which TensorFlow's `dct_method=''` maps to."""
    try:
        decoder = _Decoder(bytes(data), recover_truncated)
        frame, planes, ycc = decoder.run(accurate, ratio)
        if len(frame.components) == 4 and channels == 1:
            raise JpegError("Unsupported color conversion request")   # libjpeg has no CMYK -> grayscale
    except JpegError as e:
        raise invalid(f"jpeg::Uncompress failed. Invalid JPEG data or crop window. ({e}; data size {len(data)})") \
            from None
    return jpeg_pixels.to_pixels(frame, planes, ycc, channels, fancy_upscaling,
                                 adobe=decoder.adobe_transform is not None, ratio=ratio, sizes=decoder.sizes)
