"""What a tensor `if` does with the Python values its branches leave in a symbol used after it, as
TensorFlow 2.21 does (outputs recorded by running the same functions there): strings and numbers are staged
as tensors, None and objects that cannot become tensors are rejected with TensorFlow's errors, an empty list
stays a Python value."""
import re

import pytest

import tensorflux as tf


class _Thing:
    pass


_THING = _Thing()


def _message(excinfo):
    return re.sub(r"0x[0-9a-f]+", "0x?", str(excinfo.value))


def test_equal_and_different_strings_are_staged_as_string_tensors():
    seen = []

    @tf.function
    def different(c):
        if c > 0:
            x = "a"
        else:
            x = "b"
        seen.append(type(x).__name__)
        return x

    @tf.function
    def same(c):
        if c > 0:
            x = "a"
        else:
            x = "a"
        seen.append(type(x).__name__)
        return x

    assert different(tf.constant(1)).numpy() == b"a"
    assert same(tf.constant(1)).numpy() == b"a"
    assert seen == ["SymbolicTensor", "SymbolicTensor"]


def test_a_list_mixing_numbers_and_strings_becomes_tensors():
    seen = []

    @tf.function
    def f(c):
        if c > 0:
            x = [1, "q"]
        else:
            x = [1, "q"]
        seen.append([(t.name, t.dtype.name) for t in x])
        return 1

    f(tf.constant(1))
    assert seen == [[("cond/Identity:0", "int32"), ("cond/Identity_1:0", "string")]]


@pytest.mark.parametrize("value, type_name", [(_THING, "_Thing"), (len, "builtin_function_or_method")])
def test_values_that_cannot_become_tensors_are_rejected(value, type_name):
    @tf.function
    def f(c):
        if c > 0:
            x = value
        else:
            x = value
        print(type(x).__name__)
        return 1

    with pytest.raises(TypeError) as excinfo:
        f(tf.constant(1))
    assert ("To be compatible with tf.function, Python functions must return zero or more Tensors or "
            "ExtensionTypes or None values; in compilation of <function _tf_if_stmt.<locals>.aug_body at 0x?>, "
            f"found return value of type {type_name}, which is not a Tensor or ExtensionType.") in _message(excinfo)


def test_an_unused_object_symbol_is_not_an_output():
    @tf.function
    def f(c):
        if c > 0:
            x = _THING
        else:
            x = _THING
        return tf.constant(1)

    assert f(tf.constant(1)).numpy() == 1


def test_none_in_both_branches_is_rejected():
    @tf.function
    def f(c):
        if c > 0:
            x = None
        else:
            x = None
        print(x)
        return 1

    with pytest.raises(ValueError, match="'x' is None at the end of the main branch."):
        f(tf.constant(1))


def test_an_empty_list_stays_python():
    seen = []

    @tf.function
    def f(c):
        if c > 0:
            x = []
        else:
            x = []
        seen.append(x)
        return 1

    f(tf.constant(1))
    assert seen == [[]]


def test_a_number_and_a_string_differ_in_dtype():
    @tf.function
    def f(c):
        if c > 0:
            x = 1
        else:
            x = "b"
        return x

    with pytest.raises(TypeError, match="'x' has dtype int32 in the main branch, but dtype string in the else "
                                        "branch"):
        f(tf.constant(1))
