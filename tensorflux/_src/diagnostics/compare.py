"""`compare_eager`: does a function give the same answer traced as it does eagerly — and if not, where
does it first differ?

The function runs twice on the same inputs, with its variables restored in between:

- **eagerly**: the plain Python function, with nested tf.functions run eagerly too; a recorder placed where
  GradientTapes listen (the registry's tape hook) keeps every op executed, its output and the user source
  line that ran it;
- **traced**: the concrete function's generated code — the very code a normal call runs, after the
  graph passes and fusion — under a line tracer limited to that code: after each line that computes an
  op, the values it assigned are kept, once per execution (so a While body yields one value per
  iteration).

Graph ops and eager ops are matched by (op type, source line, occurrence): the k-th execution of the Mul
on line 8 in the graph is compared with the k-th eager Mul on line 8. Ops with no counterpart (loop
bookkeeping, folded constants, fused interiors) are skipped. The report names the first graph op, in
execution order, whose value differs beyond `rtol`/`atol` (or whose dtype or shape differs), with both
values — and, separately, the differences in side effects: variable values after each run, and printed
output (stdout and stderr, where `tf.print` writes).

This is a debugging aid: it runs the function under `sys.settrace`, so it is slow, and it watches only
the calling thread. It never changes the program's state: variables are put back as they were.
"""
import contextlib
import io
import linecache
import re
import sys

import numpy as np

from ..autodiff import tape as _tape
from ..autodiff.tape import GradientTape
from ..framework import nest
from ..framework.context import functions_run_eagerly, run_functions_eagerly, state as _state
from ..framework.graph import user_source
from ..framework.tensor import Tensor
from ..function.polymorphic import Function
from ..ops.convert import convert_to_tensor
from ..ops.math import reduce as math_reduce
from ..state.variables import Variable
from ..types import dtypes as _dt

__all__ = ["compare_eager", "compare_with_eager", "EquivalenceReport", "OpDifference"]
API = {"debugging": ["compare_eager"], "config.experimental": ["compare_with_eager"]}

_ASSIGNED = re.compile(r"^\s*([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*,?\s*=(?!=)")


class OpDifference:
    """The first op whose traced value differs from its eager value."""

    def __init__(self, op, occurrence, in_loop, eager, traced, output_index):
        self.op_name = op.name
        self.op_type = op.type
        self.source = op.source
        self.occurrence = occurrence          # 0-based: which execution of this op (the loop iteration)
        self.in_loop = in_loop
        self.output_index = output_index
        self.eager_value = eager
        self.traced_value = traced
        self.max_difference = _max_difference(eager, traced)

    @property
    def source_line(self):
        if self.source is None:
            return ""
        return linecache.getline(self.source[0], self.source[1]).strip()

    def __str__(self):
        where = f'File "{self.source[0]}", line {self.source[1]}: {self.source_line}' if self.source else "<unknown>"
        which = f", iteration {self.occurrence}" if self.in_loop else \
            (f", execution {self.occurrence}" if self.occurrence else "")
        return (f"op '{self.op_name}' ({self.op_type}{which}, output {self.output_index}) differs:\n"
                f"  created at {where}\n  eager:  {_show(self.eager_value)}\n  traced: {_show(self.traced_value)}\n"
                f"  largest difference: {self.max_difference}")


class EquivalenceReport:
    """What `compare_eager` found: `equal` is True when values, side effects and gradients all agree."""

    def __init__(self, outputs_equal, first_difference, variable_differences, printed, gradient_differences,
                 compared_ops):
        self.outputs_equal = outputs_equal
        self.first_difference = first_difference
        self.variable_differences = variable_differences   # {variable name: (eager value, traced value)}
        self.printed = printed                             # (eager text, traced text) or None when equal
        self.gradient_differences = gradient_differences   # {what: (eager gradient, traced gradient)}
        self.compared_ops = compared_ops

    @property
    def equal(self):
        return (self.outputs_equal and self.first_difference is None and not self.variable_differences
                and self.printed is None and not self.gradient_differences)

    def __bool__(self):
        return self.equal

    def __str__(self):
        if self.equal:
            return f"equal: eager and traced runs agree ({self.compared_ops} ops compared)"
        lines = ["eager and traced runs differ:"]
        if not self.outputs_equal:
            lines.append("- the outputs differ")
        if self.first_difference is not None:
            lines.append("- first differing " + str(self.first_difference))
        for name, (eager, traced) in self.variable_differences.items():
            lines.append(f"- variable '{name}' after the run: eager {_show(eager)}, traced {_show(traced)}")
        if self.printed is not None:
            lines.append(f"- printed output: eager {self.printed[0]!r}, traced {self.printed[1]!r}")
        for what, (eager, traced) in self.gradient_differences.items():
            lines.append(f"- gradient with respect to {what}: eager {_show(eager)}, traced {_show(traced)}")
        return "\n".join(lines)

    __repr__ = __str__


