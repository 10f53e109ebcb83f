"""Fidelity: AutoGraph reference, "Functions and function calls" (tensorflow/python/autograph/g3doc/
reference/functions.md), differential against TensorFlow 2.21.

Each `ex_*` function is an adapted example of the document; its test compares what tensorflux prints or
raises with what the same function printed or raised under TensorFlow 2.21 (recorded literals). For
`tf.autograph.to_code` the expected value is TensorFlow's generated code, character for character.

Adaptations: the document shows one call (`f(x, y, z=1)`) and its rewritten form; the conversion rules
it lists without code (called functions converted recursively, builtins and `print` forwarded,
constructors, generator functions, iterator-protocol and context-manager methods left unconverted,
nested functions converted with their parent) each get a small function whose behaviour shows whether
AutoGraph converted it: a tensor-dependent `if` works only in converted code.

Left out: "functions without source attached" (exercised in test_fidelity_autograph_limitations.py).
"""
import pytest

import tensorflux as tf
from fidelity._fidelity_autograph import canonical_code, class_names, error_of, output_of

OPTIONS = ("ag__.ConversionOptions(recursive=True, user_requested=True, optional_features=(), "
           "internal_convert_user_code=True)")


def combine(x, y, z=0):
    return x + y + z


# --- Function calls ------------------------------------------------------------------------------------

def ex_call_rewritten_as_converted_call():
    def caller(x, y):
        return combine(x, y, z=1)

    print(tf.autograph.to_code(caller))


def ex_call_result_unchanged():
    def caller(x, y):
        return combine(x, y, z=1)

    print(caller(1, 2), tf.autograph.to_graph(caller)(1, 2), tf.function(caller)(1, 2).numpy())


def absolute(x):
    if x < 0:
        x = -x
    return x


def ex_called_function_converted_recursively():
    @tf.function
    def outer(x):
        return absolute(x) + 1

    print(outer(tf.constant(-4)).numpy())


def ex_builtins_and_print_forwarded():
    @tf.function
    def outer(x):
        print('tracing with', len([1, 2, 3]), abs(-2), max(4, 5))
        return x + len([1, 2, 3])

    print(outer(tf.constant(1)).numpy())


# --- Function conversion rules: what is not converted --------------------------------------------------

class Clipped:
    def __init__(self, x):
        if x < 0:
            x = tf.zeros_like(x)
        self.value = x


def ex_constructor_not_converted():
    @tf.function
    def build(x):
        return Clipped(x).value

    build(tf.constant(-1))


def tensor_generator(x):
    if x > 0:
        yield x
    yield -x


def ex_generator_function_not_converted():
    @tf.function
    def consume(x):
        return tf.add_n(list(tensor_generator(x)))

    consume(tf.constant(3))


class Countdown:
    def __init__(self, start):
        self.current = start

    def __iter__(self):
        return self

    def __next__(self):
        if self.current <= 0:
            raise StopIteration
        self.current -= 1
        return self.current


def ex_iterator_protocol_not_converted():
    @tf.function
    def drain(x):
        total = 0
        for value in Countdown(x):
            total += value
        return total

    drain(tf.constant(3))


class Guard:
    def __init__(self, x):
        self.x = x

    def __enter__(self):
        if self.x > 0:
            tf.print('positive')
        return self

    def __exit__(self, *exc):
        return False


def ex_context_manager_methods_not_converted():
    @tf.function
    def guarded(x):
        with Guard(x):
            return x + 1

    guarded(tf.constant(2))


# --- Nested functions ----------------------------------------------------------------------------------

def make_absolute():
    def inner(x):
        if x < 0:
            x = -x
        return x
    return inner


def ex_nested_function_returned_converted():
    inner = tf.autograph.to_graph(make_absolute)()
    graph_fn = tf.function(inner, autograph=False)
    print(graph_fn(tf.constant(-3)).numpy(), graph_fn(tf.constant(5)).numpy())


def ex_nested_function_used_inside_tf_function():
    @tf.function
    def outer(x):
        def helper(v):
            if v < 0:
                v = -v
            return v
        return helper(x) * 10

    print(outer(tf.constant(-2)).numpy())


# === Tests: TensorFlow 2.21 output as the expected value ===============================================

BOOL_NOT_ALLOWED = (
    'Using a symbolic `tf.Tensor` as a Python `bool` is not allowed. You can attempt the following resolutions to the '
    'problem: If you are running in Graph mode, use Eager execution mode or decorate this function with @tf.function. '
    'If you are using AutoGraph, you can try decorating this function with @tf.function. If that does not work, then '
    'you may be using an unsupported feature or your source code may not be visible to AutoGraph. See '
    'https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/g3doc/reference/'
    'limitations.md#access-to-source-code for more information.')


def test_call_rewritten_as_converted_call():
    assert canonical_code(output_of(ex_call_rewritten_as_converted_call)) == canonical_code(
        'def tf__caller(x, y):\n'
        f"    with ag__.FunctionScope('caller', 'fscope', {OPTIONS}) as fscope:\n"
        '        do_return = False\n'
        '        retval_ = ag__.UndefinedReturnValue()\n'
        '        try:\n'
        '            do_return = True\n'
        '            retval_ = ag__.converted_call(ag__.ld(combine), (ag__.ld(x), ag__.ld(y)), dict(z=1), fscope)\n'
        '        except:\n'
        '            do_return = False\n'
        '            raise\n'
        '        return fscope.ret(retval_, do_return)\n'
        '\n'
    )


def test_call_result_unchanged():
    assert output_of(ex_call_result_unchanged) == '4 4 4\n'


def test_called_function_converted_recursively():
    assert output_of(ex_called_function_converted_recursively) == '5\n'


def test_builtins_and_print_forwarded():
    assert output_of(ex_builtins_and_print_forwarded) == (
        'tracing with 3 2 5\n'
        '4\n'
    )


def test_constructor_not_converted():
    _, error = error_of(ex_constructor_not_converted)
    assert class_names(error)[:2] == ['OperatorNotAllowedInGraphError', 'TypeError']
    assert BOOL_NOT_ALLOWED in str(error)


def test_generator_function_not_converted():
    _, error = error_of(ex_generator_function_not_converted)
    assert class_names(error)[:2] == ['OperatorNotAllowedInGraphError', 'TypeError']
    assert BOOL_NOT_ALLOWED in str(error)


def test_iterator_protocol_not_converted():
    _, error = error_of(ex_iterator_protocol_not_converted)
    assert class_names(error)[:2] == ['OperatorNotAllowedInGraphError', 'TypeError']
    assert BOOL_NOT_ALLOWED in str(error)


def test_context_manager_methods_not_converted():
    _, error = error_of(ex_context_manager_methods_not_converted)
    assert class_names(error)[:2] == ['OperatorNotAllowedInGraphError', 'TypeError']
    assert BOOL_NOT_ALLOWED in str(error)


def test_nested_function_returned_converted():
    assert output_of(ex_nested_function_returned_converted) == '3 5\n'


def test_nested_function_used_inside_tf_function():
    assert output_of(ex_nested_function_used_inside_tf_function) == '20\n'
