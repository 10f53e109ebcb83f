"""Training kernels that run by blocks over the worker threads (issue 20): the softmax and its gradient by
blocks of rows, the fused layer normalisation and its gradient by blocks of 64-row multiples, tall float32
einsum products by blocks of OpenBLAS panels, and the dropout select as a bitwise AND. Each gives the bits
of its one-pass form (special values and signed zeros included), the gradients match finite differences
through the blocked paths, and eager and traced runs agree."""
import numpy as np
import pytest

import tensorflux as tf
from tensorflux._src.ops import registry
from tensorflux._src.ops.linalg import blas_threads
from tensorflux._src.ops.linalg import einsum as einsum_module
from tensorflux._src.ops.nn import basic, losses, normalization

from helpers import check_gradients


@pytest.fixture
def two_workers(monkeypatch):
    """Two worker threads even on a one-core runner, so the blocks really are shared out."""
    blas_threads._start()
    if blas_threads._state["workers"] < 2:
        import queue
        import threading
        monkeypatch.setitem(blas_threads._state, "workers", 2)
        if blas_threads._state["queue"] is None:
            jobs = queue.SimpleQueue()
            threading.Thread(target=blas_threads._serve, args=(jobs,), daemon=True).start()
            monkeypatch.setitem(blas_threads._state, "queue", jobs)


@pytest.fixture
def small_blocks(two_workers, monkeypatch):
    """Blocked paths from a few dozen values on, in small blocks."""
    monkeypatch.setattr(losses, "ROW_BLOCK_MIN_ELEMENTS", 32)
    monkeypatch.setattr(losses, "_ROW_BLOCK_ELEMENTS", 40)
    monkeypatch.setattr(normalization, "LAYER_NORM_BLOCKED_MIN_ELEMENTS", 32)
    monkeypatch.setattr(normalization, "_LAYER_NORM_BLOCK_ELEMENTS", 64)


def _same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(np.ascontiguousarray(a).reshape(-1).view(np.uint8),
                                  np.ascontiguousarray(b).reshape(-1).view(np.uint8))


def _with_specials(a):
    flat = a.reshape(-1)
    flat[3::29] = np.inf
    flat[5::31] = -np.inf
    flat[7::37] = np.nan
    flat[11::41] = -0.0
    return a


def _counting_blocks(monkeypatch):
    calls = []
    real = blas_threads.run_blocks
    monkeypatch.setattr(blas_threads, "run_blocks", lambda fn, n: (calls.append(n), real(fn, n))[1])
    return calls


# -- softmax -------------------------------------------------------------------------------------------

def _softmax_one_pass(x):
    out = np.subtract(x, np.max(x, axis=-1, keepdims=True), dtype=x.dtype)
    np.exp(out, out=out)
    out /= np.sum(out, axis=-1, keepdims=True)
    return out


def _softmax_grad_one_pass(y, g):
    out = np.multiply(g, y)
    total = np.sum(out, axis=-1, keepdims=True)
    np.subtract(g, total, out=out)
    out *= y
    return out


@pytest.mark.filterwarnings("ignore::RuntimeWarning")    # inf - inf in a worker thread, as in one pass
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(4, 3, 70, 23), (7000, 3), (20, 1000)])   # above the exact limit
def test_softmax_blocks_give_one_pass_bits(small_blocks, monkeypatch, dtype, shape):
    calls = _counting_blocks(monkeypatch)
    rng = np.random.RandomState(0)
    x = (rng.randn(*shape) * 4).astype(dtype)
    g = rng.randn(*shape).astype(dtype)
    with np.errstate(invalid="ignore"):
        y = registry.OPS["Softmax"].kernel(x, len(shape) - 1)
        _same(y, _softmax_one_pass(x))
        _same(registry.OPS["SoftmaxGrad"].kernel(y, g, -1), _softmax_grad_one_pass(y, g))
        special = _with_specials(x.copy())
        _same(registry.OPS["Softmax"].kernel(special, -1), _softmax_one_pass(special))
    assert len(calls) == 3 and min(calls) >= 2


