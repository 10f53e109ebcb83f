"""Fidelity: AutoGraph reference, "Limitations" (tensorflow/python/autograph/g3doc/reference/limitations.md),
differential against TensorFlow 2.21.

Each `ex_*` function is an adapted example of the document; its test compares what it prints under
tensorflux with what the same function printed under TensorFlow 2.21 (recorded literals). Where the
document's point is an error, the test checks the exception's classes and the key part of TensorFlow's
message.

Adaptations: conditions the document draws from `tf.random.uniform` take a fixed tensor argument, so the
outcome is deterministic; snippets that are fragments (`x = tf.constant()`, `while x > 0` with `x`
undefined, `c = MyClass()` for a namedtuple) are completed with small values. `del x` is expressed by not
defining `x` before the statement. The `inspect.findsource` example is run together with what it is
meant to predict: a function without source (made by `exec`) is not converted by AutoGraph.

Left out: the "TF 2.3 and older" lambda-source snippets (`inspect.getsource` of wrapped lambdas) show
plain CPython behaviour, no TensorFlow API; their point for TF >= 2.4 (a multi-line lambda still
converts) is covered by `ex_multiline_lambda_converts`.
"""
import collections

import pytest

import tensorflux as tf
from fidelity._fidelity_autograph import class_names, error_of, output_of


# --- Undefined and None values -------------------------------------------------------------------------

def ex_tf_cond_branch_returning_none():
    @tf.function
    def pick(draw):
        return tf.cond(draw > 0.5, lambda: tf.constant(1), lambda: None)

    pick(tf.constant(0.7))


def ex_if_else_assigning_none():
    @tf.function
    def pick(draw):
        if draw > 0.5:
            x = tf.constant(1)
        else:
            x = None
        tf.print(x)

    pick(tf.constant(0.7))


def ex_if_defining_only_in_one_branch_used_after():
    @tf.function
    def pick(draw):
        if draw > 0.5:
            x = tf.constant(1)
        else:
            pass
        tf.print(x)

    pick(tf.constant(0.7))


def ex_if_defining_only_in_one_branch_not_used_after():
    @tf.function
    def pick(draw):
        if draw > 0.5:
            x = tf.constant(1)
        else:
            pass
        return draw

    print(pick(tf.constant(0.7)).numpy())


def ex_accumulator_initialized_in_first_iteration():
    @tf.function
    def accumulate():
        for i in tf.range(100):
            if i == 0:
                x = tf.constant(1)
            else:
                x = x + 1
        tf.print(x)

    accumulate()


def ex_loop_local_variable_not_used_after():
    @tf.function
    def spin(limit):
        n = tf.constant(0)
        while n < limit:
            x = tf.constant(1)
            n += x
        return n

    print(spin(tf.constant(3)).numpy())


def ex_loop_variable_defined_in_loop_used_after():
    @tf.function
    def last():
        for i in tf.range(10):
            x = tf.constant(1)
        tf.print(x)

    last()


def ex_loop_that_never_runs_cannot_define_variable():
    @tf.function
    def never():
        while tf.constant(False):
            x = tf.constant(1)
        tf.print(x)

    never()


def ex_default_value_before_if():
    @tf.function
    def pick(draw):
        x = tf.constant(0)
        if draw > 0.5:
            x = tf.constant(1)
        tf.print(x)

    pick(tf.constant(0.7))
    pick(tf.constant(0.2))


def ex_outputs_created_in_training_loop():
    def train(batch):
        return {'loss': tf.reduce_sum(batch), 'last': batch[-1]}

    @tf.function
    def run(batches, num_steps):
        for step in tf.range(num_steps):
            outputs = train(next(batches))
        return outputs

    batches = iter(tf.data.Dataset.range(12).batch(3))
    result = run(batches, tf.constant(2))
    print(sorted(result), result['loss'].numpy(), result['last'].numpy())


# --- Indirect modifications and hidden side effects ----------------------------------------------------

