"""tf.nn activations, softmax, losses, bias_add, moments, batch_normalization and dropout."""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import tensorflux as tf
from tensorflux._src.ops.nn import basic as nn
from tensorflux._src.ops.nn import losses
from tensorflux._src.ops.nn import normalization

S = tf.TensorSpec
X = np.array([[-1.5, 0.0, 2.0, 7.0]], np.float32)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _gelu_exact(x):
    return np.array([0.5 * v * math.erfc(-v / math.sqrt(2)) for v in x.ravel()]).reshape(x.shape)


@pytest.mark.parametrize("fn, reference", [
    (tf.nn.relu, lambda x: np.maximum(x, 0)),
    (tf.nn.relu6, lambda x: np.clip(x, 0, 6)),
    (tf.nn.elu, lambda x: np.where(x > 0, x, np.expm1(x))),
    (tf.nn.selu, lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x))),
    (tf.nn.softplus, lambda x: np.log1p(np.exp(x))),
    (tf.nn.softsign, lambda x: x / (1 + np.abs(x))),
    (tf.nn.silu, lambda x: x * _sigmoid(x)),
    (tf.nn.swish, lambda x: x * _sigmoid(x)),
    (tf.nn.leaky_relu, lambda x: np.where(x > 0, x, 0.2 * x)),
    (tf.nn.gelu, _gelu_exact),
    (lambda x: tf.nn.gelu(x, approximate=True),
     lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))),
])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_activation_values_dtype_shape(fn, reference, dtype):
    x = X.astype(dtype)
    out = fn(tf.constant(x))
    assert out.dtype is tf.as_dtype(dtype) and out.shape == x.shape
    np.testing.assert_allclose(out.numpy(), reference(x.astype(np.float64)), rtol=1e-6 if dtype == np.float32 else 1e-12,
                               atol=1e-7)


def test_activation_known_tensorflow_values():
    x = tf.constant([[-1.0, 2.0]])
    np.testing.assert_allclose(tf.nn.selu(x).numpy(), [[-1.1113307, 2.101402]], rtol=1e-6)
    np.testing.assert_allclose(tf.nn.gelu(x).numpy(), [[-0.15865526, 1.9544997]], rtol=1e-6)
    np.testing.assert_allclose(tf.nn.gelu(x, True).numpy(), [[-0.158808, 1.9545977]], rtol=1e-5)
    np.testing.assert_allclose(tf.nn.silu(x, beta=2.0).numpy(), [[-0.11920292, 1.9640275]], rtol=1e-6)
    np.testing.assert_allclose(tf.nn.leaky_relu(x, alpha=2.0).numpy(), [[-2.0, 2.0]])


def test_gelu_is_accurate_in_float64_far_into_the_tails():
    x = np.array([-30.0, -12.0, -5.0, -1e-8, 0.0, 1e-8, 3.0, 40.0])
    np.testing.assert_allclose(tf.nn.gelu(tf.constant(x)).numpy(), _gelu_exact(x), rtol=1e-12, atol=0)


def test_softplus_and_silu_do_not_overflow():
    x = tf.constant([-100.0, 100.0, 0.0, -1000.0, 1000.0])
    np.testing.assert_allclose(tf.nn.softplus(x).numpy(), [0, 100, math.log(2), 0, 1000], rtol=1e-6, atol=1e-30)
    np.testing.assert_allclose(tf.nn.silu(x).numpy(), [0, 100, 0, 0, 1000], atol=1e-30)


def test_relu_keeps_integer_dtypes_and_leaky_relu_casts_ints_to_float32():
    assert tf.nn.relu(tf.constant([-3, 2], tf.int8)).numpy().tolist() == [0, 2]
    assert tf.nn.relu6(tf.constant([200], tf.uint8)).numpy().tolist() == [6]
    out = tf.nn.leaky_relu(tf.constant([-3, 2]))
    assert out.dtype is tf.float32
    np.testing.assert_allclose(out.numpy(), [-0.6, 2.0], rtol=1e-6)


