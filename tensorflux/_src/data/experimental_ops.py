"""`tf.data.experimental` transformations and helpers: the `dataset.apply(...)` functions TensorFlow keeps
under experimental names (take_while, group_by_window, group_by_reducer, bucket_by_sequence_length,
assert_cardinality, pad_to_cardinality, enumerate_dataset, map_and_batch, …), `from_list`, `at`,
`get_structure`, `Optional`, `SqlDataset` (SQLite) and `TFRecordWriter`.

Transformations that regroup elements run as Python generators over the input's elements (see
docs/architecture.md, "A dataset transform"); their element spec is found before data flows by calling the
user's function once on a stand-in window.
"""
import enum

import numpy as np

from ..framework import nest
from ..framework.errors import FailedPreconditionError, InvalidArgumentError
from ..framework.tensor import EagerTensor, Tensor
from ..function.polymorphic import Function
from ..io import records as _records
from ..ops import convert as _convert
from ..types import dtypes as _dt
from ..types.spec import TensorSpec
from .dataset import Dataset, DatasetSpec, Optional, pack_element, stack_components, trace_arguments
from .graph_values import with_bound_captures
from .traced_functions import DatasetFunction

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


def _key_of(key_func, element):
    key = key_func(*element) if isinstance(element, tuple) else key_func(element)
    return int(np.asarray(key))


def _int64_scalar_function(func, arguments, what):
    """`func` traced once for `arguments` (specs, or stand-ins for dataset components), checked to return one
    int64 scalar as TensorFlow checks `key_func` (an int32 result fails its conversion to int64)."""
    concrete = Function(func, name=what).get_concrete_function(*arguments)
    out = concrete.structured_outputs
    if isinstance(out, (tuple, list)) and out and all(isinstance(t, Tensor) for t in out):
        spec = TensorSpec([len(out)], out[0].dtype)        # TensorFlow packs a returned sequence into one tensor
    elif isinstance(out, Tensor):
        if out.dtype != _dt.int64:
            raise ValueError(f"Tensor conversion requested dtype int64 for Tensor with dtype {out.dtype.name}: "
                             f"{out!r}")
        spec = TensorSpec(out.shape, out.dtype)
    else:
        spec = out
    if spec != TensorSpec([], _dt.int64):
        raise ValueError(f"Invalid `{what}`. `{what}` must return a single `tf.int64` scalar tensor but its return "
                         f"type is {spec}.")
    return with_bound_captures(concrete)


def group_by_window(key_func, reduce_func, window_size=None, window_size_func=None, *, traced=True):
    """Groups elements by the int64 `key_func(element)` into windows of `window_size` (or
    `window_size_func(key)`), and yields the elements of `reduce_func(key, window_dataset)` for each
    full window, then for the windows left over at the end (in ascending key order, as TensorFlow).
    The three functions are traced once, as TensorFlow does (`traced=False`: called per element, for this
    module's own bucketing, whose functions are Python)."""
    if (window_size is None) == (window_size_func is None):
        raise ValueError("Either the `window_size` argument or the `window_size_func` argument must be specified.")
    if not traced:
        return _eager_group_by_window(key_func, reduce_func, window_size, window_size_func)

    def apply(dataset):
        spec = dataset.element_spec
        structured = isinstance(spec, tuple)
        arguments = trace_arguments(spec)
        key_of = _int64_scalar_function(key_func, arguments if structured else (arguments,), "key_func")
        size_of = None if window_size_func is None else \
            _int64_scalar_function(window_size_func, (TensorSpec([], _dt.int64),), "window_size_func")
        reducer = DatasetFunction(reduce_func, (TensorSpec([], _dt.int64), DatasetSpec(spec)), "reduce_func",
                                  what="reduce_func")

        def reduced(key, window):
            rows = list(window)
            dataset_of_window = Dataset(spec, lambda: iter(rows), "_VariantDataset", len(rows))
            return reducer.dataset_for((EagerTensor(np.int64(key)), dataset_of_window))._arrays()

        def arrays():
            windows, sizes = {}, {}
            for flat in dataset._arrays():
                element = pack_element(spec, flat)
                key = int(np.asarray(key_of(*element) if structured else key_of(element)))
                if key not in sizes:
                    sizes[key] = int(window_size) if size_of is None else int(np.asarray(size_of(EagerTensor(
                        np.int64(key)))))
                window = windows.setdefault(key, [])
                window.append(flat)
                if len(window) >= sizes[key]:
                    del windows[key]
                    yield from reduced(key, window)
            for key, window in sorted(windows.items()):   # TensorFlow flushes its groups in key order
                yield from reduced(key, window)

        return Dataset(reducer.element_spec, arrays, "_GroupByWindowDataset")
    return apply


