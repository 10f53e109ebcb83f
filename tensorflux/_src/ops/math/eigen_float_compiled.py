"""The loops of `eigen_float.py` for numba: the same float32 steps element by element (a multiply and an
add rounded separately, floor, exact scaling by a power of two through float64), compiled without
fast-math so that LLVM neither fuses nor reorders them; bit-equal to the NumPy form, which the tests
check. Each loop handles elements [0, stop) -- the packet part; the caller does the scalar tail.

`tanh_small` is the kernel small inputs call once tanh is hot on them (`jit.HotOnSmall`), through its
compiled entry point, without numba's type dispatch (`build_small` does the same for the other loops). It fills an output the caller allocates: np.empty
plus the call costs less than an array numba allocates and boxes (0.5 against 0.9 us on 5 values), and
the array has NumPy's own float32 dtype object, which the callers' identity checks recognise. It is
cached on disk, so it lives in this file with the helpers it inlines: numba checks only the timestamp
of the file that holds a cached function.
"""
import math

import numpy as np

from .. import jit

__all__ = ["build", "build_small", "build_small_tanh", "tanh_scalar"]

F = np.float32
TINY = F(1.17549435e-38)
ZERO, HALF, ONE = F(0.0), F(0.5), F(1.0)
LOG2EF, C1, C2 = F(1.44269504088896341), F(-0.693359375), F(2.12194440e-4)
E_HI, E_LO = F(88.723), F(-104.0)
E_P2, E_P3 = F(0.49999988079071044921875), F(0.16666518151760101318359375)
E_P4, E_P5, E_P6 = F(4.166965186595916748046875e-2), F(8.36894474923610687255859375e-3), \
    F(1.37449637986719608306884765625e-3)
S_HI = F(16.6355324)
S_P2, S_P3 = F(0.49999141693115234375), F(0.16666877269744873046875)
S_P4, S_P5 = F(4.1898667812347412109375e-2), F(8.33471305668354034423828125e-3)
T_CLAMP = F(7.90738964080810547)
T_A0, T_A1, T_A2, T_A3 = F(1.394553628e-8), F(2.102733560e-5), F(3.520756727e-3), F(1.340216100e-1)
T_B0, T_B1, T_B2, T_B3 = F(8.015776984e-7), F(3.326951409e-4), F(2.597254514e-2), F(4.673548340e-1)
L_SQRTHF = F(0.707106781186547524)
L_P1, L_P2, L_P3 = F(1.0000000190281136), F(1.0000000190281063), F(0.18256296349849254)
L_Q1, L_Q2, L_Q3 = F(1.4999999999999927), F(0.59923249590823520), F(0.049616247954120038)
LN2 = F(0.693147180559945309417232121458176568)
INF = F(np.inf)
POW2 = np.ldexp(1.0, np.arange(-200, 201))     # exact powers of two, indexed by exponent + 200


def _daz(v):
    return v * ZERO if (v != ZERO and abs(v) < TINY) else v


def _ftz(v):
    return v * ZERO if (v != ZERO and abs(v) < TINY) else v


def _quiet(v):
    """NaN `v` as arithmetic returns it (TensorFlow's and NumPy's forms): a signalling NaN made quiet, its
    sign and payload kept. (An addition would do it on the CPU, but LLVM may fold an addition of NaN.)"""
    bits = np.empty(1, F)
    bits[0] = v
    raw = bits.view(np.uint32)
    raw[0] |= np.uint32(0x00400000)
    return bits[0]


def _scale(y, m):
    """y * 2**m for float32 y and integral float32 m, rounded once."""
    return F(np.float64(y) * POW2[int(m) + 200])


def exp_loop(x, out, stop):
    for i in range(stop):
        v = _daz(x[i])
        if v != v:
            out[i] = _quiet(v)
            continue
        if v < E_LO:
            out[i] = ZERO
            continue
        c = min(v, E_HI)
        m = F(math.floor(F(F(c * LOG2EF) + HALF)))
        r = F(F(m * C1) + c)
        r = F(F(m * C2) + r)
        r2 = F(r * r)
        even = F(F(r2 * E_P6) + E_P4)
        odd = F(F(r2 * E_P5) + E_P3)
        even = F(F(r2 * even) + E_P2)
        y = F(F(r * odd) + even)
        y = F(F(r2 * y) + F(r + ONE))
        out[i] = _ftz(max(_scale(y, m), v))


