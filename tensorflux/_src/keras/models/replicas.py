"""Keras training under a multi-worker strategy: data-parallel `fit`/`evaluate`, as Keras 3 trains under a
`tf.distribute` strategy.

A model compiled in `strategy.scope()` with several replicas runs each step through `strategy.run`:
every worker feeds the same *global* batch and keeps its slice of it (worker `i` takes the `i`-th
`ceil(B / N)` rows), the loss each replica differentiates is its local mean divided by the number of
replicas, and the optimizer sums the replicas' gradients (see `optimizers/optimizer.py`) — so the update
is the gradient of the global batch's mean loss, as one process computes it. The logs (loss and metrics)
are averaged across replicas. Shuffled array inputs use one order on every worker: rank 0 draws the seed.
"""
import time

import numpy as np

import tensorflux as tf

from ...distribute.faster_way import FasterWay
from ...distribute.mirrored_run import safe_to_run_concurrently
from ...distribute.values import MirroredResource, PerReplica, mirror_variable

__all__ = ["strategy_of", "replicas_in_step", "distributed_step", "LocalReplicasStep", "local_predict_step",
           "EagerFirstStep", "DistributedPredict", "agreed_permutation"]


def strategy_of(model):
    """The multi-replica strategy the model was compiled under, or None."""
    strategy = getattr(model, "_distribute_strategy", None)
    return strategy if strategy is not None and strategy.num_replicas_in_sync > 1 else None


def replicas_in_step():
    """The number of replicas of the step running now (1 outside `strategy.run`)."""
    context = tf.distribute.get_replica_context()
    return context.num_replicas_in_sync if context is not None else 1


def _layout(strategy):
    """(the job-wide id of this worker's first replica, its local replicas, the replicas of the job)."""
    local = strategy._local
    return strategy._world.rank * local, local, strategy.num_replicas_in_sync


def _rows_of(t, replica, replicas):
    """Replica `replica`'s rows of the batch `t`: the `replica`-th `ceil(B / replicas)` rows (the tail ones
    short or empty), as TensorFlow's distributed dataset splits a global batch."""
    rows = tf.shape(t)[0]
    per = (rows + replicas - 1) // replicas
    start = tf.minimum(replica * per, rows)
    return t[start:tf.minimum(start + per, rows)]


