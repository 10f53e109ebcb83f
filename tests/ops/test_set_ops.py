"""tf.sets against results recorded from TensorFlow 2.21: dense and sparse operands, eagerly and traced."""
import pytest

import tensorflux as tf

A = [[1, 2, 3, 3], [4, 5, 4, 6]]
B = [[3, 1, 7, 7], [6, 9, 9, 9]]


def _parts(st):
    return st.indices.numpy().tolist(), st.values.numpy().tolist(), st.dense_shape.numpy().tolist()


def test_dense_operations():
    a, b = tf.constant(A), tf.constant(B)
    assert _parts(tf.sets.intersection(a, b)) == ([[0, 0], [0, 1], [1, 0]], [1, 3, 6], [2, 2])
    assert _parts(tf.sets.union(a, b)) == (
        [[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [1, 1], [1, 2], [1, 3]], [1, 2, 3, 7, 4, 5, 6, 9], [2, 4])
    assert _parts(tf.sets.difference(a, b)) == ([[0, 0], [1, 0], [1, 1]], [2, 4, 5], [2, 2])
    assert _parts(tf.sets.difference(a, b, aminusb=False))[1:] == ([7, 9], [2, 1])
    assert _parts(tf.sets.intersection(tf.constant([[1, 2], [3, 4]]), tf.constant([[9, 8], [7, 6]]))) == \
        ([], [], [2, 0])
    strings = tf.sets.union(tf.constant([["a", "b"], ["b", "b"]]), tf.constant([["c", "a"], ["a", "a"]]))
    assert _parts(strings)[:2] == ([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1]], [b"a", b"b", b"c", b"a", b"b"])


def test_sparse_operands_and_size():
    s = tf.sparse.SparseTensor([[0, 0], [1, 1]], [7, 3], [2, 3])
    dense = tf.constant([[1, 7], [3, 4]])
    assert _parts(tf.sets.difference(dense, s))[:2] == ([[0, 0], [1, 0]], [1, 4])
    assert _parts(tf.sets.difference(s, dense)) == ([], [], [2, 0])
    assert tf.sets.size(tf.sparse.from_dense(tf.constant(A))).numpy().tolist() == [3, 3]
    assert tf.sets.size(tf.sparse.SparseTensor([[0, 0], [0, 1], [1, 0]], [5, 5, 2], [2, 3])).numpy().tolist() == \
        [1, 1]


def test_traced_union_and_size():
    @tf.function
    def f(a, b):
        r = tf.sets.union(a, b)
        return r.values, r.dense_shape, tf.sets.size(r)
    values, shape, sizes = f(tf.constant([[1, 2, 2], [3, 3, 3]]), tf.constant([[2, 5, 5], [1, 1, 1]]))
    assert values.numpy().tolist() == [1, 2, 5, 1, 3] and shape.numpy().tolist() == [2, 3]
    assert sizes.numpy().tolist() == [3, 2]


def test_errors():
    with pytest.raises(TypeError, match=r"^'a' has invalid dtype `<dtype: 'float32'>` not in supported dtypes"):
        tf.sets.union(tf.constant([1.0]), tf.constant([1.0]))
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.sets.union(tf.constant(1), tf.constant(1))
    assert str(info.value) == (
        "{{function_node __wrapped__DenseToDenseSetOperation_device_/job:localhost/replica:0/task:0/device:CPU:0}}"
        " Shape [] has rank 0 < 2 [Op:DenseToDenseSetOperation] name: ")
    with pytest.raises(TypeError, match="^Expected `SparseTensor`, got "):
        tf.sets.size(tf.constant(A))
