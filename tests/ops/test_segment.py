"""Segment reductions (sorted and unsorted) against NumPy references, TensorFlow's errors, inference,
finite-difference gradients and traced == eager."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tensorflux as tf
from tensorflux._src.ops.array import segment as seg
from helpers import numeric_grad

F32_MAX = np.finfo(np.float32).max


def _reference(ufunc, data, ids, num, fill):
    """Row s is ufunc.reduce over the rows of `data` with id s; `fill` where no row has id s."""
    data, ids = np.asarray(data), np.asarray(ids)
    rows = data.reshape((ids.size,) + data.shape[ids.ndim:])
    ids = ids.reshape(-1)
    out = []
    for s in range(num):
        picked = rows[ids == s]
        out.append(ufunc.reduce(picked, axis=0) if len(picked) else np.full(rows.shape[1:], fill, data.dtype))
    return np.array(out, dtype=data.dtype).reshape((num,) + rows.shape[1:])


SORTED = [(tf.math.segment_sum, np.add, 0), (tf.math.segment_prod, np.multiply, 1),
          (tf.math.segment_max, np.maximum, 0), (tf.math.segment_min, np.minimum, 0)]


@pytest.mark.parametrize("fn,ufunc,fill", SORTED)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_sorted_segments_match_numpy(fn, ufunc, fill, dtype):
    data = np.array([[1, 2], [3, -4], [5, 6], [7, 8]], dtype)
    ids = [0, 0, 2, 2]
    out = fn(data, ids)
    assert out.dtype is tf.as_dtype(dtype)
    np.testing.assert_array_equal(out.numpy(), _reference(ufunc, data, ids, 3, fill))


def test_segment_mean_truncates_integers_and_fills_empty_with_zero():
    assert tf.math.segment_mean([1, 2, 4], [0, 0, 2]).numpy().tolist() == [1, 0, 4]
    assert tf.math.segment_mean([-1, -2, 4], [0, 0, 2]).numpy().tolist() == [-1, 0, 4]
    out = tf.math.segment_mean(np.array([1., 2., 4.], np.float32), [0, 0, 2])
    assert out.dtype is tf.float32 and out.numpy().tolist() == [1.5, 0.0, 4.0]
    assert tf.math.segment_mean([1 + 1j, 3 + 1j], [0, 0]).numpy().tolist() == [2 + 1j]


def test_segment_half_precision_and_empty():
    out = tf.math.segment_sum(np.array([1, 2, 3], np.float16), [0, 0, 1])
    assert out.dtype is tf.float16 and out.numpy().tolist() == [3, 3]
    empty = tf.math.segment_sum(tf.zeros([0, 2]), tf.zeros([0], tf.int32))
    assert empty.shape == (0, 2)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=8), st.integers(1, 3), st.sampled_from(SORTED))
def test_sorted_segments_random(ids, width, case):
    fn, ufunc, fill = case
    ids = sorted(ids)
    data = np.random.default_rng(len(ids)).normal(size=(len(ids), width))
    np.testing.assert_allclose(fn(data, ids).numpy(), _reference(ufunc, data, ids, ids[-1] + 1, fill))


def test_sorted_segment_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="segment ids are not increasing"):
        tf.math.segment_sum([1, 2, 4], [0, 2, 1])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Segment id -1 out of range \[0, 2\)"):
        tf.math.segment_sum([1, 2, 4], [-1, 0, 1])
    with pytest.raises(tf.errors.InvalidArgumentError, match="same size as dimension 0 of input"):
        tf.math.segment_sum([1, 2, 4], [0, 1])
    with pytest.raises(tf.errors.InvalidArgumentError, match="segment_ids should be a vector"):
        tf.math.segment_sum([1, 2, 4], [[0, 1, 1]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="'Tindices' of float"):
        tf.math.segment_sum([1, 2, 4], [0., 1, 1])
    with pytest.raises(tf.errors.InvalidArgumentError, match="'T' of complex128"):
        tf.math.segment_max([1 + 1j], [0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="'T' of bool"):
        tf.math.segment_max([True], [0])


UNSORTED = [(tf.math.unsorted_segment_sum, np.add, lambda d: 0),
            (tf.math.unsorted_segment_prod, np.multiply, lambda d: 1),
            (tf.math.unsorted_segment_max, np.maximum,
             lambda d: -np.finfo(d).max if np.dtype(d).kind == "f" else np.iinfo(d).min),
            (tf.math.unsorted_segment_min, np.minimum,
             lambda d: np.finfo(d).max if np.dtype(d).kind == "f" else np.iinfo(d).max)]


@pytest.mark.parametrize("fn,ufunc,identity", UNSORTED)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_unsorted_segments_match_numpy(fn, ufunc, identity, dtype):
    data = np.array([[1, 2], [3, -4], [5, 6], [7, 8]], dtype)
    ids = np.array([3, 0, -1, 3])  # -1 drops its row
    out = fn(data, ids, 5)
    assert out.dtype is tf.as_dtype(dtype) and out.shape == (5, 2)
    expected = _reference(ufunc, data[ids >= 0], ids[ids >= 0], 5, identity(dtype))
    np.testing.assert_array_equal(out.numpy(), expected)


def test_unsorted_empty_segment_identities_like_tensorflow():
    assert tf.math.unsorted_segment_max([1, 2, 3], [0, 0, 2], 4).numpy().tolist() == [2, -2 ** 31, 3, -2 ** 31]
    out = tf.math.unsorted_segment_min(np.array([1., 2, 3], np.float32), [0, 0, 2], 4).numpy()
    assert out.tolist() == [1.0, F32_MAX, 3.0, F32_MAX]
    assert tf.math.unsorted_segment_prod([1., 2, 3], [0, -1, 2], 4).numpy().tolist() == [1, 1, 3, 1]


def test_unsorted_multidimensional_ids():
    out = tf.math.unsorted_segment_max(np.array([[1., 2], [4, 5]], np.float32), [[0, 0], [1, 1]], 4)
    assert out.numpy().tolist() == [2, 5, -F32_MAX, -F32_MAX]
    out = tf.math.unsorted_segment_sum(np.arange(12.).reshape(2, 2, 3), [[1, 0], [1, 1]], 2)
    np.testing.assert_array_equal(out.numpy(), [[3, 4, 5], [15, 18, 21]])


def test_unsorted_segment_mean():
    out = tf.math.unsorted_segment_mean([1, 2, 4], [0, 0, 2], 4)
    assert out.dtype is tf.float64 and out.numpy().tolist() == [1.5, 0, 4, 0]
    out = tf.math.unsorted_segment_mean(np.array([[1., 2.], [3., 4.], [5., 6.]], np.float32), [1, 1, -1], 2)
    assert out.dtype is tf.float32 and out.numpy().tolist() == [[0, 0], [2, 3]]


def test_unsorted_segment_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"segment_ids\[2\] = 5 is out of range \[0, 4\)"):
        tf.math.unsorted_segment_max([1., 2, 4], [0, 0, 5], 4)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"segment_ids\[2\] = 5 is out of range"):
        tf.math.unsorted_segment_sum([1., 2, 4], [0, 0, 5], 4)
    with pytest.raises(tf.errors.InvalidArgumentError, match="does not start with segment_ids.shape"):
        tf.math.unsorted_segment_max([1., 2, 4], [0, 0], 4)
    with pytest.raises(tf.errors.InvalidArgumentError, match="num_segments == -1 must not be negative"):
        tf.math.unsorted_segment_min([1., 2, 4], [0, 0, 1], -1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="'T' of bool"):
        tf.math.unsorted_segment_max([True], [0], 1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="'T' of string"):
        tf.math.unsorted_segment_sum(["a"], [0], 1)


def test_infer_with_unknown_dims():
    spec = tf.TensorSpec
    out = seg.SEGMENT_SUM.infer([spec([None, 3], tf.float32), spec([None], tf.int32)], {})
    assert out[0][0] is tf.float32 and out[0][1].as_list() == [None, 3]
    assert seg.SEGMENT_MAX.infer([spec(None, tf.float32), spec([None], tf.int32)], {})[0][1].rank is None
    with pytest.raises(ValueError, match="Shape must be rank 1 but is rank 2"):
        seg.SEGMENT_SUM.infer([spec([4, 3], tf.float32), spec([2, 2], tf.int32)], {})
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 4 and 3"):
        seg.SEGMENT_MEAN.infer([spec([4, 3], tf.float32), spec([3], tf.int32)], {})
    out = seg.UNSORTED_SEGMENT_MAX.infer([spec([None, 2, 3], tf.float64), spec([None, 2], tf.int32),
                                          spec([], tf.int32)], {})
    assert out[0][1].as_list() == [None, 3]
    assert seg.UNSORTED_SEGMENT_PROD.infer([spec(None, tf.float32), spec([4], tf.int32), spec([], tf.int32)],
                                           {})[0][1].rank is None
    with pytest.raises(ValueError, match="does not start with"):
        seg.UNSORTED_SEGMENT_MIN.infer([spec([4, 3], tf.float32), spec([5], tf.int32), spec([], tf.int32)], {})


def test_traced_equals_eager_and_static_shapes():
    data = np.random.default_rng(0).normal(size=(5, 3))

    def f(d):
        return [tf.math.segment_sum(d, [0, 0, 1, 3, 3]), tf.math.segment_mean(d, [0, 0, 1, 3, 3]),
                tf.math.segment_max(d, [0, 0, 1, 3, 3]), tf.math.segment_min(d, [0, 1, 1, 1, 1]),
                tf.math.segment_prod(d, [0, 0, 0, 0, 0]), tf.math.unsorted_segment_sum(d, [2, 0, -1, 2, 1], 4),
                tf.math.unsorted_segment_max(d, [2, 0, -1, 2, 1], 4),
                tf.math.unsorted_segment_min(d, [2, 0, 2, 2, 1], 3),
                tf.math.unsorted_segment_prod(d, [2, 0, 2, 2, 1], 3),
                tf.math.unsorted_segment_mean(d, [2, 0, 2, 2, 1], 3)]

    traced = tf.function(f)
    for a, b in zip(f(tf.constant(data)), traced(tf.constant(data))):
        np.testing.assert_allclose(a.numpy(), b.numpy())
    concrete = traced.get_concrete_function(tf.TensorSpec([None, 3], tf.float64))
    shapes = [t.shape.as_list() for t in concrete.structured_outputs]
    assert shapes[0] == [4, 3] and shapes[5] == [4, 3] and shapes[7] == [3, 3]


GRAD_CASES = [
    lambda x: tf.math.segment_sum(x, [0, 0, 1, 3]),
    lambda x: tf.math.segment_mean(x, [0, 0, 1, 3]),
    lambda x: tf.math.segment_max(x, [0, 0, 1, 3]),
    lambda x: tf.math.segment_min(x, [0, 1, 1, 1]),
    lambda x: tf.math.segment_prod(x, [0, 0, 1, 1]),
    lambda x: tf.math.unsorted_segment_sum(x, [2, 0, -1, 2], 3),
    lambda x: tf.math.unsorted_segment_mean(x, [2, 0, -1, 2], 3),
    # max/min without empty segments: an empty segment's +-DBL_MAX would swamp the finite differences
    lambda x: tf.math.unsorted_segment_max(x, [2, 0, -1, 1], 3),
    lambda x: tf.math.unsorted_segment_min(x, [1, 0, 2, 1], 3),
    lambda x: tf.math.unsorted_segment_prod(x, [2, 0, -1, 2], 3),
]


def _tape_grad(f, x, weights):
    x = x if isinstance(x, tf.Tensor) else tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.reduce_sum(f(x) * weights)
    return tape.gradient(loss, x)


@pytest.mark.parametrize("case", range(len(GRAD_CASES)))
def test_gradients_match_finite_differences_and_graph(case):
    f = GRAD_CASES[case]
    rng = np.random.default_rng(case)
    x = rng.normal(size=(4, 2))  # distinct values: max/min are differentiable
    weights = tf.constant(rng.normal(size=f(tf.constant(x)).shape))
    expected = numeric_grad(lambda v: float(tf.reduce_sum(f(tf.constant(v)) * weights).numpy()), x)
    eager = _tape_grad(f, x, weights)
    np.testing.assert_allclose(eager.numpy(), expected, rtol=1e-5, atol=1e-6)
    traced = tf.function(lambda v: _tape_grad(f, v, weights))(tf.constant(x))
    np.testing.assert_allclose(traced.numpy(), eager.numpy(), rtol=1e-12)


def test_gradient_conventions_like_tensorflow():
    # ties share the gradient; dropped rows get none; products with zeros follow TensorFlow's rule
    assert _tape_grad(lambda x: tf.math.segment_max(x, [0, 0, 1]), [2., 2., 1.], 1.).numpy().tolist() == [.5, .5, 1]
    assert _tape_grad(lambda x: tf.math.unsorted_segment_max(x, [0, 0, -1], 3), [2., 2., 1.],
                      1.).numpy().tolist() == [.5, .5, 0]
    assert _tape_grad(lambda x: tf.math.segment_prod(x, [0, 0, 1]), [2., 0., 1.], 1.).numpy().tolist() == [0, 2, 1]
    assert _tape_grad(lambda x: tf.math.unsorted_segment_prod(x, [0, 0, -1], 2), [0., 0., 1.],
                      1.).numpy().tolist() == [0, 0, 0]
    assert _tape_grad(lambda x: tf.math.unsorted_segment_mean(x, [0, 0, -1], 2), [0., 0., 1.],
                      1.).numpy().tolist() == [.5, .5, 0]
