"""The fused recurrent training path (LSTM, GRU both reset modes, SimpleRNN) (ops/nn/recurrent_kernels.py, used by keras/layers/rnn.py when
training): the same outputs, states and gradients as the step-by-step loop, for masks, go_backwards,
return_sequences/return_state, initial states, dropout and recurrent dropout, stateful layers; eager and
traced; the ops' gradients against finite differences."""
import numpy as np
import pytest

import tensorflux as tf
from tensorflux._src.keras.layers import rnn as rnn_module
from tensorflux._src.ops.nn import recurrent_kernels

from helpers import check_gradients

keras = tf.keras


def _run(layer, x, out_shapes, dtype, mask=None, initial_state=None, traced=False, seed=7):
    """(outputs, gradients of a weighted sum w.r.t. inputs, weights and initial states) of one training call."""
    weights = [np.random.RandomState(11).randn(*s).astype(dtype) for s in out_shapes]

    def step(xt, states):
        with tf.GradientTape() as tape:
            tape.watch(xt)
            if states is not None:
                tape.watch(states)
            tf.random.set_seed(seed)
            out = layer(xt, mask=mask, initial_state=states, training=True)
            outs = list(out) if isinstance(out, (list, tuple)) else [out]
            loss = tf.add_n([tf.reduce_sum(o * w) for o, w in zip(outs, weights)])
        sources = [xt] + list(layer.trainable_weights) + (list(states) if states is not None else [])
        return outs, tape.gradient(loss, sources)
    xt = tf.constant(x)
    states = None if initial_state is None else [tf.constant(s) for s in initial_state]
    if traced:
        outs, grads = tf.function(step)(xt, states)
    else:
        outs, grads = step(xt, states)
    return [o.numpy() for o in outs], [None if g is None else tf.convert_to_tensor(g).numpy() for g in grads]


def _compare(make_layer, x, monkeypatch, out_shapes, dtype=np.float32, **kwargs):
    layer = make_layer()
    layer.build(x.shape)
    calls = []
    original = recurrent_kernels.recurrent_sequence

    def counting(*a, **k):
        calls.append(1)
        return original(*a, **k)
    monkeypatch.setattr(recurrent_kernels, "recurrent_sequence", counting)
    results = {}
    for traced in (False, True):
        monkeypatch.setattr(rnn_module, "_fused_kind", lambda *a: None)
        results["loop", traced] = _run(layer, x, out_shapes, dtype, traced=traced, **kwargs)
        monkeypatch.undo()
        monkeypatch.setattr(recurrent_kernels, "recurrent_sequence", counting)
        before = len(calls)
        results["fused", traced] = _run(layer, x, out_shapes, dtype, traced=traced, **kwargs)
        assert len(calls) > before, "the fused op was not used"
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-12)
    reference = results["loop", False]
    for key, (outs, grads) in results.items():
        for a, b in zip(outs, reference[0]):
            np.testing.assert_allclose(a, b, **tol, err_msg=f"outputs {key}")
        for a, b in zip(grads, reference[1]):
            if b is None:
                assert a is None or not np.any(a), key
            else:
                np.testing.assert_allclose(a, b, **tol, err_msg=f"gradients {key}")


X = np.random.RandomState(0).randn(3, 5, 4).astype(np.float32)


def test_lstm_last_output(monkeypatch):
    _compare(lambda: keras.layers.LSTM(6), X, monkeypatch, [(3, 6)])


def test_lstm_sequences_and_states(monkeypatch):
    _compare(lambda: keras.layers.LSTM(6, return_sequences=True, return_state=True), X, monkeypatch,
             [(3, 5, 6), (3, 6), (3, 6)])


def test_lstm_go_backwards_with_initial_state(monkeypatch):
    init = [np.random.RandomState(1).randn(3, 6).astype(np.float32),
            np.random.RandomState(2).randn(3, 6).astype(np.float32)]
    _compare(lambda: keras.layers.LSTM(6, go_backwards=True, return_sequences=True), X, monkeypatch, [(3, 5, 6)],
             initial_state=init)


