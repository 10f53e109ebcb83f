"""Scatter ops: scatter_nd, tensor_scatter_nd_{update,add,sub,max,min}, dynamic_partition, dynamic_stitch.

Values against NumPy references, TensorFlow's errors (eager and while tracing), static inference with
unknown dims, traced == eager, and gradients against central finite differences (float64).
"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tensorflux as tf
from helpers import check, check_gradients, traced
from tensorflux._src.ops.array import scatter

IAE = tf.errors.InvalidArgumentError
S = tf.TensorSpec
SETTINGS = settings(max_examples=25, deadline=None)


# -- NumPy references ----------------------------------------------------------------------------------

def ref_scatter(tensor, indices, updates, combine):
    out = tensor.copy()
    k = indices.shape[-1]
    rows = updates.reshape((-1,) + tensor.shape[k:])
    for row, idx in zip(rows, indices.reshape(-1, k)):  # sequential: repeated indices in order
        out[tuple(idx)] = combine(out[tuple(idx)], row)
    return out


COMBINE = {
    "update": lambda old, new: new,
    "add": lambda old, new: old + new,
    "sub": lambda old, new: old - new,
    "max": np.maximum,
    "min": np.minimum,
}
TENSOR_SCATTER = {
    "update": tf.tensor_scatter_nd_update, "add": tf.tensor_scatter_nd_add, "sub": tf.tensor_scatter_nd_sub,
    "max": tf.tensor_scatter_nd_max, "min": tf.tensor_scatter_nd_min,
}


@st.composite
def scatter_case(draw):
    """(output dims, int32 indices [..., K], float updates) with in-range, possibly repeated, indices."""
    dims = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    k = draw(st.integers(1, len(dims)))
    outer = tuple(draw(st.lists(st.integers(0, 3), min_size=1, max_size=2)))  # updates need rank >= 1
    rng = np.random.default_rng(draw(st.integers(0, 10_000)))
    indices = np.stack([rng.integers(0, d, size=outer) for d in dims[:k]], axis=-1).astype(np.int32)
    updates = rng.integers(-5, 6, size=outer + dims[k:]).astype(np.float32)
    return dims, indices, updates


# -- scatter_nd ----------------------------------------------------------------------------------------

@SETTINGS
@given(scatter_case())
def test_scatter_nd_matches_numpy(case):
    dims, indices, updates = case
    expected = ref_scatter(np.zeros(dims, np.float32), indices, updates, COMBINE["add"])
    check(tf.scatter_nd(indices, updates, list(dims)), expected, tf.float32)
    got = traced(lambda i, u: tf.scatter_nd(i, u, list(dims)), tf.constant(indices), tf.constant(updates))
    check(got, expected, tf.float32)


def test_scatter_nd_dtypes():
    check(tf.scatter_nd([[1], [3], [1]], [1, 2, 3], [5]), np.array([0, 4, 0, 2, 0], np.int32), tf.int32)
    check(tf.scatter_nd([[1], [1]], [True, False], [3]), np.array([False, True, False]), tf.bool)
    strings = tf.scatter_nd([[1], [1]], ["a", "b"], [3])
    assert strings.dtype is tf.string and strings.numpy().tolist() == [b"", b"ab", b""]
    half = tf.scatter_nd([[0], [0]], tf.constant([1.5, 2.0], tf.float16), [2])
    check(half, np.array([3.5, 0], np.float16), tf.float16)
    wide = tf.scatter_nd(tf.constant([[2]], tf.int64), [7.0], tf.constant([3], tf.int64))
    check(wide, np.array([0, 0, 7], np.float32), tf.float32)
    check(tf.scatter_nd(np.zeros((0, 1), np.int32), np.zeros((0, 3), np.float32), [0, 3]),
          np.zeros((0, 3), np.float32))


@pytest.mark.parametrize("indices, updates, shape, phrase", [
    ([[1], [7]], [1.0, 2.0], [5], "indices[1] = [7] does not index into shape [5]"),
    ([[-1], [3]], [1.0, 2.0], [5], "indices[0] = [-1] does not index into shape [5]"),
    ([[[1, 5]]], [[5.0]], [2, 3], "indices[0,0] = [1, 5] does not index into shape [2,3]"),
    ([[1], [3]], [1.0, 2.0, 3.0], [5], "Dimensions [0,1) of indices[shape=[2,1]] must match dimensions [0,1) of "
                                       "updates[shape=[3]]"),
    ([[1]], [[1.0, 2.0]], [2, 3], "Dimensions [1,2) of input[shape=[2,3]] must match dimensions [1,2) of "
                                  "updates[shape=[1,2]]"),
    ([[1, 1, 1]], [1.0], [2, 3], "Dimensions [3,2) of input[shape=[2,3]]"),
    (1, [1.0], [5], "Indices shape must have rank at least one. Found:[]"),
    ([[1], [0]], 5.0, [2], "Updates shape must have rank at least one. Found:[]"),
    ([[1]], [1.0], [-5], "Dimension -5 must be >= 0"),
    ([[1]], [5.0], [[2]], "Shape must be a vector"),
    ([[0]], [5.0], [0], "Indices and updates specified for empty output.  indices shape: [1,1]"),
    ([[1]], np.zeros((1, 0), np.float32), [2, 0], "Indices and updates specified for empty output shape"),
])
def test_scatter_nd_errors(indices, updates, shape, phrase):
    with pytest.raises(IAE) as info:
        tf.scatter_nd(indices, updates, shape)
    assert phrase in str(info.value)
    assert "[Op:ScatterNd]" in str(info.value)


def test_scatter_nd_dtype_errors():
    with pytest.raises(IAE, match="Value for attr 'Tindices' of float is not in the list"):
        tf.scatter_nd([[1.0]], [1.0], [5])
    with pytest.raises(IAE, match="input #2.*int32 tensor but is a int64 tensor"):
        tf.scatter_nd(tf.constant([[1]]), [1.0], tf.constant([5], tf.int64))


def test_scatter_nd_static_inference_and_trace_errors():
    infer = scatter.SCATTER_ND.infer
    shape = tf.constant([5, 3])
    assert infer([S([None, 1], tf.int32), S([None, 3]), shape], {})[0][1].as_list() == [5, 3]
    unknown = infer([S([None, 1], tf.int32), S(None), S([2], tf.int32)], {})[0][1]
    assert unknown.as_list() == [None, None]
    assert infer([S(None, tf.int32), S(None), S([None], tf.int32)], {})[0][1].rank is None
    with pytest.raises(ValueError, match=r"Dimensions \[0,1\) of indices\[shape=\[2,1\]\] = \[2\] must match"):
        infer([S([2, 1], tf.int32), S([3, 3]), shape], {})
    with pytest.raises(ValueError, match=r"Dimensions \[1,2\) of input\[shape=\[5,3\]\] = \[3\] must match"):
        infer([S([2, 1], tf.int32), S([2, 4]), shape], {})
    with pytest.raises(ValueError, match="Shape must be at least rank 1 but is rank 0"):
        infer([S([], tf.int32), S([2]), shape], {})
    with pytest.raises(ValueError, match="Shape must be rank 1 but is rank 2"):
        infer([S([1, 1], tf.int32), S([1]), S([1, 1], tf.int32)], {})
    fn = tf.function(lambda i, u: tf.scatter_nd(i, u, [5, 3]))
    with pytest.raises(ValueError, match="must match dimensions"):
        fn.get_concrete_function(S([2, 1], tf.int32), S([3, 3]))


def test_scatter_nd_runtime_error_in_graph():
    fn = tf.function(lambda i, u: tf.scatter_nd(i, u, [4]), input_signature=[S([None, 1], tf.int32), S([None])])
    with pytest.raises(IAE, match=r"indices\[0\] = \[9\] does not index into shape \[4\]"):
        fn(tf.constant([[9]]), tf.constant([1.0]))


def test_scatter_nd_still_serves_gather_nd_gradient():
    params = tf.constant(np.arange(6.0).reshape(2, 3))
    with tf.GradientTape() as tape:
        tape.watch(params)
        y = tf.gather_nd(params, [[0, 1], [0, 1], [1, 2]])
    np.testing.assert_array_equal(tape.gradient(y, params).numpy(), [[0, 2, 0], [0, 0, 1]])


def test_scatter_nd_gradient():
    indices = tf.constant([[1, 0], [0, 2], [1, 0]])
    check_gradients(lambda u: tf.scatter_nd(indices, u, [2, 3]), [np.array([1.0, -2.0, 3.0])])
    rows = tf.constant([[2], [0]])
    check_gradients(lambda u: tf.scatter_nd(rows, u, [3, 2]), [np.arange(4.0).reshape(2, 2)])


# -- tensor_scatter_nd_* ------------------------------------------------------------------------------

@SETTINGS
@given(scatter_case(), st.sampled_from(sorted(COMBINE)))
def test_tensor_scatter_matches_numpy(case, mode):
    dims, indices, updates = case
    tensor = np.random.default_rng(1).integers(-5, 6, size=dims).astype(np.float32)
    expected = ref_scatter(tensor, indices, updates, COMBINE[mode])
    fn = TENSOR_SCATTER[mode]
    check(fn(tensor, indices, updates), expected, tf.float32)
    check(traced(fn, tf.constant(tensor), tf.constant(indices), tf.constant(updates)), expected, tf.float32)


def test_tensor_scatter_values_and_dtypes():
    check(tf.tensor_scatter_nd_update([1, 2, 3, 4], [[1], [3]], [9, 10]), np.array([1, 9, 3, 10], np.int32))
    check(tf.tensor_scatter_nd_update([1, 2, 3, 4], [[1], [1]], [9, 10]), np.array([1, 10, 3, 4], np.int32))
    check(tf.tensor_scatter_nd_update([1.0, 2, 3, 4], [[1]], [9]), np.array([1, 9, 3, 4], np.float32), tf.float32)
    check(tf.tensor_scatter_nd_add([1.0, 2, 3, 4], [[1], [1]], [9.0, 10]), np.array([1, 21, 3, 4], np.float32))
    check(tf.tensor_scatter_nd_sub([1.0, 2, 3, 4], [[1], [1]], [9.0, 10]), np.array([1, -17, 3, 4], np.float32))
    check(tf.tensor_scatter_nd_max([1.0, 2, 3, 4], [[1], [1]], [9.0, -10]), np.array([1, 9, 3, 4], np.float32))
    check(tf.tensor_scatter_nd_min([1.0, 2, 3, 4], [[1], [1]], [9.0, -10]), np.array([1, -10, 3, 4], np.float32))
    check(tf.tensor_scatter_nd_max(tf.constant([1, 2], tf.uint8), [[1]], tf.constant([5], tf.uint8)),
          np.array([1, 5], np.uint8), tf.uint8)
    check(tf.tensor_scatter_nd_update([True, False], [[1]], [True]), np.array([True, True]))
    strings = tf.tensor_scatter_nd_update(["a", "b"], [[1]], ["c"])
    assert strings.numpy().tolist() == [b"a", b"c"]
    check(tf.tensor_scatter_nd_update(tf.zeros([2, 3]), [[1]], [[1.0, 2, 3]]), [[0, 0, 0], [1, 2, 3]])
    check(tf.tensor_scatter_nd_add([1, 2], np.zeros((0, 1), np.int32), np.zeros((0,), np.int32)),
          np.array([1, 2], np.int32))


@pytest.mark.parametrize("mode", sorted(COMBINE))
def test_tensor_scatter_out_of_bounds(mode):
    op = TENSOR_SCATTER[mode]
    with pytest.raises(IAE, match=r"indices\[1\] = \[7\] does not index into shape \[4\]") as info:
        op([1, 2, 3, 4], [[1], [7]], [9, 10])
    assert "[Op:TensorScatter" in str(info.value)


@pytest.mark.parametrize("tensor, indices, updates, phrase", [
    ([1.0, 2, 3, 4], [[1]], [9.0, 3.0], "Outer dimensions of indices and update must match. Indices shape: [1,1], "
                                         "updates shape:[2]"),
    (np.zeros((2, 3), np.float32), [[1]], [[1.0, 2]], "The inner 1 dimensions of output.shape=[2,3] must match the "
                                                      "inner 1 dimensions of updates.shape=[1,2]"),
    (np.zeros((2, 3), np.float32), [[1, 1, 1]], [1.0], "Inner dimensions of output shape must match inner dimensions "
                                                       "of updates shape. Output: [2,3] updates: [1]"),
    ([1.0, 2], [[1], [0]], 5.0, "Updates shape must have rank at least one. Found:[]"),
    ([1.0, 2], np.zeros((1, 0), np.int32), [[5.0, 6]], "Indices and updates specified for empty output shape"),
])
def test_tensor_scatter_shape_errors(tensor, indices, updates, phrase):
    with pytest.raises(IAE) as info:
        tf.tensor_scatter_nd_update(tensor, indices, updates)
    assert phrase in str(info.value)


def test_tensor_scatter_dtype_errors():
    with pytest.raises(IAE, match="input #2.*float tensor but is a double tensor"):
        tf.tensor_scatter_nd_update(tf.zeros([2]), [[1]], tf.constant([1.0], tf.float64))
    with pytest.raises(IAE, match="Value for attr 'Tindices' of float"):
        tf.tensor_scatter_nd_update(tf.zeros([2]), [[1.0]], [1.0])
    with pytest.raises(tf.errors.NotFoundError, match=r"TensorScatterAdd\[T=DT_BOOL"):
        tf.tensor_scatter_nd_add([True, False], [[1]], [True])
    with pytest.raises(tf.errors.NotFoundError, match=r"TensorScatterMax\[T=DT_COMPLEX128"):
        tf.tensor_scatter_nd_max(tf.constant([1j, 2]), [[1]], tf.constant([1j]))


def test_tensor_scatter_inference():
    infer = scatter.TENSOR_SCATTER_UPDATE.infer
    assert infer([S([None, 3]), S([None, 1], tf.int32), S([None, 3])], {})[0][1].as_list() == [None, 3]
    assert infer([S(None), S([None, 1], tf.int32), S(None)], {})[0][1].rank is None
    assert infer([S([4, 3]), S([2, 1], tf.int32), S([])], {})[0][1].as_list() == [4, 3]  # checked at run time
    with pytest.raises(TypeError, match="Input 'updates' of 'TensorScatterUpdate' Op has type float64 that does "
                                        "not match type float32 of argument 'tensor'"):
        infer([S([4, 3]), S([2, 1], tf.int32), S([2, 3], tf.float64)], {})
    with pytest.raises(ValueError, match=r"Dimensions \[1,2\) of input\[shape=\[4,3\]\] = \[3\] must match"):
        infer([S([4, 3]), S([2, 1], tf.int32), S([2, 4])], {})
    with pytest.raises(ValueError, match=r"Dimensions \[0,1\) of indices"):
        scatter.TENSOR_SCATTER_MAX.infer([S([4, 3]), S([2, 1], tf.int32), S([3, 3])], {})
    with pytest.raises(ValueError, match="at least rank 1"):
        infer([S([4, 3]), S([], tf.int32), S([3])], {})


@pytest.mark.parametrize("mode", sorted(COMBINE))
def test_tensor_scatter_gradients(mode):
    op = TENSOR_SCATTER[mode]
    indices = tf.constant([[2], [0]])  # distinct rows, distinct values: no ties
    tensor = np.array([[0.5, -1.0], [2.0, 3.0], [-2.5, 0.25]])
    updates = np.array([[1.5, -3.0], [0.1, 7.0]])
    check_gradients(lambda t, u: op(t, indices, u), [tensor, updates])


def test_tensor_scatter_add_gradient_with_repeated_indices():
    indices = tf.constant([[1, 0], [1, 0], [0, 1]])
    check_gradients(lambda t, u: tf.tensor_scatter_nd_add(t, indices, u),
                    [np.arange(6.0).reshape(2, 3), np.array([1.0, 2.0, 3.0])])
    check_gradients(lambda t, u: tf.tensor_scatter_nd_sub(t, indices, u),
                    [np.arange(6.0).reshape(2, 3), np.array([1.0, 2.0, 3.0])])


def _tape(fn, *values):
    xs = [tf.constant(v) for v in values]
    with tf.GradientTape() as tape:
        tape.watch(xs)
        y = fn(*xs)
    return [g.numpy() for g in tape.gradient(y, xs)]


def test_tensor_scatter_gradient_conventions_match_tensorflow():
    w = tf.constant([1.0, 2, 3, 4])
    # Ties share the gradient equally (values from TensorFlow).
    gx, gu = _tape(lambda a, u: tf.reduce_sum(tf.tensor_scatter_nd_max(a, [[1], [1], [2]], u) * w),
                   [1.0, 2, 3, 4], [2.0, 2, 3])
    np.testing.assert_allclose(gx, [1, 2 / 3, 1.5, 4], rtol=1e-6)
    np.testing.assert_allclose(gu, [2 / 3, 2 / 3, 1.5], rtol=1e-6)
    gx, gu = _tape(lambda a, u: tf.reduce_sum(tf.tensor_scatter_nd_max(a, [[1], [1], [1], [2]], u) * w),
                   [1.0, 2, 3, 4], [2.0, 5, 2, 0])
    np.testing.assert_allclose(gx, [1, 0, 3, 4])
    np.testing.assert_allclose(gu, [0, 2, 0, 0])
    # An update overwritten by a later one still gets the gradient of its position, as in TensorFlow.
    gx, gu = _tape(lambda a, u: tf.reduce_sum(tf.tensor_scatter_nd_update(a, [[1], [1]], u) * w),
                   [1.0, 2, 3, 4], [2.0, 5])
    np.testing.assert_allclose(gx, [1, 0, 3, 4])
    np.testing.assert_allclose(gu, [2, 2])


# -- dynamic_partition ----------------------------------------------------------------------------------

@SETTINGS
@given(st.integers(0, 10_000), st.lists(st.integers(0, 3), min_size=1, max_size=2), st.integers(0, 2),
       st.integers(1, 4))
def test_dynamic_partition_matches_numpy(seed, part_dims, extra, n):
    rng = np.random.default_rng(seed)
    partitions = rng.integers(0, n, size=part_dims).astype(np.int32)
    data = rng.standard_normal(tuple(part_dims) + (2,) * extra).astype(np.float32)
    got = tf.dynamic_partition(data, partitions, n)
    assert len(got) == n
    for i, t in enumerate(got):
        check(t, data[partitions == i], tf.float32)
    for a, b in zip(traced(lambda d, p: tf.dynamic_partition(d, p, n), tf.constant(data), tf.constant(partitions)),
                    got):
        check(a, b.numpy())


def test_dynamic_partition_values_and_errors():
    parts = tf.dynamic_partition([10, 20, 30, 40, 50], [0, 0, 1, 1, 0], 2)
    check(parts[0], np.array([10, 20, 50], np.int32))
    check(parts[1], np.array([30, 40], np.int32))
    empty = tf.dynamic_partition([[1, 2], [3, 4]], [1, 1], 3)
    check(empty[0], np.zeros((0, 2), np.int32))
    words = tf.dynamic_partition(["a", "b"], [1, 0], 2)
    assert words[0].numpy().tolist() == [b"b"]
    check(tf.dynamic_partition([1, 2, 3], [0, 1, 0], tf.constant(2))[0], np.array([1, 3], np.int32))
    with pytest.raises(IAE, match=r"partitions\[1\] = 2 is not in \[0, 2\)"):
        tf.dynamic_partition([1, 2, 3], [0, 2, 1], 2)
    with pytest.raises(IAE, match=r"partitions\[1\] = -1 is not in \[0, 2\)"):
        tf.dynamic_partition([1, 2, 3], [0, -1, 1], 2)
    with pytest.raises(IAE, match=r"data.shape must start with partitions.shape, got data.shape = \[3\], "
                                  r"partitions.shape = \[2\]"):
        tf.dynamic_partition([1, 2, 3], [0, 1], 2)
    with pytest.raises(IAE, match="Value for attr 'num_partitions' of 0 must be at least minimum 1"):
        tf.dynamic_partition([1, 2, 3], [0, 1, 0], 0)
    with pytest.raises(ValueError, match="Tensor conversion requested dtype int32 for Tensor with dtype int64"):
        tf.dynamic_partition([1, 2, 3], tf.constant([0, 1, 0], tf.int64), 2)


def test_dynamic_partition_inference():
    infer = scatter.DYNAMIC_PARTITION.infer
    out = infer([S([None, 3]), S([None], tf.int32)], {"num_partitions": 2})
    assert len(out) == 2 and all(s.as_list() == [None, 3] for _, s in out)
    assert infer([S(None), S([None], tf.int32)], {"num_partitions": 3})[2][1].rank is None
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 2"):
        infer([S([3, 3]), S([2], tf.int32)], {"num_partitions": 2})


def test_dynamic_partition_gradient():
    partitions = tf.constant([[1, 0, 2], [1, 1, 0]])
    check_gradients(lambda d: tf.concat([tf.reshape(p, [-1]) * (i + 1.0) for i, p in
                                         enumerate(tf.dynamic_partition(d, partitions, 3))], 0),
                    [np.arange(12.0).reshape(2, 3, 2)])
    g = _tape(lambda a: tf.reduce_sum(tf.dynamic_partition(a, [1, 0, 1, 1], 3)[1] * [1.0, 2, 3]),
              [1.0, 2, 3, 4])[0]
    np.testing.assert_array_equal(g, [1, 0, 2, 3])


# -- dynamic_stitch -------------------------------------------------------------------------------------

def ref_stitch(indices, data):
    inner = np.asarray(data[0]).shape[np.asarray(indices[0]).ndim:]
    flat = np.concatenate([np.reshape(i, -1) for i in indices])
    out = np.zeros((flat.max() + 1,) + inner, np.asarray(data[0]).dtype)
    for idx, d in zip(indices, data):
        idx = np.asarray(idx)
        for pos, row in zip(idx.reshape(-1), np.asarray(d).reshape((idx.size,) + inner)):
            out[pos] = row
    return out


@SETTINGS
@given(st.integers(0, 10_000), st.integers(1, 3), st.integers(0, 2))
def test_dynamic_stitch_matches_numpy(seed, pieces, extra):
    rng = np.random.default_rng(seed)
    indices = [rng.integers(0, 6, size=rng.integers(1, 4)).astype(np.int32) for _ in range(pieces)]
    data = [rng.standard_normal((len(i),) + (2,) * extra).astype(np.float32) for i in indices]
    expected = ref_stitch(indices, data)
    check(tf.dynamic_stitch(indices, data), expected, tf.float32)
    fn = tf.function(lambda *xs: tf.dynamic_stitch(list(xs[:pieces]), list(xs[pieces:])))
    check(fn(*[tf.constant(a) for a in indices + data]), expected, tf.float32)


def test_dynamic_stitch_values_and_errors():
    got = tf.dynamic_stitch([[6], [4, 1], [[5, 2], [0, 3]]], [[61.0], [41, 11], [[51, 21], [1, 31]]])
    check(got, np.array([1, 11, 21, 31, 41, 51, 61], np.float32))
    check(tf.dynamic_stitch([[0, 1], [1, 2]], [[1, 2], [3, 4]]), np.array([1, 3, 4], np.int32))
    check(tf.dynamic_stitch([[0, 3]], [[1, 2]]), np.array([1, 0, 0, 2], np.int32))
    check(tf.dynamic_stitch([1, 0], [5, 6]), np.array([6, 5], np.int32))
    check(tf.dynamic_stitch([np.zeros(0, np.int32)], [np.zeros((0, 3), np.float32)]), np.zeros((0, 3), np.float32))
    assert tf.dynamic_stitch([[1]], [["x"]]).numpy().tolist() == [b"", b"x"]
    with pytest.raises(IAE, match=r"indices\[1\] is out of range"):
        tf.dynamic_stitch([[0, -1]], [[1, 2]])
    with pytest.raises(IAE, match=r"Need data\[0\].shape\[1:\] = data\[1\].shape\[1:\], got data\[0\].shape = "
                                  r"\[2,2\], data\[1\].shape = \[1,3\]"):
        tf.dynamic_stitch([[0, 1], [2]], [[[1, 2], [3, 4]], [[5, 6, 7]]])
    with pytest.raises(IAE, match=r"data\[1\].shape = \[2\] does not start with indices\[1\].shape = \[1\]"):
        tf.dynamic_stitch([[0, 1], [2]], [[1, 2], [3, 4]])
    with pytest.raises(ValueError, match="List argument 'data' to 'dynamic_stitch' Op with length 1 must match "
                                         "length 2 of argument 'indices'"):
        tf.dynamic_stitch([[0, 1], [2]], [[1, 2]])
    with pytest.raises(TypeError):
        tf.dynamic_stitch([[0, 1], [2]], [[1, 2], [3.5]])
    with pytest.raises(ValueError, match="requested dtype int32"):
        tf.dynamic_stitch([tf.constant([0], tf.int64)], [[1]])


def test_dynamic_stitch_inference():
    infer = scatter.DYNAMIC_STITCH.infer
    i0, i1 = tf.constant([0, 1]), tf.constant([2])
    assert infer([i0, i1, S([2, 3]), S([1, 3])], {})[0][1].as_list() == [3, 3]
    assert infer([S([None], tf.int32), S([2], tf.int32), S([None, 3]), S([2, None])], {})[0][1].as_list() == [None, 3]
    assert infer([S(None, tf.int32), S(None)], {})[0][1].rank is None
    with pytest.raises(ValueError, match="incompatible"):
        infer([i0, i1, S([2, 3]), S([1, 4])], {})
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 2"):
        infer([i0, i1, S([3, 3]), S([1, 3])], {})


def test_dynamic_stitch_gradient():
    i0, i1 = tf.constant([3, 0]), tf.constant([[1], [2]])
    check_gradients(lambda a, b: tf.dynamic_stitch([i0, i1], [a, b]),
                    [np.array([[1.0, 2], [3, 4]]), np.array([[[5.0, 6]], [[7, 8]]])])
    # Overwritten items still get the gradient of their position (TensorFlow's rule).
    g = _tape(lambda a: tf.reduce_sum(tf.dynamic_stitch([[0, 1], [1, 2]], [a[0], a[1]]) * [1.0, 2, 3]),
              [[1.0, 2], [3, 4]])[0]
    np.testing.assert_array_equal(g, [[1, 2], [2, 3]])