def test_half_precision_activations():
    out = tf.nn.gelu(tf.constant([-3.0, 2.0], tf.float16))
    assert out.dtype is tf.float16
    np.testing.assert_allclose(out.numpy().astype(np.float64), [-0.004055, 1.954], rtol=2e-3)
    assert tf.nn.elu(tf.constant([-1.0], tf.bfloat16)).dtype is tf.bfloat16


@pytest.mark.parametrize("fn, op", [(tf.nn.elu, "Elu"), (tf.nn.selu, "Selu"), (tf.nn.softplus, "Softplus"),
                                    (tf.nn.softsign, "Softsign"), (tf.nn.softmax, "Softmax"),
                                    (tf.nn.log_softmax, "LogSoftmax"), (tf.nn.l2_loss, "L2Loss")])
def test_float_only_ops_reject_ints(fn, op):
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=rf"Value for attr 'T' of int32 is not in the list of allowed values: half, bfloat16, "
                             rf"float, double(.|\n)*\[Op:{op}\]"):
        fn(tf.constant([[1, 2]]))


def test_relu_rejects_bool_and_gelu_rejects_ints():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Value for attr 'T' of bool"):
        tf.nn.relu(tf.constant([True]))
    with pytest.raises(ValueError, match=r"`features.dtype` must be a floating point tensor.*int32"):
        tf.nn.gelu(tf.constant([1]))
    with pytest.raises(TypeError, match="Expected float for argument 'alpha'"):
        tf.nn.leaky_relu(tf.constant([1.0]), alpha=tf.constant(0.1))


# -- softmax -----------------------------------------------------------------------------------------
def _np_softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@settings(max_examples=30, deadline=None)
@given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=3, max_side=4),
                  elements=st.floats(-50, 50)), st.data())
def test_softmax_and_log_softmax_match_numpy(x, data):
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    s = tf.nn.softmax(tf.constant(x), axis=axis)
    ls = tf.nn.log_softmax(tf.constant(x), axis=axis)
    assert s.dtype is tf.float64 and s.shape == x.shape and ls.shape == x.shape
    np.testing.assert_allclose(s.numpy(), _np_softmax(x, axis), rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(ls.numpy(), np.log(_np_softmax(x, axis)), rtol=1e-9, atol=1e-12)


def test_softmax_extremes_and_math_alias():
    np.testing.assert_allclose(tf.nn.softmax(tf.constant([1000.0, 0.0])).numpy(), [1.0, 0.0])
    assert tf.nn.log_softmax(tf.constant([-np.inf, 0.0])).numpy().tolist() == [-np.inf, 0.0]
    assert tf.nn.softmax(tf.zeros([2, 0])).shape == [2, 0]
    assert tf.math.softmax is tf.nn.softmax and tf.math.softplus is tf.nn.softplus


def test_softmax_errors():
    x = tf.constant([[-1.0, 2.0]])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"`dim` must be in the range \[-2, 2\) where 2 is the number of dimensions in the "
                             r"input. Received: dim=2"):
        tf.nn.softmax(x, axis=2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="dim=-3"):
        tf.nn.log_softmax(x, axis=-3)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[Op:Softmax\]"):
        tf.nn.softmax(tf.constant(1.0))


def test_softmax_infer_unknown_dims_and_rank():
    assert losses.SOFTMAX.infer([S([None, 3])], {"axis": 1}) == [(tf.float32, tf.TensorShape([None, 3]))]
    assert losses.SOFTMAX.infer([S(None)], {"axis": -1})[0][1].rank is None
    with pytest.raises(ValueError, match="at least rank 1"):
        losses.SOFTMAX.infer([S([])], {"axis": -1})


# -- losses ------------------------------------------------------------------------------------------
def test_sigmoid_cross_entropy_matches_formula_and_is_stable():
    logits = np.array([[-100.0, -1.0, 0.0, 2.0, 100.0]], np.float32)
    labels = np.array([[0.0, 1.0, 0.5, 0.0, 1.0]], np.float32)
    out = tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)
    x, z = logits.astype(np.float64), labels.astype(np.float64)
    expected = np.maximum(x, 0) - x * z + np.log1p(np.exp(-np.abs(x)))
    assert out.dtype is tf.float32 and out.shape == [1, 5]
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6, atol=1e-40)  # float32 subnormals
    assert np.isfinite(out.numpy()).all()


