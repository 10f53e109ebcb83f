"""Runs a fuzz program eagerly and under tf.function, compares, shrinks mismatches, writes reproducers.

Modes: "eager" (the reference), "static" (tf.function traced for the inputs' exact shapes) and "none"
(tf.function with an input_signature whose dims are all None). Each run builds fresh variables, calls the
program once and records its outputs and the variables' final values -- or the exception class.

Compared: structure (a None gradient vs a tensor), dtype, shape, and values (exact for ints and bools,
allclose with the dtype's tolerance for floats, NaN equal to NaN, infinities by sign), and exception
classes. TensorFlow's own rule for traced code is kept: static shape inference rejects some programs
while tracing, with ValueError where eager raises InvalidArgumentError (TF 2.21 does this with known
shapes for broadcasting, matmul, reshape and concat, and with None dims for checks that need only the
rank: reduction and concat axes, expand_dims, matmul of vectors), so that pair matches when the traced
error comes at trace time.
"""
import linecache

import numpy as np

import tensorflux as tf
from fuzz_generator import Program   # the sibling module: tests/fuzz is on sys.path for the test and the tool

__all__ = ["run", "compare", "check", "shrink", "reproducer", "Mismatch", "MODES"]

MODES = ("static", "none")
# (rtol, atol) per float dtype: traced code may fuse or reorder float ops, never change them by more.
TOLERANCE = {"float16": (1e-2, 1e-3), "bfloat16": (2e-2, 1e-2), "float32": (1e-5, 1e-6),
             "float64": (1e-12, 1e-14)}


class Mismatch:
    __slots__ = ("kind", "mode", "detail", "output")

    def __init__(self, kind, mode, detail, output=None):
        self.kind, self.mode, self.detail, self.output = kind, mode, detail, output

    def key(self):
        return (self.kind, self.mode)

    def __repr__(self):
        return f"Mismatch({self.kind}, {self.mode}, {self.detail})"


class Outcome:
    """What one run produced: `values` [(dtype name, shape, array) or None] or `error` (class, message,
    at_trace)."""

    __slots__ = ("values", "error")

    def __init__(self, values=None, error=None):
        self.values, self.error = values, error


def load(program):
    """(make_program, INPUTS) of the program's source. The source is registered with linecache under its
    own file name, as for a module on disk, so AutoGraph can read the function it converts."""
    source = program.source()
    filename = f"<fuzz program {program.label} {abs(hash(source)):x}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {}
    exec(compile(source, filename, "exec"), namespace)
    return namespace["make_program"], namespace["INPUTS"], filename


def run(program, mode):
    make_program, inputs, filename = load(program)
    try:
        return _run(make_program, inputs, mode)
    finally:
        linecache.cache.pop(filename, None)


def _run(make_program, inputs, mode):
    fn, variables = make_program()
    args = [tf.constant(a) for a in inputs]
    at_trace = False
    try:
        if mode != "eager":
            signature = None
            if mode == "none":
                signature = [tf.TensorSpec([None] * a.ndim, tf.as_dtype(a.dtype)) for a in inputs]
            fn = tf.function(fn, input_signature=signature)
            at_trace = True
            fn.get_concrete_function(*args)
            at_trace = False
        outs = fn(*args)
    except Exception as e:  # the exception class is what is compared
        return Outcome(error=(type(e), str(e).splitlines()[0][:200] if str(e) else "", at_trace))
    values = [None if o is None else (o.dtype.name, tuple(o.shape), np.array(o.numpy())) for o in outs]
    values += [(v.dtype.name, tuple(v.shape), np.array(v.numpy())) for v in variables]
    return Outcome(values=values)


def _values_differ(dtype, want, got):
    if dtype in TOLERANCE:
        rtol, atol = TOLERANCE[dtype]
        want64, got64 = want.astype(np.float64), got.astype(np.float64)
        return not np.allclose(got64, want64, rtol=rtol, atol=atol, equal_nan=True)
    return not np.array_equal(want, got)


