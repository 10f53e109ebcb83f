"""tf.io.RaggedFeature with row partitions and tf.io.SparseFeature (already_sorted, unchecked indices, the
pairing of index and value lists) give what TensorFlow 2.21 gave for the same Examples; the expected
values and error texts were recorded by running the same parses in TensorFlow 2.21."""
import numpy as np
import pytest

import tensorflux as tf

RF = tf.io.RaggedFeature


def example(**features):
    def feature(values):
        if isinstance(values[0], float):
            return tf.train.Feature(float_list=tf.train.FloatList(value=values))
        if isinstance(values[0], bytes):
            return tf.train.Feature(bytes_list=tf.train.BytesList(value=values))
        return tf.train.Feature(int64_list=tf.train.Int64List(value=values))
    return tf.train.Example(features=tf.train.Features(
        feature={k: feature(v) for k, v in features.items()})).SerializeToString()


E1 = example(v=[1, 2, 3, 4, 5, 6, 7], v2=[1, 2, 3, 4, 5, 6, 7], rl=[2, 0, 3, 2], rs=[0, 2, 2, 5, 7], st=[0, 2, 2, 5],
             lim=[2, 2, 5, 7], ids=[0, 0, 2, 2, 2, 3, 3], outer=[3, 1], outer2=[3, 1], rl2=[2, 0, 3, 2])
E2 = example(v=[8, 9], v2=[8, 9], rl=[1, 1], rs=[0, 1, 2], st=[0, 1], lim=[1, 2], ids=[0, 1], outer=[2], outer2=[2],
             rl2=[1, 1])
PARTITIONED = {
    "lengths": RF(tf.int64, value_key="v", partitions=[RF.RowLengths("rl")]),
    "splits": RF(tf.int64, value_key="v", partitions=[RF.RowSplits("rs")]),
    "starts": RF(tf.int64, value_key="v", partitions=[RF.RowStarts("st")]),
    "limits": RF(tf.int64, value_key="v", partitions=[RF.RowLimits("lim")]),
    "ids": RF(tf.int64, value_key="v", partitions=[RF.ValueRowIds("ids")]),
    "uniform": RF(tf.int64, value_key="v", partitions=[RF.UniformRowLength(1)]),
    "nested": RF(tf.int64, value_key="v", partitions=[RF.RowLengths("outer"), RF.RowLengths("rl")]),
    "nested64": RF(tf.int64, value_key="v2", partitions=[RF.RowLengths("outer2"), RF.RowLengths("rl2")],
                   row_splits_dtype=tf.int64),
}
ROWS = [[[1, 2], [], [3, 4, 5], [6, 7]], [[8], [9]]]
NESTED = [[[[1, 2], [], [3, 4, 5]], [[6, 7]]], [[[8], [9]]]]
BATCH = {"lengths": ROWS, "splits": ROWS, "starts": ROWS, "limits": ROWS, "ids": ROWS,
         "uniform": [[[1], [2], [3], [4], [5], [6], [7]], [[8], [9]]], "nested": NESTED, "nested64": NESTED}


@pytest.mark.parametrize("traced", [False, True])
def test_every_partition_kind_in_a_batch(traced):
    parse = lambda s: tf.io.parse_example(s, PARTITIONED)  # noqa: E731
    got = (tf.function(parse) if traced else parse)(tf.constant([E1, E2]))
    assert {k: v.to_list() for k, v in got.items()} == BATCH
    assert {k: v.row_splits.dtype for k, v in got.items()} == {
        k: tf.int64 if k == "nested64" else tf.int32 for k in BATCH}
    assert got["uniform"].shape.as_list() == [2, None, 1]
    assert got["nested"].shape.as_list() == [2, None, None, None]


def test_every_partition_kind_in_one_example():
    got = tf.io.parse_single_example(E1, PARTITIONED)
    assert {k: v.to_list() for k, v in got.items() if k != "uniform"} == {
        k: rows[0] for k, rows in BATCH.items() if k != "uniform"}
    assert isinstance(got["uniform"], tf.Tensor) and got["uniform"].shape == (7, 1)   # nothing ragged left
    np.testing.assert_array_equal(got["uniform"].numpy(), np.arange(1, 8).reshape(7, 1))


