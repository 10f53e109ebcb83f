"""Indexing ops: gather, gather_nd, boolean_mask, where, slice, strided_slice and Tensor.__getitem__."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tensorflux as tf
from helpers import check
from tensorflux._src.ops.array import gather, indexing, where

IAE = tf.errors.InvalidArgumentError
S = tf.TensorSpec


X = np.arange(24, dtype=np.int32).reshape(2, 3, 4)


# -- __getitem__ -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("key", [
    0, -1, (1, 2), (1, -1, 0), np.int64(1), slice(None), slice(1, None), slice(None, None, -1),
    (slice(None), 1), (Ellipsis, 1), (None, 0), (0, None, Ellipsis, None), (Ellipsis, None),
    (slice(None, None, 2), slice(2, 0, -1)), (slice(-2, None), slice(None, -1), slice(None, None, -3)),
    (slice(5, 10),), (slice(-10, 10, 2),), (1, slice(None), slice(1, 3)), (Ellipsis,), (),
    (None, Ellipsis, 1, None, slice(1, None)), [1, 2], slice(-5, None, -1), (0, slice(-4, None, -1)),
])
def test_getitem_matches_numpy(key):
    x = tf.constant(X)
    expected = X[tuple(key) if isinstance(key, list) else key]
    check(x[key], expected, tf.int32)


def test_getitem_tensor_indices():
    x = tf.constant(X)
    check(x[tf.constant(1)], X[1])
    check(x[tf.constant(1, tf.int64), 2], X[1, 2])
    check(x[:, tf.constant(1):], X[:, 1:])
    check(x[0, 1:tf.constant(2, tf.int64)], X[0, 1:2])
    check(x[0, ::tf.constant(-1)], X[0, ::-1])
    check(x[tf.constant([True, False])], X[[True, False]])  # a bool tensor is boolean_mask
    check(tf.constant(5)[...], np.int32(5))
    check(tf.constant(5)[None], np.array([5], np.int32))
    s = tf.constant(["a", "b"])[1]
    assert s.dtype is tf.string and s.numpy() == b"b"


@settings(max_examples=50, deadline=None)
@given(st.data())
def test_getitem_random_slices_match_numpy(data):
    dims = data.draw(st.lists(st.integers(0, 4), min_size=1, max_size=3))
    x = np.arange(int(np.prod(dims)), dtype=np.int32).reshape(dims)
    bound = st.one_of(st.none(), st.integers(-6, 6))
    key = []
    for d in dims:  # one entry per input dimension; new axes are inserted separately below
        if d and data.draw(st.booleans()):
            key.append(data.draw(st.integers(-d, d - 1)))
        else:
            step = data.draw(st.one_of(st.none(), st.integers(-3, 3).filter(lambda v: v != 0)))
            key.append(slice(data.draw(bound), data.draw(bound), step))
    for _ in range(data.draw(st.integers(0, 2))):
        key.insert(data.draw(st.integers(0, len(key))), None)
    if data.draw(st.booleans()):
        key = key[:data.draw(st.integers(0, len(key)))]  # fewer entries: an implicit trailing ellipsis
    elif data.draw(st.booleans()):
        key.insert(data.draw(st.integers(0, len(key))), Ellipsis)
        key.pop(data.draw(st.integers(0, len(key) - 1))) if key[-1] is not Ellipsis else None
    key = tuple(key)
    try:
        expected = x[key]
    except IndexError:  # an int landed on a size-0 dimension: TensorFlow rejects it too
        with pytest.raises(IAE, match="out of bounds"):
            tf.constant(x)[key]
    else:
        check(tf.constant(x)[key], expected)


@pytest.mark.parametrize("key, message", [
    (5, "slice index 5 of dimension 0 out of bounds."),
    (-4, "slice index -1 of dimension 0 out of bounds."),
    ((0, 5), "slice index 5 of dimension 1 out of bounds."),
    ((slice(None), 5), "slice index 5 of dimension 1 out of bounds."),
    (slice(None, None, 0), r"strides\[0\] must be non-zero"),
    ((Ellipsis, Ellipsis), "Multiple ellipses in slice spec not allowed"),
    ((0, 1, 2), "Index out of range using input dim 2; input has only 2 dims"),
    ([0, 1, 2], "Index out of range using input dim 2; input has only 2 dims"),
])
def test_getitem_errors(key, message):
    x = tf.constant([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    with pytest.raises(IAE, match=message + r" \[Op:StridedSlice\]"):
        x[key]


def test_getitem_type_errors_like_tensorflow():
    x = tf.constant([1, 2, 3])
    for bad in (tf.constant([0, 1]), np.array([0, 1]), 1.0, "a", tf.constant(1.0)):
        with pytest.raises(TypeError, match=r"Only integers, slices \(`:`\), ellipsis \(`...`\), tf.newaxis "
                                            r"\(`None`\) and scalar tf.int32/tf.int64 tensors are valid indices"):
            x[bad]
    with pytest.raises(IAE, match="Value for attr 'Index' of bool"):
        x[[True, False, True]]
    with pytest.raises(IAE, match="Attempting to slice scalar input."):
        tf.constant(1)[0]


# -- strided_slice --------------------------------------------------------------------------------------

@pytest.mark.parametrize("args, kwargs, expected", [
    (([1], [3]), {}, [2, 3]),
    (([1], [3], [2]), {}, [2]),
    (([-1], [0], [-1]), {}, [4, 3, 2]),
    (([3], [0], [1]), {}, np.zeros(0, np.int32)),
    (([1], [2], [2]), dict(shrink_axis_mask=1), np.int32(2)),
    (([1], [2], [1]), dict(shrink_axis_mask=1, begin_mask=1), np.int32(2)),
    (([1], [2], [1]), dict(shrink_axis_mask=1, new_axis_mask=1), [[1, 2, 3, 4]]),
    (([0], [0]), dict(begin_mask=1, end_mask=1), [1, 2, 3, 4]),
])
def test_strided_slice_1d(args, kwargs, expected):
    check(tf.strided_slice([1, 2, 3, 4], *args, **kwargs), np.asarray(expected, np.int32))


def test_strided_slice_2d_masks():
    x = [[1, 2], [3, 4]]
    check(tf.strided_slice(x, [0, 0], [1, 1], shrink_axis_mask=1), [1])
    check(tf.strided_slice(x, [0, 0], [1, 1], shrink_axis_mask=3), np.int32(1))
    check(tf.strided_slice(x, [0, 0], [1, 1], new_axis_mask=1), [[[1, 2]]])
    check(tf.strided_slice(x, [0, 0], [1, 1], ellipsis_mask=1), [[1], [3]])
    check(tf.strided_slice(x, [0, 0], [1, 1], begin_mask=1, end_mask=2), [[1, 2]])
    check(tf.strided_slice([[5], [6]], [5], [6]), np.zeros((0, 1), np.int32))
    y = [[1, 2, 3, 4]]
    check(tf.strided_slice(y, [0, 1], [0, 2], [1, 1], shrink_axis_mask=1, ellipsis_mask=1), [[2]])


@pytest.mark.parametrize("args, kwargs, message", [
    (([0, 0], [1, 1]), dict(ellipsis_mask=3), "Multiple ellipses in slice spec not allowed"),
    (([0], [1, 1]), {}, r"Expected begin, end, and strides to be 1D equal size tensors, but got shapes \[1\], "
                        r"\[2\], and \[1\] instead."),
    (([0, 0, 0], [1, 1, 1]), {}, "Index out of range using input dim 2; input has only 2 dims"),
    (([5], [6]), dict(shrink_axis_mask=1), "slice index 5 of dimension 0 out of bounds."),
    (([-1], [-3], [-1]), dict(shrink_axis_mask=1), "only stride 1 allowed on non-range indexing."),
    (([0.], [1.]), {}, "Value for attr 'Index' of float is not in the list of allowed values"),
])
def test_strided_slice_errors(args, kwargs, message):
    with pytest.raises(IAE, match=message):
        tf.strided_slice([[1, 2], [3, 4]], *args, **kwargs)


def test_strided_slice_infer():
    op = indexing.STRIDED_SLICE
    c = lambda v: tf.constant(v)  # noqa: E731
    masks = dict(begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=1)
    assert op.infer([S([None, 3]), c([0]), c([1]), c([1])], masks)[0][1].as_list() == [3]
    assert op.infer([S([4, 3]), c([1]), c([-1]), c([1])], dict(masks, shrink_axis_mask=0))[0][1].as_list() == [2, 3]
    unknown_begin = [S([None, 3]), S([2], tf.int32), S([2], tf.int32), c([1, 1])]
    assert op.infer(unknown_begin, dict(masks, shrink_axis_mask=2))[0][1].as_list() == [None]
    assert op.infer([S(None), c([0]), c([1]), c([1])], masks)[0][1].rank is None
    assert op.infer([S([None, 3]), c([0, 0]), c([0, 0]), c([1, 1])],
                    dict(masks, ellipsis_mask=1, new_axis_mask=2, shrink_axis_mask=0))[0][1].as_list() == [None, 3, 1]
    with pytest.raises(ValueError, match="slice index 5 of dimension 0 out of bounds."):
        op.infer([S([2, 2]), c([5]), c([6]), c([1])], masks)


# -- slice ------------------------------------------------------------------------------------------------

def test_slice():
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    check(tf.slice(x, [0, 1], [2, -1]), x[:, 1:])
    check(tf.slice(x, [1, 0], [1, 2]), x[1:2, 0:2])
    check(tf.slice([1, 2, 3], tf.constant([1], tf.int64), [1]), [2])
    with pytest.raises(IAE, match=r"Expected size\[1\] in \[0, 2\], but got 3 \[Op:Slice\]"):
        tf.slice(x, [0, 1], [2, 3])
    with pytest.raises(IAE, match=r"Expected begin and size arguments to be 1-D tensors of size 2, but got shapes "
                                  r"\[1\] and \[1\] instead."):
        tf.slice(x, [0], [2])
    with pytest.raises(IAE, match=r"Expected begin\[1\] in \[0, 3\], but got -1"):
        tf.slice(x, [0, -1], [2, 1])
    c = tf.constant
    assert indexing.SLICE.infer([S([None, 3]), c([0, 1]), c([-1, -1])], {})[0][1].as_list() == [None, 2]
    assert indexing.SLICE.infer([S([None, 3]), S([2], tf.int32), c([1, 2])], {})[0][1].as_list() == [1, 2]
    assert indexing.SLICE.infer([S(None), S([2], tf.int32), S([2], tf.int32)], {})[0][1].as_list() == [None, None]


# -- gather / gather_nd ----------------------------------------------------------------------------------

def test_gather_matches_numpy():
    check(tf.gather([1, 2, 3], [2, 0]), [3, 1])
    check(tf.gather(X, [[1, 0]], axis=1), np.take(X, [[1, 0]], axis=1))
    check(tf.gather(X, 2, axis=-1), np.take(X, 2, axis=-1))
    check(tf.gather([1, 2, 3], tf.constant([1], tf.int64)), [2])
    check(tf.gather(["a", "b"], [1, 1]), np.array([b"b", b"b"], dtype=object), tf.string)


def test_gather_batch_dims():
    params = np.arange(2 * 3 * 4, dtype=np.int32).reshape(2, 3, 4)
    indices = np.array([[2, 0], [1, 1]], np.int32)
    expected = np.stack([np.take(params[b], indices[b], axis=1) for b in range(2)])
    check(tf.gather(params, indices, axis=2, batch_dims=1), expected)
    expected = np.stack([np.take(params[b], indices[b], axis=0) for b in range(2)])
    check(tf.gather(params, indices, axis=1, batch_dims=1), expected)
    check(tf.gather([[1, 2], [3, 4]], [[1], [0]], batch_dims=1), [[2], [3]])
    check(tf.gather([[1, 2], [3, 4]], [[1], [0]], axis=-1, batch_dims=-1), [[2], [3]])


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_gather_batch_dims_random(data):
    batch = data.draw(st.lists(st.integers(1, 3), min_size=0, max_size=2))
    rest = data.draw(st.lists(st.integers(1, 3), min_size=1, max_size=3))
    params = np.arange(int(np.prod(batch + rest)), dtype=np.int32).reshape(batch + rest)
    axis = len(batch) + data.draw(st.integers(0, len(rest) - 1))
    n = params.shape[axis]
    extra = data.draw(st.lists(st.integers(1, 2), max_size=2))
    indices = np.asarray(data.draw(st.lists(st.integers(0, n - 1), min_size=int(np.prod(batch + extra)),
                                            max_size=int(np.prod(batch + extra)))), np.int32).reshape(batch + extra)
    bd = len(batch)
    flat_p = params.reshape((-1,) + params.shape[bd:])
    flat_i = indices.reshape((-1,) + indices.shape[bd:])
    expected = np.stack([np.take(p, i, axis=axis - bd) for p, i in zip(flat_p, flat_i)])
    expected = expected.reshape(tuple(batch) + expected.shape[1:])
    check(tf.gather(params, indices, axis=axis, batch_dims=bd), expected)


def test_gather_errors_and_infer():
    with pytest.raises(IAE, match=r"indices\[0\] = 3 is not in \[0, 3\) \[Op:GatherV2\]"):
        tf.gather([1, 2, 3], [3])
    with pytest.raises(IAE, match=r"indices\[0,1\] = 5 is not in \[0, 2\)"):
        tf.gather([[1, 2], [3, 4]], [[1, 5]])
    with pytest.raises(IAE, match=r"indices\[0\] = -1 is not in \[0, 3\)"):
        tf.gather([1, 2, 3], [-1])
    with pytest.raises(IAE, match="Shape must be at least rank 3 but is rank 2"):
        tf.gather([[1, 2], [3, 4]], [1], axis=2)
    with pytest.raises(IAE, match=r"Expected batch_dims in the range \[-2, 2\], but got 3"):
        tf.gather([[1, 2], [3, 4]], [[1], [0]], axis=1, batch_dims=3)
    with pytest.raises(IAE, match="Value for attr 'Tindices' of float is not in the list of allowed values: int16, "
                                  "int32, int64"):
        tf.gather([[1, 2], [3, 4]], [1.0])
    op = gather.GATHER
    out = op.infer([S([None, 5, 6]), S([2, None], tf.int32)], {"axis": 1, "batch_dims": 0})
    assert out[0] == (tf.float32, tf.TensorShape([None, 2, None, 6]))
    assert op.infer([S(None), S([2], tf.int32)], {"axis": 0, "batch_dims": 0})[0][1].rank is None
    with pytest.raises(ValueError, match="Shape must be at least rank 4 but is rank 2"):
        op.infer([S([2, 2]), S([1], tf.int32)], {"axis": 3, "batch_dims": 0})


def test_gather_nd():
    x = [[1, 2], [3, 4]]
    check(tf.gather_nd(x, [[1, 0], [0, 1]]), [3, 2])
    check(tf.gather_nd(x, [[1], [0]]), [[3, 4], [1, 2]])
    check(tf.gather_nd(x, tf.zeros([0, 1], tf.int32)), np.zeros((0, 2), np.int32))
    check(tf.gather_nd(X, [[[0, 1, 2]], [[1, 2, 3]]]), [[X[0, 1, 2]], [X[1, 2, 3]]])
    check(tf.gather_nd(X, [[1], [0]], batch_dims=1), np.stack([X[0, 1], X[1, 0]]))
    check(tf.gather_nd(X, np.zeros((2, 0), np.int32)), np.stack([X, X]))
    with pytest.raises(IAE, match=r"indices\[0\] = \[2, 0\] does not index into param shape \[2,2\], node name: "
                                  r"GatherNd \[Op:GatherNd\]"):
        tf.gather_nd(x, [[2, 0]])
    with pytest.raises(IAE, match="index innermost dimension length must be <= params rank; saw: 3 vs. 2"):
        tf.gather_nd(x, [[1, 0, 0]])
    op = gather.GATHER_ND
    assert op.infer([S([None, 3, 4]), S([5, 2], tf.int32)], {})[0][1].as_list() == [5, 4]
    assert op.infer([S([None, 3, 4]), S([5, None], tf.int32)], {})[0][1].rank is None
    assert op.infer([S([2, 3, 4]), S([2, 1], tf.int32)], {"batch_dims": 1})[0][1].as_list() == [2, 4]


# -- where / boolean_mask -----------------------------------------------------------------------------------

def test_where_one_argument():
    check(tf.where([True, False, True]), np.argwhere([True, False, True]), tf.int64)
    m = np.array([[True, False], [False, True]])
    check(tf.where(m), np.argwhere(m), tf.int64)
    check(tf.where([1., 0, 2]), [[0], [2]], tf.int64)
    check(tf.where(np.zeros((2, 0), bool)), np.zeros((0, 2), np.int64))
    with pytest.raises(IAE, match="WhereOp : Unhandled input dimensions: 0"):
        tf.where(True)
    with pytest.raises(IAE, match="Value for attr 'T' of string is not in the list of allowed values"):
        tf.where(["a", ""])
    assert where.WHERE.infer([S([None, 3], tf.bool)], {})[0] == (tf.int64, tf.TensorShape([None, 2]))
    assert where.WHERE.infer([S(None, tf.bool)], {})[0][1].as_list() == [None, None]


def test_where_three_arguments_broadcast():
    check(tf.where([True, False], [1, 2], [3, 4]), [1, 4], tf.int32)
    check(tf.where([[True], [False]], [1, 2], [3, 4]), [[1, 2], [3, 4]])
    check(tf.where([True, False], 1., [3., 4]), [1., 4.], tf.float32)
    with pytest.raises(IAE, match=r"condition \[3\], then \[2\], and else \[2\] must be broadcastable "
                                  r"\[Op:SelectV2\]"):
        tf.where([True, False, True], [1, 2], [3, 4])
    with pytest.raises(TypeError, match=r"Cannot convert \[3.0, 4\] to EagerTensor of dtype int32"):
        tf.where([True, False], [1, 2], [3., 4])
    with pytest.raises(TypeError, match=r"Cannot convert \[1, 0\] to EagerTensor of dtype bool"):
        tf.where([1, 0], [1, 2], [3, 4])
    with pytest.raises(ValueError, match="Tensor conversion requested dtype bool for Tensor with dtype int32"):
        tf.where(tf.constant([1, 0]), [1, 2], [3, 4])
    with pytest.raises(ValueError, match="x and y must both be non-None or both be None."):
        tf.where([True], [1])
    with pytest.raises(IAE, match="cannot compute SelectV2 as input #2"):
        tf.where([True, False], tf.constant([1, 2]), tf.constant([1., 2]))
    out = where.SELECT_V2.infer([S([None, 1], tf.bool), S([3]), S([1])], {})
    assert out[0] == (tf.float32, tf.TensorShape([None, 3]))


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_where_select_broadcasting_matches_numpy(data):
    shapes = [data.draw(st.lists(st.sampled_from([1, 3]), max_size=3)) for _ in range(3)]
    cond = np.arange(int(np.prod(shapes[0]))).reshape(shapes[0]) % 2 == 0
    x = np.arange(int(np.prod(shapes[1])), dtype=np.float32).reshape(shapes[1])
    y = -np.arange(int(np.prod(shapes[2])), dtype=np.float32).reshape(shapes[2])
    check(tf.where(cond, x, y), np.where(cond, x, y), tf.float32)


def test_boolean_mask():
    check(tf.boolean_mask([1, 2, 3], [True, False, True]), [1, 3])
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    m2 = np.array([[True, False, True], [False, False, True]])
    check(tf.boolean_mask(x, m2), x[m2])
    m = np.array([True, False, True, True])
    check(tf.boolean_mask(x, m, axis=2), x[:, :, m])
    check(tf.boolean_mask(x, m, axis=-1), x[:, :, m])
    m3 = np.ones((3, 4), bool)
    m3[1, 2] = False
    check(tf.boolean_mask(x, m3, axis=1), x[:, m3])
    check(tf.boolean_mask([[1, 2], [3, 4]], [1, 0]), [[1, 2]])
    with pytest.raises(ValueError, match=r"Shapes \(2,\) and \(3,\) are incompatible"):
        tf.boolean_mask([[1, 2], [3, 4]], [True, False, True])
    with pytest.raises(ValueError, match="mask cannot be scalar."):
        tf.boolean_mask([1], True)


def test_graph_and_eager_agree_and_nodes_have_tensorflow_names():
    def f(x, i):
        return x[i], x[1:, ::-1], x[..., None], tf.gather(x, [1, 0]), tf.boolean_mask(x, x > 2.0)

    x = tf.constant([[1., 2.], [3., 4.]])
    i = tf.constant(1)
    traced = tf.function(f)
    for got, want in zip(traced(x, i), f(x, i)):
        check(got, want.numpy(), want.dtype)
    graph = traced.get_concrete_function(tf.TensorSpec([2, 2], tf.float32), tf.TensorSpec([], tf.int32)).graph
    types = {op.name: op.type for op in graph.get_operations()}
    assert types["strided_slice"] == "StridedSlice" and types["GatherV2"] == "GatherV2"
    assert types["boolean_mask"] == "GatherV2"
    shapes = [o.shape.as_list() for o in traced.get_concrete_function(
        tf.TensorSpec([None, 2], tf.float32), tf.TensorSpec([], tf.int32)).structured_outputs]
    assert shapes == [[2], [None, 2], [None, 2, 1], [2, 2], [None]]
