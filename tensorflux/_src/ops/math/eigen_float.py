"""TensorFlow's float32 `exp`, `log`, `tanh` and `sigmoid`, bit for bit.

TensorFlow's CPU kernels evaluate these with Eigen's vectorised approximations, not with the C
library: a range reduction plus a polynomial (exp, log), a rational function (tanh) and an
exp-based form (logistic), each step rounded to float32, with multiply and add rounded separately (the
TensorFlow 2.21 wheel is built without FMA). NumPy's own float32 `exp`/`tanh`/`log` differ from them in
the last bits for 40-60 % of inputs, which shows in printed results. Here the same steps are done on
whole arrays, in the same order and precision. Measured against TensorFlow 2.21 on 550,001 values per
function (normal, uniform, tiny and evenly spaced inputs): no differing bit.

Eigen works in packets of 8 floats (AVX); the last `n % 8` elements of a tensor go through its scalar
path, which for exp, log and the logistic calls the C library's float functions (called here too, through
ctypes: glibc's logf is not correctly rounded), and for tanh the same rational function. `_with_tail` reproduces that split. TensorFlow's CPU threads
also flush denormals: subnormal inputs count as zero and subnormal results become zero.

Once a function is hot and numba (`[jit]`) is installed, the same steps run as one compiled loop
(`eigen_float_compiled.py`: only float32 adds, multiplies, divides, floor and exact power-of-two
scaling, no fast-math, so the bits are the same), about as fast as NumPy's own ufuncs. tanh, which loops
run on a few values at a time, gets a kernel for small inputs once it is hot on them (see `tanh`), and exp
and log run their packet loops compiled on small inputs too once hot (`_packet_loop`).
"""
import functools
import math

import numpy as np

from .. import jit
from . import eigen_float_compiled as _compiled_loops

__all__ = ["exp", "exp_by_rows", "flush_denormals", "log", "tanh", "sigmoid"]

_F = np.float32
_PACKET = 8
_TINY = _F(1.17549435e-38)      # the smallest normal float32
_TINY_PY = float(_TINY)
_SIGMOID_HI_PY = float(_F(16.6355324))
HOT_CALLS = 3


def _daz(x):
    """Subnormal inputs as (signed) zeros, as TensorFlow's denormals-are-zero mode reads them."""
    sub = (np.abs(x) < _TINY) & (x != 0)
    if sub.any():
        x = np.where(sub, np.copysign(_F(0.0), x), x).astype(_F)
    return x


def _ftz(out):
    sub = (np.abs(out) < _TINY) & (out != 0)
    if sub.any():
        out[sub] = np.copysign(_F(0.0), out[sub])
    return out


_BUILDERS = {name: _compiled_loops.build(name) for name in ("exp", "log", "tanh", "sigmoid")}


def _compiled(name, size):
    """The compiled loop once built; built from the HOT_CALLS-th call on an input of `jit.COMPILE_FROM`
    values or more (small programs never import numba)."""
    return jit.when_hot(f"eigen_float_{name}", _BUILDERS[name], HOT_CALLS, size)


# Once exp or log is hot on small inputs (`jit.HotOnSmall`), its packet loop runs compiled on them too (a
# dozen NumPy calls otherwise); the scalar tail stays the C library's function, called as below.
# (Not sigmoid's: its NumPy form returns +NaN for every NaN, its compiled loop the input NaN as TensorFlow
# does, so the two would differ in NaN bits.)
_SMALL_LOOPS = {name: jit.HotOnSmall(f"eigen_float_{name}_small", _compiled_loops.build_small(name))
                for name in ("exp", "log")}
_F32 = np.dtype(np.float32)


def _packet_loop(name, flat):
    """The compiled packet loop for the C-contiguous vector `flat`: the small-input kernel once built (calls
    on small inputs counted until then), else the large-input loop once built; None before either."""
    small = _SMALL_LOOPS.get(name)
    if small is None:
        return _compiled(name, flat.size)
    if small.kernel is not None:
        return small.kernel if (flat.dtype is _F32 or flat.dtype == _F32) else None
    if flat.size < jit.COMPILE_FROM:
        small.count()
    return _compiled(name, flat.size)


def flush_denormals(out):
    """`out` (float32, modified in place) with subnormal values made signed zeros, as TensorFlow's CPU
    threads (flush-to-zero mode) leave them."""
    tiny = np.abs(out) < _TINY
    if tiny.any():
        out[tiny] = np.copysign(_F(0.0), out[tiny])
    return out


def _madd(a, b, c):
    """a * b + c with two roundings (no fused multiply-add), as Eigen's pmadd without FMA."""
    out = np.multiply(a, b, dtype=_F)
    out += c
    return out