def test_softmax_other_axes_and_narrow_floats_keep_their_paths(small_blocks, monkeypatch):
    calls = _counting_blocks(monkeypatch)
    x = np.random.RandomState(1).randn(60, 500).astype(np.float32)
    registry.OPS["Softmax"].kernel(x, 0)
    registry.OPS["Softmax"].kernel(x.astype(np.float16), 1)
    registry.OPS["Softmax"].kernel(np.asfortranarray(x), 1)
    assert calls == []


@pytest.mark.parametrize("axis", [-1, 1])
def test_softmax_gradients_through_blocks_match_finite_differences(small_blocks, axis):
    x = np.random.RandomState(2).randn(3, 4, 9)
    check_gradients(lambda a: tf.nn.softmax(a, axis=axis), [x])


def test_long_rows_softmax_matches_closed_form(two_workers):
    # A [1, 1, 2, 200000] row pair is blocked at the real sizes; the probabilities of a linear ramp are
    # closed-form, so this checks the blocks end to end.
    ramp = np.linspace(-3.0, 3.0, 200000, dtype=np.float64)
    x = np.stack([ramp, -ramp])[None, None].astype(np.float32)
    expected = np.exp(np.stack([ramp, -ramp]) - 3.0)
    expected /= expected.sum(axis=-1, keepdims=True)
    np.testing.assert_allclose(tf.nn.softmax(x).numpy()[0, 0], expected, rtol=2e-5)


# -- layer normalisation -------------------------------------------------------------------------------

def _layer_norm_one_block(monkeypatch, *args, grad=False):
    with monkeypatch.context() as m:
        m.setattr(normalization, "LAYER_NORM_BLOCKED_MIN_ELEMENTS", 1 << 62)
        kernel = normalization._fused_layer_norm_grad_kernel if grad else normalization._fused_layer_norm_kernel
        return kernel(*args)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,begin", [((4, 50, 8), 2), ((130, 10, 5), 1), ((300, 7), 1)])
def test_layer_norm_blocks_give_one_block_bits(small_blocks, monkeypatch, dtype, shape, begin):
    calls = _counting_blocks(monkeypatch)
    rng = np.random.RandomState(3)
    x, dy = rng.randn(*shape).astype(dtype), rng.randn(*shape).astype(dtype)
    gamma, beta = rng.randn(*shape[begin:]).astype(dtype), rng.randn(*shape[begin:]).astype(dtype)
    _same(normalization._fused_layer_norm_kernel(x, gamma, beta, begin, 1e-6),
          _layer_norm_one_block(monkeypatch, x, gamma, beta, begin, 1e-6))
    for a, b in zip(normalization._fused_layer_norm_grad_kernel(dy, x, gamma, begin, 1e-6),
                    _layer_norm_one_block(monkeypatch, dy, x, gamma, begin, 1e-6, grad=True)):
        _same(a, b)
    assert calls and min(calls) >= 2


def test_layer_norm_block_starts_are_multiples_of_64_rows(small_blocks, monkeypatch):
    starts = []
    real = normalization._layer_norm_stats
    monkeypatch.setattr(normalization, "_layer_norm_stats",
                        lambda w, eps: (starts.append(w.shape[0]), real(w, eps))[1])
    x = np.random.RandomState(4).randn(1000, 3).astype(np.float32)
    normalization._fused_layer_norm_kernel(x, np.ones(3, np.float32), np.zeros(3, np.float32), 1, 1e-3)
    assert len(starts) > 2 and all(rows % 64 == 0 for rows in starts[:-1]) and sum(starts) == 1000


def test_layer_norm_gradients_through_blocks_match_finite_differences(small_blocks):
    rng = np.random.RandomState(5)
    x, gamma, beta = rng.randn(3, 30, 4), rng.randn(4), rng.randn(4)
    layer = normalization.fused_layer_norm
    check_gradients(lambda a, g, b: layer(a, g, b, 2, 1e-3), [x, gamma, beta], rtol=1e-5, atol=1e-8)


