"""The compiled MaxPoolGrad for windows that tile the input (stride = window size, every window inside
it: `_tiled_max_pool_grad_loop` in ops/nn/compiled_pooling.py): each input position written once, the
rows and columns no window covers set to zero. Against pooling.py's NumPy path (ties, NaN, ±inf, odd
sizes), against finite differences, and chosen only where it applies."""
import numpy as np
import pytest

import tensorflux as tf
from tensorflux._src.ops import jit
from tensorflux._src.ops.nn import compiled_pooling, pooling

from helpers import check_gradients


@pytest.fixture
def compiled(monkeypatch):
    if jit.numba_or_none() is None:
        pytest.skip("numba is not installed")
    monkeypatch.setattr(compiled_pooling, "HOT_CALLS", 1)
    monkeypatch.setattr(compiled_pooling, "MIN_BLOCKED_ELEMENTS", 0)


def _numpy_path(x, y, dy, k, s, padding, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(compiled_pooling, "max_pool_grad_2d", lambda *a: None)
        return pooling._max_pool_grad_kernel(x, y, dy, k, s, padding, (), "NHWC")


CASES = [((3, 7, 9, 5), 2, "VALID"), ((2, 8, 8, 4), 2, "VALID"), ((2, 9, 10, 3), 3, "VALID"),
         ((2, 8, 6, 4), 2, "SAME"), ((2, 7, 7, 3), 2, "SAME"), ((1, 5, 5, 2), 3, "SAME")]


@pytest.mark.parametrize("shape,size,padding", CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_compiled_gradient_equals_numpy_path(compiled, monkeypatch, shape, size, padding, dtype):
    rng = np.random.RandomState(sum(shape) + size)
    x = np.maximum(rng.randn(*shape), 0).astype(dtype)       # ReLU-like: windows of tied zeros
    flat = x.reshape(-1)
    flat[5::23] = np.inf
    flat[7::29] = np.nan
    k, s = (1, size, size, 1), (1, size, size, 1)
    y = pooling._max_pool_kernel(x, k, s, padding, (), "NHWC")
    dy = rng.randn(*y.shape).astype(dtype)
    calls = []
    real = compiled_pooling._by_images
    monkeypatch.setattr(compiled_pooling, "_by_images", lambda fn, a: (calls.append(1), real(fn, a)))
    got = pooling._max_pool_grad_kernel(x, y, dy, k, s, padding, (), "NHWC")
    assert calls, "the compiled loop ran"
    np.testing.assert_array_equal(got, _numpy_path(x, y, dy, k, s, padding, monkeypatch))


def test_tiled_loop_chosen_only_when_windows_tile(compiled, monkeypatch):
    used = []
    real = compiled_pooling._compile

    def spy(numba):
        loop, tiled = real(numba)

        def tiled_spy(*a):
            used.append(a[0].shape)
            return tiled(*a)
        return loop, tiled_spy
    monkeypatch.setattr(compiled_pooling, "_compile", spy)
    monkeypatch.setattr(jit, "_BUILT", {})
    monkeypatch.setattr(jit, "_REQUESTS", {})
    for shape, size, step, padding in [((2, 8, 8, 3), 2, 2, "VALID"), ((2, 7, 7, 3), 2, 2, "SAME"),
                                       ((2, 9, 9, 3), 3, 2, "VALID")]:
        x = np.random.RandomState(0).rand(*shape).astype(np.float32)
        k, s = (1, size, size, 1), (1, step, step, 1)
        y = pooling._max_pool_kernel(x, k, s, padding, (), "NHWC")
        pooling._max_pool_grad_kernel(x, y, np.ones_like(y), k, s, padding, (), "NHWC")
    assert {u[1:] for u in used} == {(8, 8, 3)}        # SAME's padded last window, and stride != size: general


def test_gradient_finite_differences(compiled):
    rng = np.random.RandomState(2)
    x = rng.randn(2, 7, 9, 3)
    check_gradients(lambda a: tf.nn.max_pool2d(a, 2, 2, "VALID"), [x], rtol=1e-6, atol=1e-8)
