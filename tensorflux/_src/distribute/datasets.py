"""Splitting input between replicas: `experimental_distribute_dataset` and `distribute_datasets_from_function`.

A strategy has `W` workers (MPI ranks) of `R` local replicas each (`R > 1`: a MirroredStrategy over several
logical CPUs). `experimental_distribute_dataset(dataset)` takes a dataset batched with the *global* batch
size `B`. As in TensorFlow, each worker runs the whole pipeline, rebatches every global batch into `W * R`
per-replica pieces, and keeps its share according to the dataset's
`tf.data.Options().experimental_distribute.auto_shard_policy`:

- DATA (and AUTO when the pipeline reads no files): worker `i` keeps pieces `i*R … i*R+R-1` of every global
  batch. The pieces split each batch evenly (sizes differ by at most one, larger ones first), so a step
  of all workers covers the global batch once and the number of steps per epoch is that of one process.
- FILE (and AUTO when the pipeline reads files): each worker reads only its files (`data/sharding.py`
  shards the file sources as TensorFlow's rewrite does); it keeps every piece of its batches. A pipeline
  without a file source raises TensorFlow's NotFoundError under FILE.
- HINT: the pipeline's `shard(SHARD_HINT, SHARD_HINT)` become `shard(W, i)`; every piece is kept.
- OFF: nothing is sharded; every piece is kept (each worker sees all the data).

Under FILE, HINT and OFF, pieces have TensorFlow's fixed per-replica sizes (those of the global batch,
computed from the first batch), filled in order: a short last batch leaves the last pieces short or empty.

With `R` local replicas, a step is `R` pieces: each element of the distributed dataset is a structure of
`PerReplica` values (one piece per replica), which `strategy.run` hands to each replica. With one replica
in the whole job the dataset is returned unsplit (wrapped, so that its type is TensorFlow's).
"""
import numpy as np

from ..data.dataset import Dataset, DatasetSpec
from ..data.options import AutoShardPolicy
from ..data.sharding import ShardPlan, active_plan
from ..framework import nest
from ..framework.errors import InvalidArgumentError, NotFoundError, eager_error
from ..types.shape import TensorShape
from ..types.spec import TensorSpec
from .values import PerReplicaSpec, regroup

__all__ = ["DistributedDataset", "InputContext", "distribute_dataset", "distribute_from_function"]

_END = object()


class InputContext:
    """What `distribute_datasets_from_function` passes to its function: which input pipeline this is."""

    def __init__(self, num_input_pipelines=1, input_pipeline_id=0, num_replicas_in_sync=1):
        self.num_input_pipelines = num_input_pipelines
        self.input_pipeline_id = input_pipeline_id
        self.num_replicas_in_sync = num_replicas_in_sync

    def get_per_replica_batch_size(self, global_batch_size):
        if global_batch_size % self.num_replicas_in_sync:
            raise ValueError(f"The `global_batch_size` {global_batch_size} is not divisible by "
                             f"`num_replicas_in_sync` {self.num_replicas_in_sync}")
        return global_batch_size // self.num_replicas_in_sync

    def __repr__(self):
        return (f"tf.distribute.InputContext(input pipeline id {self.input_pipeline_id}, total: "
                f"{self.num_input_pipelines})")


class DistributedDataset(Dataset):
    """This worker's share of a dataset: iterate it (eagerly or in a tf.function) like a dataset. With
    several local replicas its elements are PerReplica values (the underlying dataset yields the `R`
    pieces of a step side by side)."""

    def __init__(self, dataset, strategy, kind="DistributedDataset", replicas=1):
        super().__init__(dataset._element_spec, dataset._make_arrays, kind, dataset._cardinality)
        self._options = getattr(dataset, "_options", None)
        self._strategy = strategy
        self._replicas = replicas
        self._wide = dataset         # with several replicas: the steps' pieces side by side

    @property
    def element_spec(self):
        if self._replicas == 1:
            return self._element_spec
        return nest.map_structure(lambda *specs: PerReplicaSpec(*specs), *self._element_spec)

    def __iter__(self):
        if self._replicas == 1:
            return super().__iter__()
        return (regroup(list(step)) for step in iter(self._wide))

    def __tf_tracing_type__(self, context):
        if self._replicas == 1:
            return super().__tf_tracing_type__(context)
        return _PerReplicaDatasetSpec(self._element_spec, self._strategy, self._replicas)

    def _ag_for_stmt(self, extra_test, body, get_state, set_state, names):
        if self._replicas == 1:
            return super()._ag_for_stmt(extra_test, body, get_state, set_state, names)
        return self._wide._ag_for_stmt(extra_test, lambda step: body(regroup(list(step))), get_state, set_state,
                                       names)


class _PerReplicaDatasetSpec(DatasetSpec):
    """A distributed dataset with several local replicas as a tf.function argument: the function receives
    a stand-in that still yields PerReplica values."""

    def __init__(self, element_spec, strategy, replicas):
        super().__init__(element_spec)
        self._strategy, self._replicas = strategy, replicas

    def placeholder_value(self, placeholder_context=None):
        stand_in = super().placeholder_value(placeholder_context)
        return DistributedDataset(stand_in, self._strategy, replicas=self._replicas)

    def __eq__(self, other):
        return type(other) is _PerReplicaDatasetSpec and other._replicas == self._replicas and \
            super().__eq__(DatasetSpec(other.element_spec))

    __hash__ = DatasetSpec.__hash__