def ex_loop_variable_wiring():
    @tf.function
    def drain(x):
        y = 0
        while x > 0:
            x = x - 1
        print('y at tracing:', y)
        return x

    print(drain(tf.constant(4)).numpy())


counter = 0


def bump_counter():
    global counter
    counter = counter + 1


def ex_global_modified_in_called_function():
    global counter
    counter = 0

    @tf.function
    def loop(x):
        while x > 0:
            bump_counter()
            x = x - 1
        return x

    loop(tf.constant(3))
    print('counter after the call:', counter)


def ex_functional_style_update():
    def plus_one(total):
        total = total + 1
        return total

    @tf.function
    def loop(x):
        total = 0
        while x > 0:
            total = plus_one(total)
            x = x - 1
        return total

    print(loop(tf.constant(3)).numpy())


def ex_variable_side_effect_in_called_function():
    def bump(var):
        var.assign_add(1)

    tally = tf.Variable(1)

    @tf.function
    def loop(x):
        while x > 0:
            bump(tally)
            x = x - 1

    loop(tf.constant(3))
    print(tally.numpy())


def ex_tensor_array_write_result_dropped():
    def record(array):
        array.write(0, 1)

    @tf.function
    def loop(x):
        array = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
        while x > 0:
            record(array)
            x = x - 1
        return array.size()

    print(loop(tf.constant(3)).numpy())


def ex_tensor_array_functional_style():
    def record(array):
        array = array.write(array.size(), 1)
        return array

    @tf.function
    def loop(x):
        array = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
        while x > 0:
            array = record(array)
            x = x - 1
        return array.stack()

    print(loop(tf.constant(3)).numpy())


class Tally:
    def __init__(self):
        self.y = 0

    def change(self):
        self.y += 1


def ex_method_mutation_not_detected():
    @tf.function
    def loop(x):
        tally = Tally()
        while x > 0:
            tally.change()
            x = x - 1
        return tally.y

    print(loop(tf.constant(3)))


def ex_attribute_updated_in_loop_body():
    @tf.function
    def loop(x):
        tally = Tally()
        while x > 0:
            tally.y += 1
            x = x - 1
        return tally.y

    print(loop(tf.constant(3)).numpy())


class Count(collections.namedtuple('Count', ('y',))):
    def change(self):
        return Count(self.y + 1)


def advance(count: Count) -> Count:
    new_count = count.change()
    return new_count


def ex_immutable_namedtuple_loop_variable():
    @tf.function
    def loop(x):
        count = Count(0)
        while x > 0:
            count = count.change()
            x = x - 1
        count = advance(count)
        return count

    print(loop(tf.constant(3)))


# --- Variables closed over by local functions ----------------------------------------------------------

def ex_closure_variable_is_loop_variable():
    @tf.function
    def outer():
        a = 0

        def show():
            tf.print(a)
        for i in tf.range(3):
            a = i
        show()

    outer()


def ex_closure_variable_must_be_defined_before_loop():
    @tf.function
    def outer():
        def show():
            tf.print(a)
        for i in tf.range(3):
            a = i

    outer()


def ex_lambda_closure_is_local_to_loop():
    def consume(fn):
        return fn()

    @tf.function
    def outer():
        a = 0
        consume(lambda: a)
        for i in tf.range(3):
            a = i
        return a

    print(outer().numpy())


def ex_lambda_called_after_loop_sees_old_value():
    @tf.function
    def outer():
        a = 0
        show = lambda: tf.print(a)  # noqa: E731 - the document's point is about lambdas
        for i in tf.range(3):
            a = i
        show()

    outer()


# --- Python collections in TensorFlow control flow -----------------------------------------------------

def collect_with_while_loop():
    items = []

    def keep_going(i):
        return i < 10

    def step(i):
        i = i + 1
        items.append(i)
        return i,

    tf.while_loop(cond=keep_going, body=step, loop_vars=(0,))
    return items


def ex_list_append_in_while_loop_eager():
    items = collect_with_while_loop()
    print(len(items), items[0], items[-1])


def ex_list_append_in_while_loop_graph():
    tf.function(collect_with_while_loop)()


