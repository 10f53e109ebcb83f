"""The user functions of `flat_map`, `interleave` and `reduce`, traced once as TensorFlow traces them.

TensorFlow turns a dataset function into a graph when the transformation is made, with symbolic inputs
of the element's spec, and runs that graph for every element: the function's Python body runs once (a
Python `print` in it prints once, a Python counter it bumps moves once), and its `tf.print`s and other ops
run per element.

- `DatasetFunction` (flat_map, interleave): the traced graph returns the values of the symbolic tensors
  that the datasets it makes read (graph_values.py); for an input element, `dataset_for` runs the graph and
  binds the returned recipe to those values (and the element's own datasets, e.g. windows, to their
  stand-ins). Whether the function makes a file reader is known from the trace (`reads_files`).
- `traced_reduce`: `reduce_func(state, element)` traced with the state's spec, again with its shapes relaxed
  where the new state's differ (as TensorFlow does), with TensorFlow's errors for a state whose structure
  or dtypes change.
"""
import numpy as np

from ..autograph.api import converted_call
from ..framework import nest
from ..framework.context import state as _state
from ..framework.errors import InvalidArgumentError, eager_error
from ..framework.tensor import Tensor
from ..function.polymorphic import Function
from ..ops import convert as _convert
from ..types import dtypes as _dt
from ..types.spec import TensorSpec
from .dataset import Dataset, bind, trace_arguments
from .graph_values import is_symbolic, reads_files, recorded, with_bound_captures

__all__ = ["DatasetFunction", "as_state", "trace_state_function", "traced_reduce"]


def _spread(func, element):
    """Calls `func` as tf.data calls a dataset function: a tuple element is spread over the arguments."""
    return converted_call(func, tuple(element) if isinstance(element, tuple) else (element,), None)


def _returned_type(result):
    return tuple if isinstance(result, list) else type(result)   # TensorFlow reports lists as tuples


class DatasetFunction:
    """`map_func` of flat_map/interleave, traced once for the input's element spec."""

    def __init__(self, map_func, input_spec, name, what=None):
        self.input_spec = input_spec
        self._structured = isinstance(input_spec, tuple)
        outcome = {}

        def traced(*args):
            element = tuple(args) if self._structured else args[0]
            result = _spread(map_func, element)
            if not isinstance(result, Dataset):
                if what is not None:      # group_by_window's wording
                    returned = nest.map_structure(lambda t: TensorSpec(t.shape, t.dtype) if isinstance(t, Tensor)
                                                  else t, result)
                    raise TypeError(f"Invalid `{what}`. `{what}` must return a single `tf.data.Dataset` object but "
                                    f"its return type is {returned}.")
                raise TypeError(f"The `map_func` argument must return a `Dataset` object. Got "
                                f"{_returned_type(result)}.")
            graph = _state.graph
            flat_args = nest.flatten(list(args))
            # The element's datasets (stand-ins) are bound by position; the other values come out of the graph.
            outcome["stand_ins"] = [(a._graph_tensor, i) for i, a in enumerate(flat_args)
                                    if isinstance(a, Dataset) and a._graph_tensor is not None]
            outcome["arguments"] = {id(a): i for i, a in enumerate(flat_args) if is_symbolic(a)}
            tensors = [t for t in recorded(graph) if is_symbolic(t) and t.dtype != _dt.variant]
            outcome["tensors"] = tensors
            outcome["dataset"] = result
            outcome["files"] = reads_files(graph)
            return tuple(tensors)

        function = Function(traced, name=name)
        arguments = trace_arguments(input_spec)
        self._concrete = function.get_concrete_function(*arguments) if self._structured else \
            function.get_concrete_function(arguments)
        self._run = with_bound_captures(self._concrete)
        self._recipe = outcome["dataset"]
        self._tensors = outcome["tensors"]
        self._stand_ins = outcome["stand_ins"]
        self.reads_files = outcome["files"]
        # When the datasets read only the element's own components and the graph has no stateful op (no
        # tf.print, no py_function), running it would only hand those components back: take them directly.
        positions = outcome["arguments"]
        stateful = any(op.opdef is not None and op.opdef.stateful for op in self._concrete.graph.get_operations())
        self._direct = None if stateful or not all(id(t) in positions for t in self._tensors) else \
            [(id(t), positions[id(t)]) for t in self._tensors]

    @property
    def element_spec(self):
        return self._recipe.element_spec

    def dataset_for(self, element):
        """The dataset the function returns for `element` (a packed element: tensors and datasets)."""
        flat = nest.flatten(list(element) if self._structured else [element])
        if self._direct is not None:
            values = {key: np.asarray(flat[position]) for key, position in self._direct}
        else:
            outputs = self._run(*element) if self._structured else self._run(element)
            values = {id(t): np.asarray(v) for t, v in zip(self._tensors, outputs)}
        if self._stand_ins:
            for placeholder, position in self._stand_ins:
                values[id(placeholder)] = flat[position]
        return bind(self._recipe, values)


