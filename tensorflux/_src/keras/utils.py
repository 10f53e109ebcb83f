"""`keras.utils`: seeding every random source at once, one-hot encoding of class labels, row
normalisation, padding of sequences to one length, datasets of sliding windows over a series and of
files in class folders (images, texts), splitting datasets, a progress bar, model diagrams (DOT), file
downloads with a checked hash, and small helpers (`Config`, `standardize_dtype`, packing (x, y, w))."""
import hashlib
import json
import os
import random
import shutil
import sys
import tarfile
import time
import urllib.request
import zipfile

import numpy as np

import tensorflux as tf

from . import keras_tensor as _keras_tensor
from .py_dataset import PyDataset as _PyDataset


def set_random_seed(seed):
    """Seeds Python's `random`, NumPy's global generator and `tf.random` (so layer initializers,
    dropout and fit's shuffling are reproducible)."""
    if not isinstance(seed, int):
        raise ValueError(f"Expected `seed` argument to be an integer. Received: seed={seed} (of type "
                         f"{type(seed)})")
    random.seed(seed)
    np.random.seed(seed)
    tf.random.set_seed(seed)


def to_categorical(x, num_classes=None):
    """One-hot rows (float64, like Keras) for integer class labels; a trailing axis of size 1 is dropped."""
    x = np.asarray(x, dtype="int64")
    shape = x.shape
    if shape and shape[-1] == 1 and len(shape) > 1:
        shape = shape[:-1]
    x = x.reshape(-1)
    if num_classes is None:
        num_classes = int(x.max()) + 1 if x.size else 0
    categorical = np.zeros((x.size, num_classes))
    categorical[np.arange(x.size), x] = 1
    return categorical.reshape(shape + (num_classes,))


def normalize(x, axis=-1, order=2):
    """`x` divided by its `order`-norm along `axis` (rows of zeros stay zeros)."""
    x = np.asarray(x)
    norm = np.atleast_1d(np.linalg.norm(x, order, axis))
    norm[norm == 0] = 1
    return x / np.expand_dims(norm, axis)


def pad_sequences(sequences, maxlen=None, dtype="int32", padding="pre", truncating="pre", value=0.0):
    """A [len(sequences), maxlen] array: each sequence cut to `maxlen` (from the front with
    truncating="pre") and padded with `value` (before it with padding="pre"), as Keras does."""
    for option, name in ((padding, "padding"), (truncating, "truncating")):
        if option not in ("pre", "post"):
            raise ValueError(f'{name.capitalize()} type "{option}" not understood')
    rows = []
    for s in sequences:
        if not hasattr(s, "__len__"):
            raise ValueError(f"`sequences` must be a list of iterables. Found non-iterable: {s}")
        rows.append(np.asarray(s))
    if maxlen is None:
        maxlen = max((len(r) for r in rows), default=0)
    sample_shape = next((r.shape[1:] for r in rows if len(r)), ())
    out = np.full((len(rows), maxlen) + sample_shape, value, dtype=dtype)
    for i, row in enumerate(rows):
        if not len(row) or not maxlen:
            continue
        kept = row[-maxlen:] if truncating == "pre" else row[:maxlen]
        if kept.shape[1:] != sample_shape:
            raise ValueError(f"Shape of sample {kept.shape[1:]} of sequence at position {i} is different from "
                             f"expected shape {sample_shape}")
        if padding == "post":
            out[i, :len(kept)] = kept
        else:
            out[i, maxlen - len(kept):] = kept
    return out


def timeseries_dataset_from_array(data, targets, sequence_length, sequence_stride=1, sampling_rate=1,
                                  batch_size=128, shuffle=False, seed=None, start_index=None, end_index=None):
    """Batches of windows `data[i : i + sequence_length * sampling_rate : sampling_rate]`, one every
    `sequence_stride` steps, each paired (when `targets` is given) with `targets[i]`."""
    data = np.asarray(data)
    start = start_index or 0
    end = len(data) if end_index is None else end_index
    if sampling_rate <= 0 or sequence_stride <= 0 or sequence_length <= 0:
        raise ValueError("`sequence_length`, `sequence_stride` and `sampling_rate` must be strictly positive.")
    span = (sequence_length - 1) * sampling_rate + 1
    starts = np.arange(start, end - span + 1, sequence_stride)
    if targets is not None:
        targets = np.asarray(targets)
        starts = starts[starts < len(targets)]
    if shuffle:
        np.random.default_rng(seed).shuffle(starts)
    windows = np.stack([data[i:i + span:sampling_rate] for i in starts]) if len(starts) else \
        np.zeros((0, sequence_length) + data.shape[1:], data.dtype)
    elements = windows if targets is None else (windows, targets[starts])
    dataset = tf.data.Dataset.from_tensor_slices(elements)
    return dataset.batch(batch_size) if batch_size is not None else dataset


