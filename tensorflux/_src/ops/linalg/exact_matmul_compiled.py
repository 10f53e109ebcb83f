"""The loops of `exact_matmul.py` for numba: every output element's chain over k, one element at a time,
with the same roundings (float32 adds and multiplies for unfused steps; exact fused steps through float64),
compiled without fast-math so that LLVM neither fuses nor reorders them. Bit-equal to the NumPy form,
which the tests check.

Operands are C-contiguous float32 matrices a [M, K] and b [K, N]; each output row is computed with k
outside and the columns inside, so that independent chains overlap.
"""
import numpy as np

__all__ = ["build"]

def _fma(a, b, c):
    """round_to_float32(a * b + c) with one rounding, for float32 a, b, c. The product is exact in
    float64; the float64 sum rounds to float32 correctly unless it sits exactly on a float32 midpoint,
    where the sign of the sum's exact error (TwoSum) breaks the tie."""
    p = np.float64(a) * np.float64(b)
    c64 = np.float64(c)
    s = p + c64
    r = np.float32(s)
    r64 = np.float64(r)
    if r64 == s:
        return r
    other = np.float32(2.0 * s - r64)          # the neighbour across s when s is a midpoint
    if (r64 + np.float64(other)) * 0.5 != s:
        return r
    v = s - p
    e = (p - (s - v)) + (c64 - v)
    if e == 0.0:
        return r                                   # a true tie: float32 conversion broke it to even
    if e > 0.0:
        return max(r, other)
    return min(r, other)


def _chain(a, b, i, j0, j1, fused, out):
    """out[i, j0:j1]: one chain over k per element, fused or not. The loop runs over k outside and j
    inside, so the chains of neighbouring elements (independent) overlap in the processor."""
    depth = a.shape[1]
    for j in range(j0, j1):
        out[i, j] = np.float32(a[i, 0] * b[0, j])
    for k in range(1, depth):
        x = a[i, k]
        for j in range(j0, j1):
            if fused:
                out[i, j] = _fma(x, b[k, j], out[i, j])
            else:
                out[i, j] = np.float32(out[i, j] + np.float32(x * b[k, j]))


def _even_odd(a, b, i, j0, j1, fused, out, odd):
    """out[i, j0:j1]: two chains (even k into out, odd k into `odd`), added, then the last odd term."""
    depth = a.shape[1]
    for j in range(j0, j1):
        out[i, j] = np.float32(a[i, 0] * b[0, j])
        odd[j] = np.float32(a[i, 1] * b[1, j])
    k = 2
    while k < depth - 1:
        x, y = a[i, k], a[i, k + 1]
        for j in range(j0, j1):
            if fused:
                out[i, j] = _fma(x, b[k, j], out[i, j])
                odd[j] = _fma(y, b[k + 1, j], odd[j])
            else:
                out[i, j] = np.float32(out[i, j] + np.float32(x * b[k, j]))
                odd[j] = np.float32(odd[j] + np.float32(y * b[k + 1, j]))
        k += 2
    for j in range(j0, j1):
        out[i, j] = np.float32(out[i, j] + odd[j])
    if depth % 2 == 1:
        x = a[i, depth - 1]
        for j in range(j0, j1):
            if fused:
                out[i, j] = _fma(x, b[depth - 1, j], out[i, j])
            else:
                out[i, j] = np.float32(out[i, j] + np.float32(x * b[depth - 1, j]))


def _tiles(a, b, row_kind, narrow_from, out):
    """Every row of out: row_kind[i] is 0 for rows of fused tiles (one fused chain, even/odd fused
    chains from column narrow_from on), 1 for a last tile of 3 rows (even/odd fused), 2 for a last
    tile of 1 or 2 rows (even/odd unfused)."""
    n = b.shape[1]
    odd = np.empty(n, np.float32)
    for i in range(a.shape[0]):
        kind = row_kind[i]
        if kind == 2:
            _even_odd(a, b, i, 0, n, False, out, odd)
        elif kind == 1:
            _even_odd(a, b, i, 0, n, True, out, odd)
        else:
            _chain(a, b, i, 0, narrow_from, True, out)
            if narrow_from < n:
                _even_odd(a, b, i, narrow_from, n, True, out, odd)


def _row_chains(a, b, block, out):
    """One row times a matrix: unfused chains over blocks of `block` terms (all of them when block
    is 0), each block's sum added to the running result."""
    depth, n = a.shape[1], b.shape[1]
    if block == 0:
        _chain(a, b, 0, 0, n, False, out)
        return
    part = np.empty(n, np.float32)
    for j in range(n):
        out[0, j] = np.float32(0.0)
    for lo in range(0, depth, block):
        hi = min(lo + block, depth)
        for j in range(n):
            part[j] = np.float32(a[0, lo] * b[lo, j])
        for k in range(lo + 1, hi):
            x = a[0, k]
            for j in range(n):
                part[j] = np.float32(part[j] + np.float32(x * b[k, j]))
        for j in range(n):
            out[0, j] = np.float32(out[0, j] + part[j])


def build(numba):
    """A builder for `jit.when_hot`: (tiles, row_chains), compiled for C-contiguous float32 matrices."""
    jit = numba.njit(nogil=True, error_model="numpy")
    fma = jit(_fma)
    chain = jit(_with(_chain, _fma=fma))
    even_odd = jit(_with(_even_odd, _fma=fma))
    tiles = jit(_with(_tiles, _chain=chain, _even_odd=even_odd))
    row_chains = jit(_with(_row_chains, _chain=chain))
    matrix = numba.float32[:, ::1]
    tiles.compile((matrix, matrix, numba.types.Array(numba.int8, 1, "C", readonly=True), numba.int64, matrix))
    row_chains.compile((matrix, matrix, numba.int64, matrix))
    return tiles, row_chains


def _with(fn, **helpers):
    """`fn` re-bound to a globals dict where the named helpers are the compiled ones (numba resolves
    global functions at compile time)."""
    import types
    namespace = dict(fn.__globals__, **helpers)
    return types.FunctionType(fn.__code__, namespace, fn.__name__, fn.__defaults__)
