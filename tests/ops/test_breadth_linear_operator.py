"""tf.linalg.LinearOperator family (issue 16): dense matrices, shapes, products, solves, determinants,
traces, diagonals and the hint flags recorded from TensorFlow 2.21 for 17 operators; composition,
adjoint/inverse types, gradients through an operator, and TensorFlow's hint errors."""
import numpy as np
import pytest

import tensorflux as tf
from helpers import check_gradients

L = tf.linalg
A = [[4., 1.], [2., 3.]]

# Recorded with TensorFlow 2.21 (x = [[1], [2], ..., [n]] for matmul/solve).
TF = {"full": {"dense": [[4.0, 1.0], [2.0, 3.0]], "shape": [2, 2], "dtype": "float32", "matmul": [[6.0], [8.0]], "det": 10.0, "solve": [[0.09999999403953552], [0.6000000238418579]], "trace": 7.0, "diag_part": [4.0, 3.0], "flags": [None, None, None, True]}, "diag": {"dense": [[2.0, 0.0], [0.0, 3.0]], "shape": [2, 2], "dtype": "float32", "matmul": [[2.0], [6.0]], "det": 6.0, "solve": [[0.5], [0.6666666865348816]], "trace": 5.0, "diag_part": [2.0, 3.0], "flags": [None, True, None, True]}, "identity": {"dense": [[1.0, 0.0], [0.0, 1.0]], "shape": [2, 2], "dtype": "float32", "matmul": [[1.0], [2.0]], "det": 1.0, "solve": [[1.0], [2.0]], "trace": 2.0, "diag_part": [1.0, 1.0], "flags": [True, True, True, True]}, "scaled": {"dense": [[3.0, 0.0], [0.0, 3.0]], "shape": [2, 2], "dtype": "float32", "matmul": [[3.0], [6.0]], "det": 9.0, "solve": [[0.3333333432674408], [0.6666666865348816]], "trace": 6.0, "diag_part": [3.0, 3.0], "flags": [None, True, None, True]}, "lower": {"dense": [[4.0, 0.0], [2.0, 3.0]], "shape": [2, 2], "dtype": "float32", "matmul": [[4.0], [8.0]], "det": 12.0, "solve": [[0.25], [0.5]], "trace": 7.0, "diag_part": [4.0, 3.0], "flags": [None, None, None, True]}, "zeros": {"dense": [[0.0, 0.0], [0.0, 0.0]], "shape": [2, 2], "dtype": "float32", "matmul": [[0.0], [0.0]], "det": 0.0, "solve": "NotImplementedError", "trace": 0.0, "diag_part": [0.0, 0.0], "flags": [False, True, False, True]}, "composition": {"dense": [[8.0, 3.0], [4.0, 9.0]], "shape": [2, 2], "dtype": "float32", "matmul": [[14.0], [22.0]], "det": 60.0, "solve": [[0.04999999701976776], [0.20000001788139343]], "trace": 17.0, "diag_part": [8.0, 9.0], "flags": [None, None, None, True]}, "adjoint": {"dense": [[4.0, 2.0], [1.0, 3.0]], "shape": [2, 2], "dtype": "float32", "matmul": [[8.0], [7.0]], "det": 10.0, "solve": [[-0.09999999403953552], [0.699999988079071]], "trace": 7.0, "diag_part": [4.0, 3.0], "flags": [None, None, None, True]}, "inversion": {"dense": [[0.30000001192092896, -0.10000000149011612], [-0.20000000298023224, 0.4000000059604645]], "shape": [2, 2], "dtype": "float32", "matmul": [[0.09999999403953552], [0.6000000238418579]], "det": 0.10000000149011612, "solve": [[6.0], [8.0]], "trace": 0.7000000476837158, "diag_part": [0.30000001192092896, 0.4000000059604645], "flags": [None, None, None, True]}, "kronecker": {"dense": [[0.0, 1.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 2.0], [0.0, 0.0, 2.0, 0.0]], "shape": [4, 4], "dtype": "float32", "matmul": [[2.0], [1.0], [8.0], [6.0]], "det": 4.0, "solve": [[2.0], [1.0], [2.0], [1.5]], "trace": 0.0, "diag_part": [0.0, 0.0, 0.0, 0.0], "flags": [None, None, None, True]}, "blockdiag": {"dense": [[1.0, 0.0], [0.0, 2.0]], "shape": [2, 2], "dtype": "float32", "matmul": [[1.0], [4.0]], "det": 2.0, "solve": [[1.0], [1.0]], "trace": 3.0, "diag_part": [1.0, 2.0], "flags": [None, None, None, True]}, "blocklower": {"dense": [[1.0, 0.0], [5.0, 2.0]], "shape": [2, 2], "dtype": "float32", "matmul": [[1.0], [9.0]], "det": 2.0, "solve": [[1.0], [-1.5]], "trace": 3.0, "diag_part": [1.0, 2.0], "flags": [None, None, None, True]}, "householder": {"dense": [[5.960464477539063e-08, -0.9999999403953552], [-0.9999999403953552, 5.960464477539063e-08]], "shape": [2, 2], "dtype": "float32", "matmul": [[-1.999999761581421], [-0.9999997615814209]], "det": -1.0, "solve": [[-1.999999761581421], [-0.9999997615814209]], "trace": 0.0, "diag_part": [5.960464477539063e-08, 5.960464477539063e-08], "flags": [None, True, False, True]}, "permutation": {"dense": [[0.0, 1.0], [1.0, 0.0]], "shape": [2, 2], "dtype": "float32", "matmul": [[2.0], [1.0]], "det": -1.0, "solve": [[2.0], [1.0]], "trace": 0.0, "diag_part": [0.0, 0.0], "flags": [None, None, None, True]}, "tridiag": {"dense": [[4.0, 1.0], [8.0, 5.0]], "shape": [2, 2], "dtype": "float32", "matmul": [[6.0], [18.0]], "det": 12.0, "solve": [[0.25], [-0.0]], "trace": 9.0, "diag_part": [4.0, 5.0], "flags": [None, None, None, True]}, "lowrank": {"dense": [[3.0, 2.0], [2.0, 7.0]], "shape": [2, 2], "dtype": "float32", "matmul": [[7.0], [16.0]], "det": 17.0, "solve": [[0.17647060751914978], [0.2352941632270813]], "trace": 10.0, "diag_part": [3.0, 7.0], "flags": [None, True, None, True]}, "toeplitz": {"dense": [[1.0, 3.0], [2.0, 1.0]], "shape": [2, 2], "dtype": "float32", "matmul": [[7.0], [4.0]], "det": -5.0, "solve": [[1.0], [0.0]], "trace": 2.0, "diag_part": [1.0, 1.0], "flags": [None, None, None, True]}}


