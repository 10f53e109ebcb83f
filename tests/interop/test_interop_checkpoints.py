"""Checkpoints both ways with real TensorFlow (runs only when TENSORFLOW_PYTHON names an interpreter with it):
TensorFlow restores what tensorflux wrote and the reverse, with the same keys and values."""
import json
import os

import numpy as np
import pytest

import tensorflux as tf

from _tensorflow_side import run_tensorflow

_MODULE_SOURCE = """
class M(tf.Module):
    def __init__(self, scale):
        super().__init__()
        self.v = tf.Variable(np.arange(3, dtype=np.float32) * scale)
        self.sub = tf.Module()
        self.sub.w = tf.Variable(np.ones((2, 2), np.float64) * scale, name="w")
        self.items = [tf.Variable(np.int32(7 * scale)), tf.Variable(np.float32(2.5 * scale))]
        self.table = {"a/b.c": tf.Variable(np.float32(3 * scale)), "s": tf.Variable(b"bytes%d" % scale)}
"""

_TF_RESTORE = "import sys, json, numpy as np, tensorflow as tf\n" + _MODULE_SOURCE + """
m = M(0)
ckpt = tf.train.Checkpoint(model=m)
getattr(ckpt, sys.argv[2])(sys.argv[1]).assert_consumed()
print(json.dumps({"v": m.v.numpy().tolist(), "w": m.sub.w.numpy().tolist(), "i": int(m.items[0].numpy()),
                  "f": float(m.items[1].numpy()), "t": float(m.table["a/b.c"].numpy()),
                  "s": m.table["s"].numpy().decode(), "counter": None if ckpt._save_counter is None else int(ckpt.save_counter.numpy()),
                  "keys": sorted(k for k, _ in tf.train.list_variables(sys.argv[1]))}))
"""

_TF_SAVE = "import sys, json, numpy as np, tensorflow as tf\n" + _MODULE_SOURCE + """
m = M(1)
path = tf.train.Checkpoint(model=m).save(sys.argv[1])
tf.train.Checkpoint(model=m).write(sys.argv[2])
print(json.dumps({"keys": sorted(k for k, _ in tf.train.list_variables(path))}))
"""


def _module(scale):
    namespace = {"tf": tf, "np": np}
    exec(_MODULE_SOURCE, namespace)  # the same class source TensorFlow's side runs (test code, not file data)
    return namespace["M"](scale)


def test_tensorflow_restores_a_tensorflux_checkpoint(tmp_path):
    m = _module(1)
    path = tf.train.Checkpoint(model=m).save(str(tmp_path / "ckpt"))
    got = run_tensorflow(_TF_RESTORE, path, "restore")
    assert got["v"] == [0.0, 1.0, 2.0] and got["w"] == [[1.0, 1.0], [1.0, 1.0]]
    assert (got["i"], got["f"], got["t"], got["s"], got["counter"]) == (7, 2.5, 3.0, "bytes1", 1)
    assert got["keys"] == sorted(k for k, _ in tf.train.list_variables(path))


def test_tensorflow_restores_a_rewritten_prefix(tmp_path):
    """Writing one prefix twice switches data file layouts (see tensor_bundle.py); TF reads both."""
    m = _module(1)
    checkpoint = tf.train.Checkpoint(model=m)
    prefix = str(tmp_path / "same")
    for _ in range(2):
        checkpoint.write(prefix)
        got = run_tensorflow(_TF_RESTORE, prefix, "read")
        assert got["v"] == [0.0, 1.0, 2.0] and got["counter"] is None


def test_tensorflux_restores_a_tensorflow_checkpoint(tmp_path):
    got = run_tensorflow(_TF_SAVE, str(tmp_path / "tf" / "ckpt"), str(tmp_path / "written"))
    assert tf.train.latest_checkpoint(str(tmp_path / "tf")) == str(tmp_path / "tf" / "ckpt-1")
    ours = sorted(k for k, _ in tf.train.list_variables(str(tmp_path / "tf")))
    assert ours == got["keys"]
    for path in (str(tmp_path / "tf" / "ckpt-1"), str(tmp_path / "written")):
        m = _module(0)
        checkpoint = tf.train.Checkpoint(model=m)
        if path.endswith("ckpt-1"):
            checkpoint.restore(path).assert_consumed()
        else:
            checkpoint.read(path).assert_consumed()
        np.testing.assert_array_equal(m.v.numpy(), [0.0, 1.0, 2.0])
        np.testing.assert_array_equal(m.sub.w.numpy(), np.ones((2, 2)))
        assert m.items[0].numpy() == 7 and m.items[1].numpy() == 2.5 and m.table["a/b.c"].numpy() == 3.0
        assert m.table["s"].numpy() == b"bytes1"
    assert checkpoint._save_counter is None   # `write` saves no counter and `read` makes none
    assert tf.train.load_variable(str(tmp_path / "tf"), "save_counter/.ATTRIBUTES/VARIABLE_VALUE") == 1


