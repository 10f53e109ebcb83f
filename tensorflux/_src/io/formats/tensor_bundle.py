"""Tensor bundles: the `<prefix>.index` + `<prefix>.data-NNNNN-of-MMMMM` pair of TF2 checkpoints and of a
SavedModel's variables.

The index is an sstable (see sstable.py) whose entry under the empty key is a BundleHeaderProto
(shard count, endianness, format version) and whose other entries map each tensor's name to a
BundleEntryProto: dtype, shape, shard, offset and size in that shard's data file, and the masked CRC-32C
of those bytes. A data file is the tensors' bytes back to back: numbers little endian in row-major
order; a string tensor as the varint64 length of each element, the masked CRC-32C of those lengths
taken as uint32s, then the elements' bytes (its entry CRC covers the lengths as uint32s, the stored
length CRC and the bytes).

The writer streams each tensor to the data file as it is added, so a checkpoint never needs a second
copy of the weights in memory, and renames both files into place at the end (data first, so an index
never names a missing data file). The index's rename is the one commit point: when a bundle already
exists at the prefix, the new one names its data file differently (one shard file of one, or shard 0
of two with an empty shard 1, alternately — both layouts TensorFlow reads), so the old index keeps
pointing at the old data until the new index replaces it, and the old data file is deleted only then.
A writer killed at any moment leaves the previous bundle whole; its temporary siblings are removed by
the next write of the same prefix (io/atomic.py). The reader checks header, entries, bounds and checksums before it
hands out a value, with TensorFlow's exception classes and messages.
"""
import io
import os
import struct
import threading

import numpy as np

from ...framework.errors import (DataLossError, InvalidArgumentError, NotFoundError, OutOfRangeError,
                                 UnimplementedError)
from ...types import dtypes
from .. import atomic
from . import protos, sstable
from .crc32c import crc32c, mask, unmask
from .positioned_io import read_at

__all__ = ["BundleWriter", "BundleReader", "write_bundle", "data_file_name", "index_file_name"]

_UINT32 = struct.Struct("<I")
_STRING = 7
_UNSUPPORTED = {20: "resource", 21: "variant"}
_LITTLE_ENDIAN_HOST = np.little_endian
_FORMAT_VERSION = 1  # the bundle format version TensorFlow writes and accepts (producer and consumer)


def index_file_name(prefix):
    return f"{os.fspath(prefix)}.index"


def data_file_name(prefix, shard=0, num_shards=1):
    return f"{os.fspath(prefix)}.data-{shard:05d}-of-{num_shards:05d}"


def _varint(value):
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _numpy_dtype(dtype):
    return np.dtype(dtype.as_numpy_dtype)


def _readable(type_enum):
    """Whether a bundle entry's DataType is one whose bytes this module knows how to lay out."""
    if type_enum in _UNSUPPORTED:
        return False
    try:
        dtypes.DType(type_enum)
    except TypeError:
        return False
    return True


def _string_bytes(element):
    if isinstance(element, bytes):
        return element
    if isinstance(element, str):
        return element.encode("utf-8")
    if isinstance(element, (bytearray, memoryview, np.bytes_)):
        return bytes(element)
    raise InvalidArgumentError(None, None, f"a string tensor holds bytes or str elements, got "
                               f"{type(element).__name__}")


def _existing_shards(prefix):
    """The shard count of the bundle at `prefix` now (None when there is none or its index is unreadable)."""
    try:
        with open(index_file_name(prefix), "rb") as f:
            table = sstable.read_table(f.read())
        if table and table[0][0] == b"":
            header = protos.parse(protos.load("tensor_bundle").BundleHeaderProto, table[0][1], "header")
            return header.num_shards
    except (OSError, DataLossError):
        pass
    return None


