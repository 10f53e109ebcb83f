"""Sorted string tables in LevelDB's format: the `.index` file of a tensor bundle (TF2 checkpoints and
SavedModel variables) is one.

Layout, all integers little endian:
- data blocks of key/value entries in key order. Each key is stored as the count of bytes it shares with
  the previous key, plus the rest ("prefix compression"); every `restart_interval`-th entry shares nothing
  and its offset goes into the restart array at the block's end (uint32 offsets, then their count).
- after every block a 5-byte trailer: the compression type (0: none) and the masked CRC-32C of the block
  and that type byte.
- a metaindex block (empty here: no filters) and an index block whose entries map, per data block, a key
  between that block's last key and the next block's first key to the block's handle (varint offset and
  size).
- a 48-byte footer: the metaindex and index handles padded to 40 bytes, then the magic number.

The writer shortens index keys and cuts blocks as LevelDB (and TensorFlow's copy of it) does, so its
files are byte for byte those TensorFlow writes. The reader checks every length, offset, order and CRC
against the file before it trusts it and raises DataLossError naming what is wrong.
"""
import struct

from ...framework.errors import DataLossError, UnimplementedError
from .crc32c import crc32c, mask

__all__ = ["TableWriter", "read_table", "MAGIC", "FOOTER_SIZE"]

MAGIC = 0xDB4775248B80FB57
FOOTER_SIZE = 48
_HANDLES_SIZE = 40       # two block handles of at most 10 varint bytes each, padded
_TRAILER_SIZE = 5
_NO_COMPRESSION = 0
_SNAPPY = 1
_UINT32 = struct.Struct("<I")


def _varint(value):
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _read_varint(buffer, position, end, what):
    """(value, next position) of the varint64 at `position`; DataLossError if it runs past `end`."""
    value = 0
    shift = 0
    while position < end and shift <= 63:
        byte = buffer[position]
        position += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, position
        shift += 7
    raise DataLossError(None, None, f"bad {what}: a varint runs past its end")


# -- writing ------------------------------------------------------------------------------------------

def _shortest_separator(start, limit):
    """A short key k with start <= k < limit (LevelDB's bytewise comparator rule)."""
    common = 0
    shortest = min(len(start), len(limit))
    while common < shortest and start[common] == limit[common]:
        common += 1
    if common < shortest:
        byte = start[common]
        if byte < 0xFF and byte + 1 < limit[common]:
            return start[:common] + bytes([byte + 1])
    return start


def _short_successor(key):
    """A short key k >= key: the first byte that can grow grows, the rest is cut."""
    for index, byte in enumerate(key):
        if byte != 0xFF:
            return key[:index] + bytes([byte + 1])
    return key


class _BlockBuilder:
    def __init__(self, restart_interval):
        self._interval = restart_interval
        self.reset()

    def reset(self):
        self._buffer = bytearray()
        self._restarts = [0]
        self._counter = 0
        self._last_key = b""
        self.empty = True

    def add(self, key, value):
        shared = 0
        if self._counter < self._interval:
            limit = min(len(key), len(self._last_key))
            while shared < limit and key[shared] == self._last_key[shared]:
                shared += 1
        else:
            self._restarts.append(len(self._buffer))
            self._counter = 0
        self._buffer += _varint(shared) + _varint(len(key) - shared) + _varint(len(value))
        self._buffer += key[shared:] + value
        self._last_key = key
        self._counter += 1
        self.empty = False

    def size_estimate(self):
        return len(self._buffer) + 4 * len(self._restarts) + 4

    def finish(self):
        return bytes(self._buffer) + b"".join(_UINT32.pack(r) for r in self._restarts) + \
            _UINT32.pack(len(self._restarts))


class TableWriter:
    """Writes a table to a binary file object; keys must be added in strictly increasing byte order."""

    def __init__(self, fileobj, block_size=262144, restart_interval=16):
        self._file = fileobj
        self._block_size = block_size
        self._offset = 0
        self._data = _BlockBuilder(restart_interval)
        self._index = _BlockBuilder(1)
        self._last_key = None
        self._pending_handle = None  # the handle of a flushed block waiting for the next key

    def add(self, key, value):
        key, value = bytes(key), bytes(value)
        if self._last_key is not None and key <= self._last_key:
            raise ValueError(f"table keys must increase: {key!r} after {self._last_key!r}")
        if self._pending_handle is not None:
            self._index.add(_shortest_separator(self._last_key, key), self._pending_handle)
            self._pending_handle = None
        self._data.add(key, value)
        self._last_key = key
        if self._data.size_estimate() >= self._block_size:
            self._flush()

    def _write_block(self, contents):
        handle = _varint(self._offset) + _varint(len(contents))
        kind = bytes([_NO_COMPRESSION])
        self._file.write(contents + kind + _UINT32.pack(mask(crc32c(kind, crc32c(contents)))))
        self._offset += len(contents) + _TRAILER_SIZE
        return handle

    def _flush(self):
        if self._data.empty:
            return
        self._pending_handle = self._write_block(self._data.finish())
        self._data.reset()

    def finish(self):
        self._flush()
        metaindex = _BlockBuilder(16)
        metaindex_handle = self._write_block(metaindex.finish())
        if self._pending_handle is not None:
            self._index.add(_short_successor(self._last_key), self._pending_handle)
            self._pending_handle = None
        index_handle = self._write_block(self._index.finish())
        handles = metaindex_handle + index_handle
        self._file.write(handles + bytes(_HANDLES_SIZE - len(handles)) + struct.pack("<Q", MAGIC))
        self._offset += FOOTER_SIZE


