"""flat_map / interleave / reduce trace their function once; datasets made from symbolic tensors; iter() and
next() inside tf.function; FILE auto-sharding of the input of a flat_map/interleave that reads files.

Every expected value was printed by TensorFlow 2.21 running the same code.
"""
import itertools

import numpy as np
import pytest

import tensorflux as tf
from tensorflux._src.data.sharding import ShardPlan, active_plan


def _values(ds):
    return [v.tolist() if isinstance(v, np.ndarray) else v for v in ds.as_numpy_iterator()]


def test_flat_map_python_body_runs_once_and_its_ops_per_element(capfd):
    def repeated(x):
        print("tracing flat_map fn")
        tf.print("running for", x)
        return tf.data.Dataset.from_tensors(x).repeat(x)

    ds = tf.data.Dataset.range(1, 4).flat_map(repeated)
    assert _values(ds) == [1, 2, 2, 3, 3, 3]
    assert _values(ds) == [1, 2, 2, 3, 3, 3]
    out, err = capfd.readouterr()
    assert out == "tracing flat_map fn\n"
    assert err == "running for 1\nrunning for 2\nrunning for 3\n" * 2
    assert repr(ds.element_spec) == "TensorSpec(shape=(), dtype=tf.int64, name=None)"
    assert int(ds.cardinality()) == -2


def test_interleave_side_effect_once_and_nested_function_capturing_the_element():
    counter = itertools.count()

    def make(x):
        k = next(counter)
        return tf.data.Dataset.range(3).map(lambda y: y * 10 + k + x)   # the map captures the element

    ds = tf.data.Dataset.range(2).interleave(make, cycle_length=2)
    assert _values(ds) == [0, 1, 10, 11, 20, 21]
    assert next(counter) == 1


def test_flat_map_of_symbolic_counts_strings_and_windows():
    strings = tf.data.Dataset.from_tensor_slices(["ab", "c"]).flat_map(
        lambda s: tf.data.Dataset.from_tensors(s).repeat(tf.cast(tf.strings.length(s), tf.int64)))
    assert _values(strings) == [b"ab", b"ab", b"c"]
    assert _values(tf.data.Dataset.range(3).flat_map(lambda n: tf.data.Dataset.range(n).skip(1).take(1))) == [1]
    windows = tf.data.Dataset.range(7).window(3, shift=2, drop_remainder=True)
    assert _values(windows.flat_map(lambda d: d.batch(3))) == [[0, 1, 2], [2, 3, 4], [4, 5, 6]]
    pairs = tf.data.Dataset.zip((tf.data.Dataset.range(4), tf.data.Dataset.range(4, 8))).window(2)
    zipped = pairs.flat_map(lambda a, b: tf.data.Dataset.zip((a.batch(2), b.batch(2))))
    assert [(a.tolist(), b.tolist()) for a, b in zipped.as_numpy_iterator()] == [([0, 1], [4, 5]), ([2, 3], [6, 7])]


def test_window_functions_traced_once_and_a_symbolic_scan_state(capsys):
    windows = tf.data.Dataset.range(6).window(2)

    def large(d):
        print("tracing filter")
        return d.reduce(np.int64(0), lambda s, x: s + x) > 2

    def total(d):
        print("tracing map")
        return d.reduce(np.int64(0), lambda s, x: s + x)

    assert _values(windows.filter(large).flat_map(lambda d: d.batch(2))) == [[2, 3], [4, 5]]
    assert _values(windows.map(total)) == [1, 5, 9]
    assert capsys.readouterr().out == "tracing filter\ntracing map\n"
    scanned = tf.data.Dataset.range(2).flat_map(lambda x: tf.data.Dataset.range(3).scan(x, lambda s, y: (s + y, s)))
    assert _values(scanned) == [0, 0, 1, 1, 1, 2]


def test_flat_map_must_return_a_dataset():
    with pytest.raises(TypeError, match=r"The `map_func` argument must return a `Dataset` object. Got <class "
                                        r"'tensorflux.*Tensor'>|Got <class 'tuple'>"):
        tf.data.Dataset.range(2).flat_map(lambda x: (x, x))


