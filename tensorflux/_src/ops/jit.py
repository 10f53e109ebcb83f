"""The optional numba compiler (`pip install tensorflux[jit]`), imported on first use only, so that
`import tensorflux` never pays for it and everything still runs (more slowly) without it.

Kernels that only speed up an op which already has a NumPy path are built once the op is hot: importing
numba and compiling (or loading numba's on-disk cache) takes 0.3–2 s, which a convolution called once
should not pay. The first `after - 1` requests get None (the caller keeps its NumPy path); the next one
builds in the caller's thread. (A background build was tried: on two cores its GIL-holding import and
compile stretched the concurrent first calls from 40 ms to 600 ms.)
"""
import sys
import threading
import warnings

__all__ = ["numba_or_none", "when_hot", "build_now", "built", "COMPILE_FROM", "background_compile",
           "build_in_background", "entry_point", "any_vector", "HotOnSmall", "SMALL_HOT_CALLS"]

# Inputs smaller than this never make a kernel get built (they use it once built): the NumPy form costs
# microseconds there, and importing and compiling numba costs a second -- a program's first small ops
# must not wait for a compiler.
COMPILE_FROM = 1 << 15

_MODULE = []      # [numba module or None], resolved on first use
_BUILT = {}       # key -> build result, or False when numba is missing or the build failed
_REQUESTS = {}    # key -> requests so far, while not built
_LOCK = threading.Lock()


def numba_or_none():
    if not _MODULE:
        try:
            import numba as module
        except ImportError:
            module = None
        _MODULE.append(module)
    return _MODULE[0]


def when_hot(key, build, after, size=None):
    """`build(numba)`'s result from the `after`-th request on (built by that request); None before,
    and None for good when numba is not installed or the build raised. A request for an input of `size`
    values below COMPILE_FROM neither counts nor builds: it gets the kernel only if already built."""
    result = _BUILT.get(key)
    if result is not None:
        return result or None
    if size is not None and size < COMPILE_FROM:
        return None
    count = _REQUESTS[key] = _REQUESTS.get(key, 0) + 1
    return build_now(key, build) if count >= after else None


def built(key):
    """What `when_hot`/`build_now` built for `key`, or None if nothing is built yet (never builds)."""
    return _BUILT.get(key) or None


def build_now(key, build):
    """`build(numba)`'s result, built now unless it already was (None without numba or after a failure)."""
    with _LOCK:
        if key not in _BUILT:
            numba = numba_or_none()
            try:
                _BUILT[key] = build(numba) if numba is not None else False
            except Exception:   # a compiler failure leaves the NumPy path in place; it is never retried
                _BUILT[key] = False
    return _BUILT[key] or None


# numba compiles inside `warnings.catch_warnings` blocks. Before Python 3.14 their state (the filters, the
# showwarning hook) is the whole process's, so a compile running on a background thread would swallow, or
# reorder, the warnings the program's own threads raise meanwhile (and undo a `catch_warnings` the
# program entered). In a thread marked by `background_compile()` those blocks therefore do nothing; numba
# still adds its NumbaWarning filters, which concern only its own warnings.
_COMPILING = threading.local()


class _CatchWarningsOutsideBackgroundCompiles(warnings.catch_warnings):
    """`warnings.catch_warnings`, inert in a thread compiling in the background (see above)."""

    def __enter__(self):
        if getattr(_COMPILING, "on", False):
            return [] if self._record else None
        return super().__enter__()

    def __exit__(self, *exc_info):
        if getattr(_COMPILING, "on", False):
            return None
        return super().__exit__(*exc_info)


class background_compile:
    """Marks the current thread as a background compiler for the duration (see above)."""

    def __enter__(self):
        if warnings.catch_warnings is _ORIGINAL_CATCH_WARNINGS:   # installed once; never over someone else's
            warnings.catch_warnings = _CatchWarningsOutsideBackgroundCompiles
        _COMPILING.on = True
        return self

    def __exit__(self, *exc_info):
        _COMPILING.on = False
        return None


