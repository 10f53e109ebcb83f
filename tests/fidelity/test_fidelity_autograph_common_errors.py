"""Fidelity: AutoGraph reference, "Common AutoGraph errors" (tensorflow/python/autograph/g3doc/reference/
common_errors.md), differential against TensorFlow 2.21.

Each `ex_*` function is an adapted example of the document; its test compares what it prints under
tensorflux with what the same function printed under TensorFlow 2.21 (recorded literals). Where the
document's point is an error, the test checks the exception's classes and the key part of TensorFlow's
message.

Adaptations: the sections without code ("could not transform", "AutoGraph is off" causes, iterating
over a tensor) are exercised with the smallest code the text describes. The "could not transform"
warning is provoked with two nested lambdas of identical signature (a cause TensorFlow 2.21 reports),
and sent to stdout with `tf.autograph.set_verbosity(0, True)` as the document suggests.

Left out: the "InaccessibleTensorError" and "StagingError" sections have no code of their own (the
first is exercised in test_fidelity_autograph_limitations.py, the second in
test_fidelity_autograph_error_handling.py); "Unable to identify source code of lambda function" only
shows the `l = lambda <args>: <body>` pattern.
"""
import pytest

import tensorflux as tf
from fidelity._fidelity_autograph import class_names, error_of, output_of, run_script


# --- "WARNING: AutoGraph could not transform <name>" ---------------------------------------------------

def ex_could_not_transform_warning_to_stdout():
    tf.autograph.set_verbosity(0, True)
    try:
        make = lambda x: lambda x: x * 2  # noqa: E731 - two lambdas of one signature on one line
        print(tf.function(make(0))(tf.constant(4)).numpy())
    finally:
        tf.autograph.set_verbosity(0, False)


# --- "WARNING: Large unrolled loop detected" -----------------------------------------------------------

UNROLLED_SCRIPT = '''\
import tensorflux as tf

@tf.function
def train():
    step = tf.constant(0)
    for i in range(50005):  # a Python range: unrolled into 50005 additions
        step += 1
    return step

print(train().numpy())
'''


def ex_large_unrolled_loop_warning():
    text, status = run_script(UNROLLED_SCRIPT, timeout=10)
    print(text, end="")
    print('exit:', status)


GENERATOR_SCRIPT = '''\
import tensorflux as tf

def elements(dataset):
    for item in dataset:
        yield item

@tf.function
def show():
    for item in elements(tf.data.Dataset.range(10)):
        tf.print(item)

print('tracing starts')
show()
print('finished')
'''


def ex_custom_generator_is_a_python_loop():
    # In a graph, a dataset iterator never raises StopIteration, so the Python loop over the generator
    # keeps unrolling (TensorFlow only stops it after 10**8 iterations).
    text, status = run_script(GENERATOR_SCRIPT, timeout=5)
    print(text, end="")
    print('exit:', status)


# --- "OperatorNotAllowedInGraphError: using a `tf.Tensor` as a Python `bool`" --------------------------

def ex_tensor_break_in_python_for():
    @tf.function
    def stop_early():
        for i in range(3):
            if i > tf.constant(0):
                break

    stop_early()


def ex_tensor_break_in_tf_for():
    @tf.function
    def stop_early():
        seen = tf.constant(-1)
        for i in tf.range(3):
            if i > tf.constant(0):
                break
            seen = i
        return seen

    print(stop_early().numpy())


def ex_autograph_off_tensor_if():
    @tf.function(autograph=False)
    def sign(x):
        if x > 0:
            return 1
        return -1

    sign(tf.constant(2))


def ex_autograph_off_tensor_and():
    @tf.function(autograph=False)
    def both(x, y):
        return x and y

    both(tf.constant(True), tf.constant(False))


def ex_autograph_off_bool_builtin():
    @tf.function(autograph=False)
    def truth(x):
        return bool(x)

    truth(tf.constant(True))


def ex_bool_uses_allowed_eagerly():
    x, y = tf.constant(True), tf.constant(False)
    if x:
        print('eager if: taken')
    print('eager and:', (x and y).numpy(), '| eager bool:', bool(x))


# --- "OperatorNotAllowedInGraphError: iterating over `tf.Tensor`" --------------------------------------

def ex_autograph_off_for_over_tensor():
    @tf.function(autograph=False)
    def total(x):
        s = 0
        for v in x:
            s += v
        return s

    total(tf.constant([1, 2, 3]))


def ex_autograph_off_iter_builtin():
    @tf.function(autograph=False)
    def first(x):
        return next(iter(x))

    first(tf.constant([1, 2, 3]))


def ex_iteration_allowed_eagerly():
    x = tf.constant([1, 2, 3])
    print([int(v) for v in x], int(next(iter(x))))


# === Tests: TensorFlow 2.21 output as the expected value ===============================================

