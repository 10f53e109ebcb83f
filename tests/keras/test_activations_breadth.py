"""keras.activations added for Keras 3.15's names, against values recorded from Keras 3.15 for
x = [[-2.0, -0.5, 0.3, 1.7]] (float32)."""
import numpy as np
import pytest

import tensorflux as tf

A = tf.keras.activations
X = np.array([[-2.0, -0.5, 0.3, 1.7]], np.float32)
RECORDED = {
    "celu": [[-0.8646647334098816, -0.39346933364868164, 0.30000001192092896, 1.7000000476837158]],
    "glu": [[-1.1488851308822632, -0.42276737093925476]],
    "hard_shrink": [[-2.0, 0.0, 0.0, 1.7000000476837158]],
    "hard_silu": [[-0.3333333432674408, -0.2083333283662796, 0.16500000655651093, 1.3316667079925537]],
    "hard_swish": [[-0.3333333432674408, -0.2083333283662796, 0.16500000655651093, 1.3316667079925537]],
    "hard_tanh": [[-1.0, -0.5, 0.30000001192092896, 1.0]],
    "log_sigmoid": [[-2.1269280910491943, -0.9740769863128662, -0.554355263710022, -0.16778601706027985]],
    "mish": [[-0.2525014579296112, -0.22074377536773682, 0.20800139009952545, 1.6207680702209473]],
    "soft_shrink": [[-1.5, 0.0, 0.0, 1.2000000476837158]],
    "sparse_plus": [[0.0, 0.0625, 0.42249995470046997, 1.7000000476837158]],
    "sparse_sigmoid": [[0.0, 0.25, 0.6499999761581421, 1.0]],
    "sparsemax": [[0.0, 0.0, 0.0, 1.0]],
    "squareplus": [[0.41421353816986084, 0.7807763814926147, 1.1611874103546143, 2.162440538406372]],
    "tanh_shrink": [[-1.0359723567962646, -0.037882864475250244, 0.008687376976013184, 0.7645909786224365]],
}


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_values_match_keras(name):
    result = getattr(A, name)(tf.constant(X))
    assert result.dtype == tf.float32
    np.testing.assert_allclose(result.numpy(), RECORDED[name], rtol=2e-6, atol=1e-7)


def test_threshold_and_lookup():
    np.testing.assert_array_equal(A.threshold(tf.constant([1.0, -1.0]), 0.0, 5.0).numpy(), [1.0, 5.0])
    assert A.hard_swish is A.hard_silu
    assert A.get("mish") is A.mish and A.deserialize("relu") is A.relu and A.serialize(A.relu) == "relu"
    assert A.deserialize("my_act", custom_objects={"my_act": abs}) is abs
    with pytest.raises(ValueError, match="Could not interpret activation function identifier: nope"):
        A.deserialize("nope")


def test_layers_accept_the_new_names():
    layer = tf.keras.layers.Dense(2, activation="mish", kernel_initializer="ones")
    np.testing.assert_allclose(layer(tf.constant([[0.5]])).numpy(), A.mish(tf.constant([[0.5, 0.5]])).numpy())
