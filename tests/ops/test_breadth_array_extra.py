"""Top-level array names of issue 16 (space_to_batch family, bitcast, guarantee_const, parallel_stack,
histogram_fixed_width_bins, broadcast_static/dynamic_shape, get_static_value, make_tensor_proto /
make_ndarray with TensorFlow's bytes), banded linalg (tridiagonal_matmul, banded_triangular_solve,
eigh_tridiagonal) and atrous convolutions: values, bytes and messages recorded from TensorFlow 2.21."""
import numpy as np
import pytest

import tensorflux as tf
from helpers import check_gradients


def _v(t):
    return t.numpy().tolist()


def test_space_to_batch_family_matches_tensorflow():
    x = tf.reshape(tf.range(16.), [1, 4, 4, 1])
    s = tf.space_to_batch_nd(x, [2, 2], [[0, 0], [0, 0]])
    assert s.shape == [4, 2, 2, 1]
    assert _v(s) == [[[[0.0], [2.0]], [[8.0], [10.0]]], [[[1.0], [3.0]], [[9.0], [11.0]]],
                     [[[4.0], [6.0]], [[12.0], [14.0]]], [[[5.0], [7.0]], [[13.0], [15.0]]]]
    assert _v(tf.batch_to_space(s, [2, 2], [[0, 0], [0, 0]])) == _v(x)
    padded = [[[[0.0], [1.0]], [[4.0], [5.0]]], [[[2.0], [3.0]], [[0.0], [0.0]]]]
    six = tf.reshape(tf.range(6.), [1, 3, 2, 1])
    assert _v(tf.space_to_batch(six, [2, 1], [[0, 1], [0, 0]])) == padded
    assert _v(tf.nn.space_to_batch(six, [2, 1], [[0, 1], [0, 0]])) == padded
    paddings, crops = tf.required_space_to_batch_paddings([3, 5], [2, 2], base_paddings=[[1, 0], [0, 0]])
    assert (_v(paddings), _v(crops)) == ([[1, 0], [0, 1]], [[0, 0], [0, 1]])
    check_gradients(lambda t: tf.space_to_batch_nd(t, [2, 1], [[0, 1], [0, 0]]), [np.arange(6.).reshape(1, 3, 2, 1)])
    traced = tf.function(lambda t: tf.space_to_batch_nd(t, [2, 2], [[0, 0], [0, 0]]),
                         input_signature=[tf.TensorSpec([None, 4, 4, 1], tf.float32)]).get_concrete_function()
    assert traced.structured_outputs.shape.as_list() == [None, 2, 2, 1]


def test_reinterpreting_ops_match_tensorflow():
    assert _v(tf.bitcast(tf.constant([1.0], tf.float32), tf.int32)) == [1065353216]
    assert _v(tf.bitcast(tf.constant([[1, 0]], tf.int16), tf.int32)) == [1]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Cannot bitcast from 5 to 3"):
        tf.bitcast(tf.constant([1, 2, 3], tf.int16), tf.int32)
    assert _v(tf.function(lambda: tf.parallel_stack([[1, 2], [3, 4]]))()) == [[1, 2], [3, 4]]
    with pytest.raises(RuntimeError, match="not compatible with eager execution"):
        tf.parallel_stack([[1, 2], [3, 4]])
    assert _v(tf.histogram_fixed_width_bins([-1., 0., 1.5, 2., 5., 15.], [0., 5.], nbins=5)) == [0, 0, 1, 2, 4, 4]
    assert tf.broadcast_static_shape(tf.TensorShape([2, 1]), tf.TensorShape([3])).as_list() == [2, 3]
    assert _v(tf.broadcast_dynamic_shape([2, 1], [3])) == [2, 3]
    with pytest.raises(ValueError, match=r"Incompatible shapes for broadcasting.*Received: \(2,\) and \(3,\)"):
        tf.broadcast_static_shape(tf.TensorShape([2]), tf.TensorShape([3]))
    assert tf.get_static_value(tf.constant([1, 2])).tolist() == [1, 2]
    assert _v(tf.guarantee_const(tf.constant(1.))) == 1.0


