"""GradientTape semantics, gradients through tf.function calls and through graph control flow."""
import numpy as np
import pytest

import tensorflux as tf
from helpers import numeric_grad


def test_watch_persistent_and_non_persistent_errors():
    x = tf.constant(3.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = x * x
    assert t.gradient(y, x).numpy() == 6.0
    with pytest.raises(RuntimeError, match="non-persistent GradientTape can only be used to compute one set"):
        t.gradient(y, x)
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        y = x * x
        z = y * x
    assert t.gradient(y, x).numpy() == 6.0 and t.gradient(z, x).numpy() == 27.0


def test_unwatched_and_unconnected_sources():
    x, y = tf.constant(1.0), tf.constant(2.0)
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        z = x * 2.0
    assert t.gradient(z, y) is None
    assert t.gradient(z, y, unconnected_gradients=tf.UnconnectedGradients.ZERO).numpy() == 0.0
    assert t.gradient(z, [x, y])[1] is None


def test_trainable_variables_are_watched_automatically():
    v = tf.Variable(2.0)
    frozen = tf.Variable(5.0, trainable=False)
    with tf.GradientTape() as t:
        y = v * v * frozen
    gv, gf = t.gradient(y, [v, frozen])
    assert gv.numpy() == 20.0 and gf is None
    with tf.GradientTape(watch_accessed_variables=False) as t:
        y = v * v
    assert t.gradient(y, v) is None


def test_stop_recording_and_stop_gradient():
    x = tf.constant(2.0)
    with tf.GradientTape() as t:
        t.watch(x)
        with t.stop_recording():
            y = x * x
        z = x * 3.0 + y + tf.stop_gradient(x * x)
    assert t.gradient(z, x).numpy() == 3.0


def test_nested_tapes_give_higher_order_gradients():
    x = tf.constant(2.0)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = x * x * x
        dy = inner.gradient(y, x)
    assert dy.numpy() == 12.0 and outer.gradient(dy, x).numpy() == 12.0


def test_output_gradients_and_nested_sources():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as t:
        t.watch(x)
        y = x * x
    g = t.gradient(y, {"a": x}, output_gradients=tf.constant([1.0, 10.0]))
    assert g["a"].numpy().tolist() == [2.0, 40.0]


def test_custom_gradient():
    @tf.custom_gradient
    def clip_grad(x):
        def grad(dy):
            return tf.clip_by_value(dy, -0.5, 0.5)
        return tf.identity(x), grad

    x = tf.constant(1.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = clip_grad(x) * 10.0
    assert t.gradient(y, x).numpy() == 0.5


def test_jacobian_and_batch_jacobian():
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        y = x * x
    np.testing.assert_allclose(t.jacobian(y, x).numpy(), np.diag([2.0, 4.0, 6.0]))
    xb = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape() as t:
        t.watch(xb)
        yb = xb * xb
    jb = t.batch_jacobian(yb, xb).numpy()
    assert jb.shape == (2, 2, 2)
    np.testing.assert_allclose(jb[1], np.diag([6.0, 8.0]))


def test_tf_function_called_eagerly_is_differentiable():
    v = tf.Variable(1.0)

    @tf.function
    def add(a, b):
        return a * b + v

    x = tf.constant(3.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = add(x, 2.0)
    gx, gv = t.gradient(y, [x, v])
    assert gx.numpy() == 2.0 and gv.numpy() == 1.0
    with tf.GradientTape() as t:  # the backward function is reused across calls
        t.watch(x)
        y = add(x, 2.0)
    assert t.gradient(y, x).numpy() == 2.0


def test_tape_inside_tf_function_matches_eager():
    w = tf.Variable([[0.5, -1.0], [2.0, 0.25]])

    def loss_and_grads(x):
        with tf.GradientTape() as t:
            t.watch(x)
            loss = tf.reduce_sum(tf.tanh(tf.matmul(x, w)) ** 2)
        return t.gradient(loss, [x, w])

    x = tf.constant([[1.0, 2.0], [3.0, -1.0]])
    eager = loss_and_grads(x)
    traced = tf.function(loss_and_grads)(x)
    for e, g in zip(eager, traced):
        np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-5)


def _cond_fn(x):
    if tf.reduce_sum(x) > 0:
        y = x * x * 3.0
    else:
        y = tf.sin(x)
    return tf.reduce_sum(y)


@pytest.mark.parametrize("values", [[1.0, 2.0], [-1.0, -2.0]])
def test_gradient_through_cond_matches_finite_differences(values):
    x = tf.constant(values, dtype=tf.float64)

    @tf.function
    def grad(x):
        with tf.GradientTape() as t:
            t.watch(x)
            y = _cond_fn(x)
        return t.gradient(y, x)

    expected = numeric_grad(lambda a: float(_cond_fn(tf.constant(a))), np.array(values))
    np.testing.assert_allclose(grad(x).numpy(), expected, rtol=1e-6)


def _loop_fn(x, n):
    y = x
    for _ in tf.range(n):
        y = tf.sin(y) * x
    return tf.reduce_sum(y)


@pytest.mark.parametrize("n", [0, 1, 4])
def test_gradient_through_while_matches_finite_differences(n):
    x = tf.constant([0.3, -0.7], dtype=tf.float64)

    @tf.function
    def grad(x, n):
        with tf.GradientTape() as t:
            t.watch(x)
            y = _loop_fn(x, n)
        return t.gradient(y, x)

    expected = numeric_grad(lambda a: float(_loop_fn(tf.constant(a), tf.constant(n))), x.numpy())
    np.testing.assert_allclose(grad(x, tf.constant(n)).numpy(), expected, rtol=1e-6, atol=1e-9)


def test_gradient_of_variable_through_loop():
    v = tf.Variable(3.0)

    @tf.function
    def g(n):
        with tf.GradientTape() as t:
            s = tf.constant(0.0)
            for _ in tf.range(n):
                s += v * v
        return t.gradient(s, v)

    assert g(tf.constant(4)).numpy() == 24.0
    assert g(tf.constant(0)).numpy() == 0.0


def _rnn(inputs, state):
    steps = tf.TensorArray(inputs.dtype, size=inputs.shape[0])
    for i in tf.range(inputs.shape[0]):
        state = tf.tanh(inputs[i] + state)
        steps = steps.write(i, state)
    return tf.reduce_sum(steps.stack() ** 2)


def test_gradient_through_tensor_array_eager_traced_and_numeric():
    inputs = np.arange(12, dtype=np.float64).reshape(3, 4) / 10.0
    s0 = np.full(4, 0.1)

    def grads(a, b):
        with tf.GradientTape() as t:
            t.watch([a, b])
            y = _rnn(a, b)
        return t.gradient(y, [a, b])

    eager = grads(tf.constant(inputs), tf.constant(s0))
    traced = tf.function(grads)(tf.constant(inputs), tf.constant(s0))
    expected = numeric_grad(lambda a: float(_rnn(tf.constant(a), tf.constant(s0))), inputs)
    np.testing.assert_allclose(eager[0].numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(traced[0].numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(traced[1].numpy(), eager[1].numpy(), rtol=1e-9)


def test_sgd_training_of_a_linear_model_reaches_known_loss():
    rs = np.random.RandomState(0)
    x = tf.constant(rs.rand(64, 3).astype(np.float32))
    true_w = np.array([[1.5], [-2.0], [0.5]], dtype=np.float32)
    y = tf.constant(x.numpy() @ true_w + 0.3)
    w = tf.Variable(tf.zeros([3, 1]))
    b = tf.Variable(0.0)

    @tf.function
    def step():
        with tf.GradientTape() as t:
            loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
        gw, gb = t.gradient(loss, [w, b])
        w.assign_sub(0.5 * gw)
        b.assign_sub(0.5 * gb)
        return loss

    for _ in range(500):
        loss = step()
    assert loss.numpy() < 1e-4
    np.testing.assert_allclose(w.numpy(), true_w, atol=1e-2)


def test_adam_training_of_a_two_layer_mlp():
    rs = np.random.RandomState(1)
    x = tf.constant(rs.uniform(-1, 1, (128, 2)).astype(np.float32))
    y = tf.constant((np.sin(3 * x.numpy()[:, :1]) * x.numpy()[:, 1:]).astype(np.float32))
    params = [tf.Variable(rs.normal(0, 0.5, (2, 32)).astype(np.float32)), tf.Variable(tf.zeros([32])),
              tf.Variable(rs.normal(0, 0.5, (32, 1)).astype(np.float32)), tf.Variable(tf.zeros([1]))]
    m = [tf.Variable(tf.zeros_like(p)) for p in params]
    s = [tf.Variable(tf.zeros_like(p)) for p in params]
    t_step = tf.Variable(0.0)

    @tf.function
    def train():
        with tf.GradientTape() as tape:
            h = tf.nn.relu(tf.matmul(x, params[0]) + params[1])
            loss = tf.reduce_mean(tf.square(tf.matmul(h, params[2]) + params[3] - y))
        grads = tape.gradient(loss, params)
        t_step.assign_add(1.0)
        for p, g, mi, si in zip(params, grads, m, s):
            mi.assign(0.9 * mi + 0.1 * g)
            si.assign(0.999 * si + 0.001 * g * g)
            m_hat = mi / (1.0 - 0.9 ** t_step)
            s_hat = si / (1.0 - 0.999 ** t_step)
            p.assign_sub(0.01 * m_hat / (tf.sqrt(s_hat) + 1e-7))
        return loss

    first = train().numpy()
    for _ in range(400):
        loss = train()
    assert loss.numpy() < 0.01 < first


def test_custom_gradient_with_variables():
    v = tf.Variable(3.0)

    @tf.custom_gradient
    def scaled(x):
        y = x * v

        def grad(dy, variables=None):
            return dy * v * 10.0, [dy * x * 100.0]

        return y, grad

    x = tf.constant(2.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = scaled(x)
    gx, gv = t.gradient(y, [x, v])
    assert gx.numpy() == 30.0 and gv.numpy() == 200.0


def test_captured_tensor_gradient_through_while_and_nested_whiles():
    w = tf.constant(2.0)

    def loop(x):
        with tf.GradientTape() as t:
            t.watch([x, w])
            _, a = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * x + w), [0, tf.constant(1.0)])
        return t.gradient(a, [x, w])

    x = tf.constant(1.5)
    for e, g in zip(loop(x), tf.function(loop)(x)):
        assert abs(float(e) - float(g)) < 1e-5
    assert abs(float(loop(x)[1]) - (1.5 ** 2 + 1.5 + 1)) < 1e-5

    def nested(x):
        def outer_body(i, a):
            _, b = tf.while_loop(lambda j, b: j < 2, lambda j, b: (j + 1, b * x), [0, a])
            return i + 1, b
        with tf.GradientTape() as t:
            t.watch(x)
            _, r = tf.while_loop(lambda i, a: i < 3, outer_body, [0, tf.constant(1.0)])
        return t.gradient(r, x)

    x = tf.constant(1.1)
    assert abs(float(tf.function(nested)(x)) - 6 * 1.1 ** 5) < 1e-4
    assert abs(float(nested(x)) - 6 * 1.1 ** 5) < 1e-4
