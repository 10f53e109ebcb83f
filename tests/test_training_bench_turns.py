"""bench/training.py's measurement method: the two frameworks' worker processes of a model take turns,
one fit epoch each, --epochs rounds, and each side's figure is its best epoch. Checked on tensorflux
alone (a second tensorflux worker stands in for TensorFlow), on the quick MLP; timings are never
asserted, only which epochs were run and which one is reported."""
import json
import os
import subprocess
import sys

import pytest

BENCH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench")


@pytest.fixture(scope="module")
def training():
    sys.path.insert(0, BENCH)
    try:
        import training
        yield training
    finally:
        sys.path.remove(BENCH)


def test_each_side_reports_its_best_of_the_epochs_run(training):
    out = subprocess.run([sys.executable, os.path.join(BENCH, "training.py"), "--quick", "-k", "mlp_60k",
                          "--epochs", "3", "--json"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])["mlp_60k"]["tensorflux"]
    epochs = result["epochs"]
    assert len(epochs) == 3
    assert result["seconds"] == min(e["seconds"] for e in epochs)
    assert result["cpu_seconds"] == min(epochs, key=lambda e: e["seconds"])["cpu_seconds"]
    assert result["loss_after"] == epochs[0]["loss"] < result["loss_before"]
    assert epochs[-1]["loss"] < epochs[0]["loss"]       # the same model goes on training, epoch after epoch
    assert "best of 3 epochs" in out.stdout


def test_the_workers_take_turns_and_the_first_alternates(training, monkeypatch):
    log = []

    class Recorder:
        def __init__(self, python, impl, name, quick, timeout, ops=False):
            self.impl = impl
            log.append(("start", impl))

        def epoch(self):
            log.append(("epoch", self.impl))

        def close(self):
            log.append(("close", self.impl))

        def result(self):
            return {"impl": self.impl}
    monkeypatch.setattr(training, "Worker", Recorder)
    results = training.run_model({"tensorflux": "a", "tensorflow": "b"}, "mlp", True, 10, 3)
    assert results == {"tensorflux": {"impl": "tensorflux"}, "tensorflow": {"impl": "tensorflow"}}
    epochs = [impl for what, impl in log if what == "epoch"]
    assert epochs == ["tensorflux", "tensorflow", "tensorflow", "tensorflux", "tensorflux", "tensorflow"]
    assert log[:2] == [("start", "tensorflux"), ("start", "tensorflow")]
    assert [what for what, _ in log[-2:]] == ["close", "close"]


def test_a_worker_that_fails_is_reported_not_waited_for(training):
    worker = training.Worker(sys.executable, "tensorflux", "no_such_model", True, 120)
    worker.epoch()
    worker.close()
    assert "error" in worker.result() and worker.proc.returncode is not None


def test_ops_table_times_every_op_kernel_of_the_epoch():
    out = subprocess.run([sys.executable, os.path.join(BENCH, "training.py"), "--quick", "-k", "mlp_60k",
                          "--epochs", "1", "--ops", "--json"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])["mlp_60k"]["tensorflux"]
    ops = result["epochs"][0]["ops"]
    steps = result["steps"]
    assert steps == 4
    calls, wall, cpu = ops["MatMul"]
    assert calls >= 3 * steps and wall > 0 and cpu >= 0     # three Dense layers a step, forward alone
    assert "mlp_60k: tensorflux's op kernels in its best epoch" in out.stdout
