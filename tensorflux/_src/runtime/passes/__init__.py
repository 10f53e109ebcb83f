"""Graph → op-list passes run before codegen.

Order: inline nested function calls; then simplify → fold → cse, cycled while they still change
something (one pass's rewrite can enable another's: `x * (tf.constant(3.0) - 2.0)` becomes `x` once
folding has made the 1; at most MAX_ROUNDS rounds); then prune:

- `inline.py`   — calls of nested tf.functions become copies of the callee's ops.
- `simplify.py` — `x * 1`, `x + 0`, `x - 0`, `x / 1`, inverse transposes, Identity chains, same-dtype
                  casts and same-shape reshapes become their input.
- `fold.py`     — ops whose inputs are all constants are evaluated at compile time (small results only).
- `cse.py`      — an op (or small constant) equal to an earlier one is replaced by it.
- `prune.py`    — ops no output needs are dropped; stateful ops always stay.
- `update_fusion.py` — with `fuse_updates=True` (the code generator's lists, not the lowering's):
                  `Mul(c, g)` read only by `AssignSubVariableOp(v, ·)` becomes one
                  ResourceApplyGradientDescent(v, c, g).

`run_all(graph, outputs)` returns `(ops, outputs)`: the ops to emit, in a valid order, and the output
tensors as seen in that op list (a rewrite may turn an output into another tensor — an argument, a
constant, an earlier op's output). The passes never modify the graph: an op whose inputs change is
copied, so `cf.graph.get_operations()` still shows what was traced.

Seeing what the passes did:

- `TENSORFLUX_DUMP_PASSES=1` in the environment prints, to stderr, every op list a compilation goes
  through: the list before the passes, then after each pass with its rewrite counts, e.g.
  `simplify: 3 rewrites (x*1, x+0, identity chain)`; branch and loop bodies are listed when emitted.
- `explain(concrete_function)` returns the same text for one ConcreteFunction (and its If/While
  bodies) without compiling anything:

      from tensorflux._src.runtime import passes
      print(passes.explain(f.get_concrete_function(tf.TensorSpec([3], tf.float32))))
"""
import collections
import os
import sys

from ...framework.graph import without_automatic_control
from .cse import eliminate_common_subexpressions
from .fold import fold_constants
from .inline import CALL_TYPES, inline_calls
from .prune import prune
from .simplify import simplify_arithmetic
from .update_fusion import fuse_variable_updates

__all__ = ["run_all", "explain", "MAX_ROUNDS"]

MAX_ROUNDS = 4
_REWRITES = (("simplify", simplify_arithmetic), ("fold", fold_constants), ("cse", eliminate_common_subexpressions))


def run_all(graph, outputs, keep_stateful=True, log=None, fuse_updates=False):
    """The op list to emit for `outputs` of `graph`, and those outputs as tensors of that list.

    `log`, when a list, receives one `_Step` per pass (what `explain` prints).
    """
    if log is None and os.environ.get("TENSORFLUX_DUMP_PASSES") == "1":
        steps = []
        result = run_all(graph, outputs, keep_stateful, steps, fuse_updates)
        print(_format(_title(graph), steps), file=sys.stderr)
        return result
    traced = graph.get_operations()
    if log is not None:
        log.append(_Step("before", collections.Counter(), traced, list(outputs), True))
    remap = {}
    ops = inline_calls(traced, remap)
    outputs = [remap.get(id(t), t) for t in outputs]
    ops, outputs = without_automatic_control(ops, outputs)   # TensorFlow's NoOps: listed, never run
    if log is not None:
        calls = sum(1 for op in traced if op.type in CALL_TYPES and "graph" in op.attrs)
        log.append(_Step("inline", collections.Counter({"call": calls} if calls else {}), ops, outputs, calls > 0))
    # One forward walk brings a pass to its own fixed point (its rewrites feed the later ops of the same
    # walk), so a pass runs again only when another changed the list since: the cycle stops after
    # len(_REWRITES) runs in a row without a change.
    unchanged = 0
    for step in range(MAX_ROUNDS * len(_REWRITES)):
        if unchanged == len(_REWRITES):
            break
        name, rewrite = _REWRITES[step % len(_REWRITES)]
        result = rewrite(ops)
        if result.counts:
            unchanged = 1
            ops = result.ops
            outputs = [result.remap.get(id(t), t) for t in outputs]
        else:
            unchanged += 1
        round_number = 1 + step // len(_REWRITES)
        if log is not None and (round_number == 1 or result.counts):  # later rounds: only changes
            label = name if round_number == 1 else f"{name} (round {round_number})"
            log.append(_Step(label, result.counts, ops, outputs, bool(result.counts)))
    kept = prune(ops, outputs, keep_stateful)
    if log is not None:
        dropped = len(ops) - len(kept)
        log.append(_Step("prune", collections.Counter({"dead op": dropped} if dropped else {}), kept, outputs,
                         dropped > 0))
    if fuse_updates:
        result = fuse_variable_updates(kept, outputs)
        kept = result.ops
        outputs = [result.remap.get(id(t), t) for t in outputs]   # ops ordered after the update are copies
        if log is not None and result.counts:     # listed only when it fused something
            log.append(_Step("update fusion", result.counts, kept, outputs, True))
    return kept, outputs


def explain(concrete_function):
    """What the passes do to a ConcreteFunction's graph (and its If/While bodies), as text.

    A FuncGraph is accepted too (its `outputs` are then the outputs).
    """
    if getattr(concrete_function, "is_func_graph", False):
        graph, outputs = concrete_function, concrete_function.outputs
    else:
        graph, outputs = concrete_function.graph, concrete_function.outputs
    return "\n".join(_explain_graph(graph, list(outputs), _title(graph)))


def _explain_graph(graph, outputs, title):
    steps = []
    ops, _ = run_all(graph, outputs, log=steps, fuse_updates=True)   # as the code generator runs them
    texts = [_format(title, steps)]
    for op in ops:
        for attr, value in op.attrs.items():
            if getattr(value, "is_func_graph", False):
                texts.extend(_explain_graph(value, list(value.outputs), f"{attr} of {op.type} `{op.name}`"))
    return texts


_Step = collections.namedtuple("_Step", ["name", "counts", "ops", "outputs", "changed"])


def _title(graph):
    return f"graph `{getattr(graph, 'name', 'graph')}`"


def _format(title, steps):
    lines = [f"runtime passes for {title}:"]
    for step in steps:
        if step.name == "before":
            lines.append(f"  before: {len(step.ops)} ops")
        elif not step.changed:
            lines.append(f"  {step.name}: no change")
            continue
        else:
            total = sum(step.counts.values())
            kinds = ", ".join(k if n == 1 else f"{k} x{n}" for k, n in step.counts.items())
            lines.append(f"  {step.name}: {total} rewrite{'s' if total != 1 else ''} ({kinds}), "
                         f"{len(step.ops)} ops")
        lines.extend("    " + _format_op(op) for op in step.ops)
        lines.append("    return " + ", ".join(_label(t) for t in step.outputs))
    return "\n".join(lines)


def _label(tensor):
    return tensor.op.name if tensor.value_index == 0 else f"{tensor.op.name}:{tensor.value_index}"


def _format_op(op):
    outs = ", ".join(_label(t) for t in op.outputs) or "_"
    if op.type == "Const":
        value = op.attrs["value"]
        shown = repr(value.tolist()) if getattr(value, "size", 0) <= 6 else f"shape={list(value.shape)}"
        return f"{outs} = Const({op.attrs['dtype'].name} {shown})"
    return f"{outs} = {op.type}({', '.join(_label(t) for t in op.inputs)})"
