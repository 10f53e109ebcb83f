"""The convolution-training kernels of issue 20: products split over threads (`ops/linalg/blas_threads.py`),
conv2d and its two gradients through them, and the compiled MaxPoolGrad (`ops/nn/compiled_pooling.py`).
Gradients against finite differences, eager against traced, the fast paths against the plain ones."""
import numpy as np
import pytest

import tensorflux as tf
from tensorflux._src.ops import jit
from tensorflux._src.ops.linalg import blas_threads
from tensorflux._src.ops.nn import compiled_pooling, pooling

from helpers import check_gradients


@pytest.fixture
def split_everything(monkeypatch):
    """Every product goes through the threaded blocks, however small, with blocks of 8 rows."""
    monkeypatch.setattr(blas_threads, "PARALLEL_MIN_FLOPS", 0)
    monkeypatch.setattr(blas_threads, "MIN_BLOCK_ROWS", 8)
    blas_threads._start()
    if blas_threads._state["workers"] < 2:
        monkeypatch.setitem(blas_threads._state, "workers", 2)
        if blas_threads._state["queue"] is None:
            import queue
            import threading
            jobs = queue.SimpleQueue()
            threading.Thread(target=blas_threads._serve, args=(jobs,), daemon=True).start()
            monkeypatch.setitem(blas_threads._state, "queue", jobs)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gemm_blocks_equal_one_product(split_everything, dtype):
    rng = np.random.RandomState(0)
    a, b = rng.rand(333, 47).astype(dtype), rng.rand(47, 29).astype(dtype)
    np.testing.assert_allclose(blas_threads.gemm(a, b), a @ b, rtol=1e-5 if dtype == np.float32 else 1e-12)
    c = rng.rand(333, 29).astype(dtype)
    np.testing.assert_allclose(blas_threads.gemm_tn(a, c), a.T @ c, rtol=1e-5 if dtype == np.float32 else 1e-12)
    # a transposed right-hand side (the input gradient passes the filter's transpose) and an `out` buffer
    out = np.empty((333, 47), dtype)
    assert blas_threads.gemm(c, b.T, out=out) is out
    np.testing.assert_allclose(out, c @ b.T, rtol=1e-5 if dtype == np.float32 else 1e-12)


def test_gemm_same_bits_with_and_without_threads(split_everything, monkeypatch):
    rng = np.random.RandomState(8)
    a, b, c = rng.rand(1000, 70).astype(np.float32), rng.rand(70, 33).astype(np.float32), \
        rng.rand(1000, 33).astype(np.float32)
    threaded = blas_threads.gemm(a, b), blas_threads.gemm_tn(a, c)
    monkeypatch.setitem(blas_threads._state, "workers", 1)
    assert blas_threads.usable_workers() == 1
    for got, want in zip(threaded, (blas_threads.gemm(a, b), blas_threads.gemm_tn(a, c))):
        np.testing.assert_array_equal(got, want)


def test_gemm_error_in_a_block_reaches_the_caller(split_everything):
    a = np.ones((64, 4))
    with pytest.raises(ValueError):
        blas_threads.gemm(a, np.ones((5, 3)))


def test_gemm_big_product_uses_workers_and_matches():
    rng = np.random.RandomState(1)
    a, b = rng.rand(4096, 300).astype(np.float32), rng.rand(300, 64).astype(np.float32)
    np.testing.assert_allclose(blas_threads.gemm(a, b), a @ b, rtol=1e-5)
    np.testing.assert_allclose(blas_threads.gemm_tn(a, rng.rand(4096, 8).astype(np.float32)).shape, (300, 8))


def test_worker_count_respects_openblas_num_threads(monkeypatch):
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "1")
    assert blas_threads.worker_count() == 1
    monkeypatch.delenv("OPENBLAS_NUM_THREADS")
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    assert blas_threads.worker_count() >= 1


@pytest.mark.parametrize("strides,padding,dilations", [(1, "VALID", 1), (2, "SAME", 1), (1, "SAME", 2),
                                                       (1, [[0, 0], [1, 2], [0, 1], [0, 0]], 1)])
