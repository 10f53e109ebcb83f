"""Keras files both ways with real TensorFlow 2.21 + Keras 3.15 (run with TENSORFLOW_PYTHON=~/venv-tf/bin/python):
`.keras` archives and `.weights.h5` files written by tensorflux load in Keras and predict the same (the
HDF5 tree Keras writes when it saves the loaded model again is the one tensorflux wrote), and files Keras
writes load in tensorflux — Sequential, functional and registered subclassed models, compiled ones with
their optimizer state (one more training step gives the same weights on both sides)."""
import json
import zipfile

import numpy as np
import pytest

import tensorflux as tf
from _tensorflow_side import run_tensorflow

pytest.importorskip("h5py")
keras = tf.keras
layers = keras.layers

# A registered subclassed model defined alike on both sides (the Keras side defines it in its script).
_SUBCLASS_SOURCE = '''
@keras.saving.register_keras_serializable(package="Interop")
class Tower(keras.Model):
    def __init__(self, units=3, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.hidden = keras.layers.Dense(units, activation="tanh")
        self.recurrent = keras.layers.Bidirectional(keras.layers.GRU(2))
        self.heads = [keras.layers.Dense(1), keras.layers.Dense(2)]

    def call(self, x):
        return self.heads[0](self.hidden(self.recurrent(x)))

    def get_config(self):
        return {**super().get_config(), "units": self.units}
'''

_KERAS_PRELUDE = '''
import json, sys, zipfile, h5py, numpy as np, keras
keras.utils.set_random_seed(0)
def tree(path):
    out = {}
    def visit(name, obj):
        out[name] = [list(obj.shape), obj.dtype.name, obj.chunks, obj.compression] \
            if isinstance(obj, h5py.Dataset) else dict(obj.attrs)
    with h5py.File(path, "r") as f:
        f.visititems(visit)
        out["/"] = [list(f.id.get_create_plist().get_version()), f.userblock_size]
    return out
def archive_tree(path):
    with zipfile.ZipFile(path) as z:
        open(path + ".h5", "wb").write(z.read("model.weights.h5"))
    return tree(path + ".h5")
''' + _SUBCLASS_SOURCE


def _h5_tree(path):
    import h5py
    out = {}

    def visit(name, obj):
        out[name] = [list(obj.shape), obj.dtype.name, obj.chunks, obj.compression] if isinstance(obj, h5py.Dataset) \
            else {k: str(v) for k, v in obj.attrs.items()}
    with h5py.File(path, "r") as f:
        f.visititems(visit)
        out["/"] = [list(f.id.get_create_plist().get_version()), f.userblock_size]   # superblock versions, user block
    return out


def _archive_tree(path, tmp_path):
    with zipfile.ZipFile(path) as archive:
        (tmp_path / "inner.h5").write_bytes(archive.read("model.weights.h5"))
    return _h5_tree(tmp_path / "inner.h5")


def _normalised(tree):
    """Groups' `name` attributes hold automatic names, which differ between processes; compare the rest
    (every group and dataset path, each dataset's shape, dtype, chunking and compression, the file's
    superblock versions and user block)."""
    return {k: v for k, v in tree.items() if not isinstance(v, dict)} | \
        {k: "group" for k, v in tree.items() if isinstance(v, dict)}