def test_partitions_across_examples_follow_tensorflow():
    # Each example's partition is shifted by where its rows start in the batch; a RowSplits list without
    # its leading 0 is a list of row limits, so an example whose splits are empty lends its values onward.
    got = tf.io.parse_example([example(v=[1, 2, 3], ids=[0, 2, 2]), example(v=[4], ids=[1]), example(v=[5], ids=[0])],
                              {"x": RF(tf.int64, value_key="v", partitions=[RF.ValueRowIds("ids")])})
    assert got["x"].to_list() == [[[1], [], [2, 3]], [[], [4]], [[5]]]
    got = tf.io.parse_example([example(v=[1, 2, 3], rs=[0, 1, 3]), example(v=[7], rs=[0]), example(v=[4], rs=[0, 0, 1])],
                              {"x": RF(tf.int64, value_key="v", partitions=[RF.RowSplits("rs")])})
    assert got["x"].to_list() == [[[1], [2, 3]], [], [[7], [4]]]
    two = [example(v=[1, 2, 3, 4, 5], rl=[2, 2]), example(v=[1, 2, 3, 4, 5], rl=[2, 2])]
    got = tf.io.parse_example(two, {"x": RF(tf.int64, value_key="v", partitions=[RF.RowLengths("rl"),
                                                                                    RF.UniformRowLength(1)])})
    assert got["x"].to_list() == [[[[1], [2]], [[3], [4]]], [[[5], [1]], [[2], [3]]]]
    assert got["x"].shape.as_list() == [2, None, None, 1]
    got = tf.io.parse_example(two, {"x": RF(tf.int64, value_key="v", partitions=[RF.UniformRowLength(5),
                                                                                    RF.UniformRowLength(1)])})
    assert got["x"].to_list() == [[[[1], [2], [3], [4], [5]]], [[[1], [2], [3], [4], [5]]]]
    assert got["x"].shape.as_list() == [2, None, 5, 1]
    strings = tf.io.parse_example([example(s=[b"a", b"b"], rl=[1, 1])],
                                  {"x": RF(tf.string, value_key="s", partitions=[RF.RowLengths("rl")])})
    assert strings["x"].to_list() == [[[b"a"], [b"b"]]]


def test_missing_partition_gives_no_rows():
    e = example(v=[1, 2, 3, 4, 5])
    for value_key in ("v", "w"):
        got = tf.io.parse_example([e], {"x": RF(tf.int64, value_key=value_key, partitions=[RF.RowLengths("nope")])})
        assert got["x"].to_list() == [[]]


E = example(v=[1, 2, 3, 4, 5], rl=[2, 2], neg=[3, -1, 3], dec=[3, 2, 5], ids=[0, 1, 1, 0, 2], negid=[-1, 0, 0, 0, 0],
            big=[2, 9], st=[1, 3])


@pytest.mark.parametrize("partition, rows", [
    (RF.RowLengths("rl"), [[1, 2], [3, 4]]), (RF.RowSplits("rl"), [[1, 2]]), (RF.RowLimits("rl"), [[1, 2], []]),
    (RF.RowLengths("neg"), [[1, 2, 3], [], [3, 4, 5]]), (RF.RowLimits("dec"), [[1, 2, 3], [], [3, 4, 5]]),
    (RF.ValueRowIds("ids"), [[1, 2], [3, 4], [5]]), (RF.RowLimits("big"), [[1, 2], [3, 4, 5]]),
    (RF.RowStarts("st"), [[2, 3], [4, 5]]), (RF.RowLengths("big"), [[1, 2], [3, 4, 5]])])
def test_without_validation_partitions_are_used_as_given(partition, rows):
    got = tf.io.parse_example([E], {"x": RF(tf.int64, value_key="v", partitions=[partition])})
    assert got["x"].to_list() == [rows]


