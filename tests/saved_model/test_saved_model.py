"""tf.saved_model.save / load: loaded functions give the original results (dense layer, cond/while,
Keras), keep variable state, dispatch over the saved signatures only, and need no Python source."""
import collections
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tensorflux as tf


class Dense(tf.Module):
    def __init__(self, n_in, n_out, name=None):
        super().__init__(name=name)
        rng = np.random.default_rng(1)
        self.w = tf.Variable(rng.standard_normal((n_in, n_out)).astype(np.float32), name="w")
        self.b = tf.Variable(np.arange(n_out, dtype=np.float32), name="b")
        self.steps = tf.Variable(0, trainable=False, name="steps")

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    def __call__(self, x):
        return tf.nn.relu(tf.matmul(x, self.w) + self.b)

    @tf.function
    def scale(self, x, k=2.0):
        return x * k

    @tf.function
    def never_called(self, x):
        return x

    @tf.function(input_signature=[tf.TensorSpec([], tf.int32)])
    def step(self, n):
        self.steps.assign_add(n)
        return self.steps.read_value()


def _save_load(obj, path, **kwargs):
    tf.saved_model.save(obj, str(path), **kwargs)
    return tf.saved_model.load(str(path))


def test_dense_module_round_trip(tmp_path):
    layer = Dense(3, 2)
    layer.scale(tf.constant(1.0))
    loaded = _save_load(layer, tmp_path)
    x = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    np.testing.assert_array_equal(loaded(x).numpy(), layer(x).numpy())
    np.testing.assert_array_equal(loaded(tf.constant(x[:1])).numpy(), layer(x[:1]).numpy())
    assert sorted(os.listdir(tmp_path)) == ["assets", "fingerprint.pb", "saved_model.pb", "variables"]
    assert sorted(os.listdir(tmp_path / "variables")) == ["variables.data-00000-of-00001", "variables.index"]
    assert sorted(v.name for v in loaded.variables) == sorted(v.name for v in layer.variables)
    assert sorted(v.name for v in loaded.trainable_variables) == ["b:0", "w:0"]
    assert tf.saved_model.contains_saved_model(str(tmp_path)) and not tf.saved_model.contains_saved_model(
        str(tmp_path / "variables"))
    np.testing.assert_array_equal(loaded.w.numpy(), layer.w.numpy())
    assert loaded.w is not layer.w and loaded.steps.trainable is False


def test_default_signature_is_the_one_function_with_an_input_signature(tmp_path):
    class One(tf.Module):
        def __init__(self):
            super().__init__()
            self.v = tf.Variable(2.0)

        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
        def __call__(self, x):
            return x * self.v

    loaded = _save_load(One(), tmp_path / "one")
    assert list(loaded.signatures) == ["serving_default"]
    out = loaded.signatures["serving_default"](x=tf.constant([1.0, 2.0]))
    assert list(out) == ["output_0"]
    np.testing.assert_array_equal(out["output_0"].numpy(), [2.0, 4.0])
    assert repr(loaded.signatures).startswith("_SignatureMap(")
    assert list(_save_load(Dense(3, 2), tmp_path / "two").signatures) == []   # two candidates: no default


def test_explicit_signatures(tmp_path):
    class M(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([], tf.float32), tf.TensorSpec([], tf.float32, name="yy")])
        def both(self, x, y):
            return {"sum": x + y, "diff": x - y}

        @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
        def pair(self, x):
            return x, 2 * x

    m = M()
    loaded = _save_load(m, tmp_path, signatures={"s1": m.both, "s2": m.pair.get_concrete_function()})
    s1, s2 = loaded.signatures["s1"], loaded.signatures["s2"]
    out = s1(x=tf.constant(1.0), yy=tf.constant(2.0))
    assert out["sum"].numpy() == 3.0 and out["diff"].numpy() == -1.0
    assert s1(tf.constant(1.0), tf.constant(5.0))["sum"].numpy() == 6.0
    assert {k: v.numpy() for k, v in s2(x=3.0).items()} == {"output_0": 3.0, "output_1": 6.0}
    assert s1.structured_input_signature[1]["yy"] == tf.TensorSpec([], tf.float32, "yy")
    assert s2.structured_outputs["output_1"] == tf.TensorSpec([], tf.float32, "output_1")
    with pytest.raises(TypeError, match="missing a required argument: 'yy'"):
        s1(x=tf.constant(1.0), y=tf.constant(2.0))
    with pytest.raises(tf.errors.InvalidArgumentError, match="was expected to be a float tensor but is a int32"):
        s2(x=tf.constant(1))
    with pytest.raises(ValueError, match="Only `tf.functions` with an input signature or concrete functions"):
        tf.saved_model.save(m, str(tmp_path / "bad"), signatures=tf.function(lambda x: x))
    with pytest.raises(ValueError, match="but got 3"):
        tf.saved_model.save(m, str(tmp_path / "bad"), signatures={"x": 3})