COULD_NOT_TRANSFORM = (
    "AutoGraph could not transform <function ex_could_not_transform_warning_to_stdout.<locals>.<lambda>"
    ".<locals>.<lambda> at 0x...> and will run it as-is.\n"
    "Cause: could not parse the source code of <function ex_could_not_transform_warning_to_stdout."
    "<locals>.<lambda>.<locals>.<lambda> at 0x...>: found multiple definitions with identical signatures at "
    "the location. This error may be avoided by defining each lambda on a single line and with unique "
    "argument names. The matching definitions were:\n"
    "Match 0:\n"
    "lambda x: lambda x: x * 2\n"
    "\n"
    "Match 1:\n"
    "lambda x: x * 2\n"
    "\n"
    "To silence this warning, decorate the function with @tf.autograph.experimental.do_not_convert\n"
)


def test_could_not_transform_warning_to_stdout():
    assert output_of(ex_could_not_transform_warning_to_stdout) == (
        "WARNING:tensorflow:" + COULD_NOT_TRANSFORM + "WARNING: " + COULD_NOT_TRANSFORM + "8\n")


@pytest.mark.xfail(strict=False, reason="timing: the example gives the script 10 s; tracing and compiling the "
                                        "50005 ops of the unrolled loop take 6-9 s on the 2-core machine (45 s "
                                        "before tracing stopped being quadratic), so a loaded machine misses it; "
                                        "the warning itself is TensorFlow's (tests/autograph/test_unroll_check.py)")
def test_large_unrolled_loop_warning():
    text = output_of(ex_large_unrolled_loop_warning)
    assert text.startswith(
        "WARNING:tensorflow:Large unrolled loop detected. Did you mean to use a TF loop? The following ops "
        "were created after iteration 50002: ")
    assert text.endswith("50005\nexit: 0\n")


def test_custom_generator_is_a_python_loop():
    # TensorFlow printed 'tracing starts\nexit: timeout\n'. A machine that unrolls more than 50,000 iterations
    # within the script's 5 s also prints TensorFlow's large-unrolled-loop warning in between (TensorFlow's
    # own check, which it would print too if it got that far): the loop never ends either way.
    text = output_of(ex_custom_generator_is_a_python_loop)
    assert text.startswith('tracing starts\n') and text.endswith('exit: timeout\n')
    middle = text[len('tracing starts\n'):-len('exit: timeout\n')]
    assert middle == '' or middle.startswith(
        'WARNING:tensorflow:Large unrolled loop detected. Did you mean to use a TF loop? The following ops were '
        'created after iteration 50002: ')


def test_tensor_break_in_python_for():
    _, error = error_of(ex_tensor_break_in_python_for)
    assert class_names(error)[:2] == ['NotImplementedError', 'RuntimeError']
    assert ('break and return statements which depend on a TF condition are not supported in Python for loops. '
            'Did you intend to make it a TF loop?') in str(error)


def test_tensor_break_in_tf_for():
    assert output_of(ex_tensor_break_in_tf_for) == '0\n'


BOOL_NOT_ALLOWED = 'Using a symbolic `tf.Tensor` as a Python `bool` is not allowed.'
ITERATION_NOT_ALLOWED = 'Iterating over a symbolic `tf.Tensor` is not allowed.'


def test_autograph_off_tensor_if():
    _, error = error_of(ex_autograph_off_tensor_if)
    assert class_names(error)[:2] == ['OperatorNotAllowedInGraphError', 'TypeError']
    assert str(error).startswith(BOOL_NOT_ALLOWED)


def test_autograph_off_tensor_and():
    _, error = error_of(ex_autograph_off_tensor_and)
    assert class_names(error)[:2] == ['OperatorNotAllowedInGraphError', 'TypeError']
    assert str(error).startswith(BOOL_NOT_ALLOWED)


def test_autograph_off_bool_builtin():
    _, error = error_of(ex_autograph_off_bool_builtin)
    assert class_names(error)[:2] == ['OperatorNotAllowedInGraphError', 'TypeError']
    assert str(error).startswith(BOOL_NOT_ALLOWED)


def test_bool_uses_allowed_eagerly():
    assert output_of(ex_bool_uses_allowed_eagerly) == (
        'eager if: taken\n'
        'eager and: False | eager bool: True\n'
    )


def test_autograph_off_for_over_tensor():
    _, error = error_of(ex_autograph_off_for_over_tensor)
    assert class_names(error)[:2] == ['OperatorNotAllowedInGraphError', 'TypeError']
    assert str(error).startswith(ITERATION_NOT_ALLOWED)


def test_autograph_off_iter_builtin():
    _, error = error_of(ex_autograph_off_iter_builtin)
    assert class_names(error)[:2] == ['OperatorNotAllowedInGraphError', 'TypeError']
    assert str(error).startswith(ITERATION_NOT_ALLOWED)


def test_iteration_allowed_eagerly():
    assert output_of(ex_iteration_allowed_eagerly) == '[1, 2, 3] 1\n'
