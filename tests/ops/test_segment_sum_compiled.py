"""UnsortedSegmentSum's compiled row loop (numba) gives np.add.at's bits: same additions, same order."""
import numpy as np
import pytest

import tensorflux as tf
from tensorflux._src.ops import jit
from tensorflux._src.ops.array import compiled_segment_sum as compiled
from tensorflux._src.ops.array import gather as gather_mod

numba = pytest.importorskip("numba")


def _loop():
    loop = jit.build_now("unsorted_segment_sum_rows", compiled._compile)
    assert loop is not None
    return loop


def _values(rng, shape, dtype):
    v = rng.standard_normal(shape).astype(dtype) * dtype(10.0) ** rng.integers(-3, 4, shape).astype(dtype)
    flat = v.reshape(-1)
    if flat.size > 8:   # a few special values: their sums must come out the same too
        flat[rng.integers(0, flat.size, 3)] = [np.inf, -0.0, np.nan]
    return v


def _bits(a):
    return a.view(np.uint32 if a.dtype == np.float32 else np.uint64)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_compiled_rows_equal_add_at_bit_for_bit(dtype, index_dtype):
    loop = _loop()
    rng = np.random.default_rng(7)
    for trial in range(60):
        segments = int(rng.integers(1, 300))
        n = int(rng.integers(1, 3000))
        width = int(rng.choice([1, 2, 3, 7, 8, 16, 32, 33, 70]))
        index = rng.integers(0, segments, n).astype(index_dtype)
        rows = _values(rng, (n, width), dtype)
        expected = np.zeros((segments, width), dtype)
        np.add.at(expected, index, rows)
        out = np.zeros((segments, width), dtype)
        loop(out, index, rows)
        assert np.array_equal(_bits(out), _bits(expected)), (trial, segments, n, width)


def test_embedding_gradient_shape_equals_layered_and_add_at():
    loop = _loop()
    rng = np.random.default_rng(3)
    index = rng.integers(0, 20000, 6400).astype(np.int32)
    index[:50] = 17                       # heavy repeats, as frequent tokens give
    rows = rng.standard_normal((6400, 32)).astype(np.float32)
    expected = np.zeros((20000, 32), np.float32)
    np.add.at(expected, index, rows)
    layered = np.zeros((20000, 32), np.float32)
    gather_mod._add_in_layers(layered, index, rows)
    out = np.zeros((20000, 32), np.float32)
    loop(out, index, rows)
    assert np.array_equal(_bits(out), _bits(expected))
    assert np.array_equal(_bits(layered), _bits(expected))


def test_op_uses_the_loop_once_built_and_keeps_the_bits():
    _loop()
    rng = np.random.default_rng(11)
    for shape, segments in [((6400, 32), 20000), ((32, 200, 32), 200), ((500,), 40), ((300, 4, 5), 7)]:
        data = _values(rng, shape, np.float32)
        ids = rng.integers(-1, segments, shape[:2] if len(shape) == 3 and segments == 200 else shape[:1])
        ids = ids.astype(np.int32)
        got = tf.math.unsorted_segment_sum(data, ids, segments).numpy()
        keep = ids.reshape(-1) >= 0
        expected = np.zeros((segments,) + data.shape[ids.ndim:], np.float32)
        np.add.at(expected, ids.reshape(-1)[keep], data.reshape((ids.size,) + data.shape[ids.ndim:])[keep])
        assert np.array_equal(_bits(got), _bits(expected)), shape
        traced = tf.function(lambda d, i: tf.math.unsorted_segment_sum(d, i, segments))(data, ids).numpy()
        assert np.array_equal(_bits(traced), _bits(expected)), shape


def test_kernel_declines_what_it_was_not_compiled_for():
    _loop()
    out = np.zeros((4, 3), np.float32)
    rows = np.ones((5, 3), np.float32)
    index = np.zeros(5, np.int32)
    assert compiled.segment_rows_kernel(out, index, rows) is not None
    assert compiled.segment_rows_kernel(out.astype(np.int32), index, rows.astype(np.int32)) is None
    assert compiled.segment_rows_kernel(out, index.astype(np.int16), rows) is None
    assert compiled.segment_rows_kernel(out, index, np.ones((3, 5), np.float32).T) is None
    # integer data still sums through np.add.at
    got = tf.math.unsorted_segment_sum(np.arange(10, dtype=np.int32).reshape(5, 2), [0, 1, 0, 1, 3], 4).numpy()
    np.testing.assert_array_equal(got, [[4, 6], [8, 10], [0, 0], [8, 9]])


def test_gather_gradient_through_the_loop_matches_finite_differences():
    _loop()
    rng = np.random.default_rng(5)
    table = tf.Variable(rng.standard_normal((50, 4)))
    ids = tf.constant(rng.integers(0, 50, (30,)).astype(np.int32))
    weights = rng.standard_normal((30, 4))
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.gather(table, ids) * weights)
    grad = tf.convert_to_tensor(tape.gradient(loss, table)).numpy()
    base = table.numpy()
    eps = 1e-6
    numeric = np.zeros_like(base)
    for r in range(50):
        for c in range(4):
            for sign in (1, -1):
                moved = base.copy()
                moved[r, c] += sign * eps
                numeric[r, c] += sign * np.sum(moved[ids.numpy()] * weights) / (2 * eps)
    np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-6)
