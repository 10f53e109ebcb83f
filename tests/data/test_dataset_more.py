"""tf.data transformations beyond the core: padded_batch, unbatch, flat_map, interleave, concatenate,
window, scan, unique, cache, get_single_element, enumerate/zip cardinality, TextLineDataset, list_files.

Expected element specs, values, cardinalities and error messages were printed by TensorFlow 2.21 for
the same pipelines.
"""
import numpy as np
import pytest

import tensorflux as tf

D = tf.data.Dataset
UNKNOWN, INFINITE = -2, -1


def values(ds, count=None):
    return [_plain(x) for x in (ds if count is None else ds.take(count))]


def _plain(element):
    return tf.nest.map_structure(lambda t: t.numpy().tolist(), element)


def ragged():
    """[1], [2, 2], [3, 3, 3], [4, 4, 4, 4] (int64)."""
    return D.range(1, 5).map(lambda x: tf.fill([x], x))


def spec_text(ds):
    return str(ds.element_spec)


# -- padded_batch ------------------------------------------------------------------------------------
def test_padded_batch_pads_to_the_longest_in_each_batch():
    ds = ragged().padded_batch(2)
    # TF 2.21
    assert spec_text(ds) == "TensorSpec(shape=(None, None), dtype=tf.int64, name=None)"
    assert int(ds.cardinality()) == 2
    assert values(ds) == [[[1, 0], [2, 2]], [[3, 3, 3, 0], [4, 4, 4, 4]]]
    assert repr(ds).startswith("<_PaddedBatchDataset")


def test_padded_batch_with_shapes_values_and_drop_remainder():
    ds = ragged().padded_batch(3, padded_shapes=[5], padding_values=tf.constant(-1, tf.int64))
    assert spec_text(ds) == "TensorSpec(shape=(None, 5), dtype=tf.int64, name=None)"  # TF 2.21
    assert values(ds) == [[[1, -1, -1, -1, -1], [2, 2, -1, -1, -1], [3, 3, 3, -1, -1]], [[4, 4, 4, 4, -1]]]
    dropped = ragged().padded_batch(3, drop_remainder=True)
    assert spec_text(dropped) == "TensorSpec(shape=(3, None), dtype=tf.int64, name=None)"
    assert int(dropped.cardinality()) == 1 and values(dropped) == [[[1, 0, 0], [2, 2, 0], [3, 3, 3]]]
    as_tensor = ragged().padded_batch(2, padded_shapes=tf.constant([6]))
    assert spec_text(as_tensor) == "TensorSpec(shape=(None, 6), dtype=tf.int64, name=None)"
    assert values(D.range(5).repeat().padded_batch(2), 3) == [[0, 1], [2, 3], [4, 0]]
    assert int(D.range(5).repeat().padded_batch(2).cardinality()) == INFINITE


def test_padded_batch_of_structures_and_strings():
    pairs = D.zip((ragged(), ragged().map(tf.strings.as_string))).padded_batch(2)
    assert values(pairs)[0] == ([[1, 0], [2, 2]], [[b"1", b""], [b"2", b"2"]])  # TF 2.21
    with_scalars = D.zip((ragged(), D.range(4)))
    expected = [([[1, 9], [2, 2]], [0, 1]), ([[3, 3, 3, 9], [4, 4, 4, 4]], [2, 3])]
    assert values(with_scalars.padded_batch(2, padded_shapes=([None], []), padding_values=(
        tf.constant(9, tf.int64), tf.constant(7, tf.int64)))) == expected
    assert values(with_scalars.padded_batch(2, padding_values=tf.constant(9, tf.int64))) == expected
    named = D.zip({"a": ragged(), "b": D.range(4)}).padded_batch(
        2, padding_values={"a": tf.constant(3, tf.int64), "b": tf.constant(0, tf.int64)})
    assert values(named)[0] == {"a": [[1, 3], [2, 2]], "b": [0, 1]}