def sigmoid_loop(x, out, stop):
    for i in range(stop):
        v = _daz(x[i])
        if v != v:
            out[i] = _quiet(v)
            continue
        if v < E_LO:
            out[i] = ZERO
            continue
        c = F(min(v, S_HI) * HALF)
        m = F(math.floor(F(F(c * LOG2EF) + HALF)))
        r = F(F(m * C1) + c)
        r = F(F(m * C2) + r)
        r2 = F(r * r)
        even = F(F(r2 * S_P4) + S_P2)
        odd = F(F(r2 * S_P5) + S_P3)
        p = F(F(r * odd) + even)
        p = F(F(r2 * p) + F(r + ONE))
        e = _scale(p, m)
        e = F(e * e)
        out[i] = _ftz(F(e / F(e + ONE)))


def tanh_one(v):
    """Eigen's float32 tanh of one value (the compiled kernels of runtime/lowering call it too)."""
    v = _daz(v)
    c = min(max(v, -T_CLAMP), T_CLAMP)
    if v != v:
        c = v
    x2 = F(c * c)
    x3 = F(x2 * c)
    p = F(F(x2 * T_A0) + T_A1)
    p = F(F(p * x2) + T_A2)
    p = F(F(p * x2) + T_A3)
    q = F(F(x2 * T_B0) + T_B1)
    q = F(F(q * x2) + T_B2)
    q = F(F(q * x2) + T_B3)
    q = F(F(q * x2) + ONE)
    p = F(F(x3 * p) + c)
    return _ftz(F(p / q))


def tanh_loop(x, out, stop):
    for i in range(stop):
        out[i] = tanh_one(x[i])


def log_loop(x, out, stop):
    for i in range(stop):
        v = _daz(x[i])
        if v != v or v < ZERO:
            out[i] = F(np.nan)
            continue
        if v == ZERO:
            out[i] = -INF
            continue
        if v == INF:
            out[i] = INF
            continue
        mantissa, exponent = math.frexp(np.float64(v))
        mm = F(mantissa)
        e = F(exponent)
        tmp = ZERO
        if mm < L_SQRTHF:
            e = F(e - ONE)
            tmp = mm
        t = F(F(mm - ONE) + tmp)
        p = F(F(t * L_P3) + L_P2)
        p = F(F(t * p) + L_P1)
        p = F(t * p)
        q = F(F(t * L_Q3) + L_Q2)
        q = F(F(t * q) + L_Q1)
        q = F(F(t * q) + ONE)
        out[i] = _ftz(F(F(e * LN2) + F(p / q)))


def tanh_small(x, out):
    for i in range(x.size):
        out[i] = tanh_one(x[i])


_LOOPS = {"exp": exp_loop, "sigmoid": sigmoid_loop, "tanh": tanh_loop, "log": log_loop}


def _with_helpers(numba, fn):
    """`fn` rebound to a namespace where its helpers are numba functions, ready for numba.njit."""
    namespace = dict(fn.__globals__)
    for helper in (_daz, _ftz, _scale, _quiet):
        namespace[helper.__name__] = numba.njit(inline="always")(helper)
    namespace["tanh_one"] = numba.njit(inline="always")(type(fn)(tanh_one.__code__, namespace, "tanh_one"))
    return type(fn)(fn.__code__, namespace, fn.__name__)


def tanh_scalar(numba):
    """`tanh_one` compiled by numba, for the kernels `runtime/tiering.py` builds."""
    return numba.njit(nogil=True, error_model="numpy")(_with_helpers(numba, tanh_one))


def build(name):
    """A builder for `jit.when_hot`: the compiled loop `name(x, out, stop)` over float32 arrays."""
    def make(numba):
        compiled = numba.njit(nogil=True, error_model="numpy")(_with_helpers(numba, _LOOPS[name]))
        f32 = numba.float32[::1]
        compiled.compile((f32, f32, numba.int64))
        return compiled
    return make


def build_small(name):
    """A builder for `jit.HotOnSmall`: the entry point of the loop `name(x, out, stop)`, cached on disk,
    compiled for C-contiguous float32 vectors, x aligned or not (its callers check the dtype and layout:
    the entry point does not)."""
    def make(numba):
        compiled = numba.njit(error_model="numpy", cache=True)(_with_helpers(numba, _LOOPS[name]))
        x = numba.types.Array(numba.float32, 1, "C", aligned=False)
        return jit.entry_point(compiled, (x, numba.float32[::1], numba.int64))
    return make


def build_small_tanh(numba):
    """A builder for `jit.HotOnSmall`: the entry point of `tanh_small(x, out)` compiled for float32 vectors,
    x any vector, out C-contiguous (its callers check the dtype and rank: the entry point does not)."""
    compiled = numba.njit(error_model="numpy", cache=True)(_with_helpers(numba, tanh_small))
    return jit.entry_point(compiled, (jit.any_vector(numba, numba.float32), numba.float32[::1]))
