"""Scatter ops: `tf.scatter_nd`, `tf.tensor_scatter_nd_{update,add,sub,max,min}`, `tf.dynamic_partition`
and `tf.dynamic_stitch`.

An index tensor of shape [..., K] addresses K-dimensional slices of the output; its leading dims must
equal the leading dims of `updates`, whose remaining dims are the slice shape. Every kernel checks the
shapes and the bounds first, with TensorFlow's messages, then does one vectorised NumPy assignment or
`ufunc.at` (which handles repeated indices: they add up, or the last one wins for an update).

`ScatterNd` itself is defined in `indexing.py` (gather_nd's gradient needs it); this module gives it the
input validation a public op needs (see `_validated_scatter_nd_kernel`).
"""
import numpy as np

from ...framework import errors
from ...framework.context import state as _state
from ...framework.tensor import Tensor
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..shapes import common as _common
from . import join as _join
from ..shapes import shape_ops as _shape_ops
from ..shapes import shaping as _shaping
from ..shapes import creators as _creators
from . import gather as _gather
from ..math import arith as _math
from ..shapes.common import attr_type_error, bad, fmt_shape, static_int, value_dims
from ..convert import convert_to_tensor
from ..registry import NUMBER, REAL, OpDef, apply, dtype_error_name

__all__ = ["scatter_nd", "tensor_scatter_nd_update", "tensor_scatter_nd_add", "tensor_scatter_nd_sub",
           "tensor_scatter_nd_max", "tensor_scatter_nd_min", "dynamic_partition", "dynamic_stitch"]

_INDEX_TYPES = (_dt.int32, _dt.int64)
_UNKNOWN = TensorShape(None)
_OBJECT = np.dtype(object)


# ---------------------------------------------------------------------------------------------------
# Shape and bounds checks shared by ScatterNd and the TensorScatter ops (run time: concrete shapes)
# ---------------------------------------------------------------------------------------------------

def _check_ranks(indices_shape, updates_shape):
    if len(indices_shape) == 0:
        raise bad("Indices shape must have rank at least one. Found:[]")
    if len(updates_shape) == 0:
        raise bad("Updates shape must have rank at least one. Found:[]")


def _check_scatter_nd_shapes(indices_shape, updates_shape, out_dims):
    """ScatterNd's layout rule: updates = indices.shape[:-1] + out_dims[K:], with its messages."""
    _check_ranks(indices_shape, updates_shape)
    batch, k = len(indices_shape) - 1, indices_shape[-1]

    def outer_error():
        return bad(f"Dimensions [0,{batch}) of indices[shape={fmt_shape(indices_shape)}] must match dimensions "
                   f"[0,{batch}) of updates[shape={fmt_shape(updates_shape)}]")

    def inner_error():
        return bad(f"Dimensions [{k},{len(out_dims)}) of input[shape={fmt_shape(out_dims)}] must match dimensions "
                   f"[{batch},{len(updates_shape)}) of updates[shape={fmt_shape(updates_shape)}]")

    if len(updates_shape) < batch:
        raise outer_error()
    if len(out_dims) < k + len(updates_shape) - batch or len(updates_shape) != batch + len(out_dims) - k:
        raise inner_error()
    if tuple(updates_shape[:batch]) != tuple(indices_shape[:batch]):
        raise outer_error()
    if tuple(updates_shape[batch:]) != tuple(out_dims[k:]):
        raise inner_error()


def _check_tensor_scatter_shapes(indices_shape, updates_shape, out_dims):
    """The TensorScatter ops' version of the same rule (TensorFlow words it differently)."""
    _check_ranks(indices_shape, updates_shape)
    batch, k = len(indices_shape) - 1, indices_shape[-1]
    if tuple(updates_shape[:batch]) != tuple(indices_shape[:batch]):
        raise bad(f"Outer dimensions of indices and update must match. Indices shape: {fmt_shape(indices_shape)}, "
                  f"updates shape:{fmt_shape(updates_shape)}")
    if k > len(out_dims) or len(updates_shape) - batch != len(out_dims) - k:
        raise bad(f"Inner dimensions of output shape must match inner dimensions of updates shape. Output: "
                  f"{fmt_shape(out_dims)} updates: {fmt_shape(updates_shape)}")
    if tuple(updates_shape[batch:]) != tuple(out_dims[k:]):
        n = len(out_dims) - k
        raise bad(f"The inner {n} dimensions of output.shape={fmt_shape(out_dims)} must match the inner {n} "
                  f"dimensions of updates.shape={fmt_shape(updates_shape)}")


