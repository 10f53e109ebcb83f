"""Layers added for Keras 3.15's names (3-D convolution/pooling/padding, adaptive pooling, group/unit/RMS
normalization, activity regularization, alpha dropout) against outputs recorded from Keras 3.15 for the
calls in keras_layers_cases.py, plus config round trips and training-mode behaviour."""
import json
import os

import numpy as np
import pytest

import tensorflux as tf
import keras_layers_cases

with open(os.path.join(os.path.dirname(__file__), "keras_layers_recorded.json")) as f:
    RECORDED = json.load(f)

CASES = keras_layers_cases.cases(tf.keras, np)


def test_every_case_is_recorded():
    assert sorted(CASES) == sorted(RECORDED)


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_matches_keras(name):
    out, config = CASES[name]()
    expected = RECORDED[name]
    assert list(out.shape) == expected["shape"]
    assert tf.as_dtype(out.dtype).name == expected["dtype"]
    np.testing.assert_allclose(np.asarray(out), expected["value"], rtol=2e-5, atol=2e-6)
    # get_config holds the arguments given (tensorflux's layers record their constructor arguments; the
    # Keras-form config with every default is written when saving): they must agree with Keras' entries,
    # an int standing for Keras' tuple of that int
    for key, ours in config.items():
        theirs = expected["config"].get(key)
        if theirs is None or not isinstance(ours, (int, float, str, tuple, list)) or isinstance(ours, bool):
            continue
        if isinstance(ours, int) and isinstance(theirs, list):
            ours = [ours] * len(theirs)
        normal = json.loads(json.dumps(ours))
        assert normal == theirs, f"{name}: {key} {ours!r} != {theirs!r}"


@pytest.mark.parametrize("name", ["conv3d", "group_norm", "rms_norm", "adaptive_max2d", "cropping3d"])
def test_config_round_trip(name):
    layer_out, config = CASES[name]()
    layer_class = {"conv3d": tf.keras.layers.Conv3D, "group_norm": tf.keras.layers.GroupNormalization,
                   "rms_norm": tf.keras.layers.RMSNormalization, "adaptive_max2d": tf.keras.layers.AdaptiveMaxPooling2D,
                   "cropping3d": tf.keras.layers.Cropping3D}[name]
    clone = layer_class.from_config(config)
    assert isinstance(clone, layer_class)


def test_activity_regularization_adds_its_loss():
    layer = tf.keras.layers.ActivityRegularization(l1=0.1, l2=0.01)
    x = tf.constant([[1.0, -2.0], [0.5, 0.0]])
    layer(x)
    expected = (0.1 * 3.5 + 0.01 * 5.25) / 2
    np.testing.assert_allclose(float(tf.add_n(layer.losses)), expected, rtol=1e-6)


def test_alpha_dropout_keeps_selu_statistics_in_training():
    layer = tf.keras.layers.AlphaDropout(0.2, seed=1)
    x = tf.random.normal([200000], seed=3)
    y = layer(x, training=True).numpy()
    assert abs(y.mean()) < 0.02 and abs(y.std() - 1.0) < 0.02
    assert np.array_equal(layer(x).numpy(), x.numpy())


def test_spatial_dropout3d_drops_whole_channels_in_training():
    layer = tf.keras.layers.SpatialDropout3D(0.5, seed=2)
    y = layer(tf.ones([4, 2, 2, 2, 8]), training=True).numpy()
    per_channel = y.reshape(4, 8, 8, order="F") if False else y.transpose(0, 4, 1, 2, 3).reshape(4, 8, -1)
    assert all(len(set(row.tolist())) == 1 for example in per_channel for row in example)
    assert set(np.unique(y)) <= {0.0, 2.0}


def test_conv3d_in_a_model_trains_and_traces():
    model = tf.keras.Sequential([tf.keras.Input((4, 4, 4, 1)), tf.keras.layers.Conv3D(2, 2, activation="relu"),
                                 tf.keras.layers.GlobalAveragePooling3D(), tf.keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    history = model.fit(np.ones((4, 4, 4, 4, 1), np.float32), np.ones((4, 1), np.float32), epochs=2, verbose=0)
    assert len(history.history["loss"]) == 2
    assert model.compute_output_shape((None, 4, 4, 4, 1)) == (None, 1)


def test_errors():
    with pytest.raises(ValueError, match="Number of groups \\(3\\) must be a multiple"):
        tf.keras.layers.GroupNormalization(groups=3)(tf.ones([1, 4]))
    with pytest.raises(ValueError, match="`output_size`"):
        tf.keras.layers.AdaptiveAveragePooling2D((1, 2, 3))
    with pytest.raises(ValueError, match="filters"):
        tf.keras.layers.Conv3D(0, 2)
