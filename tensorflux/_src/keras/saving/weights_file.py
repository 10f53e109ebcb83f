"""Weights files: `model.save_weights("m.weights.h5")` / `model.load_weights(...)` in Keras 3's HDF5 layout
(h5_layout.py), and `load_weights` of a `.keras` archive (its `model.weights.h5` entry), as Keras 3 does."""
import os

from ..models.model import Model
from ...io.atomic import atomic_path
from . import h5_layout
from .keras_archive import load_weights_from_archive

_SUFFIX = ".weights.h5"


def _save_weights(model, filepath, overwrite):
    filepath = os.fspath(filepath)
    if not filepath.endswith(_SUFFIX):
        raise ValueError(f"The filename must end in `{_SUFFIX}`. Received: filepath={filepath}")
    if not overwrite and os.path.exists(filepath):
        raise FileExistsError(f"save_weights: {filepath} already exists and overwrite=False.")
    h5_layout.require_h5py()
    # Written beside the target and renamed over it, so a crash mid-save keeps the previous weights; by
    # name, so that h5py writes through its own file driver rather than calls into a Python file object.
    with atomic_path(filepath) as temporary:
        h5_layout.write_weights(model, temporary)


def _load_weights(model, filepath, skip_mismatch):
    filepath = os.fspath(filepath)
    if filepath.endswith(".keras"):
        return load_weights_from_archive(model, filepath, skip_mismatch)
    if not filepath.endswith(_SUFFIX):
        raise ValueError(f"File format not supported: filepath={filepath}. Keras 3 only supports V3 `.keras` "
                         f"files and `.weights.h5` files (tensorflux reads neither legacy `.h5` model files nor "
                         f"Orbax checkpoints).")
    if not os.path.exists(filepath):
        raise FileNotFoundError(f"No such file: {filepath}")
    h5_layout.read_weights(model, filepath, filepath, skip_mismatch)


Model._save_weights_file = staticmethod(_save_weights)
Model._load_weights_file = staticmethod(_load_weights)
