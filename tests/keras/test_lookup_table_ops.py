"""TensorFlow's hash-table ops (io/formats/table_rules.py), which Keras lookup layers exported by TensorFlow
use: made, filled and read eagerly as a loaded SavedModel's functions run them (values as
TensorFlow's StaticHashTable gives them: a default for unknown keys, size = number of keys)."""
import numpy as np
import pytest

import tensorflux as tf
from tensorflux._src.framework import errors
from tensorflux._src.io.formats import table_rules
from tensorflux._src.ops.registry import apply
from tensorflux._src.ops.state import ResourceHandle


def _table(key_dtype, value_dtype, mutable=False):
    # what the HashTableV2 / MutableHashTableV2 kernel makes when a loaded `_create_resource` function runs
    kernel = (table_rules.MUTABLE_HASH_TABLE if mutable else table_rules.HASH_TABLE).kernel
    return ResourceHandle(table_rules.table_of(kernel(key_dtype=key_dtype, value_dtype=value_dtype)))


def test_string_to_int64_table():
    handle = _table(tf.string, tf.int64)
    with pytest.raises(errors.FailedPreconditionError, match="Table not initialized"):
        apply(table_rules.FIND, (handle, tf.constant(["a"]), tf.constant(0, tf.int64)))
    apply(table_rules.IMPORT, (handle, tf.constant(["a", "b", "c"]), tf.constant([1, 2, 3], tf.int64)))
    found = apply(table_rules.FIND, (handle, tf.constant([["a", "z"], ["c", "b"]]), tf.constant(-1, tf.int64)))
    assert found.numpy().tolist() == [[1, -1], [3, 2]] and found.dtype == tf.int64
    assert int(apply(table_rules.SIZE, (handle,)).numpy()) == 3


def test_int64_to_string_table_and_key_dtype_check():
    handle = _table(tf.int64, tf.string)
    apply(table_rules.IMPORT, (handle, tf.constant([1, 2], tf.int64), tf.constant(["a", "b"])))
    found = apply(table_rules.FIND, (handle, tf.constant([2, 5], tf.int64), tf.constant("[UNK]")))
    assert found.numpy().tolist() == [b"b", b"[UNK]"]
    with pytest.raises(errors.InvalidArgumentError, match="Key dtype string does not match"):
        apply(table_rules.FIND, (handle, tf.constant(["x"]), tf.constant("")))


def test_mutable_table_takes_inserts_static_does_not():
    handle = _table(tf.string, tf.float32, mutable=True)
    apply(table_rules.INSERT, (handle, tf.constant(["x"]), tf.constant([0.5])))
    apply(table_rules.INSERT, (handle, tf.constant(["y", "x"]), tf.constant([1.5, 2.5])))
    found = apply(table_rules.FIND, (handle, tf.constant(["x", "y", "q"]), tf.constant(0.0)))
    np.testing.assert_array_equal(found.numpy(), np.array([2.5, 1.5, 0.0], np.float32))
    static = _table(tf.string, tf.float32)
    with pytest.raises(errors.InvalidArgumentError, match="Table is not mutable"):
        apply(table_rules.INSERT, (static, tf.constant(["x"]), tf.constant([0.5])))
