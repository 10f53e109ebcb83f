"""`strategy.run(fn)` over several replicas in this process: one thread per replica.

As TensorFlow's MirroredStrategy does, each replica calls `fn` in its own thread (so each has its own
replica context and graph/tape state). By default only one thread runs at any moment: the caller starts
replica 0 and waits until it finishes or pauses in `merge_call`, then replica 1, and so on. The order is
fixed, so what the replicas print and draw is deterministic. When every replica has paused in
`merge_call` (an `all_reduce`, an optimizer's update), the merge function runs once in the caller's
thread, in the cross-replica context, on the replicas' arguments grouped into `PerReplica` values; each
replica then resumes with its part of the result. A replica that finishes while another waits in
`merge_call` is an error (the replicas must make the same collective calls), not a deadlock.

With `concurrent=True` the replicas run at once between merges (the caller releases them all and waits
until each has paused or finished). Keras' per-replica steps run so: each replica only runs its own
traced function (tracing is serialised by the function's lock; its graph reads and writes that
replica's variable copies; its all-reduce is a `ReplicaAllReduce` op meeting the others at run time), and
NumPy and BLAS release the GIL in the big kernels, so the replicas' products share the cores. The merges
still run in the caller's thread on the replicas' values in replica order, so the results are the bits
of the one-at-a-time run. Eager Python in `fn` (prints, appends, stateful random ops) would interleave
at will, so `strategy.run` keeps the one-at-a-time order for user functions, as TensorFlow does.

Each replica thread starts from a copy of the caller's execution state (the graph being traced, the
active tapes, the name scope, the variable observers), so `strategy.run` inside a `tf.function` adds
every replica's ops to the function's graph, and a tape around `strategy.run` records them. The lists
(tapes, observers) are copied per thread, so a tape a replica enters is not seen by the other replicas.
"""
import threading

from ..framework.context import state as _state
from ..ops.linalg import blas_threads
from ..ops.registry import OPS
from .values import regroup, select_replica

__all__ = ["run_on_replicas", "merge_call_from_replica", "current_replica_thread", "safe_to_run_concurrently"]

_STATE_FIELDS = ("graph", "tape_active", "tapes", "name_stack", "variable_observers", "autograph")
_current = threading.local()


def current_replica_thread():
    """The `_ReplicaThread` running the calling code, or None outside strategy.run's replica threads."""
    return getattr(_current, "thread", None)


class _ReplicaThread(threading.Thread):
    def __init__(self, strategy, index, fn, args, kwargs, caller_state, caller_stack, enter_replica, alone=False,
                 graph_collectives=False):
        super().__init__(name=f"replica_{index}", daemon=True)
        self.strategy, self.index = strategy, index
        self.fn, self.args, self.kwargs = fn, args, kwargs
        self.caller_state, self.caller_stack = caller_state, caller_stack
        self.enter_replica = enter_replica
        self.alone = alone           # compute products on this thread only (the replicas fill the cores)
        self.graph_collectives = graph_collectives   # an all_reduce traced here becomes a ReplicaAllReduce
        self.should_run = threading.Event()
        self.has_paused = threading.Event()
        self.done = False
        self.result = None
        self.error = None
        self.merge_fn = None         # set while paused in merge_call
        self.merge_args = None
        self.merge_kwargs = None
        self.merge_result = None
        self.abandoned = False       # set when another replica failed: this one stops at its next pause
        self.own_graph = None        # the graph of this replica's own function, while it is traced in it

    def run(self):
        self.should_run.wait()
        self.should_run.clear()
        if self.abandoned:
            self.done = True
            return
        try:
            _current.thread = self
            blas_threads.keep_blocks_on_this_thread(self.alone)
            for field, value in self.caller_state.items():
                # Lists copied: a tape or observer one replica pushes must not land in the others' state.
                setattr(_state, field, list(value) if type(value) is list else value)
            # A tf.function called here is traced for this replica's device (TensorFlow's cache key).
            _state.call_context = self.strategy.extended.worker_devices[self.index]
            with self.enter_replica(self.caller_stack, self.index):
                self.result = self.fn(*self.args, **self.kwargs)
        except _Abandoned:
            pass
        except BaseException as error:   # re-raised in the caller's thread
            self.error = error
        finally:
            self.done = True
            self.has_paused.set()

    def merge_call(self, merge_fn, args, kwargs):
        self.merge_fn, self.merge_args, self.merge_kwargs = merge_fn, args, kwargs
        self.has_paused.set()
        self.should_run.wait()
        self.should_run.clear()
        if self.abandoned:
            raise _Abandoned()
        result, self.merge_result = self.merge_result, None
        return result


class _Abandoned(BaseException):
    """Unwinds a replica paused in merge_call after another replica failed (never reaches user code's
    `except Exception`)."""


