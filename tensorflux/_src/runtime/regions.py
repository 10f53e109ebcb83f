"""Compiled regions: a graph that does not lower whole runs each stretch of lowerable ops as one kernel.

`lowering.lower` takes a graph whole or not at all: one MatMul, Reshape or random op keeps every other op
of a function on the NumPy path, a While loop updating variables included. Here the op list the passes
make (the one the lowering and the generated code start from) is cut into steps, in its order:

- a region: a run of consecutive ops that each lower (Const ops feeding it are copied in, placeholders
  are inputs), lowered together by `lowering.lower(..., ops=...)`: its inputs are the tensors its ops
  read from outside it, its outputs the values a later op or the function's result needs;
- every other op: one step of the op-list interpreter (runtime/interpret.py), calling the op's kernel as
  the generated NumPy code does.

A region is kept only when it is exact (`Lowered.exact`: its bits are the NumPy path's) and does enough
work per call to beat the steps it replaces (`MIN_REGION_WORK`, a While loop counting 100). Stateful ops
keep the op list's order (program order): a region stores the variables it wrote before the next step
runs (runtime/tiering.py's runner), so a NumPy step after it reads the new value.

Each region's kernel is guarded: a call it raises on (a shape it cannot take) has stored nothing and runs
the region's ops on the interpreter instead, which gives the NumPy path's values or error.

Kernels are compiled for the static dtypes and ranks of the region's inputs (C-contiguous arrays; a
value of another layout, e.g. a transposed view from a NumPy step, takes the fallback).

    plan = regions.plan(graph, outputs, inputs)        # None: nothing worth compiling
    run = regions.compile_now(plan)                     # or compile_in_background(plan, done)
    run(*arguments, *captures) == generated_code(*arguments, *captures)

Called from function/jit_compile.py: under `jit_compile=True` when the whole graph does not lower
(`_regions_now`), and by ConcreteFunction's tiering for a hot function holding a loop
(`regions_in_background`). A While or If is one op here: lowered whole inside a region when every op
of its graphs lowers; otherwise one interpreter step, whose condition, body and branches are cut into
regions of their own (a MatMul in a loop body keeps the loop in Python while the body's elementwise
stretches run compiled on each iteration; see _nested_plans): every region under `jit_compile=True`,
those over AUTOMATIC_NESTED_MIN_ELEMENTS elements when tiering.
"""
import logging
import threading

import numpy as np

from . import interpret, lowering, passes

__all__ = ["plan", "compile_now", "compile_in_background", "RegionPlan", "MIN_REGION_WORK"]

logger = logging.getLogger("tensorflux")

MIN_REGION_WORK = 4    # ops (a While loop counts 100) below which a region stays on the interpreter
# Automatic tiering cuts a loop body or branch into regions only where each region computes at least
# this many elements per call (static shapes; an unknown size does not count): the interpreter's steps
# cost more than the generated code's lines, which only larger tensors repay. Measured on a 2-core
# AVX-512 machine, 20 iterations of a body with a MatMul and six elementwise ops, regions / NumPy path
# per iteration: [3,4] 1.29, [16,16] 1.32, [32,32] 1.04, [64,64] 0.56, [64,256] 0.43, [256,256] 0.42.
AUTOMATIC_NESTED_MIN_ELEMENTS = 2048
# The graphs of an op the interpreter runs as Python control flow, in the order of its step's plans.
_NESTED_GRAPHS = {"While": ("cond_graph", "body_graph"), "StatelessWhile": ("cond_graph", "body_graph"),
                  "If": ("then_graph", "else_graph"), "StatelessIf": ("then_graph", "else_graph")}


class _RegionOp:
    """A region as the interpreter sees one step: the tensors it reads and writes, no attrs."""

    __slots__ = ("inputs", "outputs", "attrs", "type", "name")

    def __init__(self, inputs, outputs, name):
        self.inputs, self.outputs, self.attrs = inputs, outputs, {}
        self.type, self.name = "CompiledRegion", name


class _Region:
    __slots__ = ("members", "step", "lowered", "fallback", "samples")

    def __init__(self, members, step, lowered, fallback, samples):
        self.members = members      # the graph ops it runs, in order
        self.step = step            # its _RegionOp
        self.lowered = lowered
        self.fallback = fallback    # the interpreter's runner of its ops
        self.samples = samples      # values of its inputs' dtypes and ranks, to compile for


class RegionPlan:
    """The steps of one graph: `regions` to compile, the op list they are cut from, and `nested`:
    id(op) -> (its graphs, their RegionPlans or None) for each If/While left to the interpreter whose
    graphs hold regions of their own."""

    __slots__ = ("ops", "outputs", "inputs", "regions", "nested")

    def __init__(self, ops, outputs, inputs, regions, nested=None):
        self.ops, self.outputs, self.inputs, self.regions = ops, outputs, inputs, regions
        self.nested = nested or {}


