"""Gradients of tf.nn ops (activations, softmax, losses, bias_add, moments, batch norm, dropout, conv2d,
pooling): tape gradients against central finite differences (float64), graph vs eager, and TensorFlow's
values at kinks and ties.
"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tensorflux as tf
from helpers import check_gradients
from tensorflux._src.ops.nn import conv, pooling
from tensorflux._src.ops.nn import basic as nn
from tensorflux._src.ops import registry

SETTINGS = settings(max_examples=20, deadline=None)


# -- helpers ---------------------------------------------------------------------------------------


def grads_of(fn, *values, dtype=tf.float64):
    xs = [tf.constant(np.asarray(v), dtype=dtype) for v in values]
    with tf.GradientTape() as tape:
        tape.watch(xs)
        y = fn(*xs)
    return [None if g is None else g.numpy() for g in tape.gradient(y, xs)]


def away_from_kinks(shape, seed, kinks=(0.0,)):
    """Random values at least 0.05 from every kink, so finite differences never straddle one."""
    x = np.random.default_rng(seed).uniform(-8, 8, size=shape)
    for k in kinks:
        near = np.abs(x - k) < 0.05
        x[near] += 0.1
    return x


shapes = st.lists(st.integers(1, 3), min_size=1, max_size=3)


# -- activations -----------------------------------------------------------------------------------

ACTIVATIONS = {
    "relu": (tf.nn.relu, (0.0,)),
    "relu6": (tf.nn.relu6, (0.0, 6.0)),
    "leaky_relu": (lambda t: tf.nn.leaky_relu(t, alpha=0.3), (0.0,)),
    "elu": (tf.nn.elu, (0.0,)),
    "selu": (tf.nn.selu, (0.0,)),
    "gelu": (tf.nn.gelu, ()),
    "gelu_tanh": (lambda t: tf.nn.gelu(t, approximate=True), ()),
    "softplus": (tf.nn.softplus, ()),
    "softsign": (tf.nn.softsign, (0.0,)),
    "silu": (tf.nn.silu, ()),
    "silu_beta": (lambda t: tf.nn.silu(t, beta=0.7), ()),
}


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
@SETTINGS
@given(shape=shapes, seed=st.integers(0, 10_000))
def test_activation_matches_finite_differences(name, shape, seed):
    fn, kinks = ACTIVATIONS[name]
    check_gradients(fn, [away_from_kinks(shape, seed, kinks)])


def test_activation_values_at_kinks_follow_tensorflow():
    x = [-1.0, 0.0, 3.0, 6.0, 7.0]
    expected = {
        "relu": [0, 0, 1, 1, 1],
        "relu6": [0, 0, 1, 0, 0],
        "leaky_relu": [0.2, 0.2, 1, 1, 1],
        "elu": [np.exp(-1.0), 1, 1, 1, 1],
        "selu": [1.0507009873554805 * 1.6732632423543772 * np.exp(-1.0)] + [1.0507009873554805] * 4,
        "softplus": 1 / (1 + np.exp(-np.array(x))),
    }
    fns = {"relu": tf.nn.relu, "relu6": tf.nn.relu6, "leaky_relu": tf.nn.leaky_relu, "elu": tf.nn.elu,
           "selu": tf.nn.selu, "softplus": tf.nn.softplus}
    for name, want in expected.items():
        (got,) = grads_of(fns[name], x)
        np.testing.assert_allclose(got, want, rtol=1e-12, err_msg=name)
    (got,) = grads_of(tf.nn.gelu, [-1.0, 0.0, 3.0])
    np.testing.assert_allclose(got, [-0.08331547058768, 0.5, 1.01194565], rtol=1e-6)


def test_relu_gradient_is_tensorflows_relugrad():
    # TensorFlow 2.21 prints [nan inf]: ReluGrad multiplies the gradient by (features > 0), so an infinite
    # gradient where the unit is off becomes NaN.
    x = tf.constant([-1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.relu(x)
    g = tape.gradient(y, x, output_gradients=tf.constant([np.inf, np.inf], tf.float32))
    np.testing.assert_array_equal(g.numpy(), [np.nan, np.inf])


# -- softmax and losses ----------------------------------------------------------------------------

@SETTINGS
@given(shape=shapes, seed=st.integers(0, 10_000), data=st.data())
def test_softmax_and_log_softmax_on_any_axis(shape, seed, data):
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    x = np.random.default_rng(seed).normal(size=shape) * 3
    check_gradients(lambda t: tf.nn.softmax(t, axis=axis), [x])
    check_gradients(lambda t: tf.nn.log_softmax(t, axis=axis), [x])


def test_softmax_cross_entropy_logits_and_labels():
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(3, 4))
    labels = rng.dirichlet(np.ones(4), size=3)
    check_gradients(lambda lg, lb: tf.nn.softmax_cross_entropy_with_logits(lb, lg), [logits, labels])
    # Like TensorFlow's kernel, d/dlogits is softmax - labels: exact when labels sum to 1 along `axis`.
    labels_0 = rng.dirichlet(np.ones(3), size=4).T
    check_gradients(lambda lg, lb: tf.nn.softmax_cross_entropy_with_logits(lb, lg, axis=0), [logits, labels_0])
    # TensorFlow's values: d/dlabels = -log_softmax(logits).
    g_logits, g_labels = grads_of(lambda lg, lb: tf.nn.softmax_cross_entropy_with_logits(lb, lg),
                                  [[1.0, 2.0, 3.0]], [[0.2, 0.3, 0.5]])
    np.testing.assert_allclose(g_logits, [[-0.10996943, -0.05527154, 0.16524094]], rtol=1e-6)
    np.testing.assert_allclose(g_labels, [[2.40760596, 1.40760596, 0.40760596]], rtol=1e-6)


def test_softmax_cross_entropy_broadcast_labels_and_int_labels():
    logits = np.random.default_rng(1).normal(size=(2, 3))
    check_gradients(lambda lg, lb: tf.nn.softmax_cross_entropy_with_logits(lb, lg), [logits, [[0.1, 0.2, 0.7]]])
    lg = tf.constant(logits)
    labels = tf.constant([[0, 1, 0], [1, 0, 0]])
    with tf.GradientTape() as tape:
        tape.watch(lg)
        loss = tf.nn.softmax_cross_entropy_with_logits(labels, lg)
    p = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    np.testing.assert_allclose(tape.gradient(loss, lg).numpy(), p - labels.numpy(), rtol=1e-12)


def test_softmax_cross_entropy_second_order():
    logits = np.random.default_rng(2).normal(size=(2, 3))
    labels = tf.constant([[0.2, 0.3, 0.5], [1.0, 0.0, 0.0]], tf.float64)

    def first_grad(lg):
        with tf.GradientTape() as tape:
            tape.watch(lg)
            loss = tf.nn.softmax_cross_entropy_with_logits(labels, lg)
        return tape.gradient(loss, lg)

    check_gradients(first_grad, [logits])


def test_sparse_softmax_cross_entropy():
    logits = np.random.default_rng(3).normal(size=(2, 3, 4))
    labels = tf.constant([[0, 3, 1], [2, 2, 0]])
    check_gradients(lambda lg: tf.nn.sparse_softmax_cross_entropy_with_logits(labels, lg), [logits])

    def first_grad(lg):
        with tf.GradientTape() as tape:
            tape.watch(lg)
            loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels, lg)
        return tape.gradient(loss, lg)

    check_gradients(first_grad, [logits])


def test_sigmoid_cross_entropy_logits_and_labels():
    rng = np.random.default_rng(4)
    check_gradients(lambda lb, lg: tf.nn.sigmoid_cross_entropy_with_logits(lb, lg),
                    [rng.uniform(size=(2, 3)), rng.normal(size=(2, 3)) * 4])
    g_labels, g_logits = grads_of(lambda lb, lg: tf.nn.sigmoid_cross_entropy_with_logits(lb, lg),
                                  [0.2, 0.3, 0.5], [1.0, 2.0, 3.0])
    np.testing.assert_allclose(g_labels, [-1.0, -2.0, -3.0])
    np.testing.assert_allclose(g_logits, [0.53105858, 0.58079708, 0.45257413], rtol=1e-6)


def test_l2_loss():
    check_gradients(tf.nn.l2_loss, [np.random.default_rng(5).normal(size=(2, 3))])


# -- bias_add, moments, batch_normalization --------------------------------------------------------

@SETTINGS
@given(shape=st.lists(st.integers(1, 3), min_size=2, max_size=4), seed=st.integers(0, 10_000),
       channels_first=st.booleans())
def test_bias_add(shape, seed, channels_first):
    rng = np.random.default_rng(seed)
    data_format = "NCHW" if channels_first else None
    channels = shape[1] if channels_first else shape[-1]
    check_gradients(lambda v, b: tf.nn.bias_add(v, b, data_format=data_format),
                    [rng.normal(size=shape), rng.normal(size=[channels])])


def test_bias_add_with_unknown_rank_in_a_graph():
    @tf.function(input_signature=[tf.TensorSpec(None, tf.float64), tf.TensorSpec([None], tf.float64)])
    def grads(value, bias):
        with tf.GradientTape() as tape:
            tape.watch([value, bias])
            y = tf.nn.bias_add(value, bias)
        return tape.gradient(y, [value, bias])

    g_value, g_bias = grads(tf.constant(np.ones((2, 3, 2))), tf.constant([1.0, 2.0], tf.float64))
    np.testing.assert_array_equal(g_value.numpy(), np.ones((2, 3, 2)))
    np.testing.assert_array_equal(g_bias.numpy(), [6.0, 6.0])


@SETTINGS
@given(shape=shapes, seed=st.integers(0, 10_000), keepdims=st.booleans(), data=st.data())
def test_moments_mean_and_variance(shape, seed, keepdims, data):
    axes = sorted(data.draw(st.sets(st.integers(0, len(shape) - 1), min_size=1)))
    x = np.random.default_rng(seed).normal(size=shape)
    check_gradients(lambda t: tf.nn.moments(t, axes, keepdims=keepdims)[0], [x])
    check_gradients(lambda t: tf.nn.moments(t, axes, keepdims=keepdims)[1], [x])
    check_gradients(lambda t: tf.stack(tf.nn.moments(t, axes, keepdims=keepdims)), [x])


def test_moments_with_unknown_dims_in_a_graph():
    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float64)])
    def grad(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            mean, variance = tf.nn.moments(x, [0])
            y = tf.reduce_sum(mean) + tf.reduce_sum(variance)
        return tape.gradient(y, x)

    x = np.arange(6.0).reshape(2, 3)
    expected = 1 / 2 + 2 * (x - x.mean(0)) / 2
    np.testing.assert_allclose(grad(tf.constant(x)).numpy(), expected)


@pytest.mark.parametrize("with_offset,with_scale", [(True, True), (False, True), (True, False), (False, False)])
def test_batch_normalization_every_input(with_offset, with_scale):
    rng = np.random.default_rng(6)
    arrays = [rng.normal(size=(4, 3)), rng.normal(size=(3,)), rng.uniform(0.5, 2, size=(3,))]
    if with_offset:
        arrays.append(rng.normal(size=(1, 3)))
    if with_scale:
        arrays.append(rng.normal(size=(3,)))

    def fn(x, mean, variance, *affine):
        affine = list(affine)
        offset = affine.pop(0) if with_offset else None
        scale = affine.pop(0) if with_scale else None
        return tf.nn.batch_normalization(x, mean, variance, offset, scale, 1e-3)

    check_gradients(fn, arrays, rtol=1e-5)


def test_batch_normalization_with_moments_end_to_end():
    x = np.random.default_rng(7).normal(size=(5, 2))

    def fn(t):
        mean, variance = tf.nn.moments(t, [0])
        return tf.nn.batch_normalization(t, mean, variance, None, None, 1e-3)

    check_gradients(fn, [x], rtol=1e-5)


# -- dropout ---------------------------------------------------------------------------------------

def test_dropout_gradient_reuses_the_forward_mask():
    x = tf.constant(np.arange(1.0, 41.0).reshape(5, 8))
    rate = tf.constant(0.5, tf.float64)
    with tf.GradientTape() as tape:
        tape.watch([x, rate])
        y = tf.nn.dropout(x, rate, seed=1)
    g_x, g_rate = tape.gradient(y, [x, rate])
    kept = y.numpy() != 0
    assert 0 < kept.sum() < kept.size
    np.testing.assert_array_equal(g_x.numpy(), np.where(kept, 2.0, 0.0))
    # out = x·keep/(1 - rate): d/drate = Σ x·keep/(1 - rate)²
    np.testing.assert_allclose(g_rate.numpy(), (x.numpy() * kept).sum() / 0.25)


def test_dropout_noise_shape_and_graph_mask_reuse():
    x = tf.constant(np.ones((6, 4)))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.dropout(x, 0.5, noise_shape=[6, 1], seed=3)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), y.numpy())

    @tf.function
    def step(t):
        with tf.GradientTape() as tape:
            tape.watch(t)
            out = tf.nn.dropout(t, 0.25, seed=5)
        return out, tape.gradient(out, t)

    for _ in range(2):
        out, g = step(tf.constant(np.ones((8, 8))))
        np.testing.assert_allclose(g.numpy(), out.numpy())


def test_dropout_public_result_is_unchanged_and_infer_gives_the_mask():
    x = tf.ones([3, 4])
    out = tf.nn.dropout(x, 0.5, seed=2)
    assert isinstance(out, tf.Tensor) and out.shape == (3, 4) and out.dtype == tf.float32
    specs = [tf.TensorSpec([None, 4], tf.float32), tf.TensorSpec([], tf.float32)]
    assert nn.DROPOUT.infer(specs, {"noise_shape": None}) == [(tf.float32, tf.TensorShape([None, 4]))] * 2


# -- conv2d and pooling ----------------------------------------------------------------------------

@pytest.mark.parametrize("padding", ["SAME", "VALID", [[0, 0], [1, 2], [0, 1], [0, 0]]])
@pytest.mark.parametrize("strides,dilations", [(1, 1), (2, 1), ([2, 3], 1), (1, 2)])
def test_conv2d_input_and_filters(padding, strides, dilations):
    rng = np.random.default_rng(8)
    x, w = rng.normal(size=(2, 5, 6, 2)), rng.normal(size=(3, 2, 2, 3))
    check_gradients(lambda a, b: tf.nn.conv2d(a, b, strides, padding, dilations=dilations), [x, w])


def test_conv2d_groups_nchw_and_extra_batch_dims():
    rng = np.random.default_rng(9)
    check_gradients(lambda a, b: tf.nn.conv2d(a, b, 1, "SAME"), [rng.normal(size=(1, 4, 4, 4)),
                                                                rng.normal(size=(2, 2, 2, 4))])
    check_gradients(lambda a, b: tf.nn.conv2d(a, b, 2, "SAME", data_format="NCHW"),
                    [rng.normal(size=(1, 2, 5, 4)), rng.normal(size=(3, 3, 2, 2))])
    check_gradients(lambda a, b: tf.nn.conv2d(a, b, 1, "VALID"), [rng.normal(size=(2, 1, 3, 3, 1)),
                                                                 rng.normal(size=(2, 2, 1, 2))])


def test_conv2d_second_order_through_backprop_ops():
    rng = np.random.default_rng(10)
    x, w = rng.normal(size=(1, 4, 4, 2)), rng.normal(size=(2, 2, 2, 2))

    def grad_wrt_input(a, b):
        with tf.GradientTape() as tape:
            tape.watch(a)
            y = tf.reduce_sum(tf.nn.conv2d(a, b, 2, "SAME") ** 2)
        return tape.gradient(y, a)

    def grad_wrt_filter(a, b):
        with tf.GradientTape() as tape:
            tape.watch(b)
            y = tf.reduce_sum(tf.nn.conv2d(a, b, 1, "VALID") ** 2)
        return tape.gradient(y, b)

    check_gradients(grad_wrt_input, [x, w], rtol=1e-5)
    check_gradients(grad_wrt_filter, [x, w], rtol=1e-5)


def test_conv_backprop_ops_infer():
    spec = tf.TensorSpec
    got = conv.CONV2D_BACKPROP_INPUT.infer([tf.constant([1, 4, 4, 2]), spec([2, 2, 2, 3], tf.float32),
                                            spec([1, None, None, 3], tf.float32)], {})
    assert got == [(tf.float32, tf.TensorShape([1, 4, 4, 2]))]
    got = conv.CONV2D_BACKPROP_FILTER.infer([spec([None, 4, 4, 2], tf.float64), spec([4], tf.int32),
                                             spec(None, tf.float64)], {})
    assert got == [(tf.float64, tf.TensorShape([None, None, None, None]))]


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("ksize,strides", [(2, 2), (3, 1), ([2, 3], [1, 2])])
def test_max_and_avg_pool2d(padding, ksize, strides):
    x = np.random.default_rng(11).permutation(2 * 5 * 6 * 2).reshape(2, 5, 6, 2) / 7.0  # distinct: no ties
    check_gradients(lambda t: tf.nn.max_pool2d(t, ksize, strides, padding), [x])
    check_gradients(lambda t: tf.nn.avg_pool2d(t, ksize, strides, padding), [x])


def test_pooling_nchw_1d_3d_and_second_order():
    x = np.random.default_rng(12).permutation(60).reshape(1, 3, 4, 5) / 3.0
    check_gradients(lambda t: tf.nn.max_pool2d(t, 2, 1, "SAME", data_format="NCHW"), [x])
    check_gradients(lambda t: tf.nn.avg_pool2d(t, 2, 2, "SAME", data_format="NCHW"), [x])
    check_gradients(lambda t: tf.nn.max_pool1d(t, 2, 1, "VALID"), [x[0]])
    check_gradients(lambda t: tf.nn.avg_pool3d(t, 2, 1, "SAME"), [x[..., None]])
    check_gradients(lambda t: tf.nn.max_pool3d(t, 2, 2, "SAME"), [x[..., None]])

    def max_grad(t):
        with tf.GradientTape() as tape:
            tape.watch(t)
            y = tf.reduce_sum(tf.nn.max_pool2d(t, 2, 1, "SAME") ** 2)
        return tape.gradient(y, t)

    check_gradients(max_grad, [x[..., :1].transpose(0, 2, 3, 1)])


def test_max_pool_ties_go_to_the_first_maximum_like_tensorflow():
    (g,) = grads_of(lambda t: tf.nn.max_pool2d(t, 2, 1, "VALID"), np.ones((1, 3, 3, 1)))
    np.testing.assert_array_equal(g[0, :, :, 0], [[1, 1, 0], [1, 1, 0], [0, 0, 0]])
    x = np.array([[0, 2, 2], [2, 0, 2], [0, 0, 0]], np.float64).reshape(1, 3, 3, 1)
    (g,) = grads_of(lambda t: tf.nn.max_pool2d(t, 2, 1, "VALID"), x)
    np.testing.assert_array_equal(g[0, :, :, 0], [[0, 2, 0], [1, 0, 1], [0, 0, 0]])


def test_pool_grad_ops_infer():
    spec = tf.TensorSpec([None, 4, 4, 1], tf.float32)
    attrs = {"ksize": (1, 2, 2, 1), "strides": (1, 2, 2, 1), "padding": "VALID", "data_format": "NHWC",
             "explicit_paddings": ()}
    assert pooling.MAX_POOL_GRAD.infer([spec, spec, spec], attrs) == [(tf.float32, spec.shape)]
    got = pooling.AVG_POOL_GRAD.infer([tf.TensorSpec([4], tf.int32), spec], attrs)
    assert got == [(tf.float32, tf.TensorShape([None] * 4))]
    with pytest.raises(LookupError):  # every pooling-gradient op is registered by its TensorFlow name
        registry.OPS["NoSuchPoolGrad"]
    assert registry.OPS["AvgPool3DGrad"].grad is not None and registry.OPS["MaxPool3DGrad"].grad is not None
