"""Restructuring SparseTensors: `tf.sparse.concat`, `slice`, `split`, `retain`, `transpose`, `expand_dims`,
and the counting/crossing ops that build SparseTensors from rows of features: `bincount`, `cross`.
"""
import numpy as np

from ...framework.indexed_slices import IndexedSlices
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..array import gather as _gather
from ..array import join as _join
from ..array import reorder as _reorder
from ..array import where as _where
from ..convert import convert_to_tensor
from ..math import arith as _arith
from ..math import logic as _logic
from ..math import reduce as _reduce
from .. import fingerprints as _fingerprints
from ..registry import OpDef, apply, constant_value
from ..shapes import creators as _creators
from ..shapes import shaping as _shaping
from ..shapes.common import bad, value_dims
from .conversion import reorder, row_major_order
from .sparse_tensor import SparseTensor, as_sparse, is_sparse, rank_of, sparse_from_outputs, sparse_infer

__all__ = ["concat", "slice", "split", "retain", "transpose", "expand_dims", "bincount", "cross", "cross_hashed",
           "mask"]

API = {"sparse": ["concat", "slice", "split", "retain", "transpose", "expand_dims", "bincount", "cross",
                  "cross_hashed", "mask"]}


# -- SparseConcat ------------------------------------------------------------------------------------------

def _concat_kernel(*arrays, concat_dim, expand):
    n = len(arrays) // 3
    indices, values, shapes = arrays[:n], arrays[n:2 * n], arrays[2 * n:]
    rank = len(shapes[0])
    for i, s in enumerate(shapes):
        if len(s) != rank:
            raise bad(f"Ranks of all input tensors must match: expected {rank} but got {len(s)} at position {i}")
    axis = concat_dim % rank
    out_shape = np.array(shapes[0], np.int64)
    if expand:
        out_shape = np.max(np.stack(shapes), axis=0)
    else:
        for i, s in enumerate(shapes[1:], 1):
            other = [d for d in range(rank) if d != axis]
            if (np.asarray(s)[other] != out_shape[other]).any():
                raise bad(f"Input shapes must match: expected {_fmt(shapes[0])} for non-concat dimensions but got "
                          f"{_fmt(s)} at position {i}")
    offset, parts = 0, []
    for ind, s in zip(indices, shapes):
        shifted = ind.copy()
        shifted[:, axis] += offset
        parts.append(shifted)
        offset += int(s[axis])
    out_shape[axis] = offset
    all_indices = np.concatenate(parts) if parts else np.zeros((0, rank), np.int64)
    all_values = np.concatenate(values)
    order = row_major_order(all_indices, out_shape)
    return all_indices[order], all_values[order], out_shape


def _fmt(v):
    return "[" + ",".join(str(int(x)) for x in v) + "]"


def _concat_infer(inputs, attrs):
    n = len(inputs) // 3
    rank = inputs[0].shape[1] if inputs[0].shape.rank == 2 else None
    return [(_dt.int64, TensorShape([None, rank])), (inputs[n].dtype, TensorShape([None])),
            (_dt.int64, TensorShape([rank]))]


SPARSE_CONCAT = OpDef("SparseConcat", _concat_infer, _concat_kernel, multi=True, input_names=("indices",))


def concat(axis, sp_inputs, expand_nonconcat_dims=False, name=None):
    """`tf.sparse.concat`: joins SparseTensors along `axis` (other dimensions must match, or with
    `expand_nonconcat_dims` take their largest size); the result is in canonical order."""
    inputs = [as_sparse(s, "sp_inputs") for s in sp_inputs]
    if not inputs:
        raise ValueError("sp_inputs must be a non-empty list of SparseTensors")
    dtypes = {s.dtype for s in inputs}
    if len(dtypes) > 1:
        raise TypeError(f"Input SparseTensors must all have the same dtype; got {sorted(d.name for d in dtypes)}")
    if not isinstance(axis, (int, np.integer)):
        axis = int(constant_value(convert_to_tensor(axis)))
    flat = tuple(s.indices for s in inputs) + tuple(s.values for s in inputs) + tuple(s.dense_shape for s in inputs)
    outs = apply(SPARSE_CONCAT, flat, {"concat_dim": int(axis), "expand": bool(expand_nonconcat_dims)},
                 name or "SparseConcat")
    static = None
    if all(s.shape.is_fully_defined() for s in inputs):
        dims = [s.shape.as_list() for s in inputs]
        a = int(axis) % len(dims[0])
        static = list(np.max(dims, axis=0)) if expand_nonconcat_dims else list(dims[0])
        static[a] = sum(d[a] for d in dims)
        static = TensorShape([int(d) for d in static])
    return sparse_from_outputs(outs, static)


