"""Shared helpers of the AutoGraph reference-document fidelity tests (`test_fidelity_autograph_*.py`).

`run(fn)` calls an example with file descriptors 1 and 2 both pointed at one temporary file, so what
Python's `print` writes and what `tf.print` writes (to stderr) come back as one text, in the order it was
written. Records of the `tensorflow` Python logger are written into that text as
`LEVEL:tensorflow:message` (TensorFlow's default format), and Python warnings as
`file:line: Category: message`, also in order. Normalised away: deprecation notices and warnings raised
inside TensorFlow's own installed package, C++ log lines, memory addresses and random temporary-file
names; everything else is compared as TensorFlow 2.21 printed it.

These helpers import nothing from the library under test, so the very same example functions can be
run under TensorFlow to record the expected texts.
"""
import io
import logging
import os
import re
import subprocess
import sys
import tempfile
import warnings

_CPP_LOG_LINE = re.compile(r"^[WIEF]\d{4} \d\d:\d\d:\d\d\.\d+ ")
_PY_WARNING_LINE = re.compile(r"^\S*/site-packages/(tensorflow|keras|tf_keras)/\S+\.py:\d+: \w*Warning: ")
_ADDRESS = re.compile(r"0x[0-9a-fA-F]{6,}")
_TEMP_DIR = re.escape(tempfile.gettempdir())
_AUTOGRAPH_FILE = re.compile(_TEMP_DIR + r"/__autograph_generated_file\w+\.py")
_TEMP_FILE = re.compile(_TEMP_DIR + r"/[\w.-]+(/[\w.-]+)*")


def normalize(text):
    """Drops C++ log lines and Python warnings raised inside the installed TensorFlow package; hides
    memory addresses and the random names of temporary files."""
    kept, skip_next = [], 0
    for line in text.splitlines(keepends=True):
        if skip_next:
            skip_next -= 1
            continue
        if _CPP_LOG_LINE.match(line):
            continue
        if _PY_WARNING_LINE.match(line):  # a Python warning raised inside TensorFlow, and its source line
            skip_next = 1
            continue
        kept.append(line)
    text = _ADDRESS.sub("0x...", "".join(kept))
    text = _AUTOGRAPH_FILE.sub("<tmp>/__autograph_generated_file<random>.py", text)
    return _TEMP_FILE.sub("<tmp>/<file>", text)


class _LogToStream(logging.Handler):
    """Writes `tensorflow` logger records to the current `sys.stderr` as `LEVEL:tensorflow:message`,
    leaving out deprecation notices (TensorFlow's internal use of its own deprecated symbols)."""

    def emit(self, record):
        message = record.getMessage()
        if " is deprecated and will be removed" in message:
            return
        sys.stderr.write(f"{record.levelname}:{record.name}:{message}\n")


def _show_warning(message, category, filename, lineno, file=None, line=None):
    sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))


def run(fn, *args, **kwargs):
    """Calls `fn(*args, **kwargs)`; returns (merged stdout+stderr text, the exception raised or None)."""
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    saved_fds = os.dup(1), os.dup(2)
    saved_streams = sys.stdout, sys.stderr
    error = None
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), 1)
        os.dup2(tmp.fileno(), 2)
        merged = io.TextIOWrapper(os.fdopen(os.dup(1), "wb", buffering=0), write_through=True)
        sys.stdout = sys.stderr = merged
        logger = logging.getLogger("tensorflow")
        saved_logger = logger.handlers[:], logger.propagate
        logger.handlers[:] = [_LogToStream()]
        logger.propagate = False
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("default")
                warnings.showwarning = _show_warning
                fn(*args, **kwargs)
        except Exception as e:  # noqa: BLE001 - the caller checks the exception
            error = e
        finally:
            logger.handlers[:], logger.propagate = saved_logger
            merged.flush()
            sys.stdout, sys.stderr = saved_streams
            merged.close()
            os.dup2(saved_fds[0], 1)
            os.dup2(saved_fds[1], 2)
            for fd in saved_fds:
                os.close(fd)
        tmp.seek(0)
        text = tmp.read().decode("utf-8", "replace")
    return normalize(text), error


_NONLOCAL = re.compile(r"^(\s*nonlocal )(.+)$")
_UNDEFINED = re.compile(r"^\s*\w+ = ag__\.Undefined\('\w+'\)$")


def canonical_code(text):
    """Generated code with the parts TensorFlow emits in hash-set order put in sorted order: the names of
    each `nonlocal` statement, and runs of consecutive `name = ag__.Undefined('name')` lines. (Their order
    changes from one TensorFlow process to the next, with PYTHONHASHSEED.)"""
    lines, run = [], []
    for line in text.splitlines(keepends=True):
        if _UNDEFINED.match(line.rstrip("\n")):
            run.append(line)
            continue
        lines.extend(sorted(run))
        run = []
        match = _NONLOCAL.match(line.rstrip("\n"))
        if match:
            line = match.group(1) + ", ".join(sorted(match.group(2).split(", "))) + line[len(line.rstrip("\n")):]
        lines.append(line)
    lines.extend(sorted(run))
    return "".join(lines)


def output_of(fn, *args, **kwargs):
    """The normalised output of an example that must not raise."""
    text, error = run(fn, *args, **kwargs)
    if error is not None:
        raise error
    return text


def error_of(fn, *args, **kwargs):
    """(output printed before the exception, the exception) of an example that must raise."""
    text, error = run(fn, *args, **kwargs)
    assert error is not None, f"expected an exception; the example printed:\n{text}"
    return text, error


def class_names(error):
    """Names of the exception's classes, most derived first (`['OperatorNotAllowedInGraphError',
    'TypeError', 'Exception', ...]`), so a test can check both the TensorFlow class and its builtin base."""
    return [klass.__name__ for klass in type(error).__mro__]


LIBRARY = "tensorflux"  # the module the scripts of `run_script` import as `tf`


def run_script(code, timeout=20, stdin="", env=None):
    """Runs `code` as a script file in a fresh interpreter (stdout and stderr merged, so functions have
    source for AutoGraph). Returns (normalised output with the script's path shown as `<script>`, exit
    code) -- or, when it is still running after `timeout` seconds, (what it printed until then, "timeout").
    `env` adds environment variables."""
    code = code.replace("import tensorflux as tf", f"import {LIBRARY} as tf")
    env = dict(os.environ, PYTHONUNBUFFERED="1", TF_CPP_MIN_LOG_LEVEL="2", **(env or {}))
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "example.py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(code)
        try:
            proc = subprocess.run([sys.executable, path], input=stdin, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, timeout=timeout, env=env, cwd=folder)
            output, status = proc.stdout, proc.returncode
        except subprocess.TimeoutExpired as e:
            output, status = e.output or "", "timeout"
            if isinstance(output, bytes):
                output = output.decode("utf-8", "replace")
    return normalize(output.replace(path, "<script>")), status
