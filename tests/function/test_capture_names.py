"""A branch or loop body capturing a tensor of the enclosing graph names its placeholder as TensorFlow 2.21
does (recorded from TensorFlow with the same functions): inside the scope of the op consuming it,
`<op>/<captured op's name>` (`mul/mul`), so the op itself keeps its own name (`mul`, not `mul_1`)."""
import tensorflux as tf

SPECS = (tf.TensorSpec([3]), tf.TensorSpec([], tf.int32))


def _branch(fn, which):
    cf = tf.function(fn).get_concrete_function(*SPECS)
    cond = next(op for op in cf.graph.get_operations() if op.type.endswith("If"))
    return [op.name for op in cond.attrs[which + "_graph"].get_operations()], cf


def test_a_captured_tensor_is_named_in_its_consumers_scope():
    def f(x, n):
        y = x * 2.0
        z = tf.sqrt(x)

        def then():
            return y * 3.0 + z + tf.identity(y)
        return tf.cond(n > 0, then, lambda: x)

    names, cf = _branch(f, "then")
    # TensorFlow: cond/mul/y, cond/mul/mul, cond/mul, cond/add/Sqrt, cond/add, cond/Identity, cond/add_1 (and the
    # output's cond/Identity_1 and an unused cond/Placeholder, which tensorflux adds when exporting)
    assert names == ["mul/y", "mul/mul", "mul", "add/Sqrt", "add", "Identity", "add_1"]
    function = next(fn for fn in cf.graph.as_graph_def().library.function
                    if fn.signature.name.startswith("cond_true"))
    assert [n.name for n in function.node_def] == ["cond/mul/y", "cond/mul", "cond/add", "cond/Identity",
                                                   "cond/add_1", "cond/Identity_1"]
    assert [a.name for a in function.signature.input_arg][:2] == ["cond_mul_mul", "cond_add_sqrt"]


def test_list_inputs_reductions_and_identities_as_tensorflow():
    def f2(x, n):
        y = x * 2.0
        return tf.cond(n > 0, lambda: tf.identity(y), lambda: tf.reduce_sum(y) + x)

    def f3(x, n):
        y = x * 2.0
        return tf.cond(n > 0, lambda: tf.concat([y, x], 0), lambda: tf.add_n([x, y]))

    assert _branch(f2, "then")[0] == ["Identity/mul", "Identity"]
    assert _branch(f2, "else")[0] == ["Sum/mul", "Sum", "add/x", "add"]   # TensorFlow's Sum also has cond/Const
    assert _branch(f3, "then")[0] == ["concat/mul", "concat/x", "concat"]   # and cond/concat/axis
    assert _branch(f3, "else")[0] == ["AddN/x", "AddN/mul", "AddN"]


def test_a_captured_tensor_returned_as_it_is_keeps_its_own_name():
    def f(x, n):
        y = x * 2.0
        return tf.cond(n > 0, lambda: y, lambda: x)

    assert _branch(f, "then")[0] == ["mul"]
    assert _branch(f, "else")[0] == ["x"]
    cf = tf.function(f).get_concrete_function(*SPECS)
    assert cf(tf.constant([1.0, 2.0, 3.0]), tf.constant(1)).numpy().tolist() == [2.0, 4.0, 6.0]


def _loop(x, n):
    y = x * 2.0
    if tf.reduce_sum(y) > 0:
        y = y + 1.0
    total = tf.zeros_like(y)
    for i in tf.range(n):
        total += y * tf.cast(i, tf.float32)
        if tf.reduce_max(total) > 100.0:
            total = total / 2.0
    return total


def test_a_loop_body_and_the_cond_inside_it():
    cf = tf.function(_loop).get_concrete_function(*SPECS)
    loop = next(op for op in cf.graph.get_operations() if op.type.endswith("While"))
    body = [op.name for op in loop.attrs["body_graph"].get_operations()]
    # TensorFlow's body: while/mul/cond/Identity and while/add_1/range/delta are the captures (function
    # arguments while_mul_cond_identity_0, while_add_1_range_delta_0); the inner cond's output is
    # while/cond/Identity
    assert "mul/cond/Identity" in body and "add_1/range/delta" in body
    assert "cond/Identity" in body and "cond/Identity_1" not in body
    assert cf(tf.constant([1.0, 2.0, 3.0]), tf.constant(4)).numpy().tolist() == [18.0, 30.0, 42.0]


def test_a_loop_body_function_passes_its_captures_through_as_tensorflow():
    """TensorFlow 2.21's while_v2 body (recorded from the same function): the counter, the limit and the loop
    variables leave through Identity nodes; the captured inputs are returned as they are, the argument
    `while_n_0` as the output `while_n`."""
    graph_def = tf.function(_loop).get_concrete_function(*SPECS).graph.as_graph_def()
    body = next(fn for fn in graph_def.library.function if fn.signature.name.startswith("while_body"))
    assert [a.name for a in body.signature.input_arg] == [
        "while_while_loop_counter", "while_while_maximum_iterations", "while_placeholder", "while_placeholder_1",
        "while_n_0", "while_mul_cond_identity_0", "while_add_1_range_delta_0"]
    assert [a.name for a in body.signature.output_arg] == [
        "while_identity", "while_identity_1", "while_identity_2", "while_identity_3", "while_n",
        "while_mul_cond_identity", "while_add_1_range_delta"]
    assert dict(body.ret) == {
        "while_identity": "while/Identity:output:0", "while_identity_1": "while/Identity_1:output:0",
        "while_identity_2": "while/Identity_2:output:0", "while_identity_3": "while/Identity_3:output:0",
        "while_n": "while_n_0", "while_mul_cond_identity": "while_mul_cond_identity_0",
        "while_add_1_range_delta": "while_add_1_range_delta_0"}
    assert [n.op for n in body.node_def].count("Identity") == 5    # four outputs and the inner cond's
    user_names = [body.arg_attr[i].attr["_user_specified_name"].s for i in range(4, 7)]
    assert user_names == [b"n", b"cond/Identity", b"range/delta"]
