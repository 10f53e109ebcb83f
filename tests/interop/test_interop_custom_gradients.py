"""Custom gradients through SavedModels with real TensorFlow (runs only when TENSORFLOW_PYTHON names an
interpreter with it): TensorFlow differentiates a tensorflux-saved function with its custom gradient, and
tensorflux one TensorFlow saved (`tf.clip_by_norm` in the gradient: a reduction over Range(Rank(x)) and
TensorFlow 1's Select on inputs of unknown rank). Also Keras' LayerNormalization, both ways."""
import json

import numpy as np

import tensorflux as tf

from _tensorflow_side import run_tensorflow


@tf.custom_gradient
def _clip_gradient(value):
    def grad_fn(upstream):
        return tf.clip_by_norm(upstream, 0.5)
    return value, grad_fn


class _Module(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec(None)])
    def call_custom_grad(self, value):
        return _clip_gradient(value)


_TF_DIFFERENTIATE = """
import json, sys, tensorflow as tf
m = tf.saved_model.load(sys.argv[1])
v = tf.Variable(2.0)
with tf.GradientTape() as g:
    out = m.call_custom_grad(v * v)
w = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
with tf.GradientTape() as g2:
    out2 = tf.reduce_sum(m.call_custom_grad(w * 3.0))
print(json.dumps({"out": float(out), "grad": float(g.gradient(out, v)), "grad2": g2.gradient(out2, w).numpy().tolist()}))
"""

_TF_SAVE = """
import json, sys, numpy as np, tensorflow as tf, keras

@tf.custom_gradient
def clip(value):
    def grad_fn(upstream):
        return tf.clip_by_norm(upstream, 0.5)
    return value, grad_fn

class Module(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec(None)])
    def call_custom_grad(self, value):
        return clip(value)

tf.saved_model.save(Module(), sys.argv[1], options=tf.saved_model.SaveOptions(experimental_custom_gradients=True))
keras.utils.set_random_seed(3)
inputs = keras.Input((4, 6))
layer = keras.layers.LayerNormalization(gamma_initializer="random_normal", beta_initializer="random_normal")
model = keras.Model(inputs, layer(inputs))
model.export(sys.argv[2])
x = np.array(json.loads(sys.argv[3]), np.float32)
print(json.dumps({"layer_norm": model.predict(x, verbose=0).tolist()}))
"""


def _expected_gradients():
    w = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    upstream = np.ones_like(w)
    return (upstream * 0.5 / np.sqrt(upstream.size) * 3.0).tolist(), w


def test_tensorflow_differentiates_a_tensorflux_custom_gradient(tmp_path):
    path = str(tmp_path / "ours")
    tf.saved_model.save(_Module(), path)
    got = run_tensorflow(_TF_DIFFERENTIATE, path)
    assert got["out"] == 4.0 and got["grad"] == 2.0
    np.testing.assert_allclose(got["grad2"], _expected_gradients()[0], rtol=1e-6)


def test_tensorflux_differentiates_a_tensorflow_custom_gradient_and_layer_norm(tmp_path):
    module_path, keras_path = str(tmp_path / "module"), str(tmp_path / "keras")
    x = np.random.default_rng(1).standard_normal((2, 4, 6)).astype(np.float32)
    want = run_tensorflow(_TF_SAVE, module_path, keras_path, json.dumps(x.tolist()))
    m = tf.saved_model.load(module_path)
    v = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        out = m.call_custom_grad(v * v)
    assert float(out) == 4.0 and float(tape.gradient(out, v)) == 2.0
    expected, w0 = _expected_gradients()
    w = tf.Variable(w0)
    with tf.GradientTape() as tape:
        total = tf.reduce_sum(m.call_custom_grad(w * 3.0))
    np.testing.assert_allclose(tape.gradient(total, w).numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(tf.saved_model.load(keras_path).serve(x).numpy(), want["layer_norm"],
                               rtol=1e-5, atol=1e-6)


_TF_LAYER_NORM = """
import json, sys, numpy as np, tensorflow as tf
m = tf.saved_model.load(sys.argv[1])
x = np.array(json.loads(sys.argv[2]), np.float32)
print(json.dumps({"y": m.serve(tf.constant(x)).numpy().tolist()}))
"""


def test_tensorflow_runs_a_tensorflux_layer_normalization(tmp_path):
    inputs = tf.keras.Input((4, 6))
    layer = tf.keras.layers.LayerNormalization(gamma_initializer="random_normal", beta_initializer="random_normal")
    model = tf.keras.Model(inputs, layer(inputs))
    x = np.random.default_rng(2).standard_normal((3, 4, 6)).astype(np.float32)
    path = str(tmp_path / "layer_norm")
    model.export(path)
    got = run_tensorflow(_TF_LAYER_NORM, path, json.dumps(x.tolist()))
    np.testing.assert_allclose(got["y"], model(x).numpy(), rtol=1e-5, atol=1e-6)