def test_reduce_traces_once_and_relaxes_a_growing_state(capsys):
    def add(s, x):
        print("tracing reduce fn")
        return s + x

    assert int(tf.data.Dataset.range(5).reduce(np.int64(0), add)) == 10

    def grow(s, x):
        print("tracing grow", s.shape)
        return tf.concat([s, [x]], 0)

    assert tf.data.Dataset.range(3).reduce(tf.zeros([0], tf.int64), grow).numpy().tolist() == [0, 1, 2]
    assert capsys.readouterr().out == "tracing reduce fn\ntracing grow (0,)\ntracing grow (None,)\n"
    pair = tf.data.Dataset.range(4).reduce((np.int64(0), np.int64(1)), lambda s, x: (s[0] + x, s[1] * (x + 1)))
    assert [int(t) for t in pair] == [6, 24]


def test_reduce_errors_as_tensorflow():
    with pytest.raises(TypeError, match=r"^The element types for the new state must match the initial state. "
                                        r"Expected <dtype: 'int64'> but got <dtype: 'int32'>.$"):
        tf.data.Dataset.range(3).reduce(np.int64(0), lambda s, x: tf.cast(s + x, tf.int32))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"The number of components of the initial state and "
                                                             r"the reduce function output does not match. "
                                                             r"\(initial_state=1, output=2\)."):
        tf.data.Dataset.range(3).reduce(np.int64(0), lambda s, x: (s, x))


def test_reduce_and_datasets_of_arguments_inside_tf_function():
    @tf.function
    def total(n):
        return tf.data.Dataset.range(n).reduce(tf.constant(0, tf.int64), lambda s, x: s + x)

    assert (int(total(tf.constant(5, tf.int64))), int(total(tf.constant(7, tf.int64)))) == (10, 21)

    @tf.function
    def summed(v):
        s = tf.constant(0)
        for x in tf.data.Dataset.from_tensor_slices(v):
            s += x
        return s

    assert (int(summed(tf.constant([1, 2, 3]))), int(summed(tf.constant([4, 5])))) == (6, 9)

    @tf.function
    def literal():
        s = tf.constant(0)
        for x in tf.data.Dataset.from_tensor_slices([1, 2, 3]):
            s += x
        return s

    assert int(literal()) == 6


def test_datasets_derived_from_a_dataset_argument_inside_tf_function():
    @tf.function
    def doubled_batch_sums(ds):
        s = tf.constant(0, tf.int64)
        for x in ds.map(lambda v: v * 2).batch(2):
            s += tf.reduce_sum(x)
        return s

    assert (int(doubled_batch_sums(tf.data.Dataset.range(4))), int(doubled_batch_sums(tf.data.Dataset.range(6)))) \
        == (12, 30)

    @tf.function
    def first_two(ds):
        return ds.take(2).reduce(tf.constant(0, tf.int64), lambda a, b: a + b)

    assert int(first_two(tf.data.Dataset.range(10, 20))) == 21


def test_next_on_iter_inside_tf_function():
    @tf.function(autograph=False)
    def first_two(d):
        it = iter(d)
        return next(it), it.get_next()

    assert [int(t) for t in first_two(tf.data.Dataset.range(3, 9))] == [3, 4]

    @tf.function(autograph=False)
    def first_of_new():
        it = iter(tf.data.Dataset.range(3))
        return next(it) + 10 * next(it)

    assert (int(first_of_new()), int(first_of_new())) == (10, 10)   # a new iterator per call
    graph_ops = [op.type for op in first_of_new.get_concrete_function().graph.get_operations()]
    assert graph_ops.count("AnonymousIteratorV3") == 1 and graph_ops.count("IteratorGetNext") == 2


def test_graph_iterator_never_stops_python_iteration_and_ends_with_out_of_range():
    @tf.function(autograph=False)
    def unrolled():
        return list(itertools.islice(iter(tf.data.Dataset.range(2)), 4))   # a graph next() never stops

    with pytest.raises(tf.errors.OutOfRangeError, match="End of sequence"):
        unrolled()


