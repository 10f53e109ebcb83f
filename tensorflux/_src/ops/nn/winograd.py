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

The transforms are tight loops over channels, compiled by numba (the optional `jit` extra) once big
convolutions are used repeatedly; before that, or without numba, `preferred()` is False and conv2d
keeps its im2col path. conv2d also keeps im2col for inputs
holding inf or NaN: the transforms would mix them into neighbouring outputs (inf - inf = NaN).
The tile-row chunks are independent and the compiled transforms release the GIL, so when another core
is free (blas_threads.usable_workers) they are shared out over threads, a chunk at a time.
"""
import threading

import numpy as np

from .. import jit
from ..linalg import blas_threads

__all__ = ["preferred", "conv2d_3x3"]

_CHUNK_BYTES = 4 << 20      # transformed tiles (and their products) per chunk: fits in L2/L3 together
_MIN_CHUNKS = 6
# Measured on 2 cores (im2col → Winograd): [1,200,200,100]→100 37 → 19 ms; [1,56,56,32]→32 0.73 →
# 0.36 ms; [2,32,32,32]→32 0.50 → 0.25 ms; [4,64,64,16]→16 1.6 → 1.8 ms (too few channels: the per-tile
# loops are short); [1,14,14,256]→256 1.0 → 1.5 ms and [1,7,7,512]→512 1.4 → 6.6 ms (too few tiles:
# the 16 transformed filters, 16/9 the size of the filter, dominate). Against im2col copied and multiplied
# by blocks of images (conv.py), CPU time in one process on the loaded machine: [128,13,13,32]→64 (the
# keras-io MNIST convnet's second layer) 15.8 → 20.5 ms, [1,56,56,32]→32 2.24 → 2.28 ms: with 32
# channels the transforms cost what the saved products gain; [16,28,28,64]→64 21.7 → 19.6 ms,
# [32,16,16,128]→128 40.8 → 32.6 ms, [1,200,200,100]→100 217 → 124 ms.
MIN_CHANNELS = 64
MIN_MACS = 1 << 21          # output pixels · C · O
MIN_PIXELS_PER_CHANNEL = 8  # output pixels per max(C, O)
HOT_CALLS = 3               # a convolution called once or twice is not worth compiling for
_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def preferred(pixels, channels_in, channels_out, dtype):
    """Whether conv2d_3x3 should replace im2col for a 3×3 stride-1 ungrouped convolution. False for
    the first HOT_CALLS - 1 such convolutions; the next one compiles the transforms (see `jit`)."""
    return (min(channels_in, channels_out) >= MIN_CHANNELS and pixels * channels_in * channels_out >= MIN_MACS
            and pixels >= MIN_PIXELS_PER_CHANNEL * max(channels_in, channels_out)
            and dtype in _DTYPES and kernels() is not None)


def kernels(now=False):
    """(input_tiles, output_blocks) compiled for float32 and float64, or None when numba is not
    installed or (unless `now`) while big convolutions have not been asked for often enough yet."""
    if now:
        return jit.build_now("winograd", _compile)
    return jit.when_hot("winograd", _compile, HOT_CALLS)


def _compile(numba):
    """Both transforms, compiled ahead for exactly the argument types conv2d_3x3 passes (C-contiguous
    arrays, int64 indices), so that no later call compiles again."""
    input_tiles = numba.njit(nogil=True, cache=True)(_input_tiles)
    output_blocks = numba.njit(nogil=True, cache=True)(_output_blocks)
    i64 = numba.int64
    for t in (numba.float32, numba.float64):
        input_tiles.compile((t[:, :, :, ::1], i64, i64, i64, i64, t[:, :, ::1], numba.intp[:, ::1], t[:, ::1]))
        output_blocks.compile((t[:, :, ::1], i64, i64, i64, i64, t[:, :, :, ::1]))
    return input_tiles, output_blocks


# Bᵀ's rows (1, 0, -1, 0), (0, 1, 1, 0), (0, -1, 1, 0), (0, 1, 0, -1) each combine two input rows:
# (first, second, sign of the second).
_B_ROWS = ((0, 2, -1), (1, 2, 1), (2, 1, -1), (1, 3, -1))
# V[i][j] = (d[a][b] + sj·d[a][b']) + si·(d[a'][b] + sj·d[a'][b']) for (a, a', si) = row i, (b, b', sj) = row j.
_V_TAPS = np.array([(a, b, a2, b2) for a, a2, _ in _B_ROWS for b, b2, _ in _B_ROWS], np.intp)
_V_SIGNS = np.array([(si, sj) for _, _, si in _B_ROWS for _, _, sj in _B_ROWS])


def _input_tiles(xp, r0, r1, th, tw, v, taps, signs):
    """V = Bᵀ d B for tile rows [r0, r1) of the padded NHWC input xp, into v[16, tiles, C].

    Each channel loop stores one unit-stride stream from four loaded ones: few enough pointers for
    LLVM to check their overlap at run time and vectorize (one loop over all 16 outputs defeats it).
    The signs are ±1 in the data's dtype, so the arithmetic stays in that dtype and exact."""
    channels = xp.shape[3]
    for rr in range(r1 - r0):
        r = r0 + rr
        n = r // th
        y = 2 * (r % th)
        for tx in range(tw):
            x = 2 * tx
            t = rr * tw + tx
            for k in range(16):
                p = xp[n, y + taps[k, 0], x + taps[k, 1]]
                q = xp[n, y + taps[k, 0], x + taps[k, 3]]
                s = xp[n, y + taps[k, 2], x + taps[k, 1]]
                z = xp[n, y + taps[k, 2], x + taps[k, 3]]
                si, sj = signs[k, 0], signs[k, 1]
                out = v[k, t]
                for c in range(channels):
                    out[c] = (p[c] + sj * q[c]) + si * (s[c] + sj * z[c])


