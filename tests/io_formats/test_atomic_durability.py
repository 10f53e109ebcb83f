"""Saves are atomic always and durable on request: without TENSORFLUX_DURABLE_SAVES nothing is fsynced (as
TensorFlow and Keras do not); with it every file is fsynced before its rename and its directory after."""
import os
import stat

import numpy as np
import pytest

import tensorflux as tf
from tensorflux._src.io import atomic
from tensorflux._src.io.formats import tensor_bundle


@pytest.fixture
def fsyncs(monkeypatch):
    """What each os.fsync call synced ("file" or "directory"), in order; the calls still sync."""
    calls = []
    real = os.fsync

    def counting(fd):
        kind = "directory" if stat.S_ISDIR(os.fstat(fd).st_mode) else "file"
        calls.append(kind)
        real(fd)
    monkeypatch.setattr(os, "fsync", counting)
    return calls


@pytest.mark.parametrize("value, durable", [(None, False), ("", False), ("0", False), ("false", False),
                                            ("No", False), (" off ", False), ("1", True), ("true", True),
                                            ("YES", True), ("2", True)])
def test_the_variable_turns_durability_on(monkeypatch, value, durable):
    if value is None:
        monkeypatch.delenv(atomic.DURABLE_SAVES_VARIABLE, raising=False)
    else:
        monkeypatch.setenv(atomic.DURABLE_SAVES_VARIABLE, value)
    assert atomic.durable_saves() is durable


def test_atomic_write_does_not_sync_by_default(tmp_path, monkeypatch, fsyncs):
    monkeypatch.delenv(atomic.DURABLE_SAVES_VARIABLE, raising=False)
    target = tmp_path / "f.bin"
    with atomic.atomic_write(target) as f:
        f.write(b"new")
    assert target.read_bytes() == b"new"
    assert fsyncs == []
    assert os.listdir(tmp_path) == ["f.bin"]


def test_durable_atomic_write_syncs_the_file_then_the_directory(tmp_path, monkeypatch, fsyncs):
    monkeypatch.setenv(atomic.DURABLE_SAVES_VARIABLE, "1")
    target = tmp_path / "f.bin"
    renamed_before_sync = []
    real_replace = os.replace

    def replace(src, dst):
        renamed_before_sync.append(list(fsyncs))    # what was synced when the name moved
        real_replace(src, dst)
    monkeypatch.setattr(os, "replace", replace)
    with atomic.atomic_write(target) as f:
        f.write(b"new")
    assert target.read_bytes() == b"new"
    assert renamed_before_sync == [["file"]]
    assert fsyncs == ["file", "directory"]


def test_a_failed_write_leaves_the_old_file_in_both_modes(tmp_path, monkeypatch):
    target = tmp_path / "f.bin"
    target.write_bytes(b"old")
    for value in ("0", "1"):
        monkeypatch.setenv(atomic.DURABLE_SAVES_VARIABLE, value)
        with pytest.raises(RuntimeError, match="disk full"):
            with atomic.atomic_write(target) as f:
                f.write(b"half")
                raise RuntimeError("disk full")
        assert target.read_bytes() == b"old"
        assert os.listdir(tmp_path) == ["f.bin"]


def _bundle(prefix):
    writer = tensor_bundle.BundleWriter(str(prefix))
    writer.add("a", np.arange(6, dtype=np.float32))
    writer.add("b", np.array([b"x", b"yz"], dtype=object))
    writer.finish()


@pytest.mark.parametrize("durable, expected", [("0", []), ("1", ["file", "file", "directory"])])
def test_tensor_bundle_syncs_only_when_durable(tmp_path, monkeypatch, fsyncs, durable, expected):
    monkeypatch.setenv(atomic.DURABLE_SAVES_VARIABLE, durable)
    _bundle(tmp_path / "b")
    assert fsyncs == expected          # the data file, the index, then the directory holding both
    reader = tensor_bundle.BundleReader(str(tmp_path / "b"))
    np.testing.assert_array_equal(reader.read("a"), np.arange(6, dtype=np.float32))


@pytest.mark.parametrize("durable", ["0", "1"])
def test_checkpoint_round_trip_in_both_modes(tmp_path, monkeypatch, fsyncs, durable):
    monkeypatch.setenv(atomic.DURABLE_SAVES_VARIABLE, durable)
    v = tf.Variable([1.0, 2.0])
    checkpoint = tf.train.Checkpoint(v=v)
    path = checkpoint.write(str(tmp_path / "ckpt"))
    assert bool(fsyncs) is (durable == "1")
    v.assign([0.0, 0.0])
    checkpoint.read(path).assert_consumed()
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


@pytest.mark.parametrize("durable, expected", [("0", []), ("1", ["file", "directory"])])
def test_atomic_path_writes_by_name_and_syncs_only_when_durable(tmp_path, monkeypatch, fsyncs, durable, expected):
    monkeypatch.setenv(atomic.DURABLE_SAVES_VARIABLE, durable)
    target = tmp_path / "w.bin"
    target.write_bytes(b"old")
    with atomic.atomic_path(target) as temporary:
        assert os.path.dirname(temporary) == str(tmp_path) and temporary != str(target)
        with open(temporary, "wb") as f:
            f.write(b"new")
        assert target.read_bytes() == b"old"          # nothing replaced before the block ends
    assert target.read_bytes() == b"new" and fsyncs == expected
    with pytest.raises(RuntimeError):
        with atomic.atomic_path(target) as temporary:
            with open(temporary, "wb") as f:
                f.write(b"half")
            raise RuntimeError("killed")
    assert target.read_bytes() == b"new" and os.listdir(tmp_path) == ["w.bin"]


@pytest.mark.parametrize("durable", ["0", "1"])
def test_keras_weight_files_in_both_modes(tmp_path, monkeypatch, fsyncs, durable):
    pytest.importorskip("h5py")
    monkeypatch.setenv(atomic.DURABLE_SAVES_VARIABLE, durable)
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
    path = str(tmp_path / "m.weights.h5")
    model.save_weights(path)
    assert fsyncs == ([] if durable == "0" else ["file", "directory"])
    other = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
    other.load_weights(path)
    for a, b in zip(model.get_weights(), other.get_weights()):
        np.testing.assert_array_equal(a, b)
    assert os.listdir(tmp_path) == ["m.weights.h5"]


def test_saved_model_syncs_only_when_durable(tmp_path, monkeypatch):
    calls = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (calls.append(fd), real(fd))[1])
    module = tf.Module()
    module.v = tf.Variable([1.0, 2.0])
    monkeypatch.delenv("TENSORFLUX_DURABLE_SAVES", raising=False)
    tf.saved_model.save(module, str(tmp_path / "plain"))
    assert calls == []
    monkeypatch.setenv("TENSORFLUX_DURABLE_SAVES", "1")
    tf.saved_model.save(module, str(tmp_path / "durable"))
    assert len(calls) >= 4      # saved_model.pb, fingerprint.pb, the variables' files, the directories
    assert tf.saved_model.load(str(tmp_path / "durable")).v.numpy().tolist() == [1.0, 2.0]
