"""Sparse and ragged ops inside tf.function give what they give eagerly (SparseTensor/RaggedTensor arguments
cross the boundary as their components), and their gradients equal TensorFlow 2.21's (recorded)."""
import numpy as np
import pytest

import tensorflux as tf

ST = tf.SparseTensor(indices=[[0, 0], [1, 2], [1, 3]], values=[1., -2., 4], dense_shape=[3, 4])
RT = tf.ragged.constant([[1., 2., 3.], [], [4., 5.]])

SPARSE_OPS = {
    "to_dense": lambda s: tf.sparse.to_dense(s),
    "reorder": lambda s: tf.sparse.to_dense(tf.sparse.reorder(s)),
    "reshape": lambda s: tf.sparse.to_dense(tf.sparse.reshape(s, [2, 6])),
    "add": lambda s: tf.sparse.to_dense(tf.sparse.add(s, s)),
    "add_dense": lambda s: tf.sparse.add(s, tf.ones([3, 4])),
    "matmul": lambda s: tf.sparse.sparse_dense_matmul(s, tf.ones([4, 2])),
    "reduce_sum": lambda s: tf.sparse.reduce_sum(s, 1),
    "reduce_max": lambda s: tf.sparse.reduce_max(s, 1),
    "softmax": lambda s: tf.sparse.softmax(s).values,
    "concat": lambda s: tf.sparse.to_dense(tf.sparse.concat(1, [s, s])),
    "slice": lambda s: tf.sparse.to_dense(tf.sparse.slice(s, [1, 1], [2, 3])),
    "retain": lambda s: tf.sparse.retain(s, [True, False, True]).values,
    "transpose": lambda s: tf.sparse.to_dense(tf.sparse.transpose(s)),
    "expand_dims": lambda s: tf.sparse.to_dense(tf.sparse.expand_dims(s, 0)),
    "fill_empty_rows": lambda s: tf.sparse.to_dense(tf.sparse.fill_empty_rows(s, 5.)[0]),
    "maximum": lambda s: tf.sparse.maximum(s, s).values,
    "times_dense": lambda s: (s * tf.ones([3, 4])).values,
}

RAGGED_OPS = {
    "to_tensor": lambda r: r.to_tensor(),
    "add": lambda r: (r + 1).flat_values,
    "abs": lambda r: tf.math.abs(-r).flat_values,
    "reduce_sum1": lambda r: tf.reduce_sum(r, axis=1),
    "reduce_mean0": lambda r: tf.reduce_mean(r, axis=0),
    "row_lengths": lambda r: r.row_lengths(),
    "row0": lambda r: r[0],
    "concat0": lambda r: tf.concat([r, r], 0).flat_values,
    "concat1": lambda r: tf.concat([r, r], 1).flat_values,
    "bounding": lambda r: r.bounding_shape(),
    "map": lambda r: tf.ragged.map_flat_values(tf.square, r).flat_values,
    "rows_1_3": lambda r: r[1:3].flat_values,
    "rows_last_2": lambda r: r[-2:].row_splits,
    "rows_but_last": lambda r: r[:-1].flat_values,
    "column_slice": lambda r: r[:, :2].flat_values,
}


@pytest.mark.parametrize("name", sorted(SPARSE_OPS))
def test_sparse_op_traced_equals_eager(name):
    op = SPARSE_OPS[name]
    np.testing.assert_array_equal(tf.function(op)(ST).numpy(), op(ST).numpy())


@pytest.mark.parametrize("name", sorted(RAGGED_OPS))
def test_ragged_op_traced_equals_eager(name):
    op = RAGGED_OPS[name]
    np.testing.assert_array_equal(tf.function(op)(RT).numpy(), op(RT).numpy())


def test_string_ops_traced_and_ragged_input_signature():
    words = tf.constant(["a b", "c d e"])
    padded = tf.function(lambda w: tf.strings.split(w).to_tensor(""))(words)
    assert padded.numpy().tolist() == [[b"a", b"b", b""], [b"c", b"d", b"e"]]
    codes = tf.function(lambda w: tf.strings.unicode_decode(w, "UTF-8").flat_values)(words)
    assert codes.numpy().tolist() == [97, 32, 98, 99, 32, 100, 32, 101]

    @tf.function(input_signature=[tf.RaggedTensorSpec([None, None], tf.float32)])
    def row_sums(r):
        return tf.reduce_sum(r, axis=1)

    assert row_sums(RT).numpy().tolist() == [6, 0, 9]
    assert row_sums(tf.ragged.constant([[1.], [2., 3.]])).numpy().tolist() == [1, 5]


def test_gradients_match_tensorflow():
    x = tf.constant([1., -2., 4.])
    w = tf.reshape(tf.range(12.), [3, 4])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        s = tf.SparseTensor([[0, 0], [1, 2], [1, 3]], x, [3, 4])
        y1 = tf.reduce_sum(tf.sparse.to_dense(tf.sparse.fill_empty_rows(s, 5.)[0]) * w)
        y2 = tf.reduce_sum(tf.sparse.softmax(s).values * [1., 2., 3.])
        y3 = tf.reduce_sum(tf.sparse.to_dense(tf.sparse.reorder(tf.SparseTensor([[1, 3], [0, 0], [1, 2]], x, [3, 4])))
                           * w)
        y4 = tf.reduce_sum(tf.sparse.segment_mean(tf.reshape(x, [3, 1]) * [[1., 2.]], [0, 1, 2], [0, 0, 1]) *
                           [[1., 2.], [3., 4.]])
        r = tf.RaggedTensor.from_row_splits(x, [0, 2, 3])
        y5 = tf.reduce_sum(tf.reduce_sum(r * r, axis=1) * [1., 10.])
        y6 = tf.reduce_sum(tf.reduce_max(r, axis=1) * [1., 10.])

    def grad(y):
        return tf.convert_to_tensor(tape.gradient(y, x)).numpy().tolist()

    assert grad(y1) == [0.0, 6.0, 7.0]
    np.testing.assert_allclose(grad(y2), [0.0, -0.002466510282829404, 0.002466287463903427], atol=1e-6)  # float32 rounding
    assert grad(y3) == [7.0, 0.0, 6.0]
    assert grad(y4) == [2.5, 2.5, 11.0]
    assert grad(y5) == [2.0, -4.0, 80.0]
    assert grad(y6) == [1.0, 0.0, 10.0]