def compare_eager(fn, *args, rtol=1e-6, atol=1e-6, gradients=False, **kwargs):
    """Runs `fn` (a tf.function or a plain function) eagerly and traced on `args`; returns an
    `EquivalenceReport`. `gradients=True` also compares the GradientTape gradients of the (summed)
    floating outputs with respect to the floating tensor arguments and the trainable variables."""
    function = fn if isinstance(fn, Function) else Function(fn, autograph=True)
    concrete = function.get_concrete_function(*args, **kwargs)
    variables = _variables_of(concrete)
    before = {id(v): v.numpy().copy() for v in variables}

    eager_out, eager_ops, eager_text = _run_eagerly(function.python_function, args, kwargs)
    eager_state = {id(v): v.numpy().copy() for v in variables}
    _restore(variables, before)
    traced_out, traced_ops, traced_text, line_ops = _run_traced(concrete, args, kwargs)
    traced_state = {id(v): v.numpy().copy() for v in variables}
    _restore(variables, before)

    first, compared = _first_difference(eager_ops, traced_ops, rtol, atol)
    outputs_equal = _same_structure_values(eager_out, traced_out, rtol, atol)
    variable_differences = {v.name: (eager_state[id(v)], traced_state[id(v)]) for v in variables
                            if not _close(eager_state[id(v)], traced_state[id(v)], rtol, atol)}
    printed = None if eager_text == traced_text else (eager_text, traced_text)
    gradient_differences = {}
    if gradients:
        gradient_differences = _compare_gradients(function, concrete, args, kwargs, variables, before, rtol, atol)
        _restore(variables, before)
    return EquivalenceReport(outputs_equal, first, variable_differences, printed, gradient_differences, compared)


# -- the eager run --------------------------------------------------------------------------------
class _Everything:
    """A watched-set that contains every tensor: the recorder sees every op, not only the watched ones."""

    def __contains__(self, key):
        return True

    def __setitem__(self, key, value):
        pass


class _Recorded(list):
    def append(self, record):
        outputs = record.outputs if isinstance(record.outputs, tuple) else (record.outputs,)
        values = [np.array(getattr(t, "_value", None), copy=True) for t in outputs]
        list.append(self, (record.opdef.name, user_source(), values))


class _EagerRecorder:
    """Stands in the thread's tape list while the eager run executes (see module docstring)."""

    _recording = True
    _graph = None
    _watch_accessed = False

    def __init__(self):
        self._watched = _Everything()
        self._records = _Recorded()


def _run_eagerly(python_function, args, kwargs):
    recorder = _EagerRecorder()
    was_eager = functions_run_eagerly()
    text = io.StringIO()
    run_functions_eagerly(True)
    _state.tapes.append(recorder)
    _state.tape_active = True
    try:
        with contextlib.redirect_stdout(text), contextlib.redirect_stderr(text):
            out = python_function(*args, **kwargs)
    finally:
        _state.tapes.remove(recorder)
        _tape._refresh_flag()
        run_functions_eagerly(was_eager)
    return _values(out), list(recorder._records), text.getvalue()


# -- the traced run -------------------------------------------------------------------------------
def _run_traced(concrete, args, kwargs):
    concrete._executable()
    compiled = concrete._compiled
    assigned = {}
    for lineno, op in compiled.line_ops.items():
        match = _ASSIGNED.match(compiled.source.splitlines()[lineno - 1])
        if match and op is not None and op.type not in ("StatelessWhile", "While", "StatelessIf", "If"):
            assigned[lineno] = (op, [n.strip() for n in match.group(1).split(",")])
    records = []
    loop_depth = _loop_lines(compiled)

    def local(frame, event, arg):
        previous = local.previous
        if previous is not None and previous in assigned:
            op, names = assigned[previous]
            values = [np.array(frame.f_locals[n], copy=True) if n in frame.f_locals else None for n in names]
            records.append((op, values, previous in loop_depth))
        local.previous = frame.f_lineno if event == "line" else None
        return local

    local.previous = None

    def tracer(frame, event, arg):
        if frame.f_code.co_filename == compiled.filename:
            local.previous = None
            return local
        return None

    text = io.StringIO()
    previous_trace = sys.gettrace()
    sys.settrace(tracer)
    try:
        with contextlib.redirect_stdout(text), contextlib.redirect_stderr(text):
            out = concrete(*args, **kwargs)
    finally:
        sys.settrace(previous_trace)
    return _values(out), records, text.getvalue(), assigned


def _loop_lines(compiled):
    """Line numbers of the generated code inside a `while` loop (their values repeat per iteration)."""
    inside, stack = set(), []
    for number, text in enumerate(compiled.source.splitlines(), start=1):
        indent = len(text) - len(text.lstrip())
        while stack and indent <= stack[-1]:
            stack.pop()
        if stack:
            inside.add(number)
        if text.lstrip().startswith(("while ", "for ")):
            stack.append(indent)
    return inside


