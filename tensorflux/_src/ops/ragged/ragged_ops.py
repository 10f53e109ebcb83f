"""The `tf.ragged` functions, and the ragged forms of reductions, concat and stack that `dispatch.py`
routes `tf.reduce_sum(rt, …)`, `tf.concat([rt, …])` and `tf.stack` to.
"""
import builtins
import collections

import numpy as np

from ...framework import errors
from ...framework.tensor import Tensor
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..array import gather as _gather
from ..array import indexing as _indexing
from ..array import join as _join
from ..array import manip as _manip
from ..array import segment as _segment
from ..array import sorting as _sorting
from ..convert import convert_to_tensor
from ..math import arith as _arith
from ..math import logic as _logic
from ..math import reduce as _reduce
from ..registry import OpDef, apply
from ..shapes import creators as _creators
from ..shapes import shape_ops as _shape_ops
from ..shapes import shaping as _shaping
from ..shapes.common import bad
from .ragged_tensor import RaggedTensor, is_ragged

__all__ = ["constant", "range", "boolean_mask", "stack_dynamic_partitions", "map_flat_values",
           "row_splits_to_segment_ids", "segment_ids_to_row_splits", "stack", "concat", "reduce", "cross",
           "cross_hashed", "ragged_fill_empty_rows", "ragged_fill_empty_rows_grad"]

API = {"": ["ragged_fill_empty_rows", "ragged_fill_empty_rows_grad"],
       "ragged": ["constant", "range", "boolean_mask", "stack_dynamic_partitions", "map_flat_values",
                  "row_splits_to_segment_ids", "segment_ids_to_row_splits", "stack", "cross", "cross_hashed"]}


# -- tf.ragged.constant -----------------------------------------------------------------------------------

def _is_list(x):
    return isinstance(x, (list, tuple)) or (isinstance(x, np.ndarray) and x.ndim > 0)


def _depths(x):
    """The set of nesting depths at which `x` holds scalars (an empty list counts as holding none)."""
    if not _is_list(x):
        return {0}
    found = set()
    for item in x:
        found |= {d + 1 for d in _depths(item)}
    return found


def _max_depth(x):
    if not _is_list(x):
        return 0
    return 1 + max([_max_depth(i) for i in x], default=0)


def constant(pylist, dtype=None, ragged_rank=None, inner_shape=None, name=None, row_splits_dtype=_dt.int64):
    """`tf.ragged.constant`: a RaggedTensor from a nested Python list whose innermost lists may differ in length."""
    if isinstance(pylist, (Tensor, RaggedTensor)):
        raise TypeError("pylist may not be a Tensor or RaggedTensor.")
    depths = _depths(pylist)
    if len(depths) > 1:
        raise ValueError("all scalar values must have the same nesting depth")
    depth = depths.pop() if depths else _max_depth(pylist)
    if depth == 0 and not _is_list(pylist):
        if ragged_rank:
            raise ValueError("Invalid pylist=%r: incompatible with ragged_rank=%d" % (pylist, ragged_rank))
        return convert_to_tensor(pylist, dtype=dtype)
    inner_rank = len(inner_shape) if inner_shape is not None else None
    if ragged_rank is None:
        ragged_rank = max(1, depth - 1 - (inner_rank or 0)) if depth > 1 else 0
    if ragged_rank == 0:
        return convert_to_tensor(pylist, dtype=dtype)
    if ragged_rank >= depth and depth > 0:
        raise ValueError(f"Invalid pylist={pylist!r}: incompatible with ragged_rank={ragged_rank}")
    splits, level = [], list(pylist)
    for _ in builtins.range(ragged_rank):
        lengths = [len(row) for row in level]
        splits.append(np.concatenate([[0], np.cumsum(lengths)]).astype(row_splits_dtype.as_numpy_dtype))
        level = [item for row in level for item in row]
    if level:
        values = convert_to_tensor(level, dtype=dtype)
    else:
        inner = list(inner_shape) if inner_shape is not None else [0] * max(0, depth - 1 - ragged_rank)
        values = convert_to_tensor(np.zeros([0] + inner, dtype=(dtype or _dt.float32).as_numpy_dtype
                                            if not isinstance(dtype, str) else dtype))
        if dtype is not None:
            values = _arith.cast(values, dtype)
    if inner_shape is not None and level:
        values = _shaping.reshape(values, [-1] + list(inner_shape))
    result = values
    for s in reversed(splits):
        result = RaggedTensor._make(result, convert_to_tensor(s))
    return result


