"""Model.save_weights / load_weights (Keras 3's `.weights.h5` HDF5 layout) and get_weights / set_weights on layers
and models: every weight round-trips, mismatches raise Keras's errors, other suffixes are refused."""
import os

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


def _tree(path):
    import h5py
    out = {}
    with h5py.File(path, "r") as f:
        f.visititems(lambda name, obj: out.__setitem__(
            name, tuple(obj.shape) if isinstance(obj, h5py.Dataset) else dict(obj.attrs).get("name")))
    return out


def test_file_layout_is_keras_hdf5(tmp_path):
    pytest.importorskip("h5py")
    tf.keras.backend.clear_session()     # names as in the fresh process Keras' file was written in
    model = sequential()
    model.compile(optimizer="adam", loss="mse")
    model.fit(X, Y, epochs=1, batch_size=6, verbose=0)
    path = tmp_path / "w.weights.h5"
    model.save_weights(path)
    tree = _tree(path)
    # Keras 3.15 writes exactly these groups and datasets for this model (names recorded from its file).
    assert {k: v for k, v in tree.items() if not k.startswith("optimizer/vars/")} == {
        "layers": None, "layers/lstm": None, "layers/lstm/vars": model.layers[0].name, "layers/lstm/cell": None,
        "layers/lstm/cell/vars": "lstm_cell", "layers/lstm/cell/vars/0": (3, 12), "layers/lstm/cell/vars/1": (3, 12),
        "layers/lstm/cell/vars/2": (12,), "layers/batch_normalization": None,
        "layers/batch_normalization/vars": model.layers[1].name,
        **{f"layers/batch_normalization/vars/{i}": (3,) for i in range(4)},
        "layers/gru": None, "layers/gru/vars": model.layers[2].name, "layers/gru/cell": None,
        "layers/gru/cell/vars": "gru_cell", "layers/gru/cell/vars/0": (3, 6), "layers/gru/cell/vars/1": (2, 6),
        "layers/gru/cell/vars/2": (2, 6), "layers/dense": None, "layers/dense/vars": model.layers[3].name,
        "layers/dense/vars/0": (2, 1), "layers/dense/vars/1": (1,), "optimizer": None, "optimizer/vars": "adam",
        "vars": model.name}
    # iterations, learning rate, then momentum and velocity alternating per variable
    assert [tree[f"optimizer/vars/{i}"] for i in range(2 + 2 * len(model.trainable_weights))] == \
        [(), ()] + [tuple(v.shape.as_list()) for v in model.trainable_weights for _ in range(2)]
    with pytest.raises(ValueError, match=r"The filename must end in `.weights.h5`. Received: filepath=.*w.h5"):
        model.save_weights(tmp_path / "w.h5")
    with pytest.raises(ValueError, match=r"File format not supported: filepath=.*w.npz. Keras 3 only supports"):
        model.load_weights(tmp_path / "w.npz")


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
    with pytest.raises(ValueError, match=r"(?s)A total of 1 objects could not be loaded.*The shape of the target "
                                         r"variable.*variable.shape=\(3, 1\), Received: value.shape=\(2, 1\)"):
        smaller.load_weights(path)
    wider = keras.Sequential([keras.Input((4, 3)), layers.LSTM(4, return_sequences=True),
                              layers.BatchNormalization(), layers.GRU(2), layers.Dense(1)])
    original = wider.get_weights()
    with pytest.raises(ValueError, match=r"(?s)A total of 3 objects could not be loaded.*variable.shape=\(3, 16\), "
                                         r"Received: value.shape=\(3, 12\)"):
        wider.load_weights(path)
    for a, b in zip(original, wider.get_weights()):  # nothing was assigned
        np.testing.assert_array_equal(a, b)
    with pytest.warns(UserWarning, match="could not be loaded"):
        wider.load_weights(path, skip_mismatch=True)
    saved = sequential()
    saved.load_weights(path)
    # The Dense layer's weights match in shape and were loaded; the LSTM, BatchNormalization and GRU
    # (all wider) were skipped.
    np.testing.assert_array_equal(wider.get_weights()[-1], saved.get_weights()[-1])
    np.testing.assert_array_equal(wider.get_weights()[0], original[0])


def test_unbuilt_model_and_bad_files(tmp_path):
    pytest.importorskip("h5py")
    path = tmp_path / "m.weights.h5"
    sequential().save_weights(path)
    with pytest.raises(ValueError, match="loading weights into a model that has not yet been built"):
        Subclassed().load_weights(path)
    with pytest.raises(FileNotFoundError):
        sequential().load_weights(tmp_path / "missing.weights.h5")
    text = tmp_path / "text.weights.h5"
    text.write_text("not weights")
    with pytest.raises(OSError, match="is not an HDF5 weights file"):
        sequential().load_weights(text)
    with pytest.raises(FileExistsError):
        sequential().save_weights(path, overwrite=False)
    with pytest.raises(ValueError, match="Invalid keyword arguments"):
        sequential().load_weights(path, by_name=True)
    # a `.keras` archive's weights load too, as in Keras
    model = sequential()
    model.save(tmp_path / "m.keras")
    fresh = sequential()
    fresh.load_weights(tmp_path / "m.keras")
    assert_same_weights(model, fresh)
    # keras.saving's functions do the same
    keras.saving.save_weights(model, tmp_path / "fn.weights.h5")
    other = sequential()
    keras.saving.load_weights(other, tmp_path / "fn.weights.h5")
    assert_same_weights(model, other)


def test_missing_h5py_names_the_extra(tmp_path, monkeypatch):
    import builtins
    real_import = builtins.__import__

    def no_h5py(name, *args, **kwargs):
        if name == "h5py":
            raise ImportError("No module named 'h5py'")
        return real_import(name, *args, **kwargs)
    monkeypatch.setattr(builtins, "__import__", no_h5py)
    with pytest.raises(ImportError, match=r'pip install "tensorflux\[io\]"'):
        sequential().save_weights(tmp_path / "m.weights.h5")
    with pytest.raises(ImportError, match=r'pip install "tensorflux\[io\]"'):
        sequential().save(tmp_path / "m.keras")
    assert list(tmp_path.iterdir()) == []


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
    # A save that fails half-way (here: while writing the HDF5 datasets) leaves the previous weights file whole.
    import h5py
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
    path = str(tmp_path / "w.weights.h5")
    model.save_weights(path)
    before = open(path, "rb").read()

    def broken(*args, **kwargs):
        raise RuntimeError("disk full")
    monkeypatch.setattr(h5py.Group, "create_dataset", broken)
    with pytest.raises(RuntimeError, match="disk full"):
        model.save_weights(path)
    assert open(path, "rb").read() == before
    assert [n for n in os.listdir(tmp_path) if n != "w.weights.h5"] == []   # no temporary left behind
