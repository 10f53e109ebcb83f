"""Datasets made while a function is traced: recipes over symbolic tensors, bound to values when the graph runs.

TensorFlow traces a dataset function (the one given to `flat_map`, `interleave`, `reduce`) once, to a
graph, and runs that graph for each input element; inside a tf.function, datasets are made by ops that run
with the graph. tensorflux's datasets are recipes (closures over NumPy values). A recipe made while
tracing may refer to symbolic tensors instead (`from_tensor_slices(x)` with `x` an argument,
`TextLineDataset(name)`, `range(n)`):

- the source *records* each symbolic tensor it needs on the graph being traced (`deferred`), and reads its
  value through `resolve` when it starts iterating;
- whoever runs the graph gets those tensors' values (as outputs of the traced function, or as inputs of the
  op that stands for the dataset in a tf.function) and *binds* the recipe to them (`bound_arrays`): every
  pull of an element runs with that mapping in force, in a context variable, so the datasets of different
  input elements (open side by side in an `interleave`) and nested ones each see their own values.

A dataset given to a traced function (`DatasetSpec` stand-in, e.g. a window given to `flat_map`) is bound
the same way: its placeholder maps to the real dataset.

The graph also records that a file reader was made in it (`note_file_reader`): `flat_map`/`interleave`
then shard their input under `AutoShardPolicy.FILE`, as TensorFlow's rewrite does.
"""
import contextvars
import threading

import numpy as np

from ..framework.context import state as _state
from ..framework.graph import SymbolicTensor
from ..types import dtypes as _dt

__all__ = ["bound_arrays", "current_binding", "deferred", "is_symbolic", "note_file_reader", "recorded", "reads_files", "resolve",
           "with_bound_captures"]

# The values in force while an element is pulled: (mapping id(symbolic tensor) -> value, enclosing scope).
_SCOPE = contextvars.ContextVar("tensorflux_dataset_graph_values", default=None)


def is_symbolic(value):
    return isinstance(value, SymbolicTensor)


def _graph_record(graph):
    record = graph.__dict__.get("_dataset_values")
    if record is None:
        record = graph.__dict__["_dataset_values"] = {"tensors": [], "ids": set(), "files": False}
    return record


def record(tensor):
    """Notes on the graph being traced that a dataset recipe reads `tensor` when it runs."""
    graph = _state.graph
    if graph is None:
        return
    entry = _graph_record(graph)
    if id(tensor) not in entry["ids"]:
        entry["ids"].add(id(tensor))
        entry["tensors"].append(tensor)


def recorded(graph):
    """The symbolic tensors the datasets made in `graph` read, in the order they were met."""
    entry = graph.__dict__.get("_dataset_values")
    return list(entry["tensors"]) if entry is not None else []


def note_file_reader():
    """A file reader (TextLineDataset, TFRecordDataset) was made in the graph being traced."""
    if _state.graph is not None:
        _graph_record(_state.graph)["files"] = True


def reads_files(graph):
    entry = graph.__dict__.get("_dataset_values")
    return bool(entry and entry["files"])


def resolve(tensor):
    """The value `tensor` has in the run of the graph whose dataset is being pulled."""
    scope = _SCOPE.get()
    key = id(tensor)
    while scope is not None:
        values, scope = scope
        if key in values:
            return values[key]
    raise RuntimeError(f"The dataset reading {tensor!r} was made while a function was traced; it can only be "
                       f"iterated by that function's graph (return the dataset's elements, not the dataset).")


def current_binding():
    """The values (a dict) of the graph run whose dataset is being pulled, None outside one: the same object
    for every pull of one run's dataset, another for the next run."""
    scope = _SCOPE.get()
    return None if scope is None else scope[0]


def deferred(values):
    """For a source's tensor arguments: None when none is symbolic, else a function giving their NumPy values
    when the dataset runs (the symbolic ones are recorded on the graph being traced)."""
    if not any(is_symbolic(v) for v in values):
        return None
    for v in values:
        if is_symbolic(v):
            record(v)
    values = list(values)
    return lambda: [np.asarray(resolve(v) if is_symbolic(v) else v) for v in values]


def bound_arrays(make_arrays, values):
    """The elements of a recipe (its `make_arrays`) with `values` (id(symbolic tensor) -> value) in force
    while each one is pulled (on top of the values of any dataset pulling this one)."""
    iterator = None
    while True:
        token = _SCOPE.set((values, _SCOPE.get()))
        try:
            if iterator is None:
                iterator = iter(make_arrays())
            element = next(iterator)
        except StopIteration:
            return
        finally:
            _SCOPE.reset(token)
        yield element


def _current_value(tensor):
    value = resolve(tensor)
    return value if tensor.dtype == _dt.variant else np.asarray(value)


def with_bound_captures(concrete):
    """`concrete` (a traced dataset function: map's, filter's, …) callable inside a bound dataset. A function
    traced while another is traced may capture that one's symbolic tensors (`lambda y: y + x`, `x` the
    element of an enclosing `flat_map`); those are recorded like a source's and, at each call, take the
    values in force (the capture values are set for the call, under a lock: one binding at a time)."""
    externals = list(concrete.captured_inputs)
    if not any(is_symbolic(c) for c in externals):
        return concrete
    for c in externals:
        if is_symbolic(c):
            record(c)
    lock = threading.Lock()

    def call(*args):
        values = tuple(_current_value(c) if is_symbolic(c) else c._value for c in externals)
        with lock:
            concrete._captures = values     # what ConcreteFunction._run feeds its captured inputs
            try:
                return concrete(*args)
            finally:
                concrete._captures = None

    return call
