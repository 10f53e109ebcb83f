"""MaxPool and MaxPoolGrad for NHWC 2-D pooling as one compiled pass each (numba, the optional `jit`
extra).

The NumPy path in pooling.py finds each window's maximum tap by tap over whole arrays: for a 2×2
pool that is four rounds of compare / and / where / strided add over the input, about 24 ms for a
[128, 26, 26, 32] batch. The compiled loop reads each input once, walks every window's taps in
row-major order and gives the gradient to the first one equal to the pooled value (TensorFlow's CPU
choice), with the channel loop innermost so that it vectorises: about 4 ms. The forward pass likewise
reads each window once per output instead of a strided pass per tap (4.7 -> ~1.5 ms); NaN wins a window
as it does in np.maximum. Built once the ops are hot (see `jit.when_hot`); until then, and without
numba, pooling.py keeps its NumPy path.

Images are independent, so a big batch is cut into blocks of images shared out over the worker threads
(`blas_threads.run_blocks`; the loops release the GIL). Each block also zeroes its own part of the
gradient, so that the zeros are still in cache when the loop adds into them. Every element is computed
by the same loop whatever the blocks, so the bits never depend on the threads.
"""
import numpy as np

from .. import jit
from ..linalg import blas_threads

__all__ = ["max_pool_2d", "max_pool_grad_2d"]

HOT_CALLS = 3
MIN_BLOCKED_ELEMENTS = 1 << 18     # below this many input elements a thread hand-over costs more than it saves
_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _max_pool_grad_loop(x, y, dy, kh, kw, sh, sw, top, left, dx, claimed):
    """dx[n, i, j, c] += dy[n, oy, ox, c] for the first tap (i, j) of window (oy, ox) with x == y."""
    n_batch, h, w, channels = x.shape
    _, oh, ow, _ = y.shape
    zero = dx.dtype.type(0)
    for n in range(n_batch):
        for oy in range(oh):
            for ox in range(ow):
                yv, gv = y[n, oy, ox], dy[n, oy, ox]
                for c in range(channels):
                    claimed[c] = False
                for i in range(kh):
                    row = oy * sh - top + i
                    if row < 0 or row >= h:
                        continue
                    for j in range(kw):
                        col = ox * sw - left + j
                        if col < 0 or col >= w:
                            continue
                        xv, dv = x[n, row, col], dx[n, row, col]
                        for c in range(channels):   # branch-free, so that it vectorises
                            take = (xv[c] == yv[c]) & (not claimed[c])
                            dv[c] += gv[c] if take else zero   # a select: inf * False would be NaN
                            claimed[c] |= take


def _tiled_max_pool_grad_loop(x, y, dy, kh, kw, dx, claimed):
    """_max_pool_grad_loop for windows that tile the input (stride = window, all inside x): each input
    position is in at most one window, so it is written once -- no zero-fill first, no read-add-write --
    and the rows and columns no window covers get zeros."""
    n_batch, h, w, channels = x.shape
    _, oh, ow, _ = y.shape
    zero = dx.dtype.type(0)
    for n in range(n_batch):
        for oy in range(oh):
            for ox in range(ow):
                for c in range(channels):
                    claimed[c] = False
                for i in range(kh):
                    row = oy * kh + i
                    for j in range(kw):
                        col = ox * kw + j
                        for c in range(channels):   # branch-free, so that it vectorises
                            take = (x[n, row, col, c] == y[n, oy, ox, c]) & (not claimed[c])
                            dx[n, row, col, c] = dy[n, oy, ox, c] if take else zero
                            claimed[c] |= take
        for row in range(h):
            for col in range(w):
                if row >= oh * kh or col >= ow * kw:
                    for c in range(channels):
                        dx[n, row, col, c] = zero


def _max_pool_loop(x, kh, kw, sh, sw, top, left, out):
    """out[n, oy, ox, c] = the maximum of window (oy, ox) of x (taps outside x left out)."""
    n_batch, h, w, channels = x.shape
    _, oh, ow, _ = out.shape
    for n in range(n_batch):
        for oy in range(oh):
            for ox in range(ow):
                best = out[n, oy, ox]
                first = True
                for i in range(kh):
                    row = oy * sh - top + i
                    if row < 0 or row >= h:
                        continue
                    for j in range(kw):
                        col = ox * sw - left + j
                        if col < 0 or col >= w:
                            continue
                        xv = x[n, row, col]
                        if first:
                            for c in range(channels):
                                best[c] = xv[c]
                            first = False
                        else:
                            for c in range(channels):
                                v = xv[c]
                                best[c] = v if (v > best[c] or v != v) else best[c]   # a NaN stays
                if first:       # a window wholly in explicit padding: the padding's -inf
                    for c in range(channels):
                        best[c] = -np.inf


