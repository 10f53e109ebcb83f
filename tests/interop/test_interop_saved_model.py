"""SavedModels both ways with real TensorFlow (runs only when TENSORFLOW_PYTHON names an interpreter with it):
TensorFlow loads and calls what tensorflux saved, `saved_model_cli show --all` lists it, and tensorflux
loads and calls what TensorFlow wrote (a tf.Module and a Keras `model.export`), with equal results."""
import json
import os
import subprocess

import numpy as np

import tensorflux as tf

from _tensorflow_side import require_tensorflow, run_tensorflow

X = np.linspace(-1.0, 1.0, 6, dtype=np.float32).reshape(2, 3)


class Model(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2) / 4.0, name="w")
        self.b = tf.Variable([0.5, -0.5], name="b")
        self.count = tf.Variable(0, name="count")
        self.table = {"scale": tf.Variable(3.0)}

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32, name="x")])
    def __call__(self, x):
        h = tf.nn.relu(tf.matmul(x, self.w) + self.b)
        return tf.cond(tf.reduce_sum(h) > 1.0, lambda: h * self.table["scale"], lambda: h - 1.0)

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32, name="features")])
    def heads(self, features):
        y = tf.matmul(features, self.w)
        return {"sum": tf.reduce_sum(y, axis=1), "max": tf.reduce_max(y, axis=1)}

    @tf.function(input_signature=[tf.TensorSpec([], tf.int32, name="n")])
    def bump(self, n):
        i = tf.constant(0)
        while i < n:
            self.count.assign_add(2)
            i += 1
        return self.count.read_value()

    @tf.function
    def poly(self, x, power=2.0):
        return tf.reduce_sum(x ** power)


_TF_LOAD = """
import json, sys, numpy as np, tensorflow as tf
m = tf.saved_model.load(sys.argv[1])
x = np.array(json.loads(sys.argv[2]), np.float32)
sig = m.signatures
out = {"keys": sorted(sig), "call": m(x).numpy().tolist(),
       "serving": {k: v.numpy().tolist() for k, v in sig["serving_default"](x=tf.constant(x)).items()},
       "heads": {k: v.numpy().tolist() for k, v in sig["heads"](features=tf.constant(x)).items()},
       "bump": int(m.bump(tf.constant(3)).numpy()), "count": int(m.count.numpy()),
       "poly": float(m.poly(tf.constant([1.0, 2.0]))), "scale": float(m.table["scale"].numpy()),
       "inputs": {k: sorted(v.structured_input_signature[1]) for k, v in sig.items()}}
print(json.dumps(out))
"""


def _saved(tmp_path):
    model = Model()
    model.poly(tf.constant([0.0, 0.0]))
    path = str(tmp_path / "ours")
    tf.saved_model.save(model, path, signatures={"serving_default": model.__call__, "heads": model.heads})
    return model, path


def test_tensorflow_loads_and_calls_a_tensorflux_saved_model(tmp_path):
    model, path = _saved(tmp_path)
    got = run_tensorflow(_TF_LOAD, path, json.dumps(X.tolist()))
    assert got["keys"] == ["heads", "serving_default"]
    assert got["inputs"] == {"heads": ["features"], "serving_default": ["x"]}
    np.testing.assert_allclose(got["call"], model(X).numpy(), rtol=1e-6)
    np.testing.assert_allclose(got["serving"]["output_0"], model(X).numpy(), rtol=1e-6)
    heads = model.heads(X)
    assert sorted(got["heads"]) == ["max", "sum"]
    for key in ("sum", "max"):
        np.testing.assert_allclose(got["heads"][key], heads[key].numpy(), rtol=1e-6)
    assert got["bump"] == 6 and got["count"] == 6 and got["scale"] == 3.0
    assert got["poly"] == 5.0


