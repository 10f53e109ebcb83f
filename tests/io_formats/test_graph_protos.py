"""Traced graphs as TensorFlow FunctionDefs/GraphDefs and back (io/formats/graph_export.py, graph_import.py).

Round trips: a traced function is exported to a FunctionDefLibrary, serialized, imported, and the imported
concrete function must compute what the original computes on many inputs. The TensorFlow-made fixtures
(tests/io_formats/fixtures/*.pb, written by make_graph_fixtures.py under TensorFlow 2.21 with the outputs
TensorFlow computed) check the import of TensorFlow's own FunctionDefs.
"""
import json
import os

import numpy as np
import pytest

pytest.importorskip("google.protobuf")

import tensorflux as tf
from tensorflux._src.framework import errors
from tensorflux._src.io.formats import attr_values, graph_export, graph_import

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")
RNG = np.random.default_rng(1234)


def _roundtrip(cf, captures=()):
    library, names = graph_export.export_library([cf])
    data = library.SerializeToString()
    return graph_import.function_from_def(data, names[0], captures), library, names[0]


def _flat(value):
    return [np.asarray(t.numpy()) for t in tf.nest.flatten(value)]


def _assert_same(cf, imported, make_args, trials=8, reset=None):
    for _ in range(trials):
        args = make_args()
        if reset:
            reset()
        expected = _flat(cf(*args))
        if reset:
            reset()
        got = _flat(imported(*args))
        assert len(expected) == len(got)
        for e, g in zip(expected, got):
            assert e.dtype == g.dtype and e.shape == g.shape
            np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)


def _normal(*shape):
    return tf.constant(RNG.normal(size=shape).astype(np.float32))


def test_elementwise_and_matmul_round_trip():
    @tf.function
    def f(x, y):
        return tf.matmul(x, y) * 2.0 + tf.exp(-tf.abs(x)) @ y - 1.0, tf.sqrt(tf.square(x) + 1.0)

    cf = f.get_concrete_function(tf.TensorSpec([None, 3], tf.float32), tf.TensorSpec([3, 3], tf.float32))
    imported, _, _ = _roundtrip(cf)
    _assert_same(cf, imported, lambda: (_normal(int(RNG.integers(1, 5)), 3), _normal(3, 3)))


def test_function_def_has_tensorflow_names_and_attrs():
    v = tf.Variable(np.ones((3, 2), np.float32))

    @tf.function
    def f(x):
        y = tf.matmul(x, v)
        v.assign_add(tf.ones([3, 2]))
        return tf.cast(tf.reduce_sum(y, axis=1), tf.int32)

    cf = f.get_concrete_function(tf.TensorSpec([None, 3], tf.float32))
    library, (name,) = graph_export.export_library([cf])
    fdef = {f.signature.name: f for f in library.function}[name]
    args = [(a.name, a.type) for a in fdef.signature.input_arg]
    assert args[0] == ("x", tf.float32.as_datatype_enum) and args[1][1] == tf.resource.as_datatype_enum
    nodes = {n.name: n for n in fdef.node_def}
    read = nodes["MatMul/ReadVariableOp"]     # TensorFlow reads a variable input inside the consumer's scope
    assert read.op == "ReadVariableOp" and list(read.input) == [args[1][0]]
    assert read.attr["dtype"].type == tf.float32.as_datatype_enum
    matmul = nodes["MatMul"]
    assert list(matmul.input) == ["x", "MatMul/ReadVariableOp:value:0"]
    assert set(matmul.attr) >= {"T", "transpose_a", "transpose_b", "_output_shapes"}
    total = nodes["Sum"]
    assert total.input[1] == "Sum/reduction_indices:output:0"
    assert set(total.attr) >= {"T", "Tidx", "keep_dims"}
    cast = nodes["Cast"]
    assert cast.attr["SrcT"].type == tf.float32.as_datatype_enum
    assert cast.attr["DstT"].type == tf.int32.as_datatype_enum and not cast.attr["Truncate"].b
    assign = nodes["AssignAddVariableOp"]
    assert assign.attr["dtype"].type == tf.float32.as_datatype_enum
    assert "AssignAddVariableOp" in fdef.signature.control_output and fdef.signature.is_stateful
    assert fdef.arg_attr[0].attr["_user_specified_name"].s == b"x"
    assert [d.size for d in fdef.arg_attr[0].attr["_output_shapes"].list.shape[0].dim] == [-1, 3]
    assert fdef.ret["identity"] == "Identity:output:0"
    shapes = [[d.size for d in shape.dim] for shape in fdef.attr["_input_shapes"].list.shape]
    assert shapes == [[-1, 3], []] and fdef.attr["_construction_context"].s == b"kEagerRuntime"


