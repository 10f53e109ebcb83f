"""Gradients of reductions (sum, mean, prod, max, min, logsumexp) and cumsum: finite differences over
every axis/keepdims form, TensorFlow's tie and zero conventions, and graphs with unknown shapes."""
import numpy as np
import pytest
from hypothesis import assume, given, strategies as st
from hypothesis.extra import numpy as hnp

import tensorflux as tf
from test_grad_math import SETTINGS, check_gradients, gradients_at, random_weights, tape_gradients, values

REDUCTIONS = {
    "sum": tf.reduce_sum,
    "mean": tf.reduce_mean,
    "prod": tf.reduce_prod,
    "max": tf.reduce_max,
    "min": tf.reduce_min,
    "logsumexp": tf.reduce_logsumexp,
}


@st.composite
def shape_and_axis(draw):
    """A small shape and an axis argument: None, (), an int, or a list of distinct (possibly negative) axes."""
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3))
    rank = len(shape)
    kind = draw(st.sampled_from(["none", "empty", "int", "list"] if rank else ["none", "empty"]))
    if kind == "none":
        return shape, None
    if kind == "empty":
        return shape, []
    if kind == "int":
        return shape, draw(st.integers(-rank, rank - 1))
    axes = draw(st.lists(st.integers(0, rank - 1), min_size=1, max_size=rank, unique=True))
    return shape, [a - rank if draw(st.booleans()) else a for a in axes]


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@SETTINGS
@given(shape_axis=shape_and_axis(), keepdims=st.booleans(), seed=st.integers(0, 2 ** 31 - 1))
def test_reduction_gradient_matches_finite_differences(name, shape_axis, keepdims, seed):
    shape, axis = shape_axis
    reduce = REDUCTIONS[name]
    # Distinct values (no ties for max/min), bounded away from 0 (prod stays well conditioned).
    x = values(seed, shape, 0.5, 1.5, away_from_zero=True)
    if name in ("max", "min") and x.size > 1:
        gaps = np.diff(np.sort(x.reshape(-1)))
        assume(np.all(gaps > 1e-3))
    check_gradients(lambda t: reduce(t, axis=axis, keepdims=keepdims), [x], seed=seed)


def test_max_min_split_ties_like_tensorflow():
    x = [[1.0, 3.0, 3.0], [2.0, 1.0, 0.0]]
    (g,) = gradients_at(lambda t: tf.reduce_max(t, axis=1), x)
    np.testing.assert_allclose(g, [[0.0, 0.5, 0.5], [1.0, 0.0, 0.0]])
    (g,) = gradients_at(lambda t: tf.reduce_min(t, axis=0, keepdims=True), [[1.0, 1.0], [1.0, 0.0]])
    np.testing.assert_allclose(g, [[0.5, 0.0], [0.5, 1.0]])
    (g,) = gradients_at(tf.reduce_max, [[2.0, 2.0], [2.0, 2.0]])
    np.testing.assert_allclose(g, np.full([2, 2], 0.25))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy notes the inf * 0 / overflow TF hides
def test_prod_gradient_with_zeros_like_tensorflow():
    x = [[1.0, 0.0, 3.0], [0.0, 1.0, 0.0], [2.0, 3.0, 4.0]]
    (g,) = gradients_at(lambda t: tf.reduce_prod(t, axis=1), x)
    np.testing.assert_allclose(g, [[0.0, 3.0, 0.0], [0.0, 0.0, 0.0], [12.0, 8.0, 6.0]])
    (g,) = gradients_at(tf.reduce_prod, [0.0, 2.0, 5.0])
    np.testing.assert_allclose(g, [10.0, 0.0, 0.0])
    # The product of the other elements, even when the product over everything overflows to inf.
    (g,) = gradients_at(tf.reduce_prod, [0.0, 1e200, 1e200, 1e-300])
    assert g[1:].tolist() == [0.0, 0.0, 0.0] and g[0] == np.inf


def test_mean_gradient_values_and_integer_inputs_are_not_differentiated():
    (g,) = gradients_at(lambda t: tf.reduce_mean(t, axis=[0, -1]), np.ones([2, 3, 4]))
    np.testing.assert_allclose(g, np.full([2, 3, 4], 1 / 8))
    n = tf.constant([1, 2, 3])
    with tf.GradientTape() as tape:
        tape.watch(n)
        m = tf.reduce_mean(n)
    assert tape.gradient(m, n) is None


def test_logsumexp_gradient_is_softmax():
    x = np.array([[1.0, 2.0, 3.0], [1000.0, 1000.0, -1000.0]])
    (g,) = gradients_at(lambda t: tf.reduce_logsumexp(t, axis=1), x)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(g, e / e.sum(axis=1, keepdims=True), rtol=1e-12)


@st.composite
def cumsum_case(draw):
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    return shape, axis


@SETTINGS
@given(case=cumsum_case(), exclusive=st.booleans(), reverse=st.booleans(), seed=st.integers(0, 2 ** 31 - 1))
def test_cumsum_gradient_matches_finite_differences(case, exclusive, reverse, seed):
    shape, axis = case
    x = values(seed, shape, -2, 2)
    check_gradients(lambda t: tf.cumsum(t, axis=axis, exclusive=exclusive, reverse=reverse) * t, [x], seed=seed)


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@pytest.mark.parametrize("axis, keepdims", [(None, False), (None, True), ([1], False), ([0, -1], True), (-1, False)])
def test_reduction_gradient_in_graph_with_unknown_shapes(name, axis, keepdims):
    reduce = REDUCTIONS[name]
    x = values(7, [2, 3, 4], 0.5, 1.5, away_from_zero=True)
    out_shape = reduce(tf.constant(x), axis=axis, keepdims=keepdims).shape.as_list()
    weights = random_weights(out_shape, 1)

    def grads(t):
        return tape_gradients(lambda u: reduce(u, axis=axis, keepdims=keepdims), [t], weights)

    (eager,) = grads(tf.constant(x))
    for spec in (tf.TensorSpec([None, 3, None], tf.float64), tf.TensorSpec(None, tf.float64)):
        (graph,) = tf.function(grads, input_signature=[spec])(tf.constant(x))
        assert graph.shape == [2, 3, 4]
        np.testing.assert_allclose(graph.numpy(), eager.numpy(), rtol=1e-12)


def test_cumsum_gradient_in_graph_with_unknown_shape():
    x = values(3, [3, 4], -1, 1)
    weights = random_weights([3, 4], 2)

    def grads(t):
        return tape_gradients(lambda u: tf.cumsum(u, axis=1, exclusive=True, reverse=True), [t], weights)

    (eager,) = grads(tf.constant(x))
    (graph,) = tf.function(grads, input_signature=[tf.TensorSpec(None, tf.float64)])(tf.constant(x))
    np.testing.assert_allclose(graph.numpy(), eager.numpy())
    expected = np.cumsum(weights.numpy(), axis=1)[:, :] - weights.numpy()  # sums of the weights before each
    np.testing.assert_allclose(eager.numpy(), expected, rtol=1e-12, atol=1e-12)


def test_reduction_gradients_keep_float32():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    for name, reduce in REDUCTIONS.items():
        (g,) = tape_gradients(lambda t: reduce(t, axis=0), [x], tf.ones([2]))
        assert g.dtype == tf.float32 and g.shape == [2, 2], name
