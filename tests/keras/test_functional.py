"""The functional API: KerasTensors, layer and operator calls on them, `keras.Model(inputs, outputs)` run
eagerly and traced, trained with one or several outputs, summarised, saved and nested."""
import numpy as np
import pytest

import tensorflux as tf
keras = tf.keras
layers = keras.layers

RNG = np.random.default_rng(0)


def test_keras_tensor_is_a_shape_and_a_dtype():
    x = keras.Input((4, 3), name="pixels")
    assert x.shape == (None, 4, 3) and x.ndim == 3 and x.dtype == "float32" and x.name == "pixels"
    assert repr(x) == "<KerasTensor shape=(None, 4, 3), dtype=float32, sparse=False, ragged=False, name=pixels>"
    assert keras.Input((2,), batch_size=8, dtype="int32").shape == (8, 2)
    assert keras.Input(batch_shape=(None, 5)).shape == (None, 5)
    assert keras.Input((2,), dtype="int32").dtype == "int32"
    h = layers.Dense(3)(x)
    assert h.shape == (None, 4, 3) and h.dtype == "float32"
    with pytest.raises(ValueError, match="cannot pass both `shape` and `batch_shape`"):
        keras.Input((2,), batch_shape=(None, 2))


def test_tensorflow_functions_refuse_keras_tensors():
    x = keras.Input((3,))
    with pytest.raises(ValueError, match="A KerasTensor cannot be used as input to a TensorFlow function"):
        tf.nn.relu(x)
    with pytest.raises(ValueError, match="A KerasTensor cannot be used as input to a TensorFlow function"):
        tf.convert_to_tensor(x)
    with pytest.raises(TypeError, match="cannot be used as a boolean"):
        bool(x)


def test_a_chain_computes_what_its_layers_compute():
    inputs = keras.Input((4,))
    hidden = layers.Dense(8, activation="relu", name="hidden")(inputs)
    outputs = layers.Dense(2, name="out")(hidden)
    model = keras.Model(inputs, outputs, name="chain")
    assert model.name == "chain" and [layer.name for layer in model.layers][1:] == ["hidden", "out"]
    assert type(model.layers[0]).__name__ == "InputLayer"
    x = RNG.standard_normal((5, 4)).astype(np.float32)
    w1, b1, w2, b2 = model.get_weights()
    expected = np.maximum(x @ w1 + b1, 0) @ w2 + b2
    np.testing.assert_allclose(model(x).numpy(), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(model.predict(x, verbose=0), expected, rtol=1e-5, atol=1e-6)
    traced = tf.function(lambda t: model(t))
    np.testing.assert_allclose(traced(tf.constant(x)).numpy(), expected, rtol=1e-5, atol=1e-6)
    assert model.input_shape == (None, 4) and model.output_shape == (None, 2)
    assert len(model.weights) == 4 and model.count_params() == 4 * 8 + 8 + 8 * 2 + 2


def test_operators_on_keras_tensors():
    a, b = keras.Input((3,), name="a"), keras.Input((3,), name="b")
    outputs = [a + b, a - 1, 2 * b, a / 2, -a, abs(b), a ** 2, a[:, 1:], 1 - b, a * b + a]
    model = keras.Model([a, b], outputs)
    x, y = RNG.standard_normal((4, 3)).astype(np.float32), RNG.standard_normal((4, 3)).astype(np.float32)
    expected = [x + y, x - 1, 2 * y, x / 2, -x, abs(y), x ** 2, x[:, 1:], 1 - y, x * y + x]
    for got, want in zip(model([x, y]), expected):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)
    m = keras.Input((3, 2))
    v = keras.Input((2, 5))
    np.testing.assert_allclose(keras.Model([m, v], m @ v)([np.ones((1, 3, 2)), np.ones((1, 2, 5))]).numpy(),
                               np.full((1, 3, 5), 2.0))
    assert (a[:, 0]).shape == (None,) and (a + b).shape == (None, 3)


def test_inputs_as_list_or_dict():
    a, b = keras.Input((3,), name="left"), keras.Input((2,), name="right")
    merged = layers.Concatenate()([a, b])
    x, y = np.ones((2, 3), np.float32), np.full((2, 2), 2.0, np.float32)
    expected = np.concatenate([x, y], axis=1)
    listed = keras.Model([a, b], merged)
    np.testing.assert_array_equal(listed([x, y]).numpy(), expected)
    np.testing.assert_array_equal(listed({"right": y, "left": x}).numpy(), expected)   # by Input names
    keyed = keras.Model({"p": a, "q": b}, merged)
    np.testing.assert_array_equal(keyed({"q": y, "p": x}).numpy(), expected)
    with pytest.raises(ValueError, match="expects 2 input"):
        listed([x])
    with pytest.raises(ValueError, match="missing"):
        keyed({"p": x})


