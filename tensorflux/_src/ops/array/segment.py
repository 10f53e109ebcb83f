"""Segment reductions: `tf.math.segment_sum/mean/max/min/prod` and their `unsorted_segment_*` forms.

A segment reduction combines the rows of `data` that share a segment id. The sorted ops take a vector
of non-decreasing ids and produce `ids[-1] + 1` rows (empty segments are 0, or 1 for prod); the
unsorted ops take ids of any shape that prefixes `data`'s, produce `num_segments` rows, drop negative
ids and fill empty segments with the reduction's identity (the lowest finite value for max, the
highest for min, 1 for prod). `unsorted_segment_mean` is composed from UnsortedSegmentSum (whose
OpDef lives in indexing.py, where gather's gradient uses it), as in TensorFlow.

Every kernel sorts the surviving rows by id (a no-op for the sorted ops) and reduces each run of equal
ids with `ufunc.reduceat`, which keeps the work in NumPy.
"""
import ml_dtypes
import numpy as np

from ...framework.tensor import Tensor
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from . import join as _join
from ..shapes import shape_ops as _shape_ops
from ..shapes import shaping as _shaping
from ..shapes import creators as _creators
from . import gather as _gather
from . import where as _where
from ..math import arith as _math
from ..shapes.common import attr_type_error, bad, fmt_shape
from ..convert import convert_to_tensor
from ..registry import OpDef, apply, constant_value, NUMBER, REAL

_INDEX_TYPES = (_dt.int32, _dt.int64)
_NARROW = (np.dtype(np.float16), _dt.bfloat16._np)
_UNKNOWN = TensorShape(None)
# TensorFlow's UnsortedSegmentSum (defined in indexing.py for gather's gradient) is this family's sum.
UNSORTED_SEGMENT_SUM = _gather.UNSORTED_SEGMENT_SUM


def _finfo(dtype):
    return ml_dtypes.finfo(dtype) if dtype == _dt.bfloat16._np else np.finfo(dtype)


def _lowest(dtype):
    return -_finfo(dtype).max if dtype.kind == "f" or dtype in _NARROW else np.iinfo(dtype).min


def _highest(dtype):
    return _finfo(dtype).max if dtype.kind == "f" or dtype in _NARROW else np.iinfo(dtype).max


def _reduce_rows(ufunc, rows, ids, num, fill, mean=False):
    """`num` rows: row s reduces the `rows` whose id is s with `ufunc`; rows no id reaches hold `fill`.

    `ids` are in [0, num). Half-precision data is reduced in float32, as TensorFlow's kernels do.
    """
    dtype = rows.dtype
    work = np.dtype(np.float32) if dtype in _NARROW else dtype
    out = np.full((num,) + rows.shape[1:], fill, dtype=work)
    if ids.size:
        if ids.size > 1 and (ids[1:] < ids[:-1]).any():
            order = np.argsort(ids, kind="stable")
            ids, rows = ids[order], rows[order]
        starts = np.flatnonzero(np.concatenate(([True], ids[1:] != ids[:-1])))
        values = ufunc.reduceat(rows.astype(work, copy=False), starts, axis=0, dtype=work)
        if mean:
            counts = np.diff(np.append(starts, ids.size)).reshape((-1,) + (1,) * (rows.ndim - 1))
            if work.kind in "iu":  # C++ integer division truncates toward zero
                values = (np.abs(values) // counts.astype(work) * np.sign(values)).astype(work)
            else:
                values = (values / counts).astype(work)
        out[ids[starts]] = values
    return out.astype(dtype, copy=False)


# -- sorted segment ops ------------------------------------------------------------------------------

def _sorted_kernel(ufunc, fill, mean=False):
    def kernel(data, segment_ids):
        if segment_ids.ndim != 1:
            raise bad("segment_ids should be a vector.")
        if data.ndim == 0 or data.shape[0] != segment_ids.shape[0]:
            raise bad("segment_ids should be the same size as dimension 0 of input.")
        ids = segment_ids
        num = int(ids[-1]) + 1 if ids.size else 0
        if ids.size > 1 and (ids[1:] < ids[:-1]).any():
            raise bad("segment ids are not increasing")
        if ids.size and ids[0] < 0:
            raise bad(f"Segment id {ids[0]} out of range [0, {max(num, 0)}), possibly because 'segment_ids' "
                      f"input is not sorted.")
        return _reduce_rows(ufunc, data, ids, num, fill, mean)
    return kernel


def _sorted_infer(inputs, attrs):
    data, ids = inputs
    name = attrs.get("_op", "SegmentSum")
    if ids.shape.rank is not None and ids.shape.rank != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {ids.shape.rank} for '{name}' with input shapes: "
                         f"{_text(data.shape)}, {_text(ids.shape)}.")
    if data.shape.rank == 0:
        raise ValueError(f"Shape must be at least rank 1 but is rank 0 for '{name}' with input shapes: "
                         f"{_text(data.shape)}, {_text(ids.shape)}.")
    if data.shape.rank is None:
        return [(data.dtype, _UNKNOWN)]
    dims = data.shape.as_list()
    n = ids.shape.as_list()[0] if ids.shape.rank == 1 else None
    if n is not None and dims[0] is not None and n != dims[0]:
        raise ValueError(f"Dimensions must be equal, but are {dims[0]} and {n} for '{name}' with input shapes: "
                         f"{_text(data.shape)}, {_text(ids.shape)}.")
    value = constant_value(ids)
    rows = None if value is None else (int(value.reshape(-1)[-1]) + 1 if value.size else 0)
    return [(data.dtype, TensorShape([rows] + dims[1:]))]


