"""The interpreter's plan (runtime/interpret.py): one backward walk decides what runs and what is dropped
early, If/While graphs are planned when they first run, 0-d arithmetic runs as the Python operators the
generated code writes, and whatever it cannot run goes to generated code with the same values and errors."""
import operator

import numpy as np
import pytest

import tensorflux as tf
from tensorflux._src.runtime import codegen, interpret


def same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def first_and_second(fn, *args):
    cf = fn.get_concrete_function(*args)
    first = [np.asarray(t.numpy()) for t in tf.nest.flatten(cf(*args))]
    assert cf._compiled is None          # the first call was interpreted
    second = [np.asarray(t.numpy()) for t in tf.nest.flatten(cf(*args))]
    assert cf._compiled is not None
    return first, second


def branch_and_loop_function():
    @tf.function
    def f(x, n):
        y = x * 2.0
        if tf.reduce_sum(y) > 0:
            y = y + 1.0
        else:
            y = y - 1.0
        total = tf.zeros_like(y)
        for i in tf.range(n):
            total += y * tf.cast(i, tf.float32)
            if tf.reduce_max(total) > 100.0:
                total = total / 2.0
        return tf.sqrt(tf.abs(tf.tanh(total) * y + 1.0)), tf.reduce_sum(y)
    return f


def steps_of(graph_plan, kind):
    return [step for step in graph_plan.steps if step[0] is kind]


def test_a_branch_not_taken_is_never_planned_and_a_taken_one_once():
    f = branch_and_loop_function()
    x, n = tf.constant([1.0, 2.0, 3.0]), tf.constant(5)
    cf = f.get_concrete_function(x, n)
    graph_plan = interpret.plan(cf.graph, cf._trace.flat_outputs, cf.graph.inputs)
    (if_step,) = steps_of(graph_plan, interpret._IF)
    (while_step,) = steps_of(graph_plan, interpret._WHILE)
    assert not any(type(g) is interpret._Plan for g in if_step[1] + while_step[1])   # nothing planned yet
    values = (x.numpy(), n.numpy()) + cf._capture_values()
    out = interpret.run(graph_plan, values)
    then_plan, else_graph = if_step[1]
    assert type(then_plan) is interpret._Plan and else_graph is if_step[6].attrs["else_graph"]
    cond_plan, body_plan = while_step[1]
    assert type(cond_plan) is interpret._Plan and type(body_plan) is interpret._Plan
    (inner_if,) = steps_of(body_plan, interpret._IF)
    # sum(y * i) = [30, 50, 70] never exceeds 100: the halving branch was never planned
    assert type(inner_if[1][0]) is not interpret._Plan and type(inner_if[1][1]) is interpret._Plan
    again = interpret.run(graph_plan, values)
    assert type(body_plan) is interpret._Plan and while_step[1][1] is body_plan    # kept, not planned again
    for a, b in zip(out, again):
        assert same_bits(a, b)
    compiled = codegen.compile_graph(cf.graph, "f", cf._trace.flat_outputs, cf.graph.inputs)
    for a, b in zip(out, compiled.fn(*values)):
        assert same_bits(a, b)


def test_scalar_operators_are_the_generated_codes():
    # the same table as codegen's: an op codegen writes as an operator runs as that operator here
    symbols = dict(codegen._SCALAR_OPERATORS, **codegen._INT_DIVISION_OPERATORS)
    assert set(interpret._SCALAR_FUNCTIONS) == set(symbols) | {"Neg"}
    assert interpret._SCALAR_FUNCTIONS["Neg"] is operator.neg
    for a, b in [(np.float32(7.5), np.float32(-2.0)), (np.int32(7), np.int32(-2)), (np.int64(-9), np.int64(4))]:
        for op_type, symbol in symbols.items():
            if op_type == "RealDiv" and a.dtype.kind != "f":
                continue
            expected = eval(f"a {symbol} b")
            assert same_bits(interpret._SCALAR_FUNCTIONS[op_type](a, b), expected), (op_type, a, b)


def test_zero_d_arithmetic_and_comparisons_match_the_compiled_call():
    @tf.function
    def f(a, b, k, m):
        s = a * b - a / b + (-a)
        c = tf.cast(tf.logical_and(s > b, tf.not_equal(a, b)), tf.float32)
        q = k // 3 + k % 4 - m * k
        r = tf.math.floordiv(k, m)               # divisor not a constant: the kernel (TensorFlow's error on 0)
        for i in tf.range(q % 5 + 2):
            s += tf.cast(i, tf.float32) * 0.1
        return s, c, q, r, tf.cast(a, tf.float16) * tf.cast(b, tf.float16)
    args = tf.constant(1.7), tf.constant(-0.3), tf.constant(17), tf.constant(-4)
    first, second = first_and_second(f, *args)
    for a, b in zip(first, second):
        assert same_bits(a, b)
    with pytest.raises(tf.errors.InvalidArgumentError):
        f(tf.constant(1.0), tf.constant(1.0), tf.constant(3), tf.constant(0))


def test_an_op_list_out_of_order_is_left_to_generated_code():
    f = branch_and_loop_function()
    cf = f.get_concrete_function(tf.constant([1.0, 2.0]), tf.constant(2))
    ops = cf.graph.get_operations()
    assert interpret._plan_ops(ops, cf._trace.flat_outputs, cf.graph.inputs) is not None
    mul = next(k for k, op in enumerate(ops) if op.type == "Mul")
    moved = ops[:mul] + ops[mul + 1:] + [ops[mul]]       # `y = x * 2.0` after its readers
    assert interpret._plan_ops(moved, cf._trace.flat_outputs, cf.graph.inputs) is None


