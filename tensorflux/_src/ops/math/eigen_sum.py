"""float32 sums in the order TensorFlow's CPU kernels add, so sums and means match it to the last bit.

Floating-point addition is not associative: a sum's last bits depend on the order of its additions, and a
printed loss or a softmax shows them. TensorFlow 2.21's `Sum`/`Mean` run Eigen's tensor reductions;
NumPy sums pairwise in blocks of 8 and 128, so about half of the float32 sums of a few hundred values
differ from TensorFlow's in the last bit. The order reproduced here (established by experiment against
TensorFlow 2.21 on this machine: random sizes 1..4M, every reduction layout; no differing bit):

* The axes are simplified as TensorFlow's reduction helper does (size-1 dims dropped, adjacent reduced or
  kept dims merged), then:
  - everything reduced: one long row, split over the CPU threads Eigen's cost model would use (blocks of
    n // threads summed separately, then the remainder block plus each block in order);
  - [kept, reduced] (rows): each row as Eigen's inner-most reducer sums it (below);
  - [reduced, kept] and [kept, reduced, kept]: down the reduced axis, in packets of 8 outputs with four
    accumulators over the rows (`_sum_columns`);
  - [reduced, kept, reduced]: a running sum, the last reduced axis outermost;
  - anything else: transposed so the reduced axes are last, then by rows.
* A row of n values: above 8 * 1024 it is split in two at a packet boundary (counted from the row's
  position in the whole tensor) and the halves summed recursively; a shorter run goes through four
  8-float accumulators over blocks of 32 (combined ((a0 + a1) + a2) + a3), then single 8-float packets,
  then a scalar running sum of the last n % 8 values; the 8 lanes are folded as (l0+l4 + l2+l6) +
  (l1+l5 + l3+l7) and added to the scalar sum.
* A mean is that sum divided by the count (in float32).

Everything is vectorised over rows and over the blocks of a row; only the split tree of rows longer than
8192 values is walked in Python (a few hundred leaves for millions of values). Once sums are hot and
numba (`[jit]`) is installed, the row reducer runs as one compiled loop (`eigen_sum_compiled.py`), bit-equal.
Small inputs a loop repeats (a loss total, a bias gradient's axis-0 sum) get their own compiled kernels
once hot (`jit.HotOnSmall`); the column kernel hands a NaN-bearing result back to the NumPy form, whose
choice between two different NaNs is today's (a compiled addition may commute its operands).
"""
import functools

import numpy as np

from .. import eigen_pool, jit
from . import eigen_sum_compiled as _compiled

__all__ = ["reduce_sum", "reduce_mean"]

_F = np.float32
HOT_CALLS = 3               # calls on large inputs before the compiled loops are built (numba installed)
COMPILE_FROM = jit.COMPILE_FROM    # smaller inputs never make the compiled loops get built (jit.when_hot)
_P = 8                      # floats per AVX packet
_LEAF = _P * 1024           # Eigen's kLeafSize (1024) in packets: longer runs are split in two
_add_reduce = np.add.reduce
_add_accumulate = np.add.accumulate
_concatenate = np.concatenate

# Eigen's cost model splits a full reduction of n values over (n * cost - 100000) / 100000 + 0.9 threads
# (at most the pool's size). The cost per value, 31/16 cycles, is measured: TensorFlow 2.21 on two CPUs
# sums 108,387 floats on one thread and 108,388 on two.
_CYCLES_PER_VALUE = 1.9375


_threads = eigen_pool.pool_size     # TensorFlow's intra-op pool size (tests replace it)


def _full_reduction_threads(n, max_threads):
    threads = (n * _CYCLES_PER_VALUE - 100000.0) / 100000.0 + 0.9
    return max(1, min(max_threads, int(threads)))


def _leaf_rows(x):
    """Eigen's vectorised inner-most reducer on each row of the 2-D view `x` (rows of at most 8192)."""
    loop = jit.when_hot("eigen_sum_rows", _compiled.build, HOT_CALLS, x.size)
    if loop is not None:
        out = np.empty(x.shape[0], _F)
        loop(np.ascontiguousarray(x), out)
        return out
    return _leaf_rows_numpy(x)


def _running_tail(x, start, stop):
    """Each row's values [start, stop) added left to right from +0 (few columns: one add per column; NumPy
    spends ~15 us setting up an accumulate or a middle-axis reduce on a small array)."""
    total = x[:, start].copy()
    for i in range(start + 1, stop):
        total += x[:, i]
    total += _F(0.0)
    return total


