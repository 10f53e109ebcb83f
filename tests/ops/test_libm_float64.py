"""ops/libm.py: libm's float64 functions over arrays, whatever NumPy's loops do on this CPU (NumPy has
float64 SIMD loops of its own on CPUs with AVX-512, which TensorFlow's kernels and numba's loops do not
use). Expected values: the `math` module's, which call the C library."""
import math

import numpy as np
import pytest

from tensorflux._src.ops import libm


@pytest.mark.parametrize("name", sorted(libm.FUNCTIONS))
def test_apply_gives_libms_bits(name):
    libm_name, lo, hi = libm.FUNCTIONS[name]
    x = np.random.default_rng(3).uniform(lo, hi, 20_000).reshape(100, 200)
    got = libm.apply(name, x)
    want = np.array([getattr(math, libm_name)(v) for v in x.ravel()]).reshape(x.shape)
    assert got.dtype == np.float64 and got.shape == x.shape
    assert np.array_equal(got.view(np.uint64), want.view(np.uint64))


@pytest.mark.parametrize("name", sorted(libm.FUNCTIONS))
def test_numpy_is_libm_only_where_it_agrees(name):
    """Where NumPy's loop is called libm's, it agrees on 65,536 other values too; where it is not, either
    NumPy dispatches to AVX-512 or some value differs."""
    libm_name, lo, hi = libm.FUNCTIONS[name]
    x = np.random.default_rng(7).uniform(lo, hi, 1 << 16)
    ours = getattr(np, name)(x)
    want = np.array([getattr(math, libm_name)(v) for v in x])
    agree = np.array_equal(ours.view(np.uint64), want.view(np.uint64))
    if libm.numpy_is_libm(name):
        assert agree
    else:
        assert libm.numpy_has_avx512() or not agree


def test_edges_are_the_c_functions():
    """Where `math` raises, the C function returns: -inf at log's pole, NaN outside a domain, inf on
    overflow; NaN in, NaN out."""
    if all(libm.numpy_is_libm(n) for n in ("log", "log1p", "arcsin", "exp", "sinh", "sin")):
        libm._KNOWN.update(dict.fromkeys(("log", "log1p", "arcsin", "exp", "sinh", "sin"), False))
        try:
            return test_edges_are_the_c_functions()
        finally:
            libm._KNOWN.clear()
    with np.errstate(all="ignore"):
        for name, x in [("log", [0.0, -0.0, -1.0, np.inf, np.nan, 1.0]), ("log1p", [-1.0, -2.0, 0.0]),
                        ("arcsin", [2.0, -1.0]), ("exp", [1000.0, -1000.0]), ("sinh", [1000.0, -1000.0]),
                        ("sin", [np.inf, -np.inf, 0.5])]:
            x = np.array(x)
            got, want = libm.apply(name, x), getattr(np, name)(x)
            np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
            keep = ~np.isnan(want)
            np.testing.assert_allclose(got[keep], want[keep], rtol=1e-15)
            assert np.array_equal(np.signbit(got[keep]), np.signbit(want[keep]))
