"""conv2d's im2col products copied and multiplied by blocks of images in the worker threads
(`_patches_times`, `_patches_transposed_times` in ops/nn/conv.py), and the stride-1 input gradient as a
forward correlation of the padded output gradient with the turned filter. Gradients against finite
differences (eager and traced), blocked against unblocked, against a float64 direct sum."""
import numpy as np
import pytest

import tensorflux as tf
from tensorflux._src.ops.linalg import blas_threads
from tensorflux._src.ops.nn import conv

from helpers import check_gradients


@pytest.fixture
def blocked(monkeypatch):
    """Every product in blocks of images, however small, on two threads."""
    monkeypatch.setattr(blas_threads, "PARALLEL_MIN_FLOPS", 0)
    monkeypatch.setattr(conv, "_PATCH_BLOCK_BYTES", 1)
    blas_threads._start()
    if blas_threads._state["workers"] < 2:
        import queue
        import threading
        monkeypatch.setitem(blas_threads._state, "workers", 2)
        if blas_threads._state["queue"] is None:
            jobs = queue.SimpleQueue()
            threading.Thread(target=blas_threads._serve, args=(jobs,), daemon=True).start()
            monkeypatch.setitem(blas_threads._state, "queue", jobs)


GEOMETRIES = [(1, "VALID", 1), (1, "SAME", 1), (1, "SAME", 2), (2, "SAME", 1), (2, "VALID", 1),
              (1, [[0, 0], [1, 2], [0, 1], [0, 0]], 1),
              (1, [[0, 0], [3, 0], [0, 4], [0, 0]], 1)]     # padding wider than the filter: per-tap adds


@pytest.mark.parametrize("strides,padding,dilations", GEOMETRIES)
@pytest.mark.parametrize("split", [False, True], ids=["one_block", "blocks"])
def test_conv2d_gradients_finite_differences(request, split, strides, padding, dilations):
    if split:
        request.getfixturevalue("blocked")
    rng = np.random.RandomState(4)
    x, w = rng.randn(3, 6, 7, 2), rng.randn(3, 2, 2, 3)
    check_gradients(lambda a, b: tf.nn.conv2d(a, b, strides, padding, dilations=dilations), [x, w],
                    rtol=1e-6, atol=1e-8)


def _direct(x, w, pads):
    """float64 VALID correlation of x padded by pads, summed tap by tap."""
    x = np.pad(x.astype(np.float64), [(0, 0), pads[0], pads[1], (0, 0)])
    kh, kw = w.shape[:2]
    oh, ow = x.shape[1] - kh + 1, x.shape[2] - kw + 1
    out = np.zeros((x.shape[0], oh, ow, w.shape[3]))
    for i in range(kh):
        for j in range(kw):
            out += x[:, i:i + oh, j:j + ow] @ w[i, j].astype(np.float64)
    return out


@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
def test_blocked_float32_equals_direct_sum(blocked, data_format):
    # The MNIST convnet's second layer, a smaller batch: forward, input and filter gradient.
    rng = np.random.RandomState(5)
    x = rng.randn(10, 13, 13, 32).astype(np.float32)
    w = rng.randn(3, 3, 32, 64).astype(np.float32)
    dy = rng.randn(10, 11, 11, 64).astype(np.float32)

    def layout(a):
        return np.ascontiguousarray(a.transpose(0, 3, 1, 2)) if data_format == "NCHW" else a
    xt, wt = tf.constant(layout(x)), tf.constant(w)
    with tf.GradientTape() as tape:
        tape.watch([xt, wt])
        y = tf.nn.conv2d(xt, wt, 1, "VALID", data_format=data_format)
    dx, dw = tape.gradient(y, [xt, wt], output_gradients=tf.constant(layout(dy)))
    np.testing.assert_allclose(y.numpy(), layout(_direct(x, w, [(0, 0), (0, 0)])), rtol=1e-4, atol=1e-4)
    turned = w[::-1, ::-1].transpose(0, 1, 3, 2)
    np.testing.assert_allclose(dx.numpy(), layout(_direct(dy, turned, [(2, 2), (2, 2)])), rtol=1e-4, atol=1e-4)
    want_dw = np.einsum("nyxc,nyxo->co", x[:, :11, :11].astype(np.float64), dy.astype(np.float64))
    np.testing.assert_allclose(dw.numpy()[0, 0], want_dw, rtol=1e-4, atol=1e-3)