# -- reading ------------------------------------------------------------------------------------------

def _block(data, handle, what):
    """The contents of the block at `handle` (offset, size), its bounds and CRC checked."""
    offset, size = handle
    end = offset + size + _TRAILER_SIZE
    if end > len(data) - FOOTER_SIZE:
        raise DataLossError(None, None, f"truncated block read: the {what} block at offset {offset} with "
                            f"{size} bytes ends past the file's {len(data)} bytes")
    contents = data[offset:offset + size]
    kind = data[offset + size]
    stored = _UINT32.unpack_from(data, offset + size + 1)[0]
    if mask(crc32c(data[offset + size:offset + size + 1], crc32c(contents))) != stored:
        raise DataLossError(None, None, f"block checksum mismatch: the {what} block at offset {offset}")
    if kind == _SNAPPY:
        raise UnimplementedError(None, None, f"the {what} block at offset {offset} is Snappy-compressed, "
                                 "which tensorflux does not read")
    if kind != _NO_COMPRESSION:
        raise DataLossError(None, None, f"bad block type {kind} in the {what} block at offset {offset}")
    return contents


def _entries(contents, what):
    """The (key, value) pairs of one block, every length and restart checked."""
    if len(contents) < 4:
        raise DataLossError(None, None, f"bad block contents: the {what} block has {len(contents)} bytes")
    num_restarts = _UINT32.unpack_from(contents, len(contents) - 4)[0]
    if num_restarts * 4 + 4 > len(contents):
        raise DataLossError(None, None, f"bad block contents: the {what} block claims {num_restarts} "
                            f"restart points in {len(contents)} bytes")
    limit = len(contents) - 4 - 4 * num_restarts
    restarts = {_UINT32.unpack_from(contents, limit + 4 * i)[0] for i in range(num_restarts)}
    entries = []
    starts = set()
    position = 0
    key = b""
    while position < limit:
        start = position
        starts.add(start)
        shared, position = _read_varint(contents, position, limit, what + " block entry")
        unshared, position = _read_varint(contents, position, limit, what + " block entry")
        value_size, position = _read_varint(contents, position, limit, what + " block entry")
        if shared > len(key) or (start in restarts and shared) or position + unshared + value_size > limit:
            raise DataLossError(None, None, f"bad entry in the {what} block at byte {start}")
        new_key = key[:shared] + contents[position:position + unshared]
        position += unshared
        if entries and new_key <= key:
            raise DataLossError(None, None, f"the {what} block's keys are out of order at byte {start}")
        key = new_key
        entries.append((key, contents[position:position + value_size]))
        position += value_size
    if 0 not in restarts or not restarts <= (starts or {0}):
        raise DataLossError(None, None, f"bad restart points in the {what} block")
    return entries


def _handle(value, what):
    offset, position = _read_varint(value, 0, len(value), what)
    size, position = _read_varint(value, position, len(value), what)
    return (offset, size), position


def read_table(data):
    """Every (key, value) of the table held in `data` (bytes of a whole file), in key order."""
    data = bytes(data)
    if len(data) < FOOTER_SIZE:
        raise DataLossError(None, None, "file is too short to be an sstable")
    footer = data[-FOOTER_SIZE:]
    if struct.unpack_from("<Q", footer, _HANDLES_SIZE)[0] != MAGIC:
        raise DataLossError(None, None, "not an sstable (bad magic number)")
    metaindex_handle, position = _handle(footer[:_HANDLES_SIZE], "footer")
    index_handle, _ = _handle(footer[position:_HANDLES_SIZE], "footer")
    _block(data, metaindex_handle, "metaindex")
    entries = []
    previous_separator = None
    for separator, value in _entries(_block(data, index_handle, "index"), "index"):
        handle, used = _handle(value, "index block entry")
        if used != len(value):
            raise DataLossError(None, None, "bad block handle in the index block")
        block_entries = _entries(_block(data, handle, "data"), "data")
        if not block_entries:
            raise DataLossError(None, None, f"empty data block at offset {handle[0]}")
        first, last = block_entries[0][0], block_entries[-1][0]
        # The index key bounds its block from above and the previous block's key from below.
        if last > separator or (previous_separator is not None and first <= previous_separator):
            raise DataLossError(None, None, f"the index does not bound the data block at offset {handle[0]}")
        entries.extend(block_entries)
        previous_separator = separator
    return entries
