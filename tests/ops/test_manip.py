"""Manipulation ops: repeat, roll, meshgrid, reverse_sequence, identity_n, no_op, group, tuple, searchsorted,
histogram_fixed_width, embedding_lookup, unravel_index, ensure_shape; and tf.debugging.assert_shapes.

Values against NumPy references, TensorFlow's errors, static inference with unknown dims, traced ==
eager, and gradients against central finite differences (float64).
"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tensorflux as tf
from helpers import check, check_gradients, static_shape, traced
from tensorflux._src.ops.array import manip

IAE = tf.errors.InvalidArgumentError
S = tf.TensorSpec
SETTINGS = settings(max_examples=25, deadline=None)


shapes = st.lists(st.integers(1, 4), min_size=1, max_size=3)


# -- repeat --------------------------------------------------------------------------------------------

@SETTINGS
@given(shapes, st.integers(0, 10_000), st.booleans(), st.booleans())
def test_repeat_matches_numpy(dims, seed, per_slice, flatten):
    rng = np.random.default_rng(seed)
    x = rng.integers(-9, 9, size=dims).astype(np.int32)
    axis = None if flatten else int(rng.integers(-len(dims), len(dims)))
    length = x.size if flatten else dims[axis]
    repeats = rng.integers(0, 3, size=length).astype(np.int32) if per_slice else int(rng.integers(0, 3))
    expected = np.repeat(x, repeats, axis=axis)
    check(tf.repeat(x, repeats, axis=axis), expected, tf.int32)
    fn = tf.function(lambda t, r: tf.repeat(t, r, axis=axis))  # repeats as a run-time tensor
    check(fn(tf.constant(x), tf.constant(repeats)), expected, tf.int32)


def test_repeat_values_and_errors():
    check(tf.repeat([[1, 2], [3, 4]], 2), np.array([1, 1, 2, 2, 3, 3, 4, 4], np.int32))
    check(tf.repeat([[1, 2], [3, 4]], [1, 3], axis=0), np.array([[1, 2], [3, 4], [3, 4], [3, 4]], np.int32))
    check(tf.repeat(3, 4), np.array([3, 3, 3, 3], np.int32))
    check(tf.repeat([1, 2], [-1, 2]), np.array([2, 2], np.int32))  # negative counts repeat 0 times
    check(tf.repeat([1, 2], [3]), np.array([1, 1, 1, 2, 2, 2], np.int32))
    check(tf.repeat([1, 2], tf.constant([1, 2], tf.int64)), np.array([1, 2, 2], np.int32))
    with pytest.raises(ValueError, match="Dimensions 2 and 3 are not compatible"):
        tf.repeat([[1, 2], [3, 4]], [1, 2, 3], axis=0)
    with pytest.raises(IAE, match=r"Expected multiples\[1\] >= 0, but got -1"):
        tf.repeat([1, 2], -1)
    with pytest.raises(TypeError, match=r"Argument `tensor` \(name: repeats\) must be of type integer. Received "
                                        r"`tensor` = 2.0 of dtype: <dtype: 'float32'>"):
        tf.repeat([1, 2], 2.0)
    with pytest.raises(ValueError, match="axis=3 out of bounds: expected -1<=axis<1"):
        tf.repeat([1, 2], 2, axis=3)
    with pytest.raises(ValueError, match=r"Shape \(1, 2\) must have rank at most 1"):
        tf.repeat([1, 2], [[1, 2]], axis=0)


def test_repeat_static_shapes_and_dynamic_errors():
    assert static_shape(lambda x: tf.repeat(x, 2, axis=1), S([None, 3])) == [None, 6]
    assert static_shape(lambda x: tf.repeat(x, [1, 2, 3], axis=1), S([None, 3])) == [None, 6]
    assert static_shape(lambda x: tf.repeat(x, 2), S([2, 3])) == [12]
    assert static_shape(lambda x: tf.repeat(x, 2), S([None, 3])) == [None]
    assert static_shape(lambda x, r: tf.repeat(x, r, axis=0), S([2, 3]), S([2], tf.int32)) == [None, 3]
    assert static_shape(lambda x: tf.repeat(x, 2, axis=0), S(None)) is None
    fn = tf.function(lambda x, r: tf.repeat(x, r, axis=1),
                     input_signature=[S([None, None], tf.int32), S([], tf.int32)])
    check(fn(tf.constant([[1, 2]]), tf.constant(2)), np.array([[1, 1, 2, 2]], np.int32))
    with pytest.raises(IAE, match=r"Expected multiples\[1\] >= 0, but got"):
        fn(tf.constant([[1, 2]]), tf.constant(-2))


def test_repeat_gradient():
    check_gradients(lambda x: tf.repeat(x, [2, 0, 3], axis=1), [np.arange(6.0).reshape(2, 3)])
    check_gradients(lambda x: tf.repeat(x, 2), [np.arange(6.0).reshape(3, 2)])
    reps = tf.constant([1, 3])
    check_gradients(lambda x: tf.function(lambda t: tf.repeat(t, reps, axis=0))(x), [np.arange(4.0).reshape(2, 2)])


# -- roll ----------------------------------------------------------------------------------------------

@SETTINGS
@given(shapes, st.integers(0, 10_000))
def test_roll_matches_numpy(dims, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(dims).astype(np.float32)
    count = int(rng.integers(1, 4))
    axes = [int(a) for a in rng.integers(-len(dims), len(dims), size=count)]
    shifts = [int(s) for s in rng.integers(-7, 8, size=count)]
    expected = np.roll(x, shifts, axes)
    check(tf.roll(x, shifts, axes), expected, tf.float32)
    check(traced(lambda t, s, a: tf.roll(t, s, a), tf.constant(x), tf.constant(shifts), tf.constant(axes)),
          expected, tf.float32)


def test_roll_values_and_errors():
    check(tf.roll([[1, 2, 3], [4, 5, 6]], 1, 1), np.array([[3, 1, 2], [6, 4, 5]], np.int32))
    check(tf.roll([1, 2, 3, 4, 5], [1, 2], [0, 0]), np.array([3, 4, 5, 1, 2], np.int32))
    check(tf.roll(["a", "b"], tf.constant(1, tf.int64), 0), np.array([b"b", b"a"], dtype=object))
    with pytest.raises(IAE, match="shift and axis must have the same size"):
        tf.roll([1, 2, 3], [1, 2], [0])
    with pytest.raises(IAE, match="axis 1 is out of range"):
        tf.roll([1, 2, 3], 1, 1)
    with pytest.raises(IAE, match="input must be 1-D or higher"):
        tf.roll(5, 1, 0)
    with pytest.raises(IAE, match="Value for attr 'Tshift' of float is not in the list of allowed values"):
        tf.roll([1, 2, 3], 1.0, 0)
    with pytest.raises(IAE, match=r"shift must be a scalar or a 1-D vector. Found: \[1,1\]"):
        tf.roll([1, 2, 3], [[1]], [[0]])


def test_roll_inference():
    infer = manip.ROLL.infer
    assert infer([S([None, 3]), S([], tf.int32), S([], tf.int32)], {})[0][1].as_list() == [None, 3]
    assert infer([S(None), S([None], tf.int32), S([2], tf.int32)], {})[0][1].rank is None
    with pytest.raises(ValueError, match="Dimension 0 in both shapes must be equal, but are 2 and 1"):
        infer([S([3]), S([2], tf.int32), S([1], tf.int32)], {})
    with pytest.raises(ValueError, match="at least rank 1"):
        infer([S([]), S([], tf.int32), S([], tf.int32)], {})


def test_roll_gradient():
    check_gradients(lambda x: tf.roll(x, [1, -2], [0, 1]), [np.arange(12.0).reshape(3, 4)])


# -- meshgrid ------------------------------------------------------------------------------------------

@SETTINGS
@given(st.lists(st.integers(1, 4), min_size=1, max_size=3), st.sampled_from(["xy", "ij"]))
def test_meshgrid_matches_numpy(lengths, indexing):
    vectors = [np.arange(n, dtype=np.float32) + 10 * i for i, n in enumerate(lengths)]
    expected = np.meshgrid(*vectors, indexing=indexing)
    got = tf.meshgrid(*vectors, indexing=indexing)
    for g, e in zip(got, expected):
        check(g, e, tf.float32)
    for g, e in zip(traced(lambda *xs: tf.meshgrid(*xs, indexing=indexing), *[tf.constant(v) for v in vectors]),
                    expected):
        check(g, e, tf.float32)


def test_meshgrid_edge_cases_and_errors():
    assert tf.meshgrid() == []
    x, y = tf.meshgrid([[1, 2]], [3, 4])  # inputs are flattened
    check(x, np.array([[1, 2], [1, 2]], np.int32))
    x, y = tf.meshgrid(1, [3, 4])
    check(y, np.array([[3], [4]], np.int32))
    with pytest.raises(ValueError, match="Argument `indexing` parameter must be either 'xy' or 'ij', got 'xx'"):
        tf.meshgrid([1], [2], indexing="xx")
    with pytest.raises(TypeError, match="'foo' is an invalid keyword argument for this function"):
        tf.meshgrid([1], [2], foo=1)
    with pytest.raises(IAE, match="cannot compute Mul as input #1"):
        tf.meshgrid([1], [3.0, 4])
    assert static_shape(lambda a, b: tf.meshgrid(a, b), S([None]), S([3])) == [[3, None], [3, None]]


def test_meshgrid_gradient():
    check_gradients(lambda a, b: tf.stack(tf.meshgrid(a, b)), [np.array([1.0, 2, 3]), np.array([4.0, 5])])


# -- reverse_sequence ----------------------------------------------------------------------------------

def ref_reverse_sequence(x, lengths, seq_axis, batch_axis):
    out = x.copy()
    for b, n in enumerate(lengths):
        src = [slice(None)] * x.ndim
        src[batch_axis] = b
        src[seq_axis] = slice(0, n)
        dst = list(src)
        dst[seq_axis] = slice(n - 1, None, -1) if n else slice(0, 0)
        out[tuple(src)] = x[tuple(dst)]
    return out


@SETTINGS
@given(st.lists(st.integers(1, 4), min_size=2, max_size=3), st.integers(0, 10_000))
def test_reverse_sequence_matches_numpy(dims, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(dims)
    batch_axis, seq_axis = [int(a) for a in rng.permutation(len(dims))[:2]]
    lengths = rng.integers(0, dims[seq_axis] + 1, size=dims[batch_axis])
    expected = ref_reverse_sequence(x, lengths, seq_axis, batch_axis)
    check(tf.reverse_sequence(x, lengths, seq_axis=seq_axis, batch_axis=batch_axis), expected, tf.float64)
    fn = tf.function(lambda t, n: tf.reverse_sequence(t, n, seq_axis, batch_axis))
    check(fn(tf.constant(x), tf.constant(lengths)), expected, tf.float64)


@pytest.mark.parametrize("lengths, seq_axis, batch_axis, phrase", [
    ([1, 2, 5], 1, 0, r"seq_lens\(2\) > input.dims\(1\)"),
    ([1, -2, 3], 1, 0, r"seq_lens\(1\) < 0"),
    ([1, 2], 1, 0, r"Length of seq_lengths != input.dims\(0\), \(2 vs. 3\)"),
    ([1, 2, 3], 0, 0, "batch_dim == seq_dim == 0"),
    ([1, 2, 3], 2, 0, r"seq_dim must be < input rank \( 2 vs. 2\)"),
    ([1, 2, 3], 1, 3, r"batch_dim must be < input rank \( 3 vs. 2\)"),
    ([1, 2, 3, 1], -2, -1, "Invalid batch_dim -1"),
    ([1, 2, 3, 1], -1, 1, "Invalid seq_dim -1"),
    ([[1, 2, 3]], 1, 0, "seq_lengths must be 1-dim, not 2"),
])
def test_reverse_sequence_errors(lengths, seq_axis, batch_axis, phrase):
    with pytest.raises(IAE, match=phrase):
        tf.reverse_sequence(np.arange(12).reshape(3, 4), lengths, seq_axis=seq_axis, batch_axis=batch_axis)


def test_reverse_sequence_argument_errors_and_inference():
    with pytest.raises(TypeError, match="Expected int for argument 'seq_dim' not None."):
        tf.reverse_sequence([[1]], [1])
    with pytest.raises(IAE, match="Value for attr 'Tlen' of float"):
        tf.reverse_sequence([[1]], [1.0], seq_axis=1)
    infer = manip.REVERSE_SEQUENCE.infer
    attrs = {"seq_dim": 1, "batch_dim": 0}
    assert infer([S([None, 4]), S([3], tf.int32)], attrs)[0][1].as_list() == [3, 4]
    assert infer([S(None), S([None], tf.int32)], attrs)[0][1].rank is None
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 2"):
        infer([S([3, 4]), S([2], tf.int32)], attrs)
    with pytest.raises(ValueError, match="seq_dim must be < input rank: 2 vs. 2"):
        infer([S([3, 4]), S([3], tf.int32)], {"seq_dim": 2, "batch_dim": 0})
    with pytest.raises(ValueError, match="Shape must be rank 1 but is rank 2"):
        infer([S([3, 4]), S([3, 1], tf.int32)], attrs)


def test_reverse_sequence_gradient():
    lengths = tf.constant([2, 0, 3, 1])
    check_gradients(lambda x: tf.reverse_sequence(x, lengths, seq_axis=0, batch_axis=1),
                    [np.arange(12.0).reshape(3, 4)])


# -- identity_n, no_op, group, tuple -----------------------------------------------------------------

def test_identity_n():
    a, b = tf.identity_n([1, [2.0, 3]])
    check(a, np.int32(1))
    check(b, np.array([2, 3], np.float32))
    assert len(tf.identity_n((1,))) == 1
    with pytest.raises(TypeError):
        tf.identity_n(1)
    outs = traced(lambda x, y: tf.identity_n([x, y * 2]), tf.constant([1.0]), tf.constant(2))
    check(outs[0], np.array([1], np.float32))
    check(outs[1], np.int32(4))
    assert [s.as_list() for _, s in manip.IDENTITY_N.infer([S([None, 2]), S(None)], {})[:1]] == [[None, 2]]
    check_gradients(lambda x, y: tf.concat(tf.identity_n([x * 2.0, y]), 0), [np.array([1.0, 2]), np.array([3.0])])


def test_grouping_ops_eagerly():
    assert tf.no_op() is None
    assert tf.group(tf.constant(1), tf.constant(2)) is None
    assert tf.group() is None
    assert tf.tuple([1, 2]) == [1, 2]
    t = tf.constant(1)
    got = tf.tuple([t, None])
    assert got[0] is t and got[1] is None


def test_grouping_ops_in_graphs():
    seen = {}

    def fn(a):
        b = a + 1
        seen["group"] = tf.group(a, [b], name="grp")
        seen["no_op"] = tf.no_op()
        seen["tuple"] = tf.tuple([a, b, None])
        return a

    tf.function(fn).get_concrete_function(S([], tf.float32))
    grp = seen["group"]
    assert grp.type == "NoOp" and grp.name == "grp"
    assert [c.name for c in grp.control_inputs] == ["a", "add"]
    assert seen["no_op"].type == "NoOp" and seen["no_op"].name == "NoOp"
    first, second, none = seen["tuple"]
    assert none is None and first.op.type == "Identity" and first.op.name == "tuple/control_dependency"
    assert [c.name for c in first.op.control_inputs] == ["tuple/group_deps"]
    assert [c.name for c in second.op.control_inputs] == ["tuple/group_deps"]

    def bad_kwargs():
        tf.group(tf.constant(1), foo=2)
        return tf.constant(1)
    with pytest.raises(ValueError, match="Unknown keyword arguments: foo"):
        tf.function(bad_kwargs).get_concrete_function()


def test_group_keeps_stateful_work_and_orders_it():
    v = tf.Variable(0.0)

    @tf.function
    def fn(x):
        update = v.assign_add(x)
        done = tf.group(update)
        with tf.control_dependencies([done]):
            return tf.identity(x) * 2

    check(fn(tf.constant(3.0)), np.float32(6))
    assert v.numpy() == 3.0
    tup = tf.function(lambda x: tf.tuple([x, x + 1]))(tf.constant(1.0))
    check(tup[1], np.float32(2))


# -- searchsorted --------------------------------------------------------------------------------------

@SETTINGS
@given(st.integers(0, 10_000), st.integers(1, 3), st.integers(0, 6), st.integers(0, 5),
       st.sampled_from(["left", "right"]))
def test_searchsorted_matches_numpy(seed, rows, n, m, side):
    rng = np.random.default_rng(seed)
    seq = np.sort(rng.integers(0, 5, size=(rows, n)), axis=1).astype(np.float32)
    values = rng.integers(-1, 6, size=(rows, m)).astype(np.float32)
    expected = np.stack([np.searchsorted(s, v, side=side) for s, v in zip(seq, values)]).astype(np.int32)
    check(tf.searchsorted(seq, values, side=side), expected, tf.int32)
    fn = tf.function(lambda a, b: tf.searchsorted(a, b, side=side, out_type=tf.int64))
    check(fn(tf.constant(seq), tf.constant(values)), expected.astype(np.int64), tf.int64)


def test_searchsorted_values_and_errors():
    check(tf.searchsorted([0.0, 1, 2, 2, 3], [2.0, 0.5, 5]), np.array([2, 1, 5], np.int32))
    check(tf.searchsorted([0.0, 1, 2, 2, 3], [2.0, 0.5, 5], side="right"), np.array([4, 1, 5], np.int32))
    check(tf.searchsorted([[0.0, 1, 2]], [1.0]), np.array([1], np.int32))
    check(tf.searchsorted([0.0, 1, np.nan], [np.nan, 5.0]), np.array([0, 2], np.int32))  # TensorFlow's answer
    check(tf.searchsorted(tf.zeros([2, 0]), [[1.0], [2.0]]), np.zeros((2, 1), np.int32))
    with pytest.raises(ValueError, match="Argument `side` must be either 'right' or 'left'. Received: `side` = "
                                         "'middle'."):
        tf.searchsorted([0.0], [1.0], side="middle")
    with pytest.raises(IAE, match="slice index -1 of dimension 0 out of bounds"):
        tf.searchsorted([0.0, 1, 2], 1.0)
    with pytest.raises(IAE, match="Leading dim_size of both tensors must match."):
        tf.searchsorted([[0.0, 1, 2], [3, 4, 5]], [[2.5]])
    with pytest.raises(IAE, match="cannot compute LowerBound as input #1.*float tensor but is a int32 tensor"):
        tf.searchsorted([0.0, 1, 2], [1])
    with pytest.raises(IAE, match="Value for attr 'out_type' of float is not in the list"):
        tf.searchsorted([0.0, 1, 2], [1.0], out_type=tf.float32)


def test_searchsorted_inference():
    assert static_shape(lambda a, b: tf.searchsorted(a, b), S([None, None]), S([None, 3])) == [None, 3]
    assert static_shape(lambda a, b: tf.searchsorted(a, b), S(None), S(None)) is None
    out = manip.UPPER_BOUND.infer([S([None, 4]), S([None, 3])], {"out_type": np.dtype(np.int64)})
    assert out[0][0] is tf.int64 and out[0][1].as_list() == [None, 3]
    with pytest.raises(ValueError, match="Shape must be rank 2 but is rank 1"):
        manip.LOWER_BOUND.infer([S([4]), S([None, 3])], {"out_type": np.dtype(np.int32)})


# -- histogram_fixed_width -------------------------------------------------------------------------------

@SETTINGS
@given(st.integers(0, 10_000), st.integers(1, 8), st.sampled_from([np.float32, np.float64, np.int32]))
def test_histogram_matches_reference(seed, nbins, dtype):
    rng = np.random.default_rng(seed)
    values = (rng.standard_normal(20) * 4).astype(dtype)
    lo, hi = dtype(-3), dtype(5)
    # Reference: TensorFlow's rule, clamped bins of width (hi - lo) / nbins.
    bins = np.clip(np.floor((np.maximum(values, lo) - lo).astype(np.float64) / (float(hi - lo) / nbins)), 0,
                   nbins - 1).astype(int)
    expected = np.bincount(bins, minlength=nbins).astype(np.int32)
    check(tf.histogram_fixed_width(values, [lo, hi], nbins=nbins), expected, tf.int32)
    fn = tf.function(lambda v, r: tf.histogram_fixed_width(v, r, nbins=nbins, dtype=tf.int64))
    check(fn(tf.constant(values), tf.constant([lo, hi])), expected.astype(np.int64), tf.int64)


def test_histogram_values_and_errors():
    got = tf.histogram_fixed_width([-1.0, 0.0, 1.5, 2.0, 5.0, 15], [0.0, 5.0], nbins=5)
    check(got, np.array([2, 1, 1, 0, 2], np.int32))
    check(tf.histogram_fixed_width([1, 2, 3, 10], [0, 4], nbins=2), np.array([1, 3], np.int32))
    check(tf.histogram_fixed_width([[1.0, 2], [3, 10]], [0, 4], nbins=2), np.array([1, 3], np.int32))
    check(tf.histogram_fixed_width([0.0, 1, 2, 3, 4, 3.9999999], [0.0, 4], nbins=4), np.array([1, 1, 1, 3], np.int32))
    check(tf.histogram_fixed_width(tf.constant([0.3, 0.6, 0.9, 0.1, 0.7]), tf.constant([0.0, 0.9]), nbins=3),
          np.array([1, 1, 3], np.int32))  # float32 rounding as in TensorFlow
    check(tf.histogram_fixed_width([np.inf, -np.inf], [0.0, 1], nbins=2), np.array([1, 1], np.int32))
    with pytest.raises(IAE, match=r"value_range should satisfy value_range\[0\] < value_range\[1\], but got "
                                  r"'\[4, 0\]'"):
        tf.histogram_fixed_width([1.0, 2], [4.0, 0], nbins=2)
    with pytest.raises(IAE, match="nbins should be a positive number, but got '0'"):
        tf.histogram_fixed_width([1.0, 2], [0.0, 4], nbins=0)
    with pytest.raises(IAE, match="value_range should be a vector of 2 elements."):
        tf.histogram_fixed_width([1.0, 2], [0.0, 4, 5], nbins=2)
    with pytest.raises(IAE, match="Histogram values must not contain NaN"):
        tf.histogram_fixed_width([np.nan, 2], [0.0, 4], nbins=2)
    with pytest.raises(IAE, match="Value for attr 'dtype' of float is not in the list of allowed values"):
        tf.histogram_fixed_width([1.0], [0.0, 4], nbins=2, dtype=tf.float32)
    with pytest.raises(IAE, match="Value for attr 'T' of uint8 is not in the list of allowed values: int32, "
                                  "int64, float, double"):
        tf.histogram_fixed_width(tf.constant([0], tf.uint8), tf.constant([0, 255], tf.uint8), nbins=3)


def test_histogram_inference():
    assert static_shape(lambda a: tf.histogram_fixed_width(a, [0.0, 1.0], nbins=7), S(None)) == [7]
    assert static_shape(lambda a, n: tf.histogram_fixed_width(a, [0.0, 1.0], nbins=n), S(None),
                        S([], tf.int32)) == [None]


# -- embedding_lookup ----------------------------------------------------------------------------------

def test_embedding_lookup_values_and_errors():
    table = np.arange(12.0, dtype=np.float32).reshape(4, 3)
    check(tf.nn.embedding_lookup(table, [[0, 3], [1, 1]]), table[[[0, 3], [1, 1]]], tf.float32)
    check(tf.nn.embedding_lookup(table, 2), table[2])
    expected = np.array([[0, 1, 2], [2.1213202, 2.828427, 3.535534], [2.589459, 2.8771768, 3.1648943]], np.float32)
    np.testing.assert_allclose(tf.nn.embedding_lookup(table, [0, 1, 3], max_norm=5.0).numpy(), expected, rtol=1e-6)
    check(tf.nn.embedding_lookup([table, table], [0, 5]), table[[0, 1]])  # 'div' shards
    five = np.arange(10.0, dtype=np.float32).reshape(5, 2)
    check(tf.nn.embedding_lookup([five[:3], five[3:]], [2, 3, 4]), five[[2, 3, 4]])
    with pytest.raises(ValueError, match="'div' partition strategy"):
        tf.nn.embedding_lookup([table[:1], table[1:]], [0])
    with pytest.raises(IAE, match=r"indices\[0\] = 5 is not in \[0, 4\)"):
        tf.nn.embedding_lookup(table, [5])
    with pytest.raises(IAE, match="Value for attr 'Tindices' of float"):
        tf.nn.embedding_lookup(table, [0.0])
    fn = tf.function(lambda p, i: tf.nn.embedding_lookup(p, i, max_norm=5.0))
    np.testing.assert_allclose(fn(tf.constant(table), tf.constant([0, 1, 3])).numpy(), expected, rtol=1e-6)
    assert static_shape(lambda p, i: tf.nn.embedding_lookup(p, i), S([None, 3]), S([None, 2], tf.int32)) \
        == [None, 2, 3]


def test_embedding_lookup_gradients():
    ids = tf.constant([[0, 2], [2, 2]])
    check_gradients(lambda p: tf.nn.embedding_lookup(p, ids), [np.arange(8.0).reshape(4, 2)])
    check_gradients(lambda p: tf.nn.embedding_lookup(p, ids, max_norm=3.0), [np.arange(8.0).reshape(4, 2) - 2])
    v = tf.Variable(np.ones((3, 2)))
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.nn.embedding_lookup(v, [0, 2, 2]))
    g = tape.gradient(y, v)
    assert isinstance(g, tf.IndexedSlices)  # as TensorFlow
    np.testing.assert_array_equal(tf.convert_to_tensor(g).numpy(), [[1, 1], [0, 0], [2, 2]])


# -- unravel_index -------------------------------------------------------------------------------------

@SETTINGS
@given(shapes, st.integers(0, 10_000), st.sampled_from([np.int32, np.int64]))
def test_unravel_index_matches_numpy(dims, seed, dtype):
    rng = np.random.default_rng(seed)
    flat = rng.integers(0, int(np.prod(dims)), size=int(rng.integers(1, 5))).astype(dtype)
    expected = np.array(np.unravel_index(flat, dims), dtype=dtype).reshape(len(dims), len(flat))
    check(tf.unravel_index(flat, np.array(dims, dtype)), expected)
    check(traced(tf.unravel_index, tf.constant(flat), tf.constant(np.array(dims, dtype))), expected)
    check(tf.unravel_index(dtype(flat[0]), list(dims)), np.array(np.unravel_index(flat[0], dims), dtype=dtype))


def test_unravel_index_values_and_errors():
    check(tf.unravel_index([5, 7, 0], [3, 4]), np.array([[1, 1, 0], [1, 3, 0]], np.int32))
    check(tf.unravel_index(tf.constant([5], tf.int64), [3, 4]), np.array([[1], [1]], np.int64), tf.int64)
    check(tf.unravel_index([-1], [3, 4]), np.array([[0], [-1]], np.int32))  # TensorFlow's truncating division
    with pytest.raises(IAE, match="index is out of bound as with dims"):
        tf.unravel_index([12], [3, 4])
    with pytest.raises(IAE, match="Input dims cannot contain a dim of zero, but dims contains zero at index 1"):
        tf.unravel_index([0], [3, 0])
    with pytest.raises(IAE, match="Input dims cannot be negative. Got dim = -1 at index 1"):
        tf.unravel_index([0], [3, -1])
    with pytest.raises(IAE, match='The indices can only be 1-D, got "\\[1,2\\]"'):
        tf.unravel_index([0], [[3, 4]])
    with pytest.raises(IAE, match='The indices can only be scalar or vector, got "\\[2,2\\]"'):
        tf.unravel_index([[1, 2], [3, 4]], [3, 4])
    with pytest.raises(IAE, match="Value for attr 'Tidx' of float is not in the list of allowed values: int32, int64"):
        tf.unravel_index([1.0], [3, 4])
    with pytest.raises(IAE, match=r"received empty tensor indices: Tensor<type: int32 shape: \[0\] values: >"):
        tf.unravel_index(np.zeros(0, np.int32), [2, 3])


def test_unravel_index_inference():
    infer = manip.UNRAVEL_INDEX.infer
    assert infer([S([None], tf.int32), S([3], tf.int32)], {})[0][1].as_list() == [3, None]
    assert infer([S([], tf.int32), S([None], tf.int32)], {})[0][1].as_list() == [None]
    assert infer([S([2, 2], tf.int32), S([None], tf.int32)], {})[0][1].as_list() == [None, 4]
    assert infer([S(None, tf.int32), S([2], tf.int32)], {})[0][1].rank is None


# -- ensure_shape --------------------------------------------------------------------------------------

def test_ensure_shape_eager():
    check(tf.ensure_shape([1.0, 2], [2]), np.array([1, 2], np.float32))
    check(tf.ensure_shape([1.0, 2], [None]), np.array([1, 2], np.float32))
    check(tf.ensure_shape([1.0, 2], tf.TensorShape(None)), np.array([1, 2], np.float32))
    check(tf.ensure_shape([1.0, 2], tf.constant([2])), np.array([1, 2], np.float32))
    with pytest.raises(IAE, match=r"Shape of tensor input \[2\] is not compatible with expected shape \[3\]."):
        tf.ensure_shape([1.0, 2], [3])
    with pytest.raises(IAE, match=r"expected shape \[2,1\]"):
        tf.ensure_shape([1.0, 2], [2, 1])


def test_ensure_shape_in_graphs():
    assert static_shape(lambda a: tf.ensure_shape(a, [None, 3]), S([2, None])) == [2, 3]
    assert static_shape(lambda a: tf.ensure_shape(a, [None, 3]), S(None)) == [None, 3]
    with pytest.raises(ValueError, match=r"Dimension 0 in both shapes must be equal, but are 3 and 2. Shapes are "
                                         r"\[3\] and \[2\]"):
        static_shape(lambda a: tf.ensure_shape(a, [3]), S([2]))
    with pytest.raises(ValueError, match="Shape must be rank 2 but is rank 1"):
        static_shape(lambda a: tf.ensure_shape(a, [None, 3]), S([None]))
    fn = tf.function(lambda a: tf.ensure_shape(a, [None, 3]), input_signature=[S(None)])
    check(fn(tf.zeros([2, 3])), np.zeros((2, 3), np.float32))
    with pytest.raises(IAE, match=r"Shape of tensor a \[2,4\] is not compatible with expected shape \[\?,3\]"):
        fn(tf.zeros([2, 4]))
    with pytest.raises(IAE, match=r"Shape of tensor a \[2\] is not compatible"):
        fn(tf.zeros([2]))
    check_gradients(lambda x: tf.ensure_shape(x, [None, 2]) * 3.0, [np.ones((2, 2))])


# -- assert_shapes -------------------------------------------------------------------------------------

X, Y, Z, SCALAR = tf.zeros([2, 3]), tf.zeros([3]), tf.zeros([2, 3, 4]), tf.zeros([])


@pytest.mark.parametrize("shapes", [
    [(X, ("N", "Q")), (Y, ("Q",))],
    [(X, ["N", 3]), (Z, [2, "Q", None])],
    [(SCALAR, ())], [(SCALAR, [])], [(SCALAR, (1,))], [(SCALAR, (..., "N"))],
    [(X, "NQ")], [(Y, "N")], [(X, (None, 3)), (X, (".", "."))],
    [(Z, (..., "N", "Q", 4)), (X, ("N", "Q"))], [(Z, ("*", 3, 4))], [(Z, ("N", "...", "Q"))],
    [(X, (2.0, 3)), (X, (np.int64(2), "3"))], [(X, tf.TensorShape([2, 3]))],
    [(np.zeros([2, 3]), ("N", "Q")), ([1, 2], ("N",))], [(tf.zeros([3, 3]), ("N", "N"))],
    [(X, np.array(["N", "Q"])), (Y, ("Q",))], [(X, None)], ((( X, ("N", "Q")),)),
])
def test_assert_shapes_accepts(shapes):
    assert tf.debugging.assert_shapes(shapes) is None


@pytest.mark.parametrize("shapes, message, expected", [
    ([(X, ("N", "Q")), (Y, ("N",))], None, "Specified by tensor shape=(2, 3) dtype=float32 dimension 0.  Tensor "
                                           "shape=(3,) dtype=float32 dimension 0 must have size 2.  Received size 3, "
                                           "shape (3,)"),
    ([(X, ("N",))], None, "Tensor  must have rank in (0, 1).  Received rank 2, shape (2, 3)"),
    ([(X, ())], None, "Tensor  must have rank in (0, 1).  Received rank 2, shape (2, 3)"),
    ([(X, (2, 4))], None, "Specified explicitly.  Tensor shape=(2, 3) dtype=float32 dimension 1 must have size 4.  "
                          "Received size 3, shape (2, 3)"),
    ([(X, ("N",))], "hello", "hello.  Tensor  must have rank in (0, 1)."),
    ([(Y, 3)], None, "Tensor shape=(3,) dtype=float32.  Specified shape must be an iterable.  An iterable has the "
                     "attribute `__iter__` or `__getitem__`.  Received specified shape: 3"),
    ([(X, (1.5, 3))], None, "dimension 0 must have size 1.  Received size 2"),
    ([(X, (True, 3))], None, "dimension 0 must have size 1.  Received size 2"),
    ([(X, (-1, 3))], None, "dimension 0 must have size -1.  Received size 2"),
    ([(tf.zeros([1, 3]), ("N", "Q")), (X, ("N", "Q"))], None, "Tensor shape=(2, 3) dtype=float32 dimension 0 must "
                                                              "have size 1.  Received size 2"),
    ([(tf.zeros([3, 2]), ("N", "N"))], None, "Specified by tensor shape=(3, 2) dtype=float32 dimension 0.  Tensor "
                                             "shape=(3, 2) dtype=float32 dimension 1 must have size 3."),
    ([(Z, ("...", "Q"))], None, "Tensor  must have rank 2.  Received rank 3, shape (2, 3, 4)"),
    ([(Z, (..., "Q")), (X, ("N", "Q"))], None, "Specified by tensor shape=(2, 3, 4) dtype=float32 dimension -1.  "
                                               "Tensor shape=(2, 3) dtype=float32 dimension 1 must have size 4."),
    ([(Z, (..., "N", 4)), (X, ("N", "Q"))], None, "dimension -2.  Tensor shape=(2, 3) dtype=float32 dimension 0 "
                                                  "must have size 3.  Received size 2"),
    ([(Z, ("N", ..., "Q"))], None, "Tensor shape=(2, 3, 4) dtype=float32 specified shape index 1.  Symbol `...` or "
                                   "`*` for a variable number of unspecified dimensions is only allowed as the first "
                                   "entry"),
    ([(Z, ("*", 2, 4))], None, "Specified explicitly.  Tensor shape=(2, 3, 4) dtype=float32 dimension -2 must have "
                               "size 2.  Received size 3"),
    ([(Y, ("*", 2, 4))], "m", "m.  Tensor  must have rank at least 2.  Received rank 1, shape (3,)"),
    ([(Z, (...,))], None, "dimension -1 must have size 1.  Received size 4"),
    ([(SCALAR, (2,))], None, "Tensor shape=() dtype=float32 dimension 0 must have size 2.  Received size 1, shape ()"),
    ([(SCALAR, ("N",)), (Y, ("N",))], None, "Tensor shape=(3,) dtype=float32 dimension 0 must have size 1."),
    ([(X, ("N", "Q")), (Y, ("N",)), (Z, ("A",))], None, "must have rank in (0, 1).  Received rank 3"),
    ([(X, np.array([2, 4]))], None, "dimension 1 must have size 4.  Received size 3"),
])
def test_assert_shapes_rejects(shapes, message, expected):
    with pytest.raises(ValueError) as info:
        tf.debugging.assert_shapes(shapes, message=message)
    assert expected in str(info.value)


def test_assert_shapes_argument_errors():
    with pytest.raises(TypeError, match="unhashable"):
        tf.debugging.assert_shapes({X: ("N", "Q")})
    with pytest.raises(ValueError):
        tf.debugging.assert_shapes([(X, ("N", "Q"), 3)])


def _pair(a, b):
    tf.debugging.assert_shapes([(a, ("N", "Q")), (b, ("Q",))])
    return a


def test_assert_shapes_static_in_graphs():
    with pytest.raises(ValueError, match="Specified by tensor a:0 dimension 1.  Tensor b:0 dimension 0 must have "
                                         r"size 3.  Received size 4, shape \(4,\)"):
        tf.function(_pair).get_concrete_function(S([2, 3], name="a"), S([4], name="b"))
    tf.function(_pair).get_concrete_function(S([None, 3]), S([None]))


def test_assert_shapes_checked_when_graph_runs():
    fn = tf.function(_pair, input_signature=[S([None, None]), S([None])])
    check(fn(tf.zeros([2, 3]), tf.zeros([3])), np.zeros((2, 3), np.float32))
    with pytest.raises(IAE, match=r"assertion failed: \[\] \[Specified by tensor a:0 dimension 1\] \[Tensor b:0 "
                                  r"dimension\] \[0\] \[must have size\] \[3\] \[Received shape: \] \[4\]"):
        fn(tf.zeros([2, 3]), tf.zeros([4]))
    by_rank = tf.function(_pair, input_signature=[S(None), S([None])])
    with pytest.raises(IAE, match=r"assertion failed: \[\] \[Tensor a:0 must have rank\] \[2\] \[Received shape: \] "
                                  r"\[2 3 1\]"):
        by_rank(tf.zeros([2, 3, 1]), tf.zeros([3]))

    def inner(a):
        tf.debugging.assert_shapes([(a, (..., "Q", 2))])
        return a
    inner = tf.function(inner, input_signature=[S(None)])
    assert inner(tf.zeros([3, 2])).shape == [3, 2]
    with pytest.raises(IAE, match=r"\[Tensor a:0 must have rank at least\] \[2\] \[Received shape: \] \[3\]"):
        inner(tf.zeros([3]))
    with pytest.raises(IAE, match=r"\[Specified explicitly\] \[Tensor a:0 dimension\] \[-1\] \[must have size\] "
                                  r"\[2\] \[Received shape: \] \[3 3\]"):
        inner(tf.zeros([3, 3]))

    def vector(a):
        tf.debugging.assert_shapes([(a, ("Q",))])
        return a
    vector = tf.function(vector, input_signature=[S(None)])
    check(vector(tf.zeros([])), np.float32(0))
    with pytest.raises(IAE, match=r"\[Tensor a:0 must have rank in\] \[0\] \[1\] \[Received shape: \] \[3 3\]"):
        vector(tf.zeros([3, 3]))

    def with_data(a):
        tf.debugging.assert_shapes([(a, ("Q", 2))], message="mm", data=["d1"], summarize=2)
        return a
    with_data = tf.function(with_data, input_signature=[S([None, None])])
    with pytest.raises(IAE, match=r"assertion failed: \[d1\]"):
        with_data(tf.zeros([3, 3]))
