"""Gradients of matmul (MatMul / BatchMatMulV2 with transpose/adjoint flags and broadcast batches), einsum
and tensordot: finite differences, graph vs eager, unknown shapes, complex conjugation."""
import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import tensorflux as tf
from test_grad_math import SETTINGS, check_gradients, random_weights, tape_gradients, values

dims = st.integers(1, 3)
seeds = st.integers(0, 2 ** 31 - 1)


def _operand_shape(rows, cols, transposed):
    return [cols, rows] if transposed else [rows, cols]


@SETTINGS
@given(m=dims, k=dims, n=dims, flags=st.sampled_from(["", "transpose_a", "transpose_b", "adjoint_a", "adjoint_b",
                                                        "transpose_a,transpose_b", "adjoint_a,adjoint_b",
                                                        "transpose_a,adjoint_b"]), seed=seeds)
def test_matmul_gradient_rank2(m, k, n, flags, seed):
    kwargs = {f: True for f in flags.split(",") if f}
    a = values(seed, _operand_shape(m, k, kwargs.get("transpose_a") or kwargs.get("adjoint_a")), -1, 1)
    b = values(seed + 1, _operand_shape(k, n, kwargs.get("transpose_b") or kwargs.get("adjoint_b")), -1, 1)
    check_gradients(lambda x, y: tf.matmul(x, y, **kwargs), [a, b], seed=seed)


@SETTINGS
@given(batches=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=2, min_side=1, max_side=2),
       m=dims, k=dims, n=dims, adj_a=st.booleans(), adj_b=st.booleans(), seed=seeds)
def test_batched_matmul_gradient_with_broadcast_batches(batches, m, k, n, adj_a, adj_b, seed):
    batch_a, batch_b = batches.input_shapes
    a = values(seed, list(batch_a) + _operand_shape(m, k, adj_a), -1, 1)
    b = values(seed + 1, list(batch_b) + _operand_shape(k, n, adj_b), -1, 1)
    check_gradients(lambda x, y: tf.matmul(x, y, adjoint_a=adj_a, adjoint_b=adj_b), [a, b], seed=seed)


def test_matmul_operator_and_mixed_ranks():
    check_gradients(lambda x, y: x @ y, [values(1, [2, 3, 4], -1, 1), values(2, [4, 2], -1, 1)])
    check_gradients(lambda x, y: tf.matmul(x, y, transpose_a=True), [values(3, [3, 2], -1, 1),
                                                                    values(4, [2, 1, 3, 2], -1, 1)])


def test_matmul_gradient_in_graph_with_unknown_shapes():
    a, b = values(1, [2, 3, 4], -1, 1), values(2, [1, 4, 2], -1, 1)
    weights = random_weights([2, 3, 2], 3)

    def grads(x, y):
        return tape_gradients(lambda u, v: tf.matmul(u, v), [x, y], weights)

    eager = grads(tf.constant(a), tf.constant(b))
    for spec in (tf.TensorSpec([None, None, None], tf.float64), tf.TensorSpec(None, tf.float64)):
        graph = tf.function(grads, input_signature=[spec, spec])(tf.constant(a), tf.constant(b))
        for e, g in zip(eager, graph):
            assert g.shape == e.shape
            np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-12)


def test_complex_matmul_and_einsum_gradients_follow_tensorflow():
    a = tf.constant([[1 + 1j, 2], [3j, 1]])
    b = tf.constant([[2 - 1j, 1], [1j, 1 + 1j]])
    expected_a = [[3 + 1j, 1 - 2j], [3 + 1j, 1 - 2j]]  # TensorFlow 2's values
    expected_b = [[1 - 4j, 1 - 4j], [3, 3]]
    for product in (tf.matmul, lambda x, y: tf.einsum("ij,jk->ik", x, y),
                    lambda x, y: tf.matmul(tf.expand_dims(x, 0), y)):
        with tf.GradientTape() as tape:
            tape.watch([a, b])
            c = product(a, b)
        ga, gb = tape.gradient(c, [a, b])
        np.testing.assert_allclose(ga.numpy(), expected_a)
        np.testing.assert_allclose(gb.numpy(), expected_b)


# equation, operand shapes
EINSUMS = [
    ("ij,jk->ik", [[2, 3], [3, 4]]),
    ("ij,jk", [[2, 3], [3, 2]]),
    ("bij,bjk->bik", [[2, 2, 3], [2, 3, 2]]),
    ("ij->ji", [[2, 3]]),
    ("ij->", [[2, 3]]),
    ("ij->j", [[2, 3]]),
    ("ii->i", [[3, 3]]),
    ("ii", [[3, 3]]),
    ("iij->ji", [[2, 2, 3]]),
    ("ij,k->k", [[2, 3], [2]]),
    ("i,i->", [[4], [4]]),
    ("i,j->ij", [[2], [3]]),
    ("ij,ij->ij", [[2, 3], [2, 3]]),
    ("ijk,kj->i", [[2, 3, 2], [2, 3]]),
    ("abc,cd,de->abe", [[2, 1, 3], [3, 2], [2, 2]]),
    ("...ij,...jk->...ik", [[2, 1, 2, 3], [3, 3, 2]]),
    ("i...j,...jk->i...k", [[2, 1, 3], [4, 3, 2]]),
    ("...i,i->...", [[2, 3, 4], [4]]),
    ("...i->...", [[2, 3]]),
    ("i...->...", [[2, 1, 3]]),
    ("ij...,jk->ik...", [[2, 3, 2], [3, 2]]),
    ("ii...->i...", [[2, 2, 3]]),
]


@pytest.mark.parametrize("equation, shapes", EINSUMS, ids=[e for e, _ in EINSUMS])
def test_einsum_gradient_matches_finite_differences(equation, shapes):
    arrays = [values(k, s, -1, 1) for k, s in enumerate(shapes)]
    check_gradients(lambda *xs: tf.einsum(equation, *xs), arrays)


@pytest.mark.parametrize("equation, shapes", [e for e in EINSUMS if e[0] in
                                              ("ij,jk->ik", "ii->i", "ij->", "i...j,...jk->i...k", "ij...,jk->ik...",
                                               "...i,i->...", "ii...->i...", "abc,cd,de->abe")],
                         ids=str)
def test_einsum_gradient_in_graph_with_unknown_shapes(equation, shapes):
    arrays = [values(k, s, -1, 1) for k, s in enumerate(shapes)]
    out_shape = tf.einsum(equation, *[tf.constant(a) for a in arrays]).shape.as_list()
    weights = random_weights(out_shape, 5)

    def grads(*xs):
        return tape_gradients(lambda *us: tf.einsum(equation, *us), list(xs), weights)

    eager = grads(*[tf.constant(a) for a in arrays])
    for make_spec in (lambda a: tf.TensorSpec([None] * a.ndim, tf.float64), lambda a: tf.TensorSpec(None, tf.float64)):
        signature = [make_spec(a) for a in arrays]
        graph = tf.function(grads, input_signature=signature)(*[tf.constant(a) for a in arrays])
        for e, g in zip(eager, graph):
            assert g.shape == e.shape
            np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("axes, shapes", [(1, [[2, 3], [3, 4]]), (0, [[2], [3]]), (2, [[2, 3, 2], [3, 2, 2]]),
                                          ([[1, 0], [0, 1]], [[3, 2, 2], [2, 3]]), ([[0], [1]], [[3, 2], [2, 3]])])
def test_tensordot_gradient(axes, shapes):
    arrays = [values(k, s, -1, 1) for k, s in enumerate(shapes)]
    check_gradients(lambda a, b: tf.tensordot(a, b, axes), arrays)
