"""tf.data.experimental transformations added for TensorFlow 2.21's names, against outputs recorded from
TensorFlow 2.21 for the same pipelines."""
import os
import sqlite3

import numpy as np
import pytest

import tensorflux as tf

E = tf.data.experimental


def _values(ds):
    return [np.asarray(x).tolist() if not isinstance(x, (tuple, dict)) else x for x in ds.as_numpy_iterator()]


def test_thin_transformations_match_tensorflow():
    ds = tf.data.Dataset.range(10)
    assert _values(ds.apply(E.take_while(lambda x: x < 4))) == [0, 1, 2, 3]
    assert [tuple(int(v) for v in e) for e in ds.apply(E.enumerate_dataset(5)).take(2).as_numpy_iterator()] == [
        (5, 0), (6, 1)]
    assert int(E.cardinality(ds)) == 10 and int(E.cardinality(ds.filter(lambda x: x > 2))) == -2
    assert _values(ds.apply(E.assert_cardinality(10)).take(2)) == [0, 1]
    assert E.get_structure(ds) == tf.TensorSpec([], tf.int64)
    assert int(E.at(ds, 3)) == 3
    assert [v.tolist() for v in ds.apply(E.map_and_batch(lambda x: x * 2, 4)).as_numpy_iterator()] == [
        [0, 2, 4, 6], [8, 10, 12, 14], [16, 18]]
    assert _values(tf.data.Dataset.from_tensor_slices([1, 1, 2]).apply(E.unique())) == [1, 2]
    assert E.SHARD_HINT == -1
    assert [m.name for m in E.AutotuneAlgorithm] == ["DEFAULT", "HILL_CLIMB", "GRADIENT_DESCENT", "MAX_PARALLELISM",
                                                     "STAGE_BASED"]
    assert [(m.name, m.value) for m in E.ExternalStatePolicy] == [("WARN", 0), ("IGNORE", 1), ("FAIL", 2)]


def test_assert_cardinality_fails_as_tensorflow():
    with pytest.raises(tf.errors.FailedPreconditionError,
                       match="Input dataset was expected to contain 5 elements but contained at least 6 elements."):
        list(tf.data.Dataset.range(10).apply(E.assert_cardinality(5)))


def test_from_list():
    elements = [(int(a), b) for a, b in E.from_list([(1, "a"), (2, "b")]).as_numpy_iterator()]
    assert elements == [(1, b"a"), (2, b"b")]


def test_grouping_matches_tensorflow():
    ds = tf.data.Dataset.range(10)
    reducer = E.Reducer(init_func=lambda k: np.int64(0), reduce_func=lambda s, x: s + x, finalize_func=lambda s: s)
    assert sorted(_values(ds.apply(E.group_by_reducer(lambda x: x % 3, reducer)))) == [12, 15, 18]
    windows = ds.apply(E.group_by_window(lambda x: x % 2, lambda k, w: w.batch(3), window_size=3))
    assert [v.tolist() for v in windows.as_numpy_iterator()] == [[0, 2, 4], [1, 3, 5], [6, 8], [7, 9]]
    rows = tf.data.Dataset.from_tensor_slices([[1, 0, 0], [2, 2, 0], [3, 3, 3], [1, 0, 0]])
    buckets = rows.apply(E.bucket_by_sequence_length(lambda r: tf.reduce_sum(tf.cast(r > 0, tf.int32)), [2], [2, 2],
                                                     no_padding=True))
    assert sorted(v.tolist() for v in buckets.as_numpy_iterator()) == [[[1, 0, 0], [1, 0, 0]],
                                                                       [[2, 2, 0], [3, 3, 3]]]


def test_pad_to_cardinality_matches_tensorflow():
    padded = tf.data.Dataset.from_tensor_slices({"a": [1, 2]}).apply(E.pad_to_cardinality(4))
    assert [(int(e["a"]), bool(e["valid"])) for e in padded.as_numpy_iterator()] == [
        (1, True), (2, True), (0, False), (0, False)]


def test_optional():
    o = E.Optional.from_value(3)
    assert bool(o.has_value()) and int(o.get_value()) == 3
    assert not bool(E.Optional.empty(tf.TensorSpec([], tf.int32)).has_value())
    it = iter(tf.data.Dataset.range(1))
    assert int(E.get_next_as_optional(it).get_value()) == 0
    assert not bool(E.get_next_as_optional(it).has_value())


def test_sql_dataset(tmp_path):
    path = str(tmp_path / "db.sqlite")
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE people (name TEXT, age INTEGER)")
        connection.executemany("INSERT INTO people VALUES (?, ?)", [("ada", 36), ("alan", 41)])
    ds = E.SqlDataset("sqlite", path, "SELECT name, age FROM people ORDER BY age", (tf.string, tf.int32))
    assert [(n, int(a)) for n, a in ds.as_numpy_iterator()] == [(b"ada", 36), (b"alan", 41)]
    with pytest.raises(tf.errors.InvalidArgumentError, match="not supported"):
        E.SqlDataset("mysql", path, "SELECT 1", (tf.int32,))


def test_tfrecord_writer_round_trip(tmp_path):
    path = str(tmp_path / "records.tfrecord")
    E.TFRecordWriter(path).write(tf.data.Dataset.from_tensor_slices([b"x", b"yz"]))
    assert list(tf.data.TFRecordDataset(path).as_numpy_iterator()) == [b"x", b"yz"]
