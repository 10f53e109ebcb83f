"""Gathering ops: gather (GatherV2) and gather_nd, the scatter ops their gradients need (UnsortedSegmentSum,
ScatterNd), and the shape arithmetic those gradients share with sorting, segment and scatter ops.
"""
import numpy as np

from ...framework.indexed_slices import IndexedSlices, set_densifier
from ...framework.tensor import Tensor
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..shapes import creators as _creators
from ..math import arith as _math
from ..math import reduce as _reduce
from ..shapes.common import attr_type_error, bad, fmt_shape, static_int, unknown_vector_dims, value_dims, shape_from_tensor
from .join import concat
from .reorder import transpose
from ..shapes.shape_ops import shape, shape_of
from ..shapes.shaping import reshape
from ..convert import constant, convert_to_tensor
from ..registry import OpDef, apply, constant_value
from .where import where


_GATHER_INDEX_TYPES = (_dt.int16, _dt.int32, _dt.int64)
_UNKNOWN = TensorShape(None)


def _check_gather_indices(indices, op_name):
    if indices.dtype not in _GATHER_INDEX_TYPES:
        raise attr_type_error("Tindices", indices.dtype, op_name, _GATHER_INDEX_TYPES, "indices")


# ---------------------------------------------------------------------------------------------------
# Shape arithmetic for gradients: a shape is a list of ints when static, else an int32 tensor, and these
# helpers keep the static case static (constants in the graph) and fall back to shape ops otherwise.
# ---------------------------------------------------------------------------------------------------

def joined_shape(*parts):
    """The concatenation of shape parts (lists of ints or 1-D int tensors)."""
    if all(isinstance(p, list) for p in parts):
        return [d for p in parts for d in p]
    tensors = [p if not isinstance(p, list) else constant(np.array(p, dtype=np.int32)) for p in parts]
    tensors = [t if t.dtype is _dt.int32 else _math.cast(t, _dt.int32) for t in tensors]
    return concat(tensors, 0)


def dim_part(dim):
    """One dimension (an int or a scalar int tensor) as a shape part."""
    return [dim] if isinstance(dim, int) else reshape(dim, [1])


def shape_product(part):
    if isinstance(part, list):
        return int(np.prod(part, dtype=np.int64))
    return _reduce.reduce_prod(part)


def index_scalar(value, dtype):
    """A Python int or int tensor as a scalar tensor of the index dtype `dtype`."""
    if isinstance(value, Tensor):
        return value if value.dtype is dtype else _math.cast(value, dtype)
    return constant(np.array(value, dtype=dtype._np))


# ---------------------------------------------------------------------------------------------------
# Scatter ops used by the gradients of gather/gather_nd/top_k: UnsortedSegmentSum and ScatterNd
# ---------------------------------------------------------------------------------------------------

_NARROW = (np.dtype(_dt.float16._np), np.dtype(_dt.bfloat16._np))


def _accumulate(dims, dtype, index, rows):
    """Zeros of `dims` with `rows` added at `index` (repeated indices add up), in `dtype`."""
    work = np.float32 if dtype in _NARROW else dtype
    out = np.zeros(dims, dtype=work)
    rows = rows.astype(work, copy=False)
    if isinstance(index, np.ndarray) and rows.ndim >= 1 and out.ndim == rows.ndim and rows.size and out.size:
        flat_out = out.reshape(out.shape[0], -1)
        flat_rows = np.ascontiguousarray(rows).reshape(rows.shape[0], -1)
        from . import compiled_segment_sum   # here: `import tensorflux` loads gather.py, not this
        loop = compiled_segment_sum.segment_rows_kernel(flat_out, index, flat_rows)
        if loop is not None:
            loop(flat_out, index, flat_rows)
            return out.astype(dtype, copy=False)
    if isinstance(index, np.ndarray) and rows.ndim == 2 and rows.shape[1] >= _LAYERED_MIN_WIDTH:
        _add_in_layers(out, index, rows)
    else:
        np.add.at(out, index, rows)
    return out.astype(dtype, copy=False)


# np.add.at costs about half a microsecond per row: an Embedding's gradient (6400 rows of 32 into a
# 20000-row table) took 3.7 ms. Adding the first occurrence of every index at once, then the second
# occurrences, and so on (fancy-indexed `+=`, no index twice in one layer) adds each output's rows in
# the same order from the same zero, so the bits are np.add.at's; 1.75 ms there. Narrow rows with many
# repeats stay with np.add.at, which is faster for them.
_LAYERED_MIN_WIDTH = 16


