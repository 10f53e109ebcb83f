"""Softmax and log-softmax as single kernels forward and backward (SoftmaxGrad, LogSoftmaxGrad): values
recorded from TensorFlow 2.21, first and second gradients against finite differences, eager against traced,
and the large-logit stability TensorFlow has."""
import numpy as np
import pytest

import tensorflux as tf
from helpers import check_gradients

LOGITS = np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 1000.0]], np.float32)


def test_values_recorded_from_tensorflow():
    # tf.nn.softmax / log_softmax of LOGITS under TensorFlow 2.21
    np.testing.assert_allclose(tf.nn.softmax(LOGITS).numpy(),
                               [[0.09003057, 0.24472848, 0.66524094], [0.0, 0.0, 1.0]], rtol=1e-6)
    np.testing.assert_allclose(tf.nn.log_softmax(LOGITS).numpy(),
                               [[-2.407606, -1.4076059, -0.40760595], [-1001.0, -999.5, 0.0]], rtol=1e-6)
    np.testing.assert_allclose(tf.nn.softmax(LOGITS, axis=0).numpy(),
                               [[0.880797, 0.81757444, 0.0], [0.11920291, 0.18242551, 1.0]], rtol=1e-6)


@pytest.mark.parametrize("dtype", [tf.float16, tf.bfloat16])
def test_narrow_floats_are_computed_wide(dtype):
    out = tf.nn.softmax(tf.constant([1.0, 2.0, 1000.0], dtype))
    assert out.dtype == dtype
    np.testing.assert_allclose(tf.cast(out, tf.float32).numpy(), [0.0, 0.0, 1.0])


@pytest.mark.parametrize("axis", [-1, 0, 1])
@pytest.mark.parametrize("fn", [tf.nn.softmax, tf.nn.log_softmax])
def test_gradients_match_finite_differences(fn, axis):
    x = np.random.default_rng(0).standard_normal((3, 4, 5))
    check_gradients(lambda a: fn(a, axis=axis), [x])


@pytest.mark.parametrize("fn", [tf.nn.softmax, tf.nn.log_softmax])
def test_second_order_gradients(fn):
    rng = np.random.default_rng(1)
    weights = tf.constant(rng.standard_normal((3, 4)))

    def first(a):
        with tf.GradientTape() as tape:
            tape.watch(a)
            loss = tf.reduce_sum(fn(a) * weights)
        return tape.gradient(loss, a)

    check_gradients(first, [rng.standard_normal((3, 4))], rtol=1e-5, atol=1e-8)


def test_backward_is_one_op_in_a_graph():
    @tf.function
    def grad(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.nn.softmax(x)
        return tape.gradient(y, x, output_gradients=tf.ones_like(y) * x)

    graph = grad.get_concrete_function(tf.TensorSpec((2, 3), tf.float32)).graph
    types = [op.type for op in graph.get_operations()]
    assert types.count("SoftmaxGrad") == 1
    assert "Sum" not in types
    x = np.array([[0.5, -1.0, 2.0], [1.0, 1.0, 1.0]], np.float32)
    p = tf.nn.softmax(x).numpy()
    np.testing.assert_allclose(grad(x).numpy(), p * (x - np.sum(x * p, axis=-1, keepdims=True)), rtol=1e-5)
