"""`strategy.run(fn)` traced in a tf.function over several local replicas: one function per replica, run
by one `ReplicaCall` op, the replicas at once where that is safe and faster.

TensorFlow traces `fn` once per replica, in turn, into the caller's graph, and its executor then runs each
replica's ops on that replica's device, the replicas in parallel, meeting in the all-reduces. tensorflux's
generated code runs a graph's ops one after another in one thread, so the replicas' ops are kept apart
instead: each replica thread traces `fn` (converted by AutoGraph, as TensorFlow converts it) into a graph
of its own, where an `all_reduce` is a `ReplicaAllReduce` op meeting the other replicas at run time and the
variables read and written are that replica's copies. The caller's graph gets one `ReplicaCall` op taking
every replica's captures. When it runs, each replica's graph runs in its replica thread (mirrored_run.py):
one at a time ("in turn"), or all at once between the all-reduces ("at once") when no replica's graph has
effects beyond its replica (`safe_to_run_concurrently`). Both ways reduce in replica order in the caller's
thread, so they give the same bits, and the op times both and keeps the faster (faster_way.py).

Trace-time order is TensorFlow's: replica 0 traces up to its end, then replica 1, and so on (the all-reduces
do not pause a trace). A `merge_call` other than an all-reduce needs the replicas' values while they are
traced; then `fn` is traced again the earlier way, every replica's ops in the caller's graph with the
merges at trace time (`NeedsTraceTimeMerge`), as are results that are not tensors and steps under a
recording GradientTape (the op has no gradient of its own).
"""
import time

from ..framework import nest
from ..framework.context import autograph_callable, state as _state
from ..framework.tensor import Tensor
from ..function.concrete import ConcreteFunction
from ..function.tracing import trace_function
from ..ops.random import seeds as _random_seeds
from ..ops.registry import OpDef, apply
from . import mirrored_run, replica_all_reduce, replica_segments
from .faster_way import FasterWay
from .values import regroup

__all__ = ["NeedsTraceTimeMerge", "trace_replica_functions"]


class NeedsTraceTimeMerge(BaseException):
    """Unwinds a replica's trace of its own function (a BaseException: user code's `except Exception`
    must not swallow it): `fn` needs the replicas' values at trace time, or returns values that are not
    tensors, so it is traced into the caller's graph instead."""


def trace_replica_functions(strategy, fn, args, kwargs):
    """The replicas' results of `fn` (regrouped, as `strategy.run` returns them), computed by a ReplicaCall
    op added to the graph being traced. Raises NeedsTraceTimeMerge when `fn` cannot be traced per replica."""
    count = strategy._local
    functions = [None] * count
    name = getattr(fn, "__name__", "replica_fn")
    converted = autograph_callable(fn)       # in the replica thread's state: the caller's autograph flag

    def trace_one(*replica_args, **replica_kwargs):
        thread = mirrored_run.current_replica_thread()

        def body():
            thread.own_graph = _state.graph
            # Random ops without a seed of their own number on from the caller graph's count, as they
            # would in one graph: replica 1's draws follow replica 0's, not repeat them.
            counters = _random_seeds._seeds.graph_counters
            caller = thread.caller_state["graph"]
            counters[_state.graph] = counters.get(caller, 0)
            try:
                result = converted(*replica_args, **replica_kwargs)
            finally:
                thread.own_graph = None
                counters[caller] = counters.get(_state.graph, 0)
            if not all(leaf is None or isinstance(leaf, Tensor) for leaf in nest.flatten(result)):
                raise NeedsTraceTimeMerge()
            return result
        trace = trace_function(body, [], [], name, outer_graph=_state.graph)
        functions[thread.index] = ConcreteFunction(trace, body, None, name, [])

    strategy._run_local_replicas(trace_one, args, kwargs, concurrent=False, graph_collectives=False)
    graph = _state.graph
    inputs, counts = [], []
    for cf in functions:
        captured = [graph._graph_input(c) if isinstance(c, Tensor) else c for c in cf.graph.external_captures]
        inputs.extend(captured)
        counts.append(len(captured))
    output_types = [(t.dtype, t.shape) for cf in functions for t in cf._trace.flat_outputs]
    safe = all(mirrored_run.safe_to_run_concurrently(cf.graph) for cf in functions)
    attrs = {"functions": functions, "graphs": [cf.graph for cf in functions], "counts": counts,
             "strategy": strategy, "concurrent_safe": safe, "output_types": output_types,
             "chooser": FasterWay(("in turn", "at once")), "cuts": [_NOT_CUT]}
    outputs = apply(REPLICA_CALL, inputs, attrs, "ReplicaCall") if inputs or output_types else []
    if not isinstance(outputs, (list, tuple)):
        outputs = [outputs]
    results, at = [], 0
    for cf in functions:
        n = len(cf._trace.flat_outputs)
        results.append(cf._restructure(list(outputs[at:at + n])))
        at += n
    return regroup(results)


def _infer(inputs, attrs):
    return attrs["output_types"]


_NOT_CUT = object()      # the `cuts` attr before the first run cuts the functions (replica_segments.py)


def _kernel(*arrays, functions, counts, strategy, concurrent_safe, chooser, cuts, **_):
    """Runs every replica's function; their outputs, replica after replica."""
    parts, at = [], 0
    for n in counts:
        parts.append(arrays[at:at + n])
        at += n
    if cuts[0] is _NOT_CUT:
        cuts[0] = replica_segments.cut(functions)
    way = chooser.next() if concurrent_safe else "in turn"
    start = time.perf_counter()
    if cuts[0] is not None:
        run = replica_segments.run_at_once if way == "at once" else replica_segments.run_in_turn
        results = run(strategy, cuts[0], parts, replica_all_reduce.merge_replica_values)
    else:
        results = _run_in_threads(strategy, functions, parts, concurrent=way == "at once")
    if concurrent_safe:
        chooser.record(way, time.perf_counter() - start)
    return [array for outputs in results for array in outputs]


def _run_in_threads(strategy, functions, parts, concurrent):
    """The replicas' functions in replica threads, meeting in their ReplicaAllReduce ops (mirrored_run.py)."""
    def one():
        index = mirrored_run.current_replica_thread().index
        cf = functions[index]
        try:
            return cf._executable()(*parts[index])
        except Exception as error:      # named after the replica graph's node, as a tf.function call is
            raise cf._runtime_error(error) from None

    return mirrored_run.run_on_replicas(strategy, one, (), {}, len(functions), strategy._enter_replica,
                                        strategy._cross_replica, concurrent=concurrent, graph_collectives=True,
                                        regrouped=False)


# Stateful: the replicas' functions read and write variables and meet in all-reduces; graph passes must
# neither prune nor reorder it.
REPLICA_CALL = OpDef("ReplicaCall", _infer, _kernel, stateful=True, multi=True, input_names=())
