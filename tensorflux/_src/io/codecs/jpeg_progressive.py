"""The scans of a progressive JPEG as TensorFlow's `encode_jpeg(progressive=True)` writes them:
libjpeg-turbo's default script (jpeg_simple_progression), and Huffman tables optimised per scan (libjpeg
turns optimisation on for every progressive file), each scan's tables sent just before it.

The coefficients are the baseline encoder's; this module only orders and codes them: the DC scans code
the point-transformed DC differences (then one refinement bit), the AC scans run-length code spectral
bands with end-of-band runs (EOBRUN, at most 0x7FFF) and, when refining, buffer the correction bits of
already-nonzero coefficients to send after the next symbol, as libjpeg's jcphuff does.
"""
import struct

from .jpeg_decode import ZIGZAG

_ZZ = ZIGZAG.tolist()
_MAX_CORR_BITS = 1000

# (components, Ss, Se, Ah, Al), jcparam.c's jpeg_simple_progression for YCbCr and for one component.
COLOUR_SCRIPT = [((0, 1, 2), 0, 0, 0, 1), ((0,), 1, 5, 0, 2), ((2,), 1, 63, 0, 1), ((1,), 1, 63, 0, 1),
                 ((0,), 6, 63, 0, 2), ((0,), 1, 63, 2, 1), ((0, 1, 2), 0, 0, 1, 0), ((2,), 1, 63, 1, 0),
                 ((1,), 1, 63, 1, 0), ((0,), 1, 63, 1, 0)]
GRAY_SCRIPT = [((0,), 0, 0, 0, 1), ((0,), 1, 5, 0, 2), ((0,), 6, 63, 0, 2), ((0,), 1, 63, 2, 1),
               ((0,), 0, 0, 1, 0), ((0,), 1, 63, 1, 0)]


class _Coder:
    """One scan's entropy coder, run twice: first counting symbols (`codes` None), then writing them
    with the optimal tables built from those counts."""

    def __init__(self, writer, codes):
        self.writer, self.codes = writer, codes
        self.counts = {}
        self.eobrun = 0
        self.corrections = []          # BE: correction bits waiting for the next end-of-band run
        self.table = None

    def symbol(self, table, value):
        if self.codes is None:
            counts = self.counts.setdefault(table, [0] * 256)
            counts[value] += 1
        else:
            self.writer.write(*self.codes[table][value])

    def bits(self, value, size):
        if self.codes is not None and size:
            self.writer.write(value & ((1 << size) - 1), size)

    def buffered(self, bits):
        if self.codes is not None:
            for b in bits:
                self.writer.write(b, 1)

    def emit_eobrun(self):
        if self.eobrun > 0:
            size = self.eobrun.bit_length() - 1
            self.symbol(self.table, size << 4)
            self.bits(self.eobrun, size)
            self.eobrun = 0
            self.buffered(self.corrections)
            self.corrections = []

    # -- the four kinds of scan (jcphuff.c's encode_mcu_*) -------------------------------------------
    def dc_first(self, units, al, tables):
        last = {}
        for index, block in units:
            value = int(block[0]) >> al
            diff = value - last.get(index, 0)
            last[index] = value
            size = abs(diff).bit_length()
            self.symbol(tables[index], size)
            self.bits(diff if diff >= 0 else diff - 1, size)

    def dc_refine(self, units, al):
        for _, block in units:
            self.bits(int(block[0]) >> al, 1)

    def ac_first(self, blocks, ss, se, al):
        for block in blocks:
            run = 0
            for k in range(ss, se + 1):
                coef = int(block[_ZZ[k]])
                magnitude = (-coef if coef < 0 else coef) >> al
                if magnitude == 0:
                    run += 1
                    continue
                self.emit_eobrun()
                while run > 15:
                    self.symbol(self.table, 0xF0)
                    run -= 16
                size = magnitude.bit_length()
                self.symbol(self.table, (run << 4) + size)
                self.bits(magnitude if coef >= 0 else ~magnitude, size)
                run = 0
            if run > 0:
                self.eobrun += 1
                if self.eobrun == 0x7FFF:
                    self.emit_eobrun()

    def ac_refine(self, blocks, ss, se, al):
        for block in blocks:
            values = [int(block[_ZZ[k]]) for k in range(ss, se + 1)]
            magnitudes = [(-v if v < 0 else v) >> al for v in values]
            eob = -1
            for i, m in enumerate(magnitudes):
                if m == 1:
                    eob = i
            run, pending = 0, []
            for i, m in enumerate(magnitudes):
                if m == 0:
                    run += 1
                    continue
                while run > 15 and i <= eob:
                    self.emit_eobrun()
                    self.symbol(self.table, 0xF0)
                    run -= 16
                    self.buffered(pending)
                    pending = []
                if m > 1:
                    pending.append(m & 1)
                    continue
                self.emit_eobrun()
                self.symbol(self.table, (run << 4) + 1)
                self.bits(0 if values[i] < 0 else 1, 1)
                self.buffered(pending)
                pending, run = [], 0
            if run > 0 or pending:
                self.eobrun += 1
                self.corrections += pending
                if self.eobrun == 0x7FFF or len(self.corrections) > _MAX_CORR_BITS - 64 + 1:
                    self.emit_eobrun()


