"""The C library's float64 functions over arrays, on machines where NumPy's own loops give other bits.

TensorFlow's CPU kernels compute float64 log, sin, cos, ... with the C library (std::log and friends),
and so do numba's compiled loops. NumPy calls the C library too, except on CPUs with AVX-512, where it
has float64 SIMD loops of its own (exp and log since 1.20, the trigonometric and hyperbolic functions
through SVML): on one such machine 0.5 to 19 % of random values differ by an ulp, a few functions only
once in thousands. Code that promises libm's bits (TensorFlow's float64 random normals, compiled kernels
called exact) asks here:

    numpy_is_libm("log")     # NumPy's float64 loop gives libm's bits on this machine
    apply("log", x)          # libm's float64 log of every element (NumPy's loop where it is libm's)

The answer is no without looking further when NumPy reports AVX-512; elsewhere a probe of 4096 values in
the function's domain must agree bit for bit (computed once per function and process). Where NumPy is
not libm's, `apply` calls the C library through the `math` module element by element (some 60 ns per
value): slower, never other bits.
"""
import math

import numpy as np

__all__ = ["numpy_is_libm", "apply", "FUNCTIONS"]

# NumPy's name -> (the math module's name, the interval the probe draws from).
FUNCTIONS = {"exp": ("exp", -700, 700), "expm1": ("expm1", -50, 50), "log": ("log", 1e-6, 1e6),
             "log1p": ("log1p", -0.99, 1e6), "sin": ("sin", -100, 100), "cos": ("cos", -100, 100),
             "tan": ("tan", -10, 10), "tanh": ("tanh", -20, 20), "sinh": ("sinh", -700, 700),
             "cosh": ("cosh", -700, 700), "arcsin": ("asin", -1, 1), "arccos": ("acos", -1, 1),
             "arctan": ("atan", -1e3, 1e3)}
_KNOWN = {}


def numpy_is_libm(name):
    """Whether `np.<name>` of float64 values gives the C library's bits on this machine."""
    known = _KNOWN.get(name)
    if known is None:
        known = _KNOWN[name] = not numpy_has_avx512() and _probe(name)
    return known


def numpy_has_avx512():
    """Whether NumPy dispatches its loops to AVX-512 code (unknown: assumed so)."""
    try:    # NumPy's record of the CPU features its loops dispatch on
        from numpy._core._multiarray_umath import __cpu_features__ as features
    except ImportError:
        try:
            from numpy.core._multiarray_umath import __cpu_features__ as features
        except ImportError:
            return True
    return bool(features.get("AVX512F") or features.get("AVX512_SKX"))


def _probe(name):
    libm_name, lo, hi = FUNCTIONS[name]
    probe = np.random.default_rng(20261126).uniform(lo, hi, 4096)
    libm = getattr(math, libm_name)
    return all(float(a) == libm(float(x)) for a, x in zip(getattr(np, name)(probe), probe))


def apply(name, x):
    """libm's float64 `name` of every element of `x` (float64), as a new array of its shape. Out of the
    domain, NaN where libm raises (math.log(-1) raises; the C function returns NaN), and the infinities
    and zeros of the C functions at the poles."""
    x = np.asarray(x, np.float64)
    if numpy_is_libm(name):
        return getattr(np, name)(x)
    libm = getattr(math, FUNCTIONS[name][0])
    flat = x.ravel().tolist()
    try:
        values = list(map(libm, flat))
    except (ValueError, OverflowError):      # outside the domain somewhere: element by element
        values = [_guarded(libm, name, v) for v in flat]
    return np.array(values, np.float64).reshape(x.shape)


def _guarded(libm, name, v):
    try:
        return libm(v)
    except OverflowError:     # the C function returns +-inf (HUGE_VAL) where math raises
        return math.copysign(math.inf, v) if name == "sinh" else math.inf
    except ValueError:        # a pole (log(0) is -inf) or outside the domain (NaN)
        if v == 0.0 and name == "log":
            return -math.inf
        if v == -1.0 and name == "log1p":
            return -math.inf
        return math.nan
