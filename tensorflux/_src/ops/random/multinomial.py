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

import numpy as np

from ...framework import errors
from .. import eigen_pool, philox

# The pool's size and parallelFor's blocks (tests replace `_cpu_count` to model another machine).
_cpu_count = eigen_pool.pool_size
_blocks = eigen_pool.parallel_for_blocks


def _divup(a, b):
    return -(-a // b)


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
