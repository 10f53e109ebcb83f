"""The total of a float32 vector of at most 8192 values in TensorFlow's order, as one numba function for
the small sums a loop repeats (`eigen_sum.reduce_sum`, once sums are hot on small inputs).

The order is `eigen_sum._leaf_rows_numpy`'s on one row: lane j of the four accumulators sums values
j, j + 32, j + 64, ... (and j + 8, j + 16, j + 24 likewise), the accumulators combine as
((a0 + a1) + a2) + a3, the packets of 8 left over add to that lane, the lanes fold as
(l0+l4 + l2+l6) + (l1+l5 + l3+l7), and the last n % 8 values, summed left to right and then plus +0,
are added last. Each lane is walked on its own with scalar accumulators, so no array is allocated; the
lanes start from +0 where the NumPy form starts from the first block, which differs only in the sign of
an all-zero partial sum, and the final addition of a value that is never -0 (the tail plus +0, or +0)
makes the results equal to the bit. Compiled without fast-math: no addition is reassociated.

The file holds everything the cached function inlines (numba's disk cache checks only this file's
timestamp), and is loaded only when the build runs.
"""
import numpy as np

from .. import jit

__all__ = ["build", "sum_small"]

F = np.float32


def _lane(x, blocked, packed, j):
    a0 = F(0.0)
    a1 = F(0.0)
    a2 = F(0.0)
    a3 = F(0.0)
    for s in range(j, blocked, 32):
        a0 = F(a0 + x[s])
        a1 = F(a1 + x[s + 8])
        a2 = F(a2 + x[s + 16])
        a3 = F(a3 + x[s + 24])
    acc = F(F(F(a0 + a1) + a2) + a3)
    for s in range(blocked + j, packed, 8):
        acc = F(acc + x[s])
    return acc


def sum_small(x):
    """Eigen's float32 total of the vector `x` (at most 8192 values: longer runs are split first)."""
    n = x.size
    packed = n - n % 8
    if packed < n:
        tail = x[packed]
        for i in range(packed + 1, n):
            tail = F(tail + x[i])
        tail = F(tail + F(0.0))
    else:
        tail = F(0.0)
    if packed == 0:
        return tail
    blocked = n - n % 32
    h0 = F(_lane(x, blocked, packed, 0) + _lane(x, blocked, packed, 4))
    h1 = F(_lane(x, blocked, packed, 1) + _lane(x, blocked, packed, 5))
    h2 = F(_lane(x, blocked, packed, 2) + _lane(x, blocked, packed, 6))
    h3 = F(_lane(x, blocked, packed, 3) + _lane(x, blocked, packed, 7))
    return F(F(F(h0 + h2) + F(h1 + h3)) + tail)


def build(numba):
    """A builder for `jit.HotOnSmall`: the entry point of `sum_small` compiled for any float32 vector
    (`jit.any_vector`), returning a Python float (exactly the float32 total). Callers check the dtype,
    rank and size: the entry point does not."""
    lane = numba.njit(inline="always", error_model="numpy")(_lane)
    namespace = dict(sum_small.__globals__, _lane=lane)
    fn = type(sum_small)(sum_small.__code__, namespace, "sum_small")
    compiled = numba.njit(error_model="numpy", cache=True)(fn)
    return jit.entry_point(compiled, (jit.any_vector(numba, numba.float32),))
