"""Node names of constants and packs made while converting op inputs in a graph, as TensorFlow 2.21 names
them (recorded by running the same functions in TensorFlow and printing `graph.get_operations()`).

Known difference left: tensorflux's ConcatV2 holds its axis as an attribute until export, so
`get_operations()` has no `concat/axis` Const (the exported GraphDef has it); those lines are left out below.
"""
import tensorflux as tf


def _ops(f, *specs):
    graph = f.get_concrete_function(*specs).graph
    return [(op.type, op.name, [t.name for t in op.inputs if not (op.type == "ConcatV2" and "axis" in t.name)])
            for op in graph.get_operations()]


def test_list_inputs_autopacking_and_explicit_conversions():
    @tf.function
    def f(x):
        a = tf.strings.join(["a", x, "b"])
        b = tf.concat([[1.0], tf.cast(tf.strings.length(x), tf.float32)[None]], 0)
        c = tf.stack([1.0, 2.0])
        v = tf.convert_to_tensor(3.0)
        d = v * 2.0
        return a, b, c, d

    got = [o for o in _ops(f, tf.TensorSpec([], tf.string)) if o[1] != "concat/axis"]
    assert got == [
        ("Placeholder", "x", []),
        ("Const", "StringJoin/inputs_0", []),
        ("Const", "StringJoin/inputs_2", []),
        ("StringJoin", "StringJoin", ["StringJoin/inputs_0:0", "x:0", "StringJoin/inputs_2:0"]),
        ("StringLength", "StringLength", ["x:0"]),
        ("Cast", "Cast", ["StringLength:0"]),
        ("Const", "strided_slice/stack", []),
        ("Const", "strided_slice/stack_1", []),
        ("Const", "strided_slice/stack_2", []),
        ("StridedSlice", "strided_slice", ["Cast:0", "strided_slice/stack:0", "strided_slice/stack_1:0",
                                          "strided_slice/stack_2:0"]),
        ("Const", "concat/values_0", []),
        ("ConcatV2", "concat", ["concat/values_0:0", "strided_slice:0"]),
        ("Const", "stack", []),
        ("Const", "Const", []),
        ("Const", "mul/y", []),
        ("Mul", "mul", ["Const:0", "mul/y:0"]),
        ("Identity", "Identity", ["StringJoin:0"]),
        ("Identity", "Identity_1", ["concat:0"]),
        ("Identity", "Identity_2", ["stack:0"]),
        ("Identity", "Identity_3", ["mul:0"]),
    ]


def test_packs_inside_list_inputs_and_index_named_elements():
    @tf.function
    def f(x):
        a = tf.stack([1.0, x])
        c = tf.concat([[1.0], [x], [3.0]], axis=0)
        d = tf.strings.join(["a", tf.strings.as_string(x)], separator="-")
        e = tf.einsum("i,i->", tf.stack([x, x]), tf.constant([1.0, 2.0]))
        g = tf.dynamic_stitch([[0], [1]], [[x], [4.0]])
        h = tf.identity_n([x, 5.0])
        k = tf.convert_to_tensor([x, 1.0])
        return a, c, d, e, g, h, k

    got = [o for o in _ops(f, tf.TensorSpec([], tf.float32)) if o[1] != "concat/axis"]
    assert got[:17] == [
        ("Placeholder", "x", []),
        ("Const", "stack/0", []),
        ("Pack", "stack", ["stack/0:0", "x:0"]),
        ("Const", "concat/values_0", []),
        ("Pack", "concat/values_1", ["x:0"]),
        ("Const", "concat/values_2", []),
        ("ConcatV2", "concat", ["concat/values_0:0", "concat/values_1:0", "concat/values_2:0"]),
        ("AsString", "AsString", ["x:0"]),
        ("Const", "StringJoin/inputs_0", []),
        ("StringJoin", "StringJoin", ["StringJoin/inputs_0:0", "AsString:0"]),
        ("Pack", "stack_1", ["x:0", "x:0"]),
        ("Const", "Const", []),
        ("Einsum", "einsum/Einsum", ["stack_1:0", "Const:0"]),
        ("Const", "DynamicStitch/indices_0", []),
        ("Const", "DynamicStitch/indices_1", []),
        ("Pack", "DynamicStitch/data_0", ["x:0"]),
        ("Const", "DynamicStitch/data_1", []),
    ]
    assert got[17:22] == [
        ("DynamicStitch", "DynamicStitch", ["DynamicStitch/indices_0:0", "DynamicStitch/indices_1:0",
                                            "DynamicStitch/data_0:0", "DynamicStitch/data_1:0"]),
        ("Const", "IdentityN/input_1", []),
        ("IdentityN", "IdentityN", ["x:0", "IdentityN/input_1:0"]),
        ("Const", "packed/1", []),
        ("Pack", "packed", ["x:0", "packed/1:0"]),
    ]


