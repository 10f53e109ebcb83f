"""Matrix products with the thread count chosen per call size: `gemm(a, b)`.

OpenBLAS (NumPy's BLAS) splits every product over all cores in equal static shares, and its idle
workers spin for a while before they sleep. That costs twice on a machine shared with other processes:
a product waits for its slowest share, so one descheduled worker stalls the whole call for a scheduler
time slice (tens of milliseconds, measured: a convnet epoch went from 5 s to 35-107 s under a load of
four on two cores), and the spinning workers take a core away from the Python thread between products.
Small products also pay the workers' wake-up for no gain.

So once tensorflux runs its first product here, NumPy's OpenBLAS is set to one thread (a ctypes call into
the library NumPy loaded; nothing happens when it cannot be found), and products big enough to be worth
it are cut into more blocks than there are cores and handed out to worker threads one block at a time:
a worker that is descheduled delays one block, not the call, and idle workers sleep on a queue instead
of spinning. NumPy releases the GIL inside a product, so the blocks really run in parallel. They are
shared out whatever the machine's load: measured in one process on the loaded machine (load 8-9 on two
cores), a convnet epoch took 29 s sharing against 37 s keeping blocks on the caller when the run queue
was full (the blocks of a descheduled thread are taken over by the other, and the scheduler gives a
process with two runnable threads a larger share). The blocks depend on the shapes only, so results are
the same bits however they ran.

Mid-size products (a Dense layer's [60, 784] @ [784, 128], its weight gradient) are cut differently: in
two blocks of rows whose boundary is a multiple of the BLAS kernel's row period, which gives the unsplit
product's bits exactly, and only when a timer per shape finds the split faster (see `_mid_product`).
"""
import functools
import glob
import itertools
import os
import threading
import time

import numpy as np

from .. import jit

__all__ = ["gemm", "gemm_tn", "matmul", "worker_count", "usable_workers", "run_blocks", "keep_blocks_on_this_thread",
           "PARALLEL_MIN_FLOPS", "MID_MIN_FLOPS", "two_row_blocks"]

# Products below this many multiply-adds run on the calling thread: waking a worker costs 20-40 µs on
# an idle machine and a GIL hand-over that can take milliseconds on a busy one. Measured on 2 cores
# (one thread -> two): [15488, 288] @ [288, 64] 4.2 -> 2.4 ms; [4096, 512] @ [512, 512] 18 -> 10 ms;
# an LSTM's [224, 128]ᵀ @ [224, 512] weight gradient (15 M) is not worth it.
PARALLEL_MIN_FLOPS = 1 << 25
BLOCKS = 6                    # blocks per big product: three per thread on two cores, so that a
                              # descheduled thread holds back a third of its share
MIN_BLOCK_ROWS = 64           # thinner blocks make BLAS run below speed

# Mid-size products, between MID_MIN_FLOPS and PARALLEL_MIN_FLOPS multiply-adds (or with fewer rows than
# two big blocks), in two blocks of rows. NumPy passes a row-major product to OpenBLAS as the transposed
# column-major one, so rows of the result are OpenBLAS's columns, which its Haswell kernels (the ones
# OpenBLAS picks on this machine's AMD EPYC) compute in groups of 12 (float32) or 4 (float64) with every
# group's order fixed by the group alone: a cut at a multiple of that period leaves each element's order, and so its bits, as the unsplit
# call computes them (checked on 700 random shapes, transposed operands included, K up to 3000; any other
# cut changes the last digits of the rows near it, and so does a part of one row or a product of one
# column, which run OpenBLAS's matrix-vector kernels). Other kernel sets (Zen, AVX-512, ...) were not
# checked: their mid-size products run unsplit.
MID_MIN_FLOPS = 1 << 21
_KERNEL_ROW_PERIOD = {"haswell": {"f": 12, "d": 4}}
# Whether the split pays depends on the machine's load, not on the shape alone: each block packs all of
# `b` again, and a helper thread takes 10-40 us to wake on an idle machine and up to a scheduler slice on
# a loaded one. Measured in one process, interleaved: [60, 784] @ [784, 128] single 160 us, split at
# load 3.5 on two cores 290-400 us (the other core was busy). So each shape keeps its last times both
# ways and takes the way with the lower median, trying the other after MID_PROBE_EVERY calls, and after
# twice as many each time it loses again (up to MID_PROBE_MAX: a losing split took 0.3-9 ms against
# 0.19 ms whole at load 4.5, and after the load drops three winning probes bring the split back).
MID_PROBE_EVERY = 16
MID_PROBE_MAX = 512
_MID_RECENT = 5                # times kept per way and shape
_MID_SHAPES_KEPT = 1024
_mid_times = {}                # (m, k, n, dtype char) -> [recent whole, recent split, countdown, interval]