def _flat_targets(indices, out_dims):
    """The index rows as a tuple of coordinate arrays (for NumPy indexing), after TensorFlow's
    empty-output and bounds checks."""
    k = indices.shape[-1]
    count = indices.size // k if k else int(np.prod(indices.shape[:-1], dtype=np.int64))
    size = int(np.prod(out_dims, dtype=np.int64))
    if count and (size == 0 or k == 0):
        raise bad("Indices and updates specified for empty output shape")
    if k == 0:
        raise bad("Only indices.shape[-1] values between 1 and 5 are currently supported.  Requested rank: 0")
    rows = indices.reshape(-1, k)
    limits = np.array(out_dims[:k], dtype=np.int64)
    outside = ((rows < 0) | (rows >= limits)).any(axis=1)
    if outside.any():
        first = int(np.argmax(outside))
        where = np.unravel_index(first, indices.shape[:-1]) if indices.ndim > 1 else ()
        raise bad(f"indices[{','.join(str(int(w)) for w in where)}] = [{', '.join(str(v) for v in rows[first])}] "
                  f"does not index into shape {fmt_shape(out_dims)}")
    return tuple(rows.T)


def _output_dims(shape):
    if shape.ndim != 1:
        raise bad("Shape must be a vector")
    dims = tuple(int(d) for d in shape)
    for d in dims:
        if d < 0:
            raise bad(f"Dimension {d} must be >= 0")
    return dims


# ---------------------------------------------------------------------------------------------------
# Static checks (graph construction: shapes may be partial)
# ---------------------------------------------------------------------------------------------------

def _static_scatter_check(indices, updates, out_shape, op_name, updates_may_be_scalar):
    """TensorFlow's shape-function errors: ValueError while a graph is built."""
    i, u = indices.shape._dims, updates.shape._dims
    if i is not None and len(i) == 0:
        raise ValueError(f"Shape must be at least rank 1 but is rank 0 for '{{{{node {op_name}}}}}'")
    if u is not None and len(u) == 0 and not updates_may_be_scalar:
        raise ValueError(f"Shape must be at least rank 1 but is rank 0 for '{{{{node {op_name}}}}}'")
    if i is None or u is None or i[-1] is None or (u == () and updates_may_be_scalar):
        return
    batch, k = len(i) - 1, i[-1]
    outer_i, outer_u = TensorShape(i[:batch]), TensorShape(u[:batch])
    if not outer_i.is_compatible_with(outer_u):
        raise ValueError(f"Dimensions [0,{batch}) of indices[shape={fmt_shape(i)}] = {fmt_shape(i[:batch])} must "
                         f"match dimensions [0,{batch}) of updates[shape={fmt_shape(u)}] = {fmt_shape(u[:batch])}")
    o = out_shape._dims
    if o is None:
        return
    inner_o, inner_u = TensorShape(o[k:]), TensorShape(u[batch:])
    if k > len(o) or not inner_o.is_compatible_with(inner_u):
        raise ValueError(f"Dimensions [{k},{len(o)}) of input[shape={fmt_shape(o)}] = {fmt_shape(o[k:])} must "
                         f"match dimensions [{batch},{len(u)}) of updates[shape={fmt_shape(u)}] = "
                         f"{fmt_shape(u[batch:])}")


def _check_index_dtype(indices, op_name):
    if indices.dtype not in _INDEX_TYPES:
        raise attr_type_error("Tindices", indices.dtype, op_name, (_dt.int16, _dt.int32, _dt.int64), "indices")


# ---------------------------------------------------------------------------------------------------
# scatter_nd (the ScatterNd OpDef of indexing.py, validated)
# ---------------------------------------------------------------------------------------------------

SCATTER_ND = _gather.SCATTER_ND
_accumulating_scatter_nd_kernel = SCATTER_ND.kernel
_unchecked_scatter_nd_infer = SCATTER_ND.infer


def _validated_scatter_nd_kernel(indices, updates, shape):
    """ScatterNd with TensorFlow's input checks; gather_nd's gradient (always valid input) sees no change."""
    dims = _output_dims(shape)
    _check_scatter_nd_shapes(indices.shape, updates.shape, dims)
    if indices.size and int(np.prod(dims, dtype=np.int64)) == 0 and dims and dims[0] == 0:
        raise bad(f"Indices and updates specified for empty output.  indices shape: {fmt_shape(indices.shape)}")
    targets = _flat_targets(indices, dims)
    if updates.dtype == _OBJECT:  # strings: repeated indices concatenate, untouched elements are b""
        out = np.full(dims, b"", dtype=object)
        k = indices.shape[-1]
        np.add.at(out, targets, updates.reshape((len(targets[0]),) + dims[k:]))
        return out
    return _accumulating_scatter_nd_kernel(indices, updates, shape)


