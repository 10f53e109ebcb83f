"""TensorFlow 2.21's float32 MatMul bits on an x86-64 CPU without AVX-512, for small products.

A float32 product's last bits depend on the order in which its K terms are added and on whether each
multiply-add is fused (one rounding) or not (two). TensorFlow's CPU MatMul does not add them in
NumPy's (OpenBLAS's) order, so printed results can differ in the last digit. The order below was
found by experiment against TensorFlow 2.21 on this machine class (AMD EPYC, AVX2 + FMA; oneDNN
graph rewrites are off by default there, so MatMul runs TensorFlow's own kernel): products whose
terms differ in magnitude by 2^25 reveal which terms meet first, and random float32 inputs tell a
fused step from an unfused one (`tests/ops/test_matmul_bits_recorded.py` holds the recorded checks).

What TensorFlow runs, for C[M, N] = A[M, K] @ B[K, N] with one matrix (no batch):
- min(M, K, N) > 1: an Eigen tensor contraction whose blocks go to oneDNN's sgemm. Its kernels
  cover C in tiles of 6 rows (a last tile of M % 6 rows) by 16 columns (a last block of N % 16):
  * full row tiles and last tiles of 4 or 5 rows, in 16-wide column blocks (and a last block of 9
    to 15 columns): one fused multiply-add chain over k;
  * the same rows in a last column block of at most 8 columns, and last row tiles of 3 rows in any
    column: two fused chains, one over even k and one over odd k, added, then the odd last term
    fused in;
  * last row tiles of 1 or 2 rows (so M = 2 too): the even/odd pair of chains, unfused.
  Rows are first cut as oneDNN cuts them (blocks of 48; a rest between 72 and 96 rows in two
  halves), each block with its own tiles. K up to 256 is one block (deeper products are cut in
  blocks whose order was only partly established: left to NumPy).
- M == 1 (K, N > 1): Eigen's matrix-vector kernel: an unfused chain over k; from K = 128 on, over
  blocks of 16 terms added to the running result.
- N == 1: Eigen's products for one column (`_matrix_times_column`).
- K == 1: one rounded product per element, as NumPy.
Transposed operands give the same bits when M, N > 1. Other cases (batches of more than one matrix,
one row or column with a transposed operand, other dtypes) are left to NumPy: they run other
kernels whose order was not established.

Fused steps are computed exactly: the product of two float32 values is exact in float64, and the
float64 sum with the accumulator rounds to float32 correctly unless it lands exactly on a float32
rounding midpoint (only then can the first rounding have moved it across); those rare elements are
redone with the exact error of the float64 sum (TwoSum) and rounding to odd.
"""
import functools

import numpy as np

from .. import jit
from . import exact_matmul_compiled as _compiled

__all__ = ["tensorflow_matmul", "covers"]

# Emulation costs two NumPy calls per k step (about 2 ns per term once compiled), against
# microseconds for BLAS: it takes over small products only, and the limit does not depend on whether
# the compiled loops are built (a product's bits never change during a run). Measured in one process
# on a Dense layer call (2 cores at load 10; about 80-140 us without it): [2,16]@[16,24] +30 to
# +200 us and [8,16]@[16,24] +150 to +500 us in the NumPy form, +7 us and +15 us compiled; [32,32]@
# [32,32] would cost +880 us in the NumPy form, so it keeps NumPy's bits.
MAX_DEPTH = 256               # deeper products are cut into K blocks in an order not established
MAX_TERMS = 1 << 13            # M * K * N (M * K for one column)
# Eigen hands oneDNN blocks of A whose rows are cut by cache size once A[M, K] outgrows about 16 KB
# (measured: the first mismatches at M * K = 4750); those cuts were not modelled.
MAX_PANEL = 4096               # M * K
_ROW_TILE, _COL_BLOCK, _NARROW_BLOCK = 6, 16, 8
_ROW_BLOCK = 48                # oneDNN's block of rows (its N), cut as its K below
_GEMV_BLOCK, _GEMV_FROM = 16, 128
_COLUMN_MAX_DEPTH = 512        # matrix times one column: checked up to here
_LAZY_BELOW = 20               # Eigen evaluates products with K + M + N below this coefficient by coefficient
_PACKET, _HALF_PACKET = 8, 4
_F32 = np.dtype(np.float32)    # covers() tests `is` first: NumPy's float32 dtype is one instance

