"""What AutoGraph converts, and from which source: lambdas are isolated from their whole file (a lambda
spanning lines converts whole; two of one signature on one line are left unconverted with TensorFlow's
warning), generator functions are never converted, and functions without source run as they are."""
import logging

import pytest

import tensorflux as tf


def test_multiline_lambda_is_converted_from_its_whole_source():
    scale = (
        lambda y: lambda x: x * y
        - y
    )
    assert tf.function(scale(2))(tf.constant(5)).numpy() == 8
    pick = (lambda x:
            x + 1 if x > 0
            else x - 1)
    assert tf.function(pick)(tf.constant(3)).numpy() == 4
    assert tf.function(pick)(tf.constant(-3)).numpy() == -4


def test_ambiguous_lambdas_run_unconverted_with_a_warning(caplog):
    make = lambda x: lambda x: x + 1  # noqa: E731 - two lambdas of one signature on one line
    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        assert tf.function(make(0))(tf.constant(1)).numpy() == 2
    messages = [r.getMessage() for r in caplog.records if r.name == "tensorflow"]
    assert len(messages) == 1
    assert "found multiple definitions with identical signatures" in messages[0]
    assert "Match 0:\nlambda x: lambda x: x + 1\n\nMatch 1:\nlambda x: x + 1\n" in messages[0]


def test_warning_echoed_to_stdout_with_set_verbosity(capsys):
    tf.autograph.set_verbosity(0, True)
    try:
        make = lambda x: lambda x: x * 3  # noqa: E731 - two lambdas of one signature on one line
        assert tf.function(make(0))(tf.constant(2)).numpy() == 6
    finally:
        tf.autograph.set_verbosity(0, False)
    assert capsys.readouterr().out.startswith("WARNING: AutoGraph could not transform <function ")


def tensor_generator(x):
    if x > 0:
        yield x
    yield x + 1


def test_generator_functions_are_not_converted():
    @tf.function
    def consume(x):
        return tf.add_n(list(tensor_generator(x)))

    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError):
        consume(tf.constant(3))

    def python_generator(n):
        for i in range(n):
            yield i

    @tf.function
    def unrolled(x):
        for i in python_generator(3):
            x = x + i
        return x

    assert unrolled(tf.constant(1)).numpy() == 4


def test_function_without_source_runs_unconverted_silently(caplog):
    namespace = {}
    exec("def made(x):\n    return x * 2\n", namespace)  # noqa: S102 - a function with no source file
    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        assert tf.function(namespace["made"])(tf.constant(2)).numpy() == 4
    assert not [r for r in caplog.records if r.name == "tensorflow"]


def test_not_of_an_eager_tensor_in_converted_code_is_a_tensor():
    def negate(x):
        return not x

    converted = tf.autograph.to_graph(negate)
    assert converted(False) is True
    result = converted(tf.constant(False))
    assert isinstance(result, tf.Tensor) and result.numpy()