def ex_list_append_in_autograph_loop():
    @tf.function
    def collect():
        items = []
        for i in tf.range(10):
            items.append(i)
        return items

    collect()


def ex_tensor_array_instead_of_list():
    @tf.function
    def collect():
        items = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
        for i in tf.range(10):
            items = items.write(items.size(), i)
        return items.stack()

    print(collect().numpy())


class Box:
    pass


def ex_static_collections_in_loops():
    @tf.function
    def countdowns():
        static_list = [tf.constant(3)]
        while static_list[0] > 0:
            static_list[0] -= 1
        box = Box()
        box.field = tf.constant(3)
        while box.field > 0:
            box.field -= 1
        static_dict = {'field': tf.constant(3)}
        while static_dict['field'] > 0:
            static_dict['field'] -= 1
        return static_list[0], box.field, static_dict['field']

    print([int(t) for t in countdowns()])


def ex_dict_with_dynamic_key_in_loop():
    @tf.function
    def add_all():
        d = {'a': tf.constant(3)}
        for i in tf.range(10):
            for key in d:
                d[key] += i
        return d

    add_all()


def ex_dict_rebuilt_functionally_in_loop():
    @tf.function
    def add_all():
        d = {'a': tf.constant(3)}
        for i in tf.range(10):
            d = {key: value + i for key, value in d.items()}
        return d

    print(add_all()['a'].numpy())


# --- Shape and dtype consistency -----------------------------------------------------------------------

def ex_static_index_out_of_bounds():
    @tf.function
    def fifth():
        x = tf.constant([1, 2, 3])
        return x[4]

    fifth()


def ex_static_shape_guard():
    @tf.function
    def fifth_or_default():
        x = tf.constant([1, 2, 3])
        if x.shape[0] > 4:
            val = x[4]
        else:
            val = tf.constant(-1)
        return val

    print(fifth_or_default().numpy())


def ex_tf_cond_checks_both_branches():
    @tf.function
    def fifth_or_default():
        x = tf.constant([1, 2, 3])
        return tf.cond(x.shape[0] >= 4, lambda: x[4], lambda: tf.constant(-1))

    print(fifth_or_default().numpy())


def ex_dynamic_shape_check_on_static_shape():
    @tf.function
    def fifth_or_default():
        x = tf.constant((1, 2, 3))
        if tf.shape(x)[0] > 4:
            val = x[4]
        else:
            val = tf.constant(-1)
        return val

    fifth_or_default()


def ex_dynamic_shape_skips_bounds_check():
    @tf.function(input_signature=[tf.TensorSpec(shape=(None,))])
    def fifth_or_default(x):
        if tf.shape(x)[0] >= 5:
            val = x[4]
        else:
            val = tf.constant(-1.0)
        return val

    print(fifth_or_default(tf.constant([1., 2., 3.])).numpy(),
          fifth_or_default(tf.constant([1., 2., 3., 4., 5.])).numpy())


def ex_static_or_dynamic_shape_branch():
    def length(x):
        if x.shape[0] is None:
            print('dynamic shape, using tf.shape')
            return tf.shape(x)[0]
        else:
            print('static shape:', x.shape[0])
            return tf.constant(x.shape[0])

    static = tf.function(length)
    dynamic = tf.function(length, input_signature=[tf.TensorSpec(shape=(None,))])
    print(static(tf.constant([1., 2., 3.])).numpy(), dynamic(tf.constant([1., 2.])).numpy())


def ex_tf_cond_inconsistent_dtypes():
    @tf.function
    def pick(draw):
        return tf.cond(draw > 0.5,
                       lambda: tf.constant(1, dtype=tf.int32),
                       lambda: tf.constant(1, dtype=tf.float32))

    pick(tf.constant(0.7))


def ex_if_inconsistent_dtypes():
    @tf.function
    def pick(draw):
        if draw > 0.5:
            x = tf.constant(1, dtype=tf.int32)
        else:
            x = tf.constant(1, dtype=tf.float32)
        return x

    pick(tf.constant(0.7))


