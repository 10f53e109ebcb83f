"""Arithmetic on SparseTensors: `tf.sparse.add`, `maximum`, `minimum`, `sparse_dense_matmul`,
`reduce_sum`, `reduce_max`, `softmax`, `map_values`, `sampled_addmm`, the `segment_*` reductions, and a
SparseTensor times or divided by a dense tensor (`sp * dense`).

Gradients reach the values (and dense operands) where TensorFlow defines them: SparseAdd (through
SparseAddGrad), SparseTensorDenseMatMul, SparseTensorDenseAdd, SparseReduceSum (TensorFlow's gradient) and
the reductions composed of differentiable ops. SparseSparseMaximum/Minimum, SparseReduceMax and SparseSoftmax have none in TensorFlow
either (softmax's is TensorFlow's too; here it is composed of segment ops, so it has one).
"""
import numpy as np

from ...framework import errors
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..array import gather as _gather
from ..array import join as _join
from ..array import segment as _segments
from ..convert import convert_to_tensor
from ..math.logic import equal, not_equal
from ..linalg import matrix as _matrix
from ..math import arith as _arith
from ..math import reduce as _reduce
from ..registry import OpDef, apply, dtype_error_name
from ..shapes import creators as _creators
from ..shapes import shape_ops as _shape_ops
from ..shapes import shaping as _shaping
from ..shapes.common import bad
from .conversion import row_major_order
from .sparse_tensor import SparseTensor, as_sparse, is_sparse, rank_of, sparse_from_outputs, sparse_infer

__all__ = ["add", "maximum", "minimum", "sparse_dense_matmul", "reduce_sum", "reduce_max", "softmax", "map_values",
           "sampled_addmm", "segment_sum", "segment_mean", "segment_sqrt_n", "dense_cwise"]

API = {"sparse": ["add", "maximum", "minimum", "sparse_dense_matmul", "reduce_sum", "reduce_max", "softmax",
                  "map_values", "sampled_addmm", "segment_sum", "segment_mean", "segment_sqrt_n"]}


def _same_dtype(op_name, tensors, first=1):
    """TensorFlow's error when the values of two sparse operands differ in dtype (input numbers as in the op)."""
    want = tensors[first].dtype
    for i, t in enumerate(tensors):
        if i != first and t is not None and t.dtype is not want and t.dtype not in (_dt.int64,):
            raise errors.eager_error(
                errors.InvalidArgumentError,
                f"cannot compute {op_name} as input #{i}(zero-based) was expected to be a {dtype_error_name(want)} "
                f"tensor but is a {dtype_error_name(t.dtype)} tensor", op_name)


def _merge(a_indices, b_indices):
    """The union of two canonically ordered index sets: (sum indices, where each a row went, where each b
    row went), the sum in row-major order."""
    both = np.concatenate([a_indices, b_indices])
    if both.shape[0] == 0:
        return both, np.zeros(0, np.int64), np.zeros(0, np.int64)
    order = row_major_order(both, None)
    ordered = both[order]
    new = np.ones(len(ordered), dtype=bool)
    if len(ordered) > 1:
        new[1:] = (ordered[1:] != ordered[:-1]).any(axis=1)
    slot = np.cumsum(new) - 1
    position = np.empty(len(both), np.int64)
    position[order] = slot
    return ordered[new], position[:len(a_indices)], position[len(a_indices):]


# -- SparseAdd ------------------------------------------------------------------------------------------

def _check_same_shape(a_shape, b_shape):
    if a_shape.shape != b_shape.shape or (a_shape != b_shape).any():
        raise bad(f"Operands do not have the same ranks; got shapes: {_fmt(a_shape)} and {_fmt(b_shape)}"
                  if a_shape.shape != b_shape.shape else
                  f"Operands' shapes do not match: got {_fmt(a_shape)} and {_fmt(b_shape)} for sparse tensor shapes")


def _fmt(v):
    return "[" + ",".join(str(int(x)) for x in v) + "]"


