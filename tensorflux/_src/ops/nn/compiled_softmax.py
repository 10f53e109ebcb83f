"""The passes around the exponential in a large float32 Softmax, and the whole SoftmaxGrad, as compiled
loops over rows (numba, the optional `jit` extra).

losses.py computes an attention softmax ([batch, heads, queries, keys], millions of values) a block of
rows at a time: max, subtract, exp, sum, divide, each a NumPy call over the block; the gradient
multiply, sum, subtract, multiply. Apart from the exp (NumPy's own vectorised one, whose bits these
outputs carry), each pass is cheap arithmetic that costs a trip through the block. Here the max and
subtract are one loop, the sum and divide another, and the gradient one: the same float32 operations
on the same operands, and each row's sum in the order of NumPy's pairwise summation (`_pairwise`: blocks
of up to 128 values in eight interleaved partial sums, longer rows halved at a multiple of 8), which is
what `ndarray.sum(axis=-1)` does on contiguous rows -- so every output bit is the NumPy form's
(tests/ops/test_softmax_compiled.py compares them). A row holding NaN or an infinity makes the loop
return False and the caller run the NumPy form on that block (the two could disagree on which NaN).
Measured in one process on [12800, 200] rows in blocks of 163: softmax 14.6 -> 11.7 ms CPU (the exp is
8 of them), gradient 6.5 -> 4.4 ms. Built once the op is hot (see `jit.when_hot`).
"""
import numpy as np

from .. import jit

__all__ = ["softmax_loops"]

HOT_CALLS = 3
F = np.float32
_PAIRWISE_BLOCK = 128     # NumPy's PW_BLOCKSIZE

# NumPy's float32 exp on x86-64 with AVX2 and FMA (its SIMD kernel): inputs at or above X_MAX give inf, at or
# below X_MIN zero; otherwise k = rint(x·log2 e) by the magic-number addition, a two-step Cody-Waite
# reduction and a third step with a zero constant, all fused multiply-adds, then a degree-5 over degree-2
# rational function, scaled by 2^k through the exponent bits (a division by a power of two below 2^-125,
# where the result is subnormal). `_expf` takes the same steps with the same constants (the values of
# NumPy's NPY_* macros); `_exp_matches_numpy` checks it against np.exp in this process before use.
X_MAX, X_MIN = F(88.72283935546875), F(-103.97208404541015625)
LOG2E, RINT_MAGIC = F(1.442695040888963407359924681001892137), F(12582912.0)
LN2_HIGH, LN2_LOW = F(-6.93145752e-1), F(-1.42860677e-6)
EXP_P = (F(9.999999999980870924916e-01), F(7.257664613233124478488e-01), F(2.473615434895520810817e-01),
         F(5.114512081637298353406e-02), F(6.757896990527504603057e-03), F(5.082762527590693718096e-04))
EXP_Q = (F(1.0), F(-2.742335390411667452936e-01), F(2.159509375685829852307e-02))
ZERO, INF = F(0.0), F(np.inf)


def _pairwise_block(a, lo, n):
    """sum(a[lo:lo + n]) for n <= 128 as NumPy's float32 pairwise summation adds it: fewer than 8 values
    in a row from -0.0, otherwise eight interleaved partial sums combined as a tree, then the rest."""
    if n < 8:
        total = F(-0.0)
        for i in range(lo, lo + n):
            total += a[i]
        return total
    r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
    r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
    stop = lo + n - n % 8
    i = lo + 8
    while i < stop:
        r0 += a[i]
        r1 += a[i + 1]
        r2 += a[i + 2]
        r3 += a[i + 3]
        r4 += a[i + 4]
        r5 += a[i + 5]
        r6 += a[i + 6]
        r7 += a[i + 7]
        i += 8
    total = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < lo + n:
        total += a[i]
        i += 1
    return total


# Longer runs are halved at a multiple of 8 and the halves summed the same way. numba caches no recursive
# function on disk, so the recursion is written out as levels: a run needing more than PAIRWISE_LEVELS
# halvings (rows longer than about 2000) is left to NumPy (`pairwise_levels`).
PAIRWISE_LEVELS = 4


def _split(n):
    half = n // 2
    return half - half % 8


def _pairwise_1(a, lo, n):
    if n <= _PAIRWISE_BLOCK:
        return _pairwise_block(a, lo, n)
    half = _split(n)
    return _pairwise_block(a, lo, half) + _pairwise_block(a, lo + half, n - half)


