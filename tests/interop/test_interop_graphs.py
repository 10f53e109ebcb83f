"""Graphs crossing between tensorflux and real TensorFlow (run with TENSORFLOW_PYTHON=~/venv-tf/bin/python).

- TensorFlow runs the FunctionDefs tensorflux exports (registered in its eager context, called through
  StatefulPartitionedCall with TensorFlow variables for the resource arguments) and gets tensorflux's values,
  including the variables' values after the call;
- TensorFlow imports tensorflux's GraphDef (`tf.graph_util.import_graph_def`) and computes the same values;
- tensorflux imports FunctionDefs TensorFlow traces now (make_graph_fixtures.py run into a temporary
  directory) and computes TensorFlow's values.
"""
import json
import os

import numpy as np
import pytest

pytest.importorskip("google.protobuf")

import tensorflux as tf
from tensorflux._src.io.formats import graph_export, graph_import

from _tensorflow_side import require_tensorflow, run_tensorflow

HERE = os.path.dirname(os.path.abspath(__file__))
RNG = np.random.default_rng(99)


def _f32(*shape):
    return RNG.normal(size=shape).astype(np.float32)


def _cases():
    """[(name, concrete function, variables bound to its trailing resource args, [input lists])]."""
    w1, b1, w2 = tf.Variable(_f32(4, 8)), tf.Variable(_f32(8)), tf.Variable(_f32(8, 3))

    @tf.function
    def mlp(x, labels):
        h = tf.nn.relu(tf.matmul(x, w1) + b1)
        logits = tf.matmul(h, w2)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
        return tf.nn.softmax(logits), loss, tf.argmax(logits, axis=1)

    w = tf.Variable(np.full((2, 2), 0.25, np.float32))
    steps = tf.Variable(np.float32(0.0))

    @tf.function
    def inner(a, b):
        return tf.nn.relu(a) + b * 0.5

    @tf.function
    def control(x, n):
        if tf.reduce_sum(x) > 0.0:
            y = tf.matmul(x, w)
        else:
            y = x - 1.0
        i = tf.constant(0)
        while i < n:
            y = inner(y, x)
            i += 1
        steps.assign_add(1.0)
        w.assign(w * 0.5)
        if tf.reduce_mean(y) > 0.5:          # a stateful branch: TensorFlow's If with resource inputs
            steps.assign_add(10.0)
        j = tf.constant(0)
        while j < n:                         # a stateful loop body: TensorFlow's While
            w.assign_add(tf.ones([2, 2]) * 0.125)
            j += 1
        return y, i, steps.read_value() * 1.0

    @tf.function
    def loops(x, n):
        s = tf.zeros_like(x)
        for i in tf.range(n):
            s = s + x * tf.cast(i, tf.float32)
        _, limited = tf.while_loop(lambda j, a: j < 100, lambda j, a: (j + 1, a * 1.5), [0, x],
                                   maximum_iterations=n)
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        for i in tf.range(3):
            ta = ta.write(i, x * tf.cast(i, tf.float32))
        return s, limited, ta.stack()

    @tf.function
    def misc(x, z):
        return (tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x), tf.sort(x),
                tf.sort(x, direction="DESCENDING"), tf.argsort(x), tf.gather_nd(x, [[0, 1], [1, 2]]),
                tf.linspace(0.0, 1.0, 5), tf.math.log_softmax(x), tf.nn.l2_loss(x), tf.math.floormod(x, 0.7),
                tf.math.erf(x), tf.nn.softplus(x), tf.nn.selu(x), tf.math.reduce_logsumexp(x, axis=1),
                tf.einsum("ij,kj->ik", x, z), tf.math.add_n([x, z, x]), tf.math.reduce_euclidean_norm(x, axis=1))

    kernel = tf.Variable(_f32(3, 3, 2, 4))

    @tf.function
    def cnn(img):
        c = tf.nn.bias_add(tf.nn.conv2d(img, kernel, strides=[1, 1, 1, 1], padding="SAME"), tf.ones([4]))
        mean, var = tf.nn.moments(c, axes=[0, 1, 2])
        bn = tf.nn.batch_normalization(c, mean, var, tf.zeros([4]), tf.ones([4]), 1e-3)
        p = tf.nn.max_pool2d(bn, 2, 2, "VALID")
        return p, tf.nn.avg_pool2d(bn, 2, 2, "SAME"), tf.nn.gelu(p), tf.nn.silu(p)

    kx, kh = tf.Variable(_f32(3, 16)), tf.Variable(_f32(4, 16))

    @tf.function
    def shapes_and_lstm(x, h, c):
        z = tf.matmul(x, kx) + tf.matmul(h, kh)
        i, f, g, o = tf.split(z, 4, axis=1)
        c2 = tf.sigmoid(f) * c + tf.sigmoid(i) * tf.tanh(g)
        s = tf.shape(z)
        r = tf.reshape(z, [s[0], 4, 4])
        return (tf.sigmoid(o) * tf.tanh(c2), c2, tf.transpose(r, [0, 2, 1]), tf.reduce_sum(z, axis=1),
                tf.concat([x, h], axis=1), tf.stack([c, h]), tf.gather(z, [1, 3], axis=1), tf.cast(z > 0.0, tf.int32),
                tf.squeeze(tf.expand_dims(c, 0), [0]), z[:, 2:9:3], tf.math.cumsum(h, axis=1),
                tf.reduce_max(z, axis=[0, 1]), tf.unstack(h, axis=1)[0], tf.pad(h, [[0, 1], [2, 0]]))

    keras_cases = []
    for name, model in _keras_models().items():
        spec = model.inputs[0]
        fn = tf.function(lambda x, model=model: model(x, training=False))
        cf = fn.get_concrete_function(tf.TensorSpec([None] + list(spec.shape[1:]), spec.dtype))
        variables = [h._variable for h in cf.captured_inputs]
        shape = [2] + list(spec.shape[1:])
        inputs = [[RNG.integers(0, 10, size=shape).astype(np.int32) if spec.dtype == tf.int32 else _f32(*shape)]]
        keras_cases.append((name, cf, variables, inputs))
    return keras_cases + [
        ("mlp", mlp.get_concrete_function(tf.TensorSpec([None, 4], tf.float32), tf.TensorSpec([None], tf.int32)),
         [w1, b1, w2], [[_f32(5, 4), RNG.integers(0, 3, size=5).astype(np.int32)] for _ in range(3)]),
        ("control", control.get_concrete_function(tf.TensorSpec([None, 2], tf.float32), tf.TensorSpec([], tf.int32)),
         [w, steps], [[_f32(3, 2), np.int32(n)] for n in (0, 2, 3)]),
        ("misc", misc.get_concrete_function(tf.TensorSpec([2, 4]), tf.TensorSpec([2, 4])), [],
         [[_f32(2, 4), np.abs(_f32(2, 4))] for _ in range(2)]),
        ("loops", loops.get_concrete_function(tf.TensorSpec([2], tf.float32), tf.TensorSpec([], tf.int32)), [],
         [[_f32(2), np.int32(n)] for n in (1, 3, 6)]),
        ("cnn", cnn.get_concrete_function(tf.TensorSpec([None, 6, 6, 2], tf.float32)), [kernel],
         [[_f32(2, 6, 6, 2)] for _ in range(2)]),
        ("lstm", shapes_and_lstm.get_concrete_function(*[tf.TensorSpec([None, d], tf.float32) for d in (3, 4, 4)]),
         [kx, kh], [[_f32(2, 3), _f32(2, 4), _f32(2, 4)] for _ in range(2)]),
    ]


