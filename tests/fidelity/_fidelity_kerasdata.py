"""Shared helpers of the fidelity tests adapted from the Keras 3 guides (keras-team/keras-io, guides/) and
the tf.data guides (tensorflow/docs, site/en/guide/data*.ipynb): `test_fidelity_keras_*.py` and
`test_fidelity_data_*.py`.

A module registers each adapted example with `@example` (an ordered registry of functions that print
what the guide's cell shows) and keeps, in its `EXPECTED` dict, the text TensorFlow 2.21 / Keras 3.15
printed when the very same functions ran with `tensorflow` in place of `tensorflux`. `run_example` runs
one example inside a fresh temporary working directory (the guides write `my_model.keras` and such
relative paths), with Keras' global name counters reset, and returns what it printed on stdout and stderr
(in order) plus the warnings it raised (one `[Category] message` line each, after the printed text;
deprecations and ResourceWarnings left out), normalised by `normalize`.

Only what legitimately differs between two runs is normalised:
- a progress bar redrawn in place (`\\r`, backspaces, ANSI colours: Keras redraws when it thinks it runs
  in a terminal) is reduced to its final state, and trailing blanks of a line (its padding) are dropped;
- the step number and values of a bar left part-way when a callback prints mid-epoch (it depends on
  when Keras last redrew the bar);
- TensorFlow's log lines printed by its ops (`Proportion of examples rejected by sampler is high`);
- step timings and elapsed times (`12ms/step`, `0s`, the guides' own `Time taken: 0.25s` and
  `Execution time: 0.31` lines), memory addresses (`0x7f...`), the temporary
  directory's path.
"""
import contextlib
import io
import os
import re
import tempfile
import warnings

import numpy as np
import pytest

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
_PER_STEP = re.compile(r"\b\d+(?:\.\d+)?(?:s|ms|us|µs)/step\b")
_BAR_ELAPSED = re.compile(r"(━+ )(?:\d+m )?\d+s ")
_VERBOSE2_ELAPSED = re.compile(r"(/\d+ - )(?:\d+m )?\d+s - ")
_PROGRESS = re.compile(r"^(\d+)/(\d+) ━+ (?:\S+ )?\S+/step(?: - \w+: \S+)*")
_TIME_TAKEN = re.compile(r"(Time taken: |Execution time: ?)\d+(?:\.\d+)?(?:e-?\d+)?s?")


def _final_state(line):
    """The text a terminal would show for `line` after its `\\r` redraws and backspaces."""
    if "\r" in line:
        segments = [s for s in line.split("\r") if s.replace("\b", "")]
        line = segments[-1] if segments else ""
    return line.replace("\b", "").rstrip(" ")


def _partial_step(line):
    """A bar left part-way (a callback printed before the epoch's last redraw): which step it shows
    depends on timing (Keras redraws at most every 50 ms), so only its being there is kept, with any
    text a callback printed right after it on the same line."""
    m = _PROGRESS.match(line)
    if m and int(m.group(1)) < int(m.group(2)):
        return f"<partial progress bar>/{m.group(2)}" + line[m.end():]
    return line


# TensorFlow's own log lines printed from inside its ops (tf.data's rejection_resample logs this one
# through tf.print for a random number of batches).
_TF_LOG_LINES = re.compile(r"^Proportion of examples rejected by sampler is high: .*\n?", re.MULTILINE)


def normalize(text, tmpdir=None):
    text = _TF_LOG_LINES.sub("", text)
    if tmpdir:
        text = text.replace(os.path.realpath(tmpdir), "<tmp>").replace(tmpdir, "<tmp>")
    text = _ANSI.sub("", text)
    text = "\n".join(_partial_step(_final_state(line)) for line in text.split("\n"))
    text = _PER_STEP.sub("<t>/step", text)
    text = _BAR_ELAPSED.sub(r"\1<t> ", text)
    text = _VERBOSE2_ELAPSED.sub(r"\1<t> - ", text)
    text = _TIME_TAKEN.sub(r"\1<t>", text)
    text = _ADDRESS.sub("0x?", text)
    return text


def make_registry():
    """An ordered registry and the `@example` decorator that fills it (`ex_name` is stored as `name`)."""
    registry = {}

    def example(fn):
        name = fn.__name__[3:] if fn.__name__.startswith("ex_") else fn.__name__
        registry[name] = fn
        return fn

    return registry, example


def run_example(fn, keras=None):
    """Runs `fn()` in a fresh temporary working directory and returns what it printed, normalised."""
    buffer = io.StringIO()
    previous = os.getcwd()
    with tempfile.TemporaryDirectory() as tmpdir:
        os.chdir(tmpdir)
        try:
            if keras is not None:
                keras.backend.clear_session()
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer):
                    fn()
        finally:
            os.chdir(previous)
        for w in caught:
            # Deprecations are version noise; ResourceWarnings come whenever the garbage collector runs.
            if issubclass(w.category, (DeprecationWarning, PendingDeprecationWarning, ResourceWarning)):
                continue
            buffer.write(f"[{w.category.__name__}] {w.message}\n")
        return normalize(buffer.getvalue(), tmpdir)


def params(registry, xfails):
    """pytest parameters for every registered example, the ones named in `xfails` marked strict xfail."""
    unknown = set(xfails) - set(registry)
    assert not unknown, f"xfail entries name no example: {sorted(unknown)}"
    return [pytest.param(name, id=name,
                         marks=[pytest.mark.xfail(strict=True, reason=xfails[name])] if name in xfails else [])
            for name in registry]


def check(registry, expected, name, keras=None):
    have = run_example(registry[name], keras)
    want = expected[name]
    assert have == want, f"\n--- TensorFlow printed:\n{want}\n--- tensorflux printed:\n{have}"


def seeded_weights(model_or_layer, seed=0, scale=0.1):
    """Gives every variable of `model_or_layer` (in `.weights` order) a value drawn from NumPy with `seed`,
    so TensorFlow and tensorflux start from identical weights (variances stay positive)."""
    rng = np.random.default_rng(seed)
    for v in model_or_layer.weights:
        shape = tuple(v.shape)
        value = rng.uniform(-scale, scale, size=shape) * 10 / max(1.0, np.sqrt(shape[0]) if shape else 1.0)
        if "variance" in v.name:
            value = np.abs(value) + 1.0
        v.assign(value.astype(str(v.dtype.name if hasattr(v.dtype, "name") else v.dtype)))


def fmt(values, digits=4):
    """A list of floats printed with `digits` decimals (history values differ in float32 noise only)."""
    return "[" + ", ".join(f"{float(x):.{digits}f}" for x in values) + "]"
