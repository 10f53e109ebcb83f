"""The key order of `get_config()` for the layers whose order differs from Keras 3.15's (the values match).
Recorded from Keras 3.15 with the same arguments. A layer's order comes from its constructor signature
(keras/saving/keras_config.py `_in_keras_order`), which for these layers is not the order Keras writes
(Keras' MaxPooling2D takes `(pool_size, strides, padding)` but writes pool_size, padding, strides):
keras_config.py holds a per-class order for them (and the whole order of the few whose base keys
Keras writes after the arguments)."""
import pytest

import tensorflux as tf

K = tf.keras.layers
BASE = ["name", "trainable", "dtype"]
POOLING = BASE + ["pool_size", "padding", "strides", "data_format"]
CELL_HEAD = ["units", "activation", "recurrent_activation", "use_bias"]
INITIALIZERS = ["kernel_initializer", "recurrent_initializer", "bias_initializer"]
CELL_TAIL = ["kernel_regularizer", "recurrent_regularizer", "bias_regularizer", "kernel_constraint",
             "recurrent_constraint", "bias_constraint", "dropout", "recurrent_dropout"]

CASES = [
    *[pytest.param(lambda cls=cls: cls(pool_size=2), POOLING, id=cls.__name__)
      for cls in (K.AveragePooling1D, K.AveragePooling2D, K.AveragePooling3D, K.MaxPooling1D, K.MaxPooling2D,
                  K.MaxPooling3D)],
    pytest.param(lambda: K.Bidirectional(K.LSTM(2)), BASE + ["merge_mode", "layer", "backward_layer"],
                 id="Bidirectional"),
    pytest.param(lambda: K.CenterCrop(4, 4), BASE + ["data_format", "height", "width"], id="CenterCrop"),
    pytest.param(lambda: K.Dropout(0.5), BASE + ["rate", "seed", "noise_shape"], id="Dropout"),
    pytest.param(lambda: K.GRUCell(4), BASE + CELL_HEAD + INITIALIZERS + CELL_TAIL + ["reset_after", "seed"],
                 id="GRUCell"),
    pytest.param(lambda: K.LSTMCell(4), BASE + CELL_HEAD + ["unit_forget_bias"] + INITIALIZERS + CELL_TAIL + ["seed"],
                 id="LSTMCell"),
    pytest.param(lambda: K.Normalization(), BASE + ["axis", "invert", "mean", "variance"], id="Normalization"),
    pytest.param(lambda: K.RNN(K.SimpleRNNCell(2)), BASE + ["return_sequences", "return_state", "go_backwards",
                                                             "stateful", "unroll", "zero_output_for_mask", "cell"],
                 id="RNN"),
    pytest.param(lambda: K.Resizing(4, 4), BASE + ["data_format", "height", "width", "interpolation",
                                                   "crop_to_aspect_ratio", "pad_to_aspect_ratio", "fill_mode",
                                                   "fill_value", "antialias"],
                 id="Resizing"),
    pytest.param(lambda: K.ELU(), ["name", "alpha", "trainable", "dtype"], id="ELU"),
    pytest.param(lambda: K.SpatialDropout1D(0.5), ["rate", "seed", "name", "dtype"], id="SpatialDropout1D"),
    pytest.param(lambda: K.SpatialDropout2D(0.5), ["rate", "seed", "name", "dtype", "data_format"],
                 id="SpatialDropout2D"),
    pytest.param(lambda: K.SpatialDropout3D(0.5), ["rate", "seed", "name", "dtype", "data_format"],
                 id="SpatialDropout3D"),
]


@pytest.mark.parametrize("make, keras_keys", CASES)
def test_get_config_key_order_is_keras(make, keras_keys):
    config = make().get_config()
    assert sorted(config) == sorted(keras_keys)     # the same keys (this part holds today)
    assert list(config) == keras_keys


@pytest.mark.parametrize("make, keras_keys", [
    (lambda: K.Dense(3), BASE + ["units", "activation", "use_bias", "kernel_initializer", "bias_initializer",
                                 "kernel_regularizer", "bias_regularizer", "kernel_constraint", "bias_constraint",
                                 "quantization_config"]),
    (lambda: K.Conv2D(2, 3), BASE + ["filters", "kernel_size", "strides", "padding", "data_format", "dilation_rate",
                                     "groups", "activation", "use_bias", "kernel_initializer", "bias_initializer",
                                     "kernel_regularizer", "bias_regularizer", "activity_regularizer",
                                     "kernel_constraint", "bias_constraint"]),
])
def test_layers_already_in_keras_order(make, keras_keys):
    assert list(make().get_config()) == keras_keys