_KERAS_TRAIN = """
def build():
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, name="d1"), keras.layers.Dense(1)])
    optimizer = keras.optimizers.Adam(0.01)
    model.compile(optimizer, "mse")
    return model, optimizer
x = np.linspace(-1, 1, 24, dtype=np.float32).reshape(8, 3)
y = np.sum(x, axis=1, keepdims=True)
"""

_TF_KERAS_KEYS = "import sys, json, numpy as np, tensorflow as tf, keras\n" + _KERAS_TRAIN + """
model, optimizer = build()
model.fit(x, y, epochs=3, batch_size=4, verbose=0, shuffle=False)
path = tf.train.Checkpoint(model=model, optimizer=optimizer).save(sys.argv[1])
print(json.dumps({"keys": [k for k, _ in tf.train.list_variables(path)]}))
"""


def _train_ours():
    namespace = {"keras": tf.keras, "np": np}
    exec(_KERAS_TRAIN, namespace)  # the same model source TensorFlow's side runs (test code, not file data)
    model, optimizer = namespace["build"]()
    model.fit(namespace["x"], namespace["y"], epochs=3, batch_size=4, verbose=0, shuffle=False)
    return model, optimizer, namespace["x"]


def test_keras_model_and_optimizer_keys_match_tensorflows(tmp_path):
    """Keras 3 on TensorFlow reaches a model's weights first through the optimizer
    (`optimizer/_trainable_variables/N`) and its slots as `optimizer/_variables/N`; so does tensorflux."""
    got = run_tensorflow(_TF_KERAS_KEYS, str(tmp_path / "tf" / "ckpt"))
    model, optimizer, _ = _train_ours()
    path = tf.train.Checkpoint(model=model, optimizer=optimizer).save(str(tmp_path / "ours" / "ckpt"))
    ours = [k for k, _ in tf.train.list_variables(path)]
    optimizer_keys = [k for k in got["keys"] if k.startswith(("optimizer/", "save_counter"))]
    assert [k for k in ours if k.startswith(("optimizer/", "save_counter"))] == optimizer_keys


_TF_KERAS_RESTORE = "import sys, json, numpy as np, tensorflow as tf, keras\n" + _KERAS_TRAIN + """
model, optimizer = build()
optimizer.build(model.trainable_variables)
tf.train.Checkpoint(model=model, optimizer=optimizer).restore(sys.argv[1]).expect_partial()
print(json.dumps({"y": model.predict(x, verbose=0).tolist(), "iterations": int(optimizer.iterations.numpy()),
                  "slots": [v.numpy().tolist() for v in optimizer.variables[2:]]}))
"""


def test_tensorflow_restores_a_tensorflux_keras_model_and_optimizer(tmp_path):
    model, optimizer, x = _train_ours()
    path = tf.train.Checkpoint(model=model, optimizer=optimizer).save(str(tmp_path / "ckpt"))
    got = run_tensorflow(_TF_KERAS_RESTORE, path)
    # atol: on CPUs with AVX-512 TensorFlow's float32 matmul adds in another order (README, known gaps), and
    # with random initial weights an output can land near 0, where an ulp of a term is a large relative error
    np.testing.assert_allclose(got["y"], model.predict(x, verbose=0), rtol=1e-6, atol=1e-7)
    assert got["iterations"] == int(optimizer.iterations.numpy()) == 6
    slots = [v.numpy() for v in optimizer.variables[2:]]
    assert len(got["slots"]) == len(slots)
    for theirs, mine in zip(got["slots"], slots):
        assert np.shape(theirs) == mine.shape
        np.testing.assert_allclose(theirs, mine, rtol=1e-6)


_TF_GENERATOR = "import sys, json, numpy as np, tensorflow as tf\n" + """
gen = tf.random.Generator.from_seed(1)
tf.train.Checkpoint(generator=gen).read(sys.argv[1]).assert_consumed()
restored_state = gen.state.numpy().tolist()
drawn = gen.normal([3]).numpy().tolist()
mine = tf.random.Generator.from_seed(7)
mine.normal([5])
tf.train.Checkpoint(generator=mine).write(sys.argv[2])
print(json.dumps({"state": restored_state, "drawn": drawn, "next": mine.normal([2]).numpy().tolist()}))
"""


def test_random_generator_streams_continue_across_tensorflow_and_tensorflux(tmp_path):
    """A Generator's checkpoint (its state variable, `generator/_state_var`) restores in either library, and
    the restored stream continues with the same numbers there."""
    gen = tf.random.Generator.from_seed(1)
    gen.normal([4])
    path = tf.train.Checkpoint(generator=gen).write(str(tmp_path / "ours"))
    got = run_tensorflow(_TF_GENERATOR, path, str(tmp_path / "theirs"))
    assert got["state"] == gen.state.numpy().tolist()
    np.testing.assert_array_equal(np.float32(got["drawn"]), gen.normal([3]).numpy())
    theirs = tf.random.Generator.from_seed(0)
    tf.train.Checkpoint(generator=theirs).read(str(tmp_path / "theirs")).assert_consumed()
    np.testing.assert_array_equal(np.float32(got["next"]), theirs.normal([2]).numpy())
