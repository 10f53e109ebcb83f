"""ONNX handlers for control flow, nested calls, variables and TensorLists.

- `If`/`StatelessIf` become ONNX `If`: each branch FuncGraph becomes a subgraph without inputs whose
  placeholders are bound to the values the op passes in (ONNX subgraphs read enclosing values by name).
- `While`/`StatelessWhile` become ONNX `Loop`: the condition is converted once before the loop (the first
  test) and once at the end of the body (the test for the next iteration); `maximum_iterations` is the
  Loop's trip count. Loop variables are the Loop's carried values.
- `StatefulPartitionedCall` (a tf.function called from another) is inlined.
- `ReadVariableOp` of a captured variable reads an initializer holding the variable's value at export.
- TensorLists (what tf.TensorArray and Keras RNNs build in loops) become ONNX sequences.
"""
import numpy as np

from ...types import dtypes as _dt
from .builder import GraphBuilder, VariableInput, handles, unsupported


def _bind(placeholders, values, op):
    if len(placeholders) != len(values):
        raise unsupported(op, f"its graph takes {len(placeholders)} inputs but the op passes {len(values)}")
    return {id(p): v for p, v in zip(placeholders, values)}


def subgraph_outputs(sub, names, tensors, hint):
    """Output names of a subgraph: fresh Identity copies (an ONNX graph output must be made inside it)."""
    outs = []
    for i, (name, t) in enumerate(zip(names, tensors)):
        if isinstance(name, VariableInput):
            raise NotImplementedError(f"ONNX export cannot return the variable handle '{t.name}' from a "
                                      f"control-flow body.")
        out = sub.op("Identity", [name], f"{hint}/out{i}")
        _same_sequence(sub.ctx, name, out)
        outs.append(out)
    return outs


def _same_sequence(ctx, source, target):
    if source in ctx.sequence_elem:
        ctx.sequence_elem[target] = ctx.sequence_elem[source]


def _branch(b, graph, env, op, hint):
    sub = GraphBuilder(b.ctx, parent=b)
    names = sub.convert(graph, env, graph.outputs)
    outs = subgraph_outputs(sub, names, graph.outputs, hint)
    infos = [sub.value_info(n, t, with_shape=False) for n, t in zip(outs, graph.outputs)]
    return sub.graph(hint, [], infos, outs), outs


@handles("If", "StatelessIf")
def _if(b, op, ins):
    n_then = op.attrs["n_then"]
    then_graph, else_graph = op.attrs["then_graph"], op.attrs["else_graph"]
    pred = ins[0]
    if op.inputs[0].dtype is not _dt.bool:   # TensorFlow tests a non-boolean predicate for being non-zero
        pred = b.op("Cast", [pred], f"{op.name}/pred", to=b.ctx.elem_type(_dt.bool))
    then_proto, then_outs = _branch(b, then_graph, _bind(then_graph.inputs, ins[1:1 + n_then], op), op,
                                    f"{op.name}/then")
    else_proto, _ = _branch(b, else_graph, _bind(else_graph.inputs, ins[1 + n_then:], op), op, f"{op.name}/else")
    outs = b.node("If", [pred], op.name, len(op.outputs), then_branch=then_proto, else_branch=else_proto)
    for source, out in zip(then_outs, outs):
        _same_sequence(b.ctx, source, out)
    return outs


