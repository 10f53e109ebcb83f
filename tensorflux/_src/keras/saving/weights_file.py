"""Weights files: `model.save_weights` / `model.load_weights` (the format is described in `save_weights`)."""
import os
import warnings
import zipfile

import numpy as np

from ..models.model import Model
from ...io.atomic import atomic_write

_WEIGHTS_FORMAT = "tensorflux.weights/1"


def _weight_entries(model):
    """The archive entries of a weights file: `w00000`… in `model.weights` order, their names, the format."""
    entries = {f"w{i:05d}": v.numpy() for i, v in enumerate(model.weights)}
    entries["names"] = np.array([v.name for v in model.weights], dtype=str)
    entries["format"] = np.array(_WEIGHTS_FORMAT)
    return entries


def _save_weights(model, filepath, overwrite):
    filepath = os.fspath(filepath)
    if not overwrite and os.path.exists(filepath):
        raise FileExistsError(f"save_weights: {filepath} already exists and overwrite=False.")
    # A file object, so that NumPy does not append ".npz" to the name; written beside the target and renamed
    # over it, so a crash mid-save keeps the previous weights.
    with atomic_write(filepath) as f:
        np.savez(f, **_weight_entries(model))


def _read_weight_entries(source, label):
    """(weights in order, their names) from a weights file (a path or an open binary file)."""
    try:
        with np.load(source, allow_pickle=False) as archive:
            entries = {k: archive[k] for k in archive.files}
    except (ValueError, OSError, zipfile.BadZipFile) as e:
        raise ValueError(f"{label} is not a weights file written by tensorflux's `save_weights` (a NumPy .npz "
                         f"archive); Keras's HDF5 weight files cannot be read. ({e})") from None
    if str(entries.get("format", "")) != _WEIGHTS_FORMAT:
        raise ValueError(f"{label} is not a weights file written by tensorflux's `save_weights` (its `format` "
                         f"entry is missing or unknown).")
    count = sum(1 for k in entries if k.startswith("w") and k[1:].isdigit())
    return [entries[f"w{i:05d}"] for i in range(count)], [str(n) for n in entries["names"]]


def _load_weights(model, filepath, skip_mismatch):
    filepath = os.fspath(filepath)
    if not os.path.exists(filepath):
        raise FileNotFoundError(f"No such file: {filepath}")
    values, names = _read_weight_entries(filepath, filepath)
    _assign_weights(model, values, names, filepath, skip_mismatch)


def _assign_weights(model, values, names, label, skip_mismatch):
    variables = model.weights
    if len(values) != len(variables):
        hint = " Build the model first (call it on a batch, or give it an `Input`)." if not variables else ""
        raise ValueError(f"The weights file {label} holds {len(values)} weights, but the model "
                         f"'{model.name}' has {len(variables)} weights.{hint}")
    for index, (variable, value, name) in enumerate(zip(variables, values, names)):
        expected = tuple(variable.shape.as_list())
        if expected != value.shape:
            message = (f"Weight {index} ('{variable.name}') of model '{model.name}' has shape {expected}, but the "
                       f"saved weight {index} ('{name}') has shape {value.shape}.")
            if skip_mismatch:
                warnings.warn(message + " Skipping it (skip_mismatch=True).", stacklevel=4)
                continue
            raise ValueError(message)
    for variable, value in zip(variables, values):
        if tuple(variable.shape.as_list()) == value.shape:
            variable.assign(value.astype(variable.dtype.as_numpy_dtype, copy=False))


Model._save_weights_file = staticmethod(_save_weights)
Model._load_weights_file = staticmethod(_load_weights)
