"""Tracing: runs a Python function once on placeholders inside a fresh FuncGraph.

Invariants:
- placeholders are created for the tensor leaves of the bound arguments, in `nest.flatten` order, named
  after their parameter (`x`, `x_1`, … for nested structures); every other argument is passed as the
  Python value its TraceType stands for;
- outputs that are tensors get an `Identity` node; other outputs stay Python values;
- when tracing ends the graph is marked out of scope, so leaked tensors fail clearly when used later.
"""
import functools
import inspect
import threading

import numpy as np

from ..framework import nest
from ..framework.composite import expand_outputs, pack_traced_outputs
from ..framework.context import state as _state
from ..framework.graph import FuncGraph, SymbolicTensor, add_automatic_control_output
from ..framework.tensor import EagerTensor, Tensor
from ..ops import registry
from ..ops.convert import convert_to_tensor
from ..runtime import codegen
from ..types import dtypes as _dt
from ..types.shape import TensorShape
from ..types.spec import TensorSpec
from ..autograph.errors import StagingError
from ..autograph.operators import Undefined
from . import trace_type as _tt
from .graph_execution_errors import caller_frames
from .user_code_errors import in_user_code, undefined_output_error

__all__ = ["trace_function", "TraceResult", "MAX_TRACE_DEPTH", "StagingError"]

MAX_TRACE_DEPTH = 40  # nested traces deeper than this are almost surely infinite recursion




class TraceResult:
    __slots__ = ("graph", "structured_outputs", "flat_outputs", "created_variables")

    def __init__(self, graph, structured_outputs, flat_outputs, created_variables):
        self.graph = graph
        self.structured_outputs = structured_outputs
        self.flat_outputs = flat_outputs
        self.created_variables = created_variables


class _Depth(threading.local):
    """How many traces this thread has nested: per thread, since threads trace independently."""
    value = 0


_depth = _Depth()


def _placeholder(graph, ttype, value, name):
    if isinstance(ttype, TensorSpec):
        return graph.placeholder(ttype.dtype, ttype.shape, ttype.name or name)
    if isinstance(ttype, (_tt.Tuple, _tt.List)):
        values = value if value is not None else [None] * len(ttype.components)
        parts = [_placeholder(graph, c, v, name) for c, v in zip(ttype.components, values)]
        return tuple(parts) if isinstance(ttype, _tt.Tuple) else parts
    if isinstance(ttype, _tt.NamedTuple):
        values = value if value is not None else [None] * len(ttype.components)
        return ttype.cls(*(_placeholder(graph, c, v, name) for c, v in zip(ttype.components, values)))
    if isinstance(ttype, _tt.Dict):
        return ttype.cls((k, _placeholder(graph, c, value[k] if value is not None else None, name))
                         for k, c in zip(ttype.keys, ttype.components))
    if isinstance(ttype, _tt.VariableType):
        handle = graph.placeholder(_dt.resource, TensorShape([]), name)
        view = type(value)._graph_view(handle, value)
        graph.handle_variables[id(handle)] = view
        graph.arg_handles[id(handle)] = value.handle  # the traced call's variable (for lifting initialisers)
        return view
    if isinstance(ttype, _tt.Literal):
        return ttype.value
    if isinstance(ttype, _tt.Weakref):
        return ttype.ref()
    return ttype.placeholder_value(_PlaceholderContext(graph, name))


class _PlaceholderContext:
    """What `TraceType.placeholder_value` receives: the graph being traced and the parameter's name."""

    __slots__ = ("graph", "name")

    def __init__(self, graph, name):
        self.graph, self.name = graph, name