class BundleWriter:
    """Writes one bundle of a single shard. `add(key, value, dtype=None)` in any order, then `finish()`.

    `value` is anything np.asarray accepts (bytes/str elements for strings); `dtype` a tensorflux DType
    (inferred from the value otherwise).
    """

    def __init__(self, prefix):
        self._prefix = os.fspath(prefix)
        self._entries = {}
        self._previous_shards = _existing_shards(self._prefix)
        # A different data file name than the bundle being replaced (see the module docstring).
        self._num_shards = 2 if self._previous_shards == 1 else 1
        atomic.remove_stale_temporaries(index_file_name(self._prefix))
        self._data, self._data_temporary = atomic.temporary_sibling(self._data_name(0))
        self._offset = 0
        self._finished = False

    def add(self, key, value, dtype=None):
        if self._finished:
            raise ValueError("add() after finish()")
        key = key.encode("utf-8") if isinstance(key, str) else bytes(key)
        if not key:
            raise InvalidArgumentError(None, None, "Adding a tensor with an empty key is not allowed: the empty "
                                       "key holds the bundle's header")
        if key in self._entries:
            raise InvalidArgumentError(None, None, f"Adding duplicate key: {key.decode('utf-8', 'replace')}")
        array = np.asarray(value, dtype=object if dtype is dtypes.string else None)
        if array.dtype.kind in "SU" and not isinstance(value, np.ndarray):
            array = np.asarray(value, dtype=object)  # NumPy's fixed-width bytes drop trailing NULs
        dtype = dtypes.as_dtype(array.dtype) if dtype is None else dtype
        if dtype.as_datatype_enum in _UNSUPPORTED:
            raise UnimplementedError(None, None, f"tensor {key!r}: {dtype.name} tensors are not saved in bundles")
        entry = protos.load("tensor_bundle").BundleEntryProto()
        entry.dtype = dtype.as_datatype_enum
        entry.shape.SetInParent()  # present even for a scalar, as TensorFlow writes it
        for size in array.shape:
            entry.shape.dim.add().size = size
        entry.offset = self._offset
        if dtype.as_datatype_enum == _STRING:
            crc = self._write_strings(array)
        else:
            crc = self._write_numbers(array, dtype)
        entry.size = self._offset - entry.offset
        entry.crc32c = mask(crc)
        self._entries[key] = entry

    def _data_name(self, shard):
        return data_file_name(self._prefix, shard, self._num_shards)

    def _write(self, data):
        self._data.write(data)
        self._offset += len(data)

    def _write_numbers(self, array, dtype):
        array = np.ascontiguousarray(array, dtype=_numpy_dtype(dtype))
        if not _LITTLE_ENDIAN_HOST:
            array = array.byteswap()
        data = memoryview(array.reshape(-1).view(np.uint8))
        self._write(data)
        return crc32c(data)

    def _write_strings(self, array):
        elements = [_string_bytes(e) for e in array.reshape(-1)]
        for element in elements:
            if len(element) >= 1 << 32:
                raise InvalidArgumentError(None, None, "a string tensor element of 4 GiB or more cannot be saved")
        lengths = b"".join(_UINT32.pack(len(e)) for e in elements)
        length_crc = _UINT32.pack(mask(crc32c(lengths)))
        self._write(b"".join(_varint(len(e)) for e in elements) + length_crc)
        crc = crc32c(length_crc, crc32c(lengths))
        for element in elements:
            self._write(element)
            crc = crc32c(element, crc)
        return crc

    def finish(self):
        """Writes the index and moves both files into place."""
        if self._finished:
            return
        self._finished = True
        pb = protos.load("tensor_bundle")
        header = pb.BundleHeaderProto(num_shards=self._num_shards)
        header.version.producer = _FORMAT_VERSION
        index_file, index_temporary = atomic.temporary_sibling(index_file_name(self._prefix))
        try:
            atomic.sync_file(self._data)
            self._data.close()
            if self._num_shards == 2:   # shard 1 holds nothing but exists, as every shard of a bundle does
                with open(self._data_name(1), "wb"):
                    pass
            with index_file:
                table = sstable.TableWriter(index_file)
                table.add(b"", header.SerializeToString())
                for key in sorted(self._entries):
                    table.add(key, self._entries[key].SerializeToString())
                table.finish()
                atomic.sync_file(index_file)
            os.replace(self._data_temporary, self._data_name(0))
            os.replace(index_temporary, index_file_name(self._prefix))   # the commit
            atomic.sync_directory(os.path.dirname(os.path.abspath(self._prefix)))
        except BaseException:
            self._discard(index_temporary)
            raise
        self._remove_previous_data()

    def _remove_previous_data(self):
        if self._previous_shards is None or self._previous_shards == self._num_shards or \
                self._previous_shards > 4096:   # a header claiming more shards than any writer makes is not trusted
            return
        for shard in range(self._previous_shards):
            try:
                os.remove(data_file_name(self._prefix, shard, self._previous_shards))
            except OSError:
                pass

    def _discard(self, *others):
        self._data.close()
        for path in (self._data_temporary,) + others:
            try:
                os.remove(path)
            except OSError:
                pass

    def abort(self):
        """Drops what was written; the files at the prefix are left as they were."""
        if not self._finished:
            self._finished = True
            self._discard()

    def __enter__(self):
        return self

    def __exit__(self, kind, value, traceback):
        if kind is None:
            self.finish()
        else:
            self.abort()


