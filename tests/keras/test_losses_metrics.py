"""keras.losses and keras.metrics against NumPy: per-sample values, reductions, weights, state."""
import numpy as np
import pytest

import tensorflux as tf
from tensorflux._src.keras.metrics import metric_for_compile

keras = tf.keras


def test_mse_mae_functions_and_rank_matching():
    y_true = np.array([1.0, 2.0, 3.0])
    y_pred = np.array([[1.5], [2.0], [2.0]], "float32")
    np.testing.assert_allclose(keras.losses.mse(y_true, y_pred).numpy(), [0.25, 0.0, 1.0])
    np.testing.assert_allclose(keras.losses.mae(y_true, y_pred).numpy(), [0.5, 0.0, 1.0])
    assert float(keras.losses.MeanSquaredError()(y_true, y_pred)) == pytest.approx(1.25 / 3)


def test_loss_reductions_and_sample_weight():
    y_true, y_pred = np.array([[0.0], [1.0]]), np.array([[1.0], [3.0]], "float32")
    mse = keras.losses.MeanSquaredError
    assert float(mse()(y_true, y_pred, sample_weight=[1.0, 0.5])) == pytest.approx((1 + 2) / 2)
    assert float(mse(reduction="sum")(y_true, y_pred)) == pytest.approx(5.0)
    np.testing.assert_allclose(mse(reduction=None)(y_true, y_pred).numpy(), [1.0, 4.0])
    with pytest.raises(ValueError, match="Invalid value for argument `reduction`"):
        mse(reduction="avg")


def test_crossentropies_match_numpy():
    logits = np.array([[2.0, 0.5, -1.0], [0.1, 0.2, 0.3]], "float32")
    labels = np.array([0, 2])
    probs = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    expected = -np.log(probs[[0, 1], labels])
    sparse = keras.losses.SparseCategoricalCrossentropy
    np.testing.assert_allclose(float(sparse(from_logits=True)(labels, logits)), expected.mean(), rtol=1e-5)
    np.testing.assert_allclose(float(sparse()(labels, probs)), expected.mean(), rtol=1e-5)
    onehot = keras.utils.to_categorical(labels, 3)
    cce = keras.losses.CategoricalCrossentropy
    np.testing.assert_allclose(float(cce(from_logits=True)(onehot, logits)), expected.mean(), rtol=1e-5)
    np.testing.assert_allclose(keras.losses.categorical_crossentropy(onehot, probs).numpy(), expected, rtol=1e-5)
    p = np.array([[0.9], [0.2]], "float32")
    y = np.array([[1.0], [1.0]])
    np.testing.assert_allclose(float(keras.losses.BinaryCrossentropy()(y, p)), -np.log([0.9, 0.2]).mean(),
                               rtol=1e-5)
    z = np.log(p / (1 - p))
    np.testing.assert_allclose(float(keras.losses.BinaryCrossentropy(from_logits=True)(y, z)),
                               -np.log([0.9, 0.2]).mean(), rtol=1e-5)


def test_crossentropy_shape_errors():
    with pytest.raises(ValueError, match="must have the same rank"):
        keras.losses.binary_crossentropy(np.ones(3), np.ones((3, 1), "float32") * 0.5)
    with pytest.raises(ValueError, match="must have rank"):
        keras.losses.sparse_categorical_crossentropy(np.ones((2, 3)), np.ones((2, 3), "float32"))
    with pytest.raises(ValueError, match="Could not interpret loss identifier"):
        keras.losses.get("hinge-ish")


def test_mean_metric_state():
    mean = keras.metrics.Mean()
    mean.update_state([1.0, 2.0, 3.0])
    mean.update_state(10.0)                      # a scalar counts as one sample
    assert float(mean.result()) == pytest.approx(16 / 4)
    mean.update_state([1.0, 1.0], sample_weight=[3.0, 1.0])
    assert float(mean.result()) == pytest.approx((16 + 4) / 8)
    mean.reset_state()
    assert float(mean.result()) == 0.0
    assert [v.dtype for v in mean.variables] == [tf.float32, tf.float32]


def test_accuracy_metrics():
    m = keras.metrics.SparseCategoricalAccuracy()
    m.update_state([[2], [1]], [[0.1, 0.2, 0.7], [0.5, 0.3, 0.2]])
    assert float(m.result()) == 0.5 and m.name == "sparse_categorical_accuracy"
    m = keras.metrics.CategoricalAccuracy()
    assert float(m([[0, 0, 1], [0, 1, 0]], [[0.1, 0.2, 0.7], [0.05, 0.95, 0]])) == 1.0
    m = keras.metrics.BinaryAccuracy()
    assert float(m([[1], [1], [0], [0]], [[0.98], [0.2], [0.1], [0.6]])) == 0.5
    assert float(keras.metrics.Accuracy()([[1], [2]], [[1], [3]])) == 0.5


def test_metric_for_compile_resolves_accuracy_kind():
    resolve = metric_for_compile
    kinds = [(tf.zeros([4]), tf.zeros([4, 1]), "BinaryAccuracy"),
             (tf.zeros([4]), tf.zeros([4, 3]), "SparseCategoricalAccuracy"),
             (tf.zeros([4, 1]), tf.zeros([4, 3]), "SparseCategoricalAccuracy"),
             (tf.zeros([4, 3]), tf.zeros([4, 3]), "CategoricalAccuracy")]
    for y_true, y_pred, kind in kinds:
        metric = resolve("accuracy", y_true, y_pred)
        assert type(metric).__name__ == kind and metric.name == "accuracy"
    assert resolve("mae", tf.zeros([2]), tf.zeros([2])).name == "mae"

    def my_metric(y_true, y_pred):
        return tf.reduce_mean(y_pred)
    assert resolve(my_metric, tf.zeros([2]), tf.zeros([2])).name == "my_metric"


def test_to_categorical_and_set_random_seed():
    out = keras.utils.to_categorical([0, 2, 1])
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out, np.eye(3)[[0, 2, 1]])
    assert keras.utils.to_categorical([[1], [0]], 3).shape == (2, 3)
    keras.utils.set_random_seed(7)
    first = (np.random.rand(), tf.random.uniform([2]).numpy())
    keras.utils.set_random_seed(7)
    second = (np.random.rand(), tf.random.uniform([2]).numpy())
    assert first[0] == second[0]
    np.testing.assert_array_equal(first[1], second[1])
    with pytest.raises(ValueError, match="Expected `seed` argument to be an integer"):
        keras.utils.set_random_seed(1.5)
