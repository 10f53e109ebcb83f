"""What `Model.fit/evaluate/predict` loop over: batches of data and a progress line.

Arrays (NumPy, tensors, lists; possibly nested) are converted to NumPy once, floats to float32; each epoch
shuffles them with one permutation and slices contiguous batches. A `tf.data.Dataset` is iterated as is,
its elements being `x`, `(x, y)` or `(x, y, sample_weight)`.
"""
import math
import sys
import time
import warnings

import numpy as np

import tensorflux as tf

from .. import py_dataset as _py_dataset


def _as_array(leaf):
    array = np.asarray(leaf)
    if array.dtype.kind == "f" and array.dtype != np.float32:
        array = array.astype(np.float32)
    return array


class ArrayBatches:
    """Batches of in-memory arrays `(x, y, sample_weight)` (y and sample_weight may be None)."""

    def __init__(self, x, y=None, sample_weight=None, batch_size=None, shuffle=False):
        self._parts = (x, y, sample_weight)
        self._arrays = [_as_array(leaf) for part in self._parts if part is not None
                        for leaf in tf.nest.flatten(part)]
        sizes = {len(a) if a.ndim else None for a in self._arrays}
        if None in sizes:
            raise ValueError("Expected all elements of `x` and `y` to be arrays with a leading batch dimension; "
                             "received a scalar.")
        if len(sizes) > 1:
            lines = [f"'{name}' sizes: {', '.join(str(len(a)) for a in self._leaves_of(i))}"
                     for i, name in enumerate(("x", "y", "sample_weight")) if self._parts[i] is not None]
            raise ValueError("Data cardinality is ambiguous. Make sure all arrays contain the same number of "
                             "samples." + "\n".join(lines))
        # The common case (single arrays, no sample_weight or all three) is repacked without walking nests.
        self._plain = not any(tf.nest.is_nested(p) for p in self._parts) and \
            [p is not None for p in self._parts] in ([True, False, False], [True, True, False], [True, True, True])
        self.size = sizes.pop() if sizes else 0
        self.batch_size = batch_size or 32
        self.shuffle = shuffle
        self.permutation = np.random.permutation   # replaced by one order shared by all workers under a strategy
        self.steps = math.ceil(self.size / self.batch_size)

    def _leaves_of(self, index):
        start = sum(len(tf.nest.flatten(p)) for p in self._parts[:index] if p is not None)
        return self._arrays[start:start + len(tf.nest.flatten(self._parts[index]))]

    def split(self, validation_split):
        """(training part, validation part): the last `validation_split` of the samples are held out."""
        cut = int(self.size * (1.0 - validation_split))
        train = ArrayBatches(*self._repack([a[:cut] for a in self._arrays]), batch_size=self.batch_size,
                             shuffle=self.shuffle)
        held_out = ArrayBatches(*self._repack([a[cut:] for a in self._arrays]), batch_size=self.batch_size)
        return train, held_out

    def _repack(self, leaves):
        if self._plain:
            return leaves + [None] * (3 - len(leaves))  # x, y, sample_weight are single arrays, in order
        parts, cursor = [], 0
        for part in self._parts:
            if part is None:
                parts.append(None)
                continue
            count = len(tf.nest.flatten(part))
            parts.append(tf.nest.pack_sequence_as(part, leaves[cursor:cursor + count]))
            cursor += count
        return parts

    @property
    def batch_size_known(self):
        """Whether every batch has the same size (no partial last batch): Keras' array adapter then gives
        its steps a static batch dimension, else an unknown one."""
        return self.size % self.batch_size == 0

    def __iter__(self):
        arrays = self._arrays
        if self.shuffle:
            order = self.permutation(self.size)
            arrays = [a[order] for a in arrays]
        for start in range(0, self.size, self.batch_size):
            stop = start + self.batch_size
            yield self._repack([tf.constant(a[start:stop]) for a in arrays])