def _text(shape):
    return "?" if shape.rank is None else fmt_shape(shape.as_list())


def _sorted_opdef(op_name, ufunc, allowed, grad, mean=False, fill=0):
    def infer(inputs, attrs):
        return _sorted_infer(inputs, {"_op": op_name})
    return OpDef(op_name, infer, _sorted_kernel(ufunc, fill, mean), grad=grad, allowed=allowed,
                 input_names=("data", "segment_ids"))


# -- gradients (written with public ops, so they work eagerly and in graphs) -------------------------

def _row_shape(data):
    """[-1, 1, ..., 1] with data's rank: a per-row vector reshaped to broadcast against `data`."""
    rank = data.shape.rank
    if rank is not None:
        return [-1] + [1] * (rank - 1)
    ones = _creators.ones(_shaping.reshape(_math.subtract(_shape_ops.rank(data), 1), [1]), dtype=_dt.int32)
    return _join.concat([convert_to_tensor([-1], dtype=_dt.int32), ones], 0)


def _segment_sum_grad(op, grad):
    return [_gather.gather(grad, op.inputs[1]), None]


def _segment_mean_grad(op, grad):
    data, ids = op.inputs
    counts = segment_sum(_creators.ones_like(ids, dtype=grad.dtype), ids)
    return [_gather.gather(_math.realdiv(grad, _shaping.reshape(counts, _row_shape(data))), ids), None]


def _segment_extreme_grad(op, grad):
    # The gradient is shared equally by the elements equal to their segment's extreme (TensorFlow's rule).
    data, ids = op.inputs
    chosen = _math.equal(data, _gather.gather(op.outputs[0], ids))
    count = segment_sum(_math.cast(chosen, grad.dtype), ids)
    shared = _gather.gather(_math.divide(grad, count), ids)
    return [_where.where(chosen, shared, _creators.zeros_like(data)), None]


def _prod_partials(data, product, nonzero_product, zero_count, grad, gather):
    """d prod / d x for each element: product / x, or the product of the others where x is the only zero
    of its segment (segments with two or more zeros get no gradient)."""
    is_zero = _math.equal(data, _creators.zeros_like(data))
    grad = _where.where(_math.greater(zero_count, 1), _creators.zeros_like(grad), grad)
    partial = _where.where(is_zero, gather(nonzero_product), _math.divide(gather(product), data))
    return _math.multiply(gather(grad), partial)


def _segment_prod_grad(op, grad):
    data, ids = op.inputs
    is_zero = _math.equal(data, _creators.zeros_like(data))
    zero_count = segment_sum(_math.cast(is_zero, _dt.int32), ids)
    nonzero_product = segment_prod(_where.where(is_zero, _creators.ones_like(data), data), ids)
    return [_prod_partials(data, op.outputs[0], nonzero_product, zero_count, grad,
                           lambda t: _gather.gather(t, ids)), None]


SEGMENT_SUM = _sorted_opdef("SegmentSum", np.add, NUMBER, _segment_sum_grad)
SEGMENT_MEAN = _sorted_opdef("SegmentMean", np.add, NUMBER, _segment_mean_grad, mean=True)
SEGMENT_PROD = _sorted_opdef("SegmentProd", np.multiply, NUMBER, _segment_prod_grad, fill=1)
SEGMENT_MAX = _sorted_opdef("SegmentMax", np.maximum, REAL, _segment_extreme_grad)
SEGMENT_MIN = _sorted_opdef("SegmentMin", np.minimum, REAL, _segment_extreme_grad)


