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

def check_gradients(fn, arrays, seed=0):
    """Tape gradients of sum(fn(*xs) * w) against finite differences, and traced == eager."""
    arrays = [np.asarray(a, dtype=np.float64) for a in arrays]
    out = fn(*[tf.constant(a) for a in arrays])
    weights = np.random.default_rng(seed).uniform(-1.5, 1.5, size=out.shape.as_list())

    def tape_grads(*xs):
        with tf.GradientTape() as tape:
            tape.watch(list(xs))
            loss = tf.reduce_sum(fn(*xs) * tf.constant(weights))
        return tape.gradient(loss, list(xs))

    eager = tape_grads(*[tf.constant(a) for a in arrays])
    for k, a in enumerate(arrays):
        def scalar(value, k=k):
            args = [tf.constant(value if j == k else b) for j, b in enumerate(arrays)]
            return float(np.sum(fn(*args).numpy() * weights))
        np.testing.assert_allclose(eager[k].numpy(), numeric_grad(scalar, a), rtol=1e-6, atol=1e-7)
    graph = tf.function(tape_grads)(*[tf.constant(a) for a in arrays])
    for e, g in zip(eager, graph):
        np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-12, atol=1e-12)