class DatasetBatches:
    """Batches from a `tf.data.Dataset` (already batched by the user)."""

    class_weight = None     # fit(class_weight=...): each batch's sample weights come from its targets

    def __init__(self, dataset):
        self._dataset = dataset
        cardinality = int(dataset.cardinality()) if hasattr(dataset, "cardinality") else -2
        self.steps = cardinality if cardinality >= 0 else None  # -1 infinite, -2 unknown

    @property
    def batch_size_known(self):
        spec = getattr(self._dataset, "element_spec", None)
        shapes = [getattr(s, "shape", None) for s in tf.nest.flatten(spec)] if spec is not None else [None]
        return all(s is not None and s.rank and s[0] is not None for s in shapes)

    def __iter__(self):
        count = 0
        for element in self._dataset:
            count += 1
            batch = unpack_x_y_sample_weight(element)
            if self.class_weight is not None:
                batch[2] = tf.constant(class_sample_weights(batch[1], self.class_weight))
            yield batch
        self.steps = count


class PyDatasetBatches:
    """The batches of a `keras.utils.PyDataset`: batch 0 … len-1 each epoch (a random order with `shuffle`),
    between its on_epoch_begin/on_epoch_end hooks; NumPy floats become float32 tensors, as for arrays."""

    batch_size_known = False   # Keras feeds a PyDataset through a generator of unknown batch size

    def __init__(self, dataset, shuffle=False):
        self._dataset, self._shuffle = dataset, shuffle
        self.steps = dataset.num_batches

    def __iter__(self):
        self._dataset.on_epoch_begin()
        count = len(self._dataset)
        for index in (np.random.permutation(count) if self._shuffle else range(count)):
            batch = unpack_x_y_sample_weight(self._dataset[int(index)])
            yield [None if part is None else tf.nest.map_structure(lambda a: tf.constant(_as_array(a)), part)
                   for part in batch]
        self._dataset.on_epoch_end()


def trace_for_batch(function, batch, batch_size_known):
    """Traces the step `function` for `batch` as Keras traces it, for the element spec of its data
    iterator: a dimension-0 of unknown size unless every batch has the same size. One trace then serves
    every batch of the data (a partial last batch does not retrace), and the step sees the static shapes
    Keras' step sees (`x.shape[0]` None; the per-output loss trackers count each batch once)."""
    if batch_size_known or not hasattr(function, "get_concrete_function"):
        return

    def spec(value):
        if isinstance(value, tf.Tensor) and value.shape.rank:
            return tf.TensorSpec([None] + value.shape.as_list()[1:], value.dtype)
        return value
    function.get_concrete_function(*[None if part is None else tf.nest.map_structure(spec, part)
                                     for part in batch])


def unpack_x_y_sample_weight(data):
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple):
        return [data, None, None]
    if len(data) == 1:
        return [data[0], None, None]
    if len(data) == 2:
        return [data[0], data[1], None]
    if len(data) == 3:
        return list(data)
    raise ValueError(f"Data is expected to be in format `x`, `(x,)`, `(x, y)`, or `(x, y, sample_weight)`, "
                     f"found: {data}")


def batches_for(x, y=None, sample_weight=None, batch_size=None, shuffle=False, class_weight=None):
    if class_weight is not None and sample_weight is not None:
        raise ValueError("You cannot `class_weight` and `sample_weight` at the same time.")
    if isinstance(x, tf.data.Dataset):
        if y is not None:
            raise ValueError("When providing `x` as a tf.data.Dataset, `y` should not be passed. Instead, the "
                             "targets should be included as part of the tf.data.Dataset.")
        batches = DatasetBatches(x)
        if class_weight is not None:
            batches.class_weight = class_weight
        return batches
    if isinstance(x, _py_dataset.PyDataset):
        if y is not None:
            raise ValueError("When providing `x` as a PyDataset, `y` should not be passed. Instead, the targets "
                             "should be included as part of the PyDataset.")
        return PyDatasetBatches(x, shuffle)
    if x is None:
        raise ValueError("Unrecognized data type: x=None")
    if class_weight is not None:
        sample_weight = class_sample_weights(y, class_weight)
    return ArrayBatches(x, y, sample_weight, batch_size, shuffle)