def _add_kernel(a_indices, a_values, a_shape, b_indices, b_values, b_shape, thresh):
    _check_same_shape(a_shape, b_shape)
    indices, a_pos, b_pos = _merge(a_indices, b_indices)
    values = np.zeros(len(indices), dtype=np.result_type(a_values, b_values))
    np.add.at(values, a_pos, a_values)
    np.add.at(values, b_pos, b_values)
    keep = np.abs(values) >= thresh if values.dtype.kind != "c" else np.abs(values) >= np.abs(thresh)
    return indices[keep], values[keep].astype(a_values.dtype, copy=False), a_shape


def _add_grad(op, g_indices, g_values, g_shape):
    a_indices, _, _, b_indices = op.inputs[:4]
    a_grad, b_grad = apply(SPARSE_ADD_GRAD, (g_values, a_indices, b_indices, op.outputs[0]), None, "SparseAddGrad")
    return [None, a_grad, None, None, b_grad, None, None]


SPARSE_ADD = OpDef("SparseAdd", sparse_infer(1, 0), _add_kernel, grad=_add_grad, multi=True,
                   input_names=("a_indices", "a_values", "a_shape", "b_indices", "b_values", "b_shape", "thresh"))


def _add_grad_kernel(backprop, a_indices, b_indices, sum_indices):
    lookup = {tuple(row): k for k, row in enumerate(sum_indices.tolist())}
    a = np.array([backprop[lookup[tuple(r)]] if tuple(r) in lookup else 0 for r in a_indices.tolist()],
                 dtype=backprop.dtype).reshape(-1)
    b = np.array([backprop[lookup[tuple(r)]] if tuple(r) in lookup else 0 for r in b_indices.tolist()],
                 dtype=backprop.dtype).reshape(-1)
    return a, b


def _add_grad_infer(inputs, attrs):
    return [(inputs[0].dtype, TensorShape([inputs[1].shape[0]])), (inputs[0].dtype, TensorShape([inputs[2].shape[0]]))]


SPARSE_ADD_GRAD = OpDef("SparseAddGrad", _add_grad_infer, _add_grad_kernel, multi=True,
                        input_names=("backprop_val_grad", "a_indices", "b_indices", "sum_indices"))


def _dense_add_kernel(a_indices, a_values, a_shape, b):
    if tuple(a_shape) != b.shape:
        raise bad(f"Dimension mismatch: sparse shape {_fmt(a_shape)} vs. dense shape {_fmt(b.shape)}")
    out = b.copy()
    if a_indices.shape[0]:
        np.add.at(out, tuple(a_indices.T), a_values)
    return out


def _dense_add_grad(op, grad):
    return [None, _gather.gather_nd(grad, op.inputs[0]), None, grad]


SPARSE_TENSOR_DENSE_ADD = OpDef("SparseTensorDenseAdd", lambda inputs, attrs: [(inputs[3].dtype, inputs[3].shape)],
                                _dense_add_kernel, grad=_dense_add_grad,
                                input_names=("a_indices", "a_values", "a_shape", "b"))


def add(a, b, threshold=0):
    """`tf.sparse.add`: sparse + sparse is sparse (sums of magnitude below `threshold` dropped); sparse +
    dense is dense."""
    if not is_sparse(a) and not is_sparse(b):
        raise TypeError("At least one input should be SparseTensor; do you mean to use tf.add()?")
    if is_sparse(a) and is_sparse(b):
        thresh = convert_to_tensor(threshold, dtype=a.values.dtype.real_dtype if a.values.dtype.is_complex
                                   else a.values.dtype)
        inputs = (a.indices, a.values, a.dense_shape, b.indices, b.values, b.dense_shape, thresh)
        _same_dtype("SparseAdd", inputs)
        indices, values, shape = apply(SPARSE_ADD, inputs, None, "SparseAdd")
        return SparseTensor._from_parts(indices, values, shape, a.shape.merge_with(b.shape)
                                        if a.shape.is_compatible_with(b.shape) else None)
    sp, dense = (a, b) if is_sparse(a) else (b, a)
    dense = convert_to_tensor(dense, dtype=sp.dtype)
    return apply(SPARSE_TENSOR_DENSE_ADD, (sp.indices, sp.values, sp.dense_shape, dense), None, "SparseTensorDenseAdd")


