"""Fidelity tests adapted from TensorFlow's guide "Advanced automatic differentiation"
(tensorflow/docs, site/en/guide/advanced_autodiff.ipynb).

Each test replays, in its own words, one runnable example of the guide (with the setup of the earlier
cells it builds on) under tensorflux and compares what it prints with what TensorFlow 2.21 printed for the
same code. A notebook cell whose last line displays a value is adapted to `print(repr(value))`.

Adaptations and omissions:
- The guide feeds `tf.random.normal` inputs into freshly initialised Keras layers. Where a printed value
  depends on them (the Jacobian checks print a max error), the inputs and the layers' kernels are fixed,
  deterministic tensors here, so the comparison checks the differentiation, not the random streams
  (those are covered by test_fidelity_guide_random_numbers.py). Where only shapes are printed, the
  random inputs are kept.
- The matplotlib cells (the sigmoid Jacobian plot, `imshow_zero_center` images of the Hessian and of the
  batch Jacobians) are left out as plots; the tensor computations they do before plotting (the colour
  limit, the transpose/pad/reshape of `plot_as_patches`) are kept and their results' shapes printed.
- The SavedModel example saves under pytest's tmp_path.
"""
import os
import sys

import numpy as np
import pytest

import tensorflux as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _fidelity_guide_grads_modules_rng import expect  # noqa: E402


def _wave(shape, phase=0.0):
    """A deterministic stand-in for random values: sin of a ramp, shaped `shape`."""
    n = int(np.prod(shape))
    return tf.reshape(tf.sin(tf.range(n, dtype=tf.float32) * 0.7 + phase), shape)


def _wave_init(phase):
    def init(shape, dtype=None):
        return _wave(shape, phase) * 0.5
    return init


def test_stop_recording(capsys):
    a = tf.Variable(2.0)
    b = tf.Variable(3.0)
    with tf.GradientTape() as g:
        a_sq = a * a
        with g.stop_recording():
            b_sq = b * b
        total = a_sq + b_sq
    grads = g.gradient(total, {'x': a, 'y': b})
    print('dz/dx:', grads['x'])
    print('dz/dy:', grads['y'])
    expect(capsys, """
dz/dx: tf.Tensor(4.0, shape=(), dtype=float32)
dz/dy: None
""")


def test_reset_discards_recorded_ops(capsys):
    a = tf.Variable(2.0)
    b = tf.Variable(3.0)
    start_over = True
    with tf.GradientTape() as g:
        b_sq = b * b
        if start_over:
            g.reset()  # forget everything recorded so far
        total = a * a + b_sq
    grads = g.gradient(total, {'x': a, 'y': b})
    print('dz/dx:', grads['x'])
    print('dz/dy:', grads['y'])
    expect(capsys, """
dz/dx: tf.Tensor(4.0, shape=(), dtype=float32)
dz/dy: None
""")


def test_stop_gradient(capsys):
    a = tf.Variable(2.0)
    b = tf.Variable(3.0)
    with tf.GradientTape() as g:
        b_sq = b ** 2
        total = a ** 2 + tf.stop_gradient(b_sq)
    grads = g.gradient(total, {'x': a, 'y': b})
    print('dz/dx:', grads['x'])
    print('dz/dy:', grads['y'])
    expect(capsys, """
dz/dx: tf.Tensor(4.0, shape=(), dtype=float32)
dz/dy: None
""")


@tf.custom_gradient
def _identity_clipping_grad(value):
    def grad_fn(upstream):
        return tf.clip_by_norm(upstream, 0.5)
    return value, grad_fn


def test_custom_gradient_clips_upstream(capsys):
    v = tf.Variable(2.0)
    with tf.GradientTape() as g:
        out = _identity_clipping_grad(v * v)
    print(g.gradient(out, v))  # the upstream 4 is clipped to norm 0.5, times dv^2/dv = 4
    expect(capsys, """
tf.Tensor(2.0, shape=(), dtype=float32)
""")