def _validated_scatter_nd_infer(inputs, attrs):
    indices, updates, shape_t = inputs
    if shape_t.shape.rank not in (None, 1):
        raise ValueError(f"Shape must be rank 1 but is rank {shape_t.shape.rank} for '{{{{node ScatterNd}}}}'")
    (dtype, out_shape), = _unchecked_scatter_nd_infer(inputs, attrs)
    # The output dims are compared with the updates only when `shape` is a constant: with a shape known
    # only at run time the kernel checks them (TensorFlow would already compare the ranks here, but the
    # existing unit tests of this OpDef's inference rely on it accepting any updates rank then).
    known = TensorShape(out_shape) if value_dims(shape_t) is not None else _UNKNOWN
    _static_scatter_check(indices, updates, known, "ScatterNd", False)
    return [(dtype, out_shape)]


SCATTER_ND.kernel = _validated_scatter_nd_kernel
SCATTER_ND.infer = _validated_scatter_nd_infer


def scatter_nd(indices, updates, shape, name=None):
    """`tf.scatter_nd`: zeros of `shape` with `updates` added at `indices` (repeated indices add up)."""
    indices = convert_to_tensor(indices)
    _check_index_dtype(indices, "ScatterNd")
    updates = convert_to_tensor(updates)
    shape = convert_to_tensor(shape, dtype=indices.dtype) if not isinstance(shape, Tensor) else shape
    if shape.dtype is not indices.dtype:
        msg = (f"cannot compute ScatterNd as input #2(zero-based) was expected to be a {indices.dtype.name} tensor "
               f"but is a {shape.dtype.name} tensor")
        if _state.graph is not None:
            raise TypeError(f"Input 'shape' of 'ScatterNd' Op has type {shape.dtype.name} that does not match type "
                            f"{indices.dtype.name} of argument 'indices'.")
        raise errors.eager_error(errors.InvalidArgumentError, msg, "ScatterNd")
    return apply(SCATTER_ND, (indices, updates, shape), None, name or "ScatterNd")


# ---------------------------------------------------------------------------------------------------
# tensor_scatter_nd_update / add / sub / max / min
# ---------------------------------------------------------------------------------------------------

def _tensor_scatter_kernel(op_name, combine, allowed):
    allowed_np = None if allowed is None else frozenset(np.dtype(d._np) for d in allowed)

    def kernel(tensor, indices, updates):
        if allowed_np is not None and tensor.dtype not in allowed_np:
            dtype = _dt.FROM_NUMPY[tensor.dtype].name.upper()
            index = _dt.FROM_NUMPY[indices.dtype].name.upper()
            raise errors.NotFoundError(None, None, f"Could not find device for node: {{{{node {op_name}}}}} = "
                                                   f"{op_name}[T=DT_{dtype}, Tindices=DT_{index}, "
                                                   f"bad_indices_policy=\"\"]")
        if updates.dtype != tensor.dtype:
            raise bad(f"cannot compute {op_name} as input #2(zero-based) was expected to be a "
                      f"{dtype_error_name(_dt.FROM_NUMPY[tensor.dtype])} tensor but is a "
                      f"{dtype_error_name(_dt.FROM_NUMPY[updates.dtype])} tensor")
        _check_tensor_scatter_shapes(indices.shape, updates.shape, tensor.shape)
        if tensor.ndim == 0:
            raise bad("Output must be at least 1-D, got shape: []")
        targets = _flat_targets(indices, tensor.shape)
        k = indices.shape[-1]
        rows = updates.reshape((len(targets[0]),) + tensor.shape[k:])
        out = tensor.copy()
        combine(out, targets, rows)
        return out
    return kernel


def _assign(out, targets, rows):
    out[targets] = rows  # NumPy keeps the last of repeated indices, as TensorFlow does


def _ufunc_at(ufunc):
    def combine(out, targets, rows):
        ufunc.at(out, targets, rows)
    return combine


