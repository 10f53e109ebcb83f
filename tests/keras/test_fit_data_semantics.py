"""fit's data handling as Keras 3: compile_metrics, steps_per_epoch continuing one iterator across epochs,
class_weight, the shuffle warning for Datasets and the legacy on_batch_end hook. Expected values were
printed by TensorFlow 2.21 / Keras 3.15 running the same code."""
import warnings

import numpy as np
import pytest

import tensorflux as tf

keras = tf.keras


def test_compile_metrics_container():
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, kernel_initializer="ones")])
    model.compile("sgd", "mse")
    assert model.metrics_names == ["loss"]
    model.compile("sgd", "mse", metrics=["mae"])
    assert model.metrics_names == ["loss", "compile_metrics"]
    x, y = np.ones((4, 3), "float32"), np.zeros((4, 2), "float32")
    assert model.evaluate(x, y, verbose=0) == [9.0, 3.0]
    assert model.evaluate(x, y, verbose=0, return_dict=True) == {"loss": 9.0, "mae": 3.0}
    assert [m.name for m in model.metrics[1].metrics] == ["mae"]


def test_steps_per_epoch_continues_the_iterator_and_warns_when_it_runs_out():
    seen = []

    class Record(keras.callbacks.Callback):
        def on_batch_end(self, batch, logs=None):       # the legacy alias of on_train_batch_end
            seen.append(batch)

    model = keras.Sequential([keras.Input((1,)), keras.layers.Dense(1, kernel_initializer="zeros", use_bias=False)])
    model.compile(keras.optimizers.SGD(0.1), "mse")
    ds = tf.data.Dataset.from_tensor_slices((np.arange(6, dtype="float32")[:, None],
                                             np.ones((6, 1), "float32"))).batch(1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        history = model.fit(ds, epochs=3, steps_per_epoch=4, verbose=0, callbacks=[Record()])
    messages = [str(w.message) for w in caught]
    assert messages[0].startswith("`shuffle=True` was passed, but will be ignored")
    assert messages[1].startswith("Your input ran out of data; interrupting training.")
    # epoch 1: batches 1-4; epoch 2: batches 5-6 then out of data; epoch 3: a fresh pass
    assert seen == [0, 1, 2, 3, 0, 1, 0, 1, 2, 3]
    np.testing.assert_allclose(history.history["loss"], [0.6156, 0.03702, 0.63179], atol=1e-5)


def test_class_weight():
    model = keras.Sequential([keras.Input((1,)), keras.layers.Dense(3, kernel_initializer="zeros")])
    model.compile(keras.optimizers.SGD(0.1), "sparse_categorical_crossentropy")
    history = model.fit(np.ones((4, 1), "float32"), np.array([0, 1, 2, 2]), class_weight={0: 1.0, 1: 3.0, 2: 0.5},
                        epochs=2, verbose=0, shuffle=False, batch_size=2)
    np.testing.assert_allclose(history.history["loss"], [1.37327, 1.37327], atol=1e-5)
    with pytest.raises(ValueError, match="You cannot `class_weight` and `sample_weight` at the same time."):
        model.fit(np.ones((4, 1)), np.array([0, 1, 2, 2]), class_weight={0: 1.0}, sample_weight=np.ones(4), verbose=0)


def test_py_dataset_batches_and_epoch_hooks():
    calls = []

    class Batches(keras.utils.PyDataset):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.x = np.arange(10, dtype="float64").reshape(5, 2)

        def __len__(self):
            return 3

        def __getitem__(self, index):
            calls.append(index)
            part = self.x[index * 2:index * 2 + 2]
            return part, part.sum(axis=1, keepdims=True)

        def on_epoch_end(self):
            calls.append("end")

    data = Batches(workers=2)
    assert (data.workers, data.use_multiprocessing, data.max_queue_size) == (2, False, 10)
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1, kernel_initializer="ones", use_bias=False)])
    model.compile("sgd", "mse")
    model.fit(data, epochs=2, shuffle=False, verbose=0)
    assert calls == [0, 1, 2, "end", 0, 1, 2, "end"]
    assert model.evaluate(data, verbose=0) == 0.0      # ones-kernel predicts the row sums exactly
