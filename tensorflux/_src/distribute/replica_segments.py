"""The replicas' functions of a `ReplicaCall` cut at their all-reduces, so they run without replica threads.

Each replica's function (replica_functions.py) is a graph whose generated code runs its ops in one fixed
order, pausing only in its `ReplicaAllReduce` ops. Cut that op list at those ops and every piece (a
*segment*) runs straight through: segment 0 of every replica, then the first all-reduce over their
inputs (the same merge the op makes, in replica order), then segment 1 of every replica, and so on. The
kernels run in the order the replica threads would run them, on the same values, so the results are
their bits, without the threads' hand-overs (tens of microseconds each on an idle machine, milliseconds
under load: a step of a small model cost 100x more in threads than in one graph).

"In turn" runs each segment of replica 0, then of replica 1, ... on the calling thread (big products
shared out over the cores); "at once" runs the replicas' segments together, replica 0 on the calling
thread and the others on long-lived worker threads, each keeping its products' blocks to itself.

A function whose all-reduce sits inside control flow (a cond or a loop body) cannot be cut; it runs in
replica threads (mirrored_run.py), as does a step whose replicas make different all-reduces (that error is
reported there).
"""
import queue
import threading

from ..ops.linalg import blas_threads
from ..runtime import codegen, passes

__all__ = ["cut", "run_in_turn", "run_at_once"]

_ALL_REDUCE = "ReplicaAllReduce"


class _Piece:
    """One segment of one replica's function: its generated code, the values it reads (by tensor id), the
    values it keeps for later pieces, and the values no later piece reads (dropped after it, as the
    generated code of one graph frees them: kept, fresh buffers would be mapped and faulted in at every
    step, 11% more CPU time measured on an MLP step)."""

    __slots__ = ("fn", "reads", "keeps", "drops")

    def __init__(self, fn, reads, keeps, drops=()):
        self.fn, self.reads, self.keeps, self.drops = fn, reads, keeps, drops


class _Cut:
    """One replica's function cut at its all-reduces: pieces[k] runs before all_reduces[k]."""

    __slots__ = ("inputs", "pieces", "all_reduces", "outputs", "reduce_drops")

    def __init__(self, inputs, pieces, all_reduces, outputs, reduce_drops):
        self.inputs, self.pieces, self.all_reduces, self.outputs = inputs, pieces, all_reduces, outputs
        self.reduce_drops = reduce_drops       # per all-reduce: its inputs no later piece reads


def _holds_all_reduce(graph):
    for op in graph.get_operations():
        if op.type == _ALL_REDUCE:
            return True
        for value in op.attrs.values():
            for inner in value if isinstance(value, (list, tuple)) else (value,):
                inner = getattr(inner, "graph", inner)
                if hasattr(inner, "get_operations") and _holds_all_reduce(inner):
                    return True
    return False


def _cut_one(cf, name):
    graph = cf.graph
    ops, outputs = passes.run_all(graph, list(cf._trace.flat_outputs))
    bounds = [i for i, op in enumerate(ops) if op.type == _ALL_REDUCE]
    for i, op in enumerate(ops):
        if i not in bounds:
            for value in op.attrs.values():
                for inner in value if isinstance(value, (list, tuple)) else (value,):
                    inner = getattr(inner, "graph", inner)
                    if hasattr(inner, "get_operations") and _holds_all_reduce(inner):
                        return None        # an all-reduce inside control flow: no straight pieces
    spans, start = [], 0
    for b in bounds + [len(ops)]:
        spans.append((start, b))
        start = b + 1
    # reads_from[k]: the values read by piece k or later, by the all-reduces from the k-th on, or returned.
    reads_from = [None] * (len(spans) + 1)
    later = {id(t) for t in outputs}
    reads_from[len(spans)] = set(later)
    for k in range(len(spans) - 1, -1, -1):
        a, b = spans[k]
        if k < len(bounds):
            later |= {id(t) for t in ops[bounds[k]].inputs}
        for op in ops[a:b]:
            later |= {id(t) for t in op.inputs}
        reads_from[k] = set(later)
    pieces = []
    known = {id(t) for t in graph.inputs}      # the values in a replica's environment before piece k
    for k, (a, b) in enumerate(spans):
        made = {}
        reads = []
        seen = set()
        for op in ops[a:b]:
            for t in op.inputs:
                if id(t) not in made and id(t) not in seen:
                    seen.add(id(t))
                    reads.append(t)
            if op.type == "Placeholder":
                if id(op.outputs[0]) not in seen:
                    seen.add(id(op.outputs[0]))
                    reads.append(op.outputs[0])
                continue
            for t in op.outputs:
                made[id(t)] = t
        keep_ids = reads_from[k + 1]
        if k < len(bounds):
            keep_ids = keep_ids | {id(t) for t in ops[bounds[k]].inputs}
        keeps = [t for tid, t in made.items() if tid in keep_ids]
        compiled = codegen.compile_graph(graph, f"{name}_piece_{k}", keeps, reads, ops=ops[a:b])
        known |= {id(t) for t in keeps}
        live = reads_from[k + 1] | ({id(t) for t in ops[bounds[k]].inputs} if k < len(bounds) else set())
        drops = [i for i in known if i not in live]
        known -= set(drops)
        pieces.append(_Piece(compiled.fn, [id(t) for t in reads], [id(t) for t in keeps], drops))
        if k < len(bounds):       # the all-reduce's inputs, once reduced; its outputs from then on
            known = {i for i in known if i in reads_from[k + 1]} | {id(t) for t in ops[bounds[k]].outputs}
    reduce_drops = [[id(t) for t in ops[b].inputs if id(t) not in reads_from[k + 1]] for k, b in enumerate(bounds)]
    return _Cut([id(t) for t in graph.inputs], pieces, [ops[b] for b in bounds], [id(t) for t in outputs],
                reduce_drops)


