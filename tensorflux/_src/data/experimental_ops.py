"""`tf.data.experimental` transformations and helpers: the `dataset.apply(...)` functions TensorFlow keeps
under experimental names (take_while, assert_cardinality, pad_to_cardinality, enumerate_dataset,
map_and_batch, …), `from_list`, `at`, `get_structure`, `Optional`, `SqlDataset` (SQLite) and
`TFRecordWriter`. The grouping transformations (group_by_window, bucket_by_sequence_length,
group_by_reducer) are in grouping.py.

These transformations run as Python generators over the input's elements (see docs/architecture.md, "A
dataset transform").
"""
import enum

import numpy as np

from ..framework import nest
from ..framework.errors import FailedPreconditionError, InvalidArgumentError
from ..io import records as _records
from ..types import dtypes as _dt
from ..types.spec import TensorSpec
from .dataset import Optional  # noqa: F401  (re-exported as tf.data.experimental.Optional)
from .dataset import Dataset, stack_components

SHARD_HINT = -1   # "use the worker's index as the shard": a placeholder for AutoShardPolicy.HINT


class AutotuneAlgorithm(enum.Enum):
    DEFAULT = 0
    HILL_CLIMB = 1
    GRADIENT_DESCENT = 2
    MAX_PARALLELISM = 3
    STAGE_BASED = 4


class ExternalStatePolicy(enum.Enum):
    WARN = 0
    IGNORE = 1
    FAIL = 2


_DEBUG_MODE = {"enabled": False}


def enable_debug_mode():
    """Asks tf.data to run its functions eagerly: tensorflux's pipelines already call them in Python, so
    this records the request (tf.data's debug mode) and changes nothing else."""
    _DEBUG_MODE["enabled"] = True


def _from_elements(make_iterator, element_spec):
    """A dataset whose elements come from the Python iterator `make_iterator()` returns (as arrays, the form
    from_generator stores)."""
    def arrays():
        for element in make_iterator():
            yield nest.map_structure(np.asarray, element)
    return Dataset.from_generator(arrays, output_signature=element_spec)


def cardinality(dataset):
    return dataset.cardinality()


def get_structure(dataset_or_iterator):
    return dataset_or_iterator.element_spec


def enumerate_dataset(start=0):
    return lambda dataset: dataset.enumerate(start)


def unique():
    return lambda dataset: dataset.unique()


def unbatch():
    return lambda dataset: dataset.unbatch()


def scan(initial_state, scan_func):
    return lambda dataset: dataset.scan(initial_state, scan_func)


def shuffle_and_repeat(buffer_size, count=None, seed=None):
    return lambda dataset: dataset.shuffle(buffer_size, seed).repeat(count)


def map_and_batch(map_func, batch_size, num_parallel_batches=None, drop_remainder=False, num_parallel_calls=None):
    return lambda dataset: dataset.map(map_func).batch(batch_size, drop_remainder)


def parallel_interleave(map_func, cycle_length, block_length=1, sloppy=False, buffer_output_elements=None,
                        prefetch_input_elements=None):
    return lambda dataset: dataset.interleave(map_func, cycle_length, block_length)


def rejection_resample(class_func, target_dist, initial_dist=None, seed=None):
    return lambda dataset: dataset.rejection_resample(class_func, target_dist, initial_dist, seed)


def copy_to_device(target_device, source_device="/cpu:0"):
    """Moves elements to `target_device`: every tensor lives on the CPU here, so the elements pass as they are."""
    return lambda dataset: dataset


def prefetch_to_device(device, buffer_size=None):
    """Prefetches elements onto `device` (the CPU here: a plain prefetch)."""
    return lambda dataset: dataset.prefetch(buffer_size if buffer_size is not None else -1)


def take_while(predicate):
    """The elements up to (not including) the first for which `predicate` is False."""
    def apply(dataset):
        def elements():
            for element in dataset:
                keep = predicate(*element) if isinstance(element, tuple) else predicate(element)
                if not bool(np.asarray(keep)):
                    return
                yield element
        return _from_elements(elements, dataset.element_spec)
    return apply


def assert_cardinality(expected_cardinality):
    """The elements, failing with FailedPreconditionError once their count differs from the expected one."""
    expected = int(np.asarray(expected_cardinality))

    def apply(dataset):
        def elements():
            count = 0
            for element in dataset:
                count += 1
                if count > expected:
                    raise FailedPreconditionError(None, None, f"Input dataset was expected to contain {expected} "
                                                              f"elements but contained at least {count} elements.")
                yield element
            if count < expected:
                raise FailedPreconditionError(None, None, f"Input dataset was expected to contain {expected} "
                                                          f"elements but contained only {count} elements.")
        return _from_elements(elements, dataset.element_spec)
    return apply


def _stacked(elements):
    """A list of elements (one structure) as one structure of stacked arrays."""
    flat = [nest.flatten(e) for e in elements]
    columns = [stack_components([np.asarray(row[i]) for row in flat]) for i in range(len(flat[0]))]
    return nest.pack_sequence_as(elements[0], columns)