# -- RaggedRange -------------------------------------------------------------------------------------------

def _range_kernel(starts, limits, deltas, Tsplits):
    starts, limits, deltas = np.broadcast_arrays(np.atleast_1d(starts), np.atleast_1d(limits), np.atleast_1d(deltas))
    if (deltas == 0).any():
        raise bad("Requires delta != 0")
    rows = [np.arange(s, l, d, dtype=starts.dtype) for s, l, d in zip(starts, limits, deltas)]
    splits = np.concatenate([[0], np.cumsum([len(r) for r in rows])]).astype(Tsplits)
    values = np.concatenate(rows) if rows else np.zeros(0, starts.dtype)
    return splits, values.astype(starts.dtype)


def _range_infer(inputs, attrs):
    return [(_dt.as_dtype(attrs["Tsplits"]), TensorShape([None])), (inputs[0].dtype, TensorShape([None]))]


RAGGED_RANGE = OpDef("RaggedRange", _range_infer, _range_kernel, multi=True,
                     input_names=("starts", "limits", "deltas"))


def range(starts, limits=None, deltas=1, dtype=None, name=None, row_splits_dtype=_dt.int64):  # noqa: A001
    """`tf.ragged.range`: row i is `range(starts[i], limits[i], deltas[i])` (scalars broadcast)."""
    if limits is None:
        starts, limits = 0, starts
    starts = convert_to_tensor(starts, dtype=dtype)
    limits = convert_to_tensor(limits, dtype=dtype or starts.dtype)
    deltas = convert_to_tensor(deltas, dtype=dtype or starts.dtype)
    if starts.dtype != limits.dtype and dtype is None:
        limits = _arith.cast(limits, starts.dtype)
    splits, values = apply(RAGGED_RANGE, (starts, limits, deltas), {"Tsplits": row_splits_dtype.as_numpy_dtype},
                           name or "RaggedRange")
    return RaggedTensor._make(values, splits)


# -- masks, partitions, segment ids -----------------------------------------------------------------------

def boolean_mask(data, mask, name=None):
    """`tf.ragged.boolean_mask`: in each innermost row, the items whose mask entry is true (a row may end
    up shorter or empty, hence a RaggedTensor)."""
    if is_ragged(mask):
        if not is_ragged(data):
            data = RaggedTensor.from_tensor(data) if data.shape.rank and data.shape.rank > 1 else data
        kept = _indexing.boolean_mask(data.flat_values, mask.flat_values)
        inner = data
        while is_ragged(inner.values):
            inner = inner.values
        lengths = _segment.unsorted_segment_sum(_arith.cast(mask.flat_values, _dt.int64), inner.value_rowids(),
                                                inner.nrows())
        rebuilt = RaggedTensor.from_row_lengths(kept, lengths, validate=False)
        return data.with_flat_values(rebuilt) if is_ragged(data.values) else rebuilt
    data = convert_to_tensor(data)
    mask = convert_to_tensor(mask, dtype=_dt.bool)
    rank = mask.shape.rank
    if rank == 1:
        return _indexing.boolean_mask(data, mask)
    if rank != 2:
        raise ValueError("tf.ragged.boolean_mask supports a rank-1 or rank-2 dense mask, or a ragged mask")
    lengths = _reduce.reduce_sum(_arith.cast(mask, _dt.int64), axis=1)
    return RaggedTensor.from_row_lengths(_indexing.boolean_mask(data, mask), lengths, validate=False)


def stack_dynamic_partitions(data, partitions, num_partitions, name=None):
    """`tf.ragged.stack_dynamic_partitions`: row p holds, in order, the items of `data` whose partition is p."""
    data = convert_to_tensor(data)
    partitions = convert_to_tensor(partitions)
    order = _sorting.argsort(partitions, stable=True)
    values = _gather.gather(data, order)
    lengths = _segment.unsorted_segment_sum(_creators.ones_like(partitions, dtype=_dt.int64), partitions,
                                            num_partitions)
    return RaggedTensor.from_row_lengths(values, lengths, validate=False)


