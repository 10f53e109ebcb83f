"""Keras masks (keras.masks, Layer.__call__): Embedding(mask_zero) and Masking make them, layers that
support masking pass them on, an RNN skips masked steps (eagerly and inside a traced step), a layer that
does not support masking warns, and KerasTensors carry symbolic masks. Expected values were printed by
TensorFlow 2.21 / Keras 3.15 running the same code."""
import warnings

import numpy as np

import tensorflux as tf

keras = tf.keras
layers = keras.layers

PADDED = np.array([[711, 632, 71, 0, 0], [73, 8, 3215, 55, 0]])


def test_embedding_and_masking_layers_attach_masks():
    out = layers.Embedding(5000, 4, mask_zero=True)(PADDED)
    assert out._keras_mask.numpy().tolist() == [[True, True, True, False, False], [True, True, True, True, False]]
    features = np.ones((2, 3, 2), "float32")
    features[0, 2] = 0.0
    masked = layers.Masking()(features)
    assert masked._keras_mask.numpy().tolist() == [[True, True, False], [True, True, True]]
    assert masked.numpy()[0, 2].tolist() == [0.0, 0.0]
    assert not hasattr(layers.Embedding(10, 2)(PADDED % 10), "_keras_mask")


def test_mask_passes_through_dense_and_is_dropped_with_a_warning():
    h = layers.Dense(3)(layers.Embedding(5000, 4, mask_zero=True)(PADDED))
    assert h._keras_mask.shape == (2, 5)

    class NoMasking(layers.Layer):
        def call(self, inputs):
            return inputs * 2

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = NoMasking(name="no_masking")(h)
    assert getattr(out, "_keras_mask", None) is None
    assert [str(w.message) for w in caught] == [
        "Layer 'no_masking' (of type NoMasking) was passed an input with a mask attached to it. However, this "
        "layer does not support masking and will therefore destroy the mask information. Downstream layers will "
        "not see the mask."]


def _model():
    ids = keras.Input(shape=(None,), dtype="int32")
    h = layers.Embedding(input_dim=50, output_dim=4, mask_zero=True)(ids)
    model = keras.Model(ids, layers.LSTM(3)(h))
    rng = np.random.default_rng(0)
    for v in model.weights:
        v.assign(rng.uniform(-0.5, 0.5, size=tuple(v.shape)).astype("float32"))
    return model


def test_lstm_skips_masked_steps_eagerly_and_traced():
    model = _model()
    padded = np.array([[5, 7, 9, 0, 0], [3, 0, 0, 0, 0]])
    alone = np.concatenate([model(np.array([[5, 7, 9]])).numpy(), model(np.array([[3]])).numpy()])
    np.testing.assert_allclose(model(padded).numpy(), alone, atol=1e-6)
    np.testing.assert_allclose(tf.function(lambda x: model(x))(tf.constant(padded)).numpy(), alone, atol=1e-6)


def test_keras_tensors_carry_symbolic_masks():
    keras.backend.clear_session()
    ids = keras.Input(shape=(None,), dtype="int32")
    h = layers.Embedding(input_dim=50, output_dim=4, mask_zero=True)(ids)
    assert repr(h._keras_mask) == ("<KerasTensor shape=(None, None), dtype=bool, sparse=False, ragged=False, "
                                   "name=keras_tensor_2>")
    assert layers.Dense(2)(h)._keras_mask is h._keras_mask      # passed on unchanged
    assert getattr(layers.LSTM(2)(h), "_keras_mask", None) is None
