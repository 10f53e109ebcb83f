"""Reading a `.keras` archive within limits: its `metadata.json`, `config.json` and `model.weights.h5`
entries (no zip bomb: archive_limits), or the same files of a model directory (`save(dir, zipped=False)`),
and `model.load_weights("m.keras")`, which Keras 3 also allows. Also the archive's layer assets
(`assets/<layer path>/<file>`, a lookup layer's `vocabulary.txt`): written from each layer's
`save_assets(dir)` and handed back to its `load_assets(dir)`, as Keras 3 does."""
import io
import json
import os
import tempfile
import zipfile
import zlib

from ...io.saved_model import archive_limits
from . import h5_layout

__all__ = ["open_archive", "parse_json", "load_weights_from_archive", "write_layer_assets", "read_layer_assets"]

_METADATA_LIMIT, _CONFIG_LIMIT = 1 << 20, 64 << 20   # bytes
_ASSET_LIMIT = 512 << 20                              # bytes, per asset file


def parse_json(text, what):
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError(f"The {what} is nested too deeply to be read.") from None
    except ValueError as e:      # JSONDecodeError, UnicodeDecodeError
        raise ValueError(f"The {what} is not valid JSON ({e}).") from None


def _read_capped(path, cap):
    with open(path, "rb") as f:
        data = f.read(cap + 1)
    if len(data) > cap:
        raise ValueError(f"{path} holds more than the limit of {cap} bytes for it")
    return data


def _open_directory(dirpath):
    """(metadata, config, path of the weights) of a model saved with `zipped=False`."""
    try:
        metadata = parse_json(_read_capped(os.path.join(dirpath, "metadata.json"), _METADATA_LIMIT), "metadata.json")
        config = parse_json(_read_capped(os.path.join(dirpath, "config.json"), _CONFIG_LIMIT), "config.json")
    except (OSError, ValueError) as e:
        raise ValueError(f"{dirpath} is not a Keras 3 model directory ({e}).") from None
    return metadata, config, os.path.join(dirpath, "model.weights.h5")


def open_archive(filepath):
    """(metadata, config, weights) of a `.keras` archive (the weights as bytes, every entry read within
    limits) or of a model directory saved with `zipped=False` (the weights as the path of their file)."""
    if os.path.isdir(filepath):
        metadata, config, weights = _open_directory(filepath)
    else:
        metadata, config, weights = _read_zip(filepath)
    if not isinstance(metadata, dict) or not isinstance(metadata.get("keras_version"), str):
        raise ValueError(f"{filepath} is not a Keras 3 `.keras` model file: its metadata.json names no "
                         f"keras_version.")
    return metadata, config, weights


def _read_zip(filepath):
    try:
        with zipfile.ZipFile(filepath) as archive:
            metadata = parse_json(archive_limits.read_entry(archive, "metadata.json", _METADATA_LIMIT, filepath),
                                   "metadata.json")
            config = parse_json(archive_limits.read_entry(archive, "config.json", _CONFIG_LIMIT, filepath),
                                 "config.json")
            weights_cap = max(os.path.getsize(filepath), 1 << 20) * archive_limits.MAX_RATIO
            if "model.weights.h5" not in archive.namelist():
                names = [n for n in archive.namelist() if n.endswith((".npz", ".h5"))]
                raise ValueError(f"it has no `model.weights.h5` entry (entries: {names[:5]}); files written by "
                                 f"tensorflux before it used Keras 3's format cannot be read")
            weights = archive_limits.read_entry(archive, "model.weights.h5", weights_cap, filepath)
    except (zipfile.BadZipFile, ValueError, OSError, EOFError, NotImplementedError, RuntimeError, zlib.error) as e:
        # NotImplementedError: a compression method zipfile cannot read; RuntimeError: an encrypted entry;
        # OSError, EOFError, zlib.error: a truncated or corrupted entry
        raise ValueError(f"{filepath} is not a Keras 3 `.keras` model file ({e}).") from None
    return metadata, config, weights


def weights_source(weights):
    """What h5py opens for `open_archive`'s weights: an in-memory file, or the path of a directory's file."""
    return weights if isinstance(weights, str) else io.BytesIO(weights)


def load_weights_from_archive(model, filepath, skip_mismatch):
    """`model.load_weights("m.keras")`: the weights of a `.keras` archive."""
    h5_layout.require_h5py()
    _, _, weights = open_archive(filepath)
    h5_layout.read_weights(model, weights_source(weights), f"{filepath} (model.weights.h5)", skip_mismatch)


def _asset_holders(model, method):
    return [(path, obj) for path, obj, _ in h5_layout.saveables(model) if callable(getattr(obj, method, None))]


def write_layer_assets(model, add_file):
    """Calls `add_file(entry name, bytes)` for every file a layer's `save_assets(dir)` writes, named
    `assets/<layer path>/<file>` as in Keras 3's archives."""
    for path, obj in _asset_holders(model, "save_assets"):
        with tempfile.TemporaryDirectory() as staging:
            obj.save_assets(staging)
            for name in sorted(os.listdir(staging)):
                with open(os.path.join(staging, name), "rb") as f:
                    add_file(f"assets/{path}/{name}", f.read())


def _stored_assets(filepath, path):
    """{file name: bytes} stored for the layer at `path` in an archive or a model directory."""
    found = {}
    if os.path.isdir(filepath):
        folder = os.path.join(filepath, "assets", *path.split("/"))
        if os.path.isdir(folder):
            for name in sorted(os.listdir(folder)):
                full = os.path.join(folder, name)
                if os.path.isfile(full) and not os.path.islink(full):
                    found[name] = _read_capped(full, _ASSET_LIMIT)
        return found
    prefix = f"assets/{path}/"
    with zipfile.ZipFile(filepath) as archive:
        for entry in archive.namelist():
            name = entry[len(prefix):] if entry.startswith(prefix) else ""
            if name and "/" not in name and "\\" not in name and name not in (".", ".."):
                found[name] = archive_limits.read_entry(archive, entry, _ASSET_LIMIT, filepath)
    return found


def read_layer_assets(model, filepath):
    """Hands each layer with `load_assets(dir)` the files stored under its `assets/<layer path>/` in the
    `.keras` archive or model directory `filepath` (file names are data: only plain names are copied)."""
    for path, obj in _asset_holders(model, "load_assets"):
        files = _stored_assets(filepath, path)
        if not files:
            continue
        with tempfile.TemporaryDirectory() as staging:
            for name, data in files.items():
                with open(os.path.join(staging, name), "wb") as f:
                    f.write(data)
            obj.load_assets(staging)
