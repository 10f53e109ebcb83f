"""tf.gradients / tf.hessians inside tf.function; expected values printed by TensorFlow 2.21 for the same code."""
import numpy as np
import pytest

import tensorflux as tf


def test_gradients_and_hessians_as_tensorflow():
    v = tf.Variable([1.0, 2.0])

    @tf.function
    def f(x):
        y = x * x * x
        z = tf.reduce_sum(v * x)
        w = x * 2.0
        return (tf.gradients(y, x),
                tf.gradients([y, 2 * y], [x], grad_ys=[tf.constant(1.0), tf.constant(3.0)]),
                tf.gradients(y, [x, tf.constant(1.0)]),
                tf.gradients(y, [x, tf.constant(1.0)], unconnected_gradients="zero"),
                tf.gradients(w * w, x, stop_gradients=[w]),     # the op making w is not differentiated
                tf.gradients(z, [v, x]),
                tf.hessians(y, x),
                tf.gradients(tf.reduce_sum(v * v * v), v))

    a, b, c, d, e, g, h, k = f(tf.constant(2.0))
    assert [float(t) for t in a] == [12.0]
    assert [float(t) for t in b] == [84.0]
    assert float(c[0]) == 12.0 and c[1] is None
    assert [float(t) for t in d] == [12.0, 0.0]
    assert e == [None]
    assert g[0].numpy().tolist() == [2.0, 2.0] and float(g[1]) == 3.0
    assert [float(t) for t in h] == [12.0]
    assert k[0].numpy().tolist() == [3.0, 12.0]


def test_hessian_of_a_matrix_argument():
    @tf.function
    def f(x):
        return tf.hessians(tf.reduce_sum(x ** 3), x)

    (h,) = f(tf.constant([[1.0, 2.0], [3.0, 4.0]]))
    expected = np.zeros((2, 2, 2, 2), np.float32)
    for (i, j), value in zip([(0, 0), (0, 1), (1, 0), (1, 1)], [6.0, 12.0, 18.0, 24.0]):
        expected[i, j, i, j] = value
    np.testing.assert_array_equal(h.numpy(), expected)


def test_eagerly_they_refuse_as_tensorflow():
    for call in (tf.gradients, tf.hessians):
        with pytest.raises(RuntimeError, match=r"^tf\.gradients is not supported when eager execution is enabled\. "
                                               r"Use tf\.GradientTape instead\.$"):
            call(tf.constant(1.0), tf.constant(1.0))


def test_a_seed_of_another_shape_is_a_value_error():
    @tf.function
    def f(x):
        return tf.gradients(x * 2, x, grad_ys=tf.constant([1.0, 2.0]))

    with pytest.raises(ValueError, match="Incompatible shapes between op input and calculated input gradient"):
        f(tf.constant(1.0))


def test_integer_paths_give_none():
    @tf.function
    def f(x):
        return tf.gradients(tf.cast(x, tf.int32) * 2, x)

    assert f(tf.constant(1.0)) == [None]


def test_second_order_through_a_while_loop():
    # TensorFlow 2.21 printed [8, 12, 12, 12] and [3.375, 6.75, 9, 9] for these calls.
    @tf.function
    def f(x):
        y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * x), [0, tf.constant(1.0)])[1]
        g = tf.gradients(y, x)[0]
        return y, g, tf.gradients(g, x)[0], tf.hessians(y, x)[0]

    assert [float(t) for t in f(tf.constant(2.0))] == [8.0, 12.0, 12.0, 12.0]
    assert [float(t) for t in f(tf.constant(1.5))] == [3.375, 6.75, 9.0, 9.0]
