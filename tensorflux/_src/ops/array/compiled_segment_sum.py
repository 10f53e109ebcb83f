"""UnsortedSegmentSum's row accumulation as one compiled loop (numba, the optional `jit` extra).

An Embedding's dense gradient adds 6400 rows of 32 values into a 20000-row table. `np.add.at` costs
about half a microsecond per row, and the layered form `gather.py` uses without numba (the first
occurrence of every index at once, then the second, ...) still sorts the indices and makes a fancy-index
pass per layer. This loop walks the rows once, in their order, adding each into its output row from the
zeros up: every output value receives the same additions in the same order as under `np.add.at`, so the
bits are the same (tests/ops/test_segment_sum_compiled.py compares them). Built once the op is hot (see
`jit.when_hot`); until then, and without numba, `gather.py` keeps its NumPy paths.
"""
import numpy as np

from .. import jit

__all__ = ["segment_rows_kernel"]

HOT_CALLS = 3
DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
INDEX_DTYPES = (np.dtype(np.int32), np.dtype(np.int64))


def _add_rows_loop(out, index, rows):
    """out[index[i]] += rows[i] for i in order (index values already checked to lie in out's rows)."""
    width = rows.shape[1]
    for i in range(rows.shape[0]):
        target = out[index[i]]
        source = rows[i]
        for c in range(width):
            target[c] += source[c]


def _compile(numba):
    loop = numba.njit(nogil=True, cache=True)(_add_rows_loop)
    for t in (numba.float32, numba.float64):
        for i in (numba.int32, numba.int64):
            loop.compile((t[:, ::1], i[::1], t[:, ::1]))
    return loop


def segment_rows_kernel(out, index, rows):
    """The compiled loop for these arrays, or None: numba missing, the op not hot yet, or arrays it was
    not compiled for (a dtype other than float32/float64, int32/int64 indices, not 2-D C-contiguous rows)."""
    if (out.dtype not in DTYPES or rows.dtype != out.dtype or index.dtype not in INDEX_DTYPES
            or out.ndim != 2 or rows.ndim != 2 or index.ndim != 1 or not out.flags.c_contiguous
            or not rows.flags.c_contiguous or not index.flags.c_contiguous):
        return None
    return jit.when_hot("unsorted_segment_sum_rows", _compile, HOT_CALLS, rows.size)
