"""Reading a checkpoint's tensors by key, as `tf.train.load_checkpoint`/`list_variables`/`load_variable` do.

Works on any tensor bundle (TensorFlow 2 checkpoints, the variables of a SavedModel, name-based TF1
checkpoints): no object graph is needed to list or read the tensors.
"""
import os

import numpy as np

from ...framework import errors
from ...types import dtypes
from .checkpoint import open_checkpoint
from .state_file import latest_checkpoint

__all__ = ["CheckpointReader", "load_checkpoint", "list_variables", "load_variable"]


class CheckpointReader:
    """What `tf.train.load_checkpoint` returns: the tensors of one checkpoint, by key."""

    def __init__(self, filepattern):
        self._prefix, self._bundle = open_checkpoint(os.fspath(filepattern))

    def has_tensor(self, name):
        return name in self._bundle

    def get_tensor(self, name):
        """The saved value as NumPy (a NumPy scalar for a scalar, bytes for a string scalar)."""
        if name not in self._bundle:
            raise errors.NotFoundError(None, None, f"Key {name} not found in checkpoint")
        value = self._bundle.read(name)
        if value.shape == ():
            return value.item() if value.dtype == object else value[()]
        return value

    def get_variable_to_shape_map(self):
        return {key: list(self._bundle.shape(key)) for key in self._bundle.keys()}

    def get_variable_to_dtype_map(self):
        return {key: dtypes.DType(self._bundle.entry(key).dtype) for key in self._bundle.keys()}

    def debug_string(self):
        lines = []
        for key in sorted(self._bundle.keys()):
            dtype = dtypes.DType(self._bundle.entry(key).dtype)
            shape = ",".join(str(d) for d in self._bundle.shape(key))
            lines.append(f"{key} (DT_{dtype.name.upper()}) [{shape}]\n")
        return "".join(lines).encode("utf-8")


def _resolve(ckpt_dir_or_file):
    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path) and not os.path.isfile(os.path.join(path, "variables", "variables.index")):
        found = latest_checkpoint(path)
        if found is None:
            raise ValueError(f"Couldn't find 'checkpoint' file or checkpoints in given directory {path}")
        return found
    return path


def load_checkpoint(ckpt_dir_or_file):
    """`tf.train.load_checkpoint`: a CheckpointReader of the file (or of a directory's latest checkpoint)."""
    return CheckpointReader(_resolve(ckpt_dir_or_file))


def list_variables(ckpt_dir_or_file):
    """`tf.train.list_variables`: `[(key, shape as a list)]`, sorted by key."""
    shapes = load_checkpoint(ckpt_dir_or_file).get_variable_to_shape_map()
    return [(key, shapes[key]) for key in sorted(shapes)]


def load_variable(ckpt_dir_or_file, name):
    """`tf.train.load_variable`: one saved tensor (a trailing ":0" of a variable name is dropped)."""
    if name.endswith(":0"):
        name = name[:-2]
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)


API = {"train": ["load_checkpoint", "list_variables", "load_variable"]}
