"""Fusion of elementwise chains over large arrays into one blocked, multi-threaded pass.

A chain such as `((x * 1.5 + 2) ** 2 - 1) / 3` on a [4_000_000] vector costs one full memory pass per
op when each op is a NumPy call. A fused region instead walks the data in cache-sized blocks and applies
every op of the region to a block before moving on, so the large arrays are read once and written once;
the blocks are shared between two threads (NumPy releases the GIL inside ufuncs).

Invariants: a region holds ops whose OpDef names an exact NumPy ufunc (`opdef.inplace`), whose output
has a fully known static shape of at least `FUSE_MIN_ELEMENTS` elements and a float dtype, and whose
inputs are either of that same shape and dtype or scalar constants. Values used outside the region
(or returned) are written to full-size arrays; the rest live only in per-thread block buffers.

    fused_1 = Fused([...ops...])        # codegen: `y, = fused_1(x)` replaces ten generated lines
"""
import concurrent.futures
import os

import numpy as np

from ..ops import jit

__all__ = ["find_regions", "make_fused", "FUSE_MIN_ELEMENTS", "BLOCK"]

FUSE_MIN_ELEMENTS = 1 << 18     # smaller arrays stay in cache anyway: plain calls are faster
BLOCK = 1 << 15                 # elements per block (128 KiB of float32 per buffer)
_THREADS = max(1, min(2, os.cpu_count() or 1))
_POOL = []


def _pool():
    if not _POOL:
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
    if not out.dtype.is_floating or out.dtype.name == "bfloat16":
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


_COMPILED = {}   # generated loop source + argument types -> compiled numba kernel (shared by traces)


def make_fused(members, inputs, outputs, name="fused"):
    """(callable, source) computing the region's outputs from its inputs in one pass over the data:
    a numba-compiled parallel loop when numba is installed, else blocked NumPy on two threads."""
    if _numba() is not None:
        return _make_numba(members, inputs, outputs, name)
    return _make_blocked(members, inputs, outputs, name)


def _make_numba(members, inputs, outputs, name):
    """One parallel loop over the elements; each op is its NumPy ufunc applied to scalars, so results
    (NaN propagation, division by zero, float32 rounding) are NumPy's."""
    numba = _numba()
    scalar = {id(t) for t in inputs if t.shape.num_elements() == 1}
    lines, expr = [], {}
    for k, t in enumerate(inputs):
        expr[id(t)] = f"i{k}" if id(t) in scalar else f"v{k}"
        if id(t) not in scalar:
            lines.append(f"        v{k} = i{k}[j]")
    out_slot = {id(t): k for k, t in enumerate(outputs)}
    for n, m in enumerate(members):
        args = ", ".join(expr[id(t)] for t in m.inputs)
        lines.append(f"        t{n} = np.{m.opdef.inplace.__name__}({args})")
        expr[id(m.outputs[0])] = f"t{n}"
        if id(m.outputs[0]) in out_slot:
            lines.append(f"        o{out_slot[id(m.outputs[0])]}[j] = t{n}")
    params = [f"i{k}" for k in range(len(inputs))] + [f"o{k}" for k in range(len(outputs))]
    source = (f"def {name}_loop({', '.join(params)}):\n"
              f"    for j in numba.prange(o0.shape[0]):\n" + "\n".join(lines) + "\n")
    shape = tuple(outputs[0].shape.as_list())
    dtype = outputs[0].dtype.as_numpy_dtype
    key = (source.replace(name, "fused"), tuple((t.dtype.name, id(t) in scalar) for t in inputs), dtype)
    loop = _COMPILED.get(key)
    if loop is None:
        namespace = {"numba": numba, "np": np, "__name__": "tensorflux.runtime.fused"}
        exec(compile(source, f"<tensorflux fused {name}>", "exec"), namespace)
        loop = numba.njit(parallel=True, error_model="numpy", cache=False)(namespace[f"{name}_loop"])
        _COMPILED[key] = loop
    n_out = len(outputs)
    scalar_positions = [k for k, t in enumerate(inputs) if id(t) in scalar]

    def fused(*args):
        # Scalars go in as NumPy scalars of their dtype, so float32 arithmetic stays float32.
        flat = [np.asarray(a).reshape(())[()] if k in scalar_positions else a.reshape(-1)
                for k, a in enumerate(args)]
        results = [np.empty(shape, dtype) for _ in range(n_out)]
        loop(*flat, *[r.reshape(-1) for r in results])
        return tuple(results)

    return fused, source


