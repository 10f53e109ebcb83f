"""Shape ops of the array family: reshape, transpose, expand_dims, squeeze, concat, stack, unstack, split,
tile, pad, broadcast_to, reverse, identity, shape queries — values vs NumPy, errors, static inference."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tensorflux as tf
from helpers import check
from tensorflux._src.ops.array import join, padding, reorder
from tensorflux._src.ops.shapes import shape_ops, shaping

IAE = tf.errors.InvalidArgumentError
S = tf.TensorSpec


# -- reshape -----------------------------------------------------------------------------------------

def test_reshape_values_and_minus_one():
    x = np.arange(12, dtype=np.float32)
    check(tf.reshape(x, [3, -1]), x.reshape(3, 4), tf.float32)
    check(tf.reshape(tf.constant(x), (2, 2, 3)), x.reshape(2, 2, 3))
    check(tf.reshape(x, tf.TensorShape([4, 3])), x.reshape(4, 3))
    check(tf.reshape(x, tf.constant([6, 2], tf.int64)), x.reshape(6, 2))
    check(tf.reshape(x, [2, tf.constant(6)]), x.reshape(2, 6))
    check(tf.reshape(tf.zeros([0, 2]), [-1, 0]), np.zeros((2, 0)))
    check(tf.reshape(tf.zeros([0, 2]), [-1, 3]), np.zeros((0, 3)))
    check(tf.reshape(5, []), np.array(5, np.int32))


@pytest.mark.parametrize("shape, message", [
    ([3], "Input to reshape is a tensor with 2 values, but the requested shape has 3"),
    ([-1, -1], "Only one input size may be -1, not both 0 and 1"),
    ([-2], "Size 0 must be non-negative, not -2"),
    ([[2]], r"sizes input must be 1-D, not \[1,1\]"),
])
def test_reshape_errors(shape, message):
    with pytest.raises(IAE, match=message + r".*\[Op:Reshape\]"):
        tf.reshape([1, 2], shape)


def test_reshape_error_multiple_and_dtype():
    with pytest.raises(IAE, match="requested shape requires a multiple of 2"):
        tf.reshape([1, 2, 3, 4, 5], [-1, 2])
    with pytest.raises(IAE, match="Value for attr 'Tshape' of float is not in the list of allowed values"):
        tf.reshape([1, 2], [2.0])


def test_reshape_infer():
    op = shaping.RESHAPE
    shape_in = lambda v: tf.constant(v)  # noqa: E731 - constant inputs carry their value for inference
    assert op.infer([S([None, 3]), shape_in([-1])], {})[0][1].as_list() == [None]
    assert op.infer([S([2, 3]), shape_in([-1, 2])], {})[0][1].as_list() == [3, 2]
    assert op.infer([S(None), shape_in([-1, 2])], {})[0][1].as_list() == [None, 2]
    assert op.infer([S([2, 3]), S([3], tf.int32)], {})[0][1].as_list() == [None, None, None]
    assert op.infer([S([2, 3]), S(None, tf.int32)], {})[0][1].rank is None
    with pytest.raises(ValueError, match=r"Cannot reshape a tensor with 6 elements to shape \[4\] \(4 elements\)"):
        op.infer([S([2, 3]), shape_in([4])], {})


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=4), st.data())
def test_reshape_matches_numpy(dims, data):
    x = np.arange(int(np.prod(dims)), dtype=np.int32).reshape(dims)
    perm = data.draw(st.permutations(dims))
    target = list(perm)
    target[data.draw(st.integers(0, len(target) - 1))] = -1
    check(tf.reshape(x, target), x.reshape(target))


# -- transpose -----------------------------------------------------------------------------------------

def test_transpose_values():
    x = np.arange(24).reshape(2, 3, 4).astype(np.int32)
    check(tf.transpose(x), x.T)
    check(tf.transpose(x, [1, 0, 2]), x.transpose(1, 0, 2))
    check(tf.transpose(x, tf.constant([2, 0, 1])), x.transpose(2, 0, 1))
    c = np.array([[1 + 2j, 3 - 1j]])
    check(tf.transpose(c, conjugate=True), np.conj(c.T), tf.complex128)
    check(tf.transpose(c), c.T)
    check(tf.transpose([[1, 2]], conjugate=True), [[1], [2]])


@pytest.mark.parametrize("perm, message", [
    ([0], "transpose expects a vector of size 2. But input\\(1\\) is a vector of size 1"),
    ([0, 0], "1 is missing from \\{0,0\\}."),
    ([0, 2], "2 is out of range \\[0 .. 2\\)"),
])
def test_transpose_errors(perm, message):
    with pytest.raises(IAE, match=message + r" \[Op:Transpose\]"):
        tf.transpose([[1, 2]], perm)


def test_transpose_infer():
    op = reorder.TRANSPOSE
    assert op.infer([S([None, 3])], {})[0][1].as_list() == [3, None]
    assert op.infer([S([None, 3, 4])], {"perm": (2, 0, 1)})[0][1].as_list() == [4, None, 3]
    assert op.infer([S(None)], {})[0][1].rank is None
    assert op.infer([S(None)], {"perm": (1, 0)})[0][1].as_list() == [None, None]
    with pytest.raises(ValueError, match="Dimension must be 2 but is 1"):
        op.infer([S([2, 2])], {"perm": (0,)})


# -- expand_dims / squeeze -------------------------------------------------------------------------------

def test_expand_dims():
    x = np.array([1, 2], np.int32)
    for axis in (0, 1, -1, -2):
        check(tf.expand_dims(x, axis), np.expand_dims(x, axis))
    check(tf.expand_dims(x, [0]), x[None])
    check(tf.expand_dims(x, tf.constant(1)), x[:, None])
    with pytest.raises(IAE, match=r"Tried to expand dim index 2 for tensor with 1 dimensions. \[Op:ExpandDims\]"):
        tf.expand_dims(x, 2)
    with pytest.raises(IAE, match="Tried to expand dim index -3"):
        tf.expand_dims(x, -3)
    with pytest.raises(IAE, match="'dim' must be a tensor with a single value"):
        tf.expand_dims(x, [0, 1])
    with pytest.raises(IAE, match="Value for attr 'Tdim' of float"):
        tf.expand_dims(x, 1.0)


def test_expand_dims_infer():
    op = shaping.EXPAND_DIMS
    assert op.infer([S([None, 3])], {"axis": -1})[0][1].as_list() == [None, 3, 1]
    assert op.infer([S(None)], {"axis": 0})[0][1].rank is None
    with pytest.raises(ValueError, match=r"dim 4 not in the interval \[-3, 2\]"):
        op.infer([S([2, 2])], {"axis": 4})


def test_squeeze():
    x = np.zeros((1, 2, 1), np.float32)
    check(tf.squeeze(x), np.squeeze(x))
    check(tf.squeeze(x, 0), np.squeeze(x, 0))
    check(tf.squeeze(x, [0, -1]), np.squeeze(x, (0, 2)))
    check(tf.squeeze(x, [0, 0]), np.squeeze(x, 0))
    with pytest.raises(IAE, match=r"Can not squeeze dim\[1\], expected a dimension of 1, got 2 \[Op:Squeeze\]"):
        tf.squeeze(x, 1)
    with pytest.raises(IAE, match="Tried to squeeze dim index 3 for tensor with 3 dimensions"):
        tf.squeeze(x, 3)


def test_squeeze_infer():
    op = shaping.SQUEEZE
    assert op.infer([S([1, None, 1])], {"axis": (0,)})[0][1].as_list() == [None, 1]
    assert op.infer([S([1, None])], {})[0][1].rank is None  # an unknown dim might be 1
    assert op.infer([S([1, 3, 1])], {})[0][1].as_list() == [3]
    assert op.infer([S(None)], {"axis": (0,)})[0][1].rank is None
    with pytest.raises(ValueError, match=r"Can not squeeze dim\[0\], expected a dimension of 1, got 2"):
        op.infer([S([2, 2])], {"axis": (0,)})


# -- concat / stack / unstack / split --------------------------------------------------------------------

def test_concat_values_and_dtypes():
    a, b = np.arange(6).reshape(2, 3), np.arange(4).reshape(2, 2)
    check(tf.concat([a.astype(np.int32), b.astype(np.int32)], 1), np.concatenate([a, b], 1).astype(np.int32))
    check(tf.concat([[1], tf.constant([2], tf.int64)], 0), np.array([1, 2]), tf.int64)
    check(tf.concat([[1, 2], [3]], -1), [1, 2, 3])
    check(tf.concat([[1, 2], [3]], [0]), [1, 2, 3])
    check(tf.concat([[1.5]], 0), [1.5])  # a single tensor is passed through
    with pytest.raises(TypeError, match=r"Cannot convert \[2.0\] to EagerTensor of dtype int32"):
        tf.concat([[1], [2.]], 0)


@pytest.mark.parametrize("values, axis, message", [
    ([[1], [[2]]], 0, r"ConcatOp : Ranks of all input tensors should match: shape\[0\] = \[1\] vs. shape\[1\] = \[1,1\]"),
    ([[1, 2], [3]], 1, r"ConcatOp : Expected concatenating dimensions in the range \[-1, 1\), but got 1"),
    ([[[1, 2]], [[3]]], 0, r"ConcatOp : Dimension 1 in both shapes must be equal: shape\[0\] = \[1,2\] vs. "
                           r"shape\[1\] = \[1,1\]"),
    ([1, 2], 0, r"ConcatOp : Can't concatenate scalars \(use tf.stack instead\)"),
])
def test_concat_errors(values, axis, message):
    with pytest.raises(IAE, match=message + r" \[Op:ConcatV2\]"):
        tf.concat(values, axis)


def test_concat_dtype_mismatch_between_tensors():
    with pytest.raises(IAE, match="cannot compute ConcatV2 as input #1"):
        tf.concat([tf.constant([1]), tf.constant([1], tf.int64)], 0)


def test_concat_infer():
    op = join.CONCAT
    out = op.infer([S([None, 3]), S([2, None])], {"axis": 0})[0][1]
    assert out.as_list() == [None, 3]
    assert op.infer([S([4, 3]), S([2, 3])], {"axis": 0})[0][1].as_list() == [6, 3]
    assert op.infer([S([4, 3]), S(None)], {"axis": 0})[0][1].as_list() == [None, 3]
    assert op.infer([S(None), S(None)], {"axis": 0})[0][1].rank is None
    with pytest.raises(ValueError, match="Dimension 0 in both shapes must be equal, but are 2 and 3"):
        op.infer([S([2, 2]), S([3, 3])], {"axis": 1})


def test_stack_values():
    a, b = np.arange(6).reshape(2, 3), np.arange(6, 12).reshape(2, 3)
    for axis in (0, 1, 2, -1, -3):
        check(tf.stack([tf.constant(a), tf.constant(b)], axis), np.stack([a, b], axis))
    check(tf.stack([1, 2.0]), [1.0, 2.0], tf.float32)  # plain values become one constant
    check(tf.stack([]), np.zeros(0, np.float32), tf.float32)
    check(tf.stack([[1], [2]], axis=tf.constant(1)), [[1, 2]])


def test_stack_errors():
    with pytest.raises(IAE, match=r"Shapes of all inputs must match: values\[0\].shape = \[2\] != "
                                  r"values\[1\].shape = \[3\] \[Op:Pack\]"):
        tf.stack([tf.constant([1, 2]), tf.constant([1, 2, 3])])
    with pytest.raises(ValueError, match=r"Argument `axis` = 3 not in range \[-2, 2\)"):
        tf.stack([[1, 2], [3, 4]], axis=3)
    with pytest.raises(TypeError, match="Cannot convert 2.0 to EagerTensor of dtype int32"):
        tf.stack([tf.constant(1), 2.0])


def test_stack_infer():
    op = join.PACK
    assert op.infer([S([None, 3]), S([2, None])], {"axis": 1})[0][1].as_list() == [2, 2, 3]
    assert op.infer([S(None), S(None)], {"axis": 0})[0][1].rank is None
    with pytest.raises(ValueError, match="Shapes must be equal rank, but are 2 and 1"):
        op.infer([S([2, 2]), S([3])], {"axis": 0})


def test_unstack():
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    parts = tf.unstack(x, axis=1)
    assert isinstance(parts, list) and len(parts) == 3
    for p, e in zip(parts, np.moveaxis(x, 1, 0)):
        check(p, e)
    assert tf.unstack(tf.zeros([0, 2])) == []
    strings = tf.unstack(tf.constant(["a", "b"]))
    assert strings[1].numpy() == b"b" and strings[1].dtype is tf.string
    with pytest.raises(IAE, match=r"Input shape axis 0 must equal 3, got shape \[2,3\] \[Op:Unpack\]"):
        tf.unstack(x, num=3)
    with pytest.raises(ValueError, match=r"Argument `axis` = 2 not in range \[-2, 2\)"):
        tf.unstack(x, axis=2)
    with pytest.raises(ValueError, match=r"Argument `axis` = 0 not in range \[0, 0\)"):
        tf.unstack(3)


def test_unstack_infer():
    outs = join.UNPACK.infer([S([None, 3])], {"num": 3, "axis": 1})
    assert len(outs) == 3 and outs[0][1].as_list() == [None]
    assert join.UNPACK.infer([S(None)], {"num": 2, "axis": 0})[1][1].rank is None


def test_split_even_and_sizes():
    x = np.arange(12, dtype=np.int32).reshape(2, 6)
    for p, e in zip(tf.split(x, 3, axis=1), np.split(x, 3, axis=1)):
        check(p, e)
    parts = tf.split(x, [1, -1, 2], axis=1)
    for p, e in zip(parts, np.split(x, [1, 4], axis=1)):
        check(p, e)
    check(tf.split(x, tf.constant([1, 1]))[1], x[1:])
    check(tf.split([1, 2, 3], [3])[0], [1, 2, 3])


@pytest.mark.parametrize("sizes, axis, message", [
    (2, 0, r"Number of ways to split should evenly divide the split dimension, but got split_dim 0 \(size = 3\) "
           r"and num_split 2 \[Op:Split\]"),
    ([1, 3], 0, r"Determined shape must either match input shape along split_dim exactly if fully specified, or "
                r"be less than the size of the input along split_dim if not fully specified.  Got: 4"),
    ([-1, -1, 4], 0, r"There can only be one -1 in the input."),
    (3, 1, r"-input rank\(-1\) <= split_dim < input rank \(1\), but got 1"),
    (0, 0, r"Value for attr 'num_split' of 0 must be at least minimum 1"),
    ([], 0, r"Value for attr 'num_split' of 0 must be at least minimum 1"),
])
def test_split_errors(sizes, axis, message):
    with pytest.raises(IAE, match=message):
        tf.split([1, 2, 3], sizes, axis)


def test_split_infer():
    outs = join.SPLIT_V.infer([S([None, 6]), tf.constant([1, -1])], {"num_split": 2, "axis": 1})
    assert [o[1].as_list() for o in outs] == [[None, 1], [None, 5]]
    outs = join.SPLIT_V.infer([S([2, None]), tf.constant([1, -1])], {"num_split": 2, "axis": 1})
    assert [o[1].as_list() for o in outs] == [[2, 1], [2, None]]
    outs = join.SPLIT.infer([S([4, None])], {"num_split": 2, "axis": 0})
    assert [o[1].as_list() for o in outs] == [[2, None], [2, None]]
    assert join.SPLIT.infer([S(None)], {"num_split": 2, "axis": 0})[0][1].rank is None


# -- tile / pad / broadcast_to / reverse -----------------------------------------------------------------

def test_tile():
    x = np.array([[1, 2]], np.int32)
    check(tf.tile(x, [2, 3]), np.tile(x, (2, 3)))
    check(tf.tile(x, tf.constant([1, 2], tf.int64)), np.tile(x, (1, 2)))
    check(tf.tile(3, []), np.array(3, np.int32))
    with pytest.raises(IAE, match="Expected multiples argument to be a vector of length 2 but got length 1"):
        tf.tile(x, [2])
    with pytest.raises(IAE, match=r"Expected multiples\[0\] >= 0, but got -1"):
        tf.tile([1], [-1])
    with pytest.raises(IAE, match="Value for attr 'Tmultiples' of float"):
        tf.tile([1], [2.0])
    assert padding.TILE.infer([S([None, 2]), tf.constant([3, 2])], {})[0][1].as_list() == [None, 4]
    assert padding.TILE.infer([S(None), S([3], tf.int32)], {})[0][1].as_list() == [None, None, None]


@pytest.mark.parametrize("mode", ["CONSTANT", "REFLECT", "SYMMETRIC", "reflect"])
def test_pad_modes_match_numpy(mode):
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    pads = [[1, 2], [2, 1]]
    check(tf.pad(x, pads, mode), np.pad(x, pads, mode=mode.lower()), tf.float32)


def test_pad_constant_values_and_strings():
    check(tf.pad([[1, 2]], [[1, 0], [0, 1]], constant_values=9), [[9, 9, 9], [1, 2, 9]])
    check(tf.pad([1., 2.], [[1, 1]], constant_values=1.5), [1.5, 1, 2, 1.5])
    check(tf.pad([1, 2], [[1, 1]], constant_values=tf.constant(3)), [3, 1, 2, 3])
    check(tf.pad(["a"], [[1, 1]]), np.array([b"", b"a", b""], dtype=object), tf.string)
    with pytest.raises(TypeError, match="Cannot convert 1.5 to EagerTensor of dtype int32"):
        tf.pad([1, 2], [[1, 1]], constant_values=1.5)


@pytest.mark.parametrize("pads, mode, message", [
    ([[1, 1], [2, 2]], "REFLECT", "paddings must be less than the dimension size: 2, 2 not less than 2"),
    ([[1, 1], [3, 3]], "SYMMETRIC", "paddings must be no greater than the dimension size: 3, 3 greater than 2"),
    ([[1, 1]], "CONSTANT", r"The first dimension of paddings must be the rank of inputs\[1,2\] \[2,2\]"),
    ([[1, 1], [-1, 0]], "CONSTANT", "Paddings must be non-negative: -1 0"),
])
def test_pad_errors(pads, mode, message):
    with pytest.raises(IAE, match=message):
        tf.pad([[1, 2], [3, 4]], pads, mode)


def test_pad_argument_errors_and_infer():
    with pytest.raises(ValueError, match="Received `mode` = FOO"):
        tf.pad([1], [[1, 1]], mode="foo")
    with pytest.raises(IAE, match="Value for attr 'Tpaddings' of float"):
        tf.pad([1, 2], [[1.5, 1]])
    assert padding.PAD.infer([S([None, 2]), tf.constant([[1, 1], [0, 3]])], {})[0][1].as_list() == [None, 5]
    assert padding.PAD.infer([S([None, 2]), S([2, 2], tf.int32)], {})[0][1].as_list() == [None, None]
    assert padding.PAD.infer([S(None), S([3, 2], tf.int32)], {})[0][1].as_list() == [None] * 3


def test_broadcast_to():
    check(tf.broadcast_to([1, 2], [3, 2]), np.broadcast_to([1, 2], (3, 2)).astype(np.int32))
    check(tf.broadcast_to(1, [2, 2]), np.ones((2, 2), np.int32))
    with pytest.raises(IAE, match=r"Incompatible shapes: \[2\] vs. \[3\] \[Op:BroadcastTo\]"):
        tf.broadcast_to([1, 2], [3])
    with pytest.raises(IAE, match=r"Unable to broadcast tensor of shape \[2\] to tensor of shape \[2,1\]"):
        tf.broadcast_to([1, 2], [2, 1])
    with pytest.raises(IAE, match=r"Rank of input \(2\) must be no greater than rank of output shape \(1\)."):
        tf.broadcast_to([[1, 2]], [2])
    assert shaping.BROADCAST_TO.infer([S([None]), tf.constant([3, 2])], {})[0][1].as_list() == [3, 2]
    assert shaping.BROADCAST_TO.infer([S([2]), S([3], tf.int32)], {})[0][1].as_list() == [None] * 3


def test_reverse():
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    check(tf.reverse(x, [1]), x[:, ::-1])
    check(tf.reverse(x, [-1, 0]), x[::-1, ::-1])
    check(tf.reverse(x, []), x)
    with pytest.raises(IAE, match=r"'axis'\[0\] = 2 is out of valid range \[0, 1 \[Op:ReverseV2\]"):
        tf.reverse(x, [2])
    with pytest.raises(IAE, match="axis 0 specified more than once."):
        tf.reverse(x, [0, -2])
    with pytest.raises(IAE, match="'dims' must be 1-dimension, not 0"):
        tf.reverse(x, 0)
    assert reorder.REVERSE.infer([S([None, 3])], {"axis": (1,)})[0][1].as_list() == [None, 3]


# -- identity and shape queries ----------------------------------------------------------------------------

def test_identity_and_stop_gradient():
    check(tf.identity([1, 2]), [1, 2], tf.int32)
    assert tf.identity("a").numpy() == b"a"
    check(tf.stop_gradient([1.]), [1.], tf.float32)
    assert shape_ops.STOP_GRADIENT.name == "StopGradient"
    assert shape_ops.IDENTITY.infer([S(None, tf.string)], {})[0] == (tf.string, tf.TensorShape(None))


def test_shape_size_rank():
    x = tf.zeros([2, 3])
    check(tf.shape(x), [2, 3], tf.int32)
    check(tf.shape(x, out_type=tf.int64), [2, 3], tf.int64)
    check(tf.shape(3), np.zeros(0, np.int32), tf.int32)
    check(tf.size(x), np.int32(6), tf.int32)
    check(tf.size(x, out_type=tf.int64), np.int64(6), tf.int64)
    check(tf.rank(x), np.int32(2), tf.int32)
    a, b = tf.shape_n([[1], [[1, 2]]])
    check(a, [1])
    check(b, [1, 2])
    with pytest.raises(IAE, match="Value for attr 'out_type' of float is not in the list of allowed values: int32, "
                                  "int64"):
        tf.shape(x, out_type=tf.float32)


def test_shape_infer():
    assert shape_ops.SHAPE.infer([S([None, 3])], {"out_type": np.dtype(np.int32)})[0] == (tf.int32, tf.TensorShape([2]))
    assert shape_ops.SHAPE.infer([S(None)], {"out_type": np.dtype(np.int64)})[0][1].as_list() == [None]
    assert shape_ops.SIZE.infer([S(None)], {"out_type": np.dtype(np.int32)})[0][1].as_list() == []
    assert shape_ops.RANK.infer([S(None)], {})[0] == (tf.int32, tf.TensorShape([]))
