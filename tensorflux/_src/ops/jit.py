"""The optional numba compiler (`pip install tensorflux[jit]`), imported on first use only, so that
`import tensorflux` never pays for it and everything still runs (more slowly) without it.

Kernels that only speed up an op which already has a NumPy path are built once the op is hot: importing
numba and compiling (or loading numba's on-disk cache) takes 0.3–2 s, which a convolution called once
should not pay. The first `after - 1` requests get None (the caller keeps its NumPy path); the next one
builds in the caller's thread. (A background build was tried: on two cores its GIL-holding import and
compile stretched the concurrent first calls from 40 ms to 600 ms.)
"""
import threading

__all__ = ["numba_or_none", "when_hot", "build_now", "built", "COMPILE_FROM"]

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