def _same_partition(a, b):
    for x, y in zip(a.nested_row_splits, b.nested_row_splits):
        xv, yv = getattr(x, "_value", None), getattr(y, "_value", None)
        if xv is not None and yv is not None and not np.array_equal(xv, yv):
            return False
    return len(a.nested_row_splits) == len(b.nested_row_splits)


def map_flat_values(op, *args, **kwargs):
    """`tf.ragged.map_flat_values`: `op` applied to the flat values of the RaggedTensor arguments (which must
    share their row partitions); the result keeps that partition."""
    ragged = [a for a in list(args) + list(kwargs.values()) if is_ragged(a)]
    if not ragged:
        return op(*args, **kwargs)
    first = ragged[0]
    for other in ragged[1:]:
        if not _same_partition(first, other):
            raise errors.InvalidArgumentError(None, None, "Inputs must have identical ragged splits")
    flat = op(*[a.flat_values if is_ragged(a) else a for a in args],
              **{k: v.flat_values if is_ragged(v) else v for k, v in kwargs.items()})
    return first.with_flat_values(flat)


def row_splits_to_segment_ids(splits, name=None, out_type=None):
    """`tf.ragged.row_splits_to_segment_ids`: the row id of every value."""
    splits = convert_to_tensor(splits, dtype_hint=_dt.int64)
    out_type = out_type or splits.dtype
    lengths = splits[1:] - splits[:-1]
    rows = _creators.range(_shape_ops.size(lengths, out_type=out_type), dtype=out_type)
    return _manip.repeat(rows, lengths, axis=0)


def segment_ids_to_row_splits(segment_ids, num_segments=None, out_type=None, name=None):
    """`tf.ragged.segment_ids_to_row_splits`: row splits from sorted row ids (`num_segments` rows)."""
    ids = convert_to_tensor(segment_ids, dtype_hint=_dt.int64)
    out_type = out_type or ids.dtype
    if num_segments is None:
        num_segments = _reduce.reduce_max(_join.concat([ids, _creators.zeros([1], ids.dtype) - 1], 0)) + 1
    lengths = _segment.unsorted_segment_sum(_creators.ones_like(ids, dtype=out_type), ids, num_segments)
    return _join.concat([_creators.zeros([1], out_type), _reduce.cumsum(lengths)], axis=0)


# -- concat / stack ------------------------------------------------------------------------------------------

def _as_ragged(x, ragged_rank):
    if is_ragged(x):
        return x
    x = convert_to_tensor(x)
    return RaggedTensor.from_tensor(x, ragged_rank=ragged_rank)


def concat(values, axis, name=None):
    """`tf.concat` of RaggedTensors (and dense tensors): along axis 0, the rows one after another; along
    axis 1, each row joined with the same row of the others."""
    values = list(values)
    if len(values) == 1:
        return values[0] if is_ragged(values[0]) else _as_ragged(values[0], 1)
    rank = max(v.ragged_rank for v in values if is_ragged(v))
    parts = [_as_ragged(v, rank) for v in values]
    ranks = {p.ragged_rank for p in parts}
    if len(ranks) > 1:
        raise ValueError("tf.concat of RaggedTensors of different ragged ranks is not supported")
    nd = parts[0].shape.rank
    axis = int(axis) + nd if int(axis) < 0 and nd is not None else int(axis)
    if axis == 0:
        if is_ragged(parts[0].values):
            inner = concat([p.values for p in parts], 0)
        else:
            inner = _join.concat([p.values for p in parts], axis=0)
        splits, offset = [parts[0].row_splits], parts[0].row_splits[-1]
        for p in parts[1:]:
            splits.append(p.row_splits[1:] + offset)
            offset = offset + p.row_splits[-1]
        return RaggedTensor._make(inner, _join.concat(splits, axis=0))
    if axis == 1:
        # every value's destination: its row's start in the result, plus the lengths of the same row in the
        # inputs before it, plus its column
        lengths = [p.row_lengths() for p in parts]
        total = lengths[0]
        for l in lengths[1:]:
            total = total + l
        out_splits = _join.concat([_creators.zeros([1], total.dtype), _reduce.cumsum(total)], axis=0)
        before = _creators.zeros_like(total)
        targets = []
        for p, l in zip(parts, lengths):
            rowids = p.value_rowids()
            column = _creators.range(_shape_ops.size(rowids, out_type=rowids.dtype), dtype=rowids.dtype) - \
                _gather.gather(p.row_splits, rowids)
            targets.append(_gather.gather(out_splits, rowids) + _gather.gather(before, rowids) + column)
            before = before + l
        order = _sorting.argsort(_join.concat(targets, axis=0), stable=True)
        if is_ragged(parts[0].values):
            raise ValueError("tf.concat along axis 1 supports RaggedTensors of ragged rank 1")
        joined = _gather.gather(_join.concat([p.values for p in parts], axis=0), order)
        return RaggedTensor._make(joined, out_splits)
    return RaggedTensor._make(concat([p.values for p in parts], axis - 1) if is_ragged(parts[0].values) else
                              _join.concat([p.values for p in parts], axis=axis - 1), parts[0].row_splits)


