"""A traced function's automatic control output, as TensorFlow 2.21 builds it (expected op lists recorded by
running the same functions in TensorFlow 2.21): when the function returns tensors and holds ops that must run
for their effects (stateful ops, except legacy random ops and unread variable reads), its graph ends with a
`NoOp` after those ops and every returned `Identity` runs after the NoOp. The generated code runs neither."""
import numpy as np

import tensorflux as tf


def ops_of(fn, *args):
    graph = fn.get_concrete_function(*args).graph
    return graph, graph.get_operations()


def controls(op):
    return [c.type for c in op.control_inputs]


def test_print_gets_a_control_output():
    @tf.function
    def f(x):
        tf.print(x)
        return x

    graph, ops = ops_of(f, tf.constant(1.0))
    assert [op.type for op in ops] == ["Placeholder", "StringFormat", "PrintV2", "Identity", "NoOp"]
    assert controls(ops[3]) == ["NoOp"] and controls(ops[4]) == ["PrintV2"]
    assert len(graph.as_graph_def().node) == 5


def test_assign_with_and_without_a_result():
    v = tf.Variable(1.0)

    @tf.function
    def returns(x):
        v.assign(x)
        return x

    @tf.function
    def returns_nothing(x):
        v.assign(x)

    graph, ops = ops_of(returns, tf.constant(1.0))
    assert [op.type for op in ops][-3:] == ["AssignVariableOp", "Identity", "NoOp"]
    assert controls(ops[-1]) == ["AssignVariableOp"] and len(graph.as_graph_def().node) == 5
    graph, ops = ops_of(returns_nothing, tf.constant(1.0))   # TensorFlow: no returned tensor, no NoOp
    assert "NoOp" not in [op.type for op in ops] and len(graph.as_graph_def().node) == 3


def test_pure_and_random_functions_get_none():
    @tf.function
    def pure(x):
        return x * 2

    @tf.function
    def legacy_random(x):
        return x + tf.random.uniform([])

    for fn in (pure, legacy_random):
        _, ops = ops_of(fn, tf.constant(1.0))
        assert "NoOp" not in [op.type for op in ops]
        assert controls(ops[-1]) == []


def test_user_no_op_is_not_an_effect():
    @tf.function
    def f(x):
        tf.no_op()
        return x

    graph, ops = ops_of(f, tf.constant(1.0))
    assert [op.type for op in ops] == ["Placeholder", "NoOp", "Identity"]
    assert len(graph.as_graph_def().node) == 3


def test_nested_call_counts_when_the_callee_has_effects():
    @tf.function
    def printing(x):
        tf.print(x)
        return x

    @tf.function
    def pure(x):
        return x * 2

    @tf.function
    def outer(x):
        return printing(x) + 1

    @tf.function
    def outer_pure(x):
        return pure(x) + 1

    graph, ops = ops_of(outer, tf.constant(1.0))
    assert [op.type for op in ops][-2:] == ["Identity", "NoOp"] and len(graph.as_graph_def().node) == 6
    assert controls(ops[-1]) == ["StatefulPartitionedCall"]
    _, ops = ops_of(outer_pure, tf.constant(1.0))
    assert "NoOp" not in [op.type for op in ops]


def test_every_returned_identity_waits_for_the_no_op():
    @tf.function
    def f(x):
        tf.print(x)
        tf.print(x)
        return x, x

    graph, ops = ops_of(f, tf.constant(1.0))
    assert [op.type for op in ops][-3:] == ["Identity", "Identity", "NoOp"]
    assert controls(ops[-3]) == controls(ops[-2]) == ["NoOp"]
    assert controls(ops[-1]) == ["PrintV2", "PrintV2"] and len(graph.as_graph_def().node) == 8


def test_graph_def_lists_the_control_edges():
    @tf.function
    def f(x):
        tf.print(x)
        return x

    graph = f.get_concrete_function(tf.constant(1.0)).graph
    nodes = {n.name: n for n in graph.as_graph_def().node}
    # TensorFlow 2.21 also writes Identity's input as ["x", "^NoOp"]; the io room's GraphDef exporter drops
    # a control edge to a node exported after it (the NoOp follows the Identity), so only the op says so.
    assert list(nodes["NoOp"].input) == ["^PrintV2"]
    assert [c.name for c in graph.get_operation_by_name("Identity").control_inputs] == ["NoOp"]


def test_generated_code_runs_no_no_op_and_results_hold():
    v = tf.Variable(1.0)

    @tf.function
    def f(x):
        v.assign(x)
        return x * 2

    cf = f.get_concrete_function(tf.constant(1.0))
    assert float(f(tf.constant(3.0))) == 6.0 and float(v.numpy()) == 3.0
    source = cf.generated_source()
    assert "NoOp" not in source and "Identity" not in source   # the returned Identity is still elided
    with tf.GradientTape() as tape:
        tape.watch(v)
        y = f(tf.constant(2.0)) * v
    np.testing.assert_allclose(tape.gradient(y, v).numpy(), 4.0)


def test_inlined_callee_control_output_costs_nothing():
    @tf.function
    def inner(x):
        tf.print(x)
        return x * 3

    @tf.function
    def outer(x):
        return inner(x) + 1

    assert float(outer(tf.constant(1.0))) == 4.0
    source = outer.get_concrete_function(tf.constant(1.0)).generated_source()
    assert "NoOp" not in source and "Identity" not in source
