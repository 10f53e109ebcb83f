"""The `tf.data.Dataset` transformations built on the core of `dataset.py`: padded_batch, unbatch,
flat_map, interleave, concatenate, window, scan, unique, cache and get_single_element.

Each function takes the input dataset and returns a new `Dataset` (the methods of `Dataset` call
them), with TensorFlow's element spec and cardinality. Like the core transformations, they run on
flat lists of NumPy arrays; the elements of `window` hold datasets in place of arrays.

`flat_map` and `interleave` trace the user's function once, as TensorFlow does (traced_functions.py):
for each input element the traced graph runs and the dataset recipe the function returned is bound to
that run's values.
"""
import itertools
import os

import numpy as np

from ..framework import nest
from ..framework.context import state as _state
from ..framework.errors import DataLossError, InvalidArgumentError, eager_error
from ..framework.tensor import EagerTensor, Tensor
from ..function.polymorphic import Function
from ..ops import convert as _convert
from ..ops.registry import OpDef, apply, constant_value
from ..types import dtypes as _dt
from ..types.shape import TensorShape
from ..types.spec import TensorSpec
from .dataset import Dataset, DatasetSpec, check_callable, flatten_up_to, pack_element
from .arguments import run_time_count
from .graph_values import deferred, is_symbolic, with_bound_captures
from .sharding import shard_file_names
from .traced_functions import DatasetFunction, trace_state_function, traced_reduce

AUTOTUNE = -1   # `tf.data.AUTOTUNE`: let the runtime choose (here: the number of available CPUs)


def _spec_of(tensor):
    return TensorSpec(tensor.shape, tensor.dtype)


def _dtype_text(dtype):
    return f"<dtype: '{dtype.name}'>"   # how TensorFlow's messages print a dtype


def _available_cpus():
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


def _batched_count(count, batch_size, drop_remainder):
    if count < 0:
        return count
    return count // batch_size if drop_remainder else -(-count // batch_size)


# -- padded_batch ------------------------------------------------------------------------------------
def _as_padded_shape(value):
    """A padded shape: a TensorShape, list or 1-D tensor, where None or -1 means "the longest in the batch"."""
    if isinstance(value, Tensor):
        value = value.numpy().tolist()
    if isinstance(value, (list, tuple)):
        return TensorShape([None if d is None or d < 0 else int(d) for d in value])
    return TensorShape(value)


def _symbolic_padded_shape(value):
    """A padded shape holding symbolic tensors (a function being traced) -> (its static shape, where those
    dimensions are unknown, and a function giving the whole shape when the dataset runs), or None."""
    if is_symbolic(value):
        known = constant_value(value)
        if known is not None:
            return None
        later = deferred([value])
        rank = value.shape[0] if value.shape.rank == 1 else None
        return TensorShape(None if rank is None else [None] * rank), lambda: _as_padded_shape(list(later()[0]))
    if not isinstance(value, (list, tuple)) or not any(is_symbolic(d) for d in value):
        return None
    later = deferred([-1 if d is None else d for d in value])
    static = [None if is_symbolic(d) else d for d in value]
    return _as_padded_shape([-1 if d is None else d for d in static]), \
        lambda: _as_padded_shape([int(d) for d in later()])


def _padding_value(value, spec):
    if value is None:
        return b"" if spec.dtype == _dt.string else np.zeros((), spec.dtype.as_numpy_dtype)
    tensor = value if isinstance(value, Tensor) else _convert.convert_to_tensor(value)
    if tensor.dtype != spec.dtype:
        raise TypeError(f"Invalid `padding_values`. `padding_values` values type {_dtype_text(tensor.dtype)} does "
                        f"not match type {_dtype_text(spec.dtype)} of the corresponding input component.")
    if tensor.shape.rank != 0:
        raise ValueError(f"Invalid `padding_values`. `padding_values` values must be scalars, but got a value of "
                         f"shape {tensor.shape}.")
    if is_symbolic(tensor):     # a function being traced: a graph constant, or the value when the dataset runs
        known = constant_value(tensor)
        if known is None:
            later = deferred([tensor])
            return lambda: later()[0][()]
        return np.asarray(known)[()]
    return np.asarray(tensor)[()]


