"""tf.SparseTensor and tf.sparse: values, reprs, errors and gradients recorded from TensorFlow 2.21."""
import numpy as np
import pytest

import tensorflux as tf


def _st():
    return tf.SparseTensor(indices=[[0, 0], [1, 2]], values=[1., -2.], dense_shape=[3, 4])


def _parts(sp):
    return sp.indices.numpy().tolist(), sp.values.numpy().tolist(), sp.dense_shape.numpy().tolist()


def test_repr_shape_dtype_and_spec():
    sp = tf.sparse.SparseTensor(indices=[[0, 0], [1, 2]], values=[1, 2], dense_shape=[3, 4])
    assert repr(sp) == (
        "SparseTensor(indices=tf.Tensor(\n[[0 0]\n [1 2]], shape=(2, 2), dtype=int64), values=tf.Tensor([1 2], "
        "shape=(2,), dtype=int32), dense_shape=tf.Tensor([3 4], shape=(2,), dtype=int64))")
    assert sp.shape == tf.TensorShape([3, 4]) and sp.dtype is tf.int32 and sp.get_shape() == [3, 4]
    assert repr(tf.SparseTensorSpec([3, 4], tf.int32)) == "SparseTensorSpec(TensorShape([3, 4]), tf.int32)"
    assert sp._type_spec == tf.SparseTensorSpec([3, 4], tf.int32)
    assert str(tf.SparseTensorSpec([3, 4], tf.int32).value_type) == \
        "<class 'tensorflow.python.framework.sparse_tensor.SparseTensor'>"
    assert tf.sparse.SparseTensor is tf.SparseTensor


@pytest.mark.parametrize("make, cls, message", [
    (lambda: tf.SparseTensor([[0, 0]], [1, 2], [3, 4]), ValueError, "Dimensions 1 and 2 are not compatible"),
    (lambda: tf.SparseTensor([0, 0], [1], [3, 4]), ValueError, "Shape (2,) must have rank 2"),
    (lambda: tf.SparseTensor([[0.5, 0]], [1], [3, 4]), TypeError, "Cannot convert [[0.5, 0]] to EagerTensor of "
                                                                  "dtype int64"),
])
def test_constructor_errors(make, cls, message):
    with pytest.raises(cls) as info:
        make()
    assert str(info.value) == message


def test_to_dense_and_its_errors():
    dense = tf.sparse.to_dense(tf.SparseTensor([[0, 0], [1, 2]], [1, 2], [3, 4]))
    np.testing.assert_array_equal(dense.numpy(), [[1, 0, 0, 0], [0, 0, 2, 0], [0, 0, 0, 0]])
    assert dense.dtype is tf.int32
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[0\] = \[5,0\] is out of bounds: need "
                                                              r"0 <= index < \[3,4\]"):
        tf.sparse.to_dense(tf.SparseTensor([[5, 0]], [1], [3, 4]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[1\] = \[0,0\] is out of order. Many sparse "
                                                              r"ops require sorted indices."):
        tf.sparse.to_dense(tf.SparseTensor([[1, 0], [0, 0]], [1, 2], [3, 4]))


def test_from_dense_reorder_reshape_transpose_expand_dims():
    assert _parts(tf.sparse.from_dense([[1, 0], [0, 2.]])) == ([[0, 0], [1, 1]], [1.0, 2.0], [2, 2])
    assert _parts(tf.sparse.reorder(tf.SparseTensor([[1, 0], [0, 1]], [1, 2], [2, 2]))) == \
        ([[0, 1], [1, 0]], [2, 1], [2, 2])
    assert _parts(tf.sparse.reshape(_st(), [2, 6])) == ([[0, 0], [1, 0]], [1.0, -2.0], [2, 6])
    assert _parts(tf.sparse.transpose(_st())) == ([[0, 0], [2, 1]], [1.0, -2.0], [4, 3])
    assert _parts(tf.sparse.expand_dims(_st(), 0)) == ([[0, 0, 0], [0, 1, 2]], [1.0, -2.0], [1, 3, 4])
    assert _parts(tf.sparse.reset_shape(_st(), [4, 5])) == ([[0, 0], [1, 2]], [1.0, -2.0], [4, 5])
    assert _parts(tf.sparse.eye(3)) == ([[0, 0], [1, 1], [2, 2]], [1.0, 1.0, 1.0], [3, 3])


def test_fill_empty_rows_indicator_retain():
    filled, empty = tf.sparse.fill_empty_rows(_st(), 9.)
    assert _parts(filled) == ([[0, 0], [1, 2], [2, 0]], [1.0, -2.0, 9.0], [3, 4])
    assert empty.numpy().tolist() == [False, False, True]
    indicator = tf.sparse.to_indicator(tf.SparseTensor([[0, 0], [0, 1], [1, 0]], [0, 3, 2], [2, 2]), 4)
    assert indicator.numpy().tolist() == [[True, False, False, True], [False, False, True, False]]
    assert _parts(tf.sparse.retain(_st(), [False, True])) == ([[1, 2]], [-2.0], [3, 4])


def test_add_maximum_minimum():
    other = tf.SparseTensor([[0, 0], [2, 2]], [5., -1.], [3, 4])
    assert _parts(tf.sparse.add(_st(), _st())) == ([[0, 0], [1, 2]], [2.0, -4.0], [3, 4])
    assert _parts(tf.sparse.add(_st(), tf.SparseTensor([[0, 0]], [-1.], [3, 4]), threshold=0.5)) == \
        ([[1, 2]], [-2.0], [3, 4])
    dense = tf.sparse.add(_st(), tf.ones([3, 4]))
    assert dense.numpy().tolist() == [[2, 1, 1, 1], [1, 1, -1, 1], [1, 1, 1, 1]]
    assert _parts(tf.sparse.maximum(_st(), other)) == ([[0, 0], [1, 2], [2, 2]], [5.0, 0.0, 0.0], [3, 4])
    assert _parts(tf.sparse.minimum(_st(), other)) == ([[0, 0], [1, 2], [2, 2]], [1.0, -2.0, -1.0], [3, 4])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"cannot compute SparseAdd as input #4\(zero-based\) "
                                                              r"was expected to be a int32 tensor but is a float"):
        tf.sparse.add(tf.SparseTensor([[0, 0]], [1], [3, 4]), tf.SparseTensor([[0, 0]], [1.], [3, 4]))


