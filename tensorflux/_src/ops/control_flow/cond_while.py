"""Graph control flow: `tf.cond` (If), `tf.while_loop` (While), `tf.case`, `tf.switch_case`.

Eagerly these run as plain Python. While a graph is being built, each branch / the loop condition and
body are traced once into their own FuncGraph (captured outer tensors become extra inputs), and one
`If`/`While` op holds them as attributes; the codegen emits a real Python `if` / `while` around the
inlined branch bodies, so only the taken branch runs and a loop runs a data-dependent number of times.

Invariants: branch outputs agree in structure and dtype (shapes are relaxed to their most specific
common shape); a loop variable keeps its dtype, and its shape must be a subtype of its shape invariant.
Ops are `If`/`While` when a branch or body holds a stateful op, `StatelessIf`/`StatelessWhile` otherwise.

    tf.cond(x > 0, lambda: x, lambda: -x)
    tf.while_loop(lambda i: i < 10, lambda i: i + 1, [0])
"""
import weakref

import numpy as np

from ...framework import nest
from ...framework.context import autograph_callable, state as _state
from ...framework.graph import FuncGraph, Operation
from ...framework.tensor import Tensor
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..math import arith as _math
from ..convert import convert_to_tensor
from ..registry import OpDef, apply
from ..shapes.shape_ops import identity

__all__ = ["cond", "while_loop", "case", "switch_case", "CompositeFlow", "trace_branch", "build_if",
           "build_while", "LoopVar", "graph_tensor", "return_conversions"]


def _infer_from_attrs(inputs, attrs):
    return list(attrs["output_types"])


def _no_kernel(*arrays, **attrs):
    raise NotImplementedError("control-flow ops run through the generated code, not as kernels")


IF = OpDef("If", _infer_from_attrs, _no_kernel, stateful=True, multi=True, input_names=())
STATELESS_IF = OpDef("StatelessIf", _infer_from_attrs, _no_kernel, multi=True, input_names=())
WHILE = OpDef("While", _infer_from_attrs, _no_kernel, stateful=True, multi=True, input_names=())
STATELESS_WHILE = OpDef("StatelessWhile", _infer_from_attrs, _no_kernel, multi=True, input_names=())


class CompositeFlow:
    """Protocol for Python objects that travel through cond/while as tensors (TensorArray does).

    `_flow_tensors()` gives the tensors that carry the object's state; `_with_flow(tensors)` rebuilds an
    object of the same kind around new tensors.
    """

    def _flow_tensors(self):
        raise NotImplementedError

    def _with_flow(self, tensors):
        raise NotImplementedError


def _flatten(structure):
    """Flat tensors of a structure, expanding CompositeFlow objects."""
    out = []
    for leaf in nest.flatten(structure):
        if isinstance(leaf, CompositeFlow):
            out.extend(leaf._flow_tensors())
        else:
            out.append(leaf)
    return out


def _pack(structure, flat):
    it = iter(flat)
    leaves = []
    for leaf in nest.flatten(structure):
        if isinstance(leaf, CompositeFlow):
            n = len(leaf._flow_tensors())
            leaves.append(leaf._with_flow([next(it) for _ in range(n)]))
        else:
            leaves.append(next(it))
    return nest.pack_sequence_as(structure, leaves)


def _has_stateful(graph):
    return any(op.opdef is not None and op.opdef.stateful for op in graph.get_operations())


def trace_branch(fn, name, args=()):
    """Traces `fn(*placeholders for args)` into a FuncGraph nested in the current graph.

    Returns `(graph, result)` with the raw Python result; callers turn results into graph tensors with
    `graph_tensor(graph, value)`.
    """
    outer = _state.graph
    graph = FuncGraph(name, outer_graph=outer)
    _state.graph = graph
    try:
        placeholders = [graph.placeholder(t.dtype, t.shape, t.name or f"arg_{i}") if isinstance(t, LoopVar) else t
                        for i, t in enumerate(args)]
        result = fn(*placeholders)
    finally:
        _state.graph = outer
        graph.mark_out_of_scope()
    return graph, result


def _trace_branch(fn, name, args=()):
    graph, result = trace_branch(fn, name, args)
    return graph, result, [graph_tensor(graph, t) for t in _flatten(result)]


class LoopVar:
    """The dtype, shape invariant and (for messages and placeholder names) name of a loop variable."""

    __slots__ = ("dtype", "shape", "name")

    def __init__(self, dtype, shape, name=None):
        self.dtype = dtype
        self.shape = shape
        self.name = name


