"""The `Dataset` methods implemented by the transformation and reader modules, attached to the class.

`dataset.py` holds the core (sources, map/batch/shuffle, iteration); `transforms.py` and `readers.py`
build on it and return new `Dataset`s. Their methods are attached here, one floor above all three, so
the core never imports the modules built on top of it (no import cycle).
"""
from . import readers, sampling, transforms
from .dataset import Dataset


def list_files(file_pattern, shuffle=None, seed=None, name=None):
    """The files matching `file_pattern` (a pattern or a list of them), shuffled unless `shuffle=False`."""
    return readers.list_files(file_pattern, shuffle, seed)


def cache(self, filename="", name=None):
    return transforms.cache(self)


def padded_batch(self, batch_size, padded_shapes=None, padding_values=None, drop_remainder=False,
                 name=None):
    return transforms.padded_batch(self, batch_size, padded_shapes, padding_values, drop_remainder)


def unbatch(self, name=None):
    return transforms.unbatch(self)


def reduce(self, initial_state, reduce_func, name=None):
    return transforms.reduce(self, initial_state, reduce_func)


def flat_map(self, map_func, name=None):
    return transforms.flat_map(self, map_func)


def interleave(self, map_func, cycle_length=None, block_length=None, num_parallel_calls=None,
               deterministic=None, name=None):
    """Elements of `map_func(x)` for `cycle_length` inputs at a time, `block_length` from each in turn.
    The order is TensorFlow's deterministic order, whatever `num_parallel_calls` and `deterministic`."""
    return transforms.interleave(self, map_func, cycle_length, block_length, num_parallel_calls)


def concatenate(self, dataset, name=None):
    return transforms.concatenate(self, dataset)


def window(self, size, shift=None, stride=1, drop_remainder=False, name=None):
    return transforms.window(self, size, shift, stride, drop_remainder)


def scan(self, initial_state, scan_func, name=None):
    return transforms.scan(self, initial_state, scan_func)


def unique(self, name=None):
    return transforms.unique(self)


def get_single_element(self, name=None):
    return transforms.get_single_element(self)


def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False,
                         rerandomize_each_iteration=None):
    return sampling.sample_from_datasets(datasets, weights, seed, stop_on_empty_dataset)


def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
    return sampling.choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset)


def rejection_resample(self, class_func, target_dist, initial_dist=None, seed=None, name=None):
    return sampling.rejection_resample(self, class_func, target_dist, initial_dist, seed)


Dataset.list_files = staticmethod(list_files)
Dataset.sample_from_datasets = staticmethod(sample_from_datasets)
Dataset.choose_from_datasets = staticmethod(choose_from_datasets)
Dataset.rejection_resample = rejection_resample
Dataset.cache = cache
Dataset.padded_batch = padded_batch
Dataset.unbatch = unbatch
Dataset.flat_map = flat_map
Dataset.reduce = reduce
Dataset.interleave = interleave
Dataset.concatenate = concatenate
Dataset.window = window
Dataset.scan = scan
Dataset.unique = unique
Dataset.get_single_element = get_single_element