def _compile_forward(numba):
    loop = numba.njit(nogil=True, cache=True)(_max_pool_loop)
    i64 = numba.int64
    for t in (numba.float32, numba.float64):
        loop.compile((t[:, :, :, ::1], i64, i64, i64, i64, i64, i64, t[:, :, :, ::1]))
    return loop


def max_pool_2d(x, kernel, strides, pads, out_sizes):
    """The 2-D NHWC max pool of `x` into [N, *out_sizes, C], or None when the compiled loop does not
    apply (yet): numba missing or the op not hot yet, a dtype other than float32/float64."""
    if not (x.dtype in _DTYPES and x.ndim == 4):
        return None
    loop = jit.when_hot("max_pool_2d", _compile_forward, HOT_CALLS)
    if loop is None:
        return None
    x = np.ascontiguousarray(x)
    out = np.empty((x.shape[0],) + tuple(out_sizes) + (x.shape[-1],), x.dtype)

    def run_block(lo, hi):
        loop(x[lo:hi], kernel[0], kernel[1], strides[0], strides[1], pads[0], pads[1], out[lo:hi])
    _by_images(run_block, x)
    return out


def _by_images(run_block, x):
    """run_block(first, end) over blocks of the images of x, in the worker threads when x is big."""
    n = x.shape[0]
    if x.size < MIN_BLOCKED_ELEMENTS or n < 2:
        run_block(0, n)
        return
    count = min(n, 4 * blas_threads.worker_count())
    step = -(-n // count)
    blocks = [(lo, min(n, lo + step)) for lo in range(0, n, step)]
    blas_threads.run_blocks(lambda i: run_block(*blocks[i]), len(blocks))


def _compile(numba):
    loop = numba.njit(nogil=True, cache=True)(_max_pool_grad_loop)
    tiled = numba.njit(nogil=True, cache=True)(_tiled_max_pool_grad_loop)
    i64 = numba.int64
    for t in (numba.float32, numba.float64):
        a4 = t[:, :, :, ::1]
        loop.compile((a4, a4, a4, i64, i64, i64, i64, i64, i64, a4, numba.boolean[::1]))
        tiled.compile((a4, a4, a4, i64, i64, a4, numba.boolean[::1]))
    return loop, tiled


def max_pool_grad_2d(x, y, dy, kernel, strides, pads):
    """The gradient of a 2-D NHWC max pool, or None when the compiled loop does not apply (yet):
    numba missing or the op not hot yet, a dtype other than float32/float64, mixed dtypes."""
    if not (x.dtype == y.dtype == dy.dtype and x.dtype in _DTYPES and x.ndim == 4):
        return None
    loops = jit.when_hot("max_pool_grad_2d", _compile, HOT_CALLS)
    if loops is None:
        return None
    loop, tiled = loops
    x, y, dy = (np.ascontiguousarray(a) for a in (x, y, dy))
    dx = np.empty(x.shape, x.dtype)
    # Measured (CPU, one thread, [128, 26, 26, 32] 2×2 pool): zero-fill + the general loop 3.8 ms, the
    # tiled loop 2.7 ms; [128, 11, 11, 64]: 0.58 -> 0.42 ms.
    tiles = (tuple(kernel) == tuple(strides) and tuple(pads) == (0, 0)      # every window inside x (not SAME's
             and y.shape[1] * kernel[0] <= x.shape[1] and y.shape[2] * kernel[1] <= x.shape[2])   # last, padded one)

    def run_block(lo, hi):
        if tiles:
            tiled(x[lo:hi], y[lo:hi], dy[lo:hi], kernel[0], kernel[1], dx[lo:hi], np.empty(x.shape[-1], np.bool_))
            return
        dx[lo:hi] = 0
        loop(x[lo:hi], y[lo:hi], dy[lo:hi], kernel[0], kernel[1], strides[0], strides[1], pads[0], pads[1],
             dx[lo:hi], np.empty(x.shape[-1], np.bool_))
    _by_images(run_block, x)
    return dx