# -- SparseSparseMaximum / Minimum -------------------------------------------------------------------------

def _extreme_kernel(fn):
    def kernel(a_indices, a_values, a_shape, b_indices, b_values, b_shape):
        _check_same_shape(a_shape, b_shape)
        indices, a_pos, b_pos = _merge(a_indices, b_indices)
        a_full = np.zeros(len(indices), a_values.dtype)
        b_full = np.zeros(len(indices), a_values.dtype)
        a_full[a_pos] = a_values
        b_full[b_pos] = b_values
        return indices, fn(a_full, b_full)
    return kernel


def _extreme_infer(inputs, attrs):
    rank = inputs[0].shape[1] if inputs[0].shape.rank == 2 else None
    return [(_dt.int64, TensorShape([None, rank])), (inputs[1].dtype, TensorShape([None]))]


SPARSE_MAXIMUM = OpDef("SparseSparseMaximum", _extreme_infer, _extreme_kernel(np.maximum), multi=True,
                       input_names=("a_indices", "a_values", "a_shape", "b_indices", "b_values", "b_shape"))
SPARSE_MINIMUM = OpDef("SparseSparseMinimum", _extreme_infer, _extreme_kernel(np.minimum), multi=True,
                       input_names=("a_indices", "a_values", "a_shape", "b_indices", "b_values", "b_shape"))


def _extreme(opdef, sp_a, sp_b, name):
    a, b = as_sparse(sp_a, "sp_a"), as_sparse(sp_b, "sp_b")
    inputs = (a.indices, a.values, a.dense_shape, b.indices, b.values, b.dense_shape)
    _same_dtype(opdef.name, inputs)
    indices, values = apply(opdef, inputs, None, name or opdef.name)
    return SparseTensor._from_parts(indices, values, a.dense_shape, a.shape)


def maximum(sp_a, sp_b, name=None):
    """`tf.sparse.maximum`: element-wise max of two SparseTensors of one shape (absent entries are 0)."""
    return _extreme(SPARSE_MAXIMUM, sp_a, sp_b, name)


def minimum(sp_a, sp_b, name=None):
    """`tf.sparse.minimum`: element-wise min of two SparseTensors of one shape (absent entries are 0)."""
    return _extreme(SPARSE_MINIMUM, sp_a, sp_b, name)


# -- SparseTensorDenseMatMul -----------------------------------------------------------------------------

def _matmul_kernel(a_indices, a_values, a_shape, b, adjoint_a=False, adjoint_b=False):
    if b.ndim != 2:
        raise bad(f"Tensor 'b' is not a matrix")
    rows, cols = (int(a_shape[1]), int(a_shape[0])) if adjoint_a else (int(a_shape[0]), int(a_shape[1]))
    bm = np.conj(b.T) if adjoint_b else b
    if cols != bm.shape[0]:
        raise bad(f"Cannot multiply A and B because inner dimension does not match: {cols} vs. {bm.shape[0]}.  "
                  f"Did you forget a transpose?  Dimensions of A: [{int(a_shape[0])}, {int(a_shape[1])}).  "
                  f"Dimensions of B: [{b.shape[0]},{b.shape[1]}]")
    out = np.zeros((rows, bm.shape[1]), dtype=np.result_type(a_values, b))
    if a_indices.shape[0]:
        i, k = (a_indices[:, 1], a_indices[:, 0]) if adjoint_a else (a_indices[:, 0], a_indices[:, 1])
        values = np.conj(a_values) if adjoint_a else a_values
        np.add.at(out, i, values[:, None] * bm[k])
    return out.astype(b.dtype, copy=False)


def _matmul_infer(inputs, attrs):
    a_shape, b = inputs[2], inputs[3]
    from ..shapes.common import value_dims
    dims = value_dims(a_shape)
    rows = None if dims is None else dims[1 if attrs.get("adjoint_a") else 0]
    cols = b.shape[0 if attrs.get("adjoint_b") else 1] if b.shape.rank == 2 else None
    return [(b.dtype, TensorShape([rows, cols]))]


