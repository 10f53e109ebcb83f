"""`tf.io` file access on the local filesystem: `read_file` / `write_file` (ops, so they also run inside
a tf.function) and `tf.io.gfile` (plain Python functions and the `GFile` file object).

As in TensorFlow, file contents are string tensors holding bytes, failures are `tf.errors` (NotFoundError,
FailedPreconditionError, …), and `write_file` creates missing parent directories.
"""
import glob as _glob
import os

import numpy as np

from ..framework.context import state as _state
from ..framework.errors import (AlreadyExistsError, FailedPreconditionError, InvalidArgumentError, NotFoundError,
    PermissionDeniedError, UnknownError)
from ..framework.tensor import Tensor
from ..ops import convert as _convert
from ..ops.registry import OpDef, apply
from .atomic import atomic_write
from ..types import dtypes as _dt
from ..types.shape import TensorShape

__all__ = ["read_file", "write_file", "read_local_file", "exists", "glob", "isdir", "listdir", "makedirs",
           "remove", "GFile"]


def _local_path(path):
    """A path given as str, bytes, path-like or scalar string tensor, as str."""
    if isinstance(path, Tensor):
        path = path.numpy()
    return os.fsdecode(path)


def file_error(error, path):
    """TensorFlow's error for a failed access to the local file `path` (an OSError from Python)."""
    if isinstance(error, FileNotFoundError):
        return NotFoundError(None, None, f"{path}; No such file or directory")
    if isinstance(error, IsADirectoryError):
        return FailedPreconditionError(None, None, f"{path}; Is a directory")
    if isinstance(error, NotADirectoryError):
        return FailedPreconditionError(None, None, f"{path}; Not a directory")
    if isinstance(error, PermissionError):
        return PermissionDeniedError(None, None, f"{path}; Permission denied")
    return UnknownError(None, None, f"{path}; {error.strerror or error}")


def read_local_file(path):
    """The bytes of the local file `path` (str), raising TensorFlow's errors."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise file_error(e, path) from None


# -- ReadFile / WriteFile ops ------------------------------------------------------------------------------
def _scalar(array, what):
    if np.ndim(array) != 0:
        raise InvalidArgumentError(None, None, f"{what} tensor must be scalar, but had shape: {list(np.shape(array))}")
    return array[()]


def _k_read_file(filename):
    return np.array(read_local_file(os.fsdecode(_scalar(filename, "Input filename"))), dtype=object)


def _k_write_file(filename, contents):
    path = os.fsdecode(_scalar(filename, "Input filename"))
    contents = _scalar(contents, "Contents")
    try:
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        with open(path, "wb") as f:
            f.write(contents)
    except FileExistsError:  # a parent "directory" is a file
        raise FailedPreconditionError(None, None, f"{path}; Not a directory") from None
    except OSError as e:
        raise file_error(e, path) from None
    return ()


READ_FILE = OpDef("ReadFile", lambda i, a: [(_dt.string, TensorShape([]))], _k_read_file, stateful=True,
                  input_names=("filename",))
WRITE_FILE = OpDef("WriteFile", lambda i, a: [], _k_write_file, stateful=True, multi=True,
                   input_names=("filename", "contents"))


def read_file(filename, name=None):
    """`tf.io.read_file`: the contents of the file `filename` as a scalar string tensor (bytes)."""
    return apply(READ_FILE, (_convert.convert_to_tensor(filename, dtype=_dt.string),), None, name or "ReadFile")


def write_file(filename, contents, name=None):
    """`tf.io.write_file`: writes the scalar string `contents` to `filename`, creating parent directories.
    Returns None eagerly and the op inside a tf.function."""
    inputs = (_convert.convert_to_tensor(filename, dtype=_dt.string),
              _convert.convert_to_tensor(contents, dtype=_dt.string))
    out = apply(WRITE_FILE, inputs, None, name or "WriteFile")
    return None if _state.graph is None else out


# -- tf.io.gfile -----------------------------------------------------------------------------------------
def exists(path):
    return os.path.exists(_local_path(path))


def isdir(path):
    return os.path.isdir(_local_path(path))


def glob(pattern):
    """The paths matching `pattern` (or any of a list of patterns); `*` also matches names starting with '.'."""
    patterns = [pattern] if isinstance(pattern, (str, bytes, os.PathLike, Tensor)) else pattern
    return [match for p in patterns for match in _glob.glob(_local_path(p), include_hidden=True)]


def listdir(path):
    """The names of the entries of the directory `path`."""
    path = _local_path(path)
    if not os.path.isdir(path):
        raise NotFoundError(None, None, f"Could not find directory {path}")
    return os.listdir(path)


def makedirs(path):
    """Creates the directory `path` and its missing parents (no error if it exists)."""
    path = _local_path(path)
    try:
        os.makedirs(path, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        blocking = path
        while not os.path.exists(blocking):
            blocking = os.path.dirname(blocking)
        raise FailedPreconditionError(None, None, f"{blocking} is not a directory") from None
    except OSError as e:
        raise file_error(e, path) from None


def remove(path):
    path = _local_path(path)
    try:
        os.remove(path)
    except OSError as e:
        raise file_error(e, path) from None


class GFile:
    """`tf.io.gfile.GFile`: a local file, opened on first use. Text modes read `str`, binary modes
    ("rb", …) `bytes`; `write` takes either. Line reads drop carriage returns, as TensorFlow's do."""

    _PYTHON_MODES = {"r": "rb", "w": "wb", "a": "ab", "r+": "r+b", "w+": "w+b", "a+": "a+b"}

    def __init__(self, name, mode="r"):
        base = mode.replace("b", "")
        if base not in self._PYTHON_MODES:
            raise InvalidArgumentError(None, None, "mode is not 'r' or 'w' or 'a' or 'r+' or 'w+' or 'a+'")
        self.name = _local_path(name)
        self.mode = mode
        self._binary = "b" in mode
        self._python_mode = self._PYTHON_MODES[base]
        self._readable = base not in ("w", "a")
        self._writable = base != "r"
        self._file = None

    def _opened(self):
        if self._file is None:
            try:
                self._file = open(self.name, self._python_mode)
            except OSError as e:
                raise file_error(e, self.name) from None
        return self._file

    def _for_reading(self):
        if not self._readable:
            raise PermissionDeniedError(None, None, "File isn't open for reading")
        return self._opened()

    def _decoded(self, data):
        return data if self._binary else data.decode("utf-8")

    def read(self, n=-1):
        return self._decoded(self._for_reading().read(n))

    def readline(self):
        return self._decoded(self._for_reading().readline().replace(b"\r", b""))

    def readlines(self):
        return list(self)

    def __iter__(self):
        return self

    def __next__(self):
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    def write(self, data):
        if not self._writable:
            raise PermissionDeniedError(None, None, "File isn't open for writing")
        self._opened().write(data.encode("utf-8") if isinstance(data, str) else bytes(data))

    def seek(self, offset, whence=0):
        self._opened().seek(offset, whence)

    def tell(self):
        return self._opened().tell()

    def size(self):
        try:
            return os.path.getsize(self.name)
        except OSError as e:
            raise file_error(e, self.name) from None

    def flush(self):
        if self._file is not None:
            self._file.flush()

    def close(self):
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()


