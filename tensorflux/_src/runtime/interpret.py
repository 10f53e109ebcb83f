"""The first call of a concrete function, run by walking its op list instead of generating code.

A function called once (a fresh `tf.function` traced and run, a script's one-off computation) would
otherwise pay for the optimising passes, the source generation and Python's `compile()` -- about 60 %
of tracing plus the first call for a 20-line AutoGraph function -- to run its ops a single time. The
interpreter runs that first call over the op list with only the passes that decide WHAT runs (nested
calls inlined, automatic control NoOps dropped, dead pure ops pruned, as TensorFlow's executor runs
only what is fetched or stateful); the second call compiles the graph as before.

Planning is one backward walk over the op list (`_plan_ops`): an op is live when a later live op reads
it, names it as a control input, or it is stateful; the first reader met walking back is a value's last,
where a large value is dropped (as generated code `del`s it). The graphs of an If or While are planned
when they first run, so a branch never taken costs nothing.

Values are the generated code's: every op is its kernel called with the op's attrs as keyword
arguments, in the op-list order, with 0-d numeric constants as NumPy scalars and the 0-d arithmetic
and comparisons codegen.py writes as Python operators run as those operators; If and While run as
Python `if` and `while` around their branch and body graphs (`has_max` and `keep_history` as codegen.py
emits them). What the skipped passes do (simplify, fold, CSE), fusion and buffer reuse never change a
value. A graph holding ops only the code generator can run (dataset loops, the reverse loop of a While
gradient) is not interpreted: `plan` returns None and the caller compiles; such an If/While graph met
while running is compiled alone (`_compiled_plan`).

A failing kernel's exception gets the failing op as `FAILED_OP_ATTRIBUTE` (the innermost op, as the
generated code's traceback line names it), so the caller can name the graph node.
"""
import operator
from operator import itemgetter

import numpy as np

from ..framework.graph import is_automatic_control_output
from ..framework.tensor import _as_stored
from ..types.dtypes import string as _STRING
from . import codegen
from .codegen import SPECIAL_TYPES
from .passes.inline import CALL_TYPES, inline_calls
from .passes.simplify import added_zero_source

__all__ = ["plan", "run", "runner", "FAILED_OP_ATTRIBUTE"]

FAILED_OP_ATTRIBUTE = "_tensorflux_failed_op"
_FREE_EARLY_ELEMENTS = 4096     # smaller intermediates stay until the graph returns (a `del` costs more)

_IF_TYPES = ("If", "StatelessIf")
_WHILE_TYPES = ("While", "StatelessWhile")
# op types `_step` decides by type before looking at the OpDef
_BY_TYPE = frozenset(_IF_TYPES + _WHILE_TYPES + ("Placeholder", "Const"))
_NOT_FREED = ("Placeholder", "Const")      # values held outside the graph's run (arguments, attrs)

# Step kinds. `_step` gives the first eight (runtime/regions.py builds plans from them too); a _Plan runs
# kernels as _UNARY/_BINARY/_NARY (one output, by input count: no argument list built for one or two).
(_CONST, _PLACEHOLDER, _KERNEL, _KERNEL_MULTI, _KERNEL_STRING, _KERNEL_NO_OUTPUT, _IF, _WHILE,
 _UNARY, _BINARY, _NARY) = range(11)

# 0-d arithmetic and comparisons generated code writes as Python operators on NumPy scalars
# (codegen._scalar_expression, whose conditions `_scalar_function` repeats): a first call computing a
# loop's trip count or testing a loop condition runs them the same way, not as kernel calls.
_SCALAR_FUNCTIONS = {"AddV2": operator.add, "Sub": operator.sub, "Mul": operator.mul, "RealDiv": operator.truediv,
                     "Less": operator.lt, "LessEqual": operator.le, "Greater": operator.gt,
                     "GreaterEqual": operator.ge, "Equal": operator.eq, "NotEqual": operator.ne,
                     "FloorMod": operator.mod, "FloorDiv": operator.floordiv, "Neg": operator.neg}
_INT_DIVISION = ("FloorMod", "FloorDiv")    # operators only for a non-zero constant divisor
_NO_ATTRS = {}


