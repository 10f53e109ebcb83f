"""keras recurrent layers (SimpleRNN, LSTM, GRU, their cells, RNN, Bidirectional) against numbers computed
with real Keras 3.15 (TensorFlow 2.21) on the same inputs and weights; eager vs tf.function (one While op);
gradients against finite differences; training inside `model.fit`."""
import numpy as np
import pytest

import tensorflux as tf
from helpers import numeric_grad

keras = tf.keras
layers = keras.layers


def det(shape, k=0):
    """Deterministic weights: the same function produced the Keras reference values below."""
    n = int(np.prod(shape))
    return ((((np.arange(n) * 7 + 3 * k) % 11) - 5) / 10.0).reshape(shape).astype("float32")


X = ((np.arange(2 * 4 * 3) % 7 - 3) / 3.0).reshape(2, 4, 3).astype("float32")
H0 = np.array([[0.5, -0.5], [0.1, 0.2]], "float32")
MASK = np.array([[True, True, False, True], [True, False, False, True]])
Y = np.array([[0.5], [-1.0]], "float32")

# Real Keras outputs (rounded to 6 decimals); each entry lists the layer's outputs in order.
SRNN = [[[[0.604368, -0.6251], [-0.083191, 0.155118], [-0.23031, -0.452732], [0.292034, -0.418607]], [[-0.487925, 0.560343], [0.574101, -0.766615], [-0.283498, 0.306824], [0.656923, -0.74744]]], [[0.292034, -0.418607], [0.656923, -0.74744]]]
SRNN_BACK_RELU = [[[[0.3, 0.0], [0.0, 0.0], [0.1, 0.0], [0.68, 0.0]], [[0.7, 0.0], [0.0, 0.15], [0.515, 0.0], [0.0, 0.890833]]]]
LSTM = [[[[-0.143922, 0.066904], [-0.143964, 0.066561], [-0.266559, 0.066965], [-0.208806, 0.08852]], [[-0.12866, -0.0], [-0.160133, 0.064955], [-0.11271, 0.022791], [-0.19377, 0.071511]]], [[-0.208806, 0.08852], [-0.19377, 0.071511]], [[-0.54198, 0.23684], [-0.628501, 0.212752]]]
LSTM_BACK = [[[-0.208056, 0.088971], [-0.321907, 0.042209]]]
GRU = [[[[0.010149, 0.487727], [-0.101287, 0.414401], [0.217467, 0.308077], [0.072585, 0.436689]], [[0.033729, -0.387316], [-0.030693, 0.360367], [-0.173573, 0.300106], [-0.085215, 0.565261]]], [[0.072585, 0.436689], [-0.085215, 0.565261]]]
GRU_V1 = [[[[-0.139448, 0.402851], [-0.323892, 0.368367], [-0.110658, 0.279983], [-0.277733, 0.393307]], [[-0.067379, -0.326485], [-0.215393, 0.265103], [-0.391624, 0.244008], [-0.393946, 0.505274]]]]
GRU_INIT = [[[0.122879, 0.431483], [-0.064959, 0.564717]]]
LSTM_MASK = [[[[-0.143922, 0.066904], [-0.143964, 0.066561], [-0.143964, 0.066561], [-0.154127, 0.083872]], [[-0.12866, -0.0], [-0.12866, -0.0], [-0.12866, -0.0], [-0.185993, 0.062408]]], [[-0.154127, 0.083872], [-0.185993, 0.062408]], [[-0.394891, 0.218824], [-0.590263, 0.186744]]]
SRNN_MASK_BACK = [[[[0.291313, -0.435502], [0.291313, -0.435502], [-0.001813, -0.056965], [0.600971, -0.615141]], [[0.604368, -0.6251], [0.604368, -0.6251], [0.604368, -0.6251], [-0.614872, 0.808626]]]]
BI_LSTM = [[[[-0.143922, 0.066904, 0.133255, 0.158396], [-0.143964, 0.066561, 0.185569, -0.038077], [-0.266559, 0.066965, 0.099158, 0.046464], [-0.208806, 0.08852, 0.089702, 0.039865]], [[-0.12866, -0.0, 0.188097, -0.036506], [-0.160133, 0.064955, 0.148514, 0.094401], [-0.11271, 0.022791, 0.179618, -0.058451], [-0.19377, 0.071511, 0.052186, 0.167476]]]]
BI_GRU_SUM_STATE = [[[0.789892, 0.580744], [0.537373, 0.629069]], [[0.072585, 0.436689], [-0.085215, 0.565261]], [[0.717307, 0.144055], [0.622589, 0.063807]]]
LSTM_NOBIAS_NOFORGET = [[[0.036855, 0.031524], [0.040769, 0.10641]]]
RNN_LSTMCELL = [[[[-0.143922, 0.066904], [-0.143964, 0.066561], [-0.266559, 0.066965], [-0.208806, 0.08852]], [[-0.12866, -0.0], [-0.160133, 0.064955], [-0.11271, 0.022791], [-0.19377, 0.071511]]]]
LSTM_BIAS0 = [0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
GRU_SHAPES = [[2, 9], [3, 9], [2, 9]]
GRU_V1_SHAPES = [[2, 9], [3, 9], [9]]
FIT_LOSS = [1.149276, 0.928092, 0.789931]
FIT_WEIGHTS = [[[-0.498485, 0.200191, -0.199872, 0.499887, 0.100175, -0.299924, 0.401852, 0.00401, -0.399584], [0.301039, -0.100136, -0.499828, 0.200391, -0.200019, 0.500058, 0.096546, -0.300253, 0.398073], [-0.000284, -0.399027, 0.300122, -0.099783, -0.50013, 0.199931, -0.20161, 0.496899, 0.100754]], [[-0.199855, 0.500054, 0.099928, -0.300081, 0.40004, 1.3e-05, -0.399646, 0.300525, -0.099711], [-0.499418, 0.200003, -0.200173, 0.499763, 0.100129, -0.29998, 0.400874, 0.001123, -0.399333], [0.299524, -0.10008, -0.49987, 0.200183, -0.200107, 0.499981, 0.099311, -0.301066, 0.399435]], [[0.097913, -0.300669, 0.40081, 0.001147, -0.400522, 0.299962, -0.111543, -0.511148, 0.193953], [-0.202087, 0.499331, 0.10081, -0.298853, 0.399478, -3.8e-05, -0.404749, 0.295209, -0.103864]], [[0.401635, -0.001368, -0.398831, 0.299366, -0.096716, -0.508803, 0.202424, -0.201024], [0.501776, 0.098807, -0.298993, 0.399488, 0.003924, -0.407951, 0.301967, -0.100809], [-0.50196, 0.201421, -0.201245, 0.500662, 0.095796, -0.290481, 0.397663, 0.000962]], [[-0.400839, 0.300629, -0.100553, -0.499714, 0.198268, -0.195843, 0.498923, 0.100443], [-0.300373, 0.400284, -0.000248, -0.39987, 0.299238, -0.098114, -0.50048, 0.200201]], [-0.106947, -0.495553, 0.196028, -0.198045, 0.48469, 0.130541, -0.307011, 0.402798], [[0.138431], [-0.235561]], [0.129918]]
FIT_PRED = [[0.128624], [0.126625]]


def close(got, expected, atol=2e-5):
    np.testing.assert_allclose(np.asarray(got), np.asarray(expected, np.float64), rtol=1e-5, atol=atol)


def with_weights(layer):
    layer.build(X.shape)
    layer.set_weights([det(w.shape, i) for i, w in enumerate(layer.weights)])
    return layer


def outputs(result):
    return list(result) if isinstance(result, (list, tuple)) else [result]


def check_eager_and_graph(layer, expected, **call_kwargs):
    """The layer matches Keras eagerly and inside a tf.function, whose graph runs the steps in one While op."""
    eager = outputs(layer(X, **call_kwargs))
    assert len(eager) == len(expected)
    for got, want in zip(eager, expected):
        assert got.dtype == tf.float32
        close(got, want)
    traced = tf.function(lambda x: layer(x, **call_kwargs))
    for got, want in zip(outputs(traced(X)), expected):
        close(got, want)
    graph = traced.get_concrete_function(tf.TensorSpec([None, None, 3], tf.float32)).graph
    loops = [op.type for op in graph.get_operations() if op.type in ("While", "StatelessWhile")]
    directions = 2 if isinstance(layer, layers.Bidirectional) else 1
    assert len(loops) == directions


# -- numerics against Keras -------------------------------------------------------------------------
@pytest.mark.parametrize("make, kwargs, expected", [
    (lambda: layers.SimpleRNN(2, return_sequences=True, return_state=True), {}, SRNN),
    (lambda: layers.SimpleRNN(2, activation="relu", go_backwards=True, return_sequences=True), {}, SRNN_BACK_RELU),
    (lambda: layers.LSTM(2, return_sequences=True, return_state=True), {}, LSTM),
    (lambda: layers.LSTM(2, go_backwards=True), {}, LSTM_BACK),
    (lambda: layers.LSTM(2, use_bias=False, unit_forget_bias=False, activation="relu",
                         recurrent_activation="hard_sigmoid"), {}, LSTM_NOBIAS_NOFORGET),
    (lambda: layers.GRU(2, return_sequences=True, return_state=True), {}, GRU),
    (lambda: layers.GRU(2, reset_after=False, return_sequences=True), {}, GRU_V1),
    (lambda: layers.GRU(2), {"initial_state": [H0]}, GRU_INIT),
    (lambda: layers.LSTM(2, return_sequences=True, return_state=True), {"mask": MASK}, LSTM_MASK),
    (lambda: layers.SimpleRNN(2, return_sequences=True, go_backwards=True), {"mask": MASK}, SRNN_MASK_BACK),
    (lambda: layers.RNN(layers.LSTMCell(2), return_sequences=True), {}, RNN_LSTMCELL),
    (lambda: layers.Bidirectional(layers.LSTM(2, return_sequences=True)), {}, BI_LSTM),
    (lambda: layers.Bidirectional(layers.GRU(2, return_state=True), merge_mode="sum"), {}, BI_GRU_SUM_STATE),
], ids=["simple_rnn", "simple_rnn_backwards_relu", "lstm", "lstm_backwards", "lstm_no_bias", "gru", "gru_v1",
        "gru_initial_state", "lstm_mask", "simple_rnn_mask_backwards", "rnn_lstm_cell", "bidirectional_lstm",
        "bidirectional_gru_sum_state"])
def test_matches_keras(make, kwargs, expected):
    check_eager_and_graph(with_weights(make()), expected, **kwargs)


def test_unroll_is_a_python_loop_even_in_a_graph():
    layer = with_weights(layers.LSTM(2, return_sequences=True, return_state=True, unroll=True))
    traced = tf.function(lambda x: layer(x))
    for got, want in zip(traced(X), LSTM):
        close(got, want)
    graph = traced.get_concrete_function(tf.TensorSpec([2, 4, 3], tf.float32)).graph
    assert not [op for op in graph.get_operations() if "While" in op.type]
    with pytest.raises(ValueError, match="Cannot unroll a RNN if the time dimension is undefined"):
        traced.get_concrete_function(tf.TensorSpec([2, None, 3], tf.float32))


def test_weight_layouts_and_initial_values_follow_keras():
    lstm = layers.LSTM(3)
    lstm.build((None, 4, 2))
    assert [w.shape.as_list() for w in lstm.weights] == [[2, 12], [3, 12], [12]]
    close(lstm.weights[2], LSTM_BIAS0)
    recurrent = lstm.cell.recurrent_kernel.numpy()        # orthogonal: rows orthonormal (3 x 12)
    close(recurrent @ recurrent.T, np.eye(3), atol=1e-5)
    gru = layers.GRU(3)
    gru.build((None, 4, 2))
    assert [w.shape.as_list() for w in gru.weights] == GRU_SHAPES
    v1 = layers.GRU(3, reset_after=False)
    v1.build((None, 4, 2))
    assert [w.shape.as_list() for w in v1.weights] == GRU_V1_SHAPES
    assert gru.cell.bias.numpy().tolist() == [[0.0] * 9] * 2
    assert lstm.units == 3 and lstm.cell.name == "lstm_cell" and gru.reset_after is True
    assert [(w.name, w.path) for w in lstm.weights] == [
        ("kernel", f"{lstm.name}/lstm_cell/kernel"), ("recurrent_kernel", f"{lstm.name}/lstm_cell/recurrent_kernel"),
        ("bias", f"{lstm.name}/lstm_cell/bias")]


def test_orthogonal_initializer():
    init = keras.initializers.Orthogonal(gain=2.0, seed=3)
    tall = init((6, 4)).numpy()
    close(tall.T @ tall, 4 * np.eye(4), atol=1e-5)
    np.testing.assert_array_equal(tall, init((6, 4)).numpy())  # seeded: the same values every call
    wide = keras.initializers.Orthogonal()((2, 5)).numpy()
    close(wide @ wide.T, np.eye(2), atol=1e-5)
    with pytest.raises(ValueError, match="at least two-dimensional"):
        init((3,))


# -- cells ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("cell_class, n_states", [(layers.SimpleRNNCell, 1), (layers.LSTMCell, 2),
                                                   (layers.GRUCell, 1)])
