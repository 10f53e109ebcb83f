"""Small programs never import numba: the Eigen-exact float32 loops (exp, log, tanh, sigmoid, sums) build
their compiled forms only for inputs of `jit.COMPILE_FROM` values or more (`jit.when_hot`'s size gate),
and a traced loop tiers only after `tiering.loop_threshold()` calls. Checked in a fresh process, where
nothing else has imported numba yet."""
import json
import os
import subprocess
import sys

import pytest

from tensorflux._src.ops import jit

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _fresh(code, tmp_path):
    script = tmp_path / "program.py"       # a file: AutoGraph reads the loop's source
    script.write_text(code)
    env = dict(os.environ, PYTHONPATH=ROOT)
    env.pop("TENSORFLUX_JIT_THRESHOLD", None)
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=ROOT, env=env)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_small_transcendentals_and_a_briefly_used_loop_never_load_the_compiler(tmp_path):
    pytest.importorskip("numba")
    result = _fresh("""
import json, sys
import numpy as np
import tensorflux as tf
x = tf.constant(np.linspace(-3, 3, 1000, dtype=np.float32))
for _ in range(10):
    tf.exp(x), tf.tanh(x), tf.sigmoid(x), tf.math.log(tf.abs(x) + 1.0), tf.tanh(x[:5]), tf.reduce_sum(x)

@tf.function
def loop(v):
    while tf.reduce_sum(v) > 1:
        v = tf.tanh(v)
    return v
for _ in range(5):
    loop(tf.constant([3.0, 2.0, 1.0]))
print(json.dumps(["numba" in sys.modules]))
""", tmp_path)
    assert result == [False]


def test_the_size_gate_counts_only_large_requests(monkeypatch):
    monkeypatch.setattr(jit, "_BUILT", {})
    monkeypatch.setattr(jit, "_REQUESTS", {})
    built = []

    def build(numba):
        built.append(True)
        return "kernel"
    monkeypatch.setattr(jit, "numba_or_none", lambda: object())
    for _ in range(5):
        assert jit.when_hot("k", build, 2, jit.COMPILE_FROM - 1) is None
    assert not built and "k" not in jit._REQUESTS
    assert jit.when_hot("k", build, 2, jit.COMPILE_FROM) is None
    assert jit.when_hot("k", build, 2, jit.COMPILE_FROM) == "kernel"
    assert jit.when_hot("k", build, 2, 3) == "kernel"      # once built, small inputs use it too
    assert built == [True]
