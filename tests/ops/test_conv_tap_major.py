"""conv2d's tap-major patches for inputs of one or two channels (`_tap_major` in ops/nn/conv.py): the
forward product and the filter gradient read a [KH·KW·C, N·OH·OW] copy transposed, by blocks of output
pixels over the worker threads. Checked against a float64 direct sum, against finite differences (eager
and traced), and blocked over threads against one thread (same bits)."""
import numpy as np
import pytest

import tensorflux as tf
from tensorflux._src.ops.linalg import blas_threads
from tensorflux._src.ops.nn import conv

from helpers import check_gradients


@pytest.fixture
def two_threads(monkeypatch):
    """Output-pixel blocks of at most 4 KiB, shared over two threads."""
    monkeypatch.setattr(conv, "_OUTPUT_BLOCK_BYTES", 1 << 12)
    blas_threads._start()
    if blas_threads._state["workers"] < 2:
        import queue
        import threading
        monkeypatch.setitem(blas_threads._state, "workers", 2)
        if blas_threads._state["queue"] is None:
            jobs = queue.SimpleQueue()
            threading.Thread(target=blas_threads._serve, args=(jobs,), daemon=True).start()
            monkeypatch.setitem(blas_threads._state, "queue", jobs)


def test_tap_major_only_for_one_or_two_channels():
    for c, dtype, used in [(1, np.float32, True), (2, np.float32, True), (3, np.float32, False),
                           (1, np.float64, True), (2, np.float64, False)]:
        x = np.zeros((2, 5, 5, c), dtype)
        assert (conv._tap_major(x, (3, 3), (3, 3), (1, 1), (1, 1)) is not None) == used


def _direct(x, w, strides, dilations, pads):
    """float64 correlation of x padded by pads, tap by tap."""
    x = np.pad(x.astype(np.float64), [(0, 0), pads[0], pads[1], (0, 0)])
    kh, kw = w.shape[:2]
    oh = (x.shape[1] - (kh - 1) * dilations - 1) // strides + 1
    ow = (x.shape[2] - (kw - 1) * dilations - 1) // strides + 1
    out = np.zeros((x.shape[0], oh, ow, w.shape[3]))
    for i in range(kh):
        for j in range(kw):
            patch = x[:, i * dilations:i * dilations + (oh - 1) * strides + 1:strides,
                      j * dilations:j * dilations + (ow - 1) * strides + 1:strides]
            out += patch @ w[i, j].astype(np.float64)
    return out


GEOMETRIES = [(1, "VALID", 1, [(0, 0), (0, 0)]), (2, "VALID", 1, [(0, 0), (0, 0)]),
              (1, "VALID", 2, [(0, 0), (0, 0)]), (1, [[0, 0], [1, 2], [2, 0], [0, 0]], 1, [(1, 2), (2, 0)])]


@pytest.mark.parametrize("strides,padding,dilations,pads", GEOMETRIES)
@pytest.mark.parametrize("channels", [1, 2])
def test_forward_and_filter_gradient_equal_direct_sums(two_threads, strides, padding, dilations, pads, channels):
    rng = np.random.RandomState(3)
    x = rng.rand(6, 12, 11, channels).astype(np.float32)
    w = rng.randn(3, 3, channels, 5).astype(np.float32)
    want = _direct(x, w, strides, dilations, pads)
    dy = rng.randn(*want.shape).astype(np.float32)
    xt, wt = tf.constant(x), tf.constant(w)
    with tf.GradientTape() as tape:
        tape.watch(wt)
        y = tf.nn.conv2d(xt, wt, strides, padding, dilations=dilations)
    dw = tape.gradient(y, wt, output_gradients=tf.constant(dy))
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-5, atol=1e-5)
    padded = np.pad(x.astype(np.float64), [(0, 0), pads[0], pads[1], (0, 0)])
    want_dw = np.zeros(w.shape)
    oh, ow = want.shape[1:3]
    for i in range(3):
        for j in range(3):
            patch = padded[:, i * dilations:i * dilations + (oh - 1) * strides + 1:strides,
                           j * dilations:j * dilations + (ow - 1) * strides + 1:strides]
            want_dw[i, j] = np.einsum("nyxc,nyxo->co", patch, dy.astype(np.float64))
    np.testing.assert_allclose(dw.numpy(), want_dw, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("strides,padding,dilations", [(1, "SAME", 1), (2, "SAME", 1), (1, "VALID", 2)])
def test_gradients_finite_differences_float64(two_threads, strides, padding, dilations):
    rng = np.random.RandomState(4)
    x, w = rng.randn(3, 7, 6, 1), rng.randn(3, 2, 1, 4)
    check_gradients(lambda a, b: tf.nn.conv2d(a, b, strides, padding, dilations=dilations), [x, w],
                    rtol=1e-6, atol=1e-8)


def test_same_bits_whatever_the_threads(two_threads, monkeypatch):
    rng = np.random.RandomState(6)
    x = rng.rand(16, 20, 20, 1).astype(np.float32)
    w = rng.randn(3, 3, 1, 8).astype(np.float32)

    def run():
        xt, wt = tf.constant(x), tf.constant(w)
        with tf.GradientTape() as tape:
            tape.watch(wt)
            y = tf.nn.conv2d(xt, wt, 1, "VALID")
        return y.numpy(), tape.gradient(y, wt).numpy()
    threaded = run()
    assert len(conv._pixel_blocks(16 * 18 * 18, 8 * 4)) > 1
    monkeypatch.setitem(blas_threads._state, "workers", 1)
    for a, b in zip(run(), threaded):
        np.testing.assert_array_equal(a, b)


def test_eager_and_traced_agree():
    rng = np.random.RandomState(7)
    x = tf.constant(rng.rand(32, 28, 28, 1).astype(np.float32))
    w = tf.constant(rng.randn(3, 3, 1, 32).astype(np.float32))

    def step(x, w):
        with tf.GradientTape() as tape:
            tape.watch(w)
            y = tf.reduce_sum(tf.nn.relu(tf.nn.conv2d(x, w, 1, "VALID")) ** 2)
        return y, tape.gradient(y, w)
    eager = step(x, w)
    traced = tf.function(step)(x, w)
    for a, b in zip(eager, traced):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)
