"""Whole-model saving: `model.save("m.keras")` and `keras.models.load_model("m.keras")` in Keras 3's format.

A `.keras` file is a zip archive (entries stored, not compressed, as Keras writes them) of
`metadata.json` (`keras_version`, `date_saved`), `config.json` (the model in Keras 3's serialized form,
keras_config.py, with its `build_config` and `compile_config`) and `model.weights.h5` (the weights and
the optimizer's state in Keras 3's HDF5 layout, h5_layout.py). Keras 3.15 loads what tensorflux writes
and tensorflux loads what Keras writes (Sequential, functional and registered subclassed models, compiled
ones with their optimizer state), for the layers tensorflux implements.

A save writes a temporary sibling file and renames it over the target, so a crash leaves the previous
file whole. A load treats the file as untrusted data: entries are read within size limits
(archive_limits: no zip bomb), configs rebuild only allow-listed classes (keras_revive.py), the shapes a
model is built on are capped, and a broken file raises ValueError, never an internal error.
"""
import datetime
import functools
import json
import os
import shutil
import warnings

import tensorflux as tf

from ..models.model import Model
from ...io.atomic import atomic_path
from ...io.saved_model.save import _staging_dir as staging_directory, _swap_into_place as swap_into_place
from ...state.variables import initial_values_restored
from . import h5_layout
from .keras_archive import open_archive, parse_json, read_layer_assets, write_layer_assets
from .stored_zip import StoredZipWriter
from .keras_config import keras_model_config
from .keras_revive import compile_arguments, revive_model
from .weights_file import _load_weights, _save_weights     # (importing it installs Model's weight-file methods)
from .export import export_model     # noqa: F401  (installs Model.export)

__all__ = ["save_model", "load_model", "clone_model", "model_from_json"]

KERAS_VERSION = "3.15.1"       # the Keras whose format these files follow


def model_config(model):
    """The model in Keras 3's serialized form (what `to_json` writes and `model_from_json` reads)."""
    return keras_model_config(model)


def clone_model(model, input_tensors=None, clone_function=None, call_function=None, recursive=False,
                **kwargs):
    """A new model of the same structure with freshly initialised weights (rebuilt from its config)."""
    if input_tensors is not None or clone_function is not None or call_function is not None or recursive:
        raise ValueError("tensorflux's clone_model supports none of `input_tensors`, `clone_function`, "
                         "`call_function` or `recursive`.")
    config = keras_model_config(model)
    compile_config = config.pop("compile_config", None)
    _name_inputs_after_their_tensors(config.get("config"), model)
    # The model's own classes are known here (registered or not), as Keras clones with them.
    classes = {type(layer).__name__: type(layer) for layer in model._all_layers()}
    twin = revive_model(config, custom_objects=classes)
    if compile_config:
        # As Keras: a compiled model's clone is compiled alike, with a fresh optimizer of the same config.
        twin.compile(**compile_arguments(compile_config, classes, safe_mode=False))
    return twin


