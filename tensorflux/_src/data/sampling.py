"""Datasets drawn from other datasets: `Dataset.sample_from_datasets` (a random source per element, by
weight), `Dataset.choose_from_datasets` (the source an index dataset names), `Dataset.rejection_resample`
(elements kept with a per-class probability so classes reach a target distribution) and
`tf.data.experimental.Counter` (0, 1, 2, … without end).

The random draws use NumPy generators seeded by `seed` (fresh entropy without one), so the streams are
tensorflux's, not TensorFlow's; the distributions are the same.
"""
import numpy as np

from ..autograph.api import converted_call
from ..framework import nest
from ..framework.errors import InvalidArgumentError
from ..function.polymorphic import Function
from ..types import dtypes as _dt
from ..types.spec import TensorSpec
from .dataset import Dataset, call_with_element, pack_element
from .graph_values import with_bound_captures

__all__ = ["Counter", "sample_from_datasets", "choose_from_datasets", "rejection_resample"]


def Counter(start=0, step=1, dtype=_dt.int64, name=None):
    """`start`, `start + step`, … forever."""
    np_type = _dt.as_dtype(dtype).as_numpy_dtype

    def arrays():
        value = start
        while True:
            yield [np.asarray(value, np_type)]
            value += step

    return Dataset(TensorSpec([], _dt.as_dtype(dtype)), arrays, "_ScanDataset", Dataset.INFINITE)


def _same_structure(datasets, what):
    first = datasets[0].element_spec
    for d in datasets[1:]:
        try:
            nest.assert_same_structure(first, d.element_spec)
        except (TypeError, ValueError):
            raise TypeError(f"Incompatible dataset elements in `{what}`: {first} vs. {d.element_spec}") from None
        for a, b in zip(nest.flatten(first), nest.flatten(d.element_spec)):
            if a.dtype != b.dtype:
                raise TypeError(f"Incompatible dataset elements in `{what}`: {first} vs. {d.element_spec}")
    return nest.map_structure(lambda *specs: _most_specific(specs), *[d.element_spec for d in datasets])


def _most_specific(specs):
    shape = specs[0].shape
    for s in specs[1:]:
        shape = shape.most_specific_compatible_shape(s.shape)
    return type(specs[0])(shape, specs[0].dtype)


def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False,
                         rerandomize_each_iteration=None):
    """Each element comes from `datasets[i]` with probability `weights[i]` (uniform without weights); an
    exhausted dataset drops out (or ends the result with `stop_on_empty_dataset=True`)."""
    datasets = list(datasets)
    if not datasets:
        raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
    spec = _same_structure(datasets, "sample_from_datasets")
    probabilities = np.full(len(datasets), 1.0 / len(datasets)) if weights is None else \
        np.asarray(weights.numpy() if hasattr(weights, "numpy") else weights, dtype=np.float64)
    if probabilities.shape != (len(datasets),):
        raise ValueError(f"Invalid `weights`. The shape of `weights` should be compatible with `[num_datasets]` "
                         f"but is {probabilities.shape}.")

    def arrays():
        rng = np.random.default_rng(seed)
        iterators = [d._arrays() for d in datasets]
        live = probabilities.copy()
        while live.sum() > 0:
            index = rng.choice(len(iterators), p=live / live.sum())
            try:
                yield next(iterators[index])
            except StopIteration:
                if stop_on_empty_dataset:
                    return
                live[index] = 0.0

    return Dataset(spec, arrays, "_DirectedInterleaveDataset")


def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
    """Element k comes from `datasets[choice_dataset[k]]`."""
    datasets = list(datasets)
    if not datasets:
        raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
    if not isinstance(choice_dataset, Dataset) or choice_dataset.element_spec.dtype != _dt.int64 or \
            choice_dataset.element_spec.shape.rank != 0:
        raise TypeError(f"Invalid `choice_dataset`. Elements of `choice_dataset` must be scalar `tf.int64` tensors "
                        f"but are {getattr(choice_dataset, 'element_spec', choice_dataset)}.")
    spec = _same_structure(datasets, "choose_from_datasets")

    def arrays():
        iterators = [d._arrays() for d in datasets]
        for (choice,) in choice_dataset._arrays():
            index = int(choice)
            if not 0 <= index < len(iterators):
                raise InvalidArgumentError(None, None, f"Selector index out of range: {index} >= {len(iterators)}")
            try:
                yield next(iterators[index])
            except StopIteration:
                if stop_on_empty_dataset:
                    return

    return Dataset(spec, arrays, "_DirectedInterleaveDataset")


def rejection_resample(dataset, class_func, target_dist, initial_dist=None, seed=None):
    """`(class, element)` pairs of the elements kept: an element of class c is kept with probability
    proportional to target_dist[c] / initial_dist[c] (the initial distribution estimated from the elements
    seen so far when not given), so the kept classes follow `target_dist`."""
    target = np.asarray(getattr(target_dist, "numpy", lambda: target_dist)(), dtype=np.float64)
    initial = None if initial_dist is None else \
        np.asarray(getattr(initial_dist, "numpy", lambda: initial_dist)(), dtype=np.float64)
    element_spec = dataset.element_spec
    class_of, class_spec = _traced_class_func(class_func, element_spec)

    def arrays():
        rng = np.random.default_rng(seed)
        seen = np.zeros(len(target))
        for flat in dataset._arrays():
            label = call_with_element(class_of, pack_element(element_spec, flat))
            c = int(np.asarray(label))
            if initial is None:
                seen[c] += 1
                estimate = seen / seen.sum()
            else:
                estimate = initial
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = np.where(estimate > 0, target / estimate, 0.0)
            if rng.random() < ratio[c] / ratio.max():
                yield [np.asarray(label)] + list(flat)

    return Dataset((class_spec, element_spec), arrays, "_MapDataset")


def _traced_class_func(class_func, element_spec):
    """`class_func` traced once for the element spec (as TensorFlow traces it; its graph then runs per
    element) and the spec of the class it returns."""
    fn = Function(lambda *xs: converted_call(class_func, xs, None), name="class_func")
    concrete = fn.get_concrete_function(*(element_spec if isinstance(element_spec, tuple) else (element_spec,)))
    out = concrete.structured_outputs
    return with_bound_captures(concrete), TensorSpec(out.shape, out.dtype)


API = {"data.experimental": ["Counter", "sample_from_datasets", "choose_from_datasets"]}
