"""A tape's default output gradient inside tf.function: a constant named `ones` when the target's shape is
known (TensorFlow's tape makes the same `ones` Const), so the ops shaping it fold away; OnesLike when the
shape is only known at run time. The gradients keep the eager tape's bits either way."""
import numpy as np

import tensorflux as tf


def _loss_and_grads(x, w, y):
    with tf.GradientTape() as tape:
        tape.watch(w)
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
    return loss, tape.gradient(loss, w)


def _operands(rows=60):
    rs = np.random.RandomState(0)
    return (tf.constant(rs.rand(rows, 30).astype(np.float32)), tf.constant(rs.randn(30, 10).astype(np.float32)),
            tf.constant(rs.rand(rows, 10).astype(np.float32)))


def test_known_shape_seed_is_the_ones_constant_and_folds():
    x, w, y = _operands()
    traced = tf.function(_loss_and_grads)
    graph = traced.get_concrete_function(x, w, y).graph
    types = [op.type for op in graph.get_operations()]
    assert "OnesLike" not in types
    assert any(op.type == "Const" and op.name == "ones" for op in graph.get_operations())
    source = traced.get_concrete_function(x, w, y).generated_source()
    # The mean's backward shaping (Reshape, RealDiv, BroadcastTo of the seed) ran at compile time.
    assert "k_BroadcastTo" not in source and "k_RealDiv" not in source and "k_OnesLike" not in source


def test_traced_gradients_keep_the_eager_bits():
    x, w, y = _operands()
    eager_loss, eager_grad = _loss_and_grads(x, w, y)
    traced_loss, traced_grad = tf.function(_loss_and_grads)(x, w, y)
    assert np.array_equal(eager_loss.numpy().view(np.uint32), traced_loss.numpy().view(np.uint32))
    assert np.array_equal(eager_grad.numpy().view(np.uint32), traced_grad.numpy().view(np.uint32))


def test_unknown_shape_seed_is_ones_like_and_gives_the_same_values():
    x, w, y = _operands(rows=12)
    spec = [tf.TensorSpec([None, 30], tf.float32), tf.TensorSpec([30, 10], tf.float32),
            tf.TensorSpec([None, 10], tf.float32)]

    @tf.function(input_signature=spec)
    def per_row(x, w, y):
        with tf.GradientTape() as tape:
            tape.watch(w)
            rows = tf.reduce_sum(tf.square(tf.matmul(x, w) - y), axis=1)     # shape [None]
        return tape.gradient(rows, w)
    types = [op.type for op in per_row.get_concrete_function().graph.get_operations()]
    assert "OnesLike" in types
    with tf.GradientTape() as tape:
        tape.watch(w)
        rows = tf.reduce_sum(tf.square(tf.matmul(x, w) - y), axis=1)
    want = tape.gradient(rows, w)
    assert np.array_equal(per_row(x, w, y).numpy(), want.numpy())


def test_explicit_none_output_gradient_gets_the_same_seed():
    x, w, y = _operands()

    @tf.function
    def with_none(x, w, y):
        with tf.GradientTape() as tape:
            tape.watch(w)
            loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
        return tape.gradient([loss], w, output_gradients=[None])
    _, want = _loss_and_grads(x, w, y)
    assert np.array_equal(with_none(x, w, y).numpy(), want.numpy())
    types = [op.type for op in with_none.get_concrete_function(x, w, y).graph.get_operations()]
    assert "OnesLike" not in types