def test_padded_batch_errors():
    with pytest.raises(tf.errors.DataLossError, match="Attempted to pad to a smaller size than the input element"):
        list(ragged().padded_batch(2, padded_shapes=[2]))
    with pytest.raises(ValueError, match="must provide `padded_shapes` argument because component 0 has unknown rank"):
        D.from_generator(lambda: iter([[1]]), tf.int32).padded_batch(2)
    with pytest.raises(TypeError, match=r"values type <dtype: 'int32'> does not match type <dtype: 'int64'>"):
        ragged().padded_batch(2, padding_values=3)
    with pytest.raises(ValueError, match=r"The padded shape \(None, 3\) is not compatible with the shape \(None,\)"):
        ragged().padded_batch(2, padded_shapes=[None, 3])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Batch size must be greater than zero"):
        ragged().padded_batch(0)


# -- unbatch -----------------------------------------------------------------------------------------
def test_unbatch_values_spec_and_cardinality():
    assert values(D.range(7).batch(3).unbatch()) == list(range(7))
    assert int(D.range(7).batch(3).unbatch().cardinality()) == UNKNOWN   # TF 2.21: batch dim unknown
    exact = D.range(6).batch(3, drop_remainder=True).unbatch()
    assert int(exact.cardinality()) == 6 and values(exact) == list(range(6))
    pairs = D.from_tensor_slices(([[1, 2], [3, 4]], [[5, 6], [7, 8]])).unbatch()
    assert int(pairs.cardinality()) == 4 and values(pairs) == [(1, 5), (2, 6), (3, 7), (4, 8)]
    rows = D.from_tensors(tf.zeros([3, 2])).unbatch()
    assert spec_text(rows) == "TensorSpec(shape=(2,), dtype=tf.float32, name=None)" and int(rows.cardinality()) == 3
    assert int(D.range(6).batch(2).repeat().unbatch().cardinality()) == INFINITE


def test_unbatch_errors():
    with pytest.raises(ValueError, match="Cannot unbatch an input with scalar components"):
        D.range(3).unbatch()
    with pytest.raises(ValueError, match="matching leading dimension. Encountered both 2 and 3"):
        D.from_tensors(([1, 2], [1, 2, 3])).unbatch()
    mismatched = D.from_generator(lambda: iter([([1, 2], [1, 2, 3])]), (tf.int32, tf.int32), ([None], [None]))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Component 0 had size 2 but component 1 had size, 3. \\[Op:IteratorGetNext\\]"):
        list(mismatched.unbatch())


# -- flat_map and interleave -------------------------------------------------------------------------
def test_flat_map():
    ds = D.range(1, 4).flat_map(lambda x: D.range(x))
    assert values(ds) == [0, 0, 1, 0, 1, 2] and int(ds.cardinality()) == UNKNOWN  # TF 2.21
    assert values(D.from_tensor_slices([[1, 2], [3, 4]]).flat_map(D.from_tensor_slices)) == [1, 2, 3, 4]
    sized_by_value = D.range(3).flat_map(lambda x: D.from_tensors(tf.fill([x], x)))
    assert spec_text(sized_by_value) == "TensorSpec(shape=(None,), dtype=tf.int64, name=None)"
    assert values(sized_by_value) == [[], [1], [2, 2]]
    pairs = D.zip((D.range(3), D.range(3))).flat_map(lambda a, b: D.from_tensors((a, b)))
    assert values(pairs) == [(0, 0), (1, 1), (2, 2)]
    with pytest.raises(TypeError, match="must return a `Dataset` object. Got <class 'tuple'>"):
        D.range(3).flat_map(lambda x: [x])


def repeated(x):
    return D.from_tensors(x).repeat(x)


