"""bucket_by_sequence_length, group_by_reducer and rejection_resample trace their functions once (a Python
side effect happens once, the graph runs per element), and batch/shuffle/window/padded_batch take tensor
sizes inside traced functions, as TensorFlow 2.21 does. Expected values were printed by TensorFlow 2.21."""
import numpy as np
import pytest

import tensorflux as tf

LENGTHS = [1, 3, 2, 5, 4, 7, 6, 2, 1, 8]


def _sequences():
    def gen():
        for n in LENGTHS:
            yield np.arange(n, dtype=np.int32)
    return tf.data.Dataset.from_generator(gen, output_signature=tf.TensorSpec([None], tf.int32))


def _lists(dataset):
    return [x.numpy().tolist() for x in dataset]


# -- bucket_by_sequence_length ---------------------------------------------------------------------------
def test_bucket_by_sequence_length_traces_its_length_function_once():
    traced = []

    def length(x):
        traced.append(1)
        return tf.shape(x)[0]

    buckets = _sequences().bucket_by_sequence_length(length, [3, 6], [2, 2, 3])
    assert buckets.element_spec == tf.TensorSpec([None, None], tf.int32)
    assert _lists(buckets) == [[[0, 0], [0, 1]], [[0, 1, 2, 0, 0], [0, 1, 2, 3, 4]], [[0, 1], [0, 0]],
                               [[0, 1, 2, 3, 4, 5, 6, 0], [0, 1, 2, 3, 4, 5, 0, 0], [0, 1, 2, 3, 4, 5, 6, 7]],
                               [[0, 1, 2, 3]]]
    assert _lists(buckets)[0] == [[0, 0], [0, 1]]    # a second pass runs the graph again, no new trace
    assert len(traced) == 1


def test_bucket_by_sequence_length_pads_to_the_bucket_boundary():
    buckets = _sequences().bucket_by_sequence_length(lambda x: tf.shape(x)[0], [3, 6, 9], [2, 2, 3, 1],
                                                     pad_to_bucket_boundary=True)
    assert buckets.element_spec == tf.TensorSpec([None, None], tf.int32)
    assert _lists(buckets) == [[[0, 0], [0, 1]], [[0, 1, 2, 0, 0], [0, 1, 2, 3, 4]], [[0, 1], [0, 0]],
                               [[0, 1, 2, 3, 4, 5, 6, 0], [0, 1, 2, 3, 4, 5, 0, 0], [0, 1, 2, 3, 4, 5, 6, 7]],
                               [[0, 1, 2, 3, 0]]]
    over = _sequences().bucket_by_sequence_length(lambda x: tf.shape(x)[0], [3, 6], [2, 2, 3],
                                                  pad_to_bucket_boundary=True)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"When pad_to_bucket_boundary=True, elements must have length < max\(bucket_boundaries\)"):
        _lists(over)


def test_bucket_by_sequence_length_with_tuples_padding_values_and_drop_remainder():
    buckets = _sequences().map(lambda x: (x, tf.size(x))).bucket_by_sequence_length(
        lambda x, y: y, [3, 6], [2, 2, 3], padding_values=(-1, 0), drop_remainder=True)
    assert buckets.element_spec == (tf.TensorSpec([None, None], tf.int32), tf.TensorSpec([None], tf.int32))
    assert [(x.numpy().tolist(), y.numpy().tolist()) for x, y in buckets] == [
        ([[0, -1], [0, 1]], [1, 2]), ([[0, 1, 2, -1, -1], [0, 1, 2, 3, 4]], [3, 5]), ([[0, 1], [0, -1]], [2, 1]),
        ([[0, 1, 2, 3, 4, 5, 6, -1], [0, 1, 2, 3, 4, 5, -1, -1], [0, 1, 2, 3, 4, 5, 6, 7]], [7, 6, 8])]


