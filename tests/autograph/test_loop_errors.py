"""Loops and returns AutoGraph cannot stage fail with TensorFlow's errors instead of hanging or returning
a wrong value: a Python `while` whose condition turns into a tensor, a tensor `break` in a Python loop, a
`return` in only one branch of a tensor `if`, and a `return` inside a tensor loop."""
import pytest

import tensorflux as tf


def test_python_while_whose_condition_becomes_a_tensor_fails_instead_of_hanging():
    @tf.function
    def f(x):
        keep = True
        while keep:
            keep = x > 0   # a tensor from the second test on
            x -= 1
        return x

    with pytest.raises(NotImplementedError, match="started as non-Tensor, then changed to Tensor"):
        f(tf.constant(3))


def test_tensor_break_in_python_while_true():
    @tf.function
    def countdown(x):
        while True:
            if tf.equal(x, 0):
                break
            x -= 1
        return x

    with pytest.raises(NotImplementedError, match="started as non-Tensor, then changed to Tensor"):
        countdown(5)


def test_tensor_break_in_python_for():
    @tf.function
    def f(x):
        for _ in [1, 2, 3]:
            if x > 0:
                break
            x += 1
        return x

    with pytest.raises(NotImplementedError, match="not supported in Python for loops. Did you intend to make it a "
                                                  "TF loop"):
        f(tf.constant(0))


def test_python_while_on_python_values_still_runs_as_python():
    @tf.function
    def f(x):
        i = 0
        while i < 3:
            x = x * 2
            i += 1
        return x

    assert f(tf.constant(1)).numpy() == 8


def test_return_in_one_branch_of_a_tensor_if():
    @tf.function
    def maybe_one(draw):
        if draw > 0.5:
            return 1

    with pytest.raises(ValueError, match="the else branch must also have a return statement") as info:
        maybe_one(tf.constant(0.7))
    assert "retval" not in str(info.value)


def test_return_inside_a_tensor_loop():
    @tf.function
    def first_above_three(i):
        while i < 10:
            if i > 3:
                return 1
            i += 1
        return 0

    with pytest.raises(NotImplementedError, match="a return statement cannot be placed inside this TensorFlow "
                                                  "loop") as info:
        first_above_three(tf.constant(0))
    assert "retval" not in str(info.value)


def test_return_in_both_branches_of_a_tensor_if_works():
    def sign(x):
        if x > 0:
            return tf.constant(1)
        else:
            return tf.constant(-1)

    assert tf.function(sign)(tf.constant(4)).numpy() == 1
    assert tf.function(sign)(tf.constant(-4)).numpy() == -1


def test_conditional_expression_branches_must_agree_in_dtype():
    def pick(cond, a, b):
        return a if cond else b

    with pytest.raises(TypeError, match="'cond' has dtype int32 in the main branch, but dtype float32 in the else "
                                        "branch"):
        tf.function(pick)(tf.constant(True), tf.constant(1), tf.constant(2.0))
    assert tf.function(pick)(tf.constant(False), tf.constant(1), tf.constant(2)).numpy() == 2