def test_cell_step_equals_one_step_of_its_layer(cell_class, n_states):
    cell = cell_class(2)
    rnn = layers.RNN(cell, return_state=True)
    with_weights(rnn)
    states = [tf.constant(H0)] * n_states
    out, new_states = cell(X[:, 0], states)
    expected = rnn(X[:, :1], initial_state=states)
    close(out, expected[0])
    assert len(new_states) == n_states
    for got, want in zip(new_states, expected[1:]):
        close(got, want)
    assert cell.state_size == (2 if n_states == 1 else [2, 2]) and cell.output_size == 2


def test_custom_cell_in_rnn():
    class MinimalRNNCell(layers.Layer):
        def __init__(self, units, **kwargs):
            super().__init__(**kwargs)
            self.units = units
            self.state_size = units

        def build(self, input_shape):
            self.kernel = self.add_weight(shape=(input_shape[-1], self.units), initializer="ones", name="kernel")

        def call(self, inputs, states):
            output = tf.matmul(inputs, self.kernel) + 0.5 * states[0]
            return output, [output]

    layer = layers.RNN(MinimalRNNCell(2), return_sequences=True)
    expected, h = [], np.zeros((2, 2), np.float32)
    for t in range(4):
        h = X[:, t].sum(-1, keepdims=True) * np.ones((1, 2), np.float32) + 0.5 * h
        expected.append(h)
    expected = np.stack(expected, 1)
    close(layer(X), expected)
    close(tf.function(lambda x: layer(x))(X), expected)