# -- SparseSlice -------------------------------------------------------------------------------------------

def _slice_kernel(indices, values, shape, start, size):
    start = start.astype(np.int64).reshape(-1)
    size = size.astype(np.int64).reshape(-1)
    if len(start) != len(shape) or len(size) != len(shape):
        raise bad(f"Expected start and size to have {len(shape)} elements, got {len(start)} and {len(size)}")
    end = np.minimum(start + size, shape)
    keep = ((indices >= start) & (indices < end)).all(axis=1) if indices.shape[0] else np.zeros(0, bool)
    out_shape = np.maximum(np.minimum(start + size, shape) - start, 0)
    return (indices[keep] - start).astype(np.int64), values[keep], out_shape.astype(np.int64)


def _slice_grad(op, g_indices, g_values, g_shape):
    indices, values, _, start, _ = op.inputs
    grad = apply(SPARSE_SLICE_GRAD, (g_values, indices, start, op.outputs[0]), None, "SparseSliceGrad")
    return [None, grad, None, None, None]


SPARSE_SLICE = OpDef("SparseSlice", sparse_infer(1, 0), _slice_kernel, grad=_slice_grad, multi=True,
                     input_names=("indices", "values", "shape", "start", "size"))


def _slice_grad_kernel(backprop, input_indices, input_start, output_indices):
    lookup = {tuple(r): k for k, r in enumerate((output_indices + input_start.astype(np.int64)).tolist())}
    out = np.zeros(len(input_indices), backprop.dtype)
    for i, r in enumerate(input_indices.tolist()):
        k = lookup.get(tuple(r))
        if k is not None:
            out[i] = backprop[k]
    return out


SPARSE_SLICE_GRAD = OpDef("SparseSliceGrad", lambda inputs, attrs: [(inputs[0].dtype, TensorShape([inputs[1].shape[0]]))],
                          _slice_grad_kernel,
                          input_names=("backprop_val_grad", "input_indices", "input_start", "output_indices"))


def slice(sp_input, start, size, name=None):  # noqa: A001 - TensorFlow's name
    """`tf.sparse.slice`: the entries in the box `[start, start + size)`, re-indexed from `start`."""
    sp = as_sparse(sp_input)
    start = convert_to_tensor(start, dtype=_dt.int64)
    size = convert_to_tensor(size, dtype=_dt.int64)
    outs = apply(SPARSE_SLICE, (sp.indices, sp.values, sp.dense_shape, start, size), None, name or "SparseSlice")
    return sparse_from_outputs(outs)


def split(sp_input=None, num_split=None, axis=None, name=None):
    """`tf.sparse.split`: `num_split` SparseTensors along `axis` (the first `size % num_split` one larger)."""
    if sp_input is None or num_split is None or axis is None:
        raise ValueError("sp_input, num_split and axis are required (as keyword arguments)")
    sp = as_sparse(sp_input)
    rank = rank_of(sp)
    dims = value_dims(sp.dense_shape)
    if dims is None:
        raise ValueError("tf.sparse.split needs a SparseTensor whose dense_shape is known")
    axis = int(axis) % rank
    size = dims[axis]
    if num_split < 1:
        raise ValueError(f"num_split must be at least 1, got {num_split}")
    base, extra = divmod(size, num_split)
    pieces, offset = [], 0
    for i in range(num_split):
        length = base + (1 if i < extra else 0)
        start = [0] * rank
        start[axis] = offset
        box = list(dims)
        box[axis] = length
        pieces.append(slice(sp, start, box))
        offset += length
    return pieces