def test_conv2d_gradients_through_split_products(split_everything, strides, padding, dilations):
    rng = np.random.RandomState(2)
    x, w = rng.randn(2, 6, 7, 3), rng.randn(3, 3, 3, 4)
    check_gradients(lambda a, b: tf.nn.conv2d(a, b, strides, padding, dilations=dilations), [x, w],
                    rtol=1e-6, atol=1e-8)


def test_conv2d_split_equals_unsplit_float32(monkeypatch):
    rng = np.random.RandomState(3)
    x, w = rng.randn(8, 13, 13, 8).astype(np.float32), rng.randn(3, 3, 8, 16).astype(np.float32)
    dy = rng.randn(8, 11, 11, 16).astype(np.float32)

    def run():
        with tf.GradientTape() as tape:
            xt, wt = tf.constant(x), tf.constant(w)
            tape.watch([xt, wt])
            y = tf.nn.conv2d(xt, wt, 1, "VALID")
        return [y.numpy()] + [g.numpy() for g in tape.gradient(y, [xt, wt], output_gradients=tf.constant(dy))]
    plain = run()
    monkeypatch.setattr(blas_threads, "PARALLEL_MIN_FLOPS", 0)
    monkeypatch.setattr(blas_threads, "MIN_BLOCK_ROWS", 8)
    for a, b in zip(run(), plain):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-4)


@pytest.fixture
def compiled_pool(monkeypatch):
    if jit.numba_or_none() is None:
        pytest.skip("numba is not installed")
    monkeypatch.setattr(compiled_pooling, "HOT_CALLS", 1)


def _numpy_max_pool_grad(x, y, dy, ksize, strides, padding):
    """pooling.py's NumPy path, reached by making the compiled loop decline."""
    original = compiled_pooling.max_pool_grad_2d
    compiled_pooling.max_pool_grad_2d = lambda *a: None
    try:
        return pooling._max_pool_grad_kernel(x, y, dy, ksize, strides, padding, (), "NHWC")
    finally:
        compiled_pooling.max_pool_grad_2d = original


@pytest.mark.parametrize("ksize,strides,padding", [(2, 2, "VALID"), (3, 2, "SAME"), (2, 1, "VALID"), (3, 3, "SAME")])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_compiled_max_pool_grad_matches_numpy_path(compiled_pool, ksize, strides, padding, dtype):
    rng = np.random.RandomState(4)
    # ReLU-like input: many all-zero windows, where the first tap must take the whole gradient
    x = np.maximum(rng.randn(3, 9, 8, 5), 0).astype(dtype)
    k, s = (1, ksize, ksize, 1), (1, strides, strides, 1)
    y = pooling._max_pool_kernel(x, k, s, padding, (), "NHWC")
    dy = rng.randn(*y.shape).astype(dtype)
    dy[0, 0, 0, 0] = np.inf      # an infinite gradient reaches only the chosen tap
    compiled = pooling._max_pool_grad_kernel(x, y, dy, k, s, padding, (), "NHWC")
    expected = _numpy_max_pool_grad(x, y, dy, k, s, padding)
    assert compiled.dtype == dtype
    # overlapping windows add their shares into an input in another order: rounding differs
    np.testing.assert_allclose(compiled, expected, rtol=1e-6, atol=1e-6)


def test_compiled_max_pool_grad_first_maximum_takes_the_gradient(compiled_pool):
    # TensorFlow 2.21: tf.nn.max_pool2d of zeros [1, 2, 2, 1], gradient of the sum -> [[1, 0], [0, 0]]
    x = tf.zeros([1, 2, 2, 1])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.max_pool2d(x, 2, 2, "VALID")
    np.testing.assert_array_equal(tape.gradient(y, x).numpy().reshape(2, 2), [[1, 0], [0, 0]])


def test_max_pool_gradient_finite_differences_compiled(compiled_pool):
    rng = np.random.RandomState(5)
    x = rng.permutation(2 * 6 * 6 * 3).reshape(2, 6, 6, 3).astype(np.float64)  # distinct: differentiable
    check_gradients(lambda a: tf.nn.max_pool2d(a, 2, 2, "VALID"), [x], rtol=1e-6, atol=1e-8)
    check_gradients(lambda a: tf.nn.max_pool2d(a, 3, 2, "SAME"), [x], rtol=1e-6, atol=1e-8)


