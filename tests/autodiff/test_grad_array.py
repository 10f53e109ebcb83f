"""Gradients of array, indexing, creation, sorting and variable ops: tape gradients against central finite
differences (float64), the same gradient traced in a tf.function against the eager one, and TensorFlow's
conventions (None for integer/shape inputs and for ops like zeros_like/one_hot, ties, dense gathers).
"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tensorflux as tf
from helpers import numeric_grad
from tensorflux._src.ops.array import creation, gather, indexing, join, padding, reorder, sorting, where
from tensorflux._src.ops.shapes import creators, shape_ops, shaping
from tensorflux._src.ops.nn import activations, conv, depthwise, losses, normalization, pooling, basic as nn
from tensorflux._src.ops import conversion_ops, registry, state

SETTINGS = settings(max_examples=20, deadline=None)


# -- helpers ---------------------------------------------------------------------------------------


def _tape_gradients(fn, xs, weights):
    with tf.GradientTape() as tape:
        tape.watch(xs)
        loss = tf.reduce_sum(fn(*xs) * weights)
    return [None if g is None else tf.convert_to_tensor(g) for g in tape.gradient(loss, list(xs))]  # slices: dense


def check_gradients(fn, arrays, seed=0, rtol=1e-6, atol=1e-7):
    """d sum(fn(*xs)·w)/dxs (w random) vs finite differences; then traced in a tf.function vs eager."""
    arrays = [np.asarray(a, dtype=np.float64) for a in arrays]
    out = fn(*[tf.constant(a) for a in arrays])
    weights = tf.constant(np.random.default_rng(seed).uniform(-1.5, 1.5, size=out.shape.as_list()))
    eager = _tape_gradients(fn, [tf.constant(a) for a in arrays], weights)
    for k, a in enumerate(arrays):
        def scalar(value, k=k):
            args = [tf.constant(value if j == k else b) for j, b in enumerate(arrays)]
            return float(np.sum(fn(*args).numpy() * weights.numpy()))
        assert eager[k] is not None, f"no gradient for input {k}"
        assert eager[k].dtype == tf.float64 and eager[k].shape == a.shape
        np.testing.assert_allclose(eager[k].numpy(), numeric_grad(scalar, a), rtol=rtol, atol=atol)
    graph = tf.function(lambda *xs: _tape_gradients(fn, xs, weights))(*[tf.constant(a) for a in arrays])
    for e, g in zip(eager, graph):
        np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-12, atol=1e-12)
    return eager


def grads_of(fn, *values):
    """Tape gradients of sum(fn(*xs)) w.r.t. float64 constants holding `values` (None stays None)."""
    xs = [tf.constant(np.asarray(v, dtype=np.float64)) for v in values]
    with tf.GradientTape() as tape:
        tape.watch(xs)
        y = fn(*xs)
    return [None if g is None else tf.convert_to_tensor(g).numpy() for g in tape.gradient(y, xs)]


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


shapes = st.lists(st.integers(1, 3), min_size=1, max_size=3)


# -- shape ops -------------------------------------------------------------------------------------

def test_identity_reshape_expand_squeeze():
    x = rand(2, 3)
    check_gradients(tf.identity, [x])
    check_gradients(lambda t: tf.reshape(t, [3, -1]), [x])
    check_gradients(lambda t: tf.expand_dims(t, -1), [x])
    check_gradients(lambda t: tf.squeeze(t, [1]), [rand(2, 1, 3)])
    check_gradients(tf.squeeze, [rand(1, 3, 1)])


@SETTINGS
@given(shape=shapes, seed=st.integers(0, 1000))
def test_transpose_any_permutation(shape, seed):
    perm = list(np.random.default_rng(seed).permutation(len(shape)))
    check_gradients(lambda t: tf.transpose(t, perm), [rand(*shape, seed=seed)])


def test_transpose_default_reverses_and_conjugate_transpose():
    check_gradients(tf.transpose, [rand(2, 3, 4)])
    x = tf.constant([[1 + 2j, 3 - 1j]], tf.complex128)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.transpose(x, conjugate=True)
    g = tape.gradient(y, x, output_gradients=tf.constant([[1 + 1j], [2 - 1j]], tf.complex128))
    np.testing.assert_allclose(g.numpy(), [[1 - 1j, 2 + 1j]])


# -- joining and splitting -------------------------------------------------------------------------

@SETTINGS
@given(shape=shapes, n=st.integers(1, 3), seed=st.integers(0, 1000), data=st.data())
def test_concat_stack_along_any_axis(shape, n, seed, data):
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    arrays = []
    for i in range(n):
        s = list(shape)
        s[axis] = data.draw(st.integers(1, 3))
        arrays.append(rand(*s, seed=seed + i))
    check_gradients(lambda *ts: tf.concat(list(ts), axis), arrays)
    stack_axis = data.draw(st.integers(-len(shape) - 1, len(shape)))
    check_gradients(lambda *ts: tf.stack(list(ts), stack_axis), [rand(*shape, seed=seed + i) for i in range(n)])


def test_unstack_and_split_use_every_piece_and_zero_unused_ones():
    x = rand(3, 4)
    check_gradients(lambda t: tf.stack(tf.unstack(t, axis=1)[::-1]), [x])
    check_gradients(lambda t: tf.concat(tf.split(t, 2, axis=1)[::-1], 0), [x])
    check_gradients(lambda t: tf.concat(tf.split(t, [1, -1, 2], axis=1)[::-1], 1), [x])
    (g,) = grads_of(lambda t: tf.unstack(t)[1] * 2.0, x)
    np.testing.assert_array_equal(g, np.array([[0.0] * 4, [2.0] * 4, [0.0] * 4]))
    (g,) = grads_of(lambda t: tf.split(t, [1, 3], axis=1)[1], x)
    np.testing.assert_array_equal(g, np.tile([0.0, 1, 1, 1], (3, 1)))


def test_concat_gradient_with_unknown_sizes_in_a_graph():
    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float64), tf.TensorSpec([None, 2], tf.float64)])
    def grads(a, b):
        with tf.GradientTape() as tape:
            tape.watch([a, b])
            y = tf.concat([a, b], 0) * tf.constant([[1.0, 2.0]], tf.float64)
        return tape.gradient(y, [a, b])

    ga, gb = grads(tf.constant(rand(1, 2)), tf.constant(rand(3, 2)))
    np.testing.assert_array_equal(ga.numpy(), [[1.0, 2.0]])
    np.testing.assert_array_equal(gb.numpy(), [[1.0, 2.0]] * 3)


# -- tile, pad, broadcast_to, reverse --------------------------------------------------------------

@SETTINGS
@given(shape=shapes, seed=st.integers(0, 1000), data=st.data())
def test_tile(shape, seed, data):
    multiples = data.draw(st.lists(st.integers(1, 3), min_size=len(shape), max_size=len(shape)))
    check_gradients(lambda t: tf.tile(t, multiples), [rand(*shape, seed=seed)])


@SETTINGS
@given(shape=st.lists(st.integers(2, 4), min_size=1, max_size=3), seed=st.integers(0, 1000),
       mode=st.sampled_from(["CONSTANT", "REFLECT", "SYMMETRIC"]), data=st.data())
def test_pad_all_modes(shape, seed, mode, data):
    limit = {"CONSTANT": 3, "REFLECT": min(shape) - 1, "SYMMETRIC": min(shape)}[mode]
    paddings = [[data.draw(st.integers(0, limit)), data.draw(st.integers(0, limit))] for _ in shape]
    check_gradients(lambda t: tf.pad(t, paddings, mode=mode), [rand(*shape, seed=seed)])


def test_pad_v2_value_gets_no_gradient_like_tensorflow():
    g_x, g_v = grads_of(lambda t, v: tf.pad(t, [[1, 1]], constant_values=v), [1.0, 2.0], 3.0)
    np.testing.assert_array_equal(g_x, [1.0, 1.0])
    assert g_v is None


def test_pad_with_paddings_known_only_at_run_time():
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float64), tf.TensorSpec([1, 2], tf.int32)])
    def grad(x, paddings):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.pad(x, paddings)
            loss = tf.reduce_sum(y * tf.cast(tf.range(tf.shape(y)[0]), tf.float64))
        return tape.gradient(loss, x)

    np.testing.assert_array_equal(grad(tf.constant([5.0, 6.0], tf.float64), tf.constant([[2, 1]])).numpy(), [2.0, 3.0])


def test_mirror_pad_grad_op_and_its_own_gradient():
    g = tf.constant(np.arange(6.0))
    folded = registry.apply(padding.MIRROR_PAD_GRAD, (g, tf.constant([[2, 1]])), {"mode": "REFLECT"})
    # padded = [x2, x1, x0, x1, x2, x1]
    np.testing.assert_array_equal(folded.numpy(), [2.0, 1 + 3 + 5, 0 + 4])
    check_gradients(lambda t: registry.apply(padding.MIRROR_PAD_GRAD, (t, tf.constant([[1, 2]])),
                                             {"mode": "SYMMETRIC"}), [rand(7)])
    spec = tf.TensorSpec([None, 5], tf.float32)
    assert padding.MIRROR_PAD_GRAD.infer([spec, tf.constant([[1, 1], [1, 2]])], {"mode": "REFLECT"}) == [
        (tf.float32, tf.TensorShape([None, 2]))]
    assert padding.MIRROR_PAD_GRAD.infer([tf.TensorSpec(None, tf.float32), tf.constant([[1, 1]])],
                                       {"mode": "REFLECT"})[0][1].rank is None


@SETTINGS
@given(shape=shapes, extra=st.lists(st.integers(1, 3), max_size=2), seed=st.integers(0, 1000), data=st.data())
def test_broadcast_to(shape, extra, seed, data):
    source = [d if data.draw(st.booleans()) else 1 for d in shape]
    check_gradients(lambda t: tf.broadcast_to(t, extra + shape), [rand(*source, seed=seed)])


def test_broadcast_to_with_unknown_shape_in_a_graph():
    @tf.function(input_signature=[tf.TensorSpec([None, 1], tf.float64), tf.TensorSpec([3], tf.int32)])
    def grad(x, target):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.broadcast_to(x, target)
        return tape.gradient(y, x)

    got = grad(tf.constant([[1.0], [2.0]], tf.float64), tf.constant([4, 2, 3]))
    np.testing.assert_array_equal(got.numpy(), [[12.0]] * 2)


def test_reverse():
    check_gradients(lambda t: tf.reverse(t, [0, -1]), [rand(2, 3, 2)])


# -- slicing and indexing --------------------------------------------------------------------------

def test_slice():
    check_gradients(lambda t: tf.slice(t, [1, 0], [2, -1]), [rand(4, 3)])


def test_slice_with_run_time_begin():
    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float64), tf.TensorSpec([2], tf.int32)])
    def grad(x, begin):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.slice(x, begin, [1, 2])
        return tape.gradient(y, x)

    np.testing.assert_array_equal(grad(tf.constant(rand(3, 3)), tf.constant([1, 1])).numpy(),
                                  [[0, 0, 0], [0, 1, 1], [0, 0, 0]])


@pytest.mark.parametrize("index", [
    lambda t: t[1:],
    lambda t: t[::-2],
    lambda t: t[1, :, 2],
    lambda t: t[..., 1],
    lambda t: t[None, 1:, tf.newaxis, ::2],
    lambda t: t[-1, ..., ::-1],
    lambda t: t[:, 5:],
])
def test_strided_slice_every_mask(index):
    check_gradients(index, [rand(3, 4, 3)])


def test_strided_slice_explicit_masks_and_scatter_into_zeros():
    fn = lambda t: tf.strided_slice(t, [1, 0], [0, 3], [1, 2], begin_mask=2, end_mask=1, shrink_axis_mask=0)
    check_gradients(fn, [rand(3, 4)])
    (g,) = grads_of(lambda t: t[1, 1:3], np.ones((2, 4)))
    np.testing.assert_array_equal(g, [[0, 0, 0, 0], [0, 1, 1, 0]])


def test_strided_slice_grad_op_infer_and_its_gradient():
    infer = indexing.STRIDED_SLICE_GRAD.infer
    specs = [tf.constant([4, 3]), tf.constant([0]), tf.constant([1]), tf.constant([1]), tf.TensorSpec([3], tf.float32)]
    assert infer(specs, {"shrink_axis_mask": 1}) == [(tf.float32, tf.TensorShape([4, 3]))]
    specs[0] = tf.TensorSpec([2], tf.int32)
    assert infer(specs, {})[0][1].as_list() == [None, None]

    def second(t):
        return registry.apply(indexing.STRIDED_SLICE_GRAD, (tf.constant([5]), tf.constant([1]), tf.constant([5]),
                                                            tf.constant([2]), t), {})
    check_gradients(second, [rand(2)])


@SETTINGS
@given(p_shape=st.lists(st.integers(1, 3), min_size=1, max_size=3), seed=st.integers(0, 1000), data=st.data())
def test_gather_dense_gradient_with_repeats(p_shape, seed, data):
    axis = data.draw(st.integers(-len(p_shape), len(p_shape) - 1))
    i_shape = data.draw(st.lists(st.integers(0, 3), max_size=2))
    rng = np.random.default_rng(seed)
    indices = rng.integers(0, p_shape[axis], size=i_shape)
    check_gradients(lambda t: tf.gather(t, indices, axis=axis), [rand(*p_shape, seed=seed)])


def test_gather_with_batch_dims_and_int64_int16_indices():
    indices = np.array([[0, 2, 2], [1, 1, 0]])
    check_gradients(lambda t: tf.gather(t, indices, batch_dims=1), [rand(2, 3)])
    check_gradients(lambda t: tf.gather(t, indices, axis=2, batch_dims=1), [rand(2, 2, 3, 2)])
    check_gradients(lambda t: tf.gather(t, tf.constant(indices, tf.int64), axis=1, batch_dims=1), [rand(2, 4)])
    check_gradients(lambda t: tf.gather(t, tf.constant([1, 1], tf.int16)), [rand(3)])
    (g,) = grads_of(lambda t: tf.gather(t, [0, 0, 2]), [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(g, [2.0, 0.0, 1.0])  # an IndexedSlices densified: repeats summed


def test_gather_nd_with_and_without_batch_dims():
    check_gradients(lambda t: tf.gather_nd(t, [[0, 1], [2, 0], [0, 1]]), [rand(3, 2, 2)])
    check_gradients(lambda t: tf.gather_nd(t, [[[1], [1]], [[0], [2]]]), [rand(3, 2)])
    check_gradients(lambda t: tf.gather_nd(t, [[[1], [1]], [[0], [2]]], batch_dims=1), [rand(2, 3, 2)])


def test_gather_gradient_with_unknown_shapes_in_a_graph():
    @tf.function(input_signature=[tf.TensorSpec([None, None], tf.float64), tf.TensorSpec([None], tf.int32)])
    def grads(params, indices):
        with tf.GradientTape() as tape:
            tape.watch(params)
            y = [tf.gather(params, indices, axis=1), tf.gather_nd(params, tf.expand_dims(indices, 1))]
        return tape.gradient(y, params)

    got = grads(tf.constant(np.zeros((2, 3))), tf.constant([1, 1])).numpy()
    # gather: column 1 twice per row; gather_nd: row 1 twice
    np.testing.assert_array_equal(got, [[0, 2, 0], [2, 2 + 2, 2]])


def test_boolean_mask():
    check_gradients(lambda t: tf.boolean_mask(t, [True, False, True]), [rand(3, 2)])
    check_gradients(lambda t: tf.boolean_mask(t, [[True, False], [False, True]], axis=1), [rand(2, 2, 2)])


@SETTINGS
@given(shape=shapes, seed=st.integers(0, 1000), data=st.data())
def test_where_select_broadcasts_and_condition_gets_none(shape, seed, data):
    def sub():
        return [d if data.draw(st.booleans()) else 1 for d in shape]
    cond = np.random.default_rng(seed).random(sub()) > 0.5
    check_gradients(lambda a, b: tf.where(cond, a, b), [rand(*sub(), seed=seed), rand(*sub(), seed=seed + 1)])
    c = tf.constant(cond)
    with tf.GradientTape() as tape:
        tape.watch(c)
        y = tf.where(c, tf.constant(1.0), tf.constant(2.0))
    assert tape.gradient(y, c) is None


def test_unsorted_segment_sum_and_scatter_nd():
    data, ids = rand(4, 2), tf.constant([2, -1, 0, 2])
    out = gather.unsorted_segment_sum(tf.constant(data), ids, 3)
    np.testing.assert_allclose(out.numpy(), [data[2], [0, 0], data[0] + data[3]])
    check_gradients(lambda t: gather.unsorted_segment_sum(t, ids, 3), [data])
    idx = tf.constant([[1], [1], [0]])
    out = gather.scatter_nd(idx, tf.constant([1.0, 2.0, 3.0]), [3])
    np.testing.assert_array_equal(out.numpy(), [3.0, 3.0, 0.0])
    check_gradients(lambda t: gather.scatter_nd(idx, t, [3, 2]), [rand(3, 2)])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"segment_ids\[0\] = 5 is out of range \[0, 3\)"):
        gather.unsorted_segment_sum(tf.constant(data), tf.constant([5, 0, 0, 0]), 3)
    with pytest.raises(tf.errors.InvalidArgumentError, match="does not index into shape"):
        gather.scatter_nd(tf.constant([[3]]), tf.constant([1.0]), [3])
    spec = tf.TensorSpec
    assert gather.UNSORTED_SEGMENT_SUM.infer([spec([None, 2], tf.float32), spec([None], tf.int32), tf.constant(3)],
                                               {}) == [(tf.float32, tf.TensorShape([3, 2]))]
    assert gather.UNSORTED_SEGMENT_SUM.infer([spec(None, tf.float32), spec([2], tf.int32), tf.constant(3)],
                                               {})[0][1].rank is None
    assert gather.SCATTER_ND.infer([spec([None, 1], tf.int32), spec([None], tf.float32), spec([2], tf.int32)],
                                     {})[0][1].as_list() == [None, None]


# -- creation ops ----------------------------------------------------------------------------------

def test_fill_sums_and_creators_give_none():
    g_v, = grads_of(lambda v: tf.fill([2, 3], v), 2.0)
    assert g_v == 6.0
    for fn in (tf.zeros_like, tf.ones_like, lambda v: tf.one_hot([0, 2], 3, on_value=v, off_value=v * 0.0)
               + tf.zeros_like(v)):
        with tf.GradientTape() as tape:
            v = tf.constant(1.5, tf.float64)
            tape.watch(v)
            y = fn(v)
        assert tape.gradient(y, v) is None
    with tf.GradientTape() as tape:
        start = tf.constant(1.0)
        tape.watch(start)
        y = tf.range(start, 5.0)
    assert tape.gradient(y, start) is None


def test_linspace():
    check_gradients(lambda a, b: tf.linspace(a, b, 5), [rand(2), rand(2, seed=1)])
    check_gradients(lambda a, b: tf.linspace(a, b, 4, axis=-1), [rand(3, 1), rand(2)])
    check_gradients(lambda a, b: tf.linspace(a, b, 1), [1.0, 2.0])


# -- sorting ---------------------------------------------------------------------------------------

@SETTINGS
@given(shape=shapes, seed=st.integers(0, 1000), descending=st.booleans(), data=st.data())
def test_sort_routes_gradient_back(shape, seed, descending, data):
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    direction = "DESCENDING" if descending else "ASCENDING"
    check_gradients(lambda t: tf.sort(t, axis=axis, direction=direction), [rand(*shape, seed=seed)])


def test_sort_and_top_k_ties_follow_tensorflow():
    weights = tf.constant([1.0, 2.0, 3.0, 4.0], tf.float64)
    (g,) = grads_of(lambda t: tf.sort(t) * weights, [1.0, 3.0, 3.0, 2.0])
    np.testing.assert_array_equal(g, [1.0, 3.0, 4.0, 2.0])
    (g,) = grads_of(lambda t: tf.sort(t, direction="DESCENDING") * weights, [1.0, 3.0, 3.0, 2.0])
    np.testing.assert_array_equal(g, [4.0, 1.0, 2.0, 3.0])
    (g,) = grads_of(lambda t: tf.math.top_k(t, 2).values, [1.0, 3.0, 3.0, 2.0])
    np.testing.assert_array_equal(g, [0.0, 1.0, 1.0, 0.0])


def test_top_k_values():
    check_gradients(lambda t: tf.math.top_k(t, 2).values, [rand(3, 4)])
    check_gradients(lambda t: tf.math.top_k(t, 3).values, [rand(2, 2, 3)])


def test_top_k_with_unknown_shape_in_a_graph():
    @tf.function(input_signature=[tf.TensorSpec([None, None], tf.float64)])
    def grad(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.math.top_k(x, 1).values
        return tape.gradient(y, x)

    np.testing.assert_array_equal(grad(tf.constant([[1.0, 5.0, 2.0], [7.0, 0.0, 1.0]], tf.float64)).numpy(),
                                  [[0, 1, 0], [1, 0, 0]])


def test_unique_has_no_gradient_like_tensorflow():
    x = tf.constant([1.0, 2.0, 1.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y, _ = tf.unique(x)
    with pytest.raises(LookupError, match="no entry for: Unique"):
        tape.gradient(y, x)


# -- variables -------------------------------------------------------------------------------------

def test_variable_gradient():
    v = tf.Variable([1.0, -2.0, 3.0])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(v * v)
    np.testing.assert_allclose(tape.gradient(y, v).numpy(), [2.0, -4.0, 6.0])


def test_variable_read_twice_sums_both_reads():
    v = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        a = v.read_value()
        b = tf.identity(v)
        y = tf.reduce_sum(a * 3.0 + b * b)
    np.testing.assert_allclose(tape.gradient(y, v).numpy(), [5.0, 7.0])


def test_non_trainable_and_unwatched_variables_get_none():
    frozen = tf.Variable([1.0], trainable=False)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(frozen * 2.0)
    assert tape.gradient(y, frozen) is None
    v = tf.Variable([1.0, 2.0])
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        y = tf.reduce_sum(v * v)
    assert tape.gradient(y, v) is None
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(v)
        y = tf.nn.l2_loss(v)
    np.testing.assert_allclose(tape.gradient(y, v).numpy(), [1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(frozen)
        y = tf.reduce_sum(frozen * 2.0)
    np.testing.assert_allclose(tape.gradient(y, frozen).numpy(), [2.0])


def test_variable_gradient_inside_a_tf_function_and_assign_has_none():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])

    @tf.function
    def step():
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(tf.nn.relu(v) * tf.transpose(v))
        g = tape.gradient(y, v)
        v.assign_sub(0.0 * g)
        return g

    np.testing.assert_allclose(step().numpy(), [[2.0, 6.0], [4.0, 8.0]])  # 2·transpose(v)
    with tf.GradientTape() as tape:
        v.assign([[0.0, 0.0], [0.0, 0.0]])
        y = tf.reduce_sum(v * 1.0)
    np.testing.assert_allclose(tape.gradient(y, v).numpy(), np.ones((2, 2)))


def test_stop_gradient_blocks():
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * tf.stop_gradient(x)
    assert tape.gradient(y, x).numpy() == 2.0


def test_every_float_op_in_these_modules_has_a_gradient():
    no_gradient = {"Unique", "UniqueWithCounts", "AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp",
                   "Shape", "ShapeN", "Size", "Rank", "Where", "ArgSort", "VarIsInitializedOp",
                   "ResourceApplyGradientDescent"}
    for module in (shaping, reorder, join, padding, shape_ops, gather, indexing, where, creators, creation, sorting,
                   activations, losses, normalization, nn, conv, depthwise, pooling, state, conversion_ops):
        for value in vars(module).values():
            if isinstance(value, registry.OpDef) and value.name not in no_gradient:
                assert value.grad is not None, value.name


def test_dynamic_shape_gradients_in_a_graph_equal_eager():
    spec = tf.TensorSpec

    def grads(p, i, m):
        with tf.GradientTape() as tape:
            tape.watch(p)
            y = [tf.gather(p, i, axis=1, batch_dims=1), tf.gather_nd(p, tf.expand_dims(i, -1), batch_dims=1),
                 tf.tile(p[0], m), tf.sort(p, axis=1), tf.linspace(p[0, 0], p[1, 1], 3)]
        return tape.gradient(y, p)

    traced = tf.function(grads, input_signature=[spec([None, None, None], tf.float64), spec([None, None], tf.int64),
                                                 spec([2], tf.int32)])
    args = (tf.constant(rand(2, 3, 2)), tf.constant([[0, 2], [1, 1]], tf.int64), tf.constant([2, 3]))
    np.testing.assert_allclose(traced(*args).numpy(), grads(*args).numpy(), rtol=1e-12)
