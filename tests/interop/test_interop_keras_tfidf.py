"""TF-IDF lookup layers in `.keras` files both ways with real TensorFlow 2.21 + Keras 3.15 (run with
TENSORFLOW_PYTHON=~/venv-tf/bin/python): Keras loads the TextVectorization / StringLookup / IntegerLookup
models tensorflux saved (IDF weights in `vars/idf_weights`, vocabulary as an asset) and computes what
tensorflux computes, and tensorflux loads the ones Keras saved with Keras' outputs."""
import numpy as np
import pytest

import tensorflux as tf
from _tensorflow_side import run_tensorflow

pytest.importorskip("h5py")
keras = tf.keras

_BUILD = '''
def build():
    tv = keras.layers.TextVectorization(output_mode="tf_idf", ngrams=2)
    tv.adapt(tf.constant(["the brain is wider than the sky", "for put them side by side", "the one the other"]))
    text = keras.Input((1,), dtype="string")
    sl = keras.layers.StringLookup(output_mode="tf_idf")
    sl.adapt(tf.constant([["a", "b", "a"], ["c", "a", "d"]]))
    sp = keras.layers.StringLookup(output_mode="tf_idf", max_tokens=8, pad_to_max_tokens=True)
    sp.adapt(tf.constant([["a", "b", "a"], ["c", "a", "d"]]))
    il = keras.layers.IntegerLookup(output_mode="tf_idf", vocabulary=[3, 5, 7], idf_weights=[0.5, 1.5, 2.5])
    return {"tv": keras.Model(text, tv(text)),
            "sl": keras.Sequential([keras.Input((3,), dtype="string"), sl]),
            "sp": keras.Sequential([keras.Input((3,), dtype="string"), sp]),
            "il": keras.Sequential([keras.Input((3,), dtype="int64"), il])}
INPUTS = {"tv": lambda: tf.constant([["the brain is wider"], ["side by side by the sea"]]),
          "sl": lambda: tf.constant([["a", "b", "zz"], ["d", "a", "a"]]),
          "sp": lambda: tf.constant([["a", "b", "zz"], ["d", "a", "a"]]),
          "il": lambda: tf.constant([[3, 5, 9], [7, 7, 3]], tf.int64)}
# Keras 3.15 cannot load a padded TF-IDF layer back (its own files included: "`idf_weights` must be the same
# length as vocabulary"); tensorflux writes the same file and loads it, so "sp" goes one way only.
KERAS_LOADABLE = ("tv", "sl", "il")
'''

_KERAS_SIDE = '''
import json, sys, numpy as np, tensorflow as tf, keras
''' + _BUILD + '''
mode, folder = sys.argv[1], sys.argv[2]
out = {}
for name in (("tv", "sl", "sp", "il") if mode == "save" else KERAS_LOADABLE):
    if mode == "save":
        model = build()[name]
        model.save(f"{folder}/keras_{name}.keras")
    else:
        model = keras.models.load_model(f"{folder}/tfx_{name}.keras")
    out[name] = np.asarray(model(INPUTS[name]())).tolist()
print(json.dumps(out))
'''

namespace = {"tf": tf, "keras": keras}
exec(compile(_BUILD, "<interop tf-idf models>", "exec"), namespace)     # the test's own source, not a file's


def test_keras_loads_tensorflux_tfidf_models(tmp_path):
    expected = {}
    for name, model in namespace["build"]().items():
        if name not in namespace["KERAS_LOADABLE"]:
            continue
        model.save(str(tmp_path / f"tfx_{name}.keras"))
        expected[name] = model(namespace["INPUTS"][name]()).numpy()
    got = run_tensorflow(_KERAS_SIDE, "load", tmp_path)
    for name in expected:
        np.testing.assert_array_equal(np.array(got[name], np.float32), expected[name], err_msg=name)


def test_tensorflux_loads_keras_tfidf_models(tmp_path):
    got = run_tensorflow(_KERAS_SIDE, "save", tmp_path)
    for name in ("tv", "sl", "sp", "il"):
        loaded = keras.models.load_model(str(tmp_path / f"keras_{name}.keras"))
        np.testing.assert_array_equal(loaded(namespace["INPUTS"][name]()).numpy(), np.array(got[name], np.float32),
                                      err_msg=name)