Sequence = _PyDataset  # Keras 3: keras.utils.Sequence is PyDataset


# -- small helpers ---------------------------------------------------------------------------------------------
def pack_x_y_sample_weight(x, y=None, sample_weight=None):
    """(x,), (x, y) or (x, y, sample_weight) as fit expects; a lone non-tuple x is returned as it is."""
    if y is None:
        return x if not isinstance(x, (tuple, list)) else (x,)
    if sample_weight is None:
        return (x, y)
    return (x, y, sample_weight)


def unpack_x_y_sample_weight(data):
    """(x, y, sample_weight) from a data element of one to three parts (missing parts are None)."""
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple):
        return (data, None, None)
    if len(data) == 1:
        return (data[0], None, None)
    if len(data) == 2:
        return (data[0], data[1], None)
    if len(data) == 3:
        return (data[0], data[1], data[2])
    raise ValueError(f"Data is expected to be in format `x`, `(x,)`, `(x, y)`, or `(x, y, sample_weight)`, "
                     f"found: {data}")


def standardize_dtype(dtype):
    """A dtype's Keras name ("float32"); None and Python's float give float32, int int64."""
    if dtype is None or dtype is float:
        return "float32"
    if dtype is int:
        return "int64"
    if dtype == "float":
        raise ValueError(f"Invalid dtype: {dtype}")
    return tf.as_dtype(getattr(dtype, "name", dtype)).name


def is_keras_tensor(x):
    return isinstance(x, _keras_tensor.KerasTensor)


def get_source_inputs(tensor):
    """The Input tensors a functional-API tensor was computed from (walking its history back)."""
    if not is_keras_tensor(tensor):
        return [tensor]
    found, seen, pending = [], set(), [tensor]
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        history = current._keras_history          # (node, output index), or None for an Input
        node = history[0] if history else None
        parents = node.inputs if node is not None else []
        if not parents:
            found.append(current)
        pending.extend(reversed(parents))
    return found


class Config:
    """A mapping that also reads and writes its keys as attributes; `freeze()` makes it read-only."""

    def __init__(self, **kwargs):
        object.__setattr__(self, "_config", dict(kwargs))
        object.__setattr__(self, "_frozen", False)

    def __getattr__(self, name):
        try:
            return self.__dict__["_config"][name]
        except KeyError:
            raise AttributeError(f"Unknown attribute: '{name}'") from None

    def __setattr__(self, name, value):
        if self._frozen:
            raise ValueError("Cannot mutate attribute(s) because the config is frozen.")
        self._config[name] = value

    def __delattr__(self, name):
        if self._frozen:
            raise ValueError("Cannot mutate attribute(s) because the config is frozen.")
        del self._config[name]

    def __getitem__(self, key):
        return self._config[key]

    def __setitem__(self, key, value):
        self.__setattr__(key, value)

    def __contains__(self, key):
        return key in self._config

    def __iter__(self):
        return iter(self._config)

    def __len__(self):
        return len(self._config)

    def keys(self):
        return self._config.keys()

    def values(self):
        return self._config.values()

    def items(self):
        return self._config.items()

    def get(self, key, default=None):
        return self._config.get(key, default)

    def update(self, *args, **kwargs):
        if self._frozen:
            raise ValueError("Cannot mutate attribute(s) because the config is frozen.")
        self._config.update(*args, **kwargs)

    def pop(self, *args):
        if self._frozen:
            raise ValueError("Cannot mutate attribute(s) because the config is frozen.")
        return self._config.pop(*args)

    def freeze(self):
        object.__setattr__(self, "_frozen", True)

    def unfreeze(self):
        object.__setattr__(self, "_frozen", False)

    @property
    def frozen(self):
        return self._frozen

    def as_dict(self):
        return dict(self._config)

    def to_json(self):
        return json.dumps(self._config)

    def __repr__(self):
        return f"<Config {self._config}>"