def _keras_models():
    keras = tf.keras
    layers = keras.layers
    return {
        "keras_cnn": keras.Sequential([keras.Input((8, 8, 3)), layers.Conv2D(4, 3, padding="same"),
                                       layers.BatchNormalization(), layers.ReLU(), layers.MaxPooling2D(),
                                       layers.GlobalAveragePooling2D(), layers.Dropout(0.3), layers.Dense(2)]),
        "keras_lstm": keras.Sequential([keras.Input((5, 3)), layers.LSTM(4), layers.Dense(1)]),
        "keras_gru": keras.Sequential([keras.Input((5, 3)), layers.GRU(4, return_sequences=True),
                                       layers.LayerNormalization(), layers.Flatten()]),
        "keras_embedding": keras.Sequential([keras.Input((6,), dtype="int32"), layers.Embedding(10, 4),
                                             layers.Conv1D(3, 2), layers.GlobalMaxPooling1D()]),
    }


def _jsonable(value):
    value = np.asarray(value)
    return {"dtype": value.dtype.name, "value": value.tolist()}


_RUN_FUNCTIONS = r"""
import json, sys
import numpy as np
import tensorflow as tf
from tensorflow.core.framework import function_pb2
from tensorflow.python.eager import context

library = function_pb2.FunctionDefLibrary.FromString(open(sys.argv[1], "rb").read())
for fdef in library.function:
    context.context().add_function_def(fdef)
signatures = {f.signature.name: f.signature for f in library.function}
spec = json.load(open(sys.argv[2]))
value = lambda v: np.asarray(v["value"], dtype=v["dtype"])
results = {}
for case in spec:
    variables = [tf.Variable(value(v)) for v in case["variables"]]
    signature = signatures[case["function"]]
    tout = [tf.dtypes.as_dtype(a.type) for a in signature.output_arg]
    runs = []
    for inputs in case["inputs"]:
        args = [tf.constant(value(a)) for a in inputs] + [v.handle for v in variables]
        outs = tf.raw_ops.StatefulPartitionedCall(args=args, Tout=tout, f=case["function"])
        runs.append({"outputs": [o.numpy().tolist() for o in outs],
                     "variables": [v.numpy().tolist() for v in variables]})
    results[case["name"]] = runs
print(json.dumps(results))
"""


