"""tf.debugging.compare_eager: finds the first graph op whose value departs from the eager run, and the
side effects (variables, printed text) and gradients that differ; silent on functions that are fine."""
import numpy as np
import pytest

import tensorflux as tf

SCALE = 2.0
COUNT = 1.0


def scaled(x):
    y = x * SCALE
    for _ in tf.range(3):
        y = tf.tanh(y) + 0.5
    if tf.reduce_sum(y) > 0:
        y = y * 3.0
    return y


def test_a_function_that_is_fine_is_reported_equal():
    f = tf.function(scaled)
    report = tf.debugging.compare_eager(f, tf.constant([1.0, -2.0]), gradients=True)
    assert report.equal and bool(report)
    assert report.compared_ops >= 8            # the mul, three tanh/add pairs, the sum, the comparison...
    assert str(report).startswith("equal:")


def test_a_global_changed_after_tracing_is_found_at_the_op_that_read_it():
    global SCALE
    f = tf.function(scaled)
    x = tf.constant([1.0, -2.0])
    f(x)
    SCALE = 3.0
    try:
        report = tf.debugging.compare_eager(f, x, gradients=True)
    finally:
        SCALE = 2.0
    assert not report.equal and not report.outputs_equal
    diff = report.first_difference
    assert (diff.op_type, diff.source[1]) == ("Mul", scaled.__code__.co_firstlineno + 1)
    assert diff.source_line == "y = x * SCALE"
    np.testing.assert_allclose(diff.eager_value, [3.0, -6.0])
    np.testing.assert_allclose(diff.traced_value, [2.0, -4.0])
    assert diff.max_difference == 2.0
    assert "argument 0" in report.gradient_differences
    assert "y = x * SCALE" in str(report)


def test_a_differing_kernel_inside_a_loop_names_the_op_and_the_iteration():
    f = tf.function(scaled)
    x = tf.constant([0.5, 0.25])
    concrete = f.get_concrete_function(x)
    concrete._executable()
    namespace = concrete._compiled.namespace
    kernel_names = [k for k in namespace if k.startswith("k_Tanh")]
    assert kernel_names, sorted(namespace)
    calls = {"n": 0}
    original = namespace[kernel_names[0]]

    def third_call_is_wrong(a):     # planted: the graph's Tanh kernel goes wrong on the third iteration
        calls["n"] += 1
        out = original(a)
        return out + 0.25 if calls["n"] == 3 else out

    namespace[kernel_names[0]] = third_call_is_wrong
    report = tf.debugging.compare_eager(f, x)
    diff = report.first_difference
    assert diff.op_type == "Tanh" and diff.in_loop and diff.occurrence == 2
    assert diff.max_difference == pytest.approx(0.25)
    assert "iteration 2" in str(diff)


def test_python_side_effects_and_variables_are_compared():
    v = tf.Variable(0.0)

    @tf.function
    def step(x):
        print("tracing")                   # runs when traced, not on later calls
        v.assign_add(COUNT)                # COUNT read as a constant at trace time
        return x + v

    step(tf.constant(1.0))
    before = v.numpy()
    report = tf.debugging.compare_eager(step, tf.constant(1.0))
    assert report.printed == ("tracing\n", "")
    assert report.variable_differences == {}   # same increment both ways
    assert report.first_difference is None
    assert v.numpy() == before                  # the comparison leaves the variable as it was

    global COUNT
    COUNT = 5.0
    try:
        report = tf.debugging.compare_eager(step, tf.constant(1.0))
    finally:
        COUNT = 1.0
    (name, (eager, traced)), = report.variable_differences.items()
    assert name == v.name and eager == before + 5.0 and traced == before + 1.0
    assert v.numpy() == before


def test_graph_views_show_ops_shapes_sources_and_loop_bodies():
    concrete = tf.function(scaled).get_concrete_function(tf.TensorSpec([None, 2], tf.float32))
    dot = concrete.graph.to_dot()
    assert dot.startswith('digraph "scaled" {') and dot.rstrip().endswith("}")
    assert '"mul\\nMul\\nfloat32(None, 2)\\ntest_compare_eager.py:' in dot
    assert "subgraph cluster_" in dot and ": body" in dot and ": then" in dot
    assert "->" in dot


def test_labels_are_quoted_data():
    @tf.function
    def odd(x):
        return tf.identity(x, name='a"b\\c')
    dot = odd.get_concrete_function(tf.constant(1.0)).graph.to_dot()
    assert 'a\\"b\\\\c' in dot


def test_the_test_switch_checks_every_call():
    @tf.function
    def doubled(x):
        return x * SCALE

    tf.config.experimental.compare_with_eager(doubled)
    try:
        assert float(doubled(tf.constant(2.0))) == 4.0
        globals()["SCALE"] = 3.0
        with pytest.raises(AssertionError, match="departs from its eager run"):
            doubled(tf.constant(2.0))
    finally:
        globals()["SCALE"] = 2.0
        tf.config.experimental.compare_with_eager(doubled, enabled=False)
    assert float(doubled(tf.constant(2.0))) == 4.0


def test_show_renders_svg_when_graphviz_is_installed():
    pytest.importorskip("graphviz")
    import shutil
    if shutil.which("dot") is None:
        pytest.skip("Graphviz's dot program is not installed")
    svg = tf.debugging.show(tf.function(scaled), tf.constant([1.0, 2.0]))
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg and "Tanh" in svg