def test_max_pool_nchw_gradient_compiled(compiled_pool):
    rng = np.random.RandomState(6)
    x = rng.permutation(2 * 3 * 4 * 4).reshape(2, 3, 4, 4).astype(np.float32)
    k, s = (1, 1, 2, 2), (1, 1, 2, 2)
    y = pooling._max_pool_kernel(x, k, s, "VALID", (), "NCHW")
    dy = rng.randn(*y.shape).astype(np.float32)
    got = pooling._max_pool_grad_kernel(x, y, dy, k, s, "VALID", (), "NCHW")
    nhwc = _numpy_max_pool_grad(x.transpose(0, 2, 3, 1), y.transpose(0, 2, 3, 1), dy.transpose(0, 2, 3, 1),
                                (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    np.testing.assert_array_equal(got, nhwc.transpose(0, 3, 1, 2))


def test_winograd_chunks_over_threads_equal_one_thread(split_everything, monkeypatch):
    from tensorflux._src.ops.nn import winograd
    if winograd.kernels(now=True) is None:
        pytest.skip("numba is not installed")
    rng = np.random.RandomState(7)
    x, w = rng.randn(4, 14, 13, 32).astype(np.float32), rng.randn(3, 3, 32, 40).astype(np.float32)
    pads = [(1, 1), (1, 1)]
    monkeypatch.setattr(blas_threads, "usable_workers", lambda: 2)
    threaded = winograd.conv2d_3x3(x, w, pads)
    monkeypatch.setattr(blas_threads, "usable_workers", lambda: 1)
    np.testing.assert_array_equal(threaded, winograd.conv2d_3x3(x, w, pads))
    direct = tf.nn.conv2d(x.astype(np.float64), w.astype(np.float64), 1, "SAME").numpy()
    np.testing.assert_allclose(threaded, direct, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("ksize,strides,padding", [(2, 2, "VALID"), (3, 2, "SAME"), (2, 1, "VALID"),
                                                   (3, 1, [[0, 0], [2, 0], [0, 1], [0, 0]])])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_compiled_max_pool_matches_numpy_path(monkeypatch, ksize, strides, padding, dtype):
    if jit.numba_or_none() is None:
        pytest.skip("numba is not installed")
    monkeypatch.setattr(compiled_pooling, "HOT_CALLS", 1)
    rng = np.random.RandomState(9)
    x = rng.randn(2, 7, 8, 5).astype(dtype)
    x[0, 1, 1, 0] = np.nan            # NaN wins its windows, as in np.maximum
    x[1, 2, 3, 1] = -np.inf
    explicit = ()
    if not isinstance(padding, str):
        padding, explicit = "EXPLICIT", tuple(v for p in padding for v in p)
    k, s = (1, ksize, ksize, 1), (1, strides, strides, 1)
    compiled = pooling._max_pool_kernel(x, k, s, padding, explicit, "NHWC")
    monkeypatch.setattr(compiled_pooling, "max_pool_2d", lambda *a: None)
    expected = pooling._max_pool_kernel(x, k, s, padding, explicit, "NHWC")
    assert compiled.dtype == dtype
    np.testing.assert_array_equal(compiled, expected)


def test_compiled_max_pool_window_in_explicit_padding_only(monkeypatch):
    if jit.numba_or_none() is None:
        pytest.skip("numba is not installed")
    monkeypatch.setattr(compiled_pooling, "HOT_CALLS", 1)
    x = np.ones((1, 2, 2, 1), np.float32)
    explicit = (0, 0, 3, 0, 0, 0, 0, 0)       # three rows of padding above: the first window sees none of x
    got = pooling._max_pool_kernel(x, (1, 2, 2, 1), (1, 2, 2, 1), "EXPLICIT", explicit, "NHWC")
    np.testing.assert_array_equal(got[0, :, 0, 0], [-np.inf, 1, 1][:got.shape[1]])