def test_saved_model_cli_lists_a_tensorflux_saved_model(tmp_path):
    python = require_tensorflow()
    _, path = _saved(tmp_path)
    cli = os.path.join(os.path.dirname(python), "saved_model_cli")
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    done = subprocess.run([cli, "show", "--all", "--dir", path], capture_output=True, text=True, timeout=300,
                          env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    text = done.stdout
    for expected in ("signature_def['serving_default']", "signature_def['heads']", "inputs['x'] tensor_info",
                     "name: serving_default_x:0", "outputs['output_0'] tensor_info", "outputs['sum'] tensor_info",
                     "Method name is: tensorflow/serving/predict", "Concrete Functions:",
                     "Function Name: '__call__'", "Function Name: 'poly'"):
        assert expected in text, (expected, text)
    assert "could not be listed" not in text


_TF_SAVE = """
import json, sys, numpy as np, tensorflow as tf, keras

class Module(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2) / 4.0, name="w")
        self.items = [tf.Variable(1.5), {"k": tf.Variable([1, 2, 3])}]

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32, name="x")])
    def predict(self, x):
        y = tf.matmul(x, self.w)
        return {"y": y, "top": tf.argmax(y, axis=1), "n": tf.reduce_sum(self.items[1]["k"])}

    @tf.function
    def mixed(self, x, k=2, pair=(1.0, 2.0)):
        return x * self.items[0] * k + pair[0] * pair[1]

m = Module()
x = np.array(json.loads(sys.argv[3]), np.float32)
m.mixed(tf.constant(1.0))
m.mixed(tf.constant([1.0, 2.0]), k=3)
tf.saved_model.save(m, sys.argv[1])
keras.utils.set_random_seed(5)
inputs = keras.Input((3,), name="features")
h = keras.layers.Dense(8, activation="tanh")(inputs)
h = keras.layers.BatchNormalization()(h)
model = keras.Model(inputs, keras.layers.Dense(2)(h))
model.export(sys.argv[2])
out = m.predict(x)
print(json.dumps({"y": out["y"].numpy().tolist(), "top": out["top"].numpy().tolist(), "n": int(out["n"]),
                  "mixed1": float(m.mixed(tf.constant(1.0))), "mixed2": m.mixed(tf.constant([1.0, 2.0]), k=3).numpy().tolist(),
                  "keras": model.predict(x, verbose=0).tolist()}))
"""


def test_tensorflux_loads_tensorflow_saved_models(tmp_path):
    module_path, keras_path = str(tmp_path / "module"), str(tmp_path / "keras")
    want = run_tensorflow(_TF_SAVE, module_path, keras_path, json.dumps(X.tolist()))
    m = tf.saved_model.load(module_path)
    out = m.predict(X)
    np.testing.assert_allclose(out["y"].numpy(), want["y"], rtol=1e-6)
    assert out["top"].numpy().tolist() == want["top"] and int(out["n"]) == want["n"]
    assert float(m.mixed(tf.constant(1.0))) == want["mixed1"]
    np.testing.assert_allclose(m.mixed(tf.constant([1.0, 2.0]), k=3).numpy(), want["mixed2"])
    signature = m.signatures["serving_default"](x=tf.constant(X))
    assert sorted(signature) == ["n", "top", "y"]
    keras_model = tf.saved_model.load(keras_path)
    np.testing.assert_allclose(keras_model.serve(X).numpy(), want["keras"], rtol=1e-5, atol=1e-6)
    served = keras_model.signatures["serving_default"](features=tf.constant(X))
    np.testing.assert_allclose(served["output_0"].numpy(), want["keras"], rtol=1e-5, atol=1e-6)


def test_saved_model_cli_runs_a_tensorflux_saved_model_in_a_tf1_session(tmp_path):
    """`saved_model_cli run` loads with TensorFlow 1's loader, as TensorFlow Serving does: the GraphDef's
    signature nodes, and `saver_def`'s restore function filling the variables from variables/."""
    python = require_tensorflow()
    model, path = _saved(tmp_path)
    cli = os.path.join(os.path.dirname(python), "saved_model_cli")
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    outputs = str(tmp_path / "outputs")
    done = subprocess.run([cli, "run", "--dir", path, "--tag_set", "serve", "--signature_def", "heads",
                           "--input_exprs", f"features={X.tolist()}", "--outdir", outputs],
                          capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    heads = model.heads(X)
    for key in ("sum", "max"):
        np.testing.assert_allclose(np.load(os.path.join(outputs, f"{key}.npy")), heads[key].numpy(), rtol=1e-6)
