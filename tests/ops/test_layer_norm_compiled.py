"""FusedLayerNorm(Grad)'s compiled row loops give the NumPy form's bits (sgemv-order row sums)."""
import numpy as np
import pytest

import tensorflux as tf
from tensorflux._src.ops import jit
from tensorflux._src.ops.nn import compiled_layer_norm as compiled
from tensorflux._src.ops.nn import normalization as norm

numba = pytest.importorskip("numba")


def _build():
    loops = jit.build_now("fused_layer_norm", compiled._compile)
    assert loops is not None
    if not compiled._sums_in_sgemv_t_order():
        pytest.skip("this BLAS adds row sums in another order: the NumPy form runs")
    return loops


def _numpy_form(monkeypatch, fn, *args):
    with monkeypatch.context() as m:
        m.setattr(compiled, "layer_norm_loops", lambda w, gamma: None)
        return fn(*args)


def _same_bits(a, b):
    return np.array_equal(np.asarray(a).view(np.uint32), np.asarray(b).view(np.uint32))


def _data(rng, shape, scale_exp):
    return (rng.standard_normal(shape) * 10.0 ** rng.integers(-scale_exp, scale_exp + 1, shape)
            + rng.standard_normal(shape[-1:]) * 3).astype(np.float32)


SHAPES = [(32, 200, 32), (6400, 32), (6, 8), (2, 7, 16), (130, 64), (2, 3, 4, 8), (2, 256), (70, 24), (16, 200, 32)]


@pytest.mark.parametrize("shape", SHAPES)
def test_forward_and_backward_bits_equal_the_numpy_form(monkeypatch, shape):
    _build()
    rng = np.random.default_rng(len(shape) * 100 + shape[-1])
    for trial in range(6):
        begin = len(shape) - 1 if trial % 2 == 0 or len(shape) < 3 else len(shape) - 2
        width_shape = shape[begin:]
        if int(np.prod(width_shape)) % 8 or int(np.prod(width_shape)) > 4096:
            begin = len(shape) - 1
            width_shape = shape[begin:]
        x = _data(rng, shape, trial % 4)
        gamma = rng.standard_normal(width_shape).astype(np.float32)
        beta = rng.standard_normal(width_shape).astype(np.float32)
        dy = _data(rng, shape, 2)
        eps = [1e-6, 1e-3, 1e-5, 0.0][trial % 4]
        # the compiled loops see these arrays (checked, so that the test cannot pass on the NumPy form)
        assert compiled.layer_norm_loops(norm._rows(x, begin), gamma.reshape(-1)) is not None
        got = norm._fused_layer_norm_kernel(x, gamma, beta, begin, eps)
        want = _numpy_form(monkeypatch, norm._fused_layer_norm_kernel, x, gamma, beta, begin, eps)
        assert _same_bits(got, want), (shape, trial)
        got_b = norm._fused_layer_norm_grad_kernel(dy, x, gamma, begin, eps)
        want_b = _numpy_form(monkeypatch, norm._fused_layer_norm_grad_kernel, dy, x, gamma, begin, eps)
        for g, w in zip(got_b, want_b):
            assert _same_bits(g, w), (shape, trial)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_constant_rows_and_special_values_fall_back_alike(monkeypatch):
    _build()
    rng = np.random.default_rng(9)
    x = rng.standard_normal((64, 32)).astype(np.float32)
    x[3] = 2.5                     # zero variance: r = 1/sqrt(eps)
    x[4] = -0.0
    gamma = rng.standard_normal(32).astype(np.float32)
    beta = rng.standard_normal(32).astype(np.float32)
    dy = rng.standard_normal((64, 32)).astype(np.float32)
    for bad in (None, np.nan, np.inf, -np.inf):
        xb = x.copy()
        if bad is not None:
            xb[10, 5] = bad
        got = norm._fused_layer_norm_kernel(xb, gamma, beta, 1, 1e-6)
        want = _numpy_form(monkeypatch, norm._fused_layer_norm_kernel, xb, gamma, beta, 1, 1e-6)
        assert _same_bits(got, want), bad
        for g, w in zip(norm._fused_layer_norm_grad_kernel(dy, xb, gamma, 1, 1e-6),
                        _numpy_form(monkeypatch, norm._fused_layer_norm_grad_kernel, dy, xb, gamma, 1, 1e-6)):
            assert _same_bits(g, w), bad


def test_keras_layer_eager_traced_and_gradient_against_finite_differences():
    _build()
    rng = np.random.default_rng(4)
    layer = tf.keras.layers.LayerNormalization(epsilon=1e-6)
    x = tf.constant(rng.standard_normal((4, 50, 32)).astype(np.float32))
    eager = layer(x).numpy()
    traced = tf.function(lambda t: layer(t))(x).numpy()
    assert _same_bits(eager, traced)
    # gradient of a weighted sum w.r.t. x, in float64 via the layer's formula at float32 inputs
    weights = rng.standard_normal((4, 50, 32)).astype(np.float32)
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.reduce_sum(layer(x) * weights)
    grad = tape.gradient(loss, x).numpy()

    def f(v):
        mu = v.mean(-1, keepdims=True)
        var = ((v - mu) ** 2).mean(-1, keepdims=True)
        y = (v - mu) / np.sqrt(var + 1e-6) * layer.gamma.numpy().astype(np.float64) + layer.beta.numpy()
        return np.sum(y * weights)
    base = x.numpy().astype(np.float64)
    picks = [(0, 0, 0), (1, 7, 31), (3, 49, 16), (2, 25, 3)]
    for idx in picks:
        up, down = base.copy(), base.copy()
        up[idx] += 1e-4
        down[idx] -= 1e-4
        numeric = (f(up) - f(down)) / 2e-4
        assert abs(grad[idx] - numeric) <= 2e-3 * max(1.0, abs(numeric)), (idx, grad[idx], numeric)