def test_an_op_named_by_its_name_scope_takes_the_scope_name():
    @tf.function
    def f(x):
        with tf.name_scope("foo") as scope:
            y = x * 2.0
            return tf.identity(y, name=scope)

    assert _ops(f, tf.TensorSpec([], tf.float32)) == [
        ("Placeholder", "x", []),
        ("Const", "foo/mul/y", []),
        ("Mul", "foo/mul", ["x:0", "foo/mul/y:0"]),
        ("Identity", "foo", ["foo/mul:0"]),
        ("Identity", "Identity", ["foo:0"]),
    ]


def test_einsum_nodes_sit_in_their_name_scope():
    @tf.function
    def f(x):
        a = tf.einsum("i,i->", x, x)
        b = tf.einsum("i,i->", x, x, name="foo")
        with tf.name_scope("s"):
            c = tf.einsum("i->", x)
        return a, b, c

    assert [o[1] for o in _ops(f, tf.TensorSpec([2], tf.float32))] == [
        "x", "einsum/Einsum", "foo/Einsum", "s/einsum/Einsum", "Identity", "Identity_1", "Identity_2"]


def test_captured_eager_values_are_named_inside_the_consuming_op():
    import numpy as np
    v = tf.Variable(2.0, name="weight")
    w = tf.Variable(np.ones((3, 3), np.float32))
    big = tf.constant(np.arange(200, dtype=np.float32))

    @tf.function
    def f(x):
        a = x * v
        b = tf.matmul(tf.reshape(x, [1, 1]) * tf.ones([3, 3]), w)
        c = x + big
        d = big * 2.0
        w.assign_add(tf.ones([3, 3]))
        e = tf.convert_to_tensor(v)
        return a, b, c, d, e

    got = _ops(f, tf.TensorSpec([], tf.float32))
    assert got[:17] == [
        ("Placeholder", "x", []),
        ("Placeholder", "mul/ReadVariableOp/resource", []),
        ("ReadVariableOp", "mul/ReadVariableOp", ["mul/ReadVariableOp/resource:0"]),
        ("Mul", "mul", ["x:0", "mul/ReadVariableOp:0"]),
        ("Const", "Reshape/shape", []),
        ("Reshape", "Reshape", ["x:0", "Reshape/shape:0"]),
        ("Const", "ones", []),
        ("Mul", "mul_1", ["Reshape:0", "ones:0"]),
        ("Placeholder", "MatMul/ReadVariableOp/resource", []),
        ("ReadVariableOp", "MatMul/ReadVariableOp", ["MatMul/ReadVariableOp/resource:0"]),
        ("MatMul", "MatMul", ["mul_1:0", "MatMul/ReadVariableOp:0"]),
        ("Placeholder", "add/y", []),
        ("AddV2", "add", ["x:0", "add/y:0"]),
        ("Const", "mul_2/y", []),
        ("Mul", "mul_2", ["add/y:0", "mul_2/y:0"]),
        ("Const", "ones_1", []),
        ("AssignAddVariableOp", "AssignAddVariableOp", ["MatMul/ReadVariableOp/resource:0", "ones_1:0"]),
    ]
    assert got[17] == ("ReadVariableOp", "ReadVariableOp", ["mul/ReadVariableOp/resource:0"])


def test_cast_shares_one_name_scope_with_its_conversion():
    v = tf.Variable(1.0)

    @tf.function
    def f(x):
        a = tf.cast(x, tf.float32)
        b = tf.cast(x, tf.int32)
        c = tf.cast(v, tf.float32) * 2.0
        d = tf.cast(v, tf.int32)
        e = tf.cast(1.5, tf.float32)
        g = tf.add_n([x, 2.0, x])
        return a, b, c, d, e, g

    got = [o for o in _ops(f, tf.TensorSpec([], tf.float32)) if o[0] not in ("Placeholder", "Identity", "NoOp")]
    assert got == [
        ("Cast", "Cast", ["x:0"]),
        ("ReadVariableOp", "ReadVariableOp", ["ReadVariableOp/resource:0"]),
        ("Const", "mul/y", []),
        ("Mul", "mul", ["ReadVariableOp:0", "mul/y:0"]),
        ("ReadVariableOp", "Cast_1/ReadVariableOp", ["ReadVariableOp/resource:0"]),
        ("Cast", "Cast_1", ["Cast_1/ReadVariableOp:0"]),
        ("Const", "Cast_2/x", []),
        ("Const", "Const", []),
        ("AddN", "AddN", ["x:0", "Const:0", "x:0"]),
    ]


def test_shape_n_names_its_list_inputs_constants():
    @tf.function
    def f(x):
        return tf.shape_n([x, [1.0, 2.0]])

    got = [o for o in _ops(f, tf.TensorSpec([3], tf.float32)) if o[0] not in ("Placeholder", "Identity", "NoOp")]
    assert got == [("Const", "ShapeN/input_1", []), ("ShapeN", "ShapeN", ["x:0", "ShapeN/input_1:0"])]