def _eager_group_by_window(key_func, reduce_func, window_size, window_size_func):
    def size_of(key):
        return int(np.asarray(window_size_func(key))) if window_size_func is not None else int(window_size)

    def apply(dataset):
        def reduced(key, window):
            return reduce_func(_convert.constant(np.int64(key)), Dataset.from_tensor_slices(_stacked(window)))

        probe = next(iter(dataset), None)
        spec = reduced(0, [probe]).element_spec if probe is not None else dataset.element_spec

        def elements():
            windows = {}
            for element in dataset:
                key = _key_of(key_func, element)
                window = windows.setdefault(key, [])
                window.append(element)
                if len(window) >= size_of(key):
                    del windows[key]
                    yield from reduced(key, window)
            for key, window in sorted(windows.items()):   # TensorFlow flushes its groups in key order
                yield from reduced(key, window)
        return _from_elements(elements, spec)
    return apply


def bucket_by_sequence_length(element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes=None,
                              padding_values=None, pad_to_bucket_boundary=False, no_padding=False,
                              drop_remainder=False):
    """Batches elements of similar length together: bucket i holds lengths in [boundaries[i-1], boundaries[i])
    and is padded-batched by bucket_batch_sizes[i] (plain batches with `no_padding`)."""
    boundaries = [int(b) for b in bucket_boundaries]
    if len(bucket_batch_sizes) != len(boundaries) + 1:
        raise ValueError(f"`len(bucket_batch_sizes)` must equal `len(bucket_boundaries) + 1` but "
                         f"`len(bucket_batch_sizes)={len(bucket_batch_sizes)}` and "
                         f"`len(bucket_boundaries)={len(boundaries)}`.")

    def bucket(*element):
        length = int(np.asarray(element_length_func(*element)))
        return int(np.searchsorted(boundaries, length, side="right"))

    def batch(key, window):
        size = bucket_batch_sizes[int(np.asarray(key))]
        if no_padding:
            return window.batch(size, drop_remainder)
        shapes = padded_shapes
        if pad_to_bucket_boundary:
            limit = boundaries[int(np.asarray(key))] - 1 if int(np.asarray(key)) < len(boundaries) else None
            shapes = nest.map_structure(lambda s: [limit] + list(s.shape[1:]), window.element_spec) \
                if padded_shapes is None else padded_shapes
        return window.padded_batch(size, shapes, padding_values, drop_remainder)

    def apply(dataset):
        def sizes(key):
            return bucket_batch_sizes[int(np.asarray(key))]
        return group_by_window(lambda *e: bucket(*e), batch, window_size_func=sizes, traced=False)(dataset)
    return apply


class Reducer:
    """How `group_by_reducer` folds the elements of one key: init_func(key) -> state,
    reduce_func(state, element) -> state, finalize_func(state) -> output."""

    def __init__(self, init_func, reduce_func, finalize_func):
        self.init_func, self.reduce_func, self.finalize_func = init_func, reduce_func, finalize_func


def group_by_reducer(key_func, reducer):
    """One element per key: the finalized fold of all the elements with that key (keys in first-seen order)."""
    def apply(dataset):
        states = {}
        for element in dataset:
            key = _key_of(key_func, element)
            if key not in states:
                states[key] = reducer.init_func(_convert.constant(np.int64(key)))
            states[key] = reducer.reduce_func(states[key], *element) if isinstance(element, tuple) else \
                reducer.reduce_func(states[key], element)
        outputs = [reducer.finalize_func(state) for state in states.values()]
        if not outputs:
            raise InvalidArgumentError(None, None, "group_by_reducer found no elements to reduce.")
        return Dataset.from_tensor_slices(_stacked(outputs))
    return apply


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


def _group_by_window(self, key_func, reduce_func, window_size=None, window_size_func=None, name=None):
    return group_by_window(key_func, reduce_func, window_size, window_size_func)(self)


def _bucket_by_sequence_length(self, element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes=None,
                               padding_values=None, pad_to_bucket_boundary=False, no_padding=False,
                               drop_remainder=False, name=None):
    return bucket_by_sequence_length(element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes,
                                     padding_values, pad_to_bucket_boundary, no_padding, drop_remainder)(self)


# The Dataset methods TensorFlow 2.21 has for these transformations (attached as methods.py attaches its own).
Dataset.apply = _apply
Dataset.take_while = _take_while
Dataset.group_by_window = _group_by_window
Dataset.bucket_by_sequence_length = _bucket_by_sequence_length

API = {"data.experimental": [
    "SHARD_HINT", "AutotuneAlgorithm", "ExternalStatePolicy", "enable_debug_mode", "cardinality", "get_structure",
    "enumerate_dataset", "unique", "unbatch", "scan", "shuffle_and_repeat", "map_and_batch", "parallel_interleave",
    "rejection_resample", "copy_to_device", "prefetch_to_device", "take_while", "assert_cardinality", "from_list",
    "at", "group_by_window", "bucket_by_sequence_length", "Reducer", "group_by_reducer", "pad_to_cardinality",
    "Optional", "get_next_as_optional", "SqlDataset", "TFRecordWriter"]}
