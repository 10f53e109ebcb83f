"""Gradients of graph control flow: If (a cond of branch gradients) and While (a reverse loop).

If: each gradient branch replays its forward branch on the If's inputs and backpropagates through the
replayed ops; inputs of the other branch get zeros, so both branches return the same structure.

While: the forward loop is told to keep its per-iteration loop variables (`keep_history`, an extra
`variant` output); the gradient is one `WhileGrad` op that walks that history backwards, running a
traced body-gradient graph once per iteration and summing the gradients of the captured tensors.

    x = tf.constant(2.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * x), [0, 1.0])[1]   # x**3
    t.gradient(y, x)   # 12.0
"""
from ..framework.context import state as _state
from ..framework.graph import SymbolicTensor
from ..ops.control_flow import cond_while as _cf
from ..ops.control_flow import tensor_array as _tensor_array
from ..ops.registry import OPS, OpDef, apply
from ..types import dtypes as _dt
from ..types.shape import TensorShape
from . import while_reverse_loop as _reverse
from .backprop import backprop

__all__ = ["replay", "WHILE_GRAD"]


def replay(ops, mapping):
    """Re-creates `ops` in the graph being built, inputs looked up in `mapping` (id → tensor), and
    returns the new ops (the records backprop walks). Stateful ops other than reads are not replayed."""
    graph = _state.graph
    records = []
    for op in ops:
        if op.type == "Placeholder":
            continue
        if op.type == "Const":
            mapping[id(op.outputs[0])] = graph.add_constant(op.attrs["value"], op.name)
            continue
        if op.opdef.stateful and op.type not in ("ReadVariableOp", "If", "While"):
            continue  # side effects (assign, print, random) are not part of the derivative's computation
        try:
            inputs = [mapping[id(t)] for t in op.inputs]
        except KeyError:
            raise NotImplementedError(
                f"Cannot differentiate through '{op.name}' ({op.type}) inside a tf.cond/tf.while_loop: it "
                f"depends on a stateful op whose value cannot be recomputed.") from None
        # A fresh attrs dict: differentiating the replayed op later must not touch the original's, and a
        # loop differentiated before keeps its history output only on the original.
        attrs = {k: v for k, v in op.attrs.items() if k != "keep_history"}
        outs = apply(op.opdef, inputs, attrs, op.name)
        outs = outs if op.opdef.multi else (outs,)
        for old, new in zip(op.outputs, outs):
            mapping[id(old)] = new
        if outs:
            records.append(outs[0].op)
    return records


def _differentiable(t):
    d = t.dtype
    return d.is_floating or d.is_complex or d is _dt.resource or d is _dt.variant


def _zeros_for(t):
    """Zeros shaped like the gradient of `t` (a variable's value for a resource handle)."""
    if t.dtype is _dt.resource:
        variable = _state.graph.variable_of(t) if hasattr(_state.graph, "variable_of") else None
        graph_t = t
        if variable is None:
            outer = getattr(t.op.graph, "variable_of", None)
            variable = outer(t) if outer else None
        if variable is None:
            raise NotImplementedError("gradient of an unknown resource inside control flow")
        read = apply(OPS["ReadVariableOp"], (graph_t,), variable._read_attrs, "ReadVariableOp")
        return _tensor_array.gradient_zeros(read)
    return _tensor_array.gradient_zeros(t)


def _value_of(t):
    """`t` itself, or for a resource handle the value of the variable it stands for."""
    if t.dtype is not _dt.resource:
        return t
    graph = _state.graph
    variable = graph.variable_of(graph._graph_input(t)) if hasattr(graph, "variable_of") else None
    if variable is None:
        variable = getattr(t, "_variable", None)
    if variable is None:
        raise NotImplementedError("gradient of an unknown resource captured by a loop")
    return apply(OPS["ReadVariableOp"], (t,), variable._read_attrs, "ReadVariableOp")


# -- If ----------------------------------------------------------------------------------------------
def _if_grad(op, *grads):
    then_graph, else_graph, n_then = op.attrs["then_graph"], op.attrs["else_graph"], op.attrs["n_then"]
    pred, then_ins, else_ins = op.inputs[0], op.inputs[1:1 + n_then], op.inputs[1 + n_then:]
    wanted = [i for i, t in enumerate(op.inputs[1:]) if _differentiable(t)]
    if not wanted:
        return [None] * len(op.inputs)

    def branch(graph, own, offset):
        def fn():
            inner = _state.graph
            sources = [inner._graph_input(t) for t in own]
            mapping = {id(p): s for p, s in zip(graph.inputs, sources)}
            records = replay(graph.get_operations(), mapping)
            targets = [mapping[id(t)] for t in graph.outputs]
            seeds = [inner._graph_input(g) for g in grads]
            got = backprop(records, targets, seeds, sources)
            result = []
            for i in wanted:
                if offset <= i < offset + len(own) and got[i - offset] is not None:
                    result.append(got[i - offset])
                else:
                    result.append(_zeros_for(inner._graph_input(op.inputs[1 + i])))
            return result
        return fn

    outs = _cf.cond(pred, branch(then_graph, then_ins, 0), branch(else_graph, else_ins, n_then))
    result = [None] * len(op.inputs)
    for i, g in zip(wanted, outs if isinstance(outs, (list, tuple)) else [outs]):
        result[1 + i] = g
    return result


