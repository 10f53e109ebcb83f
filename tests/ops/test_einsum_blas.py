"""tf.einsum lowered to matrix products: values against np.einsum for every kind of label (batch, contracted,
free, summed alone, diagonal, broadcast ellipsis, empty), gradients against finite differences, eager against
traced, and the cached plans."""
import numpy as np
import pytest

import tensorflux as tf
from tensorflux._src.ops.linalg import einsum as einsum_module
from helpers import check_gradients

CASES = [
    ("aecd,abcd->acbe", [(2, 5, 3, 4), (2, 6, 3, 4)]),        # attention scores
    ("acbe,aecd->abcd", [(2, 3, 6, 5), (2, 5, 3, 4)]),        # attention-weighted values
    ("abc,cde->abde", [(2, 5, 7), (7, 3, 4)]),                # head projections
    ("abcd,cde->abe", [(2, 5, 3, 4), (3, 4, 6)]),             # output projection
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("ij,jk->ki", [(3, 4), (4, 5)]),                          # operands swapped for the output order
    ("ij,jk", [(3, 4), (4, 5)]),                              # implicit output
    ("ij,jk,kl->il", [(3, 4), (4, 5), (5, 2)]),
    ("ij,jk,kl,lm->mi", [(3, 4), (4, 5), (5, 2), (2, 6)]),
    ("ab,bc,cd,de,ef->af", [(2, 3), (3, 4), (4, 5), (5, 6), (6, 2)]),   # greedy order
    ("abc,abc,abc->b", [(2, 3, 4)] * 3),
    ("i,i->", [(4,), (4,)]),
    ("i,j->ij", [(3,), (4,)]),                                # outer product: no GEMM
    ("ij,ij->ij", [(3, 4), (3, 4)]),                          # Hadamard product
    ("bi,bi->b", [(5, 4), (5, 4)]),                           # batched dot products
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),        # broadcast ellipsis
    ("...ij,jk->...ik", [(3, 4), (4, 2)]),                    # empty ellipsis
    ("ij...,jk...->ik...", [(3, 4, 2), (4, 5, 1)]),
    ("ii,ij->j", [(3, 3), (3, 4)]),                           # diagonal
    ("ijk,jl->il", [(2, 3, 4), (3, 5)]),                      # k summed on its own operand
    ("ij,kl->", [(2, 3), (4, 5)]),
    (",i->i", [(), (3,)]),
    ("bhqd,bhkd->bhqk", [(2, 3, 4, 5), (2, 3, 6, 5)]),
    ("ij->ji", [(3, 4)]),
    ("ijk->i", [(2, 3, 4)]),
    ("ij,jk->ik", [(0, 4), (4, 5)]),
    ("ij,jk->ik", [(3, 0), (0, 5)]),
]


def _operands(shapes, dtype, rng):
    if np.dtype(dtype).kind == "i":
        return [rng.integers(-5, 5, s).astype(dtype) for s in shapes]
    arrays = [rng.standard_normal(s) for s in shapes]
    if np.dtype(dtype).kind == "c":
        arrays = [a + 1j * rng.standard_normal(a.shape) for a in arrays]
    return [a.astype(dtype) for a in arrays]


@pytest.mark.parametrize("equation,shapes", CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.complex64, np.float16])
def test_values_match_numpy(equation, shapes, dtype):
    arrays = _operands(shapes, dtype, np.random.default_rng(len(equation)))
    got = tf.einsum(equation, *arrays)
    want = np.einsum(equation, *[a.astype(np.float64) if dtype == np.float16 else a for a in arrays])
    assert got.dtype.as_numpy_dtype == dtype
    assert got.shape == want.shape
    tol = 1e-2 if dtype == np.float16 else 1e-5
    np.testing.assert_allclose(got.numpy(), want, rtol=tol, atol=tol)


@pytest.mark.parametrize("equation,shapes", [c for c in CASES if 0 not in sum(c[1], ())])
def test_gradients_match_finite_differences(equation, shapes):
    arrays = _operands(shapes, np.float64, np.random.default_rng(7))
    check_gradients(lambda *xs: tf.einsum(equation, *xs), arrays, rtol=1e-6, atol=1e-8)


def test_traced_matches_eager_and_plans_while_tracing():
    rng = np.random.default_rng(3)
    q, k = rng.standard_normal((2, 6, 3, 4)).astype(np.float32), rng.standard_normal((2, 5, 3, 4)).astype(np.float32)
    einsum_module._PLANS.clear()
    f = tf.function(lambda a, b: tf.einsum("abcd,aecd->acbe", a, b))
    concrete = f.get_concrete_function(tf.TensorSpec(q.shape, tf.float32), tf.TensorSpec(k.shape, tf.float32))
    assert ("abcd,aecd->acbe", (q.shape, k.shape)) in einsum_module._PLANS  # planned at trace time
    np.testing.assert_allclose(concrete(q, k).numpy(), tf.einsum("abcd,aecd->acbe", q, k).numpy(), rtol=1e-6)
    np.testing.assert_allclose(f(q, k).numpy(), np.einsum("abcd,aecd->acbe", q, k), rtol=1e-5, atol=1e-6)


def test_shape_errors_still_raised_at_run_time():
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.einsum("ij,jk->ik", np.ones((2, 3), np.float32), np.ones((4, 5), np.float32))
    # the same equation with valid shapes afterwards is planned and runs
    assert tf.einsum("ij,jk->ik", np.ones((2, 3), np.float32), np.ones((3, 5), np.float32)).shape == (2, 5)


def test_products_are_row_major_and_bfloat16_computed_wide():
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 5, 4))
    out = tf.einsum("bik,bjk->jbi", a, b)
    assert out.numpy().flags.c_contiguous
    np.testing.assert_allclose(out.numpy(), np.einsum("bik,bjk->jbi", a, b), rtol=1e-12)
    wide = tf.einsum("ij,jk->ik", tf.cast(a[0], tf.bfloat16), tf.cast(b[0].T, tf.bfloat16))
    assert wide.dtype == tf.bfloat16
    np.testing.assert_allclose(tf.cast(wide, tf.float32).numpy(), a[0] @ b[0].T, rtol=3e-2, atol=3e-2)


def test_stacked_products_are_shared_out_and_give_matmuls_bits():
    """Every product kernel runs under ops/linalg/blas_threads: a big stack of products is computed in
    blocks of whole matrices over the worker threads, each matrix as np.matmul computes it."""
    from tensorflux._src.ops.linalg import blas_threads
    rng = np.random.default_rng(3)
    a = rng.standard_normal((16, 128, 96)).astype(np.float32)
    b = rng.standard_normal((16, 96, 200)).astype(np.float32)
    assert 16 * 128 * 96 * 200 >= blas_threads.PARALLEL_MIN_FLOPS
    np.testing.assert_array_equal(blas_threads.matmul(a, b), np.matmul(a, b))
    np.testing.assert_array_equal(tf.einsum("bij,bjk->bik", a, b).numpy(), np.matmul(a, b))
    np.testing.assert_array_equal(tf.linalg.matmul(a, b).numpy(), np.matmul(a, b))
    small = blas_threads.matmul(a[:2, :4, :4], b[:2, :4, :4])
    np.testing.assert_array_equal(small, np.matmul(a[:2, :4, :4], b[:2, :4, :4]))
