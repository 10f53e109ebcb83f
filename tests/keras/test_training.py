"""keras.Model: compile/fit/evaluate/predict, eager vs tf.function agreement, History, summary, errors."""
import numpy as np
import pytest

import tensorflux as tf

keras = tf.keras

RNG = np.random.RandomState(0)
X = RNG.rand(64, 3).astype("float32")
Y = X @ np.array([1.0, -2.0, 0.5], "float32") + 0.3


def _linear_model(run_eagerly=False, optimizer=None):
    model = keras.Sequential([keras.layers.Dense(1, kernel_initializer="zeros")])
    model.compile(optimizer=optimizer or keras.optimizers.SGD(0.5), loss="mse", metrics=["mae"],
                  run_eagerly=run_eagerly)
    return model


def test_fit_recovers_linear_regression():
    model = _linear_model()
    history = model.fit(X, Y, epochs=60, batch_size=16, verbose=0)
    kernel, bias = model.get_weights()
    np.testing.assert_allclose(kernel.ravel(), [1.0, -2.0, 0.5], atol=0.05)
    np.testing.assert_allclose(bias, [0.3], atol=0.05)
    assert history.history["loss"][-1] < 1e-3 < history.history["loss"][0]
    assert sorted(history.history) == ["loss", "mae"] and history.epoch == list(range(60))
    assert history.params == {"verbose": 0, "epochs": 60, "steps": 4}


def test_one_full_batch_epoch_matches_hand_computed_sgd_step():
    # With zero weights and one batch, the first epoch's loss is mean(y^2) and the step is -lr * grad.
    model = _linear_model()
    history = model.fit(X, Y, epochs=1, batch_size=64, verbose=0, shuffle=False)
    assert history.history["loss"][0] == pytest.approx(float(np.mean(Y ** 2)), rel=1e-5)
    assert history.history["mae"][0] == pytest.approx(float(np.mean(np.abs(Y))), rel=1e-5)
    grad_kernel = -2 * X.T @ Y / len(X)
    np.testing.assert_allclose(model.get_weights()[0].ravel(), -0.5 * grad_kernel, rtol=1e-5)