def retain(sp_input, to_retain):
    """`tf.sparse.retain`: the entries whose flag in the bool vector `to_retain` is true."""
    sp = as_sparse(sp_input)
    to_retain = convert_to_tensor(to_retain, dtype=_dt.bool)
    if to_retain.shape.rank != 1:
        raise ValueError(f"Shape {to_retain.shape} must have rank 1")
    kept = _shaping.reshape(_where.where(to_retain), [-1])
    return SparseTensor._from_parts(_gather.gather(sp.indices, kept), _gather.gather(sp.values, kept),
                                    sp.dense_shape, sp.shape)


def transpose(sp_input, perm=None, name=None):
    """`tf.sparse.transpose`: dimensions permuted by `perm` (reversed by default); canonical order."""
    sp = as_sparse(sp_input)
    rank = rank_of(sp)
    perm = list(range(rank))[::-1] if perm is None else [int(p) for p in np.reshape(np.asarray(
        constant_value(convert_to_tensor(perm))), -1)]
    indices = _gather.gather(sp.indices, perm, axis=1)
    shape = _gather.gather(sp.dense_shape, perm)
    static = TensorShape([sp.shape[p] for p in perm]) if sp.shape.rank is not None else None
    return reorder(SparseTensor._from_parts(indices, sp.values, shape, static))


def expand_dims(sp_input, axis=None, name=None):
    """`tf.sparse.expand_dims`: a dimension of size 1 inserted at `axis` (-1: at the end)."""
    sp = as_sparse(sp_input)
    rank = rank_of(sp)
    axis = -1 if axis is None else int(axis)
    if not -rank - 1 <= axis <= rank:
        raise ValueError(f"axis {axis} is out of range for a SparseTensor of rank {rank}")
    where = axis % (rank + 1)
    zeros = _creators.zeros_like(sp.indices[:, :1])
    indices = _join.concat([sp.indices[:, :where], zeros, sp.indices[:, where:]], axis=1)
    one = _creators.ones_like(sp.dense_shape[:1])
    shape = _join.concat([sp.dense_shape[:where], one, sp.dense_shape[where:]], axis=0)
    static = None
    if sp.shape.rank is not None:
        dims = sp.shape.as_list()
        static = TensorShape(dims[:where] + [1] + dims[where:])
    return SparseTensor._from_parts(indices, sp.values, shape, static)


# -- SparseBincount / DenseBincount-to-sparse ---------------------------------------------------------------------

def _bincount_kernel(indices, values, dense_shape, weights, size, binary_output, per_row, has_weights):
    if values.size and values.min() < 0:
        raise bad(f"Input arr must be non-negative!")
    if per_row:
        rows = indices[:, 0] if indices.shape[1] else np.zeros(len(values), np.int64)
        batch = int(dense_shape[0]) if len(dense_shape) > 1 else 1
        keys = np.stack([rows, values.astype(np.int64)], axis=1)
        out_shape = [batch, size]
    else:
        keys = values.astype(np.int64).reshape(-1, 1)
        out_shape = [size]
    inside = keys[:, -1] < size
    keys = keys[inside]
    w = weights[inside] if has_weights else np.ones(len(keys), np.int64 if not has_weights else weights.dtype)
    if keys.shape[0] == 0:
        dtype = weights.dtype if has_weights else values.dtype
        return np.zeros((0, len(out_shape)), np.int64), np.zeros(0, dtype), np.asarray(out_shape, np.int64)
    unique, inverse = np.unique(keys, axis=0, return_inverse=True)
    counts = np.zeros(len(unique), w.dtype)
    np.add.at(counts, inverse.reshape(-1), w)
    if binary_output:
        counts = np.ones_like(counts)
    dtype = weights.dtype if has_weights else values.dtype
    return unique.astype(np.int64), counts.astype(dtype), np.asarray(out_shape, np.int64)


def _bincount_infer(inputs, attrs):
    rank = 2 if attrs["per_row"] else 1
    dtype = inputs[3].dtype if attrs["has_weights"] else inputs[1].dtype
    return [(_dt.int64, TensorShape([None, rank])), (dtype, TensorShape([None])), (_dt.int64, TensorShape([rank]))]


SPARSE_BINCOUNT = OpDef("SparseBincount", _bincount_infer, _bincount_kernel, multi=True,
                        input_names=("indices", "values", "dense_shape", "weights", "size"))


