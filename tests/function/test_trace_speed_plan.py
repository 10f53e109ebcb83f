"""The first call's plan (runtime/interpret.py) after the tracing-speed work: the shortcuts it takes
(kernel ops decided before the type checks, inline_calls returning a call-free list as it is, prune's
single liveness test per op) must keep what runs and what it computes."""
import numpy as np

import tensorflux as tf
from tensorflux._src.runtime import interpret
from tensorflux._src.runtime.passes.inline import inline_calls
from tensorflux._src.runtime.passes.prune import prune

F32 = tf.float32


def concrete(fn, *specs):
    return tf.function(fn, autograph=False).get_concrete_function(*specs)


def test_inline_without_calls_returns_a_fresh_list_of_the_same_ops():
    cf = concrete(lambda x: tf.tanh(x * 2.0) + 1.0, tf.TensorSpec([3], F32))
    ops = cf.graph.get_operations()
    remap = {}
    out = inline_calls(ops, remap)
    assert out == ops and out is not ops and remap == {}
    out.pop()      # the caller may edit its list: the graph's own op list is untouched
    assert len(cf.graph.get_operations()) == len(ops)


def test_inline_still_expands_a_nested_call_after_plain_ops():
    inner = tf.function(lambda y: y * 3.0, autograph=False)
    cf = concrete(lambda x: inner(x + 1.0) - 2.0, tf.TensorSpec([], F32))
    ops = inline_calls(cf.graph.get_operations(), {})
    types = [op.type for op in ops]
    assert "PartitionedCall" not in types and "StatefulPartitionedCall" not in types
    assert "Mul" in types
    assert float(cf(tf.constant(1.0))) == (1.0 + 1.0) * 3.0 - 2.0


def test_prune_keeps_control_inputs_and_stateful_ops_and_drops_dead_ones():
    v = tf.Variable(1.0)

    def f(x):
        x * 7.0                              # read by nothing: pruned
        v.assign_add(1.0)                    # stateful: kept
        with tf.control_dependencies([tf.math.abs(x)]):   # reachable only as a control input
            y = tf.identity(x + 1.0)
        return y
    cf = concrete(f, tf.TensorSpec([], F32))
    graph = cf.graph
    kept = prune(graph.get_operations(), cf.outputs, True)
    kept_ids = {id(op) for op in kept}
    by_type = {}
    for op in graph.get_operations():
        by_type.setdefault(op.type, []).append(op)
    assert all(id(op) not in kept_ids for op in by_type["Mul"])
    assert any(id(op) in kept_ids for op in by_type["AssignAddVariableOp"])
    assert any(id(op) in kept_ids for op in by_type["Abs"])
    assert all(id(op) in kept_ids for op in by_type["Placeholder"])
    assert [op for op in graph.get_operations() if id(op) in kept_ids] == kept     # order kept


def test_first_call_runs_a_user_no_op_and_control_flow_as_the_compiled_call():
    v = tf.Variable(0.0)

    @tf.function
    def f(x, n):
        tf.no_op()                           # a NoOp with its OpDef: planned as a kernel op
        total = tf.zeros_like(x)
        for i in tf.range(n):
            total += x * tf.cast(i, F32)
            if tf.reduce_max(total) > 5.0:
                total = total / 2.0
        v.assign_add(1.0)
        return tf.sqrt(tf.abs(total)), tf.reduce_sum(total)

    x, n = tf.constant([1.0, -2.0, 3.0]), tf.constant(5)
    cf = f.get_concrete_function(x, n)
    graph_plan = interpret.plan(cf.graph, cf.outputs, cf.graph.inputs)
    assert graph_plan is not None
    first = [t.numpy() for t in f(x, n)]        # interpreted
    second = [t.numpy() for t in f(x, n)]       # generated code
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
    assert float(v.numpy()) == 2.0