def test_control_flow_function(tmp_path):
    class Flow(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable([1.0, 2.0])

        @tf.function
        def run(self, n, x):
            total = tf.zeros_like(x)
            i = tf.constant(0)
            while i < n:
                if tf.reduce_sum(total) > 10.0:
                    total = total - self.w
                else:
                    total = total + x * self.w
                i += 1
            return tf.cond(n > 3, lambda: total * 2.0, lambda: total)

    flow = Flow()
    x = tf.constant([1.5, -0.5])
    flow.run(tf.constant(1), x)
    loaded = _save_load(flow, tmp_path)
    for n in range(0, 9):
        np.testing.assert_array_equal(loaded.run(tf.constant(n), x).numpy(), flow.run(tf.constant(n), x).numpy())
    types = {op.type for op in loaded.run.get_concrete_function(tf.TensorSpec([], tf.int32),
                                                                tf.TensorSpec([2], tf.float32)).graph.get_operations()}
    assert {"While", "If", "StatelessIf"} & types and "ReadVariableOp" not in types


def test_while_loop_with_maximum_iterations(tmp_path):
    module = tf.Module()
    module.explicit = tf.function(lambda n: tf.while_loop(
        lambda i, acc: i < n, lambda i, acc: (i + 1, acc * 2.0), [tf.constant(0), tf.constant(1.0)],
        maximum_iterations=6))
    module.explicit(tf.constant(2))
    loaded = _save_load(module, tmp_path)
    for n in range(0, 9):
        got, want = loaded.explicit(tf.constant(n)), module.explicit(tf.constant(n))
        assert [t.numpy() for t in got] == [t.numpy() for t in want]


def test_keras_sequential_served_through_tf_function(tmp_path):
    keras = tf.keras
    model = keras.Sequential([keras.layers.Dense(5, activation="relu", input_shape=(3,)),
                              keras.layers.Dense(2, activation="softmax")])
    model.serve = tf.function(lambda x: model(x), input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    loaded = _save_load(model, tmp_path)
    x = np.random.default_rng(2).standard_normal((7, 3)).astype(np.float32)
    np.testing.assert_allclose(loaded.serve(x).numpy(), model(x).numpy(), rtol=1e-6)
    np.testing.assert_allclose(loaded.signatures["serving_default"](x=x)["output_0"].numpy(), model(x).numpy(),
                               rtol=1e-6)
    # The loaded variables are tf.Variables named by the Keras paths (kernel before bias).
    assert [v.name for v in loaded.variables] == [v.path + ":0" for v in model.variables]
    assert len(loaded.trainable_variables) == 4


def test_variables_assigned_inside_loaded_function_keep_state(tmp_path):
    layer = Dense(3, 2)
    loaded = _save_load(layer, tmp_path)
    assert loaded.step(tf.constant(2)).numpy() == 2
    assert loaded.step(3).numpy() == 5
    assert loaded.steps.numpy() == 5 and layer.steps.numpy() == 0
    loaded.w.assign(tf.zeros([3, 2]))      # the loaded function reads the loaded variable
    np.testing.assert_array_equal(loaded(np.ones((1, 3), np.float32)).numpy(), [[0.0, 1.0]])


def test_dispatch_over_saved_signatures_only(tmp_path):
    layer = Dense(3, 2)
    layer.scale(tf.constant(1.0))
    layer.scale(tf.constant([1, 2]), k=3)
    loaded = _save_load(layer, tmp_path)
    assert loaded.scale(tf.constant(5.0)).numpy() == 10.0
    assert loaded.scale(1.5).numpy() == 3.0                  # a Python float fits the float32 trace
    np.testing.assert_array_equal(loaded.scale(tf.constant([1, 2]), k=3).numpy(), [3, 6])
    np.testing.assert_array_equal(loaded.scale(x=tf.constant([4, 5]), k=3).numpy(), [12, 15])
    with pytest.raises(ValueError, match="Could not find matching concrete function to call loaded from the "
                                         "SavedModel(.|\n)*Option 2"):
        loaded.scale(tf.constant(1))
    with pytest.raises(ValueError, match="Could not find matching concrete function"):
        loaded.scale(tf.constant([1, 2]), k=4)
    with pytest.raises(ValueError, match="Found zero restored functions for caller function."):
        loaded.never_called(tf.constant(1.0))
    with pytest.raises(TypeError, match="Binding inputs to tf.function failed due to `Can not cast"):
        loaded(tf.constant([[1, 1, 1]]))
    assert isinstance(loaded.scale, tf.types.experimental.PolymorphicFunction)
    assert len(loaded.scale._list_all_concrete_functions()) == 2


def test_loading_needs_no_python_source(tmp_path):
    script = textwrap.dedent(f"""
        import numpy as np
        import tensorflux as tf

        class Secret(tf.Module):
            def __init__(self):
                super().__init__()
                self.v = tf.Variable([2.0, 3.0])

            @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
            def __call__(self, x):
                return tf.reduce_sum(x * self.v) + tf.cond(x[0] > 0, lambda: 100.0, lambda: -100.0)

        tf.saved_model.save(Secret(), {str(tmp_path)!r})
    """)
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(tf.__file__)))
    subprocess.run([sys.executable, "-c", script], check=True, env=env)
    loaded = tf.saved_model.load(str(tmp_path))
    assert loaded(tf.constant([1.0, 1.0])).numpy() == 105.0
    assert loaded(tf.constant([-1.0, 1.0])).numpy() == -99.0
    assert "_UserObject" in repr(loaded)   # as TensorFlow's: the saving class is not recorded