# -- matching and comparing -----------------------------------------------------------------------
def _first_difference(eager_ops, traced_ops, rtol, atol):
    eager_by_key = {}
    for op_type, source, values in eager_ops:
        eager_by_key.setdefault((op_type, source), []).append(values)
    seen = {}
    compared = 0
    for op, values, in_loop in traced_ops:
        key = (op.type, op.source)
        occurrence = seen.get(key, 0)
        seen[key] = occurrence + 1
        candidates = eager_by_key.get(key)
        if not candidates or occurrence >= len(candidates):
            continue
        compared += 1
        for index, (eager, traced) in enumerate(zip(candidates[occurrence], values)):
            if traced is None or eager is None:
                continue
            if not _close(eager, traced, rtol, atol):
                return OpDifference(op, occurrence, in_loop, eager, traced, index), compared
    return None, compared


def _close(a, b, rtol, atol):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind in "fc":
        return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True))
    return bool(np.array_equal(a, b))


def _max_difference(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype.kind not in "biufc" or b.dtype.kind not in "biufc":
        return None
    if a.size == 0:
        return 0.0
    return float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64))))


def _values(out):
    return [np.asarray(t) if isinstance(t, Tensor) else t for t in nest.flatten(out)]


def _same_structure_values(a, b, rtol, atol):
    if len(a) != len(b):
        return False
    return all(_close(x, y, rtol, atol) if isinstance(x, np.ndarray) else x == y for x, y in zip(a, b))


def _show(value):
    text = np.array2string(np.asarray(value), precision=6, threshold=20)
    return f"{text} ({np.asarray(value).dtype}{list(np.shape(value))})"


def _variables_of(concrete):
    found = []
    for graph_variable in concrete.graph.handle_variables.values():
        if isinstance(graph_variable, Variable) and all(graph_variable is not v for v in found):
            found.append(graph_variable)
    return found


def _restore(variables, values):
    for v in variables:
        v.assign(values[id(v)])


def _compare_gradients(function, concrete, args, kwargs, variables, before, rtol, atol):
    sources = [a for a in args if isinstance(a, Tensor) and a.dtype.is_floating]
    trainable = [v for v in variables if v.trainable and v.dtype.is_floating]

    def grads(call):
        _restore(variables, before)
        with GradientTape(persistent=False) as tape:
            for s in sources:
                tape.watch(s)
            out = call()
            flat = [convert_to_tensor(t) for t in _flat_tensors(out) if t.dtype.is_floating]
            total = sum(math_reduce.reduce_sum(t) for t in flat) if flat else None
        if total is None:
            return []
        return [None if g is None else np.asarray(g) for g in tape.gradient(total, sources + trainable)]

    was_eager = functions_run_eagerly()
    run_functions_eagerly(True)
    try:
        eager = grads(lambda: function.python_function(*args, **kwargs))
    finally:
        run_functions_eagerly(was_eager)
    traced = grads(lambda: concrete(*args, **kwargs))
    names = [f"argument {i}" for i in range(len(sources))] + [f"variable '{v.name}'" for v in trainable]
    out = {}
    for name, e, t in zip(names, eager, traced):
        if (e is None) != (t is None) or (e is not None and not _close(e, t, rtol, atol)):
            out[name] = (e, t)
    return out


def _flat_tensors(out):
    return [t for t in nest.flatten(out) if isinstance(t, Tensor) and t.dtype is not _dt.resource]


# -- the switch for tests ------------------------------------------------------------------------
class _ComparingFunction(Function):
    """A tf.function whose every call is first checked with `compare_eager` (see `compare_with_eager`)."""

    def __call__(self, *args, **kwargs):
        if _state.graph is None and not _state.tape_active:
            rtol, atol = self._comparison_tolerances
            report = compare_eager(self, *args, rtol=rtol, atol=atol, **kwargs)
            if not report.equal:
                raise AssertionError(f"tf.function '{self._name}' departs from its eager run:\n{report}")
        return Function.__call__(self, *args, **kwargs)


def compare_with_eager(function, enabled=True, rtol=1e-6, atol=1e-6):
    """Switches on (or off) checking every eager call of the tf.function `function` against its eager run:
    a call whose traced result, side effects or intermediate values differ raises AssertionError with the
    report. Meant for test suites; each checked call runs the function three times."""
    if not isinstance(function, Function):
        raise TypeError(f"compare_with_eager: `function` must be a tf.function. Received: {type(function).__name__}")
    if enabled:
        function._comparison_tolerances = (rtol, atol)
        function.__class__ = _ComparingFunction
    elif isinstance(function, _ComparingFunction):
        function.__class__ = Function
    return function