def test_sigmoid_cross_entropy_errors():
    with pytest.raises(ValueError, match=r"`logits` and `labels` must have the same shape, received \(\(2,\) vs "
                                         r"\(3,\)\)"):
        tf.nn.sigmoid_cross_entropy_with_logits(labels=[0.0, 1.0, 1.0], logits=[1.0, 2.0])
    with pytest.raises(ValueError, match="Both `labels` and `logits` must be provided"):
        tf.nn.sigmoid_cross_entropy_with_logits(logits=[1.0, 2.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="cannot compute SigmoidCrossEntropyWithLogits"):
        tf.nn.sigmoid_cross_entropy_with_logits(labels=tf.constant([1.0], tf.float64), logits=tf.constant([1.0]))
    with pytest.raises(ValueError, match="same shape"):
        losses.SIGMOID_CE.infer([S([None, 3]), S([None, 4])], {})


def test_softmax_cross_entropy_values_axis_and_broadcast():
    logits = np.array([[0.0, 1.0], [2.0, -1.0]], np.float32)
    labels = np.array([[0.5, 0.5], [0.1, 0.9]], np.float32)
    out = tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    expected = -(labels * np.log(_np_softmax(logits.astype(np.float64), -1))).sum(-1)
    assert out.dtype is tf.float32 and out.shape == [2]
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(tf.nn.softmax_cross_entropy_with_logits(labels=[[0.5, 0.5]], logits=logits).numpy(),
                               [0.8132616, 1.5485873], rtol=1e-6)
    out = tf.nn.softmax_cross_entropy_with_logits(labels=tf.ones([2, 3, 4]), logits=tf.ones([2, 3, 4]), axis=1)
    assert out.shape == [2, 4]
    np.testing.assert_allclose(out.numpy(), 3.295837, rtol=1e-6)
    assert tf.nn.softmax_cross_entropy_with_logits(labels=[[0.3, 0.7]], logits=[[-1.0, 2.0]], axis=0).numpy().tolist() \
        == [0.0, 0.0]
    # Integer or float64 labels are cast to the logits' dtype, as in TensorFlow.
    assert tf.nn.softmax_cross_entropy_with_logits(labels=tf.constant([[0, 1]]), logits=[[0.0, 1.0]]).dtype is tf.float32


def test_softmax_cross_entropy_errors_and_infer():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"logits and labels must be broadcastable: logits_size=\[1,2\] labels_size=\[1,3\]"):
        tf.nn.softmax_cross_entropy_with_logits(labels=[[0.3, 0.7, 0.0]], logits=[[-1.0, 2.0]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Value for attr 'T' of int32"):
        tf.nn.softmax_cross_entropy_with_logits(labels=[1], logits=[1])
    infer = losses.SOFTMAX_CE.infer
    assert infer([S([None, None, 3]), S(None)], {"axis": 2})[0][1] == tf.TensorShape([None, None])
    assert infer([S(None), S(None)], {"axis": -1})[0][1].rank is None
    with pytest.raises(ValueError, match="broadcastable"):
        infer([S([None, 4]), S([None, 3])], {"axis": 1})


def test_sparse_softmax_cross_entropy_values():
    logits = np.array([[-1.0, 2.0, 0.5], [0.0, 0.0, 0.0]], np.float32)
    out = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[1, 2], logits=logits)
    expected = -np.log(_np_softmax(logits.astype(np.float64), -1))[[0, 1], [1, 2]]
    assert out.dtype is tf.float32 and out.shape == [2]
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)
    out64 = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.constant([[1, 0]], tf.int64),
                                                           logits=tf.ones([1, 2, 3], tf.float64))
    assert out64.dtype is tf.float64 and out64.shape == [1, 2]
    np.testing.assert_allclose(out64.numpy(), math.log(3))
    assert tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.zeros([0], tf.int32),
                                                          logits=tf.zeros([0, 3])).shape == [0]


