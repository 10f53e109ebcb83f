"""RaggedBincount: counts per row of a ragged tensor (`tf.math.bincount(rt, axis=-1)`, and the op that
Keras' TextVectorization exports with `multi_hot`, `count` and `tf_idf` outputs run).

The op takes the row splits and the values of a two-dimensional ragged tensor, the number of bins and
optional weights, and returns a dense [rows, size] tensor of the weights' dtype: each value adds its weight
(or one) to its row's bin; values past `size` are dropped. Weights are added one value after another, in
the weights' own dtype, as TensorFlow's kernel does, so float32 counts carry its bits.
"""
import numpy as np

from ...framework import errors
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..math import arith as _arith
from ..math import reduce as _reduce
from ..registry import OpDef, apply
from .ragged_tensor import RaggedTensor

__all__ = ["RAGGED_BINCOUNT", "ragged_bincount"]


def _check(splits, values, size):
    if size < 0:
        raise errors.InvalidArgumentError(None, None, f"size ({size}) must be non-negative")
    if splits.size == 0:
        raise errors.InvalidArgumentError(None, None, "Splits must be non-empty")
    if splits[0] != 0:
        raise errors.InvalidArgumentError(None, None, f"Splits must start with 0, not with {splits[0]}")
    if splits[-1] != values.size:
        raise errors.InvalidArgumentError(
            None, None, f"Splits must end with the number of values, got {splits[-1]} instead of {values.size}")
    if values.size and values.min() < 0:
        raise errors.InvalidArgumentError(None, None, "Input must be non-negative")


def _ragged_bincount_kernel(splits, values, size, weights, binary_output=False):
    size = int(size)
    splits = splits.astype(np.int64, copy=False)
    values = values.reshape(-1)
    _check(splits, values, size)
    rows = splits.size - 1
    out = np.zeros((rows, size), dtype=weights.dtype)
    row_of = np.repeat(np.arange(rows), np.diff(splits))
    keep = values < size
    if binary_output:
        out[row_of[keep], values[keep]] = 1
    elif weights.size:
        if weights.size != values.size:     # TensorFlow reads past the end of the weights here
            raise errors.InvalidArgumentError(
                None, None, f"`weights` must have one value per value of `values` or none; got {weights.size} "
                            f"weights for {values.size} values")
        np.add.at(out, (row_of[keep], values[keep]), weights.reshape(-1)[keep])  # in order, in weights' dtype
    else:
        np.add.at(out, (row_of[keep], values[keep]), 1)
    return out


def _infer_ragged_bincount(inputs, attrs):
    """TensorFlow's shape function leaves the output's shape unknown, rank included."""
    return [(inputs[3].dtype, TensorShape(None))]


RAGGED_BINCOUNT = OpDef("RaggedBincount", _infer_ragged_bincount, _ragged_bincount_kernel,
                        input_names=("splits", "values", "size", "weights"))


def ragged_bincount(arr, weights=None, minlength=None, maxlength=None, dtype=_dt.int32, name=None, axis=None,
                    binary_output=False):
    """`tf.math.bincount` of a RaggedTensor: with `axis=-1` one row of counts per row (RaggedBincount),
    otherwise the counts of all its values."""
    name = name or "bincount"
    if weights is not None and binary_output:
        raise ValueError("Arguments `binary_output` and `weights` are mutually exclusive. Please specify only one.")
    if axis not in (None, 0, -1):
        raise ValueError(f"Unsupported value for argument axis={axis}. Only 0 and -1 are currently supported.")
    weight_values = weights.flat_values if isinstance(weights, RaggedTensor) else weights
    if axis != -1:
        return _reduce.bincount(arr.flat_values, weight_values, minlength, maxlength, dtype, name, axis=None,
                                binary_output=binary_output)
    if arr.ragged_rank != 1:
        raise ValueError(f"Unsupported value for argument axis={axis} with a ragged tensor of ragged rank "
                         f"{arr.ragged_rank}: axis=-1 needs a two-dimensional ragged `arr`.")
    values = arr.values
    if values.dtype not in (_dt.int32, _dt.int64):
        values = _arith.cast(values, _dt.int32, name=f"{name}/Cast")
    size, weight_values = _reduce.bincount_size_and_weights(values, weight_values, minlength, maxlength, dtype,
                                                            name)
    splits = _arith.cast(arr.row_splits, _dt.int64)
    return apply(RAGGED_BINCOUNT, (splits, values, size, weight_values), {"binary_output": bool(binary_output)},
                 f"{name}/RaggedBincount")
