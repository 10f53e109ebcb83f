"""`tf.data`: datasets of tensors, eager iteration, and iteration inside tf.function as one While loop.

A Dataset is a recipe: a source (slices of tensors, a generator, a range) and transformations (map,
batch, shuffle, …). Iterating eagerly yields eager tensors. Inside a tf.function, `for x in dataset`
becomes a `While` loop over two stateful ops — one makes an iterator when the graph runs, the other
pulls the next element — so the graph's size does not depend on the data, and `next(iterator)` on a
`tf.data.Iterator` pulls a new element on every call.

    ds = tf.data.Dataset.from_tensor_slices(([1, 5, 0], [4, 2, 7]))
    for x, y in ds:            # eagerly: tensors; in a tf.function: one While op
        ...

A dataset made while a function is traced may read symbolic tensors (`from_tensor_slices(x)` of an
argument, a dataset argument's stand-in): its sources read them through `graph_values`, and the graph
binds the recipe to their values when it runs (the BoundDataset op). `iter(dataset)` in a graph is an
`OwnedIterator`: its `next()` is an IteratorGetNext op, so the Python iteration never ends by itself.
"""
import itertools
import threading

import numpy as np

from ..autograph import operators
from ..framework import nest
from ..framework.errors import InvalidArgumentError, OpError, OutOfRangeError, eager_error
from ..function.polymorphic import Function
from ..function.trace_type import TraceType, Weakref
from ..framework.context import state as _state
from ..framework.tensor import EagerTensor, Tensor, VariantTensor, _as_stored
from ..ops import convert as _convert
from ..ops.registry import OpDef, apply
from ..state.variables import Variable
from ..types import dtypes as _dt
from ..types.shape import TensorShape
from ..types.spec import TensorSpec
from ..framework.composite import CompositeTensor
from .arguments import int64_scalar as _int64_argument, run_time_count
from .graph_values import bound_arrays, current_binding, deferred, is_symbolic, record, recorded, resolve, with_bound_captures

__all__ = ["Dataset", "Iterator"]


def _spec_of(value):
    if isinstance(value, CompositeTensor):
        return value._type_spec
    return TensorSpec(value.shape, value.dtype)


def _output_spec(outputs):
    """The element spec of a traced function's structured outputs: a composite (returned by tracing as the
    tuple of its components, which carries its spec) gives its own TypeSpec."""
    spec = getattr(type(outputs), "_spec", None)
    if isinstance(outputs, tuple) and spec is not None:
        return spec
    if type(outputs) in (list, tuple):
        return type(outputs)(_output_spec(x) for x in outputs)
    if isinstance(outputs, tuple) and hasattr(type(outputs), "_fields"):
        return type(outputs)(*(_output_spec(x) for x in outputs))
    if isinstance(outputs, dict):
        return {k: _output_spec(v) for k, v in outputs.items()}
    return TensorSpec(outputs.shape, outputs.dtype)


def _stored(value):
    """What an element keeps of a component: a NumPy array, or a composite (SparseTensor, RaggedTensor) as is."""
    return value if isinstance(value, CompositeTensor) else np.asarray(value)


def stack_components(parts):
    """The components of a batch stacked into one array; strings stay object arrays of bytes (np.stack of
    bytes values would make a fixed-width 'S' array, which is no tensor dtype)."""
    out = np.stack(parts)
    return out.astype(object) if out.dtype.kind == "S" else out


def pack_element(spec, flat):
    """The element of structure `spec` from its flat values: arrays become eager tensors, while dataset
    components (the windows of `Dataset.window`) stay datasets."""
    return nest.pack_sequence_as(spec, [v if isinstance(v, (Dataset, CompositeTensor)) else EagerTensor(_as_stored(v))
                                        for v in flat])


def flatten_up_to(structure, value, what):
    """`value` split into one part per component of `structure`; below that, lists are leaves (shapes)."""
    if isinstance(structure, dict):
        if not isinstance(value, dict) or set(value) != set(structure):
            raise ValueError(f"The structure of `{what}` does not match the dataset's elements: {value!r}")
        return [part for key in sorted(structure) for part in flatten_up_to(structure[key], value[key], what)]
    if isinstance(structure, tuple):
        if not isinstance(value, (tuple, list)) or len(value) != len(structure):
            raise ValueError(f"The structure of `{what}` does not match the dataset's elements: {value!r}")
        return [part for s, v in zip(structure, value) for part in flatten_up_to(s, v, what)]
    return [value]