def bincount(values, weights=None, axis=0, minlength=None, maxlength=None, binary_output=False, name=None):
    """`tf.sparse.bincount`: the counts of each value (per row with `axis=-1`) as a SparseTensor; with
    `weights`, their sums; with `binary_output`, 1 for every value present."""
    sp = values if is_sparse(values) else None
    if sp is None:
        dense = convert_to_tensor(values)
        sp = SparseTensor._from_parts(_where.where(_creators.ones_like(dense, dtype=_dt.bool)),
                                      _shaping.reshape(dense, [-1]),
                                      _arith.cast(_shape_of(dense), _dt.int64), dense.shape)
        if weights is not None:
            weights = _shaping.reshape(convert_to_tensor(weights), [-1])
    elif weights is not None:
        weights = weights.values if is_sparse(weights) else convert_to_tensor(weights)
    rank = rank_of(sp)
    if axis not in (0, -1):
        raise ValueError(f"Unsupported axis value {axis}. Only 0 and -1 are currently supported.")
    per_row = axis == -1 and rank is not None and rank > 1
    if per_row and rank != 2:
        raise ValueError(f"bincount with axis=-1 requires a rank-2 input, got rank {rank}")
    flat = sp.values
    biggest = constant_value(flat)
    if biggest is not None:
        size = int(np.max(biggest)) + 1 if np.size(biggest) else 0
    else:
        size = None
    if minlength is not None:
        size = max(size or 0, int(minlength))
    if maxlength is not None:
        size = min(size, int(maxlength)) if size is not None else int(maxlength)
    if size is None:
        raise ValueError("tf.sparse.bincount inside tf.function needs minlength or maxlength")
    has_weights = weights is not None
    w = weights if has_weights else _creators.zeros_like(flat[:0], dtype=_dt.int64)
    outs = apply(SPARSE_BINCOUNT, (sp.indices, flat, sp.dense_shape, w, convert_to_tensor(size, dtype=_dt.int64)),
                 {"binary_output": bool(binary_output), "per_row": per_row, "has_weights": has_weights},
                 name or "SparseBincount")
    return sparse_from_outputs(outs)


def _shape_of(t):
    from ..shapes import shape_ops as _shape_ops
    return _shape_ops.shape(t, out_type=_dt.int64)


# -- SparseCrossV2 ------------------------------------------------------------------------------------------------

_M64 = (1 << 64) - 1
_CAT_MUL = 0xC6A4A7935BD1E995


def _shift_mix(v):
    return v ^ (v >> 47)


def _fingerprint_cat(fp1, fp2):
    """TensorFlow's FingerprintCat64: two 64-bit fingerprints combined (order matters)."""
    result = fp1 ^ _CAT_MUL
    result ^= (_shift_mix((fp2 * _CAT_MUL) & _M64) * _CAT_MUL) & _M64
    result = (result * _CAT_MUL) & _M64
    result = (_shift_mix(result) * _CAT_MUL) & _M64
    return _shift_mix(result)


def _feature_hash(v):
    """A feature's 64-bit hash: Fingerprint64 of a string, the integer itself (two's complement) otherwise."""
    if isinstance(v, (bytes, str)):
        return _fingerprints.fingerprint64(v if isinstance(v, bytes) else v.encode())
    return int(v) & _M64


