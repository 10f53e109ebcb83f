"""The row partitions of `tf.io.RaggedFeature` (`RaggedFeature.RowSplits("key")`, `RowLengths`, `RowStarts`,
`RowLimits`, `ValueRowIds`, `UniformRowLength(n)`) and how a batch of parsed values is split by them.

Each partition but UniformRowLength names an int64 feature of the same Example holding that example's row
partition; `partitions` lists them outermost first. As in TensorFlow, they are applied innermost first to
the whole batch at once, each example's partition values shifted by where its rows start in the batch:

    RaggedFeature(tf.int64, value_key="v", partitions=[RaggedFeature.RowLengths("lengths")])
    # v = [1, 2, 3], lengths = [2, 0, 1]  ->  [[1, 2], [], [3]] for that example

Everything here is NumPy on the values the parse kernel read: `apply_partitions` gives the flat values and
the row splits of every ragged level (a UniformRowLength with nothing ragged inside it reshapes the values
instead). With `validate=True` the partitions are checked with TensorFlow's InvalidArgumentError texts;
with `validate=False` they are used as given, as TensorFlow does (rows are then sliced Python-style).
"""
import collections

import numpy as np

from ..framework.errors import InvalidArgumentError
from ..types import dtypes

__all__ = ["PARTITION_TYPES", "check_partitions", "partition_plan", "split_levels", "apply_partitions"]

_MODULE = "tensorflow.python.ops.parsing_config"   # the module TensorFlow's messages name for these classes


def _keyed(name, doc):
    cls = collections.namedtuple(name, ["key"])
    cls.__doc__, cls.__module__ = doc, _MODULE
    return cls


RowSplits = _keyed("RowSplits", "Row splits of each example's rows, read from the int64 feature `key`.")
RowLengths = _keyed("RowLengths", "Lengths of each example's rows, read from the int64 feature `key`.")
RowStarts = _keyed("RowStarts", "Starts of each example's rows, read from the int64 feature `key`.")
RowLimits = _keyed("RowLimits", "Limits of each example's rows, read from the int64 feature `key`.")
ValueRowIds = _keyed("ValueRowIds", "The row of each value of an example, read from the int64 feature `key`.")
UniformRowLength = collections.namedtuple("UniformRowLength", ["length"])
UniformRowLength.__doc__ = "Rows of `length` values each (no feature is read)."
UniformRowLength.__module__ = _MODULE

PARTITION_TYPES = (RowSplits, RowLengths, RowStarts, RowLimits, ValueRowIds, UniformRowLength)
_KIND_OF = {RowSplits: "splits", RowLengths: "lengths", RowStarts: "starts", RowLimits: "limits",
            ValueRowIds: "rowids", UniformRowLength: "uniform"}


def check_partitions(partitions):
    """`partitions` as a tuple, each a partition object (TensorFlow's TypeError otherwise)."""
    partitions = tuple(partitions)
    for partition in partitions:
        if not isinstance(partition, PARTITION_TYPES):
            raise TypeError(f"Argument `partitions` cannot be cast to any of the partition types in "
                            f"{PARTITION_TYPES}; got: {partition!r} with type {type(partition)}")
    return partitions


def partition_plan(partitions):
    """The hashable spec of `partitions` for the parse op's plan: ((kind, key or length), ...)."""
    return tuple((_KIND_OF[type(p)], int(p.length) if isinstance(p, UniformRowLength) else p.key)
                 for p in partitions)


def split_levels(spec):
    """(row lengths of the uniform dimensions folded into the values, number of ragged levels the
    partitions add): a UniformRowLength reshapes the values while nothing ragged lies inside it."""
    inner_dims, levels = [], 0
    for kind, arg in reversed(spec):
        if kind == "uniform" and levels == 0:
            inner_dims.insert(0, arg)
        else:
            levels += 1
    return inner_dims, levels


# -- TensorFlow's validation messages ------------------------------------------------------------------
def _invalid(message):
    return InvalidArgumentError(None, None, message)


def _require_non_negative(x, what, dtype):
    if x.size and (x < 0).any():
        shown = [str(v) for v in x[:3].tolist()] + (["..."] if x.size > 3 else [])
        raise _invalid(f"Arguments to {what}.  \nCondition x >= 0 did not hold element-wise:\n"
                       f"x (shape=({x.size},) dtype={dtype.name}) = \n{shown}")


def _require_equal(x, y, what):
    if x != y:
        raise _invalid(f"Arguments to {what}\nCondition x == y did not hold.\nFirst 1 elements of x:\n[{x}]\n"
                       f"First 1 elements of y:\n[{y}]")


def _check_total(splits, nrows, validate):
    if validate:
        _require_equal(int(splits[-1]), nrows, "_from_row_partition do not form a valid RaggedTensor")


