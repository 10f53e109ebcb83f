"""Arrays in `.npz` files (no pickled objects), for the graph constants of a SavedModel directory."""
import json
import os

import numpy as np

from ...types import dtypes as _dt
from ..atomic import atomic_write

__all__ = ["ArrayWriter", "ArrayReader", "write_json"]


def _atomic_write(path, write):
    with atomic_write(path) as f:
        write(f)


def write_json(path, payload):
    _atomic_write(path, lambda f: f.write(json.dumps(payload, indent=1).encode()))


class ArrayWriter:
    """Collects arrays under generated keys and writes them as one `.npz` (no pickled objects).

    String tensors (object arrays of bytes) are stored as their concatenated bytes plus lengths; dtypes
    NumPy cannot store natively (bfloat16, …) as unsigned integers of the same width plus the dtype name.
    """

    def __init__(self, prefix="a"):
        self._prefix = prefix
        self.entries = {}

    def add(self, array, key=None):
        key = key or f"{self._prefix}{len(self.entries)}"
        array = np.asarray(array)
        if array.dtype.kind == "O":
            items = [x if isinstance(x, bytes) else str(x).encode() for x in array.reshape(-1)]
            self.entries[key + ".bytes"] = np.frombuffer(b"".join(items), dtype=np.uint8)
            self.entries[key + ".lengths"] = np.array([len(x) for x in items], dtype=np.int64).reshape(array.shape)
        elif array.dtype.type.__module__ != "numpy":
            name = _dt.FROM_NUMPY[array.dtype].name
            self.entries[f"{key}.as.{name}"] = array.view(np.dtype(f"u{array.dtype.itemsize}"))
        else:
            self.entries[key] = array
        return key

    def write(self, path):
        _atomic_write(path, lambda f: np.savez(f, **self.entries))


class ArrayReader:
    """Reads arrays written by ArrayWriter."""

    def __init__(self, path):
        with np.load(path, allow_pickle=False) as data:
            self._data = {k: data[k] for k in data.files}
        self._custom = {}
        for k in self._data:
            base, sep, name = k.partition(".as.")
            if sep:
                self._custom[base] = (k, name)

    def __contains__(self, key):
        return key in self._data or key + ".lengths" in self._data or key in self._custom

    def get(self, key):
        if key in self._data:
            return self._data[key]
        if key in self._custom:
            stored, name = self._custom[key]
            return self._data[stored].view(_dt.as_dtype(name).as_numpy_dtype)
        lengths = self._data[key + ".lengths"]
        raw = self._data[key + ".bytes"].tobytes()
        ends = np.cumsum(lengths.reshape(-1))
        items = [raw[end - n:end] for n, end in zip(lengths.reshape(-1), ends)]
        out = np.empty(len(items), dtype=object)
        out[:] = items
        return out.reshape(lengths.shape)




def read_variables(prefix):
    """`(records, ArrayReader)` of the variables written beside a SavedModel (`prefix.npz` + `prefix.json`)."""
    from ...framework import errors
    try:
        reader = ArrayReader(prefix + ".npz")
        with open(prefix + ".json", "rb") as f:
            payload = json.loads(f.read().decode("utf-8"))
    except (FileNotFoundError, NotADirectoryError):
        raise errors.NotFoundError(None, None, f"Failed to find any matching files for {prefix}") from None
    except (ValueError, RecursionError):
        payload = None
    if not isinstance(payload, dict) or not isinstance(payload.get("variables"), list):
        raise errors.DataLossError(None, None, f"{prefix}.json is not a tensorflux variables index.")
    return payload["variables"], reader
