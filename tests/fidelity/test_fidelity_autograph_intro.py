"""Fidelity: AutoGraph reference, "Introduction" (tensorflow/python/autograph/g3doc/reference/intro.md),
differential against TensorFlow 2.21.

Each `ex_*` function is an adapted example of the document; its test compares what tensorflux prints or
raises with what the same function printed or raised under TensorFlow 2.21 (recorded literals).

Adaptations: the document's `tf.TensorArray(...)` placeholder is completed as a dynamically sized int32
TensorArray, and its `experimental_autograph_options=` argument is spelled as TensorFlow 2.21's
`tf.autograph.to_graph` names it, `experimental_optional_features=`. The "Subset of Eager" results
(`[1, 2, 3]`, `<<error>>`) are the document's sketches; the tests record what TensorFlow 2.21 returns.

Left out: nothing runnable.
"""
import pytest

import tensorflux as tf
from fidelity._fidelity_autograph import class_names, error_of, output_of


def magnitude(x):
    if x > 0:
        return x
    return -x


# --- Terminology ---------------------------------------------------------------------------------------

def ex_to_graph_then_function_without_autograph():
    converted = tf.autograph.to_graph(magnitude)
    graph_fn = tf.function(autograph=False)(converted)
    print(graph_fn(tf.constant(-3)).numpy(), graph_fn(tf.constant(4)).numpy())


# --- Python semantics ----------------------------------------------------------------------------------

def ex_converted_function_same_result_on_python_values():
    converted = tf.autograph.to_graph(magnitude)
    print(magnitude(3), converted(3), magnitude(-2), converted(-2))


# --- TensorFlow Eager semantics ------------------------------------------------------------------------

def ex_eager_call_with_tensor():
    print(repr(magnitude(tf.constant(3))))


def ex_graph_without_autograph_rejects_tensor_if():
    unconverted = tf.function(magnitude, autograph=False)
    unconverted(tf.constant(3))


def ex_graph_with_autograph_accepts_tensor_if():
    converted = tf.function(magnitude, autograph=True)
    print(repr(converted(tf.constant(3))))
    print(repr(converted(tf.constant(-5))))


# --- Subset of Eager -----------------------------------------------------------------------------------

def collect(n):
    items = []
    for i in tf.range(n):
        items.append(i)
    return items


def ex_list_append_eagerly():
    print(collect(3))


def ex_list_append_converted_called_eagerly():
    converted = tf.autograph.to_graph(collect)
    print(converted(3))


def ex_list_append_converted_in_graph():
    tf.function(collect)(3)


# --- Experimental features -----------------------------------------------------------------------------

def collect_into_array(n):
    items = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
    for i in tf.range(n):
        items.append(i)
    return items


def ex_tensor_array_append_without_lists_feature():
    converted = tf.autograph.to_graph(collect_into_array)
    converted(3)


def ex_tensor_array_append_with_lists_feature():
    converted = tf.autograph.to_graph(
        collect_into_array, experimental_optional_features=tf.autograph.experimental.Feature.LISTS)
    result = converted(3)
    print(result.stack().numpy())


# === Tests: TensorFlow 2.21 output as the expected value ===============================================

def test_to_graph_then_function_without_autograph():
    assert output_of(ex_to_graph_then_function_without_autograph) == '3 4\n'


def test_converted_function_same_result_on_python_values():
    assert output_of(ex_converted_function_same_result_on_python_values) == '3 3 2 2\n'


def test_eager_call_with_tensor():
    assert output_of(ex_eager_call_with_tensor) == '<tf.Tensor: shape=(), dtype=int32, numpy=3>\n'


def test_graph_without_autograph_rejects_tensor_if():
    _, error = error_of(ex_graph_without_autograph_rejects_tensor_if)
    assert class_names(error)[:2] == ['OperatorNotAllowedInGraphError', 'TypeError']
    assert str(error).startswith('Using a symbolic `tf.Tensor` as a Python `bool` is not allowed.')


def test_graph_with_autograph_accepts_tensor_if():
    assert output_of(ex_graph_with_autograph_accepts_tensor_if) == (
        '<tf.Tensor: shape=(), dtype=int32, numpy=3>\n'
        '<tf.Tensor: shape=(), dtype=int32, numpy=5>\n'
    )


THREE_EAGER_TENSORS = ('[<tf.Tensor: shape=(), dtype=int32, numpy=0>, <tf.Tensor: shape=(), dtype=int32, numpy=1>, '
                       '<tf.Tensor: shape=(), dtype=int32, numpy=2>]\n')


def test_list_append_eagerly():
    assert output_of(ex_list_append_eagerly) == THREE_EAGER_TENSORS


def test_list_append_converted_called_eagerly():
    assert output_of(ex_list_append_converted_called_eagerly) == THREE_EAGER_TENSORS


def test_list_append_converted_in_graph():
    _, error = error_of(ex_list_append_converted_in_graph)
    assert class_names(error)[:2] == ['InaccessibleTensorError', 'ValueError']
    assert 'is out of scope and cannot be used here.' in str(error)


def test_tensor_array_append_without_lists_feature():
    _, error = error_of(ex_tensor_array_append_without_lists_feature)
    assert class_names(error)[:2] == ['AttributeError', 'Exception']
    assert "'TensorArray' object has no attribute 'append'" in str(error)


def test_tensor_array_append_with_lists_feature():
    assert output_of(ex_tensor_array_append_with_lists_feature) == '[0 1 2]\n'