def test_blocks_same_bits_whatever_the_threads(blocked, monkeypatch):
    rng = np.random.RandomState(6)
    x = rng.randn(9, 10, 10, 8).astype(np.float32)
    w = rng.randn(3, 3, 8, 16).astype(np.float32)

    def run():
        xt, wt = tf.constant(x), tf.constant(w)
        with tf.GradientTape() as tape:
            tape.watch([xt, wt])
            y = tf.nn.conv2d(xt, wt, 1, "SAME")
        return [y.numpy()] + [g.numpy() for g in tape.gradient(y, [xt, wt])]
    threaded = run()
    monkeypatch.setitem(blas_threads._state, "workers", 1)
    for a, b in zip(run(), threaded):
        np.testing.assert_array_equal(a, b)


def test_image_blocks_cover_the_batch_by_shape_only(monkeypatch):
    assert conv._image_blocks(128, 1000, 1) == [(0, 128)]                    # a small product: one block
    blocks = conv._image_blocks(128, 139_392, 1 << 30)
    assert blocks[0][0] == 0 and blocks[-1][1] == 128
    assert all(a[1] == b[0] for a, b in zip(blocks, blocks[1:]))
    assert len(blocks) >= 2 * blas_threads.worker_count()
    assert conv._image_blocks(1, 10 ** 9, 1 << 30) == [(0, 1)]


@pytest.mark.parametrize("ksize,strides,padding", [(2, 2, "VALID"), (3, 2, "SAME"), (2, 1, "VALID")])
def test_compiled_max_pool_by_image_blocks_equals_numpy_path(blocked, monkeypatch, ksize, strides, padding):
    from tensorflux._src.ops import jit
    from tensorflux._src.ops.nn import compiled_pooling, pooling
    if jit.numba_or_none() is None:
        pytest.skip("numba is not installed")
    monkeypatch.setattr(compiled_pooling, "HOT_CALLS", 1)
    monkeypatch.setattr(compiled_pooling, "MIN_BLOCKED_ELEMENTS", 0)
    rng = np.random.RandomState(7)
    x = np.maximum(rng.randn(7, 9, 8, 5), 0).astype(np.float32)    # ReLU-like: tied windows
    k, s = (1, ksize, ksize, 1), (1, strides, strides, 1)
    y = pooling._max_pool_kernel(x, k, s, padding, (), "NHWC")
    dy = rng.randn(*y.shape).astype(np.float32)
    dx = pooling._max_pool_grad_kernel(x, y, dy, k, s, padding, (), "NHWC")
    monkeypatch.setattr(compiled_pooling, "max_pool_2d", lambda *a: None)
    monkeypatch.setattr(compiled_pooling, "max_pool_grad_2d", lambda *a: None)
    np.testing.assert_array_equal(y, pooling._max_pool_kernel(x, k, s, padding, (), "NHWC"))
    np.testing.assert_allclose(dx, pooling._max_pool_grad_kernel(x, y, dy, k, s, padding, (), "NHWC"),
                               rtol=1e-6, atol=1e-6)


@pytest.fixture
def compiled_col2im(monkeypatch):
    from tensorflux._src.ops import jit
    from tensorflux._src.ops.nn import compiled_col2im as module
    if jit.numba_or_none() is None:
        pytest.skip("numba is not installed")
    monkeypatch.setattr(module, "HOT_CALLS", 1)


@pytest.mark.parametrize("strides,padding,dilations", GEOMETRIES + [(3, "SAME", 1), (2, "VALID", 1)])
@pytest.mark.parametrize("split", [False, True], ids=["one_block", "blocks"])
def test_input_gradient_through_compiled_col2im(request, compiled_col2im, split, strides, padding, dilations):
    if split:
        request.getfixturevalue("blocked")
    rng = np.random.RandomState(8)
    x, w = rng.randn(3, 7, 8, 2), rng.randn(3, 2, 2, 3)
    check_gradients(lambda a, b: tf.nn.conv2d(a, b, strides, padding, dilations=dilations), [x, w],
                    rtol=1e-6, atol=1e-8)


def test_compiled_col2im_equals_numpy_path(compiled_col2im, monkeypatch):
    from tensorflux._src.ops.nn import compiled_col2im as module
    rng = np.random.RandomState(9)
    w = rng.randn(3, 3, 32, 64).astype(np.float32)
    dy = rng.randn(6, 11, 11, 64).astype(np.float32)
    attrs = dict(strides=[1, 2, 2, 1], padding="SAME", explicit_paddings=[], data_format="NHWC",
                 dilations=[1, 1, 1, 1])
    dy = dy[:, :11, :11]
    compiled = conv._conv2d_backprop_input_kernel(np.array([6, 22, 22, 32]), w, dy, **attrs)
    monkeypatch.setattr(module, "col2im_kernel", lambda dtype: None)
    plain = conv._conv2d_backprop_input_kernel(np.array([6, 22, 22, 32]), w, dy, **attrs)
    np.testing.assert_allclose(compiled, plain, rtol=1e-5, atol=1e-5)
