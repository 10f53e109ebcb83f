"""Fidelity: AutoGraph reference, "Control flow" (tensorflow/python/autograph/g3doc/reference/control_flow.md),
differential against TensorFlow 2.21.

Each `ex_*` function is an adapted example of the document; its test compares what it prints under
tensorflux with what the same function printed under TensorFlow 2.21 (recorded literals).

Adaptations: conditions the document draws from `tf.random.uniform` / `np.random.uniform` take a fixed
argument instead, so both branches are exercised deterministically. The document's snippets that only
show AutoGraph's internal rewriting (`break_ = False ...`, `do_return = False ...`) are run as the user code
they were rewritten from, and their results compared.

Left out: nothing runnable.
"""
import numpy as np
import pytest

import tensorflux as tf
from fidelity._fidelity_autograph import class_names, error_of, output_of, run_script


# --- Dispatch rules ------------------------------------------------------------------------------------

def ex_cond_on_python_constant():
    k = 1
    picked = tf.cond(k > 0, lambda: 3 * k, lambda: 5 * k)
    print(picked, 3 * k)


def ex_py_function_update_missed_by_traced_condition():
    box = [10]

    def overwrite():
        box[0] = 20
        return 0

    @tf.function
    def check():
        tf.py_function(overwrite, (), (tf.int32,))
        if tf.equal(box[0], 10):
            tf.print('box holds 10')

    check()
    print('after the call:', box[0])


# --- Compound symbols ----------------------------------------------------------------------------------

def ex_plain_symbol_in_tensor_if():
    @tf.function
    def absolute(a):
        if a < 0:
            a = -a
        return a

    print(absolute(tf.constant(-4)).numpy(), absolute(tf.constant(6)).numpy())


class Holder:
    pass


def ex_attribute_symbol_in_tensor_if():
    @tf.function
    def absolute_field(value):
        holder = Holder()
        holder.b = value
        if holder.b < 0:
            holder.b = -holder.b
        return holder.b

    print(absolute_field(tf.constant(-4)).numpy(), absolute_field(tf.constant(6)).numpy())


# --- Effects of tracing --------------------------------------------------------------------------------

def ex_tensor_if_traces_both_branches():
    @tf.function
    def branches():
        print('before the if')
        if tf.constant(True):
            print('in the true branch')
        else:
            print('in the false branch')
        print('after the if')

    branches()


def ex_python_if_runs_normally():
    @tf.function
    def branches():
        print('before the if')
        if True:
            print('in the true branch')
        else:
            print('in the false branch')
        print('after the if')

    branches()


def ex_python_value_becomes_tensor():
    @tf.function
    def promote():
        i = 0
        if tf.greater(i, 0):
            i = 1
        print(i)
        return i

    print(promote().numpy())


# --- if statements -------------------------------------------------------------------------------------

def ex_if_on_tensor_condition():
    @tf.function
    def choose(draw):
        if draw > 0.5:
            x = 1
        else:
            x = 2
        print('traced x is a tensor:', isinstance(x, tf.Tensor))
        return x

    print(choose(tf.constant(0.7)).numpy(), choose(tf.constant(0.2)).numpy())


def ex_if_on_numpy_condition():
    def make(draw):
        @tf.function
        def choose():
            if draw > 0.5:
                x = 1
            else:
                x = 2
            print('traced x:', x)
            return x
        return choose

    print(make(np.float64(0.7))().numpy(), make(np.float64(0.2))().numpy())


def ex_numpy_scalar_argument_is_a_tensor():
    # Not the document's code: the same function given the NumPy draw as an argument. TensorFlow turns
    # NumPy arguments into tensor inputs, so this `if` becomes a `tf.cond` and is traced once.
    @tf.function
    def choose(draw):
        if draw > 0.5:
            x = 1
        else:
            x = 2
        print('traced x:', x)
        return x

    print(choose(np.float64(0.7)).numpy(), choose(np.float64(0.2)).numpy())


# --- while statements ----------------------------------------------------------------------------------

def ex_while_on_tensor_condition():
    @tf.function
    def count(draws):
        x = 0
        while draws[x] > 0.5:
            x = x + 1
        print('traced x is a tensor:', isinstance(x, tf.Tensor))
        return x

    print(count(tf.constant([0.9, 0.8, 0.1, 0.7])).numpy())


def ex_while_on_numpy_condition():
    draws = np.array([0.9, 0.8, 0.1, 0.7])

    @tf.function
    def count():
        x = 0
        while draws[x] > 0.5:
            x = x + 1
        print('traced x:', x)
        return x

    print(count().numpy())


def op_types(function, *args):
    return [op.type for op in function.get_concrete_function(*args).graph.get_operations()]


def ex_for_over_list_of_tensors_is_unrolled():
    @tf.function
    def show_all():
        items = [tf.constant(1), tf.constant(2), tf.constant(3)]
        for item in items:
            tf.print(item)

    show_all()
    print('PrintV2 ops in the graph:', op_types(show_all).count('PrintV2'))


