"""The benchmarks in bench/ still run: each on tiny sizes, tensorflux only (TensorFlow and JAX are
optional and never needed here). Timings are printed by the benchmarks, never asserted."""
import json
import os
import subprocess
import sys

BENCH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench")


def _run(script, *args, timeout=120):
    done = subprocess.run([sys.executable, os.path.join(BENCH, script), *args], capture_output=True,
                          text=True, timeout=timeout)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_training_bench_quick_mlp_trains():
    out = _run("training.py", "--quick", "-k", "mlp", "--json")
    results = json.loads(out.strip().splitlines()[-1])
    mlp = results["mlp"]["tensorflux"]
    assert mlp["examples"] == 512 and mlp["seconds"] > 0
    assert mlp["loss_after"] < mlp["loss_before"], mlp   # one epoch of adam on a learnable signal
    assert "mlp" in out.splitlines()[2]
