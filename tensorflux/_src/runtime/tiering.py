"""Tiering: a concrete function's graph compiled into one numba kernel, now or in the background.

Two ways in:
- `jit_compile=True` (`tf.function(..., jit_compile=True)`): compiled on the first call, synchronously.
- A hot function: after `threshold()` calls (environment `TENSORFLUX_JIT_THRESHOLD`, default 100; `0`
  turns automatic tiering off; `tf.config.optimizer.set_jit(True)` in TensorFlow's sense makes it 1), or a
  tenth of that for a function holding a While loop (each of its calls is a loop of NumPy calls)
  the kernel is built in a background thread from the arguments of that call; calls keep running the
  generated NumPy code and switch when the kernel is ready, never waiting for it. Only kernels whose
  values are bit-equal to the NumPy path's (`Lowered.exact`) are tiered automatically.
numba is an optional extra (`pip install "tensorflux[jit]"`): without it everything stays on the NumPy
path (and `jit_compile=True` warns once).

A kernel that is one elementwise loop over at least 2^20 elements (`lowering.MapPlan`) is also compiled
as a block function the caller and helper threads share (runtime/blocked_map.py), same bits.

A compiled runner falls back to the NumPy code for a call the kernel raises on (a shape the kernel
cannot broadcast, an update of the wrong shape, say): the kernel changes no state before it raises (the
variables it writes are stored by the runner after it returned, and every check that can raise runs
before an update written in place), so running the graph again gives exactly the NumPy path's result
or error.

Variables: a kernel is passed each captured variable's current value and returns the final values of
those it writes, which the runner stores while holding those variables' locks (see `_serial_runner`);
an update may go into the variable's own array when nothing else holds it ("writing a variable through
its buffer" below).

Disk cache (what a second process reuses): the kernel's source is written to
`$TENSORFLUX_CACHE_DIR` (default `~/.cache/tensorflux/jit`) as `k_<sha256 of source, scalar constants and
versions>.py` (the scalar constants are frozen into the machine code),
and numba's `cache=True` keeps the machine code beside it in `__pycache__`, keyed by numba on its
version, the CPU and the file's timestamp. Trust: the directory must belong to this user and be writable
by nobody else (created 0700; otherwise no disk cache is used). The source executed is always the text
generated in this process — a cache file is never read back and run; it is rewritten when its content
differs from the text we made. numba's own index and object files are read by numba, which trusts that
directory as Python trusts `__pycache__`.
"""
import logging
import os
import threading

import numpy as np

from ..framework import context
from ..ops import jit
from ..ops.math import eigen_float_compiled as _eigen_float_compiled

__all__ = ["threshold", "set_threshold", "compile_now", "compile_in_background", "numba_module"]

logger = logging.getLogger("tensorflux")

_DEFAULT_THRESHOLD = 100
_THRESHOLD = []        # [int], resolved on first use (the environment, or set_threshold)


def threshold():
    """Calls after which a concrete function is compiled in the background (0: never); 1 while
    `tf.config.optimizer.set_jit(True)` is on."""
    if context.get_optimizer_jit():
        return 1
    if not _THRESHOLD:
        try:
            _THRESHOLD.append(max(0, int(os.environ.get("TENSORFLUX_JIT_THRESHOLD", _DEFAULT_THRESHOLD))))
        except ValueError:
            _THRESHOLD.append(_DEFAULT_THRESHOLD)
    return _THRESHOLD[0]


LOOP_FRACTION = 10     # a function holding a While loop tiers after threshold // 10 calls


