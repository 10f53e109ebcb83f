"""Fusion of elementwise chains over large arrays into one blocked, multi-threaded pass.

A chain such as `((x * 1.5 + 2) ** 2 - 1) / 3` on a [4_000_000] vector costs one full memory pass per
op when each op is a NumPy call. A fused region instead walks the data in cache-sized blocks and applies
every op of the region to a block before moving on, so the large arrays are read once and written once;
the blocks are shared between two threads (NumPy ufuncs and the compiled loops release the GIL).

Parity: a fused region returns exactly the bits the eager ops would (NaN payloads aside). Within a block
each op is either the very NumPy ufunc its eager kernel calls (`opdef.inplace`), or, when numba is
installed, part of a compiled loop over a run of ops IEEE 754 defines as correctly rounded or exact
(+, -, *, /, sqrt, negation, abs, square, max, min) -- there any compiler must give NumPy's bits.
Transcendental functions (exp, log, sin, cos, tanh) stay NumPy calls: NumPy has its own SIMD versions
where numba calls libm, and the two differ in the last bit on 3-26% of float32 inputs (tanh on 10% of
float64 inputs). numba has no float16 or bfloat16, so those dtypes use ufunc calls only, which compute
them as eager does (through float32, rounded after each op).

Invariants: a region holds ops whose OpDef names an exact NumPy ufunc (`opdef.inplace`), whose output
has a fully known static shape of at least `FUSE_MIN_ELEMENTS` elements and a float dtype, and whose
inputs are either of that same shape and dtype or scalar constants. Values used outside the region
(or returned) are written to full-size arrays; the rest live only in per-thread block buffers or in
registers of a compiled loop.

    fused_1 = Fused([...ops...])        # codegen: `y, = fused_1(x)` replaces ten generated lines
"""
import collections
import os

import numpy as np

from ..ops import jit

__all__ = ["find_regions", "region_interface", "make_fused", "FUSE_MIN_ELEMENTS", "BLOCK", "COMPILED_UFUNCS",
           "RUNS"]

FUSE_MIN_ELEMENTS = 1 << 18     # smaller arrays stay in cache anyway: plain calls are faster
BLOCK = 1 << 15                 # elements per block (128 KiB of float32 per buffer)
_THREADS = max(1, min(2, os.cpu_count() or 1))
_POOL = []

# Ufuncs a compiled loop may compute: IEEE 754 results are exact or correctly rounded, so numba's code
# gives NumPy's bits (checked over 3M values per dtype by tests/runtime/test_fusion.py).
COMPILED_UFUNCS = frozenset((np.add, np.subtract, np.multiply, np.true_divide, np.maximum, np.minimum,
                             np.negative, np.abs, np.square, np.sqrt))
_COMPILED_DTYPES = frozenset((np.dtype(np.float32), np.dtype(np.float64)))

# Fused calls so far by backend ("numba": at least one compiled loop per block, "numpy": ufunc calls
# only); tests read it to prove the fused path ran. One dict increment per call over >= 2^18 elements.
RUNS = collections.Counter()


def _pool():
    if not _POOL:
        import concurrent.futures   # here, not at import: only large kernels use the pool
        _POOL.append(concurrent.futures.ThreadPoolExecutor(max_workers=_THREADS,
                                                           thread_name_prefix="tensorflux-fused"))
    return _POOL[0]


def _scalar_const(t):
    op = t.op
    return op.type == "Const" and np.size(op.attrs["value"]) == 1


def _fusable(op):
    if op.opdef is None or op.opdef.inplace is None or len(op.outputs) != 1 or op.control_inputs:
        return False
    out = op.outputs[0]
    if not out.shape.is_fully_defined() or out.shape.num_elements() < FUSE_MIN_ELEMENTS:
        return False
    if not out.dtype.is_floating:
        return False
    return all((t.dtype is out.dtype and t.shape == out.shape) or (_scalar_const(t) and t.dtype is out.dtype)
               for t in op.inputs)


def find_regions(ops, outputs):
    """Groups of fusable ops (each in program order) worth fusing: connected, at least two ops, and whose
    values used by later non-region ops are only needed after the region's last op."""
    region_of = {}      # id(op) -> region id
    regions = {}        # region id -> [ops]
    producer = {}
    for op in ops:
        for t in op.outputs:
            producer[id(t)] = op
    for op in ops:
        if not _fusable(op):
            continue
        joined = {region_of[id(producer[id(t)])] for t in op.inputs
                  if id(t) in producer and id(producer[id(t)]) in region_of}
        rid = min(joined) if joined else id(op)
        members = regions.setdefault(rid, [])
        for other in joined - {rid}:
            for m in regions.pop(other):
                region_of[id(m)] = rid
                members.append(m)
        members.append(op)
        region_of[id(op)] = rid
    position = {id(op): i for i, op in enumerate(ops)}
    result = []
    for members in regions.values():
        if len(members) < 2:
            continue
        members.sort(key=lambda o: position[id(o)])
        inside = {id(m) for m in members}
        last = position[id(members[-1])]
        ok = True
        for op in ops:
            if id(op) in inside:
                continue
            for t in op.inputs:
                p = producer.get(id(t))
                if p is not None and id(p) in inside and position[id(op)] < last:
                    ok = False  # a non-region op needs a region value before the region would run
        if ok:
            result.append(members)
    return result


