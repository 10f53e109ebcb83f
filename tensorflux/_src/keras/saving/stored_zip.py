"""Zip archives of stored (uncompressed) entries, as Keras 3 writes `.keras` files, with the large entry
written and read in place: h5py writes `model.weights.h5` straight into the archive file and reads its
datasets straight from it, so neither a save nor a load holds the whole entry in a buffer (a 100 MB
model's weights file is 100 MB that would otherwise be copied once more each way).

`StoredZipWriter` lays out an archive as `zipfile.ZipFile(f, "w")` does for `writestr` calls (same
headers, versions, permissions and zip64 rules), except that `stream_entry` hands out a seekable window
onto the file at the entry's data: the local header is reserved before it, then patched with the
CRC-32 and size once the writer is done (h5py seeks back to finish its superblock, so the entry cannot
be streamed through zipfile's sequential writer). `entry_window` finds a stored entry's bytes in an
archive for reading in place; `crc32_of` checks them against the header, as zipfile's reader would.

Reads and writes are positioned (io/formats/positioned_io.py): no shared file position, so a checksum
can run in another thread while h5py reads.
"""
import io
import os
import struct
import time
import zipfile
import zlib

from ...io.formats.positioned_io import read_at, write_at

__all__ = ["ByteWindow", "StoredZipWriter", "entry_window", "crc32_of"]

_LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")            # zipfile's structFileHeader (30 bytes)
_CENTRAL_HEADER = struct.Struct("<4s4B4HL2L5H2L")         # zipfile's structCentralDir (46 bytes)
_END_RECORD = struct.Struct("<4s4H2LH")                   # zipfile's structEndArchive (22 bytes)
_END_RECORD64 = struct.Struct("<4sQ2H2L4Q")               # zipfile's structEndArchive64 (56 bytes)
_END_LOCATOR64 = struct.Struct("<4sLQL")                  # zipfile's structEndArchive64Locator (20 bytes)
_ZIP64_EXTRA = struct.Struct("<HHQQ")                     # tag 1, 16 bytes: sizes, in a local header
_VERSION, _VERSION64 = 20, 45                             # "version needed": plain, zip64
_UNIX = 3                                                 # "made by" system, as zipfile on POSIX
_FILE_MODE = 0o600 << 16                                  # writestr's permissions for a file entry
_CHUNK = 4 << 20                                          # bytes per read when checksumming


class ByteWindow(io.RawIOBase):
    """The bytes [start, start + size) of an open file descriptor as a seekable binary file, for h5py's
    file-object driver. Read-only over an existing range, or writable: then writes extend the window
    (the file beyond `start` is the window's alone while it is written)."""

    def __init__(self, fd, start, size=0, writable=False):
        super().__init__()
        self._fd, self._start, self._size, self._writable = fd, start, size, writable
        self._position = 0

    @property
    def size(self):
        return self._size

    def readable(self):
        return True

    def writable(self):
        return self._writable

    def seekable(self):
        return True

    def tell(self):
        return self._position

    def seek(self, offset, whence=os.SEEK_SET):
        base = {os.SEEK_SET: 0, os.SEEK_CUR: self._position, os.SEEK_END: self._size}[whence]
        if base + offset < 0:
            raise ValueError(f"negative seek position {base + offset}")
        self._position = base + offset
        return self._position

    def readinto(self, buffer):
        view = memoryview(buffer).cast("B")
        count = max(0, min(len(view), self._size - self._position))
        done = read_at(self._fd, view[:count], self._start + self._position)    # short: a truncated archive
        self._position += done
        return done

    def write(self, data):
        if not self._writable:
            raise io.UnsupportedOperation("write")
        view = memoryview(data).cast("B")
        write_at(self._fd, view, self._start + self._position)
        self._position += len(view)
        self._size = max(self._size, self._position)
        return len(view)

    def truncate(self, size=None):
        if not self._writable:
            raise io.UnsupportedOperation("truncate")
        self._size = self._position if size is None else size
        os.ftruncate(self._fd, self._start + self._size)
        return self._size

    def flush(self):
        pass                        # pwrite leaves nothing buffered