# -- interactive logging (Progbar prints only while it is enabled) ------------------------------------------------
_LOGGING = {"interactive": True}


def enable_interactive_logging():
    _LOGGING["interactive"] = True


def disable_interactive_logging():
    _LOGGING["interactive"] = False


def is_interactive_logging_enabled():
    return _LOGGING["interactive"]


class Progbar:
    """A text progress bar: `update(current, values)` redraws `current/target [====>....] - name: mean`."""

    def __init__(self, target, width=20, verbose=1, interval=0.05, stateful_metrics=None,
                 stateless_metrics=None, unit_name="step"):
        self.target, self.width, self.verbose, self.interval = target, width, verbose, interval
        # Keras 3 shows each value as given (metrics are stateful) unless it is listed in stateless_metrics
        self.stateless_metrics = set(stateless_metrics or ()) - set(stateful_metrics or ())
        self.unit_name = unit_name
        self._values, self._order = {}, []
        self._seen_so_far = 0
        self._start = self._last_update = time.time()

    def update(self, current, values=None, finalize=None):
        """Records `values` ([(name, value)]: averaged over steps if listed as stateless) and redraws."""
        finalize = (self.target is not None and current >= self.target) if finalize is None else finalize
        for name, value in values or ():
            if name not in self._order:
                self._order.append(name)
            value = float(np.mean(np.asarray(value)))
            if name not in self.stateless_metrics:
                self._values[name] = [value, 1]
            else:
                steps = max(current - self._seen_so_far, 1)
                total, count = self._values.get(name, [0.0, 0])
                self._values[name] = [total + value * steps, count + steps]
        self._seen_so_far = current
        now = time.time()
        if self.verbose == 0 or not _LOGGING["interactive"]:
            return
        if not finalize and now - self._last_update < self.interval:
            return
        self._last_update = now
        line = self._bar(current) + self._metrics()
        if self.verbose == 1:
            sys.stdout.write("\r" + line + ("\n" if finalize else ""))
        elif finalize:
            sys.stdout.write(line + "\n")
        sys.stdout.flush()

    def add(self, n, values=None):
        self.update(self._seen_so_far + n, values)

    def _bar(self, current):
        if self.target is None:
            return f"{current:7d}/Unknown"
        digits = len(str(self.target))
        done = int(self.width * current / self.target) if self.target else self.width
        bar = "=" * max(done - 1, 0) + (">" if current < self.target else "=") * (done > 0)
        return f"{current:{digits}d}/{self.target} [{bar}{'.' * (self.width - done)}]"

    def _metrics(self):
        return "".join(f" - {name}: {self._values[name][0] / max(self._values[name][1], 1):.4f}"
                       for name in self._order)


# -- datasets ---------------------------------------------------------------------------------------------------
def split_dataset(dataset, left_size=None, right_size=None, shuffle=False, seed=None, preferred_backend=None):
    """Two datasets holding the first `left_size` and the remaining elements (sizes as counts or fractions)."""
    if isinstance(dataset, tf.data.Dataset):
        elements = list(dataset.as_numpy_iterator())
        structure = elements
    else:
        structure = dataset
        elements = list(zip(*dataset)) if isinstance(dataset, (tuple, list)) else list(np.asarray(dataset))
    total = len(elements)
    left, right = _split_sizes(total, left_size, right_size)
    order = np.arange(total)
    if shuffle:
        np.random.default_rng(seed).shuffle(order)
    picked = [elements[i] for i in order]

    def make(part):
        if isinstance(structure, (tuple, list)) and not isinstance(dataset, tf.data.Dataset):
            return tf.data.Dataset.from_tensor_slices(tuple(np.stack(column) for column in zip(*part)))
        if part and isinstance(part[0], tuple):
            return tf.data.Dataset.from_tensor_slices(tuple(np.stack(column) for column in zip(*part)))
        return tf.data.Dataset.from_tensor_slices(np.stack(part)) if part else tf.data.Dataset.from_tensor_slices(
            np.zeros((0,) + np.asarray(elements[0]).shape, np.asarray(elements[0]).dtype))

    return make(picked[:left]), make(picked[left:left + right])


