"""Keras training under a multi-worker strategy: data-parallel `fit`/`evaluate`, as Keras 3 trains under a
`tf.distribute` strategy.

A model compiled in `strategy.scope()` with several replicas runs each step through `strategy.run`:
every worker feeds the same *global* batch and keeps its slice of it (worker `i` takes the `i`-th
`ceil(B / N)` rows), the loss each replica differentiates is its local mean divided by the number of
replicas, and the optimizer sums the replicas' gradients (see `optimizers/optimizer.py`) — so the update
is the gradient of the global batch's mean loss, as one process computes it. The logs (loss and metrics)
are averaged across replicas. Shuffled array inputs use one order on every worker: rank 0 draws the seed.
"""
import numpy as np

import tensorflux as tf

from ...distribute.values import PerReplica, unmirror_variable

__all__ = ["strategy_of", "replicas_in_step", "distributed_step", "local_predict_step", "EagerFirstStep", "DistributedPredict",
           "agreed_permutation"]


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


def _split(part, first, local, replicas):
    """`part` (a nest of batches) as this worker's replicas see it: one slice, or a PerReplica of slices."""
    if part is None:
        return None
    if local == 1:
        return tf.nest.map_structure(lambda t: _rows_of(t, first, replicas), part)
    return tf.nest.map_structure(
        lambda t: PerReplica([_rows_of(t, first + i, replicas) for i in range(local)]), part)


def distributed_step(strategy, step, pack, model):
    """`one_step(x, y, sample_weight)` running `step` on each local replica's slice of the global batch.

    With several local replicas, the model's metrics keep one state for all of them (each replica adds its
    slice in turn), and the metric logs are read from it after the step: the metrics of the worker's whole
    batch, as one process computes them (averaging the replicas' partial results would not be)."""
    first, local, replicas = _layout(strategy)

    def one_step(x, y=None, sample_weight=None):
        if local > 1:
            for metric in model.metrics:       # built now or in the first step: shared, not mirrored
                for variable in metric.variables:
                    unmirror_variable(variable)
        x, y, sample_weight = (_split(part, first, local, replicas) for part in (x, y, sample_weight))
        logs = strategy.run(lambda *parts: step(pack(*parts)), args=(x, y, sample_weight))
        if local > 1:
            for metric in model.metrics:       # built in this step (mirrored): its copies' totals, summed
                for variable in metric.variables:
                    unmirror_variable(variable, summed=True)
        if local > 1 and isinstance(logs, dict):
            logs = {**logs, **model.get_metrics_result()}
        return tf.nest.map_structure(lambda v: strategy.reduce("MEAN", v, axis=None), logs)

    return one_step


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
    """A step over several local replicas: the first call runs eagerly, the rest traced. The first step
    builds the metrics and the optimizer's slots inside the replicas; run eagerly, the metrics' per-replica
    totals can be summed into one shared state before any graph captures a replica's copy of them."""

    def __init__(self, one_step, function):
        self._one_step, self._function, self._stepped = one_step, function, False

    def __getattr__(self, name):
        if name == "get_concrete_function" and self._stepped:
            return self._function.get_concrete_function
        raise AttributeError(name)

    def __call__(self, *args, **kwargs):
        if self._stepped:
            return self._function(*args, **kwargs)
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
