"""Between dense and sparse, and re-laying a SparseTensor out: `tf.sparse.from_dense`, `to_dense`,
`reorder`, `reshape`, `reset_shape`, `eye`, `to_indicator`, `fill_empty_rows`.

Most sparse kernels assume TensorFlow's canonical order: indices sorted row-major (lexicographically),
no repeats. `to_dense` checks it, as SparseToDense does; `reorder` establishes it.
"""
import numpy as np

from ...framework import errors
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..array import gather as _gather
from ..array import join as _join
from ..array import scatter as _scatter
from ..array import where as _where
from ..convert import convert_to_tensor
from ..math.logic import not_equal
from ..math import arith as _arith
from ..math import reduce as _reduce
from ..registry import OpDef, apply, constant_value
from ..shapes import creators as _creators
from ..shapes import shape_ops as _shape_ops
from ..shapes import shaping as _shaping
from ..shapes.common import bad, value_dims
from .sparse_tensor import SparseTensor, as_sparse, rank_of, sparse_from_outputs

__all__ = ["from_dense", "to_dense", "reorder", "reshape", "reset_shape", "eye", "to_indicator", "fill_empty_rows",
           "row_major_order", "check_canonical"]

API = {"sparse": ["from_dense", "to_dense", "reorder", "reshape", "reset_shape", "eye", "to_indicator",
                  "fill_empty_rows"]}


def _fmt_index(row):
    return "[" + ",".join(str(int(v)) for v in row) + "]"


def row_major_order(indices, shape):
    """The permutation that sorts `indices` ([N, rank]) row-major (stable: equal rows keep their order)."""
    if indices.shape[0] == 0 or indices.shape[1] == 0:
        return np.arange(indices.shape[0])
    return np.lexsort(indices.T[::-1])


def check_canonical(indices, shape, i_start=0):
    """TensorFlow's InvalidArgumentError for an index out of bounds, out of order or repeated."""
    if indices.size == 0:
        return
    out = (indices < 0) | (indices >= shape)
    if out.any():
        i = int(np.flatnonzero(out.any(axis=1))[0])
        raise bad(f"indices[{i}] = {_fmt_index(indices[i])} is out of bounds: need 0 <= index < {_fmt_index(shape)}")
    if len(indices) > 1:
        order = row_major_order(indices, shape)
        if (order != np.arange(len(indices))).any() or (indices[1:] == indices[:-1]).all(axis=1).any():
            previous = indices[:-1]
            following = indices[1:]
            diff = following - previous
            for k in range(len(diff)):
                nz = np.flatnonzero(diff[k])
                if nz.size == 0:
                    raise bad(f"indices[{k + 1}] = {_fmt_index(indices[k + 1])} is repeated")
                if diff[k][nz[0]] < 0:
                    raise bad(f"indices[{k + 1}] = {_fmt_index(indices[k + 1])} is out of order. Many sparse ops "
                              f"require sorted indices.\n    Use `tf.sparse.reorder` to create a correctly ordered "
                              f"copy.\n\n")


# -- SparseToDense ------------------------------------------------------------------------------------

def _to_dense_kernel(indices, output_shape, values, default_value, validate_indices=True):
    shape = output_shape.astype(np.int64).reshape(-1)
    if indices.ndim == 1:
        indices = indices.reshape(-1, 1)
    if validate_indices:
        check_canonical(indices, shape)
    out = np.full(tuple(shape), default_value, dtype=values.dtype if values.size or values.ndim else default_value.dtype)
    if indices.shape[0]:
        out[tuple(indices.T)] = values
    return out


def _to_dense_infer(inputs, attrs):
    dims = value_dims(inputs[1])
    if dims is None:
        n = inputs[1].shape[0] if inputs[1].shape.rank == 1 else None
        return [(inputs[2].dtype, TensorShape(None if n is None else [None] * n))]
    return [(inputs[2].dtype, TensorShape([d if d >= 0 else None for d in dims]))]


def _to_dense_grad(op, grad):
    indices, _, values, _ = op.inputs
    values_grad = _gather.gather_nd(grad, indices)
    default_grad = _reduce.reduce_sum(grad) - _reduce.reduce_sum(values_grad)
    return [None, None, values_grad, default_grad]


