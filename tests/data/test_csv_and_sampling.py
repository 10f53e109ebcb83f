"""tf.data CSV readers (CsvDataset, make_csv_dataset), Counter, sample/choose_from_datasets, reduce with a
tuple state and map functions returning lists. Expected values were printed by TensorFlow 2.21 running
the same code."""
import numpy as np
import pytest

import tensorflux as tf

CSV = 'a,b,c\n1,x,2.5\n,y,\n3,"q,z",4\n'


@pytest.fixture
def path(tmp_path):
    p = tmp_path / "t.csv"
    p.write_text(CSV)
    return str(p)


def _rows(ds):
    return [[v.numpy() for v in row] for row in ds]


def test_csv_dataset_defaults_types_and_missing_fields(path):
    ds = tf.data.experimental.CsvDataset(path, [0, "d", 0.0], header=True)
    assert ds.element_spec == (tf.TensorSpec([], tf.int32), tf.TensorSpec([], tf.string),
                               tf.TensorSpec([], tf.float32))
    assert _rows(ds) == [[1, b"x", 2.5], [0, b"y", 0.0], [3, b"q,z", 4.0]]
    assert _rows(tf.data.experimental.CsvDataset(path, [-1, "u"], header=True, select_cols=[0, 1])) == \
        [[1, b"x"], [-1, b"y"], [3, b"q,z"]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Field 0 is required but missing"):
        _rows(tf.data.experimental.CsvDataset(path, [tf.int32, "d", 0.0], header=True))


def test_make_csv_dataset_infers_types_and_splits_the_label(path):
    ds = tf.data.experimental.make_csv_dataset(path, batch_size=2, label_name="c", shuffle=False, num_epochs=1)
    features, label = ds.element_spec
    assert list(features) == ["a", "b"] and features["a"] == tf.TensorSpec([None], tf.int32)
    assert features["b"] == tf.TensorSpec([None], tf.string) and label == tf.TensorSpec([None], tf.float32)
    batches = [({k: v.numpy().tolist() for k, v in f.items()}, l.numpy().tolist()) for f, l in ds]
    assert batches == [({"a": [1, 0], "b": [b"x", b"y"]}, [2.5, 0.0]), ({"a": [3], "b": [b"q,z"]}, [4.0])]


def test_counter_reduce_choose_and_sample():
    assert list(tf.data.experimental.Counter(start=2, step=3).take(3).as_numpy_iterator()) == [2, 5, 8]
    total, doubled = tf.data.Dataset.range(3).reduce((np.int64(0), 1), lambda s, x: (s[0] + x, s[1] * 2))
    assert (total.dtype, int(total), doubled.dtype, int(doubled)) == (tf.int64, 3, tf.int32, 8)
    chosen = tf.data.Dataset.choose_from_datasets(
        [tf.data.Dataset.from_tensors("a").repeat(), tf.data.Dataset.from_tensors("b").repeat()],
        tf.data.Dataset.from_tensor_slices(tf.constant([0, 1, 1, 0], tf.int64)))
    assert list(chosen.as_numpy_iterator()) == [b"a", b"b", b"b", b"a"]
    sampled = tf.data.Dataset.sample_from_datasets([tf.data.Dataset.range(0, 5), tf.data.Dataset.range(100, 103)],
                                                   seed=1)
    assert sorted(sampled.as_numpy_iterator()) == [0, 1, 2, 3, 4, 100, 101, 102]


def test_rejection_resample_balances_classes():
    labels = tf.data.Dataset.from_tensor_slices(np.array([0] * 90 + [1] * 10, "int32")).repeat()
    resampled = labels.rejection_resample(lambda x: x, target_dist=[0.5, 0.5], initial_dist=[0.9, 0.1], seed=0)
    assert resampled.element_spec == (tf.TensorSpec([], tf.int32), tf.TensorSpec([], tf.int32))
    drawn = np.array([c for c, _ in resampled.take(400).as_numpy_iterator()])
    assert 0.4 < drawn.mean() < 0.6


def test_map_returning_a_list_gives_tuple_elements():
    ds = tf.data.Dataset.range(3).map(lambda x: [x, x * 2])
    assert ds.element_spec == (tf.TensorSpec([], tf.int64), tf.TensorSpec([], tf.int64))
    assert list(ds.map(lambda a, b: a + b).as_numpy_iterator()) == [0, 3, 6]


def test_checkpoint_restores_an_iterators_position(tmp_path):
    iterator = iter(tf.data.Dataset.range(20))
    ckpt = tf.train.Checkpoint(step=tf.Variable(0), iterator=iterator)
    assert [int(next(iterator)) for _ in range(5)] == [0, 1, 2, 3, 4]
    path = ckpt.save(str(tmp_path / "ckpt"))
    assert [int(next(iterator)) for _ in range(5)] == [5, 6, 7, 8, 9]
    ckpt.restore(path)
    assert [int(next(iterator)) for _ in range(5)] == [5, 6, 7, 8, 9]
