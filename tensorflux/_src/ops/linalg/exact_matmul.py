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
- K == 1: one rounded product per element, as NumPy.
Other cases (N == 1, batches of small matrices, transposed operands, other dtypes) are left to
NumPy: they run other kernels whose order was not established.

Fused steps are computed exactly: the product of two float32 values is exact in float64, and the
float64 sum with the accumulator rounds to float32 correctly unless it lands exactly on a float32
rounding midpoint (only then can the first rounding have moved it across); those rare elements are
redone with the exact error of the float64 sum (TwoSum) and rounding to odd.
"""
import numpy as np

__all__ = ["tensorflow_matmul", "covers"]

# Emulation costs a handful of NumPy calls per k step: the products it takes over are kept small so
# that a model's forward pass stays within a few times BLAS's time (measured in the report of
# issue 13); bigger products keep NumPy's bits.
MAX_DEPTH = 256               # deeper products are cut into K blocks in an order not established
MAX_TERMS = 1 << 17            # M * K * N
# Eigen hands oneDNN blocks of A whose rows are cut by cache size once A[M, K] outgrows about 16 KB
# (measured: the first mismatches at M * K = 4750); those cuts were not modelled.
MAX_PANEL = 4096               # M * K
_ROW_TILE, _COL_BLOCK, _NARROW_BLOCK = 6, 16, 8
_ROW_BLOCK = 48                # oneDNN's block of rows (its N), cut as its K below
_GEMV_BLOCK, _GEMV_FROM = 16, 128

_MIDPOINT_MASK = np.int64((1 << 29) - 1)     # the float64 bits below float32's last mantissa bit
_MIDPOINT = np.int64(1 << 28)
_SMALLEST_NORMAL = float(np.finfo(np.float32).tiny)


def covers(a, b):
    """True when `tensorflow_matmul(a, b)` reproduces TensorFlow's bits: 2-D float32 operands of a
    shape class whose order is known, small enough for the emulation."""
    if a.dtype != np.float32 or b.dtype != np.float32 or a.ndim != 2 or b.ndim != 2:
        return False
    m, k = a.shape
    n = b.shape[1]
    # a last single column after two or more 16-wide blocks runs a kernel whose order was not found
    single_last_column = n % _COL_BLOCK == 1 and n > 2 * _COL_BLOCK
    return (1 < k <= MAX_DEPTH and n > 1 and 0 < m and m * k <= MAX_PANEL and m * k * n <= MAX_TERMS
            and not single_last_column)


def _fma(a64, b64, acc):
    """round_to_float32(a * b + acc) with one rounding: a64/b64 are float64 copies of float32 values
    (a column and a row), acc a float32 array."""
    product = a64 * b64                           # exact: 24 + 24 bits fit in 53
    total = product + acc
    result = total.astype(np.float32)
    low = total.view(np.int64) & _MIDPOINT_MASK
    suspect = (low == _MIDPOINT) | (np.abs(total) < _SMALLEST_NORMAL)
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


def _chain_fused(a, b, a64, b64):
    acc = a[:, :1] * b[:1]
    for k in range(1, a.shape[1]):
        acc = _fma(a64[:, k:k + 1], b64[k:k + 1], acc)
    return acc


def _chain_unfused(a, b):
    acc = a[:, :1] * b[:1]
    for k in range(1, a.shape[1]):
        acc = acc + a[:, k:k + 1] * b[k:k + 1]
    return acc


def _even_odd(a, b, a64, b64, fused):
    """Two chains (even k, odd k) over the largest even number of terms, added, then the last odd
    term: the order of oneDNN's narrow kernels."""
    depth = a.shape[1]
    even = a[:, :1] * b[:1]
    odd = a[:, 1:2] * b[1:2]
    for k in range(2, depth - 1, 2):
        if fused:
            even = _fma(a64[:, k:k + 1], b64[k:k + 1], even)
            odd = _fma(a64[:, k + 1:k + 2], b64[k + 1:k + 2], odd)
        else:
            even = even + a[:, k:k + 1] * b[k:k + 1]
            odd = odd + a[:, k + 1:k + 2] * b[k + 1:k + 2]
    total = even + odd
    if depth % 2:
        k = depth - 1
        total = _fma(a64[:, k:k + 1], b64[k:k + 1], total) if fused else total + a[:, k:k + 1] * b[k:k + 1]
    return total


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


def _tiles(a, b, a64, b64):
    """One K block of the contraction kernel: the three regions of C by their tile kinds."""
    m, n = a.shape[0], b.shape[1]
    rest_rows = m % _ROW_TILE
    main_rows = m if rest_rows in (0, 4, 5) else m - rest_rows
    narrow = n % _COL_BLOCK
    chain_cols = n if (narrow == 0 or narrow > _NARROW_BLOCK) else n - narrow
    out = np.empty((m, n), np.float32)
    if main_rows and chain_cols:
        out[:main_rows, :chain_cols] = _chain_fused(a[:main_rows], b[:, :chain_cols], a64[:main_rows],
                                                    b64[:, :chain_cols])
    if main_rows and chain_cols < n:
        out[:main_rows, chain_cols:] = _even_odd(a[:main_rows], b[:, chain_cols:], a64[:main_rows],
                                                 b64[:, chain_cols:], fused=True)
    if main_rows < m:
        out[main_rows:] = _even_odd(a[main_rows:], b, a64[main_rows:], b64, fused=rest_rows == 3)
    return out


def _contraction(a, b):
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    blocks = _row_blocks(a.shape[0])
    if len(blocks) == 1:
        return _tiles(a, b, a64, b64)
    return np.concatenate([_tiles(a[lo:hi], b, a64[lo:hi], b64) for lo, hi in blocks])


def _row_times_matrix(a, b):
    """Eigen's column-major matrix-vector kernel (a is one row): unfused chains over blocks of k."""
    depth = a.shape[1]
    if depth < _GEMV_FROM:
        return _chain_unfused(a, b)
    block = _GEMV_BLOCK if b.shape[1] * 4 < 32000 else 4
    result = np.zeros((1, b.shape[1]), np.float32)
    for lo in range(0, depth, block):
        result = result + _chain_unfused(a[:, lo:lo + block], b[lo:lo + block])
    return result


def tensorflow_matmul(a, b):
    """a @ b for float32 matrices in TensorFlow 2.21's CPU order (call only when `covers(a, b)`)."""
    if a.shape[0] == 1:
        return _row_times_matrix(a, b)
    return _contraction(a, b)