def graph_tensor(graph, value):
    """`value` as a tensor of `graph` (captured if it comes from outside, converted if a Python value)."""
    if value is None:
        raise ValueError("A branch or loop body of a graph control-flow op returned None; every output must "
                         "be a tensor or a value convertible to one.")
    if isinstance(value, Tensor):
        if getattr(value, "op", None) is not None and value.op.graph is graph:
            return value
        return graph._graph_input(value)
    previous = _state.graph
    _state.graph = graph
    try:
        tensor = convert_to_tensor(value)
    finally:
        _state.graph = previous
    if getattr(tensor, "op", None) is not None and tensor.op.graph is graph:
        _RETURN_CONVERSIONS.setdefault(graph, set()).add(id(tensor.op))
    return tensor


# Ops made by converting a Python value that a branch or loop body returned. TensorFlow converts each such
# value when the function returns, next to that output's Identity; the graph exporter places them there.
_RETURN_CONVERSIONS = weakref.WeakKeyDictionary()


def return_conversions(graph):
    """ids of the ops of `graph` that converted a returned Python value (see `graph_tensor`)."""
    return _RETURN_CONVERSIONS.get(graph, frozenset())


# -- cond ------------------------------------------------------------------------------------------
def cond(pred, true_fn=None, false_fn=None, name=None):
    """Returns `true_fn()` if `pred` else `false_fn()`; in graphs, one If op (only the taken branch runs)."""
    if not callable(true_fn) or not callable(false_fn):
        raise TypeError("true_fn and false_fn must be callable.")
    if _state.graph is None:
        return true_fn() if bool(pred) else false_fn()
    if isinstance(pred, bool):  # as in TensorFlow: a graph cond needs a tensor predicate
        raise TypeError("pred must not be a Python bool", pred)
    true_fn, false_fn = autograph_callable(true_fn), autograph_callable(false_fn)
    pred = convert_to_tensor(pred)
    if pred.dtype is not _dt.bool or (pred.shape.rank not in (None, 0)):
        raise ValueError(f"`pred` must be a scalar boolean tensor, got {pred!r}")
    then_graph, then_result = trace_branch(true_fn, "cond_true")
    else_graph, else_result = trace_branch(false_fn, "cond_false")
    if _no_value(then_result) and _no_value(else_result):  # branches run only for their side effects
        build_if(pred, then_graph, [], else_graph, [], name)
        return None
    if _no_value(then_result) or _no_value(else_result):  # a branch returning None has no outputs at all
        counts = [0 if _no_value(r) else len(_flatten(r)) for r in (then_result, else_result)]
        raise ValueError(f"Lengths of branch outputs of cond must match.\nlen(graphs[0].outputs): {counts[0]}\n"
                         f"len(graphs[1].outputs): {counts[1]}\n")
    then_flat = [graph_tensor(then_graph, t) for t in _flatten(then_result)]
    else_flat = [graph_tensor(else_graph, t) for t in _flatten(else_result)]
    try:
        nest.assert_same_structure(_struct(then_result), _struct(else_result))
    except (ValueError, TypeError) as e:
        raise ValueError(f"true_fn and false_fn arguments to tf.cond must have the same number, type, and overall "
                         f"structure of return values.\n\ntrue_fn output: {then_result}\nfalse_fn output: "
                         f"{else_result}\n\nError details:\n{e}") from None
    for i, (a, b) in enumerate(zip(then_flat, else_flat)):
        if a.dtype is not b.dtype:
            raise TypeError(f"true_fn and false_fn arguments to tf.cond must have the same number, type, and overall "
                            f"structure of return values.\n\ntrue_fn output: {then_result}\nfalse_fn output: "
                            f"{else_result}\n\nError details:\nOutput {i} of true_fn has dtype {a.dtype.name}, "
                            f"but output {i} of false_fn has dtype {b.dtype.name}.")
    outs = build_if(pred, then_graph, then_flat, else_graph, else_flat, name)
    return _pack(then_result, list(outs))


