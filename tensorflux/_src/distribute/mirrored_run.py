"""`strategy.run(fn)` over several replicas in this process: one thread per replica, run one at a time.

As TensorFlow's MirroredStrategy does, each replica calls `fn` in its own thread (so each has its own
replica context and graph/tape state), but only one thread runs at any moment: the caller starts replica
0 and waits until it finishes or pauses in `merge_call`, then replica 1, and so on. The order is fixed,
so what the replicas print and draw is deterministic. When every replica has paused in `merge_call`
(an `all_reduce`, an optimizer's update), the merge function runs once in the caller's thread, in the
cross-replica context, on the replicas' arguments grouped into `PerReplica` values; each replica then
resumes with its part of the result. A replica that finishes while another waits in `merge_call` is an
error (the replicas must make the same collective calls), not a deadlock.

Each replica thread starts from a copy of the caller's execution state (the graph being traced, the
active tapes, the name scope, the variable observers), so `strategy.run` inside a `tf.function` adds
every replica's ops to the function's graph, and a tape around `strategy.run` records them.
"""
import threading

from ..framework.context import state as _state
from .values import regroup, select_replica

__all__ = ["run_on_replicas", "merge_call_from_replica", "current_replica_thread"]

_STATE_FIELDS = ("graph", "tape_active", "tapes", "name_stack", "variable_observers", "autograph")
_current = threading.local()


def current_replica_thread():
    """The `_ReplicaThread` running the calling code, or None outside strategy.run's replica threads."""
    return getattr(_current, "thread", None)


class _ReplicaThread(threading.Thread):
    def __init__(self, strategy, index, fn, args, kwargs, caller_state, caller_stack, enter_replica):
        super().__init__(name=f"replica_{index}", daemon=True)
        self.strategy, self.index = strategy, index
        self.fn, self.args, self.kwargs = fn, args, kwargs
        self.caller_state, self.caller_stack = caller_state, caller_stack
        self.enter_replica = enter_replica
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

    def run(self):
        self.should_run.wait()
        self.should_run.clear()
        if self.abandoned:
            self.done = True
            return
        try:
            _current.thread = self
            for field, value in self.caller_state.items():
                setattr(_state, field, value)
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


def run_on_replicas(strategy, fn, args, kwargs, count, enter_replica, cross_replica):
    """Calls `fn` on `count` replicas (see the module docstring); returns their results regrouped.

    `enter_replica(caller_stack, index)` is a context manager putting the thread in replica `index`'s
    context; `cross_replica()` one putting the caller in the strategy's cross-replica context.
    """
    caller_state = {field: getattr(_state, field) for field in _STATE_FIELDS}
    caller_stack = strategy._stack_snapshot()
    threads = [_ReplicaThread(strategy, i, fn, select_replica(i, args), select_replica(i, kwargs),
                              caller_state, caller_stack, enter_replica) for i in range(count)]
    for thread in threads:
        thread.start()
    try:
        while True:
            for thread in threads:
                if not thread.done:
                    thread.has_paused.clear()
                    thread.should_run.set()
                    thread.has_paused.wait()
            failed = next((t for t in threads if t.error is not None), None)
            if failed is not None:
                raise failed.error
            if all(t.done for t in threads):
                return regroup([t.result for t in threads])
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
    """Runs the first replica's merge function on every replica's arguments, in the caller's thread."""
    merge_fn = threads[0].merge_fn
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