def test_next_on_iter_in_converted_code():
    @tf.function
    def first_two():
        it = iter(tf.data.Dataset.range(3))
        return next(it) + 10 * next(it)

    @tf.function
    def rest_after_next():
        it = iter(tf.data.Dataset.range(5))
        first = it.get_next()
        s = tf.constant(0, tf.int64)
        for x in it:          # continues after the first element
            s += x
        return first, s

    assert int(first_two()) == 10
    assert [int(t) for t in rest_after_next()] == [0, 10]


# -- AutoShardPolicy.FILE finds readers inside flat_map/interleave functions (TensorFlow's _AutoShardDataset,
# 2 workers, worker 1, recorded) --------------------------------------------------------------------------
@pytest.fixture()
def text_files(tmp_path):
    files = []
    for k in range(3):
        path = tmp_path / f"f{k}.txt"
        path.write_text(f"{k}-a\n{k}-b\n")
        files.append(str(path))
    return files


def _read_as_worker(dataset, worker=1, count=2):
    plan = ShardPlan("FILE", count, worker)
    with active_plan(plan):
        lines = [np.asarray(x)[()].decode() for (x,) in dataset._make_arrays()]
    return lines, plan.claimed


def test_file_sharding_shards_the_input_of_a_function_that_reads_files(text_files):
    names = tf.data.Dataset.from_tensor_slices(text_files)
    assert _read_as_worker(names.interleave(tf.data.TextLineDataset, cycle_length=1)) == (["1-a", "1-b"], True)
    assert _read_as_worker(names.flat_map(tf.data.TextLineDataset)) == (["1-a", "1-b"], True)
    assert _read_as_worker(names.map(lambda f: f).flat_map(tf.data.TextLineDataset)) == (["1-a", "1-b"], True)
    listed = tf.data.Dataset.list_files(str(text_files[0]).replace("f0", "*"), shuffle=False)
    assert _read_as_worker(listed.flat_map(lambda f: tf.data.TextLineDataset(f).skip(1))) == (["1-b"], True)
    by_index = tf.data.Dataset.range(3).flat_map(lambda i: tf.data.TextLineDataset(tf.gather(text_files, i)))
    assert _read_as_worker(by_index) == (["1-a", "1-b"], True)
    # The reader's names do not come from the input: the input (range(2)) is sharded, the list read whole.
    fixed = tf.data.Dataset.range(2).flat_map(lambda i: tf.data.TextLineDataset(text_files))
    assert _read_as_worker(fixed) == (["0-a", "0-b", "1-a", "1-b", "2-a", "2-b"], True)
    batched = names.interleave(tf.data.TextLineDataset, cycle_length=1).batch(1).unbatch()
    assert _read_as_worker(batched) == (["1-a", "1-b"], True)


def test_a_function_without_readers_leaves_the_plan_unclaimed(text_files):
    # TensorFlow: FILE raises NotFoundError "Found an unshardable source dataset", AUTO shards as DATA.
    no_files = tf.data.Dataset.range(3).flat_map(lambda i: tf.data.Dataset.from_tensors(tf.strings.as_string(i)))
    assert _read_as_worker(no_files) == (["0", "1", "2"], False)


@pytest.mark.parametrize("kind", ["from_tensor_slices.interleave", "TextLineDataset", "list_files.flat_map"])
def test_fewer_files_than_workers(text_files, kind):
    one = text_files[:1]
    make = {"from_tensor_slices.interleave": lambda: tf.data.Dataset.from_tensor_slices(one).interleave(
                tf.data.TextLineDataset, cycle_length=1),
            "TextLineDataset": lambda: tf.data.TextLineDataset(one),
            "list_files.flat_map": lambda: tf.data.Dataset.list_files(one[0], shuffle=False).flat_map(
                tf.data.TextLineDataset)}[kind]
    # TensorFlow (FILE and AUTO alike): worker 0 of 2 raises, worker 1 gets nothing.
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Could not apply FILE based sharding: the dataset "
                                                             r"only has 1 file\(s\), which is not enough for the "
                                                             r"required 2 shards/workers."):
        _read_as_worker(make(), worker=0)
    assert _read_as_worker(make(), worker=1) == ([], True)


