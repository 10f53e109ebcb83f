"""`for x in dataset` inside a tf.function is one ReduceDataset op, as in TensorFlow 2.21 (expected values
recorded by running the same functions under TensorFlow)."""
import numpy as np
import pytest

import tensorflux as tf


def op_types(fn, *args):
    return [op.type for op in fn.get_concrete_function(*args).graph.get_operations()]


def test_sum_over_a_dataset_is_one_reduce_dataset_op():
    @tf.function
    def total():
        acc = tf.constant(0, dtype=tf.int64)
        for i in tf.data.Dataset.range(5):
            acc += i
        return acc

    assert int(total()) == 10
    types = op_types(total)
    assert types.count("ReduceDataset") == 1
    assert not {"While", "StatelessWhile", "AnonymousIteratorV3"} & set(types)


def test_break_stops_the_reduction():
    @tf.function
    def until_large(ds):
        acc = tf.constant(0, dtype=tf.int64)
        for i in ds:
            if i > 3:
                break
            acc += i
        return acc

    assert int(until_large(tf.data.Dataset.range(10))) == 6
    assert int(until_large(tf.data.Dataset.range(3))) == 3


PAIRS = tf.data.Dataset.from_tensor_slices(([1, 2], [3.0, 4.0]))
BATCHES = tf.data.Dataset.from_tensor_slices(np.ones([5, 2], np.float32)).batch(2)


def test_tuple_elements_unpack():
    @tf.function
    def dot():
        s = tf.constant(0.0)
        for x, y in PAIRS:
            s += tf.cast(x, tf.float32) * y
        return s

    assert float(dot()) == 11.0


def test_loop_variable_shapes_are_relaxed():
    @tf.function
    def stack():
        s = tf.constant(0.0)
        rows = tf.zeros([0, 2])
        for b in BATCHES:   # batches of 2, 2, 1 rows
            s += tf.reduce_sum(b)
            rows = tf.concat([rows, b], 0)
        return s, tf.shape(rows)

    s, shape = stack()
    assert float(s) == 10.0 and shape.numpy().tolist() == [5, 2]


def test_a_loop_without_loop_variables_runs_its_side_effects(capfd):
    @tf.function
    def show():
        for x in tf.data.Dataset.range(2):
            tf.print("element", x)

    show()
    assert capfd.readouterr().err == "element 0\nelement 1\n"
    assert "ReduceDataset" in op_types(show)


def test_a_name_first_bound_in_the_body_must_be_defined_before_the_loop():
    @tf.function
    def last():
        for x in tf.data.Dataset.range(3):
            v = x * 2
        return v

    with pytest.raises(ValueError, match="'v' must be defined before the loop"):
        last()


def test_iter_of_a_dataset_stays_an_iterator_loop():
    @tf.function
    def via_iter():
        s = tf.constant(0, tf.int64)
        for b in iter(tf.data.Dataset.range(4)):
            s += b
        return s

    assert int(via_iter()) == 6
    types = op_types(via_iter)
    assert "ReduceDataset" not in types and "AnonymousIteratorV3" in types


def test_eager_loop_over_a_dataset_is_python():
    total = 0
    for x in tf.data.Dataset.range(4):
        total += int(x)
    assert total == 6


def test_gradients_stop_at_the_reduction():
    v = tf.Variable(1.0)
    ds = tf.data.Dataset.from_tensor_slices([1.0, 2.0])

    @tf.function
    def weighted():
        s = tf.constant(0.0)
        for x in ds:
            s += v * x
        return s

    with tf.GradientTape() as tape:
        y = weighted()
    assert float(y) == 3.0
    assert tape.gradient(y, v) is None   # TensorFlow 2.21: ReduceDataset has no gradient
