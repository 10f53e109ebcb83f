"""Each traced op records the user line that made it (run-time errors and generated code name it).

Looking the line up is most of what recording costs, so the lookup takes short cuts (registry.apply
skips its own frames, an implicit constant takes its consumer's line): these tests pin that the short
cuts still find the innermost user line, through operators, public ops, control flow and user callbacks.
"""
import inspect

import tensorflux as tf


def _line_of(marker, fn):
    lines, start = inspect.getsourcelines(fn)
    for i, text in enumerate(lines):
        if marker in text:
            return start + i
    raise AssertionError(marker)


def _sources(graph):
    return {op.name: op.source for op in graph.get_operations()}


def test_operator_and_its_implicit_constant_name_the_same_user_line():
    def f(x):
        y = x * 2.0  # MUL
        return tf.tanh(y)  # TANH

    graph = tf.function(f).get_concrete_function(tf.constant([1.0])).graph
    src = _sources(graph)
    assert src["mul"] == (__file__, _line_of("# MUL", f))
    assert src["mul/y"] == (__file__, _line_of("# MUL", f))
    assert src["Tanh"] == (__file__, _line_of("# TANH", f))


def test_a_user_callback_called_by_tensorflux_is_the_innermost_user_line():
    def double(v):
        return v + 1.0  # CALLBACK

    def f(x):
        return tf.map_fn(double, x)  # MAP

    graph = tf.function(f).get_concrete_function(tf.constant([1.0, 2.0])).graph
    # the body's add lives in the loop body graph: find it there, through the While's attrs
    seen = []

    def walk(g):
        for op in g.get_operations():
            seen.append(op)
            for value in op.attrs.values():
                inner = getattr(value, "graph", value)
                if hasattr(inner, "get_operations") and inner is not g:
                    walk(inner)
    walk(graph)
    adds = [op for op in seen if op.type == "AddV2" and op.name.endswith("add")]
    assert adds and all(op.source == (__file__, _line_of("# CALLBACK", double)) for op in adds)
    consts = [op for op in seen if op.name.endswith("add/y")]
    assert consts and all(op.source == (__file__, _line_of("# CALLBACK", double)) for op in consts)


def test_ops_made_in_an_autograph_branch_name_the_branch_line():
    def f(x):
        if tf.reduce_sum(x) > 0:  # COND
            x = x - 3.0  # THEN
        else:
            x = tf.abs(x)  # ELSE
        return x

    graph = tf.function(f).get_concrete_function(tf.constant([1.0])).graph
    src = _sources(graph)
    assert src["Sum"] == (__file__, _line_of("# COND", f))
    assert src["Greater/y"] == (__file__, _line_of("# COND", f))
    branch_ops = []
    for op in graph.get_operations():
        for value in op.attrs.values():
            inner = getattr(value, "graph", value)
            if hasattr(inner, "get_operations"):
                branch_ops += inner.get_operations()
    by_type = {op.type: op.source for op in branch_ops}
    assert by_type["Sub"] == (__file__, _line_of("# THEN", f))
    assert by_type["Abs"] == (__file__, _line_of("# ELSE", f))


def test_an_explicit_constant_and_a_kept_conversion_have_their_own_lines():
    def f(x):
        c = tf.constant(4.0)  # CONST
        d = tf.convert_to_tensor(5.0)  # CONVERT
        return x + c + d

    graph = tf.function(f).get_concrete_function(tf.constant(1.0)).graph
    src = _sources(graph)
    assert src["Const"] == (__file__, _line_of("# CONST", f))
    assert src["Const_1"] == (__file__, _line_of("# CONVERT", f))