def _add_in_layers(out, index, rows):
    order = np.argsort(index, kind="stable")
    ordered = index[order]
    first = np.empty(index.size, bool)
    first[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    if starts.size == index.size:
        out[index] += rows
        return
    rank = np.arange(index.size) - np.repeat(starts, np.diff(np.append(starts, index.size)))
    for layer in range(int(rank.max()) + 1):
        take = order[rank == layer]
        out[index[take]] += rows[take]


def segment_rows(data, segment_ids, num_segments):
    """(num_segments, ids, rows) of an unsorted segment op, checked with TensorFlow's messages; rows of
    negative ids are dropped, as TensorFlow does."""
    n = int(num_segments)
    if n < 0:
        raise bad(f"Input num_segments == {n} must not be negative.")
    if data.shape[:segment_ids.ndim] != segment_ids.shape:
        raise bad(f"data.shape = {fmt_shape(data.shape)} does not start with segment_ids.shape = "
                  f"{fmt_shape(segment_ids.shape)}")
    ids = segment_ids.reshape(-1)
    too_big = ids >= n
    if too_big.any():
        i = int(np.argmax(too_big))
        raise bad(f"segment_ids[{i}] = {ids[i]} is out of range [0, {n})")
    rows = data.reshape((ids.size,) + data.shape[segment_ids.ndim:])
    keep = ids >= 0
    if not keep.all():
        ids, rows = ids[keep], rows[keep]
    return n, ids, rows


def _unsorted_segment_sum_kernel(data, segment_ids, num_segments):
    n, ids, rows = segment_rows(data, segment_ids, num_segments)
    return _accumulate((n,) + rows.shape[1:], data.dtype, ids, rows)


def _unsorted_segment_sum_infer(inputs, attrs):
    data, ids, num = inputs
    n = constant_value(num)
    n = None if n is None else int(n)
    if data.shape._dims is None or ids.shape._dims is None:
        return [(data.dtype, _UNKNOWN)]
    return [(data.dtype, TensorShape((n,) + data.shape._dims[len(ids.shape._dims):]))]


def _unsorted_segment_sum_grad(op, grad):
    """Each data row gets its segment's gradient (nothing for dropped, negative ids)."""
    data, ids = op.inputs[0], op.inputs[1]
    zero = index_scalar(0, ids.dtype)
    gathered = gather(grad, _math.maximum(ids, zero))
    extra = data.shape.rank - ids.shape.rank
    kept = reshape(_math.greater_equal(ids, zero), joined_shape(shape_of(ids), [1] * extra))
    return [where(kept, gathered, _creators.zeros_like(gathered)), None, None]


UNSORTED_SEGMENT_SUM = OpDef("UnsortedSegmentSum", _unsorted_segment_sum_infer, _unsorted_segment_sum_kernel,
                             grad=_unsorted_segment_sum_grad, input_names=("data", "segment_ids", "num_segments"))


def unsorted_segment_sum(data, segment_ids, num_segments, name=None):
    """Sums the rows of `data` into `num_segments` rows by `segment_ids` (negative ids are dropped)."""
    num_segments = num_segments if isinstance(num_segments, Tensor) else convert_to_tensor(num_segments)
    return apply(UNSORTED_SEGMENT_SUM, (data, segment_ids, num_segments), None, name or "UnsortedSegmentSum")


def _scatter_nd_kernel(indices, updates, shape):
    dims = tuple(int(d) for d in np.reshape(shape, -1))
    k = indices.shape[-1]
    idx = indices.reshape(-1, k)
    out_of_range = ((idx < 0) | (idx >= np.array(dims[:k], dtype=np.int64))).any(axis=-1)
    if out_of_range.any():
        row = int(np.argmax(out_of_range))
        raise bad(f"indices[{row}] = [{', '.join(str(v) for v in idx[row])}] does not index into shape "
                  f"{fmt_shape(dims)}")
    rows = updates.reshape((idx.shape[0],) + dims[k:])
    return _accumulate(dims, updates.dtype, tuple(idx.T), rows)


def _scatter_nd_infer(inputs, attrs):
    indices, updates, shape_t = inputs
    dims = value_dims(shape_t)
    return [(updates.dtype, shape_from_tensor(shape_t) if dims is None else TensorShape(dims))]


def _scatter_nd_grad(op, grad):
    return [None, gather_nd(grad, op.inputs[0]), None]


SCATTER_ND = OpDef("ScatterNd", _scatter_nd_infer, _scatter_nd_kernel, grad=_scatter_nd_grad,
                   input_names=("indices", "updates", "shape"))


def scatter_nd(indices, updates, shape, name=None):  # noqa: A002
    """Zeros of `shape` with `updates` added at `indices` (repeated indices add up)."""
    if isinstance(shape, list):
        shape = constant(np.array(shape, dtype=indices.dtype._np))
    return apply(SCATTER_ND, (indices, updates, shape), None, name or "ScatterNd")


# ---------------------------------------------------------------------------------------------------
# gather (GatherV2)
# ---------------------------------------------------------------------------------------------------

def _gather_axes(params_rank, indices_rank, axis, batch_dims, static):
    """Normalised (axis, batch_dims), or TensorFlow's error."""
    def fail(msg):
        return ValueError(msg) if static else bad(msg)
    if not -params_rank <= axis < params_rank:
        raise fail(f"Shape must be at least rank {axis + 1 if axis >= 0 else -axis} but is rank {params_rank}")
    axis %= max(params_rank, 1)
    if not -indices_rank <= batch_dims <= indices_rank:
        raise fail(f"Expected batch_dims in the range [{-indices_rank}, {indices_rank}], but got {batch_dims}")
    if batch_dims < 0:
        batch_dims += indices_rank
    if batch_dims > axis:
        raise fail(f"batch_dims ({batch_dims}) must be less than or equal to axis ({axis}).")
    return axis, batch_dims


def _first_bad_index(indices, bad_mask):
    pos = np.unravel_index(int(np.argmax(bad_mask)), indices.shape)
    return ",".join(str(p) for p in pos), indices[pos]


def _gather_kernel(params, indices, axis, batch_dims):
    axis, bd = _gather_axes(params.ndim, indices.ndim, axis, batch_dims, False)
    n = params.shape[axis]
    out_of_range = (indices < 0) | (indices >= n)
    if out_of_range.any():
        where_, value = _first_bad_index(indices, out_of_range)
        raise bad(f"indices[{where_}] = {value} is not in [0, {n})")
    if bd == 0:
        return np.take(params, indices, axis=axis)
    if params.shape[:bd] != indices.shape[:bd]:
        raise bad(f"params.shape[{bd - 1}]: {params.shape[bd - 1]} should be equal to "
                  f"indices.shape[{bd - 1}]: {indices.shape[bd - 1]}")
    # Flatten the batch dims, gather row-wise with advanced indexing, then restore TF's dim order:
    # batch..., params dims before axis, indices dims after batch, params dims after axis.
    batch = int(np.prod(params.shape[:bd], dtype=np.int64))
    p = np.moveaxis(params.reshape((batch,) + params.shape[bd:]), axis - bd + 1, 1)
    idx = indices.reshape((batch,) + indices.shape[bd:])
    rows = np.arange(batch).reshape((batch,) + (1,) * (idx.ndim - 1))
    g = p[rows, idx]
    k, before = idx.ndim - 1, axis - bd
    perm = ([0] + list(range(1 + k, 1 + k + before)) + list(range(1, 1 + k))
            + list(range(1 + k + before, g.ndim)))
    g = g.transpose(perm)
    return g.reshape(params.shape[:bd] + g.shape[1:])


def _gather_infer(inputs, attrs):
    params, indices = inputs
    p, i = params.shape._dims, indices.shape._dims
    if p is None or i is None:
        return [(params.dtype, _UNKNOWN)]
    axis, bd = _gather_axes(len(p), len(i), attrs["axis"], attrs["batch_dims"], True)
    return [(params.dtype, TensorShape(p[:axis] + i[bd:] + p[axis + 1:]))]


def _gather_grad(op, grad):
    """A dense gradient: the gradient rows summed into the gathered positions (UnsortedSegmentSum).

    `grad` is laid out [batch, outer, gathered, inner] (outer: params dims between the batch dims and
    `axis`); it is moved to [batch, gathered, outer, inner], summed by index into [batch·n, outer, inner]
    (batch b's indices offset by b·n), and moved back to params' layout.
    """
    params, indices = op.inputs
    p_rank, i_rank = params.shape.rank, indices.shape.rank
    if p_rank is None or i_rank is None:
        raise ValueError("The gradient of gather needs params and indices of known rank.")
    axis, bd = _gather_axes(p_rank, i_rank, op.attrs["axis"], op.attrs["batch_dims"], True)
    dims = shape_of(params)
    if axis == 0 and bd == 0:
        return [_sliced_gradient(grad, indices, dims), None]
    gathered = i_rank - bd
    outer = list(range(bd, axis))
    perm = list(range(bd)) + list(range(axis, axis + gathered)) + outer + list(range(axis + gathered, grad.shape.rank))
    moved = transpose(grad, perm) if perm != sorted(perm) else grad
    ids = indices if indices.dtype is not _dt.int16 else _math.cast(indices, _dt.int32)
    n = dims[axis]
    batch = shape_product(dims[:bd])
    if bd:
        step = index_scalar(n, ids.dtype)
        offsets = _math.multiply(_creators.range(index_scalar(batch, ids.dtype)), step)
        ids = _math.add(reshape(ids, joined_shape(dim_part(batch), [-1])), reshape(offsets, [-1, 1]))
    rows = indices.shape.num_elements()
    rest = joined_shape(dims[bd:axis], dims[axis + 1:])
    data = reshape(moved, joined_shape([-1 if rows is None else rows], rest))
    count = batch * n if isinstance(batch, int) and isinstance(n, int) else _math.multiply(
        index_scalar(batch, _dt.int32), index_scalar(n, _dt.int32))
    summed = unsorted_segment_sum(data, reshape(ids, [-1]), count)
    summed = reshape(summed, joined_shape(dims[:bd], dim_part(n), dims[bd:axis], dims[axis + 1:]))
    back = list(range(bd)) + list(range(bd + 1, axis + 1)) + [bd] + list(range(axis + 1, p_rank))
    return [transpose(summed, back) if back != sorted(back) else summed, None]


def _sliced_gradient(grad, indices, dims):
    """The gradient of a gather along axis 0, as TensorFlow gives it: an IndexedSlices of the gradient's
    rows at the flattened indices, dense_shape params' shape (int32; a constant when static)."""
    rows = indices.shape.num_elements()
    values = reshape(grad, joined_shape([-1 if rows is None else rows], dims[1:]))
    flat = reshape(indices, [-1])
    dense_shape = constant(np.array(dims, dtype=np.int32)) if isinstance(dims, list) else dims
    return IndexedSlices(values, flat, dense_shape)


def _densify_slices(slices, dtype=None):
    """An IndexedSlices as a dense tensor: its rows summed into place (UnsortedSegmentSum)."""
    values = slices.values
    if dtype is not None and _dt.as_dtype(dtype) is not values.dtype:
        raise ValueError(f"Tensor conversion requested dtype {_dt.as_dtype(dtype).name} for IndexedSlices with "
                         f"dtype {values.dtype.name}")
    if slices.dense_shape is None:
        raise ValueError(f"Tensor conversion requested for IndexedSlices without dense_shape: {slices!s}")
    known = slices.shape
    count = known[0] if known.rank is not None and known[0] is not None else slices.dense_shape[0]
    dense = unsorted_segment_sum(values, slices.indices, count)
    if known.rank is None or not known.is_fully_defined():
        dense = reshape(dense, slices.dense_shape)
    return dense


set_densifier(_densify_slices)
GATHER = OpDef("GatherV2", _gather_infer, _gather_kernel, grad=_gather_grad, input_names=("params", "indices"))


def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    """`tf.gather`: slices of `params` along `axis` at `indices` (per batch with `batch_dims`)."""
    params = convert_to_tensor(params)
    indices = convert_to_tensor(indices)
    _check_gather_indices(indices, "GatherV2")
    batch_dims = static_int(batch_dims, "batch_dims")
    axis = batch_dims if axis is None else static_int(axis, "axis", "Taxis", "GatherV2")
    return apply(GATHER, (params, indices), {"axis": axis, "batch_dims": batch_dims}, name or "GatherV2")


# ---------------------------------------------------------------------------------------------------
# gather_nd
# ---------------------------------------------------------------------------------------------------

def _gather_nd_check(p_rank, i_dims, batch_dims, static):
    def fail(msg):
        return ValueError(msg) if static else bad(msg)
    if len(i_dims) == 0:
        raise fail("indices must be at least a vector")
    k = i_dims[-1]
    if k is not None and k > p_rank - batch_dims:
        raise fail(f"index innermost dimension length must be <= params rank; saw: {k} vs. {p_rank - batch_dims}")
    return k


def _gather_nd_kernel(params, indices, batch_dims=0):
    k = _gather_nd_check(params.ndim, indices.shape, batch_dims, False)
    bd = batch_dims
    batch = int(np.prod(params.shape[:bd], dtype=np.int64))
    p = params.reshape((batch,) + params.shape[bd:])
    m = int(np.prod(indices.shape[bd:-1], dtype=np.int64))
    idx = indices.reshape((batch, m, k))
    limits = np.array(p.shape[1:1 + k], dtype=np.int64)
    out_of_range = ((idx < 0) | (idx >= limits)).any(axis=-1)
    if out_of_range.any():
        row = int(np.argmax(out_of_range.reshape(-1)))
        where_ = np.unravel_index(row, indices.shape[:-1]) if indices.ndim > 1 else ()
        shown = ", ".join(str(v) for v in idx.reshape(-1, k)[row])
        raise bad(f"indices[{','.join(str(w) for w in where_)}] = [{shown}] does not index into param shape "
                  f"{fmt_shape(params.shape)}, node name: GatherNd")
    rows = np.broadcast_to(np.arange(batch)[:, None], (batch, m))
    gathered = p[(rows,) + tuple(idx[..., j] for j in range(k))]  # [batch, m, rest...]
    return gathered.reshape(indices.shape[:-1] + params.shape[bd + k:])


def _gather_nd_infer(inputs, attrs):
    params, indices = inputs
    p, i = params.shape._dims, indices.shape._dims
    bd = attrs.get("batch_dims", 0)
    if p is None or i is None:
        return [(params.dtype, _UNKNOWN)]
    k = _gather_nd_check(len(p), i, bd, True)
    if k is None:
        return [(params.dtype, _UNKNOWN)]
    return [(params.dtype, TensorShape(i[:-1] + p[bd + k:]))]


def _gather_nd_grad(op, grad):
    """ScatterNd of the gradient into params' shape; batch dims become a leading index coordinate."""
    params, indices = op.inputs
    bd = op.attrs.get("batch_dims", 0)
    dims = shape_of(params)
    if bd == 0:
        return [scatter_nd(indices, grad, dims if isinstance(dims, list) else _math.cast(dims, indices.dtype)), None]
    k = indices.shape[-1] if indices.shape.rank is not None else None
    if k is None:
        raise ValueError("The gradient of gather_nd with batch_dims needs indices with a known last dimension.")
    batch = shape_product(dims[:bd])
    flat = reshape(indices, joined_shape(dim_part(batch), [-1, k]))  # [batch, per_batch, k]
    per_batch = shape_of(flat)[1]
    # Each row's batch number as an extra leading index coordinate: [batch, per_batch, 1].
    zeros = _creators.fill(joined_shape(dim_part(batch), dim_part(per_batch), [1]), index_scalar(0, indices.dtype))
    coords = _math.add(zeros, reshape(_creators.range(index_scalar(batch, indices.dtype)), [-1, 1, 1]))
    full = concat([coords, flat], -1)
    updates = reshape(grad, joined_shape(dim_part(batch), dim_part(per_batch), dims[bd + k:]))
    target = joined_shape(dim_part(batch), dims[bd:])
    if not isinstance(target, list):
        target = _math.cast(target, indices.dtype)
    return [reshape(scatter_nd(full, updates, target), dims), None]


GATHER_ND = OpDef("GatherNd", _gather_nd_infer, _gather_nd_kernel, grad=_gather_nd_grad,
                  input_names=("params", "indices"))


def gather_nd(params, indices, batch_dims=0, name=None):
    """`tf.gather_nd`: the slices of `params` addressed by the innermost dimension of `indices`."""
    params = convert_to_tensor(params)
    indices = convert_to_tensor(indices)
    _check_gather_indices(indices, "GatherNd")
    batch_dims = static_int(batch_dims, "batch_dims")
    attrs = {"batch_dims": batch_dims} if batch_dims else None
    return apply(GATHER_ND, (params, indices), attrs, name or "GatherNd")


API = {"": ["gather", "gather_nd"]}