def _eager_rows_of(t, replica, replicas):
    """`_rows_of` for an eager tensor: its rows counted in Python, one slicing op."""
    rows = t.shape[0]
    if rows is None or not hasattr(t, "numpy"):
        return _rows_of(t, replica, replicas)
    per = -(-rows // replicas)
    start = min(replica * per, rows)
    return t[start:min(start + per, rows)]


def _split(part, first, local, replicas, rows_of=_rows_of):
    """`part` (a nest of batches) as this worker's replicas see it: one slice, or a PerReplica of slices."""
    if part is None:
        return None
    if local == 1:
        return tf.nest.map_structure(lambda t: rows_of(t, first, replicas), part)
    return tf.nest.map_structure(
        lambda t: PerReplica([rows_of(t, first + i, replicas) for i in range(local)]), part)


def distributed_step(strategy, step, pack, model):
    """`one_step(x, y, sample_weight)` running `step` on each local replica's slice of the global batch
    (with several local replicas, a `LocalReplicasStep`)."""
    first, local, replicas = _layout(strategy)
    if local > 1:
        return LocalReplicasStep(strategy, step, pack, model)

    def one_step(x, y=None, sample_weight=None):
        x, y, sample_weight = (_split(part, first, local, replicas) for part in (x, y, sample_weight))
        logs = strategy.run(lambda *parts: step(pack(*parts)), args=(x, y, sample_weight))
        return tf.nest.map_structure(lambda v: strategy.reduce("MEAN", v, axis=None), logs)

    return one_step


class LocalReplicasStep:
    """A step over several local replicas (MirroredStrategy over logical CPUs), each replica training on
    its slice of the batch.

    Called directly, the step runs eagerly, the replicas one at a time (the first step: it builds the
    metrics and the optimizer's slots inside the replicas). `traced(...)` runs the whole step, a
    tf.function whose `strategy.run` is one ReplicaCall op (distribute/replica_functions.py: the replicas'
    own functions, in turn or at once, whichever its timing finds faster, the bits of one graph either
    way). Pinned to "at once", it runs each replica's step as a tf.function of its own (traced per replica
    device, so each graph holds that replica's variable copies) in replica threads: their gradients meet
    in a `ReplicaAllReduce` op, reduced in replica order in the caller's thread. A step whose input shapes
    are new (it traces), or whose graphs hold an op with effects beyond its replica, then runs the
    replicas one at a time.

    Metrics keep one state per replica while the replicas step; after each step, every replica's totals
    are added into the first copy in replica order, the others zeroed: the same additions, in the same
    order, as replicas adding their slices to one shared state in turn. So the metric logs are those of
    the worker's whole batch, as one process computes them (averaging the replicas' results would not be).
    """

    def __init__(self, strategy, step, pack, model):
        self._strategy, self._step, self._pack, self._model = strategy, step, pack, model
        self._first, self._local, self._replicas = _layout(strategy)
        self._per_replica = tf.function(self._replica_step, reduce_retracing=True)
        self._whole = tf.function(self._whole_step, reduce_retracing=True)
        self._seen = set()            # input signatures the per-replica functions were traced for
        self._concurrent = True       # False once a traced graph holds an op unsafe to run at once
        self._specs = None            # the step's input specs when Keras traces for an unknown batch size
        self._relaxed = set()         # replicas whose functions were traced for those specs
        self._chooser = FasterWay()   # "whole" (the ReplicaCall step) or "at once" (replica threads)
        # The whole step's ReplicaCall itself runs the replicas in turn or at once (persistent workers, one
        # graph's bits either way); the replica-thread way gave other last bits than one graph on a wide MLP
        # and a convnet (1e-8 in the weights after a few steps), so alternating with it made the weights
        # depend on timing. It stays for a step pinned to it.
        self._chooser.choose("whole")
        self.__name__ = getattr(step, "__name__", "one_step")

    def _replica_step(self, x, y, sample_weight):
        return self._step(self._pack(x, y, sample_weight))

    def _whole_step(self, x, y, sample_weight):
        """The step of every replica in one tf.function: the replicas traced in turn, run by a ReplicaCall op
        (in turn or at once, whichever its timing finds faster; the bits of one graph either way)."""
        x, y, sample_weight = (_split(part, self._first, self._local, self._replicas)
                               for part in (x, y, sample_weight))
        return self._strategy.run(lambda *parts: self._step(self._pack(*parts)),
                                  args=(x, y, sample_weight))

    def relax(self, *specs):
        """Keras' trace for an unknown batch size (trainer.trace_for_batch): the step's functions are traced
        for these specs (dimension 0 unknown), so one trace serves every batch (the per-replica ones at
        their next step)."""
        self._specs = specs
        self._relaxed = set()
        self._whole.get_concrete_function(*specs)

    def __call__(self, x, y=None, sample_weight=None):
        return self._run(x, y, sample_weight, traced=False)

    def traced(self, x, y=None, sample_weight=None):
        return self._run(x, y, sample_weight, traced=True)

    def _run(self, x, y, sample_weight, traced):
        strategy, model = self._strategy, self._model
        for metric in model.metrics:            # built before this step: one state per replica again
            for variable in metric.variables:
                _accumulate_per_replica(variable, strategy, self._local)
        way = self._chooser.next() if traced and self._concurrent else "whole"
        if traced and way == "whole":
            traces = self._whole.experimental_get_tracing_count()
            start = time.perf_counter()
            logs = self._whole(x, y, sample_weight)
            if self._whole.experimental_get_tracing_count() == traces:
                self._chooser.record("whole", time.perf_counter() - start)
        else:
            logs = self._run_per_replica(x, y, sample_weight, traced)
        for metric in model.metrics:            # built in the first step or before: summed into copy 0
            for variable in metric.variables:
                _fold_replica_totals(variable)
        if isinstance(logs, dict):
            logs = {**logs, **model.get_metrics_result()}
        return tf.nest.map_structure(lambda v: strategy.reduce("MEAN", v, axis=None), logs)

    def _run_per_replica(self, x, y, sample_weight, traced):
        strategy = self._strategy
        rows_of = _eager_rows_of if tf.executing_eagerly() else _rows_of
        x, y, sample_weight = (_split(part, self._first, self._local, self._replicas, rows_of)
                               for part in (x, y, sample_weight))
        if not traced:
            return strategy.run(lambda *parts: self._step(self._pack(*parts)), args=(x, y, sample_weight))
        key = (self._specs is not None and len(self._relaxed) < self._local, _signature((x, y, sample_weight)))
        if key in self._seen and self._concurrent:
            start = time.perf_counter()
            logs = strategy._run_replica_functions(self._call_replica, (x, y, sample_weight))
            self._chooser.record("at once", time.perf_counter() - start)
            return logs
        # tracing: one replica at a time; then a look at what the graphs hold
        logs = strategy._run_replica_functions(self._call_replica, (x, y, sample_weight), concurrent=False)
        self._seen.add(key)
        self._concurrent = all(safe_to_run_concurrently(cf.graph)
                               for cf in self._per_replica._list_all_concrete_functions())
        return logs

    def _call_replica(self, x, y, sample_weight):
        if self._specs is not None:
            index = tf.distribute.get_replica_context().replica_id_in_sync_group
            if index not in self._relaxed:
                self._per_replica.get_concrete_function(*self._specs)
                self._relaxed.add(index)
        return self._per_replica(x, y, sample_weight)


def _signature(structure):
    """The shapes and dtypes of a nest's tensors (the trace key of a per-replica step, near enough)."""
    return tuple((tuple(t.shape.as_list()), t.dtype.name) if isinstance(t, tf.Tensor) else repr(t)
                 for v in tf.nest.flatten(structure) for t in _parts(v))


def _parts(value):
    return value.values if isinstance(value, PerReplica) else (value,)


def _accumulate_per_replica(variable, strategy, count):
    """A metric variable with one copy per replica; copies made here start at zero (the totals so far stay
    in the first copy)."""
    if isinstance(variable._resource, MirroredResource):
        return
    mirror_variable(variable, strategy, count)
    for copy in variable._resource._copies[1:]:
        copy.value = np.zeros_like(copy.value)


def _fold_replica_totals(variable):
    """Adds every replica's copy of a metric variable into the first, in replica order; zeroes the others."""
    resource = variable._resource
    if not isinstance(resource, MirroredResource):
        return
    first = resource._copies[0]
    for copy in resource._copies[1:]:
        first.value = first.value + copy.value
        copy.value = np.zeros_like(copy.value)


def local_predict_step(strategy, step, pack):
    """`predict`'s step over this worker's local replicas: each predicts its slice of the batch, and the
    slices are joined in replica order (the rows of the batch, in order)."""
    _, local, _ = _layout(strategy)

    def one_step(x, y=None, sample_weight=None):
        x = _split(x, 0, local, local)
        outputs = strategy.run(lambda part: step(pack(part, None, None)), args=(x,))
        return tf.nest.map_structure(
            lambda v: tf.concat(list(strategy.experimental_local_results(v)), axis=0), outputs)

    return one_step


class EagerFirstStep:
    """A step over several local replicas: the first call runs eagerly (it builds the metrics and the
    optimizer's slots inside the replicas, where each replica gets its copies), the rest traced: for a
    `LocalReplicasStep`, each replica's step traced on its own and the replicas run at once (its
    `traced`); otherwise `function`, the tf.function of the whole step."""

    def __init__(self, one_step, function):
        self._one_step, self._function, self._stepped = one_step, function, False
        self._traced = one_step.traced if isinstance(one_step, LocalReplicasStep) else function

    def __getattr__(self, name):
        if name == "get_concrete_function" and self._stepped:
            if isinstance(self._one_step, LocalReplicasStep):
                return self._one_step.relax
            return self._function.get_concrete_function
        raise AttributeError(name)

    def __call__(self, *args, **kwargs):
        if self._stepped:
            return self._traced(*args, **kwargs)
        result = self._one_step(*args, **kwargs)
        self._stepped = True
        return result


class DistributedPredict:
    """`predict`'s step under a multi-worker strategy: each worker predicts its slice of the global batch (the
    slice `distributed_step` trains on), and the slices are gathered in worker order, so every worker gets
    the predictions of the whole batch, in order. `compute` is the (traced) predict step on one slice (over
    the worker's local replicas, when it has several)."""

    def __init__(self, strategy, compute):
        self._strategy, self._compute = strategy, compute
        self._size, self._rank = strategy._world.size, strategy._world.rank
        if hasattr(compute, "get_concrete_function"):
            self.get_concrete_function = compute.get_concrete_function

    def __call__(self, x):
        rows = int(tf.nest.flatten(x)[0].shape[0])
        per = -(-rows // self._size)
        start = min(self._rank * per, rows)
        stop = min(start + per, rows)
        mine = self._compute(tf.nest.map_structure(lambda t: t[start:stop], x))

        def gathered(t):
            # Slices padded to `per` rows, so every worker sends the same shape; only the tail ones are
            # short (or empty), so the first `rows` rows of the gathered batch are the predictions in order.
            t = np.asarray(t)
            padded = np.concatenate([t, np.zeros((per - t.shape[0],) + t.shape[1:], t.dtype)]) \
                if t.shape[0] < per else t
            return self._strategy._world.all_gather(padded).reshape((-1,) + t.shape[1:])[:rows]
        return tf.nest.map_structure(lambda t: tf.constant(gathered(t)), mine)


def agreed_permutation(strategy):
    """A `permutation(n)` function giving the same order on every worker (rank 0 draws the seed)."""
    rank = strategy._world.rank
    mine = np.random.randint(0, 2 ** 31 - 1) if rank == 0 else 0
    (seed,) = strategy._world.broadcast([np.asarray(mine, np.int64)], root=0)
    seed = int(seed)
    return np.random.default_rng(seed).permutation