def build_if(pred, then_graph, then_flat, else_graph, else_flat, name=None):
    """Adds one If/StatelessIf op over two traced branches whose flat outputs agree in dtype."""
    output_types = [(a.dtype, a.shape.most_specific_compatible_shape(b.shape)) for a, b in zip(then_flat, else_flat)]
    then_graph.outputs, else_graph.outputs = list(then_flat), list(else_flat)
    inputs = [pred] + then_graph.external_captures + else_graph.external_captures
    opdef = IF if (_has_stateful(then_graph) or _has_stateful(else_graph)) else STATELESS_IF
    outs = apply(opdef, inputs, {"then_graph": then_graph, "else_graph": else_graph,
                                 "n_then": len(then_graph.external_captures), "output_types": output_types},
                 name or "cond")
    if not isinstance(outs, tuple) or not outs:   # no outputs: the Operation itself
        return outs
    # As TensorFlow does, each output leaves the op through an Identity in the op's name scope
    # ("cond/Identity", "cond/Identity_1"), the names users see when they print a cond's result.
    with _state.graph.name_scope(outs[0].op.name + "/"):
        return tuple(identity(t) for t in outs)


def _no_value(result):
    """A branch result that carries no tensor: None, or operations (a print, an assign) only."""
    return all(leaf is None or isinstance(leaf, Operation) for leaf in nest.flatten(result))


def _struct(result):
    """The structure of a branch result with CompositeFlow objects as leaves (for comparison)."""
    return nest.map_structure(lambda x: 0, result) if nest.is_nested(result) else 0


# -- while_loop ------------------------------------------------------------------------------------
def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10, back_prop=True,
               swap_memory=False, maximum_iterations=None, name=None):
    """Repeats `body` while `cond` is true; in graphs, one While op whose body runs as a Python loop."""
    if not callable(cond) or not callable(body):
        raise TypeError("cond and body must be callable.")
    if _state.graph is None:
        return _eager_while(cond, body, loop_vars, maximum_iterations)
    cond, body = autograph_callable(cond), autograph_callable(body)
    packed = isinstance(loop_vars, (list, tuple)) and not hasattr(loop_vars, "_fields")
    structure = list(loop_vars) if packed else [loop_vars]
    flat = [convert_to_tensor(t) if not isinstance(t, Tensor) else t for t in _flatten(structure)]
    invariants = _shape_invariants(flat, shape_invariants, packed)
    if maximum_iterations is not None:
        maximum_iterations = convert_to_tensor(maximum_iterations, dtype=_dt.int32)
    specs = [LoopVar(t.dtype, s) for t, s in zip(flat, invariants)]

    def cond_flat(*args):
        return cond(*_pack(structure, args))

    def body_flat(*args):
        out = body(*_pack(structure, args))
        if not isinstance(out, (list, tuple)) or hasattr(out, "_fields"):
            out = [out]
        out = list(out)
        try:
            nest.assert_same_structure(_struct(structure), _struct(out), check_types=False)
        except (ValueError, TypeError) as e:
            raise ValueError(f"The body of tf.while_loop must return the same structure as loop_vars.\n{e}") \
                from None
        return out

    cond_graph, _, cond_flat_out = _trace_branch(cond_flat, "while_cond", specs)
    if len(cond_flat_out) != 1 or cond_flat_out[0].dtype is not _dt.bool:
        raise TypeError(f"The condition of tf.while_loop must return a single boolean tensor, got {cond_flat_out}")
    body_graph, body_result, body_out = _trace_branch(body_flat, "while_body", specs)
    if len(body_out) != len(flat):
        raise ValueError(f"The body of tf.while_loop returned {len(body_out)} tensors, but the loop has "
                         f"{len(flat)} loop variables.")
    for var, out, inv in zip(flat, body_out, invariants):
        if out.dtype is not var.dtype:
            raise TypeError(f"Loop var {_var_name(var)} enters the loop with type {var.dtype} but has type "
                            f"{out.dtype} after 1 iteration. {_var_name(var)} type should remain constant.")
        if not out.shape.is_subtype_of(inv):
            raise ValueError(f"Input tensor `{_var_name(var)}` enters the loop with shape {inv}, but has shape "
                             f"{out.shape} after one iteration. To allow the shape to vary across iterations, use "
                             f"the `shape_invariants` argument of tf.while_loop to specify a less-specific shape.")
    outs = build_while(flat, specs, cond_graph, cond_flat_out[0], body_graph, body_out, maximum_iterations, name)
    result = _pack(structure, list(outs))
    return result if packed else result[0]


