"""Closures made inside converted loops see the values TensorFlow 2.21's AutoGraph gives them (recorded by
running the same functions under TensorFlow): a name that is assigned before it is read in the body and
not read after the loop is local to each iteration's body function, so a lambda keeps its iteration's
value; loop variables (read by the test, read after the loop, or first bound inside a nested `if`) are
shared, and a lambda sees their final value."""
import tensorflux as tf


def values(results):
    return [int(t) for t in results]


def test_for_target_not_read_after_the_loop_is_per_iteration():
    @tf.function
    def scaled(x):
        fns = []
        for i in range(3):
            fns.append(lambda: x * i)
        return [f() for f in fns]

    assert values(scaled(tf.constant(1))) == [0, 1, 2]


def test_temporary_assigned_first_in_the_body_is_per_iteration():
    @tf.function
    def scaled(x):
        fns = []
        for i in range(3):
            j = i * 10
            fns.append(lambda: x * j)
        return [f() for f in fns]

    assert values(scaled(tf.constant(1))) == [0, 10, 20]


def test_for_target_read_after_the_loop_is_shared():
    @tf.function
    def scaled(x):
        fns = []
        for i in range(3):
            fns.append(lambda: x * i)
        return [f() for f in fns] + [i]

    assert values(scaled(tf.constant(1))) == [2, 2, 2, 2]


def test_while_loop_variable_is_shared():
    @tf.function
    def scaled(x):
        fns = []
        i = 0
        while i < 3:
            fns.append(lambda: x * i)
            i += 1
        return [f() for f in fns]

    assert values(scaled(tf.constant(1))) == [3, 3, 3]


def test_name_bound_in_a_nested_if_is_shared():
    @tf.function
    def scaled(x):
        fns = []
        for i in range(3):
            if i > 0:
                k = i
            else:
                k = -1
            fns.append(lambda: x * k)
        return [f() for f in fns]

    assert values(scaled(tf.constant(1))) == [2, 2, 2]


def test_while_test_name_assigned_without_reading_it_stays_a_loop_variable():
    @tf.function
    def count_down():
        remaining = [0, 1, 2]
        x = 3
        steps = 0
        while x > 0:   # were x local to the body, the test would never see it change (pop would fail)
            x = remaining.pop()
            steps += 1
        return steps

    assert int(count_down()) == 3