def trace_function(python_function, params, types, name, outer_graph=None):
    """Traces `python_function` for bound parameters `params` ([(name, kind, value)]) of `types`."""
    if _depth.value >= MAX_TRACE_DEPTH:
        raise StagingError(_recursion_message(name, f"{MAX_TRACE_DEPTH} nested traces"))
    graph = FuncGraph(name, outer_graph=outer_graph)
    graph.python_function = python_function
    graph.trace_frames = caller_frames()   # the user's stack above the ops, for run-time error messages
    graph.lift_to_eager = functools.partial(_lift_to_eager, graph)
    created_variables = []
    _state.variable_observers.append(created_variables.append)
    _depth.value += 1
    previous = _state.graph
    _state.graph = graph
    try:
        args, kwargs = [], {}
        for (pname, kind, value), ttype in zip(params, types):
            placeholder = _placeholder(graph, ttype, value, pname)
            if kind == inspect.Parameter.VAR_POSITIONAL:
                args.extend(placeholder)
            elif kind == inspect.Parameter.VAR_KEYWORD:
                kwargs.update(placeholder)
            elif kind == inspect.Parameter.KEYWORD_ONLY:
                kwargs[pname] = placeholder
            else:
                args.append(placeholder)
        graph.structured_input_signature = (tuple(types), {})
        try:
            result = python_function(*args, **kwargs)
        except RecursionError:
            raise StagingError(_recursion_message(name, "Python's recursion limit")) from None
        except Exception as e:
            if _depth.value == 1:
                framed = in_user_code(e)
                if framed is not None:
                    raise framed from None
            raise
        result = expand_outputs(result)  # a SparseTensor/RaggedTensor returns as its component tensors
        flat = nest.flatten(result)
        flat_outputs = []
        out_leaves = []
        for leaf in flat:
            if type(leaf) is Undefined:
                raise undefined_output_error(leaf) from None
            tensor = _as_output_tensor(graph, leaf)
            if tensor is None:
                out_leaves.append(leaf)
                continue
            out = registry.apply(registry.OPS["Identity"], (tensor,), None, "Identity")
            out.op.source = None  # created by tracing, not by a user line
            flat_outputs.append(out)
            out_leaves.append(out)
        structured = pack_traced_outputs(result, out_leaves) if nest.is_nested(result) else out_leaves[0]
        graph.outputs = flat_outputs
        graph.structured_outputs = structured
        add_automatic_control_output(graph, [t.op for t in flat_outputs])
    finally:
        _state.graph = previous
        _depth.value -= 1
        _state.variable_observers.remove(created_variables.append)
        graph.mark_out_of_scope()
    return TraceResult(graph, structured, flat_outputs, created_variables)


def _as_output_tensor(graph, leaf):
    if isinstance(leaf, SymbolicTensor):
        return leaf if leaf.op.graph is graph else graph.capture(leaf)
    if isinstance(leaf, Tensor):
        return graph.capture(leaf)
    if leaf is None:
        return None
    convert = getattr(leaf, "__tf_tensor__", None)
    if convert is not None and not isinstance(leaf, type):
        return convert(None, None)
    if isinstance(leaf, (int, float, bool, str, bytes, complex, np.ndarray, np.generic)):
        return convert_to_tensor(leaf)
    raise TypeError(
        f"To be compatible with tf.function, Python functions must return zero or more Tensors or "
        f"ExtensionTypes or None values; in compilation of {graph.python_function!r}, found return value of "
        f"type {type(leaf).__name__}, which is not a Tensor or ExtensionType.")


_SHAPE_ONLY = ("ZerosLike", "OnesLike", "Shape", "Size", "Rank")


def _lift_to_eager(graph, tensor):
    """Evaluates `tensor` of a graph being traced eagerly, when it depends on no argument's value (only on
    constants, captures, variables passed as arguments, and the static shapes of arguments): how
    `tf.Variable(tf.zeros_like(v))` inside a tf.function gets its initial value."""
    known = {id(internal): ext for ext, internal in graph.captures}
    known.update(graph.arg_handles)
    shape_only = set()   # placeholders whose value is only used for its (static) shape
    stack, seen = [(tensor.op, False)], set()
    while stack:
        op, via_shape = stack.pop()
        if (id(op), via_shape) in seen:
            continue
        seen.add((id(op), via_shape))
        if op.type == "Placeholder" and id(op.outputs[0]) not in known:
            if via_shape and op.outputs[0].shape.is_fully_defined():
                shape_only.add(id(op.outputs[0]))
                continue
            raise ValueError(
                f"A tf.Variable created inside a tf.function has an initial value that depends on the function's "
                f"arguments ({tensor!r} depends on '{op.name}'). Create the variable outside tf.function, or "
                f"pass a callable as initial_value.")
        static = op.type in _SHAPE_ONLY and op.inputs and op.inputs[0].shape.is_fully_defined()
        stack.extend((t.op, via_shape or static) for t in op.inputs)
    compiled = codegen.compile_graph(graph, "lift", [tensor], graph.inputs, keep_stateful=False)
    values = []
    for p in graph.inputs:
        if id(p) in shape_only:
            values.append(np.zeros(p.shape.as_list(), dtype=p.dtype.as_numpy_dtype))
        else:
            values.append(getattr(known.get(id(p)), "_value", None))
    return EagerTensor(compiled.fn(*values)[0])


def _recursion_message(name, limit):
    return (f"in user code: maximum recursion depth exceeded while tracing tf.function `{name}` ({limit}). A "
            f"tf.function that calls itself with arguments of the same type traces itself forever; make the "
            f"recursion depend on a Python value that ends it, or use tf.while_loop.")