@pytest.mark.parametrize("partition, message", [
    (RF.RowLengths("rl"), "Arguments to _from_row_partition do not form a valid RaggedTensor\nCondition x == y did "
                          "not hold.\nFirst 1 elements of x:\n[4]\nFirst 1 elements of y:\n[5]"),
    (RF.RowSplits("rl"), "First 1 elements of x:\n[2]\nFirst 1 elements of y:\n[5]"),
    (RF.RowLengths("neg"), "Arguments to from_row_lengths do not form a valid RowPartition.  \nCondition x >= 0 did "
                           "not hold element-wise:\nx (shape=(3,) dtype=int32) = \n['3', '-1', '3']"),
    (RF.RowLimits("dec"), "Arguments to from_row_limits do not form a valid RaggedTensor.  \nCondition x >= 0 did not "
                          "hold element-wise:\nx (shape=(2,) dtype=int32) = \n['-1', '3']"),
    (RF.ValueRowIds("ids"), "Arguments to from_value_rowids do not form a valid RowPartition.  \nCondition x >= 0 "
                            "did not hold element-wise:\nx (shape=(4,) dtype=int32) = \n['1', '0', '-1', '...']"),
    (RF.ValueRowIds("negid"), "x (shape=(1,) dtype=int32) = \n['-1']"),
    (RF.RowStarts("st"), "Arguments to from_row_starts do not form a valid RaggedTensor\nCondition x == y did not "
                         "hold.\nFirst 1 elements of x:\n[1]\nFirst 1 elements of y:\n[0]"),
    (RF.RowLengths("big"), "First 1 elements of x:\n[11]\nFirst 1 elements of y:\n[5]")])
def test_validation_errors_are_tensorflows(partition, message):
    with pytest.raises(tf.errors.InvalidArgumentError) as caught:
        tf.io.parse_example([E], {"x": RF(tf.int64, value_key="v", partitions=[partition], validate=True)})
    assert message in caught.value.message


def test_bad_partitions_and_features():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Input to reshape is a tensor with 5 values, but the "
                                                             "requested shape requires a multiple of 2"):
        tf.io.parse_example([E], {"x": RF(tf.int64, value_key="v", partitions=[RF.UniformRowLength(2)])})
    with pytest.raises(tf.errors.InvalidArgumentError, match="Input arr must be non-negative!"):
        tf.io.parse_example([E], {"x": RF(tf.int64, value_key="v", partitions=[RF.ValueRowIds("negid")])})
    with pytest.raises(Exception, match=r"Shapes \(5,\) and \(2,\) are incompatible"):
        tf.io.parse_example([E], {"x": RF(tf.int64, value_key="v", partitions=[RF.ValueRowIds("rl")])})
    with pytest.raises(tf.errors.InvalidArgumentError, match="Name: <unknown>, Key: f, Index: 0.  Data types don't "
                                                             "match. Expected type: int64, Actual type: float"):
        tf.io.parse_example([example(v=[1], f=[1.0])], {"x": RF(tf.int64, value_key="v",
                                                                 partitions=[RF.RowLengths("f")])})
    with pytest.raises(ValueError, match="Conflicting partition type <dtype: 'int32'> vs <dtype: 'int64'> for "
                                         "feature v."):
        tf.io.parse_example([E], {"a": RF(tf.int64, value_key="v", partitions=[RF.RowLengths("rl")]),
                                  "b": RF(tf.int64, value_key="v", row_splits_dtype=tf.int64)})
    for bad in (3, "rl"):
        with pytest.raises(TypeError, match=f"Argument `partitions` cannot be cast to any of the partition types in "
                                            f".*; got: {bad!r} with type"):
            RF(tf.int64, partitions=[bad])
    with pytest.raises(ValueError, match="Argument `row_splits_dtype` must be int32 or int64; gottf.int16"):
        RF(tf.int64, value_key="v", row_splits_dtype=tf.int16)
    assert repr(RF.RowLengths("a")) == "RowLengths(key='a')" and repr(RF.UniformRowLength(3)) == "UniformRowLength(length=3)"
    assert repr(RF(tf.int64, value_key="v", partitions=[RF.RowLengths("rl")])) == (
        "RaggedFeature(dtype=tf.int64, value_key='v', partitions=(RowLengths(key='rl'),), row_splits_dtype=tf.int32, "
        "validate=False)")


def _feature_list(*steps):
    return tf.train.FeatureList(feature=[tf.train.Feature(int64_list=tf.train.Int64List(value=s)) for s in steps])


