"""`eigen_sum`'s row and column reducers as numba loops (`[jit]`), used once sums are hot.

The same float32 additions in the same order as the NumPy form: 32 lane sums over the blocks of 32, the
lanes combined ((a0 + a1) + a2) + a3, the packets left over, the fold (l0+l4 + l2+l6) + (l1+l5 + l3+l7)
and the running sum of the last n % 8 values. Compiled without fast-math, LLVM may vectorise across the
independent lanes but never reassociates a lane's additions, so the bits are the NumPy form's (tested).
The NumPy form pays a dozen array operations per call, or one per block of 32 on many short rows; this
loop runs at memory speed.
"""
import numpy as np

from .. import jit

__all__ = ["build", "build_columns", "build_small_columns"]

_F = np.float32


def leaf_rows_loop(x, out):
    # The 32 lanes are locals (LLVM keeps them in four vector registers); an array of lanes is 2-3x slower.
    rows, n = x.shape
    packed = n - n % 8
    blocked = n - n % 32
    for r in range(rows):
        a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = _F(0.0)
        a8 = a9 = a10 = a11 = a12 = a13 = a14 = a15 = _F(0.0)
        a16 = a17 = a18 = a19 = a20 = a21 = a22 = a23 = _F(0.0)
        a24 = a25 = a26 = a27 = a28 = a29 = a30 = a31 = _F(0.0)
        for s in range(0, blocked, 32):
            a0 = _F(a0 + x[r, s + 0])
            a1 = _F(a1 + x[r, s + 1])
            a2 = _F(a2 + x[r, s + 2])
            a3 = _F(a3 + x[r, s + 3])
            a4 = _F(a4 + x[r, s + 4])
            a5 = _F(a5 + x[r, s + 5])
            a6 = _F(a6 + x[r, s + 6])
            a7 = _F(a7 + x[r, s + 7])
            a8 = _F(a8 + x[r, s + 8])
            a9 = _F(a9 + x[r, s + 9])
            a10 = _F(a10 + x[r, s + 10])
            a11 = _F(a11 + x[r, s + 11])
            a12 = _F(a12 + x[r, s + 12])
            a13 = _F(a13 + x[r, s + 13])
            a14 = _F(a14 + x[r, s + 14])
            a15 = _F(a15 + x[r, s + 15])
            a16 = _F(a16 + x[r, s + 16])
            a17 = _F(a17 + x[r, s + 17])
            a18 = _F(a18 + x[r, s + 18])
            a19 = _F(a19 + x[r, s + 19])
            a20 = _F(a20 + x[r, s + 20])
            a21 = _F(a21 + x[r, s + 21])
            a22 = _F(a22 + x[r, s + 22])
            a23 = _F(a23 + x[r, s + 23])
            a24 = _F(a24 + x[r, s + 24])
            a25 = _F(a25 + x[r, s + 25])
            a26 = _F(a26 + x[r, s + 26])
            a27 = _F(a27 + x[r, s + 27])
            a28 = _F(a28 + x[r, s + 28])
            a29 = _F(a29 + x[r, s + 29])
            a30 = _F(a30 + x[r, s + 30])
            a31 = _F(a31 + x[r, s + 31])
        b0 = _F(_F(_F(a0 + a8) + a16) + a24)
        b1 = _F(_F(_F(a1 + a9) + a17) + a25)
        b2 = _F(_F(_F(a2 + a10) + a18) + a26)
        b3 = _F(_F(_F(a3 + a11) + a19) + a27)
        b4 = _F(_F(_F(a4 + a12) + a20) + a28)
        b5 = _F(_F(_F(a5 + a13) + a21) + a29)
        b6 = _F(_F(_F(a6 + a14) + a22) + a30)
        b7 = _F(_F(_F(a7 + a15) + a23) + a31)
        for s in range(blocked, packed, 8):
            b0 = _F(b0 + x[r, s + 0])
            b1 = _F(b1 + x[r, s + 1])
            b2 = _F(b2 + x[r, s + 2])
            b3 = _F(b3 + x[r, s + 3])
            b4 = _F(b4 + x[r, s + 4])
            b5 = _F(b5 + x[r, s + 5])
            b6 = _F(b6 + x[r, s + 6])
            b7 = _F(b7 + x[r, s + 7])
        folded = _F(_F(_F(b0 + b4) + _F(b2 + b6)) + _F(_F(b1 + b5) + _F(b3 + b7)))
        tail = _F(0.0)
        for i in range(packed, n):
            tail = _F(tail + x[r, i])
        out[r] = _F(tail + folded)