def test_variables_read_and_assigned_in_order():
    v = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3))

    @tf.function
    def f(x):
        before = v.read_value() * 1.0
        v.assign(v * 0.5 + x)
        v.assign_sub(tf.ones([2, 3]))
        return before, v.read_value() + 0.0

    cf = f.get_concrete_function(tf.TensorSpec([2, 3], tf.float32))
    imported, _, _ = _roundtrip(cf, captures=[v.handle])
    start = v.numpy().copy()
    _assert_same(cf, imported, lambda: (_normal(2, 3),), reset=lambda: v.assign(start))


def test_cond_while_and_nested_calls():
    w = tf.Variable(np.full((2, 2), 0.5, np.float32))

    @tf.function
    def inner(a, b):
        return tf.nn.relu(a) + b * 2.0

    @tf.function
    def f(x, n):
        if tf.reduce_sum(x) > 0.0:
            y = tf.matmul(x, w)
        else:
            y = x - 1.0
        i = tf.constant(0)
        while i < n:
            y = inner(y, x) * 0.5
            i += 1
        return y, i

    cf = f.get_concrete_function(tf.TensorSpec([None, 2], tf.float32), tf.TensorSpec([], tf.int32))
    imported, library, _ = _roundtrip(cf, captures=[w.handle])
    kinds = {n.op for fd in library.function for n in fd.node_def}
    assert {"StatelessIf", "StatelessWhile", "PartitionedCall"} <= kinds or {"If", "While"} & kinds
    _assert_same(cf, imported, lambda: (_normal(3, 2), tf.constant(int(RNG.integers(0, 4)))))


@tf.function
def _loops(x, n):
    s = tf.zeros_like(x)
    for i in tf.range(n):
        s = s + x * tf.cast(i, tf.float32)
    _, limited = tf.while_loop(lambda j, a: j < 100, lambda j, a: (j + 1, a * 1.5), [0, x], maximum_iterations=n)
    ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
    for i in tf.range(3):
        ta = ta.write(i, x * tf.cast(i, tf.float32))
    return s, limited, ta.stack()


def test_for_loops_maximum_iterations_and_tensor_arrays():
    cf = _loops.get_concrete_function(tf.TensorSpec([2], tf.float32), tf.TensorSpec([], tf.int32))
    imported, library, _ = _roundtrip(cf)
    whiles = [n for fd in library.function for n in fd.node_def if n.op in ("While", "StatelessWhile")]
    # TensorFlow's while_v2 form: every loop leads with a counter and a limit (-1 without maximum_iterations)
    counted = [n for n in whiles if n.input[0].endswith("loop_counter:output:0")]
    unlimited = [n for n in whiles if n.input[1].endswith("maximum_iterations:output:0")]
    assert len(whiles) == 3 and len(counted) == 3 and len(unlimited) == 2
    _assert_same(cf, imported, lambda: (_normal(2), tf.constant(int(RNG.integers(1, 6)))))


def test_mlp_softmax_cross_entropy():
    w1 = tf.Variable(RNG.normal(size=(4, 8)).astype(np.float32))
    b1 = tf.Variable(np.zeros(8, np.float32))
    w2 = tf.Variable(RNG.normal(size=(8, 3)).astype(np.float32))

    @tf.function
    def f(x, labels):
        h = tf.nn.relu(tf.matmul(x, w1) + b1)
        logits = tf.matmul(h, w2)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
        dense = tf.nn.softmax_cross_entropy_with_logits(labels=tf.one_hot(labels, 3), logits=logits)
        return tf.nn.softmax(logits), tf.nn.log_softmax(logits), loss, dense, tf.argmax(logits, axis=1)

    cf = f.get_concrete_function(tf.TensorSpec([None, 4], tf.float32), tf.TensorSpec([None], tf.int32))
    imported, _, _ = _roundtrip(cf, captures=[w1.handle, b1.handle, w2.handle])
    _assert_same(cf, imported, lambda: (_normal(5, 4), tf.constant(RNG.integers(0, 3, size=5).astype(np.int32))))


