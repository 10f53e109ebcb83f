"""The malformed-input sweep: how a table entry becomes malformed calls, and how one call is run and judged.

This module imports neither TensorFlow nor tensorflux: `run_case(tf, ...)` is handed the framework, so the
very same cases run under TensorFlow 2.21 (tools/record_op_errors.py, which records TensorFlow's outcome
of every case into tensorflow_outcomes.json) and under tensorflux (test_op_errors.py, which compares).

A table entry (`Case`) names one registry op type, a public call that creates it, and the call's
arguments as slots: `T(kind, valid)` is a tensor argument, `P(kind, valid)` a Python argument, `Fix(make)`
a fixture made fresh for every call (a variable, a dataset) and never varied. Each slot is replaced in
turn by each malformed value its kind allows (`variants`), and every such call runs eagerly and inside
`tf.function`. An outcome is "raise:<ExceptionClass>" or "ok:<dtype>[shape];..." for the flattened result.
"""
import signal

import numpy as np

TIMEOUT_SECONDS = 10  # a call slower than this is a hang (every valid call here takes milliseconds)
MODES = ("eager", "function")


class T:
    """A tensor argument: converted with tf.constant before the call (kind picks its variants)."""

    def __init__(self, kind, valid):
        value = np.asarray(valid)
        if not isinstance(valid, np.ndarray):  # Python scalars as tf.constant types them: 32 bits
            value = value.astype({"f": np.float32, "i": np.int32}.get(value.dtype.kind, value.dtype))
        self.kind, self.valid = kind, value


class P:
    """A Python argument (an axis, a size, a shape list, a padding string...), passed as it is."""

    def __init__(self, kind, valid):
        self.kind, self.valid = kind, valid


class Fix:
    """A fixture: `make(tf)` is called for every call (a fresh variable, a dataset); never varied."""

    def __init__(self, make):
        self.make = make


class Case:
    """One op type reached through one public call. `modes` restricts eager/function where one of them
    cannot express the call (documented at the entry)."""

    def __init__(self, op, fn, modes=MODES, **slots):
        self.op, self.fn, self.slots, self.modes = op, fn, slots, modes


def F(shape=(2, 3), lo=0.1, hi=0.9, dtype=np.float32):
    """A float array of `shape` with values spread over [lo, hi] (inside every unary op's domain)."""
    n = int(np.prod(shape))
    return np.linspace(lo, hi, n if n else 0).reshape(shape).astype(dtype)


def _junk():
    # Non-tensor junk a caller may pass by mistake (the str is convertible: a string tensor).
    return [("None", None), ("object", object()), ("dict", {"a": 1}), ("str", "junk")]


def _with_first(a, value):
    a = np.array(a, copy=True)
    if a.size:
        a.flat[0] = value
    return a


def tensor_variants(slot, several_tensors):
    """(name, numpy value or Python junk) for the malformed forms of a tensor slot."""
    v, kind, out = slot.valid, slot.kind, []
    shape = v.shape
    if kind != "string":
        out.append(("string", np.full(shape, "s")))
    if kind not in ("bool", "any"):
        out.append(("bool", np.ones(shape, bool)))
    if kind in ("float", "complex", "matrix"):
        out.append(("int32", np.round(np.real(v) * 10).astype(np.int32)))
    if kind in ("float", "matrix"):
        out.append(("float64", v.astype(np.float64)))
        out.append(("complex64", v.astype(np.complex64)))
    if kind in ("int", "bool", "string"):
        out.append(("float32", np.ones(shape, np.float32)))
    if kind == "int":
        out.append(("complex64", v.astype(np.complex64)))
        out.append(("int64", v.astype(np.int64)))
        out.append(("negative", -np.abs(v) - 1))
    if kind == "complex":
        out.append(("float32", np.real(v).astype(np.float32)))
    if v.ndim > 0:
        out.append(("scalar", v.reshape(-1)[:1].reshape(())))
        out.append(("empty", np.zeros((0,) + shape[1:], v.dtype)))
    if v.ndim > 1:
        out.append(("vector", v.reshape(-1)))
    out.append(("rank_up", v[None]))
    if several_tensors and v.ndim > 0:
        bigger = list(shape)
        bigger[-1] += 1
        out.append(("mismatch", np.resize(v, bigger)))
    if kind in ("float", "matrix", "complex"):
        out.append(("nan", _with_first(v, np.nan)))
        out.append(("inf", _with_first(v, np.inf)))
    if kind == "matrix":
        out.append(("zeros", np.zeros_like(v)))
    return out + _junk()


