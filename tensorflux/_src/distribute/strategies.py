"""`tf.distribute` strategies: where replicas run, how their values are combined, which context code is in.

A strategy has `W` workers (processes) of `R` replicas each. Without `mpiexec` a job has one worker, so
every strategy has `R` = its number of devices (1 unless several logical CPUs are listed) and behaves as
TensorFlow's do on that machine. Launched by `mpiexec -n W`, `MultiWorkerMirroredStrategy` and
`MirroredStrategy` have one worker per rank (see `multi_worker.py` and `mpi.py`): variables created under
`scope()` start equal on every worker (rank 0's values are broadcast at creation), `run` calls the function
in a *replica context* whose `all_reduce` combines values across replicas, and `reduce` combines a
per-replica result in the *cross-replica context*. `MirroredStrategy(["cpu:0", "cpu:1", ...])` over the
logical CPU devices of `tf.config.set_logical_device_configuration` has one replica per device in each
worker, run as TensorFlow runs them (one thread each, in turn: `mirrored_run.py`), with `PerReplica`
results and mirrored variables (`values.py`); replica `i` of worker `w` is replica `w * R + i` of the job,
and its values are reduced within the worker first, then across workers.

Contexts, as TensorFlow defines them: outside any strategy, code runs in the default replica context of
the default strategy; inside `with strategy.scope():` it is in the strategy's cross-replica context
(`get_replica_context()` is None); inside `strategy.run(fn)` it is in that strategy's replica context.
"""
import contextlib
import enum
import threading
import weakref

import numpy as np

from ..framework import nest
from ..state import worker_paths
from ..framework.context import autograph_callable, init_scope, state as _state
from ..framework.device import DeviceSpec, list_logical_devices
from ..framework.graph import SymbolicTensor
from ..framework.tensor import Tensor
from ..function.polymorphic import Function
from ..ops.math import reduce as math_reduce
from ..ops.array import join
from ..ops.math import arith as _arith
from ..ops.shapes import shape_ops as _shape_ops
from . import collective, datasets, mirrored_run, mpi, replica_all_reduce, replica_functions
from .values import PerReplica, local_values, mirror_variable, share_state

__all__ = ["Strategy", "MirroredStrategy", "OneDeviceStrategy", "ReduceOp", "ReplicaContext",
           "StrategyExtended", "get_strategy", "has_strategy", "in_cross_replica_context",
           "get_replica_context", "experimental_set_strategy"]

_CPU = "/job:localhost/replica:0/task:0/device:CPU:0"


class ReduceOp(enum.Enum):
    SUM = "SUM"
    MEAN = "MEAN"

    @staticmethod
    def from_variable_aggregation(aggregation):
        name = getattr(aggregation, "name", str(aggregation)).upper()
        if name not in ("SUM", "MEAN"):
            raise ValueError(f"Could not convert from `tf.VariableAggregation` {aggregation} to "
                             f"`tf.distribute.ReduceOp` type")
        return ReduceOp[name]


def _reduce_op(value):
    if isinstance(value, ReduceOp):
        return value
    try:
        return ReduceOp(str(getattr(value, "value", value)).upper())
    except ValueError:
        raise ValueError(f"`reduce_op` must be a `tf.distribute.ReduceOp` (SUM or MEAN). Received: "
                         f"{value!r}") from None


class StrategyExtended:
    """`strategy.extended`: devices, and where checkpoints and summaries are written."""

    def __init__(self, strategy, devices):
        self._strategy = strategy
        self.worker_devices = tuple(devices)
        self.parameter_devices = tuple(devices)

    @property
    def should_checkpoint(self):
        return self._strategy._world.rank == 0

    @property
    def should_save_summary(self):
        return self._strategy._world.rank == 0

    @property
    def should_init(self):
        return True

    @property
    def experimental_between_graph(self):
        return self._strategy._world.size > 1

    def _in_multi_worker_mode(self):
        return self._strategy._world.size > 1

    def reduce_to(self, reduce_op, value, destinations=None, options=None):
        return self._strategy.reduce(reduce_op, value, axis=None)

    def batch_reduce_to(self, reduce_op, value_destination_pairs, options=None):
        values = [value for value, _ in value_destination_pairs]
        return self._strategy._all_reduce(_reduce_op(reduce_op), values)

    def variable_created_in_scope(self, v):
        return getattr(v, "_distribute_strategy", None) is self._strategy


