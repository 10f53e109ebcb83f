"""tf.nn.conv2d and pooling against direct NumPy loops, TensorFlow's size formulas and errors."""
import itertools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tensorflux as tf
from tensorflux._src.ops.nn import conv, pooling

S = tf.TensorSpec


def _conv_reference(x, w, stride, padding, dilation):
    """Direct NHWC convolution with explicit loops (small arrays only); padding as [(b, a), (b, a)]."""
    kh, kw, cin, cout = w.shape
    groups = x.shape[-1] // cin
    xp = np.pad(x.astype(np.float64), [(0, 0), padding[0], padding[1], (0, 0)])
    eff = [(k - 1) * d + 1 for k, d in zip((kh, kw), dilation)]
    oh = (xp.shape[1] - eff[0]) // stride[0] + 1
    ow = (xp.shape[2] - eff[1]) // stride[1] + 1
    out = np.zeros((x.shape[0], oh, ow, cout))
    og = cout // groups
    for i, j in itertools.product(range(oh), range(ow)):
        patch = xp[:, i * stride[0]:i * stride[0] + eff[0]:dilation[0], j * stride[1]:j * stride[1] + eff[1]:dilation[1]]
        for g in range(groups):
            out[:, i, j, g * og:(g + 1) * og] = np.tensordot(
                patch[..., g * cin:(g + 1) * cin], w[..., g * og:(g + 1) * og], axes=([1, 2, 3], [0, 1, 2]))
    return out


def _same_pads(size, k, s, d):
    eff = (k - 1) * d + 1
    out = -(-size // s)
    total = max((out - 1) * s + eff - size, 0)
    return total // 2, total - total // 2


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 2), st.integers(1, 7), st.integers(1, 7), st.integers(1, 3), st.integers(1, 3),
       st.integers(1, 3), st.integers(1, 3), st.integers(1, 3), st.integers(1, 2), st.integers(1, 2),
       st.sampled_from(["SAME", "VALID", "EXPLICIT"]), st.integers(0, 2), st.integers(1, 2))
def test_conv2d_matches_direct_loops(n, h, w, kh, kw, cin, cout, s, d_h, d_w, padding, pad, groups):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, h, w, cin * groups)).astype(np.float32)
    k = rng.standard_normal((kh, kw, cin, cout * groups)).astype(np.float32)
    if padding == "SAME":
        pads = [_same_pads(h, kh, s, d_h), _same_pads(w, kw, s, d_w)]
        arg = "SAME"
    elif padding == "VALID":
        pads, arg = [(0, 0), (0, 0)], "VALID"
    else:
        pads = [(pad, 0), (1, pad)]
        arg = [[0, 0], list(pads[0]), list(pads[1]), [0, 0]]
    eff_h, eff_w = (kh - 1) * d_h + 1, (kw - 1) * d_w + 1
    if h + sum(pads[0]) < eff_h or w + sum(pads[1]) < eff_w:
        with pytest.raises(tf.errors.InvalidArgumentError, match="Computed output size would be negative"):
            tf.nn.conv2d(x, k, s, arg, dilations=[d_h, d_w])
        return
    out = tf.nn.conv2d(x, k, s, arg, dilations=[d_h, d_w])
    expected = _conv_reference(x, k, (s, s), pads, (d_h, d_w))
    assert out.dtype is tf.float32 and out.shape == expected.shape
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-4, atol=1e-4)


def test_conv2d_output_sizes_follow_tensorflow():
    img, w = tf.ones([1, 5, 5, 3]), tf.ones([3, 3, 3, 4])
    assert tf.nn.conv2d(img, w, 1, "SAME").shape == [1, 5, 5, 4]
    assert tf.nn.conv2d(img, w, 2, "VALID").shape == [1, 2, 2, 4]
    assert tf.nn.conv2d(img, w, [1, 2, 2, 1], "SAME").shape == [1, 3, 3, 4]
    assert tf.nn.conv2d(img, w, [2, 2], "SAME").shape == [1, 3, 3, 4]
    assert tf.nn.conv2d(img, w, 1, "VALID", dilations=2).shape == [1, 1, 1, 4]
    assert tf.nn.conv2d(img, w, 2, "VALID", dilations=2).shape == [1, 1, 1, 4]
    assert tf.nn.conv2d(img, w, 1, [[0, 0], [1, 2], [0, 1], [0, 0]]).shape == [1, 6, 4, 4]
    assert tf.nn.conv2d(img, tf.ones([7, 7, 3, 4]), 1, "SAME").shape == [1, 5, 5, 4]
    assert tf.nn.conv2d(tf.ones([2, 1, 5, 5, 3]), w, 1, "SAME").shape == [2, 1, 5, 5, 4]