def compare(program, eager, traced, mode):
    """Mismatches of the `mode` run `traced` against the eager run."""
    if eager.error is not None or traced.error is not None:
        if traced.error is None:
            return [Mismatch("raises_only_eager", mode, f"eager raised {eager.error[0].__name__}: {eager.error[1]}")]
        if eager.error is None:
            return [Mismatch("raises_only_traced", mode,
                             f"traced raised {traced.error[0].__name__}: {traced.error[1]}")]
        want, got = eager.error[0], traced.error[0]
        shape_inference = traced.error[2] and got is ValueError and want is tf.errors.InvalidArgumentError
        if want is not got and not shape_inference:
            return [Mismatch("exception_class", mode, f"eager {want.__name__}: {eager.error[1]} / traced "
                                                      f"{got.__name__}: {traced.error[1]}")]
        return []
    if len(eager.values) != len(traced.values):
        return [Mismatch("structure", mode, f"{len(eager.values)} outputs eagerly, {len(traced.values)} traced")]
    names = list(program.returns) + [f"final value of {v}" for v in program.variables
                                     if v in program.used_names()]
    found = []
    for i, (w, g) in enumerate(zip(eager.values, traced.values)):
        name = names[i] if i < len(names) else f"output {i}"
        if (w is None) != (g is None):
            found.append(Mismatch("structure", mode, f"{name}: eager {w and 'tensor'} / traced {g and 'tensor'}", i))
        elif w is None:
            continue
        elif w[0] != g[0]:
            found.append(Mismatch("dtype", mode, f"{name}: eager {w[0]} / traced {g[0]}", i))
        elif w[1] != g[1]:
            found.append(Mismatch("shape", mode, f"{name}: eager {w[1]} / traced {g[1]}", i))
        elif _values_differ(w[0], w[2], g[2]):
            found.append(Mismatch("value", mode, f"{name}: eager {_short(w[2])} / traced {_short(g[2])}", i))
    return found


def _short(a):
    text = np.array2string(np.asarray(a), threshold=8, precision=6, separator=",")
    return " ".join(text.split())[:160]


def check(program, modes=MODES):
    """All mismatches of `program` over `modes`."""
    eager = run(program, "eager")
    found = []
    for mode in modes:
        found += compare(program, eager, run(program, mode), mode)
    return found


def _without(program, index):
    """`program` without statement `index` and every later statement reading what it defines."""
    gone = set()
    body = []
    for i, s in enumerate(program.body):
        if i == index or (s.reads & gone):
            if s.target is not None:
                gone.add(s.target)
            continue
        body.append(s)
    returns = [r for r in program.returns if r not in gone]
    return Program(program.inputs, program.variables, body, returns, program.label)


def shrink(program, mismatch):
    """A smaller program that still shows a mismatch of the same kind in the same mode: returns only the
    mismatching output, then drops statements (with those that need them) while the mismatch remains."""
    def still(candidate):
        try:
            return any(m.key() == mismatch.key() for m in check(candidate, (mismatch.mode,)))
        except Exception:   # a candidate the harness cannot even build is not a reproducer
            return False

    best = program
    if mismatch.output is not None and mismatch.output < len(program.returns):
        # return one value only: the earliest that still shows the mismatch (later statements can then go)
        for target in [s.target for s in program.body if s.target is not None]:
            candidate = Program(program.inputs, program.variables, program.body, [target], program.label)
            if still(candidate):
                best = candidate
                break
    i = len(best.body) - 1
    while i >= 0:
        candidate = _without(best, i)
        if len(candidate.body) < len(best.body) and still(candidate):
            best = candidate
        i = min(i, len(best.body)) - 1
    return best


def reproducer(program, mismatch):
    """A standalone script printing the eager and traced results of `program`."""
    signature = ("tf.function(program)" if mismatch.mode == "static" else
                 "tf.function(program, input_signature=[tf.TensorSpec([None] * a.ndim, tf.as_dtype(a.dtype)) "
                 "for a in INPUTS])")
    return (f"# fuzz mismatch {mismatch.kind} ({mismatch.mode} shapes), program {program.label}\n"
            f"# {mismatch.detail}\n" + program.source() + f"""

def results(traced):
    program, variables = make_program()
    if traced:
        program = {signature}
    try:
        outs = program(*[tf.constant(a) for a in INPUTS])
    except Exception as e:
        return f"raises {{type(e).__name__}}: {{e}}"
    return [o if o is None else (o.dtype.name, o.numpy()) for o in outs] + [v.numpy() for v in variables]


print("eager: ", results(False))
print("traced:", results(True))
""")
