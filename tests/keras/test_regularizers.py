"""keras.regularizers: the penalties, their names, and their place in the training loss (expected losses
are what TensorFlow 2.21's Keras printed for the same script and weights)."""
import numpy as np
import pytest

import tensorflux as tf

keras = tf.keras


def test_penalties():
    w = tf.constant([[1.0, -2.0], [3.0, 0.5]])
    assert float(keras.regularizers.L1(0.1)(w)) == pytest.approx(0.65)
    assert float(keras.regularizers.L2(0.1)(w)) == pytest.approx(1.425)
    assert float(keras.regularizers.L1L2(0.1, 0.1)(w)) == pytest.approx(2.075)
    assert float(keras.regularizers.get("l2")(w)) == pytest.approx(0.1425)
    assert float(keras.regularizers.l1_l2(0.01, 0.01)(w)) == pytest.approx(0.065 + 0.1425)
    assert keras.regularizers.l1_l2 is keras.regularizers.L1L2 and float(keras.regularizers.l1_l2()(w)) == 0.0  # Keras 3
    assert float(keras.regularizers.get({"class_name": "L1", "config": {"l1": 1.0}})(w)) == pytest.approx(6.5)
    with pytest.raises(ValueError, match="Could not interpret regularizer identifier: l3"):
        keras.regularizers.get("l3")
    with pytest.raises(ValueError, match="should be a positive float"):
        keras.regularizers.L2(-1.0)


def test_layer_losses_follow_the_weights():
    dense = keras.layers.Dense(2, kernel_regularizer=keras.regularizers.L2(0.1), bias_regularizer="l1",
                               kernel_initializer="ones", bias_initializer="ones")
    dense(np.ones((1, 3), np.float32))
    np.testing.assert_allclose([float(v) for v in dense.losses], [0.6, 0.02], rtol=1e-6)
    conv = keras.layers.Conv2D(2, 3, kernel_regularizer="l2", kernel_initializer="ones")
    conv(np.ones((1, 4, 4, 1), np.float32))
    assert float(conv.losses[0]) == pytest.approx(0.01 * 18)
    for layer in (keras.layers.Conv1D(2, 2, kernel_regularizer="l1"),
                  keras.layers.DepthwiseConv2D(2, depthwise_regularizer="l1")):
        layer(np.ones((1, 4, 4, 2) if "Depthwise" in type(layer).__name__ else (1, 4, 2), np.float32))
        assert len(layer.losses) == 1


def test_training_adds_the_penalties_as_keras_does():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((16, 3)).astype(np.float32)
    y = rng.standard_normal((16, 1)).astype(np.float32)
    model = keras.Sequential([
        keras.Input((3,)),
        keras.layers.Dense(4, activation="relu", kernel_regularizer=keras.regularizers.L1L2(0.01, 0.02),
                           bias_regularizer="l2"),
        keras.layers.Dense(1, kernel_regularizer="l1")])
    model.set_weights([rng.standard_normal(w.shape).astype(np.float32) for w in model.get_weights()])
    model.compile(keras.optimizers.SGD(0.05), "mse")
    history = model.fit(x, y, batch_size=8, epochs=3, shuffle=False, verbose=0)
    np.testing.assert_allclose(history.history["loss"], [3.38400, 1.92656, 1.40629], rtol=2e-5)
    assert model.evaluate(x, y, verbose=0) == pytest.approx(1.11901, rel=2e-5)
