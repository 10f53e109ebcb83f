"""tf.nn.conv1d, depthwise_conv2d, conv2d_transpose and separable_conv2d: values against direct NumPy loops
and real TensorFlow, errors, static inference, gradients against finite differences, traced == eager."""
import itertools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tensorflux as tf
from helpers import numeric_grad
from tensorflux._src.ops.nn import depthwise

S = tf.TensorSpec


def _same_pads(size, k, s, d):
    eff = (k - 1) * d + 1
    out = -(-size // s)
    total = max((out - 1) * s + eff - size, 0)
    return total // 2, total - total // 2


def _depthwise_reference(x, w, stride, padding, dilation):
    """Direct NHWC depthwise convolution: output channel c·M + m is channel c through filter [:, :, c, m]."""
    kh, kw, c, m = w.shape
    pads = [_same_pads(x.shape[1 + a], w.shape[a], stride[a], dilation[a]) for a in range(2)] \
        if padding == "SAME" else [(0, 0), (0, 0)]
    xp = np.pad(x.astype(np.float64), [(0, 0), pads[0], pads[1], (0, 0)])
    eff = [(k - 1) * d + 1 for k, d in zip((kh, kw), dilation)]
    oh = (xp.shape[1] - eff[0]) // stride[0] + 1
    ow = (xp.shape[2] - eff[1]) // stride[1] + 1
    out = np.zeros((x.shape[0], oh, ow, c, m))
    for i, j in itertools.product(range(oh), range(ow)):
        patch = xp[:, i * stride[0]:i * stride[0] + eff[0]:dilation[0], j * stride[1]:j * stride[1] + eff[1]:dilation[1]]
        out[:, i, j] = np.einsum("nhwc,hwcm->ncm", patch, w)
    return out.reshape(x.shape[0], oh, ow, c * m)


def _conv1d_reference(x, w, stride, padding, dilation):
    k, cin, cout = w.shape
    pads = _same_pads(x.shape[1], k, stride, dilation) if padding == "SAME" else (0, 0)
    xp = np.pad(x.astype(np.float64), [(0, 0), pads, (0, 0)])
    eff = (k - 1) * dilation + 1
    ow = (xp.shape[1] - eff) // stride + 1
    out = np.zeros((x.shape[0], ow, cout))
    for i in range(ow):
        out[:, i] = np.einsum("nkc,kco->no", xp[:, i * stride:i * stride + eff:dilation], w)
    return out


# -- conv1d ------------------------------------------------------------------------------------------
@settings(max_examples=30, deadline=None)
@given(st.integers(1, 2), st.integers(1, 9), st.integers(1, 3), st.integers(1, 3), st.integers(1, 3),
       st.integers(1, 3), st.integers(1, 2), st.sampled_from(["SAME", "VALID"]))
def test_conv1d_matches_direct_loops(n, width, k, cin, cout, stride, dilation, padding):
    if padding == "VALID" and width < (k - 1) * dilation + 1:
        return
    if stride > 1 and dilation > 1:
        dilation = 1
    rng = np.random.RandomState(width * 7 + k)
    x, w = rng.randn(n, width, cin), rng.randn(k, cin, cout)
    out = tf.nn.conv1d(x, w, stride, padding, dilations=dilation)
    expected = _conv1d_reference(x, w, stride, padding, dilation)
    assert out.dtype == tf.float64 and out.shape == expected.shape
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-10, atol=1e-10)


def test_conv1d_ncw_strides_forms_float32_and_tensorflow_values():
    x = np.arange(2 * 5 * 2, dtype=np.float32).reshape(2, 5, 2) / 10
    w = np.array([[[1, -1]], [[0.5, 2]]], np.float32).reshape(2, 1, 2).repeat(2, axis=1)
    nwc = tf.nn.conv1d(x, w, [1, 2, 1], "SAME")
    assert nwc.dtype == tf.float32 and nwc.shape == (2, 3, 2)
    ncw = tf.nn.conv1d(np.transpose(x, (0, 2, 1)), w, 2, "SAME", data_format="NCW")
    np.testing.assert_allclose(np.transpose(ncw.numpy(), (0, 2, 1)), nwc.numpy(), rtol=1e-6)
    # Real TensorFlow: tf.nn.conv1d(x, w, [1, 2, 1], "SAME")[0]
    np.testing.assert_allclose(nwc.numpy()[0], [[0.35, 0.9], [1.55, 1.7], [1.7, -1.7]], rtol=1e-5, atol=1e-6)
    explicit = tf.nn.conv1d(x, w, 1, [[0, 0], [1, 0], [0, 0]])
    np.testing.assert_allclose(explicit.numpy(), _conv1d_reference(np.pad(x, [(0, 0), (1, 0), (0, 0)]), w, 1,
                                                                   "VALID", 1), rtol=1e-5, atol=1e-6)