def _pad_and_stack(parts, padded_shape, value):
    dims = [d if d is not None else max(p.shape[i] for p in parts) for i, d in enumerate(padded_shape.as_list())]
    out = np.full([len(parts)] + dims, value, dtype=np.asarray(parts[0]).dtype)
    for row, part in enumerate(parts):
        if np.ndim(part) != len(dims) or any(s > d for s, d in zip(np.shape(part), dims)):
            raise DataLossError(None, None, "Attempted to pad to a smaller size than the input element.")
        out[(row,) + tuple(slice(0, s) for s in np.shape(part))] = part
    return out


def padded_batch(dataset, batch_size, padded_shapes, padding_values, drop_remainder):
    """Batches of `batch_size` elements padded to `padded_shapes`; symbolic sizes and shapes (a function being
    traced) are read when the dataset runs."""
    batch_size, current_size = run_time_count(batch_size, "batch_size", "PaddedBatchDatasetV2", lambda n: None
                                              if n > 0 else "Batch size must be greater than zero.")
    structure = dataset.element_spec
    specs = nest.flatten(structure)
    if padded_shapes is None:
        for i, spec in enumerate(specs):
            if spec.shape.rank is None:
                raise ValueError(f"You must provide `padded_shapes` argument because component {i} has unknown "
                                 f"rank.")
        shapes = [spec.shape for spec in specs]
        run_time_shapes = [None] * len(specs)
    else:
        given = flatten_up_to(structure, padded_shapes, "padded_shapes")
        symbolic = [_symbolic_padded_shape(s) for s in given]
        shapes = [_as_padded_shape(s) if later is None else later[0] for s, later in zip(given, symbolic)]
        run_time_shapes = [None if later is None else later[1] for later in symbolic]
        for shape, spec in zip(shapes, specs):
            if not shape.is_compatible_with(spec.shape):
                raise ValueError(f"The padded shape {shape} is not compatible with the shape {spec.shape} of the "
                                 f"corresponding input component.")
    if padding_values is None or not nest.is_nested(padding_values):
        padding_values = [padding_values] * len(specs)   # one value (or the default) for every component
    else:
        padding_values = flatten_up_to(structure, padding_values, "padding_values")
    values = [_padding_value(v, spec) for v, spec in zip(padding_values, specs)]
    batch_dim = TensorShape([batch_size if drop_remainder else None])
    out_spec = nest.pack_sequence_as(structure, [TensorSpec(batch_dim.concatenate(shape), spec.dtype)
                                                 for shape, spec in zip(shapes, specs)])

    def arrays():
        inputs, size = dataset._arrays(), current_size()
        padded = [shape if later is None else later() for shape, later in zip(shapes, run_time_shapes)]
        fillers = [value() if callable(value) else value for value in values]
        while True:
            chunk = list(itertools.islice(inputs, size))
            if not chunk or (drop_remainder and len(chunk) < size):
                return
            yield [_pad_and_stack(parts, shape, value) for parts, shape, value in zip(zip(*chunk), padded, fillers)]

    count = Dataset.UNKNOWN if batch_size is None and dataset._cardinality >= 0 else \
        _batched_count(dataset._cardinality, batch_size, drop_remainder)
    return Dataset(out_spec, arrays, "_PaddedBatchDataset", count)


# -- unbatch -----------------------------------------------------------------------------------------
def _without_leading_dim(shape):
    return shape if shape.rank is None else TensorShape(shape.as_list()[1:])