class Strategy:
    """A set of replicas, one per worker of `world` (the base of every strategy; TensorFlow's default
    strategy is one replica)."""

    def __init__(self, devices=(_CPU,), world=None):
        self._world = world if world is not None else mpi.World()
        self._local = len(devices)     # replicas in this process (each worker has as many)
        if self._world.size > 1:       # checkpoints: the chief writes the real files, others temporary ones
            worker_paths.set_worker(self._world.rank)
        self.extended = StrategyExtended(self, devices)
        self._lifted_functions = weakref.WeakKeyDictionary()    # tf.function -> its run on every replica

    @property
    def num_replicas_in_sync(self):
        return self._world.size * self._local

    # -- replicas in this process (mirrored_run.py, values.py) ---------------------------------------
    def _current_replica_index(self):
        """The local replica running the calling code, or None outside this strategy's replicas."""
        replicas = _STACK.replicas
        context = replicas[-1] if replicas else None
        if context is None or context._strategy is not self:
            return None
        return context._local_index

    def _stack_snapshot(self):
        return list(_STACK.strategies)

    @contextlib.contextmanager
    def _enter_replica(self, caller_strategies, index):
        _STACK.strategies = caller_strategies + [self]
        _STACK.replicas = [ReplicaContext(self, self._world.rank * self._local + index, index)]
        yield

    @contextlib.contextmanager
    def _cross_replica(self):
        _STACK.strategies.append(self)
        _STACK.replicas.append(None)
        try:
            yield
        finally:
            _STACK.replicas.pop()
            _STACK.strategies.pop()

    def _mirror_created(self, variable):
        """Variables created in the scope, outside the replicas, get one copy per local replica."""
        if get_replica_context() is None and get_strategy() is self:
            mirror_variable(variable, self, self._local)

    def _mirror_created_in_replica(self, variable, created, counts):
        """Variables created inside `run`, as TensorFlow makes them: replica 0's is mirrored (its value in
        every copy), and replica i's k-th variable is replica 0's k-th (the same state)."""
        index = self._current_replica_index()
        if index is None:
            return
        if index == 0:
            created.append(mirror_variable(variable, self, self._local))
            return
        k, counts[index] = counts[index], counts[index] + 1
        if k >= len(created):
            raise RuntimeError(f"Replica {index} created more variables in `strategy.run` than replica 0: every "
                               f"replica must create the same variables.")
        share_state(variable, created[k])

    @property
    def cluster_resolver(self):
        return None

    # -- contexts ------------------------------------------------------------------------------------
    @contextlib.contextmanager
    def scope(self):
        """Makes this strategy current; variables created inside start equal on every worker."""
        _STACK.strategies.append(self)
        # Broadcast first, so that the local copies are made of the value every worker agreed on.
        observers = ([self._variable_created] if self._world.size > 1 else []) + \
            ([self._mirror_created] if self._local > 1 else [])
        _state.variable_observers.extend(observers)
        try:
            yield self
        finally:
            for observe in observers:
                _state.variable_observers.remove(observe)
            _STACK.strategies.pop()

    def _variable_created(self, variable):
        with init_scope():
            value = variable.numpy()
            (agreed,) = self._world.broadcast([value], root=0)
            if value.size:
                variable.assign(agreed)

    def run(self, fn, args=(), kwargs=None, options=None):
        """Calls `fn` once on this worker's replica, in the replica context (one local replica: the result is
        this replica's value, as TensorFlow returns it with one local device). With several local replicas,
        once per replica (see mirrored_run.py): tensors that differ come back as PerReplica values."""
        if self._local > 1:
            if type(fn) is Function and _state.graph is None and not _state.tape_active:
                return self._lifted(fn)(*args, **(kwargs or {}))
            if _state.graph is not None and not _state.tape_active:
                try:     # each replica's own function, run at once where that pays (replica_functions.py)
                    return replica_functions.trace_replica_functions(self, fn, args, kwargs or {})
                except replica_functions.NeedsTraceTimeMerge:
                    pass
            return self._run_in_one_graph(autograph_callable(fn), args, kwargs)
        _STACK.replicas.append(ReplicaContext(self, self._world.rank, 0))
        try:
            with self.scope():
                return fn(*args, **(kwargs or {}))
        finally:
            _STACK.replicas.pop()

    def _lifted(self, function):
        """For an eager `run(tf_function)`: as TensorFlow does, a tf.function (with `function`'s options)
        that runs `function`'s Python function on every replica, made once per function, so the replicas'
        steps are traced (and their merges allowed) as in `run` inside a tf.function."""
        lifted = self._lifted_functions.get(function)
        if lifted is None:
            python_function = function.python_function

            def on_every_replica(*args, **kwargs):
                return self.run(python_function, args, kwargs)
            lifted = Function(on_every_replica, name=function._name, input_signature=function._input_signature,
                              autograph=function._autograph, reduce_retracing=function._reduce_retracing,
                              jit_compile=function._jit_compile)
            self._lifted_functions[function] = lifted
        return lifted

    def _run_in_one_graph(self, fn, args=(), kwargs=None):
        """`run` over the local replicas in turn: eagerly, or inside a tf.function adding every replica's
        ops to the graph being traced, with the merges at trace time (TensorFlow's way)."""
        return self._run_local_replicas(fn, args, kwargs, concurrent=False, graph_collectives=False)

    def _run_replica_functions(self, fn, args=(), kwargs=None, concurrent=True):
        """`run` for a `fn` that calls a tf.function of its own per replica (Keras' per-replica step): an
        `all_reduce` traced there becomes a ReplicaAllReduce op, met when the function runs (TensorFlow
        refuses a synchronisation inside a nested tf.function; `run` does too). With `concurrent`, the local
        replicas run at once between merges (mirrored_run.py); only eagerly: inside a graph being traced,
        or under a recording tape, they take turns."""
        if self._local == 1:
            return self.run(fn, args, kwargs)
        concurrent = concurrent and _state.graph is None and not _state.tape_active
        return self._run_local_replicas(fn, args, kwargs, concurrent=concurrent, graph_collectives=True)

    def _run_local_replicas(self, fn, args, kwargs, concurrent, graph_collectives):
        created, counts = [], [0] * self._local

        def observe(variable):
            self._mirror_created_in_replica(variable, created, counts)
        _state.variable_observers.append(observe)
        try:
            return mirrored_run.run_on_replicas(self, fn, args, kwargs or {}, self._local, self._enter_replica,
                                                self._cross_replica, concurrent, graph_collectives)
        finally:
            _state.variable_observers.remove(observe)

    # -- combining values ----------------------------------------------------------------------------
    def _all_reduce(self, reduce_op, values):
        """Each value of the list reduced across replicas, by one collective."""
        flat = nest.flatten(values)
        if self._local > 1:
            # The local replicas first (a MEAN of equal counts per worker stays a MEAN across workers).
            values = nest.pack_sequence_as(values, [self._local_reduce(reduce_op, v) for v in flat])
            flat = nest.flatten(values)
        return nest.pack_sequence_as(values, self._world_reduce(reduce_op, flat))

    def _all_reduce_named(self, reduction, values):
        """`_all_reduce` with the reduction by name ("SUM" or "MEAN"), for ReplicaAllReduce's merge."""
        return self._all_reduce(ReduceOp(reduction), values)

    def _world_reduce(self, reduce_op, flat):
        """A flat list of this worker's tensors reduced across the workers, by one collective."""
        if self._world.size == 1:
            return flat
        return collective.all_reduce_tensors(flat, reduce_op.value)

    def _local_reduce(self, reduce_op, value):
        """A PerReplica value of the local replicas combined (a value that is not per replica is the same
        on every replica: its MEAN is itself, its SUM is refused, as TensorFlow refuses it)."""
        if not isinstance(value, PerReplica):
            if reduce_op is ReduceOp.MEAN:
                return value
            raise ValueError(f"A non-DistributedValues value {value} cannot be reduced with the given reduce op "
                             f"{reduce_op}.")
        total = value.values[0]
        for part in value.values[1:]:
            total = _arith.add(total, part)
        if reduce_op is ReduceOp.MEAN:
            total = _arith.divide(total, _arith.cast(len(value.values), total.dtype))
        return total

    def reduce(self, reduce_op, value, axis):
        """Combines the per-replica `value` across replicas (and along `axis` first, when given)."""
        op = _reduce_op(reduce_op)
        if axis is None:
            return self._all_reduce(op, value)
        flat = nest.flatten(value)
        sums, counts = [], []
        for v in flat:                       # this worker's replicas, along the axis
            parts = local_values(v)
            total = _arith.add_n([math_reduce.reduce_sum(p, axis=axis) for p in parts]) if len(parts) > 1 \
                else math_reduce.reduce_sum(parts[0], axis=axis)
            sums.append(total)
            counts.append(_arith.add_n([_arith.cast(_shape_ops.shape(p)[axis], total.dtype) for p in parts])
                          if len(parts) > 1 else _arith.cast(_shape_ops.shape(parts[0])[axis], total.dtype))
        if op is ReduceOp.SUM:
            return nest.pack_sequence_as(value, self._world_reduce(ReduceOp.SUM, sums))
        totals = self._world_reduce(ReduceOp.SUM, sums + counts)
        means = [s / n for s, n in zip(totals[:len(flat)], totals[len(flat):])]
        return nest.pack_sequence_as(value, means)

    def gather(self, value, axis):
        """Every replica's `value` concatenated along `axis`, replica 0 first (eagerly: values of equal
        shapes on every worker; inside a tf.function across workers it is not supported yet)."""
        if self._local > 1:
            value = nest.map_structure(lambda v: join.concat(list(local_values(v)), axis=axis), value)
        if self._world.size == 1:
            return value

        def one(v):
            if isinstance(v, SymbolicTensor):      # a tensor of a graph being traced
                raise NotImplementedError("strategy.gather across workers runs eagerly only in tensorflux; "
                                          "call it outside tf.function (all_reduce works inside).")
            stacked = self._world.all_gather(np.asarray(v))
            return join.concat([stacked[i] for i in range(self._world.size)], axis=axis)
        return nest.map_structure(one, value)

    def experimental_local_results(self, value):
        if self._local > 1:
            return nest.map_structure(local_values, value) if not isinstance(value, PerReplica) else \
                local_values(value)
        return (value,)

    # -- input ---------------------------------------------------------------------------------------
    def experimental_distribute_dataset(self, dataset, options=None):
        return datasets.distribute_dataset(self, dataset, options)

    def distribute_datasets_from_function(self, dataset_fn, options=None):
        return datasets.distribute_from_function(self, dataset_fn, options)

    def experimental_distribute_values_from_function(self, value_fn):
        if self._local > 1:
            first = self._world.rank * self._local
            return PerReplica([value_fn(_ValueContext(first + i, self.num_replicas_in_sync))
                               for i in range(self._local)])
        return value_fn(_ValueContext(self._world.rank, self._world.size))


