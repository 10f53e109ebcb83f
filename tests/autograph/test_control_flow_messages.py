"""AutoGraph's control-flow errors read as TensorFlow 2.21 writes them (texts recorded from TensorFlow
running the same functions)."""
import inspect

import pytest

import tensorflux as tf

CONSISTENCY_LINK = ("\n    See https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/g3doc/"
                    "reference/limitations.md#consistency-of-control-flow-types for more info.\n")


def line_of(fn, text):
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


def test_python_while_whose_condition_becomes_a_tensor_links_the_limitations():
    @tf.function
    def count():
        i = 0
        while i < 10:
            i = tf.constant(i) + 1
        return i

    with pytest.raises(NotImplementedError) as info:
        count()
    assert str(info.value).endswith("In both cases, changing to a TF loop should remove the error." + CONSISTENCY_LINK)


def test_tensor_break_in_python_for_links_the_limitations():
    @tf.function
    def stop_early():
        for i in range(3):
            if i > tf.constant(0):
                break

    with pytest.raises(NotImplementedError) as info:
        stop_early()
    assert str(info.value).endswith("Did you intend to make it a TF loop?" + CONSISTENCY_LINK)


def test_returning_a_name_one_branch_left_undefined_is_framed_at_the_if():
    @tf.function
    def one_branch(x):
        if x > 0:
            y = 1
        return y

    with pytest.raises(ValueError) as info:
        one_branch(tf.constant(1))
    line = line_of(one_branch, "if x > 0:")
    assert str(info.value) == (
        "in user code:\n\n"
        f'    File "{__file__}", line {line}, in one_branch  *\n'
        "        if x > 0:\n\n"
        "    ValueError: 'y' must also be initialized in the else branch\n")