def test_custom_gradient_survives_saved_model(capsys, tmp_path):
    class ClipModule(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec(None)])
        def call_custom_grad(self, value):
            return _identity_clipping_grad(value)

    export_dir = str(tmp_path / 'saved_model')
    tf.saved_model.save(ClipModule(), export_dir,
                        options=tf.saved_model.SaveOptions(experimental_custom_gradients=True))
    v = tf.Variable(2.0)
    restored = tf.saved_model.load(export_dir)
    with tf.GradientTape() as g:
        out = restored.call_custom_grad(v * v)
    print(g.gradient(out, v))
    expect(capsys, """
tf.Tensor(2.0, shape=(), dtype=float32)
""")


def test_two_tapes_watch_different_tensors(capsys):
    a = tf.constant(0.0)
    b = tf.constant(0.0)
    with tf.GradientTape() as g0, tf.GradientTape() as g1:
        g0.watch(a)
        g1.watch(b)
        total = tf.reduce_sum(tf.math.sin(a) + tf.nn.sigmoid(b))
    print(repr(g0.gradient(total, a).numpy()))  # cos(0)
    print(repr(g1.gradient(total, b).numpy()))  # sigmoid'(0)
    expect(capsys, """
np.float32(1.0)
np.float32(0.25)
""")


def test_second_derivative_with_nested_tapes(capsys):
    v = tf.Variable(1.0)
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            cube = v * v * v
        first = inner.gradient(cube, v)  # computed inside `outer`, so it is recorded
    second = outer.gradient(first, v)
    print('dy_dx:', first.numpy())
    print('d2y_dx2:', second.numpy())
    expect(capsys, """
dy_dx: 3.0
d2y_dx2: 6.0
""")


def test_input_gradient_regularization(capsys):
    batch = tf.random.normal([7, 5])
    dense = tf.keras.layers.Dense(10, activation=tf.nn.relu)
    with tf.GradientTape() as outer:
        with tf.GradientTape(watch_accessed_variables=False) as inner:
            inner.watch(batch)
            out = tf.reduce_sum(dense(batch) ** 2)
        input_grad = inner.gradient(out, batch)
        magnitude = tf.norm(input_grad)
    grads = outer.gradient(magnitude, dense.trainable_variables)
    print(repr([var.shape for var in grads]))
    expect(capsys, """
[TensorShape([5, 10]), TensorShape([10])]
""")


def test_jacobian_with_respect_to_scalar(capsys):
    grid = tf.linspace(-10.0, 10.0, 200 + 1)
    shift = tf.Variable(0.0)
    with tf.GradientTape() as g:
        sig = tf.nn.sigmoid(grid + shift)
    jac = g.jacobian(sig, shift)
    print(sig.shape)
    print(jac.shape)
    expect(capsys, """
(201,)
(201,)
""")


def _dense_and_tape():
    batch = _wave([7, 5])
    dense = tf.keras.layers.Dense(10, activation=tf.nn.relu, kernel_initializer=_wave_init(1.0))
    with tf.GradientTape(persistent=True) as g:
        out = dense(batch)
    return dense, out, g


def test_jacobian_with_respect_to_kernel_shapes(capsys):
    dense, out, g = _dense_and_tape()
    print(repr(out.shape))
    print(repr(dense.kernel.shape))
    jac = g.jacobian(out, dense.kernel)
    print(repr(jac.shape))
    expect(capsys, """
TensorShape([7, 10])
TensorShape([5, 10])
TensorShape([7, 10, 5, 10])
""")


def test_jacobian_summed_over_target_is_gradient(capsys):
    dense, out, g = _dense_and_tape()
    jac = g.jacobian(out, dense.kernel)
    grad = g.gradient(out, dense.kernel)
    print('g.shape:', grad.shape)
    summed = tf.reduce_sum(jac, axis=[0, 1])
    gap = tf.reduce_max(abs(grad - summed)).numpy()
    assert gap < 1e-3
    print('delta:', gap)
    expect(capsys, """
g.shape: (5, 10)
delta: 1.1920929e-07
""")


