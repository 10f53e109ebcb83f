"""A GradientTape around a call of a tf.function (or of one of its concrete functions) differentiates
through the function's loops and branches, and gives the eager gradients (TensorFlow's values)."""
import numpy as np
import pytest

import tensorflux as tf


def loop_fn(x):
    y = x * 2.0
    for _ in tf.range(3):
        y = tf.tanh(y) + 0.5
    return y


def while_fn(x, v):
    i, y = tf.constant(0), x
    while i < 4:
        y = y * v + tf.sin(y)
        i += 1
    if tf.reduce_sum(y) > 0:
        y = y * 3.0
    return y


def nested_fn(x):
    total = tf.zeros_like(x)
    for i in tf.range(3):
        for _ in tf.range(i + 1):
            total = total + tf.square(x) * tf.cast(i, x.dtype)
    return total


def eager_gradient(fn, *args):
    with tf.GradientTape() as tape:
        tape.watch(args[0])
        out = tf.reduce_sum(fn(*args))
    sources = [args[0]] + [a for a in args[1:] if isinstance(a, tf.Variable)]
    return [g.numpy() for g in tape.gradient(out, sources)]


@pytest.mark.parametrize("fn", [loop_fn, while_fn, nested_fn], ids=["for-range", "while+cond", "nested"])
@pytest.mark.parametrize("call", ["function", "concrete"])
def test_tape_outside_the_function_matches_eager(fn, call):
    x = tf.constant([0.3, -0.7, 1.1])
    args = (x, tf.Variable(0.9)) if fn is while_fn else (x,)
    expected = eager_gradient(fn, *args)
    function = tf.function(fn)
    target = function.get_concrete_function(*args) if call == "concrete" else function
    got = eager_gradient(target, *args)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)


def test_recorded_values_of_tensorflow():
    # TensorFlow 2.21 prints [0.00590561 0.00210743] for loop_fn at [1, -2] (the last digit of the second
    # value comes from Eigen's tanh); the first is exact.
    x = tf.constant([1.0, -2.0])
    g = eager_gradient(tf.function(loop_fn).get_concrete_function(x), x)[0]
    np.testing.assert_allclose(g, [0.00590561, 0.00210743], rtol=2e-4)
