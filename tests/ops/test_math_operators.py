"""Tensor's Python operators: results, dtype rules, TensorFlow's node names, `==` semantics."""
import numpy as np
import pytest

import tensorflux as tf


def test_arithmetic_operators_and_reflections():
    x = tf.constant([6, 7])
    assert (x + 1).numpy().tolist() == [7, 8] and (1 + x).numpy().tolist() == [7, 8]
    assert (x - 1).numpy().tolist() == [5, 6] and (10 - x).numpy().tolist() == [4, 3]
    assert (x * 2).numpy().tolist() == [12, 14] and (2 * x).numpy().tolist() == [12, 14]
    assert (x // 4).numpy().tolist() == [1, 1] and (7 // tf.constant(2)).numpy() == 3
    assert (x % 4).numpy().tolist() == [2, 3] and (7 % tf.constant(2)).numpy() == 1
    assert (x ** 2).numpy().tolist() == [36, 49] and (2 ** tf.constant(3)).numpy() == 8
    assert (-x).numpy().tolist() == [-6, -7]
    assert abs(tf.constant([-6, 7])).numpy().tolist() == [6, 7]
    assert (2.0 ** tf.constant(3.0)).numpy() == 8.0


def test_true_division_operator():
    r = tf.constant(5) / 2
    assert r.dtype is tf.float64 and r.numpy() == 2.5
    r = 7 / tf.constant(2)
    assert r.dtype is tf.float64 and r.numpy() == 3.5
    r = tf.constant(5, tf.int8) / 2
    assert r.dtype is tf.float32
    assert (tf.constant(1j) / 2j).numpy() == 0.5
    with pytest.raises(TypeError, match="Invalid dtype tf.string in __truediv__"):
        tf.constant("a") / "b"


def test_unary_plus_is_not_defined():
    with pytest.raises(TypeError):
        +tf.constant(1)  # noqa: B018 - TensorFlow tensors have no unary plus either


def test_operator_scalars_must_convert_to_the_tensor_dtype():
    with pytest.raises(TypeError, match="Cannot convert 1.5 to EagerTensor of dtype int32"):
        tf.constant(1) * 1.5
    with pytest.raises(TypeError, match="Cannot convert 'a' to EagerTensor of dtype int32"):
        tf.constant(1) == "a"  # noqa: B015
    assert (tf.constant(1.0) + np.float64(1.5)).dtype is tf.float32
    assert (tf.constant([1.0]) + np.array([1, 2])).numpy().tolist() == [2.0, 3.0]
    assert (tf.constant(2, tf.int64) * 3).dtype is tf.int64
    assert (tf.constant(2.0, tf.float16) * 3).dtype is tf.float16
    assert (tf.constant(2.0, tf.bfloat16) * 3).dtype is tf.bfloat16
    assert (tf.constant(2, tf.int8) + 3).dtype is tf.int8
    r = np.float64(2) * tf.constant(1.0)
    assert isinstance(r, tf.Tensor) and r.dtype is tf.float32


def test_comparison_operators():
    x = tf.constant([1, 2, 3])
    assert (x < 2).numpy().tolist() == [True, False, False]
    assert (x <= 2).numpy().tolist() == [True, True, False]
    assert (x > 2).numpy().tolist() == [False, False, True]
    assert (x >= 2).numpy().tolist() == [False, True, True]
    assert (np.array([2, 2, 2], np.int32) < x).numpy().tolist() == [False, False, True]


def test_equality_operators():
    x = tf.constant([1, 2])
    assert (x == [1, 3]).numpy().tolist() == [True, False]
    assert (x != [1, 3]).numpy().tolist() == [False, True]
    assert (x == None) is False  # noqa: E711 - TensorFlow's rule for None
    assert (x != None) is True  # noqa: E711
    r = x == tf.constant([1, 2, 3])  # incompatible shapes compare as "not equal"
    assert r.dtype is tf.bool and r.shape.rank == 0 and not r.numpy()
    assert (x != tf.constant([1, 2, 3])).numpy()
    assert (tf.constant("a") == "a").numpy()
    with pytest.raises(tf.errors.InvalidArgumentError, match="cannot compute Equal"):
        tf.constant(1) == tf.constant(1.0)  # noqa: B015
    with pytest.raises(TypeError, match="unhashable"):
        hash(x)


def test_bitwise_and_logical_operators():
    t, f = tf.constant(True), tf.constant(False)
    assert (~t).numpy() is np.False_ or not (~t).numpy()
    assert not (t & f).numpy() and (t | f).numpy() and (t ^ f).numpy() and not (t ^ True).numpy()
    assert not (True & f).numpy() and (False | t).numpy() and (True ^ f).numpy()
    i = tf.constant(6)
    assert (~i).numpy() == -7 and (i & 3).numpy() == 2 and (i | 3).numpy() == 7 and (i ^ 3).numpy() == 5
    assert (3 ^ tf.constant(5)).numpy() == 6 and (3 & i).numpy() == 2 and (1 | i).numpy() == 7
    with pytest.raises(tf.errors.InvalidArgumentError, match="Invert"):
        ~tf.constant(1.0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="BitwiseAnd"):
        tf.constant(1.0) & tf.constant(1.0)
    with pytest.raises(TypeError):
        tf.constant(6) << 3


def test_matmul_operator():
    a = tf.constant([[1.0, 2.0]])
    assert (a @ tf.constant([[3.0], [4.0]])).numpy().tolist() == [[11.0]]
    r = np.ones([1, 1], np.float32) @ tf.constant([[2.0]])
    assert isinstance(r, tf.Tensor) and r.numpy().tolist() == [[2.0]]


def _graph_ops(fn, *specs):
    concrete = tf.function(fn).get_concrete_function(*specs)
    return [(op.name, op.type) for op in concrete.graph.get_operations()
            if op.type not in ("Placeholder", "Identity", "Const")]


def test_operator_node_names_match_tensorflow():
    def f(x, y):
        return x + y, x - y, x * y, x / y, x // y, x % y, x ** y, -x, abs(x), x < y, x <= y, x > y, x >= y, \
            x == y, x != y

    spec = tf.TensorSpec([], tf.float32)
    assert _graph_ops(f, spec, spec) == [
        ("add", "AddV2"), ("sub", "Sub"), ("mul", "Mul"), ("truediv", "RealDiv"), ("floordiv", "FloorDiv"),
        ("mod", "FloorMod"), ("pow", "Pow"), ("Neg", "Neg"), ("Abs", "Abs"), ("Less", "Less"),
        ("LessEqual", "LessEqual"), ("Greater", "Greater"), ("GreaterEqual", "GreaterEqual"), ("Equal", "Equal"),
        ("NotEqual", "NotEqual")]


def test_integer_truediv_and_logic_node_names():
    def f(x, y):
        return x / y, ~x

    spec = tf.TensorSpec([], tf.int32)
    assert _graph_ops(f, spec, spec) == [("truediv/Cast", "Cast"), ("truediv/Cast_1", "Cast"),
                                         ("truediv", "RealDiv"), ("Invert", "Invert")]

    def g(x, y):
        return x & y, x | y, ~x

    spec = tf.TensorSpec([], tf.bool)
    assert _graph_ops(g, spec, spec) == [("and", "LogicalAnd"), ("or", "LogicalOr"), ("LogicalNot", "LogicalNot")]


def test_function_default_node_names():
    def f(x, y):
        return (tf.add(x, y), tf.subtract(x, y), tf.multiply(x, y), tf.divide(x, y), tf.math.floormod(x, y),
                tf.maximum(x, y), tf.math.divide_no_nan(x, y), tf.sqrt(x), tf.cast(x, tf.int32))

    spec = tf.TensorSpec([], tf.float32)
    assert _graph_ops(f, spec, spec) == [
        ("Add", "AddV2"), ("Sub", "Sub"), ("Mul", "Mul"), ("truediv", "RealDiv"), ("FloorMod", "FloorMod"),
        ("Maximum", "Maximum"), ("div_no_nan", "DivNoNan"), ("Sqrt", "Sqrt"), ("Cast", "Cast")]


def test_graph_and_eager_agree():
    def f(x, y):
        return tf.reduce_sum(tf.sigmoid(x) * y + x // 2 - tf.math.erf(y), axis=1), tf.cumsum(x, 1, exclusive=True)

    x = np.array([[1.0, -2.0, 3.5], [0.5, 0.25, -4.0]], np.float32)
    y = np.array([0.5, -1.5, 2.0], np.float32)
    eager = f(tf.constant(x), tf.constant(y))
    graph = tf.function(f)(tf.constant(x), tf.constant(y))
    for e, g in zip(eager, graph):
        assert e.dtype is g.dtype
        np.testing.assert_allclose(e.numpy(), g.numpy(), rtol=1e-6)


def test_graph_equal_with_incompatible_shapes_is_scalar():
    def f(x, y):
        return x == y

    concrete = tf.function(f).get_concrete_function(tf.TensorSpec([2], tf.int32), tf.TensorSpec([3], tf.int32))
    out = concrete.graph.get_operations()[-1].outputs[0] if concrete.graph.get_operations()[-1].type == "Equal" \
        else [op for op in concrete.graph.get_operations() if op.type == "Equal"][0].outputs[0]
    assert out.shape.rank == 0 and out.dtype is tf.bool
