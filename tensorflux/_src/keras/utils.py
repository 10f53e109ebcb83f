"""`keras.utils`: seeding every random source at once, one-hot encoding of class labels, row
normalisation, padding of sequences to one length, and datasets of sliding windows over a series."""
import random

import numpy as np

import tensorflux as tf


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


API = {"keras.utils": ["set_random_seed", "to_categorical", "normalize", "pad_sequences",
                       "timeseries_dataset_from_array"],
       "keras.preprocessing.sequence": ["pad_sequences"]}