def _operators():
    return {
        "full": L.LinearOperatorFullMatrix(A),
        "diag": L.LinearOperatorDiag([2., 3.]),
        "identity": L.LinearOperatorIdentity(2),
        "scaled": L.LinearOperatorScaledIdentity(2, 3.),
        "lower": L.LinearOperatorLowerTriangular(A),
        "zeros": L.LinearOperatorZeros(2),
        "composition": L.LinearOperatorComposition([L.LinearOperatorFullMatrix(A), L.LinearOperatorDiag([2., 3.])]),
        "adjoint": L.LinearOperatorAdjoint(L.LinearOperatorFullMatrix(A)),
        "inversion": L.LinearOperatorInversion(L.LinearOperatorFullMatrix(A)),
        "kronecker": L.LinearOperatorKronecker([L.LinearOperatorDiag([1., 2.]),
                                                L.LinearOperatorFullMatrix([[0., 1.], [1., 0.]])]),
        "blockdiag": L.LinearOperatorBlockDiag([L.LinearOperatorDiag([1.]), L.LinearOperatorFullMatrix([[2.]])]),
        "blocklower": L.LinearOperatorBlockLowerTriangular([[L.LinearOperatorDiag([1.])],
                                                            [L.LinearOperatorFullMatrix([[5.]]), L.LinearOperatorDiag([2.])]]),
        "householder": L.LinearOperatorHouseholder([1., 1.]),
        "permutation": L.LinearOperatorPermutation([1, 0], dtype=tf.float32),
        "tridiag": L.LinearOperatorTridiag(tf.constant([[1., 2.], [4., 5.], [7., 8.]]), diagonals_format="compact"),
        "lowrank": L.LinearOperatorLowRankUpdate(L.LinearOperatorDiag([2., 3.]), tf.constant([[1.], [2.]])),
        "toeplitz": L.LinearOperatorToeplitz([1., 2.], [1., 3.]),
    }


