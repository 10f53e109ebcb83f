"""Atomic file writes: the data goes to a temporary sibling, which is renamed over the target only once it is
complete, so a reader (or a process killed mid-save) sees the old file or the new one, never a mix."""
import contextlib
import os
import tempfile


@contextlib.contextmanager
def atomic_write(path):
    """A binary file object for `path`'s new contents; `path` is replaced when the block ends without error.

        with atomic_write("model.keras") as f:
            f.write(data)
    """
    directory, name = os.path.split(os.path.abspath(os.fspath(path)))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{name}.saving-")
    try:
        with os.fdopen(fd, "wb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())        # the data is on disk before the name points at it
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
