"""3×3 stride-1 convolution by Winograd's minimal filtering F(2×2, 3×3), for conv2d's big cases.

im2col + one GEMM does 9·C·O multiply-adds per output pixel and first writes a [pixels, 9·C] copy of
the input, which for a [1, 200, 200, 100] image is 144 MB of freshly faulted memory. Winograd's
F(2×2, 3×3) computes each 2×2 block of outputs from a 4×4 input tile with 16 products instead of 36:

    V = Bᵀ d B  (each 4×4 input tile d, per channel)      U = G g Gᵀ  (each 3×3 filter g, per in/out pair)
    M[k] = V[k] @ U[k]  for the 16 positions k             Y = Aᵀ M A  (each tile's 2×2 output block)

so the arithmetic is 16 GEMMs of [tiles, C] @ [C, O] — 2.25× fewer flops — and the transforms are
additions and subtractions only (Bᵀ, Aᵀ hold 0/±1; G holds 0/±½, exact in binary), which keeps the
rounding error at the level of the direct sum. The tiles are processed a few tile-rows at a time so
the transformed tiles and products stay in cache between the three steps.

The transforms are tight loops over channels, compiled by numba (the optional `jit` extra); without
numba `preferred()` is False and conv2d keeps its im2col path. conv2d also keeps im2col for inputs
holding inf or NaN: the transforms would mix them into neighbouring outputs (inf - inf = NaN).
"""
import numpy as np

from . import jit

__all__ = ["preferred", "conv2d_3x3"]

_CHUNK_BYTES = 4 << 20      # transformed tiles (and their products) per chunk: fits in L2/L3 together
# Measured on 2 cores: below these the im2col matrix stays in cache, its one GEMM is efficient, and the
# per-tile transform loops (short when channels are few) cost more than the flops Winograd saves.
# [1,200,200,100]→100: 21 ms vs 37 ms im2col; [8,32,32,64]→64: 3.0 vs 3.3 ms; [1,56,56,64]→64: 1.06 vs
# 0.93 ms; [4,64,64,16]→16: 3.3 vs 1.0 ms.
MIN_CHANNELS = 64
MIN_MACS = 1 << 27          # output pixels · C · O


def preferred(pixels, channels_in, channels_out, dtype):
    """Whether conv2d_3x3 should replace im2col for a 3×3 stride-1 ungrouped convolution."""
    return (min(channels_in, channels_out) >= MIN_CHANNELS and pixels * channels_in * channels_out >= MIN_MACS
            and dtype in _DTYPES and jit.numba_or_none() is not None)


_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


# Each loop below stores one unit-stride stream from at most four loaded ones: few enough pointers that
# LLVM checks their overlap at run time and vectorizes the loop (16 streams at once defeat it).
def _mm(dst, w, x, y, z):
    for c in range(dst.shape[0]):
        dst[c] = (w[c] - x[c]) - (y[c] - z[c])


def _mp(dst, w, x, y, z):
    for c in range(dst.shape[0]):
        dst[c] = (w[c] + x[c]) - (y[c] + z[c])


def _pm(dst, w, x, y, z):
    for c in range(dst.shape[0]):
        dst[c] = (w[c] - x[c]) + (y[c] - z[c])


def _pp(dst, w, x, y, z):
    for c in range(dst.shape[0]):
        dst[c] = (w[c] + x[c]) + (y[c] + z[c])


def _add3(dst, x, y, z):
    for c in range(dst.shape[0]):
        dst[c] = x[c] + y[c] + z[c]


def _sub3(dst, x, y, z):
    for c in range(dst.shape[0]):
        dst[c] = x[c] - y[c] - z[c]


def _input_tiles(xp, r0, r1, th, tw, v, mm, mp, pm, pp):
    """V = Bᵀ d B for tile rows [r0, r1) of the padded NHWC input xp, into v[16, tiles, C].

    The rows of Bᵀ are (1, 0, -1, 0), (0, 1, 1, 0), (0, -1, 1, 0), (0, 1, 0, -1): each pairs two input
    rows with a sign, so V[i][j] = (d[a][b] ± d[a][b']) ± (d[a'][b] ± d[a'][b']) with (a, a', ±) from
    row i of Bᵀ and (b, b', ±) from row j."""
    for rr in range(r1 - r0):
        r = r0 + rr
        n = r // th
        y = 2 * (r % th)
        for tx in range(tw):
            x = 2 * tx
            t = rr * tw + tx
            d00, d01, d02, d03 = xp[n, y, x], xp[n, y, x + 1], xp[n, y, x + 2], xp[n, y, x + 3]
            d10, d11, d12, d13 = xp[n, y + 1, x], xp[n, y + 1, x + 1], xp[n, y + 1, x + 2], xp[n, y + 1, x + 3]
            d20, d21, d22, d23 = xp[n, y + 2, x], xp[n, y + 2, x + 1], xp[n, y + 2, x + 2], xp[n, y + 2, x + 3]
            d30, d31, d32, d33 = xp[n, y + 3, x], xp[n, y + 3, x + 1], xp[n, y + 3, x + 2], xp[n, y + 3, x + 3]
            mm(v[0, t], d00, d02, d20, d22)
            mp(v[1, t], d01, d02, d21, d22)
            mm(v[2, t], d02, d01, d22, d21)
            mm(v[3, t], d01, d03, d21, d23)
            pm(v[4, t], d10, d12, d20, d22)
            pp(v[5, t], d11, d12, d21, d22)
            pm(v[6, t], d12, d11, d22, d21)
            pm(v[7, t], d11, d13, d21, d23)
            mm(v[8, t], d20, d22, d10, d12)
            mp(v[9, t], d21, d22, d11, d12)
            mm(v[10, t], d22, d21, d12, d11)
            mm(v[11, t], d21, d23, d11, d13)
            mm(v[12, t], d10, d12, d30, d32)
            mp(v[13, t], d11, d12, d31, d32)
            mm(v[14, t], d12, d11, d32, d31)
            mm(v[15, t], d11, d13, d31, d33)