def test_keras_layer_norm_eager_and_traced_agree(small_blocks):
    rng = np.random.RandomState(6)
    x = tf.constant(rng.randn(4, 40, 8).astype(np.float32))
    layer = tf.keras.layers.LayerNormalization(epsilon=1e-6)
    layer.build(x.shape)

    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(layer(x) ** 2)
        return [y] + tape.gradient(y, [x] + layer.trainable_variables)
    for a, b in zip(f(x), tf.function(f)(x)):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


# -- tall einsum products --------------------------------------------------------------------------------

@pytest.mark.parametrize("equation,shapes,rows", [
    ("abc,cde->abde", [(32, 200, 32), (32, 2, 32)], 6400),     # the attention's query projection
    ("abde,cde->abc", [(32, 200, 2, 32), (32, 2, 32)], 6400),  # its input gradient
    ("abc,cd->abd", [(17, 191, 24), (24, 40)], 17 * 191),       # rows not a multiple of the panel
])
def test_tall_products_run_in_panel_blocks(two_workers, monkeypatch, equation, shapes, rows):
    calls = _counting_blocks(monkeypatch)
    einsum_module._PLANS.clear()
    rng = np.random.RandomState(7)
    operands = [rng.randn(*s).astype(np.float32) for s in shapes]
    out = registry.OPS["Einsum"].kernel(*operands, equation=equation)
    assert calls == [-(-rows // einsum_module.TALL_PANEL_ROWS)]
    np.testing.assert_allclose(out, np.einsum(equation, *[o.astype(np.float64) for o in operands]),
                               rtol=1e-5, atol=1e-4)
    with monkeypatch.context() as m:    # the same blocks run on the calling thread: the same bits
        m.setattr(blas_threads._this_thread, "alone", True, raising=False)
        _same(registry.OPS["Einsum"].kernel(*operands, equation=equation), out)


def test_small_and_float64_products_are_not_split(two_workers, monkeypatch):
    calls = _counting_blocks(monkeypatch)
    einsum_module._PLANS.clear()
    rng = np.random.RandomState(8)
    registry.OPS["Einsum"].kernel(rng.randn(100, 8).astype(np.float32), rng.randn(8, 4).astype(np.float32),
                                  equation="ij,jk->ik")
    registry.OPS["Einsum"].kernel(rng.randn(6400, 32), rng.randn(32, 64), equation="ij,jk->ik")
    assert calls == []


# -- dropout -------------------------------------------------------------------------------------------

class _Stream:
    def __init__(self, seed):
        self.generator = np.random.default_rng(seed)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,noise_shape", [((40, 30), None), ((6, 5, 4), (6, 1, 4)), ((), None)])
def test_dropout_select_gives_the_select_bits(dtype, shape, noise_shape):
    x = np.asarray(np.random.RandomState(9).randn(*shape) * 3).astype(dtype)
    if x.size > 40:
        _with_specials(x)
    for rate in (0.1, 0.5):
        out, mask = basic._dropout_kernel(x, rate, noise_shape, 0, 0, _Stream(3))
        dims = shape if noise_shape is None else noise_shape
        keep = _Stream(3).generator.random(dims, dtype=dtype) >= rate
        scale = dtype(1.0 / (1.0 - rate))
        with np.errstate(invalid="ignore"):
            _same(out, np.where(keep, np.multiply(x, scale), dtype(0)))
        _same(mask, np.broadcast_to(np.where(keep, scale, dtype(0)), shape))
        assert not np.signbit(out[~np.broadcast_to(keep, shape)]).any()   # dropped values are +0.0


def test_dropout_gradient_matches_finite_differences_with_its_mask():
    x = tf.constant(np.random.RandomState(10).randn(20, 30))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.dropout(x, 0.3, seed=1)
    grad = tape.gradient(y, x, output_gradients=tf.ones_like(y) * 2.0).numpy()
    kept = y.numpy() != 0
    np.testing.assert_array_equal(grad, np.where(kept, 2.0 / 0.7, 0.0))


# -- the densified Embedding gradient (UnsortedSegmentSum) -------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("vocab,count,width", [(20000, 6400, 32), (30, 2000, 16), (5, 40, 24)])
def test_segment_sum_in_layers_gives_add_at_bits(dtype, vocab, count, width):
    rng = np.random.RandomState(11)
    ids = rng.randint(0, vocab, count).astype(np.int32)
    rows = rng.randn(count, width).astype(dtype)
    rows[::5] = -0.0          # a row of -0.0 alone stays +0.0 (added to the zero), as np.add.at gives
    rows[::7, 1] = np.inf
    rows[::11, 1] = -np.inf   # inf - inf where they meet: NaN, in the same place as np.add.at's
    expected = np.zeros((vocab, width), np.float32 if dtype == np.float16 else dtype)
    with np.errstate(invalid="ignore"):
        np.add.at(expected, ids, rows.astype(expected.dtype))
        out = registry.OPS["UnsortedSegmentSum"].kernel(rows, ids, np.int32(vocab))
    _same(out, expected.astype(dtype))


def test_embedding_gradient_densified_matches_tensorflow():
    # tf.convert_to_tensor of the IndexedSlices gradient of tf.gather(table, ids) with output gradient
    # rows 1..5 (TensorFlow 2.21): repeated ids 2 and 0 sum their rows.
    table = tf.Variable(np.zeros((4, 16), np.float32))
    ids = tf.constant([2, 0, 2, 3, 0])
    with tf.GradientTape() as tape:
        out = tf.gather(table, ids)
    grad = tape.gradient(out, table, output_gradients=tf.constant(
        np.arange(1, 6, dtype=np.float32)[:, None] * np.ones((1, 16), np.float32)))
    assert isinstance(grad, tf.IndexedSlices)
    np.testing.assert_array_equal(tf.convert_to_tensor(grad).numpy()[:, 0], [7.0, 0.0, 4.0, 4.0])


# -- stacked einsum products (attention) ---------------------------------------------------------------

@pytest.mark.parametrize("equation", ["aecd,abcd->acbe", "acbe,aecd->abcd", "acbe,abcd->aecd", "abcd,acbe->aecd"])
def test_attention_products_are_whole_sgemm_calls_into_the_output(two_workers, monkeypatch, equation):
    # The four attention products of a [4, 50, 3, 16] query/key/value (keys 60): computed in blocks of the
    # first batch label straight into the output's order; each [queries, keys] matrix must equal one
    # np.matmul of the same two matrices copied contiguous (one whole sgemm call), bit for bit.
    calls = _counting_blocks(monkeypatch)
    monkeypatch.setattr(blas_threads, "PARALLEL_MIN_FLOPS", 1)
    einsum_module._PLANS.clear()
    rng = np.random.RandomState(12)
    sizes = dict(a=4, b=50, c=3, d=16, e=60)
    terms, out_term = equation.split("->")
    operands = [rng.randn(*[sizes[ch] for ch in t]).astype(np.float32) for t in terms.split(",")]
    out = registry.OPS["Einsum"].kernel(*operands, equation=equation)
    assert out.flags.c_contiguous and out.shape == tuple(sizes[ch] for ch in out_term)
    assert calls and min(calls) >= 2
    x_term, y_term = terms.split(",")
    for a in range(sizes["a"]):
        for c in range(sizes["c"]):
            def matrix(array, term, rows, cols):
                index = tuple(a if ch == "a" else c if ch == "c" else slice(None) for ch in term)
                kept = [ch for ch in term if ch not in "ac"]
                return np.ascontiguousarray(array[index].transpose(kept.index(rows), kept.index(cols)))
            free = [ch for ch in out_term if ch not in "ac"]          # the output's (rows, cols) labels
            (summed,) = (set(x_term) & set(y_term)) - set(out_term)
            row_op, col_op = (0, 1) if free[0] in x_term else (1, 0)
            expected = np.matmul(matrix(operands[row_op], (x_term, y_term)[row_op], free[0], summed),
                                 matrix(operands[col_op], (x_term, y_term)[col_op], summed, free[1]))
            got = out[tuple(a if ch == "a" else c if ch == "c" else slice(None) for ch in out_term)]
            _same(np.ascontiguousarray(got), expected)
