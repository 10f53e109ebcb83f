"""A max/min reduction over values tying at -0.0 and +0.0 keeps the last of them, as TensorFlow 2.21 does
on CPU (the expected signs below were printed by TensorFlow 2.21), on the NumPy path and in the compiled
kernel alike."""
import numpy as np
import pytest

import tensorflux as tf


def _signs(x):
    return np.signbit(np.asarray(x)).tolist()


@pytest.mark.parametrize("reduce", [tf.reduce_max, tf.reduce_min])
def test_total_of_tied_zeros_takes_the_last_sign(reduce):
    for values, negative in [([-0.0, 0.0], False), ([0.0, -0.0], True), ([-0.0, -0.0, 0.0], False),
                             ([0.0, -0.0, -0.0], True)]:
        assert _signs(reduce(tf.constant(values)).numpy()) == negative, values
    assert _signs(tf.reduce_max(tf.constant(-0.0)).numpy()) is True


def test_long_and_axis_reductions_take_the_last_sign():
    rng = np.random.default_rng(7)
    for n in (9, 17, 64, 1000, 100003):
        x = np.where(rng.random(n) < 0.5, np.float32(-0.0), np.float32(0.0)).astype(np.float32)
        assert _signs(tf.reduce_max(x).numpy()) == _signs(x[-1])
        assert _signs(tf.reduce_min(x).numpy()) == _signs(x[-1])
    x = np.where(rng.random((9, 17)) < 0.5, np.float32(-0.0), np.float32(0.0)).astype(np.float32)
    assert _signs(tf.reduce_max(x, axis=0).numpy()) == _signs(x[-1, :])
    assert _signs(tf.reduce_min(x, axis=1, keepdims=True).numpy()[:, 0]) == _signs(x[:, -1])
    square = tf.constant([[0.0, -0.0], [-0.0, 0.0]])
    assert _signs(tf.reduce_max(square, keepdims=True).numpy()) == [[False]]
    # other values around the zeros, and NaN, as before
    assert tf.reduce_max(tf.constant([1.0, -0.0, 0.0])).numpy() == 1.0
    assert np.isnan(tf.reduce_max(tf.constant([np.nan, 0.0])).numpy())


def test_compiled_kernel_keeps_the_same_sign(tmp_path, monkeypatch):
    pytest.importorskip("numba")
    monkeypatch.setenv("TENSORFLUX_CACHE_DIR", str(tmp_path))

    def shifted(x):
        return x - tf.reduce_max(x), x + tf.reduce_min(x)

    compiled = tf.function(shifted, autograph=False, jit_compile=True)
    plain = tf.function(shifted, autograph=False, jit_compile=False)
    rng = np.random.default_rng(3)
    for _ in range(6):
        x = tf.constant(np.where(rng.random(12) < 0.5, np.float32(-0.0), np.float32(0.0)).astype(np.float32))
        for e, g in zip(plain(x), compiled(x)):
            np.testing.assert_array_equal(e.numpy().view(np.uint32), g.numpy().view(np.uint32))
    assert hasattr(compiled.get_concrete_function(x)._fn, "kernel")
