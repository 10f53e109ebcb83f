"""tf.distribute with one CPU replica: the default strategy, MirroredStrategy and OneDeviceStrategy behave
as TensorFlow 2.21's do on a single-CPU machine."""
import numpy as np
import pytest

import tensorflux as tf


def test_default_strategy():
    strategy = tf.distribute.get_strategy()
    assert strategy.num_replicas_in_sync == 1 and not tf.distribute.has_strategy()
    assert strategy.run(lambda a: a * 2, args=(tf.constant(3.0),)).numpy() == 6.0
    np.testing.assert_array_equal(strategy.reduce(tf.distribute.ReduceOp.SUM, tf.constant([1.0, 2.0]), axis=None),
                                  [1.0, 2.0])
    assert strategy.reduce("MEAN", tf.constant([1.0, 2.0]), axis=0).numpy() == 1.5
    assert tf.distribute.get_replica_context().num_replicas_in_sync == 1


def test_mirrored_strategy_scope_and_keras_training():
    strategy = tf.distribute.MirroredStrategy()
    assert strategy.extended.worker_devices == ("/job:localhost/replica:0/task:0/device:CPU:0",)
    with strategy.scope():
        assert tf.distribute.has_strategy() and tf.distribute.get_strategy() is strategy
        assert tf.distribute.in_cross_replica_context() and tf.distribute.get_replica_context() is None
        model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
        model.compile("sgd", "mse")
    assert not tf.distribute.has_strategy()
    dataset = strategy.experimental_distribute_dataset(
        tf.data.Dataset.from_tensor_slices((np.ones((4, 2), np.float32), np.ones((4, 1), np.float32))).batch(2))
    assert len(model.fit(dataset, epochs=2, verbose=0).history["loss"]) == 2
    batch = strategy.distribute_datasets_from_function(
        lambda context: tf.data.Dataset.range(8).batch(context.get_per_replica_batch_size(4)))
    assert [b.tolist() for b in batch.as_numpy_iterator()] == [[0, 1, 2, 3], [4, 5, 6, 7]]


def test_only_the_cpu_can_hold_replicas():
    assert tf.distribute.OneDeviceStrategy("/cpu:0").num_replicas_in_sync == 1
    with pytest.raises(ValueError, match="CPU only"):
        tf.distribute.OneDeviceStrategy("/gpu:0")
    with pytest.raises(ValueError, match="No duplicates"):
        tf.distribute.MirroredStrategy(["/cpu:0", "/job:localhost/cpu:0"])


# -- chief-only checkpoint paths (state/worker_paths.py) ---------------------------------------------
import json      # noqa: E402
import os        # noqa: E402
import signal    # noqa: E402
import subprocess    # noqa: E402
import sys       # noqa: E402
import textwrap  # noqa: E402

from tensorflux._src.state import worker_paths as chief   # noqa: E402


@pytest.fixture
def second_worker():
    """This process as task 1 of a multi-worker job (what a MultiWorkerMirroredStrategy on rank 1 records)."""
    chief.set_worker(1)
    try:
        yield
    finally:
        chief.set_worker(None)


def _tree(root):
    return sorted(os.path.relpath(os.path.join(d, f), root) for d, _, files in os.walk(root) for f in files)


def _spy_writes(monkeypatch):
    """The prefixes Checkpoint.write is asked for, and whether their files existed right after writing."""
    seen = []
    original = tf.train.Checkpoint.write

    def write(self, prefix, options=None):
        path = original(self, prefix, options)
        seen.append((os.path.relpath(path), os.path.exists(path + ".index")))
        return path
    monkeypatch.setattr(tf.train.Checkpoint, "write", write)
    return seen


def test_a_worker_other_than_the_chief_writes_checkpoints_to_a_temporary_directory(tmp_path, monkeypatch,
                                                                                    second_worker):
    monkeypatch.chdir(tmp_path)
    seen = _spy_writes(monkeypatch)
    checkpoint = tf.train.Checkpoint(v=tf.Variable(1.0))
    assert checkpoint.save("ckpts/model") == "ckpts/model-1"         # the chief's path
    manager = tf.train.CheckpointManager(checkpoint, "managed", max_to_keep=2)
    assert [manager.save() for _ in range(3)] == ["managed/ckpt-2", "managed/ckpt-3", "managed/ckpt-4"]
    assert manager.checkpoints == ["managed/ckpt-3", "managed/ckpt-4"] and manager.latest_checkpoint == \
        "managed/ckpt-4"
    # Every save was written (whole) under workertemp_1, and the temporary directories are gone.
    assert seen == [("ckpts/workertemp_1/model-1", True)] + [(f"managed/workertemp_1/ckpt-{n}", True)
                                                             for n in (2, 3, 4)]
    assert _tree(str(tmp_path)) == []
    # A script that computes the temporary path itself (TensorFlow's guide) keeps it, to delete it itself.
    assert checkpoint.save("mine/workertemp_1/model") == "mine/workertemp_1/model-5"
    assert _tree(str(tmp_path)) == ["mine/workertemp_1/checkpoint", "mine/workertemp_1/model-5.data-00000-of-00001",
                                    "mine/workertemp_1/model-5.index"]