def call_with_element(func, element):
    """Calls a user function on an element as tf.data does: a tuple is spread over the arguments."""
    return func(*element) if isinstance(element, tuple) else func(element)


def trace_arguments(spec):
    """What a dataset function is traced with for elements of `spec`: the specs, with an empty dataset
    standing for each dataset component (a window), so the function gets a dataset stand-in."""
    if not has_dataset_components(spec):
        return spec
    return nest.map_structure(lambda s: Dataset(s.element_spec, lambda: iter(()), "_VariantDataset")
                              if isinstance(s, DatasetSpec) else s, spec)


def has_dataset_components(spec):
    return any(isinstance(s, DatasetSpec) for s in nest.flatten(spec))


def _check_tensor_elements(spec, where):
    if has_dataset_components(spec):
        raise TypeError(f"{where} is not supported for datasets whose elements are datasets (as made by "
                        f"`window`); turn the windows into tensors first, e.g. with `flat_map`.")


def _as_tensors(structure):
    """Tuples and dicts are structure; anything else (lists included, as in tf.data) becomes one tensor."""
    if isinstance(structure, tuple):
        parts = [_as_tensors(v) for v in structure]
        return type(structure)(*parts) if hasattr(structure, "_fields") else tuple(parts)
    if isinstance(structure, dict):
        return {k: _as_tensors(v) for k, v in structure.items()}
    return structure if isinstance(structure, (Tensor, CompositeTensor)) else _convert.convert_to_tensor(structure)


def _invalid(message, op_name):
    return eager_error(InvalidArgumentError, message, op_name)


def check_callable(func):
    if not callable(func):
        raise ValueError(f"Argument `func` must be a callable. Received func={func!r} (of type {type(func)})")


# -- graph ops: an iterator made at run time, and "get next" ---------------------------------------------
def _k_make_iterator(dataset):
    return _PythonIterator(iter(dataset._arrays()))


class _PythonIterator:
    """A run-time iterator over flat NumPy elements (the value of an iterator tensor)."""

    __slots__ = ("it",)

    def __init__(self, it):
        self.it = it


def _k_next_optional(it, *, specs):
    try:
        values = next(it.it)
        return (np.bool_(True),) + tuple(values)
    except StopIteration:
        return (np.bool_(False),) + tuple(np.zeros([d or 0 for d in s.shape.as_list()] if s.shape.rank is not None
                                                   else [], dtype=s.dtype.as_numpy_dtype) for s in specs)


def _k_next(*made_in_graph, iterator, specs):
    """The next element of a `tf.data.Iterator` made outside the graph (`iterator`), or of the iterator the
    graph made (its input, the value of an AnonymousIteratorV3 op)."""
    try:
        if made_in_graph:
            return tuple(next(made_in_graph[0].it))
        return tuple(iterator._next_arrays())
    except StopIteration:
        raise OutOfRangeError(None, None, "End of sequence") from None


def bind(recipe, values):
    """The dataset `recipe` is for one run of a graph: `values` maps id(symbolic tensor) -> value."""
    bound = Dataset(recipe._element_spec, lambda: bound_arrays(recipe._arrays, values), recipe._kind,
                    recipe._cardinality)
    bound._options = getattr(recipe, "_options", None)
    return bound


def _k_bound_dataset(*values, recipe, tensors):
    return bind(recipe, {id(t): v for t, v in zip(tensors, values)})


MAKE_ITERATOR = OpDef("AnonymousIteratorV3", lambda i, a: [(_dt.variant, TensorShape([]))], _k_make_iterator,
                      stateful=True)
NEXT_OPTIONAL = OpDef("IteratorGetNextAsOptional",
                      lambda i, a: [(_dt.bool, TensorShape([]))] + [(s.dtype, s.shape) for s in a["specs"]],
                      _k_next_optional, stateful=True, multi=True)
NEXT = OpDef("IteratorGetNext", lambda i, a: [(s.dtype, s.shape) for s in a["specs"]], _k_next, stateful=True,
             multi=True)
def _k_optional_get_value(has, *values):
    if not has:
        raise InvalidArgumentError(None, None, "The given optional does not have a value.")
    return tuple(values)