def unbatch(dataset):
    structure = dataset.element_spec
    specs = nest.flatten(structure)
    if any(spec.shape.rank == 0 for spec in specs):
        raise ValueError("Cannot unbatch an input with scalar components.")
    known = []
    for spec in specs:
        size = spec.shape.as_list()[0] if spec.shape.rank is not None else None
        if size is not None and size not in known:
            known.append(size)
    if len(known) > 1:
        raise ValueError(f"`unbatch()` is only supported for datasets of elements whose components have a matching "
                         f"leading dimension. Encountered both {known[0]} and {known[1]}.")
    out_spec = nest.pack_sequence_as(structure, [TensorSpec(_without_leading_dim(s.shape), s.dtype) for s in specs])

    def arrays():
        for flat in dataset._arrays():
            sizes = [len(a) for a in flat]
            for i, size in enumerate(sizes):
                if size != sizes[0]:
                    raise InvalidArgumentError(None, None, f"Input element must have the same batch size in each "
                                               f"component. Component 0 had size {sizes[0]} but component {i} had "
                                               f"size, {size}.")
            for row in range(sizes[0]):
                yield [a[row] for a in flat]

    count = dataset._cardinality
    if count == Dataset.INFINITE:
        total = Dataset.INFINITE
    elif count >= 0 and known:
        total = count * known[0]
    else:
        total = Dataset.UNKNOWN
    return Dataset(out_spec, arrays, "_UnbatchDataset", total)


# -- flat_map and interleave -------------------------------------------------------------------------
def _traced_map_func(dataset, map_func, name):
    """`map_func` traced once (as TensorFlow does), and the input whose elements it gets: when the function
    makes a file reader, TensorFlow's FILE auto-sharding shards this input (each worker keeps every N-th
    element: its own files, whatever dataset holds their names)."""
    function = DatasetFunction(map_func, dataset.element_spec, name)
    return function, (shard_file_names(dataset) if function.reads_files else dataset)


def flat_map(dataset, map_func):
    function, source = _traced_map_func(dataset, map_func, "flat_map_fn")
    input_spec = dataset.element_spec

    def arrays():
        for flat in source._arrays():
            yield from function.dataset_for(pack_element(input_spec, flat))._arrays()

    return Dataset(function.element_spec, arrays, "_FlatMapDataset")


def interleave(dataset, map_func, cycle_length, block_length, num_parallel_calls):
    """TensorFlow's order: `cycle_length` open datasets visited in turn, `block_length` elements from
    each; an exhausted one frees its place, which the next input element takes when the turn comes."""
    op_name = "InterleaveDataset" if num_parallel_calls is None else "ParallelInterleaveDatasetV4"
    cycle_length = _available_cpus() if cycle_length is None or cycle_length == AUTOTUNE else int(cycle_length)
    block_length = 1 if block_length is None else int(block_length)
    if cycle_length <= 0:
        raise eager_error(InvalidArgumentError, "cycle_length must be greater than zero.", op_name)
    if block_length <= 0:
        raise eager_error(InvalidArgumentError, "block_length must be greater than zero.", op_name)
    input_spec = dataset.element_spec
    function, source = _traced_map_func(dataset, map_func, "interleave_fn")

    def arrays():
        inputs = source._arrays()
        slots = [None] * cycle_length           # the open datasets' element iterators
        open_count, slot, taken, inputs_left = 0, 0, 0, True
        while inputs_left or open_count:
            if slots[slot] is None:
                flat = next(inputs, None) if inputs_left else None
                if flat is not None:
                    slots[slot] = function.dataset_for(pack_element(input_spec, flat))._arrays()
                    open_count += 1
                    continue
                inputs_left = False
                slot, taken = (slot + 1) % cycle_length, 0
                continue
            element = next(slots[slot], None)
            if element is None:
                slots[slot] = None
                open_count -= 1
                slot, taken = (slot + 1) % cycle_length, 0
                continue
            yield element
            taken += 1
            if taken == block_length:
                slot, taken = (slot + 1) % cycle_length, 0

    kind = "_InterleaveDataset" if num_parallel_calls is None else "_ParallelInterleaveDataset"
    return Dataset(function.element_spec, arrays, kind)