def test_the_chief_writes_the_real_files(tmp_path):
    checkpoint = tf.train.Checkpoint(v=tf.Variable(1.0))
    assert checkpoint.save(str(tmp_path / "model")) == str(tmp_path / "model-1")
    assert _tree(str(tmp_path)) == ["checkpoint", "model-1.data-00000-of-00001", "model-1.index"]


def _model():
    model = tf.keras.Sequential([tf.keras.Input((20,)), tf.keras.layers.Dense(3, kernel_initializer="ones"),
                                 tf.keras.layers.Dense(1, kernel_initializer="ones")])
    model.compile(tf.keras.optimizers.Adam(0.01), loss="mse")
    return model


def test_model_checkpoint_and_backup_of_a_worker_other_than_the_chief(tmp_path, monkeypatch, second_worker):
    pytest.importorskip("h5py")
    saved = []
    original = tf.keras.Model.save_weights

    def save_weights(self, filepath, overwrite=True):
        original(self, filepath, overwrite)
        saved.append(os.path.relpath(filepath, tmp_path))
    monkeypatch.setattr(tf.keras.Model, "save_weights", save_weights)
    x, y = np.arange(100, dtype="float32").reshape(5, 20) / 100, np.arange(5, dtype="float32")
    callbacks = [tf.keras.callbacks.ModelCheckpoint(str(tmp_path / "ckpt" / "{epoch}.weights.h5"),
                                                    save_weights_only=True),
                 tf.keras.callbacks.BackupAndRestore(str(tmp_path / "backup"), delete_checkpoint=False)]
    _model().fit(x, y, epochs=2, batch_size=1, callbacks=callbacks, verbose=0, shuffle=False)
    assert saved == ["ckpt/workertemp_1/1.weights.h5", "backup/workertemp_1/latest.weights.h5",
                     "ckpt/workertemp_1/2.weights.h5", "backup/workertemp_1/latest.weights.h5"]
    assert _tree(str(tmp_path)) == []


# -- BackupAndRestore (values recorded from Keras 3.15 running the same code) ------------------------------
class _Interrupt(tf.keras.callbacks.Callback):
    def on_epoch_begin(self, epoch, logs=None):
        if epoch == 4:
            raise RuntimeError("Interrupting!")


def test_backup_and_restore_resumes_an_interrupted_fit_as_keras(tmp_path):
    pytest.importorskip("h5py")
    backup = str(tmp_path / "backup")
    x, y = np.arange(100, dtype="float32").reshape(5, 20) / 100, np.arange(5, dtype="float32")
    with pytest.raises(RuntimeError, match="Interrupting"):
        _model().fit(x, y, epochs=10, batch_size=1, callbacks=[tf.keras.callbacks.BackupAndRestore(backup),
                                                                _Interrupt()], verbose=0, shuffle=False)
    assert sorted(os.listdir(backup)) == ["latest.weights.h5", "training_metadata.json"]
    with open(os.path.join(backup, "training_metadata.json")) as f:
        assert f.read() == '{"epoch": 4, "batch": 0}'
    fresh = _model()
    fresh.set_weights([np.zeros_like(w) for w in fresh.get_weights()])
    history = fresh.fit(x, y, epochs=10, batch_size=1, callbacks=[tf.keras.callbacks.BackupAndRestore(backup)],
                        verbose=0, shuffle=False)
    np.testing.assert_allclose(history.history["loss"], [410.8255, 336.87796, 276.77963, 228.18491, 188.97232,
                                                         157.31509], rtol=1e-5)
    np.testing.assert_allclose(fresh.layers[1].kernel.numpy().ravel(), [0.6753299832344055] * 3, rtol=1e-5)
    assert not os.path.exists(backup)          # deleted once fit completed
    callback = tf.keras.callbacks.BackupAndRestore(backup, save_freq=3, double_checkpoint=True,
                                                   delete_checkpoint=False)
    _model().fit(x, y, epochs=2, batch_size=1, callbacks=[callback], verbose=0, shuffle=False)
    assert sorted(os.listdir(backup)) == ["latest.weights.h5", "latest.weights.h5.bkp", "training_metadata.json",
                                          "training_metadata.json.bkp"]
    with open(os.path.join(backup, "training_metadata.json")) as f, \
            open(os.path.join(backup, "training_metadata.json.bkp")) as g:
        assert (f.read(), g.read()) == ('{"epoch": 1, "batch": 3}', '{"epoch": 1, "batch": 0}')
    with pytest.raises(ValueError, match="Invalid value for argument `save_freq`. Received: save_freq=batch"):
        tf.keras.callbacks.BackupAndRestore(backup, save_freq="batch")
    with pytest.raises(ValueError, match="Empty `backup_dir` argument passed"):
        tf.keras.callbacks.BackupAndRestore("")