@pytest.mark.parametrize("kwargs, expected", [   # TF 2.21
    (dict(cycle_length=2, block_length=1), [1, 2, 2, 3, 3, 4, 3, 4, 4, 5, 4, 5, 5, 5, 5]),
    (dict(cycle_length=2, block_length=2), [1, 2, 2, 3, 3, 3, 4, 4, 5, 5, 4, 4, 5, 5, 5]),
    (dict(cycle_length=3, block_length=2), [1, 2, 2, 3, 3, 4, 4, 3, 4, 4, 5, 5, 5, 5, 5]),
    (dict(cycle_length=1), [1, 2, 2, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 5]),
    (dict(cycle_length=2, num_parallel_calls=2), [1, 2, 2, 3, 3, 4, 3, 4, 4, 5, 4, 5, 5, 5, 5]),
    (dict(cycle_length=3, block_length=2, num_parallel_calls=tf.data.AUTOTUNE, deterministic=True),
     [1, 2, 2, 3, 3, 4, 4, 3, 4, 4, 5, 5, 5, 5, 5]),
])
def test_interleave_order(kwargs, expected):
    ds = D.range(1, 6).interleave(repeated, **kwargs)
    assert values(ds) == expected and int(ds.cardinality()) == UNKNOWN


def test_interleave_refills_exhausted_places_on_their_turn():
    lengths = D.from_tensor_slices(tf.constant([3, 0, 1, 4, 2], tf.int64))
    assert values(lengths.interleave(D.range, cycle_length=2, block_length=3)) == [0, 1, 2, 0, 0, 1, 2, 0, 1, 3]
    lengths = D.from_tensor_slices(tf.constant([3, 0, 0, 4, 2], tf.int64))
    assert values(lengths.interleave(D.range, cycle_length=3, num_parallel_calls=3)) == [0, 1, 0, 0, 2, 1, 1, 2, 3]
    assert values(D.range(3).repeat().interleave(D.range, cycle_length=2), 6) == [0, 0, 1, 0, 0, 1]


def test_interleave_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="cycle_length must be greater than zero"):
        D.range(3).interleave(D.range, cycle_length=0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="block_length must be greater than zero"):
        D.range(3).interleave(D.range, block_length=0)


# -- concatenate, zip, enumerate ---------------------------------------------------------------------
def test_concatenate():
    ds = D.range(3).concatenate(D.range(10, 12))
    assert values(ds) == [0, 1, 2, 10, 11] and int(ds.cardinality()) == 5
    batches = D.range(3).batch(2).concatenate(D.range(10, 13).batch(3, drop_remainder=True))
    assert spec_text(batches) == "TensorSpec(shape=(None,), dtype=tf.int64, name=None)"  # (None,) and (3,)
    assert values(batches) == [[0, 1], [2], [10, 11, 12]]
    ranks = D.from_tensors([1, 2]).concatenate(D.from_tensors([[1]]))
    assert spec_text(ranks) == "TensorSpec(shape=<unknown>, dtype=tf.int32, name=None)"
    unknown = D.range(3).filter(lambda x: True)
    assert int(D.range(3).concatenate(unknown).cardinality()) == UNKNOWN
    assert int(unknown.concatenate(D.range(3).repeat()).cardinality()) == INFINITE
    assert int(D.range(3).repeat().concatenate(unknown).cardinality()) == INFINITE


def test_concatenate_errors():
    with pytest.raises(TypeError, match="Incompatible dataset elements:\n  TensorSpec\\(shape=\\(\\), dtype=tf.int64, "
                                        "name=None\\) vs.   TensorSpec\\(shape=\\(\\), dtype=tf.int32"):
        D.range(3).concatenate(D.range(3, output_type=tf.int32))
    with pytest.raises(TypeError, match="Incompatible dataset elements"):
        D.range(3).concatenate(D.zip((D.range(3), D.range(3))))


def test_zip_and_enumerate_cardinality():
    unknown = D.range(5).filter(lambda x: True)
    assert int(D.zip((D.range(3), D.range(5))).cardinality()) == 3          # TF 2.21
    assert int(D.zip((D.range(3).repeat(), D.range(5))).cardinality()) == 5
    assert int(D.zip((D.range(3).repeat(), unknown)).cardinality()) == UNKNOWN
    assert int(D.zip((D.range(3).repeat(), D.range(5).repeat())).cardinality()) == INFINITE
    assert values(D.zip({"a": D.range(2), "b": D.range(5, 7)})) == [{"a": 0, "b": 5}, {"a": 1, "b": 6}]
    counted = D.from_tensor_slices([7, 8]).enumerate()
    assert int(counted.cardinality()) == 2 and values(counted) == [(0, 7), (1, 8)]
    assert int(unknown.enumerate(5).cardinality()) == UNKNOWN and values(unknown.enumerate(5), 1) == [(5, 0)]