def test_conv2d_dtypes_and_nchw():
    x = np.random.default_rng(1).standard_normal((2, 6, 5, 3))
    k = np.random.default_rng(2).standard_normal((3, 2, 3, 4))
    nhwc = tf.nn.conv2d(x, k, 2, "SAME")
    assert nhwc.dtype is tf.float64
    nchw = tf.nn.conv2d(np.transpose(x, (0, 3, 1, 2)), k, 2, "SAME", data_format="NCHW")
    np.testing.assert_allclose(nchw.numpy(), np.transpose(nhwc.numpy(), (0, 3, 1, 2)), rtol=1e-12)
    ints = tf.nn.conv2d(tf.ones([1, 4, 4, 2], tf.int32), tf.ones([3, 3, 2, 1], tf.int32), 1, "SAME")
    assert ints.dtype is tf.int32 and ints.numpy()[0, :, :, 0].tolist()[1] == [12, 18, 18, 12]
    half = tf.nn.conv2d(tf.ones([1, 4, 4, 2], tf.float16), tf.ones([3, 3, 2, 1], tf.float16), 1, "VALID")
    assert half.dtype is tf.float16 and half.numpy().ravel().tolist() == [18.0] * 4


def test_conv2d_errors():
    img, w = tf.ones([1, 5, 5, 3]), tf.ones([3, 3, 3, 4])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"input depth must be evenly divisible by filter depth: 3 vs 2 \[Op:Conv2D\]"):
        tf.nn.conv2d(img, tf.ones([3, 3, 2, 4]), 1, "SAME")
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"convolution input must be 4-dimensional: \[5,5,3\]"):
        tf.nn.conv2d(tf.ones([5, 5, 3]), w, 1, "SAME")
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"convolution filter must be 4-dimensional: \[3,3,3\]"):
        tf.nn.conv2d(img, tf.ones([3, 3, 3]), 1, "SAME")
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Computed output size would be negative: -1 \[input_size: 5, effective_filter_size: 7, "
                             r"stride: 1\]"):
        tf.nn.conv2d(img, tf.ones([7, 7, 3, 4]), 1, "VALID")
    with pytest.raises(ValueError, match=r"strides should be of length 1, 2 or 4. Received: strides=\[2, 2, 1\] of "
                                         r"length 3"):
        tf.nn.conv2d(img, w, [2, 2, 1], "SAME")
    with pytest.raises(tf.errors.UnimplementedError, match="strides in the batch and depth dimensions"):
        tf.nn.conv2d(img, w, [2, 1, 1, 1], "SAME")
    with pytest.raises(tf.errors.InvalidArgumentError, match="Row and column strides should be larger than 0"):
        tf.nn.conv2d(img, w, 0, "SAME")
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Value for attr 'padding' of \"FULL\" is not in the list of allowed values"):
        tf.nn.conv2d(img, w, 1, "FULL")
    with pytest.raises(ValueError, match="When padding is a list, it must be of size 4"):
        tf.nn.conv2d(img, w, 1, [[1, 2], [0, 1]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Nonzero explicit padding in the batch or depth"):
        tf.nn.conv2d(img, w, 1, [[1, 0], [1, 2], [0, 1], [0, 0]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="All elements of explicit_paddings must be nonnegative"):
        tf.nn.conv2d(img, w, 1, [[0, 0], [-1, 2], [0, 1], [0, 0]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="cannot compute Conv2D as input #1"):
        tf.nn.conv2d(img, tf.ones([3, 3, 3, 4], tf.float64), 1, "SAME")
    with pytest.raises(tf.errors.InvalidArgumentError, match="Value for attr 'data_format' of \"NHCW\""):
        tf.nn.conv2d(img, w, 1, "SAME", data_format="NHCW")


def _conv_attrs(strides=(1, 1, 1, 1), padding="SAME", dilations=(1, 1, 1, 1)):
    return {"strides": strides, "padding": padding, "explicit_paddings": (), "data_format": "NHWC",
            "dilations": dilations}


def test_conv2d_infer_unknown_dims_rank_and_static_errors():
    infer = conv.CONV2D.infer
    w = S([3, 3, 3, 4])
    assert infer([S([None, None, 7, 3]), w], _conv_attrs((1, 2, 2, 1)))[0][1] == tf.TensorShape([None, None, 4, 4])
    assert infer([S([None, None, 7, None]), w], _conv_attrs((1, 2, 2, 1), "VALID"))[0][1] == \
        tf.TensorShape([None, None, 3, 4])
    assert infer([S(None), w], _conv_attrs())[0][1] == tf.TensorShape([None, None, None, 4])
    assert infer([S([None, 5, 6, 3]), w], _conv_attrs(padding="VALID", dilations=(1, 2, 2, 1)))[0][1] == \
        tf.TensorShape([None, 1, 2, 4])
    assert infer([S([None, 5, 5, 3]), S(None)], _conv_attrs())[0][1] == tf.TensorShape([None, None, None, None])
    with pytest.raises(ValueError, match=r"Depth of input \(2\) is not a multiple of input depth of filter \(3\)"):
        infer([S([None, 5, 5, 2]), w], _conv_attrs())
    with pytest.raises(ValueError, match="Shape must be rank 4 but is rank 3"):
        infer([S([5, 5, 3]), w], _conv_attrs())
    with pytest.raises(ValueError, match="Negative dimension size caused by subtracting 7 from 5"):
        infer([S([None, 5, 6, 3]), w], _conv_attrs(padding="VALID", dilations=(1, 3, 3, 1)))


# -- pooling -----------------------------------------------------------------------------------------
def _pool_reference(x, k, s, padding, average):
    n, h, w, c = x.shape
    if padding == "SAME":
        pads = [_same_pads(h, k[0], s[0], 1), _same_pads(w, k[1], s[1], 1)]
    else:
        pads = [(0, 0), (0, 0)]
    oh = (h + sum(pads[0]) - k[0]) // s[0] + 1
    ow = (w + sum(pads[1]) - k[1]) // s[1] + 1
    out = np.zeros((n, oh, ow, c))
    for i, j in itertools.product(range(oh), range(ow)):
        r0, c0 = i * s[0] - pads[0][0], j * s[1] - pads[1][0]
        window = x[:, max(r0, 0):r0 + k[0], max(c0, 0):c0 + k[1]]  # padding never counts
        out[:, i, j] = window.mean(axis=(1, 2)) if average else window.max(axis=(1, 2))
    return out


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 7), st.integers(1, 7), st.integers(1, 3), st.integers(1, 3), st.integers(1, 3),
       st.integers(1, 3), st.sampled_from(["SAME", "VALID"]), st.booleans())
def test_pools_match_direct_loops(h, w, kh, kw, sh, sw, padding, average):
    x = np.random.default_rng(3).standard_normal((2, h, w, 3)).astype(np.float32)
    fn = tf.nn.avg_pool2d if average else tf.nn.max_pool2d
    if padding == "VALID" and (h < kh or w < kw):
        with pytest.raises(tf.errors.InvalidArgumentError, match="Computed output size would be negative"):
            fn(x, [kh, kw], [sh, sw], padding)
        return
    out = fn(x, [kh, kw], [sh, sw], padding)
    expected = _pool_reference(x, (kh, kw), (sh, sw), padding, average)
    assert out.dtype is tf.float32 and out.shape == expected.shape
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-5, atol=1e-6)


def test_pool_variants_shapes_dtypes():
    img = tf.ones([1, 5, 5, 3])
    assert tf.nn.max_pool2d(img, 2, 2, "SAME").shape == [1, 3, 3, 3]
    assert tf.nn.max_pool(img, 2, 2, "VALID").shape == [1, 2, 2, 3]
    assert tf.nn.max_pool(tf.ones([1, 5, 3]), 2, 2, "VALID").shape == [1, 2, 3]
    assert tf.nn.avg_pool(tf.ones([1, 5, 3]), 2, 2, "VALID").shape == [1, 2, 3]
    assert tf.nn.max_pool(tf.ones([1, 5, 5, 5, 3]), 2, 2, "VALID").shape == [1, 2, 2, 2, 3]
    assert tf.nn.max_pool2d(img, 2, 1, [[0, 0], [1, 1], [1, 1], [0, 0]]).shape == [1, 6, 6, 3]
    ints = tf.nn.max_pool2d(tf.constant(-np.arange(16, dtype=np.int32).reshape(1, 4, 4, 1)), 3, 2, "SAME")
    assert ints.dtype is tf.int32 and ints.numpy().ravel().tolist() == [0, -2, -8, -10]
    x = np.random.default_rng(4).standard_normal((1, 3, 6, 5))
    nchw = tf.nn.avg_pool2d(x, 2, 2, "SAME", data_format="NCHW").numpy()
    nhwc = tf.nn.avg_pool2d(np.transpose(x, (0, 2, 3, 1)), 2, 2, "SAME").numpy()
    np.testing.assert_allclose(nchw, np.transpose(nhwc, (0, 3, 1, 2)))


def test_max_pool_explicit_padding_is_ignored_not_zero():
    x = -np.ones([1, 3, 3, 1], np.float32)
    out = tf.nn.max_pool2d(x, 3, 1, [[0, 0], [1, 1], [1, 1], [0, 0]])
    assert out.numpy().ravel().tolist() == [-1.0] * 9


def test_pool_errors():
    img = tf.ones([1, 5, 5, 3])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Value for attr 'T' of int32(.|\n)*\[Op:AvgPool\]"):
        tf.nn.avg_pool2d(tf.ones([1, 5, 5, 3], tf.int32), 2, 2, "VALID")
    with pytest.raises(TypeError, match="Expected string for argument 'padding'"):
        tf.nn.avg_pool2d(img, 2, 1, [[0, 0], [1, 1], [1, 1], [0, 0]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Value for attr 'padding' of \"FOO\""):
        tf.nn.max_pool2d(img, 2, 2, "FOO")
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Sliding window ksize must be positive. The specified or inferred ksize is: 1,0,0,1"):
        tf.nn.max_pool2d(img, 0, 2, "VALID")
    with pytest.raises(ValueError, match="ksize should be of length 1, 2 or 4"):
        tf.nn.max_pool2d(img, [2, 2, 2], 2, "VALID")
    with pytest.raises(tf.errors.UnimplementedError, match="Pooling is not yet supported on the batch dimension"):
        tf.nn.max_pool2d(img, [2, 1, 1, 1], 1, "VALID")
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"input must be 4-dimensional: \[5,5,3\]"):
        tf.nn.max_pool2d(tf.ones([5, 5, 3]), 2, 2, "VALID")


def test_pool_infer():
    attrs = {"ksize": (1, 3, 3, 1), "strides": (1, 2, 2, 1), "padding": "SAME", "explicit_paddings": (),
             "data_format": "NHWC"}
    assert pooling.MAX_POOL.infer([S([None, None, 7, 3])], attrs)[0][1] == tf.TensorShape([None, None, 4, 3])
    assert pooling.MAX_POOL.infer([S(None)], attrs)[0][1] == tf.TensorShape([None, None, None, None])
    valid = dict(attrs, padding="VALID")
    assert pooling.MAX_POOL.infer([S([None, None, 7, 3])], valid)[0][1] == tf.TensorShape([None, None, 3, 3])
    with pytest.raises(ValueError, match="Shape must be rank 4 but is rank 3"):
        pooling.MAX_POOL.infer([S([5, 5, 3])], valid)
    with pytest.raises(ValueError, match="Negative dimension size caused by subtracting 6 from 5"):
        pooling.AVG_POOL.infer([S([None, 5, 5, 3])], {"ksize": (1, 6, 6, 1), "strides": (1, 2, 2, 1),
                                                   "padding": "VALID", "data_format": "NHWC"})


def test_conv_and_pool_traced_agree_with_eager():
    x = np.random.default_rng(5).standard_normal((2, 7, 6, 3)).astype(np.float32)
    k = np.random.default_rng(6).standard_normal((3, 3, 3, 4)).astype(np.float32)

    def net(images):
        y = tf.nn.conv2d(images, k, 2, "SAME")
        return tf.nn.max_pool2d(y, 2, 1, "VALID"), tf.nn.avg_pool2d(y, 3, 2, "SAME")

    eager = net(tf.constant(x))
    traced = tf.function(net)(tf.constant(x))
    for e, t in zip(eager, traced):
        np.testing.assert_allclose(t.numpy(), e.numpy(), rtol=1e-6)