def test_sparse_softmax_cross_entropy_errors():
    logits = tf.constant([[-1.0, 2.0]])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Received a label value of 2 which is outside the valid range of \[0, 2\).  Label "
                             r"values: 2 \[Op:SparseSoftmaxCrossEntropyWithLogits\]"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[2], logits=logits)
    with pytest.raises(tf.errors.InvalidArgumentError, match="label value of -1"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[-1], logits=logits)
    with pytest.raises(tf.errors.InvalidArgumentError, match="label value of 7 .*Label values: 5 0 7"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[5, 0, 7], logits=tf.zeros([3, 2]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Must have at least one class"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[0], logits=tf.zeros([1, 0]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Value for attr 'Tlabels' of float"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[1.0], logits=logits)
    with pytest.raises(ValueError, match=r"`labels.shape.rank` must equal `logits.shape.rank - 1`. Received: "
                                         r"labels.shape=\(1, 1\) of rank 2"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[[1]], logits=logits)
    with pytest.raises(ValueError, match="must equal `logits.shape` except for the last dimension"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[1, 0], logits=logits)
    with pytest.raises(ValueError, match="`logits` cannot be a scalar"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=1, logits=1.0)


def test_sparse_softmax_cross_entropy_infer():
    infer = losses.SPARSE_SOFTMAX_CE.infer
    assert infer([S([None, None, 3]), S(None, tf.int32)], {})[0][1] == tf.TensorShape([None, None])
    assert infer([S(None), S([None], tf.int32)], {})[0][1] == tf.TensorShape([None])
    assert infer([S([None, 3]), S([4], tf.int64)], {})[0][1] == tf.TensorShape([4])
    with pytest.raises(ValueError, match="rank"):
        infer([S([None, 3]), S([None, 2], tf.int32)], {})


def test_l2_loss():
    x = np.array([[1.0, -2.0], [0.5, 3.0]])
    out = tf.nn.l2_loss(tf.constant(x))
    assert out.dtype is tf.float64 and out.shape == []
    assert out.numpy() == pytest.approx((x ** 2).sum() / 2)
    assert tf.nn.l2_loss(tf.zeros([0])).numpy() == 0.0
    assert losses.L2_LOSS.infer([S(None)], {}) == [(tf.float32, tf.TensorShape([]))]


# -- bias_add ----------------------------------------------------------------------------------------
def test_bias_add_nhwc_nchw_and_ints():
    value = np.arange(24, dtype=np.float32).reshape(2, 3, 2, 2)
    bias = np.array([1.0, 2.0], np.float32)
    np.testing.assert_array_equal(tf.nn.bias_add(value, bias).numpy(), value + bias)
    bias3 = np.array([1.0, 2.0, 3.0], np.float32)
    np.testing.assert_array_equal(tf.nn.bias_add(value, bias3, data_format="NCHW").numpy(),
                                  value + bias3[:, None, None])
    np.testing.assert_array_equal(tf.nn.bias_add(tf.ones([1, 3, 2]), [1.0, 2, 3], data_format="NCHW").numpy()[0],
                                  [[2, 2], [3, 3], [4, 4]])
    out = tf.nn.bias_add(tf.ones([2, 3], tf.int32), [1, 2, 3])
    assert out.dtype is tf.int32 and out.numpy().tolist() == [[2, 3, 4], [2, 3, 4]]


def test_bias_add_errors_and_infer():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Must provide as many biases as the last dimension of the input tensor: \[2\] vs. "
                             r"\[2,3\]"):
        tf.nn.bias_add(tf.ones([2, 3]), [1.0, 2.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Biases must be 1D: \[1,3\]"):
        tf.nn.bias_add(tf.ones([2, 3]), [[1.0, 2.0, 3.0]])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Input tensor must be at least 2D: \[3\]"):
        tf.nn.bias_add(tf.ones([3]), [1.0, 2.0, 3.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="cannot compute BiasAdd as input #1"):
        tf.nn.bias_add(tf.ones([2, 3]), tf.constant([1, 2, 3]))
    infer = nn.BIAS_ADD.infer
    nhwc = {"data_format": "NHWC"}
    assert infer([S([None, None]), S([3])], nhwc)[0][1] == tf.TensorShape([None, 3])
    assert infer([S(None), S([3])], nhwc)[0][1].rank is None
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 2"):
        infer([S([None, 3]), S([2])], nhwc)
    with pytest.raises(ValueError, match="Shape must be at least rank 2 but is rank 1"):
        infer([S([3]), S([3])], nhwc)


# -- moments and batch normalisation -----------------------------------------------------------------
@settings(max_examples=30, deadline=None)
@given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=3, max_side=4), elements=st.floats(-10, 10)),
       st.data(), st.booleans())
