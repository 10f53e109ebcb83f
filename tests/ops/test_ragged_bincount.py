"""RaggedBincount (`tf.math.bincount` of a RaggedTensor with axis=-1): values and errors recorded from
TensorFlow 2.21, and float32 weights added in TensorFlow's order (their bit patterns recorded)."""
import numpy as np
import pytest

import tensorflux as tf
from tensorflux._src.ops.ragged import bincount as ragged_bincount_module
from tensorflux._src.ops.registry import apply


def _rows():
    return tf.ragged.constant([[1, 1, 3], [0, 4], []])


def test_counts_per_row():
    assert tf.math.bincount(_rows(), axis=-1).numpy().tolist() == [[0, 2, 0, 1, 0], [1, 0, 0, 0, 1],
                                                                   [0, 0, 0, 0, 0]]
    assert tf.math.bincount(_rows(), axis=-1, binary_output=True, minlength=7).numpy().tolist() == [
        [0, 1, 0, 1, 0, 0, 0], [1, 0, 0, 0, 1, 0, 0], [0, 0, 0, 0, 0, 0, 0]]
    assert tf.math.bincount(_rows(), axis=-1, maxlength=2).numpy().tolist() == [[0, 2], [1, 0], [0, 0]]
    assert tf.math.bincount(_rows(), axis=-1, dtype=tf.float32).numpy().tolist() == [
        [0.0, 2.0, 0.0, 1.0, 0.0], [1.0, 0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0, 0.0]]
    assert tf.math.bincount(tf.ragged.constant([[], []], dtype=tf.int32), axis=-1).numpy().tolist() == [[], []]


def test_weights_and_the_flat_form():
    weights = tf.ragged.constant([[1., 2, 3], [4, 5], []])
    assert tf.math.bincount(_rows(), weights=weights, axis=-1).numpy().tolist() == [
        [0.0, 3.0, 0.0, 3.0, 0.0], [4.0, 0.0, 0.0, 0.0, 5.0], [0.0, 0.0, 0.0, 0.0, 0.0]]
    assert tf.math.bincount(_rows()).numpy().tolist() == [1, 2, 0, 1, 1]
    w = tf.ragged.constant([[0.1, 0.2, 0.3], [0.7, 1e-8], []], dtype=tf.float32)
    got = tf.math.bincount(tf.ragged.constant([[1, 1, 1], [2, 2], []]), weights=w, axis=-1).numpy()
    assert got.view(np.uint32).tolist() == [[0, 1058642330, 0], [0, 0, 1060320051], [0, 0, 0]]


def test_traced_output_shape_is_unknown_as_in_tensorflow():
    @tf.function
    def f(x):
        return tf.math.bincount(x, axis=-1, minlength=3)

    assert f(_rows()).numpy().tolist() == [[0, 2, 0, 1, 0], [1, 0, 0, 0, 1], [0, 0, 0, 0, 0]]
    assert f.get_concrete_function(_rows()).structured_outputs.shape.rank is None


def _op(splits, values, size, weights, binary_output=False):
    return apply(ragged_bincount_module.RAGGED_BINCOUNT,
                 (tf.constant(splits, tf.int64), tf.constant(values, tf.int32), tf.constant(size, tf.int32),
                  tf.constant(weights, tf.float32)), {"binary_output": binary_output}, "RaggedBincount")


def test_the_op_on_its_own():
    assert _op([0, 2, 5], [1, 1, 3, 0, 4], 5, []).numpy().tolist() == [[0.0, 2.0, 0.0, 0.0, 0.0],
                                                                       [1.0, 0.0, 0.0, 1.0, 1.0]]
    assert _op([0, 2, 5], [1, 1, 3, 0, 4], 5, [1., 2, 3, 4, 5], True).numpy().tolist() == [
        [0.0, 1.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 1.0, 1.0]]
    assert _op([0, 0, 2], [7, 2], 5, []).numpy().tolist() == [[0.0] * 5, [0.0, 0.0, 1.0, 0.0, 0.0]]


@pytest.mark.parametrize("splits, values, size, weights, message", [
    ([0, 2, 5], [1, -1, 3, 0, 4], 5, [], "Input must be non-negative"),
    ([1, 2, 5], [1, 1, 3, 0, 4], 5, [], "Splits must start with 0, not with 1"),
    ([0, 2, 4], [1, 1, 3, 0, 4], 5, [], "Splits must end with the number of values, got 4 instead of 5"),
    ([0, 2, 5], [1, 1, 3, 0, 4], -1, [], r"size \(-1\) must be non-negative"),
    ([], [], 5, [], "Splits must be non-empty"),
    ([0, 2, 5], [1, 1, 3, 0, 4], 5, [1., 2], "`weights` must have one value per value of `values`"),
])
def test_tensorflows_errors(splits, values, size, weights, message):
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        _op(splits, values, size, weights)
