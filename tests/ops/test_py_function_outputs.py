"""tf.py_function with an empty Tout runs for its effect: eagerly it returns [] (TensorFlow 2.21 prints
`[]`), inside a graph the Operation itself, and the callback runs on every call."""
import tensorflux as tf
from tensorflux._src.framework.graph import Operation


def test_no_outputs_eagerly_returns_empty_list():
    calls = []
    assert tf.py_function(lambda: calls.append(1), [], ()) == []
    assert tf.py_function(lambda: calls.append(1), [], []) == []
    assert calls == [1, 1]


def test_no_outputs_in_a_graph_returns_the_operation_and_runs_each_call():
    calls = []
    seen = []

    @tf.function
    def f(x):
        seen.append(type(tf.py_function(lambda: calls.append(1), [], ())))
        return x + 1

    f(tf.constant(1.0))
    f(tf.constant(2.0))
    assert seen == [Operation]
    assert calls == [1, 1]


def test_no_outputs_inside_dataset_map():
    calls = []

    def fn(x):
        tf.py_function(lambda: calls.append(1), [], ())
        return x

    out = [int(v) for v in tf.data.Dataset.range(3).map(fn)]
    assert out == [0, 1, 2] and calls == [1, 1, 1]
