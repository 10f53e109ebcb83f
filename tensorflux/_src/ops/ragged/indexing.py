"""`rt[...]` on a RaggedTensor: rows by integer or slice on the outer dimension, then per-row integers or
slices on the ragged dimension (`rt[:, 0]`, `rt[1:, :2]`), and any index on the uniform inner ones.

An integer into a ragged dimension must exist in every row (else InvalidArgumentError, as in TensorFlow).
"""
import numpy as np

from ...framework import errors
from ...framework.tensor import Tensor
from ...types import dtypes as _dt
from ..array import gather as _gather
from ..array import indexing as _indexing
from ..convert import convert_to_tensor
from ..math import arith as _arith
from ..math import logic as _logic
from ..math import reduce as _reduce
from ..shapes import creators as _creators
from ..shapes import shape_ops as _shape_ops
from .ragged_tensor import RaggedTensor

__all__ = ["getitem"]


def _as_int(key):
    if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
        return int(key)
    if isinstance(key, Tensor) and key.shape.rank == 0 and key.dtype.is_integer:
        return key
    return None


def _rows(values, start, limit):
    """Rows [start, limit) of a Tensor or RaggedTensor `values`."""
    if isinstance(values, RaggedTensor):
        splits = values.row_splits
        first = _gather.gather(splits, start)
        new_splits = splits[start:limit + 1] - first if not isinstance(start, Tensor) and \
            not isinstance(limit, Tensor) else _slice(splits, start, limit + 1) - first
        return RaggedTensor._make(_rows(values.values, first, _gather.gather(splits, limit)), new_splits)
    return _slice(values, start, limit)


def _slice(t, start, limit):
    from ..array import gather as g
    if not isinstance(start, Tensor) and not isinstance(limit, Tensor):
        return t[start:limit]
    positions = _creators.range(_arith.cast(start, _dt.int64), _arith.cast(limit, _dt.int64), dtype=_dt.int64)
    return g.gather(t, positions)


def _row(rt, i):
    """Row `i` of `rt` (negative counts from the end)."""
    n = rt.row_splits.shape[0]
    if isinstance(i, int):
        if n is not None and not -(n - 1) <= i < n - 1:
            raise errors.InvalidArgumentError(None, None, f"slice index {i} of dimension 0 out of bounds.")
        if i < 0:
            i += n - 1
        splits = rt.row_splits
        return _rows(rt.values, splits[i], splits[i + 1])
    i = _arith.cast(i, rt.row_splits.dtype)
    i = i + _arith.cast(_logic.less(i, 0), i.dtype) * rt.nrows()
    return _rows(rt.values, _gather.gather(rt.row_splits, i), _gather.gather(rt.row_splits, i + 1))


def _row_range(rt, key):
    if key.step not in (None, 1):
        raise ValueError("RaggedTensor slicing with a step on the outer dimension is not supported")
    splits = rt.row_splits
    if getattr(splits, "_value", None) is None:
        # while tracing: the row splits sliced as a Python list would be (splits has one more entry than
        # there are rows, hence the shifted bounds); the slice must select at least one row
        start, stop = key.start, key.stop
        lo = 0 if start is None else (start if start >= 0 else start - 1)
        part = splits[lo:] if stop is None else (splits[lo:stop + 1] if stop >= 0 else splits[lo:stop])
        first = part[0]
        values = _slice(rt.values, first, part[-1]) if not isinstance(rt.values, RaggedTensor) else \
            _rows(rt.values, first, part[-1])
        return RaggedTensor._make(values, part - first)
    n = len(splits._value) - 1
    start, stop, _ = key.indices(n)
    stop = max(stop, start)
    first = splits[start]
    return RaggedTensor._make(_rows(rt.values, first, splits[stop]), splits[start:stop + 1] - first)