def _split_sizes(total, left_size, right_size):
    def count(size):
        if size is None:
            return None
        if isinstance(size, float):
            if not 0 < size < 1:
                raise ValueError(f"A float size must be in (0, 1). Received: {size}")
            return int(size * total)
        if size < 0 or size > total:
            raise ValueError(f"A size must be between 0 and the dataset's {total} elements. Received: {size}")
        return int(size)
    left, right = count(left_size), count(right_size)
    if left is None and right is None:
        raise ValueError("At least one of the `left_size` or `right_size` must be specified.")
    left = total - right if left is None else left
    right = total - left if right is None else right
    if left + right > total:
        raise ValueError(f"The sum of `left_size` and `right_size` is greater than the total number of samples "
                         f"({total}).")
    return left, right


def _class_files(directory, labels, class_names, extensions, follow_links):
    """The files under `directory` (per class folder when labels are inferred) and their label indices."""
    if labels == "inferred":
        found = sorted(d for d in os.listdir(directory) if os.path.isdir(os.path.join(directory, d)))
        class_names = list(class_names) if class_names is not None else found
        if class_names != found and set(class_names) != set(found):
            raise ValueError(f"The `class_names` passed did not match the names of the subdirectories of the "
                             f"target directory. Expected: {found}. Received: class_names={class_names}")
        paths, indices = [], []
        for index, name in enumerate(class_names):
            for root, _, files in sorted(os.walk(os.path.join(directory, name), followlinks=follow_links)):
                for file in sorted(files):
                    if file.lower().endswith(extensions):
                        paths.append(os.path.join(root, file))
                        indices.append(index)
        return paths, indices, class_names
    paths = [os.path.join(root, f) for root, _, files in sorted(os.walk(directory, followlinks=follow_links))
             for f in sorted(files) if f.lower().endswith(extensions)]
    if labels is not None and len(labels) != len(paths):
        raise ValueError(f"Expected the lengths of `labels` to match the number of files in the target directory. "
                         f"len(labels) is {len(labels)} while we found {len(paths)} files in directory {directory}.")
    return paths, list(labels) if labels is not None else None, class_names


def _subset(paths, indices, validation_split, subset, seed, shuffle):
    order = np.arange(len(paths))
    if shuffle or validation_split:
        np.random.default_rng(1337 if seed is None else seed).shuffle(order)
    if validation_split:
        cut = len(paths) - int(validation_split * len(paths))
        if subset == "training":
            order = order[:cut]
        elif subset == "validation":
            order = order[cut:]
        elif subset == "both":
            return [(_pick(paths, indices, order[:cut])), _pick(paths, indices, order[cut:])]
        else:
            raise ValueError(f'`subset` must be either "training", "validation" or "both", received: {subset}')
    return [_pick(paths, indices, order)]


def _pick(paths, indices, order):
    return [paths[i] for i in order], (None if indices is None else [indices[i] for i in order])


def _labelled(values, indices, label_mode, num_classes, batch_size):
    dataset = tf.data.Dataset.from_tensor_slices(values)
    if indices is not None and label_mode is not None:
        labels = np.asarray(indices)
        if label_mode == "categorical":
            labels = to_categorical(labels, num_classes).astype("float32")
        elif label_mode == "binary":
            labels = labels.astype("float32").reshape(-1, 1)
        elif label_mode != "int":
            raise ValueError(f'`label_mode` argument must be one of "int", "categorical", "binary", or None. '
                             f"Received: label_mode={label_mode}")
        dataset = tf.data.Dataset.from_tensor_slices((values, labels))
    return dataset.batch(batch_size) if batch_size is not None else dataset


def text_dataset_from_directory(directory, labels="inferred", label_mode="int", class_names=None, batch_size=32,
                                max_length=None, shuffle=True, seed=None, validation_split=None, subset=None,
                                follow_links=False, format="tf", verbose=True):  # noqa: A002
    """A dataset of (text, label) from `directory/<class>/*.txt` (labels from the folder names)."""
    paths, indices, class_names = _class_files(directory, labels, class_names, (".txt",), follow_links)
    if verbose:
        print(f"Found {len(paths)} files belonging to {len(class_names or [])} classes.")
    datasets = []
    for chosen, chosen_indices in _subset(paths, indices, validation_split, subset, seed, shuffle):
        texts = []
        for path in chosen:
            with open(path, "rb") as f:
                text = f.read()
            texts.append(text[:max_length] if max_length is not None else text)
        dataset = _labelled(np.array(texts, dtype=object), chosen_indices, label_mode, len(class_names or []),
                            batch_size)
        dataset.class_names = class_names
        datasets.append(dataset)
    return datasets if len(datasets) > 1 else datasets[0]