# -- concatenate -------------------------------------------------------------------------------------
def concatenate(dataset, other):
    first, second = dataset.element_spec, other.element_spec

    def incompatible():
        return TypeError(f"Incompatible dataset elements:\n  {first} vs.   {second}")

    try:
        nest.assert_same_structure(first, second)
    except (TypeError, ValueError):
        raise incompatible() from None
    specs = []
    for a, b in zip(nest.flatten(first), nest.flatten(second)):
        common = a.most_specific_common_supertype([b])
        if common is None:
            raise incompatible()
        specs.append(common)
    counts = (dataset._cardinality, other._cardinality)
    if Dataset.INFINITE in counts:
        total = Dataset.INFINITE
    elif Dataset.UNKNOWN in counts:
        total = Dataset.UNKNOWN
    else:
        total = sum(counts)
    return Dataset(nest.pack_sequence_as(first, specs), lambda: itertools.chain(dataset._arrays(), other._arrays()),
                   "_ConcatenateDataset", total)


# -- window ------------------------------------------------------------------------------------------
def _window_dataset(spec, values):
    return Dataset(spec, lambda: ([v] for v in values), "_VariantDataset", len(values))


def window(dataset, size, shift, stride, drop_remainder):
    """Windows of `size` elements `stride` apart, starting every `shift` elements; each element of the
    result is the input's structure with one dataset per component. Symbolic arguments (a function being
    traced) are read when the dataset runs."""
    shift = size if shift is None else shift
    counts = [run_time_count(value, what, "WindowDataset", lambda n, what=what: None if n > 0 else
                             f"Window {what} must be greater than zero.")
              for value, what in ((size, "size"), (shift, "shift"), (stride, "stride"))]
    structure = dataset.element_spec
    specs = nest.flatten(structure)

    def arrays():
        size, shift, stride = (current() for _, current in counts)
        span = (size - 1) * stride + 1    # input elements from a window's first to its last
        inputs = dataset._arrays()
        buffer = []
        while True:
            buffer.extend(itertools.islice(inputs, span - len(buffer)))
            rows = buffer[:span:stride]
            if not rows or (drop_remainder and len(rows) < size):
                return
            yield [_window_dataset(spec, [row[i] for row in rows]) for i, spec in enumerate(specs)]
            skipped = shift - len(buffer)
            del buffer[:shift]
            if skipped > 0:
                next(itertools.islice(inputs, skipped, skipped), None)

    return Dataset(nest.map_structure(DatasetSpec, structure), arrays, "_WindowDataset",
                   _window_count(dataset._cardinality, *(static for static, _ in counts), drop_remainder))