def plan(graph, outputs, inputs, inside_control_flow=False, nested_min_elements=0, _nested=False):
    """The RegionPlan of `graph` computing `outputs` from `inputs` (its placeholders), or None when no
    region is worth compiling or some op can run only through generated code. `inside_control_flow`: the
    graphs of an If/While left to the interpreter are cut into regions too (see _nested_plans), keeping
    there only regions of at least `nested_min_elements` elements (automatic tiering's floor)."""
    ops, outputs = passes.run_all(graph, list(outputs))
    if any(op.type not in ("Placeholder", "Const") and interpret._step(op)[0] is None for op in ops):
        return None
    ops = _schedule(ops)
    graph_view = _GraphView(graph, ops, outputs)
    # Candidate runs: consecutive ops of types the lowering has a form for. Each is lowered whole; an op
    # it refuses splits the run there (that op goes to the interpreter) and both sides are tried again,
    # so a graph costs a few lowerings, not one per op.
    runs, current = [], []
    for op in ops:
        if op.type in ("Placeholder", "Const"):
            continue
        if op.type in lowering.LOWERED_TYPES:
            current.append(op)
        elif current:
            runs.append(current)
            current = []
    if current:
        runs.append(current)
    regions, pending = [], runs[::-1]
    while pending:
        members = pending.pop()
        try:
            lowered = graph_view.lower(members)
        except lowering.Unsupported as e:
            at = next((k for k, op in enumerate(members) if op is e.op), None)
            if at is None:     # refused for a value from outside or inside a body: op by op
                pending.extend(graph_view.lowerable_runs(members)[::-1])
            else:
                pending.extend([part for part in (members[at + 1:], members[:at]) if part])
            continue
        except Exception as e:    # a form the emitter cannot take in this context: the interpreter runs it
            logger.debug("tensorflux: a region does not lower: %s", e)
            continue
        if lowered.exact and lowered.work >= MIN_REGION_WORK and \
                (not _nested or _elements(members) >= nested_min_elements):
            regions.append(graph_view.region(members, lowered, f"region{len(regions)}"))
    nested = _nested_plans(ops, regions, nested_min_elements) if inside_control_flow else {}
    if not regions and not nested:
        return None
    order = {id(op): k for k, op in enumerate(ops)}
    regions.sort(key=lambda r: order[id(r.members[0])])
    return RegionPlan(ops, outputs, inputs, regions, nested)


def _nested_plans(ops, regions, min_elements):
    """The region plans of the graphs of each If/While outside `regions` (left to the interpreter).

    The loop then runs on the interpreter, whose steps cost more than the generated code's lines:
    `jit_compile=True` takes every region (it asks for compiled code), automatic tiering, which must not
    slow a function down, only regions of `min_elements` or more (AUTOMATIC_NESTED_MIN_ELEMENTS)."""
    inside = {id(op) for r in regions for op in r.members}
    nested = {}
    for op in ops:
        keys = _NESTED_GRAPHS.get(op.type)
        if keys is None or id(op) in inside:
            continue
        graphs = tuple(op.attrs[k] for k in keys)
        plans = tuple(plan(g, g.outputs, g.inputs, True, min_elements, _nested=True) for g in graphs)
        if any(p is not None for p in plans):
            nested[id(op)] = (graphs, plans)
    return nested


def _elements(members):
    """The largest static element count among the values `members` make (0 when one is unknown)."""
    largest = 0
    for op in members:
        for t in op.outputs:
            dims = t.shape.as_list() if t.shape.rank is not None else None
            if dims is None or None in dims:
                return 0
            largest = max(largest, int(np.prod(dims, dtype=np.int64)))
    return largest


def _ordered(op):
    """Ops whose order among themselves is kept: stateful ones, those touching a resource, holding graphs
    (a body may hold stateful ops) or control inputs, and ops without a registered definition."""
    return op.opdef is None or op.opdef.stateful or bool(op.control_inputs) or \
        any(t.dtype.name == "resource" for t in op.inputs) or \
        any(getattr(v, "is_func_graph", False) for v in op.attrs.values())