def cut(functions):
    """The replicas' functions cut at their all-reduces (one `_Cut` each), or None when one cannot be
    cut or the replicas' all-reduces do not pair up."""
    cuts = []
    for i, cf in enumerate(functions):
        one = _cut_one(cf, f"replica_{i}")
        if one is None:
            return None
        cuts.append(one)
    shapes = {tuple((len(op.inputs), op.attrs["reduction"]) for op in c.all_reduces) for c in cuts}
    return cuts if len(shapes) == 1 else None


def _run_piece(piece, env):
    values = piece.fn(*[env[i] for i in piece.reads])
    env.update(zip(piece.keeps, values))
    for i in piece.drops:
        env.pop(i, None)


def _start(cuts, arrays_per_replica):
    return [dict(zip(c.inputs, arrays)) for c, arrays in zip(cuts, arrays_per_replica)]


def _meet(strategy, cuts, envs, k, merge):
    """The k-th all-reduce: every replica's inputs merged in replica order; each gets the results."""
    replica_args = [([env[id(t)] for t in c.all_reduces[k].inputs], c.all_reduces[k].attrs["reduction"])
                    for c, env in zip(cuts, envs)]
    results = merge(strategy, replica_args)
    for c, env in zip(cuts, envs):
        for i in c.reduce_drops[k]:
            env.pop(i, None)
        env.update(zip((id(t) for t in c.all_reduces[k].outputs), results))


def _finish(cuts, envs):
    return [[env[i] for i in c.outputs] for c, env in zip(cuts, envs)]


def run_in_turn(strategy, cuts, arrays_per_replica, merge):
    """Runs the pieces replica after replica on this thread; each replica's outputs, in replica order."""
    envs = _start(cuts, arrays_per_replica)
    for k in range(len(cuts[0].pieces)):
        for c, env in zip(cuts, envs):
            _run_piece(c.pieces[k], env)
        if k < len(cuts[0].all_reduces):
            _meet(strategy, cuts, envs, k, merge)
    return _finish(cuts, envs)


def run_at_once(strategy, cuts, arrays_per_replica, merge):
    """Runs each piece of every replica at once (replica 0 here, the others on worker threads)."""
    if not _IN_USE.acquire(blocking=False):      # another thread's step has the workers: take turns
        return run_in_turn(strategy, cuts, arrays_per_replica, merge)
    try:
        return _at_once(strategy, cuts, arrays_per_replica, merge)
    finally:
        _IN_USE.release()


def _at_once(strategy, cuts, arrays_per_replica, merge):
    envs = _start(cuts, arrays_per_replica)
    workers = _workers(len(cuts) - 1)
    alone = len(cuts) >= blas_threads.usable_workers()
    was_alone = getattr(blas_threads._this_thread, "alone", False)
    blas_threads.keep_blocks_on_this_thread(alone)
    try:
        for k in range(len(cuts[0].pieces)):
            for worker, c, env in zip(workers, cuts[1:], envs[1:]):
                worker.tasks.put((c.pieces[k], env, alone))
            error = None
            try:
                _run_piece(cuts[0].pieces[k], envs[0])
            except BaseException as e:     # the workers' pieces still finish before this is raised
                error = e
            for worker in workers:
                failure = worker.done.get()
                if failure is not None and error is None:
                    error = failure
            if error is not None:
                raise error
            if k < len(cuts[0].all_reduces):
                _meet(strategy, cuts, envs, k, merge)
    finally:
        blas_threads.keep_blocks_on_this_thread(was_alone)
    return _finish(cuts, envs)


class _Worker(threading.Thread):
    """A long-lived thread running pieces handed to it, one at a time."""

    def __init__(self, index):
        super().__init__(name=f"replica_worker_{index}", daemon=True)
        self.tasks = queue.SimpleQueue()
        self.done = queue.SimpleQueue()

    def run(self):
        while True:
            piece, env, alone = self.tasks.get()
            try:
                blas_threads.keep_blocks_on_this_thread(alone)
                _run_piece(piece, env)
                self.done.put(None)
            except BaseException as error:
                self.done.put(error)


_WORKERS = []
_WORKERS_LOCK = threading.Lock()
_IN_USE = threading.Lock()           # held by the step using the workers


def _workers(count):
    with _WORKERS_LOCK:
        while len(_WORKERS) < count:
            worker = _Worker(len(_WORKERS) + 1)
            worker.start()
            _WORKERS.append(worker)
        return _WORKERS[:count]
