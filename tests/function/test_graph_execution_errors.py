"""Run-time errors of traced functions read as TensorFlow 2.21 writes them: "Graph execution error:", the
failing node, the user's frames of the trace and the node's own line, the kernel's message, then the node
and the function (the texts below were recorded from TensorFlow 2.21 running the same functions)."""
import inspect

import pytest

import tensorflux as tf


def line_of(fn, text):
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


def test_check_numerics_names_the_node_and_the_user_line():
    @tf.function
    def check2(x):
        y = x + 1
        return tf.debugging.check_numerics(y, "bad")

    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        check2(tf.constant(float("nan")))   # the call that traces
    message = str(info.value)
    call_line = line_of(test_check_numerics_names_the_node_and_the_user_line, "check2(tf.constant(float(")
    assert message.startswith("Graph execution error:\n\nDetected at node CheckNumerics defined at (most recent "
                              "call last):\n")
    assert (f'  File "{__file__}", line {call_line}, in test_check_numerics_names_the_node_and_the_user_line\n\n'
            f'  File "{__file__}", line {call_line - 3}, in check2\n\n'
            "bad : Tensor had NaN values\n\t [[{{node CheckNumerics}}]] [Op:__inference_check2_") in message
    assert "tensorflux/_src" not in message


def helper_that_asserts(x):
    tf.debugging.Assert(x > 0, ["x must be positive"])
    return x


def test_a_node_made_in_a_helper_names_the_helper():
    @tf.function
    def outer(x):
        return helper_that_asserts(x) * 2

    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        outer(tf.constant(-1))
    message = str(info.value)
    assert message.startswith("Graph execution error:\n\nDetected at node Assert/Assert defined at")
    assert (f'  File "{__file__}", line {line_of(helper_that_asserts, "Assert(")}, in helper_that_asserts\n\n'
            "assertion failed: [x must be positive]") in message
    assert float(outer(tf.constant(3))) == 6.0   # the same trace runs fine on good input