def ex_while_loop_dtype_change():
    @tf.function
    def loop(draw):
        return tf.while_loop(lambda _: draw > 0.5,
                             lambda x: tf.constant(1, dtype=tf.float32),
                             loop_vars=(tf.constant(1, dtype=tf.int32),))

    loop(tf.constant(0.7))


def ex_autograph_while_dtype_change():
    @tf.function
    def loop(draw):
        x = tf.constant(0, dtype=tf.int32)
        while draw > 0.5:
            x = tf.constant(0, dtype=tf.float32)
        return x

    loop(tf.constant(0.7))


def ex_while_loop_shape_change():
    def body(x):
        return tf.constant((1, 2, 3))

    @tf.function
    def loop(draw):
        return tf.while_loop(lambda _: draw > 0.5, body, loop_vars=(tf.constant(1),))

    loop(tf.constant(0.7))


def ex_autograph_while_shape_change():
    @tf.function
    def loop(draw):
        x = tf.constant(1)
        while draw > 0.5:
            x = tf.constant((1, 2, 3))
        return x

    loop(tf.constant(0.7))


# --- Access to source code -----------------------------------------------------------------------------

def simple_function():
    return 1


def ex_findsource_and_function_without_source():
    import inspect
    lines, first = inspect.findsource(simple_function)
    print('source found:', lines[first].strip())
    namespace = {'tf': tf}
    exec('def made_by_exec(x):\n    if x > 0:\n        x = x - 1\n    return x\n', namespace)
    tf.function(namespace['made_by_exec'])(tf.constant(1))


def ex_nested_lambdas_with_same_argument_name():
    make = lambda x: lambda x: x + 1  # noqa: E731 - the document's point is about lambdas
    inner = make(0)
    print(tf.function(inner)(tf.constant(1)).numpy())


def ex_nested_lambdas_with_distinct_argument_names():
    make = lambda outer_x: lambda inner_x: inner_x + 1  # noqa: E731 - the document's point is about lambdas
    inner = make(0)
    print(tf.function(inner)(tf.constant(1)).numpy())


def ex_multiline_lambda_converts():
    scale = (
        lambda y: lambda x: x * y
        - y
    )
    print(tf.function(scale(2))(tf.constant(5)).numpy())


# === Tests: TensorFlow 2.21 output as the expected value ===============================================

def test_tf_cond_branch_returning_none():
    _, error = error_of(ex_tf_cond_branch_returning_none)
    assert class_names(error)[:2] == ['ValueError', 'Exception']
    assert 'Lengths of branch outputs of cond must match.' in str(error)


def test_if_else_assigning_none():
    _, error = error_of(ex_if_else_assigning_none)
    assert class_names(error)[:2] == ['ValueError', 'Exception']
    assert "'x' is None at the end of the else branch." in str(error)


def test_if_defining_only_in_one_branch_used_after():
    _, error = error_of(ex_if_defining_only_in_one_branch_used_after)
    assert class_names(error)[:2] == ['ValueError', 'Exception']
    assert "'x' must also be initialized in the else branch" in str(error)


def test_if_defining_only_in_one_branch_not_used_after():
    assert output_of(ex_if_defining_only_in_one_branch_not_used_after) == '0.7\n'


def test_accumulator_initialized_in_first_iteration():
    _, error = error_of(ex_accumulator_initialized_in_first_iteration)
    assert class_names(error)[:2] == ['ValueError', 'Exception']
    assert "'x' must be defined before the loop" in str(error)


def test_loop_local_variable_not_used_after():
    assert output_of(ex_loop_local_variable_not_used_after) == '3\n'


def test_loop_variable_defined_in_loop_used_after():
    assert output_of(ex_loop_variable_defined_in_loop_used_after) == '1\n'


def test_loop_that_never_runs_cannot_define_variable():
    _, error = error_of(ex_loop_that_never_runs_cannot_define_variable)
    assert class_names(error)[:2] == ['InvalidArgumentError', 'OpError']
    assert 'assertion failed: [loop must iterate at least once to initialize x]' in str(error)


