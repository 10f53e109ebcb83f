"""A compiled kernel that is one large elementwise loop, run in blocks on all cores (issue 17, item 7).

A chain of elementwise ops on a float32[4M] tensor lowers to a single loop that reads 16 MB and writes
16 MB: one core reaches only part of the memory bandwidth (measured on the 2-core machine, idle: the
serial loop 1.6-2.0 ms, the loop in blocks on two threads 1.1 ms, jax.jit 2.1 ms).

How the blocks are shared, and why:
- Such a kernel (`lowering.MapPlan`) is also compiled as `<name>_block`: the same loop, which claims
  blocks of BLOCK elements with an atomic counter (`claim`, an LLVM `atomicrmw`) until none is left and
  counts the blocks it finished on a second counter. The caller and a helper thread per other core
  each call it once: no Python between blocks, so a block costs no more than in the serial loop
  (measured: the same CPU time as the serial kernel, where one numba call per block from Python cost
  +0.4-0.9 ms per call in dispatch and GIL hand-overs under load).
- The caller never waits for a helper that has not started: a helper still in the queue when the caller
  has finished every block finds its arguments withdrawn and returns at once. The caller waits only for a
  block a helper has claimed and not finished. (numba's own `prange` was tried and rejected: its OpenMP
  threads split the loop in equal static shares, so one descheduled thread holds back the whole call —
  7-8 ms per call under load against 2-4 ms serial — and its spinning workers take a core away from the
  Python thread between calls.)
- Every element is computed by the same expression in the same dtype as in the serial kernel, so the
  result is the same bits however the blocks ran. The outputs are allocated by NumPy (`np.empty`, seen
  by `tracemalloc`); the loop makes no intermediate array.

Loops below `lowering.PARALLEL_MIN_ELEMENTS` (2^20) elements never get here: the serial kernel is cheaper
than waking a helper (20-40 us). numba is imported by the caller (tiering.py), never here at import.
"""
import threading
from math import log
from time import perf_counter

import numpy as np

from ..ops.linalg import blas_threads
from .lowering import PARALLEL_MIN_ELEMENTS

__all__ = ["runner", "claim", "BLOCK", "RUNS"]

# Elements per claimed block: 256 KiB of float32 per array, so that a helper descheduled in the middle of
# a block holds the call back by little; an atomic add per block costs nothing next to it.
BLOCK = 1 << 16

# Whether the blocks pay depends on the machine's load, not on the kernel alone. Measured in one process,
# 10 ops on float32[4M], paired calls: with a core free, the blocks take 0.6-0.7x the serial loop's time;
# at a sustained load of 5-7 on two cores 1.11-1.18x (medians of 4,500 pairs; CPU 2.85 against 2.59 ms):
# the other core is busy and the memory bus shared. So each kernel runs one way, and after PROBE_EVERY
# calls tries the other once, paired with the call just before (two calls under the same load: running
# means of each way alone, updated at different times, chose the slower way 60 % of the time under
# load); the running mean of those pairs' log time ratio picks the way. While the other way keeps
# losing it is tried after twice as many calls each time, up to PROBE_MAX: a losing probe costs some
# 10 % of one call, and with rarer probes the way a lucky pair chose sticks too long (at load 3, with
# at most 256 calls between probes, the runner kept the blocks at 1.05x the serial loop's time).
PROBE_EVERY = 16
PROBE_MAX = 64
OUTLIER = 2.0       # a pair's log time ratio counts at most this much (a descheduled call)

# Calls run in blocks so far ("blocks": calls, "shared": helpers that took part); tests read it to prove
# the blocked path ran. Two dict increments per call over >= 2^20 elements.
RUNS = {"blocks": 0, "shared": 0}
_CLAIM = []       # [the numba intrinsic], made on first use
_HELPERS = {}     # "queue" -> queue.SimpleQueue served by the helper threads, "count" -> their number
_LOCK = threading.Lock()


def claim(numba):
    """The numba intrinsic `u_claim(counters, i)`: adds one to `counters[i]` (a C-contiguous int64 array)
    atomically and returns the value before."""
    if not _CLAIM:
        from numba.core import cgutils
        from numba.extending import intrinsic
        types = numba.types

        @intrinsic
        def u_claim(typingctx, counters, index):
            if not (isinstance(counters, types.Array) and counters.dtype == types.int64 and counters.ndim == 1
                    and isinstance(index, types.Integer)):
                return None

            def codegen(context, builder, signature, args):
                array_type = signature.args[0]
                array = context.make_array(array_type)(context, builder, args[0])
                slot = cgutils.get_item_pointer(context, builder, array_type, array, [args[1]], wraparound=False)
                return builder.atomic_rmw("add", slot, context.get_constant(types.int64, 1), "seq_cst")
            return types.int64(counters, index), codegen
        _CLAIM.append(u_claim)
    return _CLAIM[0]