# -- shapes, config, errors ----------------------------------------------------------------------------
def test_unknown_batch_and_time_in_a_graph():
    layer = layers.GRU(3, return_sequences=True, return_state=True)
    traced = tf.function(lambda x: layer(x))
    concrete = traced.get_concrete_function(tf.TensorSpec([None, None, 2], tf.float32))
    seq, state = concrete.structured_outputs
    assert seq.shape.as_list() == [None, None, 3] and state.shape.as_list() == [None, 3]
    x = np.random.RandomState(0).rand(5, 7, 2).astype("float32")
    eager_seq, eager_state = layer(x)
    close(traced(x)[0], eager_seq)
    close(traced(x)[1], eager_state)
    assert eager_seq.shape == (5, 7, 3)


def test_compute_output_shape_and_sequential_build():
    assert layers.LSTM(4).compute_output_shape((None, 5, 3)) == (None, 4)
    assert layers.LSTM(4, return_sequences=True, return_state=True).compute_output_shape((2, 5, 3)) == \
        ((2, 5, 4), (2, 4), (2, 4))
    assert layers.Bidirectional(layers.GRU(4, return_sequences=True)).compute_output_shape((2, 5, 3)) == (2, 5, 8)
    model = keras.Sequential([keras.Input((5, 3)), layers.Bidirectional(layers.SimpleRNN(4)), layers.Dense(1)])
    assert model.built and [w.shape.as_list() for w in model.weights] == [[3, 4], [4, 4], [4], [3, 4], [4, 4],
                                                                         [4], [8, 1], [1]]
    assert model.count_params() == 2 * (12 + 16 + 4) + 9