def run_on_replicas(strategy, fn, args, kwargs, count, enter_replica, cross_replica, concurrent=False,
                    graph_collectives=False, regrouped=True):
    """Calls `fn` on `count` replicas (see the module docstring; `concurrent`: all at once between merges;
    `graph_collectives`: an all_reduce traced in a replica's own tf.function is a ReplicaAllReduce op);
    returns their results regrouped (with `regrouped=False`, as a list in replica order).

    `enter_replica(caller_stack, index)` is a context manager putting the thread in replica `index`'s
    context; `cross_replica()` one putting the caller in the strategy's cross-replica context.
    """
    caller_state = {field: getattr(_state, field) for field in _STATE_FIELDS}
    caller_stack = strategy._stack_snapshot()
    # Replicas running at once, as many as the cores or more, each keep their products' blocks.
    alone = concurrent and count >= blas_threads.usable_workers()
    threads = [_ReplicaThread(strategy, i, fn, select_replica(i, args), select_replica(i, kwargs),
                              caller_state, caller_stack, enter_replica, alone, graph_collectives)
               for i in range(count)]
    for thread in threads:
        thread.start()
    try:
        while True:
            if concurrent:
                running = [t for t in threads if not t.done]
                for thread in running:
                    thread.has_paused.clear()
                for thread in running:
                    thread.should_run.set()
                for thread in running:
                    thread.has_paused.wait()
            else:
                for thread in threads:
                    if not thread.done:
                        thread.has_paused.clear()
                        thread.should_run.set()
                        thread.has_paused.wait()
                        if thread.error is not None:    # as TensorFlow's: the later replicas do not start
                            raise thread.error
            failed = next((t for t in threads if t.error is not None), None)
            if failed is not None:
                raise failed.error
            if all(t.done for t in threads):
                results = [t.result for t in threads]
                return regroup(results) if regrouped else results
            if any(t.done for t in threads):
                raise RuntimeError("Some replicas made a merge_call (an all_reduce or another collective) that "
                                   "others did not: every replica must make the same merge calls.")
            _merge(threads, cross_replica)
    finally:
        for thread in threads:          # after a failure, replicas not finished unwind and end
            if not thread.done:
                thread.abandoned = True
                thread.should_run.set()


def _merge(threads, cross_replica):
    """Runs the first replica's merge function on every replica's arguments, in the caller's thread.

    A merge function marked `gets_replica_args` (ReplicaAllReduce's) takes the replicas' argument tuples
    as they are, in replica order, and gives every replica its one result: no regrouping of nests."""
    merge_fn = threads[0].merge_fn
    if getattr(merge_fn, "gets_replica_args", False):
        with cross_replica():
            result = merge_fn(threads[0].strategy, [t.merge_args for t in threads])
        for thread in threads:
            thread.merge_result = result
            thread.merge_fn = thread.merge_args = thread.merge_kwargs = None
        return
    args = regroup([t.merge_args for t in threads])
    kwargs = regroup([t.merge_kwargs for t in threads])
    with cross_replica():
        result = merge_fn(threads[0].strategy, *args, **kwargs)
    for thread in threads:
        thread.merge_result = select_replica(thread.index, result)
        thread.merge_fn = thread.merge_args = thread.merge_kwargs = None


def merge_call_from_replica(merge_fn, args, kwargs):
    """`ReplicaContext.merge_call` in a replica thread: pauses until every replica has called it."""
    return current_replica_thread().merge_call(merge_fn, args, kwargs)


# Stateful op types a replica's traced step may run while the other replicas run theirs: each touches its
# replica's own state only (the random stream of its own op, its variable copies: checked below) or none.
# Any other stateful op (a print, a py_function, file or dataset ops, an MPI collective) makes the replicas
# take turns.
_CONCURRENT_SAFE_STATEFUL = frozenset({
    "ReadVariableOp", "AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp", "VarIsInitializedOp",
    "RngReadAndSkip", "ReplicaAllReduce", "NoOp", "Assert", "CheckNumerics", "Dropout", "RandomUniform",
    "RandomUniformInt", "RandomStandardNormal", "TruncatedNormal", "Multinomial", "RandomShuffle", "If", "While",
    "StatefulPartitionedCall"})
_WRITES_VARIABLE = frozenset({"AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp", "RngReadAndSkip"})
_NOT_KERNELS = frozenset({"Placeholder", "Const"})     # graph nodes with no kernel: inputs and constants


def _is_replica_copy(handle):
    """True for the handle of one replica's copy of a mirrored variable (what a replica's trace captures),
    False for a variable every replica shares (or a mirrored variable's shared handle)."""
    variable = getattr(handle, "_variable", None)
    copies = getattr(getattr(variable, "_resource", None), "_copies", ())
    return any(copy is handle._value for copy in copies)


def safe_to_run_concurrently(graph, seen=None):
    """True when no op of `graph` (nor of the graphs its control flow and calls hold) has effects beyond
    its replica: its stateful ops are in _CONCURRENT_SAFE_STATEFUL, and each variable it writes is its
    replica's own copy (two replicas updating one shared variable at once would race)."""
    seen = set() if seen is None else seen
    if id(graph) in seen:
        return True
    seen.add(id(graph))
    external = {id(internal): ext for ext, internal in getattr(graph, "captures", ())}
    for op in graph.get_operations():
        if op.type in _NOT_KERNELS:
            continue
        opdef = OPS.get(op.type)
        if opdef is None or opdef.stateful and op.type not in _CONCURRENT_SAFE_STATEFUL:
            return False
        if op.type in _WRITES_VARIABLE:
            handle = external.get(id(op.inputs[0]))
            if handle is None or not _is_replica_copy(handle):
                return False
        for value in op.attrs.values():
            for inner in value if isinstance(value, (list, tuple)) else (value,):
                inner = getattr(inner, "graph", inner)
                if hasattr(inner, "get_operations") and not safe_to_run_concurrently(inner, seen):
                    return False
    return True