class _Plan:
    """One graph as steps, the values of its constants by id, the ids of its outputs and inputs, and
    `fetch`: the outputs' getter. `plan` makes steps (kind, kernel or nested plans, input id(s) or their
    getter, output id(s), attrs, ids of values dropped after it or None, op); `_Plan(steps, outputs,
    inputs)` keeps steps [kind, op, payload, frees] as `_step` and `_plan_frees` make them (consts None):
    runtime/regions.py assembles such plans and swaps a step's payload in place."""

    __slots__ = ("steps", "consts", "outputs", "inputs", "fetch")

    def __init__(self, steps, outputs, inputs):
        self.steps, self.consts = steps, None
        self.outputs, self.inputs, self.fetch = outputs, inputs, None


def _getter(ids):
    """A function of an environment returning the tuple of its values at `ids`."""
    if len(ids) > 1:
        return itemgetter(*ids)
    if ids:
        (i,) = ids
        return lambda env: (env[i],)
    return lambda env: ()


def plan(graph, outputs, inputs):
    """The interpretation plan of `graph` computing `outputs` from `inputs` (its placeholders); None when
    some op can only run through generated code. Its If/While graphs are planned when first run."""
    ops = graph.get_operations()
    try:
        graph_plan = _plan_ops(ops, outputs, inputs)
        if graph_plan is _INLINE:      # (a call op is stateful, so always met) its callee's ops inlined first
            remap = {}
            ops = inline_calls(ops, remap)
            graph_plan = _plan_ops(ops, [remap.get(id(t), t) for t in outputs], inputs)
    except AttributeError:      # an op input other than a graph tensor (whose slots the walk reads)
        return None
    return graph_plan


_INLINE = object()
# op types `_plan_ops` decides by type before looking at the OpDef
_PLANNED_BY_TYPE = _BY_TYPE | frozenset(CALL_TYPES) | {"NoOp"} | SPECIAL_TYPES


_ADDS = ("AddV2", "Add")


def _itself(x):
    return x


def _plan_ops(ops, outputs, inputs):
    """The _Plan of an op list (a graph's, in creation order: every op after the ops it reads), None when
    some op only generated code runs, _INLINE when it holds a call to inline."""
    needed = set(map(id, outputs))      # ids of the values a live op after this point reads, or returned
    controls = None                     # ids of the ops live ops name as control inputs
    made = 0                            # values of `needed` whose producer was met
    consts, steps = {}, []
    for op in reversed(ops):
        hit = 0
        for t in op.outputs:
            if id(t) in needed:
                hit += 1
        made += hit
        kind = op.type
        if kind == "Placeholder":
            continue
        opdef = op.opdef
        if not hit and not (opdef is not None and opdef.stateful) and (controls is None or id(op) not in controls):
            continue        # dead: nothing live reads it and it has no effect
        ins, frees = [], None
        for t in op.inputs:
            i = id(t)
            ins.append(i)
            if i not in needed:     # its last reader
                needed.add(i)
                dims = t._shape._dims   # (a graph tensor's slot: a property call per read value costs more)
                if dims and (len(dims) > 1 or dims[0] is None or dims[0] > _FREE_EARLY_ELEMENTS):
                    if _large(dims) and t.op.type not in _NOT_FREED:
                        frees = (i,) if frees is None else frees + (i,)
                elif dims is None and t.op.type not in _NOT_FREED:     # unknown rank
                    frees = (i,) if frees is None else frees + (i,)
        if op.control_inputs:
            if controls is None:
                controls = set()
            controls.update(map(id, op.control_inputs))
        if opdef is not None and kind not in _PLANNED_BY_TYPE:
            # the common case: a kernel of one output (inlined: a first call plans every op it runs)
            outs = op.outputs
            fn = opdef.kernel
            if len(outs) == 1 and not opdef.multi and outs[0]._dtype is not _STRING and fn is not None:
                attrs = op.attrs
                if kind in _ADDS:
                    x = added_zero_source(op)
                    if x is not None:       # as the compiled code's simplification: x itself
                        steps.append((_UNARY, _itself, ins[x], id(outs[0]), _NO_ATTRS, frees, op))
                        continue
                if kind in _SCALAR_FUNCTIONS:
                    function = _scalar_function(op)
                    if function is not None:
                        fn, attrs = function, _NO_ATTRS
                if len(ins) == 2:
                    steps.append((_BINARY, fn, ins, id(outs[0]), attrs, frees, op))
                elif len(ins) == 1:
                    steps.append((_UNARY, fn, ins[0], id(outs[0]), attrs, frees, op))
                else:
                    steps.append((_NARY, fn, _getter(ins), id(outs[0]), attrs, frees, op))
                continue
            step = _kernel_plan_step(op, opdef, ins, frees)
            if step is None:
                return None
            steps.append(step)
        elif kind == "Const":
            consts[id(op.outputs[0])] = _const_value(op)
        elif kind in _IF_TYPES:
            steps.append((_IF, [op.attrs["then_graph"], op.attrs["else_graph"]], _getter(ins),
                          list(map(id, op.outputs)), op.attrs, frees, op))
        elif kind in _WHILE_TYPES:
            steps.append((_WHILE, [op.attrs["cond_graph"], op.attrs["body_graph"]], _getter(ins),
                          list(map(id, op.outputs)), op.attrs, frees, op))
        elif kind in CALL_TYPES and "graph" in op.attrs:
            return _INLINE
        elif is_automatic_control_output(op):
            pass        # TensorFlow's control output: runs nothing (its effects are stateful, so live)
        elif opdef is None:
            return None
        else:       # a NoOp with its OpDef, a call without a callee graph, an op only generated code runs
            step = _kernel_plan_step(op, opdef, ins, frees)
            if step is None:
                return None
            steps.append(step)
    if made != len(needed):
        return None     # a value read before the op making it (or from outside the list): the passes sort it
    steps.reverse()
    graph_plan = _Plan.__new__(_Plan)
    graph_plan.steps, graph_plan.consts = steps, consts
    graph_plan.outputs, graph_plan.inputs = list(map(id, outputs)), list(map(id, inputs))
    graph_plan.fetch = _getter(graph_plan.outputs)
    return graph_plan