# tf.make_tensor_proto(value).SerializeToString() in TensorFlow 2.21.
PROTOS = [
    (lambda: tf.make_tensor_proto([1., 2.]), b'\x08\x01\x12\x04\x12\x02\x08\x02"\x08\x00\x00\x80?\x00\x00\x00@'),
    (lambda: tf.make_tensor_proto(3), b'\x08\x03\x12\x00:\x01\x03'),
    (lambda: tf.make_tensor_proto(["a"]), b'\x08\x07\x12\x04\x12\x02\x08\x01B\x01a'),
    (lambda: tf.make_tensor_proto(1.5, shape=[2]), b'\x08\x01\x12\x04\x12\x02\x08\x02*\x04\x00\x00\xc0?'),
    (lambda: tf.make_tensor_proto(np.float64(2)), b'\x08\x02\x12\x002\x08\x00\x00\x00\x00\x00\x00\x00@'),
    (lambda: tf.make_tensor_proto([True, False]), b'\x08\n\x12\x04\x12\x02\x08\x02Z\x02\x01\x00'),
    (lambda: tf.make_tensor_proto(np.array([1.5, 2.5], np.float16)), b'\x08\x13\x12\x04\x12\x02\x08\x02"\x04\x00>\x00A'),
    (lambda: tf.make_tensor_proto([1 + 2j, 3j]),
     b'\x08\x12\x12\x04\x12\x02\x08\x02b \x00\x00\x00\x00\x00\x00\xf0?\x00\x00\x00\x00\x00\x00\x00@'
     b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x08@'),
    (lambda: tf.make_tensor_proto(np.array([1, 2], np.uint8)), b'\x08\x04\x12\x04\x12\x02\x08\x02"\x02\x01\x02'),
    (lambda: tf.make_tensor_proto(7, dtype=tf.int64, shape=[3]), b'\x08\t\x12\x04\x12\x02\x08\x03R\x01\x07'),
    (lambda: tf.make_tensor_proto(np.zeros((0,), np.float32)), b'\x08\x01\x12\x02\x12\x00'),
]


@pytest.mark.parametrize("make, expected", PROTOS)
def test_make_tensor_proto_is_byte_identical(make, expected):
    proto = make()
    assert proto.SerializeToString() == expected
    array = tf.make_ndarray(proto)
    assert array.shape == tuple(d.size for d in proto.tensor_shape.dim)


def test_make_ndarray_broadcasts_a_single_value():
    assert tf.make_ndarray(tf.make_tensor_proto(1.5, shape=[2])).tolist() == [1.5, 1.5]


def test_banded_linalg_matches_tensorflow():
    compact = tf.constant([[1., 2., 0.], [4., 5., 6.], [0., 8., 9.]])
    rhs = tf.constant([[1.], [2.], [3.]])
    assert _v(tf.linalg.tridiagonal_matmul(compact, rhs)) == [[6.0], [24.0], [36.0]]
    bands = tf.constant([[1., 2., 3.], [4., 5., 6.]])
    np.testing.assert_allclose(tf.linalg.banded_triangular_solve(bands, rhs).numpy(), [[1.0], [-1.5], [4.0]])
    np.testing.assert_allclose(tf.linalg.banded_triangular_solve(bands, rhs, lower=False).numpy(),
                               [[0.2], [0.2], [0.5]], rtol=1e-6)
    np.testing.assert_allclose(tf.linalg.banded_triangular_solve(bands, rhs, adjoint=True).numpy(),
                               [[11.0], [-2.0], [1.0]])
    alpha, beta = tf.constant([1., 2., 3.], tf.float64), tf.constant([0.5, 0.5], tf.float64)
    expected = [0.7752551286084111, 1.9999999999999998, 3.2247448713915885]
    np.testing.assert_allclose(tf.linalg.eigh_tridiagonal(alpha, beta).numpy(), expected, rtol=1e-12)
    values, vectors = tf.linalg.eigh_tridiagonal(alpha, beta, eigvals_only=False)
    np.testing.assert_allclose(np.abs(vectors.numpy()), np.abs([[0.908248290463863, 0.408248290463863, 0.09175170953613701],
                                                                [-0.4082482904638631, 0.816496580927726, 0.408248290463863],
                                                                [0.091751709536137, -0.408248290463863, 0.908248290463863]]),
                               rtol=1e-10)
    np.testing.assert_allclose(tf.linalg.eigh_tridiagonal(alpha, beta, select="i", select_range=[1, 2]).numpy(),
                               expected[1:], rtol=1e-12)
    check_gradients(lambda d, b: tf.linalg.tridiagonal_matmul(d, b), [compact.numpy(), rhs.numpy()])
    check_gradients(lambda b, r: tf.linalg.banded_triangular_solve(b, r), [bands.numpy() + 2, rhs.numpy()])


def test_atrous_convolutions_match_tensorflow():
    x = tf.reshape(tf.range(16.), [1, 4, 4, 1])
    same = [[5.0, 10.0, 12.0, 6.0], [10.0, 20.0, 24.0, 12.0], [18.0, 36.0, 40.0, 20.0], [9.0, 18.0, 20.0, 10.0]]
    assert tf.nn.atrous_conv2d(x, tf.ones([2, 2, 1, 1]), 2, "SAME").numpy().reshape(4, 4).tolist() == same
    assert tf.nn.atrous_conv2d(x, tf.ones([2, 2, 1, 1]), 2, "VALID").numpy().reshape(-1).tolist() == [20., 24., 36., 40.]
    transposed = tf.nn.atrous_conv2d_transpose(x, tf.ones([2, 2, 1, 1]), [1, 4, 4, 1], 2, "SAME")
    assert transposed.numpy().reshape(4, 4).tolist() == same
    with pytest.raises(ValueError, match="must be positive"):
        tf.nn.atrous_conv2d(x, tf.ones([2, 2, 1, 1]), 0, "SAME")
    assert tf.nn.sigmoid is tf.math.sigmoid and tf.nn.tanh is tf.math.tanh


def test_with_space_to_batch_matches_tensorflow():
    x = tf.reshape(tf.range(25.), [1, 5, 5, 1])
    w = tf.ones([2, 2, 1, 1])
    op = lambda inp, n, pad: tf.nn.conv2d(inp, w, 1, pad)  # noqa: E731
    same = tf.nn.with_space_to_batch(x, [2, 2], "SAME", op, filter_shape=[2, 2])
    assert same.numpy().reshape(5, 5).tolist() == [[6., 12., 14., 16., 8.], [12., 24., 28., 32., 16.],
                                                   [22., 44., 48., 52., 26.], [32., 64., 68., 72., 36.],
                                                   [16., 32., 34., 36., 18.]]
    valid = tf.nn.with_space_to_batch(x, [2, 1], "VALID", op)
    assert valid.numpy().reshape(-1).tolist() == [22., 26., 30., 34., 42., 46., 50., 54., 62., 66., 70., 74.]