def test_python_callables_in_graphs_cannot_be_saved(tmp_path):
    m = tf.Module()
    m.f = tf.function(lambda x: tf.py_function(lambda a: a * 2, [x], tf.float32) + 1.0)
    m.f(tf.constant(1.0))
    with pytest.raises(ValueError, match="Cannot export the op 'EagerPyFunc'"):
        tf.saved_model.save(m, str(tmp_path))
    with pytest.raises(ValueError, match="Expected an object of type `Trackable`"):
        tf.saved_model.save(3, str(tmp_path))
    with pytest.raises(OSError, match="SavedModel file does not exist at"):
        tf.saved_model.load(str(tmp_path / "nothing"))


Pair = collections.namedtuple("Pair", "first second")


def test_structured_arguments_outputs_and_nested_functions(tmp_path):
    m = tf.Module()
    m.table = tf.Variable([b"a", b"b\x00"])
    m.offset = tf.Variable(1.0)

    @tf.function
    def inner(x):
        return x * 3.0 + m.offset

    @tf.function
    def outer(x, d, flag=True):
        y = inner(x) + d["k"][0]
        return {"y": y, "pair": Pair(y, m.table.read_value()), "none": None, "n": 3, "flag": flag}

    m.outer = outer
    x, d = tf.constant([1.0, 2.0]), {"k": [tf.constant(0.5)]}
    want = outer(x, d)
    loaded = _save_load(m, tmp_path)
    got = loaded.outer(x, d)
    np.testing.assert_array_equal(got["y"].numpy(), want["y"].numpy())
    assert type(got["pair"]).__name__ == "Pair" and got["pair"].second.numpy().tolist() == [b"a", b"b\x00"]
    assert got["none"] is None and got["n"].numpy() == 3 and got["flag"].numpy()
    with pytest.raises(ValueError, match="Could not find matching"):
        loaded.outer(x, d, flag=False)     # the trace baked flag=True in


