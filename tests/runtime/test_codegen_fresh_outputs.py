"""Generated code writes a ufunc's result into a MatMul's result after its last use (a MatMul kernel
always returns a new array), and only then: the values are eager's bits, and a product that is returned
or read again later keeps its value."""
import numpy as np

import tensorflux as tf


def _bits(t):
    return np.asarray(t).view(np.uint32)


def test_scaled_weight_gradient_is_written_in_place_with_eager_bits():
    rs = np.random.RandomState(0)
    x = tf.constant(rs.rand(60, 784).astype(np.float32))
    g = tf.constant(rs.randn(60, 128).astype(np.float32))
    w = tf.Variable(rs.randn(784, 128).astype(np.float32))

    def update(x, g):
        w.assign_sub(0.01 * tf.matmul(x, g, transpose_a=True))
        return tf.matmul(x, w) + 1.0

    f = tf.function(update)
    source = f.get_concrete_function(x, g).generated_source()
    assert "out=MatMul" in source
    w0 = w.numpy().copy()
    traced = f(x, g)
    w_traced = w.numpy().copy()
    w.assign(w0)
    eager = update(x, g)
    assert np.array_equal(_bits(w.numpy()), _bits(w_traced))
    assert np.array_equal(_bits(traced), _bits(eager))


def test_a_returned_or_reused_product_is_never_overwritten():
    rs = np.random.RandomState(1)
    a = tf.constant(rs.randn(64, 64).astype(np.float32))

    @tf.function
    def f(a):
        p = tf.matmul(a, a)
        q = p * 3.0           # p is read again below: q must not be written into p
        return p, q + p

    p, r = f(a)
    want = np.matmul(a.numpy(), a.numpy())
    assert np.array_equal(_bits(p), _bits(want))
    assert np.array_equal(_bits(r), _bits(want * np.float32(3.0) + want))
