"""keras.callbacks: the hooks fit/evaluate/predict call, and the built-in callbacks' decisions (the expected
values below are what TensorFlow 2.21's Keras printed for the same scripts)."""
import csv
import os

import numpy as np
import pytest

import tensorflux as tf

keras = tf.keras
X = np.ones((8, 2), np.float32)
Y = np.zeros((8, 1), np.float32)


def make(lr=0.0, trainable=True):
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1, kernel_initializer="ones",
                                                                    trainable=trainable)])
    model.compile(optimizer=keras.optimizers.SGD(lr), loss="mse")
    return model


def test_hooks_run_in_keras_order_with_batch_logs_only_when_wanted():
    events = []

    class Recorder(keras.callbacks.Callback):
        def on_train_begin(self, logs=None):
            events.append("train_begin")

        def on_epoch_begin(self, epoch, logs=None):
            events.append(f"epoch_begin {epoch}")

        def on_train_batch_end(self, batch, logs=None):
            events.append(f"batch {batch} {sorted(logs)}")

        def on_test_begin(self, logs=None):
            events.append("test_begin")

        def on_epoch_end(self, epoch, logs=None):
            events.append(f"epoch_end {epoch} {sorted(logs)}")

        def on_train_end(self, logs=None):
            events.append("train_end")

    recorder = Recorder()
    make(0.1).fit(X, Y, epochs=2, batch_size=4, verbose=0, callbacks=[recorder], validation_data=(X, Y))
    epoch = ["batch 0 ['loss']", "batch 1 ['loss']", "test_begin"]
    assert events == ["train_begin", "epoch_begin 0", *epoch, "epoch_end 0 ['loss', 'val_loss']",
                      "epoch_begin 1", *epoch, "epoch_end 1 ['loss', 'val_loss']", "train_end"]
    assert recorder.params["epochs"] == 2 and recorder.params["steps"] == 2
    plain = keras.callbacks.CallbackList([keras.callbacks.EarlyStopping()], None, {})
    assert not any(plain.wants_batches.values())


def test_early_stopping():
    early = keras.callbacks.EarlyStopping(monitor="loss", patience=2)
    history = make().fit(X, Y, epochs=10, verbose=0, callbacks=[early])      # the loss never changes
    assert history.epoch == [0, 1, 2] and early.stopped_epoch == 2
    early = keras.callbacks.EarlyStopping(monitor="loss", patience=3, baseline=1.0)   # never beats 2.0 < 1.0
    assert len(make().fit(X, Y, epochs=9, verbose=0, callbacks=[early]).history["loss"]) == 3


def test_early_stopping_restores_the_best_weights():
    early = keras.callbacks.EarlyStopping(monitor="loss", patience=0, restore_best_weights=True, min_delta=10.0)
    model = make(0.05)
    history = model.fit(X, Y, epochs=5, verbose=0, callbacks=[early])
    assert len(history.history["loss"]) == 2 and early.best_epoch == 0
    np.testing.assert_allclose(model.get_weights()[0].ravel(), [0.8, 0.8], rtol=1e-6)


def test_reduce_lr_on_plateau_and_its_cooldown():
    reduce = keras.callbacks.ReduceLROnPlateau(monitor="loss", patience=1, factor=0.5, cooldown=1, min_lr=0.02)
    model = make(0.1, trainable=False)
    with pytest.warns(UserWarning, match="trainable weights"):
        history = model.fit(X, Y, epochs=9, verbose=0, callbacks=[reduce])
    np.testing.assert_allclose(history.history["learning_rate"],
                               [0.1, 0.1, 0.05, 0.025, 0.02, 0.02, 0.02, 0.02, 0.02], rtol=1e-6)
    with pytest.raises(ValueError, match="factor >= 1.0"):
        keras.callbacks.ReduceLROnPlateau(factor=2)


def test_learning_rate_scheduler():
    schedule = keras.callbacks.LearningRateScheduler(lambda epoch, lr: lr * 0.5 if epoch > 0 else lr)
    history = make(0.1).fit(X, Y, epochs=4, verbose=0, callbacks=[schedule])
    np.testing.assert_allclose(history.history["learning_rate"], [0.1, 0.05, 0.025, 0.0125], rtol=1e-6)
    np.testing.assert_allclose(history.history["loss"], [4.0, 0.64, 0.3136, 0.2266], rtol=1e-3)
    by_epoch = keras.callbacks.LearningRateScheduler(lambda epoch: 0.1 / (epoch + 1))
    history = make(0.1).fit(X, Y, epochs=2, verbose=0, callbacks=[by_epoch])
    np.testing.assert_allclose(history.history["learning_rate"], [0.1, 0.05], rtol=1e-6)


def test_model_checkpoint_names_files_from_the_logs(tmp_path):
    pattern = str(tmp_path / "w{epoch:02d}-{loss:.2f}.weights.h5")
    checkpoint = keras.callbacks.ModelCheckpoint(pattern, monitor="loss", save_best_only=True, save_weights_only=True)
    model = make(0.1)
    model.fit(X, Y, epochs=3, verbose=0, callbacks=[checkpoint])
    assert sorted(os.listdir(tmp_path)) == ["w01-4.00.weights.h5", "w02-0.64.weights.h5", "w03-0.10.weights.h5"]
    restored = make()
    restored.load_weights(str(tmp_path / "w03-0.10.weights.h5"))
    np.testing.assert_array_equal(restored.get_weights()[0], model.get_weights()[0])
    # As Keras 3: weights files need save_weights_only=True, whole models a `.keras` name.
    with pytest.raises(ValueError, match="must end in `.weights.h5`"):
        keras.callbacks.ModelCheckpoint(str(tmp_path / "model.keras"), save_weights_only=True)
    with pytest.raises(ValueError, match="must end in `.keras`"):
        keras.callbacks.ModelCheckpoint(str(tmp_path / "w.weights.h5"))


def test_lambda_terminate_on_nan_and_csv_logger(tmp_path):
    seen = []
    record = keras.callbacks.LambdaCallback(on_epoch_end=lambda epoch, logs: seen.append((epoch, logs["loss"])))
    make(0.1).fit(X, Y, epochs=2, verbose=0, callbacks=[record])
    assert [e for e, _ in seen] == [0, 1] and seen[0][1] == pytest.approx(4.0)

    diverging = make(1e30)    # the loss overflows to inf within a few steps
    history = diverging.fit(X, Y, epochs=20, batch_size=1, verbose=0, callbacks=[keras.callbacks.TerminateOnNaN()])
    assert len(history.history["loss"]) < 20

    path = str(tmp_path / "log.csv")
    make(0.1).fit(X, Y, epochs=2, verbose=0, callbacks=[keras.callbacks.CSVLogger(path)])
    with open(path) as f:
        rows = list(csv.DictReader(f))
    assert [r["epoch"] for r in rows] == ["0", "1"] and float(rows[0]["loss"]) == pytest.approx(4.0)


def test_evaluate_and_predict_notify_their_hooks():
    events = []

    class Recorder(keras.callbacks.Callback):
        def on_test_end(self, logs=None):
            events.append(("test_end", sorted(logs)))

        def on_predict_batch_end(self, batch, logs=None):
            events.append(("predict_batch", batch, logs["outputs"].shape))

    model = make()
    model.evaluate(X, Y, verbose=0, callbacks=[Recorder()])
    model.predict(X, batch_size=4, verbose=0, callbacks=[Recorder()])
    assert events == [("test_end", ["loss"]), ("predict_batch", 0, (4, 1)), ("predict_batch", 1, (4, 1))]