class _ValueContext:
    def __init__(self, replica_id, num_replicas):
        self.replica_id_in_sync_group = replica_id
        self.num_replicas_in_sync = num_replicas


class ReplicaContext:
    """The context of code running on one replica (inside `strategy.run`)."""

    def __init__(self, strategy, replica_id_in_sync_group=0, local_index=0):
        self._strategy = strategy
        self.replica_id_in_sync_group = replica_id_in_sync_group
        self._local_index = local_index        # which of this process's replicas (its variable copies)

    @property
    def strategy(self):
        return self._strategy

    @property
    def num_replicas_in_sync(self):
        return self._strategy.num_replicas_in_sync

    @property
    def devices(self):
        return self._strategy.extended.worker_devices

    def all_reduce(self, reduce_op, value, options=None):
        """`value` (a nest of tensors) reduced across all replicas; one collective for the whole nest."""
        op = _reduce_op(reduce_op)
        thread = mirrored_run.current_replica_thread() if self._strategy._local > 1 else None
        if thread is not None and _traces_own_function(thread):
            if not (thread.graph_collectives or _state.graph is thread.own_graph):
                raise RuntimeError(_MERGE_IN_TRACE)
            flat = nest.flatten(value)        # met by the other replicas when the function runs
            return nest.pack_sequence_as(value, replica_all_reduce.replica_all_reduce(flat, op.value))
        if thread is not None:
            reduced = self.merge_call(lambda strategy, v: strategy._all_reduce(op, v), args=(value,))
            # Each replica gets its own copy, as TensorFlow's (one per device): regrouped, the result is
            # per replica, and a merge or `strategy.reduce` of it counts every replica's.
            return nest.map_structure(lambda t: _shape_ops.identity(t) if isinstance(t, Tensor) else t, reduced)
        return self._strategy._all_reduce(op, value)

    def all_gather(self, value, axis, options=None):
        return self._strategy.gather(value, axis)

    def merge_call(self, merge_fn, args=(), kwargs=None):
        """Calls `merge_fn(strategy, *args)` in the cross-replica context (with several local replicas, once
        for all of them, on their arguments as PerReplica values: see mirrored_run.py)."""
        thread = mirrored_run.current_replica_thread() if self._strategy._local > 1 else None
        if thread is not None and _traces_own_function(thread):
            if _state.graph is thread.own_graph:        # fn traced per replica: trace it in one graph instead
                raise replica_functions.NeedsTraceTimeMerge()
            raise RuntimeError(_MERGE_IN_TRACE)
        if thread is not None:
            return mirrored_run.merge_call_from_replica(merge_fn, args, kwargs or {})
        _STACK.replicas.append(None)
        try:
            return merge_fn(self._strategy, *args, **(kwargs or {}))
        finally:
            _STACK.replicas.pop()


