"""Fidelity: AutoGraph reference, "Error handling" (tensorflow/python/autograph/g3doc/reference/
error_handling.md), differential against TensorFlow 2.21.

Each `ex_*` function is an adapted example of the document; its test compares what tensorflux prints or
raises with what the same function printed or raised under TensorFlow 2.21 (recorded literals). The
document says the exact appearance of error messages may change, so the tests check the parts it
describes: the exception class, the original message, and the reference to the user's source line
with the `*` mark of converted code.

Adaptations: `tf.random.uniform(()) > 1.0` (always false) is kept; the statements the document makes
without code (an exception caught inside the `tf.function` is the original one; exception types with
a custom constructor are re-raised as `StagingError`; code reached but not converted is marked `**`) get
a small example each.

Left out: the documented tracebacks themselves (they list TensorFlow-internal frames and file names).
"""
import inspect

import tensorflux as tf
from fidelity._fidelity_autograph import class_names, error_of, output_of


# --- Python execution errors ---------------------------------------------------------------------------

def ex_mixed_dtype_add_at_tracing():
    @tf.function
    def add_mixed():
        tf.constant(1) + tf.constant(1.0)

    add_mixed()


def ex_exception_caught_inside_function_is_original():
    @tf.function
    def add_mixed():
        try:
            tf.constant(1) + tf.constant(1.0)
        except Exception as e:  # noqa: BLE001 - the example looks at what is caught
            print('caught', [k.__name__ for k in type(e).__mro__][:2])
            print(str(e).splitlines()[0])

    add_mixed()


class PlainError(Exception):
    pass


class CodedError(Exception):
    def __init__(self, code, detail):
        super().__init__(f'code {code}: {detail}')
        self.code = code


def ex_plain_exception_keeps_its_type():
    @tf.function
    def fail(x):
        if x > 0:
            raise PlainError('went wrong')
        return x

    fail(1)


def ex_exception_with_custom_constructor():
    @tf.function
    def fail(x):
        if x > 0:
            raise CodedError(7, 'went wrong')
        return x

    fail(1)


class NonNegative:
    def __init__(self, x):
        if x < 0:
            x = -x
        self.value = x


def ex_unconverted_constructor_frame_marked():
    @tf.function
    def build(x):
        return NonNegative(x).value

    build(tf.constant(-1))


# --- TensorFlow execution errors -----------------------------------------------------------------------

def ex_assert_fails_at_execution():
    @tf.function
    def check():
        tf.Assert(tf.random.uniform(()) > 1.0, ['example error'])

    check()


# --- AutoGraph conversion exceptions -------------------------------------------------------------------

def sample_generator():
    yield 1


def ex_generator_called_unconverted():
    @tf.function
    def use_generator():
        for item in sample_generator():
            print(item)

    use_generator()
    use_generator()


# === Tests: TensorFlow 2.21 output as the expected value ===============================================

def line_of(function, text):
    """The line number, in this file, of the line of `function` containing `text`."""
    lines, first = inspect.getsourcelines(function)
    return first + next(i for i, line in enumerate(lines) if text in line)


def user_code_frame(function, text, name, mark='*'):
    """The frame TensorFlow's message shows for user code: marked `*` when converted, `**` when AutoGraph
    reached it but did not convert it."""
    return f'    File "{__file__}", line {line_of(function, text)}, in {name}  {mark}\n        {text}\n'


ADD_MISMATCH = "Input 'y' of 'AddV2' Op has type float32 that does not match type int32 of argument 'x'."


def test_mixed_dtype_add_at_tracing():
    _, error = error_of(ex_mixed_dtype_add_at_tracing)
    assert class_names(error)[:2] == ['TypeError', 'Exception']
    assert ADD_MISMATCH in str(error)


def test_mixed_dtype_add_message_references_user_code():
    _, error = error_of(ex_mixed_dtype_add_at_tracing)
    assert str(error) == (
        'in user code:\n'
        '\n'
        + user_code_frame(ex_mixed_dtype_add_at_tracing, 'tf.constant(1) + tf.constant(1.0)', 'add_mixed')
        + '\n'
        f'    TypeError: {ADD_MISMATCH}\n'
    )


def test_exception_caught_inside_function_is_original():
    assert output_of(ex_exception_caught_inside_function_is_original) == (
        "caught ['TypeError', 'Exception']\n"
        f"{ADD_MISMATCH}\n"
    )


def test_plain_exception_keeps_its_type():
    _, error = error_of(ex_plain_exception_keeps_its_type)
    assert class_names(error)[:2] == ['PlainError', 'Exception']
    assert 'went wrong' in str(error)


def test_plain_exception_message_references_user_code():
    _, error = error_of(ex_plain_exception_keeps_its_type)
    assert str(error) == (
        'in user code:\n'
        '\n'
        + user_code_frame(ex_plain_exception_keeps_its_type, "raise PlainError('went wrong')", 'fail')
        + '\n'
        '    PlainError: went wrong\n'
    )


def test_exception_with_custom_constructor():
    _, error = error_of(ex_exception_with_custom_constructor)
    assert class_names(error)[:3] == ['StagingError', 'AutoGraphError', 'PyCTError']
    assert str(error) == (
        'in user code:\n'
        '\n'
        + user_code_frame(ex_exception_with_custom_constructor, "raise CodedError(7, 'went wrong')", 'fail')
        + '\n'
        '    CodedError: code 7: went wrong\n'
    )


BOOL_NOT_ALLOWED = (
    'Using a symbolic `tf.Tensor` as a Python `bool` is not allowed. You can attempt the following resolutions to the '
    'problem: If you are running in Graph mode, use Eager execution mode or decorate this function with @tf.function. '
    'If you are using AutoGraph, you can try decorating this function with @tf.function. If that does not work, then '
    'you may be using an unsupported feature or your source code may not be visible to AutoGraph. See '
    'https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/g3doc/reference/'
    'limitations.md#access-to-source-code for more information.')


def test_unconverted_constructor_error():
    _, error = error_of(ex_unconverted_constructor_frame_marked)
    assert class_names(error)[:2] == ['OperatorNotAllowedInGraphError', 'TypeError']
    assert BOOL_NOT_ALLOWED in str(error)


def test_unconverted_constructor_frame_marked():
    _, error = error_of(ex_unconverted_constructor_frame_marked)
    assert str(error) == (
        'in user code:\n'
        '\n'
        + user_code_frame(ex_unconverted_constructor_frame_marked, 'return NonNegative(x).value', 'build')
        + user_code_frame(NonNegative.__init__, 'if x < 0:', '__init__', '**')
        + '\n'
        f'    OperatorNotAllowedInGraphError: {BOOL_NOT_ALLOWED}\n'
    )


def test_assert_fails_at_execution():
    _, error = error_of(ex_assert_fails_at_execution)
    assert class_names(error)[:2] == ['InvalidArgumentError', 'OpError']
    assert 'assertion failed: [example error]' in str(error)


def test_assert_error_references_user_code():
    _, error = error_of(ex_assert_fails_at_execution)
    message = str(error)
    assert message.startswith('Graph execution error:\n\nDetected at node Assert/Assert defined at (most recent '
                              'call last):\n')
    line = line_of(ex_assert_fails_at_execution, "tf.Assert(")
    assert f'  File "{__file__}", line {line}, in check\n\nassertion failed: [example error]\n' in message
    assert '\t [[{{node Assert/Assert}}]] [Op:__inference_check_' in message


def test_generator_called_unconverted():
    assert output_of(ex_generator_called_unconverted) == '1\n'