def test_get_next_as_optional_eagerly_and_inside_tf_function():
    @tf.function(autograph=False)
    def present(d):
        optional = iter(d).get_next_as_optional()
        return optional.has_value(), optional.get_value()

    assert [t.numpy().item() for t in present(tf.data.Dataset.range(3, 5))] == [True, 3]

    @tf.function(autograph=False)
    def absent():
        return iter(tf.data.Dataset.range(0)).get_next_as_optional().get_value()

    with pytest.raises(tf.errors.InvalidArgumentError, match="The given optional does not have a value."):
        absent()
    it = iter(tf.data.Dataset.range(1))
    first = it.get_next_as_optional()
    assert (bool(first.has_value()), int(first.get_value())) == (True, 0)
    empty = it.get_next_as_optional()
    assert not bool(empty.has_value())
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"The given optional does not have a value. "
                                                             r"\[Op:OptionalGetValue\]"):
        empty.get_value()
    # An iterator made outside: each call of the function pulls from it, and its end stays the end.
    outside = iter(tf.data.Dataset.range(2))
    pulled = tf.function(lambda: outside.get_next_as_optional().has_value())
    assert [bool(pulled()) for _ in range(4)] == [True, True, False, False]
    assert tf.data.experimental.get_next_as_optional(iter(tf.data.Dataset.range(1))).get_value().numpy() == 0


def test_group_by_window_traces_its_functions_once(capsys):
    def key(x):
        print("tracing key")
        return x % 2

    def reduce_windows(k, w):
        print("tracing reduce")
        return w.batch(3)

    grouped = tf.data.Dataset.range(7).group_by_window(key, reduce_windows, window_size=3)
    assert _values(grouped) == [[0, 2, 4], [1, 3, 5], [6]]
    assert _values(grouped) == [[0, 2, 4], [1, 3, 5], [6]]

    def size(k):
        print("tracing size")
        return k + 2

    sized = tf.data.Dataset.range(9).group_by_window(lambda x: x % 2, lambda k, w: w.batch(5).map(lambda b: (k, b)),
                                                     window_size_func=size)
    assert [(int(a), b.tolist()) for a, b in sized.as_numpy_iterator()] == \
        [(0, [0, 2]), (1, [1, 3, 5]), (0, [4, 6]), (0, [8]), (1, [7])]      # leftovers in key order
    assert capsys.readouterr().out == "tracing key\ntracing reduce\ntracing size\n"
    assert _values(tf.data.Dataset.range(1, 5).group_by_window(lambda x: x % 2, lambda k, w: w.batch(3),
                                                                window_size=3)) == [[2, 4], [1, 3]]


def test_group_by_window_errors():
    with pytest.raises(ValueError, match=r"^Tensor conversion requested dtype int64 for Tensor with dtype int32"):
        tf.data.Dataset.range(3).group_by_window(lambda x: tf.cast(x, tf.int32), lambda k, w: w, window_size=2)
    with pytest.raises(ValueError, match=r"^Invalid `key_func`. `key_func` must return a single `tf.int64` scalar "
                                         r"tensor but its return type is TensorSpec\(shape=\(2,\), dtype=tf.int64, "
                                         r"name=None\).$"):
        tf.data.Dataset.range(3).group_by_window(lambda x: tf.stack([x, x]), lambda k, w: w, window_size=2)
    with pytest.raises(TypeError, match=r"^Invalid `reduce_func`. `reduce_func` must return a single "
                                        r"`tf.data.Dataset` object but its return type is TensorSpec\(shape=\(\), "
                                        r"dtype=tf.int64, name=None\).$"):
        tf.data.Dataset.range(3).group_by_window(lambda x: x, lambda k, w: k, window_size=2)