def test_bidirectional_names_and_weight_order():
    bi = layers.Bidirectional(layers.LSTM(2, name="enc"))
    bi.build((None, 4, 3))
    assert bi.forward_layer.name == "forward_enc" and bi.backward_layer.name == "backward_enc"
    assert bi.backward_layer.go_backwards and not bi.forward_layer.go_backwards
    assert len(bi.weights) == 6
    assert bi.weights[:3] == bi.forward_layer.weights and bi.weights[3:] == bi.backward_layer.weights
    pair = layers.Bidirectional(layers.GRU(2, return_sequences=True), merge_mode=None)
    with_weights(pair)
    forward, backward = pair(X)
    assert forward.shape == backward.shape == (2, 4, 2)


def test_errors():
    with pytest.raises(ValueError, match="expected a positive integer"):
        layers.LSTM(0)
    with pytest.raises(ValueError, match="Invalid merge mode"):
        layers.Bidirectional(layers.LSTM(2), merge_mode="max")
    with pytest.raises(ValueError, match="`keras.layers.RNN` instance"):
        layers.Bidirectional(layers.Dense(2))
    with pytest.raises(ValueError, match="should have different `go_backwards`"):
        layers.Bidirectional(layers.LSTM(2), backward_layer=layers.LSTM(2))
    with pytest.raises(ValueError, match="same value for attribute \"return_sequences\""):
        layers.Bidirectional(layers.LSTM(2), backward_layer=layers.LSTM(2, go_backwards=True, return_sequences=True))
    with pytest.raises(ValueError, match="expected ndim=3"):
        layers.SimpleRNN(2)(np.zeros((2, 3), np.float32))
    with pytest.raises(ValueError, match="expects 2 initial state"):
        layers.LSTM(2)(X, initial_state=[H0])
    with pytest.raises(ValueError, match="must have shape \\(batch_size, 2\\)"):
        layers.GRU(2)(X, initial_state=[np.zeros((2, 3), np.float32)])
    with pytest.raises(ValueError, match="state_size"):
        layers.RNN(layers.Dense(2))
    with pytest.raises(ValueError, match="stateful, so it needs a fixed batch size"):
        layers.LSTM(2, stateful=True)(keras.Input((3, 2)))
    with pytest.raises(ValueError, match="dropout"):
        layers.GRU(2, dropout=1.5)