# -- While -------------------------------------------------------------------------------------------
def _while_grad_infer(inputs, attrs):
    return list(attrs["output_types"])


def _no_kernel(*arrays, **attrs):
    raise NotImplementedError("WhileGrad runs through the generated code")


WHILE_GRAD = OpDef("WhileGrad", _while_grad_infer, _no_kernel, multi=True)


def _while_grad(op, *grads):
    attrs = op.attrs
    n_vars, n_cond = attrs["n_vars"], attrs["n_cond"]
    body_graph = attrs["body_graph"]
    n_body = len(body_graph.external_captures)
    body_caps = op.inputs[n_vars + n_cond:n_vars + n_cond + n_body]
    if not attrs.get("keep_history"):
        op.attrs = attrs = {**attrs, "keep_history": True}  # a new dict: copies of this op may share the old one
        op.outputs.append(SymbolicTensor(op, len(op.outputs), _dt.variant, TensorShape([])))
        _reverse.watch_history(op, op.outputs[n_vars])
    history = op.outputs[n_vars]
    history_grad = grads[n_vars] if len(grads) > n_vars else None
    cap_positions = [k for k, t in enumerate(body_caps) if _differentiable(t)]
    if _reverse.wants_differentiable_gradient(history_grad):
        # Another gradient may be taken of this one: a While of ordinary ops instead of a WhileGrad.
        seeds = [g if g is not None else _tensor_array.gradient_zeros(t)
                 for g, t in zip(grads[:n_vars], op.outputs[:n_vars])]
        templates = [_value_of(body_caps[k]) for k in cap_positions]
        outs = _reverse.differentiable_reverse_loop(op, history, history_grad, seeds, templates, cap_positions,
                                                    replay)
        return _input_grads(op, outs, n_vars, n_cond, cap_positions)
    var_specs = [_cf.LoopVar(p.dtype, p.shape, f"v{i}") for i, p in enumerate(body_graph.inputs[:n_vars])]
    grad_specs = [_cf.LoopVar(p.dtype, p.shape, f"g{i}") for i, p in enumerate(body_graph.inputs[:n_vars])]

    def body_grad(*args):
        inner = _state.graph
        loop_vars, seeds = list(args[:n_vars]), list(args[n_vars:])
        caps = [inner._graph_input(t) for t in body_caps]
        mapping = {id(p): v for p, v in zip(body_graph.inputs, loop_vars + caps)}
        records = replay(body_graph.get_operations(), mapping)
        targets = [mapping[id(t)] for t in body_graph.outputs]
        got = backprop(records, targets, seeds, loop_vars + [caps[k] for k in cap_positions])
        out = [g if g is not None else _tensor_array.gradient_zeros(v) for g, v in zip(got[:n_vars], loop_vars)]
        for k, g in zip(cap_positions, got[n_vars:]):
            out.append(g if g is not None else _zeros_for(caps[k]))
        return out

    grad_graph, grad_out = _cf.trace_branch(body_grad, "while_body_grad", var_specs + grad_specs)
    grad_out = [_cf.graph_tensor(grad_graph, t) for t in grad_out]
    grad_graph.outputs = grad_out
    seeds = [g if g is not None else _tensor_array.gradient_zeros(t) for g, t in zip(grads[:n_vars], op.outputs[:n_vars])]
    # What a captured tensor's gradient is when the loop runs zero times: zeros shaped like its value (a
    # variable's value for a handle), taken at run time so unknown static shapes are fine.
    templates = [_value_of(body_caps[k]) for k in cap_positions]
    inputs = [history] + seeds + templates + grad_graph.external_captures
    output_types = [(t.dtype, t.shape) for t in grad_out]
    outs = apply(WHILE_GRAD, inputs, {"grad_graph": grad_graph, "n_vars": n_vars, "n_templates": len(templates),
                                       "output_types": output_types}, "while_grad")
    return _input_grads(op, outs, n_vars, n_cond, cap_positions)


def _input_grads(op, outs, n_vars, n_cond, cap_positions):
    """The While's input gradients from a reverse loop's outputs (loop variables', then captures')."""
    result = [None] * len(op.inputs)
    for i in range(n_vars):
        if _differentiable(op.inputs[i]):
            result[i] = outs[i]
    for k, g in zip(cap_positions, outs[n_vars:]):
        result[n_vars + n_cond + k] = g
    return result


for _name in ("If", "StatelessIf"):
    OPS[_name].grad = _if_grad
for _name in ("While", "StatelessWhile"):
    OPS[_name].grad = _while_grad
    # Outputs no gradient reached arrive as None: the history output's gradient must be told apart from
    # "none" (a higher-order gradient sends one), and seeds are zero-filled above anyway.
    OPS[_name].none_grads = True