def _output_blocks(m, r0, r1, th, tw, out, add3, sub3):
    """Y = Aᵀ M A for tile rows [r0, r1), each tile's 2×2 block written into out[N, OH, OW, O]
    (the last row/column of blocks is cut when OH/OW is odd). The rows of Aᵀ are (1, 1, 1, 0) and
    (0, 1, -1, -1); the row step goes through a scratch of 8 channel vectors."""
    _, oh, ow, channels = out.shape
    s = np.empty((8, channels), out.dtype)
    for rr in range(r1 - r0):
        r = r0 + rr
        n = r // th
        oy = 2 * (r % th)
        for tx in range(tw):
            ox = 2 * tx
            t = rr * tw + tx
            for j in range(4):
                add3(s[j], m[j, t], m[4 + j, t], m[8 + j, t])
                sub3(s[4 + j], m[4 + j, t], m[8 + j, t], m[12 + j, t])
            add3(out[n, oy, ox], s[0], s[1], s[2])
            if ox + 1 < ow:
                sub3(out[n, oy, ox + 1], s[1], s[2], s[3])
            if oy + 1 < oh:
                add3(out[n, oy + 1, ox], s[4], s[5], s[6])
                if ox + 1 < ow:
                    sub3(out[n, oy + 1, ox + 1], s[5], s[6], s[7])


def _filter_tiles(w):
    """U = G g Gᵀ for a [3, 3, C, O] filter, as [16, C, O]; G's rows are (1, 0, 0), (½, ½, ½),
    (½, -½, ½), (0, 0, 1)."""
    def g_rows(a, axis):
        g0, g1, g2 = np.moveaxis(a, axis, 0)
        return np.stack([g0, (g0 + g1 + g2) * 0.5, (g0 - g1 + g2) * 0.5, g2], axis=axis)
    u = g_rows(g_rows(w, 0), 1)
    return u.reshape(16, w.shape[2], w.shape[3])


def conv2d_3x3(x, w, pads):
    """VALID 3×3 stride-1 convolution of NHWC `x` (float32/float64) padded by
    pads = ((top, bottom), (left, right)), with filter `w` [3, 3, C, O] of the same dtype."""
    input_tiles, output_blocks = jit.compiled(_input_tiles), jit.compiled(_output_blocks)
    mm, mp, pm, pp, add3, sub3 = (jit.compiled(f) for f in (_mm, _mp, _pm, _pp, _add3, _sub3))
    n, h, wd, c = x.shape
    (top, bottom), (left, right) = pads
    oh, ow = h + top + bottom - 2, wd + left + right - 2
    cout = w.shape[3]
    out = np.empty((n, oh, ow, cout), x.dtype)
    if out.size == 0:
        return out
    if c == 0:
        out.fill(0)
        return out
    th, tw = (oh + 1) // 2, (ow + 1) // 2
    # The tile grid covers 2·th+2 rows and 2·tw+2 columns; whatever the padding leaves over is zero.
    xp = np.zeros((n, 2 * th + 2, 2 * tw + 2, c), x.dtype)
    xp[:, top:top + h, left:left + wd] = x
    u = _filter_tiles(w)
    chunk_rows = max(1, _CHUNK_BYTES // (16 * max(c, cout) * x.itemsize * tw))
    total = n * th
    tiles = min(chunk_rows, total) * tw
    v_buffer = np.empty(16 * tiles * c, x.dtype)
    m_buffer = np.empty(16 * tiles * cout, x.dtype)
    for r0 in range(0, total, chunk_rows):
        r1 = min(total, r0 + chunk_rows)
        k = (r1 - r0) * tw
        # contiguous chunks (not slices of one [16, tiles, C] array): the loops rely on unit strides
        v = v_buffer[:16 * k * c].reshape(16, k, c)
        m = m_buffer[:16 * k * cout].reshape(16, k, cout)
        input_tiles(xp, r0, r1, th, tw, v, mm, mp, pm, pp)
        np.matmul(v, u, out=m)
        output_blocks(m, r0, r1, th, tw, out, add3, sub3)
    return out
