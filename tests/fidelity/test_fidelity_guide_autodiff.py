"""Fidelity tests adapted from TensorFlow's guide "Introduction to gradients and automatic
differentiation" (tensorflow/docs, site/en/guide/autodiff.ipynb).

Each test replays, in its own words, one runnable example of the guide (with the setup of the earlier
cells it builds on) under tensorflux and compares what it prints with what TensorFlow 2.21 printed for the
same code. A notebook cell whose last line displays a value is adapted to `print(repr(value))`.

Adaptations and omissions:
- The `(3, 2)` weight matrix that the guide draws with `tf.random.normal` is a fixed matrix here, so that
  the printed gradient checks the gradient, not the random stream (random streams are covered by
  test_fidelity_guide_random_numbers.py).
- The sigmoid example ends in a matplotlib plot; the test prints a few of the plotted values instead.
  No other cell is left out (the setup cell only imports numpy, matplotlib and TensorFlow).
"""
import os
import sys

import numpy as np
import pytest

import tensorflux as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _fidelity_guide_grads_modules_rng import expect  # noqa: E402


def test_tape_gradient_of_square(capsys):
    v = tf.Variable(3.0)
    with tf.GradientTape() as g:
        sq = v ** 2
    slope = g.gradient(sq, v)  # d(v^2)/dv = 2v
    print(repr(slope.numpy()))
    expect(capsys, """
np.float32(6.0)
""")


def _weights_and_tape():
    kernel = tf.Variable(tf.constant([[0.5, -1.0], [0.25, 2.0], [-0.75, 0.1]]), name='w')
    bias = tf.Variable(tf.zeros(2, dtype=tf.float32), name='b')
    row = [[1., 2., 3.]]
    with tf.GradientTape(persistent=True) as g:
        out = row @ kernel + bias
        mse = tf.reduce_mean(out ** 2)
    return kernel, bias, mse, g


def test_tape_gradient_list_of_sources_has_source_shapes(capsys):
    kernel, bias, mse, g = _weights_and_tape()
    [d_kernel, d_bias] = g.gradient(mse, [kernel, bias])
    print(kernel.shape)
    print(d_kernel.shape)
    expect(capsys, """
(3, 2)
(3, 2)
""")


def test_tape_gradient_dict_of_sources(capsys):
    kernel, bias, mse, g = _weights_and_tape()
    grads = g.gradient(mse, {'w': kernel, 'b': bias})
    print(repr(grads['b']))
    print(grads['w'])
    expect(capsys, """
<tf.Tensor: shape=(2,), dtype=float32, numpy=array([-1.25,  3.3 ], dtype=float32)>
tf.Tensor(
[[-1.25  3.3 ]
 [-2.5   6.6 ]
 [-3.75  9.9 ]], shape=(3, 2), dtype=float32)
""")


def test_gradients_of_a_keras_layer(capsys):
    dense = tf.keras.layers.Dense(2, activation='relu')
    inputs = tf.constant([[1., 2., 3.]])
    with tf.GradientTape() as g:
        out = dense(inputs)
        mse = tf.reduce_mean(out ** 2)
    grads = g.gradient(mse, dense.trainable_variables)
    for var, grad in zip(dense.trainable_variables, grads):
        print(f'{var.name}, shape: {grad.shape}')
    expect(capsys, """
kernel, shape: (3, 2)
bias, shape: (2,)
""")


def _watch_defaults():
    a = tf.Variable(3.0, name='x0')                     # trainable variable
    b = tf.Variable(3.0, name='x1', trainable=False)    # not trainable
    c = tf.Variable(2.0, name='x2') + 1.0               # variable + tensor: a tensor
    d = tf.constant(3.0, name='x3')                     # a constant
    with tf.GradientTape() as g:
        total = (a ** 2) + (b ** 2) + (c ** 2)
    return g, total, [a, b, c, d]


def test_only_trainable_variables_are_watched(capsys):
    g, total, sources = _watch_defaults()
    for grad in g.gradient(total, sources):
        print(grad)
    expect(capsys, """
tf.Tensor(6.0, shape=(), dtype=float32)
None
None
None
""")


def test_watched_variables_names(capsys):
    g, total, sources = _watch_defaults()
    print(repr([var.name for var in g.watched_variables()]))
    expect(capsys, """
['x0:0']
""")


def test_watch_a_constant(capsys):
    c = tf.constant(3.0)
    with tf.GradientTape() as g:
        g.watch(c)
        sq = c ** 2
    print(g.gradient(sq, c).numpy())
    expect(capsys, """
6.0
""")


def test_watch_accessed_variables_false(capsys):
    a = tf.Variable(0.0)
    b = tf.Variable(10.0)
    with tf.GradientTape(watch_accessed_variables=False) as g:
        g.watch(b)
        total = tf.reduce_sum(tf.math.sin(a) + tf.nn.softplus(b))
    grads = g.gradient(total, {'x0': a, 'x1': b})  # d softplus / db = sigmoid(b)
    print('dy/dx0:', grads['x0'])
    print('dy/dx1:', grads['x1'].numpy())
    expect(capsys, """
dy/dx0: None
dy/dx1: 0.9999546
""")


def test_gradient_with_respect_to_intermediate(capsys):
    c = tf.constant(3.0)
    with tf.GradientTape() as g:
        g.watch(c)
        sq = c * c
        quad = sq * sq
    print(g.gradient(quad, sq).numpy())  # 2 * sq, sq = 9
    expect(capsys, """
18.0
""")