def build_while(init, specs, cond_graph, keep_going, body_graph, body_out, maximum_iterations=None, name=None):
    """Adds one While/StatelessWhile op over a traced condition and body (checked by the caller)."""
    cond_graph.outputs, body_graph.outputs = [keep_going], list(body_out)
    inputs = list(init) + cond_graph.external_captures + body_graph.external_captures
    attrs = {"cond_graph": cond_graph, "body_graph": body_graph, "n_vars": len(init),
             "n_cond": len(cond_graph.external_captures), "output_types": [(s.dtype, s.shape) for s in specs],
             "has_max": maximum_iterations is not None}
    if maximum_iterations is not None:
        inputs.append(maximum_iterations)
    name = name or "while"
    attrs["lead"] = _loop_lead_constants(name, maximum_iterations)
    opdef = WHILE if (_has_stateful(cond_graph) or _has_stateful(body_graph)) else STATELESS_WHILE
    outs = apply(opdef, inputs, attrs, name)
    # a loop of no variables (a body that only updates variables) has no outputs: apply returns its op
    return outs if init else []


def _loop_lead_constants(name, maximum_iterations):
    """TensorFlow's While carries an iteration counter and its limit ahead of the loop variables, made as
    constants in the loop's name scope (`while/loop_counter`; `while/maximum_iterations`, -1 when the
    loop has no limit). The loop here counts in its generated code; the constants are kept as the graph's
    record of them (graphs list them, the GraphDef exporter wires them into the While node)."""
    graph = _state.graph
    parent = name.rpartition("/")[0]
    scope = graph.unique_name(name, mark_as_used=False).rpartition("/")[2]
    scope = f"{parent}/{scope}" if parent else scope
    limit = None
    if maximum_iterations is None:
        limit = graph.add_constant(np.asarray(-1, np.int32), f"{scope}/maximum_iterations")
    counter = graph.add_constant(np.asarray(0, np.int32), f"{scope}/loop_counter")
    return counter, limit


def _var_name(t):
    return getattr(t, "name", None) if getattr(t, "op", None) is not None else repr(t)


def _shape_invariants(flat, shape_invariants, packed):
    if shape_invariants is None:
        return [t.shape for t in flat]
    inv = _flatten(list(shape_invariants) if packed else [shape_invariants])
    if len(inv) != len(flat):
        raise ValueError("shape_invariants must have the same structure as loop_vars.")
    out = []
    for t, s in zip(flat, inv):
        s = TensorShape(s)
        if not t.shape.is_subtype_of(s):
            raise ValueError(f"The shape invariant specified for {_var_name(t)} is not compatible with the initial "
                             f"shape of the loop variable. It enters the loop with shape {t.shape}, but the "
                             f"specified shape invariant is {s}.")
        out.append(s)
    return out


def _eager_while(cond, body, loop_vars, maximum_iterations):
    packed = isinstance(loop_vars, (list, tuple)) and not hasattr(loop_vars, "_fields")
    values = loop_vars if packed else [loop_vars]
    n = 0
    limit = int(maximum_iterations) if maximum_iterations is not None else None
    while limit is None or n < limit:
        if not bool(cond(*values)):
            break
        values = body(*values)
        if not isinstance(values, (list, tuple)) or hasattr(values, "_fields"):
            values = [values]
        n += 1
    return values if packed else values[0]


# -- case / switch_case ----------------------------------------------------------------------------
def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """The first `fn` whose `pred` is true (or `default`), as nested conds."""
    pairs = list(pred_fn_pairs.items()) if isinstance(pred_fn_pairs, dict) else list(pred_fn_pairs)
    if default is None:
        if not pairs:
            raise ValueError("pred_fn_pairs must not be empty when there is no default.")
        *pairs, (_, default) = pairs
    result = default
    for pred, fn in reversed(pairs):
        result = (lambda p=pred, f=fn, rest=result: lambda: cond(p, f, rest))()
    return result()


def switch_case(branch_index, branch_fns, default=None, name="switch_case"):
    """`branch_fns[branch_index]()` (or `default` when out of range), as nested conds in graphs."""
    fns = [fn for _, fn in sorted(branch_fns.items())] if isinstance(branch_fns, dict) else \
        [fn[1] if isinstance(fn, tuple) else fn for fn in branch_fns]
    if default is None:
        default = fns[-1]
    if _state.graph is None:
        i = int(branch_index)
        return fns[i]() if 0 <= i < len(fns) else default()
    index = convert_to_tensor(branch_index)
    result = default
    for i in reversed(range(len(fns))):
        result = (lambda k=i, f=fns[i], rest=result: lambda: cond(_equal(index, k), f, rest))()
    return result()


def _equal(t, k):
    return _math.equal(t, k)


API = {
    "": ["cond", "while_loop", "case", "switch_case"],
}
