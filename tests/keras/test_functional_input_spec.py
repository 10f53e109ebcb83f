"""A functional model checks its inputs' shapes as Keras 3 does, before the call (messages recorded from
Keras 3.15 on TensorFlow 2.21)."""
import numpy as np
import pytest

import tensorflux as tf

keras = tf.keras


def _model():
    feats = keras.Input(shape=(41,), name="input_layer")    # the names a fresh Keras session gives
    return keras.Model(feats, keras.layers.Dense(1)(feats), name="functional")


def test_incompatible_symbolic_and_eager_inputs():
    net = _model()
    message = ("Input 0 with name 'input_layer' of layer 'functional' is incompatible with the layer: "
               "expected shape=(None, 41), found shape=(None, 1, 41)")
    with pytest.raises(ValueError) as info:
        net(keras.Input(shape=(1, 41)))
    assert str(info.value) == message
    with pytest.raises(ValueError, match=r"expected shape=\(None, 41\), found shape=\(2, 40\)"):
        net(np.ones((2, 40), "float32"))


def test_compatible_and_trailing_one_dimension_inputs():
    assert _model()(np.ones((2, 41), "float32")).shape == (2, 1)
    inputs = keras.Input(shape=(3, 1))
    model = keras.Model(inputs, keras.layers.Flatten()(inputs))
    assert model(np.ones((2, 3), "float32")).shape == (2, 3)     # the trailing 1 is dropped before comparing
