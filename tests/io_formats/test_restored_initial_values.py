"""Loaders that assign every weight right after building a model skip the initializers they would
overwrite (state.variables.initial_values_restored), and read a zip entry without a second copy."""
import io
import threading
import zipfile

import numpy as np
import pytest

import tensorflux as tf
from tensorflux._src.io.saved_model import archive_limits
from tensorflux._src.state.variables import initial_values_restored


def _never_called():
    raise AssertionError("the initializer ran although the value is restored afterwards")


def test_callable_initial_values_with_shape_and_dtype_start_as_zeros():
    with initial_values_restored():
        v = tf.Variable(_never_called, dtype=tf.float32, shape=[3, 2])
        i = tf.Variable(_never_called, dtype=tf.int64, shape=[4])
    assert v.dtype == tf.float32 and v.shape == (3, 2) and not v.numpy().any()
    assert i.dtype == tf.int64 and i.numpy().tolist() == [0, 0, 0, 0]
    v.assign(np.ones((3, 2), np.float32))
    assert v.numpy().sum() == 6


def test_values_the_loader_cannot_stand_in_for_are_computed():
    with initial_values_restored():
        given = tf.Variable([1.0, 2.0])                                      # not a callable
        no_shape = tf.Variable(lambda: tf.ones([2]), dtype=tf.float32)       # shape unknown
        no_dtype = tf.Variable(lambda: tf.ones([2]), shape=[2])              # dtype unknown
        strings = tf.Variable(lambda: tf.constant(["a"]), dtype=tf.string, shape=[1])
    assert given.numpy().tolist() == [1.0, 2.0]
    assert no_shape.numpy().tolist() == no_dtype.numpy().tolist() == [1.0, 1.0]
    assert strings.numpy().tolist() == [b"a"]


def test_keras_layers_built_inside_skip_their_initializers_and_only_there():
    with initial_values_restored():
        with initial_values_restored():
            pass                                   # nesting: the outer scope still holds
        inside = tf.keras.layers.Dense(3)
        inside.build((None, 2))
    outside = tf.keras.layers.Dense(3)
    outside.build((None, 2))
    assert not inside.kernel.numpy().any()
    assert outside.kernel.numpy().any()             # glorot_uniform drew values again


def test_the_scope_is_per_thread():
    seen = []
    with initial_values_restored():
        worker = threading.Thread(target=lambda: seen.append(tf.Variable(lambda: tf.ones([2]), dtype=tf.float32,
                                                                         shape=[2]).numpy().tolist()))
        worker.start()
        worker.join()
    assert seen == [[1.0, 1.0]]


@pytest.mark.parametrize("compression", [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED])
def test_read_entry_returns_the_entry_bytes(compression):
    payload = np.random.default_rng(0).integers(0, 4, size=3 << 20, dtype=np.uint8).tobytes()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=compression) as archive:
        archive.writestr("model.weights.h5", payload)
        archive.writestr("empty", b"")
    with zipfile.ZipFile(buffer) as archive:
        assert archive_limits.read_entry(archive, "model.weights.h5", 4 << 20, "m.keras") == payload
        assert archive_limits.read_entry(archive, "empty", 10, "m.keras") == b""
        with pytest.raises(ValueError, match="declares 3145728 bytes, more than the limit"):
            archive_limits.read_entry(archive, "model.weights.h5", 1 << 20, "m.keras")