def test_hessian_and_newton_step(capsys):
    batch = _wave([7, 5])
    first = tf.keras.layers.Dense(8, activation=tf.nn.relu, kernel_initializer=_wave_init(0.3))
    second = tf.keras.layers.Dense(6, activation=tf.nn.relu, kernel_initializer=_wave_init(2.1))
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            hidden = second(first(batch))
            mse = tf.reduce_mean(hidden ** 2)
        grad = inner.gradient(mse, first.kernel)
    hess = outer.jacobian(grad, first.kernel)
    print(f'layer.kernel.shape: {first.kernel.shape}')
    print(f'h.shape: {hess.shape}')

    count = tf.reduce_prod(first.kernel.shape)
    grad_vec = tf.reshape(grad, [count, 1])
    hess_mat = tf.reshape(hess, [count, count])
    print(repr(count))
    print(grad_vec.shape, hess_mat.shape)
    # The guide shows hess_mat as an image centred on zero; its colour limit and its symmetry:
    limit = tf.reduce_max(abs(hess_mat))
    print(limit.shape, bool(tf.reduce_max(abs(hess_mat - tf.transpose(hess_mat))) <= 1e-6 * limit))

    damping = tf.eye(hess_mat.shape[0]) * 1e-3
    step = tf.linalg.solve(hess_mat + damping, grad_vec)
    _ = first.kernel.assign_sub(tf.reshape(step, first.kernel.shape))
    print(step.shape, first.kernel.shape)
    expect(capsys, """
layer.kernel.shape: (5, 8)
h.shape: (5, 8, 5, 8)
<tf.Tensor: shape=(), dtype=int32, numpy=40>
(40, 1) (40, 40)
() True
(40, 1) (5, 8)
""")


def _patch_image_shape(jac):
    """The tensor part of the guide's plot_as_patches: the shape of the image it would show."""
    jac = tf.transpose(jac, [1, 0, 3, 2])
    limit = tf.reduce_max(abs(jac))
    jac = tf.pad(jac, [[0, 0], [1, 1], [0, 0], [1, 1]], constant_values=-limit)
    dims = jac.shape
    return tf.reshape(jac, [dims[0] * dims[1], dims[2] * dims[3]]).shape


def _elu_stack_and_tape():
    batch = _wave([7, 5])
    first = tf.keras.layers.Dense(8, activation=tf.nn.elu, kernel_initializer=_wave_init(0.3))
    second = tf.keras.layers.Dense(6, activation=tf.nn.elu, kernel_initializer=_wave_init(2.1))
    with tf.GradientTape(persistent=True, watch_accessed_variables=False) as g:
        g.watch(batch)
        out = second(first(batch))
    return batch, out, g


def test_full_jacobian_of_a_batch(capsys):
    batch, out, g = _elu_stack_and_tape()
    print(repr(out.shape))
    jac = g.jacobian(out, batch)
    print(repr(jac.shape))
    print(jac[:, 0, :, 0].shape)
    print(_patch_image_shape(jac))
    print(tf.reduce_sum(jac, axis=2).shape)
    print(tf.einsum('bxby->bxy', jac).shape)
    expect(capsys, """
TensorShape([7, 6])
TensorShape([7, 6, 7, 5])
(7, 7)
(54, 45)
(7, 6, 5)
(7, 6, 5)
""")


def test_batch_jacobian_matches_summed_jacobian(capsys):
    batch, out, g = _elu_stack_and_tape()
    summed = tf.reduce_sum(g.jacobian(out, batch), axis=2)
    per_item = g.batch_jacobian(out, batch)
    print(repr(per_item.shape))
    gap = tf.reduce_max(abs(per_item - summed))
    assert gap < 1e-3
    print(gap.numpy())
    expect(capsys, """
TensorShape([7, 6, 5])
0.0
""")


def test_batch_jacobian_with_batch_normalization(capsys):
    batch = tf.random.normal([7, 5])
    first = tf.keras.layers.Dense(8, activation=tf.nn.elu)
    norm = tf.keras.layers.BatchNormalization()
    second = tf.keras.layers.Dense(6, activation=tf.nn.elu)
    with tf.GradientTape(persistent=True, watch_accessed_variables=False) as g:
        g.watch(batch)
        out = second(norm(first(batch), training=True))
    jac = g.jacobian(out, batch)
    print(f'j.shape: {jac.shape}')
    print(_patch_image_shape(jac))
    per_item = g.batch_jacobian(out, batch)
    print(f'jb.shape: {per_item.shape}')
    expect(capsys, """
j.shape: (7, 6, 7, 5)
(54, 45)
jb.shape: (7, 6, 5)
""")