def _output_blocks(m, r0, r1, th, tw, out):
    """Y = Aᵀ M A for tile rows [r0, r1), each tile's 2×2 block written into out[N, OH, OW, O]
    (the last row/column of blocks is cut when OH/OW is odd). The rows of Aᵀ are (1, 1, 1, 0) and
    (0, 1, -1, -1): row 0 sums entries 0, 1, 2 and row 1 is entry 1 - (entry 2 + entry 3). The row
    step goes through a scratch of 8 channel vectors."""
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
                s0, s1, m0, m1, m2, m3 = s[j], s[4 + j], m[j, t], m[4 + j, t], m[8 + j, t], m[12 + j, t]
                for o in range(channels):
                    s0[o] = m0[o] + (m1[o] + m2[o])
                for o in range(channels):
                    s1[o] = m1[o] - (m2[o] + m3[o])
            for i in range(2):
                if oy + i < oh:
                    row = out[n, oy + i]
                    a0, a1, a2, a3 = s[4 * i], s[4 * i + 1], s[4 * i + 2], s[4 * i + 3]
                    y0 = row[ox]
                    for o in range(channels):
                        y0[o] = a0[o] + (a1[o] + a2[o])
                    if ox + 1 < ow:
                        y1 = row[ox + 1]
                        for o in range(channels):
                            y1[o] = a1[o] - (a2[o] + a3[o])


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
    compiled = kernels(now=True)
    if compiled is None:
        raise RuntimeError("Winograd convolution needs numba (pip install tensorflux[jit])")
    input_tiles, output_blocks = compiled
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
    signs = _V_SIGNS.astype(x.dtype)
    chunk_rows = max(1, _CHUNK_BYTES // (16 * max(c, cout) * x.itemsize * tw))
    total = n * th
    # At least _MIN_CHUNKS chunks, shared out over threads when a core is free: three per thread, so
    # that a descheduled one holds back little. The chunking depends on the shapes only (never on the
    # load), so results are the same bits whichever threads ran them.
    chunk_rows = max(1, min(chunk_rows, -(-total // _MIN_CHUNKS)))
    workers = blas_threads.usable_workers()
    chunks = [(r0, min(total, r0 + chunk_rows)) for r0 in range(0, total, chunk_rows)]
    buffers = threading.local()

    def run_chunk(index):
        r0, r1 = chunks[index]
        k = (r1 - r0) * tw
        if getattr(buffers, "v", None) is None:   # each thread's own contiguous buffers, reused across its chunks
            buffers.v = np.empty(16 * chunk_rows * tw * c, x.dtype)
            buffers.m = np.empty(16 * chunk_rows * tw * cout, x.dtype)
        # contiguous chunks (not slices of one [16, tiles, C] array): the loops rely on unit strides
        v = buffers.v[:16 * k * c].reshape(16, k, c)
        m = buffers.m[:16 * k * cout].reshape(16, k, cout)
        input_tiles(xp, r0, r1, th, tw, v, _V_TAPS, signs)
        np.matmul(v, u, out=m)
        output_blocks(m, r0, r1, th, tw, out)
    if workers > 1:
        blas_threads.run_blocks(run_chunk, len(chunks))
    else:
        for i in range(len(chunks)):
            run_chunk(i)
    return out
