"""TFRecord files: the framing TensorFlow writes for tf.data, tf.io.TFRecordWriter and event files.

A record is `uint64 length | uint32 masked crc32c(length) | data | uint32 masked crc32c(data)`, little
endian. With GZIP or ZLIB compression the whole stream of records is compressed (one zlib stream, not one
per record). Reading checks both CRCs and reports a bad record as TensorFlow does: `DataLossError` with
the offset of the record (of its data when only the data is bad); a file that ends inside a header ends
the records quietly, one that ends inside the data is a truncated record. Reads go in bounded chunks,
so a forged length cannot make the reader allocate more than the file holds.
"""
import io
import os
import struct
import zlib

from ...framework.errors import DataLossError, InvalidArgumentError, NotFoundError
from ..atomic import atomic_write
from .crc32c import masked_crc32c

__all__ = ["compression_of", "RecordWriter", "iter_records", "read_records", "write_records", "frame"]

_HEADER = struct.Struct("<QI")
_FOOTER = struct.Struct("<I")
_CHUNK = 1 << 20  # largest single read: a length field is checked before its bytes are trusted

# zlib's window bits for each stream format: 15 + 16 asks for a gzip header and trailer.
_WINDOW_BITS = {"GZIP": 16 + zlib.MAX_WBITS, "ZLIB": zlib.MAX_WBITS}


def compression_of(compression):
    """("", level) or ("GZIP"/"ZLIB", level) from None, a type name, or a tf.io.TFRecordOptions-like
    object (anything with `compression_type` and optionally `compression_level`)."""
    level = None
    if compression is not None and not isinstance(compression, (str, bytes)):
        level = getattr(compression, "compression_level", None)
        compression = getattr(compression, "compression_type", None)
    if isinstance(compression, bytes):
        compression = compression.decode("ascii", "replace")
    kind = (compression or "").upper()
    if kind not in ("", "GZIP", "ZLIB"):
        raise InvalidArgumentError(None, None, f"Unsupported compression_type: {compression!r}; expected one of "
                                   "'', 'GZIP' or 'ZLIB'")
    if level is not None and not (isinstance(level, int) and -1 <= level <= 9):
        raise InvalidArgumentError(None, None, f"compression_level must be an integer in [-1, 9], got {level!r}")
    return kind, (zlib.Z_DEFAULT_COMPRESSION if level is None else level)


def frame(data):
    """The bytes of one record holding `data`."""
    data = bytes(data)
    length = struct.pack("<Q", len(data))
    return length + _FOOTER.pack(masked_crc32c(length)) + data + _FOOTER.pack(masked_crc32c(data))


class RecordWriter:
    """Writes records to a binary file object, compressing the stream when asked. It does not close
    the file object (whoever opened it does)."""

    def __init__(self, fileobj, compression=None):
        kind, level = compression_of(compression)
        self._file = fileobj
        self._compressor = zlib.compressobj(level, zlib.DEFLATED, _WINDOW_BITS[kind]) if kind else None
        self._closed = False

    def write(self, data):
        if self._closed:
            raise ValueError("write to a closed RecordWriter")
        framed = frame(data)
        self._file.write(self._compressor.compress(framed) if self._compressor else framed)

    def flush(self):
        # A sync flush makes everything written so far decompressible, as readers following the file
        # (TensorBoard, a tf.data pipeline) expect after a flush.
        if self._compressor is not None and not self._closed:
            self._file.write(self._compressor.flush(zlib.Z_SYNC_FLUSH))
        self._file.flush()

    def close(self):
        if not self._closed:
            if self._compressor is not None:
                self._file.write(self._compressor.flush(zlib.Z_FINISH))
            self._file.flush()
            self._closed = True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def write_records(path, records, compression=None):
    """Writes `records` (bytes-likes) to `path` atomically: a temporary sibling renamed into place."""
    with atomic_write(os.fspath(path)) as f, RecordWriter(f, compression) as writer:
        for record in records:
            writer.write(record)


class _Inflating(io.RawIOBase):
    """A read-only stream of the decompressed bytes of a GZIP or ZLIB file object. Output is produced
    on demand, at most what each read asks for, so a small file cannot expand into a huge buffer."""

    def __init__(self, fileobj, kind):
        super().__init__()
        self._file = fileobj
        self._inflater = zlib.decompressobj(_WINDOW_BITS[kind])
        self._pending = b""

    def readable(self):
        return True

    def readinto(self, buffer):
        want = len(buffer)
        while True:
            try:
                if self._pending:
                    out = self._inflater.decompress(self._pending, want)
                    self._pending = self._inflater.unconsumed_tail
                elif self._inflater.eof:
                    return 0
                else:
                    compressed = self._file.read(_CHUNK)
                    if not compressed:
                        return 0  # a stream cut short ends where its complete bytes end, as in TF
                    out = self._inflater.decompress(compressed, want)
                    self._pending = self._inflater.unconsumed_tail
            except zlib.error as error:
                raise DataLossError(None, None, f"inflate() failed with {_zlib_reason(error)}") from None
            if out:
                buffer[:len(out)] = out
                return len(out)


def _zlib_reason(error):
    # Python says "Error -3 while decompressing data: incorrect header check"; TF says
    # "inflate() failed with error -3: incorrect header check".
    text = str(error)
    if text.startswith("Error ") and ": " in text:
        code = text[len("Error "):].split(" ", 1)[0]
        return f"error {code}: {text.split(': ', 1)[1]}"
    return text


def _read_up_to(stream, size):
    """Up to `size` bytes (fewer only at the end of the stream), read in bounded chunks."""
    parts = []
    remaining = size
    while remaining:
        part = stream.read(min(remaining, _CHUNK))
        if not part:
            break
        parts.append(part)
        remaining -= len(part)
    return b"".join(parts)


def iter_records(fileobj, compression=None, verify=True):
    """Yields the data of each record in a binary file object, checking both CRCs unless verify=False."""
    kind, _ = compression_of(compression)
    stream = io.BufferedReader(_Inflating(fileobj, kind), _CHUNK) if kind else fileobj
    offset = 0
    while True:
        header = _read_up_to(stream, _HEADER.size)
        if len(header) < _HEADER.size:
            return  # no record, or a header cut short: TensorFlow ends the records there
        length, length_crc = _HEADER.unpack(header)
        if verify and masked_crc32c(header[:8]) != length_crc:
            hint = " (Is this even a TFRecord file?)" if offset == 0 else ""
            raise DataLossError(None, None, f"corrupted record at {offset}{hint}")
        body = _read_up_to(stream, length + _FOOTER.size)
        if len(body) < length + _FOOTER.size:
            raise DataLossError(None, None, f"truncated record at {offset}' failed with Read less bytes than "
                                "requested")
        data = body[:length]
        if verify and masked_crc32c(data) != _FOOTER.unpack_from(body, length)[0]:
            raise DataLossError(None, None, f"corrupted record at {offset + _HEADER.size}")
        yield data
        offset += _HEADER.size + length + _FOOTER.size


def read_records(path, compression=None, verify=True):
    """The data of every record in the file at `path`, as a list of bytes."""
    path = os.fspath(path)
    try:
        f = open(path, "rb")
    except FileNotFoundError:
        raise NotFoundError(None, None, f"{path}; No such file or directory") from None
    with f:
        return list(iter_records(f, compression, verify))
