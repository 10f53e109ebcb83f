"""TensorFlow's categorical sampling (the Multinomial and StatelessMultinomial kernels), draw for draw.

TensorFlow samples each row by inverse CDF over its finite logits: the running sum of exp(logit - max) in
float64 (non-finite logits add nothing), then for each sample a float64 uniform from two Philox words
times the row's total, located with an upper bound (a row without finite logits gives `num_classes`).
Rows are split into blocks by its thread pool's cost model, and a block starting at row r starts reading
the stream (r * (num_samples + 3)) // 4 Philox blocks in; within a block the rows read on. So, as in
TensorFlow, the numbers of a large batch depend on the number of CPUs the process may use: this module
splits rows as TensorFlow's pool would on this machine.
"""
import math
import os

import numpy as np

from ...framework import errors
from .. import philox

# Eigen's cost model constants (cycles) and its parallelFor over-sharding factor.
_STARTUP_CYCLES = 100000.0
_PER_THREAD_CYCLES = 100000.0
_TASK_SIZE = 40000.0
_OVERSHARDING = 4


def _cpu_count():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:                       # not Linux
        return os.cpu_count() or 1


def _divup(a, b):
    return -(-a // b)


def _blocks(rows, cost, threads):
    """The [start, limit) row blocks TensorFlow's Shard/ParallelFor gives `rows` units of `cost` cycles."""
    if rows <= 0:
        return []
    if threads <= 1 or rows == 1:
        return [(0, rows)]
    wanted = (rows * cost - _STARTUP_CYCLES) / _PER_THREAD_CYCLES + 0.9
    if min(threads, max(1, int(wanted))) == 1:
        return [(0, rows)]
    block_size_f = _TASK_SIZE / cost if cost > 0 else float(rows)
    block_size = min(rows, max(_divup(rows, _OVERSHARDING * threads), int(block_size_f)))
    max_block_size = min(rows, 2 * block_size)
    block_count = _divup(rows, block_size)
    best = block_count / (_divup(block_count, threads) * threads)
    previous = block_count
    while best < 1.0 and previous > 1:
        coarser_size = _divup(rows, previous - 1)
        if coarser_size > max_block_size:
            break
        coarser_count = _divup(rows, coarser_size)
        previous = coarser_count
        efficiency = coarser_count / (_divup(coarser_count, threads) * threads)
        if efficiency + 0.01 >= best:
            block_size, block_count = coarser_size, coarser_count
            best = max(best, efficiency)
    return [(start, min(rows, start + block_size)) for start in range(0, rows, block_size)]


def check(logits, num_samples):
    """TensorFlow's checks of the Multinomial kernels; the number of samples."""
    if logits.ndim != 2:
        raise errors.InvalidArgumentError(
            None, None, f"logits should be a matrix, got shape [{','.join(str(d) for d in logits.shape)}]")
    if np.ndim(num_samples):
        raise errors.InvalidArgumentError(
            None, None, f"num_samples should be a scalar, got shape [{','.join(str(d) for d in np.shape(num_samples))}]")
    n = int(num_samples)
    if n < 0:
        raise errors.InvalidArgumentError(None, None, f"num_samples should be non-negative, got {n}")
    if logits.shape[1] == 0:
        raise errors.InvalidArgumentError(None, None, f"num_classes should be positive, got {logits.shape[1]}")
    return n


def _row_cdf(row):
    """The running totals TensorFlow searches (float64) and the row's total."""
    finite = np.isfinite(row)
    peak = np.max(row[finite]) if finite.any() else np.finfo(row.dtype).min
    with np.errstate(over="ignore", invalid="ignore"):
        terms = np.exp(row.astype(np.float64) - float(peak))
    cdf = np.cumsum(np.where(finite, terms, 0.0))
    return cdf, (cdf[-1] if cdf.size else 0.0)


def sample(position, logits, num_samples):
    """int64 [batch, num_samples] class indices drawn from `position` (a philox.PhiloxPosition) as
    TensorFlow's kernel draws them for `logits` [batch, classes]."""
    batch, classes = logits.shape
    out = np.empty((batch, num_samples), np.int64)
    if out.size == 0:
        return out
    cost = int(50 * (num_samples * math.log(classes) / math.log(2) + classes))
    for start, limit in _blocks(batch, cost, _cpu_count()):
        words_needed = (limit - start) * num_samples * 2
        block_position = position.skip((start * (num_samples + 3)) // 4)
        words = philox.philox_words(block_position, _divup(words_needed, 4)).reshape(-1)[:words_needed]
        units = philox._unit_float64(words[0::2], words[1::2]).reshape(limit - start, num_samples)
        for r in range(start, limit):
            cdf, total = _row_cdf(logits[r])
            out[r] = np.searchsorted(cdf, units[r - start] * total, side="right")
    return out


def reserved_blocks(batch, num_samples):
    """How far a stateful Multinomial kernel moves its stream per run (TensorFlow reserves 256 blocks per
    output, counting num_samples rounded up to 4, twice over for the CPU's float64 draws)."""
    per_row = _divup(num_samples, 4) * 4 * 2
    return batch * per_row * 256
