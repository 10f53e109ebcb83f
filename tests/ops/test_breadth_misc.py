"""Small tf.math / tf.nn names of issue 16 (numeric helpers, ranking, statistics, losses, space/depth):
values and messages recorded from TensorFlow 2.21, gradients by finite differences, traced shapes."""
import numpy as np
import pytest

import tensorflux as tf
from helpers import check_gradients


def _v(t):
    return t.numpy().tolist()


def test_math_numeric_helpers_match_tensorflow():
    assert _v(tf.math.accumulate_n([[1., 2.], [3., 4.]])) == [4.0, 6.0]
    assert _v(tf.math.is_non_decreasing([1, 1, 2])) is True and _v(tf.math.is_strictly_increasing([1, 1, 2])) is False
    assert _v(tf.math.is_strictly_increasing([])) is True
    assert _v(tf.math.nextafter(tf.constant([1.0, 0.0], tf.float64), tf.constant([2.0, -1.0], tf.float64))) == \
        [1.0000000000000002, -5e-324]
    assert _v(tf.math.polyval([1., 2., 3.], 2.)) == 11.0 and _v(tf.math.polyval([], 2.)) == 0.0
    assert _v(tf.math.reciprocal_no_nan([0., 2.])) == [0.0, 0.5]
    assert _v(tf.math.zero_fraction([0., 1., 0., 3.])) == 0.5 and _v(tf.nn.zero_fraction([[0, 1]])) == 0.5


def test_ranking_matches_tensorflow():
    assert _v(tf.math.confusion_matrix([1, 2, 4], [2, 2, 4])) == [
        [0, 0, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0, 1]]
    weighted = tf.math.confusion_matrix([1, 2], [2, 2], num_classes=3, weights=[0.5, 2.], dtype=tf.float32)
    assert weighted.dtype == tf.float32 and _v(weighted) == [[0., 0., 0.], [0., 0., 0.5], [0., 0., 2.]]
    assert _v(tf.math.in_top_k([2, 0], [[0.1, 0.5, 0.4], [0.9, 0.05, 0.05]], 1)) == [False, True]
    assert _v(tf.nn.in_top_k([2], [[0.1, 0.5, 0.5]], 1)) == [True]  # ties are in the top k
    assert _v(tf.nn.in_top_k([2], [[0.1, 0.5, np.nan]], 2)) == [False]
    assert _v(tf.math.in_top_k([3], [[0.1, 0.2]], 1)) == [False]
    assert _v(tf.math.invert_permutation([3, 4, 0, 2, 1])) == [2, 4, 3, 0, 1]
    with pytest.raises(tf.errors.InvalidArgumentError, match="0 is duplicated in the input."):
        tf.math.invert_permutation([0, 0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="5 is not between 0 and 2"):
        tf.math.invert_permutation([0, 5])
    with pytest.raises(tf.errors.InvalidArgumentError, match="`labels` contains negative values."):
        tf.math.confusion_matrix([1, -1], [1, 1])


def test_statistics_match_tensorflow():
    x = tf.constant([[1., 2.], [3., 5.]])
    count, mean_ss, var_ss, shift = tf.nn.sufficient_statistics(x, [0])
    assert (_v(count), _v(mean_ss), _v(var_ss), shift) == (2.0, [4.0, 7.0], [10.0, 29.0], None)
    count, mean_ss, var_ss, shift = tf.nn.sufficient_statistics(x, [0], shift=1.0, keepdims=True)
    assert (_v(mean_ss), _v(var_ss), _v(shift)) == ([[2.0, 5.0]], [[4.0, 17.0]], 1.0)
    assert [_v(t) for t in tf.nn.normalize_moments(2., tf.constant([4., 7.]), tf.constant([10., 29.]), None)] == \
        [[2.0, 3.5], [1.0, 2.25]]
    assert [_v(t) for t in tf.nn.normalize_moments(2., tf.constant([4., 7.]), tf.constant([10., 29.]), 1.0)] == \
        [[3.0, 4.5], [1.0, 2.25]]
    assert [_v(t) for t in tf.nn.weighted_moments(x, [0], [[1.], [3.]])] == [[2.5, 4.25], [0.75, 1.6875]]
    assert [_v(t) for t in tf.nn.weighted_moments(x, [1], [[1., 3.]], keepdims=True)] == \
        [[[1.75], [4.5]], [[0.1875], [0.75]]]
    assert _v(tf.nn.compute_average_loss([1., 2., 3.])) == 2.0
    assert _v(tf.nn.compute_average_loss([1., 2.], global_batch_size=4)) == 0.75
    assert _v(tf.nn.compute_average_loss([1., 2.], sample_weight=[2., 0.5])) == 1.5
    assert _v(tf.nn.scale_regularization_loss(3.0)) == 3.0


def test_losses_and_crelu_match_tensorflow():
    assert _v(tf.nn.crelu([-1., 2.])) == [0.0, 2.0, 1.0, 0.0]
    np.testing.assert_allclose(tf.nn.weighted_cross_entropy_with_logits([1., 0.], [0.5, -1.], 2.0).numpy(),
                               [0.9481539726257324, 0.3132617473602295], rtol=1e-6)
    np.testing.assert_allclose(tf.nn.log_poisson_loss([1., 2.], [0.5, -1.]).numpy(),
                               [1.1487212181091309, 2.3678793907165527], rtol=1e-6)
    np.testing.assert_allclose(tf.nn.log_poisson_loss([1., 2., 0.], [0.5, -1., 3.], compute_full_loss=True).numpy(),
                               [1.1487212181091309, 3.019685745239258, 20.08553695678711], rtol=1e-6)
    check_gradients(lambda z, x: tf.nn.weighted_cross_entropy_with_logits(z, x, 2.0),
                    [[0.2, 0.9, 0.0], [0.5, -1.0, 3.0]])
    check_gradients(lambda x: tf.nn.crelu(x), [[-1.0, 2.0, 0.5]])


def test_space_and_depth_match_tensorflow():
    d = tf.reshape(tf.range(16.), [1, 2, 2, 4])
    spaced = tf.nn.depth_to_space(d, 2)
    assert _v(spaced) == [[[[0.0], [1.0], [4.0], [5.0]], [[2.0], [3.0], [6.0], [7.0]],
                           [[8.0], [9.0], [12.0], [13.0]], [[10.0], [11.0], [14.0], [15.0]]]]
    assert _v(tf.nn.space_to_depth(spaced, 2)) == _v(d)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Image width 3 and height 3 should be divisible by block_size: 2"):
        tf.nn.space_to_depth(tf.zeros([1, 3, 3, 1]), 2)
    check_gradients(lambda x: tf.nn.space_to_depth(x, 2), [np.arange(32.).reshape(1, 4, 4, 2)])
    traced = tf.function(lambda x: tf.nn.depth_to_space(x, 2),
                         input_signature=[tf.TensorSpec([None, 2, 2, 4], tf.float32)]).get_concrete_function()
    assert traced.structured_outputs.shape.as_list() == [None, 4, 4, 1]
