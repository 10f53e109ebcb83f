"""The optional numba compiler (`pip install tensorflux[jit]`), imported on first use only, so that
`import tensorflux` never pays for it and everything still runs (more slowly) without it.

Kernels that only speed up an op which already has a NumPy path are built once the op is hot: importing
numba and compiling (or loading numba's on-disk cache) takes 0.3–2 s, which a convolution called once
should not pay. The first `after - 1` requests get None (the caller keeps its NumPy path); the next one
builds in the caller's thread. (A background build was tried: on two cores its GIL-holding import and
compile stretched the concurrent first calls from 40 ms to 600 ms.)
"""
import threading
import warnings

__all__ = ["numba_or_none", "when_hot", "build_now", "built", "COMPILE_FROM", "background_compile",
           "build_in_background"]

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