def test_default_value_before_if():
    assert output_of(ex_default_value_before_if) == (
        '1\n'
        '0\n'
    )


def test_outputs_created_in_training_loop():
    assert output_of(ex_outputs_created_in_training_loop) == "['last', 'loss'] 12 5\n"


def test_loop_variable_wiring():
    assert output_of(ex_loop_variable_wiring) == (
        'y at tracing: 0\n'
        '0\n'
    )


def test_global_modified_in_called_function():
    assert output_of(ex_global_modified_in_called_function) == 'counter after the call: 1\n'


def test_functional_style_update():
    assert output_of(ex_functional_style_update) == '3\n'


def test_variable_side_effect_in_called_function():
    assert output_of(ex_variable_side_effect_in_called_function) == '4\n'


def test_tensor_array_write_result_dropped():
    assert output_of(ex_tensor_array_write_result_dropped) == '0\n'


def test_tensor_array_functional_style():
    assert output_of(ex_tensor_array_functional_style) == '[1 1 1]\n'


def test_method_mutation_not_detected():
    assert output_of(ex_method_mutation_not_detected) == 'tf.Tensor(1, shape=(), dtype=int32)\n'


def test_attribute_updated_in_loop_body():
    assert output_of(ex_attribute_updated_in_loop_body) == '3\n'


def test_immutable_namedtuple_loop_variable():
    assert output_of(ex_immutable_namedtuple_loop_variable) == 'Count(y=<tf.Tensor: shape=(), dtype=int32, numpy=4>)\n'


def test_closure_variable_is_loop_variable():
    assert output_of(ex_closure_variable_is_loop_variable) == '2\n'


def test_closure_variable_must_be_defined_before_loop():
    assert output_of(ex_closure_variable_must_be_defined_before_loop) == ""


def test_lambda_closure_is_local_to_loop():
    assert output_of(ex_lambda_closure_is_local_to_loop) == '2\n'


def test_lambda_called_after_loop_sees_old_value():
    assert output_of(ex_lambda_called_after_loop_sees_old_value) == '0\n'


def test_list_append_in_while_loop_eager():
    assert output_of(ex_list_append_in_while_loop_eager) == '10 1 10\n'


def test_list_append_in_while_loop_graph():
    _, error = error_of(ex_list_append_in_while_loop_graph)
    assert class_names(error)[:2] == ['InaccessibleTensorError', 'ValueError']
    assert 'is out of scope and cannot be used here.' in str(error)


def test_list_append_in_autograph_loop():
    _, error = error_of(ex_list_append_in_autograph_loop)
    assert class_names(error)[:2] == ['InaccessibleTensorError', 'ValueError']
    assert 'is out of scope and cannot be used here.' in str(error)


def test_tensor_array_instead_of_list():
    assert output_of(ex_tensor_array_instead_of_list) == '[0 1 2 3 4 5 6 7 8 9]\n'


def test_static_collections_in_loops():
    assert output_of(ex_static_collections_in_loops) == '[0, 0, 0]\n'


def test_dict_with_dynamic_key_in_loop():
    _, error = error_of(ex_dict_with_dynamic_key_in_loop)
    assert class_names(error)[:2] == ['InaccessibleTensorError', 'ValueError']
    assert 'is out of scope and cannot be used here.' in str(error)


def test_dict_rebuilt_functionally_in_loop():
    assert output_of(ex_dict_rebuilt_functionally_in_loop) == '48\n'


def test_static_index_out_of_bounds():
    _, error = error_of(ex_static_index_out_of_bounds)
    assert class_names(error)[:2] == ['ValueError', 'Exception']
    assert 'slice index 4 of dimension 0 out of bounds.' in str(error)


def test_static_shape_guard():
    assert output_of(ex_static_shape_guard) == '-1\n'


def test_tf_cond_checks_both_branches():
    _, error = error_of(ex_tf_cond_checks_both_branches)
    assert class_names(error)[:2] == ['TypeError', 'Exception']
    assert "('pred must not be a Python bool', False)" in str(error)