def test_cnn_ops():
    kernel = tf.Variable(RNG.normal(size=(3, 3, 2, 4)).astype(np.float32))

    @tf.function
    def f(img):
        c = tf.nn.conv2d(img, kernel, strides=[1, 1, 1, 1], padding="SAME")
        c = tf.nn.bias_add(c, tf.ones([4]))
        mean, var = tf.nn.moments(c, axes=[0, 1, 2])
        bn = tf.nn.batch_normalization(c, mean, var, tf.zeros([4]), tf.ones([4]) * 2.0, 1e-3)
        bn2 = tf.nn.batch_normalization(c, mean, var, None, None, 1e-3)
        p = tf.nn.max_pool2d(bn, 2, 2, "VALID")
        a = tf.nn.avg_pool2d(bn2, 2, 2, "SAME")
        return p, a, tf.nn.gelu(p), tf.nn.gelu(p, approximate=True), tf.nn.silu(a), tf.nn.leaky_relu(a, 0.1)

    cf = f.get_concrete_function(tf.TensorSpec([None, 6, 6, 2], tf.float32))
    imported, _, _ = _roundtrip(cf, captures=[kernel.handle])
    _assert_same(cf, imported, lambda: (_normal(2, 6, 6, 2),))


def test_shape_ops_reductions_and_casts():
    @tf.function
    def f(x):
        s = tf.shape(x)
        r = tf.reshape(x, [s[0], 2, 2])
        t = tf.transpose(r, [0, 2, 1])
        e = tf.squeeze(tf.expand_dims(x, 0), [0])
        cc = tf.concat([x, e], axis=1)
        st = tf.stack([x, x], 1)
        g = tf.gather(x, [0, 3], axis=1)
        parts = tf.split(x, 2, axis=1)
        un = tf.unstack(x, axis=1)
        sl = x[:, 1:3]
        return (t, cc, st, g, parts[1], un[2], sl, tf.reduce_max(x, axis=[0, 1]), tf.reduce_sum(x),
                tf.reduce_mean(x, axis=1, keepdims=True), tf.reduce_min(x, 0), tf.reduce_prod(x, 1),
                tf.cast(x * 10.0, tf.int64), tf.math.cumsum(x, axis=1), tf.reverse(x, [1]), tf.tile(x, [1, 2]),
                tf.pad(x, [[1, 1], [0, 2]]), tf.where(x > 0.0, x, 0.0), tf.size(x), tf.rank(x),
                tf.fill([2, 2], 3.0), tf.range(5), tf.math.top_k(x, 2).values, tf.zeros_like(x),
                tf.broadcast_to(x[0], [3, 4]), tf.clip_by_value(x, -0.5, 0.5), tf.math.reduce_any(x > 1.0, axis=1))

    cf = f.get_concrete_function(tf.TensorSpec([None, 4], tf.float32))
    imported, _, _ = _roundtrip(cf)
    _assert_same(cf, imported, lambda: (_normal(int(RNG.integers(1, 4)), 4),))


def test_decomposed_and_less_common_ops():
    @tf.function
    def f(x, z):
        return (tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x), tf.sort(x),
                tf.sort(x, direction="DESCENDING"), tf.argsort(x), tf.gather_nd(x, [[0, 1], [1, 2]]),
                tf.linspace(0.0, 1.0, 5), tf.random.uniform([3], seed=1) * 0.0, tf.math.log_softmax(x),
                tf.nn.l2_loss(x), tf.math.squared_difference(x, z), tf.math.floormod(x, 0.7), tf.math.erf(x),
                tf.nn.softplus(x), tf.nn.selu(x), tf.math.reduce_euclidean_norm(x, axis=1),
                tf.math.reduce_logsumexp(x, axis=1), tf.einsum("ij,kj->ik", x, z), tf.math.add_n([x, z, x]))

    cf = f.get_concrete_function(tf.TensorSpec([2, 4]), tf.TensorSpec([2, 4]))
    imported, _, _ = _roundtrip(cf)
    _assert_same(cf, imported, lambda: (_normal(2, 4), tf.constant(RNG.uniform(size=(2, 4)).astype(np.float32))))


def test_custom_gradient_and_identity_n():
    @tf.custom_gradient
    def doubled(x):
        return tf.identity(x) * 2.0, lambda dy: tf.clip_by_value(dy, -1.0, 1.0)

    @tf.function
    def f(x):
        return doubled(x) + 1.0, tf.identity_n([x, x * 2.0])[1]

    cf = f.get_concrete_function(tf.TensorSpec([3]))
    imported, library, _ = _roundtrip(cf)
    assert "IdentityN" in {n.op for fd in library.function for n in fd.node_def}
    _assert_same(cf, imported, lambda: (_normal(3),))


