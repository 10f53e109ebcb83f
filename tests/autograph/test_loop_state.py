"""AutoGraph state as TensorFlow carries it through tensor `if`s and loops: nested structures, compound
symbols (`obj.b`, `lst[0]`, `d['k']`), `global` names, and names first bound inside a loop.

Each function runs eagerly (plain Python) and under tf.function on inputs taking zero, one and many
iterations / both branches; the traced result must equal the eager one.
"""
import collections

import numpy as np
import pytest

import tensorflux as tf

Pair = collections.namedtuple("Pair", ("a", "b"))


def agree(fn, *args):
    eager = fn(*args)
    traced = tf.function(fn)(*args)
    flat_e, flat_t = tf.nest.flatten(eager), tf.nest.flatten(traced)
    assert type(eager) is type(traced)
    assert len(flat_e) == len(flat_t)
    for e, t in zip(flat_e, flat_t):
        np.testing.assert_allclose(np.asarray(t), np.asarray(e))
    return traced


def namedtuple_loop(n):
    p = Pair(tf.constant(0), tf.constant(1.0))
    while n > 0:
        p = Pair(p.a + n, p.b * 2.0)
        n -= 1
    return p


def dict_and_tuple_loop(n):
    d = {"x": tf.constant(1), "y": (tf.constant(2), tf.constant(3))}
    for i in tf.range(n):
        d = {"x": d["x"] + i, "y": (d["y"][1], d["y"][0] + 1)}
    return d


@pytest.mark.parametrize("n", [0, 1, 4])
def test_nested_structures_are_carried_through_loops(n):
    p = agree(namedtuple_loop, tf.constant(n))
    assert isinstance(p, Pair)
    agree(dict_and_tuple_loop, tf.constant(n))


def tuple_in_if(x):
    t = (x, x + 1)
    if x > 0:
        t = (t[1], t[0] * 3)
    return t


@pytest.mark.parametrize("x", [-2, 3])
def test_nested_structures_are_cond_outputs(x):
    agree(tuple_in_if, tf.constant(x))


def test_branches_with_different_structures_fail_as_tensorflow():
    def f(x):
        if x > 0:
            t = (x, x)
        else:
            t = (x,)
        return t

    with pytest.raises(TypeError, match="'t' must have the same nested structure in the main and else branches"):
        tf.function(f)(tf.constant(1))


class Holder:
    def __init__(self):
        self.value = tf.constant(10)


def compound_symbols(n):
    box = Holder()
    items = [tf.constant(5)]
    table = {"k": tf.constant(0)}
    while n > 0:
        box.value -= 1
        items[0] += 2
        table["k"] += n
        n -= 1
    if box.value > 8:
        box.value = box.value * 100
    else:
        items[0] = -items[0]
    return box.value, items[0], table["k"]


@pytest.mark.parametrize("n", [0, 1, 3])
def test_attributes_and_subscripts_are_loop_variables_and_cond_outputs(n):
    agree(compound_symbols, tf.constant(n))


total = 0


def bump_global(x):
    global total
    total = tf.constant(0)
    if x > 0:
        total = total + x
    for i in tf.range(tf.maximum(x, 0)):
        total += i
    return total


@pytest.mark.parametrize("x", [-1, 4])
def test_global_names_modified_in_tensor_control_flow(x):
    agree(bump_global, tf.constant(x))


def defined_in_loop(n):
    for i in tf.range(n):
        last = i * 10
        pair = (i, tf.cast(i, tf.float32))
    return last, pair


def test_name_first_bound_in_loop_is_defined_automatically():
    agree(defined_in_loop, tf.constant(3))


def test_loop_that_never_runs_fails_at_run_time():
    with pytest.raises(tf.errors.InvalidArgumentError, match="loop must iterate at least once to initialize last"):
        tf.function(defined_in_loop)(tf.constant(0))


def test_name_read_before_bound_in_loop_must_be_defined_before():
    def f(n):
        for i in tf.range(n):
            if i == 0:
                x = tf.constant(1)
            else:
                x = x + 1
        return x

    with pytest.raises(ValueError, match="'x' must be defined before the loop"):
        tf.function(f)(tf.constant(3))


def test_loop_local_temporaries_do_not_need_an_iteration():
    def f(n):
        k = tf.constant(0)
        while k < n:
            step = tf.constant(1)
            k += step
        return k

    assert tf.function(f)(tf.constant(0)).numpy() == 0
    assert tf.function(f)(tf.constant(3)).numpy() == 3


def test_loop_variable_dtype_and_shape_messages():
    def dtype_change(n):
        x = tf.constant(1)
        while n > 0:
            x = tf.constant(1.0)
            n -= 1
        return x

    def shape_change(n):
        x = tf.constant(1)
        while n > 0:
            x = tf.constant([1, 2])
            n -= 1
        return x

    with pytest.raises(TypeError, match="'x' has dtype int32 before the loop, but dtype float32 after one iteration"):
        tf.function(dtype_change)(tf.constant(2))
    with pytest.raises(ValueError, match=r"'x' has shape \(\) before the loop, but shape \(2,\) after one iteration"):
        tf.function(shape_change)(tf.constant(2))
