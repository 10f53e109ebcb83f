"""tf.linalg decompositions, solvers and matrix functions (issue 16): values recorded from TensorFlow 2.21,
invariants where the factors' signs are free, gradients against finite differences, eager vs traced."""
import numpy as np
import pytest

import tensorflux as tf
from helpers import check_gradients, traced

A = [[1., 2.], [3., 4.], [5., 6.]]
SYM = [[2., 1.], [1., 3.]]
LU_INPUT = [[1., 2., 3.], [4., 5., 6.], [7., 8., 10.]]


def _close(actual, expected, tol=1e-5):
    np.testing.assert_allclose(np.asarray(actual), np.asarray(expected), rtol=tol, atol=tol)


# -- values recorded from TensorFlow 2.21 ------------------------------------------------------

def test_svd_values_and_reconstruction():
    s, u, v = tf.linalg.svd(tf.constant(A))
    _close(s, [9.525518, 0.51429987])
    # TensorFlow: u = [[0.2298, -0.8835], ...]; signs of singular vector pairs are free, so compare |u|.
    _close(np.abs(u), np.abs([[0.22984774, -0.8834608], [0.52474487, -0.2407829], [0.81964207, 0.4018962]]))
    _close(np.abs(v), np.abs([[0.61962956, 0.78489447], [0.78489447, -0.61962956]]))
    _close(u.numpy() @ np.diag(s.numpy()) @ v.numpy().T, A)
    assert tf.linalg.svd(tf.constant(A), compute_uv=False).shape == [2]
    s, u, v = tf.linalg.svd(tf.constant(A), full_matrices=True)
    assert (u.shape, v.shape) == ([3, 3], [2, 2])


def test_qr_matches_tensorflow():
    q, r = tf.linalg.qr(tf.constant(A))
    _close(q, [[-0.16903079, 0.897085], [-0.5070925, 0.2760267], [-0.8451542, -0.34503305]])
    _close(r, [[-5.91608, -7.437357], [0., 0.82807845]])
    q, r = tf.linalg.qr(tf.constant(A), full_matrices=True)
    assert (q.shape, r.shape) == ([3, 3], [3, 2])


def test_eigh_and_eig():
    e, v = tf.linalg.eigh(tf.constant(SYM))
    _close(e, [1.3819659, 3.6180334])
    _close(np.abs(v), np.abs([[-0.8506507, -0.52573115], [0.52573115, -0.8506507]]))
    _close(tf.linalg.eigvalsh(tf.constant(SYM)), [1.3819659, 3.6180334])
    e, v = tf.linalg.eig(tf.constant(SYM))
    assert e.dtype == tf.complex64 and v.dtype == tf.complex64
    _close(e, [1.3819661, 3.6180344])
    assert tf.linalg.eigvals(tf.constant(SYM, tf.float64)).dtype == tf.complex128
    assert tf.eig is tf.linalg.eig


def test_lu_and_its_helpers_match_tensorflow():
    lu, p = tf.linalg.lu(tf.constant(LU_INPUT))
    _close(lu, [[7., 8., 10.], [0.14285715, 0.8571428, 1.5714285], [0.5714286, 0.4999998, -0.49999982]])
    assert p.numpy().tolist() == [2, 0, 1] and p.dtype == tf.int32
    assert tf.linalg.lu(tf.constant(LU_INPUT), output_idx_type=tf.int64).p.dtype == tf.int64
    _close(tf.linalg.lu_reconstruct(lu, p), LU_INPUT)
    _close(tf.linalg.lu_solve(lu, p, tf.constant([[1.], [2.], [3.]])), [[-0.3333333730697632], [0.6666666865348816], [0.]])
    _close(tf.linalg.lu_matrix_inverse(lu, p), [[-0.6666667, -1.3333341, 1.0000005], [-0.6666665, 3.6666682, -2.000001],
                                               [0.99999994, -2.0000007, 1.0000005]], 1e-4)


