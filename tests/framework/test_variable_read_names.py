"""A variable passed as an op's input is read inside that op's name scope, as TensorFlow 2.21 names it; the
node names below were printed by TensorFlow for the same function."""
import tensorflux as tf


def test_variable_inputs_are_read_in_the_consumers_scope():
    v = tf.Variable(2.0)
    w = tf.Variable([[1.0]])

    @tf.function
    def f(x):
        a = x * v                     # converted by the Mul: mul/ReadVariableOp
        b = v * x                     # the variable's own operator reads it first: ReadVariableOp
        c = tf.matmul(tf.reshape(x, [1, 1]), w)
        d = tf.add(v, 1.0)
        e = v + v                     # the left operand by the operator, the right one by the AddV2
        g = tf.reduce_sum(w)
        h = v.read_value() + tf.identity(v)
        return a + b + c + d + e + g + h

    nodes = [(n.name, n.op) for n in f.get_concrete_function(tf.TensorSpec([], tf.float32)).graph.as_graph_def().node]
    reads = [name for name, op in nodes if op == "ReadVariableOp"]
    assert reads == ["mul/ReadVariableOp", "ReadVariableOp", "MatMul/ReadVariableOp", "Add/ReadVariableOp",
                     "ReadVariableOp_1", "add_1/ReadVariableOp", "Sum/ReadVariableOp", "Read/ReadVariableOp",
                     "Identity_1/ReadVariableOp"]
    placeholders = [name for name, op in nodes if op == "Placeholder"]
    assert placeholders == ["x", "mul/ReadVariableOp/resource", "MatMul/ReadVariableOp/resource"]
    assert ("Add/y", "Const") in nodes
    assert f(tf.constant(3.0)).numpy().tolist() == [[6.0 + 6.0 + 3.0 + 3.0 + 4.0 + 1.0 + 4.0]]
