"""Whole-model saving: `model.save("m.keras")` and `keras.models.load_model("m.keras")`.

A `.keras` file here is a zip archive holding `config.json` (the model's class and `get_config()` —
for Sequential its layers, for functional models also the graph of layer calls, for subclassed models
their constructor arguments — plus the input shapes it was built for and its compile arguments),
`model.weights.npz` (the weights in `model.weights` order, as `save_weights` writes them) and
`metadata.json`. The layout follows Keras's `.keras` format, but the weights are not HDF5, so files are
exchanged between tensorflux programs only. Optimizer state is not saved: a loaded model is compiled
afresh from its compile arguments.
"""
import io
import json
import os
import zipfile

import numpy as np

import tensorflux as tf

from ..models.model import Model, _assign_weights, _read_weight_entries, _weight_entries
from .serialization import deserialize_keras_object, serialize_keras_object

__all__ = ["save_model", "load_model", "clone_model", "model_from_json"]

_FORMAT = "tensorflux.keras/1"


def model_config(model):
    """{"class_name", "module", "registered_name", "config", "build_shapes"}: enough to rebuild `model`."""
    data = serialize_keras_object(model, f"model '{model.name}'")
    data["build_shapes"] = serialize_keras_object(getattr(model, "_build_shapes", None))
    return data


def model_from_config(data, custom_objects=None):
    model = deserialize_keras_object({k: v for k, v in data.items() if k != "build_shapes"}, custom_objects)
    shapes = deserialize_keras_object(data.get("build_shapes"))
    if not model.built and shapes is not None:
        model(_zeros_like_shapes(shapes))    # one call creates every weight
    return model


def clone_model(model, input_tensors=None, clone_function=None, call_function=None, recursive=False,
                **kwargs):
    """A new model of the same structure with freshly initialised weights (rebuilt from its config)."""
    if input_tensors is not None or clone_function is not None or call_function is not None or recursive:
        raise ValueError("tensorflux's clone_model supports none of `input_tensors`, `clone_function`, "
                         "`call_function` or `recursive`.")
    return model_from_config(model_config(model))


def model_from_json(json_string, custom_objects=None):
    """The model described by `model.to_json()` (structure only; weights are freshly initialised)."""
    return model_from_config(json.loads(json_string), custom_objects)


def _zeros_like_shapes(shapes):
    """Zeros for a (structure of) shape(s) as saved; unknown (batch) dimensions become 1."""
    if isinstance(shapes, list) and all(d is None or isinstance(d, int) for d in shapes):
        return tf.zeros([1 if d is None else d for d in shapes])
    if isinstance(shapes, dict):
        return {k: _zeros_like_shapes(v) for k, v in shapes.items()}
    return [_zeros_like_shapes(s) for s in shapes]


# -- files ----------------------------------------------------------------------------------------------
def save_model(model, filepath, overwrite=True, zipped=None, **kwargs):
    if zipped is False:
        raise ValueError("tensorflux writes `.keras` files as zip archives only: `zipped=False` (a directory) is "
                         "not supported.")
    if kwargs:
        raise ValueError(f"Unsupported arguments for `save`: {sorted(kwargs)}")
    filepath = os.fspath(filepath)
    if not filepath.endswith(".keras"):
        raise ValueError(f"Invalid filepath extension for saving. tensorflux saves whole models in the `.keras` "
                         f"format only (weights alone: `save_weights(...)` with `.weights.h5`). Received: "
                         f"filepath={filepath}")
    if not overwrite and os.path.exists(filepath):
        raise FileExistsError(f"{filepath} already exists and overwrite=False.")
    config = model_config(model)
    if getattr(model, "compiled", False):
        config["compile_config"] = serialize_keras_object(model._compile_arguments, "compile()")
    weights = io.BytesIO()
    np.savez(weights, **_weight_entries(model))
    with zipfile.ZipFile(filepath, "w") as archive:
        archive.writestr("metadata.json", json.dumps({"format": _FORMAT, "tensorflux_version": tf.__version__}))
        archive.writestr("config.json", json.dumps(config))
        archive.writestr("model.weights.npz", weights.getvalue())


def load_model(filepath, custom_objects=None, compile=True, safe_mode=True):
    filepath = os.fspath(filepath)
    if not os.path.exists(filepath):
        raise ValueError(f"File not found: filepath={filepath}. Please ensure the file is an accessible `.keras` "
                         f"zip file.")
    try:
        with zipfile.ZipFile(filepath) as archive:
            metadata = json.loads(archive.read("metadata.json"))
            config = json.loads(archive.read("config.json"))
            weights = archive.read("model.weights.npz")
    except (zipfile.BadZipFile, KeyError, ValueError) as e:
        raise ValueError(f"{filepath} is not a model file written by tensorflux's `model.save` ({e}).") from None
    if metadata.get("format") != _FORMAT:
        raise ValueError(f"{filepath} was not written by tensorflux's `model.save` (format "
                         f"{metadata.get('format')!r}).")
    model = model_from_config(config, custom_objects)
    values, names = _read_weight_entries(io.BytesIO(weights), filepath)
    _assign_weights(model, values, names, filepath, skip_mismatch=False)
    if compile and "compile_config" in config:
        model.compile(**deserialize_keras_object(config["compile_config"], custom_objects))
    return model


API = {"keras.saving": ["save_model", "load_model"], "keras.models": __all__}

Model._save_model = staticmethod(save_model)
Model._model_config = staticmethod(model_config)
