"""keras.layers.StackedRNNCells and RNN([cells]) against Keras 3.15 on TensorFlow 2.21: weight shapes and
paths, outputs and final states (nested one list per cell, as Keras returns them), backwards, with the
weights set to cos(arange) * 0.3 and inputs sin(arange) (fixtures/keras315_stacked_cells.json); then the
same layer traced, in a functional model, trained, and from its config."""
import json
import pathlib
import re

import numpy as np
import pytest

import tensorflux as tf

K = tf.keras.layers
RECORDED = json.loads((pathlib.Path(__file__).parent / "fixtures" / "keras315_stacked_cells.json").read_text())
CELLS = {"lstm_gru": lambda: [K.LSTMCell(3), K.GRUCell(2)], "simple2": lambda: [K.SimpleRNNCell(4), K.SimpleRNNCell(3)]}
X = np.sin(np.arange(2 * 4 * 5, dtype="float32")).reshape(2, 4, 5)


def _layer(name, **kwargs):
    layer = K.RNN(CELLS[name](), **kwargs)
    layer.build((2, 4, 5))
    layer.set_weights([np.cos(np.arange(int(np.prod(w.shape)), dtype="float32")).reshape(w.shape) * 0.3
                       for w in layer.weights])
    return layer


def _close(got, want):
    assert np.asarray(got).shape == np.asarray(want).shape
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(CELLS))
def test_outputs_and_states_as_keras(name):
    recorded = RECORDED[name]
    layer = _layer(name, return_sequences=True, return_state=True)
    assert [list(w.shape) for w in layer.weights] == recorded["weights"]
    # the paths without the names' counters (which depend on what the process made before)
    def plain(path):
        return re.sub(r"_\d+(?=/|$)", "", path)
    assert [plain(w.path) for w in layer.weights] == [plain(p) for p in recorded["names"]]
    assert layer.cell.state_size == recorded["state_size"]
    result = layer(X)
    assert len(result) == len(recorded["outputs"])
    _close(result[0], recorded["outputs"][0])
    for got, want in zip(result[1:], recorded["outputs"][1:]):
        assert isinstance(got, list) and len(got) == len(want)      # one list per cell
        for g, w in zip(got, want):
            _close(g, w)
    traced = tf.function(lambda x: layer(x))(X)
    _close(traced[0], recorded["outputs"][0])
    back = K.RNN(CELLS[name](), go_backwards=True)
    back.build((2, 4, 5))
    back.set_weights(layer.get_weights())
    _close(back(X), recorded["backwards"])


def test_initial_state_nested_or_flat():
    layer = _layer("lstm_gru", return_state=True)
    zeros = [[np.zeros((2, 3), "float32"), np.zeros((2, 3), "float32")], [np.zeros((2, 2), "float32")]]
    nested = layer(X, initial_state=zeros)
    flat = layer(X, initial_state=[z for group in zeros for z in group])
    plain = layer(X)
    def flat_list(result):
        return [result[0], *result[1], *result[2]]
    for a, b in zip(flat_list(nested), flat_list(plain)):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    for a, b in zip(flat_list(flat), flat_list(plain)):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_config_round_trip_and_functional_training():
    layer = K.RNN([K.LSTMCell(3), K.GRUCell(2)])
    config = layer.get_config()
    assert config["cell"]["class_name"] == "StackedRNNCells" and config["cell"]["module"] == "keras.layers"
    assert [c["class_name"] for c in config["cell"]["config"]["cells"]] == ["LSTMCell", "GRUCell"]
    again = K.RNN.from_config(config)
    assert isinstance(again.cell, K.StackedRNNCells) and [type(c).__name__ for c in again.cell.cells] == \
        ["LSTMCell", "GRUCell"]
    inputs = tf.keras.Input((4, 5))
    sequence, *states = K.RNN([K.LSTMCell(3), K.GRUCell(2)], return_sequences=True, return_state=True)(inputs)
    model = tf.keras.Model(inputs, K.Dense(1)(K.Flatten()(sequence)))
    model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse")
    y = X.sum(axis=(1, 2))[:, None] / 10
    losses = model.fit(X, y, epochs=5, verbose=0).history["loss"]
    assert losses[-1] < losses[0]


def test_cells_must_have_call_and_state_size():
    with pytest.raises(ValueError, match="All cells must have a `call` method"):
        K.StackedRNNCells([object()])
