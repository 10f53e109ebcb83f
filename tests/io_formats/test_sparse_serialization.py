"""tf.io.serialize_sparse / serialize_many_sparse / deserialize_many_sparse: TensorFlow's bytes (each part
is the TensorProto `serialize_tensor` writes) and TensorFlow's batching rules (recorded from TF 2.21)."""
import numpy as np
import pytest

import tensorflux as tf

SP = tf.sparse.SparseTensor([[0, 1], [2, 0], [2, 3]], [1.5, 2.5, 3.5], [3, 4])
# tf.io.serialize_many_sparse(SP).numpy()[2] in TensorFlow 2.21
ROW_2 = [b"\x08\t\x12\x08\x12\x02\x08\x02\x12\x02\x08\x01\"\x10\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00\x00\x00\x00"
         b"\x00\x00\x00", b"\x08\x01\x12\x04\x12\x02\x08\x02\"\x08\x00\x00 @\x00\x00`@",
         b"\x08\t\x12\x04\x12\x02\x08\x01\"\x08\x04\x00\x00\x00\x00\x00\x00\x00"]


def test_serialize_sparse_is_three_tensor_protos():
    s = tf.io.serialize_sparse(SP)
    assert s.shape == (3,) and s.dtype == tf.string
    assert s.numpy().tolist() == [tf.io.serialize_tensor(t).numpy() for t in (SP.indices, SP.values, SP.dense_shape)]


def test_serialize_many_sparse_rows_and_round_trip():
    many = tf.io.serialize_many_sparse(SP)
    assert many.shape == (3, 3)
    assert many.numpy()[2].tolist() == ROW_2
    back = tf.io.deserialize_many_sparse(many, tf.float32)
    assert back.indices.numpy().tolist() == [[0, 1], [2, 0], [2, 3]]
    assert back.values.numpy().tolist() == [1.5, 2.5, 3.5] and back.dense_shape.numpy().tolist() == [3, 4]


def test_deserialize_pads_to_the_largest_row():
    s2 = tf.io.serialize_sparse(tf.sparse.SparseTensor([[0, 5]], [9.0], [1, 7]))
    d = tf.io.deserialize_many_sparse(tf.stack([tf.io.serialize_sparse(SP), s2]), tf.float32)
    assert d.indices.numpy().tolist() == [[0, 0, 1], [0, 2, 0], [0, 2, 3], [1, 0, 5]]
    assert d.values.numpy().tolist() == [1.5, 2.5, 3.5, 9.0] and d.dense_shape.numpy().tolist() == [2, 3, 7]
    traced = tf.function(lambda x: tf.io.deserialize_many_sparse(x, tf.float32))(tf.stack([tf.io.serialize_sparse(SP)]))
    assert traced.values.numpy().tolist() == [1.5, 2.5, 3.5]


def test_errors():
    s2 = tf.io.serialize_sparse(tf.sparse.SparseTensor([[0, 5]], [9.0], [1, 7]))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Requested SparseTensor of type int64 but SparseTensor\[0\].values.dtype\(\) == float"):
        tf.io.deserialize_many_sparse(tf.stack([s2]), tf.int64)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Rank of input SparseTensor should be > 1, but saw rank: 1"):
        tf.io.serialize_many_sparse(tf.sparse.SparseTensor([[0]], [1.0], [3]))
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.io.deserialize_many_sparse(np.array([[b"junk", b"x", b"y"]], dtype=object), tf.float32)