# -- window ------------------------------------------------------------------------------------------
def window_values(ds):
    return [tf.nest.map_structure(values, w) for w in ds]


@pytest.mark.parametrize("n, args, kwargs, cardinality, expected", [   # TF 2.21
    (7, (3,), {}, 3, [[0, 1, 2], [3, 4, 5], [6]]),
    (7, (3,), dict(shift=2, stride=2), 4, [[0, 2, 4], [2, 4, 6], [4, 6], [6]]),
    (7, (3, 2, 1), dict(drop_remainder=True), 3, [[0, 1, 2], [2, 3, 4], [4, 5, 6]]),
    (8, (3, 2, 2), dict(drop_remainder=True), 2, [[0, 2, 4], [2, 4, 6]]),
    (8, (3, 4, 1), dict(drop_remainder=True), 2, [[0, 1, 2], [4, 5, 6]]),
    (2, (3,), dict(drop_remainder=True), 0, []),
    (10, (2, 3), {}, 4, [[0, 1], [3, 4], [6, 7], [9]]),
])
def test_window(n, args, kwargs, cardinality, expected):
    ds = D.range(n).window(*args, **kwargs)
    assert spec_text(ds) == "DatasetSpec(TensorSpec(shape=(), dtype=tf.int64, name=None), TensorShape([]))"
    assert int(ds.cardinality()) == cardinality and window_values(ds) == expected


def test_window_of_structures_and_flat_map():
    pairs = D.zip((D.range(4), D.range(4))).window(2)
    assert window_values(pairs) == [([0, 1], [0, 1]), ([2, 3], [2, 3])]
    assert window_values(D.from_tensor_slices({"a": [1, 2, 3]}).window(2)) == [{"a": [1, 2]}, {"a": [3]}]
    first = next(iter(D.range(7).window(3)))
    assert int(first.cardinality()) == 3
    assert values(D.range(7).window(3).flat_map(lambda w: w.batch(3))) == [[0, 1, 2], [3, 4, 5], [6]]
    zipped = D.zip((D.range(4), D.range(4))).window(2, drop_remainder=True).flat_map(
        lambda a, b: D.zip((a.batch(2), b)))
    assert values(zipped) == [([0, 1], 0), ([2, 3], 2)]   # TF 2.21: zip stops with the one batch
    assert int(D.range(3).repeat().window(2).cardinality()) == INFINITE
    assert int(D.range(7).filter(lambda x: True).window(2).cardinality()) == UNKNOWN


def test_window_errors():
    for args, what in (((0,), "size"), ((2, 0), "shift"), ((2, 1, 0), "stride")):
        with pytest.raises(tf.errors.InvalidArgumentError, match=f"Window {what} must be greater than zero"):
            D.range(3).window(*args)
    with pytest.raises(TypeError, match="as_numpy_iterator\\(\\)` is not supported for datasets that produce"):
        D.range(4).window(2).as_numpy_iterator()


# -- scan --------------------------------------------------------------------------------------------
def test_scan():
    ds = D.range(5).scan(tf.constant(0, tf.int64), lambda s, x: (s + x, s * 10))
    assert values(ds) == [0, 0, 10, 30, 60] and int(ds.cardinality()) == 5   # TF 2.21
    nested = D.range(3).scan((tf.constant(0, tf.int64), tf.constant(1.0)),
                             lambda s, x: ((s[0] + x, s[1] * 2), {"v": s[1]}))
    assert spec_text(nested) == "{'v': TensorSpec(shape=(), dtype=tf.float32, name=None)}"
    assert values(nested) == [{"v": 1.0}, {"v": 2.0}, {"v": 4.0}]
    python_state = D.range(3).scan(0, lambda s, x: (s + 1, s))
    assert spec_text(python_state) == "TensorSpec(shape=(), dtype=tf.int32, name=None)"
    assert values(python_state) == [0, 1, 2]
    pairs = D.zip((D.range(3), D.range(3))).scan(tf.constant(0, tf.int64), lambda s, e: (s + e[0] * e[1], s))
    assert values(pairs) == [0, 0, 1]