def _column(rt, j):
    """`rt[:, j]` for the ragged dimension: element j of every row (every row must have it)."""
    starts, limits = rt.row_starts(), rt.row_limits()
    lengths = limits - starts
    j = convert_to_tensor(j, dtype=starts.dtype)
    position = _arith.add(starts, j) if not _negative(j) else _arith.add(limits, j)
    ok = _logic.logical_and(_logic.greater_equal(position, starts), _logic.less(position, limits))
    if getattr(ok, "_value", None) is not None and not ok._value.all():
        raise errors.InvalidArgumentError(None, None, "slice index out of bounds: every row needs element "
                                          f"{int(j.numpy())} (shortest row has {int(np.min(lengths.numpy()))})")
    return _gather.gather(rt.values, position)


def _negative(j):
    v = getattr(j, "_value", None)
    return v is not None and int(v) < 0


def _column_slice(rt, key):
    """`rt[:, a:b]` on the ragged dimension: each row cut to [a, b) (clamped like Python slices)."""
    if key.step not in (None, 1):
        raise ValueError("RaggedTensor slicing with a step on a ragged dimension is not supported")
    starts, limits = rt.row_starts(), rt.row_limits()
    lengths = limits - starts
    zero = _creators.zeros_like(lengths)

    def bound(b, default):
        if b is None:
            return default
        b = convert_to_tensor(b, dtype=lengths.dtype)
        b = _arith.add(b, lengths) if _negative(b) else _arith.add(b, zero)
        return _arith.minimum(_arith.maximum(b, zero), lengths)

    lo, hi = bound(key.start, zero), bound(key.stop, lengths)
    hi = _arith.maximum(hi, lo)
    rowids = rt.value_rowids()
    column = _creators.range(_shape_ops.size(rowids, out_type=rowids.dtype), dtype=rowids.dtype) - \
        _gather.gather(starts, rowids)
    keep = _logic.logical_and(_logic.greater_equal(column, _gather.gather(lo, rowids)),
                              _logic.less(column, _gather.gather(hi, rowids)))
    values = _indexing.boolean_mask(rt.values, keep) if not isinstance(rt.values, RaggedTensor) else None
    if values is None:
        raise ValueError("slicing a ragged dimension of a RaggedTensor with ragged values is not supported")
    return RaggedTensor.from_row_lengths(values, hi - lo, validate=False)


def getitem(rt, key):
    keys = list(key) if isinstance(key, tuple) else [key]
    if not keys:
        return rt
    if any(k is Ellipsis or k is None for k in keys):
        raise ValueError("RaggedTensor indexing with Ellipsis or tf.newaxis is not supported")
    first, rest = keys[0], keys[1:]
    i = _as_int(first)
    if i is not None:
        row = _row(rt, i)
        return getitem(row, tuple(rest)) if rest and isinstance(row, RaggedTensor) else \
            (row[tuple(rest)] if rest else row)
    if not isinstance(first, slice):
        raise TypeError(f"Ragged __getitem__ expects a ragged_tensor, int, or slice; got {first!r}")
    rows = rt if first == slice(None) else _row_range(rt, first)
    if not rest:
        return rows
    second, inner = rest[0], rest[1:]
    j = _as_int(second)
    if j is not None:
        picked = _column(rows, j)
    elif isinstance(second, slice):
        picked = rows if second == slice(None) else _column_slice(rows, second)
        if inner:
            values = picked.values
            sub = getitem(values, (slice(None),) + tuple(inner)) if isinstance(values, RaggedTensor) else \
                values[(slice(None),) + tuple(inner)]
            return picked.with_values(sub)
        return picked
    else:
        raise TypeError(f"Ragged __getitem__ expects a ragged_tensor, int, or slice; got {second!r}")
    if inner:
        if isinstance(picked, RaggedTensor):
            return getitem(picked, (slice(None),) + tuple(inner))
        return picked[(slice(None),) + tuple(inner)]
    return picked


RaggedTensor.__getitem__ = getitem   # installed from here: ragged_tensor.py sits below this module
