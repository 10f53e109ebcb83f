"""Splitting input between workers: `experimental_distribute_dataset` and
`distribute_datasets_from_function`.

`experimental_distribute_dataset(dataset)` takes a dataset batched with the *global* batch size. Each
worker iterates the same pipeline and keeps its part of every global batch, following the dataset's
`tf.data.Options().experimental_distribute.auto_shard_policy`:

- AUTO and DATA: worker `i` keeps the `i`-th slice of each global batch (slices of
  `ceil(B / N)` rows; the last ones may be shorter or empty when `B` is not a multiple of `N`), so every
  worker takes the same number of steps per epoch as one process would, and together the workers see each
  example exactly once.
- OFF: every worker keeps whole global batches (each sees all the data).
- FILE and HINT: need the dataset's file sources, which tensorflux's datasets do not expose: refused with
  an error saying so (shard the file list with `Dataset.shard` before reading instead).

With one worker the dataset is returned as it is (wrapped, so that its type is TensorFlow's).
"""
from ..data.dataset import Dataset
from ..data.options import AutoShardPolicy
from ..framework import nest
from ..framework.errors import InvalidArgumentError
from ..types.shape import TensorShape
from ..types.spec import TensorSpec

__all__ = ["DistributedDataset", "InputContext", "distribute_dataset", "distribute_from_function"]


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
    """This worker's share of a dataset: iterate it (eagerly or in a tf.function) like a dataset."""

    def __init__(self, dataset, strategy, kind="DistributedDataset"):
        super().__init__(dataset._element_spec, dataset._make_arrays, kind, dataset._cardinality)
        self._options = getattr(dataset, "_options", None)
        self._strategy = strategy


def _policy(dataset):
    options = getattr(dataset, "_options", None)
    return AutoShardPolicy.AUTO if options is None else options.experimental_distribute.auto_shard_policy


def _unbatched_spec(spec):
    shape = TensorShape(spec.shape)
    if shape.rank is None or shape.rank == 0:
        raise InvalidArgumentError(None, None, "experimental_distribute_dataset: the dataset's elements must be "
                                               "batches (rank >= 1) to be split between workers; batch the "
                                               "dataset with the global batch size first.")
    return TensorSpec(TensorShape([None]).concatenate(shape[1:]), spec.dtype)


def distribute_dataset(strategy, dataset, options=None):
    world = strategy._world
    if not isinstance(dataset, Dataset):
        raise TypeError(f"`dataset` must be a `tf.data.Dataset`. Received: {type(dataset).__name__}")
    if world.size == 1:
        return DistributedDataset(dataset, strategy)
    policy = _policy(dataset)
    if policy == AutoShardPolicy.OFF:
        return DistributedDataset(dataset, strategy)
    if policy in (AutoShardPolicy.FILE, AutoShardPolicy.HINT):
        raise InvalidArgumentError(None, None, f"auto_shard_policy {policy.name} needs the dataset's file sources, "
                                               f"which tensorflux does not track; use AutoShardPolicy.DATA, or "
                                               f"shard the list of files with Dataset.shard before reading them.")
    rank, size = world.rank, world.size
    source = dataset._make_arrays
    spec = nest.map_structure(_unbatched_spec, dataset._element_spec)

    def my_slices():
        for flat in source():
            rows = flat[0].shape[0] if flat else 0
            per = -(-rows // size)
            start = min(rank * per, rows)
            stop = min(start + per, rows)
            yield [a[start:stop] for a in flat]

    share = Dataset(spec, my_slices, "_RebatchDataset", dataset._cardinality)
    share._options = getattr(dataset, "_options", None)
    return DistributedDataset(share, strategy)


def distribute_from_function(strategy, dataset_fn, options=None):
    world = strategy._world
    context = InputContext(num_input_pipelines=world.size, input_pipeline_id=world.rank,
                           num_replicas_in_sync=world.size)
    dataset = dataset_fn(context)
    if not isinstance(dataset, Dataset):
        raise TypeError(f"`dataset_fn` must return a `tf.data.Dataset`. Received: {type(dataset).__name__}")
    return DistributedDataset(dataset, strategy, "DistributedDatasetsFromFunction")


API = {"distribute": ["DistributedDataset", "InputContext"]}
