"""Sorting ops: sort, argsort, top_k and unique."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tensorflux as tf
from helpers import check
from tensorflux._src.ops.array import sorting

IAE = tf.errors.InvalidArgumentError
S = tf.TensorSpec


def test_sort_values():
    check(tf.sort([3, 1, 2]), [1, 2, 3], tf.int32)
    x = np.array([[3, 1, 2], [0, 5, 4]], np.int32)
    check(tf.sort(x, axis=0, direction="DESCENDING"), -np.sort(-x, axis=0))
    check(tf.sort(tf.constant([3, 0, 255], tf.uint8), direction="DESCENDING"), np.array([255, 3, 0], np.uint8))
    check(tf.sort(tf.constant([3, 0, 255], tf.uint8)), np.array([0, 3, 255], np.uint8), tf.uint8)
    extreme = np.array([np.iinfo(np.int32).min, 0, np.iinfo(np.int32).max], np.int32)
    check(tf.sort(extreme, direction="DESCENDING"), extreme[::-1])
    check(tf.sort([2.5, -1.0]), np.array([-1.0, 2.5], np.float32), tf.float32)


def test_argsort_is_stable_both_ways():
    check(tf.argsort([3, 1, 2, 1]), [1, 3, 2, 0], tf.int32)
    check(tf.argsort([3, 1, 2, 1], direction="DESCENDING"), [0, 2, 1, 3])
    check(tf.argsort([3, 1, 2, 1], stable=True), [1, 3, 2, 0])
    check(tf.argsort([[3, 1], [2, 1]], axis=0), [[1, 0], [0, 1]])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-3, 3), min_size=1, max_size=12), st.sampled_from(["ASCENDING", "DESCENDING"]))
def test_sort_argsort_match_numpy(values, direction):
    x = np.array(values, np.int32)
    if direction == "ASCENDING":
        order = np.argsort(x, kind="stable")
    else:
        order = np.argsort(-x.astype(np.int64), kind="stable")
    check(tf.argsort(x, direction=direction), order.astype(np.int32))
    check(tf.sort(x, direction=direction), x[order])


def test_sort_errors_and_infer():
    with pytest.raises(ValueError, match="Argument `direction` should be one of ASCENDING, DESCENDING. Received: "
                                         "direction=foo"):
        tf.sort([3, 1, 2], direction="foo")
    with pytest.raises(IAE, match="slice index 1 of dimension 0 out of bounds."):
        tf.sort([3, 1, 2], axis=1)
    with pytest.raises(IAE, match="slice index -1 of dimension 0 out of bounds."):
        tf.argsort(tf.constant(3))
    with pytest.raises(IAE, match="Value for attr 'T' of bool is not in the list of allowed values"):
        tf.sort([True, False])
    assert sorting.SORT.infer([S([None, 3])], {"axis": -1, "descending": False})[0] == (
        tf.float32, tf.TensorShape([None, 3]))
    assert sorting.ARGSORT.infer([S(None)], {"axis": 0, "descending": True})[0] == (tf.int32, tf.TensorShape(None))
    with pytest.raises(ValueError, match="slice index 2 of dimension 0 out of bounds."):
        sorting.SORT.infer([S([2, 2])], {"axis": 2, "descending": False})


def test_top_k():
    r = tf.math.top_k([1, 3, 2], 2)
    assert type(r).__name__ == "TopKV2"
    check(r.values, [3, 2], tf.int32)
    check(r.indices, [1, 2], tf.int32)
    values, indices = tf.nn.top_k([[1, 3, 2], [3, 3, 1]])
    check(values, [[3], [3]])
    check(indices, [[1], [0]])  # ties: the lower index first
    r = tf.math.top_k([1., float("nan"), 3.], 2)
    assert np.isnan(r.values.numpy()[0]) and r.indices.numpy().tolist() == [1, 2]
    check(tf.math.top_k([1, 3, 2], k=tf.constant(2)).values, [3, 2])
    check(tf.math.top_k([1, 3, 2], 0).values, np.zeros(0, np.int32))
    check(tf.math.top_k([1, 3, 2], 2, index_type=tf.int64).indices, np.array([1, 2]), tf.int64)


@pytest.mark.parametrize("values, k, message", [
    ([1, 3, 2], 4, "input must have at least k columns. Had 3, needed 4"),
    ([1, 3, 2], -1, "Need k >= 0, got -1"),
    (3, 1, r"input must be >= 1-D, got shape \[\]"),
    ([True, False], 1, "Value for attr 'T' of bool is not in the list of allowed values"),
])
def test_top_k_errors(values, k, message):
    with pytest.raises(IAE, match=r"(?s)" + message + r".*\[Op:TopKV2\]"):
        tf.math.top_k(values, k)


def test_top_k_infer():
    int32 = np.dtype(np.int32)
    outs = sorting.TOP_K.infer([S([None, 5]), tf.constant(2)], {"sorted": True, "index_type": int32})
    assert outs == [(tf.float32, tf.TensorShape([None, 2])), (tf.int32, tf.TensorShape([None, 2]))]
    outs = sorting.TOP_K.infer([S([4, 5]), S([], tf.int32)], {"sorted": True, "index_type": int32})
    assert outs[1][1].as_list() == [4, None]
    assert sorting.TOP_K.infer([S(None), S([], tf.int32)], {"index_type": int32})[0][1].rank is None


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(-5, 5), min_size=1, max_size=10), st.data())
def test_top_k_matches_stable_reference(values, data):
    k = data.draw(st.integers(0, len(values)))
    x = np.array(values, np.int32)
    order = np.argsort(-x.astype(np.int64), kind="stable")[:k]
    r = tf.math.top_k(x, k)
    check(r.values, x[order])
    check(r.indices, order.astype(np.int32))


def test_unique():
    r = tf.unique([1, 3, 1, 2, 3])
    assert type(r).__name__ == "Unique"
    check(r.y, [1, 3, 2], tf.int32)
    check(r.idx, [0, 1, 0, 2, 1], tf.int32)
    check(tf.unique([1, 3, 1], out_idx=tf.int64).idx, np.array([0, 1, 0]), tf.int64)
    s = tf.unique(["b", "a", "b"])
    check(s.y, np.array([b"b", b"a"], dtype=object), tf.string)
    check(s.idx, [0, 1, 0])
    nan = tf.unique([1., 3., float("nan"), float("nan")])  # each NaN is distinct, as in TensorFlow
    assert nan.y.shape == (4,) and nan.idx.numpy().tolist() == [0, 1, 2, 3]
    check(tf.unique(tf.zeros([0], tf.int32)).y, np.zeros(0, np.int32))
    y, idx, count = tf.unique_with_counts([4, 4, 2, 4])
    check(y, [4, 2])
    check(idx, [0, 0, 1, 0])
    check(count, [3, 1], tf.int32)
    with pytest.raises(IAE, match=r"unique expects a 1D vector. \[Op:Unique\]"):
        tf.unique([[1]])
    with pytest.raises(IAE, match="Value for attr 'out_idx' of float is not in the list of allowed values"):
        tf.unique([1, 2], out_idx=tf.float32)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 5), max_size=12))
def test_unique_matches_reference(values):
    x = np.array(values, np.int32)
    y, idx = tf.unique(x)
    seen = list(dict.fromkeys(values))
    check(y, np.array(seen, np.int32))
    check(idx, np.array([seen.index(v) for v in values], np.int32))


def test_unique_infer():
    outs = sorting.UNIQUE.infer([S([5], tf.int64)], {"out_idx": np.dtype(np.int32)})
    assert outs == [(tf.int64, tf.TensorShape([None])), (tf.int32, tf.TensorShape([5]))]
    outs = sorting.UNIQUE.infer([S(None, tf.int64)], {"out_idx": np.dtype(np.int64)})
    assert outs[1] == (tf.int64, tf.TensorShape([None]))
    with pytest.raises(ValueError, match="Shape must be rank 1 but is rank 2"):
        sorting.UNIQUE.infer([S([2, 2])], {"out_idx": np.dtype(np.int32)})
