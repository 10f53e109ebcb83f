"""Higher-order gradients through `tf.while_loop` inside a tf.function: the first gradient, taken while
another tape records, is a While of ordinary ops (autodiff/while_reverse_loop.py) instead of the
WhileGrad op, so it can be differentiated again. Checked against finite differences of the first
gradient (float64) and against values recorded from TensorFlow 2.21 (float32, /tmp script run under
~/venv-tf: the same functions)."""
import numpy as np
import pytest

import tensorflux as tf

from helpers import numeric_grad


def _loop(x, steps=3):
    return tf.while_loop(lambda i, v: i < steps, lambda i, v: (i + 1, tf.sin(v * x) + v), [0, x])[1]


def _first_and_second(x):
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = _loop(x)
        g = inner.gradient(y, x)
    return y, g, outer.gradient(g, x)


def test_second_derivative_of_a_loop_as_tensorflow():
    # TensorFlow 2.21, float32, x = 0.7: y, dy/dx, d2y/dx2.
    want = [2.8727681636810303, 5.236247539520264, -21.54751968383789]
    for fn in (_first_and_second, tf.function(_first_and_second)):
        got = [float(v) for v in fn(tf.constant(0.7))]
        np.testing.assert_allclose(got, want, rtol=2e-6)


def test_second_derivative_of_a_loop_finite_differences():
    x = np.array(0.7)

    def first(value):
        with tf.GradientTape() as tape:
            t = tf.constant(value)
            tape.watch(t)
            y = _loop(t)
        return float(tape.gradient(y, t))
    _, g, gg = tf.function(_first_and_second)(tf.constant(x))
    np.testing.assert_allclose(float(g), numeric_grad(lambda v: float(_loop(tf.constant(v))), x), rtol=1e-7)
    np.testing.assert_allclose(float(gg), numeric_grad(first, x), rtol=1e-6)


def test_third_derivative_of_a_loop_finite_differences():
    @tf.function
    def third(x):
        with tf.GradientTape() as t3:
            t3.watch(x)
            with tf.GradientTape() as t2:
                t2.watch(x)
                with tf.GradientTape() as t1:
                    t1.watch(x)
                    y = _loop(x, 2)
                g = t1.gradient(y, x)
            gg = t2.gradient(g, x)
        return gg, t3.gradient(gg, x)

    def second(value):
        return float(third(tf.constant(value))[0])
    gg, ggg = third(tf.constant(0.4, tf.float64))
    np.testing.assert_allclose(float(ggg), numeric_grad(second, np.array(0.4)), rtol=1e-5)


W0 = [[0.3, -0.2], [0.1, 0.4]]
X0 = [[0.5, -1.0], [0.2, 0.9]]


def _recurrent(w, x):
    """A tanh recurrence over a captured weight: ∂Σh²/∂w, then ∂Σ(∂Σh²/∂w)²/∂w."""
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            h = tf.while_loop(lambda i, h: i < 4, lambda i, h: (i + 1, tf.tanh(tf.matmul(h, w) + x)), [0, x])[1]
            y = tf.reduce_sum(h ** 2)
        g = inner.gradient(y, w)
        s = tf.reduce_sum(g ** 2)
    return g, outer.gradient(s, w)


def test_second_order_through_a_captured_variable_as_tensorflow():
    w = tf.Variable(W0)
    got = tf.function(lambda x: _recurrent(w, x))(tf.constant(X0))
    want = ([[0.795199990272522, 0.058883000165224075], [-0.34132298827171326, 0.8511229753494263]],
            [[2.6986570358276367, -0.48464301228523254], [0.27604201436042786, -1.4061169624328613]])
    for value, expected in zip(got, want):
        np.testing.assert_allclose(value.numpy(), expected, rtol=2e-6, atol=1e-6)


def test_second_order_through_a_captured_tensor_finite_differences():
    x = tf.constant(np.array(X0))

    def s_of(w_value):
        w = tf.constant(w_value)
        with tf.GradientTape() as tape:
            tape.watch(w)
            h = tf.while_loop(lambda i, h: i < 4, lambda i, h: (i + 1, tf.tanh(tf.matmul(h, w) + x)), [0, x])[1]
            y = tf.reduce_sum(h ** 2)
        return float(np.sum(tape.gradient(y, w).numpy() ** 2))

    @tf.function
    def traced(w):
        with tf.GradientTape() as outer:
            outer.watch(w)
            with tf.GradientTape() as inner:
                inner.watch(w)
                h = tf.while_loop(lambda i, h: i < 4, lambda i, h: (i + 1, tf.tanh(tf.matmul(h, w) + x)), [0, x])[1]
                y = tf.reduce_sum(h ** 2)
            g = inner.gradient(y, w)
            s = tf.reduce_sum(g ** 2)
        return outer.gradient(s, w)
    w = np.array(W0)
    np.testing.assert_allclose(traced(tf.constant(w)).numpy(), numeric_grad(s_of, w), rtol=1e-6, atol=1e-9)


def test_loop_running_zero_times():
    @tf.function
    def f(x):
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                y = tf.while_loop(lambda i, v: i < 0, lambda i, v: (i + 1, v * x), [0, x * x])[1]
            g = inner.gradient(y, x)
        return g, outer.gradient(g, x)
    g, gg = f(tf.constant(3.0))
    assert float(g) == 6.0 and float(gg) == 2.0


@pytest.mark.parametrize("nested", [False, True])
def test_one_tape_keeps_the_while_grad_op(nested):
    """The fast WhileGrad form whenever no tape records around the gradient."""
    def f(x):
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = _loop(x)
            g = tape.gradient(y, x)
        return (g, outer.gradient(g, x)) if nested else g
    if not nested:
        def f(x):   # noqa: F811 - one tape only
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = _loop(x)
            return tape.gradient(y, x)
    types = [op.type for op in tf.function(f).get_concrete_function(tf.TensorSpec([], tf.float32)).graph
             .get_operations()]
    assert "WhileGrad" in types                          # the last gradient taken: nothing records around it
    assert ("WhileHistoryUnzip" in types) == nested      # the inner one, under a recording tape


def _recorded_rnn_cases():
    """The Keras RNN second-order cases and TensorFlow's values, from tests/keras (one copy of the data)."""
    import importlib.util
    import pathlib
    path = pathlib.Path(__file__).parents[1] / "keras" / "test_fused_rnn_second_order.py"
    spec = importlib.util.spec_from_file_location("_rnn_second_order_cases", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", ["LSTM", "GRU", "SimpleRNN"])
def test_rnn_layer_second_order_inside_a_function_as_tensorflow(name):
    cases = _recorded_rnn_cases()
    layer, x = cases._layer(name)

    @tf.function
    def run(x):
        with tf.GradientTape() as outer:
            with tf.GradientTape() as inner:
                y = tf.reduce_sum(layer(x, training=True) ** 2)
            g = inner.gradient(y, layer.trainable_weights[0])
            s = tf.reduce_sum(g ** 2)
        return [g] + outer.gradient(s, layer.trainable_weights)
    got = run(x)
    want = cases.TENSORFLOW[name]
    np.testing.assert_allclose(got[0].numpy(), want["first"], rtol=1e-5, atol=1e-6)
    for value, expected in zip(got[1:], want["second"]):
        np.testing.assert_allclose(value.numpy(), expected, rtol=1e-4, atol=1e-5)
    types = {op.type for op in run.get_concrete_function(x).graph.get_operations()}
    assert "WhileHistoryUnzip" in types and "WhileGrad" in types    # inner: differentiable; outer: fast
