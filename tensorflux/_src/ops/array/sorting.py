"""Sorting ops: sort, argsort, top_k (`tf.math.top_k`) and unique.

TensorFlow builds sort/argsort from TopKV2 plus negations and transposes; here they are single ops
("Sort", "ArgSort") with one stable NumPy sort, which gives the same values and the same (stable)
order of equal elements. Descending order sorts a key that reverses the order exactly: `~x` for
integers (no overflow at the minimum, unlike `-x`) and `-x` for floats.
"""
import collections

import numpy as np

from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..shapes import creators as _creators
from . import gather as _gather
from ..math import arith as _math
from ..shapes.common import attr_type_error, bad, fmt_shape, static_int
from .reorder import transpose
from ..shapes.shape_ops import shape_of
from ..shapes.shaping import reshape
from ..convert import convert_to_tensor
from ..registry import REAL, OpDef, apply, constant_value

__all__ = ["sort", "argsort", "top_k", "unique", "unique_with_counts", "TopKV2", "Unique", "UniqueWithCounts"]

TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])
Unique = collections.namedtuple("Unique", ["y", "idx"])
UniqueWithCounts = collections.namedtuple("UniqueWithCounts", ["y", "idx", "count"])

_DIRECTIONS = ("ASCENDING", "DESCENDING")
_INDEX_TYPES = (_dt.int32, _dt.int64)


def _descending_key(x):
    """An array whose ascending order is `x`'s descending order (NaN counts as the largest)."""
    if x.dtype.kind in "iu":
        return ~x
    key = -x
    nan = np.isnan(x)
    if nan.any():
        key = np.where(nan, -np.inf, key)
    return key


def _sort_axis(rank, axis, static):
    if not -rank <= axis < max(rank, 1) or rank == 0:
        msg = f"slice index {axis} of dimension 0 out of bounds."
        raise ValueError(msg) if static else bad(msg)
    return axis % rank


def _sort_kernel(x, axis, descending):
    axis = _sort_axis(x.ndim, axis, False)
    if descending:
        order = np.argsort(_descending_key(x), axis=axis, kind="stable")
        return np.take_along_axis(x, order, axis)
    return np.sort(x, axis=axis)


def _argsort_kernel(x, axis, descending):
    axis = _sort_axis(x.ndim, axis, False)
    key = _descending_key(x) if descending else x
    return np.argsort(key, axis=axis, kind="stable").astype(np.int32)


def _sort_infer_for(dtype):
    def infer(inputs, attrs):
        x = inputs[0]
        if x.shape.rank is not None:
            _sort_axis(x.shape.rank, attrs["axis"], True)
        return [(dtype or x.dtype, x.shape)]
    return infer


def _sort_grad(op, grad):
    """Sends each sorted position's gradient back to where its value came from.

    The stable argsort is the permutation the sort applied (ties keep their order, as TensorFlow's
    top_k-based sort does); its inverse gathers `grad` into the input's order.
    """
    x = op.inputs[0]
    rank = x.shape.rank
    if rank is None:
        raise ValueError("The gradient of sort needs an input of known rank.")
    axis = _sort_axis(rank, op.attrs["axis"], True)
    order = apply(ARGSORT, (x,), op.attrs, "argsort")
    inverse = apply(ARGSORT, (order,), {"axis": axis, "descending": False}, "argsort")
    last = rank - 1
    perm = list(range(rank))
    perm[axis], perm[last] = last, axis
    if axis != last:
        grad, inverse = transpose(grad, perm), transpose(inverse, perm)
    result = _gather.gather(grad, inverse, axis=last, batch_dims=last)
    return [transpose(result, perm) if axis != last else result]


SORT = OpDef("Sort", _sort_infer_for(None), _sort_kernel, grad=_sort_grad, allowed=REAL, input_names=("values",))
ARGSORT = OpDef("ArgSort", _sort_infer_for(_dt.int32), _argsort_kernel, allowed=REAL, input_names=("values",))


def _sort_attrs(axis, direction):
    if direction not in _DIRECTIONS:
        raise ValueError(f"Argument `direction` should be one of {', '.join(_DIRECTIONS)}. Received: "
                         f"direction={direction}")
    try:
        axis = static_int(axis, "axis")
    except TypeError:
        raise ValueError(f"Argument `axis` must be a constant scalar. Received: axis={axis}.") from None
    return {"axis": axis, "descending": direction == "DESCENDING"}


def sort(values, axis=-1, direction="ASCENDING", name=None):
    """`tf.sort`: `values` sorted along `axis`."""
    attrs = _sort_attrs(axis, direction)
    return apply(SORT, (convert_to_tensor(values),), attrs, name or "sort")


def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """`tf.argsort`: int32 indices that sort `values` along `axis` (always stable here)."""
    attrs = _sort_attrs(axis, direction)
    return apply(ARGSORT, (convert_to_tensor(values),), attrs, name or "argsort")


# top_k -----------------------------------------------------------------------------------------------

def _top_k_kernel(x, k, sorted=True, index_type=np.dtype(np.int32)):  # noqa: A002 - TensorFlow's attr
    if x.ndim == 0:
        raise bad(f"input must be >= 1-D, got shape {fmt_shape(x.shape)}")
    k = int(k)
    if k < 0:
        raise bad(f"Need k >= 0, got {k}")
    if k > x.shape[-1]:
        raise bad(f"input must have at least k columns. Had {x.shape[-1]}, needed {k}")
    order = np.argsort(_descending_key(x), axis=-1, kind="stable")[..., :k]
    return np.take_along_axis(x, order, -1), order.astype(index_type)


