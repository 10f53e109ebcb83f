"""BiasAddGrad (ops/nn/bias_add_grad.py): the bias gradient of tf.nn.bias_add in TensorFlow 2.21's order of
additions, which is not reduce_sum's. Expected bits recorded from TensorFlow 2.21 on this machine
(tf.raw_ops.BiasAddGrad, 2 CPUs, and under `taskset -c 0` for one); tests/interop/test_interop_bias_add_grad.py
compares many more shapes and dtypes live. Also: the compiled loop, the NumPy fallback and the threaded
blocks give the same bits; the op's gradient against finite differences; TensorFlow's errors."""
import numpy as np
import pytest

import tensorflux as tf
from tensorflux._src.framework import errors
from tensorflux._src.ops import jit
from tensorflux._src.ops.nn import bias_add_grad as bag
from tensorflux._src.ops.math import eigen_sum

from helpers import check_gradients


def _data(rows, channels):
    """Exactly reproducible float32 values over many magnitudes (integer arithmetic, one rounding)."""
    i = np.arange(rows * channels, dtype=np.int64)
    v = ((i * 7919) % 10007 - 5003).astype(np.float32) / np.float32(977)
    return (v * np.exp2(((i * 31) % 13).astype(np.float32))).reshape(rows, channels)


def _bits(text):
    return np.array([int(h, 16) for h in text.split()], np.uint32)


# TensorFlow's BiasAddGrad on 2 CPUs: (5000, 32) two blocks of 2500 rows; (1000, 32) too little work for a
# second thread, one running sum; (3000, 100) more channels than 32 per thread, a running sum per channel;
# (20000, 7) two blocks. Each differs from reduce_sum in 7 to 91 of its channels.
TWO_CPUS = [
    ((5000, 32), "4985b529 494da509 c9944369 c970ad2a c84e69a4 493d2a7e 49e559a0 c89036ad c974620d c90ef4c1 48b6a150 49b84ea4 c90c485b c97792aa c921faec 4783d5c7 49876c3e 4948085a c991df90 c976c2b4 c8525c62 493ee8a2 49e297ce c88b0efc c97956aa c910ea42 48c142b5 49b65f0a c90af84e c977ab5a c91e652a 479d9b06"),
    ((1000, 32), "4880f434 c81a735d c8674d33 c8307f5b 46d899ea 4830a5ca 48bf9313 c7a10bf9 c87a7ebb c729ecfa 47b61c40 48a02d6f c75b243e c833331f c7b6c057 444ec418 488071c2 c818703b c880a954 c7e9a150 c72ba50d 4839e02e 48ce3a70 c7e7dc4b c848328e c7f820c9 480007d5 48a8abab c7a9537d c8114191 c81d5b9a 474bda91"),
    ((3000, 100), "c98e9fa1 4917ac31 c9b1df63 4974dd79 c97361dd 49973a9b c8fab7a7 49832e3f c69761ab c8656569 48c532fd c9cf6c9a 494be00f c9970349 498c40aa c937227f 498d50c8 c87a8944 491b0baf 482a485f c98b919d 491ae0cb c9b49d9a 4973558a c9729fa6 49943be9 c8f0d287 49870eca c72644ec c84f3f63 48cb3ec0 c9d2193e 494d675e c995e41b 498b690c c932fcff 49914457 c885af8a 4916f733 483ea10b c98e6f85 4918ef13 c9b31769 4971c694 c96daa81 499708f7 c8fd5761 4983ddd7 c70d8990 c878bc9d 48c7f0fe c9d12496 4949b980 c995c3d7 498df36d c93902a4 498db267 c884c18d 4914efa7 483566e9 c98d4de1 49190258 c9b33202 4976119e c9740d68 4994ab37 c8efc5f0 4983d3a1 c7381578 c85cacc2 48c718ef c9cf70d1 494f6635 c99771e7 498bd8b0 c9323f49 498ea43e c8896858 491d22bc 483b12a1 c9890a95 491dd41f c9b4dde6 49725a18 c96c043a 49957f08 c8fd6dc4 49881812 c71c3a8e c84bd1eb 48d37814 c9d26a29 494866f1 c9946d45 498d3cab c938bd08 4991917c c8877fd4 4915de24 484f77ae"),
    ((20000, 7), "4752139c c817e895 4811dc26 471548a2 c7b3a06c c806184b 47ab476c"),
]
ONE_CPU = [
    ((5000, 32), "4985b530 494da51a c994436f c970ad2f c84e69a8 493d2a76 49e559a0 c89036ab c974620f c90ef4c9 48b6a145 49b84ea8 c90c4856 c97792b2 c921faf7 4783d5ce 49876c42 49480860 c991df8a c976c2af c8525c65 493ee8a1 49e297d9 c88b0f02 c97956a2 c910ea46 48c142b8 49b65f0d c90af850 c977ab5c c91e6528 479d9b0e"),
]


@pytest.fixture(params=["numpy", "compiled"])
def path(request, monkeypatch):
    if request.param == "compiled":
        if jit.numba_or_none() is None:
            pytest.skip("numba is not installed")
        jit.build_now("bias_add_grad", bag._compile)
    else:
        monkeypatch.setattr(jit, "when_hot", lambda *a, **k: None)
    return request.param


@pytest.mark.parametrize("shape,expected", TWO_CPUS)
def test_tensorflow_bits_on_two_cpus(path, monkeypatch, shape, expected):
    monkeypatch.setattr(bag, "_threads", lambda: 2)
    got = bag._bias_add_grad_kernel(_data(*shape), "NHWC")
    np.testing.assert_array_equal(got.view(np.uint32), _bits(expected))