def test_scan_relaxes_a_growing_state():
    ds = D.range(3).scan(tf.constant([0], tf.int64), lambda s, x: (tf.concat([s, [x]], 0), s))
    assert spec_text(ds) == "TensorSpec(shape=(None,), dtype=tf.int64, name=None)"   # TF 2.21
    assert values(ds) == [[0], [0, 0], [0, 0, 1]]


def test_scan_errors():
    with pytest.raises(TypeError, match="should return a pair consisting of new state and the output value"):
        D.range(3).scan(tf.constant(0), lambda s, x: s)
    with pytest.raises(TypeError, match="new state must match the initial state. Expected <dtype: 'int32'>, got "
                                        "<dtype: 'int64'>"):
        D.range(3).scan(tf.constant(0), lambda s, x: (tf.cast(s, tf.int64), s))


# -- unique, cache, get_single_element ----------------------------------------------------------------
def test_unique():
    ds = D.from_tensor_slices([1, 3, 1, 2, 3, 5]).unique()
    assert values(ds) == [1, 3, 2, 5] and int(ds.cardinality()) == UNKNOWN   # TF 2.21
    assert list(D.from_tensor_slices(["a", "b", "a"]).unique().as_numpy_iterator()) == [b"a", b"b"]
    assert values(D.range(3).repeat().unique(), 3) == [0, 1, 2]
    with pytest.raises(TypeError, match="does not support type <dtype: 'float32'> -- only `tf.int32`, `tf.int64`"):
        D.from_tensor_slices([1.0, 2.0]).unique()
    with pytest.raises(tf.errors.InvalidArgumentError, match="only supports inputs with a single component"):
        D.zip((D.range(2), D.range(2))).unique()


def test_cache_replays_the_first_pass():
    calls = []

    def generate():
        calls.append(1)
        yield from np.random.default_rng(len(calls)).integers(0, 100, size=4).tolist()

    ds = D.from_generator(generate, output_signature=tf.TensorSpec([], tf.int64)).cache()
    first = values(ds)
    assert values(ds) == first and len(calls) == 1
    assert int(D.range(3).repeat().cache().cardinality()) == INFINITE
    assert int(D.range(3).cache().prefetch(2).cardinality()) == 3


def test_get_single_element():
    assert int(D.range(1).get_single_element()) == 0
    one, named = D.from_tensors((1, {"a": 2.0})).get_single_element()
    assert int(one) == 1 and float(named["a"]) == 2.0
    assert int(tf.data.experimental.get_single_element(D.range(3, 4))) == 3
    with pytest.raises(tf.errors.InvalidArgumentError, match="Dataset was empty"):
        D.range(0).get_single_element()
    with pytest.raises(tf.errors.InvalidArgumentError, match="Dataset had more than one element"):
        D.range(2).get_single_element()


# -- inside tf.function ------------------------------------------------------------------------------
@tf.function
def total(ds):
    t = tf.constant(0, tf.int64)
    for x in ds:
        t += tf.reduce_sum(x)
    return t


@pytest.mark.parametrize("pipeline, expected", [
    (lambda: ragged().padded_batch(2), 30),
    (lambda: ragged().unbatch(), 30),
    (lambda: D.range(1, 4).flat_map(lambda x: D.range(x)), 4),
    (lambda: D.range(1, 6).interleave(repeated, cycle_length=2), 55),
    (lambda: D.range(7).window(3).flat_map(lambda w: w.batch(3)), 21),
    (lambda: D.range(5).scan(tf.constant(0, tf.int64), lambda s, x: (s + x, s * 10)), 100),
    (lambda: D.range(3).concatenate(D.range(10, 12)), 24),
    (lambda: D.from_tensor_slices(tf.constant([1, 1, 2], tf.int64)).unique(), 3),
    (lambda: D.range(4).cache(), 6),
])
def test_new_transformations_iterate_inside_tf_function(pipeline, expected):
    assert int(total(pipeline())) == expected