def test_shared_layers_share_weights_and_count_their_calls():
    a, b = keras.Input((4,), name="a"), keras.Input((4,), name="b")
    encoder = layers.Dense(3, name="encoder")
    distance = layers.Subtract()([encoder(a), encoder(b)])
    model = keras.Model([a, b], distance)
    assert len(model.weights) == 2
    x = RNG.standard_normal((2, 4)).astype(np.float32)
    np.testing.assert_allclose(model([x, x]).numpy(), np.zeros((2, 3)), atol=1e-6)
    lines = []
    model.summary(print_fn=lines.append)
    text = "\n".join(lines)
    # Keras' fixed column width wraps the two sources of the Subtract onto two lines
    assert "Connected to" in text and "│ encoder[0][0],    │" in text and "│ encoder[1][0]     │" in text
    assert "│ encoder (Dense)     │ (None, 3)         │         15 │ a[0][0], b[0][0]  │" in text


def test_models_nest_as_layers():
    inner_in = keras.Input((4,))
    inner = keras.Model(inner_in, layers.Dense(3, name="inner_dense")(inner_in), name="inner")
    outer_in = keras.Input((4,))
    outer = keras.Model(outer_in, layers.Dense(1)(inner(outer_in)) + 1.0)
    assert [layer.name for layer in outer.layers][1] == "inner" and len(outer.weights) == 4
    x = RNG.standard_normal((3, 4)).astype(np.float32)
    w, b, w2, b2 = outer.get_weights()
    np.testing.assert_allclose(outer(x).numpy(), (x @ w + b) @ w2 + b2 + 1, rtol=1e-5, atol=1e-6)
    stacked = keras.Sequential([keras.Input((4,)), inner, layers.Dense(2)])
    assert stacked(x).shape == (3, 2)