def _window_count(count, size, shift, stride, drop_remainder):
    if count < 0 or None in (size, shift, stride):
        return count if count < 0 else Dataset.UNKNOWN
    span = (size - 1) * stride + 1
    if drop_remainder:
        return (count - span) // shift + 1 if count >= span else 0
    return -(-count // shift)


# -- scan --------------------------------------------------------------------------------------------
def _scan_state_spec(state_spec, outputs):
    """The new state's spec of a traced `scan_func`, checked as TensorFlow checks it."""
    if not (isinstance(outputs, tuple) and len(outputs) == 2):
        returned = nest.map_structure(_spec_of, outputs)
        raise TypeError(f"Invalid `scan_func`. `scan_func` should return a pair consisting of new state and "
                        f"the output value but its return type is {returned}.")
    new_state_spec = nest.map_structure(_spec_of, outputs[0])
    try:
        nest.assert_same_structure(state_spec, new_state_spec)
    except (TypeError, ValueError):
        raise TypeError(f"Invalid `scan_func`. The element classes for the new state must match the initial "
                        f"state. Expected {state_spec}; got {new_state_spec}.") from None
    for old, new in zip(nest.flatten(state_spec), nest.flatten(new_state_spec)):
        if old.dtype != new.dtype:
            raise TypeError(f"Invalid `scan_func`. The element types for the new state must match the initial "
                            f"state. Expected {_dtype_text(old.dtype)}, got {_dtype_text(new.dtype)}.")
    return new_state_spec


def scan(dataset, initial_state, scan_func):
    initial = nest.map_structure(lambda v: v if isinstance(v, Tensor) else _convert.convert_to_tensor(v),
                                 initial_state)
    element_spec = dataset.element_spec
    function = Function(lambda state, element: scan_func(state, element), name="scan_fn")
    concrete = trace_state_function(function, nest.map_structure(_spec_of, initial), element_spec,
                                    _scan_state_spec)
    out_spec = nest.map_structure(_spec_of, concrete.structured_outputs[1])
    concrete = with_bound_captures(concrete)
    later = deferred(nest.flatten(initial))   # a symbolic initial state (a function being traced): its values

    def arrays():
        state = initial if later is None else nest.pack_sequence_as(initial, [EagerTensor(v) for v in later()])
        for flat in dataset._arrays():
            state, output = concrete(state, pack_element(element_spec, flat))
            yield [np.asarray(t) for t in nest.flatten(output)]

    return Dataset(out_spec, arrays, "_ScanDataset", dataset._cardinality)


# -- reduce ------------------------------------------------------------------------------------------
def reduce(self, initial_state, reduce_func):
    """`reduce_func(state, element)` folded over the elements (a tuple element is one argument, as in
    TensorFlow); the state is a structure of tensors (Python numbers in `initial_state` become tensors).
    The function is traced once (traced_functions.py); inside a tf.function the fold is the dataset's
    staged loop (ScanDataset -> ReduceDataset) over the traced step."""
    check_callable(reduce_func)
    state = nest.map_structure(lambda v: v if isinstance(v, Tensor) else _convert.convert_to_tensor(v),
                               initial_state)
    concrete = traced_reduce(reduce_func, state, self._element_spec)
    specs = self._element_spec
    if _state.graph is not None:    # inside a tf.function: the dataset's staged loop over the traced step
        box = [state]

        def step(element):
            box[0] = concrete(box[0], element)

        def set_state(values):
            box[0] = values[0]

        self._ag_for_stmt(None, step, lambda: (box[0],), set_state, ("state",))
        return box[0]
    for flat in self._arrays():
        state = concrete(state, pack_element(specs, flat))
    return state


# -- unique, cache, get_single_element -----------------------------------------------------------------
def unique(dataset):
    specs = nest.flatten(dataset.element_spec)
    if len(specs) != 1:
        raise eager_error(InvalidArgumentError, "UniqueDataset only supports inputs with a single component.",
                          "UniqueDataset")
    if specs[0].dtype not in (_dt.int32, _dt.int64, _dt.string):
        raise TypeError(f"`tf.data.Dataset.unique` does not support type {_dtype_text(specs[0].dtype)} -- only "
                        f"`tf.int32`, `tf.int64`, and `tf.string` are supported.")

    def arrays():
        seen = set()
        for flat in dataset._arrays():
            value = np.asarray(flat[0])
            key = (value.shape, tuple(value.ravel().tolist()))
            if key not in seen:
                seen.add(key)
                yield flat

    return Dataset(dataset.element_spec, arrays, "_UniqueDataset")


def cache(dataset):
    """The elements of the first complete pass, replayed by every later pass (kept in memory)."""
    stored = []

    def arrays():
        if stored:
            yield from stored[0]
            return
        elements = []
        for flat in dataset._arrays():
            elements.append(flat)
            yield flat
        stored.append(elements)

    return Dataset(dataset.element_spec, arrays, "CacheDataset", dataset._cardinality)


def _k_single_element(dataset, *, specs):
    elements = dataset._arrays()
    first = next(elements, None)
    if first is None:
        raise InvalidArgumentError(None, None, "Dataset was empty.")
    if next(elements, None) is not None:
        raise InvalidArgumentError(None, None, "Dataset had more than one element.")
    return tuple(first)


SINGLE_ELEMENT = OpDef("DatasetToSingleElement", lambda i, a: [(s.dtype, s.shape) for s in a["specs"]],
                       _k_single_element, stateful=True, multi=True)


def get_single_element(dataset):
    """The only element of `dataset` (an op, so it also runs inside a tf.function)."""
    structure = dataset.element_spec
    specs = tuple(nest.flatten(structure))
    values = apply(SINGLE_ELEMENT, (dataset._variant_tensor(),), {"specs": specs}, "DatasetToSingleElement")
    return nest.pack_sequence_as(structure, list(values))
