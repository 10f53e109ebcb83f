"""A tensor `while` whose body only updates variables (no Python name changes in it: no loop variables).
TensorFlow 2.21 runs it; tensorflux raised TypeError ('Operation' object is not iterable) because the
While op of no loop variables has no outputs. Expected values recorded from TensorFlow 2.21."""
import numpy as np

import tensorflux as tf


def test_while_updating_only_a_variable():
    v = tf.Variable(1.0)

    @tf.function
    def f(c):
        while v.read_value() < c:
            v.assign(v * 1.5 + 0.1)
        return v.read_value()
    got = f(tf.constant(1000.0)).numpy()
    assert got.view(np.uint32) == 1150534562        # TensorFlow: np.float32(1182.1135)
    assert v.numpy().view(np.uint32) == 1150534562


def test_while_with_a_variable_condition_and_update():
    w = tf.Variable([1, 2], dtype=tf.int32)

    @tf.function
    def g():
        while tf.reduce_sum(w) < 50:
            w.assign_add([3, 1])
        return w.read_value()
    assert g().numpy().tolist() == [37, 14]
    assert g().numpy().tolist() == [37, 14]          # the condition is false at once: no iteration