def test_tensorflow_runs_exported_function_defs(tmp_path):
    require_tensorflow()
    cases = _cases()
    library, names = graph_export.export_library([cf for _, cf, _, _ in cases])
    (tmp_path / "library.pb").write_bytes(library.SerializeToString())
    spec, expected = [], {}
    for (name, cf, variables, inputs), fname in zip(cases, names):
        initial = [v.numpy().copy() for v in variables]
        spec.append({"name": name, "function": fname, "variables": [_jsonable(v) for v in initial],
                     "inputs": [[_jsonable(a) for a in args] for args in inputs]})
        runs = []
        for args in inputs:
            outs = tf.nest.flatten(cf(*[tf.constant(a) for a in args]))
            runs.append(([np.asarray(o.numpy()) for o in outs], [v.numpy().copy() for v in variables]))
        expected[name] = runs
        for v, start in zip(variables, initial):
            v.assign(start)
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    got = run_tensorflow(_RUN_FUNCTIONS, tmp_path / "library.pb", tmp_path / "spec.json")
    for name, runs in expected.items():
        assert len(got[name]) == len(runs)
        for (outs, variables), theirs in zip(runs, got[name]):
            assert len(outs) == len(theirs["outputs"]), name
            for mine, other in zip(outs, theirs["outputs"]):
                np.testing.assert_allclose(np.asarray(other, dtype=mine.dtype), mine, rtol=1e-4, atol=1e-5,
                                           err_msg=name)
            for mine, other in zip(variables, theirs["variables"]):
                np.testing.assert_allclose(np.asarray(other, dtype=mine.dtype), mine, rtol=1e-5, err_msg=name)


_RUN_GRAPH_DEF = r"""
import json, sys
import numpy as np
import tensorflow as tf

graph_def = tf.compat.v1.GraphDef.FromString(open(sys.argv[1], "rb").read())
spec = json.load(open(sys.argv[2]))
graph = tf.Graph()
with graph.as_default():
    tf.graph_util.import_graph_def(graph_def, name="")
results = []
with tf.compat.v1.Session(graph=graph) as session:
    for inputs in spec["inputs"]:
        feed = {graph.get_tensor_by_name(n + ":0"): np.asarray(v["value"], dtype=v["dtype"])
                for n, v in zip(spec["placeholders"], inputs)}
        outs = session.run([graph.get_tensor_by_name(t) for t in spec["outputs"]], feed)
        results.append([np.asarray(o).tolist() for o in outs])
print(json.dumps(results))
"""


def test_tensorflow_imports_graph_def(tmp_path):
    require_tensorflow()

    @tf.function
    def f(x, n):
        y = tf.nn.softmax(tf.matmul(x, tf.transpose(x)) / 4.0)
        i = tf.constant(0)
        while i < n:
            y = tf.tanh(y) + 0.5
            i += 1
        if tf.reduce_mean(y) > 0.7:
            y = y * 2.0
        return tf.reduce_sum(y, axis=1), tf.cast(tf.argmax(y, axis=1), tf.int32)

    cf = f.get_concrete_function(tf.TensorSpec([None, 3], tf.float32), tf.TensorSpec([], tf.int32))
    graph_def = graph_export.export_graph_def(cf)
    (tmp_path / "graph.pb").write_bytes(graph_def.SerializeToString())
    inputs = [[_f32(4, 3), np.int32(n)] for n in (0, 1, 3)]
    outputs = [t.name for t in cf.outputs]
    placeholders = [t.op.name for t in cf.inputs]
    spec = {"placeholders": placeholders, "outputs": outputs,
            "inputs": [[_jsonable(a) for a in args] for args in inputs]}
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    got = run_tensorflow(_RUN_GRAPH_DEF, tmp_path / "graph.pb", tmp_path / "spec.json")
    for args, theirs in zip(inputs, got):
        mine = [np.asarray(o.numpy()) for o in tf.nest.flatten(cf(*[tf.constant(a) for a in args]))]
        for m, t in zip(mine, theirs):
            np.testing.assert_allclose(np.asarray(t, dtype=m.dtype), m, rtol=1e-5, atol=1e-6)