SEQ1 = tf.train.SequenceExample(feature_lists=tf.train.FeatureLists(feature_list={
    "v": _feature_list([1, 2, 3], [4, 5]), "rl": _feature_list([2, 1], [0, 2])})).SerializeToString()
SEQ2 = tf.train.SequenceExample(feature_lists=tf.train.FeatureLists(feature_list={
    "v": _feature_list([6]), "rl": _feature_list([1])})).SerializeToString()


@pytest.mark.parametrize("traced", [False, True])
def test_partitions_in_sequence_features_split_each_step(traced):
    lengths = {"x": RF(tf.int64, value_key="v", partitions=[RF.RowLengths("rl")])}
    _, single = tf.io.parse_single_sequence_example(SEQ1, sequence_features=lengths)
    assert single["x"].to_list() == [[[1, 2], [3]], [[], [4, 5]]]
    parse = lambda s: tf.io.parse_sequence_example(s, sequence_features=lengths)[1]  # noqa: E731
    batch = (tf.function(parse) if traced else parse)(tf.constant([SEQ1, SEQ2]))
    assert batch["x"].to_list() == [[[[1, 2], [3]], [[], [4, 5]]], [[[6]]]]
    assert batch["x"].shape.as_list() == [2, None, None, None]
    uniform = {"x": RF(tf.int64, value_key="v", partitions=[RF.UniformRowLength(1)])}
    _, got, _ = tf.io.parse_sequence_example([SEQ1, SEQ2], sequence_features=uniform)
    assert got["x"].to_list() == [[[[1], [2], [3]], [[4], [5]]], [[[6]]]]
    assert got["x"].shape.as_list() == [2, None, None, 1]


# -- SparseFeature --------------------------------------------------------------------------------------
S1 = example(ix=[3, 0, 2], iy=[1, 0, 5], val=[30.0, 0.0, 25.0])
S2 = example(ix=[1, 1], iy=[2, 0], val=[12.0, 10.0])


def sparse(v):
    return v.indices.numpy().tolist(), v.values.numpy().tolist(), v.dense_shape.numpy().tolist()


@pytest.mark.parametrize("already_sorted, one, two, single, single2", [
    (False, ([[0, 0], [0, 2], [0, 3], [1, 1], [1, 1]], [0.0, 25.0, 30.0, 12.0, 10.0], [2, 4]),
     ([[0, 0, 0], [0, 2, 5], [0, 3, 1], [1, 1, 0], [1, 1, 2]], [0.0, 25.0, 30.0, 10.0, 12.0], [2, 4, 6]),
     ([[0], [2], [3]], [0.0, 25.0, 30.0], [4]), ([[0, 0], [2, 5], [3, 1]], [0.0, 25.0, 30.0], [4, 6])),
    (True, ([[0, 3], [0, 0], [0, 2], [1, 1], [1, 1]], [30.0, 0.0, 25.0, 12.0, 10.0], [2, 4]),
     ([[0, 3, 1], [0, 0, 0], [0, 2, 5], [1, 1, 2], [1, 1, 0]], [30.0, 0.0, 25.0, 12.0, 10.0], [2, 4, 6]),
     ([[3], [0], [2]], [30.0, 0.0, 25.0], [4]), ([[3, 1], [0, 0], [2, 5]], [30.0, 0.0, 25.0], [4, 6]))])
def test_sparse_feature_sorts_unless_already_sorted(already_sorted, one, two, single, single2):
    one_d = {"sp": tf.io.SparseFeature("ix", "val", tf.float32, 4, already_sorted=already_sorted)}
    two_d = {"sp": tf.io.SparseFeature(["ix", "iy"], "val", tf.float32, [4, 6], already_sorted=already_sorted)}
    assert sparse(tf.io.parse_example([S1, S2], one_d)["sp"]) == one
    assert sparse(tf.io.parse_example([S1, S2], two_d)["sp"]) == two
    assert sparse(tf.io.parse_single_example(S1, one_d)["sp"]) == single
    assert sparse(tf.io.parse_single_example(S1, two_d)["sp"]) == single2
    traced = tf.function(lambda s: tf.io.parse_example(s, two_d))(tf.constant([S1, S2]))
    assert sparse(traced["sp"]) == two


