"""Batches of strings are string tensors (object arrays of bytes), whatever the strings' lengths."""
import tensorflux as tf


def test_batch_of_strings_of_different_lengths():
    ds = tf.data.Dataset.from_tensor_slices(["hello world", "a much longer string here ok"]).batch(2)
    (batch,) = list(ds)
    assert batch.dtype == tf.string and batch.numpy().tolist() == [b"hello world", b"a much longer string here ok"]
    (lowered,) = list(ds.map(tf.strings.lower))
    assert lowered.numpy().tolist() == [b"hello world", b"a much longer string here ok"]


def test_ragged_batch_of_scalar_strings():
    ds = tf.data.Dataset.from_tensor_slices(["ab", "c"]).apply(tf.data.experimental.dense_to_ragged_batch(2))
    (batch,) = list(ds)
    assert batch.dtype == tf.string and batch.numpy().tolist() == [b"ab", b"c"]