def test_dynamic_shape_check_on_static_shape():
    _, error = error_of(ex_dynamic_shape_check_on_static_shape)
    assert class_names(error)[:2] == ['ValueError', 'Exception']
    assert 'slice index 4 of dimension 0 out of bounds.' in str(error)


def test_dynamic_shape_skips_bounds_check():
    assert output_of(ex_dynamic_shape_skips_bounds_check) == '-1.0 5.0\n'


def test_static_or_dynamic_shape_branch():
    assert output_of(ex_static_or_dynamic_shape_branch) == (
        'static shape: 3\n'
        'dynamic shape, using tf.shape\n'
        '3 2\n'
    )


def test_tf_cond_inconsistent_dtypes():
    _, error = error_of(ex_tf_cond_inconsistent_dtypes)
    assert class_names(error)[:2] == ['TypeError', 'Exception']
    assert ('true_fn and false_fn arguments to tf.cond must have the same number, type, and overall structure of '
            'return values.') in str(error)


def test_if_inconsistent_dtypes():
    _, error = error_of(ex_if_inconsistent_dtypes)
    assert class_names(error)[:2] == ['TypeError', 'Exception']
    assert "'x' has dtype int32 in the main branch, but dtype float32 in the else branch" in str(error)


def test_while_loop_dtype_change():
    _, error = error_of(ex_while_loop_dtype_change)
    assert class_names(error)[:2] == ['TypeError', 'Exception']
    assert ("Loop var Const:0 enters the loop with type <dtype: 'int32'> but has type <dtype: 'float32'> after 1 "
            "iteration. Const:0 type should remain constant.") in str(error)


def test_autograph_while_dtype_change():
    _, error = error_of(ex_autograph_while_dtype_change)
    assert class_names(error)[:2] == ['TypeError', 'Exception']
    assert "'x' has dtype int32 before the loop, but dtype float32 after one iteration" in str(error)


def test_while_loop_shape_change():
    _, error = error_of(ex_while_loop_shape_change)
    assert class_names(error)[:2] == ['ValueError', 'Exception']
    assert 'Input tensor `Const:0` enters the loop with shape (), but has shape (3,) after one iteration.' in str(error)


def test_autograph_while_shape_change():
    _, error = error_of(ex_autograph_while_shape_change)
    assert class_names(error)[:2] == ['ValueError', 'Exception']
    assert "'x' has shape () before the loop, but shape (3,) after one iteration." in str(error)


def test_findsource_and_function_without_source():
    text, error = error_of(ex_findsource_and_function_without_source)
    assert text == 'source found: def simple_function():\n'
    assert class_names(error)[:2] == ['OperatorNotAllowedInGraphError', 'TypeError']
    assert 'Using a symbolic `tf.Tensor` as a Python `bool` is not allowed.' in str(error)


def test_nested_lambdas_with_same_argument_name():
    assert output_of(ex_nested_lambdas_with_same_argument_name) == (
        'WARNING:tensorflow:AutoGraph could not transform <function '
        'ex_nested_lambdas_with_same_argument_name.<locals>.<lambda>.<locals>.<lambda> at 0x...> and will run it '
        'as-is.\n'
        'Cause: could not parse the source code of <function '
        'ex_nested_lambdas_with_same_argument_name.<locals>.<lambda>.<locals>.<lambda> at 0x...>: found multiple '
        'definitions with identical signatures at the location. This error may be avoided by defining each lambda on '
        'a single line and with unique argument names. The matching definitions were:\n'
        'Match 0:\n'
        'lambda x: lambda x: x + 1\n'
        '\n'
        'Match 1:\n'
        'lambda x: x + 1\n'
        '\n'
        'To silence this warning, decorate the function with @tf.autograph.experimental.do_not_convert\n'
        '2\n'
    )


def test_nested_lambdas_with_distinct_argument_names():
    assert output_of(ex_nested_lambdas_with_distinct_argument_names) == '2\n'


def test_multiline_lambda_converts():
    assert output_of(ex_multiline_lambda_converts) == '8\n'
