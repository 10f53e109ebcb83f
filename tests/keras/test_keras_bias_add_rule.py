"""Keras 3's TensorFlow backend adds a bias as a BiasAdd when the second operand is a bias of the first's
channels, else as an AddV2, and a layer called in a graph puts its ops in its name scope (op types and
names recorded from TensorFlow 2.21 / Keras 3.15 graphs). Known difference: Keras reads a Dense kernel
through an autocasting `Cast` scope (`dense_1/Cast/ReadVariableOp`), tensorflux in MatMul's.)"""
import numpy as np

import tensorflux as tf
from tensorflux import keras


def _op_types(f, *specs):
    graph = f.get_concrete_function(*specs).graph
    return [op.type for op in graph.get_operations() if op.type not in ("Placeholder", "Identity", "NoOp")]


def test_ops_add_picks_bias_add_by_shape():
    @tf.function
    def f(x, b, c, e):
        return keras.ops.add(x, b), keras.ops.add(x, c), keras.ops.add(x, e), keras.ops.add(b, x)

    assert _op_types(f, tf.TensorSpec([2, 3]), tf.TensorSpec([3]), tf.TensorSpec([1, 3]),
                     tf.TensorSpec([2, 1])) == ["BiasAdd", "Squeeze", "BiasAdd", "AddV2", "AddV2"]
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert keras.ops.add(x, np.ones(3, np.float32)).numpy().tolist() == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]


def test_dense_of_one_unit_adds_its_bias_with_add():
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(2, activation="relu"), keras.layers.Dense(1)])

    @tf.function
    def f(x):
        return model(x)

    assert [t for t in _op_types(f, tf.TensorSpec([2, 4])) if t != "ReadVariableOp"] == [
        "MatMul", "BiasAdd", "Relu", "MatMul", "AddV2"]


def test_conv_bias_is_a_bias_add():
    conv = keras.layers.Conv2D(2, 3)
    conv.build((None, 5, 5, 1))

    @tf.function
    def f(x):
        return conv(x)

    assert "BiasAdd" in _op_types(f, tf.TensorSpec([1, 5, 5, 1]))


def test_layer_calls_in_a_graph_sit_in_keras_name_scopes():
    dense = keras.layers.Dense(3, name="dense")
    dense.build((None, 4))

    @tf.function
    def f(x):
        with tf.name_scope("outer"):
            a = dense(x)
        b = dense(x)
        c = dense(x)
        return a, b, c

    graph = f.get_concrete_function(tf.TensorSpec([2, 4])).graph
    names = [op.name for op in graph.get_operations() if op.type in ("MatMul", "BiasAdd")]
    assert names == ["outer/dense_1/MatMul", "outer/dense_1/BiasAdd", "dense_1/MatMul", "dense_1/BiasAdd",
                     "dense_3/MatMul", "dense_3/BiasAdd"]


def test_a_sequential_models_layers_nest_their_scopes():
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(2, activation="relu", name="first"),
                              keras.layers.Dense(1, name="second")], name="model")

    @tf.function
    def f(x):
        return model(x)

    graph = f.get_concrete_function(tf.TensorSpec([2, 4])).graph
    assert [op.name for op in graph.get_operations() if op.type in ("MatMul", "BiasAdd", "Relu", "AddV2")] == [
        "model_1/first_1/MatMul", "model_1/first_1/BiasAdd", "model_1/first_1/Relu", "model_1/second_1/MatMul",
        "model_1/second_1/Add"]