def region_interface(members, ops, outputs):
    """(inputs, outputs) of a region: tensors it reads from outside, values needed outside or returned."""
    inside = {id(m) for m in members}
    produced = {id(t) for m in members for t in m.outputs}
    inputs, seen = [], set()
    for m in members:
        for t in m.inputs:
            if id(t) not in produced and id(t) not in seen:
                seen.add(id(t))
                inputs.append(t)
    needed = {id(t) for t in outputs}
    for op in ops:
        if id(op) not in inside:
            needed.update(id(t) for t in op.inputs)
    outs = [t for m in members for t in m.outputs if id(t) in needed]
    return inputs, outs


_NUMBA = []   # [module or None], resolved on first use


def _numba():
    """numba when installed (`pip install tensorflux[jit]`) and not disabled by TENSORFLUX_FUSION=numpy."""
    if not _NUMBA:
        use = os.environ.get("TENSORFLUX_FUSION", "auto") != "numpy"
        _NUMBA.append(jit.numba_or_none() if use else None)
    return _NUMBA[0]


def _steps(members, compile_runs):
    """The region as ("ufunc", [op]) and ("loop", [ops]) steps in program order: consecutive ops with a
    compiled-safe ufunc form one loop when `compile_runs`; a loop of one op is no better than its ufunc."""
    steps = []
    for m in members:
        if compile_runs and m.opdef.inplace in COMPILED_UFUNCS:
            if steps and steps[-1][0] == "loop":
                steps[-1][1].append(m)
            else:
                steps.append(("loop", [m]))
        else:
            steps.append(("ufunc", [m]))
    return [("ufunc", ops) if kind == "loop" and len(ops) == 1 else (kind, ops) for kind, ops in steps]


_COMPILED = {}   # loop source + dtype + scalar pattern -> compiled numba loop (shared by traces)


def _compile_loop(numba, ops, arg_scalar, result_ids, dtype):
    """(numba loop, source) computing `ops` element by element: reads every argument at index j first,
    then writes the results, so a result may share a buffer with an argument."""
    local = {}
    lines = []
    for k, (tid, scalar) in enumerate(arg_scalar):
        local[tid] = f"a{k}" if scalar else f"v{k}"
        if not scalar:
            lines.append(f"        v{k} = a{k}[j]")
    for n, m in enumerate(ops):
        args = ", ".join(local[id(t)] for t in m.inputs)
        lines.append(f"        t{n} = np.{m.opdef.inplace.__name__}({args})")
        local[id(m.outputs[0])] = f"t{n}"
    for k, tid in enumerate(result_ids):
        lines.append(f"        r{k}[j] = {local[tid]}")
    params = [f"a{k}" for k in range(len(arg_scalar))] + [f"r{k}" for k in range(len(result_ids))]
    source = (f"def loop({', '.join(params)}):\n"
              f"    for j in range(r0.shape[0]):\n" + "\n".join(lines) + "\n")
    key = (source, dtype.name, tuple(s for _, s in arg_scalar))
    loop = _COMPILED.get(key)
    if loop is None:
        namespace = {"np": np, "__name__": "tensorflux.runtime.fused"}
        exec(compile(source, "<tensorflux fused loop>", "exec"), namespace)
        element = numba.from_dtype(dtype)
        readable = numba.types.Array(element, 1, "C", readonly=True)  # also takes writable arrays
        signature = numba.void(*[element if s else readable for _, s in arg_scalar],
                                *[element[::1]] * len(result_ids))
        # Compiled now, for the exact argument types, so a compiler failure shows at trace time (and the
        # caller falls back to ufunc calls) and a call never recompiles for other types.
        loop = numba.njit(signature, nogil=True, error_model="numpy", cache=False)(namespace["loop"])
        _COMPILED[key] = loop
    return loop, source


def make_fused(members, inputs, outputs, name="fused"):
    """(callable, source) computing the region's outputs from its inputs in one blocked pass over the
    data on two threads: NumPy ufunc calls per block, with runs of IEEE-exact ops compiled into one loop
    when numba is installed (and the dtype is float32 or float64)."""
    dtype = np.dtype(outputs[0].dtype.as_numpy_dtype)
    numba = _numba() if dtype in _COMPILED_DTYPES else None
    if numba is not None:
        try:
            return _make_blocked(members, inputs, outputs, name, numba)
        except Exception:  # numba could not compile a loop: ufunc calls give the same values
            pass
    return _make_blocked(members, inputs, outputs, name, None)