def test_conv1d_errors():
    x, w = np.ones((1, 4, 2), np.float32), np.ones((2, 2, 3), np.float32)
    with pytest.raises(ValueError, match="data_format"):
        tf.nn.conv1d(x, w, 1, "SAME", data_format="NHWC")
    with pytest.raises(tf.errors.InvalidArgumentError, match="evenly divisible"):
        tf.nn.conv1d(np.ones((1, 4, 3), np.float32), w, 1, "SAME")
    with pytest.raises(tf.errors.InvalidArgumentError, match="negative"):
        tf.nn.conv1d(x, np.ones((5, 2, 3), np.float32), 1, "VALID")
    with pytest.raises(ValueError, match="stride"):
        tf.nn.conv1d(x, w, [1, 1], "SAME")


# -- depthwise_conv2d --------------------------------------------------------------------------------
@settings(max_examples=30, deadline=None)
@given(st.integers(1, 2), st.integers(1, 6), st.integers(1, 6), st.integers(1, 3), st.integers(1, 3),
       st.integers(1, 3), st.integers(1, 2), st.integers(1, 2), st.integers(1, 2), st.sampled_from(["SAME", "VALID"]))
def test_depthwise_matches_direct_loops(n, h, w, kh, kw, c, m, stride, dilation, padding):
    if padding == "VALID" and (h < (kh - 1) * dilation + 1 or w < (kw - 1) * dilation + 1):
        return
    rng = np.random.RandomState(h * 11 + w)
    x, f = rng.randn(n, h, w, c), rng.randn(kh, kw, c, m)
    out = tf.nn.depthwise_conv2d(x, f, [1, stride, stride, 1], padding, dilations=[dilation, dilation])
    expected = _depthwise_reference(x, f, (stride, stride), padding, (dilation, dilation))
    assert out.dtype == tf.float64 and out.shape == expected.shape
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-10, atol=1e-10)


def test_depthwise_tensorflow_values_and_nchw():
    x = (np.arange(1 * 3 * 3 * 2, dtype=np.float32).reshape(1, 3, 3, 2) % 4) / 2
    f = np.array([1, -1, 2, 0.5, 0, 1, -2, 1], np.float32).reshape(2, 2, 2, 1)
    out = tf.nn.depthwise_conv2d(x, f, [1, 1, 1, 1], "VALID")
    # Real TensorFlow: tf.nn.depthwise_conv2d(x, f, [1, 1, 1, 1], "VALID")[0, :, :, 0] and [..., 1]
    np.testing.assert_allclose(out.numpy()[0, :, :, 0], [[2.0, -1.0], [-1.0, 2.0]], atol=1e-6)
    np.testing.assert_allclose(out.numpy()[0, :, :, 1], [[2.25, 0.75], [0.75, 2.25]], atol=1e-6)
    nchw = tf.nn.depthwise_conv2d(np.transpose(x, (0, 3, 1, 2)), f, [1, 1, 1, 1], "VALID", data_format="NCHW")
    np.testing.assert_allclose(np.transpose(nchw.numpy(), (0, 2, 3, 1)), out.numpy())


def test_depthwise_errors():
    x = np.ones((1, 4, 4, 3), np.float32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="input depth must be evenly divisible by filter depth: "
                                                                 "3 vs 4"):
        tf.nn.depthwise_conv2d(x, np.ones((2, 2, 4, 1), np.float32), [1, 1, 1, 1], "SAME")
    with pytest.raises(tf.errors.InvalidArgumentError, match="attr 'T'"):
        tf.nn.depthwise_conv2d(np.ones((1, 4, 4, 3), np.int32), np.ones((2, 2, 3, 1), np.int32), [1, 1, 1, 1],
                               "SAME")
    with pytest.raises(ValueError, match="data_format"):
        tf.nn.depthwise_conv2d(x, np.ones((2, 2, 3, 1), np.float32), [1, 1, 1, 1], "SAME", data_format="NWC")
    with pytest.raises(ValueError, match="Dimensions must be equal"):
        depthwise.DEPTHWISE.infer([S([1, 4, 4, 3]), S([2, 2, 4, 1])], _attrs())


def _attrs(stride=1, padding="SAME", dilation=1):
    return {"strides": (1, stride, stride, 1), "padding": padding, "explicit_paddings": (),
            "data_format": "NHWC", "dilations": (1, dilation, dilation, 1)}