def _traces_own_function(thread):
    """True while a replica thread traces a function of its own (its `fn` traced per replica, or a
    tf.function `fn` calls): that graph runs later in this thread, so its all-reduce meets the other
    replicas then (a ReplicaAllReduce op). When a traced `strategy.run` adds the replicas' ops to the
    caller's graph, the merges happen at trace time."""
    return _state.graph is not None and _state.graph is not thread.caller_state["graph"]


_MERGE_IN_TRACE = (
    "`merge_call` called while defining a new graph or a tf.function. This can often happen if the function "
    "`fn` passed to `strategy.run()` contains a nested `@tf.function`, and the nested `@tf.function` contains a "
    "synchronization point, such as aggregating gradients (e.g, optimizer.apply_gradients), or if the function "
    "`fn` uses a control flow statement which contains a synchronization point in the body. Such behaviors are "
    "not yet supported. Instead, please avoid nested `tf.function`s or control flow statements that may "
    "potentially cross a synchronization boundary, for example, wrap the `fn` passed to `strategy.run` or the "
    "entire `strategy.run` inside a `tf.function` or move the control flow out of `fn`. If you are subclassing a "
    "`tf.keras.Model`, please avoid decorating overridden methods `test_step` and `train_step` in `tf.function`.")


class MirroredStrategy(Strategy):
    """Synchronous replicas on this host's CPU: one per listed logical CPU device (the virtual devices of
    `tf.config.set_logical_device_configuration`), run in this process; or, launched by `mpiexec` with one
    device, one replica per rank."""

    def __init__(self, devices=None, cross_device_ops=None):
        names = [_cpu_device(d) for d in devices] if devices is not None else [_CPU]
        if len(set(names)) != len(names):
            raise ValueError(f"No duplicates allowed in `devices` argument: {devices}")
        super().__init__(names, mpi.world())