OPTIONAL_GET_VALUE = OpDef("OptionalGetValue", lambda i, a: [(t.dtype, t.shape) for t in i[1:]],
                           _k_optional_get_value, multi=True)
# A dataset made inside a tf.function from tensors the graph computes: the recipe, bound to their values
# when the graph runs (graph_values.py).
BOUND_DATASET = OpDef("BoundDataset", lambda i, a: [(_dt.variant, TensorShape([]))], _k_bound_dataset,
                      stateful=True)


def _deferred_slices(structure, flat, values):
    """`from_tensor_slices` of symbolic tensors (a function being traced): sliced when the graph runs."""
    sizes = {t.shape[0] for t in flat if t.shape.rank is not None and t.shape[0] is not None}
    if len(sizes) > 1:
        raise ValueError("All components of `tensors` must have the same size in their first dimension.")
    spec = nest.pack_sequence_as(structure, [TensorSpec(t.shape[1:] if t.shape.rank is not None else None, t.dtype)
                                             for t in flat])

    def arrays():
        parts = values()
        n = len(parts[0])
        if any(len(p) != n for p in parts):
            raise _invalid("All components of `tensors` must have the same size in their first dimension.",
                           "TensorSliceDataset")
        return ([p[i] for p in parts] for i in range(n))

    return Dataset(spec, arrays, "_TensorSliceDataset", sizes.pop() if sizes else Dataset.UNKNOWN)


def _deferred_range(values, output_type):
    """`Dataset.range` of symbolic bounds (a function being traced): counted when the graph runs."""
    np_type = _dt.as_dtype(output_type).as_numpy_dtype

    def arrays():
        bounds = [int(v) for v in values()]
        if len(bounds) == 3 and bounds[2] == 0:
            raise _invalid("step must be a non-zero integer.", "RangeDataset")
        return ([np_type(v)] for v in range(*bounds))

    return Dataset(TensorSpec([], output_type), arrays, "_RangeDataset", Dataset.UNKNOWN)


def _deferred_count(dataset, method, count, kind):
    """`dataset.method(count)` for a symbolic `count` (a function being traced): made when the graph runs,
    with the count's value (its cardinality is unknown until then)."""
    values = deferred([count])
    return Dataset(dataset._element_spec, lambda: method(dataset, int(values()[0]))._arrays(), kind,
                   Dataset.UNKNOWN)


class Optional:
    """`tf.experimental.Optional`: a value that may be absent (`from_value(v)`, `empty(element_spec)`, or an
    iterator's `get_next_as_optional()`; inside a tf.function that one's presence is a bool tensor known when
    the graph runs, and `get_value()` is an OptionalGetValue op failing then if it is absent)."""

    def __init__(self, value, element_spec, has=None):
        self._value, self._element_spec, self._has = value, element_spec, has

    @staticmethod
    def from_value(value):
        value = nest.map_structure(_convert.convert_to_tensor, value)
        return Optional(value, nest.map_structure(lambda t: TensorSpec(t.shape, t.dtype), value))

    @staticmethod
    def empty(element_spec):
        return Optional(None, element_spec)

    @property
    def element_spec(self):
        return self._element_spec

    def has_value(self, name=None):
        return self._has if self._has is not None else _convert.constant(self._value is not None)

    def get_value(self, name=None):
        if self._has is not None:
            flat = nest.flatten(self._value)
            values = apply(OPTIONAL_GET_VALUE, [self._has] + flat, None, "OptionalGetValue")
            return nest.pack_sequence_as(self._value, list(values))
        if self._value is None:
            raise eager_error(InvalidArgumentError, "The given optional does not have a value.", "OptionalGetValue")
        return self._value