_state = {"blas": None, "workers": None, "queue": None, "row_period": {}, "mid": None, "spinner": None}
_lock = threading.Lock()
# Per thread: True on a thread that computes its products' blocks itself (a replica of a strategy whose
# replicas run at once already keep the cores busy: sharing out would queue them behind each other).
_this_thread = threading.local()


def _openblas_function(symbols, argtypes, restype):
    """The first of `symbols` found in the OpenBLAS library NumPy loaded (a ctypes function), or None."""
    roots = [os.path.dirname(np.__file__) + ".libs", os.path.join(os.path.dirname(np.__file__), ".dylibs"),
             os.path.join(os.path.dirname(np.__file__), "_core")]
    candidates = [p for root in roots for p in sorted(glob.glob(os.path.join(root, "*openblas*")))]
    import ctypes   # here, not at import: only the first product needs it
    for path in candidates:
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for symbol in symbols:
            fn = getattr(lib, symbol, None)
            if fn is not None:
                fn.argtypes, fn.restype = argtypes, restype
                return fn
    return None


def _openblas_set_threads():
    """OpenBLAS's set-num-threads function, or None."""
    import ctypes
    return _openblas_function(("scipy_openblas_set_num_threads64_", "scipy_openblas_set_num_threads",
                               "openblas_set_num_threads64_", "openblas_set_num_threads"), [ctypes.c_int], None)


def _openblas_core():
    """The name of the kernel set OpenBLAS picked for this CPU, in lower case ("" when unknown)."""
    import ctypes
    fn = _openblas_function(("scipy_openblas_get_corename64_", "scipy_openblas_get_corename",
                             "openblas_get_corename64_", "openblas_get_corename"), [], ctypes.c_char_p)
    return (fn() or b"").decode("ascii", "replace").strip().lower() if fn is not None else ""


def worker_count():
    """How many threads big products use: the cores this process may run on, capped by
    OPENBLAS_NUM_THREADS / OMP_NUM_THREADS when the user set them."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cores = os.cpu_count() or 1
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
        value = os.environ.get(name, "")
        if value.isdigit() and int(value) > 0:
            cores = min(cores, int(value))
    return max(1, cores)


def _start():
    """Once: OpenBLAS to one thread, and the helper threads (all but the caller's share)."""
    with _lock:
        if _state["workers"] is not None:
            return
        set_threads = _openblas_set_threads()
        workers = worker_count()
        if set_threads is None:
            workers = 1      # OpenBLAS keeps its own threads: splitting on top of them would oversubscribe
        else:
            set_threads(1)
            _state["row_period"] = _KERNEL_ROW_PERIOD.get(_openblas_core(), {})
        _state["blas"] = set_threads
        if workers > 1:
            import queue   # here, not at import: only a product split over threads needs it
            jobs = queue.SimpleQueue()
            for i in range(workers - 1):
                threading.Thread(target=_serve, args=(jobs,), name=f"tensorflux-gemm-{i}", daemon=True).start()
            _state["queue"] = jobs
        _state["workers"] = workers


def _forget_helpers():
    """In a forked child: the parent's helper threads were not copied, so products waiting for them would
    wait forever; they start again with the child's first product."""
    global _lock
    _lock = threading.Lock()
    _state["workers"] = None
    _state["queue"] = None
    _state["mid"] = None
    _state["spinner"] = None     # its compiled loops are kept (jit's table): a new helper starts with them


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_helpers)


def _serve(jobs):
    # A product inside a block runs here whole: waiting for a helper from a helper could wait for itself.
    _this_thread.alone = True
    while True:
        jobs.get()()


def _run_blocks(run_block, blocks):
    """Calls run_block(i) for i in range(blocks) on the caller and the helper threads, each thread taking
    the next block when it is done with its last; re-raises the first error."""
    counter = itertools.count()
    errors = []

    def take_blocks():
        try:
            while True:
                i = next(counter)     # atomic under the GIL
                if i >= blocks:
                    return
                run_block(i)
        except BaseException as e:   # noqa: BLE001 - carried to the caller
            errors.append(e)

    # Each helper releases a lock of its own when done: a held Lock is the cheapest one-shot signal
    # (a Semaphore is Python code around a Condition: measured 20 us more per hand-over on this machine).
    finished = []
    for _ in range(min(_state["workers"] - 1, blocks - 1)):
        done = threading.Lock()
        done.acquire()
        finished.append(done)
        _state["queue"].put(functools.partial(_help, take_blocks, done))
    take_blocks()
    for done in finished:
        done.acquire()
    if errors:
        raise errors[0]


