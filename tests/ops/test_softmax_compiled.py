"""Softmax/SoftmaxGrad's compiled row loops give the NumPy passes' bits (NumPy's pairwise row sums)."""
import numpy as np
import pytest

import tensorflux as tf
from tensorflux._src.ops import jit
from tensorflux._src.ops.nn import compiled_softmax as compiled
from tensorflux._src.ops.nn import losses

numba = pytest.importorskip("numba")


def _build():
    loops = jit.build_now("softmax_rows", compiled._compile)
    assert loops is not None
    return loops


def _numpy_form(monkeypatch, fn, *args):
    with monkeypatch.context() as m:
        m.setattr(compiled, "softmax_loops", lambda *arrays: None)
        return fn(*args)


def _same_bits(a, b):
    return np.array_equal(np.asarray(a).view(np.uint32), np.asarray(b).view(np.uint32))


def test_pairwise_sum_is_numpys_for_every_length():
    loops = _build()
    rng = np.random.default_rng(1)
    lengths = list(range(1, 300)) + [511, 512, 513, 1000, 1024, 1500, 2000]
    assert all(compiled.pairwise_levels(n) <= compiled.PAIRWISE_LEVELS for n in lengths)
    for n in lengths:
        rows = (rng.standard_normal((8, n)) * 10.0 ** rng.integers(-6, 6, (8, n))).astype(np.float32)
        rows[0, : min(n, 3)] = -0.0
        rows[1] = -0.0                 # a row of negative zeros sums to +0.0 in NumPy
        y = np.ones_like(rows)
        out = np.empty_like(rows)
        # the gradient loop's sum of grad * 1 is the row's pairwise sum: out = (g - sum) * 1
        assert loops[2](y, rows, out)
        want = (rows - rows.sum(axis=1, keepdims=True)) * y
        assert _same_bits(out, want), n
    # rows needing more halvings than the loops are written for are left to NumPy
    assert compiled.softmax_loops(np.zeros((2, 4097), np.float32)) is None


SHAPES = [(32, 2, 200, 200), (4, 1000, 40), (300, 513), (70, 2000), (1000, 131), (17, 8, 1024), (5000, 7)]


@pytest.mark.parametrize("shape", SHAPES)
def test_softmax_and_gradient_bits_equal_the_numpy_passes(monkeypatch, shape):
    _build()
    rng = np.random.default_rng(sum(shape))
    for scale in (0.1, 3.0, 40.0):
        x = (rng.standard_normal(shape) * scale).astype(np.float32)
        x.reshape(-1)[rng.integers(0, x.size, 5)] = -np.inf      # masked positions, as attention masks give
        x.reshape(-1)[rng.integers(0, x.size, 5)] = -0.0
        assert compiled.softmax_loops(x.reshape(-1, shape[-1])) is not None
        got = losses._softmax_kernel(x, len(shape) - 1)
        want = _numpy_form(monkeypatch, losses._softmax_kernel, x, len(shape) - 1)
        assert _same_bits(got, want), (shape, scale)
        g = (rng.standard_normal(shape) * scale).astype(np.float32)
        g.reshape(-1)[rng.integers(0, g.size, 5)] = -0.0
        got_g = losses._softmax_grad_kernel(got, g, len(shape) - 1)
        want_g = _numpy_form(monkeypatch, losses._softmax_grad_kernel, got, g, len(shape) - 1)
        assert _same_bits(got_g, want_g), (shape, scale)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_rows_with_nan_or_infinity_fall_back_alike(monkeypatch):
    _build()
    rng = np.random.default_rng(8)
    x = rng.standard_normal((800, 200)).astype(np.float32)
    x[5, 7] = np.nan
    x[9, 0] = np.inf
    x[11, :] = -np.inf
    x[700, 3] = np.nan
    got = losses._softmax_kernel(x, 1)
    want = _numpy_form(monkeypatch, losses._softmax_kernel, x, 1)
    assert _same_bits(got, want)
    y = _numpy_form(monkeypatch, losses._softmax_kernel, np.where(np.isfinite(x), x, 0).astype(np.float32), 1)
    g = rng.standard_normal((800, 200)).astype(np.float32)
    g[3, 3] = np.nan
    g[400, 1] = np.inf
    got_g = losses._softmax_grad_kernel(y, g, 1)
    want_g = _numpy_form(monkeypatch, losses._softmax_grad_kernel, y, g, 1)
    assert _same_bits(got_g, want_g)


def test_eager_traced_and_gradient_against_finite_differences():
    _build()
    rng = np.random.default_rng(2)
    logits = tf.constant(rng.standard_normal((8, 2, 100, 100)).astype(np.float32))
    eager = tf.nn.softmax(logits).numpy()
    traced = tf.function(lambda t: tf.nn.softmax(t))(logits).numpy()
    assert _same_bits(eager, traced)
    weights = rng.standard_normal((8, 2, 100, 100)).astype(np.float32)
    with tf.GradientTape() as tape:
        tape.watch(logits)
        loss = tf.reduce_sum(tf.nn.softmax(logits) * weights)
    grad = tape.gradient(loss, logits).numpy()
    base = logits.numpy().astype(np.float64)

    def f(v, idx):   # only the row of idx changes
        row = v[idx[:3]]
        e = np.exp(row - row.max())
        return np.sum(e / e.sum() * weights[idx[:3]].astype(np.float64))
    for idx in [(0, 0, 0, 0), (7, 1, 99, 50), (3, 0, 42, 99)]:
        up, down = base.copy(), base.copy()
        up[idx] += 1e-3
        down[idx] -= 1e-3
        numeric = (f(up, idx) - f(down, idx)) / 2e-3
        assert abs(grad[idx] - numeric) <= 1e-4 + 1e-3 * abs(numeric), (idx, grad[idx], numeric)


def test_exp_reproduces_numpys_exp_on_its_check_and_fresh_values():
    loops = _build()
    if loops[3] is None:
        pytest.skip("np.exp here is not the AVX2/FMA kernel the fused loop reproduces")
    rng = np.random.default_rng(12)
    x = np.concatenate([-np.abs(rng.standard_normal(200_000) * 30), rng.uniform(-104.5, 89.5, 200_000),
                        -rng.exponential(1e-3, 50_000), np.linspace(-104, -86, 50_001)]).astype(np.float32)
    # through the fused softmax on one-element rows: exp(x - x) is 1, so use rows [x, 0]: max 0 when x <= 0
    rows = np.stack([np.minimum(x, 0), np.zeros_like(x)], axis=1).astype(np.float32)
    out = np.empty_like(rows)
    assert loops[3](rows, out)
    e = np.exp(rows)
    want = e / (np.float32(0.0) + e.sum(axis=1, keepdims=True))
    assert _same_bits(out, want)