class Dataset:
    """A sequence of elements, each a (nested structure of) tensors."""

    INFINITE, UNKNOWN = -1, -2        # TensorFlow's cardinality codes

    def __init__(self, element_spec, make_arrays, kind, cardinality=-2):
        self._cardinality = cardinality   # number of elements, or INFINITE / UNKNOWN
        self._graph_tensor = None         # set on the stand-in a traced function receives
        self._element_spec = element_spec
        self._make_arrays = make_arrays   # () -> iterator of flat lists of NumPy arrays
        self._kind = kind

    # -- sources -----------------------------------------------------------------------------------
    @staticmethod
    def from_tensor_slices(tensors, name=None):
        structure = _as_tensors(tensors)
        flat = nest.flatten(structure)
        if any(t.shape.rank == 0 for t in flat):
            raise ValueError("Unbatching a tensor is only supported for rank >= 1")
        values = deferred(flat)
        if values is not None:
            return _deferred_slices(structure, flat, values)
        n = flat[0].shape[0]
        if any(t.shape.rank == 0 for t in flat) or any(t.shape[0] != n for t in flat):
            raise ValueError("All components of `tensors` must have the same size in their first dimension.")
        arrays = [t._unbatch() if isinstance(t, CompositeTensor) else np.asarray(t) for t in flat]
        spec = nest.pack_sequence_as(structure, [t._type_spec._unbatched() if isinstance(t, CompositeTensor) else
                                                 TensorSpec(t.shape[1:], t.dtype) for t in flat])
        return Dataset(spec, lambda: ([a[i] for a in arrays] for i in range(n)), "_TensorSliceDataset", n)

    @staticmethod
    def from_tensors(tensors, name=None):
        structure = _as_tensors(tensors)
        values = deferred(nest.flatten(structure))
        if values is not None:      # symbolic tensors of a function being traced: read when the graph runs
            return Dataset(nest.map_structure(_spec_of, structure), lambda: iter([values()]), "_TensorDataset", 1)
        flat = [_stored(t) for t in nest.flatten(structure)]
        return Dataset(nest.map_structure(_spec_of, structure), lambda: iter([flat]), "_TensorDataset", 1)

    @staticmethod
    def range(*args, output_type=_dt.int64, name=None):
        values = deferred(args)
        if values is not None:
            return _deferred_range(values, output_type)
        if len(args) == 3 and _int64_argument(args[2]) == 0:
            raise _invalid("step must be a non-zero integer.", "RangeDataset")
        values = range(*(_int64_argument(a) for a in args))
        np_type = _dt.as_dtype(output_type).as_numpy_dtype
        return Dataset(TensorSpec([], output_type), lambda: ([np_type(v)] for v in values), "_RangeDataset",
                       len(values))

    @staticmethod
    def from_generator(generator, output_types=None, output_shapes=None, args=None, output_signature=None,
                       name=None):
        if not callable(generator):
            raise TypeError("`generator` must be a Python callable.")
        if output_signature is not None:
            spec = output_signature
        else:
            if output_types is None:
                raise TypeError("The `output_types` argument can not be None when `output_signature` is None.")
            types = nest.flatten(output_types)
            shapes = [None] * len(types) if output_shapes is None else \
                flatten_up_to(output_types, output_shapes, "output_shapes")
            spec = nest.pack_sequence_as(output_types, [TensorSpec(TensorShape(s), _dt.as_dtype(t))
                                                        for t, s in zip(types, shapes)])
        flat_specs = nest.flatten(spec)

        arg_values = deferred(args or ())     # symbolic arguments: their values when the dataset runs

        def arrays():
            given = (args or ()) if arg_values is None else [a[()] if a.ndim == 0 else a for a in arg_values()]
            for element in generator(*given):
                try:
                    values = flatten_up_to(spec, element, "generator")
                except ValueError:
                    raise TypeError(f"`generator` yielded an element of the wrong structure: {element!r}") from None
                out = []
                for v, s in zip(values, flat_specs):
                    a = np.asarray(_convert.to_array(v, s.dtype))
                    if not s.shape.is_compatible_with(a.shape):
                        raise TypeError(f"`generator` yielded an element of shape {a.shape} where an element of "
                                        f"shape {s.shape} was expected.")
                    out.append(a)
                yield out

        return Dataset(spec, arrays, "_FlatMapDataset")

    @staticmethod
    def zip(*datasets, name=None):
        structure = datasets[0] if len(datasets) == 1 and not isinstance(datasets[0], Dataset) else datasets
        datasets = nest.flatten(structure)
        for d in datasets:
            if not isinstance(d, Dataset):
                raise TypeError("Invalid input to `zip`. Inputs are expected to be (nested) structures of "
                                f"`tf.data.Dataset` objects but encountered object of type {type(d)}.")
        spec = nest.pack_sequence_as(structure, [d.element_spec for d in datasets])
        counts = [d._cardinality for d in datasets]
        if Dataset.UNKNOWN in counts:
            total = Dataset.UNKNOWN
        else:
            finite = [n for n in counts if n != Dataset.INFINITE]
            total = min(finite) if finite else Dataset.INFINITE
        return Dataset(spec, lambda: ([a for part in parts for a in part]
                                      for parts in zip(*(d._arrays() for d in datasets))), "_ZipDataset", total)

    # -- transformations ---------------------------------------------------------------------------
    def map(self, map_func, num_parallel_calls=None, deterministic=None, name=None):
        """Applies `map_func` to each element; it is traced once (as TensorFlow does), then run per element."""
        check_callable(map_func)
        specs = self._element_spec
        structured = isinstance(specs, tuple)
        fn = Function(map_func, name="map_fn")     # the user's function itself, so AutoGraph converts it
        arguments = trace_arguments(specs)
        concrete = fn.get_concrete_function(*arguments) if structured else fn.get_concrete_function(arguments)
        outputs = concrete.structured_outputs
        if isinstance(outputs, list):   # as TensorFlow's: a returned Python list is a tuple of components
            outputs = tuple(outputs)
        out_spec = _output_spec(outputs)
        source = self
        run = with_bound_captures(concrete)

        def arrays():
            for flat in source._arrays():
                result = call_with_element(run, pack_element(specs, flat))
                yield [_stored(t) for t in nest.flatten(result)]

        return Dataset(out_spec, arrays, "_MapDataset", self._cardinality)

    def filter(self, predicate, name=None):
        """Keeps the elements for which `predicate` (traced once, as TensorFlow does) gives True."""
        check_callable(predicate)
        source, specs = self, self._element_spec
        fn = Function(predicate, name="filter_fn")
        arguments = trace_arguments(specs)
        concrete = fn.get_concrete_function(*arguments) if isinstance(specs, tuple) else \
            fn.get_concrete_function(arguments)
        outputs = concrete.structured_outputs
        if isinstance(outputs, (list, tuple)):     # TensorFlow fails the same way on a returned sequence
            raise AttributeError("'tuple' object has no attribute 'is_compatible_with'")
        spec = _output_spec(outputs)
        if not isinstance(spec, TensorSpec) or spec.dtype != _dt.bool or spec.shape.rank != 0:
            raise ValueError(f"Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor, but its "
                             f"return type is {spec}.")

        run = with_bound_captures(concrete)

        def arrays():
            for flat in source._arrays():
                if bool(call_with_element(run, pack_element(specs, flat))):
                    yield flat

        return Dataset(specs, arrays, "_FilterDataset")

    def batch(self, batch_size, drop_remainder=False, num_parallel_calls=None, deterministic=None, name=None):
        """Stacks `batch_size` consecutive elements; a symbolic `batch_size` (a function being traced) is read
        when the dataset runs, and the batch dimension is then unknown."""
        source = self
        n, current = run_time_count(batch_size, "batch_size", "BatchDatasetV2",
                                    lambda n: None if n > 0 else "Batch size must be greater than zero.")
        spec = nest.map_structure(lambda s: TensorSpec(TensorShape([n if drop_remainder else None]).concatenate(
            s.shape), s.dtype), self._element_spec)

        def arrays():
            it, size = source._arrays(), current()
            while True:
                chunk = list(itertools.islice(it, size))
                if not chunk or (drop_remainder and len(chunk) < size):
                    return
                yield [stack_components(parts) for parts in zip(*chunk)]

        n_in = self._cardinality
        if n_in < 0 or n is None:
            count = n_in if n is not None else Dataset.UNKNOWN
        else:
            count = n_in // n if drop_remainder else -(-n_in // n)
        return Dataset(spec, arrays, "_BatchDataset", count)

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=None, name=None):
        source = self
        _, current = run_time_count(buffer_size, "buffer_size", "ShuffleDatasetV3", lambda n: None if n > 0 or
                                    n == Dataset.UNKNOWN else "buffer_size must be greater than zero or "
                                    "UNKNOWN_CARDINALITY")
        # A dataset made while tracing is made anew by each run of the graph (a seeded one repeats its order
        # run after run) and reshuffles when iterated again within a run.
        per_run = {"binding": None, "rng": None} if _state.graph is not None else None
        rng = np.random.default_rng(seed)

        def arrays():
            buffer, size = [], current()
            order = rng
            if per_run is not None:
                binding = current_binding()
                if binding is None or binding is not per_run["binding"]:
                    per_run.update(binding=binding, rng=np.random.default_rng(seed))
                order = per_run["rng"]
            if size == Dataset.UNKNOWN:  # TensorFlow's code for "the whole dataset"
                size = float("inf")
            for flat in source._arrays():
                buffer.append(flat)
                if len(buffer) >= size:
                    yield buffer.pop(order.integers(len(buffer)))
            while buffer:
                yield buffer.pop(order.integers(len(buffer)))

        return Dataset(self._element_spec, arrays, "_ShuffleDataset", self._cardinality)

    def repeat(self, count=None, name=None):
        if is_symbolic(count):
            return _deferred_count(self, Dataset.repeat, count, "_RepeatDataset")
        source = self

        def arrays():
            for _ in (itertools.count() if count is None or count < 0 else range(count)):
                yield from source._arrays()

        n = self._cardinality
        if count is None or count < 0:
            total = Dataset.INFINITE if n != 0 else 0
        else:
            total = n * count if n >= 0 else n
        return Dataset(self._element_spec, arrays, "_RepeatDataset", total)

    def take(self, count, name=None):
        count = _int64_argument(count, "count", "TakeDataset")
        if is_symbolic(count):
            return _deferred_count(self, Dataset.take, count, "_TakeDataset")
        source = self
        n, count = self._cardinality, _int64_argument(count)
        total = n if count < 0 else (count if n == Dataset.INFINITE else min(n, count) if n >= 0 else n)
        return Dataset(self._element_spec, lambda: itertools.islice(source._arrays(), count) if count >= 0
                       else source._arrays(), "_TakeDataset", total)

    def skip(self, count, name=None):
        count = _int64_argument(count, "count", "SkipDataset")
        if is_symbolic(count):
            return _deferred_count(self, Dataset.skip, count, "_SkipDataset")
        source = self
        n, count = self._cardinality, _int64_argument(count)
        if count < 0:  # as in TensorFlow, a negative count skips the whole dataset
            return Dataset(self._element_spec, lambda: iter(()), "_SkipDataset", 0)
        total = n if n < 0 else max(n - count, 0)
        return Dataset(self._element_spec, lambda: itertools.islice(source._arrays(), count, None),
                       "_SkipDataset", total)

    def enumerate(self, start=0, name=None):
        counted = Dataset.zip(Dataset.range(start, 2 ** 62), self)
        counted._cardinality = self._cardinality
        return counted

    def prefetch(self, buffer_size, name=None):
        buffer_size = _int64_argument(buffer_size, "buffer_size", "PrefetchDataset")
        if not is_symbolic(buffer_size) and buffer_size < -1:
            raise _invalid("buffer_size must be >= 0 or set buffer_size to be -1 for auto-tuning", "PrefetchDataset")
        return self

    # -- consumption -------------------------------------------------------------------------------
    @property
    def element_spec(self):
        return self._element_spec

    def _arrays(self):
        return self._make_arrays()

    def __iter__(self):
        if _state.graph is not None:
            return OwnedIterator(self)
        return Iterator(self)

    def _graph_iterator(self):
        """For AutoGraph's `iter(dataset)` in a graph: the OwnedIterator (`next()` and `for` both work on it),
        or None for a subclass with its own loop (a distributed dataset regroups each step)."""
        return OwnedIterator(self) if type(self)._ag_for_stmt is Dataset._ag_for_stmt else None

    def as_numpy_iterator(self):
        if has_dataset_components(self._element_spec):
            raise TypeError("`tf.data.Dataset.as_numpy_iterator()` is not supported for datasets that "
                            "produce values of type <class 'tensorflux.data.Dataset'>")
        return self._numpy_elements(self._element_spec)

    def _numpy_elements(self, specs):
        for flat in self._arrays():
            yield nest.pack_sequence_as(specs, [a[()] if isinstance(a, np.ndarray) and a.ndim == 0 else a
                                                for a in flat])

    def cardinality(self):
        """The number of elements, or `tf.data.INFINITE_CARDINALITY` (-1) / `UNKNOWN_CARDINALITY` (-2)."""
        return _convert.convert_to_tensor(self._cardinality, dtype=_dt.int64)

    def __tf_tracing_type__(self, context):
        return DatasetSpec(self._element_spec)

    def _variant_tensor(self):
        """The dataset as a variant tensor: a graph input when traced as an argument; in a graph whose
        datasets read symbolic tensors, the op binding this recipe to their values; else a constant."""
        if self._graph_tensor is not None:
            return self._graph_tensor
        graph = _state.graph
        tensors = recorded(graph) if graph is not None else ()
        if tensors:     # one op per dataset and graph: every loop over it in a run sees one dataset, as in TF
            made = graph.__dict__.setdefault("_bound_datasets", {})
            if id(self) not in made:
                made[id(self)] = (self, apply(BOUND_DATASET, tensors, {"recipe": self, "tensors": tuple(tensors)},
                                              "BoundDataset"))
            return made[id(self)][1]
        return VariantTensor(self)

    def _ag_for_stmt(self, extra_test, body, get_state, set_state, names):
        """`for x in dataset` inside a tf.function: one While loop pulling elements at run time."""
        if _state.graph is None:
            for element in self:
                if extra_test is not None and not extra_test():
                    break
                body(element)
            return
        _check_tensor_elements(self._element_spec, "Iterating inside a tf.function")
        iterator = apply(MAKE_ITERATOR, (self._variant_tensor(),), None, "AnonymousIteratorV3")
        _iterator_loop(iterator, self._element_spec, extra_test, body, get_state, set_state, names)

    def __repr__(self):
        return f"<{self._kind} element_spec={self._element_spec}>"