def test_pipelines_built_inside_tf_function():
    @tf.function
    def build_and_sum():
        t = tf.constant(0, tf.int64)
        for x in D.range(1, 4).flat_map(lambda x: D.range(x)).padded_batch(2):
            t += tf.reduce_sum(x)
        return t + D.range(3, 4).get_single_element()

    assert int(build_and_sum()) == 7

    @tf.function
    def single(ds):
        return ds.get_single_element()

    np.testing.assert_array_equal(single(D.from_tensors(tf.constant([1, 2]))).numpy(), [1, 2])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Dataset had more than one element"):
        single(D.range(2))


def test_datasets_of_windows_cannot_be_iterated_inside_tf_function():
    @tf.function
    def count(ds):
        n = 0
        for _ in ds:
            n += 1
        return n

    with pytest.raises(TypeError, match="datasets whose elements are datasets"):
        count(D.range(4).window(2))


# -- file sources ------------------------------------------------------------------------------------
@pytest.fixture
def text_files(tmp_path):
    (tmp_path / "a.txt").write_bytes(b"l1\nl2\r\n\nl4")
    (tmp_path / "b.txt").write_bytes(b"m1\nx\ry\r\r\n")
    (tmp_path / "c.csv").write_bytes(b"")
    return tmp_path


def test_text_line_dataset(text_files):
    paths = [str(text_files / "a.txt"), str(text_files / "b.txt")]
    lines = tf.data.TextLineDataset(paths)
    assert repr(lines) == "<TextLineDatasetV2 element_spec=TensorSpec(shape=(), dtype=tf.string, name=None)>"
    assert int(lines.cardinality()) == UNKNOWN
    # TF 2.21: no '\n', and every '\r' dropped
    assert list(lines.as_numpy_iterator()) == [b"l1", b"l2", b"", b"l4", b"m1", b"xy"]
    parallel = tf.data.TextLineDataset(paths, num_parallel_reads=2)
    assert list(parallel.as_numpy_iterator()) == [b"l1", b"m1", b"l2", b"xy", b"", b"l4"]
    assert list(tf.data.TextLineDataset(tf.constant([str(text_files / "c.csv")])).as_numpy_iterator()) == []
    with pytest.raises(tf.errors.NotFoundError, match="nope.txt; No such file or directory"):
        list(tf.data.TextLineDataset(str(text_files / "nope.txt")))
    with pytest.raises(TypeError, match="must contain `tf.string` elements. Got `tf.int32` elements"):
        tf.data.TextLineDataset(3)


def test_list_files(text_files):
    d = str(text_files)
    names = D.list_files(d + "/*.txt", shuffle=False)
    assert list(names.as_numpy_iterator()) == [f"{d}/a.txt".encode(), f"{d}/b.txt".encode()]
    assert int(names.cardinality()) == 2 and spec_text(names) == "TensorSpec(shape=(), dtype=tf.string, name=None)"
    several = D.list_files([d + "/b.txt", d + "/*.csv", d + "/a*"], shuffle=False)
    assert [p.decode()[len(d):] for p in several.as_numpy_iterator()] == ["/a.txt", "/b.txt", "/c.csv"]
    shuffled = D.list_files(d + "/*", seed=3)
    assert sorted(shuffled.as_numpy_iterator()) == sorted(several.as_numpy_iterator())
    lines = D.list_files(d + "/*.txt", shuffle=False).interleave(tf.data.TextLineDataset, cycle_length=2)
    assert list(lines.as_numpy_iterator()) == [b"l1", b"m1", b"l2", b"xy", b"", b"l4"]
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Summarized data: b'No files matched pattern: .*\\*.zip, .*\\*.q'"):
        D.list_files([d + "/*.zip", d + "/*.q"])


def test_text_files_read_inside_tf_function(text_files):
    @tf.function
    def characters(files):
        n = tf.constant(0)
        for line in files:
            n += tf.strings.length(line)
        return n

    assert int(characters(D.list_files(str(text_files) + "/*.txt").flat_map(tf.data.TextLineDataset))) == 10