def test_get_config_round_trip():
    layer = layers.GRU(3, activation="relu", reset_after=False, return_sequences=True, go_backwards=True)
    config = layer.get_config()
    assert config["units"] == 3 and config["reset_after"] is False and config["activation"] == "relu"
    assert config["return_sequences"] and config["go_backwards"]
    copy = type(layer).from_config({k: v for k, v in config.items() if k != "dtype"} | {"name": "gru_copy"})
    assert copy.get_config()["reset_after"] is False and copy.name == "gru_copy"


# -- gradients -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("make", [lambda: layers.SimpleRNN(2, return_sequences=True),
                                  lambda: layers.LSTM(2, go_backwards=True),
                                  lambda: layers.GRU(2, return_sequences=True)], ids=["simple_rnn", "lstm", "gru"])
def test_gradients_match_finite_differences_eagerly_and_in_a_graph(make):
    layer = with_weights(make())
    x = tf.constant(X[:, :3])
    weights = np.random.RandomState(1).rand(*layer(x).shape)  # every output element matters

    def loss(x):
        return tf.reduce_sum(tf.cast(layer(x), tf.float64) * weights)

    variables = layer.trainable_weights
    with tf.GradientTape() as tape:
        tape.watch(x)
        value = loss(x)
    grads = tape.gradient(value, [x] + variables)
    grad_x, grad_w = grads[0], grads[1:]
    assert all(g is not None for g in grads)
    numeric = numeric_grad(lambda a: float(loss(tf.constant(a.astype(np.float32)))), X[:, :3].astype(np.float64),
                           eps=1e-3)
    close(grad_x, numeric, atol=2e-3)
    for variable, grad in zip(variables, grad_w):
        original = variable.numpy()

        def loss_of(value, variable=variable):
            variable.assign(value.astype(np.float32))
            return float(loss(x))
        numeric = numeric_grad(loss_of, original.astype(np.float64), eps=1e-3)
        variable.assign(original)
        close(grad, numeric, atol=2e-3)

    @tf.function(input_signature=[tf.TensorSpec([None, None, 3], tf.float32)])
    def traced_grads(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            value = loss(x)
        return tape.gradient(value, [x] + variables)
    traced = traced_grads(x)
    close(traced[0], grad_x, atol=1e-5)
    for got, want in zip(traced[1:], grad_w):
        close(got, want, atol=1e-5)


def test_gradient_reaches_the_initial_state():
    layer = with_weights(layers.GRU(2))
    h0 = tf.constant(H0)
    with tf.GradientTape() as tape:
        tape.watch(h0)
        loss = tf.reduce_sum(layer(X, initial_state=[h0]))
    grad = tape.gradient(loss, h0)
    numeric = numeric_grad(lambda h: float(tf.reduce_sum(layer(X, initial_state=[tf.constant(h, tf.float32)]))),
                           H0.astype(np.float64), eps=1e-3)
    close(grad, numeric, atol=2e-3)


# -- dropout and training ------------------------------------------------------------------------------
def test_dropout_only_while_training_and_one_mask_per_call():
    layer = with_weights(layers.SimpleRNN(2, dropout=0.5, recurrent_dropout=0.5, return_sequences=True, seed=1))
    close(layer(X, training=False), SRNN[0])
    close(layer(X), SRNN[0])  # training defaults to False
    dropped = layer(X, training=True).numpy()
    assert not np.allclose(dropped, SRNN[0])
    assert np.isfinite(dropped).all() and dropped.shape == (2, 4, 2)
    traced = tf.function(lambda x: layer(x, training=True))
    assert traced(X).shape == (2, 4, 2)
    assert layer.cell._per_call is None  # masks live for one call only


@pytest.mark.parametrize("run_eagerly", [False, True])
def test_fit_matches_keras(run_eagerly):
    model = keras.Sequential([keras.Input((4, 3)), layers.GRU(3, return_sequences=True), layers.LSTM(2),
                              layers.Dense(1)])
    model.set_weights([det(w.shape, i) for i, w in enumerate(model.weights)])
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse", run_eagerly=run_eagerly)
    history = model.fit(X, Y, epochs=3, batch_size=2, shuffle=False, verbose=0)
    close(history.history["loss"], FIT_LOSS, atol=1e-5)
    for got, want in zip(model.get_weights(), FIT_WEIGHTS):
        close(got, want, atol=1e-5)
    close(model.predict(X, verbose=0), FIT_PRED, atol=1e-5)


def test_bidirectional_lstm_learns_in_fit():
    rng = np.random.RandomState(0)
    x = rng.rand(32, 5, 2).astype("float32")
    y = x[:, :, 0].sum(axis=1, keepdims=True) - x[:, 0, 1:2]
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((5, 2)), layers.Bidirectional(layers.LSTM(4)), layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.Adam(0.05), loss="mse")
    history = model.fit(x, y, epochs=40, batch_size=16, verbose=0)
    assert history.history["loss"][-1] < 0.1 * history.history["loss"][0]