def _leaf_row_numpy(v):
    """`_leaf_rows_numpy` for one row (1-D `v`, 8 <= n <= 8192) in a handful of NumPy calls: the blocks of
    32 added down one axis-0 reduce (NumPy adds along a non-inner axis row after row, the order of the
    sequential `lanes +=` form), then the four accumulators and the packets left over down another
    (((a0 + a1) + a2) + a3, then each packet in turn). A Mean or a total of a few hundred values took 17
    or more NumPy calls of ~1 us each the general way."""
    n = v.shape[0]
    packed = n - n % _P
    blocked = n - n % (4 * _P)
    if blocked:
        stack = _add_reduce(v[:blocked].reshape(-1, 4 * _P), 0).reshape(4, _P)
        if packed > blocked:
            stack = _concatenate((stack, v[blocked:packed].reshape(-1, _P)))
    else:
        stack = v[:packed].reshape(-1, _P)
    acc = _add_reduce(stack, 0) if stack.shape[0] > 1 else stack[0]
    half = acc[:4] + acc[4:]
    quarter = half[:2] + half[2:]
    folded = quarter[:1] + quarter[1:]  # arrays, not scalars: a scalar add keeps the other NaN of two
    if packed < n:      # the tail left to right (accumulate is strictly in order), then +0 as Eigen's
        folded += _add_accumulate(v[packed:])[-1] + _F(0.0)
    else:
        folded += _F(0.0)
    return folded


def _leaf_rows_numpy(x):
    if x.shape[0] == 1 and x.shape[1] >= _P:
        return _leaf_row_numpy(x[0])
    return _leaf_rows_general(x)


def _leaf_rows_general(x):
    rows, n = x.shape
    packed = n - n % _P
    if not packed:      # a scalar running sum from zero; NumPy adds fewer than 8 values in order too
        return _add_reduce(x, axis=1) + _F(0.0) if n else np.zeros(rows, _F)
    blocked = n - n % (4 * _P)
    width = 4 * _P
    if blocked:
        # the four accumulators' lanes (each block of 32 added in turn), then ((a0 + a1) + a2) + a3 and
        # the packets left over, one after another
        blocks = blocked // width
        if blocks == 1:
            lanes = x[:, :width]
        elif rows >= 16 or blocks <= 32:    # a middle-axis reduce is slow on many rows or few blocks
            lanes = x[:, :width] + x[:, width:2 * width]
            for start in range(2 * width, blocked, width):
                lanes += x[:, start:start + width]
        else:
            lanes = _add_reduce(x[:, :blocked].reshape(rows, blocks, width), axis=1)
        acc = lanes[:, :_P] + lanes[:, _P:2 * _P]
        acc += lanes[:, 2 * _P:3 * _P]
        acc += lanes[:, 3 * _P:]
    else:
        acc = x[:, :_P].copy()
        blocked = _P
    for start in range(blocked, packed, _P):
        acc += x[:, start:start + _P]
    half = acc[:, :4] + acc[:, 4:]
    quarter = half[:, :2] + half[:, 2:]
    folded = quarter[:, 0] + quarter[:, 1]
    if packed < n:      # Eigen's running sum of the tail starts from +0 (a tail of -0.0s sums to +0)
        folded += _running_tail(x, packed, n)
    else:
        folded += _F(0.0)
    return folded