def columns_loop(x, out):
    """x: (outer, rows, inner) -> out (outer, inner): `eigen_sum._sum_columns`, output by output. Packed
    outputs come from the four accumulators alone; only the others take the running sum (each output's
    additions are the same whichever loop computes them)."""
    outer, rows, inner = x.shape
    unrolled = rows - rows % 4
    size = outer * inner
    four = rows >= 16 and inner >= 8
    acc = np.zeros((4, inner), _F)
    for o in range(outer):
        if not four:
            for c in range(inner):
                out[o, c] = _F(0.0)
            for j in range(rows):
                for c in range(inner):
                    out[o, c] = _F(out[o, c] + x[o, j, c])
            continue
        for k in range(4):
            for c in range(inner):
                acc[k, c] = _F(0.0)
        for j in range(unrolled):
            k = j % 4
            for c in range(inner):
                acc[k, c] = _F(acc[k, c] + x[o, j, c])
        for c in range(inner):
            flat = o * inner + c
            start = flat - flat % 8
            if start + 8 <= size and start % inner + 7 < inner:
                t = _F(_F(_F(acc[0, c] + acc[1, c]) + acc[2, c]) + acc[3, c])
                for j in range(unrolled, rows):
                    t = _F(t + x[o, j, c])
            else:
                t = _F(0.0)
                for j in range(rows):
                    t = _F(t + x[o, j, c])
            out[o, c] = t


def build(numba):
    """A builder for `jit.when_hot`: `leaf_rows_loop(x, out)` for C-contiguous float32 rows."""
    compiled = numba.njit(nogil=True, error_model="numpy")(leaf_rows_loop)
    compiled.compile((numba.float32[:, ::1], numba.float32[::1]))
    return compiled


def build_columns(numba):
    """A builder for `jit.when_hot`: `columns_loop(x, out)`, x (outer, rows, inner) C-contiguous."""
    compiled = numba.njit(nogil=True, error_model="numpy")(columns_loop)
    compiled.compile((numba.float32[:, :, ::1], numba.float32[:, ::1]))
    return compiled


def small_columns_loop(x, out):
    """`columns_loop`, then whether any output is NaN. Where two different NaNs meet, which one an addition
    keeps depends on its operand order, which LLVM may commute and NumPy's SIMD and remainder loops pick
    differently (TensorFlow 2.21 agrees with the NumPy form on the cases checked): the caller recomputes a
    NaN-bearing result with the NumPy form. Every other output is exactly the NumPy form's (same additions
    in the same order; a non-NaN sum does not depend on operand order)."""
    columns_loop(x, out)
    outer, inner = out.shape
    for o in range(outer):
        for c in range(inner):
            if out[o, c] != out[o, c]:
                return True
    return False


def build_small_columns(numba):
    """A builder for `jit.HotOnSmall`: the entry point of `small_columns_loop` for (outer, rows, inner)
    C-contiguous float32 arrays, cached on disk (it inlines nothing from other files). It skips the
    dispatcher's type checks, so callers pass exactly that layout."""
    loop = numba.njit(nogil=True, error_model="numpy", cache=True)(columns_loop)
    namespace = dict(small_columns_loop.__globals__, columns_loop=loop)
    fn = type(small_columns_loop)(small_columns_loop.__code__, namespace, "small_columns_loop")
    compiled = numba.njit(nogil=True, error_model="numpy", cache=True)(fn)
    return jit.entry_point(compiled, (numba.float32[:, :, ::1], numba.float32[:, ::1]))
