"""Positioned reads and writes on a file descriptor: `read_at(fd, view, offset)` fills a writable buffer
from `offset`, `write_at(fd, data, offset)` writes all of `data` there. Neither moves a file position, so
threads can read one file at once (a SavedModel's variables, a `.keras` archive's checksum beside h5py's
reads) and a reader lands the bytes straight in the caller's buffer (a variable's array), no copy between.

POSIX has pread/pwrite (`os.preadv` reads into a buffer); elsewhere (Windows) the descriptor's position
is moved under a lock, one reader or writer at a time.
"""
import os
import threading

__all__ = ["read_at", "write_at"]

_FALLBACK_LOCK = threading.Lock()


def read_at(fd, view, offset):
    """Reads into the writable buffer `view` from byte `offset` of `fd` until it is full or the file ends;
    returns the number of bytes read."""
    view = memoryview(view).cast("B")
    done = 0
    while done < len(view):
        n = _preadv(fd, view[done:], offset + done)
        if n == 0:
            break
        done += n
    return done


def write_at(fd, data, offset):
    """Writes all of `data` (a bytes-like object) at byte `offset` of `fd`."""
    view = memoryview(data).cast("B")
    done = 0
    while done < len(view):
        done += _pwrite(fd, view[done:], offset + done)


if hasattr(os, "preadv") and hasattr(os, "pwrite"):
    def _preadv(fd, view, offset):
        return os.preadv(fd, [view], offset)

    _pwrite = os.pwrite
else:
    def _preadv(fd, view, offset):
        with _FALLBACK_LOCK:
            os.lseek(fd, offset, os.SEEK_SET)
            data = os.read(fd, len(view))
        view[:len(data)] = data
        return len(data)

    def _pwrite(fd, view, offset):
        with _FALLBACK_LOCK:
            os.lseek(fd, offset, os.SEEK_SET)
            return os.write(fd, view)
