"""MultiWorkerMirroredStrategy on MPI: two workers on loopback, launched as a user would
(`mpiexec -n 2 python script.py`), checked against one process. Skipped when the extra `[distributed]`
(mpi4py and the mpich wheel, which ships mpiexec) is not installed."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
import pytest

pytest.importorskip("mpi4py")

HERE = os.path.dirname(os.path.abspath(__file__))
WORKER = os.path.join(HERE, "_mpi_worker.py")


def _mpiexec():
    beside = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    found = beside if os.path.exists(beside) else shutil.which("mpiexec")
    if found is None:
        pytest.skip("mpiexec not found (pip install \"tensorflux[distributed]\")")
    return found


def launch(scenario, n=2, timeout=120, **extra_env):
    results_dir = tempfile.mkdtemp(prefix="tfx-mpi-")
    env = dict(os.environ, RESULT_DIR=results_dir, **extra_env, PYTHONPATH=os.pathsep.join(filter(None, [os.path.dirname(os.path.dirname(HERE)),
                                                                     os.environ.get("PYTHONPATH")])))
    env.pop("TF_CONFIG", None)
    start = time.monotonic()
    launcher = [_mpiexec(), "-n", str(n)] if n > 1 else []     # n == 1: a plain `python script.py`
    done = subprocess.run(launcher + [sys.executable, WORKER, scenario], capture_output=True,
                          text=True, timeout=timeout, env=env)
    results = []
    for name in sorted(os.listdir(results_dir)):
        with open(os.path.join(results_dir, name)) as f:
            results.append(json.load(f))
    shutil.rmtree(results_dir, ignore_errors=True)
    return done, sorted(results, key=lambda r: r["rank"]), time.monotonic() - start


def test_world_contexts_and_collectives():
    done, results, _ = launch("basics")
    assert done.returncode == 0, done.stderr
    assert [r["rank"] for r in results] == [0, 1]
    first, second = results
    for r in results:
        assert r["task_type"] == "worker" and r["size"] == 2 and r["replicas"] == 2
        assert r["cross_replica"] is True
        assert r["sum"] == 3.0                     # 1 + 2
        assert r["mean"] == 3.0                    # mean of [1, 3, 2, 6]
        assert r["gathered"] == [0, 1]
        assert r["one"] == 2.0 and r["ids"] == 1
        assert r["in_graph"] == 0.5
        assert r["spec"] == {"worker": ["mpi-rank-0", "mpi-rank-1"]}
        assert r["gather_in_graph"] == "NotImplementedError"     # eager only, said in the error
    assert first["variable"] == second["variable"]     # rank 0's random initial value, broadcast
    assert (first["chief"], second["chief"]) == (True, False)


def test_datasets_are_split_per_policy():
    done, results, _ = launch("sharding")
    assert done.returncode == 0, done.stderr
    first, second = results
    # Global batches [0..3], [4..7], [8, 9]: each worker keeps its slice; steps stay those of one process.
    assert first["auto"] == first["data"] == [[0, 1], [4, 5], [8]]
    assert second["auto"] == second["data"] == [[2, 3], [6, 7], [9]]
    # OFF: no sharding, but every global batch is still rebatched into per-replica pieces (TensorFlow's
    # input_lib rebatches whatever the policy), of the fixed sizes of the global batch.
    assert first["off"] == second["off"] == [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9], []]
    assert first["file"].startswith("NotFoundError: ") and "Found an unshardable source dataset" in first["file"]
    # FILE: worker i reads files i, i+2 (as TensorFlow's auto-shard rewrite, recorded with its
    # _AutoShardDataset); each batch of 2 lines is rebatched into the two replicas' pieces.
    assert first["file_lines"] == [["0-0"], ["0-1"], ["0-2"], ["2-0"], ["2-1"], ["2-2"]]
    assert second["file_lines"] == [["1-0"], ["1-1"], ["1-2"], ["3-0"], ["3-1"], ["3-2"]]
    assert first["auto_list_files"] == first["file_lines"] and second["auto_list_files"] == second["file_lines"]
    assert first["file_records"] == [["r0-0"], ["r0-1"], ["r2-0"], ["r2-1"]]
    assert second["file_records"] == [["r1-0"], ["r1-1"]]
    # One file for two workers: TensorFlow's error on the worker that holds it, nothing on the other.
    assert first["too_few_files"].startswith("InvalidArgumentError: ")
    assert "Could not apply FILE based sharding: the dataset only has 1 file(s), which is not enough for the " \
        "required 2 shards/workers." in first["too_few_files"]
    assert second["too_few_files"] == []
    assert first["hint"] == [[0], [2], [4], [6]] and second["hint"] == [[1], [3], [5], [7]]
    assert first["hint_under_auto"].startswith("FailedPreconditionError: ")
    assert "`tf.data.Dataset.shard(SHARD_HINT, ...)` can only be used in" in first["hint_under_auto"]
    assert first["from_function"] == [[0, 2], [4, 6]] and second["from_function"] == [[1, 3], [5, 7]]


@pytest.mark.parametrize("scenario", ["train-eager", "train-function", "keras-optimizer", "keras-fit"])
def test_two_workers_train_as_one_process_on_the_global_batch(scenario):
    done, results, _ = launch(scenario)
    assert done.returncode == 0, done.stderr
    alone, (one,), _ = launch(scenario, n=1)
    assert alone.returncode == 0, alone.stderr
    assert [r["size"] for r in results] == [2, 2] and one["size"] == 1
    for r in results:
        np.testing.assert_allclose(r["w"], one["w"], rtol=1e-5, atol=1e-6)
        for key in ("b", "losses", "mae", "evaluated"):
            if key in one:
                np.testing.assert_allclose(r[key], one[key], rtol=1e-5, atol=1e-6)
    assert results[0]["w"] == results[1]["w"]


@pytest.mark.parametrize("scenario", ["mirrored-eager", "mirrored-function"])
def test_local_replicas_in_every_worker_train_as_one_process(scenario):
    """MirroredStrategy over two logical CPUs in each of two workers: four replicas in sync."""
    done, results, _ = launch(scenario)
    assert done.returncode == 0, done.stderr
    alone, (one,), _ = launch(scenario, n=1)
    assert alone.returncode == 0, alone.stderr
    first, second = results
    assert first["size"] == second["size"] == 4 and one["size"] == 2
    assert first["ids"] == [0, 1] and second["ids"] == [2, 3]
    # Each global batch of 8 in four pieces: worker 0 holds the first two, worker 1 the last two.
    assert first["pieces"] == [[[0, 1], [2, 3]], [[8, 9], [10, 11]]]
    assert second["pieces"] == [[[4, 5], [6, 7]], [[12, 13], [14, 15]]]
    assert one["pieces"] == [[[0, 1, 2, 3], [4, 5, 6, 7]], [[8, 9, 10, 11], [12, 13, 14, 15]]]
    for r in results:
        np.testing.assert_allclose(r["w"], one["w"], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(r["losses"], one["losses"], rtol=1e-5, atol=1e-6)
    assert first["w"] == second["w"]


def test_keras_fit_over_local_replicas_in_every_worker_trains_as_one_process():
    """Two workers of two logical CPUs each: four replicas; Keras fit/evaluate/predict equal one process's."""
    done, results, _ = launch("keras-mirrored")
    assert done.returncode == 0, done.stderr
    assert [r["size"] for r in results] == [4, 4]
    for r in results:
        for key in ("w", "losses", "mae", "evaluated", "predicted"):
            np.testing.assert_allclose(r[key], r["alone_" + key], rtol=1e-5, atol=1e-5)
    assert results[0]["w"] == results[1]["w"]


