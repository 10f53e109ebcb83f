"""keras.utils helpers; expected values are what TensorFlow 2.21's Keras printed for the same calls."""
import numpy as np
import pytest

import tensorflux as tf

keras = tf.keras


def test_pad_sequences():
    seqs = [[1, 2, 3], [4], [5, 6]]
    np.testing.assert_array_equal(keras.utils.pad_sequences(seqs, maxlen=2), [[2, 3], [0, 4], [5, 6]])
    np.testing.assert_array_equal(keras.utils.pad_sequences(seqs, padding="post", truncating="post"),
                                  [[1, 2, 3], [4, 0, 0], [5, 6, 0]])
    floats = keras.utils.pad_sequences([[1.5, 2], [3]], dtype="float32", value=-1.0)
    assert floats.dtype == np.float32 and floats.tolist() == [[1.5, 2.0], [-1.0, 3.0]]
    assert keras.utils.pad_sequences(seqs).dtype == np.int32
    assert keras.preprocessing.sequence.pad_sequences is keras.utils.pad_sequences
    with pytest.raises(ValueError, match="must be a list of iterables. Found non-iterable: 1"):
        keras.utils.pad_sequences([1, 2])
    with pytest.raises(ValueError, match='Padding type "middle" not understood'):
        keras.utils.pad_sequences(seqs, padding="middle")


def test_normalize():
    np.testing.assert_allclose(keras.utils.normalize(np.array([[3.0, 4.0], [1.0, 0.0]])), [[0.6, 0.8], [1, 0]])
    np.testing.assert_allclose(keras.utils.normalize(np.array([[3.0, 4.0]]), order=1), [[3 / 7, 4 / 7]])
    np.testing.assert_array_equal(keras.utils.normalize(np.zeros((1, 2))), [[0.0, 0.0]])


def test_timeseries_dataset_from_array():
    dataset = keras.utils.timeseries_dataset_from_array(np.arange(10), np.arange(10) * 10, sequence_length=3,
                                                        sequence_stride=2, batch_size=2)
    batches = [(x.numpy().tolist(), y.numpy().tolist()) for x, y in dataset]
    assert batches == [([[0, 1, 2], [2, 3, 4]], [0, 20]), ([[4, 5, 6], [6, 7, 8]], [40, 60])]
    sampled = keras.utils.timeseries_dataset_from_array(np.arange(10), None, sequence_length=2, sampling_rate=3,
                                                        batch_size=None)
    assert [w.tolist() for w in sampled.as_numpy_iterator()] == [[i, i + 3] for i in range(7)]
