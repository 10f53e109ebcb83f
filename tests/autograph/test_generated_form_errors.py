"""Errors raised while tracing a function that calls a debugger (which runs TensorFlow's generated form
from a temporary file) are framed "in user code" at the user's own file and lines, as TensorFlow 2.21 frames
them (recorded from TensorFlow)."""
import pytest

import tensorflux as tf


class _QuietDebugger:
    """Stands for the `pdb` module: AutoGraph recognises `pdb.set_trace()` by name."""

    @staticmethod
    def set_trace():
        pass


pdb = _QuietDebugger()


def report(x):
    pdb.set_trace()
    y = x + 1
    if y > 0:
        y = tf.constant("a") + y
    return y


def test_errors_of_a_function_that_calls_a_debugger_show_the_users_lines():
    with pytest.raises(TypeError) as info:
        tf.function(report)(tf.constant(1))
    line = report.__code__.co_firstlineno + 4
    assert str(info.value) == (
        "in user code:\n\n"
        f'    File "{__file__}", line {line}, in report  *\n'
        '        y = tf.constant("a") + y\n\n'
        "    TypeError: Input 'y' of 'Add' Op has type int32 that does not match type string of argument 'x'.\n")