def _helper_queue():
    """The queue the helper threads (one per core beyond the caller's) take calls from; None on one core."""
    if "count" not in _HELPERS:
        with _LOCK:
            if "count" not in _HELPERS:
                count = blas_threads.usable_workers() - 1
                if count > 0:
                    import queue   # here, not at import: only a kernel over millions of elements needs it
                    jobs = queue.SimpleQueue()
                    for i in range(count):
                        threading.Thread(target=_serve, args=(jobs,), name=f"tensorflux-map-{i}",
                                         daemon=True).start()
                    _HELPERS["queue"] = jobs
                _HELPERS["count"] = count
    return _HELPERS.get("queue")


def _serve(jobs):
    while True:
        jobs.get()()


class _Share:
    """One helper's share of one call: the arguments until the helper starts (or the caller withdraws
    them); `finished`, a lock held until its block function returned (a held Lock is the cheapest
    one-shot signal: an Event is Python code around a Condition)."""

    __slots__ = ("block", "args", "finished", "error")

    def __init__(self, block, args):
        self.block, self.args = block, args
        self.finished = threading.Lock()
        self.finished.acquire()
        self.error = None

    def __call__(self):
        with _LOCK:
            args, self.args = self.args, None
        if args is None:          # the caller did every block already
            return
        try:
            self.block(*args)
        except BaseException as e:   # noqa: BLE001 - carried to the caller
            self.error = e
        finally:
            self.finished.release()

    def withdraw(self):
        """True when the helper had started (its block function may be running)."""
        with _LOCK:
            started, self.args = self.args is None, None
        return started


def runner(lowered, block, serial, fallback=None):
    """`run(*arrays)` for a MapPlan kernel: its blocks shared by the caller and the helper threads when
    the loop is long enough and every sliced array is C-contiguous and of one shape, else
    `serial(*arrays)` (the plain kernel runner, which raises for mismatched shapes as the kernel does);
    with `fallback`, a call the blocks raise on runs `fallback` instead (the graph is pure, so the call
    can start over)."""
    jobs = _helper_queue()
    if jobs is None:
        return serial
    plan = lowered.map
    constants = list(lowered.constants)
    scalar_inputs = lowered.scalar_inputs
    sliced = plan.sliced
    first = sliced[0]
    dtypes = [np.dtype(d) for d in plan.stores]
    output_stores = plan.output_stores
    helpers = _HELPERS["count"]

    def blocked(values):
        base = values[first]
        shape = base.shape
        flat = {}
        for k in sliced:
            v = values[k]
            if v.shape != shape or not v.flags.c_contiguous:
                return None
            flat[k] = v.reshape(-1)
        size = base.size
        if size < PARALLEL_MIN_ELEMENTS:
            return None
        outs = [np.empty(shape, d) for d in dtypes]
        counters = np.zeros(2, np.int64)      # blocks claimed, blocks finished
        blocks = -(-size // BLOCK)
        args = [flat.get(k, v) for k, v in enumerate(values)] + [o.reshape(-1) for o in outs]
        args += [counters, blocks, BLOCK]
        shares = [_Share(block, args) for _ in range(min(helpers, blocks - 1))]
        for share in shares:
            jobs.put(share)
        block(*args)
        for share in shares:
            if share.withdraw():
                RUNS["shared"] += 1
                if counters[1] < blocks:
                    share.finished.acquire()     # a block it claimed is not finished yet
            if share.error is not None and counters[1] < blocks:
                raise share.error
        RUNS["blocks"] += 1
        return tuple(outs[s] for s in output_stores)

    # [the way taken (0 serial, 1 blocks), seconds per element of its last call, running mean of
    # log(blocks' time / serial time) over paired probes, calls until the next probe, that interval]
    times = [0, None, None, 2, PROBE_EVERY]

    def run(*arrays):
        # A sliced value of unknown size is an argument (constants have static shapes): `arrays[first]`.
        if plan.size is None and arrays[first].size < PARALLEL_MIN_ELEMENTS:
            return serial(*arrays)    # small this call
        way = times[0]
        times[3] -= 1
        probe = times[3] <= 0 and times[1] is not None
        if probe:
            way = 1 - way
        start = perf_counter()
        if way:
            values = [a[()] if scalar else a for a, scalar in zip(arrays, scalar_inputs)]
            values += constants
            try:
                result = blocked(values)
            except Exception:
                if fallback is None:
                    raise
                return fallback(*arrays)
            if result is None:
                return serial(*arrays)
        else:
            result = serial(*arrays)
        seconds = (perf_counter() - start) / (plan.size or arrays[first].size)
        if not probe:
            times[1] = seconds
            return result
        # A probe against the call just before it: a pair timed under the same load.
        ratio = log(seconds / times[1]) if seconds > 0 and times[1] > 0 else 0.0
        ratio = min(max(ratio if way else -ratio, -OUTLIER), OUTLIER)
        mean = times[2] = ratio if times[2] is None else times[2] + 0.25 * (ratio - times[2])
        better = 1 if mean < 0 else 0
        if better != times[0]:
            times[0], times[1] = better, seconds
            times[4] = PROBE_EVERY          # the loser is probed soon again
        else:
            times[4] = min(times[4] * 2, PROBE_MAX)    # while it keeps losing, half as often
        times[3] = times[4]
        return result

    run.kernel = serial.kernel
    run.block = block
    run.lowered = lowered
    run.serial = serial
    run.times = times
    return run