@pytest.mark.parametrize("key", sorted(TF))
def test_operator_matches_tensorflow(key):
    op = _operators()[key]
    expected = TF[key]
    n = int(op.domain_dimension)
    x = tf.reshape(tf.range(1., n + 1.), [n, 1])
    assert op.shape.as_list() == expected["shape"] and op.dtype.name == expected["dtype"]
    np.testing.assert_allclose(op.to_dense().numpy(), expected["dense"], atol=1e-6)
    np.testing.assert_allclose(op.matmul(x).numpy(), expected["matmul"], atol=1e-5)
    np.testing.assert_allclose(op.determinant().numpy(), expected["det"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(op.trace().numpy(), expected["trace"], atol=1e-6)
    np.testing.assert_allclose(op.diag_part().numpy(), expected["diag_part"], atol=1e-6)
    assert [op.is_non_singular, op.is_self_adjoint, op.is_positive_definite, op.is_square] == expected["flags"]
    if expected["solve"] == "NotImplementedError":
        with pytest.raises(NotImplementedError):
            op.solve(x)
    else:
        np.testing.assert_allclose(op.solve(x).numpy(), expected["solve"], rtol=1e-5, atol=1e-6)


def test_operator_algebra_matches_tensorflow():
    full, diag = L.LinearOperatorFullMatrix(A), L.LinearOperatorDiag([2., 3.])
    assert type(full.adjoint()).__name__ == "LinearOperatorAdjoint"
    assert type(full.inverse()).__name__ == "LinearOperatorInversion"
    assert type(full @ diag).__name__ == "LinearOperatorComposition"
    assert type(diag.inverse()).__name__ == "LinearOperatorDiag"
    np.testing.assert_allclose(full.matvec([1., 2.]).numpy(), [6., 8.])
    np.testing.assert_allclose(full.solvevec([1., 2.]).numpy(), [0.1, 0.6], rtol=1e-6)
    np.testing.assert_allclose(full.log_abs_determinant().numpy(), 2.3025851, rtol=1e-6)
    assert (full.batch_shape.as_list(), full.domain_dimension, full.range_dimension, full.tensor_rank) == ([], 2, 2, 2)
    assert (full.name, diag.name) == ("LinearOperatorFullMatrix", "LinearOperatorDiag")
    assert full.add_to_tensor(tf.ones([2, 2])).numpy().tolist() == [[5., 2.], [3., 4.]]
    assert full.matmul(tf.constant([[1., 2.]]), adjoint_arg=True).numpy().tolist() == [[6.], [8.]]
    assert full.matmul(tf.constant([[1.], [2.]]), adjoint=True).numpy().tolist() == [[8.], [7.]]
    assert L.LinearOperatorFullMatrix(tf.constant([[1., 2.]])).shape.as_list() == [1, 2]
    assert L.LinearOperatorIdentity(2, batch_shape=[3]).shape.as_list() == [3, 2, 2]
    with pytest.raises(ValueError, match="A positive definite matrix is always non-singular."):
        L.LinearOperatorDiag([1., 2.], is_positive_definite=True, is_non_singular=False)
    circulant = L.LinearOperatorCirculant(tf.constant([1., 2.], tf.complex64))
    assert circulant.dtype == tf.complex64
    np.testing.assert_allclose(circulant.to_dense().numpy(), [[1.5, -0.5], [-0.5, 1.5]], atol=1e-6)
    assert L.LinearOperatorCirculant2D(tf.ones([2, 3], tf.complex64)).shape.as_list() == [6, 6]


def test_gradients_flow_through_operators():
    check_gradients(lambda c, r: L.LinearOperatorToeplitz(c, r).matmul(tf.ones([3, 1], tf.float64)),
                    [[1., 2., 3.], [1., 5., 6.]])
    check_gradients(lambda d, b: L.LinearOperatorDiag(d).solve(b), [[2., 3.], [[1.], [2.]]])
    check_gradients(lambda m: L.LinearOperatorFullMatrix(m).log_abs_determinant(), [A])