def _name_inputs_after_their_tensors(config, model):
    """Keras clones a functional model on new `Input`s named after the model's input tensors
    (`keras_tensor`, or the name given to `Input`): the clone's input layers take those names."""
    refs = config.get("input_layers") if isinstance(config, dict) else None
    tensors = list(getattr(model, "inputs", None) or ())
    if not refs or not tensors:
        return
    triples = [refs] if isinstance(refs[0], str) else list(refs)
    if len(triples) != len(tensors):
        return
    renames = {ref[0]: t.name for ref, t in zip(triples, tensors) if getattr(t, "name", None)}

    def renamed(value):
        if isinstance(value, list) and len(value) == 3 and isinstance(value[0], str) and value[0] in renames:
            return [renames[value[0]]] + value[1:]
        if isinstance(value, dict):
            if value.get("class_name") == "__keras_tensor__":
                inner = dict(value["config"])
                inner["keras_history"] = renamed(list(inner["keras_history"]))
                return {**value, "config": inner}
            return {k: renamed(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(renamed(v) for v in value)
        return value

    for entry in config.get("layers", ()):
        if entry.get("class_name") == "InputLayer" and entry.get("name") in renames:
            entry["name"] = entry["config"]["name"] = renames[entry["name"]]
        entry["inbound_nodes"] = renamed(entry.get("inbound_nodes", []))
    for key in ("input_layers", "output_layers"):
        if config.get(key):
            config[key] = renamed(config[key]) if isinstance(config[key][0], str) else \
                [renamed(ref) for ref in config[key]]


def model_from_json(json_string, custom_objects=None):
    """The model described by `model.to_json()` (structure only; weights are freshly initialised).

    Safe mode always applies: a config carrying Python bytecode is refused (as Keras's default)."""
    return _untrusted("The JSON model config", lambda: revive_model(parse_json(json_string, "model config"),
                                                                   custom_objects, safe_mode=True))


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


# -- files ----------------------------------------------------------------------------------------------
def save_model(model, filepath, overwrite=True, zipped=None, **kwargs):
    if "save_format" in kwargs:
        warnings.warn(f"The `save_format` argument is deprecated in Keras 3. We recommend removing this argument "
                      f"as it can be inferred from the file path. Received: save_format={kwargs.pop('save_format')}",
                      stacklevel=3)
    if kwargs:
        raise ValueError(f"The following argument(s) are not supported: {sorted(kwargs)}")
    filepath = os.fspath(filepath)
    if zipped is False:
        return _save_directory(model, filepath, overwrite)
    if not filepath.endswith(".keras"):
        raise ValueError(f"Invalid filepath extension for saving. Please add either a `.keras` extension for the "
                         f"native Keras format (recommended) or a `.h5` extension. Use `model.export(filepath)` if "
                         f"you want to export a SavedModel for use with TFLite/TFServing/etc. Received: "
                         f"filepath={filepath}.")
    if not overwrite and os.path.exists(filepath):
        raise FileExistsError(f"{filepath} already exists and overwrite=False.")
    h5_layout.require_h5py()
    metadata, config = _metadata_and_config(model)
    with atomic_path(filepath) as temporary, open(temporary, "r+b") as f:
        archive = StoredZipWriter(f)
        archive.writestr("metadata.json", metadata)
        archive.writestr("config.json", config)
        # h5py writes the weights file straight into its place in the archive (no buffer of it)
        with archive.stream_entry("model.weights.h5", h5_layout.stored_bytes(model)) as weights:
            h5_layout.write_weights(model, weights)
        write_layer_assets(model, archive.writestr)     # a lookup layer's vocabulary, as Keras 3 stores it
        archive.close()


def _metadata_and_config(model):
    config = json.dumps(keras_model_config(model))
    metadata = json.dumps({"keras_version": KERAS_VERSION,
                           "date_saved": datetime.datetime.now().strftime("%Y-%m-%d@%H:%M:%S")})
    return metadata, config


def _save_directory(model, dirpath, overwrite):
    """`save(dir, zipped=False)`: the archive's entries as files of a directory (and an empty `assets/`),
    written into a hidden sibling and swapped in as a SavedModel is (io/saved_model)."""
    if dirpath.endswith(".keras"):
        raise ValueError(f"When using `zipped=False`, the `filepath` argument should not end in `.keras`. "
                         f"Received: filepath={dirpath}")
    if not overwrite and os.path.exists(dirpath):
        raise FileExistsError(f"{dirpath} already exists and overwrite=False.")
    h5_layout.require_h5py()
    metadata, config = _metadata_and_config(model)
    staging = staging_directory(dirpath)
    try:
        for name, text in (("metadata.json", metadata), ("config.json", config)):
            with open(os.path.join(staging, name), "w") as f:
                f.write(text)
        h5_layout.write_weights(model, os.path.join(staging, "model.weights.h5"))
        os.mkdir(os.path.join(staging, "assets"))
        write_layer_assets(model, functools.partial(_write_staged_file, staging))
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    swap_into_place(staging, dirpath)


def _write_staged_file(staging, name, data):
    path = os.path.join(staging, *name.split("/"))      # names made by write_layer_assets from layer paths
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def load_model(filepath, custom_objects=None, compile=True, safe_mode=True):
    filepath = os.fspath(filepath)
    if not filepath.endswith(".keras") and not os.path.isfile(os.path.join(filepath, "config.json")):
        raise ValueError(f"File format not supported: filepath={filepath}. Keras 3 only supports V3 `.keras` "
                         f"files (tensorflux reads neither legacy `.h5` model files nor SavedModels here: use "
                         f"`tf.saved_model.load`).")
    if not os.path.exists(filepath):
        raise ValueError(f"File not found: filepath={filepath}. Please ensure the file is an accessible `.keras` "
                         f"zip file.")
    h5_layout.require_h5py()
    _, config, weights = open_archive(filepath)     # the weights' checksum runs in a thread meanwhile

    def build():
        with initial_values_restored():     # every weight is assigned from the file below, or the load fails
            model = revive_model(config, custom_objects, safe_mode)
        if compile and isinstance(config, dict) and config.get("compile_config"):
            model.compile(**compile_arguments(config["compile_config"], custom_objects, safe_mode))
        try:
            h5_layout.read_weights(model, weights.source(), f"{filepath} (model.weights.h5)",
                                   before_assigning=weights.verify)
        except OSError as e:
            raise ValueError(str(e)) from None      # a broken entry of an archive
        read_layer_assets(model, filepath)
        return model
    with weights:
        return _untrusted(filepath, build)


def save_weights(model, filepath, overwrite=True, **kwargs):
    """`keras.saving.save_weights(model, "m.weights.h5")`, as `model.save_weights`."""
    if kwargs:
        raise ValueError(f"The following argument(s) are not supported: {sorted(kwargs)}")
    _save_weights(model, filepath, overwrite)


def load_weights(model, filepath, skip_mismatch=False, **kwargs):
    """`keras.saving.load_weights(model, path)`, as `model.load_weights` (`.weights.h5` or `.keras`)."""
    if kwargs:
        raise ValueError(f"Invalid keyword arguments: {kwargs}")
    _load_weights(model, filepath, skip_mismatch)


API = {"keras.saving": ["save_model", "load_model", "save_weights", "load_weights"], "keras.models": __all__}

Model._save_model = staticmethod(save_model)
Model._model_config = staticmethod(model_config)