def _pairwise_2(a, lo, n):
    if n <= _PAIRWISE_BLOCK:
        return _pairwise_block(a, lo, n)
    half = _split(n)
    return _pairwise_1(a, lo, half) + _pairwise_1(a, lo + half, n - half)


def _pairwise_3(a, lo, n):
    if n <= _PAIRWISE_BLOCK:
        return _pairwise_block(a, lo, n)
    half = _split(n)
    return _pairwise_2(a, lo, half) + _pairwise_2(a, lo + half, n - half)


def _pairwise(a, lo, n):
    """sum(a[lo:lo + n]) as NumPy's float32 pairwise summation adds it (n within PAIRWISE_LEVELS)."""
    if n <= _PAIRWISE_BLOCK:
        return _pairwise_block(a, lo, n)
    half = _split(n)
    return _pairwise_3(a, lo, half) + _pairwise_3(a, lo + half, n - half)


def pairwise_levels(n):
    """How many halvings NumPy's pairwise summation makes on a run of n values."""
    if n <= _PAIRWISE_BLOCK:
        return 0
    half = _split(n)
    return 1 + max(pairwise_levels(half), pairwise_levels(n - half))


def _expf(v):
    """NumPy's SIMD float32 exp of v (see the constants above); select-only, so that loops vectorise."""
    over = v >= X_MAX
    under = v <= X_MIN
    x = ZERO if (over or under) else v
    k = F(F(x * LOG2E) + RINT_MAGIC) - RINT_MAGIC
    r = _fma(k, LN2_HIGH, x)
    r = _fma(k, LN2_LOW, r)
    r = _fma(k, ZERO, r)
    p0, p1, p2, p3, p4, p5 = EXP_P
    q0, q1, q2 = EXP_Q
    num = _fma(_fma(_fma(_fma(_fma(p5, r, p4), r, p3), r, p2), r, p1), r, p0)
    den = _fma(_fma(q2, r, q1), r, q0)
    poly = num / den
    exponent = np.int32(k)
    subnormal = exponent <= np.int32(-125)
    scaled = _as_float(_as_int(poly) + ((np.int32(-125) if subnormal else exponent) << np.int32(23)))
    shift = np.int32(-125) - exponent if subnormal else np.int32(0)
    result = scaled / _as_float((np.int32(127) + shift) << np.int32(23)) if subnormal else scaled
    result = INF if over else result
    return ZERO if under else result


def _exp_loop(x, out):
    for i in range(x.size):
        out[i] = _expf(x[i])


def _softmax_rows_fused(x, out):
    """out = exp(x - max(x)) / sum(...) row by row in one pass per row; False if a row holds NaN or its
    max is infinite."""
    n = x.shape[1]
    for r in range(x.shape[0]):
        row = x[r]
        top = row[0]
        for j in range(n):
            v = row[j]
            if v != v:
                return False
            if v > top:
                top = v
        if not np.isfinite(top):
            return False
        target = out[r]
        for j in range(n):
            target[j] = _expf(row[j] - top)
        total = F(0.0) + _pairwise(target, 0, n)
        for j in range(n):
            target[j] = target[j] / total
    return True


# The row-max loop is written out again here: a helper shared with _softmax_rows_fused measured 3-9 %
# slower as a call and ~25 % inlined (numba compiled the row loops differently).
def _shift_rows(x, out):
    """out = x - max(x) row by row; False if a row holds NaN or its max is infinite."""
    n = x.shape[1]
    for r in range(x.shape[0]):
        row = x[r]
        top = row[0]
        for j in range(n):
            v = row[j]
            if v != v:
                return False
            if v > top:
                top = v
        if not np.isfinite(top):
            return False
        target = out[r]
        for j in range(n):
            target[j] = row[j] - top
    return True


def _normalise_rows(e):
    """e /= sum(e) row by row, in place (e holds exp(x - max): finite, each row's sum at least 1)."""
    n = e.shape[1]
    for r in range(e.shape[0]):
        row = e[r]
        total = F(0.0) + _pairwise(row, 0, n)      # the reduction starts from +0.0
        for j in range(n):
            row[j] = row[j] / total
    return True