def test_matmul_and_sparse_times_dense():
    out = tf.sparse.sparse_dense_matmul(_st(), tf.ones([4, 2]))
    assert out.numpy().tolist() == [[1, 1], [-2, -2], [0, 0]]
    out = tf.sparse.sparse_dense_matmul(tf.ones([2, 3]), _st())
    assert out.numpy().tolist() == [[1, 0, -2, 0], [1, 0, -2, 0]]
    assert _parts(_st() * tf.ones([3, 4])) == ([[0, 0], [1, 2]], [1.0, -2.0], [3, 4])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Cannot multiply A and B because inner dimension does "
                                                             "not match: 3 vs. 2"):
        tf.sparse.sparse_dense_matmul(_st(), tf.ones([2, 4]), adjoint_a=True)


def test_reductions_and_softmax():
    st = tf.SparseTensor(indices=[[0, 0], [1, 2], [1, 3]], values=[1., -2., 4], dense_shape=[3, 4])
    assert tf.sparse.reduce_sum(st).numpy() == 3.0
    assert tf.sparse.reduce_sum(st, -1, keepdims=True).numpy().tolist() == [[1.0], [2.0], [0.0]]
    assert _parts(tf.sparse.reduce_sum(st, 1, keepdims=True, output_is_sparse=True)) == \
        ([[0, 0], [1, 0]], [1.0, 2.0], [3, 1])
    assert _parts(tf.sparse.reduce_max(st, 1, output_is_sparse=True)) == ([[0], [1]], [1.0, 4.0], [3])
    assert tf.sparse.reduce_max(_st(), 1).numpy().tolist() == [1.0, -2.0, 0.0]
    assert tf.sparse.reduce_max(tf.SparseTensor([[0, 0]], [-3.], [2, 2]), 1).numpy().tolist() == [-3.0, 0.0]
    soft = tf.sparse.softmax(tf.SparseTensor([[0, 0, 0], [0, 0, 2], [1, 0, 1], [1, 1, 1]], [1., 2., 3., 4],
                                             [2, 2, 3]))
    np.testing.assert_allclose(soft.values.numpy(), [0.26894143, 0.7310586, 1., 1.], rtol=1e-6)


def test_concat_slice_split():
    st = tf.SparseTensor(indices=[[0, 0], [1, 2], [1, 3]], values=[1., -2., 4], dense_shape=[3, 4])
    assert _parts(tf.sparse.concat(1, [_st(), _st()])) == \
        ([[0, 0], [0, 4], [1, 2], [1, 6]], [1.0, 1.0, -2.0, -2.0], [3, 8])
    assert _parts(tf.sparse.concat(0, [st, tf.SparseTensor([[0, 5]], [3.], [1, 6])], expand_nonconcat_dims=True)) \
        == ([[0, 0], [1, 2], [1, 3], [3, 5]], [1.0, -2.0, 4.0, 3.0], [4, 6])
    assert _parts(tf.sparse.slice(_st(), [0, 1], [2, 3])) == ([[1, 1]], [-2.0], [2, 3])
    assert _parts(tf.sparse.slice(st, [1, 3], [5, 5])) == ([[0, 0]], [4.0], [2, 1])
    pieces = tf.sparse.split(sp_input=tf.SparseTensor([[0, 0], [0, 4], [1, 2]], [1, 2, 3], [2, 5]), num_split=3,
                             axis=1)
    assert [_parts(p) for p in pieces] == [([[0, 0]], [1], [2, 2]), ([[1, 0]], [3], [2, 2]), ([[0, 0]], [2], [2, 1])]