_MIDPOINT_MASK = np.int64((1 << 29) - 1)     # the float64 bits below float32's last mantissa bit
_MIDPOINT = np.int64(1 << 28)
# TensorFlow's CPU threads flush subnormals to zero. With every nonzero operand at least 2**-40 in
# magnitude, every product and partial sum is a multiple of 2**-126, so none is ever subnormal and
# the flush never acts; operands below that are left to NumPy.
_SMALLEST_OPERAND = np.float32(2.0 ** -40)
# After this many emulated products the compiled loops (numba, `[jit]`) are built on a background
# thread (seconds of LLVM work, most of it outside the GIL); products use NumPy's form until then.
HOT_CALLS = 32
_KERNEL_KEY = "exact_matmul"
_background = {"calls": 0}


def covers(a, b, transposed=False):
    """True when `tensorflow_matmul(a, b)` reproduces TensorFlow's bits: 2-D float32 operands of a
    shape class whose order is known, small enough for the emulation. `transposed`: a or b is an
    operand MatMul transposes (transpose_a/b); the contraction packs either layout into the same
    blocks (checked: 297 of 297 random shapes in each of the three transposed forms), Eigen's
    matrix-vector kernels do not (one row or one column: left to NumPy)."""
    if (a.dtype is not _F32 and a.dtype != _F32) or (b.dtype is not _F32 and b.dtype != _F32) or a.ndim != 2 \
            or b.ndim != 2:
        return False
    m, k = a.shape
    n = b.shape[1]
    if transposed and (m == 1 or n == 1):
        return False
    if n == 1:
        shape_known = 1 < k <= _COLUMN_MAX_DEPTH and m * k <= MAX_TERMS
    else:
        # a last single column after two or more 16-wide blocks runs a kernel whose order was not found
        single_last_column = n % _COL_BLOCK == 1 and n > 2 * _COL_BLOCK
        shape_known = (1 < k <= MAX_DEPTH and 0 < m and m * k <= MAX_PANEL and m * k * n <= MAX_TERMS
                       and not single_last_column)
    return shape_known and not (_has_tiny(a) or _has_tiny(b))


# Conv2D/Conv1D with at most 8 output channels: TensorFlow's Eigen contraction hands the im2col patches to
# oneDNN in the narrow-block form, the even/odd fused chains over the (kh, kw, c) order (H4 measured 4 of 5
# recorded shapes bit-equal, the fifth 99.25 %: Eigen's row blocks for convolutions are not modelled,
# against 19-46 % for NumPy's order). Larger products keep BLAS.
CONV_MAX_CHANNELS = 8
CONV_MAX_TERMS = 1 << 21


def covers_conv(patches, w2d):
    """True when `conv_product(patches, w2d)` gives (nearly always) TensorFlow's Conv2D bits."""
    if patches.dtype != np.float32 or w2d.dtype != np.float32 or w2d.shape[1] > CONV_MAX_CHANNELS:
        return False
    m, k = patches.shape
    return 1 < k and m * k * w2d.shape[1] <= CONV_MAX_TERMS and not (_has_tiny(patches) or _has_tiny(w2d))


