"""The first call of a concrete function, run by walking its op list instead of generating code.

A function called once (a fresh `tf.function` traced and run, a script's one-off computation) would
otherwise pay for the optimising passes, the source generation and Python's `compile()` -- about 60 %
of tracing plus the first call for a 20-line AutoGraph function -- to run its ops a single time. The
interpreter runs that first call over the op list with only the passes that decide WHAT runs (nested
calls inlined, automatic control NoOps dropped, dead pure ops pruned, as TensorFlow's executor runs
only what is fetched or stateful); the second call compiles the graph as before.

Values are the generated code's: every op is its kernel called with the op's attrs as keyword
arguments, in the op-list order, with 0-d numeric constants as NumPy scalars; If and While run as
Python `if` and `while` around their branch and body graphs (`has_max` and `keep_history` as
codegen.py emits them). What the skipped passes do (simplify, fold, CSE), fusion and buffer reuse
never change a value. Graphs holding ops only the code generator can run (dataset loops, the reverse
loop of a While gradient) are not interpreted: `plan` returns None and the caller compiles.

A failing kernel's exception gets the failing op as `FAILED_OP_ATTRIBUTE` (the innermost op, as the
generated code's traceback line names it), so the caller can name the graph node.
"""
import numpy as np

from ..framework.graph import is_automatic_control_output, without_automatic_control
from ..framework.tensor import _as_stored
from .codegen import SPECIAL_TYPES
from .passes.inline import inline_calls
from .passes.prune import prune

__all__ = ["plan", "run", "runner", "FAILED_OP_ATTRIBUTE"]

FAILED_OP_ATTRIBUTE = "_tensorflux_failed_op"
_FREE_EARLY_ELEMENTS = 4096     # smaller intermediates stay until the graph returns (a `del` costs more)

_IF_TYPES = ("If", "StatelessIf")
_WHILE_TYPES = ("While", "StatelessWhile")
# op types `_step` decides by type before looking at the OpDef
_BY_TYPE = frozenset(_IF_TYPES + _WHILE_TYPES + ("Placeholder", "Const"))

# a Const op's value as generated code holds it; a Placeholder is bound by the caller
_CONST, _PLACEHOLDER, _KERNEL, _KERNEL_MULTI, _KERNEL_STRING, _KERNEL_NO_OUTPUT, _IF, _WHILE = range(8)


class _Plan:
    """One graph's op list as steps (kind, op, payload, ids of values dropped after it), the ids of its
    input and output tensors."""

    __slots__ = ("steps", "outputs", "inputs")

    def __init__(self, steps, outputs, inputs):
        self.steps = steps
        self.outputs = outputs
        self.inputs = inputs


def plan(graph, outputs, inputs):
    """The interpretation plan of `graph` computing `outputs` from `inputs` (its placeholders), with the
    plans of its If/While graphs; None when some op can only run through generated code."""
    remap = {}
    ops = inline_calls(graph.get_operations(), remap)
    outputs = [remap.get(id(t), t) for t in outputs]
    ops, outputs = without_automatic_control(ops, outputs)
    ops = prune(ops, outputs, True)
    steps = []
    for op in ops:
        kind, payload = _step(op)
        if kind is None:
            return None
        steps.append([kind, op, payload, None])
    _plan_frees(steps, outputs)
    return _Plan([tuple(step) for step in steps], [id(t) for t in outputs], [id(t) for t in inputs])


def _plan_frees(steps, outputs):
    """Sets each step's tuple of large values (more than `_FREE_EARLY_ELEMENTS` elements or an unknown
    size) produced in this graph whose last reader it is: they are dropped after it runs, as generated
    code `del`s them, so a long chain on big tensors holds two or three of them at a time, not all."""
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
    """(kind, payload) for one op; (None, None) when it cannot be interpreted."""
    kind = op.type
    opdef = op.opdef
    if opdef is not None and kind not in _BY_TYPE:
        # the common case first (a kernel op: one set lookup, no helper calls), as a fresh function's
        # first call plans every op of its graphs once
        return _kernel_step(op, opdef)
    if kind == "Placeholder" or is_automatic_control_output(op):
        return _PLACEHOLDER, None
    if kind == "Const":
        value = op.attrs["value"]
        if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "biuf":
            value = value[()]      # as generated code holds it (codegen.py: scalar arithmetic is cheaper)
        return _CONST, value
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
    return tuple(env[i] for i in graph_plan.outputs)


def _run_if(op, branches, args):
    n_then = op.attrs["n_then"]
    if args[0]:
        return run(branches[0], args[1:1 + n_then])
    return run(branches[1], args[1 + n_then:])


def _run_while(op, plans, args):
    cond_plan, body_plan = plans
    attrs = op.attrs
    n_vars, n_cond = attrs["n_vars"], attrs["n_cond"]
    loop, rest = list(args[:n_vars]), list(args[n_vars:])
    limit = rest.pop() if attrs.get("has_max") else None
    cond_caps, body_caps = rest[:n_cond], rest[n_cond:]
    history = [] if attrs.get("keep_history") else None
    iterations = 0
    while limit is None or iterations < limit:
        (keep,) = run(cond_plan, loop + cond_caps)
        if not keep:
            break
        if history is not None:
            history.append(tuple(loop))
        loop = list(run(body_plan, loop + body_caps))
        iterations += 1
    return loop + [tuple(history)] if history is not None else loop