@functools.lru_cache(maxsize=64)
def _split_tree(offset, n):
    """Eigen's recursive split of a run of n values starting at `offset` (mod 8): the (start, length) leaves
    in order, and the tree of leaf indices the partial sums are added along."""
    leaves = []

    def split(first, count):
        if count > _LEAF:
            at = _P * -(-(first + -(-count // 2)) // _P)
            left = min(at - first, count)
            node = (split(first, left),)
            return node + (split(at, count - left),) if left < count else node
        leaves.append((first - offset, count))
        return len(leaves) - 1

    tree = split(offset, n)
    return tuple(leaves), tree


def _combine(tree, values):
    if isinstance(tree, int):
        return values[tree]
    total = _F(0.0) + _combine(tree[0], values)
    for sub in tree[1:]:
        total = total + _combine(sub, values)
    return total


def _long_rows(x, first_of_row):
    """Rows longer than 8192: each row's split tree; neighbouring leaves of one length summed together."""
    rows, n = x.shape
    out = np.empty(rows, _F)
    by_offset = {}
    for r in range(rows):
        by_offset.setdefault(first_of_row(r) % _P, []).append(r)
    for offset, members in by_offset.items():
        leaves, tree = _split_tree(offset, n)
        sub = x if len(members) == rows else x[members]
        sums = np.empty((len(members), len(leaves)), _F)
        i = 0
        while i < len(leaves):
            start, length = leaves[i]
            j = i + 1
            while j < len(leaves) and leaves[j][1] == length:
                j += 1
            run = sub[:, start:start + (j - i) * length].reshape(len(members) * (j - i), length)
            sums[:, i:j] = _leaf_rows(run).reshape(len(members), j - i)
            i = j
        # one row: float32 scalars (a tree walk over 1-element arrays costs 15 us a node)
        out[members] = _combine(tree, list(sums[0]) if len(members) == 1 else sums.T)
    return out


def sum_rows(x):
    """Each row of the 2-D float32 array `x` summed as Eigen's inner-most reducer sums it."""
    rows, n = x.shape
    if n <= _LEAF:
        return _leaf_rows(x)
    return _long_rows(x, lambda r: r * n)


def _sum_all(flat):
    n = flat.size
    if n <= _LEAF:
        return _leaf_rows(flat.reshape(1, n))[0]
    threads = _full_reduction_threads(n, _threads())
    if threads == 1:
        return sum_rows(flat.reshape(1, n))[0]
    block = n // threads
    blocks = n // block
    shards = _long_rows(flat[:blocks * block].reshape(blocks, block), lambda r: r * block)
    total = sum_rows(flat[blocks * block:].reshape(1, -1))[0] if blocks * block < n else _F(0.0)
    for shard in shards:
        total = total + shard
    return total


def _running_sum(x):
    """(outer, reduced, inner) -> (outer, inner): adding row after row from zero (NumPy reduces a non-inner
    axis in order)."""
    if not x.shape[1]:      # nothing to add: +0 sums
        return np.zeros((x.shape[0], x.shape[2]), _F)
    if x.shape[2] < _P:     # NumPy sums a lone column pairwise: accumulate is strictly in order
        return _add_accumulate(x, axis=1)[:, -1] + _F(0.0)
    out = _add_reduce(x, 1, _F)
    out += _F(0.0)
    return out


def _sum_columns(x):
    """x: (outer, reduced, inner) -> (outer, inner), each output a sum down the reduced axis as Eigen does
    when the inner-most axis is kept: outputs go in packets of 8 (counted over the flattened output, not
    crossing an output row), and a packet sums 16 or more rows with four accumulators taking every fourth
    row, combined ((a0 + a1) + a2) + a3, then the rows left over; other outputs add row after row."""
    loop = jit.when_hot("eigen_sum_columns", _compiled.build_columns, HOT_CALLS, x.size)
    if loop is not None:
        out = np.empty((x.shape[0], x.shape[2]), _F)
        loop(np.ascontiguousarray(x), out)
        return out
    outer, rows, inner = x.shape
    if rows < 16 or inner < _P:
        return _running_sum(x)
    unrolled = rows - rows % 4
    stack = _add_reduce(x[:, :unrolled].reshape(outer, unrolled // 4, 4, inner), axis=1)
    if unrolled < rows:
        stack = np.concatenate((stack, x[:, unrolled:]), axis=1)
    total = _add_reduce(stack, axis=1)
    total += _F(0.0)
    if outer == 1:
        packed = inner - inner % _P
        if packed < inner:
            total[:, packed:] = _running_sum(x[:, :, packed:])
        return total
    flat = np.arange(outer * inner)
    start = flat - flat % _P
    packed = ((start + _P <= flat.size) & (start % inner + _P - 1 < inner)).reshape(outer, inner)
    return np.where(packed, total, _running_sum(x))


def _simplify(shape, axes):
    """TensorFlow's reduction helper: size-1 dims dropped, neighbouring dims of one kind merged. Returns the
    merged dims and whether each is reduced."""
    dims, reduced = [], []
    for i, d in enumerate(shape):
        if d == 1:
            continue
        r = i in axes
        if reduced and reduced[-1] == r:
            dims[-1] *= d
        else:
            dims.append(d)
            reduced.append(r)
    return dims, reduced


def _sum(x, axes):
    """The reduced values of float32 `x` (axes: a tuple of non-negative ints), in the kept dims' order."""
    kept_shape = tuple(d for i, d in enumerate(x.shape) if i not in axes)
    dims, reduced = _simplify(x.shape, axes)
    if x.size == 0 or not any(reduced):
        return _add_reduce(x, axes, _F) if x.size == 0 else x.reshape(kept_shape).astype(_F, copy=True)
    x = np.ascontiguousarray(x).reshape(dims)
    if len(dims) == 1:
        out = np.asarray(_sum_all(x), _F)
    elif reduced == [False, True]:
        out = sum_rows(x)
    elif reduced == [True, False]:
        out = _sum_columns(x[None])[0]
    elif reduced == [False, True, False]:
        out = _sum_columns(x)
    elif reduced == [True, False, True]:
        # Eigen's generic reducer: the last reduced axis outermost, a running sum from zero
        out = _running_sum(x.transpose(2, 0, 1).reshape(1, -1, dims[1]))[0]
    else:
        order = [i for i, r in enumerate(reduced) if not r] + [i for i, r in enumerate(reduced) if r]
        kept = int(np.prod([dims[i] for i in order if not reduced[i]]))
        out = sum_rows(np.ascontiguousarray(x.transpose(order)).reshape(kept, -1))
    return out.reshape(kept_shape)


def _build_small_total(numba):
    from . import eigen_sum_small_compiled    # loaded by the build only (it is the only user)
    return eigen_sum_small_compiled.build(numba)


# Once sums are hot on small inputs, the total of up to 8192 values is one compiled call (a Python float,
# exactly the float32 total; -0.0 + it makes the float32 scalar without changing a bit).
_SMALL_TOTAL = jit.HotOnSmall("eigen_sum_small_total", _build_small_total)
_F32 = np.dtype(np.float32)
_NEG_ZERO = _F(-0.0)

# Likewise the column sums of a small matrix (a bias gradient: Sum over axis 0 of [batch, units]), which
# the NumPy form spends 8-12 us on in half a dozen calls: `_sum_columns`' order in one compiled loop.
_SMALL_COLUMNS = jit.HotOnSmall("eigen_sum_small_columns", _compiled.build_small_columns)


def reduce_sum(x, axes, keepdims=False):
    """float32 `x` summed over `axes` (None: all; a tuple of non-negative ints) in TensorFlow's order."""
    total = _SMALL_TOTAL.kernel
    if total is not None and x.size <= _LEAF and (axes is None or len(axes) == x.ndim) and \
            (x.dtype is _F32 or x.dtype == _F32):     # the entry point checks no dtype
        out = _NEG_ZERO + total(x if x.ndim == 1 else x.reshape(-1))   # any vector (`jit.any_vector`)
        return np.full((1,) * x.ndim, out, _F) if keepdims else out
    if x.size <= _LEAF and (axes is None or len(axes) == x.ndim) and x.size:    # the common small total
        if total is None:
            _SMALL_TOTAL.count()
        if x.size < _P:     # a running sum from +0: NumPy adds fewer than 8 values in order too
            total = _add_reduce(x.reshape(-1)) + _F(0.0)
            return np.full((1,) * x.ndim, total, _F) if keepdims else total
        out = _leaf_rows(x.reshape(1, -1))
        return out.reshape((1,) * x.ndim if keepdims else ())
    if x.ndim == 2 and not keepdims and 1 not in x.shape:    # the common matrix cases, straight through
        if axes == (0,):
            if x.size <= _LEAF:
                columns = _SMALL_COLUMNS.kernel
                if columns is not None:
                    x = np.ascontiguousarray(x)[None]      # C-contiguous (1, rows, inner), as it needs
                    out = np.empty((1, x.shape[2]), _F)
                    if not columns(x, out):     # a NaN output: the NumPy form picks which NaN (see the loop)
                        return out[0]
                    return _sum_columns(x)[0]
                _SMALL_COLUMNS.count()
            return _sum_columns(np.ascontiguousarray(x)[None])[0]
        if axes == (1,):
            return sum_rows(np.ascontiguousarray(x))
    axes = tuple(range(x.ndim)) if axes is None else axes
    out = _sum(x, axes)
    if keepdims:
        out = out.reshape([1 if i in axes else d for i, d in enumerate(x.shape)])
    return out


def reduce_mean(x, axes, keepdims=False, count=None):
    """float32 `x` averaged over `axes` as TensorFlow does: the sum above divided by the count (the number
    of values each output averages, computed here when not given)."""
    if count is None:
        if axes is None:
            count = x.size
        else:
            count = 1
            for a in axes:
                count *= x.shape[a]
    total = _SMALL_TOTAL.kernel
    if total is not None and count and not keepdims and count <= _LEAF and (axes is None or len(axes) == x.ndim) \
            and (x.dtype is _F32 or x.dtype == _F32):
        # A loss: the compiled total (a Python float holding the float32 sum exactly) divided by the count
        # in double and rounded once to float32 -- binary64 carries more than 2 * 24 + 2 bits, so that is
        # float32's correctly rounded quotient (and a NaN keeps its sign and payload), without the NumPy
        # scalar arithmetic a float32 sum and division cost.
        return _F(total(x if x.ndim == 1 else x.reshape(-1)) / count)
    total = reduce_sum(x, axes, keepdims)
    if count:   # a positive count: no NumPy warning can arise (NaNs in are quiet, the quotient cannot overflow)
        return total / _F(count)
    with np.errstate(all="ignore"):
        return np.divide(total, _F(count), dtype=_F)
