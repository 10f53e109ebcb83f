"""The compiled Dropout loops (ops/nn/compiled_dropout.py) against the NumPy form they replace: the same
output and mask bits and the same generator state after every call of a sequence (odd and even sizes,
so that a pending half word carries from call to call), over rates, NaN/inf/-0.0 values, noise shapes,
float32 and float64, eager and traced; the gradient is still the mask."""
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("numba")
pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered in multiply:RuntimeWarning")

import tensorflux as tf
from tensorflux._src.ops import registry
from tensorflux._src.ops.nn import basic, compiled_dropout
from tensorflux._src.ops.random.seeds import RandomStream

_BITS = {4: np.uint32, 8: np.uint64}


@pytest.fixture(scope="module", autouse=True)
def built():
    assert compiled_dropout.DROPOUT.build_now() is not None, "the loops did not build or failed their checks"


def _numpy_form(monkeypatch):
    monkeypatch.setattr(basic, "_compiled_dropout", lambda *args: None)


def _bits(a):
    a = np.ascontiguousarray(a)
    return a.view(_BITS[a.dtype.itemsize])


def _same(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.array_equal(_bits(got), _bits(want))


def _values(rs, shape, dtype):
    x = rs.standard_normal(shape)
    flat = x.reshape(-1)
    if flat.size > 8:
        flat[::7], flat[1::11], flat[2::13], flat[3::17], flat[4::19] = np.inf, -np.inf, np.nan, -0.0, 1e-40
    return x.astype(dtype)


def _calls(shapes, rates, dtype, noise_shapes=None):
    """The kernel's outputs and the generator state after each call, all calls on one stream."""
    rs = np.random.RandomState(17)
    stream = RandomStream(5, 6)
    kernel = registry.OPS["Dropout"].kernel
    results = []
    for k, shape in enumerate(shapes):
        x = _values(rs, shape, dtype)
        rate = dtype(rates[k % len(rates)])
        noise = noise_shapes[k % len(noise_shapes)] if noise_shapes else None
        out, mask = kernel(x, rate, noise, 5, 6, stream)
        results.append((out, mask, stream.generator.bit_generator.state))
    return results


def _compare(shapes, rates, dtype, monkeypatch, noise_shapes=None):
    compiled = _calls(shapes, rates, dtype, noise_shapes)
    with monkeypatch.context() as m:
        _numpy_form(m)
        numpy_form = _calls(shapes, rates, dtype, noise_shapes)
    for (out, mask, state), (want_out, want_mask, want_state) in zip(compiled, numpy_form):
        _same(out, want_out)
        _same(np.asarray(mask), np.asarray(want_mask))
        assert state == want_state


_SHAPES = [(60, 128), (7,), (3, 5), (), (1,), (0,), (2, 3, 4, 5), (1, 999), (33,), (8,), (5, 1), (60, 128)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("rate", [0.2, 0.5, 0.999, 1e-8])
def test_a_sequence_of_calls_gives_the_numpy_forms_bits_and_state(dtype, rate, monkeypatch):
    _compare(_SHAPES * 2, [rate], dtype, monkeypatch)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rates_at_the_edges(dtype, monkeypatch):
    # Reachable through a rate tensor: 0, negative, 1 and above the largest float below 1, NaN.
    rates = [0.0, -0.5, 1 - 2 ** -24, 1 - 2 ** -26, 1.0, float("nan"), 0.77, 2 ** -25]
    _compare(_SHAPES * 2, rates, dtype, monkeypatch)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_noise_shapes(dtype, monkeypatch):
    shapes = [(30, 40), (31, 41), (30, 40), (31, 41), (30, 40)]
    noise = [(1, 40), (31, 1), (None, 1), (1, 1), (30, 40)]
    _compare(shapes * 3, [0.3, 0.6], dtype, monkeypatch, noise)


def test_non_contiguous_and_unaligned_values(monkeypatch):
    base = _values(np.random.RandomState(1), (61, 129), np.float32)
    raw = np.zeros(base.nbytes + 1, np.uint8)
    unaligned = raw[1:].view(np.float32).reshape(base.shape)
    unaligned[...] = base
    for x in (base[::2, 1::3], base.T, unaligned):
        got = registry.OPS["Dropout"].kernel(x, np.float32(0.25), None, 0, 0, RandomStream(1, 2))
        with monkeypatch.context() as m:
            _numpy_form(m)
            want = registry.OPS["Dropout"].kernel(x, np.float32(0.25), None, 0, 0, RandomStream(1, 2))
        _same(got[0], want[0])
        _same(got[1], want[1])


def test_other_bit_generators_keep_the_numpy_form(monkeypatch):
    def run():
        stream = RandomStream(1, 2)
        stream._generator = np.random.Generator(np.random.Philox(3))
        x = _values(np.random.RandomState(4), (9, 11), np.float32)
        return registry.OPS["Dropout"].kernel(x, np.float32(0.4), None, 0, 0, stream)
    got = run()
    with monkeypatch.context() as m:
        _numpy_form(m)
        want = run()
    _same(got[0], want[0])
    _same(got[1], want[1])


def _seeded_program(traced):
    tf.random.set_seed(123)
    x = tf.constant(_values(np.random.RandomState(8), (60, 128), np.float32))

    def step(v):
        return tf.nn.dropout(v, 0.2), tf.nn.dropout(v[:, :7], 0.5, seed=4)
    step = tf.function(step) if traced else step
    return [np.asarray(t) for _ in range(5) for t in step(x)]


@pytest.mark.parametrize("traced", [False, True])
def test_eager_and_traced_programs_draw_the_same_masks(traced, monkeypatch):
    got = _seeded_program(traced)
    with monkeypatch.context() as m:
        _numpy_form(m)
        want = _seeded_program(traced)
    for a, b in zip(got, want):
        _same(a, b)


def test_the_gradient_is_the_mask_and_agrees_with_finite_differences():
    x0 = np.random.RandomState(3).standard_normal((6, 7))
    h = 1e-6

    def forward(values):
        tf.random.set_seed(9)
        x = tf.constant(values)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.nn.dropout(x, 0.4, seed=2)
        return np.asarray(y), np.asarray(tape.gradient(y, x))
    y, grad = forward(x0)
    assert set(np.unique(grad)) <= {0.0, np.float64(1 / 0.6)} and (grad != 0).any() and (grad == 0).any()
    assert np.array_equal(y, x0 * grad)
    for i, j in [(0, 0), (2, 3), (5, 6), (4, 1)]:
        bumped = x0.copy()
        bumped[i, j] += h
        difference = (forward(bumped)[0] - y) / h
        expected = np.zeros_like(x0)
        expected[i, j] = grad[i, j]
        np.testing.assert_allclose(difference, expected, atol=1e-6)


def test_the_pcg64_layout_and_the_build_checks_hold_here():
    loops = compiled_dropout.DROPOUT.kernel
    assert compiled_dropout._trial_agrees(loops)


def test_neither_import_tensorflux_nor_a_first_dropout_loads_numba():
    code = ("import sys, tensorflux as tf; tf.nn.dropout(tf.ones([60, 128]), 0.2); "
            "from tensorflux._src.ops.nn import compiled_dropout; "
            "print('numba' in sys.modules, compiled_dropout.DROPOUT.kernel is None)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "True"]