def _with_tail(x, packet_fn, scalar_fn, name):
    """The packet function on the first n - n % 8 elements, the scalar one on the rest (each element is
    computed once: a small tensor is all tail)."""
    flat = np.ascontiguousarray(x).reshape(-1)
    n = flat.size
    head = n - n % _PACKET
    out = np.empty(n, _F)
    if head:
        loop = _packet_loop(name, flat)
        if loop is not None:
            loop(flat, out, head)
        else:
            out[:head] = _ftz(packet_fn(_daz(flat[:head])))
    if head < n:
        out[head:] = _scalar_tail(flat[head:], name) if n - head <= _PYTHON_TAIL else \
            _ftz(scalar_fn(_daz(flat[head:])))
    return out.reshape(x.shape)


_PYTHON_TAIL = 7        # up to this many elements, Python's math beats a dozen NumPy calls on tiny arrays


def _python_exp(v):
    try:
        return math.exp(v)
    except OverflowError:
        return math.inf


def _python_log(v):
    if v != v or v < 0:
        return math.nan
    if v == 0:
        return -math.inf
    return math.log(v) if v != math.inf else math.inf


_C_LIBRARY = []


def _c_float_functions():
    """The C library's own float `expf` and `logf` (what Eigen's scalar path calls; glibc's are not
    correctly rounded: logf is off by one in the last bit for some inputs), through ctypes from the
    libraries already loaded into the process; None where they cannot be found."""
    if not _C_LIBRARY:
        found = None
        try:
            import ctypes
            library = ctypes.CDLL(None)
            expf, logf = library.expf, library.logf
            for fn in (expf, logf):
                fn.restype, fn.argtypes = ctypes.c_float, [ctypes.c_float]
            found = {"exp": expf, "log": logf}
        except (OSError, AttributeError, ImportError):
            pass
        _C_LIBRARY.append(found)
    return _C_LIBRARY[0]


def _scalar_tail(values, name):
    """The scalar path for a few elements: the C library's float function (Python's double-precision one
    rounded to float32 where the C library cannot be reached), denormals flushed."""
    out = []
    c = _c_float_functions()
    exp_ = c["exp"] if c else (lambda v: float(_F(_python_exp(v))))
    for v in values.tolist():
        if v != 0 and abs(v) < _TINY_PY:
            v = math.copysign(0.0, v)
        if name == "exp":
            r = exp_(v)
        elif name == "log":
            r = c["log"](v) if c else float(_F(_python_log(v)))
        else:   # sigmoid: e = exp(min(x, c)) in float32, then e / (1 + e) in float32
            e = _F(exp_(min(v, _SIGMOID_HI_PY))) if v == v else _F(math.nan)
            r = float(e / (e + _F(1.0)))
        if r != 0 and abs(r) < _TINY_PY:
            r = math.copysign(0.0, r)
        out.append(r)
    return np.array(out, _F)


def _exp_packet(x):
    zero = x < _F(-104.0)
    x = np.minimum(x, _F(88.723))
    m = np.floor(_madd(x, _F(1.44269504088896341), _F(0.5)))
    r = _madd(m, _F(-0.693359375), x)
    r = _madd(m, _F(2.12194440e-4), r)
    r2 = np.multiply(r, r, dtype=_F)
    even = _madd(r2, _F(1.37449637986719608306884765625e-3), _F(4.166965186595916748046875e-2))
    odd = _madd(r2, _F(8.36894474923610687255859375e-3), _F(0.16666518151760101318359375))
    even = _madd(r2, even, _F(0.49999988079071044921875))
    y = _madd(r, odd, even)
    y = _madd(r2, y, r + _F(1.0))
    out = np.ldexp(y, m.astype(np.int32)).astype(_F, copy=False)
    np.maximum(out, x, out=out)     # +inf stays +inf and NaN propagates, as Eigen's max with the input does
    out[zero] = 0
    return out


def _libm(fn):
    return lambda x: fn(x.astype(np.float64)).astype(_F)


def exp(x):
    """float32 exp as TensorFlow computes it."""
    with np.errstate(all="ignore"):
        return _with_tail(x, _exp_packet, _libm(np.exp), "exp")


