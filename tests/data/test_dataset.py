"""tf.data: sources, transformations, eager iteration, and iteration inside tf.function."""
import numpy as np
import pytest

import tensorflux as tf


def values(ds):
    return [np.asarray(x).tolist() for x in ds.as_numpy_iterator()]


def test_sources_and_transformations():
    assert values(tf.data.Dataset.from_tensor_slices([1, 2, 3]).map(lambda x: x * 2)) == [2, 4, 6]
    assert values(tf.data.Dataset.range(5).filter(lambda x: x % 2 == 0)) == [0, 2, 4]
    assert values(tf.data.Dataset.range(5).batch(2)) == [[0, 1], [2, 3], [4]]
    assert values(tf.data.Dataset.range(5).batch(2, drop_remainder=True)) == [[0, 1], [2, 3]]
    assert values(tf.data.Dataset.range(3).repeat(2).skip(1).take(3)) == [1, 2, 0]
    assert sorted(values(tf.data.Dataset.range(10).shuffle(4, seed=1))) == list(range(10))
    pairs = tf.data.Dataset.from_tensor_slices(([1, 2], [3.0, 4.0]))
    assert [(int(a), float(b)) for a, b in pairs] == [(1, 3.0), (2, 4.0)]
    gen = tf.data.Dataset.from_generator(lambda: iter([(1, 2), (3, 4)]), (tf.int32, tf.int32))
    assert repr(gen).startswith("<_FlatMapDataset element_spec=(TensorSpec(shape=<unknown>, dtype=tf.int32")
    assert [(int(a), int(b)) for a, b in gen] == [(1, 2), (3, 4)]


def test_map_function_is_traced_once():
    traces = []

    def f(x):
        traces.append(1)
        return x + 1

    ds = tf.data.Dataset.from_tensor_slices([1, 2, 3]).map(f)
    assert values(ds) == [2, 3, 4] and len(traces) == 1


def test_for_over_dataset_in_tf_function_is_one_while_loop():
    @tf.function
    def total(ds):
        s = tf.constant(0)
        for x, y in ds:
            s += tf.abs(y - x)
        return s

    small = tf.data.Dataset.from_tensor_slices(([1, 5], [4, 2]))
    big = tf.data.Dataset.from_tensor_slices(([1, 5, 0, 9], [4, 2, 7, 9]))
    assert total(small).numpy() == 6 and total(big).numpy() == 13
    assert total.experimental_get_tracing_count() == 1  # both have element spec (int32[], int32[])
    graph = total.get_concrete_function(small).graph
    # As in TensorFlow, the loop is one ReduceDataset op (the body is its reduce function), not a While.
    assert [op.type for op in graph.get_operations() if op.type in ("While", "StatelessWhile", "ReduceDataset")] == \
        ["ReduceDataset"]


def test_datasets_with_the_same_element_spec_share_a_trace():
    @tf.function
    def count(ds):
        n = tf.constant(0)
        for _ in ds:
            n += 1
        return n

    a = tf.data.Dataset.from_generator(lambda: iter([1, 2, 3]), tf.int32)
    b = tf.data.Dataset.from_generator(lambda: iter([1, 2, 3, 4, 5]), tf.int32)
    assert count(a).numpy() == 3 and count(b).numpy() == 5
    assert count.experimental_get_tracing_count() == 1


def test_iterator_next_inside_tf_function_pulls_every_call(capfd):
    @tf.function
    def consume(it):
        tf.print("Value:", next(it))

    it = iter(tf.data.Dataset.from_tensor_slices([1, 2, 3]))
    for _ in range(3):
        consume(it)
    assert capfd.readouterr().err.splitlines() == ["Value: 1", "Value: 2", "Value: 3"]
    with pytest.raises(tf.errors.OutOfRangeError):
        consume(it)


def test_cardinality():
    ds = tf.data.Dataset.range(10)
    assert ds.cardinality().numpy() == 10
    assert ds.batch(4).cardinality().numpy() == 3
    assert ds.batch(4, drop_remainder=True).cardinality().numpy() == 2
    assert ds.skip(3).take(5).map(lambda x: x * 2).cardinality().numpy() == 5
    assert ds.repeat().cardinality().numpy() == tf.data.INFINITE_CARDINALITY
    assert ds.filter(lambda x: x > 2).cardinality().numpy() == tf.data.UNKNOWN_CARDINALITY
