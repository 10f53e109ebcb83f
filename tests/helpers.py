"""Helpers shared by the test suite: finite differences and array checks."""
import numpy as np

import tensorflux as tf


def numeric_grad(f, x, eps=1e-6):
    """Central differences of the scalar function `f` (float64 numpy -> float) at `x`."""
    g = np.zeros_like(x)
    it = np.nditer(x, flags=["multi_index"])
    for _ in it:
        i = it.multi_index
        xp, xm = x.copy(), x.copy()
        xp[i] += eps
        xm[i] -= eps
        g[i] = (f(xp) - f(xm)) / (2 * eps)
    return g


def check(t, expected, dtype=None):
    """`t` is a tensor equal to `expected` (same shape, and `dtype` when given)."""
    expected = np.asarray(expected)
    assert isinstance(t, tf.Tensor)
    assert t.shape == expected.shape
    if dtype is not None:
        assert t.dtype is dtype
    np.testing.assert_array_equal(t.numpy(), expected)