def ex_for_over_stacked_tensors_is_a_loop():
    @tf.function
    def show_all():
        items = [tf.constant(1), tf.constant(2), tf.constant(3)]
        for item in tf.stack(items):
            tf.print(item)

    show_all()
    kinds = op_types(show_all)
    print('PrintV2 ops in the graph:', kinds.count('PrintV2'), '| While ops:', kinds.count('While'))


CHANGING_CONDITION_SCRIPT = '''\
import tensorflux as tf

@tf.function
def unstable():
    i = 0
    while i < 10:
        i = tf.constant(1)
    return i

try:
    unstable()
except Exception as e:
    print([k.__name__ for k in type(e).__mro__][:2])
    print(e)
'''


def ex_loop_condition_changing_type_is_an_error():
    text, status = run_script(CHANGING_CONDITION_SCRIPT, timeout=8)
    print(text, end="")
    print('exit:', status)


# --- for statements ------------------------------------------------------------------------------------

def ex_for_over_tensor_rows():
    @tf.function
    def rows():
        for row in tf.constant(((1, 2), (3, 4))):
            tf.print('item:', row)

    rows()


def ex_for_over_tf_range():
    @tf.function
    def steps():
        for step in tf.range(3):
            tf.print('item:', step)

    steps()


def ex_for_over_dataset():
    @tf.function
    def elements():
        for element in tf.data.Dataset.range(3):
            tf.print('item:', element)

    elements()


def ex_for_over_distributed_dataset():
    strategy = tf.distribute.OneDeviceStrategy('cpu')
    distributed = strategy.experimental_distribute_dataset(tf.data.Dataset.range(3))

    @tf.function
    def elements():
        for element in distributed:
            tf.print('item:', element)

    elements()


def ex_for_over_dataset_with_break():
    @tf.function
    def first_only():
        for element in tf.data.Dataset.range(3):
            tf.print('item:', element)
            break

    first_only()


def ex_for_over_dataset_iterator():
    @tf.function
    def elements():
        for element in iter(tf.data.Dataset.range(3)):
            tf.print('item:', element)

    elements()


def ex_for_over_python_list():
    @tf.function
    def elements():
        for element in [1, 2, 3]:
            print('item:', element)

    elements()


# --- break / continue / return -------------------------------------------------------------------------

def ex_break_in_while():
    def stop_after_three(i):
        while i < 10:
            if i > 3:
                break
            i += 1
        return i

    print(tf.function(stop_after_three)(tf.constant(0)).numpy(), tf.function(stop_after_three)(0).numpy())


def ex_break_in_python_for():
    @tf.function
    def last_seen():
        seen = -1
        for i in range(10):
            if i > 3:
                break
            seen = i
        return seen

    print(last_seen().numpy())


def ex_tensor_break_in_python_while_true():
    @tf.function
    def countdown(x):
        while True:
            if tf.equal(x, 0):
                break
            x -= 1
        return x

    countdown(5)


def ex_continue_in_for():
    @tf.function
    def total_of_small(n):
        total = 0
        for i in tf.range(n):
            if i > 3:
                continue
            total += i
        return total

    print(total_of_small(tf.constant(10)).numpy())


def ex_return_only_in_tensor_if_is_an_error():
    @tf.function
    def maybe_one(draw):
        if draw > 0.5:
            return 1

    maybe_one(tf.constant(0.7))


def ex_return_inside_tensor_while():
    @tf.function
    def first_above_three(i):
        while i < 10:
            if i > 3:
                return 1
            i += 1
        return 0

    print(first_above_three(tf.constant(0)).numpy(), first_above_three(tf.constant(20)).numpy())


def ex_if_return_then_fallthrough():
    @tf.function
    def step(i):
        if i > 3:
            return 1
        i += 1
        return i

    print(step(tf.constant(5)).numpy(), step(tf.constant(1)).numpy())


# === Tests: TensorFlow 2.21 output as the expected value ===============================================

def test_cond_on_python_constant():
    assert output_of(ex_cond_on_python_constant) == '3 3\n'


def test_py_function_update_missed_by_traced_condition():
    assert output_of(ex_py_function_update_missed_by_traced_condition) == (
        'box holds 10\n'
        'after the call: 20\n'
    )


def test_plain_symbol_in_tensor_if():
    assert output_of(ex_plain_symbol_in_tensor_if) == '4 6\n'


def test_attribute_symbol_in_tensor_if():
    assert output_of(ex_attribute_symbol_in_tensor_if) == '4 6\n'


def test_tensor_if_traces_both_branches():
    assert output_of(ex_tensor_if_traces_both_branches) == (
        'before the if\n'
        'in the true branch\n'
        'in the false branch\n'
        'after the if\n'
    )


