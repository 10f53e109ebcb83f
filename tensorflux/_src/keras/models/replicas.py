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

__all__ = ["strategy_of", "replicas_in_step", "distributed_step", "agreed_permutation"]


def strategy_of(model):
    """The multi-replica strategy the model was compiled under, or None."""
    strategy = getattr(model, "_distribute_strategy", None)
    return strategy if strategy is not None and strategy.num_replicas_in_sync > 1 else None


def replicas_in_step():
    """The number of replicas of the step running now (1 outside `strategy.run`)."""
    context = tf.distribute.get_replica_context()
    return context.num_replicas_in_sync if context is not None else 1


def _replica_id(strategy):
    return int(strategy.experimental_distribute_values_from_function(lambda ctx: ctx.replica_id_in_sync_group))


def distributed_step(strategy, step, pack):
    """`one_step(x, y, sample_weight)` running `step` on this replica's slice of the global batch."""
    size, rank = strategy.num_replicas_in_sync, _replica_id(strategy)

    def mine(t):
        if t is None:
            return None
        rows = tf.shape(t)[0]
        per = (rows + size - 1) // size
        start = tf.minimum(rank * per, rows)
        return t[start:tf.minimum(start + per, rows)]

    def one_step(x, y=None, sample_weight=None):
        x, y, sample_weight = (tf.nest.map_structure(mine, part) if part is not None else None
                               for part in (x, y, sample_weight))
        logs = strategy.run(lambda: step(pack(x, y, sample_weight)))
        return tf.nest.map_structure(lambda v: strategy.reduce("MEAN", v, axis=None), logs)

    return one_step


class DistributedPredict:
    """`predict`'s step under a multi-worker strategy: each worker predicts its slice of the global batch (the
    slice `distributed_step` trains on), and the slices are gathered in worker order, so every worker gets
    the predictions of the whole batch, in order. `compute` is the (traced) predict step on one slice."""

    def __init__(self, strategy, compute):
        self._strategy, self._compute = strategy, compute
        self._size, self._rank = strategy.num_replicas_in_sync, _replica_id(strategy)
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
            return self._strategy.gather(tf.constant(padded), axis=0)[:rows]
        return tf.nest.map_structure(gathered, mine)


def agreed_permutation(strategy):
    """A `permutation(n)` function giving the same order on every worker (rank 0 draws the seed)."""
    rank = _replica_id(strategy)
    mine = np.random.randint(0, 2 ** 31 - 1) if rank == 0 else 0
    seed = int(strategy.reduce("SUM", tf.constant(mine, tf.int64), axis=None))
    return np.random.default_rng(seed).permutation
