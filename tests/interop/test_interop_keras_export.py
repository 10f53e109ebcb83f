"""Multi-input Keras `model.export` both ways with real TensorFlow (runs only when TENSORFLOW_PYTHON names
an interpreter with it): the serving signature takes one tensor per model input, named after the inputs,
and `serve` takes the model's list of inputs, as Keras 3 on TensorFlow 2.21 writes them."""
import json

import numpy as np

import tensorflux as tf

from _tensorflow_side import run_tensorflow

A = np.linspace(-1.0, 1.0, 6, dtype=np.float32).reshape(2, 3)
B = np.linspace(0.5, -0.5, 4, dtype=np.float32).reshape(2, 2)

_TF_CALL = """
import json, sys, numpy as np, tensorflow as tf
m = tf.saved_model.load(sys.argv[1])
a, b = (np.array(json.loads(v), np.float32) for v in sys.argv[2:4])
signature = m.signatures["serving_default"]
print(json.dumps({"serve": m.serve([a, b]).numpy().tolist(),
                  "signature": signature(a=tf.constant(a), b=tf.constant(b))["output_0"].numpy().tolist(),
                  "inputs": sorted(signature.structured_input_signature[1])}))
"""

_TF_EXPORT = """
import json, sys, numpy as np, keras
keras.utils.set_random_seed(7)
a, b = keras.Input((3,), name="a"), keras.Input((2,), name="b")
h = keras.layers.Concatenate()([a, keras.layers.Dense(4, activation="relu")(b)])
model = keras.Model([a, b], keras.layers.Dense(2)(h))
model.export(sys.argv[1])
x = [np.array(json.loads(v), np.float32) for v in sys.argv[2:4]]
print(json.dumps({"y": model.predict(x, verbose=0).tolist()}))
"""


def test_tensorflow_serves_a_tensorflux_multi_input_export(tmp_path):
    a, b = tf.keras.Input((3,), name="a"), tf.keras.Input((2,), name="b")
    h = tf.keras.layers.Concatenate()([a, tf.keras.layers.Dense(4, activation="relu")(b)])
    model = tf.keras.Model([a, b], tf.keras.layers.Dense(2)(h))
    path = str(tmp_path / "ours")
    model.export(path, verbose=False)
    got = run_tensorflow(_TF_CALL, path, json.dumps(A.tolist()), json.dumps(B.tolist()))
    want = model([A, B]).numpy()
    assert got["inputs"] == ["a", "b"]
    np.testing.assert_allclose(got["serve"], want, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(got["signature"], want, rtol=1e-6, atol=1e-7)


def test_tensorflux_serves_a_keras_multi_input_export(tmp_path):
    path = str(tmp_path / "theirs")
    want = run_tensorflow(_TF_EXPORT, path, json.dumps(A.tolist()), json.dumps(B.tolist()))["y"]
    loaded = tf.saved_model.load(path)
    np.testing.assert_allclose(loaded.serve([A, B]).numpy(), want, rtol=1e-6, atol=1e-7)
    served = loaded.signatures["serving_default"](a=tf.constant(A), b=tf.constant(B))
    np.testing.assert_allclose(served["output_0"].numpy(), want, rtol=1e-6, atol=1e-7)