def test_fit_with_a_smaller_last_batch_and_dropout():
    # The last batch (1 of 5) retraces the step with an unknown batch size: the loop's gradient must still build.
    rng = np.random.RandomState(0)
    x = rng.rand(5, 4, 3).astype("float32")
    y = rng.rand(5, 1).astype("float32")
    keras.utils.set_random_seed(1)
    model = keras.Sequential([keras.Input((4, 3)), layers.GRU(3, return_sequences=True, dropout=0.2),
                              layers.LSTM(2, recurrent_dropout=0.3, go_backwards=True), layers.Dense(1)])
    model.compile(optimizer="adam", loss="mse")
    before = [w.copy() for w in model.get_weights()]
    history = model.fit(x, y, epochs=2, batch_size=2, verbose=0)
    assert np.isfinite(history.history["loss"]).all()
    assert all(not np.array_equal(a, b) for a, b in zip(before, model.get_weights()))
    assert model.predict(x, verbose=0).shape == (5, 1)


def test_stateful_layers_carry_their_states_between_calls():
    rng = np.random.default_rng(7)
    sequence = rng.standard_normal((2, 6, 3)).astype("float32")
    stateful = keras.layers.LSTM(4, stateful=True)
    whole = keras.layers.LSTM(4)
    stateful(sequence[:, :3])
    whole(sequence)
    whole.set_weights(stateful.get_weights())
    stateful.reset_states()
    stateful(sequence[:, :3])
    np.testing.assert_allclose(stateful(sequence[:, 3:]).numpy(), whole(sequence).numpy(), atol=1e-5)
    assert [tuple(s.shape) for s in stateful.states] == [(2, 4), (2, 4)]
    stateful.reset_states()
    np.testing.assert_allclose(stateful(sequence).numpy(), whole(sequence).numpy(), atol=1e-5)