def _make_blocked(members, inputs, outputs, name="fused"):
    """(callable, source): the region as generated Python computing its outputs blockwise on 2 threads.

    Block buffers are reused once their value is dead, so a chain needs one or two buffers whatever its
    length; each op is one ufunc call per block writing into a buffer or straight into an output.
    """
    out_index = {id(t): k for k, t in enumerate(outputs)}
    in_index = {id(t): k for k, t in enumerate(inputs)}
    size = outputs[0].shape.num_elements()
    last_use = {}
    for i, m in enumerate(members):
        for t in m.inputs:
            last_use[id(t)] = i
    namespace = {"__name__": "tensorflux.runtime.fused"}
    expr = {}            # id(tensor) -> Python expression of its block
    free, n_buffers = [], 0
    lines = []
    for t in inputs:
        k = in_index[id(t)]
        expr[id(t)] = f"i{k}" if t.shape.num_elements() == 1 else f"i{k}[s:e]"
    for i, m in enumerate(members):
        ufunc = m.opdef.inplace
        namespace[ufunc.__name__] = ufunc
        args = [expr[id(t)] for t in m.inputs]
        for t in m.inputs:  # buffers whose value dies here can take this op's result
            if last_use.get(id(t)) == i and expr[id(t)].startswith("b") and expr[id(t)] not in free:
                free.append(expr[id(t)])
        out = m.outputs[0]
        if id(out) in out_index:
            target = f"o{out_index[id(out)]}[s:e]"
        elif free:
            target = free.pop()
        else:
            target = f"b{n_buffers}[:n]"
            n_buffers += 1
        expr[id(out)] = target
        lines.append(f"        {ufunc.__name__}({', '.join(args)}, out={target})")
    params = [f"i{k}" for k in range(len(inputs))] + [f"o{k}" for k in range(len(outputs))]
    source = (f"def {name}_range({', '.join(params)}, start, stop):\n"
              + "".join(f"    b{k} = empty({BLOCK}, dtype)\n" for k in range(n_buffers))
              + f"    for s in range(start, stop, {BLOCK}):\n"
              + f"        e = s + {BLOCK} if s + {BLOCK} < stop else stop\n"
              + ("        n = e - s\n" if n_buffers else "")
              + "\n".join(lines) + "\n")
    namespace.update(empty=np.empty, dtype=outputs[0].dtype.as_numpy_dtype)
    exec(compile(source, f"<tensorflux fused {name}>", "exec"), namespace)
    run_range = namespace[f"{name}_range"]
    shape = tuple(outputs[0].shape.as_list())
    dtype = outputs[0].dtype.as_numpy_dtype
    n_out = len(outputs)

    def fused(*args):
        flat = [a.reshape(-1) if np.size(a) == size and size != 1 else a for a in args]
        results = [np.empty(shape, dtype) for _ in range(n_out)]
        flat_out = [r.reshape(-1) for r in results]
        if _THREADS > 1 and size >= 8 * BLOCK:
            half = (size // 2 // BLOCK) * BLOCK
            first = _pool().submit(run_range, *flat, *flat_out, 0, half)
            run_range(*flat, *flat_out, half, size)
            first.result()
        else:
            run_range(*flat, *flat_out, 0, size)
        return tuple(results)

    return fused, source