_IMAGE_EXTENSIONS = (".bmp", ".gif", ".jpeg", ".jpg", ".png")


def image_dataset_from_directory(directory, labels="inferred", label_mode="int", class_names=None,
                                 color_mode="rgb", batch_size=32, image_size=(256, 256), shuffle=True, seed=None,
                                 validation_split=None, subset=None, interpolation="bilinear", follow_links=False,
                                 crop_to_aspect_ratio=False, pad_to_aspect_ratio=False, data_format=None,
                                 format="tf", verbose=True):  # noqa: A002
    """A dataset of (image, label) from `directory/<class>/*.{png,jpg,bmp,gif}`, resized to `image_size`
    (float32 pixel values 0..255, as Keras)."""
    channels = {"rgb": 3, "rgba": 4, "grayscale": 1}.get(color_mode)
    if channels is None:
        raise ValueError(f'`color_mode` must be one of {{"rgb", "rgba", "grayscale"}}. Received: color_mode={color_mode}')
    paths, indices, class_names = _class_files(directory, labels, class_names, _IMAGE_EXTENSIONS, follow_links)
    if verbose:
        print(f"Found {len(paths)} files belonging to {len(class_names or [])} classes.")
    datasets = []
    for chosen, chosen_indices in _subset(paths, indices, validation_split, subset, seed, shuffle):
        images = []
        for path in chosen:
            image = tf.io.decode_image(tf.io.read_file(path), channels=channels, expand_animations=False)
            image = tf.image.resize(tf.cast(image, tf.float32), image_size, method=interpolation)
            images.append(image.numpy())
        values = np.stack(images) if images else np.zeros((0,) + tuple(image_size) + (channels,), np.float32)
        if data_format == "channels_first":
            values = values.transpose(0, 3, 1, 2)
        dataset = _labelled(values, chosen_indices, label_mode, len(class_names or []), batch_size)
        dataset.class_names = class_names
        datasets.append(dataset)
    return datasets if len(datasets) > 1 else datasets[0]


# -- images as arrays -------------------------------------------------------------------------------------------
def img_to_array(img, data_format=None, dtype=None):
    """An image (a PIL image or array, height × width [× channels]) as a float32 array with a channel axis."""
    x = np.asarray(img, dtype=dtype or "float32")
    if x.ndim == 2:
        x = x[:, :, None] if data_format != "channels_first" else x[None]
    elif x.ndim != 3:
        raise ValueError(f"Unsupported image shape: {x.shape}")
    elif data_format == "channels_first":
        x = x.transpose(2, 0, 1)
    return x


def _pil():
    try:
        from PIL import Image
    except ImportError as e:
        raise ImportError("Could not import PIL.Image. The use of `array_to_img`, `load_img` and `save_img` "
                          "requires PIL (pip install pillow).") from e
    return Image


def array_to_img(x, data_format=None, scale=True, dtype=None):
    """A PIL image of a height × width × channels array (rescaled to 0..255 with `scale`)."""
    image_module = _pil()
    x = np.asarray(x, dtype=dtype or "float32")
    if x.ndim != 3:
        raise ValueError(f"Expected image array to have rank 3 (single image). Got array with shape: {x.shape}")
    if data_format == "channels_first":
        x = x.transpose(1, 2, 0)
    if scale:
        x = x - np.min(x)
        top = np.max(x)
        x = x / top * 255 if top else x
    channels = x.shape[2]
    mode = {1: "L", 3: "RGB", 4: "RGBA"}.get(channels)
    if mode is None:
        raise ValueError(f"Unsupported channel number: {channels}")
    data = x.astype("uint8")
    return image_module.fromarray(data[:, :, 0] if channels == 1 else data, mode)


def save_img(path, x, data_format=None, file_format=None, scale=True, **kwargs):
    array_to_img(x, data_format=data_format, scale=scale).save(path, format=file_format, **kwargs)


