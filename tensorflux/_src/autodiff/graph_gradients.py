"""`tf.gradients` and `tf.hessians`: symbolic gradients between tensors of the graph being built.

TensorFlow 2 keeps these TF 1 calls for code inside `tf.function`: they differentiate the ops already in
the function's graph (no tape), adding the gradient ops under a `gradients` name scope, and refuse to run
eagerly. The walk is the tapes' `backprop` over the graph's operations in creation order, which is a
topological order. `stop_gradients` works as TensorFlow's does, op by op: the op that produced a stopped
tensor is not differentiated, so nothing flows through any of its outputs.
"""
from ..framework import nest
from ..framework.context import state as _state
from ..framework.tensor import Tensor
from ..ops.array import creation as _creation
from ..ops.convert import convert_to_tensor
from ..ops.shapes import shaping as _shaping
from ..ops.array import join as _join
from . import while_reverse_loop as _while_reverse_loop
from .backprop import backprop
from .tape import UnconnectedGradients, variable_handle_in

__all__ = ["gradients", "hessians"]

_EAGER_MESSAGE = "tf.gradients is not supported when eager execution is enabled. Use tf.GradientTape instead."


def _graph_tensor(graph, value):
    """A tensor of `graph` for a target or source: a variable stands for its (captured) resource handle."""
    if getattr(value, "_is_variable", False):
        return variable_handle_in(graph, value)
    if isinstance(value, Tensor):
        return value
    raise TypeError(f"Expected a tf.Tensor or tf.Variable, got {value!r} of type {type(value).__name__!r}.")


def gradients(ys, xs, grad_ys=None, name="gradients", gate_gradients=False, aggregation_method=None,
              stop_gradients=None, unconnected_gradients=UnconnectedGradients.NONE):
    """`tf.gradients`: the sums of d(ys)/d(x) for each x in `xs` (a list, None where no path joins them),
    inside a `tf.function`; `grad_ys` seeds the targets (ones by default)."""
    graph = _state.graph
    if graph is None:
        raise RuntimeError(_EAGER_MESSAGE)
    unconnected = UnconnectedGradients(unconnected_gradients)
    ys_list = [_graph_tensor(graph, y) for y in nest.flatten(ys)]
    xs_list = nest.flatten(xs)
    sources = [_graph_tensor(graph, x) for x in xs_list]
    with graph.name_scope(name or "gradients"):
        if grad_ys is None:
            seeds = [_creation.ones_like(y) for y in ys_list]
        else:
            given = nest.flatten(grad_ys)
            if len(given) != len(ys_list):
                raise ValueError(f"Passed {len(given)} grad_ys for {len(ys_list)} ys")
            seeds = []
            for y, g in zip(ys_list, given):
                if g is None:
                    seeds.append(_creation.ones_like(y))
                    continue
                g = g if isinstance(g, Tensor) else convert_to_tensor(g, dtype=y.dtype)
                if not g.shape.is_compatible_with(y.shape):
                    raise ValueError(f"Incompatible shapes between op input and calculated input gradient: "
                                     f"grad_ys {g.shape} for a ys tensor of shape {y.shape} "
                                     f"({getattr(y, 'name', y)}).")
                seeds.append(g)
        stopped = {id(t.op) for t in nest.flatten(stop_gradients or []) if getattr(t, "op", None) is not None}
        records = [op for op in graph.get_operations() if id(op) not in stopped]
        with _while_reverse_loop.symbolic_gradients():
            grads = backprop(records, ys_list, seeds, sources)
        out = []
        for g, x in zip(grads, xs_list):
            if g is None and unconnected is UnconnectedGradients.ZERO:
                g = _creation.zeros_like(x.read_value() if getattr(x, "_is_variable", False) else x)
            out.append(g)
    return out


def hessians(ys, xs, name="hessians", colocate_gradients_with_ops=False, gate_gradients=False,
             aggregation_method=None):
    """`tf.hessians`: for each x in `xs`, the second derivatives of sum(ys), shaped x.shape + x.shape (the
    x must have a static shape; its elements are differentiated one by one)."""
    graph = _state.graph
    if graph is None:
        raise RuntimeError(_EAGER_MESSAGE)
    xs_list = nest.flatten(xs)
    out = []
    with graph.name_scope(name or "hessians"):
        firsts = gradients(ys, xs_list)
        for x, first in zip(xs_list, firsts):
            if first is None:
                raise ValueError("None values not supported.")     # TensorFlow's text: x is not connected
            shape = x.shape
            if not shape.is_fully_defined():
                raise ValueError(f"tf.hessians needs a static shape for each x; got {shape} for {x.name}.")
            flat = _shaping.reshape(first, [-1])
            rows = []
            for i in range(shape.num_elements()):
                second = gradients(flat[i], x)[0]
                rows.append(second if second is not None else _creation.zeros_like(x))
            stacked = _join.stack(rows) if rows else _creation.zeros(shape.as_list() * 2, x.dtype)
            out.append(_shaping.reshape(stacked, shape.as_list() + shape.as_list()))
    return out


API = {"": ["gradients", "hessians"]}
