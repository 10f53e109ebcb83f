"""Reading a `.keras` archive within limits: its `metadata.json`, `config.json` and `model.weights.h5`
entries (no zip bomb: archive_limits), or the same files of a model directory (`save(dir, zipped=False)`),
and `model.load_weights("m.keras")`, which Keras 3 also allows. Also the archive's layer assets
(`assets/<layer path>/<file>`, a lookup layer's `vocabulary.txt`): written from each layer's
`save_assets(dir)` and handed back to its `load_assets(dir)`, as Keras 3 does."""
import io
import json
import os
import tempfile
import threading
import zipfile
import zlib

from ...io.saved_model import archive_limits
from . import h5_layout, stored_zip

__all__ = ["open_archive", "ArchiveWeights", "parse_json", "load_weights_from_archive", "write_layer_assets",
           "read_layer_assets"]

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
    """(metadata, config, weights) of a `.keras` archive or of a model directory saved with `zipped=False`;
    `weights` is an ArchiveWeights, to be closed by the caller (`with weights: ...`)."""
    if os.path.isdir(filepath):
        metadata, config, weights = _open_directory(filepath)
        weights = ArchiveWeights(path=weights)
    else:
        metadata, config, weights = _read_zip(filepath)
    try:
        if not isinstance(metadata, dict) or not isinstance(metadata.get("keras_version"), str):
            raise ValueError(f"{filepath} is not a Keras 3 `.keras` model file: its metadata.json names no "
                             f"keras_version.")
    except BaseException:
        weights.close()
        raise
    return metadata, config, weights


class ArchiveWeights:
    """The `model.weights.h5` of a model file, for h5py to read: the file of a model directory, the bytes
    of a stored archive entry read in place (stored_zip: no copy of the entry in memory), or those of a
    compressed entry inflated into memory (zipfile checks their CRC-32 as it reads them whole).

    An entry read in place is checksummed in a thread while the model is rebuilt; `verify()` (before a
    single weight is assigned) waits for it and raises ValueError on a mismatch, as zipfile would."""

    def __init__(self, path=None, data=None, fd=None, start=0, size=0, crc=0, label=""):
        self._path, self._data, self._fd, self._start, self._size = path, data, fd, start, size
        self._expected_crc, self._label = crc, label
        self._checksum, self._thread = None, None
        if fd is not None:
            self._thread = threading.Thread(target=self._compute_checksum, name="keras-archive-crc32",
                                            daemon=True)
            self._thread.start()

    def _compute_checksum(self):
        try:
            self._checksum = stored_zip.crc32_of(self._fd, self._start, self._size)
        except (OSError, EOFError) as e:
            self._checksum = e

    def source(self):
        """What h5py opens: a path or a binary file object."""
        if self._path is not None:
            return self._path
        if self._data is not None:
            return io.BytesIO(self._data)
        return stored_zip.ByteWindow(self._fd, self._start, self._size)

    def verify(self):
        if self._thread is None:
            return
        self._thread.join()
        if isinstance(self._checksum, BaseException) or self._checksum != self._expected_crc:
            raise ValueError(f"{self._label} is not a Keras 3 `.keras` model file (Bad CRC-32 for file "
                             f"'model.weights.h5').")

    def close(self):
        if self._thread is not None:
            self._thread.join()     # its reads use the descriptor closed below
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _read_zip(filepath):
    fd = None
    try:
        with zipfile.ZipFile(filepath) as archive:
            metadata = parse_json(archive_limits.read_entry(archive, "metadata.json", _METADATA_LIMIT, filepath),
                                   "metadata.json")
            config = parse_json(archive_limits.read_entry(archive, "config.json", _CONFIG_LIMIT, filepath),
                                 "config.json")
            if "model.weights.h5" not in archive.namelist():
                names = [n for n in archive.namelist() if n.endswith((".npz", ".h5"))]
                raise ValueError(f"it has no `model.weights.h5` entry (entries: {names[:5]}); files written by "
                                 f"tensorflux before it used Keras 3's format cannot be read")
            info = archive.getinfo("model.weights.h5")
            fd = os.open(filepath, os.O_RDONLY | getattr(os, "O_BINARY", 0))
            window = stored_zip.entry_window(fd, archive, info, filepath)
            if window is None:      # compressed (not by Keras): inflated within the limits against zip bombs
                os.close(fd)
                fd = None
                weights_cap = max(os.path.getsize(filepath), 1 << 20) * archive_limits.MAX_RATIO
                weights = ArchiveWeights(data=archive_limits.read_entry(archive, "model.weights.h5", weights_cap,
                                                                        filepath))
            else:
                weights = ArchiveWeights(fd=fd, start=window[0], size=window[1], crc=info.CRC, label=filepath)
    except (zipfile.BadZipFile, ValueError, OSError, EOFError, NotImplementedError, RuntimeError, zlib.error) as e:
        # NotImplementedError: a compression method zipfile cannot read; RuntimeError: an encrypted entry;
        # OSError, EOFError, zlib.error: a truncated or corrupted entry
        if fd is not None:
            os.close(fd)
        raise ValueError(f"{filepath} is not a Keras 3 `.keras` model file ({e}).") from None
    return metadata, config, weights


def load_weights_from_archive(model, filepath, skip_mismatch):
    """`model.load_weights("m.keras")`: the weights of a `.keras` archive."""
    h5_layout.require_h5py()
    _, _, weights = open_archive(filepath)
    with weights:
        h5_layout.read_weights(model, weights.source(), f"{filepath} (model.weights.h5)", skip_mismatch,
                               before_assigning=weights.verify)


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