def conv_product(patches, w2d):
    """patches [rows, kh·kw·c] @ w2d [kh·kw·c, out] in TensorFlow's Conv2D order (see covers_conv)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return _region(np.ascontiguousarray(patches), np.ascontiguousarray(w2d), "even_odd")


def _has_tiny(x):
    magnitude = np.abs(x)
    if magnitude.min() >= _SMALLEST_OPERAND:      # the usual case: two NumPy calls
        return False
    return bool(((magnitude < _SMALLEST_OPERAND) & (magnitude != 0)).any())


def _fma(a64, b64, acc):
    """round_to_float32(a * b + acc) with one rounding: a64/b64 are float64 copies of float32 values
    (a column and a row), acc a float32 array."""
    product = a64 * b64                           # exact: 24 + 24 bits fit in 53
    total = product + acc
    result = total.astype(np.float32)
    suspect = (total.view(np.int64) & _MIDPOINT_MASK) == _MIDPOINT
    if suspect.any():
        result = np.where(suspect, _fma_exact(product, acc.astype(np.float64), total), result)
    return result


def _fma_exact(product, acc64, total):
    """float32 rounding of product + acc64 through round-to-odd: the float64 sum with its exact error
    (TwoSum) is nudged one float64 step toward the error when it is inexact and even, after which
    the single rounding to float32 (29 bits fewer) is the correct one."""
    virtual = total - product
    error = (product - (total - virtual)) + (acc64 - virtual)
    even = (total.view(np.int64) & 1) == 0
    nudged = np.nextafter(total, np.where(error > 0, np.inf, -np.inf))
    return np.where((error != 0) & even, nudged, total).astype(np.float32)


def _fused_steps(products, acc, steps):
    """acc carried through fused steps acc = round32(products[k] + acc) for k in `steps`
    (products: the exact float64 products [K, rows, cols]). Two NumPy calls a step; the float64 sums
    are kept and checked for float32 midpoints once at the end, and only then is the chain redone
    with the exact error at every step."""
    start = acc
    sums = np.empty((len(steps),) + acc.shape)
    for i, k in enumerate(steps):
        np.add(products[k], acc, out=sums[i])
        acc = sums[i].astype(np.float32)
    if len(steps) and ((sums.view(np.int64) & _MIDPOINT_MASK) == _MIDPOINT).any():
        acc = start
        for k in steps:
            product = products[k]
            acc = _fma_exact(product, acc.astype(np.float64), product + acc)
    return acc


def _unfused_steps(products, acc, steps):
    """acc = acc + products[k] in float32 for k in `steps` (products [K, rows, cols] rounded to float32)."""
    acc = acc.copy()
    for k in steps:
        np.add(acc, products[k], out=acc)
    return acc


def _region(a, b, kind):
    """One region of C, all of whose elements follow `kind`: "chain" (one fused chain over k),
    "even_odd" (two fused chains over even and odd k, added, then the last odd term fused in) or
    "even_odd_unfused" (the same with every multiply and add rounded)."""
    depth = a.shape[1]
    if kind == "even_odd_unfused":
        products = np.multiply(a.T[:, :, None], b[:, None, :], order="C")   # float32: rounded [K, M, N]
        steps = _unfused_steps
    else:
        products = np.multiply(a.T[:, :, None], b[:, None, :], dtype=np.float64, order="C")  # exact
        steps = _fused_steps
    first = products[0].astype(np.float32)
    if kind == "chain":
        return steps(products, first, range(1, depth))
    pairs = depth - depth % 2
    even = steps(products, first, range(2, pairs, 2))
    odd = steps(products, products[1].astype(np.float32), range(3, pairs, 2))
    total = even + odd
    return steps(products, total, range(pairs, depth))


def _row_blocks(rows):
    """oneDNN's blocks of rows: 48 at a time while at least 96 remain, a rest above 72 halved (the
    first half rounded up). Each block has its own tiles of 6 and its own last tile."""
    blocks, start = [], 0
    while start < rows:
        size = rows - start
        if size >= 2 * _ROW_BLOCK:
            size = _ROW_BLOCK
        elif size > _ROW_BLOCK + _ROW_BLOCK // 2:
            size = (size + 1) // 2
        blocks.append((start, start + size))
        start += size
    return blocks


def _tiles(a, b):
    """One block of rows of the contraction kernel: the three regions of C by their tile kinds."""
    m, n = a.shape[0], b.shape[1]
    rest_rows = m % _ROW_TILE
    main_rows = m if rest_rows in (0, 4, 5) else m - rest_rows
    narrow_from = _narrow_from(n)
    out = np.empty((m, n), np.float32)
    if main_rows and narrow_from:
        out[:main_rows, :narrow_from] = _region(a[:main_rows], b[:, :narrow_from], "chain")
    if main_rows and narrow_from < n:
        out[:main_rows, narrow_from:] = _region(a[:main_rows], b[:, narrow_from:], "even_odd")
    if main_rows < m:
        out[main_rows:] = _region(a[main_rows:], b, "even_odd" if rest_rows == 3 else "even_odd_unfused")
    return out


def _contraction(a, b):
    blocks = _row_blocks(a.shape[0])
    if len(blocks) == 1:
        return _tiles(a, b)
    return np.concatenate([_tiles(a[lo:hi], b) for lo, hi in blocks])


def _row_times_matrix(a, b):
    """Eigen's column-major matrix-vector kernel (a is one row): unfused chains over blocks of k."""
    depth = a.shape[1]
    products = np.multiply(a.T[:, :, None], b[:, None, :], order="C")
    if depth < _GEMV_FROM:
        return _unfused_steps(products, products[0], range(1, depth))
    block = _GEMV_BLOCK if b.shape[1] * 4 < 32000 else 4
    result = np.zeros((1, b.shape[1]), np.float32)
    for lo in range(0, depth, block):
        result = result + _unfused_steps(products, products[lo], range(lo + 1, min(lo + block, depth)))
    return result


