"""A multi-input Keras model's `export`: the serving signature takes one tensor per model input, named
after the inputs, and `serve` takes the model's list of inputs (as Keras 3 on TensorFlow 2.21)."""
import numpy as np

import tensorflux as tf


def test_a_multi_input_keras_export_takes_one_tensor_per_input(tmp_path):
    a, b = tf.keras.Input((3,), name="a"), tf.keras.Input((2,), name="b")
    model = tf.keras.Model([a, b], tf.keras.layers.Dense(2)(tf.keras.layers.Concatenate()([a, b])))
    path = str(tmp_path / "multi_input")
    model.export(path, verbose=False)
    x = [np.ones((2, 3), np.float32), np.full((2, 2), 2.0, np.float32)]
    loaded = tf.saved_model.load(path)
    signature = loaded.signatures["serving_default"]
    assert sorted(signature.structured_input_signature[1]) == ["a", "b"]
    want = model(x).numpy()
    np.testing.assert_array_equal(loaded.serve(x).numpy(), want)
    np.testing.assert_array_equal(signature(a=tf.constant(x[0]), b=tf.constant(x[1]))["output_0"].numpy(), want)