@handles("While", "StatelessWhile")
def _while(b, op, ins):
    n_vars, n_cond = op.attrs["n_vars"], op.attrs["n_cond"]
    cond_graph, body_graph = op.attrs["cond_graph"], op.attrs["body_graph"]
    if len(op.outputs) != n_vars:
        raise unsupported(op, "a loop that keeps its iteration history for gradients")
    init, cond_captures, rest = list(ins[:n_vars]), list(ins[n_vars:n_vars + n_cond]), list(ins[n_vars + n_cond:])
    limit = rest.pop() if op.attrs.get("has_max") else None
    body_captures = rest
    for value, t in zip(init, op.inputs):
        if isinstance(value, VariableInput):
            raise unsupported(op, f"the loop variable '{t.name}' is a variable handle")
    ctx = b.ctx
    # The first test runs before the loop, in the enclosing graph.
    keep_going = b.convert(cond_graph, _bind(cond_graph.inputs, init + cond_captures, op), cond_graph.outputs)[0]
    body = GraphBuilder(ctx, parent=b)
    iteration = ctx.unique(f"{op.name}/iteration")
    cond_in = ctx.unique(f"{op.name}/cond_in")
    carried = [ctx.unique(f"{op.name}/var{i}") for i in range(n_vars)]
    for source, name in zip(init, carried):
        _same_sequence(ctx, source, name)
    updated = body.convert(body_graph, _bind(body_graph.inputs, carried + body_captures, op), body_graph.outputs)
    again = body.convert(cond_graph, _bind(cond_graph.inputs, list(updated) + cond_captures, op),
                         cond_graph.outputs)[0]
    outs = subgraph_outputs(body, [again] + list(updated), cond_graph.outputs + body_graph.outputs,
                            f"{op.name}/body")
    helper = ctx.helper
    inputs = [helper.make_tensor_value_info(iteration, ctx.elem_type(np.int64), []),
              helper.make_tensor_value_info(cond_in, ctx.elem_type(np.bool_), [])]
    inputs += [body.value_info(n, t, with_shape=False) for n, t in zip(carried, op.inputs[:n_vars])]
    infos = [body.value_info(n, t, with_shape=False)
             for n, t in zip(outs, cond_graph.outputs + list(op.inputs[:n_vars]))]
    loop_body = body.graph(f"{op.name}/body", inputs, infos, outs)
    trip_count = "" if limit is None else b.as_int64(limit, f"{op.name}/maximum_iterations")
    results = b.node("Loop", [trip_count, keep_going] + init, op.name, n_vars, body=loop_body)
    for source, out in zip(init, results):
        _same_sequence(ctx, source, out)
    return results


@handles("StatefulPartitionedCall")
def _call(b, op, ins):
    graph = op.attrs.get("graph")
    if graph is None:
        graph = op.attrs["concrete"].graph
    return b.convert(graph, _bind(graph.inputs, ins, op), graph.outputs)


@handles("ReadVariableOp")
def _read_variable(b, op, ins):
    if not isinstance(ins[0], VariableInput):
        raise unsupported(op, "it reads a resource that is not a captured tf.Variable")
    return [b.ctx.variable(ins[0].variable)]


# -- TensorLists as ONNX sequences --------------------------------------------------------------------
def _sequence(b, name, dtype):
    b.ctx.sequence_elem[name] = b.ctx.elem_type(dtype)
    return name


@handles("TensorListReserve")
def _reserve(b, op, ins):
    elem = b.ctx.elem_type(op.attrs["dtype"])
    return [_sequence(b, b.op("SequenceEmpty", [], op.name, dtype=elem), op.attrs["dtype"])]


@handles("TensorListFromTensor")
def _from_tensor(b, op, ins):
    out = b.op("SplitToSequence", [ins[0]], op.name, axis=0, keepdims=0)
    return [_sequence(b, out, op.inputs[0].dtype)]


@handles("TensorListGetItem")
def _get_item(b, op, ins):
    return [b.op("SequenceAt", ins[:2], op.name)]


@handles("TensorListSetItem")
def _set_item(b, op, ins):
    """Writing item i: an overwrite (erase, then insert) when the list already holds i items or more, an
    append otherwise. Writes in order from 0 (how TensorArrays are filled in loops) are exact."""
    seq, index, value = ins
    ctx = b.ctx
    index64 = b.as_int64(index, f"{op.name}/index")
    length = b.op("SequenceLength", [seq], f"{op.name}/length")
    overwrite = b.op("Less", [index64, length], f"{op.name}/overwrite")
    elem = ctx.sequence_elem.get(seq)
    if elem is None:
        raise unsupported(op, "the list's element type is unknown")
    replace = GraphBuilder(ctx, parent=b)
    erased = replace.op("SequenceErase", [seq, index64], f"{op.name}/erased")
    replaced = replace.op("SequenceInsert", [erased, value, index64], f"{op.name}/replaced")
    append = GraphBuilder(ctx, parent=b)
    appended = append.op("SequenceInsert", [seq, value], f"{op.name}/appended")
    info = ctx.helper.make_tensor_sequence_value_info
    then_branch = replace.graph(f"{op.name}/replace", [], [info(replaced, elem, None)], [replaced])
    else_branch = append.graph(f"{op.name}/append", [], [info(appended, elem, None)], [appended])
    out = b.op("If", [overwrite], op.name, then_branch=then_branch, else_branch=else_branch)
    ctx.sequence_elem[out] = elem
    return [out]


@handles("TensorListStack")
def _stack(b, op, ins):
    return [b.op("ConcatFromSequence", [ins[0]], op.name, axis=0, new_axis=1)]


@handles("TensorListLength")
def _length(b, op, ins):
    n = b.op("SequenceLength", [ins[0]], f"{op.name}/int64")
    return [n if op.outputs[0].dtype is _dt.int64 else b.cast(n, op.outputs[0].dtype, op.name)]
