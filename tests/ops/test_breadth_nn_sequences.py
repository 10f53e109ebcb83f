"""approx_top_k / approx_max_k / approx_min_k as TensorFlow 2.21 runs them on CPU, collapse_repeated,
ctc_unique_labels and isotonic_regression (issue 16): values recorded from TensorFlow 2.21, the isotonic
gradient against finite differences."""
import numpy as np
import pytest

import tensorflux as tf
from helpers import check_gradients

X = [[3., 1., 4., 1., 5.], [9., 2., 6., 5., 3.]]


def test_approx_top_k_is_exact_on_cpu():
    for result in (tf.math.approx_max_k(X, 2), tf.approx_top_k(X, 2), tf.nn.approx_max_k(X, 2)):
        assert type(result).__name__ == "ApproxTopK"
        assert result.values.numpy().tolist() == [[5., 4.], [9., 6.]]
        assert result.indices.numpy().tolist() == [[4, 2], [0, 2]] and result.indices.dtype == tf.int32
    with pytest.raises(tf.errors.NotFoundError, match=r"Could not find device for node: \{\{node ApproxTopK\}\} = "
                                                      r"ApproxTopK\[T=DT_FLOAT, aggregate_to_topk=true, is_max_k=false"):
        tf.math.approx_min_k(X, 2)


def test_collapse_repeated_and_unique_labels_match_tensorflow():
    collapsed, lengths = tf.nn.collapse_repeated([[1, 1, 2, 2, 2, 3], [4, 4, 4, 0, 0, 0]], [6, 3])
    assert collapsed.numpy().tolist() == [[1, 2, 3], [4, 0, 0]] and lengths.numpy().tolist() == [3, 1]
    unique, index = tf.nn.ctc_unique_labels([[3, 4, 4, 3], [1, 1, 2, 0]])
    assert unique.dtype == tf.int64 and unique.numpy().tolist() == [[3, 4, 0, 0], [1, 2, 0, 0]]
    assert index.dtype == tf.int32 and index.numpy().tolist() == [[0, 1, 1, 0], [0, 0, 1, 2]]


def test_isotonic_regression_matches_tensorflow():
    result = tf.nn.isotonic_regression([[1., 3., 2., 4.], [5., 4., 3., 2.]])
    assert type(result).__name__ == "IsotonicRegression"
    assert result.output.numpy().tolist() == [[2.5, 2.5, 2.5, 2.5], [5., 4., 3., 2.]]
    assert result.segments.numpy().tolist() == [[0, 0, 0, 0], [0, 1, 2, 3]]
    output, segments = tf.nn.isotonic_regression([[1., 3., 2., 4.]], decreasing=False)
    assert output.numpy().tolist() == [[1., 2.5, 2.5, 4.]] and segments.numpy().tolist() == [[0, 1, 1, 2]]
    check_gradients(lambda x: tf.nn.isotonic_regression(x).output, [[[1., 3., 2., 4.], [5., 4.2, 3., 2.]]])
    traced = tf.function(lambda x: tf.nn.isotonic_regression(x).output)(tf.constant([[1., 3., 2., 4.]]))
    assert traced.numpy().tolist() == [[2.5, 2.5, 2.5, 2.5]]