def load_img(path, color_mode="rgb", target_size=None, interpolation="nearest", keep_aspect_ratio=False):
    """The image file at `path` as a PIL image (converted to `color_mode`, resized to `target_size`)."""
    image_module = _pil()
    with open(path, "rb") as f:
        image = image_module.open(f)
        image.load()
    image = image.convert({"grayscale": "L", "rgb": "RGB", "rgba": "RGBA"}[color_mode])
    if target_size is not None and image.size != (target_size[1], target_size[0]):
        image = image.resize((target_size[1], target_size[0]))
    return image


# -- downloads --------------------------------------------------------------------------------------------------
def _file_hash(path, algorithm):
    digest = hashlib.sha256() if algorithm == "sha256" else hashlib.md5()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def get_file(fname=None, origin=None, untar=False, md5_hash=None, file_hash=None, cache_subdir="datasets",
             hash_algorithm="auto", extract=False, archive_format="auto", cache_dir=None, force_download=False):
    """Downloads `origin` into ~/.keras/<cache_subdir> (unless a copy with the right hash is there), checks
    `file_hash`, optionally extracts a tar/zip archive; returns the local path."""
    if origin is None:
        raise ValueError('Please specify the "origin" argument (URL of the file to download).')
    cache_dir = os.path.expanduser(cache_dir or os.path.join("~", ".keras"))
    directory = os.path.join(cache_dir, cache_subdir)
    os.makedirs(directory, exist_ok=True)
    fname = fname or os.path.basename(urllib.request.urlparse(origin).path)
    if os.path.basename(fname) != fname or fname in ("", ".", ".."):
        raise ValueError(f"`fname` must be a plain file name. Received: fname={fname}")
    path = os.path.join(directory, fname)
    expected = file_hash or md5_hash
    algorithm = ("sha256" if expected and len(expected) == 64 else "md5") if hash_algorithm == "auto" else hash_algorithm
    stale = force_download or not os.path.exists(path) or (expected and _file_hash(path, algorithm) != expected)
    if stale:
        partial = path + f".part-{os.getpid()}"
        try:
            with urllib.request.urlopen(origin) as response, open(partial, "wb") as out:
                shutil.copyfileobj(response, out)
            os.replace(partial, path)
        finally:
            if os.path.exists(partial):
                os.remove(partial)
        if expected and _file_hash(path, algorithm) != expected:
            raise ValueError(f"Incomplete or corrupted file detected. The {algorithm} file hash does not match the "
                             f"provided value of {expected}.")
    if untar or extract:
        target = os.path.join(directory, fname.split(".")[0] + ("_extracted" if extract else ""))
        _extract(path, target, "tar" if untar else archive_format)
        return target
    return path


def _extract(path, target, archive_format):
    """Extracts a tar or zip archive into `target`, refusing members that would land outside it."""
    root = os.path.realpath(target)
    if archive_format in ("auto", "tar") and tarfile.is_tarfile(path):
        with tarfile.open(path) as archive:
            for member in archive.getmembers():
                if not os.path.realpath(os.path.join(root, member.name)).startswith(root + os.sep):
                    raise ValueError(f"Archive member {member.name!r} would be extracted outside {target}")
            archive.extractall(root, filter="data")
    elif archive_format in ("auto", "zip") and zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as archive:
            for name in archive.namelist():
                if not os.path.realpath(os.path.join(root, name)).startswith(root + os.sep):
                    raise ValueError(f"Archive member {name!r} would be extracted outside {target}")
            archive.extractall(root)


# -- model diagrams ---------------------------------------------------------------------------------------------
class _Dot:
    """A DOT graph (what Keras builds with pydot): `to_string()`, `write(path, format=...)` through graphviz."""

    def __init__(self, source):
        self.source = source

    def to_string(self):
        return self.source

    def create(self, format="png"):  # noqa: A002
        dot = shutil.which("dot")
        if dot is None:
            raise ImportError("You must install graphviz (see instructions at https://graphviz.gitlab.io/download/) "
                              "for `plot_model` to work.")
        import subprocess
        return subprocess.run([dot, f"-T{format}"], input=self.source.encode(), capture_output=True, check=True).stdout

    def write(self, path, format="raw"):  # noqa: A002
        data = self.source.encode() if format in ("raw", "dot") else self.create(format)
        with open(path, "wb") as f:
            f.write(data)


def _quote(text):
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


