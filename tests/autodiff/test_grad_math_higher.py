"""Higher-order gradients through the math ops' gradients (nested tapes, eager and in tf.function), a
persistent tape giving several gradients, and `GradientTape.jacobian` against finite differences."""
import numpy as np
import pytest

import tensorflux as tf
from test_grad_math import numeric_grad

POINTS = np.array([-1.3, -0.4, 0.0, 0.7, 1.9])

# f, f'', on float64 tensors / numpy arrays
SECOND_DERIVATIVES = {
    "cube_pow": (lambda x: x ** 3, lambda x: 6 * x),
    "cube_product": (lambda x: x * x * x, lambda x: 6 * x),
    "tanh": (tf.tanh, lambda x: -2 * np.tanh(x) * (1 - np.tanh(x) ** 2)),
    "exp_sin": (lambda x: tf.exp(x) * tf.sin(x), lambda x: 2 * np.exp(x) * np.cos(x)),
    "sigmoid": (tf.sigmoid, lambda x: (s := 1 / (1 + np.exp(-x))) * (1 - s) * (1 - 2 * s)),
    "sqrt_of_square_plus_one": (lambda x: tf.sqrt(tf.square(x) + 1.0), lambda x: (x * x + 1) ** -1.5),
    "log1p_exp": (lambda x: tf.math.log1p(tf.exp(x)), lambda x: np.exp(x) / (1 + np.exp(x)) ** 2),
    "reciprocal": (lambda x: tf.math.reciprocal(x + 3.0), lambda x: 2 / (x + 3) ** 3),
}


def second_derivative(f, x):
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        dy = inner.gradient(y, x)
    return outer.gradient(dy, x)


@pytest.mark.parametrize("name", sorted(SECOND_DERIVATIVES))
def test_second_derivative_matches_closed_form(name):
    f, closed_form = SECOND_DERIVATIVES[name]
    x = tf.constant(POINTS)
    eager = second_derivative(f, x)
    np.testing.assert_allclose(eager.numpy(), closed_form(POINTS), rtol=1e-10, atol=1e-12)
    graph = tf.function(lambda t: second_derivative(f, t))(x)
    np.testing.assert_allclose(graph.numpy(), eager.numpy(), rtol=1e-12, atol=1e-12)


def test_third_derivative_of_cube_is_six():
    x = tf.constant(0.8, tf.float64)
    with tf.GradientTape() as t3:
        t3.watch(x)
        with tf.GradientTape() as t2:
            t2.watch(x)
            with tf.GradientTape() as t1:
                t1.watch(x)
                y = x ** 3
            d1 = t1.gradient(y, x)
        d2 = t2.gradient(d1, x)
    d3 = t3.gradient(d2, x)
    np.testing.assert_allclose([d1.numpy(), d2.numpy(), d3.numpy()], [3 * 0.64, 6 * 0.8, 6.0], rtol=1e-12)


def test_mixed_second_derivative_through_reduction_and_matmul():
    # f(w) = sum((x @ w)^2) has Hessian-vector product 2 x^T x v; check d/dw of (grad . v).
    x = tf.constant(np.random.default_rng(0).normal(size=(4, 3)))
    w = tf.constant(np.random.default_rng(1).normal(size=(3, 1)))
    v = tf.constant(np.random.default_rng(2).normal(size=(3, 1)))
    with tf.GradientTape() as outer:
        outer.watch(w)
        with tf.GradientTape() as inner:
            inner.watch(w)
            loss = tf.reduce_sum(tf.square(tf.matmul(x, w)))
        g = inner.gradient(loss, w)
        directional = tf.reduce_sum(g * v)
    hvp = outer.gradient(directional, w)
    np.testing.assert_allclose(hvp.numpy(), 2 * x.numpy().T @ x.numpy() @ v.numpy(), rtol=1e-10)


def test_persistent_tape_computes_several_gradients():
    x = tf.constant([0.5, -1.0, 2.0], tf.float64)
    y = tf.constant(3.0, tf.float64)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, y])
        a = tf.reduce_sum(x * x) * y
        b = tf.reduce_mean(tf.exp(x) / y)
    gx_a, gy_a = tape.gradient(a, [x, y])
    gx_b = tape.gradient(b, x)
    gy_b = tape.gradient(b, y)
    np.testing.assert_allclose(gx_a.numpy(), 2 * x.numpy() * 3.0)
    np.testing.assert_allclose(gy_a.numpy(), np.sum(x.numpy() ** 2))
    np.testing.assert_allclose(gx_b.numpy(), np.exp(x.numpy()) / 3.0 / 3)
    np.testing.assert_allclose(gy_b.numpy(), -np.mean(np.exp(x.numpy())) / 9.0)
    del tape


def test_non_persistent_tape_gives_one_gradient():
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    assert tape.gradient(y, x).numpy() == 4.0
    with pytest.raises(RuntimeError, match="non-persistent"):
        tape.gradient(y, x)


def _vector_function(x):
    x0, x1, x2 = x[0], x[1], x[2]
    return tf.stack([x0 * x1, tf.sin(x0) + x2 ** 2, tf.exp(x1) / x2, tf.reduce_prod(x), tf.atan2(x0, x2)])


def test_jacobian_matches_finite_differences():
    x0 = np.array([0.3, -0.8, 1.7])
    x = tf.constant(x0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = _vector_function(x)
    jacobian = tape.jacobian(y, x)
    assert jacobian.shape == [5, 3] and jacobian.dtype == tf.float64
    expected = np.stack([numeric_grad(lambda v, i=i: float(_vector_function(tf.constant(v))[i].numpy()), x0)
                         for i in range(5)])
    np.testing.assert_allclose(jacobian.numpy(), expected, rtol=1e-6, atol=1e-8)


def test_jacobian_of_matrix_function():
    w0 = np.random.default_rng(3).normal(size=(2, 3))
    x = tf.constant(np.random.default_rng(4).normal(size=(3,)))
    w = tf.constant(w0)
    with tf.GradientTape() as tape:
        tape.watch(w)
        y = tf.tanh(tf.squeeze(tf.matmul(w, tf.expand_dims(x, 1)), 1))
    jacobian = tape.jacobian(y, w)
    assert jacobian.shape == [2, 2, 3]
    for i in range(2):
        expected = numeric_grad(lambda v, i=i: float(np.tanh(v @ x.numpy())[i]), w0)
        np.testing.assert_allclose(jacobian.numpy()[i], expected, rtol=1e-6, atol=1e-9)