@pytest.mark.parametrize("zero_output", [False, True])
def test_lstm_mask_keeps_states_and_outputs(monkeypatch, zero_output):
    mask = tf.constant(np.array([[1, 1, 0, 1, 0], [0, 0, 1, 1, 1], [1, 0, 0, 0, 0]], bool))
    init = [np.random.RandomState(3).randn(3, 6).astype(np.float32),
            np.random.RandomState(4).randn(3, 6).astype(np.float32)]
    _compare(lambda: keras.layers.LSTM(6, return_sequences=True, return_state=True,
                                       zero_output_for_mask=zero_output), X, monkeypatch,
             [(3, 5, 6), (3, 6), (3, 6)], mask=mask, initial_state=init)


def test_lstm_dropout_and_recurrent_dropout(monkeypatch):
    _compare(lambda: keras.layers.LSTM(6, dropout=0.3, recurrent_dropout=0.4, seed=5, return_sequences=True), X,
             monkeypatch, [(3, 5, 6)])


def test_lstm_without_bias(monkeypatch):
    _compare(lambda: keras.layers.LSTM(6, use_bias=False), X, monkeypatch, [(3, 6)])


@pytest.mark.parametrize("make", [
    lambda: keras.layers.GRU(6, return_sequences=True, return_state=True),
    lambda: keras.layers.GRU(6, reset_after=False, return_sequences=True),
    lambda: keras.layers.SimpleRNN(6, return_sequences=True, return_state=True, go_backwards=True),
    lambda: keras.layers.GRU(6, dropout=0.2, recurrent_dropout=0.3, seed=2),
    lambda: keras.layers.GRU(6, reset_after=False, recurrent_dropout=0.3, use_bias=False, seed=2),
    lambda: keras.layers.SimpleRNN(6, dropout=0.2, recurrent_dropout=0.3, seed=2),
], ids=["gru", "gru_reset_before", "simple_rnn", "gru_dropout", "gru_reset_before_dropout", "simple_dropout"])
def test_gru_and_simple_rnn(monkeypatch, make):
    layer = make()
    shapes = [(3, 5, 6)] if layer.return_sequences else [(3, 6)]
    if layer.return_state:
        shapes.append((3, 6))
    _compare(make, X, monkeypatch, shapes)


@pytest.mark.parametrize("make", [lambda: keras.layers.GRU(6, return_sequences=True),
                                  lambda: keras.layers.GRU(6, reset_after=False, return_sequences=True),
                                  lambda: keras.layers.SimpleRNN(6, return_sequences=True)],
                         ids=["gru", "gru_reset_before", "simple_rnn"])
def test_gru_and_simple_rnn_with_mask(monkeypatch, make):
    mask = tf.constant(np.array([[1, 1, 0, 1, 0], [0, 0, 1, 1, 1], [1, 0, 0, 0, 0]], bool))
    init = [np.random.RandomState(3).randn(3, 6).astype(np.float32)]
    _compare(make, X, monkeypatch, [(3, 5, 6)], mask=mask, initial_state=init)


def test_other_activations_keep_the_loop(monkeypatch):
    layer = keras.layers.LSTM(4, activation="relu")
    layer.build(X.shape)
    assert not rnn_module._fused_kind(layer.cell, tf.constant(X), [tf.zeros([3, 4])] * 2)
    inference = keras.layers.LSTM(4)
    calls = []
    monkeypatch.setattr(recurrent_kernels, "recurrent_sequence", lambda *a, **k: calls.append(1))
    inference(tf.constant(X), training=False)
    assert not calls, "inference keeps TensorFlow's While form (the graphs that are exported)"


def test_stateful_lstm_carries_states(monkeypatch):
    def run(fused):
        if not fused:
            monkeypatch.setattr(rnn_module, "_fused_kind", lambda *a: None)
        tf.keras.utils.set_random_seed(3)
        layer = keras.layers.LSTM(5, stateful=True, return_sequences=True)
        outs = [layer(tf.constant(X), training=True).numpy() for _ in range(2)]
        monkeypatch.undo()
        return outs, [s.numpy() for s in layer.states]
    (fused_outs, fused_states), (loop_outs, loop_states) = run(True), run(False)
    for a, b in zip(fused_outs + fused_states, loop_outs + loop_states):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


_GATES = {"lstm": 4, "gru": 3, "gru_reset_before": 3, "simple_rnn": 1}