def loop_threshold(threshold):
    """The calls after which a function is first looked at for tiering: a tenth of `threshold` (at least
    one), when it holds a loop it tiers then; 0 when tiering is off."""
    return min(threshold, max(1, threshold // LOOP_FRACTION)) if threshold else 0


def holds_loop(graph):
    """True when `graph` (its top level) runs a While loop."""
    return any(op.type in ("While", "StatelessWhile") for op in graph.get_operations())


def set_threshold(calls):
    """Sets the call count after which concrete functions made from now on are tiered (0: never)."""
    calls = int(calls)
    if calls < 0:
        raise ValueError(f"`calls` must be >= 0, got {calls}")
    _THRESHOLD[:] = [calls]


def numba_module():
    """numba when installed and not turned off with TENSORFLUX_JIT=off, else None."""
    if os.environ.get("TENSORFLUX_JIT", "").lower() in ("off", "0", "false"):
        return None
    return jit.numba_or_none()


def parallel_available():
    """True when large elementwise loops should use numba's prange: asked for with
    TENSORFLUX_JIT_PARALLEL=1, and numba can run prange loops from several Python threads at once (an
    OpenMP or TBB threading layer; numba's fallback `workqueue` layer aborts on concurrent launches).

    Off by default: prange splits a loop in equal static shares, so one descheduled OpenMP thread holds
    back the call (10 ops on float32[4M]: 7.8 ms serial, 8.3 ms prange with passive OpenMP threads, 27 ms
    with OpenMP's default spinning threads when the cores are shared). A kernel that is one large
    elementwise loop shares claimed blocks over worker threads instead (runtime/blocked_map.py), and the
    NumPy path's fused regions (runtime/fusion.py) keep their two-thread blocks."""
    if os.environ.get("TENSORFLUX_JIT_PARALLEL", "0") != "1":
        return False
    numba = numba_module()
    if numba is None:
        return False
    if _PARALLEL:
        return _PARALLEL[0]
    layer = str(numba.config.THREADING_LAYER).lower()
    ok = False
    if layer in ("default", "safe", "threadsafe", "omp", "tbb"):
        for module in ("numba.np.ufunc.tbbpool", "numba.np.ufunc.omppool"):
            try:
                __import__(module)
            except ImportError:
                continue
            ok = layer != "tbb" or module.endswith("tbbpool")
            if ok:
                break
    _PARALLEL.append(ok)
    return ok


_PARALLEL = []


# -- helpers the kernels call (fixed text, compiled once per process) ----------------------------
_HELPERS_SOURCE = '''
def u_block(a, lo, n):
    # NumPy's pairwise summation (numpy/_core/src/umath/loops_utils.h) of at most 128 elements.
    if n < 8:
        res = a.dtype.type(0)
        for i in range(lo, lo + n):
            res += a[i]
        return res
    r0 = a[lo]; r1 = a[lo + 1]; r2 = a[lo + 2]; r3 = a[lo + 3]
    r4 = a[lo + 4]; r5 = a[lo + 5]; r6 = a[lo + 6]; r7 = a[lo + 7]
    i = 8
    m = n - n % 8
    while i < m:
        j = lo + i
        r0 += a[j]; r1 += a[j + 1]; r2 += a[j + 2]; r3 += a[j + 3]
        r4 += a[j + 4]; r5 += a[j + 5]; r6 += a[j + 6]; r7 += a[j + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[lo + i]
        i += 1
    return res


def u_pairwise(a, lo, n):
    # NumPy's recursion (halves rounded down to a multiple of 8, left + right) walked with an explicit
    # stack: numba's disk cache does not take recursive functions.
    if n <= 128:
        return u_block(a, lo, n)
    frame_lo = np.empty(128, np.int64)
    frame_n = np.empty(128, np.int64)
    frame_state = np.zeros(128, np.int64)
    frame_left = np.zeros(128, a.dtype)
    top = 0
    frame_lo[0] = lo
    frame_n[0] = n
    result = a.dtype.type(0)
    returned = False
    while True:
        here, size = frame_lo[top], frame_n[top]
        half = size // 2
        half -= half % 8
        if not returned:               # a new frame: its left half first
            frame_state[top] = 1
            child_lo, child_n = here, half
        elif frame_state[top] == 1:    # the left half returned: the right half next
            returned = False
            frame_left[top] = result
            frame_state[top] = 2
            child_lo, child_n = here + half, size - half
        else:                          # both returned
            result = frame_left[top] + result
            if top == 0:
                return result
            top -= 1
            continue
        if child_n <= 128:
            result = u_block(a, child_lo, child_n)
            returned = True
        else:
            top += 1
            frame_lo[top] = child_lo
            frame_n[top] = child_n
            frame_state[top] = 0


def u_pairwise_total(a):
    flat = np.ascontiguousarray(a).reshape(-1)
    return a.dtype.type(0) + u_pairwise(flat, 0, flat.size)


def u_eigen_lane(a, lo, blocked, packed, j):
    # Lane j (0..7) of Eigen's run (ops/math/eigen_sum.py): its four accumulators' running sums over the
    # blocks of 32 (from +0), combined ((a0 + a1) + a2) + a3, then the leftover packets' lane j. Scalars
    # only: a heap array per sum cost more than the sum of a small vector inside a loop.
    l0 = np.float32(0.0)
    l1 = np.float32(0.0)
    l2 = np.float32(0.0)
    l3 = np.float32(0.0)
    for s in range(lo + j, lo + blocked, 32):
        l0 = np.float32(l0 + a[s])
        l1 = np.float32(l1 + a[s + 8])
        l2 = np.float32(l2 + a[s + 16])
        l3 = np.float32(l3 + a[s + 24])
    acc = np.float32(np.float32(np.float32(l0 + l1) + l2) + l3)
    for s in range(lo + blocked + j, lo + packed, 8):
        acc = np.float32(acc + a[s])
    return acc


def u_eigen_leaf(a, lo, n):
    # TensorFlow's (Eigen's) float32 run of at most 8192 values: the eight lanes folded as
    # (l0+l4 + l2+l6) + (l1+l5 + l3+l7), added to the running sum of the last n % 8 values.
    packed = n - n % 8
    tail = np.float32(0.0)
    for i in range(lo + packed, lo + n):
        tail = np.float32(tail + a[i])
    if packed == 0:     # every lane is +0
        return np.float32(tail + np.float32(0.0))
    blocked = n - n % 32
    h0 = np.float32(u_eigen_lane(a, lo, blocked, packed, 0) + u_eigen_lane(a, lo, blocked, packed, 4))
    h1 = np.float32(u_eigen_lane(a, lo, blocked, packed, 1) + u_eigen_lane(a, lo, blocked, packed, 5))
    h2 = np.float32(u_eigen_lane(a, lo, blocked, packed, 2) + u_eigen_lane(a, lo, blocked, packed, 6))
    h3 = np.float32(u_eigen_lane(a, lo, blocked, packed, 3) + u_eigen_lane(a, lo, blocked, packed, 7))
    folded = np.float32(np.float32(h0 + h2) + np.float32(h1 + h3))
    return np.float32(tail + folded)


def u_eigen_run(a, lo, n):
    # Eigen's split of a run longer than 8192 at a packet boundary (counted from the tensor's start),
    # left + right, walked with an explicit stack like u_pairwise.
    if n <= 8192:
        return u_eigen_leaf(a, lo, n)
    frame_lo = np.empty(128, np.int64)
    frame_n = np.empty(128, np.int64)
    frame_state = np.zeros(128, np.int64)
    frame_left = np.zeros(128, np.float32)
    top = 0
    frame_lo[0] = lo
    frame_n[0] = n
    result = np.float32(0.0)
    returned = False
    while True:
        here, size = frame_lo[top], frame_n[top]
        at = 8 * ((here + (size + 1) // 2 + 7) // 8)
        left = min(at - here, size)
        if not returned:
            frame_state[top] = 1
            child_lo, child_n = here, left
        elif frame_state[top] == 1:
            returned = False
            frame_left[top] = result
            frame_state[top] = 2
            child_lo, child_n = at, size - left
        else:
            result = np.float32(frame_left[top] + result)
            if top == 0:
                return result
            top -= 1
            continue
        if child_n <= 8192:
            result = u_eigen_leaf(a, child_lo, child_n)
            returned = True
        else:
            top += 1
            frame_lo[top] = child_lo
            frame_n[top] = child_n
            frame_state[top] = 0


def u_eigen_total(a, max_threads):
    # A float32 full sum as TensorFlow's CPU kernel adds it: Eigen's cost model picks the threads
    # (31/16 cycles a value), each block of n // threads is summed as a run, then the remainder block
    # plus each block in order (ops/math/eigen_sum.py).
    return u_eigen_flat_total(np.ascontiguousarray(a).reshape(-1), max_threads)


def u_eigen_flat_total(flat, max_threads):
    # u_eigen_total of a 1-D array (the kernels call it directly for rank-1 values: no reshaped view)
    n = flat.size
    if n <= 8192:           # one run, on one thread
        return np.float32(np.float32(0.0) + u_eigen_leaf(flat, 0, n))
    threads = int((n * 1.9375 - 100000.0) / 100000.0 + 0.9)
    threads = max(1, min(max_threads, threads))
    if threads == 1:
        return np.float32(np.float32(0.0) + u_eigen_run(flat, 0, n))
    block = n // threads
    blocks = n // block
    total = np.float32(0.0)
    if blocks * block < n:
        total = u_eigen_run(flat, blocks * block, n - blocks * block)
    for i in range(blocks):
        total = np.float32(total + u_eigen_run(flat, i * block, block))
    return total


def u_max_total(a):
    # NumPy's max: NaN wins; TensorFlow's empty reduction is the lowest value; of tied values (-0.0 and
    # +0.0) the last, as TensorFlow and the NumPy path (reduce._last_zero_sign).
    flat = np.ascontiguousarray(a).reshape(-1)
    best = a.dtype.type(-np.inf)
    for i in range(flat.size):
        v = flat[i]
        if v != v:
            return v
        if v >= best:
            best = v
    return best


def u_min_total(a):
    flat = np.ascontiguousarray(a).reshape(-1)
    best = a.dtype.type(np.inf)
    for i in range(flat.size):
        v = flat[i]
        if v != v:
            return v
        if v <= best:
            best = v
    return best


def u_imax_total(a, lowest):
    flat = np.ascontiguousarray(a).reshape(-1)
    best = lowest
    for i in range(flat.size):
        if flat[i] > best:
            best = flat[i]
    return best


def u_imin_total(a, highest):
    flat = np.ascontiguousarray(a).reshape(-1)
    best = highest
    for i in range(flat.size):
        if flat[i] < best:
            best = flat[i]
    return best
'''

_HELPERS = {}
_LOCK = threading.Lock()


# -- writing a variable through its buffer -----------------------------------------------------------
# A kernel may write an update into the variable's own array (lowering.py's in-place updates) when that
# array is held by nothing but the variable: the proof of ops/state.py's in-place loops, made inside the
# kernel. The runner passes the variable's value and its resource's `probe` (a private array nothing else
# touches) the same way, so whatever the call adds counts for both; `u_unshared` compares the two objects'
# reference counts and reads the array's flags (C-contiguous, aligned, writeable, owning its data: a view
# would leave its base unchecked). Such kernels are compiled without `nogil`: holding the GIL from the
# count to the last store, no other thread can take the array meanwhile (reads take no lock).
_NPY_NEEDED = 0x0001 | 0x0004 | 0x0100 | 0x0400    # C_CONTIGUOUS | OWNDATA | ALIGNED | WRITEABLE


def _flags_offset():
    """The byte offset of `flags` in NumPy's array object (PyArrayObject_fields, part of NumPy's ABI), or
    None when reading it there does not give the flags of test arrays (then nothing is written in place)."""
    import ctypes
    gil = getattr(__import__("sys"), "_is_gil_enabled", None)
    if gil is not None and not gil():
        return None       # free-threaded: no count is stable, and holding the GIL excludes nobody

    class Fields(ctypes.Structure):
        _fields_ = [("ob_refcnt", ctypes.c_ssize_t), ("ob_type", ctypes.c_void_p), ("data", ctypes.c_void_p),
                    ("nd", ctypes.c_int), ("dimensions", ctypes.c_void_p), ("strides", ctypes.c_void_p),
                    ("base", ctypes.c_void_p), ("descr", ctypes.c_void_p), ("flags", ctypes.c_int)]
    offset = Fields.flags.offset
    owner = np.ones(8, np.float32)
    frozen = np.ones(8, np.float32)
    frozen.setflags(write=False)
    for array in (owner, owner[::2], owner[1:], frozen):
        flags = ctypes.c_int.from_address(id(array) + offset).value
        expected = (array.flags.c_contiguous, array.flags.owndata, array.flags.aligned, array.flags.writeable)
        if ((flags & 0x1) != 0, (flags & 0x4) != 0, (flags & 0x100) != 0, (flags & 0x400) != 0) != expected:
            return None
    if ctypes.c_ssize_t.from_address(id(owner)).value != __import__("sys").getrefcount(owner) - 1:
        return None       # ob_refcnt is not the first word (a debug build)
    return offset


def _in_place_intrinsics(numba):
    """`u_unshared(array, probe)` (the proof above) and `u_writable(array)` (a read-only typed array as
    a writable one: the kernels are compiled for read-only arguments)."""
    from llvmlite import ir
    from numba.core import imputils
    from numba.extending import intrinsic
    offset = _flags_offset()

    @intrinsic
    def u_unshared(typingctx, array, probe):
        def codegen(context, builder, signature, args):
            bit = ir.IntType(1)
            if offset is None:
                return ir.Constant(bit, 0)
            word, flag = ir.IntType(64), ir.IntType(32)
            a = context.make_array(signature.args[0])(context, builder, args[0]).parent
            p = context.make_array(signature.args[1])(context, builder, args[1]).parent
            null = ir.Constant(a.type, None)
            result = builder.alloca(bit)
            builder.store(ir.Constant(bit, 0), result)
            # no PyObject (an array made in compiled code): never written here
            both = builder.and_(builder.icmp_unsigned("!=", a, null), builder.icmp_unsigned("!=", p, null))
            with builder.if_then(both):
                counts = builder.icmp_signed("==", builder.load(builder.bitcast(a, word.as_pointer())),
                                             builder.load(builder.bitcast(p, word.as_pointer())))
                at = builder.gep(builder.bitcast(a, ir.IntType(8).as_pointer()), [ir.Constant(word, offset)])
                flags = builder.and_(builder.load(builder.bitcast(at, flag.as_pointer())),
                                     ir.Constant(flag, _NPY_NEEDED))
                builder.store(builder.and_(counts, builder.icmp_unsigned("==", flags, ir.Constant(flag, _NPY_NEEDED))),
                              result)
            return builder.load(result)
        return numba.types.boolean(array, probe), codegen

    @intrinsic
    def u_writable(typingctx, array):
        def codegen(context, builder, signature, args):
            return imputils.impl_ret_borrowed(context, builder, signature.return_type, args[0])
        return array.copy(readonly=False)(array), codegen

    return {"u_unshared": u_unshared, "u_writable": u_writable}


def new_probe():
    """A resource's probe (ops/state.py): a private array whose reference count is the yardstick."""
    return np.empty(0, np.int8)


def _helpers(numba):
    if not _HELPERS:
        namespace = {"np": np, "__name__": __name__}   # importable: see `build`
        exec(compile(_HELPERS_SOURCE, "<tensorflux kernel helpers>", "exec"), namespace)
        options = dict(nogil=True, error_model="numpy", cache=False)
        built = {}
        # Eigen's float32 tanh, the same compiled function the NumPy path's loop uses (the NumPy path's bits)
        built["u_eigen_tanh"] = namespace["u_eigen_tanh"] = _eigen_float_compiled.tanh_scalar(numba)
        for name in ("u_block", "u_pairwise", "u_pairwise_total", "u_eigen_lane", "u_eigen_leaf", "u_eigen_run",
                     "u_eigen_flat_total", "u_eigen_total", "u_max_total", "u_min_total", "u_imax_total", "u_imin_total"):
            built[name] = namespace[name] = numba.njit(**options)(namespace[name])
        built.update(_in_place_intrinsics(numba))
        _HELPERS.update(built)
    return _HELPERS


def _helpers_version():
    """What the kernels' machine code depends on besides their own source: the helpers' text (numba's
    cache inlines them into each kernel, so a changed helper must not reuse an old kernel)."""
    if not _HELPERS_VERSION:
        from . import blocked_map   # here, not at import: only compiling needs it
        code = []
        import sys      # this module too: its intrinsics (the in-place proof) are compiled into kernels
        for module in (_eigen_float_compiled, blocked_map, sys.modules[__name__]):
            try:
                with open(module.__file__, "rb") as f:
                    code.append(f.read())
            except OSError:
                code.append(b"")
        import hashlib
        _HELPERS_VERSION.append(hashlib.sha256(b"\0".join([_HELPERS_SOURCE.encode(), *code])).hexdigest())
    return _HELPERS_VERSION[0]


_HELPERS_VERSION = []


# -- the disk cache ------------------------------------------------------------------------------
def cache_dir():
    """The kernel cache directory, or None when it is missing and cannot be made, or is not private."""
    path = os.environ.get("TENSORFLUX_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache",
                                                                 "tensorflux", "jit")
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
        info = os.stat(path)
    except OSError:
        return None
    if hasattr(os, "geteuid") and info.st_uid != os.geteuid() or info.st_mode & 0o022:
        logger.warning("tensorflux: not caching compiled kernels in %s: it must belong to this user and be "
                       "writable by nobody else", path)
        return None
    return path


def _source_file(source, key):
    """The path of the cache file holding exactly `source` (written atomically when missing or different),
    or None when there is no usable cache directory."""
    directory = cache_dir()
    if directory is None:
        return None
    path = os.path.join(directory, f"k_{key}.py")
    data = source.encode("ascii")
    try:
        with open(path, "rb") as f:
            if f.read(len(data) + 1) == data:
                return path
    except OSError:
        pass
    try:
        import tempfile   # here, not at import: tempfile pulls in shutil and the compressors (~10 ms)
        fd, temporary = tempfile.mkstemp(prefix=f".k_{key}.", suffix=".tmp", dir=directory)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(temporary, path)
    except OSError:
        return None
    return path


# -- compiling -------------------------------------------------------------------------------------
class KernelMismatch(Exception):
    """numba typed a kernel's results differently from the graph (a dtype or rank): not used."""


def _argument_type(value, numba):
    if isinstance(value, np.ndarray):
        return numba.types.Array(numba.from_dtype(value.dtype), value.ndim, "C", readonly=True)
    return numba.typeof(value)


def build(lowered, numba, sample_args):
    """A runner `run(*arrays) -> tuple of outputs` for `lowered`, compiled for the types of `sample_args`.
    Raises whatever numba raises when it cannot compile the kernel."""
    helpers = _helpers(numba)
    import hashlib   # here, not at import (~3 ms): only a compilation needs a cache key
    frozen = "\0".join(f"{c}={np.asarray(v).dtype.str}:{np.asarray(v).tobytes().hex()}" for c, v in lowered.frozen)
    key = hashlib.sha256("\0".join((lowered.source, frozen, numba.__version__, np.__version__, _helpers_version()))
                         .encode()).hexdigest()[:32]
    name = f"k_{key[:16]}"
    source = lowered.source.replace(f"def {lowered.name}(", f"def {name}(", 1)
    source = source.replace(f"def {lowered.name}_block(", f"def {name}_block(", 1)
    path = _source_file(source, key)
    # `__name__` names this (importable) module: numba's cache rebuilds a kernel's environment by
    # importing it, which fails for a made-up name.
    namespace = {"np": np, "__name__": __name__, **helpers, **dict(lowered.frozen)}
    if lowered.map is not None:
        from . import blocked_map
        namespace["u_claim"] = blocked_map.claim(numba)
    exec(compile(source, path or f"<tensorflux kernel {name}>", "exec"), namespace)
    if lowered.parallel:
        namespace["prange"] = numba.prange
    # A kernel that may write a variable in place holds the GIL (see "writing a variable through its buffer")
    kernel = numba.njit(nogil=not lowered.probes, error_model="numpy", cache=path is not None,
                        parallel=lowered.parallel)(namespace[name])
    # Compiled once, for read-only C-contiguous arrays (which writable ones also match), and never again:
    # a call with other argument types (a strided view) fails to dispatch and takes the NumPy path.
    sample_args = list(sample_args)
    for variable in lowered.variables:    # a variable's kernel input is its value (the runner reads it)
        sample_args[variable.position] = np.asarray(sample_args[variable.position].value)
    scalars = [a[()] if scalar else a for a, scalar in zip(sample_args, lowered.scalar_inputs)]
    probes = [new_probe() for _ in lowered.probes]
    signature = tuple(_argument_type(a, numba) for a in (*scalars, *probes, *lowered.constants))
    kernel.compile(signature)
    kernel.disable_compile()
    _check_types(lowered, kernel.overloads[signature].signature.return_type, numba)
    block = None
    if lowered.map is not None:
        # The loop again, sharing blocks between threads (blocked_map.py): the sliced arguments and the
        # stores as 1-D C-contiguous arrays of their dtypes, the other arguments typed as for the kernel.
        plan = lowered.map
        block = numba.njit(nogil=True, error_model="numpy", cache=path is not None)(namespace[f"{name}_block"])
        block_signature = [numba.types.Array(t.dtype, 1, "C", readonly=True) if k in plan.sliced else t
                           for k, t in enumerate(signature)]
        block_signature += [numba.types.Array(numba.from_dtype(np.dtype(d)), 1, "C") for d in plan.stores]
        block_signature += [numba.types.Array(numba.types.int64, 1, "C"), numba.types.int64, numba.types.int64]
        block.compile(tuple(block_signature))
        block.disable_compile()
    return _runner(lowered, kernel, block=block)


def _runner(lowered, kernel, fallback=None, block=None):
    """The runner of `kernel` (below); for a kernel that is one large elementwise loop with its `block`
    function compiled, the runner that shares its blocks out over the cores (blocked_map.py)."""
    run = _serial_runner(lowered, kernel, fallback)
    if block is None:
        return run
    from . import blocked_map   # here, not at import: only a kernel over millions of elements needs it
    return blocked_map.runner(lowered, block, run, fallback)


def _serial_runner(lowered, kernel, fallback=None):
    """`run(*arrays)`: unwraps rank-0 arguments, adds the constants, converts scalar results back to their
    dtype (numba returns Python numbers); with `fallback`, a call the kernel raises on runs `fallback`
    instead. Generated from indices only, so the call is one Python frame.

    A variable's argument is its VariableResource: the kernel is passed its value, and the final values
    of the variables it writes are stored back after it returned, all under those variables' locks (taken
    in the order of their ids, so two kernels never wait for each other; ops/state.py's updates hold the
    same locks), so no update of another thread is lost between the kernel's read and its store. A kernel
    that raises has stored nothing: the fallback runs the whole graph afresh."""
    n = len(lowered.scalar_inputs)
    params = ", ".join(f"a{k}" for k in range(n))
    variables = {v.position: v for v in lowered.variables}
    args = []
    for k, scalar in enumerate(lowered.scalar_inputs):
        value = f"a{k}.value" if k in variables else f"a{k}"
        args.append(f"{value}[()]" if scalar else value)
    # The probes of the variables the kernel may write in place, passed as their values are (see
    # "writing a variable through its buffer"); a resource without one gets one under its lock.
    args += [f"a{k}.probe" for k in lowered.probes]
    args += [f"c{k}" for k in range(len(lowered.constants))]
    results = [f"o[{k}]" if rank else f"t{k}(o[{k}])"
               for k, (_, rank) in enumerate(lowered.outputs[:lowered.n_results])]
    written = [v for v in lowered.variables if v.output is not None]
    # A variable the kernel may write in place gets a new array it allocated (when something held the old
    # one) as a NumPy copy: numba's arrays do not own their data (their base is numba's memory record,
    # which two arrays may share), so the proof never passes for them and every later update would
    # allocate again. In place, the kernel returns the variable's own array object.
    stores = [f"a{v.position}.value = o[{v.output}] if o[{v.output}] is a{v.position}.value else own(o[{v.output}])"
              if v.position in lowered.probes else
              f"a{v.position}.value = o[{v.output}]" if v.rank else f"a{v.position}.value = t{v.output}(o[{v.output}])"
              for v in written]
    call = f"o = kernel({', '.join(args)})"
    probes = [f"if a{k}.probe is None: a{k}.probe = new_probe()" for k in lowered.probes]
    body = [*probes, call, *stores]
    # A kernel that wrote a variable in place cannot be run again: every check that can raise runs
    # before its first in-place write (lowering.py), so only a failed allocation can come after one,
    # and that is raised as it is, not retried on the NumPy path.
    memory = ["except MemoryError:", "    raise"] if lowered.probes else []
    if not written and fallback is None:
        lines = body
    elif not written:
        lines = ["try:", *("    " + b for b in body), "except Exception:", f"    return fallback({params})"]
    elif len(written) == 1:     # one lock: a `with` block (cheaper than the list below)
        lines = [f"with a{written[0].position}.lock:"]
        if fallback is None:
            lines += ["    " + b for b in body]
        else:
            lines += [*("    " + b for b in probes), "    try:", f"        {call}",
                      *("    " + m for m in memory), "    except Exception:", "        o = None", "    else:",
                      *("        " + b for b in stores), "if o is None:", f"    return fallback({params})"]
    else:
        lines = [f"held = locks_of({', '.join(f'a{v.position}' for v in written)})",
                 "for lock in held:", "    lock.acquire()", "o = None", "try:",
                 *("    " + b for b in body)]
        if fallback is not None:
            lines += [*memory, "except Exception:", "    pass"]
        lines += ["finally:", "    for lock in held:", "        lock.release()"]
        if fallback is not None:
            lines += ["if o is None:", f"    return fallback({params})"]
    if results == [f"o[{k}]" for k in range(len(lowered.outputs))]:
        returned = "o"      # the kernel's own tuple: arrays only, no variable's value after them
    else:
        returned = f"({', '.join(results)}{',' if len(results) == 1 else ''})"
    source = f"def run({params}):\n" + "".join(f"    {line}\n" for line in lines) + f"    return {returned}\n"
    namespace = {"kernel": kernel, "fallback": fallback, "locks_of": _locks_of, "new_probe": new_probe, "own": np.array}
    namespace.update((f"c{k}", c) for k, c in enumerate(lowered.constants))
    namespace.update((f"t{k}", np.dtype(d).type) for k, (d, _) in enumerate(lowered.outputs))
    exec(compile(source, "<tensorflux kernel runner>", "exec"), namespace)
    run = namespace["run"]
    run.kernel = kernel
    run.block = None
    run.lowered = lowered
    return run


def _locks_of(*resources):
    """The locks of the variables a kernel writes, in the order of the variables' ids (one global order:
    two kernels writing the same variables never hold one lock each while waiting for the other's)."""
    return [r.lock for r in sorted(resources, key=_resource_id)]


def _resource_id(resource):
    return resource.id


def _check_types(lowered, return_type, numba):
    types = list(return_type)
    for (dtype, rank), t in zip(lowered.outputs, types):
        got_rank = getattr(t, "ndim", 0)
        got = np.dtype(numba.np.numpy_support.as_dtype(getattr(t, "dtype", t)))
        if got_rank != rank or got != np.dtype(dtype):
            raise KernelMismatch(f"numba gives {t} for a {dtype} value of rank {rank}")


def guarded(runner, fallback):
    """`runner`, falling back to `fallback` for a call it raises on (a kernel that raised stored no
    variable): the same generated runner with a try around the kernel call (no extra frame)."""
    return _runner(runner.lowered, runner.kernel, fallback, runner.block)


def compile_now(lowered, sample_args):
    """The runner for `lowered`, compiled synchronously, or None without numba."""
    numba = numba_module()
    if numba is None:
        return None
    with _LOCK:
        return build(lowered, numba, sample_args)


def compile_in_background(lowered, sample_args, done):
    """Compiles `lowered` in a daemon thread and calls `done(runner)` when it is ready (never on failure)."""
    numba = numba_module()
    if numba is None:
        return None
    sample_args = list(sample_args)   # eager values are never written to: no copy needed

    def work():
        try:
            with _LOCK, jit.background_compile():
                runner = build(lowered, numba, sample_args)
        except Exception as e:   # the NumPy path stays; tiering is an optimisation only
            logger.debug("tensorflux: background compile failed: %s", e)
            return
        done(runner)

    thread = threading.Thread(target=work, name="tensorflux-jit", daemon=True)
    thread.start()
    return thread