def _large(dims):
    n = 1
    for d in dims:
        if d is None:
            return True
        n *= d
    return n > _FREE_EARLY_ELEMENTS


def _kernel_plan_step(op, opdef, ins, frees):
    """The step of a kernel op other than a numeric one-output one (as `_kernel_step` classes it), or None
    for an op only generated code runs."""
    kernel = opdef.kernel
    if kernel is None or op.type in SPECIAL_TYPES:   # generated code's own forms
        return None
    outputs = op.outputs
    if not outputs:
        return _KERNEL_NO_OUTPUT, kernel, _getter(ins), None, op.attrs, frees, op
    if opdef.multi:
        return _KERNEL_MULTI, kernel, _getter(ins), list(map(id, outputs)), op.attrs, frees, op
    kind = _KERNEL_STRING if outputs[0]._dtype is _STRING else _NARY     # one result: its first output's
    return kind, kernel, _getter(ins), id(outputs[0]), op.attrs, frees, op


def _scalar_function(op):
    """The operator generated code writes for `op` (codegen._scalar_expression's conditions), or None."""
    kinds = "f" if op.type == "RealDiv" else "fiu"
    if op.type in _INT_DIVISION:
        divisor = op.inputs[1].op
        if divisor.type != "Const" or not np.all(divisor.attrs["value"]):
            return None
        kinds = "iu"
    if len(op.outputs) != 1 or op.outputs[0].shape.rank != 0 or op.control_inputs:
        return None
    for t in op.inputs:
        if t.shape.rank != 0 or t.dtype._np.kind not in kinds or t.dtype.name in ("bfloat16", "float16"):
            return None
    return _SCALAR_FUNCTIONS[op.type]


def _const_value(op):
    value = op.attrs["value"]
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "biuf":
        value = value[()]      # as generated code holds it (codegen.py: scalar arithmetic is cheaper)
    return value


