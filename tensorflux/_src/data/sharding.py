"""Sharding: `Dataset.shard(num_shards, index)`, and how a multi-worker strategy shards a pipeline by its files.

`Dataset.shard` keeps every `num_shards`-th element, starting at `index` — one worker's share of a dataset,
as TensorFlow defines it (the same elements on every run, no shuffling).

TensorFlow's `AutoShardPolicy.FILE` rewrites a pipeline's graph so that each worker reads only its own
files. tensorflux's datasets are recipes (closures), not graphs, so the rewrite happens while the pipeline
runs: `tf.distribute` iterates this worker's pipeline inside `active_plan(plan)`, and the file sources
consult the plan when they start:

- a reader given a list of files (`TextLineDataset(files)`, `TFRecordDataset(files)`) reads
  `files[index::count]` (TensorFlow shards a reader's file list the same way);
- the input of a `flat_map`/`interleave` whose function makes a file reader (known from its trace, whatever
  dataset holds the names: `list_files`, `from_tensor_slices`, a `range` the function indexes files
  with), and the names given to `TFRecordDataset`, keep every `count`-th element, as TensorFlow inserts a
  shard after that input; with fewer elements (or files in a reader's list) than workers, a worker whose
  index is below their number raises TensorFlow's "Could not apply FILE based sharding" error.

The first source to start *claims* the plan: the readers nested inside a `flat_map` over an already-sharded
input read their files whole. A plan nobody claimed tells the strategy that the
pipeline has no file source: FILE then raises TensorFlow's NotFoundError, AUTO falls back to DATA.

`AutoShardPolicy.HINT` replaces the placeholders of `shard(SHARD_HINT, SHARD_HINT)` with the worker count
and index; outside a HINT plan such a shard raises TensorFlow's FailedPreconditionError.
"""
import itertools
import threading

from ..framework.errors import FailedPreconditionError, InvalidArgumentError, eager_error
from .dataset import Dataset

__all__ = ["ShardPlan", "active_plan", "file_share", "shard_file_names"]

SHARD_HINT = -1     # tf.data.experimental.SHARD_HINT

_HINT_MISUSED = ("`tf.data.Dataset.shard(SHARD_HINT, ...)` can only be used in "
                 "`tf.distribute.Strategy.experimental_distribute_dataset()` with "
                 "`tf.data.experimental.AutoShardPolicy.HINT` policy, or tf.data service with "
                 "`tf.data.experimental.service.ShardingPolicy.HINT` processing mode.")


class ShardPlan:
    """One worker's share of a pipeline: `policy` ("FILE" or "HINT"), `count` workers, this one's `index`.
    `claimed` becomes True when a file source has taken its share (FILE)."""

    __slots__ = ("policy", "count", "index", "claimed")

    def __init__(self, policy, count, index):
        self.policy, self.count, self.index = policy, count, index
        self.claimed = False


class _Active(threading.local):
    plan = None


_ACTIVE = _Active()


class active_plan:
    """Makes `plan` the one the file sources and SHARD_HINT placeholders see (for one `next` of the
    pipeline: the strategy enters it around each step, so user code between steps never sees it)."""

    __slots__ = ("plan", "outer")

    def __init__(self, plan):
        self.plan = plan

    def __enter__(self):
        self.outer, _ACTIVE.plan = _ACTIVE.plan, self.plan
        return self.plan

    def __exit__(self, *exc):
        _ACTIVE.plan = self.outer


def _unclaimed_file_plan():
    plan = _ACTIVE.plan
    if plan is None or plan.policy != "FILE" or plan.claimed:
        return None
    plan.claimed = True
    return plan


def file_share(paths):
    """The files of a reader's list this worker reads: every `count`-th under an unclaimed FILE plan, all of
    them otherwise (outside a plan, or inside a `flat_map`/`interleave` whose input took the plan)."""
    plan = _unclaimed_file_plan()
    if plan is None:
        return paths
    _check_enough_files(len(paths), plan)
    return paths[plan.index::plan.count]


def _check_enough_files(count, plan):
    """TensorFlow's error when a worker whose index is below the number of files finds fewer files than
    workers (the others simply get no file)."""
    if count < plan.count and plan.index < count:
        raise eager_error(InvalidArgumentError, (
            f"Could not apply FILE based sharding: the dataset only has {count} file(s), which is "
            f"not enough for the required {plan.count} shards/workers. If you are using datasets with "
            f"distribution strategy, consider setting the auto sharding policy to either DATA or OFF using "
            f"the `experimental_distribute.auto_shard_policy` option of `tf.data.Options()`. Or, split your "
            f"input files into a larger number of small files such that number of files is greater than "
            f"number of shards/workers."), "IteratorGetNext")


def shard_file_names(names):
    """`names`, a dataset of file names, as a FILE plan shards it (unchanged outside one)."""
    source = names._make_arrays

    def arrays():
        plan = _unclaimed_file_plan()
        if plan is None:
            yield from source()
            return
        elements = list(source())
        _check_enough_files(len(elements), plan)
        yield from elements[plan.index::plan.count]

    out = Dataset(names._element_spec, arrays, names._kind, names._cardinality)
    out._options = getattr(names, "_options", None)
    return out


def _integer(value, what):
    try:
        return int(value)
    except (TypeError, ValueError):
        raise TypeError(f"`{what}` must be an integer scalar. Received: {value!r}") from None


def _hinted_shard(self):
    """`shard(SHARD_HINT, SHARD_HINT)`: the worker count and index of the HINT plan the pipeline runs in."""
    source = self._make_arrays

    def arrays():
        plan = _ACTIVE.plan
        if plan is None or plan.policy != "HINT":
            raise eager_error(FailedPreconditionError, _HINT_MISUSED, "MakeIterator")
        yield from itertools.islice(source(), plan.index, None, plan.count)

    out = Dataset(self._element_spec, arrays, "_ShardDataset", Dataset.UNKNOWN)
    out._options = getattr(self, "_options", None)
    return out


def shard(self, num_shards, index, name=None):
    """The elements whose position `i` satisfies `i % num_shards == index`."""
    num_shards, index = _integer(num_shards, "num_shards"), _integer(index, "index")
    if num_shards == SHARD_HINT and index == SHARD_HINT:
        return _hinted_shard(self)
    if num_shards <= 0:
        raise InvalidArgumentError(None, "ShardDataset", f"Number of shards must be greater than zero "
                                                         f"(currently num_shards = {num_shards}).")
    if not 0 <= index < num_shards:
        raise InvalidArgumentError(None, "ShardDataset", f"Index must be between 0 and {num_shards - 1} "
                                                         f"(currently index = {index}).")
    source = self._make_arrays
    total = self._cardinality
    count = total if total < 0 else max(0, (total - index + num_shards - 1) // num_shards)
    out = Dataset(self._element_spec, lambda: itertools.islice(source(), index, None, num_shards),
                  "_ShardDataset", count)
    out._options = getattr(self, "_options", None)
    return out


Dataset.shard = shard