def _help(take_blocks, done):
    try:
        take_blocks()
    finally:
        done.release()


def usable_workers():
    """How many threads a kernel of its own (blocks of independent work that release the GIL) should use."""
    if _state["workers"] is None:
        _start()
    return _state["workers"]


def run_blocks(run_block, blocks):
    """run_block(i) for i in range(blocks), shared out over usable_workers() threads (the caller's
    included), each taking the next block when done with its last; the first error is re-raised."""
    if usable_workers() == 1 or blocks < 2 or getattr(_this_thread, "alone", False):
        for i in range(blocks):
            run_block(i)
        return
    _run_blocks(run_block, blocks)


def keep_blocks_on_this_thread(alone=True):
    """From now on, the calling thread runs its products' blocks itself (same blocks, same bits)."""
    _this_thread.alone = bool(alone)


def _bounds(size, blocks, align=8):
    step = max(-(-size // blocks), MIN_BLOCK_ROWS)
    step = -(-step // align) * align
    return [(i, min(i + step, size)) for i in range(0, size, step)]


def gemm(a, b, out=None):
    """`a @ b` for 2-D arrays of one float dtype ([m, k] @ [k, n]); big products are computed in row
    blocks of `a`, shared out over the worker threads when a core is free. The blocks depend on the
    shapes only, so the result is the same bits whether threads ran them or not."""
    m, k = a.shape
    n = b.shape[1]
    flops = m * k * n
    if flops < PARALLEL_MIN_FLOPS or m < 2 * MIN_BLOCK_ROWS:
        if _state["workers"] is None:
            _start()
        if flops >= MID_MIN_FLOPS and n > 1 and out is None and _state["workers"] > 1:
            period = _state["row_period"].get(a.dtype.char)
            if period is not None and m >= 2 * period and a.dtype == b.dtype:
                return _mid_product(a, b, period)
        return np.matmul(a, b, out=out)
    if out is None:
        out = np.empty((m, n), np.result_type(a, b))
    bounds = _bounds(m, BLOCKS)

    def run_block(i):
        lo, hi = bounds[i]
        np.matmul(a[lo:hi], b, out=out[lo:hi])
    run_blocks(run_block, len(bounds))
    return out


class _MidHelper:
    """The thread that takes the second block of mid-size products, handed over with two bare locks.

    A mid-size product lasts ~150 us, so its hand-over has to cost microseconds: the caller stores the
    block, releases `go` and starts its own block at once (the GIL is free while it runs, so the helper
    starts as soon as it wakes), and finds `done` already released when the helper's block was the
    shorter one; no queue, closure or counter in between. `busy` keeps a second caller (another
    thread's product) from queueing behind the first: that caller runs its product whole."""

    def __init__(self):
        self.go = threading.Lock()
        self.go.acquire()
        self.done = threading.Lock()
        self.done.acquire()
        self.busy = threading.Lock()
        self.job = None
        self.finished = 0.0
        self.error = None
        threading.Thread(target=self._serve, name="tensorflux-gemm-mid", daemon=True).start()

    def _serve(self):
        _this_thread.alone = True      # a product the block runs stays on this thread
        go, done, matmul, clock = self.go, self.done, np.matmul, time.perf_counter
        while True:
            go.acquire()
            a, b, out = self.job
            try:
                matmul(a, b, out=out)
            except BaseException as e:   # noqa: BLE001 - carried to the caller
                self.error = e
            self.job = None
            self.finished = clock()
            done.release()


def _mid_helper():
    helper = _state.get("mid")
    if helper is None:
        with _lock:
            helper = _state.get("mid")
            if helper is None:
                helper = _state["mid"] = _MidHelper()
    return helper


# With numba (`[jit]`), a helper that waits outside the GIL, polling, takes the mid-size products' second
# blocks instead (gemm_spinner: handed over in about a microsecond instead of 20-40). Its loops are
# compiled in the background once this many mid-size products ran (split or whole: a split that loses
# to the sleeping helper's wake-up is tried ever less often); until then `_MidHelper` serves.
SPINNER_AFTER = 32
_SPINNER_KEY = "gemm_spinner"
_spinner_requests = [0]


def _build_spinner(numba):
    from . import gemm_spinner    # here: only a process that splits mid-size products needs it
    return gemm_spinner.build(numba, _openblas_function)


def _spinner():
    """The polling helper (gemm_spinner.Spinner) once its loops are built, else None (never waits)."""
    spinner = _state["spinner"]
    if spinner is not None:
        return spinner
    loops = jit.built(_SPINNER_KEY)
    if loops is None:
        return None
    with _lock:
        if _state["spinner"] is None:
            from . import gemm_spinner
            _state["spinner"] = gemm_spinner.Spinner(loops)
    return _state["spinner"]


def _balanced_cut(m, period):
    """The first multiple of `period` from half of m rows on (the caller's block, which starts first, is the
    larger: [60, 784] @ [784, 128] measured 98 µs cut at 36 rows, 127 µs at 24), leaving the second block
    two rows at least (one row would run OpenBLAS's matrix-vector kernel: other bits)."""
    return min(-(-m // (2 * period)) * period, (m - 2) // period * period)


# Each mid-size shape keeps the row where its two blocks meet (a multiple of the kernel's row period, so
# the bits never depend on it), moved one period at a time so that the helper's block, which starts a
# wake-up later, ends just before the caller's: when the caller waited for the helper, the caller takes
# one period more; when the helper was done more than two periods' time early, one period less.
_mid_cuts = {}


def two_row_blocks(a, b, period):
    """`a @ b` (2-D, [m >= 2·period, k] @ [k, n > 1]) in two blocks of rows cut at a multiple of `period`,
    the second on a helper thread: np.matmul's bits when `period` is the kernel's (see MID_MIN_FLOPS)."""
    if np.may_share_memory(a, b):
        # NumPy computes a matrix times its own transpose with syrk, whose bits a split gemm does not give.
        return np.matmul(a, b)
    m = a.shape[0]
    out = np.empty((m, b.shape[1]), np.result_type(a, b))
    spinner = _spinner() if usable_workers() > 1 else None
    if spinner is not None and type(a) is np.ndarray and type(b) is np.ndarray and spinner.busy.acquire(False):
        # The polling helper starts at once: the cut is the balanced one, not the lock helper's learnt one.
        try:
            done = spinner.two_blocks(a, b, out, _balanced_cut(m, period))
        finally:
            spinner.busy.release()
        if done:
            return out
    last = (m - 2) // period * period              # the helper's block keeps two rows or more
    key = (m, a.shape[1], b.shape[1], a.dtype.char)
    cut = _mid_cuts.get(key)
    if cut is None:
        # The caller takes the first block at once, the helper the second after waking: the first is
        # the larger.
        cut = min(-(-(m * 11 // 20) // period) * period, last)
    helper = _mid_helper() if usable_workers() > 1 else None
    if helper is None or not helper.busy.acquire(False):
        np.matmul(a[:cut], b, out=out[:cut])
        np.matmul(a[cut:], b, out=out[cut:])
        return out
    helper.job = (a[cut:], b, out[cut:])
    start = time.perf_counter()
    helper.go.release()
    try:
        np.matmul(a[:cut], b, out=out[:cut])
        mine = time.perf_counter()
    finally:
        helper.done.acquire()          # even after an error here: the helper's block must end first
        error, helper.error = helper.error, None
        helper.busy.release()
    late = helper.finished - mine
    if error is not None:
        raise error
    if late > 0:
        cut = min(cut + period, last)
    elif -late > 2 * (mine - start) * period / cut:
        cut = max(cut - period, period)
    if len(_mid_cuts) >= _MID_SHAPES_KEPT:
        _mid_cuts.clear()
    _mid_cuts[key] = cut
    return out


def _mid_product(a, b, period):
    """`a @ b` for a mid-size product: in two blocks of rows cut at a multiple of `period` (the unsplit
    product's bits) or whole, whichever this shape's timer finds faster (see MID_PROBE_EVERY)."""
    m, k = a.shape
    n = b.shape[1]
    if _spinner_requests[0] < SPINNER_AFTER:
        _spinner_requests[0] += 1
        if _spinner_requests[0] == SPINNER_AFTER:
            jit.build_in_background(_SPINNER_KEY, _build_spinner, "tensorflux-build-gemm-spinner")
    spinner = _spinner() if usable_workers() > 1 and not getattr(_this_thread, "alone", False) else None
    if spinner is not None and not spinner.polling():
        # The polling helper went to sleep (no product for a millisecond): waking an idle core took 100-700
        # µs on this machine, more than the split saves. This product runs whole while the helper wakes,
        # so that the products after it (a training step's next layer or gradient) find it polling.
        spinner.rouse()
        return np.matmul(a, b)
    # The split's times with the polling helper are kept apart from those with the sleeping one.
    key = (m, k, n, a.dtype.char) if spinner is None else (m, k, n, a.dtype.char, "polling")
    times = _mid_times.get(key)
    if times is None:
        if len(_mid_times) >= _MID_SHAPES_KEPT:
            _mid_times.clear()
        # [recent seconds whole, recent seconds split, calls until the other way is tried, that interval]
        times = _mid_times[key] = [[], [], 1, MID_PROBE_EVERY]
    whole, split = _typical(times[0]), _typical(times[1])
    way = 1 if whole is not None and (split is None or split < whole) else 0
    times[2] -= 1
    probe = times[2] <= 0 and split is not None
    if probe:
        way = 1 - way
    if way and getattr(_this_thread, "alone", False):
        return np.matmul(a, b)
    start = time.perf_counter()
    out = two_row_blocks(a, b, period) if way else np.matmul(a, b)
    recent = times[way]
    recent.append(time.perf_counter() - start)
    if len(recent) > _MID_RECENT:
        del recent[0]
    if times[2] <= 0:
        # After a probe of the other way: while it keeps losing, it is tried half as often (a split
        # costs a scheduler slice when the other core is busy); once it wins, the loser is probed soon.
        other = _typical(times[1 - way])
        losing = probe and other is not None and _typical(recent) >= other
        times[3] = min(times[3] * 2, MID_PROBE_MAX) if losing else MID_PROBE_EVERY
        times[2] = times[3]
    return out


def _typical(recent):
    """The median of a way's recent times (None before its first): one stall or one lucky call does not
    decide the way."""
    if not recent:
        return None
    return sorted(recent)[len(recent) // 2]


def matmul(a, b):
    """`np.matmul(a, b)` under this module's thread policy, for every product kernel (MatMul,
    BatchMatMul, einsum, tensordot): OpenBLAS on one thread; a big 2-D product in row blocks (`gemm`);
    a big stack of products with one batch shape in blocks of whole matrices, shared out over the
    worker threads. Each matrix of a stack is computed whole, so a stack gives np.matmul's bits."""
    if _state["workers"] is None:
        _start()
    if a.ndim == 2 and b.ndim == 2 and a.dtype == b.dtype and a.dtype.kind == "f":
        return gemm(a, b)
    if a.ndim < 3 or a.shape[:-2] != b.shape[:-2] or _state["workers"] == 1:
        return np.matmul(a, b)
    m, k = a.shape[-2:]
    n = b.shape[-1]
    batch = a.shape[:-2]
    count = int(np.prod(batch, dtype=np.int64))
    if count < 2 or count * m * k * n < PARALLEL_MIN_FLOPS:
        return np.matmul(a, b)
    flat_a, flat_b = a.reshape((count, m, k)), b.reshape((count, k, n))
    out = np.empty((count, m, n), np.result_type(a, b))
    step = -(-count // BLOCKS)

    def run_block(i):
        lo, hi = i * step, min((i + 1) * step, count)
        np.matmul(flat_a[lo:hi], flat_b[lo:hi], out=out[lo:hi])
    run_blocks(run_block, -(-count // step))
    return out.reshape(batch + (m, n))


def gemm_tn(a, b):
    """`a.T @ b` for 2-D arrays [m, k] and [m, n] sharing a long first axis (a convolution's filter
    gradient: patches by output gradients over every output pixel); big products are computed as
    partial products over blocks of `m` (shared out like gemm's) summed in block order."""
    m, k = a.shape
    n = b.shape[1]
    if m * k * n < PARALLEL_MIN_FLOPS or m < 2 * MIN_BLOCK_ROWS:
        if _state["workers"] is None:
            _start()
        return a.T @ b
    bounds = _bounds(m, BLOCKS)
    partial = [None] * len(bounds)

    def run_block(i):
        lo, hi = bounds[i]
        partial[i] = a[lo:hi].T @ b[lo:hi]
    run_blocks(run_block, len(bounds))
    total = partial[0]
    for p in partial[1:]:
        total += p
    return total