def test_segments_bincount_cross_map_values_sampled_addmm():
    data = tf.constant([[1., 2], [3, 4], [5, 6]])
    assert tf.sparse.segment_sum(data, [0, 2], [0, 0]).numpy().tolist() == [[6.0, 8.0]]
    assert tf.sparse.segment_mean(data, [0, 1, 2], [0, 0, 2]).numpy().tolist() == [[2, 3], [0, 0], [5, 6]]
    np.testing.assert_array_equal(tf.sparse.segment_sqrt_n(data, [0, 1, 2], [0, 0, 2], num_segments=4).numpy(),
                                  np.array([[2.828427, 4.2426405], [0, 0], [5, 6], [0, 0]], np.float32))
    assert _parts(tf.sparse.bincount(tf.SparseTensor([[0, 0], [0, 1], [1, 0]], [0, 3, 2], [2, 2]))) == \
        ([[0], [2], [3]], [1, 1, 1], [4])
    assert _parts(tf.sparse.bincount([[1, 2, 2], [0, 0, 3]], axis=-1)) == \
        ([[0, 1], [0, 2], [1, 0], [1, 3]], [1, 2, 2, 1], [2, 4])
    weighted = tf.sparse.bincount(tf.constant([[1, 2, 2], [0, 0, 3]]), weights=tf.constant([[1., 2, 3], [4, 5, 6]]),
                                  axis=-1, minlength=5)
    assert _parts(weighted) == ([[0, 1], [0, 2], [1, 0], [1, 3]], [1.0, 5.0, 9.0, 6.0], [2, 5])
    assert _parts(tf.sparse.bincount(tf.constant([1, 2, 2, 7]), binary_output=True, maxlength=5)) == \
        ([[1], [2]], [1, 1], [5])
    crossed = tf.sparse.cross([tf.SparseTensor([[0, 0], [0, 1], [1, 0]], ['a', 'b', 'c'], [2, 2]),
                               tf.constant([[1, 2], [3, 4]], tf.int64)])
    assert _parts(crossed) == ([[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [1, 1]],
                               [b'a_X_1', b'a_X_2', b'b_X_1', b'b_X_2', b'c_X_3', b'c_X_4'], [2, 4])
    crossed = tf.sparse.cross([tf.SparseTensor([[0, 0], [1, 0]], ['a', 'b'], [2, 1]), tf.constant([['c'], ['d']])],
                              separator="#")
    assert crossed.values.numpy().tolist() == [b'a#c', b'b#d']
    assert _parts(tf.sparse.map_values(tf.math.abs, _st())) == ([[0, 0], [1, 2]], [1.0, 2.0], [3, 4])
    indices, values, shape = tf.sparse.sampled_addmm(indices=[[0, 0], [1, 1]], values=[0.5, 0.5], dense_shape=[2, 2],
                                                     mat1=[[1., 2], [3, 4]], mat2=[[1., 0], [0, 1]])
    assert values.numpy().tolist() == [1.5, 4.5] and shape.numpy().tolist() == [2, 2]


def test_gradients_match_tensorflow():
    indices = [[0, 0], [1, 2], [1, 3]]
    x = tf.constant([1., -2., 4])
    b = tf.constant([[1., 2], [3, 4], [5, 6], [7, 8]])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, b])
        s = tf.SparseTensor(indices, x, [3, 4])
        y1 = tf.reduce_sum(tf.sparse.sparse_dense_matmul(s, b) * [[1., 2], [3, 4], [5, 6]])
        other = tf.sparse.reorder(tf.SparseTensor([[1, 2], [0, 1]], [5., 6], [3, 4]))
        y2 = tf.reduce_sum(tf.sparse.add(s, other).values * [1., 2, 3, 4])
        y3 = tf.reduce_sum(tf.sparse.reduce_sum(s, 1) * [1., 2, 3])
        y4 = tf.reduce_sum(tf.sparse.slice(s, [1, 3], [5, 5]).values * 7.)
        y6 = tf.reduce_sum(tf.sparse.add(s, tf.ones([3, 4]) * 3) * tf.reshape(tf.range(12.), [3, 4]))
        y7 = tf.reduce_sum(tf.sparse.to_dense(tf.sparse.transpose(s)) * tf.reshape(tf.range(12.), [4, 3]))
        y8 = tf.reduce_sum((s * tf.constant([[1.], [2.], [3.]])).values * [1., 2, 3])
    gx, gb = tape.gradient(y1, [x, b])
    assert gx.numpy().tolist() == [5, 39, 53]
    assert gb.numpy().tolist() == [[1, 2], [0, 0], [-6, -8], [12, 16]]
    assert tape.gradient(y2, x).numpy().tolist() == [1, 3, 4]
    assert tape.gradient(y3, x).numpy().tolist() == [1, 2, 2]
    assert tape.gradient(y4, x).numpy().tolist() == [0, 0, 7]
    assert tape.gradient(y6, x).numpy().tolist() == [0, 6, 7]
    assert tape.gradient(y7, x).numpy().tolist() == [0, 7, 10]
    assert tape.gradient(y8, x).numpy().tolist() == [1, 4, 6]