def python_variants(slot):
    kind = slot.kind
    if kind == "axis":
        out = [("out_of_range", 7), ("negative_out_of_range", -7), ("float", 1.5), ("list_repeated", [0, 0])]
    elif kind == "size":
        out = [("minus_one", -1), ("zero", 0), ("float", 2.5)]
    elif kind == "shape":
        out = [("negative", [2, -3]), ("float", [2.5, 3.0]), ("nested", [[2, 3]]), ("strings", ["a", "b"])]
    elif kind == "ints":  # strides, ksize, perm, multiples, paddings given as Python lists
        out = [("negative", _negate(slot.valid)), ("too_short", _shorten(slot.valid)), ("float", 1.5)]
    elif kind == "number":
        out = [("negative", -1.0), ("nan", float("nan")), ("string", "a")]
    elif kind == "enum":
        out = [("unknown", "BOGUS"), ("int", 3)]
    elif kind == "string":
        out = [("int", 3), ("bytes_list", [b"a", b"b"])]
    else:
        raise ValueError(f"unknown Python slot kind {kind!r}")
    return out + [j for j in _junk() if j[0] != "str" or kind not in ("enum", "string")]


def _negate(v):
    return [-abs(x) - 1 if isinstance(x, int) else _negate(x) for x in v] if isinstance(v, list) else -abs(v) - 1


def _shorten(v):
    return v[:-1] if isinstance(v, list) and len(v) > 1 else []


def expand(case):
    """(variant id, {slot: replacement}) for the valid call and every malformed call of `case`."""
    several = sum(isinstance(s, T) for s in case.slots.values()) > 1
    out = [("valid", {})]
    for name, slot in case.slots.items():
        if isinstance(slot, T):
            variants = tensor_variants(slot, several)
        elif isinstance(slot, P):
            variants = python_variants(slot)
        else:
            continue
        out.extend((f"{name}={variant}", {name: value}) for variant, value in variants)
    return out


def case_ids(case):
    return [f"{case.op}|{variant}|{mode}" for variant, _ in expand(case) for mode in case.modes]


class CallTimeout(BaseException):
    """Raised by the alarm when one call runs longer than TIMEOUT_SECONDS (a BaseException, so that no
    `except Exception` in the code under test swallows it)."""


def _alarm(signum, frame):
    raise CallTimeout()


def _arguments(tf, case, replaced):
    args = {}
    for name, slot in case.slots.items():
        if name in replaced:
            value = replaced[name]
            args[name] = tf.constant(value) if isinstance(value, np.ndarray) and isinstance(slot, T) else value
        elif isinstance(slot, T):
            args[name] = tf.constant(slot.valid)
        elif isinstance(slot, P):
            args[name] = slot.valid
        else:
            args[name] = slot.make(tf)
    return args


def describe(tf, result):
    """The outcome text of a returned value: dtype[shape] per flattened leaf."""
    parts = []
    for leaf in tf.nest.flatten(result, expand_composites=False):
        dtype, shape = getattr(leaf, "dtype", None), getattr(leaf, "shape", None)
        if dtype is not None and shape is not None and hasattr(shape, "as_list") and shape.rank is not None:
            parts.append(f"{tf.as_dtype(dtype).name}{shape.as_list()}")
        else:
            parts.append(type(leaf).__name__)
    return "ok:" + ";".join(parts)


def run_case(tf, case, replaced, mode):
    """Runs one call of `case` with `replaced` slots; returns (outcome text, the exception or None)."""
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, TIMEOUT_SECONDS)
    try:
        args = _arguments(tf, case, replaced)
        if mode == "eager":
            result = case.fn(tf, **args)
        else:
            def traced():  # an Operation (tf.no_op, tf.print) is not a return value of tf.function
                result = case.fn(tf, **args)
                return None if type(result).__name__ == "Operation" else result
            result = tf.function(traced, autograph=False)()
        return describe(tf, result), None
    except CallTimeout as e:
        return "timeout", e
    except Exception as e:  # noqa: BLE001 - every exception class is the observation being recorded
        return f"raise:{type(e).__name__}", e
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