def test_rnn_cell_step():
    kernel = tf.Variable(RNG.normal(size=(3, 16)).astype(np.float32))
    recurrent = tf.Variable(RNG.normal(size=(4, 16)).astype(np.float32))

    @tf.function
    def lstm(x, h, c):
        z = tf.matmul(x, kernel) + tf.matmul(h, recurrent)
        i, f, g, o = tf.split(z, 4, axis=1)
        c2 = tf.sigmoid(f) * c + tf.sigmoid(i) * tf.tanh(g)
        return tf.sigmoid(o) * tf.tanh(c2), c2

    cf = lstm.get_concrete_function(*[tf.TensorSpec([None, d], tf.float32) for d in (3, 4, 4)])
    imported, _, _ = _roundtrip(cf, captures=[kernel.handle, recurrent.handle])
    _assert_same(cf, imported, lambda: (_normal(2, 3), _normal(2, 4), _normal(2, 4)))


@pytest.mark.parametrize("layers_of", [
    lambda L: [tf.keras.Input((8, 8, 3)), L.Conv2D(4, 3, padding="same"), L.BatchNormalization(), L.ReLU(),
               L.MaxPooling2D(), L.GlobalAveragePooling2D(), L.Dropout(0.5), L.Dense(2, activation="softmax")],
    lambda L: [tf.keras.Input((5, 3)), L.LSTM(4), L.Dense(1)],
    lambda L: [tf.keras.Input((5, 3)), L.GRU(4, return_sequences=True), L.LayerNormalization(), L.Flatten()],
    lambda L: [tf.keras.Input((6,), dtype="int32"), L.Embedding(10, 4), L.Conv1D(3, 2), L.GlobalMaxPooling1D()],
], ids=["cnn", "lstm", "gru", "embedding"])
def test_keras_models_round_trip(layers_of):
    model = tf.keras.Sequential(layers_of(tf.keras.layers))
    spec = model.inputs[0]
    fn = tf.function(lambda x: model(x, training=False))
    cf = fn.get_concrete_function(tf.TensorSpec([None] + list(spec.shape[1:]), spec.dtype))
    imported, _, _ = _roundtrip(cf, captures=list(cf.captured_inputs))

    def make():
        shape = [int(RNG.integers(1, 4))] + list(spec.shape[1:])
        if spec.dtype == tf.int32:
            return (tf.constant(RNG.integers(0, 10, size=shape).astype(np.int32)),)
        return (_normal(*shape),)

    _assert_same(cf, imported, make, trials=4)


def test_graph_def_view():
    @tf.function
    def f(x):
        return tf.nn.relu(x) + 1.0

    cf = f.get_concrete_function(tf.TensorSpec([2], tf.float32))
    graph_def = graph_export.export_graph_def(cf)
    ops = [(n.name, n.op) for n in graph_def.node]
    assert ops[0] == ("x", "Placeholder") and ("Relu", "Relu") in ops
    add = [n for n in graph_def.node if n.op == "AddV2"][0]
    assert list(add.input) == ["Relu", "add/y"]
    assert graph_def.versions.producer > 0


def test_export_error_names_the_op():
    @tf.function
    def f(x):
        return tf.py_function(lambda a: a, [x], tf.float32)

    cf = f.get_concrete_function(tf.TensorSpec([2], tf.float32))
    with pytest.raises(ValueError, match="EagerPyFunc"):
        graph_export.export_library([cf])


def _library_with(node_op, attrs=None, input_type=tf.float32):
    m = attr_values.messages()
    library = m.FunctionDefLibrary()
    fdef = library.function.add()
    fdef.signature.name = "f"
    arg = fdef.signature.input_arg.add()
    arg.name, arg.type = "x", input_type.as_datatype_enum
    out = fdef.signature.output_arg.add()
    out.name, out.type = "y", input_type.as_datatype_enum
    node = fdef.node_def.add(name="n", op=node_op)
    node.input.append("x")
    node.attr["T"].type = input_type.as_datatype_enum
    for key, value in (attrs or {}).items():
        node.attr[key].CopyFrom(value)
    fdef.ret["y"] = "n:y:0"
    return library


def test_unknown_op_is_reported_by_name():
    with pytest.raises(NotImplementedError, match="SavedModel uses op 'FancyOp' which tensorflux does not implement"):
        graph_import.function_from_def(_library_with("FancyOp"), "f")


def test_attr_not_in_op_def_is_refused():
    m = attr_values.messages()
    with pytest.raises(errors.InvalidArgumentError, match="attr 'evil'"):
        graph_import.function_from_def(_library_with("Relu", {"evil": m.AttrValue(s=b"__import__('os')")}), "f")


