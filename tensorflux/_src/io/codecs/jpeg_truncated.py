"""The entropy-coded scan that a truncated JPEG ends in, decoded as TensorFlow's `decode_jpeg(...,
try_recover_truncated=True)` decodes it: libjpeg-turbo's bit reader fed by TensorFlow's memory source.

Why this is not "read zeros past the end": libjpeg-turbo's decoder copies the source's position into
local registers when an MCU starts and writes it back only when the MCU is complete. When the local
copy runs dry inside an MCU, it asks the source for more; TensorFlow's source still sees the bytes left
at the MCU's start (its count was not written back), answers "there is data" and the reader reloads
from the MCU's start. So the unit that runs out re-reads its own bytes from where its byte reader
started, over and over, until it is complete; only an MCU that starts with no bytes left gets the fake
EOI marker TensorFlow inserts, after which libjpeg fills with zero bits, sets `insufficient_data`, and
leaves every later MCU of the scan (or restart interval) zero. Which bytes a unit re-reads depends on
how far the byte reader ran ahead of the bits, so the fills are reproduced as libjpeg-turbo does them:
the slow reader fills to 57 bits whenever a Huffman lookahead finds fewer than 8 (or a value needs more
than it has); the fast reader (used while 512 bytes per block of the MCU remain, no restarts) takes 6
bytes whenever 16 bits or fewer are left.

This runs in Python, bit group by bit group, and only for a scan that reaches the end of the data.
"""

class JpegError(Exception):
    """Data libjpeg gives up on (jpeg_decode turns it into its own JpegError)."""

_MIN_GET_BITS = 57          # BIT_BUF_SIZE - 7 with libjpeg-turbo's 64-bit bit buffer
_MASK64 = (1 << 64) - 1
_EOI = b"\xff\xd9"          # TensorFlow's fake end-of-image marker


class HuffmanCode:
    """libjpeg's derived table: the 8-bit lookahead (symbol and length, or "longer") and, for longer
    codes, maxcode/valoffset for the bit-at-a-time search."""
    __slots__ = ("look_len", "look_sym", "maxcode", "valoffset", "symbols")

    def __init__(self, counts, symbols):
        self.symbols = list(symbols) + [0] * (256 - len(symbols))
        self.maxcode = [-1] * 18
        self.valoffset = [0] * 18
        self.look_len = [9] * 256
        self.look_sym = [0] * 256
        code = k = 0
        for length in range(1, 17):
            n = counts[length - 1]
            if n:
                self.valoffset[length] = k - code
                for _ in range(n):
                    if length <= 8:
                        shift = 8 - length
                        for low in range(1 << shift):
                            self.look_len[(code << shift) | low] = length
                            self.look_sym[(code << shift) | low] = self.symbols[k]
                    code += 1
                    k += 1
                self.maxcode[length] = code - 1
            code <<= 1
        self.maxcode[17] = 0xFFFFF      # sentinel: a corrupt code stops at 17 bits