def splits_dtype_of(np_dtype):
    """The tensorflux DType of a NumPy splits dtype (named in validation messages)."""
    return dtypes.as_dtype(np_dtype)


# -- applying them ---------------------------------------------------------------------------------------
def _rows(splits):
    return np.diff(splits)


def apply_partitions(values, value_splits, partition_rows, spec, splits_dtype, validate):
    """(values, [batch row splits, splits of each ragged level, outermost first]) of a batch.

    `values`: every example's values, concatenated; `value_splits`: where each example's start (batch + 1
    entries); `partition_rows`: {feature key: (concatenated int64 values, their batch splits)} for the keyed
    partitions; `splits_dtype`: the NumPy dtype of every row splits array."""
    outer = value_splits.astype(np.int64)      # rows of the top level, per example
    inner = []                                  # splits of the levels below the batch, outermost first
    for kind, arg in reversed(spec):
        top = len(inner[0]) - 1 if inner else len(values)
        if kind == "uniform":
            outer, inner, values = _uniform(values, outer, inner, top, arg)
            continue
        flat, batch = partition_rows[arg]
        flat, batch = flat.astype(splits_dtype).astype(np.int64), batch.astype(np.int64)
        if kind == "splits":     # each example's splits without their leading 0: its row limits
            keep = np.ones(len(flat), bool)
            keep[batch[:-1][batch[:-1] < batch[1:]]] = False
            flat, batch = flat[keep], np.concatenate([[0], np.cumsum(keep)])[batch]
            kind = "limits"
        shifts = np.repeat(outer[:-1], _rows(batch))       # where each example's rows start in the batch
        if kind == "limits":
            limits = flat + shifts
            if validate:
                _require_non_negative(np.diff(limits), "from_row_limits do not form a valid RaggedTensor",
                                      splits_dtype_of(splits_dtype))
            level = np.concatenate([[0], limits])
        elif kind == "starts":
            starts = flat + shifts
            if validate:
                _require_equal(int(starts[0]) if starts.size else 0, 0,
                               "from_row_starts do not form a valid RaggedTensor")
                _require_non_negative(np.diff(starts), "from_row_starts do not form a valid RaggedTensor",
                                      splits_dtype_of(splits_dtype))
            level = np.concatenate([starts, [top]])
        elif kind == "lengths":
            if validate:
                _require_non_negative(flat, "from_row_lengths do not form a valid RowPartition",
                                      splits_dtype_of(splits_dtype))
            level = np.concatenate([[0], np.cumsum(flat)])
        else:   # rowids: each example has (its largest row id + 1) rows
            outer, level = _rowids(flat, batch, top, splits_dtype, validate)
            _check_total(level, top, validate)
            inner = [level] + inner
            continue
        _check_total(level, top, validate)
        outer, inner = batch, [level] + inner
    return values, [s.astype(splits_dtype) for s in [outer] + inner]


def _uniform(values, outer, inner, top, length):
    if length <= 0:
        raise _invalid(f"UniformRowLength must be positive, got {length}")
    if inner:        # rows of ragged rows: a level of equal splits
        rows = top // length
        return outer // length, [np.arange(rows + 1, dtype=np.int64) * length] + inner, values
    block = length * int(np.prod(values.shape[1:], dtype=np.int64))
    if values.size % block:
        raise _invalid(f"Input to reshape is a tensor with {values.size} values, but the requested shape "
                       f"requires a multiple of {block}")
    return outer // length, inner, values.reshape((-1, length) + values.shape[1:])


def _rowids(flat, batch, top, splits_dtype, validate):
    """(batch splits over the new rows, splits of the new level) for value row ids."""
    if len(flat) != top:
        raise ValueError(f"Shapes ({top},) and ({len(flat)},) are incompatible")
    counts = _rows(batch)
    nrows = np.zeros(len(counts), np.int64)
    nonempty = counts > 0
    if nonempty.any():
        nrows[nonempty] = np.maximum(np.maximum.reduceat(flat, batch[:-1][nonempty]) + 1, 0)
    ids = flat + np.repeat(np.concatenate([[0], np.cumsum(nrows)[:-1]]), counts)
    dtype = splits_dtype_of(splits_dtype)
    if validate:
        _require_non_negative(ids[:1], "from_value_rowids do not form a valid RowPartition", dtype)
        _require_non_negative(np.diff(ids), "from_value_rowids do not form a valid RowPartition", dtype)
    if ids.size and ids.min() < 0:
        raise _invalid("Input arr must be non-negative!")
    total = int(ids.max()) + 1 if ids.size else 0
    lengths = np.bincount(ids, minlength=total)
    return np.concatenate([[0], np.cumsum(nrows)]), np.concatenate([[0], np.cumsum(lengths)])