def _iterator_loop(iterator, structure, extra_test, body, get_state, set_state, names):
    """A `for` over the run-time iterator `iterator` (a variant tensor) inside a tf.function: one While loop
    pulling elements with IteratorGetNextAsOptional until the data ends."""
    specs = nest.flatten(structure)
    first = apply(NEXT_OPTIONAL, (iterator,), {"specs": tuple(specs)}, "IteratorGetNextAsOptional")
    box = {"has": first[0], "values": list(first[1:])}

    def get_full():
        return tuple(get_state()) + (box["has"],) + tuple(box["values"])

    def set_full(values):
        n = len(values) - 1 - len(specs)
        set_state(tuple(values[:n]))
        box["has"], box["values"] = values[n], list(values[n + 1:])

    def test():
        return box["has"]

    def step():
        body(nest.pack_sequence_as(structure, box["values"]))
        nxt = apply(NEXT_OPTIONAL, (iterator,), {"specs": tuple(specs)}, "IteratorGetNextAsOptional")
        box["has"], box["values"] = nxt[0], list(nxt[1:])

    state_names = tuple(names) + ("has_next",) + tuple(f"element_{i}" for i in range(len(specs)))
    operators._tf_while(test, step, get_full, set_full, state_names, extra_test, relax_shapes=True)


