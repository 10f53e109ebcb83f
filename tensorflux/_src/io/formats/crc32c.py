"""CRC-32C (Castagnoli), the checksum of TFRecords, tensor bundles and LevelDB tables, and its masked form.

Short inputs go through a byte-at-a-time table. Long ones are cut into many equal lanes whose CRCs
NumPy computes side by side (one lookup in a 16-bit table per two bytes, for every lane at once), then
joined with the CRC's linearity: appending k bytes to a message acts on the CRC register as a fixed
32x32 matrix over GF(2), so the lanes are folded pairwise in a tree, each fold one matrix applied to
all pairs. A 100 MB checksum takes about a second on a loaded 2-core machine, with no compiled code.

With numba installed (extra `[jit]`), inputs of 4 MB and more (1 MB once numba is loaded) go through a compiled slicing-by-8 loop
instead (eight table lookups per eight bytes; about 0.2 s per 100 MB), compiled once and kept in numba's
on-disk cache, so a large checkpoint or SavedModel is checksummed at file speed.

With `google-crc32c` installed (extra `[io]`), every input goes through its C extension instead: the
CPU's CRC32C instruction, about 0.02 s per 100 MB, loaded in milliseconds and with no compiler's memory
(numba's import adds about 100 MB to the process, as much as the weights of a 25M-parameter model).
Its pure-Python fallback is never used (the NumPy paths here are faster).
"""
import sys

import numpy as np

from ...ops import jit as _jit

__all__ = ["crc32c", "masked_crc32c", "mask", "unmask"]

_POLYNOMIAL = 0x82F63B78  # Castagnoli's polynomial, bit-reflected
_MASK_DELTA = 0xA282EAD8


def _byte_table():
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ _POLYNOMIAL if crc & 1 else crc >> 1
        table.append(crc)
    return table


_TABLE = _byte_table()

# Below this many bytes the Python loop wins over NumPy's per-call overhead.
_VECTOR_THRESHOLD = 16384
_MIN_LANE_LENGTH = 64
_MAX_LANES = 65536


def _raw_update(register, data):
    """The CRC register after feeding `data` (no initial or final inversion)."""
    table = _TABLE
    for byte in data:
        register = table[(register ^ byte) & 0xFF] ^ (register >> 8)
    return register


# -- the shift operator: what appending zero bytes does to the register ----------------------------
# A linear map on 32-bit registers is kept as 4 tables of 256 entries (one per byte of the input), so
# applying it to a whole NumPy array of registers costs four lookups.

def _zero_byte_columns():
    """The images of the 32 basis registers after one zero byte."""
    return [_raw_update(1 << bit, b"\0") for bit in range(32)]


def _apply_columns(columns, register):
    result = 0
    bit = 0
    while register:
        if register & 1:
            result ^= columns[bit]
        register >>= 1
        bit += 1
    return result


def _compose(outer, inner):
    """The columns of `outer` after `inner`."""
    return [_apply_columns(outer, column) for column in inner]


def _shift_columns(num_bytes):
    """The columns of the map 'append num_bytes zero bytes', by repeated squaring."""
    result = [1 << bit for bit in range(32)]
    power = _zero_byte_columns()
    while num_bytes:
        if num_bytes & 1:
            result = _compose(power, result)
        power = _compose(power, power)
        num_bytes >>= 1
    return result