def _matmul_grad(op, grad):
    a_indices, a_values, a_shape, b = op.inputs
    adjoint_a, adjoint_b = op.attrs.get("adjoint_a", False), op.attrs.get("adjoint_b", False)
    # d b: A' (adjointed as in the forward op) applied to grad, itself adjointed when b was
    b_grad = apply(SPARSE_TENSOR_DENSE_MATMUL, (a_indices, a_values, a_shape, grad),
                   {"adjoint_a": not adjoint_a, "adjoint_b": False}, "SparseTensorDenseMatMul")
    if adjoint_b:
        b_grad = _matrix.adjoint(b_grad)
    # d values[n] for the stored entry (i, k) of A: sum_j grad[row, j] * B'[col, j]
    rows, cols = (a_indices[:, 1], a_indices[:, 0]) if adjoint_a else (a_indices[:, 0], a_indices[:, 1])
    b_rows = _gather.gather(_transpose2(b) if adjoint_b else b, cols)
    values_grad = _reduce.reduce_sum(_gather.gather(grad, rows) * b_rows, axis=1)
    return [None, values_grad, None, b_grad]


def _transpose2(t):
    from ..array import reorder as _reorder
    return _reorder.transpose(t)


SPARSE_TENSOR_DENSE_MATMUL = OpDef("SparseTensorDenseMatMul", _matmul_infer, _matmul_kernel, grad=_matmul_grad,
                                   input_names=("a_indices", "a_values", "a_shape", "b"))


def sparse_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None):
    """`tf.sparse.sparse_dense_matmul`: a SparseTensor (rank 2) times a dense matrix, or a dense matrix times
    a SparseTensor; dense result."""
    if is_sparse(b) and not is_sparse(sp_a):
        # (A B)ᵀ = Bᵀ Aᵀ: the sparse operand goes first
        out = sparse_dense_matmul(b, sp_a, adjoint_a=not adjoint_b, adjoint_b=not adjoint_a)
        return _transpose2(out)
    sp = as_sparse(sp_a, "sp_a")
    b = convert_to_tensor(b, dtype=sp.dtype)
    return apply(SPARSE_TENSOR_DENSE_MATMUL, (sp.indices, sp.values, sp.dense_shape, b),
                 {"adjoint_a": bool(adjoint_a), "adjoint_b": bool(adjoint_b)}, name or "SparseTensorDenseMatMul")


# -- reductions -----------------------------------------------------------------------------------------

def _axes(axis, rank):
    if axis is None:
        return tuple(range(rank))
    axes = [int(a) for a in np.reshape(np.asarray(axis), -1)]
    return tuple(sorted({a % rank for a in axes}))


def _reduce_kernel(ufunc, sparse_out):
    def kernel(indices, values, shape, axes, keep_dims):
        rank = len(shape)
        axes = {int(a) % rank for a in axes} if rank else set()     # an imported graph's axes may be negative
        kept = [d for d in range(rank) if d not in axes]
        out_shape = [1 if d in axes else int(shape[d]) for d in range(rank)] if keep_dims else \
            [int(shape[d]) for d in kept]
        keys = indices[:, kept] if indices.shape[0] else np.zeros((0, len(kept)), np.int64)
        if len(kept) and keys.shape[0]:
            groups, inverse = np.unique(keys, axis=0, return_inverse=True)
            inverse = inverse.reshape(-1)
        else:
            groups = np.zeros((1 if keys.shape[0] else 0, len(kept)), np.int64)
            inverse = np.zeros(keys.shape[0], np.int64)
        if ufunc is np.add:
            reduced = np.zeros(len(groups), values.dtype)
            np.add.at(reduced, inverse, values)
        else:
            reduced = np.full(len(groups), _lowest(values.dtype), values.dtype)
            np.maximum.at(reduced, inverse, values)
        if keep_dims:
            full = np.zeros((len(groups), rank), np.int64)
            full[:, kept] = groups
            groups = full
        if sparse_out:
            return groups.astype(np.int64), reduced, np.asarray(out_shape, np.int64)
        dense = np.zeros(out_shape, values.dtype)
        if not kept and not keep_dims:
            return np.asarray(reduced[0] if len(reduced) else 0, values.dtype)
        if len(groups):
            dense[tuple(groups.T)] = reduced
        return dense
    return kernel