@tf.keras.saving.register_keras_serializable(package="Interop")
class Tower(keras.Model):
    def __init__(self, units=3, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.hidden = layers.Dense(units, activation="tanh")
        self.recurrent = layers.Bidirectional(layers.GRU(2))
        self.heads = [layers.Dense(1), layers.Dense(2)]

    def call(self, x):
        return self.heads[0](self.hidden(self.recurrent(x)))

    def get_config(self):
        return {**super().get_config(), "units": self.units}


def _models():
    """(name, model, input batch, target batch) for each kind of model."""
    rng = np.random.default_rng(7)
    sequential = keras.Sequential([keras.Input((4,)), layers.Dense(5, activation="relu"),
                                   layers.BatchNormalization(), layers.Dropout(0.1), layers.Dense(2)])
    a, b = keras.Input((3,), name="a"), keras.Input((2, 3), name="b")
    inner = keras.Sequential([layers.Dense(2, name="inner_dense")], name="inner")
    h = layers.Dense(4, activation="tanh")(layers.Concatenate()([a, layers.LSTM(3)(b)]))
    shared = layers.Dense(2)
    out = inner(shared(h)) * 0.5 + a[:, :1]
    functional = keras.Model({"a": a, "b": b}, [out, shared(layers.Dense(4)(a))])
    tower = Tower()
    tower(np.zeros((1, 2, 3), np.float32))
    x_seq = rng.standard_normal((6, 4)).astype(np.float32)
    x_fun = {"a": rng.standard_normal((6, 3)).astype(np.float32), "b": rng.standard_normal((6, 2, 3)).astype(np.float32)}
    x_sub = rng.standard_normal((6, 2, 3)).astype(np.float32)
    return [("sequential", sequential, x_seq, rng.standard_normal((6, 2)).astype(np.float32)),
            ("functional", functional, x_fun, [rng.standard_normal((6, 2)).astype(np.float32),
                                               rng.standard_normal((6, 2)).astype(np.float32)]),
            ("subclassed", tower, x_sub, rng.standard_normal((6, 1)).astype(np.float32))]


_LOAD_AND_PREDICT = _KERAS_PRELUDE + '''
path, data = sys.argv[1], np.load(sys.argv[2])
x = {k[2:]: data[k] for k in data.files if k.startswith("x_")} or data["x"]
model = keras.models.load_model(path)
y = model.predict(x, verbose=0)
model.save(path + ".again.keras")
with zipfile.ZipFile(path + ".again.keras") as z:
    config = json.loads(z.read("config.json"))
print(json.dumps({"y": [np.asarray(v).tolist() for v in (y if isinstance(y, list) else [y])],
                  "iterations": None if model.optimizer is None else int(model.optimizer.iterations.numpy()),
                  "tree": archive_tree(path + ".again.keras"), "config": config}))
'''


def _save_inputs(path, x):
    if isinstance(x, dict):
        np.savez(path, **{f"x_{k}": v for k, v in x.items()})
    else:
        np.savez(path, x=x)


@pytest.mark.parametrize("index", [0, 1, 2], ids=["sequential", "functional", "subclassed"])
def test_keras_loads_tensorflux_archives(tmp_path, index):
    name, model, x, y = _models()[index]
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss="mse")
    model.fit(x, y, epochs=2, batch_size=3, verbose=0)
    path = tmp_path / f"{name}.keras"
    model.save(path)
    _save_inputs(tmp_path / "x.npz", x)
    result = run_tensorflow(_LOAD_AND_PREDICT, path, tmp_path / "x.npz")
    ours = [np.asarray(v) for v in tf.nest.flatten(model.predict(x, verbose=0))]
    for theirs, mine in zip(result["y"], ours):
        np.testing.assert_allclose(np.asarray(theirs), mine, rtol=1e-5, atol=1e-5)
    assert result["iterations"] == 4
    # Keras saving the model it loaded writes the same HDF5 tree tensorflux wrote.
    assert _normalised(result["tree"]) == _normalised(_archive_tree(path, tmp_path))


_WRITE_KERAS_FILES = _KERAS_PRELUDE + '''
out_dir, kind = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(3)
if kind == "sequential":
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(5, activation="relu"),
                              keras.layers.BatchNormalization(), keras.layers.Dense(2)])
    x = rng.standard_normal((6, 4)).astype("float32"); y = rng.standard_normal((6, 2)).astype("float32")
elif kind == "functional":
    a = keras.Input((3,), name="a"); b = keras.Input((2, 3), name="b")
    h = keras.layers.Dense(4, activation="tanh")(keras.layers.Concatenate()([a, keras.layers.LSTM(3)(b)]))
    shared = keras.layers.Dense(2)
    out = shared(h) * 0.5 + a[:, :1]
    model = keras.Model({"a": a, "b": b}, [out, shared(keras.layers.Dense(4)(a))])
    x = {"a": rng.standard_normal((6, 3)).astype("float32"), "b": rng.standard_normal((6, 2, 3)).astype("float32")}
    y = [rng.standard_normal((6, 2)).astype("float32"), rng.standard_normal((6, 2)).astype("float32")]
else:
    model = Tower()
    x = rng.standard_normal((6, 2, 3)).astype("float32"); y = rng.standard_normal((6, 1)).astype("float32")
model.compile(optimizer=keras.optimizers.Adam(0.01), loss="mse")
model.fit(x, y, epochs=2, batch_size=3, verbose=0)
model.save(out_dir + "/model.keras")
model.save_weights(out_dir + "/model.weights.h5")
before = model.predict(x, verbose=0)
model.fit(x, y, epochs=1, batch_size=6, verbose=0, shuffle=False)     # one more step: uses the optimizer state
after = model.predict(x, verbose=0)
flat = lambda v: [np.asarray(t).tolist() for t in (v if isinstance(v, list) else [v])]
np.savez(out_dir + "/data.npz", **({"x_" + k: v for k, v in x.items()} if isinstance(x, dict) else {"x": x}),
         **({"y%d" % i: v for i, v in enumerate(y)} if isinstance(y, list) else {"y0": y}))
print(json.dumps({"before": flat(before), "after": flat(after)}))
'''


