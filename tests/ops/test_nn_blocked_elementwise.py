"""Relu, ReluGrad and BiasAdd over big arrays by blocks in the worker threads (`by_blocks` in
ops/nn/activations.py): the same bits as one NumPy pass, special values included (NaN, ±inf, -0.0), and
the gradients of the convnet's conv -> bias -> relu chain against finite differences."""
import numpy as np
import pytest

import tensorflux as tf
from tensorflux._src.ops import registry
from tensorflux._src.ops.linalg import blas_threads
from tensorflux._src.ops.nn import activations

from helpers import check_gradients


@pytest.fixture
def blocked(monkeypatch):
    """Every array of 64 values or more split, over two threads."""
    monkeypatch.setattr(activations, "BLOCKED_MIN_ELEMENTS", 64)
    monkeypatch.setattr(activations, "_BLOCK_ELEMENTS", 16)
    blas_threads._start()
    if blas_threads._state["workers"] < 2:
        import queue
        import threading
        monkeypatch.setitem(blas_threads._state, "workers", 2)
        if blas_threads._state["queue"] is None:
            jobs = queue.SimpleQueue()
            threading.Thread(target=blas_threads._serve, args=(jobs,), daemon=True).start()
            monkeypatch.setitem(blas_threads._state, "queue", jobs)


def _values(shape, dtype, seed):
    rng = np.random.RandomState(seed)
    a = rng.randn(*shape).astype(dtype)
    flat = a.reshape(-1)
    flat[::7] = 0.0
    flat[1::11] = -0.0
    flat[2::13] = np.inf
    flat[3::17] = -np.inf
    flat[4::19] = np.nan
    return a


def _same(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(a.view(np.uint8), b.view(np.uint8))     # bit for bit, signed zeros too


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_blocked_kernels_give_one_pass_bits(blocked, dtype):
    x = _values((5, 9, 7, 6), dtype, 0)
    g = _values((5, 9, 7, 6), dtype, 1)
    bias = np.random.RandomState(2).randn(6).astype(dtype)
    ops = registry.OPS
    _same(ops["Relu"].kernel(x), np.maximum(x, dtype(0)))
    with np.errstate(invalid="ignore"):    # inf·0 in the reference multiply (the kernel's NaN is silent)
        _same(ops["ReluGrad"].kernel(g, x), np.multiply(g, x > 0, dtype=g.dtype))
    _same(ops["BiasAdd"].kernel(x, bias, "NHWC"), np.add(x, bias))
    _same(ops["BiasAdd"].kernel(x, np.random.RandomState(3).randn(9).astype(dtype), "NCHW"),
          np.add(x, np.random.RandomState(3).randn(9).astype(dtype).reshape(9, 1, 1)))


def test_blocks_are_used_above_the_size(blocked, monkeypatch):
    calls = []
    real = blas_threads.run_blocks
    monkeypatch.setattr(blas_threads, "run_blocks", lambda fn, n: (calls.append(n), real(fn, n)))
    registry.OPS["Relu"].kernel(np.ones((10, 10), np.float32))
    registry.OPS["Relu"].kernel(np.ones((4, 4), np.float32))        # below the size: one pass
    assert len(calls) == 1 and calls[0] >= 2


def test_conv_bias_relu_gradients_finite_differences(blocked):
    rng = np.random.RandomState(5)
    x, w, b = rng.randn(2, 6, 6, 1), rng.randn(3, 3, 1, 4), rng.randn(4)
    check_gradients(lambda x, w, b: tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, w, 1, "VALID"), b)) + 0.0,
                    [x, w, b], rtol=1e-6, atol=1e-8)


def test_eager_and_traced_agree(blocked):
    rng = np.random.RandomState(8)
    x = tf.constant(rng.randn(4, 8, 8, 3).astype(np.float32))
    b = tf.constant(rng.randn(3).astype(np.float32))

    def f(x, b):
        with tf.GradientTape() as tape:
            tape.watch([x, b])
            y = tf.reduce_sum(tf.nn.relu(tf.nn.bias_add(x, b)) ** 2)
        return [y] + tape.gradient(y, [x, b])
    for a, c in zip(f(x, b), tf.function(f)(x, b)):
        np.testing.assert_array_equal(a.numpy(), c.numpy())