class OneDeviceStrategy(Strategy):
    def __init__(self, device):
        super().__init__([_cpu_device(device)])


def _cpu_device(name):
    spec = DeviceSpec.from_string(str(name))
    index = spec.device_index or 0
    if spec.device_type not in (None, "CPU"):
        raise ValueError(f"tensorflux computes on the CPU only; cannot place a replica on {name!r}.")
    available = len(list_logical_devices("CPU"))
    if index >= available:
        raise ValueError(f"tensorflux has {available} logical CPU device(s); cannot place a replica on "
                         f"{name!r} (split the CPU with tf.config.set_logical_device_configuration first).")
    return f"/job:localhost/replica:0/task:0/device:CPU:{index}"


class _StrategyStack(threading.local):
    def __init__(self):
        self.strategies = []
        self.replicas = []      # replica contexts of enclosing `run` calls (None: a merge_call)


_STACK = _StrategyStack()
_DEFAULT = Strategy()
_DEFAULT_REPLICA = ReplicaContext(_DEFAULT)
_GLOBAL = [None]            # set by experimental_set_strategy


def get_strategy():
    if _STACK.strategies:
        return _STACK.strategies[-1]
    return _GLOBAL[0] or _DEFAULT


def has_strategy():
    return get_strategy() is not _DEFAULT


def in_cross_replica_context():
    return get_replica_context() is None


def get_replica_context():
    if _STACK.replicas:
        return _STACK.replicas[-1]
    return None if has_strategy() else _DEFAULT_REPLICA


def experimental_set_strategy(strategy):
    """Makes `strategy` current for this program (until set to None), as if inside its scope."""
    if _STACK.strategies:
        raise RuntimeError("Must not be called inside a `tf.distribute.Strategy` scope.")
    _GLOBAL[0] = strategy


API = {"distribute": __all__}