def _spec_of(tensor):
    return TensorSpec(tensor.shape, tensor.dtype)


def _dtype_text(dtype):
    return f"<dtype: '{dtype.name}'>"


def _check_new_state(state_spec, new_state):
    new_spec = nest.map_structure(lambda t: _spec_of(t) if isinstance(t, Tensor) else t, new_state)
    counts = len(nest.flatten(state_spec)), len(nest.flatten(new_spec))
    if counts[0] != counts[1]:     # TensorFlow's ReduceDataset kernel finds this one
        raise eager_error(InvalidArgumentError, f"The number of components of the initial state and the reduce "
                          f"function output does not match. (initial_state={counts[0]}, output={counts[1]}).",
                          "ReduceDataset")
    try:
        nest.assert_same_structure(state_spec, new_spec)
    except (TypeError, ValueError):
        raise TypeError(f"The element classes for the new state must match the initial state. Expected "
                        f"{state_spec}; got {new_spec}.") from None
    for old, new in zip(nest.flatten(state_spec), nest.flatten(new_spec)):
        if not isinstance(new, TensorSpec):
            continue
        if old.dtype != new.dtype:
            raise TypeError(f"The element types for the new state must match the initial state. Expected "
                            f"{_dtype_text(old.dtype)} but got {_dtype_text(new.dtype)}.")
    return new_spec


def _relaxed(old, new):
    if isinstance(old, TensorSpec):
        return old.most_specific_common_supertype([new]) or old
    return old


def trace_state_function(function, state_spec, element_spec, new_state_spec):
    """The concrete `function(state, element)` whose state spec covers every state it returns: traced with the
    initial state's spec, then again with the shapes relaxed where the new state's differ, until they agree
    (as TensorFlow traces scan, reduce and group_by_reducer's functions). `new_state_spec(state_spec,
    outputs)` checks the traced outputs and gives the new state's spec."""
    while True:
        concrete = function.get_concrete_function(state_spec, element_spec)
        relaxed = nest.map_structure(_relaxed, state_spec, new_state_spec(state_spec, concrete.structured_outputs))
        if relaxed == state_spec:
            return concrete
        state_spec = relaxed


def as_state(value):
    """A returned state as tf.data takes it: a Python list is a tuple of components, Python values tensors."""
    if isinstance(value, list):
        value = tuple(value)
    return nest.map_structure(lambda v: v if isinstance(v, Tensor) else _convert.convert_to_tensor(v), value)


def traced_reduce(reduce_func, initial_state, element_spec):
    """The concrete `reduce_func(state, element)` whose state spec covers every state it returns, with
    TensorFlow's errors for a state whose structure or dtypes change."""
    function = Function(lambda state, element: as_state(converted_call(reduce_func, (state, element), None)),
                        name="reduce_fn")
    return trace_state_function(function, nest.map_structure(_spec_of, initial_state), element_spec,
                                _check_new_state)