def from_list(elements):
    """A dataset whose elements are the items of `elements` (each a structure of tensor-like values)."""
    if not elements:
        raise ValueError("Invalid `elements`. `elements` should not be empty.")
    return Dataset.from_tensor_slices(_stacked(list(elements)))


def at(dataset, index):
    """The element at position `index`."""
    index = int(np.asarray(index))
    if index < 0:
        raise InvalidArgumentError(None, None, f"Index must be non-negative, but got {index}.")
    return dataset.skip(index).take(1).get_single_element()


def pad_to_cardinality(cardinality, mask_key="valid"):
    """Pads a dataset of dicts with zero-valued elements up to `cardinality`, adding a boolean `mask_key`
    entry that is True for the original elements."""
    def apply(dataset):
        count = int(np.asarray(dataset.cardinality()))
        if count < 0:
            raise ValueError("The dataset passed into `pad_to_cardinality` must have a known cardinality.")
        if count > cardinality:
            raise ValueError(f"The dataset passed into `pad_to_cardinality` must have a cardinality less than the "
                             f"target cardinality ({cardinality}), but has {count} elements.")
        spec = dataset.element_spec
        if not isinstance(spec, dict):
            raise ValueError(f"`pad_to_cardinality` requires its input dataset to be a dictionary, got {spec}.")
        padded = dict(spec, **{mask_key: TensorSpec([], _dt.bool)})
        filler = {k: np.zeros(s.shape.as_list(), s.dtype.as_numpy_dtype) for k, s in spec.items()}

        def elements():
            for element in dataset:
                yield dict(element, **{mask_key: True})
            for _ in range(cardinality - count):
                yield dict(filler, **{mask_key: False})
        return _from_elements(elements, padded)
    return apply


def get_next_as_optional(iterator):
    """The iterator's next element as an Optional (empty at the end)."""
    return iterator.get_next_as_optional()


class SqlDataset(Dataset):
    """The rows a SQL query returns (SQLite through Python's sqlite3), one tuple per row, typed by `output_types`."""

    def __new__(cls, driver_name, data_source_name, query, output_types):
        if driver_name != "sqlite":
            raise InvalidArgumentError(None, None, f"The database type, {driver_name}, is not supported by "
                                                   f"SqlDataset. The set of supported databases is: {{'sqlite'}}.")
        types = tuple(nest.flatten(output_types))
        spec = tuple(TensorSpec([], _dt.as_dtype(t)) for t in types)

        def rows():
            import sqlite3  # on first use: `import tensorflux` does not pay for the sqlite3 extension
            connection = sqlite3.connect(f"file:{data_source_name}?mode=ro", uri=True)
            try:
                for row in connection.execute(query):
                    if len(row) != len(types):
                        raise InvalidArgumentError(None, None, f"The number of columns in query ({len(row)}) "
                                                               f"must match the number of elements in output_types "
                                                               f"({len(types)}).")
                    yield tuple(_column(value, t) for value, t in zip(row, spec))
            finally:
                connection.close()
        return _from_elements(rows, spec)


def _column(value, spec):
    if spec.dtype == _dt.string:
        return value if isinstance(value, bytes) else str(value).encode()
    return np.asarray(value, spec.dtype.as_numpy_dtype)


class TFRecordWriter:
    """Writes a dataset of scalar strings to a TFRecord file: `TFRecordWriter(path).write(dataset)`."""

    def __init__(self, filename, compression_type=None):
        self._filename, self._compression = filename, compression_type

    def write(self, dataset):
        spec = dataset.element_spec
        if not isinstance(spec, TensorSpec) or spec.dtype != _dt.string or spec.shape.rank != 0:
            raise TypeError(f"`dataset` must produce scalar `DT_STRING` tensors whereas it produces shape "
                            f"{spec.shape if isinstance(spec, TensorSpec) else spec} and types {spec}")
        options = _records.TFRecordOptions(compression_type=self._compression) if self._compression else None
        with _records.TFRecordWriter(self._filename, options) as writer:
            for record in dataset:
                writer.write(record.numpy())


def _apply(self, transformation_func):
    """`transformation_func(self)`, which must return a Dataset (tf.data.Dataset.apply)."""
    dataset = transformation_func(self)
    if not isinstance(dataset, Dataset):
        raise TypeError(f"`transformation_func` must return a `tf.data.Dataset` object. Got {type(dataset)}.")
    return dataset


def _take_while(self, predicate, name=None):
    return take_while(predicate)(self)


# The Dataset methods TensorFlow 2.21 has for these transformations (attached as methods.py attaches its own).
Dataset.apply = _apply
Dataset.take_while = _take_while

API = {"data.experimental": [
    "SHARD_HINT", "AutotuneAlgorithm", "ExternalStatePolicy", "enable_debug_mode", "cardinality", "get_structure",
    "enumerate_dataset", "unique", "unbatch", "scan", "shuffle_and_repeat", "map_and_batch", "parallel_interleave",
    "rejection_resample", "copy_to_device", "prefetch_to_device", "take_while", "assert_cardinality", "from_list",
    "at", "pad_to_cardinality",
    "Optional", "get_next_as_optional", "SqlDataset", "TFRecordWriter"]}