def test_custom_layers_and_subclassed_models_on_keras_tensors():
    class Scale(layers.Layer):
        def build(self, input_shape):
            self.scale = self.add_weight(shape=(input_shape[-1],), initializer="ones")

        def call(self, x):
            return x * self.scale

    class Block(keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = layers.Dense(2)     # built during the symbolic call

        def call(self, x):
            return tf.nn.relu(self.dense(x))

    inputs = keras.Input((3,))
    block = Block()
    model = keras.Model(inputs, block(Scale()(inputs)))
    assert len(model.weights) == 3
    x = RNG.standard_normal((4, 3)).astype(np.float32)
    w, b = block.dense.get_weights()
    np.testing.assert_allclose(model(x).numpy(), np.maximum(x @ w + b, 0), rtol=1e-5, atol=1e-6)


def test_training_flag_reaches_the_layers():
    inputs = keras.Input((100,))
    model = keras.Model(inputs, layers.Dropout(0.5)(inputs))
    x = np.ones((2, 100), np.float32)
    np.testing.assert_array_equal(model(x).numpy(), x)
    dropped = model(x, training=True).numpy()
    assert (dropped == 0).any() and set(np.unique(dropped)) <= {0.0, 2.0}


def test_integer_inputs_are_cast_to_the_input_dtype():
    ids = keras.Input((3,), dtype="int32")
    model = keras.Model(ids, layers.Embedding(10, 2)(ids))
    table = model.get_weights()[0]
    np.testing.assert_allclose(model(np.array([[1, 2, 9]], np.int64)).numpy(), table[[[1, 2, 9]]])


def _same_weights(functional, sequential):
    sequential.set_weights(functional.get_weights())


def test_fit_matches_the_same_sequential_model():
    inputs = keras.Input((5,))
    functional = keras.Model(inputs, layers.Dense(1)(layers.Dense(4, activation="tanh")(inputs)))
    sequential = keras.Sequential([keras.Input((5,)), layers.Dense(4, activation="tanh"), layers.Dense(1)])
    _same_weights(functional, sequential)
    x = RNG.standard_normal((64, 5)).astype(np.float32)
    y = (x @ RNG.standard_normal((5, 1))).astype(np.float32)
    histories = []
    for model in (functional, sequential):
        model.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse", metrics=["mae"])
        histories.append(model.fit(x, y, batch_size=16, epochs=3, shuffle=False, verbose=0).history)
    assert sorted(histories[0]) == ["loss", "mae"]
    for key in histories[0]:
        np.testing.assert_allclose(histories[0][key], histories[1][key], rtol=1e-5)
    assert histories[0]["loss"][-1] < histories[0]["loss"][0]


def _two_outputs():
    a, b = keras.Input((3,), name="a"), keras.Input((2,), name="b")
    c = layers.Concatenate()([a, b])
    return a, b, layers.Dense(1, name="o1")(c), layers.Dense(2, name="o2")(c)


def _two_output_data():
    x = [RNG.standard_normal((16, 3)).astype(np.float32), RNG.standard_normal((16, 2)).astype(np.float32)]
    y = [RNG.standard_normal((16, 1)).astype(np.float32), RNG.standard_normal((16, 2)).astype(np.float32)]
    return x, y


def test_several_outputs_weighted_losses_and_per_output_metrics():
    a, b, o1, o2 = _two_outputs()
    model = keras.Model([a, b], [o1, o2])
    assert model.output_names == ["o1", "o2"]
    x, y = _two_output_data()
    p1, p2 = (p.numpy() for p in model(x))
    mse1, mae2 = np.mean((p1 - y[0]) ** 2), np.mean(np.abs(p2 - y[1]))
    model.compile(optimizer="sgd", loss=["mse", "mae"], loss_weights=[1.0, 0.5], metrics=[["mae"], []])
    loss, loss1, loss2, mae1 = model.evaluate(x, y, batch_size=16, verbose=0)
    assert loss1 == pytest.approx(mse1, rel=1e-5) and loss2 == pytest.approx(mae2, rel=1e-5)
    assert loss == pytest.approx(mse1 + 0.5 * mae2, rel=1e-5)
    assert mae1 == pytest.approx(np.mean(np.abs(p1 - y[0])), rel=1e-5)
    history = model.fit(x, y, epochs=2, verbose=0).history
    assert sorted(history) == ["loss", "o1_loss", "o1_mae", "o2_loss"]
    prediction = model.predict(x, verbose=0)
    assert isinstance(prediction, list) and [p.shape for p in prediction] == [(16, 1), (16, 2)]


def test_dict_outputs_and_one_loss_for_all():
    a, b, o1, o2 = _two_outputs()
    model = keras.Model({"a": a, "b": b}, {"p": o1, "q": o2})
    x, y = _two_output_data()
    model.compile(optimizer="sgd", loss="mse")
    history = model.fit({"a": x[0], "b": x[1]}, {"p": y[0], "q": y[1]}, epochs=1, verbose=0).history
    assert sorted(history) == ["loss", "p_loss", "q_loss"]
    assert history["loss"][0] == pytest.approx(history["p_loss"][0] + history["q_loss"][0], rel=1e-5)
    prediction = model.predict({"a": x[0], "b": x[1]}, verbose=0)
    assert sorted(prediction) == ["p", "q"]
    # An output without a loss is left out; one loss left logs no per-output entry (Keras 3.15, which
    # also warns that o1's weights get no gradient).
    model.compile(optimizer="sgd", loss={"q": "mse"})
    with pytest.warns(UserWarning, match=r"Gradients do not exist for variables \['o1/kernel', 'o1/bias'\]"):
        history = model.fit({"a": x[0], "b": x[1]}, {"p": y[0], "q": y[1]}, verbose=0).history
    assert sorted(history) == ["loss"]


def test_compile_errors_name_the_outputs():
    a, b, o1, o2 = _two_outputs()
    model = keras.Model([a, b], [o1, o2])
    x, y = _two_output_data()
    model.compile(optimizer="sgd", loss=["mse", "mse"], metrics=["mae"])
    with pytest.raises(ValueError, match=r"Invalid `metrics`.*\['o1', 'o2'\]"):
        model.fit(x, y, verbose=0)
    model.compile(optimizer="sgd", loss={"o3": "mse"})
    # Keras 3.15's words for a loss dict that does not name exactly the outputs of a list-output model.
    with pytest.raises(ValueError, match=r"Expected keys \['o1', 'o2'\] in loss dict, but found "
                                         r"loss.keys\(\)=\['o3'\]"):
        model.fit(x, y, verbose=0)
    model.compile(optimizer="sgd", loss="mse")
    with pytest.raises(ValueError, match="2 outputs"):
        model.fit(x, y[0], verbose=0)


def test_graph_errors():
    a, b = keras.Input((2,), name="a"), keras.Input((2,), name="b")
    with pytest.raises(ValueError, match="is not connected to `inputs`.*'b'"):
        keras.Model(a, layers.Add()([a, b]))
    with pytest.raises(ValueError, match="must come from `keras.Input`"):
        keras.Model(layers.Dense(2)(a), a)
    with pytest.raises(ValueError, match="must be KerasTensors"):
        keras.Model(a, tf.ones((1, 2)))


def test_summary_lists_operations_and_connections_only_for_graphs():
    inputs = keras.Input((4,), name="x")
    model = keras.Model(inputs, layers.Dense(3, name="d1")(inputs) * 2)
    lines = []
    model.summary(print_fn=lines.append)
    text = "\n".join(lines)
    assert "x (InputLayer)" in text and "d1 (Dense)" in text and "(Multiply)" in text
    assert "Connected to" not in text and "Total params: 15" in text
    assert [layer.name for layer in model.layers] == ["x", "d1"]


def test_get_layer():
    inputs = keras.Input((4,), name="x")
    model = keras.Model(inputs, layers.Dense(3, name="d1")(inputs))
    assert model.get_layer("d1").name == "d1" and model.get_layer(index=0).name == "x"
    with pytest.raises(ValueError, match="No such layer: d2"):
        model.get_layer("d2")


def test_weights_round_trip(tmp_path):
    def make():
        inputs = keras.Input((3,))
        return keras.Model(inputs, layers.Dense(2)(layers.Dense(4)(inputs)))
    model, copy = make(), make()
    path = str(tmp_path / "model.weights.h5")
    model.save_weights(path)
    copy.load_weights(path)
    x = RNG.standard_normal((2, 3)).astype(np.float32)
    np.testing.assert_array_equal(model(x).numpy(), copy(x).numpy())
    checkpoint = tf.train.Checkpoint(model=model)
    saved = checkpoint.save(str(tmp_path / "ckpt"))
    other = make()
    tf.train.Checkpoint(model=other).restore(saved)
    np.testing.assert_array_equal(model(x).numpy(), other(x).numpy())


def test_clear_session_restarts_names():
    keras.backend.clear_session()
    first = layers.Dense(1)(keras.Input((2,)))
    keras.backend.clear_session()
    again = layers.Dense(1)(keras.Input((2,)))
    assert first.name == again.name == "keras_tensor_1"    # the Input is keras_tensor


def test_merge_layers_and_lambda():
    a, b, c = (keras.Input((3,)) for _ in range(3))
    outputs = [layers.Subtract()([a, b]), layers.Multiply()([a, b, c]), layers.Average()([a, b, c]),
               layers.Maximum()([a, b]), layers.Minimum()([a, b, c]), layers.Add()([a, b]),
               layers.Lambda(lambda t, k: tf.reduce_sum(t, axis=1, keepdims=True) * k, arguments={"k": 3.0})(a),
               layers.Lambda(lambda t, training=None: t * (2.0 if training else 1.0))(a)]
    model = keras.Model([a, b, c], outputs)
    x, y, z = (RNG.standard_normal((4, 3)).astype(np.float32) for _ in range(3))
    expected = [x - y, x * y * z, (x + y + z) / 3, np.maximum(x, y), np.minimum(np.minimum(x, y), z), x + y,
                3 * x.sum(1, keepdims=True), x]
    for got, want in zip(model([x, y, z]), expected):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(model([x, y, z], training=True)[-1].numpy(), 2 * x, rtol=1e-6)
    with pytest.raises(ValueError, match="exactly 2 inputs"):
        layers.Subtract()([a, b, c])
    with pytest.raises(ValueError, match="must be callable"):
        layers.Lambda(3)


def test_layer_order_is_keras_depth_order():
    # Keras lists layers deepest first (steps to the furthest output), ties in the order a walk back
    # from the outputs reaches them; the weights (and get/set_weights) follow that order.
    a, b = keras.Input((3,), name="a"), keras.Input((2,), name="b")
    c = layers.Concatenate(name="cat")([a, b])
    h = layers.Dense(4, name="h")(c)
    o1 = layers.Dense(1, name="o1")(h)
    o2 = layers.Dense(2, name="o2")(layers.Add(name="add")([h, layers.Dense(4, name="skip")(c)]))
    unused = keras.Input((1,), name="unused")
    model = keras.Model([a, b, unused], [o1, o2 * 0.5])
    assert [layer.name for layer in model.layers] == ["a", "b", "cat", "h", "skip", "add", "o2", "unused", "o1"]
    assert [w.shape.as_list() for w in model.weights][:4] == [[5, 4], [4], [5, 4], [4]]
