"""`tf.sparse.reduce_sum` is TensorFlow's SparseReduceSum op: in a traced graph, in its values and gradient
(recorded from TensorFlow 2.21), and through a SavedModel (exported with TensorFlow's `reduction_axes`
input and imported back)."""
import numpy as np

import tensorflux as tf

INDICES = [[0, 1, 0], [0, 2, 1], [1, 0, 1], [1, 2, 1]]
VALUES = [1.0, 2.0, 3.0, 4.0]
SHAPE = [2, 3, 2]


def _sparse(values=VALUES):
    return tf.sparse.SparseTensor(INDICES, values, SHAPE)


@tf.function
def _reductions(sp):
    return (tf.sparse.reduce_sum(sp, axis=1), tf.sparse.reduce_sum(sp),
            tf.sparse.reduce_sum(sp, axis=[-1, 0], keepdims=True))


def test_values_and_graph_are_tensorflows():
    # TensorFlow 2.21: the three SparseReduceSum nodes, these values, and no static output shape
    graph = _reductions.get_concrete_function(tf.SparseTensorSpec([2, 3, 2], tf.float32)).graph
    assert [op.type for op in graph.get_operations()].count("SparseReduceSum") == 3
    outputs = _reductions(_sparse())
    assert [o.numpy().tolist() for o in outputs] == [[[1.0, 2.0], [0.0, 7.0]], 10.0, [[[3.0], [1.0], [6.0]]]]
    assert [o.shape.as_list() for o in outputs] == [[2, 2], [], [1, 3, 1]]
    assert tf.sparse.reduce_sum(tf.sparse.SparseTensor([[0, 1], [1, 2]], [1, 2], [2, 3]), axis=0).numpy().tolist() \
        == [0, 1, 2]
    specs = _reductions.get_concrete_function(tf.SparseTensorSpec([2, 3, 2], tf.float32)).structured_outputs
    assert [s.shape.rank for s in specs] == [None, None, None]


def test_gradient_reaches_each_value_from_its_output_entry():
    v = tf.Variable(VALUES)
    with tf.GradientTape() as tape:
        total = tf.sparse.reduce_sum(_sparse(v * 1.0), axis=1)
        y = tf.reduce_sum(total * tf.constant([[1.0, 2.0], [3.0, 4.0]]))
    assert tape.gradient(y, v).numpy().tolist() == [1.0, 2.0, 4.0, 4.0]     # TensorFlow 2.21's


def test_a_saved_model_round_trip(tmp_path):
    module = tf.Module()
    module.f = tf.function(lambda sp: tf.sparse.reduce_sum(sp, axis=[-1, 0], keepdims=True),
                           input_signature=[tf.SparseTensorSpec([2, 3, 2], tf.float32)])
    tf.saved_model.save(module, str(tmp_path / "m"))
    loaded = tf.saved_model.load(str(tmp_path / "m"))
    assert loaded.f(_sparse()).numpy().tolist() == [[[3.0], [1.0], [6.0]]]