def test_depthwise_infer_unknown_dims_and_rank():
    infer = depthwise.DEPTHWISE.infer
    assert infer([S([None, 5, None, 3]), S([2, 2, 3, 2])], _attrs(2))[0][1] == tf.TensorShape([None, 3, None, 6])
    assert infer([S([None, 5, 5, None]), S([2, 2, 3, 2])], _attrs())[0][1] == tf.TensorShape([None, 5, 5, 6])
    assert infer([S(None), S([2, 2, 3, 2])], _attrs())[0][1] == tf.TensorShape([None, None, None, 6])
    assert infer([S([1, 5, 5, 3]), S(None)], _attrs())[0][1] == tf.TensorShape([1, None, None, None])
    assert infer([S([1, 5, 5, 3]), S([2, 2, None, 4])], _attrs(padding="VALID"))[0][1] == \
        tf.TensorShape([1, 4, 4, 12])
    assert infer([S([1, 5, 5, 3], tf.float64), S([2, 2, 3, 1], tf.float64)], _attrs())[0][0] == tf.float64
    with pytest.raises(ValueError, match="rank 4"):
        infer([S([5, 5, 3]), S([2, 2, 3, 1])], _attrs())
    with pytest.raises(ValueError, match="Negative dimension"):
        infer([S([1, 2, 2, 3]), S([3, 3, 3, 1])], _attrs(padding="VALID"))


# -- conv2d_transpose --------------------------------------------------------------------------------
@settings(max_examples=30, deadline=None)
@given(st.integers(1, 2), st.integers(1, 7), st.integers(1, 7), st.integers(1, 3), st.integers(1, 3),
       st.integers(1, 3), st.integers(1, 3), st.integers(1, 2), st.integers(1, 2), st.sampled_from(["SAME", "VALID"]))
def test_conv2d_transpose_is_the_adjoint_of_conv2d(n, h, w, kh, kw, c, o, stride, dilation, padding):
    """<conv2d(x, f), y> == <x, conv2d_transpose(y, f, x.shape)> for every x, y: the transpose's definition."""
    if padding == "VALID" and (h < (kh - 1) * dilation + 1 or w < (kw - 1) * dilation + 1):
        return
    if stride > 1 and dilation > 1:
        dilation = 1
    rng = np.random.RandomState(h * 13 + w * 3 + kh)
    x, f = rng.randn(n, h, w, c), rng.randn(kh, kw, c, o)
    forward = tf.nn.conv2d(x, f, stride, padding, dilations=dilation)
    y = rng.randn(*forward.shape)
    back = tf.nn.conv2d_transpose(y, f, [n, h, w, c], stride, padding, dilations=dilation)
    assert back.shape == (n, h, w, c) and back.dtype == tf.float64
    np.testing.assert_allclose(np.sum(forward.numpy() * y), np.sum(x * back.numpy()), rtol=1e-9, atol=1e-9)


def test_conv2d_transpose_tensorflow_values():
    y = np.arange(1 * 2 * 2 * 1, dtype=np.float32).reshape(1, 2, 2, 1) + 1
    f = np.array([1, 2, 3, 4], np.float32).reshape(2, 2, 1, 1)
    # Real TensorFlow: tf.nn.conv2d_transpose(y, f, [1, 4, 4, 1], 2, "SAME")[0, :, :, 0]
    expected = [[1, 2, 2, 4], [3, 4, 6, 8], [3, 6, 4, 8], [9, 12, 12, 16]]
    out = tf.nn.conv2d_transpose(y, f, [1, 4, 4, 1], 2, "SAME")
    np.testing.assert_allclose(out.numpy()[0, :, :, 0], expected)
    # Real TensorFlow: tf.nn.conv2d_transpose(y, f, [1, 3, 3, 1], 1, "VALID")[0, :, :, 0]
    valid = tf.nn.conv2d_transpose(y, f, tf.constant([1, 3, 3, 1]), [1, 1], "VALID")
    np.testing.assert_allclose(valid.numpy()[0, :, :, 0], [[1, 4, 4], [6, 20, 16], [9, 24, 16]])


