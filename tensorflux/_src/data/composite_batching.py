"""Batching elements whose shapes differ into composites: `Dataset.ragged_batch` /
`tf.data.experimental.dense_to_ragged_batch` (a RaggedTensor per component of rank >= 1) and
`Dataset.sparse_batch` / `tf.data.experimental.dense_to_sparse_batch` (a SparseTensor of dense shape
`[batch] + row_shape`, every entry of every element stored).

Elements stay flat lists of NumPy arrays on the way in; each batch holds the composite itself (a dataset
element may be a composite, see `dataset.pack_element`).
"""
import itertools

import numpy as np

from ..framework import nest
from ..framework.tensor import EagerTensor
from ..ops.ragged.ragged_tensor import RaggedTensor, RaggedTensorSpec
from ..ops.sparse.sparse_tensor import SparseTensor, SparseTensorSpec
from ..types import dtypes as _dt
from ..types.shape import TensorShape, as_shape
from ..types.spec import TensorSpec
from .dataset import Dataset, _int64_argument, _invalid, stack_components

__all__ = ["dense_to_ragged_batch", "dense_to_sparse_batch"]

API = {"data.experimental": ["dense_to_ragged_batch", "dense_to_sparse_batch"]}


def _chunks(source, n, drop_remainder):
    it = source._arrays()
    while True:
        chunk = list(itertools.islice(it, n))
        if not chunk or (drop_remainder and len(chunk) < n):
            return
        yield chunk


def _count(dataset, n, drop_remainder):
    total = dataset._cardinality
    if total < 0:
        return total
    return total // n if drop_remainder else -(-total // n)


def _ragged_of(parts, splits_dtype):
    values = np.concatenate([np.asarray(p) for p in parts]) if parts else np.zeros(0)
    splits = np.concatenate([[0], np.cumsum([np.shape(p)[0] for p in parts])]).astype(splits_dtype.as_numpy_dtype)
    return RaggedTensor._make(EagerTensor(values), EagerTensor(splits))


def ragged_batch(self, batch_size, drop_remainder=False, row_splits_dtype=_dt.int64, name=None):
    """Batches of `batch_size` elements; a component of rank >= 1 becomes a RaggedTensor (its rows may differ
    in length), a scalar component a vector."""
    n = _int64_argument(batch_size)
    if n <= 0:
        raise _invalid("Batch size must be greater than zero.", "BatchDatasetV2")
    splits_dtype = _dt.as_dtype(row_splits_dtype)
    specs = nest.flatten(self._element_spec)
    outer = TensorShape([n if drop_remainder else None])

    def batched_spec(s):
        if s.shape.rank == 0:
            return TensorSpec(outer, s.dtype)
        return RaggedTensorSpec(outer.concatenate(TensorShape([None])).concatenate(s.shape[1:]), s.dtype, 1,
                                splits_dtype)

    spec = nest.pack_sequence_as(self._element_spec, [batched_spec(s) for s in specs])
    source = self

    def arrays():
        for chunk in _chunks(source, n, drop_remainder):
            yield [stack_components(parts) if s.shape.rank == 0 else _ragged_of(parts, splits_dtype)
                   for s, parts in zip(specs, zip(*chunk))]

    return Dataset(spec, arrays, "_DenseToRaggedDataset", _count(self, n, drop_remainder))


def sparse_batch(self, batch_size, row_shape, name=None):
    """Batches of `batch_size` elements as one SparseTensor of dense shape `[batch] + row_shape` (an element
    must fit in `row_shape`); every entry of an element is stored, zeros included."""
    n = _int64_argument(batch_size)
    if n <= 0:
        raise _invalid("Batch size must be greater than zero.", "DenseToSparseBatchDataset")
    row = [int(d) for d in as_shape(row_shape).as_list()]
    (spec_in,) = nest.flatten(self._element_spec)
    spec = SparseTensorSpec(TensorShape([None] + row), spec_in.dtype)
    source = self

    def arrays():
        for chunk in _chunks(source, n, False):
            indices, values = [], []
            for b, (element,) in enumerate(chunk):
                element = np.asarray(element)
                if element.ndim != len(row) or any(d > r for d, r in zip(element.shape, row)):
                    raise _invalid(f"Input element of shape {list(element.shape)} does not fit row shape {row}",
                                   "DenseToSparseBatchDataset")
                for position in np.ndindex(*element.shape):
                    indices.append((b,) + position)
                    values.append(element[position])
            idx = np.asarray(indices, np.int64).reshape(-1, 1 + len(row))
            vals = np.asarray(values, dtype=spec_in.dtype.as_numpy_dtype).reshape(-1) if values else \
                np.zeros(0, spec_in.dtype.as_numpy_dtype)
            shape = np.asarray([len(chunk)] + row, np.int64)
            yield [SparseTensor._from_parts(EagerTensor(idx), EagerTensor(vals), EagerTensor(shape))]

    return Dataset(spec, arrays, "_DenseToSparseBatchDataset", _count(self, n, False))


def dense_to_ragged_batch(batch_size, drop_remainder=False, row_splits_dtype=_dt.int64):
    """`tf.data.experimental.dense_to_ragged_batch`: `Dataset.ragged_batch` for `dataset.apply`."""
    return lambda dataset: ragged_batch(dataset, batch_size, drop_remainder, row_splits_dtype)


def dense_to_sparse_batch(batch_size, row_shape):
    """`tf.data.experimental.dense_to_sparse_batch`: `Dataset.sparse_batch` for `dataset.apply`."""
    return lambda dataset: sparse_batch(dataset, batch_size, row_shape)


Dataset.ragged_batch = ragged_batch
Dataset.sparse_batch = sparse_batch