def _sequence_fn(cell, mask=None, scale=None, zero_output=False, output=0):
    def fn(x, h0, *rest):
        c0 = rest[0] if cell == "lstm" else tf.zeros([0], tf.float64)
        kernel, recurrent, bias = rest[-3:]
        m = tf.zeros([0], tf.bool) if mask is None else tf.constant(mask)
        s = tf.zeros([0], tf.float64) if scale is None else tf.constant(scale)
        outs = recurrent_kernels.recurrent_sequence(cell, x, h0, c0, kernel, recurrent, bias, m, s, zero_output)
        return outs[output]
    return fn


def _sequence_args(cell, seed=0, steps=4, batch=2, features=3, units=2):
    rng = np.random.RandomState(seed)
    width = _GATES[cell] * units
    bias = rng.randn(2, width) * 0.1 if cell == "gru" else rng.randn(width) * 0.1
    states = [rng.randn(batch, units)] * (2 if cell == "lstm" else 1)
    return [rng.randn(steps, batch, features)] + states + [rng.randn(features, width) * 0.5,
                                                           rng.randn(units, width) * 0.5, bias]


@pytest.mark.parametrize("cell", list(_GATES))
@pytest.mark.parametrize("output", [0, 1, 2])
def test_fused_op_gradients_finite_differences(cell, output):
    if output == 2 and cell != "lstm":
        pytest.skip("only the LSTM has a cell state")
    check_gradients(_sequence_fn(cell, output=output), _sequence_args(cell), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("cell", list(_GATES))
@pytest.mark.parametrize("zero_output", [False, True])
def test_fused_op_gradients_with_mask_and_recurrent_scale(cell, zero_output):
    mask = np.array([[1, 0], [0, 0], [1, 1], [0, 1]], bool)
    scale = np.array([[0.0, 2.0], [2.0, 2.0]])
    for output in (0, 1, 2) if cell == "lstm" else (0, 1):
        check_gradients(_sequence_fn(cell, mask, scale, zero_output, output), _sequence_args(cell, 1), rtol=1e-6,
                        atol=1e-8)


def test_fused_lstm_op_rejects_inconsistent_shapes():
    args = [tf.constant(a) for a in _sequence_args("lstm")]
    args[4] = tf.constant(np.zeros((3, 8)))
    with pytest.raises((tf.errors.InvalidArgumentError, ValueError)):
        recurrent_kernels.lstm_sequence(*args, tf.zeros([0], tf.bool), tf.zeros([0], tf.float64))


def test_fit_with_fused_lstm_decreases_loss():
    rng = np.random.RandomState(0)
    x = rng.rand(64, 6, 5).astype(np.float32)
    y = (x.sum(axis=(1, 2)) > 15).astype(np.float32)[:, None]
    tf.keras.utils.set_random_seed(1)
    model = keras.Sequential([keras.Input((6, 5)), keras.layers.LSTM(8), keras.layers.Dense(1, activation="sigmoid")])
    model.compile(loss="binary_crossentropy", optimizer=keras.optimizers.Adam(0.05))
    history = model.fit(x, y, batch_size=16, epochs=5, verbose=0).history["loss"]
    assert history[-1] < history[0]


@pytest.mark.parametrize("masked", [False, True])
def test_compiled_lstm_steps_match_numpy_steps(monkeypatch, masked):
    from tensorflux._src.ops import jit
    from tensorflux._src.ops.nn import compiled_recurrent
    if jit.numba_or_none() is None:
        pytest.skip("numba is not installed")
    compiled = jit.build_now("lstm_steps", compiled_recurrent._compile)
    rng = np.random.RandomState(12)
    args = [a.astype(np.float32) for a in _sequence_args("lstm", 3, steps=5, batch=4, features=3, units=6)]
    mask = rng.rand(5, 4) > 0.3 if masked else np.zeros((0,), bool)
    scale = np.zeros((0,), np.float32)
    dys = rng.randn(5, 4, 6).astype(np.float32)
    dhs, dcs = np.zeros((0,), np.float32), rng.randn(5, 4, 6).astype(np.float32)

    def both():
        forward = recurrent_kernels._forward("lstm", *args, mask, scale, False)
        backward = recurrent_kernels._backward("lstm", *args, mask, scale, *forward[1:], dys, dhs, dcs, False)
        return list(forward) + list(backward)
    monkeypatch.setattr(compiled_recurrent, "lstm_kernels", lambda: compiled)
    fast = both()
    monkeypatch.setattr(compiled_recurrent, "lstm_kernels", lambda: None)
    for a, b in zip(fast, both()):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-6)
