"""A While's gradient that can be differentiated again: the reverse loop as a While of ordinary ops.

A While's usual gradient is one `WhileGrad` op (control_flow_grads.py): the generated code walks the
forward loop's history backwards, running the traced body gradient per iteration. It is fast, but it has
no gradient of its own, so a second-order gradient through a loop inside a tf.function (the Keras RNN
layers' cell loops) could not be taken. When a tape still records while a While is differentiated (the
inner gradient of two nested tapes), or when the loop's history itself received a gradient (the outer
gradient, differentiating the first), the reverse loop is built here instead, from ops that all have
gradients:

    lists = WhileHistoryUnzip(history)          # per loop variable: its value at the start of each iteration
    t, g, acc = len(history) - 1, seeds, zeros
    while t >= 0:
        v = [TensorListGetItem(lists[k], t)]     # differentiable: its gradient is a one-item list
        g, cap_grads = vjp of the body at (v, captures), applied to g
        g[k] += history_grad[k][t]              # what a higher-order gradient sends into the history
        acc += cap_grads
        t -= 1

Differentiating this While again goes through the same code (a WhileGrad, or this form once more), and the
gradient reaching `lists` flows through WhileHistoryUnzip's gradient (WhileHistoryZip) into the forward
loop's history output, which the forward loop's next gradient adds in as above: any order works.
"""
import contextlib
import threading

from ..framework.context import state as _state
from ..ops.control_flow import cond_while as _cf
from ..ops.control_flow import tensor_array as _tensor_array
from ..ops.math import arith as _math
from ..ops.registry import OpDef, apply
from ..types import dtypes as _dt
from ..types.shape import TensorShape
from .backprop import backprop

__all__ = ["differentiable_reverse_loop", "wants_differentiable_gradient", "watch_history"]

_FLOW = (_dt.variant, TensorShape([]))


# -- the history as one list per loop variable, and back ------------------------------------------------
def _k_unzip(history, *, n):
    """((v0, v1, ...) per iteration) -> (v0 per iteration, v1 per iteration, ...)."""
    return tuple(tuple(step[k] for step in history) for k in range(n))


def _k_zip(history, *lists):
    """The transpose of _k_unzip for gradients: items a list lacks (or holds as None) are None (zero)."""
    return tuple(tuple(items[t] if t < len(items) else None for items in lists) for t in range(len(history)))


def _unzip_grad(op, *grads):
    lists = [g if g is not None else _tensor_array.gradient_zeros(out) for g, out in zip(grads, op.outputs)]
    return [apply(HISTORY_ZIP, [op.inputs[0]] + lists, None, "WhileHistoryZip")]


def _zip_grad(op, grad):
    n = len(op.inputs) - 1
    lists = apply(HISTORY_UNZIP, (grad,), {"n": n}, "WhileHistoryUnzip")
    return [None] + list(lists)


HISTORY_UNZIP = OpDef("WhileHistoryUnzip", lambda inputs, attrs: [_FLOW] * attrs["n"], _k_unzip,
                      grad=_unzip_grad, multi=True, input_names=("history",))
HISTORY_UNZIP.none_grads = True     # a loop variable whose list got no gradient passes None
HISTORY_ZIP = OpDef("WhileHistoryZip", lambda inputs, attrs: [_FLOW], _k_zip, grad=_zip_grad)


# -- when to build the differentiable form ----------------------------------------------------------------
_SYMBOLIC = threading.local()     # depth of tf.gradients calls building gradients in this thread


@contextlib.contextmanager
def symbolic_gradients():
    """While tf.gradients builds a graph's gradient, any of it may be differentiated again (tf.gradients of
    a tf.gradients result, tf.hessians): loops get the differentiable reverse loop."""
    _SYMBOLIC.depth = getattr(_SYMBOLIC, "depth", 0) + 1
    try:
        yield
    finally:
        _SYMBOLIC.depth -= 1


def wants_differentiable_gradient(history_grad):
    """True when the reverse loop may be differentiated again: a tape records while it is built, tf.gradients
    builds it, or the history received a gradient (this is already a higher-order gradient)."""
    return history_grad is not None or _state.tape_active or getattr(_SYMBOLIC, "depth", 0) > 0


