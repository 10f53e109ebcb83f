"""tf.random.split, fold_in and create_rng_state against values recorded from TensorFlow 2.21."""
import numpy as np
import pytest

import tensorflux as tf


def test_split_matches_tensorflow():
    assert tf.random.split([1, 2]).numpy().tolist() == [[1105988140, 1738052849], [-335576002, 370444179]]
    wide = tf.random.split(tf.constant([1, 2], tf.int64), 3)
    assert wide.dtype == tf.int64 and wide.numpy().tolist() == [
        [7464880146280614444, 1591045637757961278], [-1057468755545501549, 2524363516007002203],
        [6884554327646026923, -2336856294065325742]]
    assert tf.random.split([5, 6], 1).numpy().tolist() == [[-180254357, -1901470197]]


def test_fold_in_matches_tensorflow():
    folded = tf.random.fold_in([1, 2], 7)
    assert folded.dtype == tf.int32 and folded.numpy().tolist() == [1105988140, 7]
    assert tf.random.fold_in(tf.constant([3, 4], tf.int64), 9).numpy().tolist() == [-1860230133, 9]
    assert tf.random.experimental.stateless_fold_in is tf.random.fold_in
    assert tf.random.experimental.stateless_split is tf.random.split


def test_create_rng_state_matches_tensorflow():
    assert tf.random.create_rng_state(5, "philox").tolist() == [5, 0, 0]
    assert tf.random.create_rng_state(5, "threefry").tolist() == [5, 0]
    assert tf.random.create_rng_state([1, 2], 1).tolist() == [0, 1, 2]
    assert tf.random.create_rng_state(5, "auto_select").dtype == np.int64


def test_split_seeds_drive_stateless_ops_inside_tf_function():
    @tf.function
    def draw(seed):
        first, second = tf.unstack(tf.random.split(seed))
        return tf.random.stateless_uniform([2], first), tf.random.stateless_uniform([2], second)

    a, b = draw(tf.constant([1, 2]))
    assert not np.allclose(a.numpy(), b.numpy())
    np.testing.assert_array_equal(draw(tf.constant([1, 2]))[0].numpy(), a.numpy())
    with pytest.raises(TypeError, match="int32 or int64"):
        tf.random.split(tf.constant([1.0, 2.0]))
