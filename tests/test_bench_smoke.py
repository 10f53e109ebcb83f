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
    assert any(line.startswith("mlp ") for line in out.splitlines()), out


def test_run_bench_prints_a_row_per_selected_workload():
    out = _run("run.py", "-k", "traced identity")
    rows = [line for line in out.splitlines() if line.startswith("traced identity call")]
    assert len(rows) == 1 and "us" in rows[0], out


def test_scaling_bench_quick_tables():
    out = _run("scaling.py", "--quick", "-k", "trace,calls,while", "--json")
    results = json.loads(out.strip().splitlines()[-1])
    assert set(results) == {"trace", "calls", "while"}
    trace = results["trace"]["tensorflux"]
    assert [row["n"] for row in trace] == [100, 1000]
    # both chains compute x * 1.0001 + 0.0001 repeated: the longer one moves further from 1
    assert 1.0 < trace[0]["value"] < trace[1]["value"]
    assert [row["n"] for row in results["calls"]["tensorflux"]] == [1, 100]
    loop = results["while"]["tensorflux"]
    assert [row["n"] for row in loop] == [10, 1000] and 0 < loop[1]["value"] < loop[0]["value"]
    assert "## while" in out and "per iteration" in out


def test_scaling_bench_memory_table():
    # issue 17 item 5 in the bench: a call of the 10-op chain holds at most three inputs' worth beyond its
    # input (the result included), on the NumPy path and compiled
    out = _run("scaling.py", "--quick", "-k", "memory", "--json")
    rows = json.loads(out.strip().splitlines()[-1])["memory"]["tensorflux"]
    assert [row["n"] for row in rows] == [1 << 20]
    row = rows[0]
    assert row["input"] <= row["numpy_path"] <= 3 * row["input"], row
    if row["compiled"] is not None:
        assert row["input"] <= row["compiled"] <= 3 * row["input"] and row["same"], row
    assert "## memory" in out and "jit_compile" in out


def test_jax_workloads_are_twins_of_existing_workloads():
    sys.path.insert(0, BENCH)
    try:
        import jax_workloads
        import workloads
    finally:
        sys.path.remove(BENCH)
    assert set(jax_workloads.WORKLOADS) <= set(workloads.WORKLOADS)
    assert workloads.agree(workloads.summary([1.0, 2.0]), workloads.summary([1.0, 2.00001]))
    assert not workloads.agree(workloads.summary([1.0, 2.0]), workloads.summary([1.0, 2.1]))
