"""Creator ops of the array family: range, zeros/ones(_like), fill, eye, linspace, one_hot."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tensorflux as tf
from helpers import check
from tensorflux._src.ops.array import creation
from tensorflux._src.ops.shapes import creators

IAE = tf.errors.InvalidArgumentError
S = tf.TensorSpec


# -- range -----------------------------------------------------------------------------------------------

def test_range_dtype_rules():
    check(tf.range(10), np.arange(10, dtype=np.int32), tf.int32)
    check(tf.range(1, 10, 2), np.arange(1, 10, 2, dtype=np.int32), tf.int32)
    check(tf.range(1., 10), np.arange(1, 10, dtype=np.float32), tf.float32)
    check(tf.range(1, 10.), np.arange(1, 10, dtype=np.float32), tf.float32)
    check(tf.range(10, dtype=tf.float64), np.arange(10.0), tf.float64)
    check(tf.range(10, dtype=tf.int64), np.arange(10), tf.int64)
    check(tf.range(tf.constant(5, tf.int64)), np.arange(5), tf.int64)
    check(tf.range(tf.constant(5, tf.int64), tf.constant(10)), np.arange(5, 10), tf.int64)
    check(tf.range(np.float64(5)), np.arange(5.0), tf.float64)
    check(tf.range(tf.constant(5.5), dtype=tf.int32), np.arange(5, dtype=np.int32), tf.int32)
    check(tf.range(start=3), np.arange(3, dtype=np.int32))
    check(tf.range(1, limit=4), np.arange(1, 4, dtype=np.int32))
    check(tf.range(5, dtype=tf.float16), np.arange(5, dtype=np.float16), tf.float16)


def test_range_float_values_and_negative_delta():
    check(tf.range(0., 10., 0.1), np.float32(0) + np.arange(100, dtype=np.float32) * np.float32(0.1))
    check(tf.range(3., 0.5, -0.7), np.float32(3) + np.arange(4, dtype=np.float32) * np.float32(-0.7))
    check(tf.range(10, 1, -3), [10, 7, 4])
    check(tf.range(0), np.zeros(0, np.int32))


@pytest.mark.parametrize("args, message", [
    ((1, 10, 0), "Requires delta != 0: 0"),
    ((10, 1), "Requires start <= limit when delta > 0: 10/1"),
    ((1, 10, -1), "Requires start >= limit when delta < 0: 1/10"),
    ((5, 2.0), "Requires start <= limit when delta > 0: 5/2"),
])
def test_range_errors(args, message):
    with pytest.raises(IAE, match=message + r" \[Op:Range\]"):
        tf.range(*args)


def test_range_dtype_errors():
    with pytest.raises(TypeError, match="Cannot convert 10.5 to EagerTensor of dtype int32"):
        tf.range(10.5, dtype=tf.int32)
    with pytest.raises(TypeError, match="Cannot convert 0 to EagerTensor of dtype bool"):
        tf.range(5, dtype=tf.bool)
    with pytest.raises(IAE, match="uint8 is not in the list of allowed values"):
        tf.range(5, dtype=tf.uint8)


def test_range_infer():
    c = lambda v: tf.constant(v)  # noqa: E731
    assert creators.RANGE.infer([c(0), c(10), c(3)], {})[0] == (tf.int32, tf.TensorShape([4]))
    assert creators.RANGE.infer([c(0.), S([], tf.float32), c(1.)], {})[0] == (tf.float32, tf.TensorShape([None]))
    with pytest.raises(ValueError, match="Requires delta != 0"):
        creators.RANGE.infer([c(0), c(10), c(0)], {})


@settings(max_examples=40, deadline=None)
@given(st.integers(-20, 20), st.integers(-20, 20), st.integers(-5, 5).filter(lambda d: d != 0))
def test_range_matches_numpy_for_ints(start, limit, delta):
    if (delta > 0 and start > limit) or (delta < 0 and start < limit):
        with pytest.raises(IAE):
            tf.range(start, limit, delta)
    else:
        check(tf.range(start, limit, delta), np.arange(start, limit, delta, dtype=np.int32))


# -- zeros / ones / fill -----------------------------------------------------------------------------------

def test_zeros_and_ones_accept_every_shape_form():
    check(tf.zeros([2, 3]), np.zeros((2, 3), np.float32), tf.float32)
    check(tf.zeros((2,), tf.int32), np.zeros(2, np.int32), tf.int32)
    check(tf.zeros(tf.TensorShape([2])), np.zeros(2, np.float32))
    check(tf.zeros(tf.constant([2, 1])), np.zeros((2, 1), np.float32))
    check(tf.zeros(3), np.zeros(3, np.float32))
    check(tf.zeros([]), np.float32(0))
    check(tf.zeros([2], tf.string), np.array([b"", b""], dtype=object), tf.string)
    check(tf.zeros([2], tf.bool), [False, False], tf.bool)
    check(tf.ones([2], tf.bool), [True, True], tf.bool)
    check(tf.ones([2, tf.constant(2)], tf.int64), np.ones((2, 2), np.int64), tf.int64)
    check(tf.ones((1, 2), "float64"), np.ones((1, 2)), tf.float64)


def test_zeros_ones_errors():
    with pytest.raises(TypeError, match="Cannot convert 1 to EagerTensor of dtype string"):
        tf.ones([2], tf.string)
    with pytest.raises(IAE, match=r"Dimension -1 must be >= 0 \[Op:Fill\]"):
        tf.zeros([-1])
    with pytest.raises(TypeError, match=r"Cannot convert \[2.5\] to EagerTensor of dtype int32"):
        tf.zeros([2.5])
    with pytest.raises(IAE, match="Value for attr 'index_type' of float"):
        tf.zeros(tf.constant([2.0]))


def test_like_ops():
    check(tf.zeros_like([1, 2]), [0, 0], tf.int32)
    check(tf.zeros_like(["a"]), np.array([b""], dtype=object), tf.string)
    check(tf.zeros_like([True]), [False], tf.bool)
    check(tf.ones_like([1., 2]), [1., 1.], tf.float32)
    check(tf.ones_like([1., 2], dtype=tf.int64), [1, 1], tf.int64)
    check(tf.zeros_like(tf.constant([1, 2]), dtype=tf.float32), [0., 0.], tf.float32)
    with pytest.raises(IAE, match="Value for attr 'T' of string is not in the list of allowed values"):
        tf.ones_like(["a"])
    assert creators.ZEROS_LIKE.infer([S([None, 2], tf.int8)], {})[0] == (tf.int8, tf.TensorShape([None, 2]))


def test_fill():
    check(tf.fill([2, 2], 3), np.full((2, 2), 3, np.int32), tf.int32)
    check(tf.fill([2], "a"), np.array([b"a", b"a"], dtype=object), tf.string)
    check(tf.fill([2], [3]), [3, 3])
    check(tf.fill(2, 3), [3, 3])
    check(tf.fill([2, 2], tf.constant(3, tf.int64)), np.full((2, 2), 3), tf.int64)
    with pytest.raises(IAE, match=r"value must represent a scalar, got shape \[2\] \[Op:Fill\]"):
        tf.fill([2], [3, 4])
    with pytest.raises(IAE, match="Dimension -1 must be >= 0"):
        tf.fill([-1], 3)
    with pytest.raises(IAE, match="Value for attr 'index_type' of float is not in the list of allowed values"):
        tf.fill([2.0], 3)


def test_fill_infer():
    c = tf.constant
    assert creators.FILL.infer([c([2, 3]), S([], tf.float32)], {})[0] == (tf.float32, tf.TensorShape([2, 3]))
    assert creators.FILL.infer([S([2], tf.int32), S([], tf.int8)], {})[0] == (tf.int8, tf.TensorShape([None, None]))
    assert creators.FILL.infer([S(None, tf.int32), S([], tf.int8)], {})[0][1].rank is None
    with pytest.raises(ValueError, match="Dimension -1 must be >= 0"):
        creators.FILL.infer([c([-1]), S([], tf.float32)], {})


# -- eye ---------------------------------------------------------------------------------------------------

def test_eye():
    check(tf.eye(2), np.eye(2, dtype=np.float32), tf.float32)
    check(tf.eye(2, 3, dtype=tf.int32), np.eye(2, 3, dtype=np.int32), tf.int32)
    check(tf.eye(3, 2), np.eye(3, 2, dtype=np.float32))
    check(tf.eye(2, batch_shape=[2, 1]), np.broadcast_to(np.eye(2, dtype=np.float32), (2, 1, 2, 2)))
    check(tf.eye(2, dtype=tf.bool), np.eye(2, dtype=bool), tf.bool)
    check(tf.eye(0), np.zeros((0, 0), np.float32))
    check(tf.linalg.eye(2), np.eye(2, dtype=np.float32))
    with pytest.raises(IAE, match="Dimension -1 must be >= 0"):
        tf.eye(-1)
    with pytest.raises(TypeError, match="Cannot convert 1 to EagerTensor of dtype string"):
        tf.eye(2, dtype=tf.string)


def test_eye_dynamic_path_matches_numpy():
    # The run-time-size path builds eye from one_hot(range(n), m); exercise it directly.
    m = creation.one_hot(tf.range(3), 2, on_value=1.0, off_value=0.0)
    check(m, np.eye(3, 2, dtype=np.float32))
    check(tf.eye(tf.constant(2), tf.constant(3)), np.eye(2, 3, dtype=np.float32))


# -- linspace ----------------------------------------------------------------------------------------------

def test_linspace_values_and_dtypes():
    check(tf.linspace(0., 1., 5), np.linspace(0, 1, 5, dtype=np.float32), tf.float32)
    r = tf.linspace(0, 1, 5)
    assert r.dtype is tf.float64
    np.testing.assert_allclose(r.numpy(), np.linspace(0, 1, 5))
    check(tf.linspace(0., 1., 1), [0.])
    check(tf.linspace(0., 1., 0), np.zeros(0, np.float32))
    check(tf.linspace(0., 1., tf.constant(3, tf.int64)), [0., 0.5, 1.])
    check(tf.linspace(0., 1, 3), [0., 0.5, 1.], tf.float32)


def test_linspace_batched_and_axis():
    start, stop = np.array([0., 1.], np.float32), np.array([1., 2.], np.float32)
    np.testing.assert_allclose(tf.linspace(start, stop, 3).numpy(), np.linspace(start, stop, 3))
    np.testing.assert_allclose(tf.linspace(start, stop, 3, axis=1).numpy(), np.linspace(start, stop, 3, axis=1))
    np.testing.assert_allclose(tf.linspace(start, stop, 3, axis=-1).numpy(), np.linspace(start, stop, 3, axis=-1))
    np.testing.assert_allclose(tf.linspace(0., [1., 2.], 3).numpy(), np.linspace(0., [1., 2.], 3))
    assert tf.linspace(start, stop, 4).numpy()[-1].tolist() == [1.0, 2.0]  # endpoints exact


def test_linspace_errors_and_infer():
    with pytest.raises(ValueError, match="stop: Tensor conversion requested dtype float32 for Tensor with dtype "
                                         "float64"):
        tf.linspace(0., tf.constant(1, tf.float64), 3)
    with pytest.raises(TypeError, match=r"Argument `tensor` \(name: num\) must be of type integer"):
        tf.linspace(0., 1., 2.0)
    with pytest.raises(IAE, match=r"Incompatible shapes: \[2\] vs. \[3\]"):
        tf.linspace([0., 1.], [1., 2., 3.], 3)
    with pytest.raises(IAE, match="Requires num > 0: -1"):
        tf.linspace(0., 1., -1)
    out = creation.LINSPACE.infer([S([None]), S([]), tf.constant(4)], {"axis": 1})
    assert out[0] == (tf.float32, tf.TensorShape([None, 4]))
    out = creation.LINSPACE.infer([S([]), S([]), S([], tf.int32)], {"axis": 0})
    assert out[0][1].as_list() == [None]


# -- one_hot -----------------------------------------------------------------------------------------------

def _one_hot_ref(indices, depth, axis=-1, on=1.0, off=0.0, dtype=np.float32):
    indices = np.asarray(indices)
    out = np.where(indices[..., None] == np.arange(depth), on, off).astype(dtype)
    return out if axis == -1 else np.moveaxis(out, -1, axis)


def test_one_hot_values():
    check(tf.one_hot([0, 2, -1, 5], 3), _one_hot_ref([0, 2, -1, 5], 3), tf.float32)
    check(tf.one_hot([0, 2], 3, axis=0), _one_hot_ref([0, 2], 3, axis=0))
    check(tf.one_hot([[0, 2]], 3, axis=1), _one_hot_ref([[0, 2]], 3, axis=1))
    check(tf.one_hot([0, 2], 3, on_value=5, off_value=-1), _one_hot_ref([0, 2], 3, -1, 5, -1, np.int32), tf.int32)
    check(tf.one_hot([0, 2], 3, on_value=5.), _one_hot_ref([0, 2], 3, on=5.), tf.float32)
    check(tf.one_hot([0, 2], 3, dtype=tf.int64), _one_hot_ref([0, 2], 3, dtype=np.int64), tf.int64)
    check(tf.one_hot([0, 2], 3, on_value=5, dtype=tf.float32), _one_hot_ref([0, 2], 3, on=5.), tf.float32)
    check(tf.one_hot([0, 2], tf.constant(3)), _one_hot_ref([0, 2], 3))
    check(tf.one_hot(tf.constant([0, 2], tf.uint8), 3), _one_hot_ref([0, 2], 3))
    check(tf.one_hot([0, 2], 3, on_value=True, off_value=False), _one_hot_ref([0, 2], 3, dtype=bool), tf.bool)
    check(tf.one_hot([0, 2], 3, on_value=tf.constant(2, tf.int64)), _one_hot_ref([0, 2], 3, on=2, dtype=np.int64))


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(on_value=5, off_value=1.), TypeError,
     "dtype <dtype: 'int32'> of on_value does not match dtype <dtype: 'float32'> of off_value"),
    (dict(on_value=5., dtype=tf.int32), TypeError,
     "dtype <dtype: 'float32'> of on_value does not match dtype parameter <dtype: 'int32'>"),
    (dict(axis=-2), IAE, r"Expected axis to be -1 or between \[0, 2\).  But received: -2"),
    (dict(axis=2), IAE, r"Expected axis to be -1 or between \[0, 2\).  But received: 2"),
])
def test_one_hot_errors(kwargs, error, message):
    with pytest.raises(error, match=message):
        tf.one_hot([0, 2], 3, **kwargs)


def test_one_hot_more_errors_and_infer():
    with pytest.raises(IAE, match="Value for attr 'TI' of float is not in the list of allowed values: uint8, int8, "
                                  "int32, int64"):
        tf.one_hot([0., 2], 3)
    with pytest.raises(IAE, match="depth must be non-negative, got: -1"):
        tf.one_hot([0, 2], -1)
    with pytest.raises(TypeError, match="Cannot convert 3.0 to EagerTensor of dtype int32"):
        tf.one_hot([0, 2], 3.0)
    scalar = S([], tf.float32)
    out = creation.ONE_HOT.infer([S([None, 2], tf.int32), tf.constant(4), scalar, scalar], {"axis": 1})
    assert out[0] == (tf.float32, tf.TensorShape([None, 4, 2]))
    out = creation.ONE_HOT.infer([S([3], tf.int32), S([], tf.int32), scalar, scalar], {"axis": -1})
    assert out[0][1].as_list() == [3, None]
    assert creation.ONE_HOT.infer([S(None, tf.int32), S([], tf.int32), scalar, scalar], {"axis": -1})[0][1].rank is None


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(-2, 6), min_size=0, max_size=6), st.integers(0, 5))
def test_one_hot_matches_reference(indices, depth):
    check(tf.one_hot(np.array(indices, np.int32), depth), _one_hot_ref(np.array(indices, np.int32), depth))
