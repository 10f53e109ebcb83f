"""matmul, einsum and tensordot against NumPy, with TensorFlow's errors and static inference."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tensorflux as tf
from tensorflux._src.ops.linalg import matrix as la

RNG = np.random.default_rng(0)


def rand(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_matmul_rank2(ta, tb, dtype):
    a = (rand(3, 2) * 10).astype(dtype)
    b = (rand(2, 4) * 10).astype(dtype)
    a_in = a.T if ta else a
    b_in = b.T if tb else b
    out = tf.matmul(a_in, b_in, transpose_a=ta, transpose_b=tb)
    assert out.dtype is tf.as_dtype(dtype) and out.shape.as_list() == [3, 4]
    np.testing.assert_allclose(out.numpy(), a @ b, rtol=1e-5)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(1, 3), min_size=0, max_size=2), st.lists(st.integers(1, 3), min_size=0, max_size=2),
       st.integers(1, 3), st.integers(1, 3), st.integers(1, 3))
def test_batched_matmul_broadcasts(batch_a, batch_b, m, k, n):
    batch_b = [1 if i < len(batch_a) and RNG.random() < 0.3 else d for i, d in enumerate(batch_b)]
    n_common = min(len(batch_a), len(batch_b))
    if n_common:  # make the trailing batch dims broadcast-compatible
        batch_b[len(batch_b) - n_common:] = [a if b != 1 else 1 for a, b in zip(batch_a[len(batch_a) - n_common:],
                                                                               batch_b[len(batch_b) - n_common:])]
    a = rand(*batch_a, m, k)
    b = rand(*batch_b, k, n)
    out = tf.matmul(a, b)
    assert out.shape.as_list() == list(np.matmul(a, b).shape)
    np.testing.assert_allclose(out.numpy(), np.matmul(a, b), rtol=1e-5, atol=1e-6)


def test_adjoint_and_complex():
    a = np.array([[1j, 2]])
    out = tf.matmul(a, a, adjoint_b=True)
    assert out.numpy().tolist() == [[5 + 0j]]
    x = rand(2, 3, 3).astype(np.complex64) + 1j * rand(2, 3, 3)
    np.testing.assert_allclose(tf.matmul(x, x, adjoint_a=True).numpy(), np.conj(np.swapaxes(x, -1, -2)) @ x,
                               rtol=1e-5)
    f = rand(2, 3, 4)
    np.testing.assert_allclose(tf.matmul(f, f, transpose_b=True).numpy(), f @ np.swapaxes(f, -1, -2), rtol=1e-5)
    bf = tf.matmul(tf.constant([[1.0, 2.0]], tf.bfloat16), tf.constant([[3.0], [4.0]], tf.bfloat16))
    assert bf.dtype is tf.bfloat16 and float(bf.numpy()[0, 0]) == 11.0


def test_matmul_errors():
    a = np.ones([2, 3], np.float32)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Matrix size-incompatible: In\[0\]: \[2,3\], In\[1\]: \[2,3\] \[Op:MatMul\]"):
        tf.matmul(a, a)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"In\[0\] ndims must be >= 2"):
        tf.matmul(np.ones([3], np.float32), a)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"In\[1\] ndims must be >= 2"):
        tf.matmul(a, np.ones([3], np.float32))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"must have compatible batch dimensions: \[5,2,3\] vs. \[4,3,4\] \[Op:BatchMatMulV2\]"):
        tf.matmul(np.ones([5, 2, 3], np.float32), np.ones([4, 3, 4], np.float32))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Matrix size-incompatible: In\[0\]: \[5,2,3\]"):
        tf.matmul(np.ones([5, 2, 3], np.float32), np.ones([5, 4, 4], np.float32))
    with pytest.raises(ValueError, match="Only one of `transpose_a` and `adjoint_a` can be True"):
        tf.matmul(a, a, transpose_a=True, adjoint_a=True)
    with pytest.raises(tf.errors.InvalidArgumentError, match="attr 'T' of bool"):
        tf.matmul(np.ones([2, 2], bool), np.ones([2, 2], bool))
    with pytest.raises(tf.errors.InvalidArgumentError, match="cannot compute MatMul as input #1"):
        tf.matmul(a, np.ones([3, 2], np.float64))


def test_matmul_infer():
    spec = tf.TensorSpec
    assert la.MATMUL.infer([spec([None, 3], tf.float32), spec([3, None], tf.float32)], {}) == \
        [(tf.float32, tf.TensorShape([None, None]))]
    assert la.MATMUL.infer([spec([2, 3], tf.float32), spec([4, 3], tf.float32)], {"transpose_b": True})[0][1] \
        .as_list() == [2, 4]
    with pytest.raises(ValueError, match="Shape must be rank 2 but is rank 1"):
        la.MATMUL.infer([spec([3], tf.float32), spec([3, 2], tf.float32)], {})
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 2"):
        la.MATMUL.infer([spec([2, 3], tf.float32), spec([2, 3], tf.float32)], {})
    assert la.BATCH_MATMUL.infer([spec(None, tf.float32), spec([5, 3, 3], tf.float32)], {})[0][1].rank is None
    assert la.BATCH_MATMUL.infer([spec([None, None, 3], tf.float32), spec([None, 3, None], tf.float32)], {})[0][1] \
        .as_list() == [None, None, None]
    assert la.BATCH_MATMUL.infer([spec([5, 1, 2, 3], tf.float32), spec([7, 3, 4], tf.float32)], {})[0][1] \
        .as_list() == [5, 7, 2, 4]
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 4 and 5"):
        la.BATCH_MATMUL.infer([spec([4, 2, 3], tf.float32), spec([5, 3, 3], tf.float32)], {})
    with pytest.raises(ValueError, match="at least rank 2"):
        la.BATCH_MATMUL.infer([spec([3], tf.float32), spec([5, 3, 3], tf.float32)], {})


def test_matmul_picks_tensorflow_op():
    def f(x, y):
        return tf.matmul(x, y)

    def ops(*specs):
        g = tf.function(f).get_concrete_function(*specs).graph
        return [op.type for op in g.get_operations() if op.type not in ("Placeholder", "Identity")]

    assert ops(tf.TensorSpec([2, 2], tf.float32), tf.TensorSpec([2, 2], tf.float32)) == ["MatMul"]
    assert ops(tf.TensorSpec([3, 2, 2], tf.float32), tf.TensorSpec([2, 2], tf.float32)) == ["BatchMatMulV2"]
    assert ops(tf.TensorSpec(None, tf.float32), tf.TensorSpec([2, 2], tf.float32)) == ["BatchMatMulV2"]


@pytest.mark.parametrize("equation,shapes", [
    ("ij,jk->ik", [(2, 3), (3, 4)]), ("ij,jk", [(2, 3), (3, 4)]), ("ii", [(3, 3)]), ("ii->i", [(3, 3)]),
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 4)]), ("...ij,...jk->...ik", [(5, 2, 3), (3, 2)]),
    ("i,j->ij", [(2,), (3,)]), ("ijk->kji", [(2, 3, 4)]), ("ij->", [(2, 3)]), ("a b , b c -> a c", [(2, 2), (2, 2)]),
])
def test_einsum_against_numpy(equation, shapes):
    arrays = [rand(*s) for s in shapes]
    out = tf.einsum(equation, *arrays)
    expected = np.einsum(equation.replace(" ", ""), *arrays)
    assert out.dtype is tf.float32 and out.shape.as_list() == list(expected.shape)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-5, atol=1e-6)


def test_einsum_integers_and_errors():
    out = tf.einsum("ij,jk->ik", np.ones([2, 2], np.int32), np.ones([2, 2], np.int32))
    assert out.dtype is tf.int32 and out.numpy().tolist() == [[2, 2], [2, 2]]
    a = np.ones([2, 3], np.float32)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Expected dimension 3 at axis 0 of the input shaped \[2,3\] but got dimension 2"):
        tf.einsum("ij,jk->ik", a, a)
    with pytest.raises(ValueError, match=r'Got 1 inputs for equation "ij,jk->ik", expecting 2'):
        tf.einsum("ij,jk->ik", a)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Expected input 0 to have rank 3 but got: 2"):
        tf.einsum("ijk,jk->ik", a, a)
    with pytest.raises(tf.errors.InvalidArgumentError, match="cannot compute Einsum as input #1"):
        tf.einsum("ij,jk->ik", a, np.ones([3, 2]))
    with pytest.raises(ValueError, match="Invalid einsum equation"):
        tf.einsum("i1,j->ij", a, a)


def test_einsum_infer():
    spec = tf.TensorSpec
    infer = la.EINSUM.infer
    assert infer([spec([None, 3], tf.float32), spec([None, None], tf.float32)], {"equation": "ij,jk->ik"})[0][1] \
        .as_list() == [None, None]
    assert infer([spec(None, tf.float32), spec([3, 4], tf.float32)], {"equation": "ij,jk->ik"})[0][1] \
        .as_list() == [None, 4]
    assert infer([spec(None, tf.float32), spec([3, 4], tf.float32)], {"equation": "...j,jk->...k"})[0][1].rank is None
    assert infer([spec([5, None, 3], tf.float32), spec([3, 2], tf.float32)], {"equation": "...ij,jk->...ik"})[0][1] \
        .as_list() == [5, None, 2]
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 2"):
        infer([spec([2, 3], tf.float32), spec([2, 3], tf.float32)], {"equation": "ij,jk->ik"})


def test_tensordot():
    a, b = rand(2, 3, 4), rand(4, 3, 5)
    out = tf.tensordot(a, b, [[1, 2], [1, 0]])
    assert out.shape.as_list() == [2, 5]
    np.testing.assert_allclose(out.numpy(), np.tensordot(a, b, [[1, 2], [1, 0]]), rtol=1e-5, atol=1e-6)
    c, d = rand(2, 3), rand(3, 5)
    np.testing.assert_allclose(tf.tensordot(c, d, 1).numpy(), c @ d, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(tf.tensordot(c, d, [1, 0]).numpy(), c @ d, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(tf.tensordot(c, d, tf.constant(1)).numpy(), c @ d, rtol=1e-5, atol=1e-6)
    assert tf.tensordot(rand(2), rand(3), 0).shape.as_list() == [2, 3]
    with pytest.raises(ValueError, match="`axes` must not be larger than the number of dimensions"):
        tf.tensordot(c, rand(4, 5), 3)
    with pytest.raises(ValueError, match="Different number of contraction axes `a` and `b`, 1 != 2"):
        tf.tensordot(c, d, [[1], [0, 1]])
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.tensordot(c, rand(4, 5), 1)