def watch_history(op, history):
    """The history output appears after the loop was recorded: every tape that watches the loop's outputs
    watches it too, so the ops reading it are recorded and a gradient reaches it."""
    for tape in _state.tapes:
        if any(id(t) in tape._watched for t in op.outputs if t is not history):
            tape._watched[id(history)] = history


# -- the reverse loop -----------------------------------------------------------------------------------
def differentiable_reverse_loop(op, history, history_grad, seeds, templates, cap_positions, replay):
    """[gradient of each loop variable's initial value] + [gradient of each captured tensor at
    `cap_positions`], as the outputs of a While (see the module docstring). `seeds`: the gradients of
    the loop's outputs (zeros where none); `templates`: the values whose zeros start the captured
    tensors' sums; `replay(ops, mapping)`: control_flow_grads.replay."""
    attrs = op.attrs
    n_vars, n_cond, body_graph = attrs["n_vars"], attrs["n_cond"], attrs["body_graph"]
    body_caps = op.inputs[n_vars + n_cond:n_vars + n_cond + len(body_graph.external_captures)]
    var_specs = [_cf.LoopVar(p.dtype, p.shape) for p in body_graph.inputs[:n_vars]]
    lists = apply(HISTORY_UNZIP, (history,), {"n": n_vars}, "WhileHistoryUnzip") if n_vars else ()
    grad_lists = (apply(HISTORY_UNZIP, (history_grad,), {"n": n_vars}, "WhileHistoryUnzip")
                  if history_grad is not None and n_vars else None)
    accs = [_tensor_array.gradient_zeros(t) for t in templates]
    last = _math.subtract(apply(_tensor_array.LENGTH, (history,), None, "TensorListLength"), 1)
    specs = ([_cf.LoopVar(_dt.int32, TensorShape([]), "t")]
             + [_cf.LoopVar(s.dtype, s.shape, f"g{i}") for i, s in enumerate(var_specs)]
             + [_cf.LoopVar(a.dtype, a.shape, f"acc{i}") for i, a in enumerate(accs)])

    def cond(t, *_):
        return _math.greater_equal(t, 0)

    def body(t, *rest):
        inner = _state.graph
        grads, sums = list(rest[:n_vars]), list(rest[n_vars:])
        caps = [inner._graph_input(c) for c in body_caps]
        values = [apply(_tensor_array.GET_ITEM, (inner._graph_input(items), t),
                        {"dtype": s.dtype, "element_shape": s.shape}, "TensorListGetItem")
                  for items, s in zip(lists, var_specs)]
        mapping = {id(p): v for p, v in zip(body_graph.inputs, values + caps)}
        records = replay(body_graph.get_operations(), mapping)
        targets = [mapping[id(o)] for o in body_graph.outputs]
        got = backprop(records, targets, grads, values + [caps[k] for k in cap_positions])
        new_grads = [g if g is not None else _tensor_array.gradient_zeros(v) for g, v in zip(got[:n_vars], values)]
        if grad_lists is not None:
            for k, v in enumerate(values):
                if _differentiable(v):
                    extra = apply(_tensor_array.GET_OR_ZEROS, (inner._graph_input(grad_lists[k]), t, v), None,
                                  "TensorListGetItemOrZeros")
                    new_grads[k] = _tensor_array.add_gradients(new_grads[k], extra)
        new_sums = [s if g is None else _tensor_array.add_gradients(s, g) for s, g in zip(sums, got[n_vars:])]
        return [_math.subtract(t, 1)] + new_grads + new_sums

    cond_graph, keep_going = _cf.trace_branch(cond, "while_reverse_cond", specs)
    keep_going = _cf.graph_tensor(cond_graph, keep_going)
    body_graph_r, body_out = _cf.trace_branch(body, "while_reverse_body", specs)
    body_out = [_cf.graph_tensor(body_graph_r, v) for v in body_out]
    outs = _cf.build_while([last] + list(seeds) + accs, specs, cond_graph, keep_going, body_graph_r, body_out,
                           name="while_reverse")
    return list(outs[1:])


def _differentiable(t):
    d = t.dtype
    return d.is_floating or d.is_complex
