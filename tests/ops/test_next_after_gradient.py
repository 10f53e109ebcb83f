"""tf.math.nextafter's gradient, as TensorFlow 2.21 defines it: the upstream gradient for x1 and zero times
it for x2 (so inf/NaN upstream gives NaN for x2), each summed back to its operand's broadcast shape.
Expected values were recorded from TensorFlow 2.21."""
import numpy as np

import tensorflux as tf


def _grads(x1, x2, upstream=None):
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x1, x2])
        y = tf.math.nextafter(x1, x2)
    return tape.gradient(y, [x1, x2], output_gradients=upstream)


def test_gradient_is_one_for_x1_and_zero_for_x2():
    g1, g2 = _grads(tf.constant([1.0, 2.0]), tf.constant([3.0, 0.0]))
    np.testing.assert_array_equal(g1.numpy(), np.array([1.0, 1.0], np.float32))
    np.testing.assert_array_equal(g2.numpy(), np.array([0.0, 0.0], np.float32))


def test_broadcast_operands_and_non_finite_upstream_gradient():
    inf, nan = float("inf"), float("nan")
    g1, g2 = _grads(tf.constant([[1.0], [2.0]]), tf.constant([3.0, 0.0, 1.0]),
                    tf.constant([[1.0, inf, 2.0], [nan, 3.0, 4.0]]))
    assert g1.shape == (2, 1) and g2.shape == (3,)
    np.testing.assert_array_equal(g1.numpy(), np.array([[inf], [nan]], np.float32))
    np.testing.assert_array_equal(g2.numpy(), np.array([nan, nan, 0.0], np.float32))


def test_float64_scalar_x2_inside_tf_function():
    @tf.function
    def grads(a, b):
        with tf.GradientTape() as tape:
            tape.watch([a, b])
            y = tf.math.nextafter(a, b)
        return tape.gradient(y, [a, b])

    g1, g2 = grads(tf.constant([1.0], tf.float64), tf.constant(3.0, tf.float64))
    assert g1.dtype == tf.float64 and g2.shape == ()
    np.testing.assert_array_equal(g1.numpy(), [1.0])
    assert float(g2) == 0.0