def _lowest(dtype):
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def _reduce_infer(sparse_out):
    def infer(inputs, attrs):
        if sparse_out:
            return [(_dt.int64, TensorShape([None, None])), (inputs[1].dtype, TensorShape([None])),
                    (_dt.int64, TensorShape([None]))]
        return [(inputs[1].dtype, TensorShape(None))]
    return infer


SPARSE_REDUCE_MAX = OpDef("SparseReduceMax", _reduce_infer(False), _reduce_kernel(np.maximum, False),
                          input_names=("input_indices", "input_values", "input_shape"))
SPARSE_REDUCE_MAX_SPARSE = OpDef("SparseReduceMaxSparse", _reduce_infer(True), _reduce_kernel(np.maximum, True),
                                 multi=True, input_names=("input_indices", "input_values", "input_shape"))
SPARSE_REDUCE_SUM_SPARSE = OpDef("SparseReduceSumSparse", _reduce_infer(True), _reduce_kernel(np.add, True),
                                 multi=True, input_names=("input_indices", "input_values", "input_shape"))


def _reduce_sum_grad(op, grad):
    """TensorFlow's gradient of SparseReduceSum: each stored value receives the upstream gradient of the
    output entry it was summed into (read at its indices with the reduced axes set to 0)."""
    indices, _, shape = op.inputs
    positions = _creators.range(_shape_ops.shape(shape, out_type=_dt.int64)[0], dtype=_dt.int64)
    axes = convert_to_tensor(np.asarray(sorted(op.attrs["axes"]), np.int64).reshape(-1, 1))
    reduced = _arith.cast(_reduce.reduce_any(equal(axes, positions), axis=0), _dt.int64)
    kept_shape = shape * (1 - reduced) + reduced       # the output's shape with the reduced axes kept as 1
    at = indices * (1 - reduced)                        # each value's output entry, in that shape
    return [None, _gather.gather_nd(_shaping.reshape(grad, kept_shape), at), None]


_SUM_KERNEL = _reduce_kernel(np.add, False)


def _reduce_sum_kernel(indices, values, shape, axes, keep_dims):
    if values.dtype.kind not in "iufc":       # TensorFlow's T: number types only
        raise errors.InvalidArgumentError(
            None, None, f"Value for attr 'T' of {dtype_error_name(_dt.FROM_NUMPY[values.dtype])} is not in the "
            f"list of allowed values: float, double, int32, uint8, int16, int8, complex64, int64, qint8, quint8, "
            f"qint32, bfloat16, qint16, quint16, uint16, complex128, half, uint32, uint64\n\t; NodeDef: "
            f"{{{{node SparseReduceSum}}}}")
    return _SUM_KERNEL(indices, values, shape, axes, keep_dims)


SPARSE_REDUCE_SUM = OpDef("SparseReduceSum", _reduce_infer(False), _reduce_sum_kernel,
                          grad=_reduce_sum_grad, input_names=("input_indices", "input_values", "input_shape"))


def _static_axes(sp, axis):
    rank = rank_of(sp)
    if rank is None:
        raise ValueError("tf.sparse reductions need a SparseTensor of known rank")
    return _axes(axis, rank), rank


def reduce_sum(sp_input, axis=None, keepdims=None, output_is_sparse=False, name=None):
    """`tf.sparse.reduce_sum`: sums over `axis` (all axes by default); dense result unless `output_is_sparse`."""
    sp = as_sparse(sp_input)
    axes, rank = _static_axes(sp, axis)
    if output_is_sparse:
        outs = apply(SPARSE_REDUCE_SUM_SPARSE, (sp.indices, sp.values, sp.dense_shape),
                     {"axes": axes, "keep_dims": bool(keepdims)}, name or "SparseReduceSumSparse")
        return sparse_from_outputs(outs)
    return apply(SPARSE_REDUCE_SUM, (sp.indices, sp.values, sp.dense_shape),
                 {"axes": axes, "keep_dims": bool(keepdims)}, name or "SparseReduceSum")