def test_moments_match_numpy(x, data, keepdims):
    axes = data.draw(st.lists(st.integers(0, x.ndim - 1), min_size=1, max_size=x.ndim, unique=True))
    mean, variance = tf.nn.moments(tf.constant(x), axes, keepdims=keepdims)
    np.testing.assert_allclose(mean.numpy(), x.mean(axis=tuple(axes), keepdims=keepdims), atol=1e-12)
    np.testing.assert_allclose(variance.numpy(), x.var(axis=tuple(axes), keepdims=keepdims), atol=1e-12)
    assert mean.dtype is tf.float64


def test_moments_ints_half_and_errors():
    mean, variance = tf.nn.moments(tf.constant([[1, 2], [3, 5]]), axes=[0])
    assert mean.dtype is tf.int32 and mean.numpy().tolist() == [2, 3] and variance.numpy().tolist() == [1, 2]
    mean, variance = tf.nn.moments(tf.constant([[1, 2], [3, 5]], tf.float16), axes=0)
    assert mean.dtype is tf.float16 and variance.numpy().tolist() == [1.0, 2.25]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Invalid reduction dimension \(2 for input with 2"):
        tf.nn.moments(tf.ones([2, 2]), axes=[2])
    with pytest.raises(TypeError, match="Expected list for 'axis'"):
        tf.nn.moments(tf.ones([2, 2]), axes=tf.constant([0]))
    assert normalization.MOMENTS.infer([S([None, None, 3])], {"axes": (1,), "keepdims": False}) == \
        [(tf.float32, tf.TensorShape([None, 3]))] * 2
    assert normalization.MOMENTS.infer([S(None)], {"axes": (0,), "keepdims": True})[0][1].rank is None


def test_batch_normalization():
    x = np.array([[1.0, 2.0], [3.0, 5.0]], np.float32)
    mean, var = np.array([1.0, 2.0], np.float32), np.array([4.0, 1.0], np.float32)
    offset, scale = np.array([0.5, 0.0], np.float32), np.array([2.0, 1.0], np.float32)
    out = tf.nn.batch_normalization(tf.constant(x), tf.constant(mean), tf.constant(var), tf.constant(offset),
                                    tf.constant(scale), 0.001)
    expected = (x - mean) / np.sqrt(var + 0.001) * scale + offset
    assert out.dtype is tf.float32 and out.shape == [2, 2]
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)
    plain = tf.nn.batch_normalization(tf.constant(x), 0.0, 1.0, None, None, 0.0)
    np.testing.assert_allclose(plain.numpy(), x)
    with pytest.raises(tf.errors.InvalidArgumentError, match="cannot compute BatchNormalization"):
        tf.nn.batch_normalization(tf.constant(x), tf.constant(0.0, tf.float64), 1.0, None, None, 1e-3)
    infer = normalization.BATCH_NORM.infer
    assert infer([S([None, 3]), S([None]), S([])], {})[0][1] == tf.TensorShape([None, 3])
    with pytest.raises(ValueError, match="Dimensions must be equal"):
        infer([S([None, 3]), S([2]), S([])], {})