SPARSE_TO_DENSE = OpDef("SparseToDense", _to_dense_infer, _to_dense_kernel, grad=_to_dense_grad,
                        input_names=("sparse_indices", "output_shape", "sparse_values", "default_value"))


def to_dense(sp_input, default_value=None, validate_indices=True, name=None):
    """`tf.sparse.to_dense`: the dense tensor, `default_value` (0) where nothing is stored."""
    sp = as_sparse(sp_input)
    default = convert_to_tensor(0 if default_value is None else default_value, dtype=sp.dtype)
    return apply(SPARSE_TO_DENSE, (sp.indices, sp.dense_shape, sp.values, default),
                 {"validate_indices": bool(validate_indices)}, name or "SparseToDense")


# -- from_dense ----------------------------------------------------------------------------------------

def from_dense(tensor, name=None):
    """`tf.sparse.from_dense`: the non-zero entries of `tensor` (row-major order)."""
    tensor = convert_to_tensor(tensor)
    zero = _creators.zeros_like(tensor) if tensor.dtype is not _dt.string else convert_to_tensor("")
    indices = _where.where(not_equal(tensor, zero))
    values = _gather.gather_nd(tensor, indices)
    dense_shape = _shape_ops.shape(tensor, out_type=_dt.int64)
    return SparseTensor._from_parts(indices, values, dense_shape, tensor.shape)


# -- SparseReorder ---------------------------------------------------------------------------------------

def _reorder_kernel(indices, values, shape):
    order = row_major_order(indices, shape)
    return indices[order], values[order]


def _reorder_infer(inputs, attrs):
    return [(_dt.int64, inputs[0].shape), (inputs[1].dtype, inputs[1].shape)]


def _reorder_grad(op, grad_indices, grad_values):
    indices, values, shape = op.inputs
    n = _shape_ops.shape(values, out_type=_dt.int64)
    positions = _creators.range(_arith.cast(n[0], _dt.int64))
    permutation = apply(SPARSE_REORDER, (indices, positions, shape), None, "SparseReorder")[1]
    # reordered[k] = values[permutation[k]]: scatter the gradient back to where each value came from
    return [None, _scatter.scatter_nd(_reshape_col(permutation), grad_values, n), None]


def _reshape_col(t):
    return _shaping.reshape(t, [-1, 1])


SPARSE_REORDER = OpDef("SparseReorder", _reorder_infer, _reorder_kernel, grad=_reorder_grad, multi=True,
                       input_names=("input_indices", "input_values", "input_shape"))


def reorder(sp_input, name=None):
    """`tf.sparse.reorder`: the same SparseTensor with its indices in row-major order."""
    sp = as_sparse(sp_input)
    indices, values = apply(SPARSE_REORDER, (sp.indices, sp.values, sp.dense_shape), None, name or "SparseReorder")
    return SparseTensor._from_parts(indices, values, sp.dense_shape, sp.shape)


# -- SparseReshape ------------------------------------------------------------------------------------------

def _resolve_shape(old_shape, new_shape):
    dense = int(np.prod(old_shape)) if len(old_shape) else 1
    new = [int(d) for d in new_shape]
    holes = [i for i, d in enumerate(new) if d == -1]
    if len(holes) > 1:
        raise bad(f"only one output dimension may be -1, not both {holes[0]} and {holes[1]}")
    for i, d in enumerate(new):
        if d < -1:
            raise bad(f"size {i} must be non-negative, not {d}")
    known = int(np.prod([d for d in new if d != -1])) if new else 1
    if holes:
        if known == 0 or dense % known:
            raise bad(f"Input to reshape is a SparseTensor with {dense} dense values, but the requested shape "
                      f"requires a multiple of {known}. inputShape={_fmt_index(old_shape)} "
                      f"outputShape={_fmt_index(new)}")
        new[holes[0]] = dense // known
    elif known != dense:
        raise bad(f"Input to reshape is a tensor with {dense} dense values, but the requested shape has {known}. "
                  f"inputShape={_fmt_index(old_shape)} outputShape={_fmt_index(new)}")
    return np.asarray(new, dtype=np.int64)