def test_python_if_runs_normally():
    assert output_of(ex_python_if_runs_normally) == (
        'before the if\n'
        'in the true branch\n'
        'after the if\n'
    )


def test_python_value_becomes_tensor():
    assert output_of(ex_python_value_becomes_tensor) == (
        'Tensor("cond/Identity:0", shape=(), dtype=int32)\n'
        '0\n'
    )


def test_if_on_tensor_condition():
    assert output_of(ex_if_on_tensor_condition) == (
        'traced x is a tensor: True\n'
        '1 2\n'
    )


def test_if_on_numpy_condition():
    assert output_of(ex_if_on_numpy_condition) == (
        'traced x: 1\n'
        'traced x: 2\n'
        '1 2\n'
    )


def test_numpy_scalar_argument_is_a_tensor():
    assert output_of(ex_numpy_scalar_argument_is_a_tensor) == (
        'traced x: Tensor("cond/Identity:0", shape=(), dtype=int32)\n'
        '1 2\n'
    )


def test_while_on_tensor_condition():
    assert output_of(ex_while_on_tensor_condition) == (
        'traced x is a tensor: True\n'
        '2\n'
    )


def test_while_on_numpy_condition():
    assert output_of(ex_while_on_numpy_condition) == (
        'traced x: 2\n'
        '2\n'
    )


def test_for_over_list_of_tensors_is_unrolled():
    assert output_of(ex_for_over_list_of_tensors_is_unrolled) == (
        '1\n'
        '2\n'
        '3\n'
        'PrintV2 ops in the graph: 3\n'
    )


def test_for_over_stacked_tensors_is_a_loop():
    assert output_of(ex_for_over_stacked_tensors_is_a_loop) == (
        '1\n'
        '2\n'
        '3\n'
        'PrintV2 ops in the graph: 0 | While ops: 1\n'
    )


def test_loop_condition_changing_type_is_an_error():
    text = output_of(ex_loop_condition_changing_type_is_an_error)
    assert text.startswith("['NotImplementedError', 'RuntimeError']\n")
    assert text.endswith("exit: 0\n")
    assert ('The condition of while loop started as non-Tensor, then changed to Tensor. This may happen either '
            'because variables changed type, or when a break or return statement inside the loop depends on a '
            'Tensor condition. In both cases, changing to a TF loop should remove the error.') in text


def test_for_over_tensor_rows():
    assert output_of(ex_for_over_tensor_rows) == (
        'item: [1 2]\n'
        'item: [3 4]\n'
    )


def test_for_over_tf_range():
    assert output_of(ex_for_over_tf_range) == (
        'item: 0\n'
        'item: 1\n'
        'item: 2\n'
    )


def test_for_over_dataset():
    assert output_of(ex_for_over_dataset) == (
        'item: 0\n'
        'item: 1\n'
        'item: 2\n'
    )


def test_for_over_distributed_dataset():
    assert output_of(ex_for_over_distributed_dataset) == (
        'item: 0\n'
        'item: 1\n'
        'item: 2\n'
    )


def test_for_over_dataset_with_break():
    assert output_of(ex_for_over_dataset_with_break) == 'item: 0\n'


def test_for_over_dataset_iterator():
    assert output_of(ex_for_over_dataset_iterator) == (
        'item: 0\n'
        'item: 1\n'
        'item: 2\n'
    )


def test_for_over_python_list():
    assert output_of(ex_for_over_python_list) == (
        'item: 1\n'
        'item: 2\n'
        'item: 3\n'
    )


def test_break_in_while():
    assert output_of(ex_break_in_while) == '4 4\n'


def test_break_in_python_for():
    assert output_of(ex_break_in_python_for) == '3\n'


def test_tensor_break_in_python_while_true():
    _, error = error_of(ex_tensor_break_in_python_while_true)
    assert class_names(error)[:2] == ['NotImplementedError', 'RuntimeError']
    assert ('The condition of while loop started as non-Tensor, then changed to Tensor. This may happen either '
            'because variables changed type, or when a break or return statement inside the loop depends on a Tensor '
            'condition. In both cases, changing to a TF loop should remove the error.') in str(error)


def test_continue_in_for():
    assert output_of(ex_continue_in_for) == '6\n'


def test_return_only_in_tensor_if_is_an_error():
    _, error = error_of(ex_return_only_in_tensor_if_is_an_error)
    assert class_names(error)[:2] == ['ValueError', 'Exception']
    assert 'the else branch must also have a return statement.' in str(error)


def test_return_inside_tensor_while():
    _, error = error_of(ex_return_inside_tensor_while)
    assert class_names(error)[:2] == ['NotImplementedError', 'RuntimeError']
    assert ('a return statement cannot be placed inside this TensorFlow loop; this may happen if a return statement '
            'depends on a static Python condition such as a hyperparameter') in str(error)


def test_if_return_then_fallthrough():
    assert output_of(ex_if_return_then_fallthrough) == '1 2\n'