def stack(values, axis=0, name=None):
    """`tf.ragged.stack`: the inputs (RaggedTensors or tensors whose lengths may differ) as the rows of a new
    outer dimension (axis 0), or joined row by row along a new axis 1."""
    values = list(values)
    if axis != 0:
        raise ValueError("tf.ragged.stack supports axis=0")
    wrapped = []
    for v in values:
        t = v if is_ragged(v) else convert_to_tensor(v)
        n = t.nrows() if is_ragged(t) else _shape_ops.shape(t, out_type=_dt.int64)[0]
        splits = _join.stack([_creators.zeros([], _dt.int64), _arith.cast(n, _dt.int64)])
        wrapped.append(RaggedTensor._make(t, splits))
    if all(not is_ragged(w.values) for w in wrapped):
        inner = _join.concat([w.values for w in wrapped], axis=0)
        splits, offset = [wrapped[0].row_splits], wrapped[0].row_splits[-1]
        for w in wrapped[1:]:
            splits.append(w.row_splits[1:] + offset)
            offset = offset + w.row_splits[-1]
        return RaggedTensor._make(inner, _join.concat(splits, axis=0))
    return concat(wrapped, 0)


# -- reductions ----------------------------------------------------------------------------------------------

_SEGMENT = {"sum": "unsorted_segment_sum", "max": "unsorted_segment_max", "min": "unsorted_segment_min",
            "prod": "unsorted_segment_prod", "mean": "unsorted_segment_sum"}
_DENSE = {"sum": "reduce_sum", "max": "reduce_max", "min": "reduce_min", "prod": "reduce_prod",
          "mean": "reduce_mean", "any": "reduce_any", "all": "reduce_all"}


def _segment_reduce(kind, values, ids, num):
    if kind in ("any", "all"):
        as_int = _arith.cast(values, _dt.int32)
        op = _segment.unsorted_segment_max if kind == "any" else _segment.unsorted_segment_min
        if kind == "all":
            # an empty row is all-true: start from 1 by reducing (1 - x) with max and flipping
            return _logic.logical_not(_arith.cast(_segment.unsorted_segment_max(1 - as_int, ids, num), _dt.bool))
        return _arith.cast(op(as_int, ids, num), _dt.bool)
    total = getattr(_segment, _SEGMENT[kind])(values, ids, num)
    if kind == "mean":
        counts = _segment.unsorted_segment_sum(_creators.ones_like(ids, dtype=values.dtype), ids, num)
        shape = _join.concat([_shape_ops.shape(counts), _creators.ones_like(_shape_ops.shape(values)[1:])], axis=0)
        return _arith.divide(total, _shaping.reshape(counts, shape))
    return total