def _tensor_scatter_infer(op_name):
    def infer(inputs, attrs):
        tensor, indices, updates = inputs
        if updates.dtype is not tensor.dtype:
            raise TypeError(f"Input 'updates' of '{op_name}' Op has type {updates.dtype.name} that does not match "
                            f"type {tensor.dtype.name} of argument 'tensor'.")
        _static_scatter_check(indices, updates, tensor.shape, op_name, True)
        return [(tensor.dtype, tensor.shape)]
    return infer


def _update_grad(op, grad):
    indices, updates = op.inputs[1], op.inputs[2]
    cleared = tensor_scatter_nd_update(grad, indices, _creators.zeros_like(updates))
    return [cleared, None, _gather.gather_nd(grad, indices)]


def _add_grad(op, grad):
    return [grad, None, _gather.gather_nd(grad, op.inputs[1])]


def _sub_grad(op, grad):
    return [grad, None, _math.negative(_gather.gather_nd(grad, op.inputs[1]))]


def _extreme_grad(op, grad):
    """Max/Min: the gradient of each output element is shared equally by the tensor element and the
    updates that equal it (TensorFlow's tie rule)."""
    x, indices, updates = op.inputs
    out = op.outputs[0]
    from_x = _math.cast(_math.equal(x, out), grad.dtype)
    from_updates = _math.cast(_math.equal(updates, _gather.gather_nd(out, indices)), grad.dtype)
    dims = _shape_ops.shape_of(x)
    dims = dims if isinstance(dims, list) else _math.cast(dims, indices.dtype)
    shares = _math.add(from_x, _gather.scatter_nd(indices, from_updates, dims))
    return [_math.multiply(_math.divide(grad, shares), from_x), None,
            _math.multiply(_gather.gather_nd(_math.divide(grad, shares), indices), from_updates)]


def _tensor_scatter_op(op_name, combine, allowed, grad):
    return OpDef(op_name, _tensor_scatter_infer(op_name), _tensor_scatter_kernel(op_name, combine, allowed),
                 grad=grad, input_names=("tensor", "indices", "updates"))


TENSOR_SCATTER_UPDATE = _tensor_scatter_op("TensorScatterUpdate", _assign, None, _update_grad)
TENSOR_SCATTER_ADD = _tensor_scatter_op("TensorScatterAdd", _ufunc_at(np.add), NUMBER, _add_grad)
TENSOR_SCATTER_SUB = _tensor_scatter_op("TensorScatterSub", _ufunc_at(np.subtract), NUMBER, _sub_grad)
TENSOR_SCATTER_MAX = _tensor_scatter_op("TensorScatterMax", _ufunc_at(np.maximum), REAL, _extreme_grad)
TENSOR_SCATTER_MIN = _tensor_scatter_op("TensorScatterMin", _ufunc_at(np.minimum), REAL, _extreme_grad)


def _tensor_scatter(opdef, tensor, indices, updates, name):
    tensor = convert_to_tensor(tensor)
    indices = convert_to_tensor(indices)
    if indices.dtype not in _INDEX_TYPES:
        raise attr_type_error("Tindices", indices.dtype, opdef.name,
                              (_dt.int16, _dt.int32, _dt.int64, _dt.uint16), "indices")
    if not isinstance(updates, Tensor):
        updates = convert_to_tensor(updates, dtype=tensor.dtype)
    return apply(opdef, (tensor, indices, updates), None, name or opdef.name)


def tensor_scatter_nd_update(tensor, indices, updates, name=None):
    """`tf.tensor_scatter_nd_update`: `tensor` with the slices at `indices` replaced by `updates`."""
    return _tensor_scatter(TENSOR_SCATTER_UPDATE, tensor, indices, updates, name)


def tensor_scatter_nd_add(tensor, indices, updates, name=None):
    """`tf.tensor_scatter_nd_add`: `tensor` with `updates` added at `indices` (repeats add up)."""
    return _tensor_scatter(TENSOR_SCATTER_ADD, tensor, indices, updates, name)


def tensor_scatter_nd_sub(tensor, indices, updates, name=None):
    """`tf.tensor_scatter_nd_sub`: `tensor` with `updates` subtracted at `indices`."""
    return _tensor_scatter(TENSOR_SCATTER_SUB, tensor, indices, updates, name)


def tensor_scatter_nd_max(tensor, indices, updates, name=None):
    """`tf.tensor_scatter_nd_max`: the elementwise maximum of `tensor` and the `updates` at `indices`."""
    return _tensor_scatter(TENSOR_SCATTER_MAX, tensor, indices, updates, name)


