"""Reading a `.keras` archive within limits: its `metadata.json`, `config.json` and `model.weights.h5`
entries (no zip bomb: archive_limits), and `model.load_weights("m.keras")`, which Keras 3 also allows."""
import io
import json
import os
import zipfile
import zlib

from ...io.saved_model import archive_limits
from . import h5_layout

__all__ = ["open_archive", "parse_json", "load_weights_from_archive"]

_METADATA_LIMIT, _CONFIG_LIMIT = 1 << 20, 64 << 20   # bytes


def parse_json(text, what):
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError(f"The {what} is nested too deeply to be read.") from None
    except ValueError as e:      # JSONDecodeError, UnicodeDecodeError
        raise ValueError(f"The {what} is not valid JSON ({e}).") from None


def open_archive(filepath):
    """(metadata, config, weights bytes) of a `.keras` archive, read within limits."""
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
    if not isinstance(metadata, dict) or not isinstance(metadata.get("keras_version"), str):
        raise ValueError(f"{filepath} is not a Keras 3 `.keras` model file: its metadata.json names no "
                         f"keras_version.")
    return metadata, config, weights


def load_weights_from_archive(model, filepath, skip_mismatch):
    """`model.load_weights("m.keras")`: the weights of a `.keras` archive."""
    h5_layout.require_h5py()
    _, _, weights = open_archive(filepath)
    h5_layout.read_weights(model, io.BytesIO(weights), f"{filepath} (model.weights.h5)", skip_mismatch)
