"""Small eager tensors are captured by value (a Const in the graph), as TensorFlow 2.21's FuncGraph does;
the node lists below were printed by TensorFlow for the same function."""
import tensorflux as tf


def _traced():
    c = tf.constant(2.0)
    b128, b129 = tf.zeros([128]), tf.zeros([129])
    s = tf.constant(["a", "b"])
    v = tf.Variable(1.0)

    @tf.function
    def f(x):
        y = x * c + c
        z = tf.reduce_sum(b128 + 1.0) + tf.reduce_sum(b129 + 1.0)
        w = tf.cond(x > 0, lambda: x * c, lambda: x)
        return y + z + w + v, tf.strings.join([s, s])

    return f, c, f.get_concrete_function(tf.TensorSpec([], tf.float32))


def test_small_eager_tensors_become_consts_named_after_their_first_consumer():
    _, _, cf = _traced()
    nodes = [(n.name, n.op) for n in cf.graph.as_graph_def().node]
    # TensorFlow 2.21's first 21 nodes (the variable read's and StringJoin's names differ elsewhere).
    assert nodes[:21] == [
        ("x", "Placeholder"), ("mul/y", "Const"), ("mul", "Mul"), ("add", "AddV2"), ("add_1/y", "Const"),
        ("add_1/x", "Const"), ("add_1", "AddV2"), ("Const", "Const"), ("Sum", "Sum"), ("add_2/y", "Const"),
        ("add_2/x", "Placeholder"), ("add_2", "AddV2"), ("Const_1", "Const"), ("Sum_1", "Sum"), ("add_3", "AddV2"),
        ("Greater/y", "Const"), ("Greater", "Greater"), ("cond", "StatelessIf"), ("cond/Identity", "Identity"),
        ("add_4", "AddV2"), ("add_5", "AddV2")]
    assert ("StringJoin", "StringJoin") in nodes and not any(
        op == "Placeholder" and name.startswith("StringJoin") for name, op in nodes)


def test_a_branch_takes_the_enclosing_functions_const_as_an_input():
    _, _, cf = _traced()
    branch_nodes = sorted(n.op for fn in cf.graph.as_graph_def().library.function for n in fn.node_def)
    assert branch_nodes == ["Identity", "Identity", "Mul"]     # TensorFlow: no Const inside the branch


def test_captured_inputs_list_values_captured_by_value_too():
    f, c, cf = _traced()
    assert [t is c for t in cf.captured_inputs] == [True, False, False, False, False]
    assert f(tf.constant(3.0))[0].numpy() == 272.0
    assert cf(tf.constant(-1.0))[0].numpy() == 257.0


def test_one_const_per_tensor_and_the_value_is_kept():
    c = tf.constant([1.0, 2.0])

    @tf.function
    def f(x):
        return x * c + c

    graph = f.get_concrete_function(tf.TensorSpec([2], tf.float32)).graph
    assert [op.type for op in graph.get_operations()].count("Const") == 1
    assert f(tf.constant([1.0, 1.0])).numpy().tolist() == [2.0, 4.0]