@pytest.mark.parametrize("kind", ["sequential", "functional", "subclassed"])
def test_tensorflux_loads_keras_archives_with_optimizer_state(tmp_path, kind):
    result = run_tensorflow(_WRITE_KERAS_FILES, tmp_path, kind)
    data = np.load(tmp_path / "data.npz")
    x = {k[2:]: data[k] for k in data.files if k.startswith("x_")} or data["x"]
    ys = [data[f"y{i}"] for i in range(sum(k.startswith("y") for k in data.files))]
    model = keras.models.load_model(tmp_path / "model.keras")
    for theirs, mine in zip(result["before"], tf.nest.flatten(model.predict(x, verbose=0))):
        np.testing.assert_allclose(mine, np.asarray(theirs), rtol=1e-5, atol=1e-5)
    assert int(model.optimizer.iterations.numpy()) == 4
    model.fit(x, ys if len(ys) > 1 else ys[0], epochs=1, batch_size=6, verbose=0, shuffle=False)
    for theirs, mine in zip(result["after"], tf.nest.flatten(model.predict(x, verbose=0))):
        np.testing.assert_allclose(mine, np.asarray(theirs), rtol=1e-4, atol=1e-5)


def test_weights_files_both_ways(tmp_path):
    result = run_tensorflow(_WRITE_KERAS_FILES, tmp_path, "sequential")
    x = np.load(tmp_path / "data.npz")["x"]
    model = keras.Sequential([keras.Input((4,)), layers.Dense(5, activation="relu"), layers.BatchNormalization(),
                              layers.Dense(2)])
    model.load_weights(tmp_path / "model.weights.h5")
    np.testing.assert_allclose(model.predict(x, verbose=0), np.asarray(result["before"][0]), rtol=1e-5, atol=1e-5)
    # and back: Keras reads the weights tensorflux writes
    model.save_weights(tmp_path / "ours.weights.h5")
    assert _normalised(_h5_tree(tmp_path / "ours.weights.h5")) == _normalised(
        {k: v for k, v in _h5_tree(tmp_path / "model.weights.h5").items() if not k.startswith("optimizer")})
    script = _KERAS_PRELUDE + '''
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(5, activation="relu"),
                          keras.layers.BatchNormalization(), keras.layers.Dense(2)])
model.load_weights(sys.argv[1])
print(json.dumps(model.predict(np.load(sys.argv[2])["x"], verbose=0).tolist()))
'''
    theirs = run_tensorflow(script, tmp_path / "ours.weights.h5", tmp_path / "data.npz")
    np.testing.assert_allclose(np.asarray(theirs), model.predict(x, verbose=0), rtol=1e-5, atol=1e-5)


def test_configs_carry_the_keys_keras_writes(tmp_path):
    """Every config key Keras writes for the layers of these models is in tensorflux's config.json too."""
    name, model, x, _ = _models()[1]
    model.compile(optimizer="adam", loss="mse")
    path = tmp_path / "functional.keras"
    model.save(path)
    _save_inputs(tmp_path / "x.npz", x)
    theirs = run_tensorflow(_LOAD_AND_PREDICT, path, tmp_path / "x.npz")["config"]
    with zipfile.ZipFile(path) as archive:
        ours = json.loads(archive.read("config.json"))
    assert ours["class_name"] == theirs["class_name"] == "Functional"
    assert ours["module"] == theirs["module"] and ours["registered_name"] == theirs["registered_name"]
    missing = {}
    for mine, keras_entry in zip(ours["config"]["layers"], theirs["config"]["layers"]):
        assert (mine["class_name"], mine["module"]) == (keras_entry["class_name"], keras_entry["module"])
        lacking = sorted(set(keras_entry["config"]) - set(mine["config"]))
        if lacking:
            missing[mine["class_name"]] = lacking
    assert missing == {}
    assert sorted(ours["compile_config"]) == sorted(theirs["compile_config"])