def _top_k_infer(inputs, attrs):
    x, k = inputs
    index_type = _dt.as_dtype(attrs.get("index_type", np.dtype(np.int32)))
    k_value = constant_value(k)
    k_value = None if k_value is None else int(k_value)
    dims = x.shape._dims
    if dims is None:
        return [(x.dtype, TensorShape(None)), (index_type, TensorShape(None))]
    if not dims:
        raise ValueError("Shape must be at least rank 1 but is rank 0")
    if k_value is not None and dims[-1] is not None and k_value > dims[-1]:
        raise ValueError(f"input must have last dimension >= k = {k_value} but is {dims[-1]}")
    out = TensorShape(dims[:-1] + (k_value,))
    return [(x.dtype, out), (index_type, out)]


def _top_k_grad(op, grad_values, grad_indices):
    """The value gradients summed into the input positions the top k came from (flat per-row offsets)."""
    x, indices = op.inputs[0], op.outputs[1]
    dims = shape_of(x)
    n = dims[-1]
    rows = _gather.shape_product(dims[:-1])
    k = shape_of(indices)[-1]
    offsets = _math.multiply(_creators.range(_gather.index_scalar(rows, indices.dtype)),
                             _gather.index_scalar(n, indices.dtype))
    flat = reshape(_math.add(reshape(indices, _gather.joined_shape(_gather.dim_part(rows), _gather.dim_part(k))),
                             reshape(offsets, [-1, 1])), [-1])
    count = rows * n if isinstance(rows, int) and isinstance(n, int) else _math.multiply(
        _gather.index_scalar(rows, indices.dtype), _gather.index_scalar(n, indices.dtype))
    summed = _gather.unsorted_segment_sum(reshape(grad_values, [-1]), flat, count)
    return [reshape(summed, dims), None]


TOP_K = OpDef("TopKV2", _top_k_infer, _top_k_kernel, grad=_top_k_grad, allowed=REAL, multi=True,
              input_names=("input", "k"))


def top_k(input, k=1, sorted=True, index_type=_dt.int32, name=None):  # noqa: A002
    """`tf.math.top_k`: the `k` largest entries of the last dimension and their indices (ties: lower index
    first), as a `TopKV2(values, indices)` tuple."""
    input = convert_to_tensor(input)
    k = convert_to_tensor(k, dtype=_dt.int32) if not hasattr(k, "dtype") else k
    index_type = _dt.as_dtype(index_type)
    if index_type not in _INDEX_TYPES:
        raise attr_type_error("index_type", index_type, "TopKV2")
    attrs = {"sorted": bool(sorted), "index_type": index_type._np}
    return TopKV2(*apply(TOP_K, (input, k), attrs, name or "TopKV2"))


# unique ----------------------------------------------------------------------------------------------

def _unique_parts(x):
    """(y, idx, count) with `y` in order of first appearance; every NaN is its own value, as in TF."""
    if x.ndim != 1:
        raise bad("unique expects a 1D vector.")
    kwargs = {"equal_nan": False} if x.dtype.kind in "fc" else {}
    _, first, inverse, counts = np.unique(x, return_index=True, return_inverse=True, return_counts=True,
                                          **kwargs)
    order = np.argsort(first, kind="stable")
    position = np.empty(len(order), dtype=np.int64)
    position[order] = np.arange(len(order))
    return x[first[order]], position[inverse.reshape(-1)], counts[order]


def _unique_kernel(x, out_idx):
    y, idx, _ = _unique_parts(x)
    return y, idx.astype(out_idx)


def _unique_with_counts_kernel(x, out_idx):
    y, idx, counts = _unique_parts(x)
    return y, idx.astype(out_idx), counts.astype(out_idx)


def _unique_infer(inputs, attrs):
    x = inputs[0]
    if x.shape.rank not in (1, None):
        raise ValueError(f"Shape must be rank 1 but is rank {x.shape.rank}")
    idx_dtype = _dt.as_dtype(attrs["out_idx"])
    out = [(x.dtype, TensorShape((None,))), (idx_dtype, x.shape.with_rank(1))]
    if attrs.get("counts"):
        out.append((idx_dtype, TensorShape((None,))))
    return out


def _unique_with_counts_infer(inputs, attrs):
    return _unique_infer(inputs, dict(attrs, counts=True))


UNIQUE = OpDef("Unique", _unique_infer, _unique_kernel, multi=True)
UNIQUE_WITH_COUNTS = OpDef("UniqueWithCounts", _unique_with_counts_infer, _unique_with_counts_kernel, multi=True)


def _out_idx(out_idx, op_name):
    dtype = _dt.as_dtype(out_idx)
    if dtype not in _INDEX_TYPES:
        raise attr_type_error("out_idx", dtype, op_name)
    return dtype._np


def unique(x, out_idx=_dt.int32, name=None):
    """`tf.unique`: the distinct values of 1-D `x` in order of appearance, and each element's index
    into them, as a `Unique(y, idx)` tuple."""
    x = convert_to_tensor(x)
    attrs = {"out_idx": _out_idx(out_idx, "Unique")}
    return Unique(*apply(UNIQUE, (x,), attrs, name or "Unique"))


def unique_with_counts(x, out_idx=_dt.int32, name=None):
    """`tf.unique_with_counts`: `unique` plus how often each distinct value occurs."""
    x = convert_to_tensor(x)
    attrs = {"out_idx": _out_idx(out_idx, "UniqueWithCounts")}
    return UniqueWithCounts(*apply(UNIQUE_WITH_COUNTS, (x,), attrs, name or "UniqueWithCounts"))


API = {
    "": ["sort", "argsort", "unique", "unique_with_counts"],
    "math": ["top_k"],
    "nn": ["top_k"],
}