_ORIGINAL_CATCH_WARNINGS = warnings.catch_warnings


def build_in_background(key, build, name):
    """Starts a daemon thread building `key` (see `build_now`) as a background compiler."""
    def work():
        with background_compile():
            build_now(key, build)
    thread = threading.Thread(target=work, name=name, daemon=True)
    thread.start()
    return thread


# -- kernels for small inputs, built in the background once an op is hot on them ---------------------
# An op called on a few values inside a loop (a loss sum, tanh in a While body) spends microseconds in
# its NumPy form where a compiled loop takes under one. Its kernel is built in a daemon thread, and calls
# go on with the NumPy form until it is published, never waiting for it. When to start is a rent-or-buy
# choice: once numba is loaded in the process (the kernel is then a load from numba's disk cache, tens of
# milliseconds, or a compile of about a second), after SMALL_HOT_CALLS calls on small inputs; otherwise
# the build would first import and initialise numba, 1-4 s of CPU that also holds the GIL against the
# program's own thread (the calls meanwhile run at half speed or less), so only after
# SMALL_HOT_CALLS_COLD calls, about a second of the NumPy forms' time: a program's first small ops never
# import a compiler.
SMALL_HOT_CALLS = 1000
SMALL_HOT_CALLS_COLD = 100_000

_ENTRY_OWNERS = []    # the dispatchers whose entry points were handed out


def entry_point(dispatcher, signature):
    """The compiled `signature` overload of numba `dispatcher` as a plain callable: no type dispatch, and
    no check of its arguments either (numba reads any array as the compiled dtype, rank and layout), so
    callers pass exactly what it was compiled for. The dispatcher is kept alive for the process: its
    entry points die with it."""
    entry = dispatcher.compile(signature)
    _ENTRY_OWNERS.append(dispatcher)
    return entry


def any_vector(numba, dtype):
    """numba's type for every 1-D array of `dtype`: any strides, aligned or not (loads of one byte
    alignment are the same instructions on the CPUs numba targets), so its kernels take any vector."""
    return numba.types.Array(dtype, 1, "A", aligned=False)


class HotOnSmall:
    """A kernel for small inputs built in the background: `kernel` is None until it is ready, then what
    `build(numba)` returned (still None without numba or after a failed build, never retried). Callers
    without a kernel call `count()` once per call; the build starts at the `after`-th count when numba is
    already loaded, at the `after_cold`-th otherwise (see above).

    The build takes no lock the program's thread might wait on (`build_now`'s is per kernel): it can sit
    behind numba's own compiler lock for as long as another compile runs (a tiered function, seconds)."""

    __slots__ = ("key", "build", "after", "after_cold", "calls", "kernel", "started", "_lock")

    def __init__(self, key, build, after=SMALL_HOT_CALLS, after_cold=SMALL_HOT_CALLS_COLD):
        self.key, self.build, self.after, self.after_cold = key, build, after, after_cold
        self.calls = 0
        self.kernel = None
        self.started = False
        self._lock = threading.Lock()

    def count(self):
        self.calls = calls = self.calls + 1
        if calls >= self.after and not self.started and (calls >= self.after_cold or "numba" in sys.modules):
            self.started = True
            self._start()

    def _start(self):
        threading.Thread(target=self._build_in_background, name=f"tensorflux-{self.key}-build",
                         daemon=True).start()

    def build_now(self):
        """Builds in this thread, unless built or tried already, and returns the kernel (tests,
        benchmarks; waits for a background build under way)."""
        self.started = True
        with self._lock:
            if not self._tried():
                self._build()
        return self.kernel

    def _tried(self):
        return self.kernel is not None or _BUILT.get(self.key) is False

    def _build_in_background(self):
        with background_compile(), self._lock:
            if not self._tried():
                self._build()

    def _build(self):
        numba = numba_or_none()
        try:
            kernel = self.build(numba) if numba is not None else None
        except Exception:   # a compiler failure leaves the NumPy form in place; it is never retried
            kernel = None
        _BUILT[self.key] = kernel if kernel is not None else False
        self.kernel = kernel