def _matrix_times_column(a, b):
    """C[M, 1]: Eigen's products for one column. Below K + M + 1 = 20 (and for one row) a sequential
    unfused chain per element. Otherwise its row-major matrix-vector kernel: rows two at a time, each
    with eight float32 lanes (lane l sums the products k = l mod 8 of the whole packets, in order),
    the lanes reduced as ((l0+l4)+(l2+l6))+((l1+l5)+(l3+l7)), then the remaining products one by
    one; a last odd row reduces the first four remaining products as a half packet,
    (p0+p2)+(p1+p3), before the rest."""
    m, depth = a.shape
    products = a * b[:, 0]                                         # float32: rounded products
    if m == 1 or depth + m + 1 < _LAZY_BELOW:
        total = products[:, 0].copy()
        for k in range(1, depth):
            total += products[:, k]
        return total[:, None]
    whole = depth - depth % _PACKET
    if whole:
        lanes = products[:, :_PACKET].copy()
        for k in range(_PACKET, whole, _PACKET):
            lanes += products[:, k:k + _PACKET]
        halves = lanes[:, :4] + lanes[:, 4:]
        quarters = halves[:, :2] + halves[:, 2:]
        total = quarters[:, 0] + quarters[:, 1]
    else:
        total = np.zeros(m, np.float32)
    packed = total[-1]
    for k in range(whole, depth):
        total += products[:, k]
    if m % 2 and depth - whole >= _HALF_PACKET:
        half = products[-1, whole:whole + _HALF_PACKET]
        last = packed + ((half[0] + half[2]) + (half[1] + half[3]))
        for k in range(whole + _HALF_PACKET, depth):
            last += products[-1, k]
        total[-1] = last
    return total[:, None]


@functools.lru_cache(maxsize=256)
def _row_kinds(rows):
    """Per row: 0 in a fused tile (6 rows, or a last tile of 4 or 5), 1 in a last tile of 3 rows,
    2 in a last tile of 1 or 2 rows -- within each of oneDNN's row blocks."""
    kinds = np.zeros(rows, np.int8)
    for lo, hi in _row_blocks(rows):
        rest = (hi - lo) % _ROW_TILE
        if rest in (1, 2, 3):
            kinds[hi - rest:hi] = 1 if rest == 3 else 2
    kinds.flags.writeable = False
    return kinds


def _narrow_from(n):
    narrow = n % _COL_BLOCK
    return n if (narrow == 0 or narrow > _NARROW_BLOCK) else n - narrow


def _run_compiled(kernels, a, b):
    tiles, row_chains = kernels
    n = b.shape[1]
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    out = np.empty((a.shape[0], n), np.float32)
    if a.shape[0] == 1:
        depth = a.shape[1]
        block = 0 if depth < _GEMV_FROM else (_GEMV_BLOCK if n * 4 < 32000 else 4)
        row_chains(a, b, block, out)
    else:
        tiles(a, b, _row_kinds(a.shape[0]), _narrow_from(n), out)
    return out


def _compiled_kernels():
    kernels = jit.built(_KERNEL_KEY)
    if kernels is None:
        _background["calls"] += 1
        if _background["calls"] == HOT_CALLS:
            jit.build_in_background(_KERNEL_KEY, _compiled.build, "tensorflux-exact-matmul-build")
    return kernels


def tensorflow_matmul(a, b):
    """a @ b for float32 matrices in TensorFlow 2.21's CPU order (call only when `covers(a, b)`)."""
    if b.shape[1] == 1:
        return _matrix_times_column(a, b)              # a few NumPy calls: nothing to compile
    kernels = _compiled_kernels()
    if kernels is not None:
        return _run_compiled(kernels, a, b)
    with np.errstate(over="ignore", invalid="ignore"):
        if a.shape[0] == 1:
            return _row_times_matrix(a, b)
        return _contraction(a, b)
