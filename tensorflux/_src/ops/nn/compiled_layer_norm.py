"""FusedLayerNorm and FusedLayerNormGrad as one compiled pass over each row (numba, the optional `jit`
extra), for float32 rows of a multiple of 8 values (the keras-io transformer's are 32 wide).

The NumPy form (normalization.py) takes each row's mean as a matrix-vector product with a ones vector
(OpenBLAS's sgemv), then makes about ten more whole-block passes (centre, square, second product, rsqrt,
scale, shift; twice that backward): on [6400, 32] rows 1.3 ms forward and 2.5 ms backward, where the
data fit in the cache many times over. Here every row is done while it is in registers, with the same
float32 operations in the same order, and the row sums in the order OpenBLAS's Haswell sgemv_t kernel
adds them (the kernel NumPy's product uses on x86-64 with AVX2): eight lanes, each summing its column
of the row's 8-wide chunks from zero, then the upper four lanes added onto the lower four and two
horizontal pair additions. That order holds for rows of a multiple of 8 (shorter chunks take other
steps first), so only those come here; the tests compare every output bit with the NumPy form.
Non-finite inputs go back to the NumPy form too (the two could disagree on which NaN comes out).
Built once the op is hot (see `jit.when_hot`); until then, and without numba, the NumPy form runs.
"""
import numpy as np

from .. import jit
from ..linalg import blas_threads as _blas

__all__ = ["layer_norm_loops"]

HOT_CALLS = 3
_WIDEST = 4096      # OpenBLAS's sgemv_t works through longer rows in pieces of this many
F = np.float32


def _row_sum(a, n, narrow):
    """The sum of a[0:n] (n a multiple of 8) in the order of OpenBLAS's Haswell sgemv_t kernels: for
    rows in groups of four, eight lanes (lane k sums a[k], a[k + 8], ... from zero), the upper four lanes
    added onto the lower four, then two horizontal pair additions; for a pair of rows left over
    (`narrow`), four lanes (lane k sums a[k], a[k + 4], ...) and the two pair additions. (A single row
    left over takes a kernel whose order was not found: callers send only even row counts.)"""
    if narrow:
        l0 = l1 = l2 = l3 = F(0.0)
        for j in range(0, n, 4):
            l0 += a[j]
            l1 += a[j + 1]
            l2 += a[j + 2]
            l3 += a[j + 3]
        return (l0 + l1) + (l2 + l3)
    l0 = l1 = l2 = l3 = l4 = l5 = l6 = l7 = F(0.0)
    for j in range(0, n, 8):
        l0 += a[j]
        l1 += a[j + 1]
        l2 += a[j + 2]
        l3 += a[j + 3]
        l4 += a[j + 4]
        l5 += a[j + 5]
        l6 += a[j + 6]
        l7 += a[j + 7]
    h0, h1, h2, h3 = l0 + l4, l1 + l5, l2 + l6, l3 + l7
    return (h0 + h1) + (h2 + h3)


def _stats(row, centered, squares, n, narrow, count, epsilon):
    """(mean, r = 1/sqrt(var + eps)) of `row`, with `centered` filled with row - mean (and `squares`, a
    scratch row, with its squares)."""
    mean = _row_sum(row, n, narrow) / count
    for j in range(n):
        centered[j] = row[j] - mean
        squares[j] = centered[j] * centered[j]
    variance = _row_sum(squares, n, narrow) / count
    return mean, F(1.0) / np.sqrt(variance + epsilon)


def _all_finite(a):
    for v in a.reshape(-1):
        if not np.isfinite(v):
            return False
    return True


def _forward_loop(w, gamma, beta, epsilon, out):
    """out = w·(r·γ) + (β − μ·(r·γ)) row by row; False (out untouched) if w holds a non-finite value."""
    if not _all_finite(w):
        return False
    n = w.shape[1]
    count = F(n)
    centered = np.empty(n, F)
    squares = np.empty(n, F)
    grouped = w.shape[0] - w.shape[0] % 4      # rows from here on are summed by the narrow kernels
    for i in range(w.shape[0]):
        row = w[i]
        mean, r = _stats(row, centered, squares, n, i >= grouped, count, epsilon)
        target = out[i]
        for j in range(n):
            scale = r * gamma[j]
            target[j] = row[j] * scale + (beta[j] - mean * scale)
    return True


