"""Matrix functions of tf.linalg (inv, det, slogdet, logdet, solve, cholesky, diag, diag_part, band_part,
trace, norm, matvec, matrix_transpose/adjoint): NumPy references, TensorFlow's errors, inference,
finite-difference gradients and traced == eager."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tensorflux as tf
from tensorflux._src.ops.linalg import matrix as la
from helpers import numeric_grad

SPEC = tf.TensorSpec
RNG = np.random.default_rng(0)


def _well_conditioned(*batch, n=3, dtype=np.float64):
    a = RNG.normal(size=batch + (n, n))
    return (a + n * np.eye(n)).astype(dtype)


def _spd(*batch, n=3):
    a = RNG.normal(size=batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
def test_inverse_determinant_solve_match_numpy(dtype):
    a = _well_conditioned(2, n=3)
    if np.dtype(dtype).kind == "c":
        a = a + 0.5j * _well_conditioned(2, n=3)
    a = a.astype(dtype)
    tol = 1e-4 if dtype in (np.float32, np.complex64) else 1e-10
    out = tf.linalg.inv(a)
    assert out.dtype is tf.as_dtype(dtype) and out.shape == (2, 3, 3)
    np.testing.assert_allclose(out.numpy(), np.linalg.inv(a), rtol=tol, atol=tol)
    np.testing.assert_allclose(tf.linalg.inv(a, adjoint=True).numpy(),
                               np.linalg.inv(np.conj(np.swapaxes(a, -1, -2))), rtol=tol, atol=tol)
    d = tf.linalg.det(a)
    assert d.dtype is tf.as_dtype(dtype) and d.shape == (2,)
    np.testing.assert_allclose(d.numpy(), np.linalg.det(a), rtol=tol)
    sign, log_abs = tf.linalg.slogdet(a)
    ref_sign, ref_log = np.linalg.slogdet(a)
    np.testing.assert_allclose(sign.numpy(), ref_sign, rtol=tol)
    np.testing.assert_allclose(log_abs.numpy(), ref_log, rtol=tol)
    rhs = RNG.normal(size=(2, 3, 2)).astype(dtype)
    np.testing.assert_allclose(tf.linalg.solve(a, rhs).numpy(), np.linalg.solve(a, rhs), rtol=tol, atol=tol)
    np.testing.assert_allclose(tf.linalg.solve(a, rhs, adjoint=True).numpy(),
                               np.linalg.solve(np.conj(np.swapaxes(a, -1, -2)), rhs), rtol=tol, atol=tol)


def test_cholesky_and_logdet():
    a = _spd(2)
    np.testing.assert_allclose(tf.linalg.cholesky(a).numpy(), np.linalg.cholesky(a))
    np.testing.assert_allclose(tf.linalg.logdet(a).numpy(), np.linalg.slogdet(a)[1])
    out = tf.linalg.cholesky(np.array([[[1., 2.], [2., 1.]], [[4., 2.], [2., 3.]]], np.float32))
    assert np.isnan(out.numpy()[0][[0, 1, 1], [0, 0, 1]]).all()  # not positive definite: NaN, no error
    np.testing.assert_allclose(out.numpy()[1], [[2, 0], [1, np.sqrt(2)]], rtol=1e-6)
    assert tf.linalg.logdet([[4., 2.], [2., 3.]]).dtype is tf.float32


def test_linalg_edge_cases_and_errors():
    assert tf.linalg.det(tf.zeros([0, 0])).numpy() == 1.0
    assert tf.linalg.inv(tf.zeros([0, 0])).shape == (0, 0)
    sign, log_abs = tf.linalg.slogdet([[1., 2.], [2., 4.]])
    assert sign.numpy() == 0 and log_abs.numpy() == -np.inf
    assert type(tf.linalg.slogdet([[1.]])).__name__ == "LogMatrixDeterminant"
    with pytest.raises(tf.errors.InvalidArgumentError, match="Input is not invertible"):
        tf.linalg.inv([[1., 2.], [2., 4.]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="'T' of int32 is not in the list"):
        tf.linalg.inv([[1, 2], [2, 4]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Input matrix must be square"):
        tf.linalg.inv([[1., 2., 3.], [2., 4., 5.]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="must have rank >= 2, got 1"):
        tf.linalg.inv([1., 2.])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Input matrix must be square"):
        tf.linalg.det(tf.zeros([2, 3]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Input matrix is not invertible"):
        tf.linalg.solve([[1., 2.], [2., 4.]], [[1.], [1.]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Input matrix and rhs are incompatible"):
        tf.linalg.solve([[1., 2.], [2., 5.]], [[1., 2., 3.]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="All input tensors must have the same rank"):
        tf.linalg.solve([[1., 2.], [2., 5.]], [1., 2.])


def test_matrix_function_inference():
    out = la.MATRIX_INVERSE.infer([SPEC([None, 3, 3], tf.float32)], {})
    assert out[0][1].as_list() == [None, 3, 3]
    assert la.MATRIX_DETERMINANT.infer([SPEC([None, 3, None], tf.float64)], {})[0][1].as_list() == [None]
    assert la.MATRIX_DETERMINANT.infer([SPEC(None, tf.float64)], {})[0][1].rank is None
    signs, logs = la.LOG_MATRIX_DETERMINANT.infer([SPEC([2, 4, 4], tf.float32)], {})
    assert signs[1].as_list() == [2] and logs[1].as_list() == [2]
    assert la.MATRIX_SOLVE.infer([SPEC([None, 3, 3], tf.float32), SPEC([None, 3, 5], tf.float32)],
                                 {})[0][1].as_list() == [None, 3, 5]
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 3"):
        la.CHOLESKY.infer([SPEC([2, 3], tf.float32)], {})
    with pytest.raises(ValueError, match="at least rank 2"):
        la.MATRIX_INVERSE.infer([SPEC([3], tf.float32)], {})


def test_diag_and_diag_part():
    assert tf.linalg.diag([1, 2, 3]).numpy().tolist() == np.diag([1, 2, 3]).tolist()
    assert tf.linalg.diag([1, 2, 3], k=1).numpy().tolist() == np.diag([1, 2, 3], k=1).tolist()
    out = tf.linalg.diag([1, 2, 3], k=-1, num_rows=5, padding_value=9)
    expected = np.full((5, 3), 9)
    expected[[1, 2, 3], [0, 1, 2]] = [1, 2, 3]
    assert out.numpy().tolist() == expected.tolist()
    assert tf.linalg.diag([1, 2, 3], num_cols=4).numpy().tolist() == np.eye(3, 4, dtype=int).dot(
        np.diag([1, 2, 3, 0])).tolist()
    batch = RNG.normal(size=(2, 3))
    np.testing.assert_array_equal(tf.linalg.diag(batch).numpy(), np.stack([np.diag(b) for b in batch]))
    m = np.arange(24).reshape(2, 3, 4)
    for k in (-2, -1, 0, 1, 3):
        np.testing.assert_array_equal(tf.linalg.diag_part(m, k=k).numpy(),
                                      np.stack([np.diagonal(b, offset=k) for b in m]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="The number of rows is too small"):
        tf.linalg.diag([1, 2, 3], num_rows=2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="diagonal must be at least 1-dim"):
        tf.linalg.diag(5)
    with pytest.raises(tf.errors.InvalidArgumentError, match="lower_diag_index is out of bound: 5. It must be "
                                                             "between -3 and 4"):
        tf.linalg.diag_part(np.arange(12).reshape(3, 4), k=5)
    with pytest.raises(tf.errors.InvalidArgumentError, match="input must be at least 2-dim, received shape: \\[3\\]"):
        tf.linalg.diag_part(np.arange(3))
    with pytest.raises(tf.errors.UnimplementedError, match="single diagonal"):
        tf.linalg.diag_part(np.ones((3, 3)), k=(0, 1))
    k, rows, cols, pad = (tf.constant(v) for v in (0, -1, -1, 0.))
    assert la.MATRIX_DIAG.infer([SPEC([None, 3], tf.float32), k, rows, cols, pad], {})[0][1].as_list() == [None, 3, 3]
    assert la.MATRIX_DIAG.infer([SPEC([None, None], tf.float32), k, rows, cols, pad], {})[0][1].as_list() == \
        [None, None, None]
    assert la.MATRIX_DIAG_PART.infer([SPEC([5, 3, 4], tf.float32), tf.constant(1), pad], {})[0][1].as_list() == [5, 3]
    assert la.MATRIX_DIAG_PART.infer([SPEC(None, tf.float32), k, pad], {})[0][1].rank is None


def test_band_part_and_trace():
    m = np.arange(16).reshape(4, 4)
    for lower, upper in ((1, -1), (0, 0), (-1, 0), (2, 1), (-1, -1)):
        rows, cols = np.indices(m.shape)
        keep = ((lower < 0) | (rows - cols <= lower)) & ((upper < 0) | (cols - rows <= upper))
        np.testing.assert_array_equal(tf.linalg.band_part(m, lower, upper).numpy(), np.where(keep, m, 0))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"num_lower must be negative or less or equal to "
                                                             r"number of rows \(4\) got: 5"):
        tf.linalg.band_part(m, 5, 0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="input must be at least 2-dim"):
        tf.linalg.band_part(np.arange(4), 1, 0)
    assert la.MATRIX_BAND_PART.infer([SPEC([None, 4], tf.int32), SPEC([], tf.int32), SPEC([], tf.int32)],
                                     {})[0][1].as_list() == [None, 4]
    assert tf.linalg.trace(np.arange(12.).reshape(3, 4)).numpy() == 15.0
    np.testing.assert_array_equal(tf.linalg.trace(np.arange(18).reshape(2, 3, 3)).numpy(), [12, 39])


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 3), st.integers(1, 3), st.sampled_from(["euclidean", 1, 2, np.inf, 3, 0.5]),
       st.booleans())
def test_vector_norms_match_numpy(rows, cols, order, keepdims):
    x = RNG.normal(size=(rows, cols)).astype(np.float32)
    for axis in (None, 0, 1, -1):
        np_ord = None if order == "euclidean" else order
        flat = x.reshape(-1) if axis is None else x
        expected = np.linalg.norm(flat, ord=np_ord, axis=axis if axis is not None else None)
        if keepdims:
            expected = np.reshape(expected, (1, 1)) if axis is None else np.expand_dims(expected, axis)
        out = tf.norm(x, ord=order, axis=axis, keepdims=keepdims)
        assert out.dtype is tf.float32
        np.testing.assert_allclose(out.numpy(), expected, rtol=1e-5)


def test_matrix_norms_and_errors():
    x = RNG.normal(size=(2, 3, 4))
    for order, np_ord in (("fro", "fro"), ("euclidean", "fro"), (1, 1), (np.inf, np.inf)):
        np.testing.assert_allclose(tf.linalg.norm(x, ord=order, axis=[-2, -1]).numpy(),
                                   np.linalg.norm(x, ord=np_ord, axis=(-2, -1)))
        np.testing.assert_allclose(tf.norm(x, ord=order, axis=(2, 1), keepdims=True).numpy(),
                                   np.linalg.norm(x, ord=np_ord, axis=(2, 1), keepdims=True))
    assert tf.norm([3 + 4j]).numpy() == 5 + 0j
    with pytest.raises(ValueError, match="'ord' must be a supported vector norm, got fro"):
        tf.norm(x, ord="fro")
    with pytest.raises(ValueError, match="'ord' must be a supported vector norm, got -1"):
        tf.norm(x, ord=-1)
    with pytest.raises(ValueError, match=r"supported matrix norm in \['euclidean', 'fro', 1, 2, inf\], got 3"):
        tf.norm(x, ord=3, axis=[0, 1])
    with pytest.raises(ValueError, match=r"tuple of 2 unique integers, got \(0, 0\)"):
        tf.norm(x, axis=[0, 0])
    with pytest.raises(ValueError, match="tuple of 2 unique integers, got 1.5"):
        tf.norm(x, axis=1.5)
    with pytest.raises(ValueError, match="spectral norm"):
        tf.norm(x, ord=2, axis=[1, 2])
    with pytest.raises(tf.errors.InvalidArgumentError, match="'T' of int32"):
        tf.norm([3, 4])


def test_matvec_and_transposes():
    a = RNG.normal(size=(2, 3, 4))
    v = RNG.normal(size=(4,))
    np.testing.assert_allclose(tf.linalg.matvec(a, v).numpy(), a @ v)
    w = RNG.normal(size=(2, 3))
    np.testing.assert_allclose(tf.linalg.matvec(a, w, transpose_a=True).numpy(),
                               np.einsum("bij,bi->bj", a, w))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Matrix size-incompatible"):
        tf.linalg.matvec(a, np.zeros(5))
    assert tf.linalg.matrix_transpose(np.zeros((2, 3, 4))).shape == (2, 4, 3)
    c = np.array([[1 + 2j, 3]])
    np.testing.assert_array_equal(tf.linalg.adjoint(c).numpy(), np.conj(c.T))
    np.testing.assert_array_equal(tf.linalg.matrix_transpose(c, conjugate=False).numpy(), c.T)
    with pytest.raises(ValueError, match="rank >= 2"):
        tf.linalg.matrix_transpose(np.zeros((2,)))


def test_traced_equals_eager_and_static_shapes():
    def f(a, rhs):
        sign, log_abs = tf.linalg.slogdet(a)
        return [tf.linalg.inv(a), tf.linalg.det(a), sign, log_abs, tf.linalg.solve(a, rhs),
                tf.linalg.cholesky(tf.matmul(a, a, transpose_b=True)), tf.linalg.diag(rhs[..., 0]),
                tf.linalg.diag_part(a, k=1), tf.linalg.band_part(a, 1, 0), tf.linalg.trace(a), tf.norm(a),
                tf.norm(a, ord=1, axis=[-2, -1]), tf.linalg.matvec(a, rhs[..., 0]), tf.linalg.adjoint(a),
                tf.linalg.logdet(tf.matmul(a, a, transpose_b=True))]

    a = tf.constant(_well_conditioned(2, n=3))
    rhs = tf.constant(RNG.normal(size=(2, 3, 2)))
    traced = tf.function(f)
    for x, y in zip(f(a, rhs), traced(a, rhs)):
        np.testing.assert_allclose(x.numpy(), y.numpy(), rtol=1e-10)
    concrete = traced.get_concrete_function(SPEC([None, 3, 3], tf.float64), SPEC([None, 3, 2], tf.float64))
    shapes = [t.shape.as_list() for t in concrete.structured_outputs]
    assert shapes[0] == [None, 3, 3] and shapes[1] == [None] and shapes[6] == [None, 3, 3] and shapes[7] == [None, 2]


def _tape_grad(f, x, weights):
    x = x if isinstance(x, tf.Tensor) else tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.reduce_sum(f(x) * weights)
    return tape.gradient(loss, x)


RHS = RNG.normal(size=(2, 3, 2))
MATRIX = _well_conditioned(2)
GRAD_CASES = [
    (lambda x: tf.linalg.inv(x), _well_conditioned(2)),
    (lambda x: tf.linalg.inv(x, adjoint=True), _well_conditioned(2)),
    (lambda x: tf.linalg.det(x), _well_conditioned(2)),
    (lambda x: tf.linalg.slogdet(x)[1], _well_conditioned(2)),
    (lambda x: tf.linalg.solve(x, tf.constant(RHS)), _well_conditioned(2)),
    (lambda x: tf.linalg.solve(tf.constant(MATRIX), x, adjoint=True), RHS),
    (lambda x: tf.linalg.solve(x, tf.constant(RHS), adjoint=True), _well_conditioned(2)),
    (lambda x: tf.linalg.cholesky(tf.matmul(x, x, transpose_b=True)), _well_conditioned(2)),
    (lambda x: tf.linalg.logdet(tf.matmul(x, x, transpose_b=True)), _well_conditioned(2)),
    (lambda x: tf.linalg.diag(x, k=-1), RNG.normal(size=(2, 3))),
    (lambda x: tf.linalg.diag_part(x, k=1), RNG.normal(size=(2, 3, 4))),
    (lambda x: tf.linalg.band_part(x, 1, 0), RNG.normal(size=(2, 3, 4))),
    (lambda x: tf.linalg.trace(x), RNG.normal(size=(2, 3, 3))),
    (lambda x: tf.norm(x, axis=1), RNG.normal(size=(2, 3))),
    (lambda x: tf.norm(x, ord=1, axis=[0, 1]), RNG.normal(size=(3, 4))),
    (lambda x: tf.norm(x, ord=np.inf, axis=[0, 1]), RNG.normal(size=(3, 4))),
    (lambda x: tf.norm(x, ord=3, keepdims=True), RNG.normal(size=(3, 4))),
    (lambda x: tf.linalg.matvec(x, tf.constant([1., 2., -1.], tf.float64)), RNG.normal(size=(2, 4, 3))),
]


@pytest.mark.parametrize("case", range(len(GRAD_CASES)))
def test_gradients_match_finite_differences_and_graph(case):
    f, x = GRAD_CASES[case]
    weights = tf.constant(np.random.default_rng(case).normal(size=f(tf.constant(x)).shape))
    expected = numeric_grad(lambda v: float(tf.reduce_sum(f(tf.constant(v)) * weights).numpy()), x)
    eager = _tape_grad(f, x, weights)
    np.testing.assert_allclose(eager.numpy(), expected, rtol=1e-5, atol=1e-6)
    traced = tf.function(lambda v: _tape_grad(f, v, weights))(tf.constant(x))
    np.testing.assert_allclose(traced.numpy(), eager.numpy(), rtol=1e-9, atol=1e-12)


def test_cholesky_gradient_like_tensorflow():
    # TensorFlow reads only the lower triangle but returns a symmetric gradient
    grad = _tape_grad(tf.linalg.cholesky, np.array([[4., 2.], [2., 3.]], np.float32), 1.)
    np.testing.assert_allclose(grad.numpy(), [[0.21338835, 0.07322331], [0.07322331, 0.35355335]], rtol=1e-5)