def test_sparse_feature_indices_are_not_range_checked_and_pair_across_the_batch():
    small = {"sp": tf.io.SparseFeature("ix", "val", tf.float32, 3)}
    assert sparse(tf.io.parse_example([S1], small)["sp"]) == ([[0, 0], [0, 2], [0, 3]], [0.0, 25.0, 30.0], [1, 3])
    assert sparse(tf.io.parse_example([example(ix=[-1], val=[1.0])], small)["sp"]) == ([[0, -1]], [1.0], [1, 3])
    four = {"sp": tf.io.SparseFeature("ix", "val", tf.float32, 4)}
    assert sparse(tf.io.parse_example([example(ix=[1, 1, 0], val=[1.0, 2.0, 3.0])], four)["sp"]) == (
        [[0, 0], [0, 1], [0, 1]], [3.0, 1.0, 2.0], [1, 4])
    # the example of each entry is that of its index; the values are taken in order across the batch
    got = tf.io.parse_example([example(ix=[1, 2], val=[1.0]), example(ix=[3], val=[2.0, 3.0])], four)
    assert sparse(got["sp"]) == ([[0, 1], [0, 2], [1, 3]], [1.0, 2.0, 3.0], [2, 4])
    got = tf.io.parse_example([example(ix=[3, 1], val=[1.0, 2.0]), example(ix=[0], val=[3.0])], four)
    assert sparse(got["sp"]) == ([[0, 1], [0, 3], [1, 0]], [2.0, 1.0, 3.0], [2, 4])
    assert sparse(tf.io.parse_example([example(other=[1])], four)["sp"]) == ([], [], [1, 4])


def test_sparse_feature_errors():
    four = {"sp": tf.io.SparseFeature("ix", "val", tf.float32, 4)}
    for features, counts in ((dict(ix=[1, 2], val=[1.0]), "2 and 1"), (dict(val=[1.0]), "0 and 1"),
                             (dict(ix=[1]), "1 and 0")):
        with pytest.raises(Exception, match=f"Dimensions {counts} are not compatible"):
            tf.io.parse_example([example(**features)], four)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Key: val, Index: 0.  Data types don't match. Expected "
                                                             "type: int64, Actual type: float"):
        tf.io.parse_example([S1], {"sp": tf.io.SparseFeature("val", "ix", tf.int64, 4)})
    with pytest.raises(TypeError, match="vocab_size has to be a Tensor or Python int. Found <class 'NoneType'>"):
        tf.io.parse_example([S1], {"sp": tf.io.SparseFeature("ix", "val", tf.float32, None)})
    with pytest.raises(TypeError, match="vocab_size has to be a list of Tensors or Python ints. Found <class 'int'>"):
        tf.io.parse_example([S1], {"sp": tf.io.SparseFeature(["ix", "iy"], "val", tf.float32, 4)})
    with pytest.raises(TypeError, match="vocab_size has to be a Tensor or Python int. Found <class 'list'>"):
        tf.io.parse_example([S1], {"sp": tf.io.SparseFeature("ix", "val", tf.float32, [4, 5])})
    with pytest.raises(ValueError, match="sp_ids and vocab_size have to have equal lengths."):
        tf.io.parse_example([S1], {"sp": tf.io.SparseFeature(["ix", "iy"], "val", tf.float32, [4])})


def test_type_mismatch_wording_depends_on_the_feature_kind():
    bad = [example(r=[1.0])]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Data type: float but expected type: int64"):
        tf.io.parse_example(bad, {"r": tf.io.FixedLenFeature([1], tf.int64)})
    with pytest.raises(tf.errors.InvalidArgumentError, match="Key: r.  Data types don't match. Expected type: int64, "
                                                             "Actual type: float"):
        tf.io.parse_single_example(bad[0], {"r": tf.io.VarLenFeature(tf.int64)})
    with pytest.raises(tf.errors.InvalidArgumentError, match="Expected type: int64, Actual type: float"):
        tf.io.parse_example(bad, {"r": RF(tf.int64)})