def test_conv2d_transpose_errors():
    y, f = np.ones((1, 3, 3, 4), np.float32), np.ones((3, 3, 5, 4), np.float32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Size of out_backprop doesn't match computed: "
                                                                 "actual = 3, computed = 5"):
        tf.nn.conv2d_transpose(y, f, [1, 10, 10, 5], 2, "SAME")
    with pytest.raises(tf.errors.InvalidArgumentError, match="same out_depth"):
        tf.nn.conv2d_transpose(np.ones((1, 3, 3, 2), np.float32), f, [1, 6, 6, 5], 2, "SAME")
    with pytest.raises(tf.errors.InvalidArgumentError, match="evenly divisible"):
        tf.nn.conv2d_transpose(y, f, [1, 6, 6, 3], 2, "SAME")
    with pytest.raises(ValueError, match="data_format"):
        tf.nn.conv2d_transpose(y, f, [1, 6, 6, 5], 2, data_format="NWC")
    with pytest.raises(TypeError, match="output_shape"):
        tf.nn.conv2d_transpose(y, f, tf.constant([1.0, 6, 6, 5]), 2)


def test_conv2d_transpose_static_shape_in_graph():
    @tf.function(input_signature=[S([None, 3, 3, 4]), S([3, 3, 5, 4])])
    def known(y, f):
        return tf.nn.conv2d_transpose(y, f, [2, 6, 6, 5], 2, "SAME")

    @tf.function(input_signature=[S([None, 3, 3, 4]), S([3, 3, 5, 4]), S([4], tf.int32)])
    def dynamic(y, f, sizes):
        return tf.nn.conv2d_transpose(y, f, sizes, 2, "SAME")

    assert known.get_concrete_function().structured_outputs.shape == tf.TensorShape([2, 6, 6, 5])
    assert dynamic.get_concrete_function().structured_outputs.shape == tf.TensorShape([None] * 4)
    ops = [op.type for op in known.get_concrete_function().graph.get_operations()]
    assert "Conv2DBackpropInput" in ops


# -- separable_conv2d --------------------------------------------------------------------------------
def test_separable_is_depthwise_then_pointwise():
    rng = np.random.RandomState(4)
    x, dw, pw = rng.randn(2, 6, 5, 3), rng.randn(3, 2, 3, 2), rng.randn(1, 1, 6, 4)
    out = tf.nn.separable_conv2d(x, dw, pw, [1, 1, 1, 1], "VALID")
    depthwise = _depthwise_reference(x, dw, (1, 1), "VALID", (1, 1))
    np.testing.assert_allclose(out.numpy(), np.einsum("nhwc,co->nhwo", depthwise, pw[0, 0]), rtol=1e-10)
    same = tf.nn.separable_conv2d(x, dw, pw, [1, 2, 2, 1], "SAME")
    assert same.shape == (2, 3, 3, 4)
    with pytest.raises(ValueError, match="pointwise_filter"):
        tf.nn.separable_conv2d(x, dw, rng.randn(2, 1, 6, 4), [1, 1, 1, 1], "VALID")
    with pytest.raises(ValueError, match="channel_multiplier"):
        tf.nn.separable_conv2d(x, dw, rng.randn(1, 1, 5, 4), [1, 1, 1, 1], "VALID")


