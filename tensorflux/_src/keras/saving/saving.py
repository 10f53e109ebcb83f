"""Whole-model saving: `model.save("m.keras")` and `keras.models.load_model("m.keras")`.

A `.keras` file here is a zip archive holding `config.json` (the model's class and `get_config()` —
for Sequential its layers, for functional models also the graph of layer calls, for subclassed models
their constructor arguments — plus the input shapes it was built for and its compile arguments),
`model.weights.npz` (the weights in `model.weights` order, as `save_weights` writes them) and
`metadata.json`. The layout follows Keras's `.keras` format, but the weights are not HDF5, so files are
exchanged between tensorflux programs only. Optimizer state is not saved: a loaded model is compiled
afresh from its compile arguments.

A save writes a temporary sibling file and renames it over the target (`os.replace`), so a crash leaves
the previous file whole. A load treats the file as untrusted data: entries are read within size limits
(archive_limits: no zip bomb), configs rebuild only allow-listed classes (serialization.py), the shapes a
model is built for are capped, and a broken file raises ValueError or TypeError, never an internal error.
"""
import io
import json
import os
import zipfile
import zlib

import numpy as np

import tensorflux as tf

from ..models.model import Model
from .weights_file import _assign_weights, _read_weight_entries, _weight_entries
from ...io.atomic import atomic_write
from ...io.saved_model import archive_limits
from .serialization import deserialize_keras_object, serialize_keras_object

__all__ = ["save_model", "load_model", "clone_model", "model_from_json"]

_FORMAT = "tensorflux.keras/1"


def model_config(model):
    """{"class_name", "module", "registered_name", "config", "build_shapes"}: enough to rebuild `model`."""
    data = serialize_keras_object(model, f"model '{model.name}'")
    data["build_shapes"] = serialize_keras_object(getattr(model, "_build_shapes", None))
    return data


_MAX_BUILD_ELEMENTS = 1 << 24     # elements of the zeros a loaded model is built on (one sample each input)
_MAX_BUILD_INPUTS = 1024
_METADATA_LIMIT, _CONFIG_LIMIT = 1 << 20, 64 << 20   # bytes


def model_from_config(data, custom_objects=None, safe_mode=True):
    if not isinstance(data, dict):
        raise ValueError(f"A model config must be a JSON object, not {type(data).__name__}.")
    model = deserialize_keras_object({k: v for k, v in data.items() if k != "build_shapes"}, custom_objects,
                                     safe_mode)
    if not isinstance(model, Model):
        raise ValueError(f"The config describes a {type(model).__name__}, not a Keras model.")
    shapes = deserialize_keras_object(data.get("build_shapes"), safe_mode=safe_mode)
    if not model.built and shapes is not None:
        budget = [_MAX_BUILD_ELEMENTS, _MAX_BUILD_INPUTS]
        model(_zeros_like_shapes(shapes, budget))    # one call creates every weight
    return model


def clone_model(model, input_tensors=None, clone_function=None, call_function=None, recursive=False,
                **kwargs):
    """A new model of the same structure with freshly initialised weights (rebuilt from its config)."""
    if input_tensors is not None or clone_function is not None or call_function is not None or recursive:
        raise ValueError("tensorflux's clone_model supports none of `input_tensors`, `clone_function`, "
                         "`call_function` or `recursive`.")
    return model_from_config(model_config(model))


def model_from_json(json_string, custom_objects=None):
    """The model described by `model.to_json()` (structure only; weights are freshly initialised).

    Safe mode always applies: a config carrying Python bytecode is refused (as Keras's default)."""
    return _untrusted("The JSON model config", lambda: model_from_config(_parse_json(json_string, "model config"),
                                                                        custom_objects, safe_mode=True))


def _parse_json(text, what):
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError(f"The {what} is nested too deeply to be read.") from None
    except ValueError as e:      # JSONDecodeError, UnicodeDecodeError
        raise ValueError(f"The {what} is not valid JSON ({e}).") from None


