"""`Dataset.shard(num_shards, index)`: every `num_shards`-th element, starting at `index` — one worker's
share of a dataset, as TensorFlow defines it (the same elements on every run, no shuffling)."""
import itertools

from ..framework.errors import InvalidArgumentError
from .dataset import Dataset

__all__ = []


def _integer(value, what):
    try:
        return int(value)
    except (TypeError, ValueError):
        raise TypeError(f"`{what}` must be an integer scalar. Received: {value!r}") from None


def shard(self, num_shards, index, name=None):
    """The elements whose position `i` satisfies `i % num_shards == index`."""
    num_shards, index = _integer(num_shards, "num_shards"), _integer(index, "index")
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