def exp_by_rows(x):
    """exp of 2-D float32 `x` as an Eigen row reduction evaluates it on the fly (TensorFlow's
    log_softmax sums exp(logits) so): each row's first n - n % 8 values by the packet path, its last
    n % 8 by the scalar path. (Rows longer than 8192 values are split by the reduction into runs with
    tails of their own; they are not reproduced.)"""
    with np.errstate(all="ignore"):
        rows, n = x.shape
        flat = np.ascontiguousarray(x).reshape(-1)
        out = np.empty(flat.size, _F)
        loop = _packet_loop("exp", flat) if flat.size >= _PACKET else None
        if loop is not None:
            loop(flat, out, flat.size)
        else:
            out[:] = _ftz(_exp_packet(_daz(flat)))
        out = out.reshape(rows, n)
        head = n - n % _PACKET
        if head < n:
            tail = _daz(x[:, head:])
            # the C library's expf element by element while that is cheap; beyond, float64 exp rounded
            # once (glibc's expf is correctly rounded in all but rare cases)
            out[:, head:] = _scalar_tail(tail.reshape(-1), "exp").reshape(tail.shape) if tail.size <= 256 \
                else _ftz(_libm(np.exp)(tail))
        return out


def _log_packet(x0):
    mantissa, exponent = np.frexp(x0)
    mantissa = mantissa.astype(_F, copy=False)
    e = exponent.astype(_F)
    below = mantissa < _F(0.707106781186547524)
    x = mantissa - _F(1.0)
    e -= below.astype(_F)
    x += np.where(below, mantissa, _F(0.0))
    p = _madd(x, _F(0.18256296349849254), _F(1.0000000190281063))
    p = _madd(x, p, _F(1.0000000190281136))
    p = np.multiply(x, p, dtype=_F)
    q = _madd(x, _F(0.049616247954120038), _F(0.59923249590823520))
    q = _madd(x, q, _F(1.4999999999999927))
    q = _madd(x, q, _F(1.0))
    out = _madd(e, _F(0.693147180559945309417232121458176568), np.divide(p, q, dtype=_F))
    out[x0 == np.inf] = np.inf
    out[(x0 < 0) | np.isnan(x0)] = np.nan
    out[x0 == 0] = -np.inf
    return out


def log(x):
    """float32 log as TensorFlow computes it."""
    with np.errstate(all="ignore"):
        return _with_tail(x, _log_packet, _libm(np.log), "log")


_T_CLAMP = _F(7.90738964080810547)
_T_CLAMP_PY = float(_T_CLAMP)
_T_A = [_F(c) for c in (1.394553628e-8, 2.102733560e-5, 3.520756727e-3, 1.340216100e-1)]
_T_B = [_F(c) for c in (8.015776984e-7, 3.326951409e-4, 2.597254514e-2, 4.673548340e-1)]
_ONE = _F(1.0)

# Small tensors (a loop over a few values runs tanh once per iteration) skip the general path's
# denormal handling and error state when no value is tiny: for 0 or |x| >= 2**-40 no step of `_tanh_all`
# underflows to a subnormal, so no floating-point flag is raised (NaN propagates quietly, infinities are
# clamped first), and the input and the result (|result| > 2**-41) are normal or zero, so flushing
# denormals changes nothing. The steps and their order are `_tanh_all`'s.
_TANH_SCALAR_MAX = 5        # up to this many values, float32 scalar arithmetic beats ~15 NumPy calls
_TANH_SMALL_MAX = 64        # up to this many, the stacked form below; beyond, `_tanh_all` or the loop
_TANH_SAFE = 2.0 ** -40


def _no_tiny(values):
    """True when no value of the list is a non-zero below 2**-40 in magnitude (NaNs are fine)."""
    if min(map(abs, values)) >= _TANH_SAFE:
        return True
    return not any(0.0 < abs(v) < _TANH_SAFE for v in values)


def _tanh_scalars(values):
    """`_tanh_all` on a few Python floats, each step a float32 scalar operation (rounded to float32)."""
    a0, a1, a2, a3 = _T_A
    b0, b1, b2, b3 = _T_B
    out = []
    for v in values:
        x = _T_CLAMP if v > _T_CLAMP_PY else -_T_CLAMP if v < -_T_CLAMP_PY else _F(v)
        x2 = x * x
        p = ((x2 * a0 + a1) * x2 + a2) * x2 + a3
        q = (((x2 * b0 + b1) * x2 + b2) * x2 + b3) * x2 + _ONE
        out.append((x2 * x * p + x) / q)
    return out


def _stacked(rows_p, rows_q, n):
    out = np.empty((2, n), _F)
    out[0] = rows_p
    out[1] = rows_q
    return out


@functools.lru_cache(maxsize=_TANH_SMALL_MAX + 1)
def _tanh_constants(n):
    """The clamp bounds and the two polynomials' coefficients as [numerator; denominator] rows of n values
    (same-shape operands: a broadcasting ufunc call costs twice a plain one on small arrays)."""
    bounds = (_stacked(-_T_CLAMP, -_T_CLAMP, n), _stacked(_T_CLAMP, _T_CLAMP, n))
    return bounds + tuple(_stacked(a, b, n) for a, b in zip(_T_A, _T_B))