def write_bundle(prefix, tensors):
    """Writes {name: value} as a bundle at `prefix` (values as for BundleWriter.add)."""
    with BundleWriter(prefix) as writer:
        for key, value in tensors.items():
            writer.add(key, value)


# -- reading ------------------------------------------------------------------------------------------

def _key_text(key):
    return key.decode("utf-8", "replace")


class BundleReader:
    """Reads a bundle: `keys()`, `entry(key)`, `dtype(key)`, `shape(key)`, `read(key)` (a NumPy array;
    strings as an object array of bytes). Data files are opened on first read, as TensorFlow does."""

    def __init__(self, prefix):
        self._prefix = os.fspath(prefix)
        index = index_file_name(self._prefix)
        try:
            with open(index, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            raise NotFoundError(None, None, f"{index}; No such file or directory") from None
        except IsADirectoryError:
            raise NotFoundError(None, None, f"{index}; Is a directory") from None
        try:
            table = sstable.read_table(data)
        except DataLossError as error:
            raise DataLossError(None, None, f"Unable to read file ({index}). Perhaps the file is corrupt or was "
                                f"produced by a newer version of TensorFlow with format changes "
                                f"({error.message})") from None
        if not table or table[0][0] != b"":
            raise DataLossError(None, None, f"{index} has no bundle header (the entry under the empty key)")
        pb = protos.load("tensor_bundle")
        self.header = protos.parse(pb.BundleHeaderProto, table[0][1], f"the header of {index}")
        self._check_header(index)
        self._entries = {}
        for key, value in table[1:]:
            entry = protos.parse(pb.BundleEntryProto, value, f"the entry of {_key_text(key)!r} in {index}")
            self._check_entry(key, entry)
            self._entries[key] = entry
        self._shards = {}
        self._lock = threading.Lock()

    def _check_header(self, index):
        header = self.header
        if header.num_shards < 1:
            raise DataLossError(None, None, f"{index}: the header claims {header.num_shards} shards")
        if header.endianness != 0:
            raise UnimplementedError(None, None, f"{index} is a big-endian bundle; tensorflux reads little-endian "
                                     "bundles only")
        version = header.version
        if version.producer < 0 or version.min_consumer > _FORMAT_VERSION or \
                _FORMAT_VERSION in version.bad_consumers:
            raise InvalidArgumentError(None, None, f"Checkpoint {index} has version producer "
                                       f"{version.producer}, min_consumer {version.min_consumer}, which this "
                                       f"reader (version {_FORMAT_VERSION}) cannot read")

    def _check_entry(self, key, entry):
        where = f"tensor {_key_text(key)!r} of bundle {self._prefix}"
        if not _readable(entry.dtype):
            # Not an error to list, only to read: TF lists such entries too.
            return
        if entry.shape.unknown_rank or any(d.size < 0 for d in entry.shape.dim):
            raise DataLossError(None, None, f"{where} has a partially known shape")
        if not 0 <= entry.shard_id < self.header.num_shards:
            raise DataLossError(None, None, f"{where} names shard {entry.shard_id} of {self.header.num_shards}")
        if entry.offset < 0 or entry.size < 0:
            raise DataLossError(None, None, f"{where} has offset {entry.offset} and size {entry.size}")
        if entry.dtype != _STRING and not entry.slices:
            count = 1
            for d in entry.shape.dim:
                count *= d.size
            expected = count * _numpy_dtype(dtypes.DType(entry.dtype)).itemsize
            if expected != entry.size:
                raise DataLossError(None, None, f"{where}: shape {[d.size for d in entry.shape.dim]} needs "
                                    f"{expected} bytes but the entry has {entry.size}")

    def keys(self):
        return [_key_text(k) for k in self._entries]

    def __contains__(self, key):
        return (key.encode("utf-8") if isinstance(key, str) else bytes(key)) in self._entries

    def entry(self, key):
        raw = key.encode("utf-8") if isinstance(key, str) else bytes(key)
        found = self._entries.get(raw)
        if found is None:
            raise NotFoundError(None, None, f"Key {_key_text(raw)} not found in checkpoint")
        return found

    def dtype(self, key):
        return dtypes.DType(self.entry(key).dtype)

    def shape(self, key):
        return tuple(d.size for d in self.entry(key).shape.dim)

    def _shard(self, shard_id):
        with self._lock:
            if shard_id not in self._shards:
                path = data_file_name(self._prefix, shard_id, self.header.num_shards)
                try:
                    f = open(path, "rb")
                except FileNotFoundError:
                    raise NotFoundError(None, None, f"{path}; No such file or directory") from None
                self._shards[shard_id] = (f, os.fstat(f.fileno()).st_size)
            return self._shards[shard_id]

    def read(self, key):
        entry = self.entry(key)
        if not _readable(entry.dtype):
            name = _UNSUPPORTED.get(entry.dtype, f"DataType {entry.dtype}")
            raise UnimplementedError(None, None, f"Data type not supported: tensor {key!r} is a {name} tensor")
        if entry.slices:
            raise UnimplementedError(None, None, f"Sliced checkpoints are not supported: tensor {key!r} is saved "
                                     "in slices")
        f, file_size = self._shard(entry.shard_id)
        if entry.offset + entry.size > file_size:
            raise OutOfRangeError(None, None, f"Read less bytes than requested: tensor {key!r} needs bytes "
                                  f"{entry.offset}..{entry.offset + entry.size} of a {file_size}-byte data file")
        shape = tuple(d.size for d in entry.shape.dim)
        # positioned reads (no shared file position): tensors may be read by several threads at once
        if entry.dtype == _STRING:
            data = bytearray(entry.size)
            if read_at(f.fileno(), memoryview(data), entry.offset) != entry.size:
                raise OutOfRangeError(None, None, f"Read less bytes than requested: tensor {key!r}")
            crc, array = _parse_strings(bytes(data), shape, self._prefix, key)
        else:
            array = np.empty(shape, dtype=_numpy_dtype(dtypes.DType(entry.dtype)))
            if entry.size:
                view = memoryview(array.reshape(-1).view(np.uint8))
                if read_at(f.fileno(), view, entry.offset) != entry.size:
                    raise OutOfRangeError(None, None, f"Read less bytes than requested: tensor {key!r}")
                crc = crc32c(view)
                if not _LITTLE_ENDIAN_HOST:
                    array = array.byteswap()
            else:
                crc = 0
        if crc != unmask(entry.crc32c):
            raise DataLossError(None, None, f"TensorBundle at {self._prefix} shard {entry.shard_id} ({entry.size} "
                                f"bytes): Checksum does not match: stored {unmask(entry.crc32c)} vs. calculated "
                                f"on the restored bytes {crc}")
        return array

    def close(self):
        for f, _ in self._shards.values():
            f.close()
        self._shards.clear()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _parse_strings(data, shape, prefix, key):
    """(crc, object array of bytes) from a string tensor's bytes, every length checked against `data`."""
    count = 1
    for size in shape:
        count *= size
    if count > len(data):  # each element needs at least its one-byte length
        raise DataLossError(None, None, f"tensor {key!r} of {prefix}: {count} strings cannot fit in "
                            f"{len(data)} bytes")
    reader = io.BytesIO(data)
    lengths = []
    position = 0
    for _ in range(count):
        value, shift = 0, 0
        while True:
            if position >= len(data) or shift > 63:
                raise DataLossError(None, None, f"tensor {key!r} of {prefix}: bad string length")
            byte = data[position]
            position += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                break
        lengths.append(value)
    if position + 4 + sum(lengths) != len(data) or any(n >= 1 << 32 for n in lengths):
        raise DataLossError(None, None, f"tensor {key!r} of {prefix}: the string lengths do not add up to the "
                            f"entry's {len(data)} bytes")
    lengths32 = b"".join(_UINT32.pack(n) for n in lengths)
    stored_length_crc = data[position:position + 4]
    expected = unmask(_UINT32.unpack(stored_length_crc)[0])
    actual = crc32c(lengths32)
    if expected != actual:
        raise DataLossError(None, None, f"The length checksum does not match: expected {expected} but actual is "
                            f"{actual}")
    reader.seek(position + 4)
    out = np.empty(count, dtype=object)
    for index, size in enumerate(lengths):
        out[index] = reader.read(size)
    crc = crc32c(data[position + 4:], crc32c(stored_length_crc, actual))
    return crc, out.reshape(shape)