def test_bucket_by_sequence_length_padded_shapes_and_errors():
    buckets = _sequences().bucket_by_sequence_length(tf.size, [3], [4, 4], padded_shapes=[9])
    assert buckets.element_spec == tf.TensorSpec([None, 9], tf.int32)
    assert _lists(buckets) == [
        [[0, 1, 2, 0, 0, 0, 0, 0, 0], [0, 1, 2, 3, 4, 0, 0, 0, 0], [0, 1, 2, 3, 0, 0, 0, 0, 0],
         [0, 1, 2, 3, 4, 5, 6, 0, 0]],
        [[0, 0, 0, 0, 0, 0, 0, 0, 0], [0, 1, 0, 0, 0, 0, 0, 0, 0], [0, 1, 0, 0, 0, 0, 0, 0, 0],
         [0, 0, 0, 0, 0, 0, 0, 0, 0]],
        [[0, 1, 2, 3, 4, 5, 0, 0, 0], [0, 1, 2, 3, 4, 5, 6, 7, 0]]]
    assert _sequences().bucket_by_sequence_length(tf.size, [3], [2, 2], no_padding=True).element_spec == \
        tf.TensorSpec([None, None], tf.int32)
    with pytest.raises(TypeError, match="type int64 that does not match type int32"):   # lengths are int32
        _sequences().bucket_by_sequence_length(lambda x: tf.size(x, out_type=tf.int64), [3], [2, 2])
    with pytest.raises(ValueError, match=r"`len\(bucket_batch_sizes\)` must equal `len\(bucket_boundaries\) \+ 1` "
                                         r"but `len\(bucket_batch_sizes\)=1` and `len\(bucket_boundaries\)=1`."):
        _sequences().bucket_by_sequence_length(tf.size, [3], [2])


# -- group_by_reducer ------------------------------------------------------------------------------------
def _reducer(traced):
    def init(key):
        traced.append("init")
        return tf.constant(0, tf.int64)

    def reduce(state, x):
        traced.append("reduce")
        return state + x

    def finalize(state):
        traced.append("finalize")
        return state * 10
    return tf.data.experimental.Reducer(init, reduce, finalize)


def test_group_by_reducer_traces_once_and_yields_one_output_per_key_in_key_order():
    traced = []
    grouped = tf.data.Dataset.range(10).apply(tf.data.experimental.group_by_reducer(lambda x: (x + 1) % 3,
                                                                                    _reducer(traced)))
    assert grouped.element_spec == tf.TensorSpec([], tf.int64)
    assert list(grouped.as_numpy_iterator()) == [150, 180, 120]
    assert int(grouped.cardinality()) == -2
    assert sorted(traced) == ["finalize", "init", "reduce"]
    sums = tf.data.experimental.Reducer(lambda k: tf.constant(0, tf.int64), lambda s, x: s + x, lambda s: s)
    grouped = tf.data.Dataset.range(40).apply(tf.data.experimental.group_by_reducer(
        lambda x: (x * 1237) % 9973 - 5000, sums))
    assert list(grouped.as_numpy_iterator())[:8] == [0, 33, 25, 17, 9, 1, 34, 26]
    assert list(tf.data.Dataset.range(0).apply(tf.data.experimental.group_by_reducer(
        lambda x: x, sums)).as_numpy_iterator()) == []