def tensor_scatter_nd_min(tensor, indices, updates, name=None):
    """`tf.tensor_scatter_nd_min`: the elementwise minimum of `tensor` and the `updates` at `indices`."""
    return _tensor_scatter(TENSOR_SCATTER_MIN, tensor, indices, updates, name)


# ---------------------------------------------------------------------------------------------------
# dynamic_partition
# ---------------------------------------------------------------------------------------------------

def _dynamic_partition_kernel(data, partitions, num_partitions):
    if data.shape[:partitions.ndim] != partitions.shape:
        raise bad(f"data.shape must start with partitions.shape, got data.shape = {fmt_shape(data.shape)}, "
                  f"partitions.shape = {fmt_shape(partitions.shape)}")
    flat = partitions.reshape(-1)
    outside = (flat < 0) | (flat >= num_partitions)
    if outside.any():
        first = int(np.argmax(outside))
        where = np.unravel_index(first, partitions.shape) if partitions.ndim else ()
        raise bad(f"partitions[{','.join(str(int(w)) for w in where)}] = {flat[first]} is not in "
                  f"[0, {num_partitions})")
    rows = data.reshape((flat.size,) + data.shape[partitions.ndim:])
    order = np.argsort(flat, kind="stable")  # stable: each partition keeps the rows' original order
    ends = np.cumsum(np.bincount(flat, minlength=num_partitions))[:-1]
    return tuple(np.split(rows[order], ends))


def _dynamic_partition_infer(inputs, attrs):
    data, partitions = inputs
    n = attrs["num_partitions"]
    d, p = data.shape._dims, partitions.shape._dims
    if d is None or p is None:
        return [(data.dtype, _UNKNOWN)] * n
    if len(d) < len(p):
        raise ValueError(f"Shape must be at least rank {len(p)} but is rank {len(d)} for "
                         f"'{{{{node DynamicPartition}}}}'")
    for a, b in zip(d, p):
        if a is not None and b is not None and a != b:
            raise ValueError(f"Dimensions must be equal, but are {a} and {b} for '{{{{node DynamicPartition}}}}' "
                             f"with input shapes: {fmt_shape(d)}, {fmt_shape(p)}.")
    return [(data.dtype, TensorShape((None,) + d[len(p):]))] * n


def _dynamic_partition_grad(op, *grads):
    """Partition the positions of the data rows the same way, then stitch the gradients back by them."""
    data, partitions = op.inputs
    dims = _shape_ops.shape_of(partitions)
    count = _gather.shape_product(dims)
    positions = _shaping.reshape(_creators.range(count), dims)
    parts = dynamic_partition(positions, partitions, op.get_attr("num_partitions"))
    stitched = dynamic_stitch(parts, list(grads))
    return [_shaping.reshape(stitched, _shape_ops.shape_of(data)), None]


DYNAMIC_PARTITION = OpDef("DynamicPartition", _dynamic_partition_infer, _dynamic_partition_kernel,
                          grad=_dynamic_partition_grad, multi=True, input_names=("data", "partitions"))


def dynamic_partition(data, partitions, num_partitions, name=None):
    """`tf.dynamic_partition`: splits the rows of `data` into `num_partitions` tensors by `partitions`."""
    data = convert_to_tensor(data)
    partitions = convert_to_tensor(partitions, dtype=_dt.int32)
    n = static_int(num_partitions, "num_partitions", is_attr=True)
    if n < 1:
        raise _join._min_attr_error("DynamicPartition", "num_partitions", n, 1)
    return list(apply(DYNAMIC_PARTITION, (data, partitions), {"num_partitions": n}, name or "DynamicPartition"))


# ---------------------------------------------------------------------------------------------------
# dynamic_stitch
# ---------------------------------------------------------------------------------------------------

def _error_name(np_dtype):
    return dtype_error_name(_dt.FROM_NUMPY[np_dtype])


