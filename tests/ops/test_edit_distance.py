"""tf.edit_distance against results recorded from TensorFlow 2.21 (eager and traced)."""
import numpy as np
import pytest

import tensorflux as tf


def test_guide_example_normalized_and_raw():
    hypothesis = tf.SparseTensor([[0, 0, 0], [1, 0, 0]], ["a", "b"], (2, 1, 1))
    truth = tf.SparseTensor([[0, 1, 0], [1, 0, 0], [1, 0, 1], [1, 1, 0]], ["a", "b", "c", "a"], (2, 2, 2))
    normalized = tf.edit_distance(hypothesis, truth, normalize=True)
    assert normalized.dtype == tf.float32 and normalized.shape == (2, 2)
    np.testing.assert_array_equal(normalized.numpy(), [[np.inf, 1.0], [0.5, 1.0]])
    np.testing.assert_array_equal(tf.edit_distance(hypothesis, truth, normalize=False).numpy(), [[1, 1], [1, 1]])


def test_sequences_and_empty_truth():
    h = tf.SparseTensor([[0, 0], [0, 1], [0, 2]], [1, 2, 3], [1, 3])
    t = tf.SparseTensor([[0, 0], [0, 1]], [1, 3], [1, 2])
    empty = tf.SparseTensor(tf.zeros([0, 2], tf.int64), tf.zeros([0], tf.int32), [1, 3])
    assert tf.edit_distance(h, t).numpy().tolist() == [0.5]
    assert tf.edit_distance(t, h, normalize=False).numpy().tolist() == [1.0]
    assert tf.edit_distance(h, empty).numpy().tolist() == [np.inf]
    assert tf.edit_distance(empty, h).numpy().tolist() == [1.0]
    assert tf.function(lambda a, b: tf.edit_distance(a, b))(h, t).numpy().tolist() == [0.5]


def test_errors():
    t = tf.SparseTensor([[0, 0], [0, 1]], [1, 3], [1, 2])
    with pytest.raises(TypeError, match="^Hypothesis must be a SparseTensor.$"):
        tf.edit_distance(tf.constant([1]), t)
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.edit_distance(t, tf.SparseTensor([[0, 0]], [1.0], [1, 1]))
    assert str(info.value) == ("cannot compute EditDistance as input #4(zero-based) was expected to be a int32 "
                               "tensor but is a float tensor [Op:EditDistance] name: edit_distance")