class DatasetSpec(TraceType):
    """The TraceType of a dataset argument: its element spec (a new dataset of the same spec reuses the
    trace; the dataset itself is passed at each call as a variant tensor)."""

    def __init__(self, element_spec):
        self.element_spec = element_spec
        self._key = tuple(nest.flatten(element_spec))

    def is_subtype_of(self, other):
        return self == other

    def most_specific_common_supertype(self, others):
        return self if all(self == o for o in others) else None

    def placeholder_value(self, placeholder_context=None):
        graph = _state.graph
        name = getattr(placeholder_context, "name", None) or "dataset"
        placeholder = graph.placeholder(_dt.variant, TensorShape([]), name)
        record(placeholder)    # datasets derived from the stand-in are bound to the dataset given at run time
        stand_in = Dataset(self.element_spec, lambda: resolve(placeholder)._arrays(), "_VariantDataset")
        stand_in._graph_tensor = placeholder
        return stand_in

    def to_tensors(self, value):
        return [VariantTensor(value)]

    def __eq__(self, other):
        return type(other) is DatasetSpec and other._key == self._key and \
            nest.map_structure(lambda _: 0, other.element_spec) == nest.map_structure(lambda _: 0, self.element_spec)

    def __hash__(self):
        return hash(self._key)

    def __repr__(self):
        return f"DatasetSpec({self.element_spec}, TensorShape([]))"