class LibjpegBits:
    """libjpeg-turbo's bit buffer over the scan's bytes, with TensorFlow's memory source behind it.
    `pub_*` is what the source manager holds (written back when an MCU completes); the reader's own
    position lives in `buf`/`pos`/`left`."""

    def __init__(self, data):
        self.data = data
        self.pub_buf, self.pub_pos, self.pub_left = data, 0, len(data)
        self.get_buffer = 0
        self.bits_left = 0
        self.unread_marker = 0
        self.insufficient = False
        self.buf, self.pos, self.left = data, 0, len(data)

    # -- the source manager (TensorFlow's MemFillInputBuffer) ----------------------------------------
    def _fill_input(self):
        if self.pub_left:
            pass                                    # "data left, probably corrupted": nothing changes
        elif not (self.pub_buf is _EOI and self.pub_pos == 0):
            self.pub_buf, self.pub_pos, self.pub_left = _EOI, 0, 2
        else:
            raise JpegError("premature end of data")
        self.buf, self.pos, self.left = self.pub_buf, self.pub_pos, self.pub_left

    def _byte(self):
        if self.left == 0:
            self._fill_input()
        self.left -= 1
        c = self.buf[self.pos]
        self.pos += 1
        return c

    # -- MCU boundaries ------------------------------------------------------------------------------
    def load(self):
        self.buf, self.pos, self.left = self.pub_buf, self.pub_pos, self.pub_left

    def save(self):
        self.pub_buf, self.pub_pos, self.pub_left = self.buf, self.pos, self.left

    # -- jpeg_fill_bit_buffer ------------------------------------------------------------------------
    def fill(self, nbits):
        if self.unread_marker == 0:
            while self.bits_left < _MIN_GET_BITS:
                c = self._byte()
                if c == 0xFF:
                    c = self._byte()
                    while c == 0xFF:
                        c = self._byte()
                    if c == 0:
                        c = 0xFF
                    else:
                        self.unread_marker = c
                        break
                self.get_buffer = ((self.get_buffer << 8) | c) & _MASK64
                self.bits_left += 8
            else:
                return
        if nbits > self.bits_left:
            self.insufficient = True
            self.get_buffer = (self.get_buffer << (_MIN_GET_BITS - self.bits_left)) & _MASK64
            self.bits_left = _MIN_GET_BITS

    def get(self, n):
        """CHECK_BIT_BUFFER then GET_BITS."""
        if self.bits_left < n:
            self.fill(n)
        self.bits_left -= n
        return (self.get_buffer >> self.bits_left) & ((1 << n) - 1)

    def extend(self, s):
        if not s:
            return 0
        v = self.get(s)
        return v if v >= (1 << (s - 1)) else v - (1 << s) + 1

    def decode(self, code):
        """HUFF_DECODE: the 8-bit lookahead, else jpeg_huff_decode one bit at a time."""
        if self.bits_left < 8:
            self.fill(0)
            if self.bits_left < 8:
                return self._slow_decode(code, 1)
        look = (self.get_buffer >> (self.bits_left - 8)) & 0xFF
        length = code.look_len[look]
        if length <= 8:
            self.bits_left -= length
            return code.look_sym[look]
        return self._slow_decode(code, 9)

    def _slow_decode(self, code, length):
        value = self.get(length)
        while value > code.maxcode[length]:
            value = (value << 1) | self.get(1)
            length += 1
        if length > 16:
            return 0                                  # libjpeg warns and fakes a zero
        return code.symbols[(value + code.valoffset[length]) & 0xFF]

    # -- the fast reader (decode_mcu_fast) -----------------------------------------------------------
    def fast_fill(self):
        """FILL_BIT_BUFFER_FAST: six GET_BYTEs when 16 bits or fewer are left."""
        if self.bits_left > 16:
            return
        buf, pos = self.buf, self.pos
        for _ in range(6):
            c0, c1 = buf[pos], buf[pos + 1]
            pos += 1
            self.get_buffer = ((self.get_buffer << 8) | c0) & _MASK64
            self.bits_left += 8
            if c0 == 0xFF:
                pos += 1
                if c1 != 0:
                    self.unread_marker = c1
                    pos -= 2
                    self.get_buffer &= ~0xFF
        self.left -= pos - self.pos
        self.pos = pos

    def fast_decode(self, code):
        self.fast_fill()
        look = (self.get_buffer >> (self.bits_left - 8)) & 0xFF
        length = code.look_len[look]
        if length <= 8:
            self.bits_left -= length
            return code.look_sym[look]
        self.bits_left -= length
        value = (self.get_buffer >> self.bits_left) & ((1 << length) - 1)
        while value > code.maxcode[length]:
            self.bits_left -= 1
            value = (value << 1) | ((self.get_buffer >> self.bits_left) & 1)
            length += 1
        if length > 16:
            return 0
        return code.symbols[(value + code.valoffset[length]) & 0xFF]

    def fast_extend(self, s):
        self.fast_fill()
        self.bits_left -= s
        v = (self.get_buffer >> self.bits_left) & ((1 << s) - 1)
        return v if v >= (1 << (s - 1)) else v - (1 << s) + 1

    def snapshot(self):
        return (self.get_buffer, self.bits_left, self.buf, self.pos, self.left)

    def restore(self, state):
        self.get_buffer, self.bits_left, self.buf, self.pos, self.left = state

    # -- restart markers (process_restart / read_restart_marker) -------------------------------------
    def restart(self, expected):
        """Drops the buffered bits and reads the next marker from the source; returns whether it was
        the expected RSTn (libjpeg then clears `insufficient_data`)."""
        self.bits_left = 0
        if self.unread_marker == 0:
            self.load()
            c = self._byte()
            while True:
                while c != 0xFF:
                    c = self._byte()
                c = self._byte()
                while c == 0xFF:
                    c = self._byte()
                if c != 0:
                    break
                c = self._byte()
            self.unread_marker = c
            self.save()
        if self.unread_marker == expected:
            self.unread_marker = 0
            self.insufficient = False
            return True
        return False