def test_group_by_reducer_structured_and_growing_states():
    pairs = tf.data.experimental.Reducer(lambda k: (k, tf.constant(0.0)),
                                         lambda s, x: (s[0], s[1] + tf.cast(x, tf.float32)),
                                         lambda a, b: {"k": a, "s": b})
    grouped = tf.data.Dataset.range(7).apply(tf.data.experimental.group_by_reducer(lambda x: x % 2, pairs))
    assert grouped.element_spec == {"k": tf.TensorSpec([], tf.int64), "s": tf.TensorSpec([], tf.float32)}
    assert list(grouped.as_numpy_iterator()) == [{"k": 0, "s": 12.0}, {"k": 1, "s": 9.0}]
    growing = tf.data.experimental.Reducer(lambda k: tf.zeros([0], tf.int64), lambda s, x: tf.concat([s, [x]], 0),
                                           lambda s: s)
    grouped = tf.data.Dataset.range(7).apply(tf.data.experimental.group_by_reducer(lambda x: x % 2, growing))
    assert grouped.element_spec == tf.TensorSpec([None], tf.int64)
    assert [x.tolist() for x in grouped.as_numpy_iterator()] == [[0, 2, 4, 6], [1, 3, 5]]
    elements = tf.data.experimental.Reducer(lambda k: (k, tf.constant(0, tf.int64)),
                                            lambda s, e: (s[0], s[1] + e[0] * e[1]), lambda k, s: (k, s))
    grouped = tf.data.Dataset.range(6).map(lambda x: (x, x)).apply(
        tf.data.experimental.group_by_reducer(lambda a, b: a % 2, elements))
    assert [tuple(int(v) for v in e) for e in grouped.as_numpy_iterator()] == [(0, 20), (1, 35)]


def test_group_by_reducer_errors_as_tensorflow():
    sums = tf.data.experimental.Reducer(lambda k: tf.constant(0, tf.int64), lambda s, x: s + x, lambda s: s)
    with pytest.raises(ValueError, match=r"^Invalid `key_func`. Expected `key_func` to return a scalar tf.int64 "
                                         r"tensor, but instead `key_func` has output types=<dtype: 'int32'> and "
                                         r"shapes=\(\).$"):
        tf.data.Dataset.range(7).apply(tf.data.experimental.group_by_reducer(lambda x: tf.cast(x, tf.int32), sums))
    with pytest.raises(ValueError, match=r"output types=<dtype: 'int64'> and shapes=\(1,\).$"):
        tf.data.Dataset.range(7).apply(tf.data.experimental.group_by_reducer(lambda x: tf.fill([1], x), sums))
    to_float = tf.data.experimental.Reducer(lambda k: tf.constant(0, tf.int64), lambda s, x: tf.cast(s, tf.float32),
                                            lambda s: s)
    with pytest.raises(TypeError, match=r"^Invalid `reducer`. The element types for the new state <dtype: "
                                        r"'float32'> do not match the element types of the old state <dtype: "
                                        r"'int64'>.$"):
        tf.data.Dataset.range(7).apply(tf.data.experimental.group_by_reducer(lambda x: x % 2, to_float))


# -- rejection_resample ----------------------------------------------------------------------------------
def test_rejection_resample_traces_its_class_function_once():
    traced = []

    def class_of(x):
        traced.append(1)
        return tf.cast(x % 2, tf.int32)

    resampled = tf.data.Dataset.range(200).rejection_resample(class_of, [0.5, 0.5], seed=1)
    assert resampled.element_spec == (tf.TensorSpec([], tf.int32), tf.TensorSpec([], tf.int64))
    kept = [(int(c), int(x)) for c, x in resampled]
    assert kept and all(c == x % 2 for c, x in kept)
    assert len(traced) == 1
    pairs = tf.data.Dataset.range(20).map(lambda x: (x, x)).rejection_resample(
        lambda x, y: tf.cast(x % 2, tf.int32), [0.5, 0.5])
    assert pairs.element_spec == (tf.TensorSpec([], tf.int32), (tf.TensorSpec([], tf.int64),) * 2)