def _untrusted(what, build):
    """Runs `build()` on data from a file: internal failures of malformed data become ValueError."""
    try:
        return build()
    except (ValueError, TypeError, tf.errors.OpError):
        raise
    except RecursionError:
        raise ValueError(f"{what} is nested too deeply to be rebuilt.") from None
    except MemoryError:
        raise ValueError(f"{what} describes a model too large to build in memory.") from None
    except (KeyError, IndexError, AttributeError) as e:
        raise ValueError(f"{what} is malformed: {type(e).__name__}: {e}") from None


def _zeros_like_shapes(shapes, budget):
    """Zeros for a (structure of) shape(s) as saved; unknown (batch) dimensions become 1. `budget` ([elements,
    inputs] still allowed) caps what a config may make us allocate."""
    if isinstance(shapes, list) and all(d is None or type(d) is int for d in shapes):
        dims = [1 if d is None else d for d in shapes]
        count = 1
        for d in dims:
            if d < 0:
                raise ValueError(f"A saved build shape has a negative dimension: {shapes}.")
            count *= d
        budget[0] -= count
        budget[1] -= 1
        if budget[0] < 0 or budget[1] < 0:
            raise ValueError(f"The saved build shapes ({str(shapes):.200}) exceed the limit of "
                             f"{_MAX_BUILD_ELEMENTS} elements ({_MAX_BUILD_INPUTS} inputs) a loaded model is built on.")
        return tf.zeros(dims)
    if isinstance(shapes, dict):
        return {k: _zeros_like_shapes(v, budget) for k, v in shapes.items()}
    if isinstance(shapes, list):
        return [_zeros_like_shapes(s, budget) for s in shapes]
    raise ValueError(f"A saved build shape must be a list of dimensions, not {shapes!r:.200}.")


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
    with atomic_write(filepath) as f, zipfile.ZipFile(f, "w") as archive:
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
            metadata = _parse_json(archive_limits.read_entry(archive, "metadata.json", _METADATA_LIMIT, filepath),
                                   "metadata.json")
            config = _parse_json(archive_limits.read_entry(archive, "config.json", _CONFIG_LIMIT, filepath),
                                 "config.json")
            weights_cap = max(os.path.getsize(filepath), 1 << 20) * archive_limits.MAX_RATIO
            weights = archive_limits.read_entry(archive, "model.weights.npz", weights_cap, filepath)
        archive_limits.check_npz(weights, weights_cap, f"{filepath} (model.weights.npz)")
    except (zipfile.BadZipFile, ValueError, OSError, EOFError, NotImplementedError, RuntimeError, zlib.error) as e:
        # NotImplementedError: a compression method zipfile cannot read; RuntimeError: an encrypted entry;
        # OSError, EOFError, zlib.error: a truncated or corrupted entry
        raise ValueError(f"{filepath} is not a model file written by tensorflux's `model.save` ({e}).") from None
    if not isinstance(metadata, dict) or metadata.get("format") != _FORMAT:
        raise ValueError(f"{filepath} was not written by tensorflux's `model.save` (format "
                         f"{metadata.get('format') if isinstance(metadata, dict) else metadata!r:.100}).")

    def build():
        model = model_from_config(config, custom_objects, safe_mode)
        values, names = _read_weight_entries(io.BytesIO(weights), filepath)
        _assign_weights(model, values, names, filepath, skip_mismatch=False)
        if compile and "compile_config" in config:
            arguments = deserialize_keras_object(config["compile_config"], custom_objects, safe_mode)
            if not isinstance(arguments, dict):
                raise ValueError(f"{filepath}: the saved compile arguments are not a dict.")
            model.compile(**arguments)
        return model
    return _untrusted(filepath, build)


API = {"keras.saving": ["save_model", "load_model"], "keras.models": __all__}

Model._save_model = staticmethod(save_model)
Model._model_config = staticmethod(model_config)