def _softmax_grad_rows(y, grad, out):
    """out = (grad - sum(grad * y)) * y row by row; False if a row's sum is not finite (NaN or infinite
    values among its inputs)."""
    n = y.shape[1]
    for r in range(y.shape[0]):
        target, y_row, g_row = out[r], y[r], grad[r]
        for j in range(n):
            target[j] = g_row[j] * y_row[j]
        total = F(0.0) + _pairwise(target, 0, n)
        if not np.isfinite(total):
            return False
        for j in range(n):
            target[j] = (g_row[j] - total) * y_row[j]
    return True


def _intrinsics(numba):
    """float32 fused multiply-add (LLVM's fma: one rounding, as the FMA instruction) and float32 <-> int32
    bit casts, which numba has no scalar form of."""
    from llvmlite import ir
    types = numba.core.types
    intrinsic = numba.core.extending.intrinsic

    @intrinsic
    def fma(typingctx, a, b, c):
        def codegen(context, builder, signature, args):
            return builder.fma(*args)
        return types.float32(types.float32, types.float32, types.float32), codegen

    @intrinsic
    def as_int(typingctx, a):
        def codegen(context, builder, signature, args):
            return builder.bitcast(args[0], ir.IntType(32))
        return types.int32(types.float32), codegen

    @intrinsic
    def as_float(typingctx, a):
        def codegen(context, builder, signature, args):
            return builder.bitcast(args[0], ir.FloatType())
        return types.float32(types.int32), codegen
    return {"_fma": fma, "_as_int": as_int, "_as_float": as_float}


def _exp_samples():
    """Inputs covering every region of the exp kernel: zero, tiny, the rounding of k, subnormal results,
    the X_MIN/X_MAX bounds and beyond, and a dense sweep of bit patterns over [-104, 89]."""
    special = np.array([0.0, -0.0, 1e-30, -1e-30, 0.5, -0.5, 88.7, 88.72283935546875, 88.8, -87.3, -100.0,
                        -103.97208404541015625, -103.98, -200.0, -np.inf, np.inf], F)
    low, high = np.float32(-104.0).view(np.int32), np.float32(89.0).view(np.int32)
    negative = np.arange(0, low - np.int32(-2 ** 31) + 1, 997, dtype=np.int64).astype(np.uint32) | np.uint32(1 << 31)
    positive = np.arange(0, high + 1, 997, dtype=np.int64).astype(np.uint32)
    return np.concatenate([special, negative.view(F), positive.view(F)])


def _compile(numba):
    namespace = dict(_pairwise.__globals__)
    namespace.update(_intrinsics(numba))
    for helper in (_split, _pairwise_block, _pairwise_1, _pairwise_2, _pairwise_3, _pairwise):
        namespace[helper.__name__] = numba.njit(cache=True)(type(helper)(helper.__code__, namespace, helper.__name__))
    namespace["_expf"] = numba.njit(inline="always", error_model="numpy")(
        type(_expf)(_expf.__code__, namespace, "_expf"))
    rows = numba.float32[:, ::1]
    vector = numba.float32[::1]
    loops = []
    for fn, signature in ((_shift_rows, (rows, rows)), (_normalise_rows, (rows,)),
                          (_softmax_grad_rows, (rows, rows, rows)), (_softmax_rows_fused, (rows, rows)),
                          (_exp_loop, (vector, vector))):
        compiled = numba.njit(nogil=True, error_model="numpy", cache=True)(
            type(fn)(fn.__code__, namespace, fn.__name__))
        compiled.compile(signature)
        loops.append(compiled)
    samples = _exp_samples()
    mine = np.empty_like(samples)
    loops[4](samples, mine)
    with np.errstate(over="ignore", under="ignore"):
        numpy_exp = np.exp(samples)
    fused = loops[3] if np.array_equal(mine.view(np.uint32), numpy_exp.view(np.uint32)) else None
    return (loops[0], loops[1], loops[2], fused)


def softmax_loops(*arrays):
    """(shift, normalise, gradient, fused softmax or None) compiled loops when every array is a
    C-contiguous float32 matrix, or None (numba missing, the op not hot yet, or other arrays). The fused
    softmax is None where `_expf` does not reproduce this process's np.exp (another NumPy kernel)."""
    for a in arrays:
        if a.dtype != F or a.ndim != 2 or not a.flags.c_contiguous:
            return None
    if pairwise_levels(arrays[0].shape[1]) > PAIRWISE_LEVELS:
        return None
    return jit.when_hot("softmax_rows", _compile, HOT_CALLS, arrays[0].size)
