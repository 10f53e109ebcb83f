"""Reductions, argmax/argmin, cumsum and count_nonzero against NumPy references."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import tensorflux as tf
from tensorflux._src.ops.math import reduce as r

X = np.array([[1, -2, 3], [4, 5, -7]], np.int32)

REDUCERS = [(tf.reduce_sum, np.sum), (tf.reduce_prod, np.prod), (tf.reduce_max, np.max), (tf.reduce_min, np.min)]


@pytest.mark.parametrize("fn,ref", REDUCERS)
@pytest.mark.parametrize("axis", [None, 0, 1, -1, [0, 1], [], (1,)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reductions_keep_dtype_and_match_numpy(fn, ref, axis, keepdims):
    np_axis = tuple(axis) if isinstance(axis, (list, tuple)) else axis
    for dtype in (np.int32, np.float32, np.float64, np.int64):
        x = X.astype(dtype)
        out = fn(x, axis=axis, keepdims=keepdims)
        expected = ref(x, axis=np_axis, keepdims=keepdims)
        assert out.dtype is tf.as_dtype(dtype)
        assert out.shape.as_list() == list(np.shape(expected))
        np.testing.assert_allclose(out.numpy(), expected)


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_reduce_sum_and_mean_random_shapes(data):
    x = data.draw(hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=3, max_side=4),
                             elements=st.floats(-100, 100)))
    axis = data.draw(st.none() | st.integers(-x.ndim, x.ndim - 1))
    keepdims = data.draw(st.booleans())
    np.testing.assert_allclose(tf.reduce_sum(x, axis, keepdims).numpy(), np.sum(x, axis, keepdims=keepdims))
    np.testing.assert_allclose(tf.reduce_mean(x, axis, keepdims).numpy(), np.mean(x, axis, keepdims=keepdims))
    spec = [tf.TensorSpec(x.shape, tf.float64)]
    inferred = r.SUM.infer(spec, {"axis": None if axis is None else (axis,), "keepdims": keepdims})
    assert inferred[0][1].as_list() == list(np.sum(x, axis, keepdims=keepdims).shape)


def test_integer_mean_truncates_toward_zero():
    assert tf.reduce_mean(X, 1).numpy().tolist() == [0, 0]
    assert tf.reduce_mean(tf.constant([-1, -2])).numpy() == -1
    assert tf.reduce_mean(tf.constant([7, 2], tf.uint8)).numpy() == 4
    assert tf.reduce_mean(tf.zeros([0], tf.int32) if hasattr(tf, "zeros") else np.zeros([0], np.int32)).numpy() == 0
    out = tf.reduce_mean(tf.constant([1j, 2]))
    assert out.dtype is tf.complex128 and out.numpy() == 1 + 0.5j


def test_empty_reductions_give_identities():
    assert np.isnan(tf.reduce_mean(np.zeros([0], np.float32)).numpy())
    assert tf.reduce_max(np.zeros([0], np.float32)).numpy() == -np.inf
    assert tf.reduce_max(np.zeros([0], np.int32)).numpy() == -2 ** 31
    assert tf.reduce_min(np.zeros([0], np.uint8)).numpy() == 255
    assert tf.reduce_prod(np.zeros([0], np.float32)).numpy() == 1.0
    assert tf.reduce_sum(np.zeros([0, 3], np.float32), 0).numpy().tolist() == [0.0, 0.0, 0.0]


def test_wrapping_and_narrow_floats():
    out = tf.reduce_sum(tf.constant([100, 100], tf.int8))
    assert out.dtype is tf.int8 and out.numpy() == -56
    halves = np.full([4096], 0.1, np.float16)
    out = tf.reduce_sum(halves)
    assert out.dtype is tf.float16 and abs(float(out.numpy()) - 409.6) < 0.5  # accumulated in float32
    assert tf.reduce_mean(tf.constant([1.0, 2.0], tf.bfloat16)).dtype is tf.bfloat16
    assert np.isnan(tf.reduce_max(tf.constant([1.0, np.nan, 2.0])).numpy())


def test_any_all():
    b = np.array([[True, False], [True, True]])
    assert tf.reduce_any(b, 1).numpy().tolist() == [True, True]
    assert tf.reduce_all(b, 1).numpy().tolist() == [False, True]
    assert tf.reduce_all(b, keepdims=True).shape.as_list() == [1, 1]
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"cannot compute Any as input #0\(zero-based\) was expected to be a bool tensor but "
                             r"is a int32 tensor"):
        tf.reduce_any(tf.constant([1]))


def test_reduction_errors():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Invalid reduction dimension \(2 for input with 2 dimension\(s\) \[Op:Sum\]"):
        tf.reduce_sum(X, 2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Axes contains duplicate dimension: 1"):
        tf.reduce_sum(X, [1, -1])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Invalid reduction dimension \(0 for input with 0"):
        tf.reduce_sum(tf.constant(3), 0)
    with pytest.raises(TypeError, match="Cannot convert 1.0 to EagerTensor of dtype int32"):
        tf.reduce_sum(X, 1.0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="attr 'T' of bool"):
        tf.reduce_sum(tf.constant([True]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="attr 'T' of complex128"):
        tf.reduce_max(tf.constant([1j]))
    assert tf.reduce_sum(X, tf.constant(1)).numpy().tolist() == [2, 2]


def test_reduction_infer():
    spec = [tf.TensorSpec([None, None, 4], tf.float32)]
    assert r.SUM.infer(spec, {"axis": (1,), "keepdims": True})[0][1].as_list() == [None, 1, 4]
    assert r.MAX.infer(spec, {"axis": (-1,), "keepdims": False})[0][1].as_list() == [None, None]
    assert r.MEAN.infer(spec, {"axis": None, "keepdims": False})[0][1].as_list() == []
    assert r.ANY.infer([tf.TensorSpec(None, tf.bool)], {"axis": (1,), "keepdims": False})[0][1].rank is None
    with pytest.raises(ValueError, match="Invalid reduction dimension"):
        r.SUM.infer(spec, {"axis": (3,), "keepdims": False})


def test_reduce_logsumexp():
    x = np.array([[1.0, 2.0], [-np.inf, -np.inf], [1000.0, 1000.0]], np.float32)
    out = tf.reduce_logsumexp(x, 1)
    assert out.dtype is tf.float32
    np.testing.assert_allclose(out.numpy(), [np.log(np.e + np.e ** 2), -np.inf, 1000 + np.log(2)], rtol=1e-6)
    assert tf.reduce_logsumexp(tf.constant([np.inf, 1.0])).numpy() == np.inf
    out = tf.reduce_logsumexp(x[:1], keepdims=True)
    assert out.shape.as_list() == [1, 1]
    np.testing.assert_allclose(out.numpy(), [[np.log(np.e + np.e ** 2)]], rtol=1e-6)
    with pytest.raises(tf.errors.InvalidArgumentError, match="IsFinite"):
        tf.reduce_logsumexp(tf.constant([1, 2]))


def test_count_nonzero():
    out = tf.math.count_nonzero(X, 1)
    assert out.dtype is tf.int64 and out.numpy().tolist() == [3, 3]
    out = tf.math.count_nonzero(X, dtype=tf.int32, keepdims=True)
    assert out.dtype is tf.int32 and out.numpy().tolist() == [[6]]
    assert tf.math.count_nonzero(tf.constant(["", "a"])).numpy() == 1
    assert tf.math.count_nonzero([0.0, 0.5, -1.0]).numpy() == 2


def test_argmax_argmin():
    out = tf.argmax(X)
    assert out.dtype is tf.int64 and out.numpy().tolist() == [1, 1, 0]
    out = tf.argmax(X, 1, output_type=tf.int32)
    assert out.dtype is tf.int32 and out.numpy().tolist() == [2, 1]
    assert tf.argmin(X, -1).numpy().tolist() == [1, 2]
    assert tf.argmax(tf.constant([3, 3, 1])).numpy() == 0
    assert tf.argmax(tf.constant([False, True])).numpy() == 1
    for values, amax, amin in [([np.nan, 1.0], 1, 1), ([np.nan, np.nan], 0, 0), ([-np.inf, np.nan], 0, 0),
                               ([1.0, np.nan, 5.0], 2, 0)]:
        assert tf.argmax(values).numpy() == amax and tf.argmin(values).numpy() == amin


def test_argmax_errors_and_infer():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Value for attr 'output_type' of float is not in the list of allowed values: int16, "
                             r"uint16, int32, int64"):
        tf.argmax(X, 1, output_type=tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Expected dimension in the range \[-2, 2\), but got 2"):
        tf.argmax(X, 2)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Reduction axis 0 is empty in shape \[0\]"):
        tf.argmax(np.zeros([0], np.float32))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"range \[0, 0\), but got 0"):
        tf.argmax(tf.constant(1.0))
    spec = [tf.TensorSpec([None, 3, 5], tf.float32)]
    assert r.ARGMAX.infer(spec, {"axis": 1, "output_type": np.dtype(np.int32)}) == \
        [(tf.int32, tf.TensorShape([None, 5]))]
    assert r.ARGMIN.infer([tf.TensorSpec(None, tf.float32)], {"axis": 0})[0] == (tf.int64, tf.TensorShape(None))
    with pytest.raises(ValueError, match=r"Dimension \(3\) must be in the range \[-3, 3\)"):
        r.ARGMAX.infer(spec, {"axis": 3})


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_cumsum_against_numpy(exclusive, reverse, axis):
    x = X.astype(np.float32)
    values = np.flip(x, axis) if reverse else x
    expected = np.cumsum(values, axis)
    if exclusive:
        expected = expected - values
    if reverse:
        expected = np.flip(expected, axis)
    out = tf.cumsum(x, axis, exclusive=exclusive, reverse=reverse)
    assert out.dtype is tf.float32 and out.shape.as_list() == [2, 3]
    np.testing.assert_allclose(out.numpy(), expected)


def test_cumsum_dtypes_and_errors():
    out = tf.cumsum(tf.constant([200, 100], tf.uint8))
    assert out.dtype is tf.uint8 and out.numpy().tolist() == [200, 44]
    assert tf.cumsum(X, 1, exclusive=True, reverse=True).numpy().tolist() == [[1, 3, 0], [-2, -7, 0]]
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"ScanOp: Expected scan axis in the range \[-2, 2\), but got 2"):
        tf.cumsum(X, 2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="attr 'T' of bool"):
        tf.cumsum(tf.constant([True]))
    assert r.CUMSUM.infer([tf.TensorSpec([None, 2], tf.int32)], {"axis": 0}) == \
        [(tf.int32, tf.TensorShape([None, 2]))]
