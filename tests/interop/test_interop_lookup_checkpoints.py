"""Lookup tables in checkpoints both ways with real TensorFlow 2.21 (run with
TENSORFLOW_PYTHON=~/venv-tf/bin/python): a MutableHashTable's contents under TensorFlow's keys
(`<path>/.ATTRIBUTES/table-keys` and `-values`), tables of vectors, a DenseHashTable's bucket arrays read
back, and the object graph's shape (a static table a node whose initializer is its child)."""
import inspect
import json

import pytest

import tensorflux as tf
from _tensorflow_side import run_tensorflow


def tables(tf):
    """The tables both sides build (its source is sent to TensorFlow's side as part of the script)."""
    words = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, default_value=-1)
    vectors = tf.lookup.experimental.MutableHashTable(tf.int64, tf.float32, default_value=[0.0, 0.0])
    static = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(["x", "y"], [5, 6]), -1)
    return words, vectors, static


_TABLES = "\n" + inspect.getsource(tables) + "\n"

_TF_WRITE = "import sys, json, numpy as np, tensorflow as tf\n" + _TABLES + """
words, vectors, static = tables(tf)
words.insert(tf.constant(["a", "b", "long word"]), tf.constant([1, 2, 3], tf.int64))
vectors.insert(tf.constant([7, 8], tf.int64), tf.constant([[1.5, 2.5], [3.5, 4.5]]))
dense = tf.lookup.experimental.DenseHashTable(tf.int64, tf.int64, default_value=-1, empty_key=0, deleted_key=-1,
                                              initial_num_buckets=16)
dense.insert(tf.constant([3, 4, 5], tf.int64), tf.constant([30, 40, 50], tf.int64))
dense.erase(tf.constant([4], tf.int64))
path = tf.train.Checkpoint(words=words, vectors=vectors, static=static, dense=dense).write(sys.argv[1])
print(json.dumps({"keys": sorted(k for k, _ in tf.train.list_variables(path))}))
"""

_TF_READ = "import sys, json, numpy as np, tensorflow as tf\n" + _TABLES + """
words, vectors, static = tables(tf)
words.insert(tf.constant(["stale"]), tf.constant([9], tf.int64))
tf.train.Checkpoint(words=words, vectors=vectors, static=static).read(sys.argv[1]).assert_consumed()
print(json.dumps({"words": words.lookup(tf.constant(["a", "b", "long word", "stale"])).numpy().tolist(),
                  "vectors": vectors.lookup(tf.constant([7, 8, 9], tf.int64)).numpy().tolist(),
                  "sizes": [int(words.size()), int(vectors.size())]}))
"""


def _tables():
    return tables(tf)


def test_tensorflux_restores_tables_tensorflow_wrote(tmp_path):
    prefix = str(tmp_path / "tf_tables")
    written = run_tensorflow(_TF_WRITE, prefix)
    assert written["keys"] == ["_CHECKPOINTABLE_OBJECT_GRAPH", "dense/.ATTRIBUTES/table-keys",
                               "dense/.ATTRIBUTES/table-values", "vectors/.ATTRIBUTES/table-keys",
                               "vectors/.ATTRIBUTES/table-values", "words/.ATTRIBUTES/table-keys",
                               "words/.ATTRIBUTES/table-values"]
    words, vectors, static = _tables()
    words.insert(tf.constant(["stale"]), tf.constant([9], tf.int64))
    dense = tf.lookup.experimental.DenseHashTable(tf.int64, tf.int64, default_value=-1, empty_key=0,
                                                  deleted_key=-1, checkpoint=True)
    status = tf.train.Checkpoint(words=words, vectors=vectors, static=static, dense=dense).read(prefix)
    status.assert_consumed()
    assert words.lookup(tf.constant(["a", "b", "long word", "stale"])).numpy().tolist() == [1, 2, 3, -1]
    assert vectors.lookup(tf.constant([7, 8, 9], tf.int64)).numpy().tolist() == [[1.5, 2.5], [3.5, 4.5],
                                                                                    [0.0, 0.0]]
    assert dense.lookup(tf.constant([3, 4, 5, 6], tf.int64)).numpy().tolist() == [30, -1, 50, -1]
    assert int(dense.size()) == 2


def test_tensorflow_restores_tables_tensorflux_wrote(tmp_path):
    words, vectors, static = _tables()
    words.insert(tf.constant(["a", "b", "long word"]), tf.constant([1, 2, 3], tf.int64))
    vectors.insert(tf.constant([7, 8], tf.int64), tf.constant([[1.5, 2.5], [3.5, 4.5]]))
    prefix = tf.train.Checkpoint(words=words, vectors=vectors, static=static).write(str(tmp_path / "tables"))
    assert sorted(k for k, _ in tf.train.list_variables(prefix)) == [
        "_CHECKPOINTABLE_OBJECT_GRAPH", "vectors/.ATTRIBUTES/table-keys", "vectors/.ATTRIBUTES/table-values",
        "words/.ATTRIBUTES/table-keys", "words/.ATTRIBUTES/table-values"]
    got = run_tensorflow(_TF_READ, prefix)
    assert got == {"words": [1, 2, 3, -1], "vectors": [[1.5, 2.5], [3.5, 4.5], [0.0, 0.0]], "sizes": [3, 2]}


def test_a_dense_table_is_not_written():
    dense = tf.lookup.experimental.DenseHashTable(tf.int64, tf.int64, default_value=-1, empty_key=0, deleted_key=-1)
    with pytest.raises(NotImplementedError, match="DenseHashTable"):
        tf.train.Checkpoint(dense=dense).write("/nonexistent-dir/never")
    unsaved = tf.lookup.experimental.DenseHashTable(tf.int64, tf.int64, default_value=-1, empty_key=0,
                                                    deleted_key=-1, checkpoint=False)
    assert json.dumps(unsaved._checkpoint_tensors()) == "{}"