def _policy(dataset):
    options = getattr(dataset, "_options", None)
    return AutoShardPolicy.AUTO if options is None else options.experimental_distribute.auto_shard_policy


def _piece_spec(spec):
    shape = TensorShape(spec.shape)
    if shape.rank is None or shape.rank == 0:
        raise InvalidArgumentError(None, None, "experimental_distribute_dataset: the dataset's elements must be "
                                               "batches (rank >= 1) to be split between replicas; batch the "
                                               "dataset with the global batch size first.")
    return TensorSpec(TensorShape([None]).concatenate(shape[1:]), spec.dtype)


def _even_sizes(rows, parts):
    """`rows` split in `parts` sizes differing by at most one, the larger first (TensorFlow's rebatch)."""
    floor, extra = divmod(rows, parts)
    return [floor + 1] * extra + [floor] * (parts - extra)


def _cut(flat, sizes):
    """The batch `flat` (a list of arrays) cut into consecutive pieces of `sizes` rows (the rest dropped,
    missing rows leaving pieces short or empty)."""
    rows = flat[0].shape[0] if flat else 0
    pieces, start = [], 0
    for size in sizes:
        stop = min(start + size, rows)
        pieces.append([a[start:stop] for a in flat])
        start = stop
    return pieces


def distribute_dataset(strategy, dataset, options=None):
    if not isinstance(dataset, Dataset):
        raise TypeError(f"`dataset` must be a `tf.data.Dataset`. Received: {type(dataset).__name__}")
    workers, rank, local = strategy._world.size, strategy._world.rank, strategy._local
    policy = _policy(dataset)
    if workers * local == 1 and policy != AutoShardPolicy.HINT:
        return DistributedDataset(dataset, strategy)
    total = workers * local
    spec = nest.map_structure(_piece_spec, dataset._element_spec)
    source = dataset._make_arrays
    if policy in (AutoShardPolicy.AUTO, AutoShardPolicy.FILE) and workers > 1:
        plan_kind = "FILE"
    elif policy == AutoShardPolicy.HINT:
        plan_kind = "HINT"
    else:
        plan_kind = None

    def pieces():
        """This worker's per-replica pieces, in order."""
        plan = ShardPlan(plan_kind, workers, rank) if plan_kind else None
        with active_plan(plan):
            batches = iter(source())
            batch = next(batches, _END)
        mode = policy
        if plan_kind == "FILE":
            if plan.claimed:
                mode = AutoShardPolicy.FILE
            elif policy == AutoShardPolicy.FILE:
                raise eager_error(NotFoundError, "Found an unshardable source dataset: the pipeline reads no "
                                                 "files (AutoShardPolicy.FILE needs TextLineDataset, "
                                                 "TFRecordDataset or Dataset.list_files)", "AutoShardDataset")
            else:
                mode = AutoShardPolicy.DATA
        elif workers == 1 and policy == AutoShardPolicy.AUTO:
            mode = AutoShardPolicy.DATA
        fixed = None
        while batch is not _END:
            rows = batch[0].shape[0] if batch else 0
            if mode == AutoShardPolicy.DATA:
                yield from _cut(batch, _even_sizes(rows, total))[rank * local:(rank + 1) * local]
            else:
                if fixed is None:        # the global batch size, from the first (full) batch
                    sizes = _even_sizes(rows, total)
                    offset = rank * local
                    fixed = sizes[offset:] + sizes[:offset]
                yield from _cut(batch, fixed)
            with active_plan(plan):
                batch = next(batches, _END)

    if local == 1:
        share = Dataset(spec, pieces, "_RebatchDataset")
    else:
        share = Dataset(tuple([spec] * local), lambda: _steps(pieces(), local), "_RebatchDataset")
    share._options = getattr(dataset, "_options", None)
    return DistributedDataset(share, strategy, replicas=local)


def _steps(pieces, local):
    """Groups of `local` consecutive pieces, side by side (one flat list: replica 0's arrays first)."""
    group = []
    for piece in pieces:
        group.extend(piece)
        if len(group) == local * len(piece):
            yield group
            group = []


def distribute_from_function(strategy, dataset_fn, options=None):
    world, local = strategy._world, strategy._local
    context = InputContext(num_input_pipelines=world.size, input_pipeline_id=world.rank,
                           num_replicas_in_sync=world.size * local)
    dataset = dataset_fn(context)
    if not isinstance(dataset, Dataset):
        raise TypeError(f"`dataset_fn` must return a `tf.data.Dataset`. Received: {type(dataset).__name__}")
    if local == 1:
        return DistributedDataset(dataset, strategy, "DistributedDatasetsFromFunction")
    spec = dataset._element_spec
    source = dataset._make_arrays

    def steps():
        """`local` consecutive elements per step; a step the dataset ends in gives the remaining replicas
        empty batches (as TensorFlow does)."""
        group = []
        for flat in source():
            group.append(flat)
            if len(group) == local:
                yield [a for element in group for a in element]
                group = []
        if group and all(np.ndim(a) >= 1 for a in group[0]):
            empty = [np.asarray(a)[:0] for a in group[0]]
            yield [a for element in group + [empty] * (local - len(group)) for a in element]

    wide = Dataset(tuple([spec] * local), steps, "_FlatMapDataset")
    wide._options = getattr(dataset, "_options", None)
    return DistributedDataset(wide, strategy, "DistributedDatasetsFromFunction", replicas=local)


API = {"distribute": ["DistributedDataset", "InputContext"]}