def _backward_loop(dy, w, gamma, epsilon, dx, dy_x_hat):
    """dx = r·((g − mean(g)) − x̂·mean(g·x̂)) with g = dy·γ, and dy·x̂ (summed into dγ by the caller),
    row by row; False (outputs untouched) if dy or w holds a non-finite value."""
    if not (_all_finite(w) and _all_finite(dy)):
        return False
    n = w.shape[1]
    count = F(n)
    centered = np.empty(n, F)
    squares = np.empty(n, F)
    x_hat = np.empty(n, F)
    g = np.empty(n, F)
    g_x_hat = np.empty(n, F)
    grouped = w.shape[0] - w.shape[0] % 4
    for i in range(w.shape[0]):
        narrow = i >= grouped
        mean, r = _stats(w[i], centered, squares, n, narrow, count, epsilon)
        d = dy[i]
        for j in range(n):
            x_hat[j] = centered[j] * r
            dy_x_hat[i, j] = d[j] * x_hat[j]
            g[j] = d[j] * gamma[j]
            g_x_hat[j] = g[j] * x_hat[j]
        g_mean = _row_sum(g, n, narrow) / count
        g_x_hat_mean = _row_sum(g_x_hat, n, narrow) / count
        target = dx[i]
        for j in range(n):
            target[j] = r * ((g[j] - g_mean) - x_hat[j] * g_x_hat_mean)
    return True


def _compile(numba):
    jit_inline = numba.njit(inline="always")
    namespace = dict(_forward_loop.__globals__)
    for helper in (_row_sum, _stats, _all_finite):
        namespace[helper.__name__] = jit_inline(type(helper)(helper.__code__, namespace, helper.__name__))
    loops = []
    rows = numba.float32[:, ::1]
    vector = numba.float32[::1]
    for fn, signature in ((_forward_loop, (rows, vector, vector, numba.float32, rows)),
                          (_backward_loop, (rows, rows, vector, numba.float32, rows, rows))):
        compiled = numba.njit(nogil=True, error_model="numpy", cache=True)(
            type(fn)(fn.__code__, namespace, fn.__name__))
        compiled.compile(signature)
        loops.append(compiled)
    return tuple(loops)


def _emulated_row_sums(m):
    """NumPy form of `_row_sum` over every row of the [rows, N] matrix m (N a multiple of 8)."""
    grouped = m.shape[0] - m.shape[0] % 4
    wide = np.zeros((grouped, 8), F)
    narrow = np.zeros((m.shape[0] - grouped, 4), F)
    for j in range(0, m.shape[1], 8):
        wide += m[:grouped, j:j + 8]
    for j in range(0, m.shape[1], 4):
        narrow += m[grouped:, j:j + 4]
    halves = wide[:, :4] + wide[:, 4:]
    return np.concatenate([(halves[:, 0] + halves[:, 1]) + (halves[:, 2] + halves[:, 3]),
                           (narrow[:, 0] + narrow[:, 1]) + (narrow[:, 2] + narrow[:, 3])])


def _sums_in_sgemv_t_order():
    """Whether this process's float32 matrix-vector product (the one normalization.py's row means use)
    adds in the order `_row_sum` reproduces: checked once on rows whose sums round differently in other
    orders. Other BLAS builds or processors keep the NumPy form."""
    rng = np.random.default_rng(20)
    for rows in (64, 66, 130):
        for width in (8, 16, 24, 32, 48, 64, 256):
            m = (rng.standard_normal((rows, width)) * 10.0 ** rng.integers(-4, 5, (rows, width))).astype(F)
            got = _blas.matmul(m, np.ones(width, F))
            if not np.array_equal(got.view(np.uint32), _emulated_row_sums(m).view(np.uint32)):
                return False
    return True


_ORDER_MATCHES = []


def layer_norm_loops(w, gamma):
    """(forward, backward) compiled loops for float32 rows `w` [rows, N] with N a multiple of 8 and an even
    number of rows (so that every block normalization.py cuts ends on a group of four or a pair), and
    C-contiguous float32 `gamma`; or None (numba missing, not hot yet, or other arrays)."""
    if (w.dtype != F or w.ndim != 2 or not w.flags.c_contiguous or w.shape[1] % 8 or not w.shape[1]
            or w.shape[0] % 2
            or w.shape[1] > _WIDEST or gamma.dtype != F or not gamma.flags.c_contiguous):
        return None
    loops = jit.when_hot("fused_layer_norm", _compile, HOT_CALLS, w.size)
    if loops is None:
        return None
    if not _ORDER_MATCHES:      # checked once the loops exist (a program that never gets hot skips it)
        _ORDER_MATCHES.append(_sums_in_sgemv_t_order())
    return loops if _ORDER_MATCHES[0] else None