@pytest.mark.parametrize("optimizer", ["sgd", "adam", "nadam", "rmsprop"])
def test_eager_and_function_fit_agree(optimizer):
    results = []
    for run_eagerly in (False, True):
        model = keras.Sequential([keras.layers.Dense(4, activation="tanh", kernel_initializer="ones"),
                                  keras.layers.Dense(1, kernel_initializer="ones")])
        model.compile(optimizer=optimizer, loss="mse", metrics=["mae"], run_eagerly=run_eagerly)
        history = model.fit(X, Y, epochs=3, batch_size=20, shuffle=False, verbose=0)
        results.append((history.history, model.get_weights()))
    (h_graph, w_graph), (h_eager, w_eager) = results
    for key in h_graph:
        np.testing.assert_allclose(h_graph[key], h_eager[key], rtol=1e-5)
    for a, b in zip(w_graph, w_eager):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_subclassed_model_call_runs_in_graph_unless_run_eagerly():
    flags = []

    class Net(keras.Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.dense = keras.layers.Dense(1)

        def call(self, x):
            flags.append(tf.executing_eagerly())
            return self.dense(x)

    def metric_fn(y_true, y_pred):
        return tf.reduce_mean(tf.abs(y_true - y_pred))

    for run_eagerly in (False, True):
        flags.clear()
        model = Net()
        model.compile(loss=lambda a, b: tf.reduce_mean(tf.square(a - b)), optimizer="nadam",
                      metrics=[metric_fn], run_eagerly=run_eagerly)
        history = model.fit(X[:2], Y[:2, None], epochs=2, verbose=0)
        assert sorted(history.history) == ["loss", "metric_fn"] and len(history.history["loss"]) == 2
        assert any(flags) == run_eagerly


def test_metric_function_averages_per_batch_and_loss_per_sample():
    model = _linear_model()
    model.compile(optimizer=keras.optimizers.SGD(0.0), loss="mse", metrics=[lambda a, b: tf.reduce_max(b - a)])
    x, y = np.ones((3, 3), "float32"), np.array([1.0, 2.0, 4.0])
    history = model.fit(x, y, batch_size=2, shuffle=False, verbose=0)
    # batches (1, 2) and (4): per-sample loss mean vs per-batch metric mean.
    assert history.history["loss"][0] == pytest.approx((1 + 4 + 16) / 3, rel=1e-6)
    assert history.history["<lambda>"][0] == pytest.approx((-1 + -4) / 2, rel=1e-6)


def test_evaluate_and_predict():
    model = _linear_model()
    model.fit(X, Y, epochs=5, verbose=0)
    loss, mae = model.evaluate(X, Y, verbose=0)
    predictions = model.predict(X, batch_size=10, verbose=0)
    assert isinstance(predictions, np.ndarray) and predictions.shape == (64, 1)
    assert loss == pytest.approx(float(np.mean((predictions[:, 0] - Y) ** 2)), rel=1e-4)
    assert mae == pytest.approx(float(np.mean(np.abs(predictions[:, 0] - Y))), rel=1e-4)
    assert model.evaluate(X, Y, verbose=0, return_dict=True) == {"loss": loss, "mae": mae}
    # Same weights, different batch sizes: BLAS picks different float32 kernels (and summation orders) for a
    # [4, n] and a [32, n] matmul, so the rows agree to float32 rounding, not bit for bit.
    np.testing.assert_allclose(model.predict_on_batch(X[:4]), predictions[:4], rtol=1e-5, atol=1e-6)


def test_fit_with_validation_and_dataset():
    model = _linear_model()
    history = model.fit(X, Y, epochs=2, validation_split=0.25, verbose=0)
    assert sorted(history.history) == ["loss", "mae", "val_loss", "val_mae"]
    assert history.params["steps"] == 2          # 48 training samples in batches of 32
    dataset = tf.data.Dataset.from_tensor_slices((X, Y)).batch(16)
    history = model.fit(dataset, epochs=2, validation_data=(X[:8], Y[:8]), verbose=0)
    assert len(history.history["val_loss"]) == 2


def test_classifier_with_accuracy_and_dropout():
    keras.utils.set_random_seed(1)
    x = RNG.rand(200, 2).astype("float32")
    y = (x[:, 0] > x[:, 1]).astype("int64")
    model = keras.Sequential([keras.layers.Dense(16, activation="relu", input_shape=(2,)),
                              keras.layers.Dropout(0.1), keras.layers.Dense(2)])
    model.compile(optimizer=keras.optimizers.Adam(0.05),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    history = model.fit(x, y, epochs=30, batch_size=50, verbose=0)
    assert history.history["accuracy"][-1] > 0.9
    assert model.evaluate(x, y, verbose=0)[1] > 0.9


def test_model_under_tf_function_matches_eager():
    keras.utils.set_random_seed(0)

    class Net(keras.Model):
        def __init__(self):
            super().__init__()
            self.flatten = keras.layers.Flatten(input_shape=(4, 4))
            self.dense_1 = keras.layers.Dense(8, activation="relu")
            self.dropout = keras.layers.Dropout(0.2)
            self.dense_2 = keras.layers.Dense(3)

        def call(self, x):
            return self.dense_2(self.dropout(self.dense_1(self.flatten(x))))

    model = Net()
    graph_model = tf.function(model)
    data = tf.random.uniform([5, 4, 4])
    np.testing.assert_allclose(model(data).numpy(), graph_model(data).numpy(), rtol=1e-6)
    assert len(model.trainable_variables) == 4


def test_verbose_output(capsys):
    model = _linear_model()
    model.fit(X, Y, epochs=2, verbose=1)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "Epoch 1/2" and lines[1].startswith("2/2 ━") and " - loss: " in lines[1]
    model.fit(X, Y, epochs=1, verbose=2)
    line = capsys.readouterr().out.splitlines()[0]
    assert line.startswith("2/2 - ") and " - mae: " in line


def test_summary(capsys):
    model = keras.Sequential([keras.layers.Dense(4, input_shape=(3,), name="hidden"),
                              keras.layers.Dense(1, name="out")], name="regressor")
    model.summary()
    text = capsys.readouterr().out
    assert 'Model: "regressor"' in text
    assert "│ hidden (Dense)" in text and "(None, 4)" in text and "│            16 │" in text
    assert " Total params: 21 (84.00 B)" in text and " Trainable params: 21 (84.00 B)" in text


def test_errors():
    model = keras.Sequential([keras.layers.Dense(1)])
    with pytest.raises(ValueError, match=r"You must call `compile\(\)` before using the model."):
        model.fit(X, Y)
    model.compile(optimizer="sgd")
    with pytest.raises(ValueError, match="No loss to compute"):
        model.fit(X, Y, verbose=0)
    model.compile(optimizer="sgd", loss="mse")
    with pytest.raises(ValueError, match="Data cardinality is ambiguous"):
        model.fit(X, Y[:10], verbose=0)
    with pytest.raises(ValueError, match="Could not interpret optimizer identifier"):
        model.compile(optimizer="lion-ish", loss="mse")
    with pytest.raises(ValueError, match="Expected `metrics` argument to be a list"):
        model.compile(optimizer="sgd", loss="mse", metrics="mae")
    with pytest.raises(ValueError, match="Only instances of `keras.Layer`"):
        keras.Sequential([lambda x: x])


def test_sample_weight_and_nested_inputs():
    model = _linear_model()
    zero = model.fit(X, Y, sample_weight=np.zeros(64), epochs=1, verbose=0, shuffle=False)
    assert zero.history["loss"] == [0.0]
    np.testing.assert_array_equal(model.get_weights()[0], np.zeros((3, 1)))   # zero loss, zero gradient

    class TwoInputs(keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = keras.layers.Dense(1, kernel_initializer="ones")

        def call(self, inputs):
            return self.dense(inputs["a"]) + inputs["b"]

    model = TwoInputs()
    model.compile(optimizer="sgd", loss="mse")
    b = np.ones((64, 1), "float32")
    history = model.fit({"a": X, "b": b}, Y, batch_size=64, epochs=1, verbose=0, shuffle=False)
    expected = np.mean((X.sum(1) + 1 - Y) ** 2)
    assert history.history["loss"][0] == pytest.approx(float(expected), rel=1e-5)
    assert model.predict({"a": X, "b": b}, verbose=0).shape == (64, 1)


def test_vector_valued_metrics_are_logged_as_arrays(capsys):
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1, activation="sigmoid")])
    metric = tf.keras.metrics.Precision(thresholds=[0.3, 0.6])   # named precision, precision_1, … per process
    model.compile("sgd", "binary_crossentropy", metrics=[metric])
    x, y = np.random.rand(8, 2).astype(np.float32), np.random.randint(0, 2, (8, 1))
    history = model.fit(x, y, epochs=2, verbose=1)
    precision = history.history[metric.name]
    assert len(precision) == 2 and all(isinstance(p, np.ndarray) and p.shape == (2,) for p in precision)
    assert f"{metric.name}: [" in capsys.readouterr().out
    loss, evaluated = model.evaluate(x, y, verbose=0)
    assert isinstance(loss, float) and evaluated.shape == (2,)