def test_gradients_and_calls_from_other_functions(tmp_path):
    layer = Dense(3, 2)
    loaded = _save_load(layer, tmp_path)
    x = np.random.default_rng(3).standard_normal((5, 3)).astype(np.float32)

    def grads(module):
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(module(x) ** 2)
        return tape.gradient(y, [module.w, module.b])

    for a, b in zip(grads(loaded), grads(layer)):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5)

    @tf.function
    def twice(v):
        return loaded(v) * 2.0

    np.testing.assert_allclose(twice(x).numpy(), 2.0 * layer(x).numpy(), rtol=1e-6)


def test_captured_constants_random_ops_and_resaving(tmp_path):
    table = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    m = tf.Module()
    m.items = [tf.Variable(1), {"a/b": tf.Variable(2), "c.d": [tf.Variable(3)]}]
    m.lookup = tf.function(lambda i: tf.gather(table, i) + tf.cast(m.items[1]["c.d"][0], tf.float32))
    m.lookup(tf.constant(1))
    loaded = _save_load(m, tmp_path / "a")
    np.testing.assert_array_equal(loaded.lookup(tf.constant(1)).numpy(), [6.0, 7.0])
    assert loaded.items[1]["a/b"].numpy() == 2 and loaded.items[1]["c.d"][0].numpy() == 3
    again = _save_load(loaded, tmp_path / "b")
    np.testing.assert_array_equal(again.lookup(tf.constant(0)).numpy(), [4.0, 5.0])


def test_random_ops_in_a_loaded_function(tmp_path):
    m = tf.Module()
    m.noise = tf.function(lambda x: x + 0.0 * tf.random.uniform([2], seed=3))
    m.noise(tf.constant([1.0, 2.0]))
    loaded = _save_load(m, tmp_path)
    np.testing.assert_array_equal(loaded.noise(tf.constant([1.0, 2.0])).numpy(), [1.0, 2.0])