def test_triangular_solve_matches_tensorflow():
    out = tf.linalg.triangular_solve(tf.constant([[2., 0.], [1., 0.]]), tf.constant([[1.], [1.]]))
    assert out.numpy()[0, 0] == 0.5 and np.isinf(out.numpy()[1, 0])  # a zero pivot is inf, not an error
    out = tf.linalg.triangular_solve(tf.constant([[[2., 5.], [1., 4.]]]), tf.constant([[1.], [1.]]), lower=False,
                                     adjoint=True)
    assert out.shape == [1, 2, 1]
    _close(out, [[[0.5], [-0.375]]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="In\\[0\\] mismatch In\\[1\\] shape: 2 vs. 3"):
        tf.linalg.triangular_solve(tf.constant([[2., 5.], [1., 4.]]), tf.constant([[1.], [1.], [2.]]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="must be square \\(2 =/= 3\\)"):
        tf.linalg.triangular_solve(tf.constant(A), tf.constant(A))


def test_tridiagonal_solve_matches_tensorflow():
    diagonals = tf.constant([[1., 2., 0.], [4., 5., 6.], [0., 8., 3.]])
    out = tf.linalg.tridiagonal_solve(diagonals, tf.constant([[1., 2., 3.], [4., 5., 6.]]), transpose_rhs=True)
    _close(out, [[0.375, 1.625], [-0.5, -2.5], [0.75, 2.25]])
    dense = tf.constant([[4., 1., 0.], [8., 5., 2.], [0., 8., 6.]])
    _close(tf.linalg.tridiagonal_solve(dense, tf.constant([1., 2., 3.]), diagonals_format="matrix"),
           np.linalg.solve(dense.numpy(), [1., 2., 3.]))
    singular = tf.constant([[1., 2., 0.], [4., 5., 6.], [0., 8., 9.]])
    assert np.isnan(tf.linalg.tridiagonal_solve(singular, tf.constant([1., 2., 3.])).numpy()).all()


def test_matrix_functions_match_tensorflow():
    a, b = tf.constant(A), tf.constant([[1.], [2.], [4.]])
    _close(tf.linalg.lstsq(a, b), [[0.6666584610939026], [0.08333982527256012]], 1e-4)
    _close(tf.linalg.lstsq(a, b, l2_regularizer=0.5), [[0.4229397773742676], [0.2724008858203888]], 1e-4)
    _close(tf.linalg.lstsq(a, b, fast=False), [[0.6666668057441711], [0.08333323150873184]], 1e-5)
    _close(tf.linalg.pinv(a), [[-1.3333349, -0.33333445, 0.66666776], [1.0833348, 0.33333427, -0.4166676]], 1e-5)
    _close(tf.linalg.pinv(tf.constant([[1., 2.], [2., 4.]])), [[0.04, 0.08], [0.08, 0.16]])
    assert tf.linalg.matrix_rank(a).numpy() == 2 and tf.linalg.matrix_rank(a).dtype == tf.int32
    assert tf.linalg.matrix_rank(tf.constant([[1., 2.], [2., 4.]])).numpy() == 1
    m = tf.constant([[0.1, 0.5], [-0.3, 0.2]], tf.float64)
    _close(tf.linalg.expm(m), [[1.0205228980319268, 0.5667411944926545], [-0.3400447166955927, 1.1338711369304582]],
           1e-12)
    _close(tf.linalg.logm(tf.cast(tf.linalg.expm(m), tf.complex128)), m.numpy(), 1e-12)
    _close(tf.linalg.sqrtm(tf.constant([[4., 1.], [1., 3.]])), [[1.981578, 0.2708323], [0.27083224, 1.7107457]])
    _close(tf.linalg.cross([1., 2., 3.], [4., 5., 6.]), [-3., 6., -3.])
    x, n = tf.linalg.normalize([3., 4.])
    _close(x, [0.6, 0.8])
    _close(n, [5.])
    _close(tf.linalg.set_diag(tf.constant([[1., 2.], [3., 4.]]), [5., 6.]), [[5., 2.], [3., 6.]])
    assert tf.linalg.tensor_diag([1, 2]).numpy().tolist() == [[1, 0], [0, 2]]
    assert tf.linalg.tensor_diag_part([[1, 2], [3, 4]]).numpy().tolist() == [1, 4]


def test_large_norm_expm_uses_squaring():
    rng = np.random.default_rng(3)
    m = rng.standard_normal((4, 4)) * 3
    e, v = np.linalg.eig(m)
    expected = (v * np.exp(e)) @ np.linalg.inv(v)
    _close(tf.linalg.expm(tf.constant(m)), expected.real, 1e-9)


def test_errors_are_tensorflows():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Input tensor 0 must have rank >= 2, got 1"):
        tf.linalg.svd(tf.constant([1., 2.]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Input matrix must be square."):
        tf.linalg.eigh(tf.constant(A))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Input matrix must be square."):
        tf.linalg.lu(tf.constant(A))
    with pytest.raises(tf.errors.InvalidArgumentError, match="attr 'T' of int32 is not in the list"):
        tf.linalg.svd(tf.constant([[1, 2], [3, 4]]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="attr 'T' of float is not in the list"):
        tf.linalg.logm(tf.constant(SYM))
    with pytest.raises(tf.errors.FailedPreconditionError, match="only defined for 3-element vectors"):
        tf.linalg.cross(tf.constant([1., 2.]), tf.constant([1., 2.]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Expected diagonal shape: \\[2\\]"):
        tf.linalg.set_diag(tf.constant([[1., 2.], [3., 4.]]), [5., 6., 7.])


# -- graph mode: shape inference and the same values --------------------------------------------

def test_static_shapes_in_a_trace():
    @tf.function
    def f(x):
        s, u, v = tf.linalg.svd(x)
        q, r = tf.linalg.qr(x, full_matrices=True)
        assert (s.shape, u.shape, v.shape, q.shape, r.shape) == ([5, 2], [5, 3, 2], [5, 2, 2], [5, 3, 3], [5, 3, 2])
        return s

    f(tf.zeros([5, 3, 2]))

    @tf.function(input_signature=[tf.TensorSpec([None, 4, 4], tf.float64)])
    def g(x):
        e, v = tf.linalg.eigh(x)
        lu, p = tf.linalg.lu(x)
        assert e.shape.as_list() == [None, 4] and v.shape.as_list() == [None, 4, 4]
        assert p.shape.as_list() == [None, 4] and p.dtype == tf.int32
        assert tf.linalg.eig(x)[0].dtype == tf.complex128
        return tf.linalg.expm(x)

    x = np.eye(4)[None] * 0.5
    _close(g(tf.constant(x)), np.exp(0.5) * np.eye(4)[None])
    with pytest.raises(ValueError, match="Dimensions must be equal"):
        tf.function(lambda x: tf.linalg.eigh(x))(tf.zeros([3, 2]))


def test_traced_values_equal_eager():
    a = tf.constant(np.random.default_rng(0).standard_normal((2, 3, 3)))
    for fn in (lambda x: tf.linalg.qr(x).r, lambda x: tf.linalg.svd(x, compute_uv=False),
               lambda x: tf.linalg.lu(x).lu, lambda x: tf.linalg.pinv(x), lambda x: tf.linalg.matrix_rank(x),
               lambda x: tf.linalg.triangular_solve(x, x), lambda x: tf.linalg.lstsq(x, x)):
        _close(traced(fn, a), fn(a), 1e-10)


# -- gradients (finite differences, eager and traced) ------------------------------------------------

RNG = np.random.default_rng(7)
TALL = RNG.standard_normal((4, 3))
WIDE = RNG.standard_normal((2, 4))
SQUARE = RNG.standard_normal((3, 3))
SPD = SQUARE @ SQUARE.T + 3 * np.eye(3)


def test_svd_gradient():
    for x in (TALL, WIDE, SQUARE):
        check_gradients(lambda t: tf.linalg.svd(t, compute_uv=False), [x], rtol=1e-5, atol=1e-6)
        # Sign-free functions of the singular vectors: u*u and v*v with the singular values.
        check_gradients(lambda t: tf.concat([tf.reshape(tf.square(tf.linalg.svd(t).u), [-1]),
                                             tf.reshape(tf.square(tf.linalg.svd(t).v), [-1]),
                                             tf.linalg.svd(t).s], 0), [x], rtol=1e-4, atol=1e-6)


def test_qr_gradient():
    for x in (TALL, WIDE, SQUARE):
        check_gradients(lambda t: tf.concat([tf.reshape(tf.linalg.qr(t).q, [-1]),
                                             tf.reshape(tf.linalg.qr(t).r, [-1])], 0), [x], rtol=1e-5, atol=1e-6)


def test_eigh_and_eig_gradients():
    sym = SQUARE + SQUARE.T
    check_gradients(lambda t: tf.linalg.eigvalsh(t), [sym], rtol=1e-5, atol=1e-6)
    # eigh reads the lower triangle only: compare on a symmetric function of the input.
    check_gradients(lambda t: tf.square(tf.linalg.eigh(t + tf.transpose(t))[1]), [SQUARE], rtol=1e-4, atol=1e-6)
    check_gradients(lambda t: tf.math.real(tf.linalg.eigvals(t + tf.transpose(t))), [SQUARE], rtol=1e-5, atol=1e-6)
    check_gradients(lambda t: tf.abs(tf.linalg.eig(t + tf.transpose(t))[1]), [SQUARE], rtol=1e-4, atol=1e-6)


def test_solver_gradients():
    lower = np.tril(SQUARE) + 3 * np.eye(3)
    rhs = RNG.standard_normal((3, 2))
    check_gradients(lambda a, b: tf.linalg.triangular_solve(a, b), [lower, rhs], rtol=1e-5, atol=1e-6)
    check_gradients(lambda a, b: tf.linalg.triangular_solve(a, b, lower=False, adjoint=True), [lower.T, rhs],
                    rtol=1e-5, atol=1e-6)
    check_gradients(lambda a, b: tf.linalg.lstsq(a, b), [TALL, RNG.standard_normal((4, 2))], rtol=1e-5, atol=1e-6)
    check_gradients(lambda a, b: tf.linalg.lstsq(a, b, l2_regularizer=0.1), [WIDE, RNG.standard_normal((2, 2))],
                    rtol=1e-5, atol=1e-6)
    check_gradients(lambda c, b: tf.linalg.cholesky_solve(c, b), [np.linalg.cholesky(SPD), rhs], rtol=1e-5, atol=1e-6)
    diagonals = np.stack([RNG.standard_normal(3), 4 + RNG.standard_normal(3), RNG.standard_normal(3)])
    diagonals[0, -1] = diagonals[2, 0] = 0.0
    check_gradients(lambda d, b: tf.linalg.tridiagonal_solve(d, b), [diagonals, rhs], rtol=1e-5, atol=1e-6)


def test_matrix_function_gradients():
    check_gradients(lambda t: tf.linalg.expm(t), [SQUARE * 0.5], rtol=1e-5, atol=1e-6)
    check_gradients(lambda t: tf.linalg.pinv(t), [TALL], rtol=1e-4, atol=1e-6)
    check_gradients(lambda a, b: tf.linalg.cross(a, b), [RNG.standard_normal((2, 3)), RNG.standard_normal((2, 3))])
    check_gradients(lambda t, d: tf.linalg.set_diag(t, d), [SQUARE, RNG.standard_normal(3)])
    check_gradients(lambda d: tf.linalg.tensor_diag(d), [RNG.standard_normal(3)])