# -- tensor sizes inside traced functions ----------------------------------------------------------------
def test_tensor_sizes_in_a_tf_function():
    ds = tf.data.Dataset.range(10)

    @tf.function
    def batched(n):
        return ds.batch(n).reduce(tf.constant(0, tf.int64),
                                  lambda s, x: s + tf.reduce_sum(x) * tf.size(x, out_type=tf.int64))

    @tf.function
    def shuffled(n):
        return ds.shuffle(n, seed=5).reduce(tf.constant(0, tf.int64), lambda s, x: s * 10 + x)

    @tf.function
    def windowed(n):
        windows = tf.data.Dataset.range(7).window(n, drop_remainder=True).flat_map(lambda w: w.batch(n))
        return windows.reduce(tf.constant(0, tf.int64), lambda s, x: s * 10 + tf.reduce_sum(x))

    assert int(batched(tf.constant(3, tf.int64))) == 117
    @tf.function
    def shuffled_sum(n):
        return ds.shuffle(n).reduce(tf.constant(0, tf.int64), lambda s, x: s + x)

    assert int(shuffled_sum(tf.constant(4, tf.int64))) == 45
    # A dataset made in a tf.function is made anew by each call: a seeded shuffle repeats its order.
    assert int(shuffled(tf.constant(3, tf.int64))) == int(shuffled(tf.constant(3, tf.int64)))
    assert int(windowed(tf.constant(3, tf.int64))) == 42
    with pytest.raises(tf.errors.InvalidArgumentError, match="Batch size must be greater than zero."):
        batched(tf.constant(0, tf.int64))


def test_tensor_sizes_in_dataset_functions():
    batches = tf.data.Dataset.range(1, 5).flat_map(lambda n: tf.data.Dataset.range(10).batch(n).take(2))
    assert batches.element_spec == tf.TensorSpec([None], tf.int64)
    assert _lists(batches) == [[0], [1], [0, 1], [2, 3], [0, 1, 2], [3, 4, 5], [0, 1, 2, 3], [4, 5, 6, 7]]
    windows = tf.data.Dataset.range(1, 4).flat_map(
        lambda n: tf.data.Dataset.range(6).window(n).flat_map(lambda w: w.batch(10)))
    assert _lists(windows) == [[0], [1], [2], [3], [4], [5], [0, 1], [2, 3], [4, 5], [0, 1, 2], [3, 4, 5]]
    padded = tf.data.Dataset.range(1, 4).flat_map(lambda n: tf.data.Dataset.range(5).padded_batch(n))
    assert _lists(padded) == [[0], [1], [2], [3], [4], [0, 1], [2, 3], [4], [0, 1, 2], [3, 4]]
    shuffled = tf.data.Dataset.range(1, 4).interleave(lambda n: tf.data.Dataset.range(5).shuffle(n, seed=3).take(2),
                                                      cycle_length=1)
    assert len(list(shuffled)) == 6
    dropped = tf.data.Dataset.range(1, 3).flat_map(lambda n: tf.data.Dataset.range(5).batch(n, drop_remainder=True))
    assert dropped.element_spec == tf.TensorSpec([None], tf.int64)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Batch size must be greater than zero."):
        _lists(tf.data.Dataset.range(0, 3).flat_map(lambda n: tf.data.Dataset.range(5).batch(n)))


@pytest.mark.parametrize("method, what, op", [
    (lambda ds, v: ds.batch(v), "batch_size", "BatchDatasetV2"),
    (lambda ds, v: ds.shuffle(v), "buffer_size", "ShuffleDatasetV3"),
    (lambda ds, v: ds.window(v), "size", "WindowDataset"),
    (lambda ds, v: ds.padded_batch(v), "batch_size", "PaddedBatchDatasetV2"),
    (lambda ds, v: ds.take(v), "count", "TakeDataset"),
    (lambda ds, v: ds.prefetch(v), "buffer_size", "PrefetchDataset"),
])
def test_size_arguments_are_converted_as_tensorflow_converts_them(method, what, op):
    ds = tf.data.Dataset.range(5)
    with pytest.raises(ValueError, match=rf"^{what}: Tensor conversion requested dtype int64 for Tensor with dtype "
                                         rf"int32: <tf.Tensor: shape=\(\), dtype=int32, numpy=2>$"):
        method(ds, tf.constant(2))
    with pytest.raises(ValueError, match=rf"^{what}: Tensor conversion requested dtype int64 for Tensor with dtype "
                                         rf"float32"):
        method(ds, tf.constant(2.0))
    with pytest.raises(TypeError, match=r"^Cannot convert 2.0 to EagerTensor of dtype int64$"):
        method(ds, 2.0)
    with pytest.raises(TypeError, match=r"^Cannot convert 'a' to EagerTensor of dtype int64$"):
        method(ds, "a")
    if op != "BatchDatasetV2":    # TensorFlow's batch fails on a vector in Python, before its kernel
        with pytest.raises(tf.errors.InvalidArgumentError, match=rf"{what} must be a scalar"):
            method(ds, tf.constant([2], tf.int64))
    method(ds, tf.constant(2, tf.int64))
    method(ds, np.int32(2))