def test_attr_of_wrong_kind_is_refused():
    m = attr_values.messages()
    library = _library_with("Relu")
    library.function[0].node_def[0].attr["T"].CopyFrom(m.AttrValue(s=b"float"))
    with pytest.raises(errors.DataLossError, match="expected a type"):
        graph_import.function_from_def(library, "f")


def test_dangling_input_and_cycles_are_refused():
    library = _library_with("Relu")
    library.function[0].node_def[0].input[0] = "missing:y:0"
    with pytest.raises(errors.InvalidArgumentError, match="missing"):
        graph_import.function_from_def(library, "f")
    library = _library_with("Relu")
    node = library.function[0].node_def[0]
    node.input[0] = "n:activations:0"
    with pytest.raises(errors.InvalidArgumentError, match="cycle"):
        graph_import.function_from_def(library, "f")


def test_recursive_call_is_refused():
    m = attr_values.messages()
    library = _library_with("Relu")
    node = library.function[0].node_def.add(name="call", op="PartitionedCall")
    node.input.append("x")
    node.attr["Tin"].list.type.append(tf.float32.as_datatype_enum)
    node.attr["Tout"].list.type.append(tf.float32.as_datatype_enum)
    node.attr["f"].CopyFrom(m.AttrValue(func=m.NameAttrList(name="f")))
    with pytest.raises(errors.InvalidArgumentError, match="calls itself"):
        graph_import.function_from_def(library, "f")


def test_huge_list_counts_are_refused():
    m = attr_values.messages()
    library = _library_with("Split", {"num_split": m.AttrValue(i=1 << 40)})
    node = library.function[0].node_def[0]
    node.input.insert(0, "x")
    with pytest.raises(errors.InvalidArgumentError, match="tensorflux reads between 0 and"):
        graph_import.function_from_def(library, "f")


def test_oversized_constant_is_refused():
    m = attr_values.messages()
    proto = m.TensorProto(dtype=tf.float32.as_datatype_enum)
    for d in (1 << 20, 1 << 20, 4):
        proto.tensor_shape.dim.add().size = d
    proto.float_val.append(1.0)
    with pytest.raises(errors.DataLossError, match="more than tensorflux reads"):
        attr_values.tensor_array(proto)


def test_tensor_protos_both_ways():
    m = attr_values.messages()
    for array in (np.arange(6, dtype=np.float32).reshape(2, 3), np.array(True), np.array([1, 2], np.int64),
                  np.array([b"a", b"bc"], dtype=object), np.array([1.5, -2], np.float16)):
        back = attr_values.tensor_array(attr_values.tensor_proto(m, array))
        assert back.dtype == array.dtype and back.shape == array.shape
        assert back.tolist() == array.tolist()
    splat = m.TensorProto(dtype=tf.int32.as_datatype_enum)
    splat.tensor_shape.dim.add().size = 3
    splat.int_val.append(7)
    assert attr_values.tensor_array(splat).tolist() == [7, 7, 7]


def _fixture(name):
    path = os.path.join(FIXTURES, name)
    if not os.path.exists(path + ".pb"):
        pytest.skip(f"fixture {name} not made (run make_graph_fixtures.py fixtures under TensorFlow)")
    with open(path + ".pb", "rb") as f:
        data = f.read()
    with open(path + ".json") as f:
        meta = json.load(f)
    return data, meta


@pytest.mark.parametrize("name", ["tf_mlp", "tf_control_flow", "tf_cnn", "tf_shapes", "tf_keras_cnn",
                                  "tf_keras_lstm", "tf_keras_gru", "tf_keras_embedding"])
def test_tensorflow_made_functions_import(name):
    data, meta = _fixture(name)
    library = graph_import.import_library(data)
    captures = [tf.constant(np.asarray(c["value"], dtype=c["dtype"])) if c["kind"] == "tensor" else
                tf.Variable(np.asarray(c["value"], dtype=c["dtype"])).handle for c in meta["captures"]]
    cf = library.concrete(meta["function"], captures)
    for case in meta["cases"]:
        args = [tf.constant(np.asarray(a["value"], dtype=a["dtype"])) for a in case["inputs"]]
        got = _flat(cf(*args))
        assert len(got) == len(case["outputs"])
        for g, e in zip(got, case["outputs"]):
            np.testing.assert_allclose(g, np.asarray(e["value"], dtype=e["dtype"]), rtol=1e-5, atol=1e-5)