def test_dead_ops_stateful_ops_and_control_inputs():
    v = tf.Variable(1.0)
    log = []

    def record(x):
        log.append(float(x))
        return x

    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def f(x):
        unused = tf.reshape(x, [7])                  # dead and failing if run: never run
        del unused
        v.assign_add(tf.reduce_sum(x))               # stateful: runs
        check = tf.numpy_function(record, [tf.reduce_sum(x) * 10.0], tf.float32)   # read only by a control edge
        with tf.control_dependencies([check]):
            y = tf.identity(x + 1.0)
        return y
    assert f(tf.constant([2.0])).numpy().tolist() == [3.0]
    assert float(v.numpy()) == 3.0 and log == [20.0]


def test_nested_calls_are_inlined_with_their_effects():
    v = tf.Variable(0.0)

    @tf.function
    def inner(x):
        v.assign_add(x)
        return x * 3.0

    @tf.function
    def f(x):
        y = inner(x) + inner(x + 1.0)
        for _ in tf.range(2):
            y = inner(y)
        return y
    cf = f.get_concrete_function(tf.constant(1.0))
    assert interpret.plan(cf.graph, cf._trace.flat_outputs, cf.graph.inputs) is not None
    first = float(cf(tf.constant(1.0)))
    assert cf._compiled is None
    assert first == ((1.0 * 3 + 2.0 * 3) * 3) * 3 and float(v.numpy()) == 1.0 + 2.0 + 9.0 + 27.0
    assert float(cf(tf.constant(1.0))) == first


def test_a_branch_only_generated_code_runs_is_compiled_alone():
    @tf.function
    def f(ds, flag):
        total = tf.constant(0, tf.int64)
        if flag > 0:
            for v in ds:         # a dataset loop: generated code only
                tf.debugging.assert_less(v, tf.constant(9, tf.int64), message="too big")
                total += v
        else:
            total = tf.constant(-1, tf.int64)
        return total * 2
    ds = tf.data.Dataset.range(5)
    cf = f.get_concrete_function(ds, tf.constant(1))
    assert cf(ds, tf.constant(1)).numpy() == 20
    assert cf._compiled is None        # the function itself was interpreted
    assert cf(ds, tf.constant(1)).numpy() == 20 and cf(ds, tf.constant(0)).numpy() == -2

    big = tf.data.Dataset.range(12)
    cf = f.get_concrete_function(big, tf.constant(1))
    messages = []
    for _ in range(2):       # interpreted (the branch compiled alone), then the whole function compiled
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            cf(big, tf.constant(1))
        messages.append(str(info.value))
    assert cf._compiled is not None
    assert "node assert_less/Assert" in messages[0] and messages[0] == messages[1]


def test_large_values_are_dropped_inside_a_loop_body_too():
    import tracemalloc

    @tf.function
    def f(x, n):
        for _ in tf.range(n):
            y = x * 1.5
            for _ in range(6):      # unrolled in the body: seven ops on 1M floats per iteration
                y = y + 1.0
            x = y - 10.0
        return x
    x = tf.constant(np.ones(1 << 20, np.float32))
    cf = f.get_concrete_function(x, tf.constant(2))
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        out = cf(x, tf.constant(2))     # interpreted
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert cf._compiled is None
    assert peak < 4.5 * x.numpy().nbytes, peak      # not seven intermediates per iteration
    expected = np.ones(1 << 20, np.float32)
    for _ in range(2):
        expected = expected * np.float32(1.5) + np.float32(6.0) - np.float32(10.0)
    assert same_bits(out.numpy(), expected)


def test_a_pure_op_named_only_as_a_control_input_runs():
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def f(x):
        with tf.control_dependencies([tf.reshape(x, [2])]):     # fails for any other size
            y = tf.identity(x + 1.0)
        return y
    assert f(tf.constant([1.0, 2.0])).numpy().tolist() == [2.0, 3.0]
    cf = f.get_concrete_function()
    messages = []
    for _ in range(2):
        cf._compiled, cf._fn, cf._interpret_first = None, None, len(messages) == 0
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            cf(tf.constant([1.0, 2.0, 3.0]))
        messages.append(str(info.value))
    assert "node Reshape" in messages[0] and messages[0] == messages[1]


def test_first_call_drops_an_added_zero_as_the_compiled_code_and_tensorflow_do():
    """TensorFlow 2.21's tf.function gives x*0.0 + 0.0 = -0.0 for negative x (grappler drops the `+ 0`);
    the generated code's simplification does too, and the first call (the interpreter) now as well."""
    x = tf.constant([-1.0, 2.0])
    for fn in (lambda x: x * 0.0 + 0.0, lambda x: 0.0 + x * 0.0):
        f = tf.function(fn)
        signs = [np.signbit(f(x).numpy()).tolist() for _ in range(3)]
        assert signs == [[True, False]] * 3
    # a zero that widens x is no identity: computed (+0.0), on every call
    f = tf.function(lambda s: s * 0.0 + tf.zeros([2]))
    assert [np.signbit(f(tf.constant(-1.0)).numpy()).tolist() for _ in range(3)] == [[False, False]] * 3