class TruncatedScan:
    """One scan of `_Decoder` decoded unit by unit as libjpeg-turbo decodes it from truncated data."""

    def __init__(self, decoder, comps, scan_bytes, zigzag):
        self.zz = zigzag            # position in the block of the k-th coefficient
        self.decoder = decoder
        self.comps = comps
        self.bits = LibjpegBits(scan_bytes)
        self.eobrun = 0

    def run(self, units, interval, ss, se, ah, al, progressive):
        bits, comps, decoder = self.bits, self.comps, self.decoder
        codes = {}

        def table(kind, index):
            key = (kind, index)
            if key not in codes:
                t = (decoder.ac_tables if kind else decoder.dc_tables)[index]
                codes[key] = HuffmanCode(t.counts, t.symbols)
            return codes[key]

        blocks_in_unit = len(units[0]) if units else 1
        fast_ok = not progressive and not decoder.restart_interval
        predictions = [0] * len(comps)
        restarts_to_go = decoder.restart_interval
        next_restart = 0
        self.last_good_unit = 0
        for number, unit in enumerate(units):
            if not bits.insufficient:
                self.last_good_unit = number     # libjpeg's last_good_iMCU_row, noted before the unit
            if decoder.restart_interval:
                if restarts_to_go == 0:
                    bits.restart(0xD0 + next_restart)
                    next_restart = (next_restart + 1) & 7
                    predictions = [0] * len(comps)
                    self.eobrun = 0
                    restarts_to_go = decoder.restart_interval
                restarts_to_go -= 1
            if bits.insufficient:
                continue            # libjpeg leaves the rest of the segment as it is
            if not progressive:
                self._baseline_unit(unit, table, predictions,
                                    fast_ok and bits.unread_marker == 0
                                    and bits.pub_left >= 512 * blocks_in_unit)
                continue
            if not (ss > 0 and ah == 0 and self.eobrun > 0):
                bits.load()
            for index, row, col in unit:
                comp, td, ta = comps[index]
                block = comp.coefs[row, col]
                if ss == 0 and ah == 0:
                    predictions[index] += bits.extend(min(bits.decode(table(0, td)), 16))
                    block[0] = predictions[index] << al
                elif ss == 0:
                    if bits.get(1):
                        block[0] |= 1 << al
                elif ah == 0:
                    self._ac_first(block, ss, se, al, table(1, ta))
                else:
                    self._ac_refine(block, ss, se, al, table(1, ta))
            bits.save()

    def _baseline_unit(self, unit, table, predictions, fast):
        bits, comps = self.bits, self.comps
        if fast:
            start = bits.snapshot()
            saved = list(predictions)
            bits.load()
            decode, extend = bits.fast_decode, bits.fast_extend
            written = self._baseline_blocks(unit, table, predictions, decode, extend)
            if bits.unread_marker == 0:
                bits.save()
                return
            # a marker inside the fast reader's window: libjpeg redoes the MCU with the slow reader
            bits.unread_marker = 0
            bits.restore(start)
            predictions[:] = saved
            for block in written:
                block[:] = 0
        bits.load()
        self._baseline_blocks(unit, table, predictions, bits.decode, bits.extend)
        bits.save()

    def _baseline_blocks(self, unit, table, predictions, decode, extend):
        comps, written = self.comps, []
        for index, row, col in unit:
            comp, td, ta = comps[index]
            block = comp.coefs[row, col]
            block[:] = 0                 # libjpeg zeroes the MCU buffer before decoding into it
            written.append(block)
            t = decode(table(0, td))
            if t > 16:
                raise JpegError("bad DC difference")
            predictions[index] += extend(t) if t else 0
            block[0] = predictions[index]
            ac = table(1, ta)
            k = 1
            while k < 64:
                rs = decode(ac)
                r, s = rs >> 4, rs & 15
                if s:
                    k += r
                    # past 63, libjpeg's natural-order table's padding entries point at 63
                    block[self.zz[k] if k < 64 else 63] = extend(s)
                elif r != 15:
                    break
                else:
                    k += 15
                k += 1
        return written

    def _ac_first(self, block, ss, se, al, code):
        bits = self.bits
        if self.eobrun > 0:
            self.eobrun -= 1
            return
        k = ss
        while k <= se:
            rs = bits.decode(code)
            r, s = rs >> 4, rs & 15
            if s:
                k += r
                block[self.zz[k] if k < 64 else 63] = bits.extend(s) << al
            elif r == 15:
                k += 15
            else:
                self.eobrun = (1 << r) - 1 + (bits.get(r) if r else 0)
                break
            k += 1

    def _ac_refine(self, block, ss, se, al, code):
        bits = self.bits
        p1, m1 = 1 << al, -1 << al
        k = ss
        if self.eobrun == 0:
            while k <= se:
                rs = bits.decode(code)
                r, s = rs >> 4, rs & 15
                if s:
                    s = p1 if bits.get(1) else m1
                elif r != 15:
                    self.eobrun = (1 << r) + (bits.get(r) if r else 0)
                    break
                while k <= se:
                    z = self.zz[k]
                    coef = int(block[z])
                    if coef:
                        if bits.get(1) and not coef & p1:
                            block[z] = coef + (p1 if coef >= 0 else m1)
                    else:
                        r -= 1
                        if r < 0:
                            break
                    k += 1
                if s:       # past 63, libjpeg's natural-order padding points at 63
                    block[self.zz[k] if k < 64 else 63] = s
                k += 1
        if self.eobrun > 0:
            while k <= se:
                z = self.zz[k]
                coef = int(block[z])
                if coef and bits.get(1) and not coef & p1:
                    block[z] = coef + (p1 if coef >= 0 else m1)
                k += 1
            self.eobrun -= 1