def reduce_max(sp_input, axis=None, keepdims=None, output_is_sparse=False, name=None):
    """`tf.sparse.reduce_max`: the largest stored value over `axis` (implicit zeros are not counted; a group
    with no stored value gives 0)."""
    sp = as_sparse(sp_input)
    axes, rank = _static_axes(sp, axis)
    attrs = {"axes": axes, "keep_dims": bool(keepdims)}
    if output_is_sparse:
        return sparse_from_outputs(apply(SPARSE_REDUCE_MAX_SPARSE, (sp.indices, sp.values, sp.dense_shape), attrs,
                                         name or "SparseReduceMaxSparse"))
    out = apply(SPARSE_REDUCE_MAX, (sp.indices, sp.values, sp.dense_shape), attrs, name or "SparseReduceMax")
    if sp.shape.is_fully_defined():
        dims = sp.shape.as_list()
        static = [1 if d in axes else dims[d] for d in range(rank)] if keepdims else \
            [dims[d] for d in range(rank) if d not in axes]
        out = _shaping.reshape(out, static)
    return out


# -- softmax, map_values, element-wise with a dense tensor -------------------------------------------------

def softmax(sp_input, name=None):
    """`tf.sparse.softmax`: softmax over the stored values of each innermost row (batched over the rest)."""
    sp = as_sparse(sp_input)
    rank = rank_of(sp)
    if rank is not None and rank < 2:
        raise ValueError(f"Input should have rank >= 2, but received shape {sp.shape}")
    # one segment per distinct leading coordinate (indices are in canonical order, so rows are contiguous)
    leading = sp.indices[:, :-1]
    changed = _reduce.reduce_any(not_equal(leading[1:], leading[:-1]), axis=1)
    starts = _join.concat([_creators.ones_like(sp.values[:1], dtype=_dt.int64), _arith.cast(changed, _dt.int64)],
                          axis=0)
    segments = _reduce.cumsum(starts) - 1
    count = _shape_ops.size(sp.values, out_type=_dt.int64)
    peak = _segments.unsorted_segment_max(sp.values, segments, count)
    shifted = _arith.exp(sp.values - _gather.gather(peak, segments))
    total = _segments.unsorted_segment_sum(shifted, segments, count)
    return SparseTensor._from_parts(sp.indices, shifted / _gather.gather(total, segments), sp.dense_shape, sp.shape)


def map_values(op, *args, **kwargs):
    """`tf.sparse.map_values`: `op` applied to the values of the SparseTensor arguments (which must share
    their indices and dense shape); other arguments are passed as they are."""
    sparse_args = [a for a in list(args) + list(kwargs.values()) if is_sparse(a)]
    if not sparse_args:
        raise ValueError("No SparseTensor in argument list of map_values")
    first = sparse_args[0]
    for other in sparse_args[1:]:
        if other is not first:
            same = first.indices.shape.is_compatible_with(other.indices.shape)
            if same and first.indices._value is not None and other.indices._value is not None:
                same = np.array_equal(first.indices.numpy(), other.indices.numpy()) and \
                    np.array_equal(first.dense_shape.numpy(), other.dense_shape.numpy())
            if not same:
                raise errors.InvalidArgumentError(None, None, "Expected all SparseTensors to have the same indices "
                                                  "and dense_shape")
    values = op(*[a.values if is_sparse(a) else a for a in args],
                **{k: v.values if is_sparse(v) else v for k, v in kwargs.items()})
    return SparseTensor._from_parts(first.indices, convert_to_tensor(values), first.dense_shape, first.shape)


def dense_cwise(sp, dense, kind):
    """`sp * dense` and `sp / dense`: the dense operand broadcast to the sparse shape, read at the stored
    entries (TensorFlow's SparseDenseCwiseMul/Div); a SparseTensor result."""
    if is_sparse(dense):
        return NotImplemented
    dense = convert_to_tensor(dense, dtype=sp.dtype)
    at = _gather.gather_nd(_shaping.broadcast_to(dense, sp.dense_shape), sp.indices)
    values = sp.values * at if kind == "mul" else _arith.divide(sp.values, at) if sp.dtype.is_floating \
        else _arith.floordiv(sp.values, at)
    return SparseTensor._from_parts(sp.indices, values, sp.dense_shape, sp.shape)


