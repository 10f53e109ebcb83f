"""Fidelity: AutoGraph reference, control-flow tutorial notebook (tensorflow/python/autograph/g3doc/
reference/_control_flow_tutorial.ipynb), differential against TensorFlow 2.21.

Each `ex_*` function is an adapted cell (or group of cells) of the notebook; its test compares what it
prints under tensorflux with what the same function printed under TensorFlow 2.21 (recorded literals).

Adaptations:
- the notebook's `assert_raises` helper prints a traceback (`traceback.print_exc(limit=2)`) whose file
  names and lines are the notebook's; `expect_error` here prints the expected class, and the class and
  original message (first line) of what was raised. As in the notebook, an exception of another class propagates,
  and a missing one raises `Exception('Expected ... to be raised but no error was raised!')`.
- cell results the notebook displays as the value of the last expression are printed.
- `dropout` uses a fixed global seed and the cell prints the distinct values of its result (0 and 2),
  not the random mask itself; the RNN input is a fixed ramp instead of `tf.random.uniform`.

Left out: nothing.
"""
import contextlib

import numpy as np

import tensorflux as tf
from fidelity._fidelity_autograph import class_names, error_of, output_of


def original_message(error):
    """The first line of the original message (TensorFlow's tracing errors wrap it in an 'in user code:'
    report whose line `    ClassName: message` holds it)."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    marked = [line for line in lines if line.startswith(type(error).__name__ + ': ')]
    if marked:
        return marked[-1][len(type(error).__name__) + 2:]
    return lines[0] if lines else ''


@contextlib.contextmanager
def expect_error(error_class):
    try:
        yield
    except error_class as e:
        print('Caught expected exception \n  {}:'.format(error_class))
        print('  raised {}: {}'.format(type(e).__name__, original_message(e)))
    except Exception as e:
        raise e
    else:
        raise Exception('Expected {} to be raised but no error was raised!'.format(error_class))


# --- Conditionals --------------------------------------------------------------------------------------

def report_cond(f, *args):
    g = f.get_concrete_function(*args).graph
    if any(node.name == 'cond' for node in g.as_graph_def().node):
        print("{}({}) uses tf.cond.".format(f.__name__, ', '.join(map(str, args))))
    else:
        print("{}({}) executes normally.".format(f.__name__, ', '.join(map(str, args))))
    print("  distinct result values: ", np.unique(f(*args).numpy()))


@tf.function
def maybe_dropout(values, training=True):
    if training:
        values = tf.nn.dropout(values, rate=0.5)
    return values


def ex_dropout_python_flag():
    tf.random.set_seed(7)
    report_cond(maybe_dropout, tf.ones([10], dtype=tf.float32), True)


def ex_dropout_tensor_flag():
    tf.random.set_seed(7)
    report_cond(maybe_dropout, tf.ones([10], dtype=tf.float32), tf.constant(True))


def ex_cond_traces_both_branches():
    @tf.function
    def step(value):
        if value > 0:
            value = value + 1.
            print("tracing the true branch")
        else:
            value = value - 1.
            print("tracing the false branch")
        return value

    print(step(-1.0).numpy())
    print(step(1.0).numpy())
    print(step(tf.constant(1.0)).numpy())


def ex_cond_branch_must_define_variable():
    @tf.function
    def only_then():
        if tf.constant(True):
            value = tf.ones([3, 3])
        return value

    with expect_error(ValueError):
        only_then()


def ex_bool_forces_python_conditional():
    @tf.function
    def step(flag, value):
        if bool(flag):
            value = value + 1.
            print("tracing the true branch")
        else:
            value = value - 1.
            print("tracing the false branch")
        return value

    print(step(True, 0).numpy())
    print(step(False, 0).numpy())
    with expect_error(TypeError):
        step(tf.constant(True), 0.0)


# --- Loops ---------------------------------------------------------------------------------------------

def report_loop(f, *args):
    g = f.get_concrete_function(*args).graph
    if any(node.name == 'while' for node in g.as_graph_def().node):
        print("{}({}) uses tf.while_loop.".format(f.__name__, ', '.join(map(str, args))))
    elif any(node.name == 'ReduceDataset' for node in g.as_graph_def().node):
        print("{}({}) uses tf.data.Dataset.reduce.".format(f.__name__, ', '.join(map(str, args))))
    else:
        print("{}({}) gets unrolled.".format(f.__name__, ', '.join(map(str, args))))


def ex_for_in_python_range():
    @tf.function
    def sum_over_python_range():
        acc = 0
        for i in range(5):
            acc += i
        return acc

    report_loop(sum_over_python_range)


def ex_for_in_tf_range():
    @tf.function
    def sum_over_tf_range():
        acc = tf.constant(0, dtype=tf.int32)
        for i in tf.range(5):
            acc += i
        return acc

    report_loop(sum_over_tf_range)


def ex_for_in_dataset():
    @tf.function
    def sum_over_dataset():
        acc = tf.constant(0, dtype=tf.int64)
        for i in tf.data.Dataset.range(5):
            acc += i
        return acc

    report_loop(sum_over_dataset)


def ex_while_python_condition():
    @tf.function
    def count_down_python():
        acc = 5
        while acc > 0:
            acc -= 1
        return acc

    report_loop(count_down_python)


def ex_while_tensor_condition():
    @tf.function
    def count_down_tensor():
        acc = tf.constant(5)
        while acc > 0:
            acc -= 1
        return acc

    report_loop(count_down_tensor)


def ex_python_true_python_break():
    @tf.function
    def forever_python_break(acc):
        while True:
            if acc == 0:
                break
            acc -= 1
        return acc

    report_loop(forever_python_break, 5)


def ex_python_true_tensor_break():
    @tf.function
    def forever_tensor_break(acc):
        while True:
            if tf.equal(acc, 0):
                break
            acc -= 1
        return acc

    with expect_error(TypeError):
        report_loop(forever_tensor_break, 5)


def ex_tensor_true_python_break():
    @tf.function
    def tensor_forever_python_break(acc):
        while tf.constant(True):
            if acc == 0:
                break
            acc -= 1
        return acc

    report_loop(tensor_forever_python_break, 5)


def ex_python_for_tensor_break():
    @tf.function
    def python_for_tensor_break():
        acc = 0
        for i in range(5):
            if tf.equal(i, 3):
                break
            acc += i
        return acc

    with expect_error(TypeError):
        report_loop(python_for_tensor_break)


def ex_tensor_for_python_break():
    @tf.function
    def tensor_for_python_break():
        acc = 0
        for i in tf.range(5):
            if i == 3:
                break
            acc += i
        return acc

    report_loop(tensor_for_python_break)


def ex_dynamic_rnn_with_tensor_array():
    batch, steps, features = 2, 3, 4

    def cell(inputs, state):
        return inputs + state

    @tf.function
    def unroll_rnn(cell, sequence, initial_state):
        time_major = tf.transpose(sequence, [1, 0, 2])  # [batch, time, features] -> [time, batch, features]
        num_steps = time_major.shape[0]

        outputs = tf.TensorArray(tf.float32, size=num_steps)
        state = initial_state
        for t in tf.range(num_steps):
            state = cell(time_major[t], state)
            outputs = outputs.write(t, state)
        return tf.transpose(outputs.stack(), [1, 0, 2])

    sequence = tf.reshape(tf.range(batch * steps * features, dtype=tf.float32), [batch, steps, features])
    print(repr(unroll_rnn(cell, sequence, tf.zeros([batch, features]))))


# --- Gotchas -------------------------------------------------------------------------------------------

def ex_loop_variable_not_initialized():
    @tf.function
    def last_index():
        for step in tf.range(3):
            last = step
        return last

    with expect_error(ValueError):
        last_index()


def ex_loop_variable_initialized():
    @tf.function
    def last_index():
        last = tf.constant(0)
        for step in tf.range(3):
            last = step
        return last

    print(repr(last_index()))


def ex_loop_variable_changes_dtype():
    @tf.function
    def int_into_float():
        acc = tf.constant(0, dtype=tf.float32)
        for i in tf.range(3):
            acc = i
        return acc

    with expect_error(TypeError):
        int_into_float()


def ex_loop_variable_changes_shape():
    @tf.function
    def grow_rows():
        acc = tf.ones([0, 10])
        for i in tf.range(5):
            acc = tf.concat([acc, tf.ones([1, 10])], axis=0)
        return acc

    with expect_error(ValueError):
        grow_rows()


def ex_concat_with_padding_keeps_shape():
    @tf.function
    def fill_rows():
        acc = tf.zeros([5, 10])
        for i in tf.range(5):
            acc = tf.concat([acc[:i], tf.ones([1, 10]), tf.zeros([4 - i, 10])], axis=0)
            acc.set_shape([5, 10])
        return acc

    print(repr(fill_rows()))


# === Tests: TensorFlow 2.21 output as the expected value ===============================================

BOOL_NOT_ALLOWED = (
    'Using a symbolic `tf.Tensor` as a Python `bool` is not allowed. You can attempt the following resolutions to the '
    'problem: If you are running in Graph mode, use Eager execution mode or decorate this function with @tf.function. '
    'If you are using AutoGraph, you can try decorating this function with @tf.function. If that does not work, then '
    'you may be using an unsupported feature or your source code may not be visible to AutoGraph. See '
    'https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/g3doc/reference/'
    'limitations.md#access-to-source-code for more information.')


def test_dropout_python_flag():
    assert output_of(ex_dropout_python_flag) == (
        'maybe_dropout(tf.Tensor([1. 1. 1. 1. 1. 1. 1. 1. 1. 1.], shape=(10,), dtype=float32), True) executes '
        'normally.\n'
        '  distinct result values:  [0. 2.]\n'
    )


def test_dropout_tensor_flag():
    assert output_of(ex_dropout_tensor_flag) == (
        'maybe_dropout(tf.Tensor([1. 1. 1. 1. 1. 1. 1. 1. 1. 1.], shape=(10,), dtype=float32), tf.Tensor(True, '
        'shape=(), dtype=bool)) uses tf.cond.\n'
        '  distinct result values:  [0. 2.]\n'
    )


def test_cond_traces_both_branches():
    assert output_of(ex_cond_traces_both_branches) == (
        'tracing the false branch\n'
        '-2.0\n'
        'tracing the true branch\n'
        '2.0\n'
        'tracing the true branch\n'
        'tracing the false branch\n'
        '2.0\n'
    )


def test_cond_branch_must_define_variable():
    assert output_of(ex_cond_branch_must_define_variable) == (
        'Caught expected exception \n'
        "  <class 'ValueError'>:\n"
        "  raised ValueError: 'value' must also be initialized in the else branch\n"
    )


def test_bool_forces_python_conditional():
    assert output_of(ex_bool_forces_python_conditional) == (
        'tracing the true branch\n'
        '1.0\n'
        'tracing the false branch\n'
        '-1.0\n'
        'Caught expected exception \n'
        "  <class 'TypeError'>:\n"
        f'  raised OperatorNotAllowedInGraphError: {BOOL_NOT_ALLOWED}\n'
    )


def test_for_in_python_range():
    assert output_of(ex_for_in_python_range) == 'sum_over_python_range() gets unrolled.\n'


def test_for_in_tf_range():
    assert output_of(ex_for_in_tf_range) == 'sum_over_tf_range() uses tf.while_loop.\n'


def test_for_in_dataset():
    assert output_of(ex_for_in_dataset) == 'sum_over_dataset() uses tf.data.Dataset.reduce.\n'


def test_while_python_condition():
    assert output_of(ex_while_python_condition) == 'count_down_python() gets unrolled.\n'


def test_while_tensor_condition():
    assert output_of(ex_while_tensor_condition) == 'count_down_tensor() uses tf.while_loop.\n'


def test_python_true_python_break():
    assert output_of(ex_python_true_python_break) == 'forever_python_break(5) gets unrolled.\n'


def test_python_true_tensor_break():
    _, error = error_of(ex_python_true_tensor_break)
    assert class_names(error)[:2] == ['NotImplementedError', 'RuntimeError']
    assert ('The condition of while loop started as non-Tensor, then changed to Tensor. This may happen either '
            'because variables changed type, or when a break or return statement inside the loop depends on a Tensor '
            'condition. In both cases, changing to a TF loop should remove the error.') in str(error)


def test_tensor_true_python_break():
    assert output_of(ex_tensor_true_python_break) == 'tensor_forever_python_break(5) uses tf.while_loop.\n'


def test_python_for_tensor_break():
    _, error = error_of(ex_python_for_tensor_break)
    assert class_names(error)[:2] == ['NotImplementedError', 'RuntimeError']
    assert ('break and return statements which depend on a TF condition are not supported in Python for loops. Did '
            'you intend to make it a TF loop?') in str(error)


def test_tensor_for_python_break():
    assert output_of(ex_tensor_for_python_break) == 'tensor_for_python_break() uses tf.while_loop.\n'


def test_dynamic_rnn_with_tensor_array():
    assert output_of(ex_dynamic_rnn_with_tensor_array) == (
        '<tf.Tensor: shape=(2, 3, 4), dtype=float32, numpy=\n'
        'array([[[ 0.,  1.,  2.,  3.],\n'
        '        [ 4.,  6.,  8., 10.],\n'
        '        [12., 15., 18., 21.]],\n'
        '\n'
        '       [[12., 13., 14., 15.],\n'
        '        [28., 30., 32., 34.],\n'
        '        [48., 51., 54., 57.]]], dtype=float32)>\n'
    )


def test_loop_variable_not_initialized():
    _, error = error_of(ex_loop_variable_not_initialized)
    assert class_names(error)[:2] == ['Exception', 'BaseException']
    assert "Expected <class 'ValueError'> to be raised but no error was raised!" in str(error)


def test_loop_variable_initialized():
    assert output_of(ex_loop_variable_initialized) == '<tf.Tensor: shape=(), dtype=int32, numpy=2>\n'


def test_loop_variable_changes_dtype():
    assert output_of(ex_loop_variable_changes_dtype) == (
        'Caught expected exception \n'
        "  <class 'TypeError'>:\n"
        "  raised TypeError: 'acc' has dtype float32 before the loop, but dtype int32 after one iteration\n"
    )


def test_loop_variable_changes_shape():
    assert output_of(ex_loop_variable_changes_shape) == (
        'Caught expected exception \n'
        "  <class 'ValueError'>:\n"
        "  raised ValueError: 'acc' has shape (0, 10) before the loop, but shape (1, 10) after one iteration. Use "
        "tf.autograph.experimental.set_loop_options to set shape invariants.\n"
    )


def test_concat_with_padding_keeps_shape():
    assert output_of(ex_concat_with_padding_keeps_shape) == (
        '<tf.Tensor: shape=(5, 10), dtype=float32, numpy=\n'
        'array([[1., 1., 1., 1., 1., 1., 1., 1., 1., 1.],\n'
        '       [1., 1., 1., 1., 1., 1., 1., 1., 1., 1.],\n'
        '       [1., 1., 1., 1., 1., 1., 1., 1., 1., 1.],\n'
        '       [1., 1., 1., 1., 1., 1., 1., 1., 1., 1.],\n'
        '       [1., 1., 1., 1., 1., 1., 1., 1., 1., 1.]], dtype=float32)>\n'
    )
