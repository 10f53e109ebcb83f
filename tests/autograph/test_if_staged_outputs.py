"""Which symbols a tensor `if` stages as outputs of its If op, and how `for i in tf.range(...)` is staged,
as TensorFlow 2.21 does (every expected value below was printed by TensorFlow 2.21 for the same code)."""
import numpy as np

import tensorflux as tf


def _if_ops(graph):
    return [op for op in graph.get_operations() if op.type in ("If", "StatelessIf")]


def test_return_in_both_branches_stages_the_return_flag_too():
    # TensorFlow's return conversion sets `do_return = True; retval_ = value` in each branch; both are
    # symbols of the `if`, so the If op has two outputs (the flag is a bool output although both branches
    # set it to the Python value True).
    @tf.function
    def relu_branches(x):
        if tf.greater(x, 0):
            return x
        else:
            return 0

    graph = relu_branches.get_concrete_function(tf.constant(1)).graph
    (op,) = _if_ops(graph)
    assert [t.dtype.name for t in op.outputs] == ["bool", "int32"]
    assert relu_branches(tf.constant(-3)).numpy() == 0
    assert relu_branches(tf.constant(4)).numpy() == 4


def test_branch_functions_hold_tensorflows_constants():
    # The else branch also holds the constants of TensorFlow's dtype check of Python values (made while it
    # is traced second): TF's branch functions have these node types.
    @tf.function
    def relu_branches(x):
        if tf.greater(x, 0):
            return x
        else:
            return 0

    library = relu_branches.get_concrete_function(tf.constant(1)).graph.as_graph_def().library
    kinds = {f.signature.name.rsplit("_", 1)[0]: sorted(n.op for n in f.node_def) for f in library.function}
    assert kinds == {"cond_true": ["Const", "Identity", "Identity"],
                     "cond_false": ["Const", "Const", "Const", "Const", "Const", "Identity", "Identity"]}


def test_same_python_number_in_both_branches_becomes_a_tensor():
    seen = []

    @tf.function
    def same_numbers(x):
        if x > 0:
            a = 1
        else:
            a = 1
        seen.append((isinstance(a, tf.Tensor), a.dtype))
        return a

    assert same_numbers(tf.constant(1)).numpy() == 1
    assert seen == [(True, tf.int32)]


def test_outputs_are_ordered_by_symbol_name():
    names = []

    @tf.function
    def order(x):
        if x > 0:
            b = x
            a = x * 2
        else:
            b = x + 1
            a = x
        names.append((a.name, b.name))
        return a, b

    order.get_concrete_function(tf.constant(1))
    assert names == [("cond/Identity:0", "cond/Identity_1:0")]


def test_python_numbers_of_different_dtypes_are_rejected():
    @tf.function
    def mixed(x):
        if x > 0:
            a = 1
        else:
            a = 2.0
        return a

    try:
        mixed(tf.constant(1))
    except TypeError as e:
        assert "'a' has dtype int32 in the main branch, but dtype float32 in the else branch" in str(e)
    else:
        raise AssertionError("expected a TypeError")


def test_range_loop_ops_as_tensorflow_stages_them():
    # The trip count TensorFlow computes for XLA (sub .. Maximum, with zeros_like constants), then the loop.
    # TF's list then has while/maximum_iterations and while/loop_counter before `while`.
    @tf.function
    def add_range(x):
        for i in tf.range(3, 11, 2):
            x += i
        return x

    names = [op.name for op in add_range.get_concrete_function(tf.constant(0)).graph.get_operations()]
    assert names[:14] == ["x", "range/start", "range/limit", "range/delta", "range", "sub", "floordiv", "mod",
                          "zeros_like", "NotEqual", "Cast", "add", "zeros_like_1", "Maximum"]
    assert names[-2:] == ["while", "Identity"]
    assert add_range(tf.constant(0)).numpy() == 24


def test_range_loops_count_as_tensorflow_does():
    @tf.function
    def walk(a, b, d):
        s = tf.constant(0.0)
        n = 0
        for i in tf.range(a, b, d):
            s += tf.cast(i, tf.float32) * 2.0
            n += 1
        return s, n

    cases = {(0, 10, 1): (90.0, 10), (10, 0, -3): (44.0, 4), (2, 3, 5): (4.0, 1), (5, 2, 1): (0.0, 0),
             (0.5, 3.0, 0.7): (12.400001, 4)}
    for args, (total, count) in cases.items():
        s, n = walk(*[tf.constant(v) for v in args])
        assert s.numpy() == np.float32(total) and n.numpy() == count, args

    @tf.function
    def constant_ranges(x):
        for i in tf.range(10, 0, -2):
            x += i
        for i in tf.range(3, 11):
            if i > 6:
                break
            x += i
        return x

    assert constant_ranges(tf.constant(0)).numpy() == 48


def test_names_not_read_after_the_if_are_not_outputs():
    # `t` is assigned in both branches but read only inside them: TensorFlow's liveness makes it local to
    # the branches, so the If has one output (`y`).
    @tf.function
    def with_local(x):
        if x > 0:
            t = x * 3
            y = t + 1
        else:
            t = x
            y = t - 1
        return y

    (op,) = _if_ops(with_local.get_concrete_function(tf.constant(1)).graph)
    assert len(op.outputs) == 1
    assert with_local(tf.constant(2)).numpy() == 7 and with_local(tf.constant(-2)).numpy() == -3


def test_break_flag_set_by_the_last_if_of_a_loop_still_stops_it():
    # the flag is read only by the loop's own test: it must stay an output of the `if` that sets it
    @tf.function
    def first_over(xs, limit):
        found = tf.constant(-1)
        for i in tf.range(tf.size(xs)):
            found = i
            if xs[i] > limit:
                break
        return found

    assert first_over(tf.constant([1, 5, 9, 2]), tf.constant(4)).numpy() == 1
    assert first_over(tf.constant([1, 2]), tf.constant(4)).numpy() == 1


def test_function_falling_off_its_end_after_a_python_if_returns_none():
    @tf.function
    def maybe(x, flag):
        if flag:
            return x

    assert maybe(tf.constant(1), False) is None
    assert maybe(tf.constant(1), True).numpy() == 1