# `sp * dense` and `sp / dense` (TensorFlow's SparseTensor has these two operators only), installed here
# because sparse_tensor.py sits below this module.
SparseTensor.__mul__ = lambda self, other: dense_cwise(self, other, "mul")
SparseTensor.__truediv__ = SparseTensor.__div__ = lambda self, other: dense_cwise(self, other, "div")


def sampled_addmm(indices, values, dense_shape, mat1, mat2, beta=1.0, alpha=1.0, output_type=_dt.float32):
    """`tf.sparse.sampled_addmm`: `beta * values + alpha * (mat1 @ mat2)` read at `indices` (batched over
    leading dimensions); returns (indices, values, dense_shape)."""
    indices = convert_to_tensor(indices)
    dense_shape = convert_to_tensor(dense_shape)
    mat1 = convert_to_tensor(mat1, dtype=output_type)
    mat2 = convert_to_tensor(mat2, dtype=output_type)
    values = convert_to_tensor(values, dtype=output_type)
    rank = mat1.shape.rank
    if rank is None or rank < 2:
        raise ValueError(f"mat1 must have rank >= 2, but got shape {mat1.shape}")
    batch = rank - 2
    idx = _arith.cast(indices, _dt.int64)
    rows = _join.concat([idx[..., :batch], idx[..., batch:batch + 1]], axis=-1)
    cols = _join.concat([idx[..., :batch], idx[..., batch + 1:batch + 2]], axis=-1)
    left = _gather.gather_nd(mat1, rows)
    right = _gather.gather_nd(_transpose_last(mat2), cols)
    products = _reduce.reduce_sum(left * right, axis=-1)
    return indices, beta * values + alpha * products, dense_shape


def _transpose_last(t):
    from ..array import reorder as _reorder
    rank = t.shape.rank
    return _reorder.transpose(t, list(range(rank - 2)) + [rank - 1, rank - 2])


# -- sparse segment reductions -------------------------------------------------------------------------------

def _sparse_segment(data, indices, segment_ids, num_segments, scale):
    data = convert_to_tensor(data)
    indices = convert_to_tensor(indices)
    segment_ids = convert_to_tensor(segment_ids)
    rows = _gather.gather(data, indices)
    if num_segments is None:
        total = _segments.segment_sum(rows, segment_ids)
        if scale is None:
            return total
        ones = _creators.ones_like(segment_ids, dtype=data.dtype)
        counts = _segments.segment_sum(ones, segment_ids)
    else:
        total = _segments.unsorted_segment_sum(rows, segment_ids, num_segments)
        if scale is None:
            return total
        ones = _creators.ones_like(segment_ids, dtype=data.dtype)
        counts = _segments.unsorted_segment_sum(ones, segment_ids, num_segments)
    counts = _arith.maximum(counts, _creators.ones_like(counts))
    if scale == "sqrt":
        counts = _arith.sqrt(counts)
    # TensorFlow's kernel multiplies by the reciprocal (which rounds differently from dividing)
    shape = _join.concat([_shape_ops.shape(counts), _creators.ones_like(_shape_ops.shape(data)[1:])], axis=0)
    return total * _shaping.reshape(1 / counts, shape)


def segment_sum(data, indices, segment_ids, num_segments=None, name=None, sparse_gradient=False):
    """`tf.sparse.segment_sum`: segment sums of the rows `data[indices]`."""
    return _sparse_segment(data, indices, segment_ids, num_segments, None)


def segment_mean(data, indices, segment_ids, num_segments=None, name=None, sparse_gradient=False):
    """`tf.sparse.segment_mean`: segment means of the rows `data[indices]` (empty segments are 0)."""
    return _sparse_segment(data, indices, segment_ids, num_segments, "mean")


def segment_sqrt_n(data, indices, segment_ids, num_segments=None, name=None, sparse_gradient=False):
    """`tf.sparse.segment_sqrt_n`: segment sums of `data[indices]` divided by sqrt(segment size)."""
    return _sparse_segment(data, indices, segment_ids, num_segments, "sqrt")