def test_group_by_window_sizes_are_checked_when_the_dataset_runs():
    keyed = tf.data.Dataset.range(5)
    for made in (lambda: keyed.group_by_window(lambda x: x % 2, lambda k, w: w.batch(5), window_size=0),
                 lambda: keyed.group_by_window(lambda x: x % 2, lambda k, w: w.batch(5),
                                               window_size_func=lambda k: tf.constant(0, tf.int64))):
        grouped = made()     # made without complaint, as in TensorFlow: its kernel checks each window's size
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"Window size must be greater than zero, but got 0."):
            list(grouped)
    with pytest.raises(ValueError, match="Tensor conversion requested dtype int64 for Tensor with dtype int32"):
        keyed.group_by_window(lambda x: x % 2, lambda k, w: w.batch(5), window_size=tf.constant(2))
    nested = tf.data.Dataset.range(1, 4).flat_map(
        lambda n: tf.data.Dataset.range(n * 3).window(n).flat_map(lambda w: w.batch(n)).group_by_window(
            lambda x: tf.reduce_sum(x) % 2, lambda k, w: w.batch(n), window_size=n))
    assert _lists(nested) == [[[0]], [[1]], [[2]], [[0, 1], [2, 3]], [[4, 5]], [[3, 4, 5]], [[0, 1, 2], [6, 7, 8]]]


def test_grouping_inside_a_tf_function():
    @tf.function
    def bucketed(n):
        ds = tf.data.Dataset.range(n).map(lambda x: tf.range(x % 5))
        buckets = ds.bucket_by_sequence_length(lambda x: tf.size(x), [2, 4], [2, 2, 2])
        return buckets.reduce(tf.constant(0, tf.int64),
                              lambda s, x: s * 3 + tf.reduce_sum(x) + tf.size(x, out_type=tf.int64))

    @tf.function
    def reduced(n):
        reducer = tf.data.experimental.Reducer(lambda k: tf.constant(0, tf.int64), lambda s, x: s + x * n,
                                               lambda s: s)
        ds = tf.data.Dataset.range(10).apply(tf.data.experimental.group_by_reducer(lambda x: x % 3, reducer))
        return ds.reduce(tf.constant(0, tf.int64), lambda s, x: s * 1000 + x)

    assert int(bucketed(tf.constant(12, tf.int64))) == 1502
    assert int(reduced(tf.constant(2, tf.int64))) == 36024030


def test_a_shuffled_dataset_made_in_a_tf_function_reshuffles_within_a_run_and_repeats_across_runs():
    ds = tf.data.Dataset.range(6)

    @tf.function
    def two_epochs(n):
        shuffled = ds.shuffle(n, seed=5)
        first = shuffled.reduce(tf.constant(0, tf.int64), lambda s, x: s * 10 + x)
        second = shuffled.reduce(tf.constant(0, tf.int64), lambda s, x: s * 10 + x)
        return first, second

    first_run = [int(x) for x in two_epochs(tf.constant(6, tf.int64))]
    assert first_run[0] != first_run[1]     # TensorFlow 2.21 printed [125034, 215403] twice (its own stream)
    assert [int(x) for x in two_epochs(tf.constant(6, tf.int64))] == first_run
    assert all(sorted(str(v).zfill(6)) == list("012345") for v in first_run)