def _cross_kernel(*arrays, kinds, separator, hashed=False, num_buckets=0, hash_key=0):
    """`arrays` holds, per input, (indices, values, shape) for a sparse one or (dense,) for a dense one."""
    features, batch, cursor = [], None, 0
    for kind in kinds:
        if kind == "sparse":
            ind, val, shape = arrays[cursor:cursor + 3]
            cursor += 3
            rows = int(shape[0])
            per_row = [[] for _ in range(rows)]
            for r, v in zip(ind[:, 0].tolist(), val.tolist()):
                per_row[r].append(v)
        else:
            dense = arrays[cursor]
            cursor += 1
            rows = dense.shape[0]
            per_row = [list(dense[r].reshape(-1)) for r in range(rows)]
        batch = rows if batch is None else batch
        if rows != batch:
            raise bad(f"Expected batch size {batch} got {rows}")
        features.append(per_row)
    out_indices, out_values, width = [], [], 0
    for r in range(batch or 0):
        combos = None
        for f in features:
            if hashed:
                items = [_feature_hash(v) for v in f[r]]
                combos = [_fingerprint_cat(hash_key, i) for i in items] if combos is None else \
                    [_fingerprint_cat(c, i) for c in combos for i in items]
            else:
                items = [_as_bytes(v) for v in f[r]]
                combos = items if combos is None else [c + separator + i for c in combos for i in items]
        combos = combos or []
        if hashed:
            modulus = num_buckets if num_buckets > 0 else (1 << 63) - 1
            combos = [c % modulus for c in combos]
        for k, c in enumerate(combos):
            out_indices.append((r, k))
            out_values.append(c)
        width = max(width, len(combos))
    indices = np.asarray(out_indices, np.int64).reshape(-1, 2)
    if hashed:
        return indices, np.asarray(out_values, np.int64), np.asarray([batch or 0, width], np.int64)
    values = np.empty(len(out_values), object)
    values[:] = out_values
    return indices, values, np.asarray([batch or 0, width], np.int64)


def _as_bytes(v):
    if isinstance(v, bytes):
        return v
    if isinstance(v, str):
        return v.encode()
    return str(int(v)).encode()


def _cross_infer(inputs, attrs):
    values = _dt.int64 if attrs.get("hashed") else _dt.string
    return [(_dt.int64, TensorShape([None, 2])), (values, TensorShape([None])), (_dt.int64, TensorShape([2]))]


SPARSE_CROSS = OpDef("SparseCrossV2", _cross_infer, _cross_kernel, multi=True, input_names=("indices",))
SPARSE_CROSS_HASHED = OpDef("SparseCrossHashed", _cross_infer, _cross_kernel, multi=True, input_names=("indices",))


def _cross_inputs(inputs):
    if not isinstance(inputs, (list, tuple)):
        raise TypeError("Inputs must be a list")
    flat, kinds = [], []
    for x in inputs:
        if is_sparse(x):
            flat.extend([x.indices, x.values, x.dense_shape])
            kinds.append("sparse")
        else:
            flat.append(convert_to_tensor(x))
            kinds.append("dense")
    return tuple(flat), tuple(kinds)


def cross_hashed(inputs, num_buckets=0, hash_key=None, name=None):
    """`tf.sparse.cross_hashed`: like `cross`, each combination's features hashed (FarmHash Fingerprint64,
    combined with TensorFlow's FingerprintCat64 from `hash_key`) into `num_buckets` buckets (0: no limit)."""
    flat, kinds = _cross_inputs(inputs)
    attrs = {"kinds": kinds, "separator": b"", "hashed": True, "num_buckets": int(num_buckets),
             "hash_key": _DEFAULT_HASH_KEY if hash_key is None else int(hash_key)}
    return sparse_from_outputs(apply(SPARSE_CROSS_HASHED, flat, attrs, name or "SparseCrossHashed"))


_DEFAULT_HASH_KEY = 0xDECAFCAFFE


def cross(inputs, name=None, separator=None):
    """`tf.sparse.cross`: per row, every combination of one feature from each input, joined by `separator`
    (`"_X_"`); inputs are rank-2 SparseTensors or dense tensors of strings or integers."""
    flat, kinds = _cross_inputs(inputs)
    sep = "_X_" if separator is None else separator
    outs = apply(SPARSE_CROSS, flat, {"kinds": kinds, "separator": sep.encode()}, name or "SparseCrossV2")
    return sparse_from_outputs(outs)


def mask(a, mask_indices, name=None):
    """`tf.sparse.mask`: the slices of the IndexedSlices `a` whose index is not in `mask_indices`."""
    mask_indices = convert_to_tensor(mask_indices)
    keep = _logic.logical_not(_reduce.reduce_any(_logic.equal(_shaping.expand_dims(a.indices, 1),
                                                              _shaping.expand_dims(mask_indices, 0)), axis=1))
    kept = _shaping.reshape(_where.where(keep), [-1])
    return IndexedSlices(_gather.gather(a.values, kept), _gather.gather(a.indices, kept), a.dense_shape)
