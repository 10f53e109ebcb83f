"""Running code under real TensorFlow for the interop tests: the interpreter named by TENSORFLOW_PYTHON.

tensorflux never imports TensorFlow; these tests hand files to a separate process that does, and compare
what it prints (JSON) with tensorflux's own results. Without TENSORFLOW_PYTHON, or when it cannot import
tensorflow, every interop test is skipped (CI does not need TensorFlow).
"""
import functools
import json
import os
import subprocess

import pytest


@functools.lru_cache(maxsize=None)
def tensorflow_python():
    """The path of an interpreter that imports tensorflow, or None."""
    candidate = os.environ.get("TENSORFLOW_PYTHON")
    if not candidate or not os.path.exists(candidate):
        return None
    probe = subprocess.run([candidate, "-c", "import tensorflow"], capture_output=True, timeout=300)
    return candidate if probe.returncode == 0 else None


def require_tensorflow():
    """Skips the calling test unless TENSORFLOW_PYTHON names an interpreter with TensorFlow."""
    python = tensorflow_python()
    if python is None:
        pytest.skip("interop: set TENSORFLOW_PYTHON to an interpreter with tensorflow 2.21 installed")
    return python


def run_tensorflow(script, *args, timeout=300):
    """Runs `script` (Python source) under TensorFlow with `args` as sys.argv[1:]; returns the JSON object
    the script printed as its last line of stdout. The script's failure fails the test with its stderr."""
    python = require_tensorflow()
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    done = subprocess.run([python, "-c", script, *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, env=env)
    if done.returncode != 0:
        pytest.fail(f"TensorFlow side failed (exit {done.returncode}):\n{done.stderr[-4000:]}")
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    if not lines:
        pytest.fail(f"TensorFlow side printed nothing; stderr:\n{done.stderr[-4000:]}")
    return json.loads(lines[-1])
