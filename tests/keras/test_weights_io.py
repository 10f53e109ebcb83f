"""Model.save_weights / load_weights (tensorflux's .npz weights format) and get_weights / set_weights on layers
and models: every weight round-trips in `model.weights` order, mismatches raise clear errors."""
import os
import zipfile

import numpy as np
import pytest

import tensorflux as tf

keras = tf.keras
layers = keras.layers

X = np.random.RandomState(0).rand(6, 4, 3).astype("float32")
Y = np.random.RandomState(1).rand(6, 1).astype("float32")


def sequential():
    return keras.Sequential([keras.Input((4, 3)), layers.LSTM(3, return_sequences=True),
                             layers.BatchNormalization(), layers.GRU(2), layers.Dense(1)])


class Subclassed(keras.Model):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.encoder = layers.Bidirectional(layers.SimpleRNN(2))
        self.head = layers.Dense(1)

    def call(self, x):
        return self.head(self.encoder(x))


def assert_same_weights(a, b):
    wa, wb = a.get_weights(), b.get_weights()
    assert len(wa) == len(wb)
    for x, y in zip(wa, wb):
        assert x.dtype == y.dtype and x.shape == y.shape
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("make", [sequential, Subclassed], ids=["sequential", "subclassed"])
def test_save_then_load_round_trips_every_weight(tmp_path, make):
    model = make()
    model.compile(optimizer="adam", loss="mse")
    model.fit(X, Y, epochs=2, batch_size=3, verbose=0)  # moves the BatchNormalization statistics too
    path = tmp_path / "model.weights.h5"
    model.save_weights(path)
    assert sorted(os.listdir(tmp_path)) == ["model.weights.h5"]  # the name given, nothing appended
    fresh = make()
    fresh(X[:1])
    fresh.load_weights(str(path))
    assert_same_weights(model, fresh)
    np.testing.assert_array_equal(model.predict(X, verbose=0), fresh.predict(X, verbose=0))


def test_file_layout_is_the_documented_npz(tmp_path):
    model = sequential()
    path = tmp_path / "w.npz"
    model.save_weights(path)
    with np.load(path, allow_pickle=False) as archive:
        assert str(archive["format"]) == "tensorflux.weights/1"
        assert list(archive["names"]) == [v.name for v in model.weights]
        for i, v in enumerate(model.weights):
            np.testing.assert_array_equal(archive[f"w{i:05d}"], v.numpy())
        assert sorted(archive.files) == sorted([f"w{i:05d}" for i in range(len(model.weights))] + ["names",
                                                                                                    "format"])


def test_load_restores_after_training(tmp_path):
    model = sequential()
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    path = tmp_path / "before.weights.h5"
    model.save_weights(path)
    before = model.get_weights()
    model.fit(X, Y, epochs=1, batch_size=6, verbose=0)
    assert any(not np.array_equal(a, b) for a, b in zip(before, model.get_weights()))
    model.load_weights(path)
    for a, b in zip(before, model.get_weights()):
        np.testing.assert_array_equal(a, b)


def test_mismatched_count_and_shape(tmp_path):
    path = tmp_path / "m.weights.h5"
    sequential().save_weights(path)
    smaller = keras.Sequential([keras.Input((4, 3)), layers.LSTM(3), layers.Dense(1)])
    with pytest.raises(ValueError, match=r"holds 12 weights, but the model '.*' has 5 weights"):
        smaller.load_weights(path)
    wider = keras.Sequential([keras.Input((4, 3)), layers.LSTM(4, return_sequences=True),
                              layers.BatchNormalization(), layers.GRU(2), layers.Dense(1)])
    original = wider.get_weights()
    with pytest.raises(ValueError, match=r"Weight 0 \('lstm_cell/kernel.*' has shape \(3, 16\), but the saved "
                                         r"weight 0 .* has shape \(3, 12\)"):
        wider.load_weights(path)
    for a, b in zip(original, wider.get_weights()):  # nothing was assigned
        np.testing.assert_array_equal(a, b)
    with pytest.warns(UserWarning, match="Skipping it"):
        wider.load_weights(path, skip_mismatch=True)
    saved = sequential()
    saved.load_weights(path)
    # The Dense layer's weights match in shape and were loaded; the LSTM's kernels were skipped.
    np.testing.assert_array_equal(wider.get_weights()[-1], saved.get_weights()[-1])
    np.testing.assert_array_equal(wider.get_weights()[0], original[0])


def test_unbuilt_model_and_bad_files(tmp_path):
    path = tmp_path / "m.weights.h5"
    sequential().save_weights(path)
    with pytest.raises(ValueError, match="Build the model first"):
        Subclassed().load_weights(path)
    with pytest.raises(FileNotFoundError):
        sequential().load_weights(tmp_path / "missing.weights.h5")
    text = tmp_path / "text.weights.h5"
    text.write_text("not weights")
    with pytest.raises(ValueError, match="not a weights file written by tensorflux"):
        sequential().load_weights(text)
    other = tmp_path / "other.npz"
    np.savez(other, a=np.zeros(2))
    with pytest.raises(ValueError, match="`format` entry is missing"):
        sequential().load_weights(other)
    assert zipfile.is_zipfile(path)
    with pytest.raises(FileExistsError):
        sequential().save_weights(path, overwrite=False)
    with pytest.raises(ValueError, match="Invalid keyword arguments"):
        sequential().load_weights(path, by_name=True)


def test_get_and_set_weights_follow_keras_order():
    # Keras order: a layer's own weights (trainable first, then non-trainable), then its sublayers', in order.
    model = keras.Sequential([keras.Input((4, 3)), layers.Bidirectional(layers.LSTM(2)),
                              layers.BatchNormalization(), layers.Dense(1)])
    shapes = [w.shape for w in model.get_weights()]
    assert shapes == [(3, 8), (2, 8), (8,), (3, 8), (2, 8), (8,), (4,), (4,), (4,), (4,), (4, 1), (1,)]
    assert all(isinstance(w, np.ndarray) for w in model.get_weights())
    new = [np.full(s, i, np.float32) for i, s in enumerate(shapes)]
    model.set_weights(new)
    for i, w in enumerate(model.get_weights()):
        np.testing.assert_array_equal(w, np.full(shapes[i], i))
    bn = model.layers[1]
    np.testing.assert_array_equal(bn.get_weights()[2], np.full((4,), 8))  # moving_mean
    bn.set_weights([np.ones(4), np.zeros(4), np.zeros(4), np.ones(4)])
    np.testing.assert_array_equal(model.get_weights()[6], np.ones(4))
    with pytest.raises(ValueError, match="weight list of length 2, but the layer was expecting 12 weights"):
        model.set_weights(new[:2])
    with pytest.raises(ValueError, match="not compatible with provided weight shape"):
        model.layers[2].set_weights([np.zeros((3, 1)), np.zeros(1)])

def test_save_weights_replaces_the_file_atomically(tmp_path, monkeypatch):
    # A save that fails half-way (here: while serialising) leaves the previous weights file whole.
    import sys
    model_module = sys.modules["tensorflux._src.keras.models.model"]
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
    path = str(tmp_path / "w.weights.npz")
    model.save_weights(path)
    before = open(path, "rb").read()

    def broken(*args, **kwargs):
        raise RuntimeError("disk full")
    monkeypatch.setattr(model_module.np, "savez", broken)
    with pytest.raises(RuntimeError, match="disk full"):
        model.save_weights(path)
    assert open(path, "rb").read() == before
    assert [n for n in os.listdir(tmp_path) if n != "w.weights.npz"] == []   # no temporary left behind