def _segment(marker, payload):
    return b"\xff" + bytes([marker]) + struct.pack(">H", len(payload) + 2) + payload


def encode_scans(interleaved_units, component_blocks, luma_chroma, writer_class, optimal_table, codes_of):
    """The bytes from the first DHT to the last scan's data. `interleaved_units` is the MCU-order list
    of (component, block) including dummy blocks (the DC scans of several components);
    `component_blocks[i]` is component i's `[rows, cols, 64]` coefficients (what its own scans code)."""
    script = COLOUR_SCRIPT if len(component_blocks) == 3 else GRAY_SCRIPT
    out = []
    for comps, ss, se, ah, al in script:
        if len(comps) > 1:
            units = interleaved_units
        else:
            coefs = component_blocks[comps[0]]
            units = [(comps[0], coefs[r, c]) for r in range(coefs.shape[0]) for c in range(coefs.shape[1])]
        blocks = [block for _, block in units]
        dc_tables = {i: ("dc", luma_chroma[i]) for i in comps}

        def run(coder):
            if ss == 0 and ah == 0:
                coder.dc_first(units, al, dc_tables)
            elif ss == 0:
                coder.dc_refine(units, al)
            else:
                coder.table = ("ac", luma_chroma[comps[0]])
                (coder.ac_first if ah == 0 else coder.ac_refine)(blocks, ss, se, al)
                coder.emit_eobrun()

        gather = _Coder(None, None)
        run(gather)
        huffman = {table: optimal_table(counts) for table, counts in gather.counts.items()}
        sent = set()
        for i in comps:
            for table in ([("dc", luma_chroma[i])] if ss == 0 and ah == 0 else []) + \
                         ([("ac", luma_chroma[i])] if se else []):
                if table in huffman and table not in sent:
                    sent.add(table)
                    counts, symbols = huffman[table]
                    klass = 1 if table[0] == "ac" else 0
                    out.append(_segment(0xC4, bytes([(klass << 4) | table[1]]) + counts + symbols))
        header = bytes([len(comps)])
        for i in comps:
            td = luma_chroma[i] if ss == 0 and ah == 0 else 0
            ta = luma_chroma[i] if se else 0
            header += bytes([i + 1, (td << 4) | ta])
        out.append(_segment(0xDA, header + bytes([ss, se, (ah << 4) | al])))
        writer = writer_class()
        coder = _Coder(writer, {table: codes_of(*value) for table, value in huffman.items()})
        run(coder)
        out.append(writer.flush())
    return b"".join(out)
