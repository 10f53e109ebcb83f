"""Reading untrusted zip and `.npz` archives within fixed bounds: no zip bomb, no header that asks for more
memory than the file can fill.

A zip entry is refused when its declared size exceeds the caller's cap, or when it is compressed more
than `MAX_RATIO` to 1 (a real weight or config file never is; a bomb always is); it is read with one
bounded request for one byte more than declared (so the bytes come back as the one object the zip
reader makes, not copied again: a 100 MB weights entry costs 100 MB) and refused when that byte comes. In an `.npz`, each array's `.npy` header is read before
any data: the shape it declares must fit in the bytes the entry holds, so `np.load` never allocates an
array the file cannot fill (a 10-byte header claiming 10^12 floats is refused, not allocated).
Failures raise ValueError naming the archive and the entry.
"""
import io
import zipfile

import numpy as np

__all__ = ["MAX_RATIO", "read_entry", "check_npz", "ArchiveError"]

MAX_RATIO = 200                # uncompressed : compressed, above which a large entry is taken for a bomb
_RATIO_FLOOR = 1 << 20         # entries smaller than this may compress as well as they like


class ArchiveError(ValueError):
    """An archive entry is too large, too compressed, truncated or malformed."""


def _check_info(info, cap, label):
    if info.file_size > cap:
        raise ArchiveError(f"{label}: the entry '{info.filename}' declares {info.file_size} bytes, more than the "
                           f"limit of {cap} bytes for it.")
    if info.compress_type != zipfile.ZIP_STORED and info.file_size > _RATIO_FLOOR and \
            info.file_size > MAX_RATIO * max(info.compress_size, 1):
        raise ArchiveError(f"{label}: the entry '{info.filename}' expands from {info.compress_size} to "
                           f"{info.file_size} bytes (more than {MAX_RATIO}:1); it is refused as a zip bomb.")


def read_entry(archive, name, cap, label):
    """The bytes of entry `name` of the open ZipFile `archive`, at most `cap` of them (else ArchiveError)."""
    try:
        info = archive.getinfo(name)
    except KeyError:
        raise ArchiveError(f"{label}: the archive has no entry '{name}'.") from None
    _check_info(info, cap, label)
    with archive.open(info) as f:
        # zipfile never inflates more than the size asked for, so this is bounded by the checked declaration.
        out = f.read(info.file_size + 1)
    if len(out) > info.file_size:
        raise ArchiveError(f"{label}: the entry '{name}' holds more than the {info.file_size} bytes it "
                           f"declares.")
    return out


def check_npz(source, cap, label):
    """Checks an `.npz` (a path or bytes) before NumPy reads it: entry sizes and compression within
    bounds, every `.npy` header readable and declaring no more data than its entry holds."""
    if isinstance(source, (bytes, bytearray)):
        source = io.BytesIO(source)
    total = 0
    with zipfile.ZipFile(source) as archive:
        for info in archive.infolist():
            _check_info(info, cap, label)
            total += info.file_size
            if total > cap:
                raise ArchiveError(f"{label}: its entries hold more than the limit of {cap} bytes in all.")
            with archive.open(info) as f:
                _check_npy_header(f, info, label)


def _check_npy_header(f, info, label):
    try:
        version = np.lib.format.read_magic(f)
        if version == (1, 0):
            shape, _, dtype = np.lib.format.read_array_header_1_0(f)
        elif version == (2, 0):
            shape, _, dtype = np.lib.format.read_array_header_2_0(f)
        else:
            raise ValueError(f"unsupported .npy version {version}")
    except ValueError as e:
        raise ArchiveError(f"{label}: the entry '{info.filename}' is not a valid .npy array ({e}).") from None
    count = 1
    for d in shape:
        count *= d
    if dtype.hasobject or count * dtype.itemsize > info.file_size:
        raise ArchiveError(f"{label}: the entry '{info.filename}' declares an array of shape {shape} and dtype "
                           f"{dtype}, more data than its {info.file_size} bytes hold.")
