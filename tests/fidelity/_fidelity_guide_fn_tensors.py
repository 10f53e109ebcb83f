"""Shared helpers of the fidelity tests adapted from the TensorFlow guides on `tf.function`, graphs, basics,
tensors, tensor slicing and variables (`test_fidelity_guide_{function,intro_to_graphs,basics,tensor,
tensor_slicing,variable}.py`).

Each test runs one adapted guide example under tensorflux inside `capture()`, which sends stdout and
stderr (where `tf.print` writes) into one buffer, so their interleaving is compared too. `check` compares
that text with what TensorFlow 2.21 printed for the very same code (recorded as a literal in the test).
Only what legitimately differs between two runs is normalised: memory addresses, and per test extra
substitutions (timings, values of unseeded random draws) given as `(regex, replacement)` pairs.
"""
import contextlib
import io
import re
import os
import subprocess
import sys
import tempfile

_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")

# Exceptions caught by `expect_error`, newest last (handy when debugging a test).
CAUGHT = []


class Captured:
    """The text an example printed on stdout and stderr, in order."""

    def __init__(self):
        self.buffer = io.StringIO()

    @property
    def text(self):
        return self.buffer.getvalue()


@contextlib.contextmanager
def capture():
    """Route stdout and stderr into one buffer for the duration of the block."""
    captured = Captured()
    with contextlib.redirect_stdout(captured.buffer), contextlib.redirect_stderr(captured.buffer):
        yield captured


def normalize(text, subs=()):
    """`text` with memory addresses neutralised, then each `(regex, replacement)` of `subs` applied."""
    text = _ADDRESS.sub("0x?", text)
    for pattern, replacement in subs:
        text = re.sub(pattern, replacement, text, flags=re.MULTILINE)
    return text


def check(captured, expected, subs=()):
    """What the example printed equals `expected`, the text TensorFlow 2.21 printed for the same code."""
    text = captured if isinstance(captured, str) else captured.text
    have = normalize(text, subs)
    want = normalize(expected, subs)
    assert have == want, f"\n--- TensorFlow printed:\n{want}\n--- tensorflux printed:\n{have}"


@contextlib.contextmanager
def expect_error(error_class, *fragments):
    """The block must raise `error_class` whose message contains every fragment (each taken from the
    message TensorFlow raised). Prints one line naming the class, as the guides' `assert_raises` helper
    announces the caught exception; other exceptions propagate."""
    try:
        yield
    except error_class as error:
        CAUGHT.append(error)
        print("Caught expected exception", error_class.__name__)
        message = str(error)
        missing = [fragment for fragment in fragments if fragment not in message]
        if missing:
            raise AssertionError(
                f"{type(error).__name__} message lacks {missing!r}; it was:\n{message}") from error
    else:
        raise AssertionError(f"Expected {error_class.__name__} to be raised but no error was raised!")


def run_isolated(code, timeout=20):
    """Run `code` (a script that imports tensorflux itself) in a fresh interpreter; return what it printed
    on stdout and stderr, in order. Used for examples that may hang or recurse without end. The script is
    written to a file so that AutoGraph can read the source of its functions."""
    with tempfile.TemporaryDirectory() as folder:
        script = os.path.join(folder, "example.py")
        with open(script, "w", encoding="utf-8") as handle:
            handle.write(code)
        done = subprocess.run([sys.executable, "-u", "-W", "ignore", script], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, timeout=timeout)
    return done.stdout