# -- unsorted segment ops ----------------------------------------------------------------------------

def _unsorted_kernel(ufunc, identity_of):
    def kernel(data, segment_ids, num_segments):
        num, ids, rows = _gather.segment_rows(data, segment_ids, num_segments)
        return _reduce_rows(ufunc, rows, ids, num, identity_of(data.dtype))
    return kernel


def _unsorted_infer(inputs, attrs):
    data, ids, num = inputs
    if num.shape.rank is not None and num.shape.rank != 0:
        raise ValueError(f"Shape must be rank 0 but is rank {num.shape.rank} for 'num_segments'.")
    value = constant_value(num)
    rows = None if value is None else int(value)
    if data.shape.rank is None or ids.shape.rank is None:
        return [(data.dtype, _UNKNOWN)]
    d, i = data.shape.as_list(), ids.shape.as_list()
    if len(i) > len(d) or any(a is not None and b is not None and a != b for a, b in zip(d, i)):
        raise ValueError(f"data.shape = {_text(data.shape)} does not start with segment_ids.shape = "
                         f"{_text(ids.shape)}")
    return [(data.dtype, TensorShape([rows] + d[len(i):]))]


def _dropping_gather(t, ids, data):
    """gather(t, ids) with the rows of negative (dropped) ids set to zero."""
    zero = _gather.index_scalar(0, ids.dtype)
    gathered = _gather.gather(t, _math.maximum(ids, zero))
    extra = data.shape.rank - ids.shape.rank if data.shape.rank is not None and ids.shape.rank is not None \
        else None
    if extra is None:
        extra_ones = _creators.ones(_shaping.reshape(_math.subtract(_shape_ops.rank(data), _shape_ops.rank(ids)), [1]),
                                    dtype=_dt.int32)
        kept_shape = _join.concat([_shape_ops.shape(ids), extra_ones], 0)
    else:
        kept_shape = _gather.joined_shape(_shape_ops.shape_of(ids), [1] * extra)
    kept = _shaping.reshape(_math.greater_equal(ids, zero), kept_shape)
    return _where.where(kept, gathered, _creators.zeros_like(gathered)), kept


def _unsorted_extreme_grad(op, grad):
    data, ids, num = op.inputs
    gathered, kept = _dropping_gather(op.outputs[0], ids, data)
    chosen = _math.logical_and(_math.equal(data, gathered), kept)
    count = unsorted_segment_sum(_math.cast(chosen, grad.dtype), ids, num)
    shared, _ = _dropping_gather(_math.divide(grad, count), ids, data)
    return [_where.where(chosen, shared, _creators.zeros_like(data)), None, None]


def _unsorted_prod_grad(op, grad):
    data, ids, num = op.inputs
    is_zero = _math.equal(data, _creators.zeros_like(data))
    zero_count = unsorted_segment_sum(_math.cast(is_zero, _dt.int32), ids, num)
    nonzero_product = unsorted_segment_prod(_where.where(is_zero, _creators.ones_like(data), data), ids, num)
    return [_prod_partials(data, op.outputs[0], nonzero_product, zero_count, grad,
                           lambda t: _dropping_gather(t, ids, data)[0]), None, None]


def _unsorted_opdef(op_name, ufunc, identity_of, grad, allowed=REAL):
    return OpDef(op_name, _unsorted_infer, _unsorted_kernel(ufunc, identity_of), grad=grad, allowed=allowed,
                 input_names=("data", "segment_ids", "num_segments"))


UNSORTED_SEGMENT_MAX = _unsorted_opdef("UnsortedSegmentMax", np.maximum, _lowest, _unsorted_extreme_grad)
UNSORTED_SEGMENT_MIN = _unsorted_opdef("UnsortedSegmentMin", np.minimum, _highest, _unsorted_extreme_grad)
UNSORTED_SEGMENT_PROD = _unsorted_opdef("UnsortedSegmentProd", np.multiply, lambda dtype: 1, _unsorted_prod_grad,
                                        NUMBER)


# -- public functions ----------------------------------------------------------------------------------