def class_sample_weights(y, class_weight):
    """Each sample's weight under `fit(class_weight=...)`: the weight of its class (the target itself, or
    its argmax for one-hot targets); classes the dict does not name weigh 1, as Keras' lookup table has it."""
    if tf.nest.is_nested(y) and not isinstance(y, np.ndarray):
        raise ValueError("`class_weight` is only supported for Models with a single output.")
    labels = np.asarray(y)
    if labels.ndim > 1 and labels.shape[-1] > 1:
        labels = np.argmax(labels, axis=-1)
    elif labels.ndim > 1:
        labels = labels.reshape(labels.shape[0])
    labels = labels.astype(np.int64)
    table = np.ones(max(int(labels.max(initial=0)), max(class_weight, default=0)) + 1, np.float32)
    for cls, weight in class_weight.items():
        table[int(cls)] = weight
    return table[labels]


class EpochIterator:
    """The batches of each epoch of `fit`. Without `steps_per_epoch` every epoch runs through the data
    afresh. With it, as in Keras 3, one iterator continues from epoch to epoch (epoch 2 starts where epoch 1
    stopped) and starts over only once a dataset of known size has given all its batches; data running out
    within an epoch warns and ends that epoch."""

    def __init__(self, data, steps_per_epoch):
        self._data, self._steps = data, steps_per_epoch
        self._iterator, self._seen = None, 0

    def epoch(self):
        if not self._steps:
            return self._data
        return self._continued()

    def _continued(self):
        known = self._data.steps
        if self._iterator is None:
            self._iterator, self._seen = iter(self._data), 0
        for _ in range(self._steps):
            if known and self._seen >= known:
                _ran_out()
                break
            try:
                batch = next(self._iterator)
            except StopIteration:
                _ran_out()
                self._iterator = None
                return
            self._seen += 1
            yield batch
        if known and self._seen >= known:
            self._iterator = None


def _ran_out():
    warnings.warn("Your input ran out of data; interrupting training. Make sure that your dataset or generator "
                  "can generate at least `steps_per_epoch * epochs` batches. You may need to use the `.repeat()` "
                  "function when building your dataset.", stacklevel=4)


def log_values(logs):
    """A step's results by name, sorted: Python floats, or arrays for vector-valued metrics (e.g.
    Precision at several thresholds), as Keras logs them."""
    values = {}
    for name in sorted(logs):
        if isinstance(logs[name], dict):    # a dict result (compile_metrics) is flattened in its place
            values.update(log_values(logs[name]))
            continue
        value = np.asarray(logs[name])
        values[name] = float(value) if value.ndim == 0 else value
    return values


def format_logs(logs):
    """` - loss: 0.1234 - mae: 0.0001e+00`, as Keras's progress bar shows values."""
    parts = []
    for name, value in logs.items():
        if isinstance(value, np.ndarray):
            parts.append(f" - {name}: {np.array2string(value, precision=4)}")
        else:
            parts.append(f" - {name}: {value:.4f}" if abs(value) > 1e-3 else f" - {name}: {value:.4e}")
    return "".join(parts)


def _time_per_step(seconds):
    if seconds >= 1:
        return f"{seconds:.0f}s/step"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.0f}ms/step"
    return f"{seconds * 1e6:.0f}us/step"


def progress_line(verbose, steps, elapsed, logs):
    """The line printed when an epoch (or evaluate/predict) finishes."""
    per_step = _time_per_step(elapsed / max(steps, 1))
    if verbose == 2:
        return f"{steps}/{steps} - {elapsed:.0f}s - {per_step}{format_logs(logs)}"
    return f"{steps}/{steps} {'━' * 20} {elapsed:.0f}s {per_step}{format_logs(logs)}"


def resolve_verbose(verbose):
    return 1 if verbose == "auto" else int(verbose)


class Timer:
    def __init__(self):
        self.start = time.perf_counter()

    def elapsed(self):
        return time.perf_counter() - self.start


def emit(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()
