"""`tf.saved_model.Asset`: a file a SavedModel carries in its `assets/` directory.

`asset_path` is a string tensor holding the file's path; functions that capture it read the path of the
copy inside the SavedModel once it is loaded.
"""
import os

import numpy as np

from ...framework.context import init_scope
from ...ops.convert import convert_to_tensor

__all__ = ["Asset"]


class Asset:
    """`tf.saved_model.Asset(path)`: tracks a file to be copied into a SavedModel's `assets/`."""

    def __init__(self, path):
        if isinstance(path, Asset):
            path = path._source_path
        path = path.numpy() if hasattr(path, "numpy") else path
        path = os.fsdecode(path)
        self._source_path = path
        self._file_name = os.path.basename(path)
        with init_scope():
            self._asset_path = convert_to_tensor(np.array(path.encode("utf-8"), dtype=object))

    @property
    def asset_path(self):
        """A scalar string tensor: the path of the file."""
        return self._asset_path

    def _trackable_children(self):
        return []

    def __repr__(self):
        return f"<tensorflux.saved_model.Asset object at 0x{id(self):x}>"


API = {"saved_model": ["Asset"]}