def _operands(data, segment_ids, op_name, allowed):
    data = data if isinstance(data, Tensor) else convert_to_tensor(data)
    segment_ids = segment_ids if isinstance(segment_ids, Tensor) else convert_to_tensor(segment_ids)
    if data.dtype not in allowed:
        raise attr_type_error("T", data.dtype, op_name, allowed, "data")
    if segment_ids.dtype not in _INDEX_TYPES:
        raise attr_type_error("Tindices", segment_ids.dtype, op_name, _INDEX_TYPES, "segment_ids")
    return data, segment_ids


def _num_segments(num_segments, op_name):
    num = num_segments if isinstance(num_segments, Tensor) else convert_to_tensor(num_segments)
    if num.dtype not in _INDEX_TYPES:
        raise attr_type_error("Tnumsegments", num.dtype, op_name, _INDEX_TYPES, "num_segments")
    return num


def _sorted_function(opdef, allowed):
    def fn(data, segment_ids, name=None):
        data, segment_ids = _operands(data, segment_ids, opdef.name, allowed)
        return apply(opdef, (data, segment_ids), None, name or opdef.name)
    return fn


def _unsorted_function(opdef, allowed):
    def fn(data, segment_ids, num_segments, name=None):
        data, segment_ids = _operands(data, segment_ids, opdef.name, allowed)
        num = _num_segments(num_segments, opdef.name)
        return apply(opdef, (data, segment_ids, num), None, name or opdef.name)
    return fn


segment_sum = _sorted_function(SEGMENT_SUM, NUMBER)
segment_mean = _sorted_function(SEGMENT_MEAN, NUMBER)
segment_prod = _sorted_function(SEGMENT_PROD, NUMBER)
segment_max = _sorted_function(SEGMENT_MAX, REAL)
segment_min = _sorted_function(SEGMENT_MIN, REAL)
unsorted_segment_sum = _unsorted_function(UNSORTED_SEGMENT_SUM, NUMBER)
unsorted_segment_prod = _unsorted_function(UNSORTED_SEGMENT_PROD, NUMBER)
unsorted_segment_max = _unsorted_function(UNSORTED_SEGMENT_MAX, REAL)
unsorted_segment_min = _unsorted_function(UNSORTED_SEGMENT_MIN, REAL)


def _segment_counts(data, segment_ids, num_segments, name):
    """How many rows each segment receives (at least 1), shaped to broadcast against the sums."""
    real = data.dtype.real_dtype if data.dtype.is_complex else data.dtype
    ones = _creators.ones_like(segment_ids, dtype=real)
    counts = unsorted_segment_sum(ones, segment_ids, num_segments, name=f"{name}/UnsortedSegmentSum")
    counts = _math.maximum(counts, _math.cast(1, real), name=f"{name}/Maximum")
    if real is not data.dtype:
        counts = _math.cast(counts, data.dtype)
    if data.shape.rank is not None and segment_ids.shape.rank is not None:
        return _shaping.reshape(counts, [-1] + [1] * (data.shape.rank - segment_ids.shape.rank), name=f"{name}/Reshape")
    extra = _creators.ones(_shaping.reshape(_math.subtract(_shape_ops.rank(data), _shape_ops.rank(segment_ids)), [1]),
                           dtype=_dt.int32)
    return _shaping.reshape(counts, _join.concat([convert_to_tensor([-1], dtype=_dt.int32), extra], 0))


def unsorted_segment_mean(data, segment_ids, num_segments, name=None):
    """`tf.math.unsorted_segment_mean`: segment sums divided by the segment sizes (empty segments are 0).

    Integer data gives a float64 mean (TensorFlow divides the sums with true division).
    """
    name = name or "UnsortedSegmentMean"
    data, segment_ids = _operands(data, segment_ids, "UnsortedSegmentSum", NUMBER)
    num = _num_segments(num_segments, "UnsortedSegmentSum")
    counts = _segment_counts(data, segment_ids, num, name)
    summed = unsorted_segment_sum(data, segment_ids, num, name=f"{name}/UnsortedSegmentSum_1")
    if data.dtype.is_integer:
        return _math.truediv(summed, counts, name=f"{name}/truediv")
    return _math.realdiv(summed, counts, name=f"{name}/truediv")


API = {
    "math": ["segment_sum", "segment_mean", "segment_max", "segment_min", "segment_prod", "unsorted_segment_sum",
             "unsorted_segment_mean", "unsorted_segment_max", "unsorted_segment_min", "unsorted_segment_prod"],
}