def test_training_step_with_a_tape_inside_and_variables_made_on_first_call(tmp_path):
    class Trainer(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable([1.0, -2.0])
            self.v = None

        @tf.function
        def loss(self, x):
            return tf.reduce_sum(tf.sin(x * self.w))

        @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
        def train(self, x):
            with tf.GradientTape() as tape:
                loss = self.loss(x)          # a nested call differentiated inside the graph
            self.w.assign_sub(0.1 * tape.gradient(loss, self.w))
            return loss

        @tf.function
        def make(self, x):
            if self.v is None:
                self.v = tf.Variable(tf.ones([2]) * 3.0)
            return x * self.v

    trainer = Trainer()
    trainer.make(tf.constant([1.0, 2.0]))
    loaded = _save_load(trainer, tmp_path)
    x = tf.constant([0.5, 0.3])
    for _ in range(3):
        np.testing.assert_allclose(loaded.train(x).numpy(), trainer.train(x).numpy(), rtol=1e-6)
    np.testing.assert_allclose(loaded.w.numpy(), trainer.w.numpy(), rtol=1e-6)
    np.testing.assert_array_equal(loaded.make(tf.constant([1.0, 2.0])).numpy(), [3.0, 6.0])
    assert loaded.v.numpy().tolist() == [3.0, 3.0]


def test_saving_replaces_the_directory_as_a_whole(tmp_path):
    """A save is swapped in whole: nothing of the previous save (or stray files) survives, no staging
    directory is left, and a swap interrupted between its two renames still loads the previous save."""
    path = tmp_path / "model"
    tf.saved_model.save(Dense(3, 2), str(path))
    (path / "stray.txt").write_text("left by someone")
    module = Dense(3, 2)
    module.w.assign(np.ones((3, 2), np.float32))
    tf.saved_model.save(module, str(path))
    assert not (path / "stray.txt").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model"]
    np.testing.assert_array_equal(tf.saved_model.load(str(path)).w.numpy(), np.ones((3, 2), np.float32))
    previous = tmp_path / ".model.previous"
    path.rename(previous)          # the state a process killed between the two renames leaves
    np.testing.assert_array_equal(tf.saved_model.load(str(path)).w.numpy(), np.ones((3, 2), np.float32))
    module.w.assign(np.full((3, 2), 2.0, np.float32))
    tf.saved_model.save(module, str(path))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model"]
    np.testing.assert_array_equal(tf.saved_model.load(str(path)).w.numpy(), np.full((3, 2), 2.0, np.float32))


def test_malformed_saved_models_raise_tensorflow_errors(tmp_path):
    from tensorflux._src.io.formats import protos
    path = tmp_path / "model"
    tf.saved_model.save(Dense(3, 2), str(path))
    data = (path / "saved_model.pb").read_bytes()
    (path / "saved_model.pb").write_bytes(data[: len(data) // 2])
    with pytest.raises(OSError, match="Cannot parse file"):
        tf.saved_model.load(str(path))
    message = protos.load("saved_model").SavedModel.FromString(data)
    library = message.meta_graphs[0].graph_def.library
    node = next(n for f in library.function for n in f.node_def if n.op == "MatMul")
    node.op = "__import__('os').system('true')"
    (path / "saved_model.pb").write_bytes(message.SerializeToString())
    with pytest.raises(NotImplementedError, match="which tensorflux does not implement"):
        tf.saved_model.load(str(path))
    message = protos.load("saved_model").SavedModel.FromString(data)
    message.meta_graphs[0].object_graph_def.nodes[0].children[0].node_id = 999
    (path / "saved_model.pb").write_bytes(message.SerializeToString())
    with pytest.raises(tf.errors.DataLossError, match="refers to object 999"):
        tf.saved_model.load(str(path))
    message = protos.load("saved_model").SavedModel.FromString(data)
    message.meta_graphs[0].meta_info_def.tags[:] = ["train"]
    (path / "saved_model.pb").write_bytes(message.SerializeToString())
    with pytest.raises(RuntimeError, match="MetaGraphDef associated with tags \\['serve'\\] could not be found"):
        tf.saved_model.load(str(path), tags=["serve"])
    assert tf.saved_model.load(str(path)).w.shape == (3, 2)   # one MetaGraphDef: taken whatever its tags


# -- SavedModels written by TensorFlow (fixtures/make_fixtures.py) --------------------------------------
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")


def _expected():
    import json
    with open(os.path.join(FIXTURES, "expected.json")) as f:
        return json.load(f)


def test_loads_a_tensorflow_module_saved_model():
    want = _expected()
    x = np.array(want["x"], np.float32)
    m = tf.saved_model.load(os.path.join(FIXTURES, "module"))
    out = m.predict(x)
    np.testing.assert_allclose(out["y"].numpy(), want["y"], rtol=1e-6)
    assert out["top"].numpy().tolist() == want["top"]
    assert sorted(m.signatures) == ["bump", "serving_default"]
    served = m.signatures["serving_default"](x=tf.constant(x))
    np.testing.assert_allclose(served["y"].numpy(), want["y"], rtol=1e-6)
    assert int(m.signatures["bump"](n=tf.constant(3))["output_0"]) == 3 and int(m.count.numpy()) == 3
    assert float(m.poly(tf.constant([1.0, 2.0]))) == want["poly2"]
    assert float(m.poly(tf.constant([1.0, 2.0, 3.0]), power=3)) == want["poly3"]
    with pytest.raises(ValueError, match="Could not find matching concrete function"):
        m.poly(tf.constant([1.0, 2.0]), power=4)
    assert m.w.name == "w:0" and m.b.name == "b:0"


def test_loads_a_keras_export():
    want = _expected()
    x = np.array(want["x"], np.float32)
    loaded = tf.saved_model.load(os.path.join(FIXTURES, "keras_export"))
    np.testing.assert_allclose(loaded.serve(x).numpy(), want["keras"], rtol=1e-5)
    served = loaded.signatures["serving_default"](features=tf.constant(x))
    np.testing.assert_allclose(served["output_0"].numpy(), want["keras"], rtol=1e-5)
    assert len(loaded.variables) == 4 and len(loaded.trainable_variables) == 4


def test_staging_directories_of_dead_savers_are_removed(tmp_path):
    import subprocess
    dead = int(subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                              text=True).stdout)
    stale = tmp_path / f".model.saving-{dead}-abc"
    (stale / "variables").mkdir(parents=True)
    (stale / "saved_model.pb").write_bytes(b"half")
    other = tmp_path / f".other.saving-{dead}-abc"
    other.mkdir()
    tf.saved_model.save(Dense(3, 2), str(tmp_path / "model"))
    assert sorted(p.name for p in tmp_path.iterdir()) == [f".other.saving-{dead}-abc", "model"]
