"""Winograd F(2×2, 3×3) convolution: the transform against a direct float64 sum on every tile geometry
(odd and even sizes, every padding), conv2d and its input gradient routed through it, and the rule that
decides when it is used."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tensorflux as tf
from tensorflux._src.ops.nn import conv, winograd
from tensorflux._src.ops import jit
from tests.helpers import check_gradients

pytest.importorskip("numba")


def direct(x, w, pads):
    """VALID 3×3 correlation of x padded by pads, one product per tap, in float64."""
    x = np.pad(x.astype(np.float64), [(0, 0), *pads, (0, 0)])
    n, h, wd, _ = x.shape
    out = np.zeros((n, h - 2, wd - 2, w.shape[3]))
    for a in range(3):
        for b in range(3):
            out += x[:, a:a + h - 2, b:b + wd - 2] @ w[a, b].astype(np.float64)
    return out


@pytest.fixture
def always_winograd(monkeypatch):
    """Send every eligible conv through Winograd and count the calls (so no test passes vacuously)."""
    calls = []
    real = winograd.conv2d_3x3
    winograd.kernels(now=True)
    monkeypatch.setattr(winograd, "MIN_CHANNELS", 1)
    monkeypatch.setattr(winograd, "MIN_MACS", 0)
    monkeypatch.setattr(winograd, "MIN_PIXELS_PER_CHANNEL", 0)
    monkeypatch.setattr(winograd, "conv2d_3x3", lambda *a: calls.append(a[0].shape) or real(*a))
    return calls


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 3), h=st.integers(1, 9), wd=st.integers(1, 9), c=st.integers(1, 5), o=st.integers(1, 5),
       pads=st.tuples(*[st.integers(0, 2)] * 4), seed=st.integers(0, 2 ** 16))
def test_transform_matches_direct_sum(n, h, wd, c, o, pads, seed):
    top, bottom, left, right = pads
    if h + top + bottom < 3 or wd + left + right < 3:
        return
    rng = np.random.default_rng(seed)
    x, w = rng.standard_normal((n, h, wd, c)), rng.standard_normal((3, 3, c, o))
    got = winograd.conv2d_3x3(x, w, [(top, bottom), (left, right)])
    np.testing.assert_allclose(got, direct(x, w, [(top, bottom), (left, right)]), rtol=1e-12, atol=1e-12)


def test_float32_error_is_that_of_a_direct_sum():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 40, 37, 96)).astype(np.float32)
    w = rng.standard_normal((3, 3, 96, 80)).astype(np.float32)
    exact = direct(x, w, [(1, 1), (1, 1)])
    got = winograd.conv2d_3x3(x, w, [(1, 1), (1, 1)])
    assert got.dtype == np.float32
    im2col_error = np.abs(direct(x, w, [(1, 1), (1, 1)]).astype(np.float32) - exact).max()
    assert np.abs(got - exact).max() <= 8 * max(im2col_error, 1e-5 * np.abs(exact).max())


def test_chunks_span_images_and_tile_rows(monkeypatch):
    # A chunk budget of a few tiles makes chunks end mid-image and cross from one image to the next.
    monkeypatch.setattr(winograd, "_CHUNK_BYTES", 16 * 8 * 3 * 3)
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal((3, 7, 5, 3)), rng.standard_normal((3, 3, 3, 2))
    np.testing.assert_allclose(winograd.conv2d_3x3(x, w, [(1, 1), (1, 1)]), direct(x, w, [(1, 1), (1, 1)]),
                               rtol=1e-12, atol=1e-12)


def test_empty_channels_and_outputs():
    assert winograd.conv2d_3x3(np.ones((1, 4, 4, 0)), np.ones((3, 3, 0, 2)), [(0, 0), (0, 0)]).tolist() == \
        np.zeros((1, 2, 2, 2)).tolist()
    assert winograd.conv2d_3x3(np.ones((0, 4, 4, 2)), np.ones((3, 3, 2, 2)), [(1, 1), (1, 1)]).shape == (0, 4, 4, 2)


@pytest.mark.parametrize("padding", ["SAME", "VALID", [[0, 0], [2, 0], [1, 2], [0, 0]]])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
def test_conv2d_goes_through_winograd(always_winograd, padding, dtype):
    rng = np.random.default_rng(2)
    x, w = rng.standard_normal((2, 9, 8, 4)).astype(dtype), rng.standard_normal((3, 3, 4, 5)).astype(dtype)
    got = tf.nn.conv2d(x, w, strides=1, padding=padding)
    pads = {"SAME": [(1, 1), (1, 1)], "VALID": [(0, 0), (0, 0)]}.get(padding, [(2, 0), (1, 2)]) \
        if isinstance(padding, str) else [(2, 0), (1, 2)]
    assert got.dtype.as_numpy_dtype == dtype and always_winograd
    tol = {np.float64: 1e-12, np.float32: 1e-5, np.float16: 1e-2}[dtype]
    np.testing.assert_allclose(got.numpy().astype(np.float64), direct(x, w, pads), rtol=tol, atol=tol * 10)


def test_nchw_and_traced(always_winograd):
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal((2, 4, 6, 7)), rng.standard_normal((3, 3, 4, 3))
    f = tf.function(lambda x: tf.nn.conv2d(x, w, strides=1, padding="SAME", data_format="NCHW"))
    expected = direct(np.moveaxis(x, 1, -1), w, [(1, 1), (1, 1)])
    np.testing.assert_allclose(np.moveaxis(f(x).numpy(), 1, -1), expected, rtol=1e-12, atol=1e-12)
    assert always_winograd


def test_other_convolutions_keep_im2col(always_winograd):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((1, 8, 8, 4))
    tf.nn.conv2d(x, rng.standard_normal((3, 3, 4, 2)), strides=2, padding="SAME")
    tf.nn.conv2d(x, rng.standard_normal((3, 3, 4, 2)), strides=1, padding="SAME", dilations=2)
    tf.nn.conv2d(x, rng.standard_normal((5, 5, 4, 2)), strides=1, padding="SAME")
    tf.nn.conv2d(x, rng.standard_normal((3, 3, 2, 2)), strides=1, padding="SAME")   # two groups
    assert always_winograd == []


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_input_gradient_through_winograd(always_winograd, padding):
    rng = np.random.default_rng(5)
    x, w = rng.standard_normal((2, 6, 5, 3)), rng.standard_normal((3, 3, 3, 4))
    check_gradients(lambda x, w: tf.nn.conv2d(x, w, strides=1, padding=padding), [x, w])
    assert len(always_winograd) >= 2   # the forward and the input gradient


def test_input_gradient_matches_im2col(always_winograd):
    rng = np.random.default_rng(6)
    dy = rng.standard_normal((2, 7, 4, 5))
    w = rng.standard_normal((3, 3, 4, 5))
    attrs = dict(strides=[1, 1, 1, 1], padding="EXPLICIT", explicit_paddings=[0, 0, 1, 2, 2, 0, 0, 0],
                 data_format="NHWC", dilations=[1, 1, 1, 1])
    got = conv._conv2d_backprop_input_kernel(np.array([2, 6, 4, 4]), w, dy, **attrs)
    assert always_winograd
    always_winograd.clear()
    winograd.MIN_CHANNELS = 10 ** 9     # restored by monkeypatch
    expected = conv._conv2d_backprop_input_kernel(np.array([2, 6, 4, 4]), w, dy, **attrs)
    assert not always_winograd
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


def test_preferred_only_for_large_convolutions(monkeypatch):
    winograd.kernels(now=True)
    assert winograd.preferred(200 * 200, 100, 100, np.dtype(np.float32))
    assert winograd.preferred(56 * 56, 64, 64, np.dtype(np.float32))
    assert not winograd.preferred(56 * 56, 32, 32, np.dtype(np.float32))     # 32 channels: im2col as fast
    assert not winograd.preferred(128 * 11 * 11, 32, 64, np.dtype(np.float32))  # the MNIST convnet's layer 2
    assert not winograd.preferred(64 * 64, 16, 16, np.dtype(np.float32))      # few channels
    assert not winograd.preferred(7 * 7, 512, 512, np.dtype(np.float32))      # few tiles
    assert not winograd.preferred(8 * 8, 32, 32, np.dtype(np.float32))        # little work
    assert not winograd.preferred(200 * 200, 100, 100, np.dtype(np.int32))
    monkeypatch.setattr(jit, "_BUILT", {"winograd": False})      # numba missing, or its build failed
    assert not winograd.preferred(200 * 200, 100, 100, np.dtype(np.float32))


def test_im2col_until_big_convolutions_are_hot(monkeypatch):
    monkeypatch.setattr(winograd, "MIN_MACS", 0)
    monkeypatch.setattr(winograd, "MIN_PIXELS_PER_CHANNEL", 0)
    monkeypatch.setattr(jit, "_BUILT", {})
    monkeypatch.setattr(jit, "_REQUESTS", {})
    real = winograd.conv2d_3x3
    calls = []
    monkeypatch.setattr(winograd, "conv2d_3x3", lambda *a: calls.append(1) or real(*a))
    rng = np.random.default_rng(8)
    x, w = rng.standard_normal((1, 20, 20, 64)), rng.standard_normal((3, 3, 64, 64))
    expected = direct(x, w, [(1, 1), (1, 1)])
    tf.nn.conv2d(x[:, :, :, :8], w[:, :, :8], strides=1, padding="SAME")    # too few channels: not counted
    for k in range(winograd.HOT_CALLS + 1):
        got = tf.nn.conv2d(x, w, strides=1, padding="SAME").numpy()
        np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-10)
        assert len(calls) == max(0, k - winograd.HOT_CALLS + 2)
    assert "winograd" in jit._BUILT


def test_calls_never_compile_again(always_winograd):
    rng = np.random.default_rng(9)
    for dtype in (np.float32, np.float64):
        x, w = rng.standard_normal((2, 5, 7, 3)).astype(dtype), rng.standard_normal((3, 3, 3, 2)).astype(dtype)
        tf.nn.conv2d(x, w, strides=1, padding="SAME")
        tf.nn.conv2d(x[:, :, ::2], w, strides=1, padding="VALID")   # a strided input is made contiguous
    assert len(always_winograd) == 4
    for dispatcher in winograd.kernels():
        assert len(dispatcher.signatures) == 2


@pytest.mark.parametrize("bad", [np.inf, -np.inf, np.nan])
def test_non_finite_values_take_the_direct_path(always_winograd, bad):
    # The transforms subtract neighbouring inputs: an inf inside a tile becomes inf - inf = NaN in
    # outputs where the direct sum gives ±inf, so inputs with non-finite values skip Winograd.
    rng = np.random.default_rng(7)
    x, w = rng.standard_normal((1, 6, 6, 2)), rng.standard_normal((3, 3, 2, 2))
    x[0, 2, 2, 0] = bad
    got = tf.nn.conv2d(x, w, strides=1, padding="VALID").numpy()
    assert always_winograd == []
    expected = direct(x, w, [(0, 0), (0, 0)])
    np.testing.assert_array_equal(np.isnan(got), np.isnan(expected))
    np.testing.assert_array_equal(np.isinf(got), np.isinf(expected))