class OwnedIterator:
    """`iter(dataset)` inside a tf.function (TensorFlow's OwnedIterator in a graph): the iterator is made when
    the graph runs (AnonymousIteratorV3); `next()` adds an IteratorGetNext op, so the Python iteration never
    ends (the end of the data is the op's OutOfRangeError when the graph runs); `for` over it is a While
    loop that continues from where the `next()` calls left it."""

    def __init__(self, dataset):
        _check_tensor_elements(dataset.element_spec, "Iterating inside a tf.function")
        self._structure = dataset.element_spec
        self._resource = apply(MAKE_ITERATOR, (dataset._variant_tensor(),), None, "AnonymousIteratorV3")

    @property
    def element_spec(self):
        return self._structure

    def __iter__(self):
        return self

    def __next__(self):
        values = apply(NEXT, (self._resource,), {"iterator": None, "specs": tuple(nest.flatten(self._structure))},
                       "IteratorGetNext")
        return nest.pack_sequence_as(self._structure, list(values))

    def get_next(self):
        return next(self)

    def get_next_as_optional(self):
        out = apply(NEXT_OPTIONAL, (self._resource,), {"specs": tuple(nest.flatten(self._structure))},
                    "IteratorGetNextAsOptional")
        return Optional(nest.pack_sequence_as(self._structure, list(out[1:])), self._structure, has=out[0])

    def _ag_for_stmt(self, extra_test, body, get_state, set_state, names):
        _iterator_loop(self._resource, self._structure, extra_test, body, get_state, set_state, names)