def _plan_frees(steps, outputs):
    """Sets each step's tuple of large values (more than `_FREE_EARLY_ELEMENTS` elements or an unknown
    size) produced in this graph whose last reader it is: they are dropped after it runs, as generated
    code `del`s them, so a long chain on big tensors holds two or three of them at a time, not all.
    (For steps [kind, op, payload, frees] as runtime/regions.py assembles them; `plan` finds its own.)"""
    last_use = {}
    for i, step in enumerate(steps):
        for t in step[1].inputs:
            last_use[id(t)] = i
    for t in outputs:
        last_use.pop(id(t), None)       # returned: kept
    frees = {}
    for step in steps:
        if step[0] in (_PLACEHOLDER, _CONST):
            continue
        for t in step[1].outputs:
            i = last_use.get(id(t))
            if i is None:
                continue        # returned or never read: nothing to drop (and no size to work out)
            n = t.shape.num_elements()
            if n is None or n > _FREE_EARLY_ELEMENTS:
                frees.setdefault(i, []).append(id(t))
    for i, ids in frees.items():
        steps[i][3] = tuple(ids)


def _step(op):
    """(kind, payload) for one op; (None, None) when it cannot be interpreted. (runtime/regions.py's view
    of an op: If/While graphs planned at once.)"""
    kind = op.type
    opdef = op.opdef
    if opdef is not None and kind not in _BY_TYPE:
        return _kernel_step(op, opdef)
    if kind == "Placeholder" or is_automatic_control_output(op):
        return _PLACEHOLDER, None
    if kind == "Const":
        return _CONST, _const_value(op)
    if kind in _IF_TYPES:
        branches = []
        for key in ("then_graph", "else_graph"):
            graph = op.attrs[key]
            branch = plan(graph, graph.outputs, graph.inputs)
            if branch is None:
                return None, None
            branches.append(branch)
        return _IF, branches
    if kind in _WHILE_TYPES:
        cond, body = op.attrs["cond_graph"], op.attrs["body_graph"]
        cond_plan, body_plan = plan(cond, cond.outputs, cond.inputs), plan(body, body.outputs, body.inputs)
        if cond_plan is None or body_plan is None:
            return None, None
        return _WHILE, (cond_plan, body_plan)
    if opdef is None:
        return None, None
    return _kernel_step(op, opdef)


def _kernel_step(op, opdef):
    if opdef.kernel is None or op.type in SPECIAL_TYPES:   # generated code's own forms
        return None, None
    if not op.outputs:
        return _KERNEL_NO_OUTPUT, opdef.kernel
    if opdef.multi:
        return _KERNEL_MULTI, opdef.kernel
    if op.outputs[0].dtype.name == "string":
        return _KERNEL_STRING, opdef.kernel
    return _KERNEL, opdef.kernel


def runner(graph_plan):
    """A callable taking the graph's input values as arguments, as the generated function does."""
    return lambda *values: run(graph_plan, values)


def run(graph_plan, values):
    """The output values (a tuple) of a planned graph given its input values in `inputs` order."""
    if graph_plan.consts is None:
        return _run_steps(graph_plan, values)
    env = graph_plan.consts.copy()
    env.update(zip(graph_plan.inputs, values))
    op = None
    try:
        for kind, fn, ins, out, attrs, frees, op in graph_plan.steps:
            if kind is _BINARY:
                env[out] = fn(env[ins[0]], env[ins[1]], **attrs)
            elif kind is _UNARY:
                env[out] = fn(env[ins], **attrs)
            elif kind is _IF or kind is _WHILE:
                results = _run_if(op, fn, ins(env)) if kind is _IF else _run_while(op, fn, ins(env))
                for i, value in zip(out, results):
                    env[i] = value
            elif kind is _NARY:
                env[out] = fn(*ins(env), **attrs)
            elif kind is _KERNEL_MULTI:
                for i, value in zip(out, fn(*ins(env), **attrs)):
                    env[i] = value
            elif kind is _KERNEL_STRING:
                env[out] = _as_stored(fn(*ins(env), **attrs))
            else:
                fn(*ins(env), **attrs)
            if frees is not None:
                for i in frees:
                    del env[i]
    except Exception as e:
        if op is not None and getattr(e, FAILED_OP_ATTRIBUTE, None) is None:
            try:
                setattr(e, FAILED_OP_ATTRIBUTE, op)
            except AttributeError:     # an exception type without attributes: unnamed node
                pass
        raise
    return graph_plan.fetch(env)


