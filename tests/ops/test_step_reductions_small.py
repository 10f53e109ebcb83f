"""The small reductions of a training step give the same bits on every path.

A bias gradient is a Sum over axis 0 of a small [batch, units] matrix and a loss is a Mean of a few hundred
values. Once hot (numba installed) the column sums run as one compiled loop
(`eigen_sum._SMALL_COLUMNS`); it must give the bits of the NumPy form (`eigen_sum._sum_columns`), which the
recorded TensorFlow fixtures of test_eigen_sum.py pin to TensorFlow 2.21's. The Mean kernel counts its
values in Python; its result must stay the Eigen-order sum divided by that count, for every axis set."""
import numpy as np
import pytest

import tensorflux as tf
from tensorflux._src.ops import jit
from tensorflux._src.ops.math import eigen_sum
from tensorflux._src.ops.math import reduce as reduce_ops


def _bits(a):
    return np.asarray(a, np.float32).reshape(-1).view(np.uint32)


_NAN_POOL = np.array([0x7fc00000, 0xffc00000, 0x7fc00123, 0xffc00456, 0x7f800000, 0xff800000, 0x3f800000,
                      0x80000000], np.uint32).view(np.float32)


def _values(rng, shape, kind):
    n = int(np.prod(shape))
    x = (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4, n)).astype(np.float32)
    if kind == "zeros":
        x[:] = np.where(rng.random(n) < 0.5, np.float32(-0.0), np.float32(0.0))
    elif kind == "negative zeros":
        x[:] = np.float32(-0.0)
    elif kind == "specials":
        picks = rng.integers(0, n, max(1, n // 40)) if n else np.zeros(0, np.int64)
        x[picks] = rng.choice(np.array([np.inf, -np.inf, np.nan, -0.0, 1e-45, -3e-39], np.float32), picks.size)
    elif kind == "subnormals":
        x = (rng.standard_normal(n) * 1e-39).astype(np.float32)
    elif kind == "nans":    # NaNs of both signs and several payloads meeting infinities, ones and -0.0
        x = rng.choice(_NAN_POOL, n)
    elif kind == "cancelling":
        x[n // 2:] = -x[: n - n // 2][::-1][: n - n // 2]
    return x.reshape(shape)


KINDS = ["normal", "zeros", "negative zeros", "specials", "subnormals", "cancelling"]
SHAPES = [(r, c) for r in (2, 3, 4, 5, 15, 16, 17, 19, 32, 60, 61, 63, 64) for c in (2, 7, 8, 9, 10, 15, 16, 17, 31,
                                                                                   33, 128, 130)]
SHAPES += [(60, 10), (60, 128), (256, 32), (1000, 8), (8, 1024), (100, 81)]


@pytest.fixture(scope="module")
def small_columns():
    pytest.importorskip("numba")
    kernel = jit.HotOnSmall("test_small_columns", eigen_sum._compiled.build_small_columns).build_now()
    assert kernel is not None
    return kernel


@pytest.mark.parametrize("kind", KINDS + ["nans"])
def test_compiled_small_columns_give_the_numpy_forms_bits(small_columns, monkeypatch, kind):
    """Non-NaN outputs straight from the loop; a NaN-bearing result is flagged and recomputed by the NumPy
    form (which NaN of two survives depends on operand order): every bit equal either way."""
    monkeypatch.setattr(eigen_sum._SMALL_COLUMNS, "kernel", small_columns)
    # The recomputation is the NumPy form only while the large-input column loop is not built: once an
    # earlier test in the process built it, NaN results would come from that loop (another NaN choice).
    monkeypatch.setattr(jit, "when_hot", lambda key, build, after, size=None: None)
    rng = np.random.default_rng(len(kind) * 7)
    bad = []
    for shape in SHAPES:
        x = _values(rng, shape, kind)
        with np.errstate(all="ignore"):     # infinities of both signs make NaNs
            want = _numpy_columns(x)
            got = eigen_sum.reduce_sum(x, (0,))
        out = np.empty((1, shape[1]), np.float32)
        flagged = small_columns(np.ascontiguousarray(x)[None], out)
        finite = ~np.isnan(want)
        if not (np.array_equal(_bits(got), _bits(want)) and flagged == bool(np.isnan(want).any())
                and np.array_equal(_bits(out[0][finite]), _bits(want[finite]))):
            bad.append(shape)
    assert not bad


def _numpy_columns(x):
    """`_sum_columns`' NumPy form (the compiled loops switched off)."""
    real = jit.when_hot
    jit.when_hot = lambda key, build, after, size=None: None
    try:
        return eigen_sum._sum_columns(x[None])[0]
    finally:
        jit.when_hot = real


@pytest.mark.parametrize("hot", [False, True])
def test_axis_0_sum_of_a_small_matrix_is_the_same_hot_or_not(request, monkeypatch, hot):
    if hot:
        monkeypatch.setattr(eigen_sum._SMALL_COLUMNS, "kernel", request.getfixturevalue("small_columns"))
    else:
        monkeypatch.setattr(eigen_sum._SMALL_COLUMNS, "kernel", None)
        monkeypatch.setattr(eigen_sum._SMALL_COLUMNS, "started", True)    # no build meanwhile
    monkeypatch.setattr(jit, "when_hot", lambda key, build, after, size=None: None)
    rng = np.random.default_rng(3)
    summed = tf.function(lambda t: tf.reduce_sum(t, axis=0))
    for shape in [(60, 10), (60, 128), (17, 9), (5, 3), (64, 130)]:
        for kind in KINDS + ["nans"]:
            x = _values(rng, shape, kind)
            with np.errstate(all="ignore"):
                want = _numpy_columns(x)
                eager = tf.reduce_sum(tf.constant(x), axis=0).numpy()
                traced = summed(tf.constant(x)).numpy()
            assert np.array_equal(_bits(eager), _bits(want)), (shape, kind)
            assert np.array_equal(_bits(traced), _bits(want)), (shape, kind)


def test_strided_input_takes_the_contiguous_copy(small_columns, monkeypatch):
    """The compiled entry point reads its input as C-contiguous: a transposed view must be copied first."""
    monkeypatch.setattr(eigen_sum._SMALL_COLUMNS, "kernel", small_columns)
    x = np.arange(600, dtype=np.float32).reshape(10, 60) * np.float32(0.37)
    got = eigen_sum.reduce_sum(x.T, (0,))
    assert np.array_equal(_bits(got), _bits(_numpy_columns(np.ascontiguousarray(x.T))))


AXES = [None, (0,), (1,), (0, 1), (1, 0), (-1,), (2,), (0, 2), (1, 2), (0, 1, 2), ()]


@pytest.mark.parametrize("kind", KINDS + ["nans"])
def test_mean_is_the_eigen_sum_over_the_python_count(kind):
    rng = np.random.default_rng(11 + len(kind))
    for shape in [(60, 10), (3, 5, 7), (1, 9), (4, 1, 33), (0, 5), (2, 0, 3)]:
        x = _values(rng, shape, kind)
        for axes in AXES:
            if axes is not None and any(a >= x.ndim or a < -x.ndim for a in axes):
                continue
            norm = None if axes is None else tuple(a % x.ndim for a in axes)
            count = x.size if norm is None else int(np.prod([x.shape[a] for a in norm], dtype=np.int64))
            for keepdims in (False, True):
                with np.errstate(all="ignore"):
                    got = reduce_ops._mean_kernel(x, axis=axes, keepdims=keepdims)
                    if count:
                        want = eigen_sum.reduce_sum(x, norm, keepdims) / np.float32(count)
                    else:
                        want = np.full_like(np.sum(x, axis=norm, keepdims=keepdims), np.nan)
                assert np.shape(got) == np.shape(want), (shape, axes, keepdims)
                assert np.array_equal(_bits(got), _bits(want)), (shape, axes, keepdims, kind)


def test_integer_and_half_means_are_unchanged():
    x = np.array([[-7, 3, 5], [2, -9, 1]], np.int32)
    assert reduce_ops._mean_kernel(x, axis=(1,)).tolist() == [0, -2]     # truncation toward zero
    assert reduce_ops._mean_kernel(x, axis=None).tolist() == -0
    h = np.array([[1.5, 2.25], [3.0, 4.5]], np.float16)
    assert reduce_ops._mean_kernel(h, axis=(0,)).tolist() == [2.25, 3.375]


@pytest.fixture(scope="module")
def small_total():
    pytest.importorskip("numba")
    kernel = jit.HotOnSmall("test_small_total", eigen_sum._build_small_total).build_now()
    assert kernel is not None
    return kernel


@pytest.mark.parametrize("kind", KINDS + ["nans"])
def test_hot_mean_divides_in_double_with_float32s_bits(small_total, monkeypatch, kind):
    """A hot whole-input Mean divides the compiled total by the count in double and rounds once; it must
    equal the float32 sum divided by the float32 count (the form before), NaNs and subnormals included."""
    monkeypatch.setattr(eigen_sum._SMALL_TOTAL, "kernel", small_total)
    rng = np.random.default_rng(29 + len(kind))
    bad = []
    for n in list(range(1, 70)) + [127, 128, 129, 600, 1000, 1280, 4095, 8192]:
        for shape in [(n,), (1, n), (n, 1)]:
            x = _values(rng, (n,), kind).reshape(shape)
            if kind == "subnormals":
                x = x * np.float32(1e-6)    # quotients below the smallest normal float32
            with np.errstate(all="ignore"):
                want = (np.float32(-0.0) + small_total(x.reshape(-1))) / np.float32(n)
                got = eigen_sum.reduce_mean(x, None)
                got_axes = eigen_sum.reduce_mean(x, tuple(range(x.ndim)))
            if not (np.shape(got) == () and np.array_equal(_bits(got), _bits(want))
                    and np.array_equal(_bits(got_axes), _bits(want))):
                bad.append(shape)
    assert not bad


def test_hot_mean_keeps_the_shapes_of_kept_axes(small_total, monkeypatch):
    monkeypatch.setattr(eigen_sum._SMALL_TOTAL, "kernel", small_total)
    x = np.arange(12, dtype=np.float32).reshape(1, 12)
    assert eigen_sum.reduce_mean(x, (1,)).shape == (1,)
    assert eigen_sum.reduce_mean(x, None, keepdims=True).shape == (1, 1)
    assert eigen_sum.reduce_mean(x, (0, 1)).tolist() == 5.5