def crc32_of(fd, start, size):
    """zlib's CRC-32 of the bytes [start, start + size) of `fd`, read in chunks (zlib releases the GIL
    on each, so this may run in a thread beside a reader)."""
    crc, done, buffer = 0, 0, bytearray(min(_CHUNK, size))
    view = memoryview(buffer)
    while done < size:
        n = read_at(fd, view[:min(_CHUNK, size - done)], start + done)
        if n == 0:
            raise EOFError(f"the archive ends {size - done} bytes before its entry does")
        crc = zlib.crc32(view[:n], crc)
        done += n
    return crc


def _dos_time(date_time):
    year, month, day, hour, minute, second = date_time
    return hour << 11 | minute << 5 | second // 2, (year - 1980) << 9 | month << 5 | day


def _encoded(name):
    try:
        return name.encode("ascii"), 0
    except UnicodeEncodeError:
        return name.encode("utf-8"), 0x800      # the "language encoding" flag, as zipfile sets it


class _Entry:
    __slots__ = ("name", "flags", "dos_time", "dos_date", "crc", "size", "offset", "version")


class StoredZipWriter:
    """Writes a zip archive of stored entries to `f`, a binary file open for reading and writing (a
    streamed entry is read back for its checksum), not written through otherwise."""

    def __init__(self, f):
        f.flush()
        self._fd, self._end, self._entries = f.fileno(), 0, []
        self._date_time = time.localtime(time.time())[:6]

    def _local_header(self, entry, name, zip64):
        extra = _ZIP64_EXTRA.pack(1, 16, entry.size, entry.size) if zip64 else b""
        size = 0xFFFFFFFF if zip64 else entry.size
        return _LOCAL_HEADER.pack(b"PK\003\004", entry.version, 0, entry.flags, zipfile.ZIP_STORED,
                                  entry.dos_time, entry.dos_date, entry.crc, size, size, len(name),
                                  len(extra)) + name + extra

    def _new_entry(self, name):
        if any(e.name == name for e in self._entries):
            raise ValueError(f"the archive already has an entry {name!r}")
        entry = _Entry()
        entry.name, entry.offset, entry.crc, entry.size = name, self._end, 0, 0
        entry.dos_time, entry.dos_date = _dos_time(self._date_time)
        return entry

    def writestr(self, name, data):
        """Adds the entry `name` holding `data` (bytes, or str written as UTF-8)."""
        if isinstance(data, str):
            data = data.encode("utf-8")
        entry = self._new_entry(name)
        raw, entry.flags = _encoded(name)
        entry.size, entry.crc = len(memoryview(data).cast("B")), zlib.crc32(data)
        zip64 = entry.size * 1.05 > zipfile.ZIP64_LIMIT      # zipfile's rule for the header of a known size
        entry.version = _VERSION64 if zip64 else _VERSION
        header = self._local_header(entry, raw, zip64)
        write_at(self._fd, header, entry.offset)
        write_at(self._fd, data, entry.offset + len(header))
        self._end = entry.offset + len(header) + entry.size
        self._entries.append(entry)

    def stream_entry(self, name, expected_size):
        """A context manager yielding a writable ByteWindow for the entry `name`'s bytes; when the block
        ends the entry is checksummed and its header written. `expected_size` decides, as zipfile's
        writer does from the size it is told, whether the header has room for zip64 sizes (an entry that
        outgrows a header without that room raises ValueError)."""
        return _StreamedEntry(self, name, expected_size)

    def close(self):
        """Writes the central directory and the end records."""
        start = self._end
        records = []
        for entry in self._entries:
            raw, _ = _encoded(entry.name)
            extra, size, offset = [], entry.size, entry.offset
            if size > zipfile.ZIP64_LIMIT:
                extra += [size, size]
                size = 0xFFFFFFFF
            if offset > zipfile.ZIP64_LIMIT:
                extra.append(offset)
                offset = 0xFFFFFFFF
            extra_data = struct.pack("<HH" + "Q" * len(extra), 1, 8 * len(extra), *extra) if extra else b""
            version = max(entry.version, _VERSION64 if extra else _VERSION)
            records.append(_CENTRAL_HEADER.pack(b"PK\001\002", version, _UNIX, version, 0, entry.flags,
                                                zipfile.ZIP_STORED, entry.dos_time, entry.dos_date, entry.crc,
                                                size, size, len(raw), len(extra_data), 0, 0, 0, _FILE_MODE,
                                                offset) + raw + extra_data)
        directory = b"".join(records)
        count, end = len(self._entries), start + len(directory)
        tail = b""
        if count > 0xFFFF or start > zipfile.ZIP64_LIMIT or len(directory) > zipfile.ZIP64_LIMIT:
            tail = (_END_RECORD64.pack(b"PK\006\006", 44, _VERSION64, _VERSION64, 0, 0, count, count,
                                       len(directory), start)
                    + _END_LOCATOR64.pack(b"PK\006\007", 0, end, 1))
        tail += _END_RECORD.pack(b"PK\005\006", 0, 0, min(count, 0xFFFF), min(count, 0xFFFF),
                                 min(len(directory), 0xFFFFFFFF), min(start, 0xFFFFFFFF), 0)
        write_at(self._fd, directory + tail, start)
        self._end = end + len(tail)
        os.ftruncate(self._fd, self._end)


