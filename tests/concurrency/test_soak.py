"""Soak: 10,000 retraces and 200,000 calls of tf.function leave memory flat.

A tf.function keeps at most `experimental_cache_size` (128) concrete functions; every retrace past that
evicts the least recently used one, and with it its graph, its generated Python and that source's
`linecache` entry. If any of them were kept (a strong reference from a global registry, a cache of
sources, a tape hook), RSS would grow by the size of one trace per retrace: tens of KB times 10,000 is
hundreds of MB. The test measures RSS from /proc/self/statm after a warm-up (imports, first traces,
NumPy's and the interpreter's allocator pools reaching their working size) and then after each block;
the growth allowed after warm-up (RSS_TOLERANCE) is a few MB, far below what keeping even a tenth of
the evicted traces would cost, and above the allocator's own fluctuation (pymalloc arenas are returned
to the OS only when wholly empty, so RSS wobbles by a few MB even with no leak).
"""
import gc
import linecache
import logging
import os

import numpy as np
import pytest

import tensorflux as tf

RETRACES = 10_000
CALLS = 200_000
WARMUP_RETRACES = 1_000
RSS_TOLERANCE = 24 * 2**20        # bytes of RSS growth allowed after warm-up (see the module docstring)
PAGE = os.sysconf("SC_PAGE_SIZE")


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE


def generated_sources():
    return sum(1 for name in linecache.cache if name.startswith("<tensorflux generated"))


def build_small_kernels():
    """The compiled small-input kernels (tanh, exp/log packets, float32 totals) that a long run builds after
    100,000 small calls (or 1,000 once numba is loaded), built before the baseline: loading the compiler
    (~100 MB) is warm-up, not growth."""
    from tensorflux._src.ops.math import eigen_float, eigen_sum
    for kernel in (eigen_float._SMALL_TANH, eigen_sum._SMALL_TOTAL, *eigen_float._SMALL_LOOPS.values()):
        kernel.build_now()


def settled_rss():
    gc.collect()
    return rss_bytes()


@pytest.fixture
def quiet_retracing():
    """The retracing warning is expected here (thousands of times); pytest would keep every record."""
    logger = logging.getLogger("tensorflux")
    previous = logger.level
    logger.setLevel(logging.ERROR)
    yield
    logger.setLevel(previous)


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="RSS is read from /proc/self/statm")
def test_retraces_and_calls_keep_memory_flat(quiet_retracing):
    traces = [0]

    @tf.function
    def step(x, scale):
        traces[0] += 1  # Python side effect: runs once per trace
        y = tf.math.tanh(x * float(scale)) + tf.reduce_sum(x)
        return tf.where(y > 0.5, y, -y)

    limit = step.experimental_cache_size
    x = tf.constant(np.linspace(0.0, 1.0, 16, dtype=np.float32).reshape(4, 4))

    def retrace_block(start, stop):
        for i in range(start, stop):
            if i % 2:  # a new Python value is a new trace
                step(x, i)
            else:      # so is a new shape (1..50 x 1..100, never repeated within the run)
                step(tf.ones([1 + (i // 2) % 50, 1 + (i // 100) % 100]), 1)

    build_small_kernels()
    retrace_block(0, WARMUP_RETRACES)
    for _ in range(10_000):
        step(x, 3)
    baseline, sources_at_baseline = settled_rss(), generated_sources()
    samples = []
    block = (RETRACES - WARMUP_RETRACES) // 9
    for start in range(WARMUP_RETRACES, RETRACES, block):
        retrace_block(start, min(start + block, RETRACES))
        samples.append(settled_rss() - baseline)
    assert traces[0] >= RETRACES, f"only {traces[0]} traces: the arguments did not force retracing"
    assert len(step._cache) <= limit
    sources = generated_sources()
    assert sources <= sources_at_baseline + limit, (
        f"linecache holds {sources} generated sources (at warm-up {sources_at_baseline}, cache size {limit}): "
        f"evicted functions keep their source")

    calls_done = 10_000
    per_block = (CALLS - calls_done) // 4
    for _ in range(4):
        for i in range(per_block):
            step(x, i % 4)  # four cached traces, alternating
        samples.append(settled_rss() - baseline)
    assert generated_sources() <= sources_at_baseline + limit

    growth = max(samples)
    print(f"soak: {traces[0]} traces, {CALLS} calls; RSS at warm-up {baseline / 2**20:.1f} MB, growth after it "
          f"(MB): {[round(s / 2**20, 1) for s in samples]}; linecache sources {generated_sources()}")
    assert growth <= RSS_TOLERANCE, (
        f"RSS grew by {growth / 2**20:.1f} MB after warm-up (samples in MB: "
        f"{[round(s / 2**20, 1) for s in samples]}); allowed {RSS_TOLERANCE / 2**20:.0f} MB")