# -- gradients and tracing ---------------------------------------------------------------------------
def _check_grads(fn, arrays, seed=0):
    """tf.GradientTape of Σ weights·fn(*arrays) against central differences, for every argument."""
    weights = np.random.RandomState(seed).randn(*fn(*[tf.constant(a) for a in arrays]).shape)

    def scalar(*tensors):
        return tf.reduce_sum(fn(*tensors) * weights)

    tensors = [tf.constant(a) for a in arrays]
    with tf.GradientTape() as tape:
        for t in tensors:
            tape.watch(t)
        loss = scalar(*tensors)
    grads = tape.gradient(loss, tensors)
    for i, (a, g) in enumerate(zip(arrays, grads)):
        def f(v, i=i):
            args = [tf.constant(v if j == i else arrays[j]) for j in range(len(arrays))]
            return float(scalar(*args).numpy())
        np.testing.assert_allclose(g.numpy(), numeric_grad(f, a), rtol=1e-5, atol=1e-6)

    @tf.function
    def traced(*ts):
        with tf.GradientTape() as t2:
            for t in ts:
                t2.watch(t)
            out = scalar(*ts)
        return out, t2.gradient(out, list(ts))

    value, traced_grads = traced(*tensors)
    np.testing.assert_allclose(value.numpy(), loss.numpy(), rtol=1e-12)
    for g, tg in zip(grads, traced_grads):
        np.testing.assert_allclose(tg.numpy(), g.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("stride, padding, dilation", [(1, "SAME", 1), (2, "VALID", 1), (1, "SAME", 2)])
def test_conv1d_gradients(stride, padding, dilation):
    rng = np.random.RandomState(1)
    _check_grads(lambda x, w: tf.nn.conv1d(x, w, stride, padding, dilations=dilation),
                 [rng.randn(2, 7, 2), rng.randn(3, 2, 3)])


@pytest.mark.parametrize("stride, padding, dilation", [(1, "SAME", 1), (2, "VALID", 1), (1, "SAME", 2),
                                                       (2, "SAME", 1)])
def test_depthwise_gradients(stride, padding, dilation):
    rng = np.random.RandomState(2)
    _check_grads(lambda x, w: tf.nn.depthwise_conv2d(x, w, [1, stride, stride, 1], padding,
                                                     dilations=[dilation, dilation]),
                 [rng.randn(2, 5, 4, 3), rng.randn(2, 3, 3, 2)])


@pytest.mark.parametrize("stride, padding", [(2, "SAME"), (1, "VALID"), (2, "VALID")])
def test_conv2d_transpose_gradients(stride, padding):
    rng = np.random.RandomState(3)
    f = rng.randn(3, 2, 2, 3)
    out_hw = (5, 4)
    forward_shape = tf.nn.conv2d(np.zeros((1,) + out_hw + (2,)), f, stride, padding).shape
    _check_grads(lambda y, w: tf.nn.conv2d_transpose(y, w, [1, 5, 4, 2], stride, padding),
                 [rng.randn(*forward_shape), f])


def test_separable_gradients():
    rng = np.random.RandomState(5)
    _check_grads(lambda x, a, b: tf.nn.separable_conv2d(x, a, b, [1, 1, 1, 1], "SAME"),
                 [rng.randn(1, 4, 4, 2), rng.randn(2, 2, 2, 2), rng.randn(1, 1, 4, 3)])


def test_depthwise_second_order_gradients_match_finite_differences():
    rng = np.random.RandomState(6)
    x0, w0 = rng.randn(1, 4, 4, 2), rng.randn(2, 2, 2, 2)
    weights = rng.randn(1, 4, 4, 4)
    probe = rng.randn(1, 4, 4, 2)

    def inner_grad_dot(x, w):
        """<d/dx Σ weights·depthwise(x, w), probe>: linear in w, so its gradient checks the backprop ops."""
        with tf.GradientTape() as tape:
            tape.watch(x)
            loss = tf.reduce_sum(tf.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "SAME") * weights)
        return tf.reduce_sum(tape.gradient(loss, x) * tf.sin(x) * probe)

    x, w = tf.constant(x0), tf.constant(w0)
    with tf.GradientTape(persistent=True) as outer:
        outer.watch([x, w])
        value = inner_grad_dot(x, w)
    gx, gw = outer.gradient(value, [x, w])
    np.testing.assert_allclose(gw.numpy(), numeric_grad(lambda v: float(inner_grad_dot(x, tf.constant(v))), w0),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gx.numpy(), numeric_grad(lambda v: float(inner_grad_dot(tf.constant(v), w)), x0),
                               rtol=1e-5, atol=1e-6)


def test_traced_equals_eager_and_graph_op_types():
    rng = np.random.RandomState(7)
    x1, w1 = rng.randn(2, 6, 3).astype(np.float32), rng.randn(2, 3, 2).astype(np.float32)
    x4, dw, pw = (rng.randn(2, 5, 5, 3).astype(np.float32), rng.randn(3, 3, 3, 2).astype(np.float32),
                  rng.randn(1, 1, 6, 4).astype(np.float32))
    y, tw = rng.randn(2, 3, 3, 4).astype(np.float32), rng.randn(3, 3, 5, 4).astype(np.float32)

    def net(x1, w1, x4, dw, pw, y, tw):
        return (tf.nn.conv1d(x1, w1, 2, "SAME"), tf.nn.depthwise_conv2d(x4, dw, [1, 2, 2, 1], "SAME"),
                tf.nn.separable_conv2d(x4, dw, pw, [1, 1, 1, 1], "VALID"),
                tf.nn.conv2d_transpose(y, tw, [2, 6, 6, 5], 2, "SAME"))

    args = [tf.constant(a) for a in (x1, w1, x4, dw, pw, y, tw)]
    traced_fn = tf.function(net)
    for eager, traced in zip(net(*args), traced_fn(*args)):
        assert eager.shape == traced.shape and eager.dtype == traced.dtype
        np.testing.assert_allclose(traced.numpy(), eager.numpy(), rtol=1e-6, atol=1e-6)
    types = [op.type for op in traced_fn.get_concrete_function(*args).graph.get_operations()]
    for expected in ("ExpandDims", "Conv2D", "Squeeze", "DepthwiseConv2dNative", "Conv2DBackpropInput"):
        assert expected in types