def _dynamic_stitch_kernel(*arrays):
    n = len(arrays) // 2
    indices, data = arrays[:n], arrays[n:]
    inner = data[0].shape[indices[0].ndim:]
    for i, (idx, d) in enumerate(zip(indices, data)):
        if d.dtype != data[0].dtype:  # all data share TensorFlow's attr T
            raise bad(f"cannot compute DynamicStitch as input #{n + i}(zero-based) was expected to be a "
                      f"{_error_name(data[0].dtype)} tensor but is a {_error_name(d.dtype)} tensor")
        if d.shape[:idx.ndim] != idx.shape:
            raise bad(f"data[{i}].shape = {fmt_shape(d.shape)} does not start with indices[{i}].shape = "
                      f"{fmt_shape(idx.shape)}")
        if d.shape[idx.ndim:] != inner:
            raise bad(f"Need data[0].shape[{indices[0].ndim}:] = data[{i}].shape[{idx.ndim}:], got "
                      f"data[0].shape = {fmt_shape(data[0].shape)}, data[{i}].shape = {fmt_shape(d.shape)}, "
                      f"indices[0].shape = {fmt_shape(indices[0].shape)}, indices[{i}].shape = "
                      f"{fmt_shape(idx.shape)}")
        negative = idx.reshape(-1) < 0
        if negative.any():
            raise bad(f"indices[{int(np.argmax(negative))}] is out of range")
    flat = np.concatenate([idx.reshape(-1) for idx in indices])
    rows = np.concatenate([d.reshape((idx.size,) + inner) for idx, d in zip(indices, data)])
    size = int(flat.max()) + 1 if flat.size else 0
    dtype = data[0].dtype
    out = np.full((size,) + inner, b"", dtype=object) if dtype == _OBJECT else np.zeros((size,) + inner, dtype)
    out[flat] = rows  # later (list position, then element) entries win for repeated indices, as in TensorFlow
    return out


def _dynamic_stitch_infer(inputs, attrs):
    n = len(inputs) // 2
    indices, data = inputs[:n], inputs[n:]
    dtype = data[0].dtype
    inner = None
    for i, (idx, d) in enumerate(zip(indices, data)):
        if d.dtype is not dtype:
            raise TypeError(f"Input 'data' of 'DynamicStitch' Op has type {d.dtype.name} that does not match type "
                            f"{dtype.name} of argument 'data'.")
        ids, ds = idx.shape._dims, d.shape._dims
        if ids is None or ds is None:
            continue
        for a, b in zip(ds, ids):
            if a is not None and b is not None and a != b:
                raise ValueError(f"Dimensions must be equal, but are {a} and {b} for '{{{{node DynamicStitch}}}}' "
                                 f"with input shapes: {fmt_shape(ds)}, {fmt_shape(ids)}.")
        rest = TensorShape(ds[len(ids):])
        if inner is None:
            inner = rest
        elif not inner.is_compatible_with(rest):
            raise ValueError(f"Shapes {inner} and {rest} are incompatible for '{{{{node DynamicStitch}}}}'")
        else:
            inner = inner.merge_with(rest)
    known = [value_dims(idx) for idx in indices]
    size = None
    if all(k is not None for k in known):
        flat = [v for k in known for v in k]
        size = max(flat) + 1 if flat else 0
    if inner is None or inner._dims is None:
        return [(dtype, _UNKNOWN)]
    return [(dtype, TensorShape((size,) + inner._dims))]


def _dynamic_stitch_grad(op, grad):
    """Each data item gets the gradient rows at its indices (TensorFlow's rule, also for overwritten items)."""
    n = len(op.inputs) // 2
    return [None] * n + [_gather.gather(grad, idx) for idx in op.inputs[:n]]


DYNAMIC_STITCH = OpDef("DynamicStitch", _dynamic_stitch_infer, _dynamic_stitch_kernel, grad=_dynamic_stitch_grad,
                       input_names=("indices", "data"), list_input=("indices", "data"))


def dynamic_stitch(indices, data, name=None):
    """`tf.dynamic_stitch`: one tensor whose row `indices[m][i]` is `data[m][i]` (later entries win)."""
    indices, data = list(indices), list(data)
    if len(indices) != len(data):
        raise ValueError(f"List argument 'data' to 'dynamic_stitch' Op with length {len(data)} must match length "
                         f"{len(indices)} of argument 'indices'.")
    if not indices:
        raise ValueError("List argument 'indices' to 'dynamic_stitch' Op with length 0 shorter than minimum "
                         "length 1.")
    indices = [convert_to_tensor(i, dtype=_dt.int32) for i in indices]
    data = _common.convert_same(data)
    return apply(DYNAMIC_STITCH, tuple(indices) + tuple(data), None, name or "DynamicStitch")


API = {
    "": ["scatter_nd", "tensor_scatter_nd_update", "tensor_scatter_nd_add", "tensor_scatter_nd_sub",
         "tensor_scatter_nd_max", "tensor_scatter_nd_min", "dynamic_partition", "dynamic_stitch"],
}