@pytest.mark.parametrize("shape,expected", ONE_CPU)
def test_tensorflow_bits_on_one_cpu(path, monkeypatch, shape, expected):
    monkeypatch.setattr(bag, "_threads", lambda: 1)
    got = bag._bias_add_grad_kernel(_data(*shape), "NHWC")
    np.testing.assert_array_equal(got.view(np.uint32), _bits(expected))


def test_not_reduce_sums_order():
    x = _data(5000, 32)
    assert not np.array_equal(bag._bias_add_grad_kernel(x, "NHWC"), eigen_sum.reduce_sum(x, (0,)))


def _sequential(x2d, dtype):
    out = np.zeros(x2d.shape[1], dtype)
    for row in x2d.astype(dtype):
        out = out + row
    return out


@pytest.mark.parametrize("channels", [1, 2, 3, 7, 8, 9, 16, 31, 33, 64, 65, 130])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64])
def test_one_running_sum_per_channel_below_the_threads_work(path, monkeypatch, channels, dtype):
    # one CPU: every shape is a single running sum from zero, row after row
    monkeypatch.setattr(bag, "_threads", lambda: 1)
    rng = np.random.default_rng(channels)
    x = (rng.standard_normal((777, channels)) * 10.0 ** rng.integers(-3, 4, (777, channels))).astype(dtype)
    got = bag._bias_add_grad_kernel(x, "NHWC")
    np.testing.assert_array_equal(got.view(np.uint8), _sequential(x, dtype).view(np.uint8))


@pytest.mark.parametrize("shape", [(128, 26, 26, 32), (64, 11, 11, 64), (300000, 20), (40000, 129)])
def test_threaded_blocks_give_the_single_threads_bits(path, monkeypatch, shape):
    rng = np.random.default_rng(len(shape))
    x = rng.standard_normal(shape).astype(np.float32)
    monkeypatch.setattr(bag, "_THREADED_MIN_VALUES", 0)
    threaded = bag._bias_add_grad_kernel(x, "NHWC")
    monkeypatch.setattr(bag.blas_threads, "usable_workers", lambda: 1)
    alone = bag._bias_add_grad_kernel(x, "NHWC")
    np.testing.assert_array_equal(threaded.view(np.uint32), alone.view(np.uint32))


def test_edges_as_tensorflow():
    one_row = bag._bias_add_grad_kernel(np.array([[-0.0, 1.0]], np.float32), "NHWC")
    assert one_row.view(np.uint32).tolist() == [2147483648, 1065353216]          # the row itself: -0.0 kept
    two = bag._bias_add_grad_kernel(np.array([[-0.0], [-0.0]], np.float32), "NHWC")
    assert two.view(np.uint32).tolist() == [0]                                    # from zero: +0.0
    empty = bag._bias_add_grad_kernel(np.zeros((0, 3), np.float32), "NHWC")
    assert empty.tolist() == [0.0, 0.0, 0.0] and empty.dtype == np.float32
    ints = bag._bias_add_grad_kernel(np.full((4, 2), 2**30, np.int32), "NHWC")
    assert ints.dtype == np.int32 and ints.tolist() == [0, 0]                    # wraps as TensorFlow's int32


def test_half_types_add_in_float32():
    x = (_data(20000, 7) / np.float32(2 ** 16)).astype(np.float16)   # sums within float16
    got = bag._bias_add_grad_kernel(x, "NHWC")
    assert got.dtype == np.float16
    expected = bag._bias_add_grad_kernel(x.astype(np.float32), "NHWC").astype(np.float16)
    np.testing.assert_array_equal(got.view(np.uint16), expected.view(np.uint16))


def test_channels_first_keeps_reduce_sums_order():
    x = np.random.default_rng(3).standard_normal((4, 3, 5, 6)).astype(np.float32)
    got = bag._bias_add_grad_kernel(x, "NCHW")
    np.testing.assert_array_equal(got, eigen_sum.reduce_sum(x, (0, 2, 3)))


def test_op_values_shape_and_errors():
    x = tf.constant(_data(12, 5).reshape(3, 4, 5))
    y = bag.bias_add_grad(x)
    assert y.shape == (5,) and y.dtype == tf.float32
    np.testing.assert_allclose(y.numpy(), _data(12, 5).sum(0), rtol=1e-6)
    assert bag.bias_add_grad(tf.zeros([2, 3, 4]), data_format="NCHW").shape == (3,)
    with pytest.raises(errors.InvalidArgumentError, match=r"Input tensor must be at least 2D: \[2\]"):
        bag.bias_add_grad(tf.constant([1.0, 2.0]))

    @tf.function
    def traced(v):
        return bag.bias_add_grad(v)
    with pytest.raises(ValueError, match="Shape must be at least rank 2 but is rank 1"):
        traced.get_concrete_function(tf.TensorSpec([3], tf.float32))
    assert traced.get_concrete_function(tf.TensorSpec([None, 6], tf.float32)).structured_outputs.shape == [6]


@pytest.mark.parametrize("data_format,shape", [("NHWC", (2, 3, 4)), ("NCHW", (2, 3, 4, 2))])
def test_gradient_finite_differences(data_format, shape):
    x = np.random.default_rng(5).standard_normal(shape)
    check_gradients(lambda a: bag.bias_add_grad(a, data_format=data_format) ** 2, [x], rtol=1e-6, atol=1e-8)