class _StreamedEntry:
    def __init__(self, writer, name, expected_size):
        self._writer = writer
        self._entry = entry = writer._new_entry(name)
        self._raw, entry.flags = _encoded(name)
        self._zip64 = expected_size * 1.05 > zipfile.ZIP64_LIMIT
        entry.version = _VERSION64 if self._zip64 else _VERSION
        self._data_start = entry.offset + _LOCAL_HEADER.size + len(self._raw) + (_ZIP64_EXTRA.size if self._zip64
                                                                                 else 0)
        self._window = None

    def __enter__(self):
        self._window = ByteWindow(self._writer._fd, self._data_start, writable=True)
        return self._window

    def __exit__(self, kind, value, traceback):
        if kind is not None:
            return False
        entry, size = self._entry, self._window.size
        if size > zipfile.ZIP64_LIMIT and not self._zip64:
            raise ValueError(f"the entry {entry.name!r} grew to {size} bytes, past the zip64 limit its header "
                             f"was sized for")
        entry.size, entry.crc = size, crc32_of(self._writer._fd, self._data_start, size)
        write_at(self._writer._fd, self._writer._local_header(entry, self._raw, self._zip64), entry.offset)
        self._writer._end = self._data_start + size
        self._writer._entries.append(entry)
        return False


def _read_bytes(fd, count, offset):
    buffer = bytearray(count)
    return bytes(buffer[:read_at(fd, buffer, offset)])


def entry_window(fd, archive, info, label):
    """(start, size) of the stored entry `info` of the open ZipFile `archive` within the file `fd`, from
    its local header (checked as zipfile's reader checks it), or None when the entry is compressed."""
    if info.compress_type != zipfile.ZIP_STORED:
        return None
    if info.flag_bits & 0x1:
        raise ValueError(f"{label}: the entry {info.filename!r} is encrypted.")
    header = _read_bytes(fd, _LOCAL_HEADER.size, info.header_offset)
    if len(header) != _LOCAL_HEADER.size:
        raise ValueError(f"{label}: the archive ends inside the header of the entry {info.filename!r}.")
    fields = _LOCAL_HEADER.unpack(header)
    if fields[0] != b"PK\003\004":
        raise ValueError(f"{label}: bad magic number for the entry {info.filename!r}.")
    name = _read_bytes(fd, fields[10], info.header_offset + _LOCAL_HEADER.size)
    if name != info.orig_filename.encode("utf-8" if info.flag_bits & 0x800 else "cp437"):
        raise ValueError(f"{label}: the local header of the entry {info.filename!r} names another file.")
    start = info.header_offset + _LOCAL_HEADER.size + fields[10] + fields[11]
    if info.compress_size != info.file_size or start + info.file_size > os.fstat(fd).st_size:
        raise ValueError(f"{label}: the entry {info.filename!r} runs past the end of the archive.")
    return start, info.file_size