def test_tensorflux_imports_function_defs_traced_by_tensorflow(tmp_path):
    require_tensorflow()
    # Run from its file: AutoGraph needs the functions' source.
    path = os.path.join(os.path.dirname(HERE), "io_formats", "make_graph_fixtures.py")
    runner = "import runpy, sys\nsys.argv = [sys.argv[1]] + sys.argv[2:]\nrunpy.run_path(sys.argv[0], run_name='__main__')\n"
    written = run_tensorflow(runner, path, "fixtures", tmp_path)["written"]
    assert written
    for name in written:
        meta = json.loads((tmp_path / f"{name}.json").read_text())
        library = graph_import.import_library((tmp_path / f"{name}.pb").read_bytes())
        value = lambda v: np.asarray(v["value"], dtype=v["dtype"])  # noqa: E731
        captures = [tf.Variable(value(c)).handle if c["kind"] == "variable" else tf.constant(value(c))
                    for c in meta["captures"]]
        cf = library.concrete(meta["function"], captures)
        for case in meta["cases"]:
            got = [np.asarray(t.numpy()) for t in tf.nest.flatten(cf(*[tf.constant(value(a)) for a in case["inputs"]]))]
            for g, e in zip(got, case["outputs"]):
                np.testing.assert_allclose(g, value(e), rtol=1e-5, atol=1e-5, err_msg=name)


_KERAS_TENSORBOARD = r"""
import json, os, sys
import numpy as np
import tensorflow as tf
import keras
from tensorboard.backend.event_processing import event_accumulator

spec = json.load(open(sys.argv[1]))
x, y = np.asarray(spec["x"], np.float32), np.asarray(spec["y"], np.int64)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(3)])
model.set_weights([np.asarray(w, np.float32) for w in spec["weights"]])
model.compile(optimizer=keras.optimizers.Adam(0.01),
              loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
model.fit(x, y, epochs=2, batch_size=16, validation_split=0.25, shuffle=False, verbose=0,
          callbacks=[keras.callbacks.TensorBoard(log_dir=sys.argv[2], histogram_freq=1)])

def events(directory):
    (name,) = os.listdir(directory)
    out = []
    for record in tf.data.TFRecordDataset(os.path.join(directory, name)):
        event = tf.compat.v1.Event.FromString(record.numpy())
        for v in event.summary.value:
            value = tf.make_ndarray(v.tensor)
            out.append([event.step, v.tag, v.metadata.plugin_data.plugin_name,
                        value.tolist() if value.dtype != object else None])
    return out

def readable(directory):
    accumulator = event_accumulator.EventAccumulator(directory, size_guidance={event_accumulator.TENSORS: 0})
    accumulator.Reload()
    return sorted(accumulator.Tags()["tensors"])

result = {}
for which in ("train", "validation"):
    result[which] = {"tensorflow": events(os.path.join(sys.argv[2], which)),
                     "tensorflux_tags_seen_by_tensorboard": readable(os.path.join(sys.argv[3], which))}
print(json.dumps(result))
"""


def test_keras_tensorboard_callback_matches_keras(tmp_path):
    require_tensorflow()
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "keras"))
    from test_tensorboard_callback import _events
    keras = tf.keras
    keras.backend.clear_session()
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(64, 4)).astype("float32"), rng.integers(0, 3, size=(64,))
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(3)])
    weights = [w.numpy().tolist() for w in model.weights]
    model.compile(optimizer=keras.optimizers.Adam(0.01),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    mine_dir = tmp_path / "tensorflux"
    model.fit(x, y, epochs=2, batch_size=16, validation_split=0.25, shuffle=False, verbose=0,
              callbacks=[keras.callbacks.TensorBoard(log_dir=str(mine_dir), histogram_freq=1)])
    (tmp_path / "spec.json").write_text(json.dumps({"x": x.tolist(), "y": y.tolist(), "weights": weights}))
    theirs = run_tensorflow(_KERAS_TENSORBOARD, tmp_path / "spec.json", tmp_path / "tensorflow", mine_dir)
    for which in ("train", "validation"):
        mine = _events(mine_dir / which)
        reference = theirs[which]["tensorflow"]
        assert [(s, t, p) for s, t, p, _ in mine] == [tuple(e[:3]) for e in reference], which
        assert theirs[which]["tensorflux_tags_seen_by_tensorboard"] == sorted({t for _, t, _, _ in mine})
        for (step, tag, plugin, value), (_, _, _, expected) in zip(mine, reference):
            if plugin == "scalars":
                assert float(value) == pytest.approx(expected, rel=1e-4, abs=1e-6), (which, step, tag)
            elif plugin == "histograms":
                np.testing.assert_allclose(value, np.asarray(expected), rtol=1e-4, atol=1e-5,
                                           err_msg=f"{which} {step} {tag}")
