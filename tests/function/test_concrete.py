"""ConcreteFunction: obtaining, calling, binding errors, inspection and printing."""
import linecache

import pytest

import tensorflux as tf


@tf.function
def double(a):
    return a + a


def test_get_concrete_function_from_tensor_or_spec_and_call():
    cf = double.get_concrete_function(tf.constant("a"))
    assert cf(tf.constant("b")).numpy() == b"bb"
    assert cf(a=tf.constant("c")).numpy() == b"cc"
    same = double.get_concrete_function(tf.TensorSpec(shape=[], dtype=tf.string))
    assert same is cf


def test_unknown_rank_spec_accepts_any_shape():
    cf = double.get_concrete_function(tf.TensorSpec(shape=None, dtype=tf.int32))
    assert cf(tf.constant([[1, 2]])).numpy().tolist() == [[2, 4]]


def test_wrong_dtype_is_invalid_argument():
    cf = double.get_concrete_function(tf.TensorSpec([], tf.string))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="was expected to be a string tensor but is a int32 tensor"):
        cf(tf.constant(1))


def test_wrong_shape_is_type_error():
    cf = tf.function(lambda a: a).get_concrete_function(tf.TensorSpec([2], tf.int32))
    with pytest.raises(TypeError, match="Can not cast"):
        cf(tf.constant([1, 2, 3]))


def test_python_argument_is_fixed_to_its_literal():
    @tf.function
    def power(a, b):
        return a ** b

    square = power.get_concrete_function(a=tf.TensorSpec(None, tf.float32), b=2)
    assert square(tf.constant(3.0)).numpy() == 9.0
    with pytest.raises(TypeError, match=r"Can not cast 3 to Literal\[2\]"):
        square(tf.constant(3.0), b=3)


def test_printing_matches_tensorflow():
    cf = double.get_concrete_function(tf.TensorSpec([], tf.string))
    assert str(cf) == ("ConcreteFunction Input Parameters:\n"
                       "  a (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(), dtype=tf.string, name=None)\n"
                       "Output Type:\n"
                       "  TensorSpec(shape=(), dtype=tf.string, name=None)\n"
                       "Captures:\n"
                       "  None")
    assert repr(cf.function_type) == ("(a: TensorSpec(shape=(), dtype=tf.string, name=None)) -> "
                                      "TensorSpec(shape=(), dtype=tf.string, name=None)")


def test_pretty_printed_concrete_signatures_in_trace_order():
    @tf.function
    def ident(a):
        return a

    ident(tf.constant(1))
    ident(tf.constant(1.5))
    text = ident.pretty_printed_concrete_signatures()
    assert text.index("tf.int32") < text.index("tf.float32")
    assert text.count("Input Parameters:") == 2


def test_structured_signature_outputs_inputs_captures():
    c = tf.constant(3.0)

    @tf.function
    def f(x, scale=2):
        return {"y": x * scale + c}

    cf = f.get_concrete_function(tf.TensorSpec([None], tf.float32))
    args, kwargs = cf.structured_input_signature
    assert args == (tf.TensorSpec([None], tf.float32), 2) and kwargs == {}
    assert list(cf.structured_outputs) == ["y"]
    assert [t.name for t in cf.inputs][0] == "x:0"
    assert len(cf.outputs) == 1 and cf.outputs[0].shape.as_list() == [None]
    assert len(cf.captured_inputs) == 1 and cf.captured_inputs[0] is c
    assert "Captures:" in str(cf) and "TensorSpec(shape=(), dtype=tf.float32, name=None)" in str(cf)
    assert cf(tf.constant([1.0]))["y"].numpy().tolist() == [5.0]


def test_graph_inspection():
    @tf.function
    def f(x, y):
        return x * y + 1

    g = f.get_concrete_function(tf.constant(1), tf.constant(2)).graph
    names = [op.name for op in g.get_operations()]
    assert names[:2] == ["x", "y"] and names[-1] == "Identity"
    assert repr(g.get_operations()[0]) == "<tf.Operation 'x' type=Placeholder>"
    assert g.get_operation_by_name("mul").type == "Mul"
    assert str(g.get_tensor_by_name("mul:0")) == 'Tensor("mul:0", shape=(), dtype=int32)'
    nodes = g.as_graph_def().node
    mul = [n for n in nodes if n.name == "mul"][0]
    assert mul.op == "Mul" and list(mul.input) == ["x", "y"]


def test_generated_source_is_readable_and_registered_with_linecache():
    @tf.function
    def f(x):
        y = x * 2.0
        return tf.square(y)

    cf = f.get_concrete_function(tf.constant([1.0]))
    source = cf.generated_source()
    assert "k_Mul(" in source and "k_Square(" in source
    assert "y = x * 2.0" in source  # each line names the user line that created the op
    filename = cf._compiled.filename
    assert "".join(linecache.getlines(filename)) == source


def test_runtime_failure_names_the_node():
    @tf.function
    def f(x):
        return tf.reshape(x, [3])

    cf = f.get_concrete_function(tf.TensorSpec([None], tf.float32))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"node Reshape"):
        cf(tf.constant([1.0, 2.0]))


def test_nested_function_calls_are_inlined():
    @tf.function
    def inner(a):
        return a * 3

    @tf.function
    def outer(a):
        return inner(a) + inner(a + 1)

    cf = outer.get_concrete_function(tf.constant([1]))
    assert cf(tf.constant([2])).numpy().tolist() == [15]
    assert "StatefulPartitionedCall" in [op.type for op in cf.graph.get_operations()]
    assert "PartitionedCall" not in cf.generated_source() and cf.generated_source().count("k_Mul(") == 2


def test_pruning_drops_dead_ops_but_keeps_stateful_ones(capfd):
    @tf.function
    def f(x):
        unused = x * 100  # noqa: F841
        tf.print("side effect")
        return x + 1

    cf = f.get_concrete_function(tf.constant(1))
    assert "k_Mul" not in cf.generated_source()
    cf(tf.constant(1))
    assert "side effect" in capfd.readouterr().err