# Layer families, each built by the same source on both sides (`keras` is tf.keras here, real Keras there).
RECIPES = {
    "conv": ("keras.Sequential([keras.Input((8, 8, 3)), keras.layers.Conv2D(4, 3, padding='same', activation='relu'),"
             " keras.layers.MaxPooling2D(), keras.layers.BatchNormalization(), keras.layers.DepthwiseConv2D(3),"
             " keras.layers.SeparableConv2D(2, 3, padding='same'), keras.layers.Conv2DTranspose(2, 3),"
             " keras.layers.AveragePooling2D(2), keras.layers.GlobalAveragePooling2D(), keras.layers.Dense(2)])",
             [(4, 8, 8, 3)]),
    "sequence": ("keras.Sequential([keras.Input((5,), dtype='int32'), keras.layers.Embedding(10, 4),"
                 " keras.layers.LSTM(3, return_sequences=True), keras.layers.GRU(3, return_sequences=True),"
                 " keras.layers.SimpleRNN(2, return_sequences=True), keras.layers.Bidirectional(keras.layers.LSTM(2)),"
                 " keras.layers.Dense(1)])", [(4, 5)]),
    "shapes": ("keras.Sequential([keras.Input((6,)), keras.layers.RepeatVector(3), keras.layers.Permute((2, 1)),"
               " keras.layers.Conv1D(2, 2), keras.layers.UpSampling1D(), keras.layers.ZeroPadding1D(),"
               " keras.layers.Cropping1D(1), keras.layers.LayerNormalization(),"
               " keras.layers.TimeDistributed(keras.layers.Dense(3)), keras.layers.Flatten(), keras.layers.RepeatVector(2),"
               " keras.layers.GlobalMaxPooling1D(), keras.layers.Dropout(0.2), keras.layers.LeakyReLU(),"
               " keras.layers.ReLU(), keras.layers.ELU(), keras.layers.PReLU(), keras.layers.Rescaling(0.5),"
               " keras.layers.Activation('softmax')])", [(4, 6)]),
    "attention": ("(lambda q, v: keras.Model([q, v], keras.layers.Dense(2)(keras.layers.LayerNormalization()("
                  "keras.layers.Add()([q, keras.layers.MultiHeadAttention(2, 4)(q, v)])))))"
                  "(keras.Input((3, 4)), keras.Input((5, 4)))", [(2, 3, 4), (2, 5, 4)]),
}

_RECIPE_SIDE = _KERAS_PRELUDE + '''
directory, recipes = sys.argv[1], json.loads(open(sys.argv[2]).read())
out = {}
for name, source in recipes.items():
    data = np.load(f"{directory}/{name}.npz")
    x = [data[f"x{i}"] for i in range(len(data.files))]
    x = x if len(x) > 1 else x[0]
    ours = keras.models.load_model(f"{directory}/{name}.tfx.keras")
    theirs = eval(source, {"keras": keras})
    theirs.save(f"{directory}/{name}.keras.keras")
    out[name] = {"loaded": np.asarray(ours.predict(x, verbose=0)).tolist(),
                 "own": np.asarray(theirs.predict(x, verbose=0)).tolist()}
print(json.dumps(out))
'''


@pytest.fixture(scope="module")
def recipe_results(tmp_path_factory):
    directory = tmp_path_factory.mktemp("recipes")
    rng = np.random.default_rng(11)
    inputs, models = {}, {}
    for name, (source, shapes) in RECIPES.items():
        model = eval(source, {"keras": keras})
        model.save(directory / f"{name}.tfx.keras")
        xs = [rng.integers(0, 10, s).astype(np.int32) if name == "sequence" else
              rng.standard_normal(s).astype(np.float32) for s in shapes]
        np.savez(directory / f"{name}.npz", **{f"x{i}": x for i, x in enumerate(xs)})
        inputs[name], models[name] = (xs if len(xs) > 1 else xs[0]), model
    (directory / "recipes.json").write_text(json.dumps({k: v[0] for k, v in RECIPES.items()}))
    return directory, inputs, models, run_tensorflow(_RECIPE_SIDE, directory, directory / "recipes.json")


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_layer_families_both_ways(recipe_results, name):
    directory, inputs, models, results = recipe_results
    x = inputs[name]
    np.testing.assert_allclose(np.asarray(results[name]["loaded"]), models[name].predict(x, verbose=0),
                               rtol=1e-4, atol=1e-5)
    loaded = keras.models.load_model(directory / f"{name}.keras.keras")
    np.testing.assert_allclose(loaded.predict(x, verbose=0), np.asarray(results[name]["own"]), rtol=1e-4, atol=1e-5)


def test_tensorflow_serves_an_exported_model(tmp_path):
    inputs = keras.Input((3,), name="features")
    hidden = layers.Dense(4, activation="relu")(inputs)
    model = keras.Model(inputs, {"score": layers.Dense(1)(hidden), "logits": layers.Dense(2)(hidden)})
    model.export(str(tmp_path / "served"), verbose=False)
    x = np.random.default_rng(5).standard_normal((4, 3)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    script = '''
import json, sys, numpy as np, tensorflow as tf
served = tf.saved_model.load(sys.argv[1])
x = np.load(sys.argv[2])
signature = served.signatures["serving_default"]
out = signature(features=tf.constant(x))
print(json.dumps({"serve": {k: v.numpy().tolist() for k, v in served.serve(x).items()},
                  "signature": {k: v.numpy().tolist() for k, v in out.items()},
                  "inputs": sorted(signature.structured_input_signature[1])}))
'''
    result = run_tensorflow(script, tmp_path / "served", tmp_path / "x.npy")
    ours = model(x)
    assert result["inputs"] == ["features"]
    for key in ("score", "logits"):
        np.testing.assert_allclose(np.asarray(result["serve"][key]), ours[key].numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(np.asarray(result["signature"][key]), ours[key].numpy(), rtol=1e-5, atol=1e-6)
