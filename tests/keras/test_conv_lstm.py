"""keras.layers.ConvLSTM1D/2D/3D against Keras 3.15 on TensorFlow 2.21 (fixtures/keras315_conv_lstm.json):
weight shapes, outputs and final states, compute_output_shape and config keys, for valid and same padding,
strides, dilation, no bias, go_backwards; weights set to cos(arange) * 0.2, inputs sin(arange). Then traced,
trained in a model, and Keras' error for an input of the wrong rank."""
import json
import pathlib

import numpy as np
import pytest

import tensorflux as tf

K = tf.keras.layers
RECORDED = json.loads((pathlib.Path(__file__).parent / "fixtures" / "keras315_conv_lstm.json").read_text())
CASES = {"2d_valid": (lambda: K.ConvLSTM2D(3, 3, return_sequences=True, return_state=True), (2, 4, 6, 6, 2)),
         "2d_same_stride": (lambda: K.ConvLSTM2D(2, (3, 2), strides=2, padding="same"), (2, 3, 7, 6, 2)),
         "1d": (lambda: K.ConvLSTM1D(4, 3, padding="same", return_sequences=True, go_backwards=True), (2, 5, 8, 3)),
         "3d": (lambda: K.ConvLSTM3D(2, 2, return_state=True), (1, 3, 4, 4, 4, 1)),
         "2d_dilated_nobias": (lambda: K.ConvLSTM2D(2, 3, dilation_rate=2, use_bias=False, activation="relu"),
                               (2, 3, 7, 7, 1))}


def _layer(name):
    make, shape = CASES[name]
    layer = make()
    layer.build(shape)
    layer.set_weights([np.cos(np.arange(np.prod(w.shape), dtype="float32")).reshape(w.shape) * 0.2
                       for w in layer.weights])
    return layer, np.sin(np.arange(np.prod(shape), dtype="float32")).reshape(shape), shape


@pytest.mark.parametrize("name", sorted(CASES))
def test_as_keras(name):
    recorded = RECORDED[name]
    layer, x, shape = _layer(name)
    assert [[w.path.split("/")[-1], list(w.shape)] for w in layer.weights] == recorded["weights"]
    assert list(layer.get_config()) == recorded["config"]
    result = layer(x)
    result = list(result) if isinstance(result, (list, tuple)) else [result]
    assert len(result) == len(recorded["outputs"])
    for got, want in zip(result, recorded["outputs"]):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-6)
    static = layer.compute_output_shape(shape)
    static = list(static) if isinstance(static[0], tuple) else [static]
    assert [list(s) for s in static] == recorded["output_shape"]
    traced = tf.function(lambda v: layer(v))(x)
    traced = traced[0] if isinstance(traced, (list, tuple)) else traced
    np.testing.assert_allclose(traced.numpy(), recorded["outputs"][0], rtol=1e-5, atol=1e-6)


def test_trains_and_refuses_a_wrong_rank():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 3, 5, 5, 1)).astype("float32")
    y = x[:, -1].mean(axis=(1, 2, 3))[:, None]
    model = tf.keras.Sequential([tf.keras.Input((3, 5, 5, 1)), K.ConvLSTM2D(2, 3, padding="same"), K.Flatten(),
                                 K.Dense(1)])
    model.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse")
    losses = model.fit(x, y, epochs=4, batch_size=4, verbose=0).history["loss"]
    assert losses[-1] < losses[0]
    layer = K.ConvLSTM2D(2, 3)
    with pytest.raises(ValueError, match=r"expected ndim=5, found ndim=3\. Full shape received: \(2, 3, 4\)"):
        layer(np.zeros((2, 3, 4), "float32"))


FIRST = json.loads((pathlib.Path(__file__).parent / "fixtures" /
                    "keras315_conv_lstm_channels_first.json").read_text())
FIRST_CASES = {"2d_first_stride_state": (lambda: K.ConvLSTM2D(4, 3, strides=2, data_format="channels_first",
                                                              return_state=True), (2, 3, 2, 9, 7)),
               "1d_first_same_seq": (lambda: K.ConvLSTM1D(3, 2, padding="same", data_format="channels_first",
                                                          return_sequences=True), (2, 4, 5, 6)),
               "3d_first": (lambda: K.ConvLSTM3D(2, 2, data_format="channels_first"), (1, 3, 1, 4, 4, 4))}


@pytest.mark.parametrize("name", sorted(FIRST_CASES))
def test_channels_first_as_keras(name):
    """channels_first (recorded by fixtures/record_keras315_conv_lstm_channels_first.py): the same values as
    Keras, which computes it in channels_last on CPU, so within float32 rounding of the fixture."""
    make, shape = FIRST_CASES[name]
    recorded = FIRST[name]
    layer = make()
    layer.build(shape)
    layer.set_weights([np.cos(np.arange(np.prod(w.shape), dtype="float32")).reshape(w.shape) * 0.2
                       for w in layer.weights])
    x = np.sin(np.arange(np.prod(shape), dtype="float32")).reshape(shape)
    result = layer(x)
    result = list(result) if isinstance(result, (list, tuple)) else [result]
    assert len(result) == len(recorded["outputs"])
    for got, want in zip(result, recorded["outputs"]):
        np.testing.assert_allclose(got.numpy(), np.asarray(want, np.float32), rtol=1e-5, atol=1e-6)
    shapes = layer.compute_output_shape((None,) + shape[1:])
    want_shapes = recorded["output_shape"]
    assert json.loads(json.dumps(shapes)) == want_shapes
    assert layer.get_config()["data_format"] == "channels_first"


def test_channels_first_is_channels_last_transposed_and_traces():
    first = K.ConvLSTM2D(3, 2, data_format="channels_first", return_sequences=True, padding="same")
    last = K.ConvLSTM2D(3, 2, data_format="channels_last", return_sequences=True, padding="same")
    x = np.random.RandomState(0).rand(2, 3, 5, 4, 2).astype("float32")
    last.build(x.shape)
    first.build(np.transpose(x, (0, 1, 4, 2, 3)).shape)
    first.set_weights(last.get_weights())
    want = np.transpose(last(x).numpy(), (0, 1, 4, 2, 3))
    assert np.array_equal(first(np.transpose(x, (0, 1, 4, 2, 3))).numpy(), want)
    traced = tf.function(lambda t: first(t))(tf.constant(np.transpose(x, (0, 1, 4, 2, 3))))
    assert np.array_equal(traced.numpy(), want)


def test_keras_errors_for_unknown_spatial_sizes_and_formats():
    with pytest.raises(ValueError) as e:
        K.ConvLSTM2D(2, 3, data_format="channels_first")(tf.keras.Input((None, 2, None, 5)))
    assert str(e.value) == FIRST["unknown_spatial_error"]
    with pytest.raises(ValueError) as e:
        K.ConvLSTM2D(2, 3, data_format="nchw")
    assert str(e.value) == FIRST["bad_format_error"]
