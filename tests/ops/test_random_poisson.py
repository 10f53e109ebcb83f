"""tf.random.poisson / stateless_poisson draw TensorFlow's samples (RandomPoissonV2, StatelessRandomPoisson);
expected values printed by TensorFlow 2.21 for the same calls, in the same order."""
import json

import numpy as np
import pytest

import tensorflux as tf

EXPECTED = json.loads('''{"a": [5.0, 4.0, 7.0, 0.0, 5.0, 2.0], "b": [[[0.0, 24.0], [0.0, 20.0]], [[1.0, 23.0], [0.0, 23.0]], [[0.0, 25.0], [0.0, 23.0]]], "c": [[[13], [139]], [[8], [142]], [[14], [147]], [[11], [138]]], "d": [[0.0, 0.0, 16.0, 7.0], [0.0, 0.0, 12.0, 9.0], [0.0, 0.0, 7.0, 5.0]], "e": [[3, 4, 23], [2, 7, 33], [1, 0, 30], [3, 6, 27]], "f": [[0.0, 1019.0], [1.0, 1014.0], [1.0, 905.0]], "g": [[3.0, 47.0], [2.0, 47.0]], "inf": [[Infinity], [Infinity]]}''')


def test_poisson_samples_and_streams_are_tensorflows():
    tf.random.set_seed(2)
    assert tf.random.poisson([6], 3.5, seed=3).numpy().tolist() == EXPECTED["a"]                 # Knuth
    # a rate given as a Python list runs on a stream of its own, as in TensorFlow
    assert tf.random.poisson([3, 2], [0.5, 25.0], seed=3).numpy().tolist() == EXPECTED["b"]       # both methods
    got = tf.random.poisson([4], [[12.0], [150.5]], seed=3, dtype=tf.int64)
    assert got.dtype == tf.int64 and got.numpy().tolist() == EXPECTED["c"]
    got = tf.random.poisson([3], [0.0, 1e-3, 9.99, 10.0], seed=5, dtype=tf.float64)
    assert got.numpy().tolist() == EXPECTED["d"]
    # a float64 rate continues the first call's stream: the rate's dtype does not separate them
    assert tf.random.poisson([2], tf.constant([2.0, 50.0], tf.float64), seed=3).numpy().tolist() == EXPECTED["g"]
    assert tf.random.poisson([2], [np.inf], seed=3).numpy().tolist() == [[float("inf")], [float("inf")]]


def test_repeated_calls_continue_the_stream():
    tf.random.set_seed(2)
    first = tf.random.poisson([3], 3.5, seed=3).numpy().tolist()
    second = tf.random.poisson([3], tf.constant(3.5, tf.float64), seed=3).numpy().tolist()
    assert (first, second) == ([5.0, 4.0, 7.0], [0.0, 5.0, 2.0])


def test_stateless_poisson_samples_are_tensorflows():
    got = tf.random.stateless_poisson([4, 3], seed=[1, 2], lam=[0.5, 4.0, 30.0])
    assert got.dtype == tf.int32 and got.numpy().tolist() == EXPECTED["e"]
    got = tf.random.stateless_poisson([3, 2], seed=[4, 5], lam=[1.0, 1000.0], dtype=tf.float32)
    assert got.numpy().tolist() == EXPECTED["f"]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Shape passed in must end with broadcasted shape"):
        tf.random.stateless_poisson([4], seed=[1, 2], lam=[0.5, 4.0, 30.0])


def test_in_a_graph():
    @tf.function
    def draw(lam):
        return tf.random.stateless_poisson([3, 2], seed=[1, 2], lam=lam)

    assert draw.get_concrete_function(tf.TensorSpec([2])).structured_outputs.shape.as_list() == [3, 2]
    np.testing.assert_array_equal(draw(tf.constant([1.0, 1000.0])).numpy(),
                                  tf.random.stateless_poisson([3, 2], seed=[1, 2], lam=[1.0, 1000.0]).numpy())