def join(path, *paths):
    """`path` and `paths` joined as os.path.join joins them (a later absolute part starts over)."""
    return os.path.join(_local_path(path), *(_local_path(p) for p in paths))


def mkdir(path):
    """Creates the directory `path` (its parent must exist; an existing directory is left as it is)."""
    path = _local_path(path)
    try:
        os.mkdir(path)
    except FileExistsError:
        if not os.path.isdir(path):
            raise FailedPreconditionError(None, None, f"{path}; Not a directory") from None
    except OSError as e:
        raise file_error(e, path) from None


def copy(src, dst, overwrite=False):
    """Copies the file `src` to `dst`; AlreadyExistsError if `dst` exists and `overwrite` is False."""
    src, dst = _local_path(src), _local_path(dst)
    data = read_local_file(src)
    if not overwrite and os.path.exists(dst):
        raise AlreadyExistsError(None, None, "file already exists")
    try:
        with atomic_write(dst) as f:   # the copy appears whole or not at all
            f.write(data)
    except OSError as e:
        raise file_error(e, dst) from None


def rename(src, dst, overwrite=False):
    """Renames `src` to `dst`; AlreadyExistsError if `dst` exists and `overwrite` is False."""
    src, dst = _local_path(src), _local_path(dst)
    if not os.path.exists(src):
        raise NotFoundError(None, None, f"{src}; No such file or directory")
    if not overwrite and os.path.exists(dst):
        raise AlreadyExistsError(None, None, "file already exists")
    try:
        os.replace(src, dst)
    except OSError as e:
        raise file_error(e, src) from None


def rmtree(path):
    """Removes the directory `path` and everything under it (a file is removed too)."""
    path = _local_path(path)
    if not os.path.exists(path):
        raise NotFoundError(None, None, f"{path} not found")
    if os.path.isdir(path) and not os.path.islink(path):
        import shutil   # here, not at import (rarely used)
        shutil.rmtree(path)
    else:
        os.remove(path)


class FileStatistics:
    """`tf.io.gfile.stat`'s result: `length` (bytes), `mtime_nsec`, `is_directory`."""

    def __init__(self, length, mtime_nsec, is_directory):
        self.length, self.mtime_nsec, self.is_directory = length, mtime_nsec, is_directory


def stat(path):
    path = _local_path(path)
    try:
        info = os.stat(path)
    except OSError as e:
        raise file_error(e, path) from None
    return FileStatistics(info.st_size, info.st_mtime_ns, os.path.isdir(path))


def walk(top, topdown=True, onerror=None):
    """Yields `(directory, subdirectory names, file names)` for `top` and every directory under it (nothing
    for a missing `top`); `onerror(error)` is called for a directory that cannot be listed."""
    top = _local_path(top)
    try:
        names = os.listdir(top)
    except OSError as e:
        if onerror is not None and os.path.exists(top):
            onerror(file_error(e, top))
        return
    subdirs = [n for n in names if os.path.isdir(os.path.join(top, n))]
    files = [n for n in names if n not in subdirs]
    if topdown:
        yield top, subdirs, files
    for name in subdirs:
        yield from walk(os.path.join(top, name), topdown, onerror)
    if not topdown:
        yield top, subdirs, files


def get_registered_schemes():
    """The URI schemes this build's file system layer serves: local files only ("" and "file")."""
    return ["file", ""]


API = {"io": ["read_file", "write_file"],
       "io.gfile": ["GFile", "exists", "glob", "isdir", "listdir", "makedirs", "remove", "join", "mkdir", "copy",
                    "rename", "rmtree", "stat", "walk", "get_registered_schemes"]}