# -- dropout -----------------------------------------------------------------------------------------
def test_dropout_keeps_and_scales():
    x = tf.ones([200, 50])
    out = tf.nn.dropout(x, 0.25, seed=3).numpy()
    assert out.dtype == np.float32 and out.shape == (200, 50)
    assert set(np.unique(out).tolist()) <= {0.0, float(np.float32(1 / 0.75))}
    assert abs((out == 0).mean() - 0.25) < 0.03


def test_dropout_noise_shape_broadcasts_the_mask():
    out = tf.nn.dropout(tf.ones([300, 4]), 0.5, noise_shape=[300, 1], seed=1).numpy()
    assert all(len(set(row)) == 1 for row in out.tolist())
    out = tf.nn.dropout(tf.ones([300, 4]), 0.5, noise_shape=[None, 1], seed=1).numpy()
    assert all(len(set(row)) == 1 for row in out.tolist())


def test_dropout_rate_forms_and_errors():
    x = tf.ones([2, 4])
    assert tf.nn.dropout(x, 0) is x
    assert tf.nn.dropout(x, tf.constant(2.0)).numpy().tolist() == [[0.0] * 4] * 2
    for bad in (1.0, -0.1):
        with pytest.raises(ValueError, match=r"`rate` must be a scalar tensor or a float in the range \[0, 1\)"):
            tf.nn.dropout(x, bad)
    with pytest.raises(ValueError, match="`rate` must be a scalar or scalar tensor"):
        tf.nn.dropout(x, "a")
    with pytest.raises(ValueError, match="must have rank 0"):
        tf.nn.dropout(x, tf.constant([0.5, 0.5]))
    with pytest.raises(ValueError, match="`x.dtype` must be compatible with `rate.dtype`"):
        tf.nn.dropout(x, tf.constant(0.5, tf.float64))
    with pytest.raises(ValueError, match="`x.dtype` must be a floating point tensor as `x` will be scaled"):
        tf.nn.dropout(tf.ones([2], tf.int32), 0.5)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"condition \[3,1\], then \[2,4\]"):
        tf.nn.dropout(x, 0.5, noise_shape=[3, 1])


def test_dropout_seeding_and_infer():
    tf.random.set_seed(11)
    a = tf.nn.dropout(tf.ones([64]), 0.5, seed=2).numpy()
    b = tf.nn.dropout(tf.ones([64]), 0.5, seed=2).numpy()
    tf.random.set_seed(11)
    assert tf.nn.dropout(tf.ones([64]), 0.5, seed=2).numpy().tolist() == a.tolist()
    assert a.tolist() != b.tolist()
    assert nn.DROPOUT.stateful
    attrs = {"noise_shape": (None, 1)}
    assert nn.DROPOUT.infer([S([None, 4]), S([])], attrs)[0][1] == tf.TensorShape([None, 4])
    with pytest.raises(ValueError, match="does not broadcast"):
        nn.DROPOUT.infer([S([2, 4]), S([])], {"noise_shape": (3, 1)})


def test_nn_ops_traced_agree_with_eager():
    x = np.array([[-1.5, 0.0, 2.0], [3.0, -0.5, 0.25]], np.float32)

    def fn(t):
        mean, variance = tf.nn.moments(t, [0])
        return (tf.nn.relu(t), tf.nn.gelu(t), tf.nn.softmax(t), tf.nn.log_softmax(t, axis=0), tf.nn.l2_loss(t),
                tf.nn.bias_add(t, [1.0, 2.0, 3.0]), mean, variance,
                tf.nn.batch_normalization(t, mean, variance, None, None, 1e-3),
                tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[0, 2], logits=t),
                tf.nn.softmax_cross_entropy_with_logits(labels=tf.nn.softmax(t), logits=t),
                tf.nn.sigmoid_cross_entropy_with_logits(labels=_sigmoid(x), logits=t))

    eager = fn(tf.constant(x))
    traced = tf.function(fn)(tf.constant(x))
    assert len(eager) == len(traced)
    for e, t in zip(eager, traced):
        assert e.dtype is t.dtype and e.shape == t.shape
        np.testing.assert_allclose(t.numpy(), e.numpy(), rtol=1e-6)