_KILLED_FIT = textwrap.dedent("""
    import json, os, signal, sys
    import numpy as np
    import tensorflux as tf

    class KillAtEpoch(tf.keras.callbacks.Callback):
        def on_epoch_begin(self, epoch, logs=None):
            if epoch == int(sys.argv[2]):
                os.kill(os.getpid(), signal.SIGKILL)       # no exception, no clean-up: the process is gone

    x, y = np.arange(100, dtype="float32").reshape(5, 20) / 100, np.arange(5, dtype="float32")
    model = tf.keras.Sequential([tf.keras.Input((20,)), tf.keras.layers.Dense(3, kernel_initializer="ones"),
                                 tf.keras.layers.Dense(1, kernel_initializer="ones")])
    model.compile(tf.keras.optimizers.Adam(0.01), loss="mse")
    callbacks = [tf.keras.callbacks.BackupAndRestore(sys.argv[1]), KillAtEpoch()]
    history = model.fit(x, y, epochs=10, batch_size=1, callbacks=callbacks, verbose=0, shuffle=False)
    print(json.dumps({"losses": history.history["loss"],
                      "weights": [w.tolist() for w in model.get_weights()]}))
""")


def test_a_killed_fit_relaunched_resumes_from_its_last_epoch(tmp_path):
    pytest.importorskip("h5py")
    script, backup = tmp_path / "train.py", str(tmp_path / "backup")
    script.write_text(_KILLED_FIT)
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(tf.__file__)))

    def launch(kill_at):
        return subprocess.run([sys.executable, str(script), backup, str(kill_at)], capture_output=True, text=True,
                              timeout=300, env=env)

    killed = launch(kill_at=4)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    resumed = launch(kill_at=-1)
    assert resumed.returncode == 0, resumed.stderr
    after = json.loads(resumed.stdout.strip().splitlines()[-1])
    whole = json.loads(launch(kill_at=-1).stdout.strip().splitlines()[-1])   # the backup is gone: from scratch
    assert len(after["losses"]) == 6 and len(whole["losses"]) == 10
    np.testing.assert_allclose(after["losses"], whole["losses"][4:], rtol=1e-6)
    for a, b in zip(after["weights"], whole["weights"]):
        np.testing.assert_allclose(a, b, rtol=1e-6)


# -- AutoShardPolicy.FILE: which sources a worker's plan shards (data/sharding.py) -------------------------
def _lines_read_as(worker, count, dataset):
    from tensorflux._src.data.sharding import ShardPlan, active_plan
    plan = ShardPlan("FILE", count, worker)
    with active_plan(plan):
        lines = [x[()].decode() for (x,) in dataset._make_arrays()]
    return lines, plan.claimed


def test_file_sharding_takes_every_nth_file_of_a_file_source(tmp_path):
    files = []
    for k in range(3):
        path = tmp_path / f"f{k}.txt"
        path.write_text(f"{k}-a\n{k}-b\n")
        files.append(str(path))
    # TensorFlow (recorded with its _AutoShardDataset, 2 workers, index 1): files 1, 3, ... of the list.
    assert _lines_read_as(1, 2, tf.data.TextLineDataset(files)) == (["1-a", "1-b"], True)
    listed = tf.data.Dataset.list_files(str(tmp_path / "*.txt"), shuffle=False).flat_map(tf.data.TextLineDataset)
    assert _lines_read_as(0, 2, listed) == (["0-a", "0-b", "2-a", "2-b"], True)
    # The interleave's function makes a reader, so its input (names made by from_tensor_slices) is sharded,
    # as TensorFlow's rewrite does (recorded; more cases in tests/data/test_traced_dataset_functions.py).
    sliced = tf.data.Dataset.from_tensor_slices(files).interleave(tf.data.TextLineDataset, cycle_length=1)
    assert _lines_read_as(1, 2, sliced) == (["1-a", "1-b"], True)