def _make_blocked(members, inputs, outputs, name, numba):
    """(callable, source): the region as generated Python computing its outputs blockwise.

    Block buffers are reused once their value is dead, so a chain needs one or two buffers whatever its
    length; each step is one ufunc call or one compiled loop per block writing into a buffer or straight
    into an output.
    """
    out_index = {id(t): k for k, t in enumerate(outputs)}
    in_index = {id(t): k for k, t in enumerate(inputs)}
    size = outputs[0].shape.num_elements()
    dtype = np.dtype(outputs[0].dtype.as_numpy_dtype)
    steps = _steps(members, numba is not None)
    last_use = {}
    for i, (_, ops) in enumerate(steps):
        for m in ops:
            for t in m.inputs:
                last_use[id(t)] = i
    namespace = {"__name__": "tensorflux.runtime.fused", "empty": np.empty, "dtype": dtype}
    expr = {}            # id(tensor) -> Python expression of its block
    free, n_buffers = [], 0
    lines, loop_sources = [], []
    for t in inputs:
        k = in_index[id(t)]
        expr[id(t)] = f"i{k}" if t.shape.num_elements() == 1 else f"i{k}[s:e]"

    def target_for(t):
        nonlocal n_buffers
        if id(t) in out_index:
            return f"o{out_index[id(t)]}[s:e]"
        if free:
            return free.pop()
        n_buffers += 1
        return f"b{n_buffers - 1}[:n]"

    for i, (kind, ops) in enumerate(steps):
        produced = {id(m.outputs[0]) for m in ops}
        reads, seen = [], set()
        for m in ops:
            for t in m.inputs:
                if id(t) not in produced and id(t) not in seen:
                    seen.add(id(t))
                    reads.append(t)
        for t in reads:  # buffers whose value dies here can take this step's results
            if last_use.get(id(t)) == i and expr[id(t)].startswith("b") and expr[id(t)] not in free:
                free.append(expr[id(t)])
        if kind == "ufunc":
            (m,) = ops
            ufunc = m.opdef.inplace
            namespace[ufunc.__name__] = ufunc
            target = expr[id(m.outputs[0])] = target_for(m.outputs[0])
            lines.append(f"        {ufunc.__name__}({', '.join(expr[id(t)] for t in m.inputs)}, out={target})")
            continue
        results = [m.outputs[0] for m in ops
                   if id(m.outputs[0]) in out_index or last_use.get(id(m.outputs[0]), -1) > i]
        if not results:
            continue  # nothing computed here is ever read (pruning normally removes such ops)
        loop, source = _compile_loop(numba, ops, [(id(t), t.shape.num_elements() == 1) for t in reads],
                                     [id(t) for t in results], dtype)
        lname = f"loop{len(loop_sources)}"
        namespace[lname] = loop
        loop_sources.append(source.replace("def loop(", f"def {lname}(", 1))
        targets = [target_for(t) for t in results]
        for t, target in zip(results, targets):
            expr[id(t)] = target
        lines.append(f"        {lname}({', '.join([expr[id(t)] for t in reads] + targets)})"
                     f"  # {', '.join(m.type for m in ops)}")
    params = [f"i{k}" for k in range(len(inputs))] + [f"o{k}" for k in range(len(outputs))]
    source = (f"def {name}_range({', '.join(params)}, start, stop):\n"
              + "".join(f"    b{k} = empty({BLOCK}, dtype)\n" for k in range(n_buffers))
              + f"    for s in range(start, stop, {BLOCK}):\n"
              + f"        e = s + {BLOCK} if s + {BLOCK} < stop else stop\n"
              + ("        n = e - s\n" if n_buffers else "")
              + "\n".join(lines) + "\n")
    exec(compile(source, f"<tensorflux fused {name}>", "exec"), namespace)
    run_range = namespace[f"{name}_range"]
    shape = tuple(outputs[0].shape.as_list())
    n_out = len(outputs)
    scalar_positions = frozenset(k for k, t in enumerate(inputs) if t.shape.num_elements() == 1)
    backend = "numba" if loop_sources else "numpy"

    def fused(*args):
        # Scalars go in as NumPy scalars of the region's dtype (float32 arithmetic stays float32, and the
        # compiled loops' signatures match); arrays as flat C-contiguous views (a copy if they were not).
        flat = [np.asarray(a, dtype).reshape(())[()] if k in scalar_positions
                else np.ascontiguousarray(a, dtype).reshape(-1) for k, a in enumerate(args)]
        results = [np.empty(shape, dtype) for _ in range(n_out)]
        flat_out = [r.reshape(-1) for r in results]
        if _THREADS > 1 and size >= 8 * BLOCK:
            half = (size // 2 // BLOCK) * BLOCK
            first = _pool().submit(run_range, *flat, *flat_out, 0, half)
            run_range(*flat, *flat_out, half, size)
            first.result()
        else:
            run_range(*flat, *flat_out, 0, size)
        RUNS[backend] += 1
        return tuple(results)

    return fused, "\n".join(loop_sources + [source])