def reduce(kind, rt, axis=None, keepdims=False):
    """`tf.reduce_<kind>(rt, axis)`: over everything (axis None), across rows (0), within rows (1), or an
    inner dimension."""
    if axis is None:
        return getattr(_reduce, _DENSE[kind])(rt.flat_values, keepdims=False)
    if isinstance(axis, (list, tuple)):
        if len(axis) != 1:
            result = rt
            for a in sorted((int(x) for x in axis), reverse=True):
                result = reduce(kind, result, a, keepdims) if is_ragged(result) else \
                    getattr(_reduce, _DENSE[kind])(result, axis=a, keepdims=keepdims)
            return result
        axis = axis[0]
    rank = rt.shape.rank
    axis = int(axis) + rank if int(axis) < 0 else int(axis)
    if axis == 0:
        if is_ragged(rt.values):
            raise ValueError("reducing axis 0 of a RaggedTensor of ragged rank > 1 is not supported")
        rowids = rt.value_rowids()
        column = _creators.range(_shape_ops.size(rowids, out_type=rowids.dtype), dtype=rowids.dtype) - \
            _gather.gather(rt.row_splits, rowids)
        width = _reduce.reduce_max(_join.concat([rt.row_lengths(), _creators.zeros([1], rowids.dtype)], 0))
        out = _segment_reduce(kind, rt.values, column, width)
    elif axis == 1:
        if is_ragged(rt.values):
            raise ValueError("reducing axis 1 of a RaggedTensor of ragged rank > 1 is not supported")
        out = _segment_reduce(kind, rt.values, rt.value_rowids(), rt.nrows())
    else:
        inner = rt.values
        reduced = reduce(kind, inner, axis - 1, keepdims) if is_ragged(inner) else \
            getattr(_reduce, _DENSE[kind])(inner, axis=axis - 1, keepdims=keepdims)
        return rt.with_values(reduced)
    if keepdims:
        out = _shaping.expand_dims(out, axis)
    return out


def cross(inputs, name=None):
    """`tf.ragged.cross`: per row, every combination of one item from each input joined by "_X_"."""
    from ..sparse import structure as _sparse_structure   # tf.sparse loads on first use
    return _as_rows(_sparse_structure.cross([x.to_sparse() if is_ragged(x) else x for x in inputs]))


def cross_hashed(inputs, num_buckets=0, hash_key=None, name=None):
    """`tf.ragged.cross_hashed`: `cross` with each combination hashed into `num_buckets` buckets."""
    from ..sparse import structure as _sparse_structure
    return _as_rows(_sparse_structure.cross_hashed([x.to_sparse() if is_ragged(x) else x for x in inputs],
                                                   num_buckets, hash_key))


def _as_rows(sp):
    return RaggedTensor.from_value_rowids(sp.values, sp.indices[:, 0], sp.dense_shape[0], validate=False)


# -- tf.ragged_fill_empty_rows (the raw op TensorFlow exports at the top level) ---------------------------------

RaggedFillEmptyRows = collections.namedtuple(
    "RaggedFillEmptyRows", ["output_value_rowids", "output_values", "empty_row_indicator", "reverse_index_map"])
RaggedFillEmptyRowsGrad = collections.namedtuple("RaggedFillEmptyRowsGrad", ["d_values", "d_default_value"])


def ragged_fill_empty_rows(value_rowids, values, nrows, default_value, name=None):
    """`tf.ragged_fill_empty_rows`: `default_value` added as the only value of every row (of `nrows`) that
    holds none; the row ids stay sorted. Also returns which rows were empty and where each value went."""
    rowids = convert_to_tensor(value_rowids, dtype=_dt.int64)
    values = convert_to_tensor(values)
    nrows = convert_to_tensor(nrows, dtype=_dt.int64)
    default = convert_to_tensor(default_value, dtype=values.dtype)
    from ..sparse import conversion as _sparse_conversion   # tf.sparse loads on first use
    indices, out_values, empty, reverse = apply(
        _sparse_conversion.SPARSE_FILL_EMPTY_ROWS,
        (_shaping.reshape(rowids, [-1, 1]), values, _shaping.reshape(nrows, [1]), default), None, name or
        "RaggedFillEmptyRows")
    return RaggedFillEmptyRows(indices[:, 0], out_values, empty, reverse)


def ragged_fill_empty_rows_grad(reverse_index_map, grad_values, name=None):
    """`tf.ragged_fill_empty_rows_grad`: the gradient of `ragged_fill_empty_rows` for the values (the
    incoming gradient at the position each value went to) and for the default value (the rest)."""
    reverse = convert_to_tensor(reverse_index_map, dtype=_dt.int64)
    grad_values = convert_to_tensor(grad_values)
    d_values = _gather.gather(grad_values, reverse)
    return RaggedFillEmptyRowsGrad(d_values, _reduce.reduce_sum(grad_values) - _reduce.reduce_sum(d_values))