def test_persistent_tape_two_gradients(capsys):
    vec = tf.constant([1, 3.0])
    with tf.GradientTape(persistent=True) as g:
        g.watch(vec)
        sq = vec * vec
        quad = sq * sq
    print(g.gradient(quad, vec).numpy())  # 4 vec^3
    print(g.gradient(sq, vec).numpy())    # 2 vec
    del g
    expect(capsys, """
[  4. 108.]
[2. 6.]
""")


def test_gradients_of_two_scalar_targets_separately(capsys):
    v = tf.Variable(2.0)
    with tf.GradientTape(persistent=True) as g:
        sq = v ** 2
        inv = 1 / v
    print(g.gradient(sq, v).numpy())
    print(g.gradient(inv, v).numpy())
    expect(capsys, """
4.0
-0.25
""")


def test_gradient_of_dict_of_targets_is_sum(capsys):
    v = tf.Variable(2.0)
    with tf.GradientTape() as g:
        sq = v ** 2
        inv = 1 / v
    print(g.gradient({'y0': sq, 'y1': inv}, v).numpy())
    expect(capsys, """
3.75
""")


def test_gradient_of_vector_target_is_gradient_of_sum(capsys):
    v = tf.Variable(2.)
    with tf.GradientTape() as g:
        scaled = v * [3., 4.]
    print(g.gradient(scaled, v).numpy())
    expect(capsys, """
7.0
""")


def test_elementwise_sigmoid_derivative(capsys):
    grid = tf.linspace(-10.0, 10.0, 200 + 1)
    with tf.GradientTape() as g:
        g.watch(grid)
        sig = tf.nn.sigmoid(grid)
    slope = g.gradient(sig, grid)
    # The guide plots sig and slope against grid; print some of the plotted points instead.
    print(grid.shape, sig.shape, slope.shape, slope.dtype)
    print(grid[::25].numpy())
    print(sig[::25].numpy())
    print(slope[::25].numpy())
    expect(capsys, """
(201,) (201,) (201,) <dtype: 'float32'>
[-10.   -7.5  -5.   -2.5   0.    2.5   5.    7.5  10. ]
[4.5397861e-05 5.5277871e-04 6.6928524e-03 7.5858168e-02 5.0000000e-01
 9.2414182e-01 9.9330717e-01 9.9944723e-01 9.9995458e-01]
[4.5395798e-05 5.5247312e-04 6.6480581e-03 7.0103705e-02 2.5000000e-01
 7.0103712e-02 6.6480329e-03 5.5246794e-04 4.5416677e-05]
""")


def test_python_if_connects_only_the_taken_branch(capsys):
    c = tf.constant(1.0)
    first = tf.Variable(2.0)
    second = tf.Variable(2.0)
    with tf.GradientTape(persistent=True) as g:
        g.watch(c)
        if c > 0.0:
            picked = first
        else:
            picked = second ** 2
    d_first, d_second = g.gradient(picked, [first, second])
    print(d_first)
    print(d_second)
    print(g.gradient(picked, c))  # the condition itself is not differentiable
    expect(capsys, """
tf.Tensor(1.0, shape=(), dtype=float32)
None
None
""")


def test_unconnected_target_gives_none(capsys):
    a = tf.Variable(2.)
    b = tf.Variable(3.)
    with tf.GradientTape() as g:
        sq = b * b
    print(g.gradient(sq, a))
    expect(capsys, """
None
""")


def test_variable_replaced_by_tensor_loses_gradient(capsys):
    v = tf.Variable(2.0)
    for step in range(2):
        with tf.GradientTape() as g:
            plus_one = v + 1
        print(type(v).__name__, ":", g.gradient(plus_one, v))
        v = v + 1  # a tensor now; `v.assign_add(1)` would keep the variable
    expect(capsys, """
ResourceVariable : tf.Tensor(1.0, shape=(), dtype=float32)
EagerTensor : None
""")


def test_numpy_step_breaks_the_tape(capsys):
    mat = tf.Variable([[1.0, 2.0], [3.0, 4.0]], dtype=tf.float32)
    with tf.GradientTape() as g:
        sq = mat ** 2
        col_means = np.mean(sq, axis=0)          # computed by NumPy
        mean = tf.reduce_mean(col_means, axis=0)  # converted back to a constant tensor
    print(g.gradient(mean, mat))
    expect(capsys, """
None
""")


def test_integer_path_has_no_gradient(capsys):
    n = tf.constant(10)
    with tf.GradientTape() as g:
        g.watch(n)
        sq = n * n
    print(g.gradient(sq, n))
    expect(capsys, """
None
""")


def test_stateful_assign_stops_gradient(capsys):
    a = tf.Variable(3.0)
    b = tf.Variable(0.0)
    with tf.GradientTape() as g:
        b.assign_add(a)  # the tape only sees b's new value
        sq = b ** 2
    print(g.gradient(sq, a))
    expect(capsys, """
None
""")


def test_no_gradient_registered_raises_lookup_error(capsys):
    picture = tf.Variable([[[0.5, 0.0, 0.0]]])
    factor = tf.Variable(0.1)
    with tf.GradientTape() as g:
        adjusted = tf.image.adjust_contrast(picture, factor)
    try:
        print(g.gradient(adjusted, [picture, factor]))
        raise AssertionError("a gradient was computed")
    except LookupError as e:
        print(f'{type(e).__name__}: {e}')
    expect(capsys, """
LookupError: gradient registry has no entry for: AdjustContrastv2
""")


def test_unconnected_gradients_zero(capsys):
    a = tf.Variable([2., 2.])
    b = tf.Variable(3.)
    with tf.GradientTape() as g:
        sq = b ** 2
    print(g.gradient(sq, a, unconnected_gradients=tf.UnconnectedGradients.ZERO))
    expect(capsys, """
tf.Tensor([0. 0.], shape=(2,), dtype=float32)
""")