def _byte_tables(columns):
    values = np.arange(256, dtype=np.uint32)
    tables = np.zeros((4, 256), dtype=np.uint32)
    for bit, column in enumerate(columns):
        hit = ((values >> np.uint32(bit % 8)) & np.uint32(1)).astype(bool)
        tables[bit // 8][hit] ^= np.uint32(column)
    return tables


def _apply_tables(tables, registers):
    return (tables[0][registers & 0xFF] ^ tables[1][(registers >> 8) & 0xFF]
            ^ tables[2][(registers >> 16) & 0xFF] ^ tables[3][registers >> 24])


_SHIFT_TABLES = {}  # lane length -> tables for lane length * 2**level, level by level


def _fold_tables(lane_length, levels):
    key = (lane_length, levels)
    if key not in _SHIFT_TABLES:
        _SHIFT_TABLES[key] = [_byte_tables(_shift_columns(lane_length << level)) for level in range(levels)]
    return _SHIFT_TABLES[key]


def _lane_count(size):
    """A power of two: enough lanes to make the NumPy steps few, each lane long enough to matter."""
    lanes = 1
    while lanes * 2 <= _MAX_LANES and lanes * 2 * _MIN_LANE_LENGTH <= size:
        lanes *= 2
    return lanes


def _word_table():
    """The register update for one 16-bit little-endian word, as a table of 65536 entries."""
    registers = np.arange(65536, dtype=np.uint32)
    for _ in range(16):
        registers = np.where(registers & 1, (registers >> 1) ^ np.uint32(_POLYNOMIAL), registers >> 1)
    return registers.astype(np.uint32)


_WORD_TABLE = []     # built on first long input (256 KiB)
_TRANSPOSE_BLOCK = 256  # words per lane transposed at once: keeps the copy in cache


def _raw_update_lanes(register, view, num_lanes):
    """The register after feeding `view` (a multiple of 2 * num_lanes bytes), computed lane-parallel."""
    if not _WORD_TABLE:
        _WORD_TABLE.append(_word_table())
    table = _WORD_TABLE[0]
    lanes = view.view("<u2").reshape(num_lanes, -1)
    lane_words = lanes.shape[1]
    registers = np.zeros(num_lanes, dtype=np.uint32)
    registers[0] = register  # the running register enters with the first lane only (linearity)
    index = np.empty(num_lanes, dtype=np.uint32)
    for start in range(0, lane_words, _TRANSPOSE_BLOCK):
        for word in np.ascontiguousarray(lanes[:, start:start + _TRANSPOSE_BLOCK].T):
            np.bitwise_xor(registers, word, out=index)
            np.bitwise_and(index, 0xFFFF, out=index)
            np.right_shift(registers, 16, out=registers)
            registers ^= table[index]
    levels = num_lanes.bit_length() - 1
    for tables in _fold_tables(2 * lane_words, levels):
        registers = _apply_tables(tables, registers[0::2]) ^ registers[1::2]
    return int(registers[0])


# numba's import and cache load (~0.5 s, once per process) pays off over a few checksums of 4 MB and more
# (checkpoints are written again and again); once numba is loaded anyway, from 1 MB.
_COMPILED_THRESHOLD = 4 << 20
_COMPILED_THRESHOLD_LOADED = 1 << 20


def _slicing_tables():
    tables = np.zeros((8, 256), dtype=np.uint32)
    tables[0] = _TABLE
    for k in range(1, 8):
        previous = tables[k - 1]
        tables[k] = (previous >> np.uint32(8)) ^ tables[0][previous & np.uint32(0xFF)]
    return tables


def _build_compiled(numba):
    tables = _slicing_tables()

    @numba.njit(cache=True, nogil=True)
    def update(register, data, tables):
        n = data.size
        i = 0
        while i + 8 <= n:
            low = register ^ (np.uint32(data[i]) | (np.uint32(data[i + 1]) << np.uint32(8))
                              | (np.uint32(data[i + 2]) << np.uint32(16)) | (np.uint32(data[i + 3]) << np.uint32(24)))
            high = (np.uint32(data[i + 4]) | (np.uint32(data[i + 5]) << np.uint32(8))
                    | (np.uint32(data[i + 6]) << np.uint32(16)) | (np.uint32(data[i + 7]) << np.uint32(24)))
            register = (tables[7, low & np.uint32(0xFF)] ^ tables[6, (low >> np.uint32(8)) & np.uint32(0xFF)]
                        ^ tables[5, (low >> np.uint32(16)) & np.uint32(0xFF)] ^ tables[4, low >> np.uint32(24)]
                        ^ tables[3, high & np.uint32(0xFF)] ^ tables[2, (high >> np.uint32(8)) & np.uint32(0xFF)]
                        ^ tables[1, (high >> np.uint32(16)) & np.uint32(0xFF)] ^ tables[0, high >> np.uint32(24)])
            i += 8
        while i < n:
            register = tables[0, (register ^ np.uint32(data[i])) & np.uint32(0xFF)] ^ (register >> np.uint32(8))
            i += 1
        return register

    return lambda register, data: int(update(np.uint32(register), data, tables))


_HARDWARE = []   # [google_crc32c's C `extend` or None], looked up on first use


def _hardware_extend():
    if not _HARDWARE:
        try:
            from google_crc32c import cext   # the C extension only: ImportError when it is absent
            _HARDWARE.append(cext.extend)
        except ImportError:
            _HARDWARE.append(None)
    return _HARDWARE[0]


def _hardware_crc32c(extend, data, crc):
    # The extension takes only buffers without a release hook: bytes and NumPy arrays, not memoryviews
    # or bytearrays; an array view of the same memory costs no copy.
    if type(data) is not bytes:
        data = np.frombuffer(memoryview(data).cast("B"), dtype=np.uint8)
    return extend(crc, data)


def crc32c(data, crc=0):
    """CRC-32C of `data` (bytes-like), continuing from a previous `crc` of the bytes before it."""
    extend = _HARDWARE[0] if _HARDWARE else _hardware_extend()
    if extend is not None:
        return _hardware_crc32c(extend, data, crc)
    view = memoryview(data).cast("B")
    register = crc ^ 0xFFFFFFFF
    size = len(view)
    if (size >= _COMPILED_THRESHOLD or (size >= _COMPILED_THRESHOLD_LOADED and "numba" in sys.modules)) \
            and _jit.numba_or_none() is not None:
        compiled = _jit.build_now("crc32c.slicing_by_8", _build_compiled)
        if compiled is not None:
            return compiled(register, np.frombuffer(view, dtype=np.uint8)) ^ 0xFFFFFFFF
    while size >= _VECTOR_THRESHOLD:    # what one lane layout leaves over goes through a smaller one
        num_lanes = _lane_count(size)
        body = size - size % (2 * num_lanes)
        register = _raw_update_lanes(register, np.frombuffer(view[:body], dtype=np.uint8), num_lanes)
        view = view[body:]
        size = len(view)
    return _raw_update(register, view) ^ 0xFFFFFFFF


def mask(crc):
    """The stored form of a CRC: rotated and offset, so that a CRC of data holding CRCs stays strong."""
    return (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & 0xFFFFFFFF


def unmask(masked):
    rotated = (masked - _MASK_DELTA) & 0xFFFFFFFF
    return ((rotated >> 17) | (rotated << 15)) & 0xFFFFFFFF


def masked_crc32c(data):
    return mask(crc32c(data))