def test_shuffled_keras_fit_keeps_the_workers_in_step():
    done, results, _ = launch("keras-fit-shuffled")
    assert done.returncode == 0, done.stderr
    first, second = results
    assert first["w"] == second["w"] and first["losses"] == second["losses"]
    assert first["losses"][-1] < first["losses"][0]


def test_predict_splits_batches_across_workers_and_returns_every_row_in_order():
    done, results, _ = launch("keras-predict")
    assert done.returncode == 0, done.stderr
    alone, (one,), _ = launch("keras-predict", n=1)
    assert alone.returncode == 0, alone.stderr
    first, second = results
    assert first["w"] == second["w"] == one["w"]
    for r in results:
        np.testing.assert_allclose(r["predicted"], one["predicted"], rtol=1e-6, atol=1e-7)
    # 37 rows in batches of 8: each worker computed 4 rows of each full batch, and 3 and 2 of the last one.
    assert (first["rows"], second["rows"], one["rows"]) == (19, 18, 37)


def test_only_the_chief_writes_checkpoints_and_a_relaunched_fit_resumes(tmp_path):
    pytest.importorskip("h5py")
    root = str(tmp_path)
    done, results, _ = launch("checkpoints", CHECKPOINT_DIR=root, INTERRUPT="1")
    assert done.returncode != 0 and [r["interrupted"] for r in results] == [True, True]
    # The chief's backup of epoch 2 (and ModelCheckpoint's two files): no worker's temporary directory is left.
    assert results[0]["tree"] == ["backup/latest.weights.h5", "backup/training_metadata.json",
                                  "models/1.weights.h5", "models/2.weights.h5"]
    done, results, _ = launch("checkpoints", CHECKPOINT_DIR=root)
    assert done.returncode == 0, done.stderr
    first, second = results
    assert first["epochs"] == second["epochs"] == 2          # epochs 3 and 4 only: resumed from the backup
    assert first["w"] == second["w"]
    assert first["saved"] == second["saved"] == "plain/ckpt-1"
    assert first["managed"] == second["managed"] == ["managed/ckpt-2", "managed/ckpt-3", "managed/ckpt-4"]
    assert first["latest"] == second["latest"] == "managed/ckpt-4"
    assert first["tree"] == ["managed/checkpoint", "managed/ckpt-3.data-00000-of-00001", "managed/ckpt-3.index",
                             "managed/ckpt-4.data-00000-of-00001", "managed/ckpt-4.index", "models/1.weights.h5",
                             "models/2.weights.h5", "models/3.weights.h5", "models/4.weights.h5", "plain/checkpoint",
                             "plain/ckpt-1.data-00000-of-00001", "plain/ckpt-1.index"]
    uninterrupted, whole, _ = launch("checkpoints", CHECKPOINT_DIR=str(tmp_path / "again"))
    assert uninterrupted.returncode == 0, uninterrupted.stderr
    np.testing.assert_allclose(first["losses"], whole[0]["losses"][2:], rtol=1e-5)
    np.testing.assert_allclose(first["w"], whole[0]["w"], rtol=1e-5)


def test_workers_that_disagree_get_an_error_not_a_deadlock():
    done, results, elapsed = launch("mismatch", timeout=60)
    assert done.returncode == 0, done.stderr
    for r in results:
        assert r["error"] is not None and "Workers disagree" in r["error"]
        assert "rank 0: all-reduce of 2 elements" in r["error"] and "rank 1: all-reduce of 3 elements" in r["error"]


@pytest.mark.parametrize("how", ["raise", "exit", "kill", "early"])
def test_a_failing_worker_ends_the_job_with_an_error(how):
    done, results, elapsed = launch(f"fail-{how}", timeout=90)
    assert done.returncode != 0, (done.stdout, done.stderr)
    assert elapsed < 60
    assert not any(r.get("finished") for r in results if r["rank"] == 0) or how == "early"
    if how == "raise":
        assert "rank 1 of 2 failed with RuntimeError" in done.stderr
    if how == "early":
        assert "finished (left the job)" in done.stderr