def _schedule(ops):
    """`ops` in an order that groups the lowerable ones: a topological order (data inputs, control
    inputs, and the `_ordered` ops in their given order) that, of the ops ready to run, keeps taking ones
    of the kind (lowerable or not) it took last, the earliest first; placeholders and constants as soon
    as possible. Moving a pure op changes no value; each region is then as long as the graph allows."""
    import heapq   # here, not at import: the namespaces walk imports this module at `import tensorflux`
    index = {id(op): k for k, op in enumerate(ops)}
    producers = {id(t): index[id(op)] for op in ops for t in op.outputs}
    users = [[] for _ in ops]
    waiting = [0] * len(ops)
    last_ordered = None
    for k, op in enumerate(ops):
        deps = {producers[id(t)] for t in op.inputs if id(t) in producers}
        deps.update(index[id(c)] for c in op.control_inputs if id(c) in index)
        if _ordered(op):
            if last_ordered is not None:
                deps.add(last_ordered)
            last_ordered = k
        deps.discard(k)
        waiting[k] = len(deps)
        for d in deps:
            users[d].append(k)
    free, lowerable, other = 0, 1, 2

    def kind(op):
        if op.type in ("Placeholder", "Const"):
            return free
        return lowerable if op.type in lowering.LOWERED_TYPES else other
    kinds = [kind(op) for op in ops]
    ready = {free: [], lowerable: [], other: []}
    for k in range(len(ops)):
        if not waiting[k]:
            heapq.heappush(ready[kinds[k]], k)
    order, current = [], lowerable
    while ready[free] or ready[lowerable] or ready[other]:
        if ready[free]:
            taken = free
        elif ready[current]:
            taken = current
        else:
            taken = lowerable if ready[lowerable] else other
        k = heapq.heappop(ready[taken])
        if taken != free:
            current = taken
        order.append(ops[k])
        for u in users[k]:
            waiting[u] -= 1
            if not waiting[u]:
                heapq.heappush(ready[kinds[u]], u)
    if len(order) != len(ops):     # a cycle cannot happen in an op list; keep the given order if it did
        return ops
    return order


class _GraphView:
    """What cutting one op list into regions needs to know about it, computed once."""

    def __init__(self, graph, ops, outputs):
        self.graph = graph
        self.producers = {id(t): op for op in ops for t in op.outputs}
        self.consumers = {}       # id(tensor) -> ids of the ops reading it
        for op in ops:
            for t in op.inputs:
                self.consumers.setdefault(id(t), set()).add(id(op))
        self.returned = {id(t) for t in outputs}
        self.captured = lowering._captured_variables(graph)

    def interface(self, members):
        """(Const ops to copy in, input tensors, result tensors) of a run of ops."""
        inside = {id(op) for op in members}
        made = {id(t) for op in members for t in op.outputs}
        consts, inputs, seen = [], [], set()
        for op in members:
            for t in op.inputs:
                if id(t) in made or id(t) in seen:
                    continue
                seen.add(id(t))
                producer = self.producers.get(id(t))
                if producer is not None and producer.type == "Const":
                    consts.append(producer)
                else:
                    inputs.append(t)
        results = [t for op in members for t in op.outputs
                   if id(t) in self.returned or not self.consumers.get(id(t), set()) <= inside]
        return consts, inputs, results

    def lower(self, members, name="kernel"):
        consts, inputs, results = self.interface(members)
        return lowering.lower(self.graph, results, inputs, name, ops=consts + members)

    def lowerable_runs(self, members):
        """`members` cut at each op that does not lower on its own."""
        runs, current = [], []
        for op in members:
            try:
                self.lower([op], "probe")
                current.append(op)
                continue
            except Exception:   # Unsupported, or a form the emitter cannot take alone
                pass
            if current:
                runs.append(current)
            current = []
        if current:
            runs.append(current)
        return runs

    def region(self, members, lowered, name):
        consts, inputs, results = self.interface(members)
        steps = []
        for op in consts + members:
            kind, payload = interpret._step(op)
            steps.append((kind, op, payload, None))
        fallback = interpret.runner(interpret._Plan(steps, [id(t) for t in results], [id(t) for t in inputs]))
        samples = [self.captured[id(t)] if t.dtype.name == "resource" else _sample(t) for t in inputs]
        return _Region(members, _RegionOp(inputs, results, name), lowered, fallback, samples)


def _sample(t):
    """A C-contiguous value of `t`'s dtype and rank: what the kernel is compiled for."""
    dtype = t.dtype.as_numpy_dtype
    return np.zeros([1 if d is None else d for d in t.shape.as_list()], dtype)