def test_crosses_tf_function_as_its_components():
    traced = []

    @tf.function
    def f(s):
        traced.append(repr(s))
        return tf.sparse.reduce_sum(s), s

    total, back = f(tf.SparseTensor([[0, 0], [1, 2]], [1, 2], [3, 4]))
    assert total.numpy() == 3 and isinstance(back, tf.SparseTensor)
    assert _parts(back) == ([[0, 0], [1, 2]], [1, 2], [3, 4])
    assert traced == ['SparseTensor(indices=Tensor("s:0", shape=(None, 2), dtype=int64), values=Tensor("s_1:0", '
                      'shape=(None,), dtype=int32), dense_shape=Tensor("s_2:0", shape=(2,), dtype=int64))']
    f(tf.SparseTensor([[0, 1]], [5], [3, 4]))          # same spec: no retrace
    assert len(traced) == 1
    concrete = f.get_concrete_function(tf.SparseTensor([[0, 0], [1, 2]], [1, 2], [3, 4]))
    assert concrete.structured_input_signature == ((tf.SparseTensorSpec([3, 4], tf.int32),), {})

    @tf.function
    def outer(s):
        return f(s)[1]                                   # a composite returned by a nested call

    assert _parts(outer(tf.SparseTensor([[2, 3]], [7], [3, 4]))) == ([[2, 3]], [7], [3, 4])

    @tf.function(input_signature=[tf.SparseTensorSpec([None, 4], tf.float32)])
    def dense_of(s):
        return tf.sparse.to_dense(s)

    assert dense_of(_st()).numpy().tolist() == [[1, 0, 0, 0], [0, 0, -2, 0], [0, 0, 0, 0]]


def test_datasets_of_sparse_tensors():
    sp = tf.SparseTensor(indices=[[0, 0], [1, 2]], values=[1, 2], dense_shape=[3, 4])
    whole = tf.data.Dataset.from_tensors(sp)
    assert repr(whole.element_spec) == "SparseTensorSpec(TensorShape([3, 4]), tf.int32)"
    assert [_parts(x) for x in whole] == [([[0, 0], [1, 2]], [1, 2], [3, 4])]
    rows = tf.data.Dataset.from_tensor_slices(sp)
    assert repr(rows.element_spec) == "SparseTensorSpec(TensorShape([4]), tf.int32)"
    assert [_parts(x) for x in rows] == [([[0]], [1], [4]), ([[2]], [2], [4]), ([], [], [4])]


def test_nest_expands_composites_on_request():
    sp = tf.SparseTensor([[0, 0], [1, 2]], [1., 2.], [3, 4])
    rt = tf.ragged.constant([[1, 2], [3]])
    assert tf.nest.flatten(sp) == [sp]
    flat = tf.nest.flatten({"a": sp, "b": [rt, 5]}, expand_composites=True)
    assert [f if isinstance(f, int) else f.numpy().tolist() for f in flat] == \
        [[[0, 0], [1, 2]], [1.0, 2.0], [3, 4], [1, 2, 3], [0, 2, 3], 5]
    doubled = tf.nest.map_structure(lambda t: t * 2 if t.dtype != tf.int64 else t, {"a": sp, "b": rt},
                                    expand_composites=True)   # values doubled, indices and row splits kept
    assert _parts(doubled["a"]) == ([[0, 0], [1, 2]], [2.0, 4.0], [3, 4])
    assert doubled["b"].to_list() == [[2, 4], [6]]
    specs = tf.nest.flatten(tf.SparseTensorSpec([3, 4], tf.float32), expand_composites=True)
    assert specs == [tf.TensorSpec([None, 2], tf.int64), tf.TensorSpec([None], tf.float32), tf.TensorSpec([2], tf.int64)]
    packed = tf.nest.pack_sequence_as(sp, [sp.indices, sp.values * 10, sp.dense_shape], expand_composites=True)
    assert _parts(packed) == ([[0, 0], [1, 2]], [10.0, 20.0], [3, 4])
