"""cumprod, cumulative_logsumexp, reduce_variance/std/euclidean_norm, l2_normalize, clip_by_norm,
clip_by_global_norm, global_norm and bincount: NumPy references, TensorFlow's errors, inference,
finite-difference gradients and traced == eager."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import tensorflux as tf
from tensorflux._src.ops.math import reduce as r
from helpers import numeric_grad

SPEC = tf.TensorSpec


def _scan_reference(fn, x, axis, exclusive, reverse, first):
    values = np.flip(x, axis) if reverse else x
    out = fn(values, axis)
    if exclusive:
        head = np.full_like(np.take(out, [0], axis=axis), first)
        out = np.concatenate([head, np.take(out, np.arange(x.shape[axis] - 1), axis=axis)], axis=axis)
    return np.flip(out, axis) if reverse else out


@settings(max_examples=30, deadline=None)
@given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=3, max_side=4), elements=st.floats(-3, 3)),
       st.data(), st.booleans(), st.booleans())
def test_cumprod_and_cumulative_logsumexp_match_numpy(x, data, exclusive, reverse):
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    out = tf.math.cumprod(x, axis, exclusive=exclusive, reverse=reverse)
    np.testing.assert_allclose(out.numpy(), _scan_reference(np.cumprod, x, axis, exclusive, reverse, 1))
    out = tf.math.cumulative_logsumexp(x, axis, exclusive=exclusive, reverse=reverse)
    expected = _scan_reference(np.logaddexp.accumulate, x, axis, exclusive, reverse, -np.inf)
    np.testing.assert_allclose(out.numpy(), expected)


def test_scan_dtypes_and_errors():
    out = tf.math.cumprod([1, 2, 3], exclusive=True, reverse=True)
    assert out.dtype is tf.int32 and out.numpy().tolist() == [6, 3, 1]
    assert tf.math.cumprod(np.array([1, 2], np.float16)).dtype is tf.float16
    out = tf.math.cumulative_logsumexp(np.array([1., 2, 3], np.float32), exclusive=True)
    assert out.dtype is tf.float32 and out.numpy()[0] == -np.inf
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Expected scan axis in the range \[-1, 1\), but got 2"):
        tf.math.cumprod([1., 2, 3], axis=2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="'T' of int32 is not in the list"):
        tf.math.cumulative_logsumexp([1, 2, 3])
    assert r.CUMPROD.infer([SPEC([None, 3], tf.float32)], {"axis": 1})[0][1].as_list() == [None, 3]


def test_variance_std_and_euclidean_norm():
    x = np.array([[1., 2., 4.], [3., 5., 9.]], np.float32)
    for axis in (None, 0, 1, [0, 1]):
        np_axis = tuple(axis) if isinstance(axis, list) else axis
        for keepdims in (False, True):
            v = tf.math.reduce_variance(x, axis, keepdims=keepdims)
            assert v.dtype is tf.float32
            np.testing.assert_allclose(v.numpy(), np.var(x, np_axis, keepdims=keepdims), rtol=1e-6)
            np.testing.assert_allclose(tf.math.reduce_std(x, axis, keepdims).numpy(),
                                       np.std(x, np_axis, keepdims=keepdims), rtol=1e-6)
            n = tf.math.reduce_euclidean_norm(x, axis, keepdims)
            np.testing.assert_allclose(n.numpy(), np.sqrt(np.sum(x * x, np_axis, keepdims=keepdims)), rtol=1e-6)
    out = tf.math.reduce_variance([1 + 1j, 2, 3])
    assert out.dtype is tf.float64 and np.isclose(out.numpy(), 0.8888888888888)
    assert tf.math.reduce_variance(np.array([1., 2.], np.float16)).numpy() == 0.25
    with pytest.raises(TypeError, match="Input must be either real or complex. Received integer type <dtype: 'int32'>"):
        tf.math.reduce_variance([1, 2, 3])
    # integer norms are truncated; complex norms stay complex; empty reduces to 0
    assert tf.math.reduce_euclidean_norm([3, 5]).numpy() == 5
    assert tf.math.reduce_euclidean_norm([-3 + 4j]).numpy() == 5 + 0j
    assert tf.math.reduce_euclidean_norm(tf.zeros([0])).numpy() == 0
    with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid reduction dimension"):
        tf.math.reduce_euclidean_norm([1., 2.], axis=1)
    assert r.EUCLIDEAN_NORM.infer([SPEC([None, 3], tf.float32)], {"axis": (1,), "keepdims": False})[0][1].as_list() \
        == [None]
    assert r.EUCLIDEAN_NORM.infer([SPEC(None, tf.float32)], {"axis": (1,)})[0][1].rank is None


def test_l2_normalize_and_clip_by_norm():
    x = np.array([[3., 4.], [0., 0.]], np.float32)
    np.testing.assert_allclose(tf.math.l2_normalize(x, axis=1).numpy(), [[.6, .8], [0, 0]])
    np.testing.assert_allclose(tf.nn.l2_normalize(x, axis=0).numpy(), [[1, 1], [0, 0]])
    assert tf.linalg.l2_normalize is tf.math.l2_normalize
    np.testing.assert_allclose(tf.math.l2_normalize(x, dim=1).numpy(), [[.6, .8], [0, 0]])
    with pytest.raises(TypeError, match="Cannot convert 1e-12 to EagerTensor of dtype int32"):
        tf.math.l2_normalize([3, 4])
    np.testing.assert_allclose(tf.clip_by_norm([3., 4.], 1.).numpy(), [.6, .8], rtol=1e-6)
    np.testing.assert_allclose(tf.clip_by_norm([3., 4.], 10.).numpy(), [3, 4])
    np.testing.assert_allclose(tf.clip_by_norm([[3., 4.]], 1., axes=[0]).numpy(), [[1, 1]])
    assert tf.clip_by_norm([0., 0.], 1.).numpy().tolist() == [0, 0]
    assert np.isnan(tf.clip_by_norm([np.nan, 0.], 1.).numpy()).all()
    with pytest.raises(tf.errors.InvalidArgumentError, match="'T' of int32"):
        tf.clip_by_norm([3, 4], 1)


def test_clip_by_global_norm():
    clipped, norm = tf.clip_by_global_norm([[3., 4.], None, tf.constant(12.)], 1.)
    assert clipped[1] is None and norm.numpy() == 13.0
    np.testing.assert_allclose(clipped[0].numpy(), [3 / 13, 4 / 13], rtol=1e-6)
    np.testing.assert_allclose(clipped[2].numpy(), 12 / 13, rtol=1e-6)
    clipped, norm = tf.clip_by_global_norm([[3., 4.]], 10.)
    assert clipped[0].numpy().tolist() == [3, 4] and norm.numpy() == 5
    clipped, norm = tf.clip_by_global_norm([[3., np.inf]], 1.)
    assert np.isnan(clipped[0].numpy()).all() and norm.numpy() == np.inf
    clipped, norm = tf.clip_by_global_norm([tf.constant([3., 4.], tf.float64)], 10.)
    assert clipped[0].dtype is tf.float64 and norm.dtype is tf.float64
    clipped, norm = tf.clip_by_global_norm([[3., 4.]], 1., use_norm=tf.constant(2.))
    np.testing.assert_allclose(clipped[0].numpy(), [1.5, 2])
    assert tf.clip_by_global_norm([], 1.)[0] == []
    assert tf.linalg.global_norm([[3., 4.], None]).numpy() == 5
    with pytest.raises(TypeError, match="`t_list` should be a sequence of tensors"):
        tf.clip_by_global_norm(tf.constant([3., 4.]), 1.)


def test_bincount():
    assert tf.math.bincount([1, 1, 3]).numpy().tolist() == [0, 2, 0, 1]
    assert tf.math.bincount([1, 1, 3]).dtype is tf.int32
    assert tf.math.bincount([1, 1, 3], minlength=6, maxlength=2).numpy().tolist() == [0, 2]
    assert tf.math.bincount([1, 1, 3], minlength=6).numpy().tolist() == [0, 2, 0, 1, 0, 0]
    out = tf.math.bincount([1, 1, 3], weights=[.5, .5, 2.])
    assert out.dtype is tf.float32 and out.numpy().tolist() == [0, 1, 0, 2]
    assert tf.math.bincount([1, 1, 2], weights=[1, 2, 3]).numpy().tolist() == [0, 3, 3]
    assert tf.math.bincount([1, 1, 3], dtype=tf.float32).dtype is tf.float32
    assert tf.math.bincount(tf.constant([], tf.int32)).shape == (0,)
    assert tf.math.bincount([1., 2.]).numpy().tolist() == [0, 1, 1]
    assert tf.math.bincount([[1, 2], [2, 2]]).numpy().tolist() == [0, 1, 3]
    assert tf.math.bincount([1, 1, 2], binary_output=True).numpy().tolist() == [0, 1, 1]
    assert tf.math.bincount([[1, 2], [0, 0]], axis=-1).numpy().tolist() == [[0, 1, 1], [2, 0, 0]]
    assert tf.math.bincount([[1, 2], [0, 0]], axis=-1, binary_output=True, minlength=4).numpy().tolist() == \
        [[0, 1, 1, 0], [1, 0, 0, 0]]
    rng = np.random.default_rng(0)
    values = rng.integers(0, 20, size=50)
    np.testing.assert_array_equal(tf.math.bincount(values.astype(np.int64)).numpy(), np.bincount(values))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Input arr must be non-negative!"):
        tf.math.bincount([-1, 1, 3])
    with pytest.raises(tf.errors.InvalidArgumentError, match="`weights` must be the same shape as `arr`"):
        tf.math.bincount([1, 1, 3], weights=[1, 2])
    with pytest.raises(ValueError, match="`binary_output` and `weights` are mutually exclusive"):
        tf.math.bincount([1, 1, 2], weights=[1., 2, 3], binary_output=True)
    with pytest.raises(ValueError, match="Only 0 and -1 are currently supported"):
        tf.math.bincount([1, 1, 2], axis=1)
    inferred = r.DENSE_BINCOUNT.infer([SPEC([None], tf.int32), SPEC([], tf.int32), SPEC([0], tf.float32)], {})
    assert inferred[0][0] is tf.float32 and inferred[0][1].as_list() == [None]
    assert r.DENSE_BINCOUNT.infer([SPEC([2, None], tf.int32), SPEC([], tf.int32), SPEC([0], tf.int32)],
                                  {})[0][1].as_list() == [2, None]


def test_count_nonzero_exists():
    assert tf.math.count_nonzero([[0, 1], [2, 0]], axis=1).numpy().tolist() == [1, 1]
    assert tf.math.count_nonzero([0., 1.], keepdims=True).numpy().tolist() == [1]


def test_traced_equals_eager():
    def f(x, ids):
        clipped, norm = tf.clip_by_global_norm([x, None, x * 2.], 1.)
        return [tf.math.cumprod(x, 1, exclusive=True), tf.math.cumulative_logsumexp(x, 0, reverse=True),
                tf.math.reduce_variance(x, 1), tf.math.reduce_std(x, keepdims=True),
                tf.math.reduce_euclidean_norm(x, 0), tf.math.l2_normalize(x, 1), tf.clip_by_norm(x, 1.),
                clipped[0], clipped[2], norm, tf.math.bincount(ids, minlength=3),
                tf.math.bincount(ids, weights=tf.cast(ids, tf.float32))]

    x = tf.constant(np.random.default_rng(1).normal(size=(3, 4)).astype(np.float32))
    ids = tf.constant([0, 4, 4, 1])
    traced = tf.function(f)
    for a, b in zip(f(x, ids), traced(x, ids)):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)
    concrete = traced.get_concrete_function(SPEC([None, 4], tf.float32), SPEC([None], tf.int32))
    assert concrete.structured_outputs[4].shape.as_list() == [4]
    assert concrete.structured_outputs[10].shape.as_list() == [None]


def _tape_grad(f, x, weights):
    x = x if isinstance(x, tf.Tensor) else tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.reduce_sum(f(x) * weights)
    return tape.gradient(loss, x)


GRAD_CASES = [
    lambda x: tf.math.cumprod(x, 1),
    lambda x: tf.math.cumprod(x, 0, exclusive=True, reverse=True),
    lambda x: tf.math.cumulative_logsumexp(x, 1),
    lambda x: tf.math.cumulative_logsumexp(x, 0, exclusive=True, reverse=True)[:-1],  # last row is -inf
    lambda x: tf.math.reduce_variance(x, 1),
    lambda x: tf.math.reduce_std(x, 0, keepdims=True),
    lambda x: tf.math.reduce_euclidean_norm(x, 1),
    lambda x: tf.math.reduce_euclidean_norm(x),
    lambda x: tf.math.l2_normalize(x, 1),
    lambda x: tf.clip_by_norm(x, 1.),
    lambda x: tf.clip_by_norm(x, 10., axes=[1]),
    lambda x: tf.clip_by_global_norm([x, x * 3.], 2.)[0][1],
    lambda x: tf.linalg.global_norm([x, None]),
]


@pytest.mark.parametrize("case", range(len(GRAD_CASES)))
def test_gradients_match_finite_differences_and_graph(case):
    f = GRAD_CASES[case]
    rng = np.random.default_rng(case)
    x = rng.normal(size=(3, 4))
    weights = tf.constant(rng.normal(size=f(tf.constant(x)).shape))
    expected = numeric_grad(lambda v: float(tf.reduce_sum(f(tf.constant(v)) * weights).numpy()), x)
    eager = _tape_grad(f, x, weights)
    np.testing.assert_allclose(eager.numpy(), expected, rtol=1e-5, atol=1e-6)
    traced = tf.function(lambda v: _tape_grad(f, v, weights))(tf.constant(x))
    np.testing.assert_allclose(traced.numpy(), eager.numpy(), rtol=1e-10)


def test_gradient_conventions_like_tensorflow():
    # cumprod divides with div_no_nan (zeros get 0); norms at 0 are NaN; clip_by_norm at 0 passes 1 through
    assert _tape_grad(tf.math.cumprod, [1., 0., 3.], 1.).numpy().tolist() == [1, 0, 0]
    assert np.isnan(_tape_grad(tf.math.reduce_euclidean_norm, [0., 0.], 1.).numpy()).all()
    assert _tape_grad(lambda x: tf.clip_by_norm(x, 1.), [0., 0.], 1.).numpy().tolist() == [1, 1]
