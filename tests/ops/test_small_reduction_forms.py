"""The short NumPy forms of small float32 reductions give the bits of the general forms they replace.

The single-row form of Eigen's inner-most reducer (`eigen_sum._leaf_row_numpy`: a Mean or a total of a
few hundred values in a handful of NumPy calls) is checked against the general row form on that row
(`_leaf_rows_general`, what one row took before; the recorded TensorFlow fixtures of test_eigen_sum.py
pin it to TensorFlow's bits), NaN bits included: every length 8..300 and
longer ones around each n mod 32 tail, on values with mixed magnitudes, signed zeros, infinities, NaNs
and subnormals."""
import numpy as np
import pytest

from tensorflux._src.ops import jit
from tensorflux._src.ops.math import eigen_sum


def _bits(a):
    return np.asarray(a, np.float32).reshape(-1).view(np.uint32)


def _values(rng, n, kind):
    x = (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4, n)).astype(np.float32)
    if kind == "zeros":
        x[:] = np.where(rng.random(n) < 0.5, np.float32(-0.0), np.float32(0.0))
    elif kind == "negative zeros":
        x[:] = np.float32(-0.0)
    elif kind == "specials":
        picks = rng.integers(0, n, max(1, n // 50))
        x[picks] = rng.choice(np.array([np.inf, -np.inf, np.nan, -0.0, 1e-45, -3e-39], np.float32), picks.size)
    elif kind == "subnormals":
        x = (rng.standard_normal(n) * 1e-39).astype(np.float32)
    elif kind == "cancelling":
        x[n // 2:] = -x[: n - n // 2][::-1][: n - n // 2]
    return x


KINDS = ["normal", "zeros", "negative zeros", "specials", "subnormals", "cancelling"]
LENGTHS = list(range(8, 301)) + [n + d for n in (512, 1000, 4096, 8160) for d in range(32)] + [8192]


@pytest.mark.parametrize("kind", KINDS)
def test_single_row_form_gives_the_general_forms_bits(kind):
    rng = np.random.default_rng(len(kind))
    bad = []
    for n in LENGTHS:
        x = _values(rng, n, kind)
        with np.errstate(all="ignore"):     # infinities of both signs make NaNs
            general = eigen_sum._leaf_rows_general(x.reshape(1, n))
            single = eigen_sum._leaf_rows_numpy(x.reshape(1, n))
            strided = eigen_sum._leaf_rows_numpy(np.stack([x, x], axis=1)[:, :1].T)   # a non-contiguous row
        if not (np.array_equal(_bits(single), _bits(general)) and np.array_equal(_bits(strided), _bits(general))):
            bad.append(n)
    assert not bad


def test_mean_and_total_of_a_small_matrix_through_the_numpy_form(monkeypatch):
    monkeypatch.setattr(jit, "when_hot", lambda key, build, after, size=None: None)
    monkeypatch.setattr(eigen_sum._SMALL_TOTAL, "kernel", None)
    rng = np.random.default_rng(7)
    for shape in [(60, 10), (3, 5, 7), (1, 9), (33,), (8, 1024)]:
        x = (rng.standard_normal(shape) * 50).astype(np.float32)
        rows = eigen_sum._leaf_rows_general(x.reshape(1, -1))[0]
        assert np.array_equal(_bits(eigen_sum.reduce_sum(x, None)), _bits(rows)), shape
        count = np.float32(x.size)
        assert np.array_equal(_bits(eigen_sum.reduce_mean(x, None)), _bits(np.float32(rows) / count)), shape
