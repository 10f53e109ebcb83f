"""Fusion of large elementwise chains: region finding, both backends, and agreement with NumPy."""
import numpy as np
import pytest

import tensorflux as tf
from tensorflux._src.runtime import fusion


def chain(x, y):
    a = x * 1.5 + y
    b = tf.abs(a * a - 1.0) / 3.0
    return tf.maximum(b, 0.1) - 0.01, a  # `a` is used by two ops and returned: a region output


def reference(x, y):
    a = x * np.float32(1.5) + y
    b = np.abs(a * a - np.float32(1)) / np.float32(3)
    return np.maximum(b, np.float32(0.1)) - np.float32(0.01), a


@pytest.fixture(params=["numpy", "numba"])
def backend(request, monkeypatch):
    if request.param == "numpy":
        monkeypatch.setattr(fusion, "_NUMBA", [None])
    else:
        module = pytest.importorskip("numba", reason="the numba backend needs `pip install tensorflux[jit]`")
        monkeypatch.setattr(fusion, "_NUMBA", [module])
    return request.param


def test_fused_chain_matches_numpy(backend):
    rs = np.random.RandomState(0)
    x = rs.uniform(-2, 2, 600_000).astype(np.float32)
    y = rs.uniform(-2, 2, 600_000).astype(np.float32)
    f = tf.function(chain)
    out, a = f(tf.constant(x), tf.constant(y))
    ref_out, ref_a = reference(x, y)
    np.testing.assert_array_equal(out.numpy(), ref_out)
    np.testing.assert_array_equal(a.numpy(), ref_a)
    source = f.get_concrete_function(tf.constant(x), tf.constant(y)).generated_source()
    assert source.count("fused") >= 1 and "k_Mul" not in source


def test_small_arrays_are_not_fused():
    x = tf.constant(np.ones(100, np.float32))
    source = tf.function(chain).get_concrete_function(x, x).generated_source()
    assert "fused" not in source


def test_broadcast_operands_and_non_float_stay_unfused():
    big = tf.constant(np.ones((600, 1000), np.float32))
    row = tf.constant(np.ones((1, 1000), np.float32))
    source = tf.function(lambda a, b: (a + b) * 2.0 + a).get_concrete_function(big, row).generated_source()
    assert "k_AddV2(a, b)" in source or "AddV2" in source  # the broadcasting add is a plain call
    ints = tf.constant(np.ones(600_000, np.int32))
    source = tf.function(lambda a: (a + 1) * 2).get_concrete_function(ints).generated_source()
    assert "fused" not in source


def test_nan_and_division_by_zero_follow_numpy(backend):
    x = np.zeros(300_000, np.float32)
    x[:3] = [np.nan, 1.0, -1.0]
    f = tf.function(lambda t: tf.maximum(t / 0.0, -5.0) * 1.0 + 0.0)
    with np.errstate(all="ignore"):
        expected = np.maximum(x / np.float32(0), np.float32(-5)) * np.float32(1) + np.float32(0)
    np.testing.assert_array_equal(f(tf.constant(x)).numpy(), expected)