def _tanh_stacked(flat):
    """`_tanh_all` with the numerator and the denominator evaluated side by side as the rows of one
    [2, n] array: 15 NumPy calls instead of 21 (each costs more than the arithmetic on a small array)."""
    lo, hi, k0, k1, k2, k3 = _tanh_constants(flat.size)
    xs = np.maximum(flat, lo)       # [x; x], clamped
    np.minimum(xs, hi, out=xs)
    x2s = np.multiply(xs, xs)       # [x2; x2]
    t = np.multiply(x2s, k0)
    t += k1
    t *= x2s
    t += k2
    t *= x2s
    t += k3                         # [p; q] before their last steps
    xs[1] = 1.0                     # [x; 1]
    x2s *= xs                       # [x3; x2]
    t *= x2s
    t += xs                         # [x3 * p + x; q * x2 + 1]
    return np.divide(t[0], t[1])


def _tanh_all(a):
    x = np.clip(a, -_T_CLAMP, _T_CLAMP)
    x2 = np.multiply(x, x, dtype=_F)
    x3 = np.multiply(x2, x, dtype=_F)
    p = _madd(x2, _T_A[0], _T_A[1])
    p = _madd(p, x2, _T_A[2])
    p = _madd(p, x2, _T_A[3])
    q = _madd(x2, _T_B[0], _T_B[1])
    q = _madd(q, x2, _T_B[2])
    q = _madd(q, x2, _T_B[3])
    q = _madd(q, x2, _F(1.0))
    p = _madd(x3, p, x)
    return np.divide(p, q, dtype=_F)


# Once tanh is hot on small inputs (`jit.HotOnSmall`), `tanh_small` compiled (eigen_float_compiled.py)
# takes every float32 input: one call of a fraction of a microsecond where the forms above take 5-10.
_SMALL_TANH = jit.HotOnSmall("eigen_float_tanh_small", _compiled_loops.build_small_tanh)
_empty = np.empty


def tanh(x):
    """float32 tanh as TensorFlow computes it (the same rational function on every element)."""
    kernel = _SMALL_TANH.kernel
    if kernel is not None and (x.dtype is _F32 or x.dtype == _F32):   # the entry point checks no dtype
        if x.ndim == 1:     # any strides and alignment (`jit.any_vector`)
            out = _empty(len(x), _F32)
            kernel(x, out)
        else:
            out = _empty(x.shape, _F32)
            kernel(x.reshape(-1), out.reshape(-1))
        return out
    flat = x.reshape(-1)
    n = flat.size
    if kernel is None and n < jit.COMPILE_FROM:
        _SMALL_TANH.count()
    if 0 < n <= _TANH_SMALL_MAX:
        values = flat.tolist()
        if _no_tiny(values):
            if n <= _TANH_SCALAR_MAX:
                return np.array(_tanh_scalars(values), _F).reshape(x.shape)
            if jit.built("eigen_float_tanh") is None:
                return _tanh_stacked(flat).reshape(x.shape)
    with np.errstate(all="ignore"):
        loop = _compiled("tanh", n) if n >= _PACKET else None
        if loop is not None:
            out = np.empty(n, _F)
            loop(np.ascontiguousarray(flat), out, n)
            return out.reshape(x.shape)
        return _ftz(_tanh_all(_daz(flat))).reshape(x.shape)


def _sigmoid_packet(x0):
    zero = x0 < _F(-104.0)
    x = np.minimum(x0, _F(16.6355324))
    x *= _F(0.5)
    m = np.floor(_madd(x, _F(1.44269504088896341), _F(0.5)))
    r = _madd(m, _F(-0.693359375), x)
    r = _madd(m, _F(2.12194440e-4), r)
    r2 = np.multiply(r, r, dtype=_F)
    even = _madd(r2, _F(4.1898667812347412109375e-2), _F(0.49999141693115234375))
    odd = _madd(r2, _F(8.33471305668354034423828125e-3), _F(0.16666877269744873046875))
    p = _madd(r, odd, even)
    p = _madd(r2, p, r + _F(1.0))
    e = np.ldexp(p, m.astype(np.int32)).astype(_F, copy=False)
    e *= e
    out = np.divide(e, e + _F(1.0), dtype=_F)
    out[zero] = 0
    out[np.isnan(x0)] = np.nan
    return out


def _sigmoid_scalar(x):
    e = np.exp(np.minimum(x, _F(16.6355324)).astype(np.float64)).astype(_F)
    return np.divide(e, e + _F(1.0), dtype=_F)


def sigmoid(x):
    """float32 sigmoid as TensorFlow computes it."""
    with np.errstate(all="ignore"):
        return _with_tail(x, _sigmoid_packet, _sigmoid_scalar, "sigmoid")
