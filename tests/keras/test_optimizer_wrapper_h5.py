"""A wrapper optimizer's `.keras` weights hold its inner optimizers again in their own groups, as Keras 3.15
writes them (listings recorded from Keras with the same models): `optimizer/inner_optimizer/vars`
(LossScaleOptimizer) and `optimizer/optimizers/<name>/vars` (MultiOptimizer). Without them Keras loads
the file but warns that the inner optimizers have no saved variables."""
import io
import zipfile

import numpy as np
import pytest

import tensorflux as tf

h5py = pytest.importorskip("h5py")
keras = tf.keras

_ADAM = ["()", "()", "(3, 2)", "(3, 2)", "(2,)", "(2,)"]
KERAS_LSO = ["layers/dense/vars/0 (3, 2)", "layers/dense/vars/1 (2,)"] + \
    [f"optimizer/inner_optimizer/vars/{i} {s}" for i, s in enumerate(_ADAM)] + \
    [f"optimizer/vars/{i} {s}" for i, s in enumerate(["()"] * 6 + ["(3, 2)", "(3, 2)", "(2,)", "(2,)"])]
KERAS_MULTI = ["layers/dense/vars/0 (3, 2)", "layers/dense/vars/1 (2,)", "optimizer/optimizers/adam/vars/0 ()",
               "optimizer/optimizers/adam/vars/1 ()", "optimizer/optimizers/sgd/vars/0 ()",
               "optimizer/optimizers/sgd/vars/1 ()", "optimizer/optimizers/sgd/vars/2 (3, 2)",
               "optimizer/optimizers/sgd/vars/3 (2,)"] + \
    [f"optimizer/vars/{i} {s}" for i, s in enumerate(["()"] * 6 + ["(3, 2)", "(2,)"])]


def _saved(optimizer, path):
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    model.compile(optimizer=optimizer, loss="mse")
    model.fit(np.ones((4, 3), "float32"), np.ones((4, 2), "float32"), verbose=0, epochs=1)
    model.save(path)
    listing = []
    with zipfile.ZipFile(path) as z, h5py.File(io.BytesIO(z.read("model.weights.h5")), "r") as f:
        f.visititems(lambda name, item: listing.append(f"{name} {item.shape}")
                     if isinstance(item, h5py.Dataset) else None)
    return model, listing


def test_loss_scale_optimizer_groups_as_keras(tmp_path):
    model, listing = _saved(keras.optimizers.LossScaleOptimizer(keras.optimizers.Adam(0.01)), tmp_path / "m.keras")
    assert listing == KERAS_LSO
    loaded = keras.models.load_model(tmp_path / "m.keras")
    for a, b in zip(model.optimizer.variables, loaded.optimizer.variables):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_multi_optimizer_groups_as_keras(tmp_path):
    optimizer = keras.optimizers.MultiOptimizer(keras.optimizers.OptimizerMap(
        keras.optimizers.SGD(0.1, momentum=0.9), {"dense/bias": keras.optimizers.Adam(0.01)}))
    _, listing = _saved(optimizer, tmp_path / "m.keras")
    assert listing == KERAS_MULTI