def _reshape_kernel(indices, shape, new_shape):
    out_shape = _resolve_shape(shape, new_shape)
    if indices.shape[0] == 0:
        return np.zeros((0, len(out_shape)), np.int64), out_shape
    linear = np.ravel_multi_index(tuple(indices.T), tuple(shape)) if len(shape) else np.zeros(len(indices), np.int64)
    if len(out_shape) == 0:
        return np.zeros((len(indices), 0), np.int64), out_shape
    return np.stack(np.unravel_index(linear, tuple(out_shape)), axis=1).astype(np.int64), out_shape


def _reshape_infer(inputs, attrs):
    n = inputs[2].shape[0] if inputs[2].shape.rank == 1 else None
    return [(_dt.int64, TensorShape([inputs[0].shape[0], n])), (_dt.int64, TensorShape([n]))]


SPARSE_RESHAPE = OpDef("SparseReshape", _reshape_infer, _reshape_kernel, multi=True,
                       input_names=("input_indices", "input_shape", "new_shape"))


def reshape(sp_input, shape, name=None):
    """`tf.sparse.reshape`: the same values in a dense shape of as many elements (one dimension may be -1)."""
    sp = as_sparse(sp_input)
    shape = convert_to_tensor(shape, dtype=_dt.int64)
    indices, dense_shape = apply(SPARSE_RESHAPE, (sp.indices, sp.dense_shape, shape), None, name or "SparseReshape")
    static = None
    requested = value_dims(shape)
    if requested is not None and sp.shape.is_fully_defined():
        total = int(np.prod(sp.shape.as_list()))
        known = int(np.prod([d for d in requested if d != -1])) if requested else 1
        if -1 in requested and known and total % known == 0:
            requested = tuple(total // known if d == -1 else d for d in requested)
        if -1 not in requested and int(np.prod(requested)) != total:
            raise ValueError(f"Cannot reshape a tensor with {total} elements to shape {list(requested)} "
                             f"({int(np.prod(requested))} elements)")
        static = TensorShape(list(requested)) if -1 not in requested else None
    return SparseTensor._from_parts(indices, sp.values, dense_shape, static)


def reset_shape(sp_input, new_shape=None):
    """`tf.sparse.reset_shape`: the same entries with a new (not smaller) dense shape, or the tightest one."""
    sp = as_sparse(sp_input)
    if new_shape is None:
        tight = _reduce.reduce_max(sp.indices, axis=0) + 1
        return SparseTensor._from_parts(sp.indices, sp.values, tight, None)
    new_shape = convert_to_tensor(new_shape, dtype=_dt.int64)
    new, old = constant_value(new_shape), constant_value(sp.dense_shape)
    if new is not None and old is not None:
        new, old = np.asarray(new).reshape(-1), np.asarray(old).reshape(-1)
        if new.shape != old.shape:
            raise ValueError(f"Shapes {TensorShape(list(old))} and {TensorShape(list(new))} must have the same rank")
        if (new < old).any():
            raise errors.InvalidArgumentError(None, None, "Condition x <= y did not hold element-wise: the new shape "
                                              "must not be smaller than the old one.")
    return SparseTensor._from_parts(sp.indices, sp.values, new_shape, None)


def eye(num_rows, num_columns=None, dtype=_dt.float32, name=None):
    """`tf.sparse.eye`: the identity matrix (ones on the main diagonal) as a SparseTensor."""
    num_rows = convert_to_tensor(num_rows, dtype=_dt.int64)
    num_columns = num_rows if num_columns is None else convert_to_tensor(num_columns, dtype=_dt.int64)
    diag = _reduce.reduce_min(_join.stack([num_rows, num_columns]))
    positions = _creators.range(diag, dtype=_dt.int64)
    indices = _join.stack([positions, positions], axis=1)
    values = _creators.ones_like(positions, dtype=_dt.as_dtype(dtype))
    return SparseTensor._from_parts(indices, values, _join.stack([num_rows, num_columns]), None)


def to_indicator(sp_input, vocab_size, name=None):
    """`tf.sparse.to_indicator`: a bool tensor whose last dimension (`vocab_size`) marks each row's values."""
    sp = as_sparse(sp_input)
    if sp.dtype not in (_dt.int32, _dt.int64):
        raise TypeError(f"sp_input.values must be int32 or int64; found {sp.dtype!r}")
    vocab = convert_to_tensor(vocab_size, dtype=_dt.int64)
    rank = rank_of(sp)
    leading = sp.indices[:, :rank - 1] if rank is not None else sp.indices[:, :-1]
    new_indices = _join.concat([leading, _reshape_col(_arith.cast(sp.values, _dt.int64))], axis=1)
    new_shape = _join.concat([sp.dense_shape[:-1], _reshape_vec(vocab)], axis=0)
    ordered = reorder(SparseTensor._from_parts(new_indices, _creators.ones_like(sp.values, dtype=_dt.bool),
                                               new_shape, None))
    return to_dense(ordered, default_value=False, validate_indices=False)


def _reshape_vec(t):
    return _shaping.reshape(t, [1])


# -- SparseFillEmptyRows ---------------------------------------------------------------------------------------

def _fill_kernel(indices, values, dense_shape, default_value):
    rows = int(dense_shape[0]) if dense_shape.size else 0
    present = np.zeros(rows, dtype=bool)
    if indices.shape[0]:
        if (indices[:, 0] < 0).any() or (indices[:, 0] >= rows).any():
            i = int(np.flatnonzero((indices[:, 0] < 0) | (indices[:, 0] >= rows))[0])
            raise bad(f"indices({i}, 0) is invalid: {int(indices[i, 0])} >= {rows}")
        present[indices[:, 0]] = True
    empty = ~present
    empty_rows = np.flatnonzero(empty)
    added = np.zeros((empty_rows.size, indices.shape[1]), dtype=np.int64)
    added[:, 0] = empty_rows
    all_indices = np.concatenate([indices, added])
    all_values = np.concatenate([values, np.full(empty_rows.size, default_value, dtype=values.dtype)])
    order = np.argsort(all_indices[:, 0], kind="stable")
    reverse = np.empty(indices.shape[0], dtype=np.int64)
    position = np.empty(len(order), dtype=np.int64)
    position[order] = np.arange(len(order))
    reverse[:] = position[:indices.shape[0]]
    return all_indices[order], all_values[order], empty, reverse


def _fill_infer(inputs, attrs):
    rank = inputs[0].shape[1] if inputs[0].shape.rank == 2 else None
    return [(_dt.int64, TensorShape([None, rank])), (inputs[1].dtype, TensorShape([None])),
            (_dt.bool, TensorShape([None])), (_dt.int64, TensorShape([inputs[0].shape[0] if inputs[0].shape.rank else None]))]


def _fill_grad(op, g_indices, g_values, g_empty, g_reverse):
    reverse = op.outputs[3]
    values_grad = _gather.gather(g_values, reverse)
    return [None, values_grad, None, _reduce.reduce_sum(g_values) - _reduce.reduce_sum(values_grad)]


SPARSE_FILL_EMPTY_ROWS = OpDef("SparseFillEmptyRows", _fill_infer, _fill_kernel, grad=_fill_grad, multi=True,
                               input_names=("indices", "values", "dense_shape", "default_value"))


def fill_empty_rows(sp_input, default_value, name=None):
    """`tf.sparse.fill_empty_rows`: adds `default_value` at `[row, 0, ...]` of every row holding nothing;
    returns the new SparseTensor and the bool vector of the rows that were empty."""
    sp = as_sparse(sp_input)
    default = convert_to_tensor(default_value, dtype=sp.dtype)
    indices, values, empty, _ = apply(SPARSE_FILL_EMPTY_ROWS, (sp.indices, sp.values, sp.dense_shape, default),
                                      None, name or "SparseFillEmptyRows")
    return sparse_from_outputs((indices, values, sp.dense_shape), sp.shape), empty
