"""The compiled GRU steps (forward and backward) and SimpleRNN backward of ops/nn/compiled_recurrent.py:
equal to the NumPy steps (masked, with a recurrent-dropout scale, float32 and float64), gradients of the
fused op through them against finite differences (eager, then traced), and a Keras GRU training step
eager == traced with the compiled steps."""
import numpy as np
import pytest

import tensorflux as tf
from tensorflux._src.ops import jit
from tensorflux._src.ops.nn import compiled_recurrent, recurrent_kernels

from helpers import check_gradients
from test_fused_rnn import _sequence_args, _sequence_fn

CELLS = ["gru", "simple_rnn"]


@pytest.fixture
def compiled(monkeypatch):
    """The compiled steps from the first call on (not only once hot)."""
    if jit.numba_or_none() is None:
        pytest.skip("numba is not installed")
    gru = jit.build_now("gru_steps", compiled_recurrent._compile_gru)
    simple = jit.build_now("simple_rnn_back",
                           lambda numba: numba.njit(nogil=True, cache=True)(compiled_recurrent._simple_rnn_back))
    monkeypatch.setattr(compiled_recurrent, "gru_kernels", lambda: gru)
    monkeypatch.setattr(compiled_recurrent, "simple_rnn_back", lambda: simple)
    return gru, simple


def _numpy_steps(monkeypatch):
    monkeypatch.setattr(compiled_recurrent, "gru_kernels", lambda: None)
    monkeypatch.setattr(compiled_recurrent, "simple_rnn_back", lambda: None)


@pytest.mark.parametrize("dtype,tolerance", [(np.float32, 2e-6), (np.float64, 1e-13)])
@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize("cell", CELLS)
def test_compiled_steps_match_numpy_steps(compiled, monkeypatch, cell, masked, dtype, tolerance):
    rng = np.random.RandomState(13)
    x, h0, kernel, recurrent, bias = [a.astype(dtype) for a in _sequence_args(cell, 3, steps=5, batch=4,
                                                                                features=3, units=6)]
    args = [x, h0, np.zeros((0,), dtype), kernel, recurrent, bias]
    mask = rng.rand(5, 4) > 0.3 if masked else np.zeros((0,), bool)
    scale = (rng.rand(4, 6) * 2).astype(dtype)
    dys, dhs = rng.randn(5, 4, 6).astype(dtype), rng.randn(5, 4, 6).astype(dtype)
    dcs = np.zeros((0,), dtype)

    def both():
        forward = recurrent_kernels._forward(cell, *args, mask, scale, False)
        backward = recurrent_kernels._backward(cell, *args, mask, scale, *forward[1:], dys, dhs, dcs, False)
        return list(forward) + list(backward)
    fast = both()
    _numpy_steps(monkeypatch)
    for a, b in zip(fast, both()):
        np.testing.assert_allclose(a, b, rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize("output", [0, 1])
@pytest.mark.parametrize("cell", CELLS)
def test_fused_gradients_through_compiled_steps_finite_differences(compiled, cell, output):
    check_gradients(_sequence_fn(cell, output=output), _sequence_args(cell, seed=4), rtol=1e-6, atol=1e-8)


def test_gru_layer_training_step_eager_equals_traced(compiled):
    layer = tf.keras.layers.GRU(5, return_sequences=True)
    x = tf.constant(np.random.RandomState(5).randn(3, 6, 4).astype(np.float32))
    layer(x)

    def step(x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(layer(x, training=True)))
        return [loss] + tape.gradient(loss, layer.trainable_weights)
    eager = [t.numpy() for t in step(x)]
    for a, b in zip(eager, [t.numpy() for t in tf.function(step)(x)]):
        np.testing.assert_array_equal(a, b)