def _run_steps(graph_plan, values):
    """`run` for a plan of steps [kind, op, payload, frees]."""
    env = dict(zip(graph_plan.inputs, values))
    for kind, op, payload, frees in graph_plan.steps:
        if kind is _PLACEHOLDER:
            continue
        if kind is _CONST:
            env[id(op.outputs[0])] = payload
            continue
        args = [env[id(t)] for t in op.inputs]
        if kind is _IF or kind is _WHILE:
            results = _run_if(op, payload, args) if kind is _IF else _run_while(op, payload, args)
            for t, value in zip(op.outputs, results):
                env[id(t)] = value
        else:
            try:
                result = payload(*args, **op.attrs)
            except Exception as e:
                if getattr(e, FAILED_OP_ATTRIBUTE, None) is None:
                    try:
                        setattr(e, FAILED_OP_ATTRIBUTE, op)
                    except AttributeError:     # an exception type without attributes: unnamed node
                        pass
                raise
            if kind is _KERNEL:
                env[id(op.outputs[0])] = result
            elif kind is not _KERNEL_NO_OUTPUT:
                results = (_as_stored(result),) if kind is _KERNEL_STRING else result
                for t, value in zip(op.outputs, results):
                    env[id(t)] = value
        if frees is not None:
            for i in frees:
                del env[i]
    return tuple([env[i] for i in graph_plan.outputs])


def _nested(graphs, i):
    """The plan of an If/While graph (`graphs[i]`), made on its first run and kept in its place."""
    graph = graphs[i]
    if type(graph) is _Plan:
        return graph
    graph_plan = plan(graph, graph.outputs, graph.inputs)
    if graph_plan is None:
        graph_plan = _compiled_plan(graph)
    graphs[i] = graph_plan
    return graph_plan


def _compiled_plan(graph):
    """A graph holding ops only generated code runs, as one step calling its generated code (a failure
    names the op of the failing line, as the whole function's generated code would)."""
    compiled = codegen.compile_graph(graph, getattr(graph, "name", "graph"), graph.outputs, graph.inputs)

    def call(*values):
        try:
            return compiled.fn(*values)
        except Exception as e:
            tb, node = e.__traceback__, None
            while tb is not None:
                if tb.tb_frame.f_code.co_filename == compiled.filename:
                    node = compiled.op_at_line(tb.tb_lineno)
                tb = tb.tb_next
            if node is not None and getattr(e, FAILED_OP_ATTRIBUTE, None) is None:
                try:
                    setattr(e, FAILED_OP_ATTRIBUTE, node)
                except AttributeError:
                    pass
            raise

    result = _Plan.__new__(_Plan)
    result.outputs, result.inputs = [id(t) for t in graph.outputs], [id(t) for t in graph.inputs]
    result.steps = [(_KERNEL_MULTI, call, _getter(result.inputs), result.outputs, _NO_ATTRS, None, None)]
    result.consts, result.fetch = {}, _getter(result.outputs)
    return result


def _run_if(op, branches, args):
    n_then = op.attrs["n_then"]
    if args[0]:
        branch = branches[0] if type(branches[0]) is _Plan else _nested(branches, 0)
        return run(branch, args[1:1 + n_then])
    branch = branches[1] if type(branches[1]) is _Plan else _nested(branches, 1)
    return run(branch, args[1 + n_then:])


def _run_while(op, plans, args):
    cond_plan = plans[0] if type(plans[0]) is _Plan else _nested(plans, 0)
    body_plan = plans[1] if type(plans[1]) is _Plan else _nested(plans, 1)
    attrs = op.attrs
    n_vars, n_cond = attrs["n_vars"], attrs["n_cond"]
    loop, rest = tuple(args[:n_vars]), list(args[n_vars:])
    limit = rest.pop() if attrs.get("has_max") else None
    cond_caps, body_caps = tuple(rest[:n_cond]), tuple(rest[n_cond:])
    history = [] if attrs.get("keep_history") else None
    iterations = 0
    while limit is None or iterations < limit:
        (keep,) = run(cond_plan, loop + cond_caps)
        if not keep:
            break
        if history is not None:
            history.append(loop)
        loop = run(body_plan, loop + body_caps)
        iterations += 1
    return loop + (tuple(history),) if history is not None else loop
