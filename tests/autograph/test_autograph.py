"""AutoGraph: Python control flow on tensors staged as graph control flow.

The backbone is differential: each function runs eagerly (plain Python on eager tensors) and traced
(AutoGraph → If/While ops → generated code), on inputs that take every branch and zero/one/many
iterations, and the results must agree.
"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tensorflux as tf


def both(fn, *args):
    eager = fn(*args)
    traced = tf.function(fn)(*args)
    return eager, traced


def assert_same(fn, *args):
    eager, traced = both(fn, *args)
    np.testing.assert_allclose(np.asarray(traced), np.asarray(eager), rtol=1e-6)
    return traced


def op_types(fn, *args):
    return [op.type for op in tf.function(fn).get_concrete_function(*args).graph.get_operations()]


def sign_of_sum(x):
    if tf.reduce_sum(x) > 0:
        y = x * 2
    elif tf.reduce_sum(x) < 0:
        y = -x
    else:
        y = x
    return y


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(-5, 5), min_size=1, max_size=4))
def test_if_elif_else_on_tensors(values):
    assert_same(sign_of_sum, tf.constant(values))


def test_tensor_if_builds_one_if_op_per_statement():
    types = op_types(sign_of_sum, tf.constant([1]))
    assert sum(t in ("If", "StatelessIf") for t in types) == 1  # the elif is nested in the else branch


def test_python_condition_stays_python():
    def f(x, flag):
        if flag:
            x = x + 1
        return x

    assert "StatelessIf" not in op_types(f, tf.constant(1), True)
    assert tf.function(f)(tf.constant(1), True).numpy() == 2


def tanh_loop(x):
    while tf.reduce_sum(x) > 1:
        x = tf.tanh(x)
    return x


@settings(max_examples=20, deadline=None)
@given(st.lists(st.floats(0.0, 3.0), min_size=1, max_size=5))
def test_while_on_tensor_condition(values):
    x = tf.constant(values, dtype=tf.float32)
    assert_same(tanh_loop, x)


def count_up(n):
    i = 0
    total = tf.constant(0)
    while i < n:
        total += i
        i += 1
    return total


@pytest.mark.parametrize("n", [0, 1, 7])
def test_while_with_python_counter_becomes_loop_variable(n):
    traced = tf.function(count_up)(tf.constant(n))
    assert traced.numpy() == sum(range(n))


def add_10_python(x):
    for _ in range(10):
        x += 1
    return x


def add_10_tensor(x):
    for _ in tf.range(10):
        x += 1
    return x


def test_python_range_unrolls_and_tf_range_is_one_while():
    python_types = op_types(add_10_python, tf.constant(0))
    tensor_types = op_types(add_10_tensor, tf.constant(0))
    assert python_types.count("AddV2") == 10 and "StatelessWhile" not in python_types
    assert tensor_types.count("StatelessWhile") == 1 and tensor_types.count("AddV2") <= 1
    assert tf.function(add_10_tensor)(tf.constant(0)).numpy() == 10


@pytest.mark.parametrize("n", [0, 1, 5, 40])
def test_tf_range_loop_has_one_while_whatever_the_trip_count(n):
    def f(x, n):
        for i in tf.range(n):
            x += i
        return x

    fn = tf.function(f)
    assert fn(tf.constant(0), tf.constant(n)).numpy() == sum(range(n))
    types = [op.type for op in fn.get_concrete_function(tf.constant(0), tf.constant(n)).graph.get_operations()]
    assert types.count("StatelessWhile") == 1


def test_for_over_a_tensor_iterates_its_rows():
    def f(m):
        total = tf.zeros([2])
        for row in m:
            total += row
        return total

    m = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    assert_same(f, m)


def with_break(n):
    total = tf.constant(0)
    for i in tf.range(n):
        if i > 3:
            break
        total += i
    return total


def with_continue(n):
    total = tf.constant(0)
    for i in tf.range(n):
        if i % 2 == 0:
            continue
        total += i
    return total


@pytest.mark.parametrize("n", [0, 2, 10])
def test_break_and_continue_in_tensor_loops(n):
    assert tf.function(with_break)(tf.constant(n)).numpy() == sum(i for i in range(min(n, 4)))
    assert tf.function(with_continue)(tf.constant(n)).numpy() == sum(i for i in range(n) if i % 2)


def test_break_in_python_loop():
    def f(x):
        for i in range(10):
            if i == 3:
                break
            x += 1
        return x

    assert tf.function(f)(tf.constant(0)).numpy() == 3


def early_return(x):
    if x > 0:
        return x * 10
    return -x


@pytest.mark.parametrize("v", [-3, 0, 4])
def test_return_inside_tensor_if(v):
    assert_same(early_return, tf.constant(v))


def test_return_inside_loop():
    def first_over(xs, limit):
        for x in xs:
            if x > limit:
                return x
        return -1

    assert tf.function(first_over)([1, 5, 9], 4) == 5 or tf.function(first_over)([1, 5, 9], 4).numpy() == 5


def logic(x):
    return tf.logical_and(x > 0, x < 10) if x > 5 and x < 8 or not x < 100 else x > 50


@pytest.mark.parametrize("v", [-1, 6, 9, 150])
def test_and_or_not_and_conditional_expressions(v):
    eager, traced = both(logic, tf.constant(v))
    assert bool(eager) == bool(traced)


def test_nested_loops_and_conditionals():
    def f(n):
        total = tf.constant(0)
        for i in tf.range(n):
            j = tf.constant(0)
            while j < i:
                if (i + j) % 3 == 0:
                    total += 1
                j += 1
        return total

    expected = sum(1 for i in range(6) for j in range(i) if (i + j) % 3 == 0)
    assert tf.function(f)(tf.constant(6)).numpy() == expected


def test_user_functions_are_converted_recursively():
    def helper(x):
        if x > 0:
            return x
        return -x

    def f(x):
        return helper(x) + 1

    assert tf.function(f)(tf.constant(-4)).numpy() == 5


def test_variable_defined_in_one_branch_and_used_after_fails_clearly():
    def f(x):
        if x > 0:
            y = x
        return y  # noqa: F821

    with pytest.raises(ValueError, match="'y' must also be initialized in the else branch"):
        tf.function(f)(tf.constant(1))


def test_loop_variable_changing_dtype_fails_with_its_name():
    def f(n):
        x = tf.constant(0)
        for _ in tf.range(n):
            x = tf.cast(x, tf.float32)
        return x

    with pytest.raises(TypeError, match="'x' has dtype int32 before the loop, but dtype float32"):
        tf.function(f)(tf.constant(3))


def test_loop_variable_changing_shape_suggests_shape_invariants():
    def f(n):
        x = tf.constant([1])
        for _ in tf.range(n):
            x = tf.concat([x, x], 0)
        return x

    with pytest.raises(ValueError, match="'x' has shape \\(1,\\) before the loop.*set_loop_options to set shape invariants"):
        tf.function(f)(tf.constant(3))


def test_set_loop_options_relaxes_a_shape():
    def f(n):
        x = tf.constant([1])
        for _ in tf.range(n):
            tf.autograph.experimental.set_loop_options(shape_invariants=[(x, tf.TensorShape([None]))])
            x = tf.concat([x, x], 0)
        return x

    assert tf.function(f)(tf.constant(3)).shape.as_list() == [8]


def test_loop_local_temporary_is_not_a_loop_variable():
    def f(n):
        total = tf.constant(0)
        for i in tf.range(n):
            tmp = i * 2
            total += tmp
        return total

    assert tf.function(f)(tf.constant(4)).numpy() == 12


def test_tensor_array_in_a_loop_dynamic_rnn():
    def rnn(inputs, state):
        steps = tf.TensorArray(tf.float32, size=inputs.shape[0])
        for i in tf.range(inputs.shape[0]):
            state = inputs[i] + state
            steps = steps.write(i, state)
        return steps.stack()

    inputs = tf.reshape(tf.range(12, dtype=tf.float32), [3, 4])
    eager, traced = both(rnn, inputs, tf.zeros([4]))
    np.testing.assert_allclose(traced.numpy(), eager.numpy())
    assert traced.shape.as_list() == [3, 4]


def test_tensor_array_operations_eager_and_traced():
    def f(x):
        ta = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
        ta = ta.unstack(x)
        ta = ta.write(3, tf.constant([7, 7]))
        return ta.stack(), ta.read(1), ta.size(), ta.gather([0, 3]), ta.concat()

    x = tf.constant([[1, 2], [3, 4], [5, 6]])
    eager, traced = both(f, x)
    for e, t in zip(eager, traced):
        np.testing.assert_array_equal(e.numpy(), t.numpy())


def test_to_code_returns_readable_converted_source():
    def f(x):
        if x > 0:
            x = x + 1
        return x

    code = tf.autograph.to_code(f)
    # TensorFlow's generated form: a tf__ def, a FunctionScope, the if as an ag__.if_stmt over a state pair.
    assert code.startswith("def tf__f(x):\n    with ag__.FunctionScope('f', 'fscope', ")
    assert "ag__.if_stmt(ag__.ld(x) > 0, if_body, else_body, get_state, set_state, ('x',), 1)" in code
    assert code.endswith("        return fscope.ret(retval_, do_return)\n")


def test_do_not_convert_keeps_python_semantics():
    @tf.autograph.experimental.do_not_convert
    def helper(x):
        if x > 0:
            return x
        return -x

    def f(x):
        return helper(x)

    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError):
        tf.function(f)(tf.constant(1))


def test_autograph_false_disables_conversion():
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError):
        tf.function(early_return, autograph=False)(tf.constant(1))


def test_tf_cond_and_while_loop_directly():
    @tf.function(autograph=False)
    def f(x):
        y = tf.cond(x > 0, lambda: x * 2, lambda: x - 1)
        i, acc = tf.while_loop(lambda i, acc: i < 5, lambda i, acc: (i + 1, acc + i), [0, y])
        return acc

    assert f(tf.constant(3)).numpy() == 16
    assert f(tf.constant(-3)).numpy() == 6
    assert tf.while_loop(lambda i: i < 3, lambda i: (i + 1,), [tf.constant(0)])[0].numpy() == 3


def test_cond_branches_must_agree():
    @tf.function(autograph=False)
    def f(x):
        return tf.cond(x > 0, lambda: x, lambda: tf.cast(x, tf.float32))

    with pytest.raises(TypeError, match="must have the same number, type, and overall structure"):
        f(tf.constant(1))


def test_case_and_switch_case():
    @tf.function
    def f(i):
        return tf.switch_case(i, [lambda: tf.constant(10), lambda: tf.constant(20)], default=lambda: tf.constant(-1))

    assert [f(tf.constant(k)).numpy() for k in (0, 1, 5)] == [10, 20, -1]

    @tf.function
    def g(x):
        return tf.case([(x < 0, lambda: tf.constant(-1)), (x > 0, lambda: tf.constant(1))],
                       default=lambda: tf.constant(0))

    assert [g(tf.constant(k)).numpy() for k in (-3, 0, 3)] == [-1, 0, 1]


def test_only_the_taken_branch_runs_its_side_effects(capfd):
    @tf.function
    def f(x):
        if x > 0:
            tf.print("positive")
        else:
            tf.print("not positive")
        return x

    f(tf.constant(1))
    f(tf.constant(-1))
    assert capfd.readouterr().err.splitlines() == ["positive", "not positive"]


def test_methods_using_super_and_closures_are_converted():
    scale = tf.constant(2.0)

    class Base(tf.Module):
        def call(self, x):
            return x + 1.0

    class Child(Base):
        @tf.function
        def __call__(self, x):
            y = super().call(x)
            if tf.reduce_sum(y) > 0:
                y = y * scale
            return y

    child = Child()
    assert child(tf.constant(1.0)).numpy() == 4.0
    assert child(tf.constant(-5.0)).numpy() == -4.0


def test_lambdas_are_converted():
    f = tf.function(lambda x: x * 2 if x > 0 else -x)
    assert f(tf.constant(3)).numpy() == 6 and f(tf.constant(-4)).numpy() == 4
    g = tf.function(lambda x, y: x > 0 and y > 0)
    assert bool(g(tf.constant(1), tf.constant(2))) and not bool(g(tf.constant(1), tf.constant(-2)))
    assert "ag__.if_exp" in tf.autograph.to_code(lambda x: x if x > 0 else -x)


def test_cond_with_side_effect_only_branches(capfd):
    @tf.function(autograph=False)
    def f(x):
        result = tf.cond(x > 0, lambda: tf.print("positive"), lambda: tf.print("not positive"))
        return x, result is None

    f(tf.constant(1))
    f(tf.constant(-1))
    assert capfd.readouterr().err.splitlines() == ["positive", "not positive"]
