"""The optional numba compiler (`pip install tensorflux[jit]`), imported on first use only, so that
`import tensorflux` never pays for it and everything still runs (more slowly) without it."""

__all__ = ["numba_or_none", "compiled"]

_MODULE = []      # [numba module or None], resolved on first use
_COMPILED = {}    # plain Python function -> its numba dispatcher


def numba_or_none():
    if not _MODULE:
        try:
            import numba as module
        except ImportError:
            module = None
        _MODULE.append(module)
    return _MODULE[0]


def compiled(fn):
    """`fn` compiled by numba (single-threaded, GIL released, cached on disk next to its module), or
    None when numba is not installed. Serial on purpose: callers interleave these loops with BLAS calls,
    and numba's worker threads spinning next to OpenBLAS's on two cores cost more than they gain."""
    numba = numba_or_none()
    if numba is None:
        return None
    kernel = _COMPILED.get(fn)
    if kernel is None:
        kernel = _COMPILED[fn] = numba.njit(nogil=True, cache=True)(fn)
    return kernel