def model_to_dot(model, show_shapes=False, show_dtype=False, show_layer_names=True, rankdir="TB",
                 expand_nested=False, dpi=200, subgraph=False, show_layer_activations=False,
                 show_trainable=False, **kwargs):
    """A DOT diagram of `model`: one node per layer, edges along the layers' order (Sequential) or the
    functional graph's connections."""
    layers = list(getattr(model, "layers", []))
    lines = [f"digraph G {{", f"  rankdir={rankdir};", f"  dpi={dpi};", "  node [shape=record];"]
    for layer in layers:
        label = type(layer).__name__
        if show_layer_names:
            label = f"{layer.name} ({label})"
        if show_layer_activations and getattr(layer, "activation", None) is not None:
            label += f"|activation: {getattr(layer.activation, '__name__', layer.activation)}"
        if show_shapes:
            output_shape = getattr(getattr(layer, "output", None), "shape", None)
            label += f"|output: {tuple(output_shape) if output_shape is not None else '?'}"
        if show_dtype:
            label += f"|dtype: {getattr(layer, 'dtype', '?')}"
        if show_trainable:
            label += f"|trainable: {getattr(layer, 'trainable', '?')}"
        lines.append(f"  {id(layer)} [label={_quote(label)}];")
    edges = []
    for layer in layers:
        inbound = getattr(layer, "_inbound_layers", None)
        if inbound:
            edges += [(id(src), id(layer)) for src in inbound]
    if not edges:
        edges = [(id(a), id(b)) for a, b in zip(layers, layers[1:])]
    lines += [f"  {a} -> {b};" for a, b in edges]
    lines.append("}")
    return _Dot("\n".join(lines))


def plot_model(model, to_file="model.png", show_shapes=False, show_dtype=False, show_layer_names=True,
               rankdir="TB", expand_nested=False, dpi=200, show_layer_activations=False, show_trainable=False,
               **kwargs):
    """Writes `model`'s diagram to `to_file` (its format from the extension) through graphviz's `dot`."""
    dot = model_to_dot(model, show_shapes, show_dtype, show_layer_names, rankdir, expand_nested, dpi,
                       show_layer_activations=show_layer_activations, show_trainable=show_trainable)
    extension = os.path.splitext(to_file)[1][1:] or "png"
    dot.write(to_file, format="raw" if extension == "dot" else extension)
    return dot


# -- keras.utils.legacy ------------------------------------------------------------------------------------------
def serialize_keras_object(instance):
    """Keras' legacy serialization: {"class_name": ..., "config": ...} (functions by name)."""
    if instance is None:
        return None
    if hasattr(instance, "get_config"):
        return {"class_name": type(instance).__name__, "config": instance.get_config()}
    if hasattr(instance, "__name__"):
        return instance.__name__
    raise ValueError(f"Cannot serialize {instance!r}")


def deserialize_keras_object(identifier, module_objects=None, custom_objects=None, printable_module_name="object"):
    """An object from its legacy config, looked up in `custom_objects` then `module_objects` (never by
    importing a name read from the config)."""
    known = dict(module_objects or {}, **(custom_objects or {}))
    if isinstance(identifier, dict):
        cls = known.get(identifier.get("class_name"))
        if cls is None:
            raise ValueError(f"Unknown {printable_module_name}: '{identifier.get('class_name')}'.")
        config = identifier.get("config", {})
        return cls.from_config(config) if hasattr(cls, "from_config") else cls(**config)
    if isinstance(identifier, str):
        if identifier not in known:
            raise ValueError(f"Unknown {printable_module_name}: '{identifier}'.")
        return known[identifier]
    return identifier


API = {"keras.utils": ["set_random_seed", "to_categorical", "normalize", "pad_sequences",
                       "timeseries_dataset_from_array", "Sequence", "pack_x_y_sample_weight",
                       "unpack_x_y_sample_weight", "standardize_dtype", "is_keras_tensor", "get_source_inputs",
                       "Config", "enable_interactive_logging", "disable_interactive_logging",
                       "is_interactive_logging_enabled", "Progbar", "split_dataset", "text_dataset_from_directory",
                       "image_dataset_from_directory", "img_to_array", "array_to_img", "save_img", "load_img",
                       "get_file", "model_to_dot", "plot_model"],
       "keras.utils.legacy": ["serialize_keras_object", "deserialize_keras_object"],
       "keras.preprocessing.sequence": ["pad_sequences"]}
