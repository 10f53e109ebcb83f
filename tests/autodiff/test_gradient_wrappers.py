"""tf.grad_pass_through and tf.recompute_grad against values recorded from TensorFlow 2.21."""
import numpy as np

import tensorflux as tf


def test_grad_pass_through_an_assignment():
    x, z = tf.Variable(2.0), tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = tf.grad_pass_through(x.assign)(z ** 2)
    assert tape.gradient(y, z).numpy() == 6.0           # TF: 6.0


def test_grad_pass_through_a_straight_through_round():
    a = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(a)
        y = tf.grad_pass_through(lambda t: tf.round(t * 3.3))(a) * 2.0
    assert y.numpy().tolist() == [6.0, 14.0] and tape.gradient(y, a).numpy().tolist() == [2.0, 2.0]


def test_recompute_grad_equals_the_plain_gradient():
    a = tf.constant([1.0, 2.0])

    def f(x):
        return tf.sin(x) * tf.exp(x)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(a)
        recomputed = tf.recompute_grad(f)(a)
        plain = f(a)
    np.testing.assert_array_equal(recomputed.numpy(), plain.numpy())
    np.testing.assert_array_equal(tape.gradient(recomputed, a).numpy(), tape.gradient(plain, a).numpy())
    np.testing.assert_allclose(tape.gradient(recomputed, a).numpy(), [3.7560492, 3.6439173], rtol=1e-6)  # TF


def test_recompute_grad_gives_the_variables_their_gradients():
    a = tf.constant([1.0, 2.0])
    w = tf.Variable([0.5, 1.5])
    h = tf.recompute_grad(lambda x: tf.reduce_sum(x * w * w))
    with tf.GradientTape() as tape:
        tape.watch(a)
        y = h(a)
    da, dw = tape.gradient(y, [a, w])
    assert y.numpy() == 4.75 and da.numpy().tolist() == [0.25, 2.25] and dw.numpy().tolist() == [1.0, 6.0]