def _assemble(region_plan, runners, nested_steps):
    """The interpreter's runner of the whole graph with each region's step calling its kernel, and each
    If/While of `nested_steps` (id(op) -> the interpreter plans of its graphs) running those plans."""
    by_first = {id(r.members[0]): (r, run) for r, run in zip(region_plan.regions, runners)}
    skipped = {id(op) for r in region_plan.regions for op in r.members}
    steps = []
    for op in region_plan.ops:
        found = by_first.get(id(op))
        if found is not None:
            region, run = found
            steps.append([interpret._KERNEL_MULTI, region.step, run, None])
        elif id(op) not in skipped:
            kind, payload = interpret._step(op)
            steps.append([kind, op, nested_steps.get(id(op), payload), None])
    interpret._plan_frees(steps, region_plan.outputs)
    graph_plan = interpret._Plan([tuple(s) for s in steps], [id(t) for t in region_plan.outputs],
                                 [id(t) for t in region_plan.inputs])
    run = interpret.runner(graph_plan)
    run.regions = runners
    run.graph_plan = graph_plan
    return run


def _compile_all(region_plan, numba):
    from . import tiering
    runners, cells = [], []
    for region in region_plan.regions:
        kernel = tiering.build(region.lowered, numba, region.samples)
        cell = {}
        guarded = tiering.guarded(kernel, _contiguous_retry(kernel, region, cell))
        cell["guarded"] = guarded
        runners.append(guarded)
        cells.append(cell)
    nested_steps = {}
    for key, (graphs, plans) in region_plan.nested.items():
        inner = []
        for graph, graph_regions in zip(graphs, plans):
            if graph_regions is None:
                inner.append(interpret.plan(graph, graph.outputs, graph.inputs))
            else:
                nested_run = _compile_all(graph_regions, numba)
                runners.extend(nested_run.regions)
                inner.append(nested_run.graph_plan)
        nested_steps[key] = tuple(inner)
    run = _assemble(region_plan, runners, nested_steps)
    for cell in cells:
        cell["plan"] = run.graph_plan
    return run


def _strided_positions(region):
    return [k for k, t in enumerate(region.step.inputs) if t.dtype.name != "resource" and t.shape.rank]


def _contiguous_retry(kernel, region, cell):
    """What a region runs when its kernel raised: the kernel again on C-contiguous copies of strided
    inputs (a transposed or sliced view from an interpreter step: the kernel takes C-contiguous arrays
    only; the copy has the same values), else the region's ops on the interpreter. Once copies made the
    kernel run, the region's step copies strided inputs before every call (a raise and a retry cost more
    than `np.ascontiguousarray`, which returns a contiguous array itself)."""
    positions = _strided_positions(region)
    interpreted = region.fallback

    def fallback(*args):
        fixed = list(args)
        for k in positions:
            if isinstance(fixed[k], np.ndarray) and not fixed[k].flags.c_contiguous:
                fixed[k] = np.ascontiguousarray(fixed[k])
        if all(f is a for f, a in zip(fixed, args)):
            return interpreted(*args)
        try:
            result = kernel(*fixed)
        except Exception:      # nothing was stored (tiering's runner): the ops run afresh
            return interpreted(*args)
        _copy_from_now_on(cell, positions)
        return result
    return fallback


def _copy_from_now_on(cell, positions):
    guarded, graph_plan = cell.get("guarded"), cell.get("plan")
    if graph_plan is None:
        return

    def copying(*args):
        args = list(args)
        for k in positions:
            args[k] = np.ascontiguousarray(args[k])
        return guarded(*args)
    steps = graph_plan.steps
    for i, step in enumerate(steps):
        if step[2] is guarded:
            steps[i] = (step[0], step[1], copying, step[3])   # one list item: atomic for other threads


def compile_now(region_plan):
    """The runner of `region_plan` with its regions compiled now, or None without numba."""
    from . import tiering
    numba = tiering.numba_module()
    if numba is None:
        return None
    with tiering._LOCK:
        return _compile_all(region_plan, numba)


def compile_in_background(region_plan, done):
    """Compiles every region of `region_plan` in a daemon thread, then calls `done(runner)` (never on
    failure: the NumPy path stays). `region_plan` may also be a callable returning a RegionPlan or None
    (`lambda: plan(graph, outputs, inputs)`): planning then happens in that thread too (it lowers the
    graph's runs: some 0.1 s for 1,000 ops, which a hot call should not wait for)."""
    from . import tiering
    from ..ops import jit
    numba = tiering.numba_module()
    if numba is None:
        return None

    def work():
        try:
            planned = region_plan() if callable(region_plan) else region_plan
            if planned is None:
                return
            with tiering._LOCK, jit.background_compile():
                runner = _compile_all(planned, numba)
        except Exception as e:
            logger.debug("tensorflux: background compile of regions failed: %s", e)
            return
        done(runner)

    thread = threading.Thread(target=work, name="tensorflux-jit-regions", daemon=True)
    thread.start()
    return thread