class Iterator:
    """`tf.data.Iterator`: `next()` gives the next element; inside a tf.function it is a stateful op."""

    def __init__(self, dataset):
        self._dataset = dataset
        self._it = dataset._arrays()
        # One iterator may be drained by several threads (as TensorFlow allows): each pull of the
        # underlying generator is serialised, so every element goes to exactly one caller.
        self._lock = threading.Lock()
        self._consumed = 0              # elements given out so far: the position a checkpoint records
        self._position = None           # the variable tf.train.Checkpoint saves and restores
        self._position_synced = True    # False once a checkpoint may have restored `_position`

    @property
    def element_spec(self):
        return self._dataset.element_spec

    def _next_arrays(self):
        with self._lock:
            if not self._position_synced:
                self._seek(int(self._position.numpy()))
            arrays = next(self._it)
            self._consumed += 1
            return arrays

    def _seek(self, position):
        """Moves to element `position` by replaying the dataset from its start (a shuffled dataset replays
        its own random order, not the one the checkpointed iterator saw)."""
        self._position_synced = True
        if position != self._consumed:
            self._it = itertools.islice(self._dataset._arrays(), position, None)
            self._consumed = position

    def _trackable_children(self):
        """What `tf.train.Checkpoint(iterator=it)` saves of an iterator: its position (how many elements
        it has given out); restoring the checkpoint moves the iterator back there."""
        with self._lock:
            if self._position is None:
                self._position = Variable(np.int64(self._consumed), trainable=False, name="iterator_position")
            else:
                self._position.assign(np.int64(self._consumed))
            self._position_synced = False
        return [("position", self._position)]

    def __iter__(self):
        return self

    def __next__(self):
        specs = self._dataset.element_spec
        if _state.graph is not None:
            _check_tensor_elements(specs, "`next(iterator)` inside a tf.function")
            values = apply(NEXT, (), {"iterator": self, "specs": tuple(nest.flatten(specs))}, "IteratorGetNext")
            return nest.pack_sequence_as(specs, list(values))
        try:
            flat = self._next_arrays()
        except StopIteration:
            raise StopIteration from None
        except OpError as e:  # a failure inside the pipeline surfaces as the failure of the "get next" op
            raise eager_error(type(e), e.message, "IteratorGetNext") from None
        return pack_element(specs, flat)

    def get_next(self):
        return next(self)

    def get_next_as_optional(self):
        """The next element as an Optional, empty at the end; inside a tf.function, an
        IteratorGetNextAsOptional op pulling from this iterator when the graph runs."""
        if _state.graph is not None:
            specs = self._dataset.element_spec
            _check_tensor_elements(specs, "`get_next_as_optional()` inside a tf.function")
            pulls = VariantTensor(_PythonIterator(iter(self._next_arrays, None)))   # ends when the data does
            out = apply(NEXT_OPTIONAL, (pulls,), {"specs": tuple(nest.flatten(specs))}, "IteratorGetNextAsOptional")
            return Optional(nest.pack_sequence_as(specs, list(out[1:])), specs, has=out[0])
        try:
            return Optional.from_value(next(self))
        except StopIteration:
            return Optional.empty(self.element_spec)

    def __tf_tracing_type__(self, context):
        return Weakref(self)

