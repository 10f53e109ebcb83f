"""Creator ops: eye, linspace and one_hot; fill, zeros, ones, *_like and range are defined in
shapes/creators.py (below math, which uses them) and re-exported here with the other creators.

eye with a static shape is a constant (TensorFlow folds it the same way); with a shape known only at run
time it becomes OneHot.
"""
import numpy as np

from ...framework import errors
from ...framework.tensor import EagerTensor, Tensor
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..math import summation as _summation
from ..math import arith as _math
from ..math import reduce as _reduce
from ..shapes.common import (partial_scalar, _eager_const, _normalize_dim, attr_type_error, bad, fmt_shape, index_input,
    shape_of_value, static_int)
from .join import concat, stack
from ..shapes.shape_ops import shape
from ..shapes.shaping import broadcast_to, reshape
from ..convert import constant, convert_to_tensor
from ..infer import broadcast_shape
from ..registry import FLOAT, OpDef, apply, constant_value, dtype_error_name
from ..shapes.creators import _UNKNOWN, _as_dtype_tensor, _no_gradient, _scalar_of
# The creators math needs live below it, in shapes/creators.py; this module offers them with the others.
from ..shapes.creators import fill, ones, ones_like, range, zeros, zeros_like  # noqa: A004 - tf.range


def eye(num_rows, num_columns=None, batch_shape=None, dtype=_dt.float32, name=None):
    """`tf.eye` / `tf.linalg.eye`: identity matrices, optionally batched."""
    dtype = _dt.as_dtype(dtype)
    name = name or "eye"
    one, zero = _scalar_of(1, dtype), _scalar_of(0, dtype)
    rows = shape_of_value(num_rows) if not isinstance(num_rows, (list, tuple)) else None
    cols = rows if num_columns is None else (
        shape_of_value(num_columns) if not isinstance(num_columns, (list, tuple)) else None)
    batch = [] if batch_shape is None else shape_of_value(batch_shape)
    if rows is not None and cols is not None and batch is not None:
        n, m = rows[0], cols[0]
        for d in (n, m, *batch):
            if d < 0:
                raise errors.eager_error(errors.InvalidArgumentError, f"Dimension {d} must be >= 0", "Fill")
        arr = np.eye(n, m, dtype=dtype._np)
        if batch:
            arr = np.broadcast_to(arr, tuple(batch) + (n, m)).copy()
        return _eager_const(arr, name)
    # Sizes known only at run time: row i is the one-hot of i (rows past the last column are all zeros).
    n = convert_to_tensor(num_rows, dtype=_dt.int32)
    m = n if num_columns is None else convert_to_tensor(num_columns, dtype=_dt.int32)
    matrix = one_hot(range(n), m, on_value=one, off_value=zero, dtype=dtype, name=name)
    if batch_shape is None:
        return matrix
    target = concat([index_input(batch_shape, "Tidx", "BroadcastTo"), stack([n, m])], 0)
    return broadcast_to(matrix, target)


# range ---------------------------------------------------------------------------------------------


def _linspace_kernel(start, stop, num, axis):
    try:
        start, stop = np.broadcast_arrays(start, stop)
    except ValueError:
        raise bad(f"Incompatible shapes: {fmt_shape(start.shape)} vs. {fmt_shape(stop.shape)}") from None
    n = int(num)
    if n < 0:
        raise bad(f"Requires num > 0: {n}")
    dtype = start.dtype
    steps = np.arange(n, dtype=dtype).reshape((n,) + (1,) * start.ndim)
    if n > 1:
        delta = ((stop - start) / np.asarray(n - 1, dtype=dtype)).astype(dtype)
        out = (start + steps * delta).astype(dtype)
        out[-1] = stop  # the last value is exactly `stop`, as TensorFlow guarantees
    else:
        out = np.broadcast_to(start, (n,) + start.shape).astype(dtype)
    return np.moveaxis(out, 0, axis) if axis % (out.ndim) else out


def _linspace_infer(inputs, attrs):
    start, stop, num = inputs
    n = constant_value(num)
    n = None if n is None else int(n)
    shape = broadcast_shape(start.shape, stop.shape)
    if shape._dims is None:
        return [(start.dtype, _UNKNOWN)]
    rank = len(shape._dims) + 1
    a = _normalize_dim(attrs["axis"], rank, f"axis {attrs['axis']} is out of bounds for tensor of rank {rank}")
    return [(start.dtype, TensorShape(shape._dims[:a] + (n,) + shape._dims[a:]))]


def _linspace_grad(op, grad):
    """Value i is start·(1 - w_i) + stop·w_i with w = linspace(0, 1, num): weight the gradient by w."""
    start, stop, num = op.inputs
    rank = op.outputs[0].shape.rank
    if rank is None:
        raise ValueError("The gradient of linspace needs start and stop of known rank.")
    axis = op.attrs["axis"] % rank
    dtype = start.dtype._np
    weights = apply(LINSPACE, (constant(np.array(0, dtype)), constant(np.array(1, dtype)), num), {"axis": 0},
                    "linspace")
    weights = reshape(weights, [-1] + [1] * (rank - 1 - axis))
    to_stop = _reduce.reduce_sum(_math.multiply(grad, weights), axis=[axis])
    to_start = _math.subtract(_reduce.reduce_sum(grad, axis=[axis]), to_stop)
    return [_summation.reduce_to(to_start, start), _summation.reduce_to(to_stop, stop), None]


LINSPACE = OpDef("LinSpace", _linspace_infer, _linspace_kernel, grad=_linspace_grad, allowed=FLOAT,
                 same_dtype=False, input_names=("start", "stop", "num"))


def linspace(start, stop, num, name=None, axis=0):
    """`tf.linspace`: `num` evenly spaced values from `start` to `stop` inclusive (batched along `axis`)."""
    start = convert_to_tensor(start)
    try:
        stop = convert_to_tensor(stop, dtype=start.dtype)
    except ValueError as e:
        raise ValueError(f"stop: {e}") from None
    if start.dtype.is_integer:  # integer endpoints give float64 values, as in TensorFlow
        start, stop = _as_dtype_tensor(start, _dt.float64), _as_dtype_tensor(stop, _dt.float64)
    num = convert_to_tensor(num)
    if not num.dtype.is_integer:
        shown = num.numpy() if isinstance(num, EagerTensor) else num
        raise TypeError(f"Argument `tensor` (name: num) must be of type integer. Received `tensor` = {shown} "
                        f"of dtype: <dtype: '{num.dtype.name}'>")
    return apply(LINSPACE, (start, stop, num), {"axis": static_int(axis, "axis")}, name or "linspace")


# one_hot -------------------------------------------------------------------------------------------

_ONE_HOT_INDEX_TYPES = (_dt.uint8, _dt.int8, _dt.int32, _dt.int64)
_ONE_HOT_NUMPY_INDEX_TYPES = tuple(np.dtype(t.as_numpy_dtype) for t in _ONE_HOT_INDEX_TYPES)


def _one_hot_kernel(indices, depth, on_value, off_value, axis):
    if indices.dtype not in (np.uint8, np.int8, np.int32, np.int64):
        raise bad(f"Value for attr 'TI' of {dtype_error_name(_dt.FROM_NUMPY[indices.dtype])} is not in the list "
                  f"of allowed values: uint8, int8, int32, int64")
    d = int(depth)
    if d < 0:
        raise bad(f"depth must be non-negative, got: {d}")
    if not (axis == -1 or 0 <= axis <= indices.ndim):
        raise bad(f"Expected axis to be -1 or between [0, {indices.ndim + 1}).  But received: {axis}")
    hot = indices[..., None] == np.arange(d, dtype=np.int64)
    out = np.where(hot, on_value, off_value).astype(on_value.dtype, copy=False)
    return out if axis == -1 else np.moveaxis(out, -1, axis)


def _one_hot_infer(inputs, attrs):
    indices, depth, on_value, off_value = inputs
    axis = attrs["axis"]
    d = constant_value(depth)
    if d is None:     # a depth known through tf.shape(...) counts (a negative one stays for the kernel)
        d = partial_scalar(depth)
        d = None if d is not None and d < 0 else d
    else:
        d = int(d)
    dims = indices.shape._dims
    if dims is None:
        return [(on_value.dtype, _UNKNOWN)]
    if not (axis == -1 or 0 <= axis <= len(dims)):
        raise ValueError(f"Expected axis to be -1 or between [0, {len(dims) + 1}).  But received: {axis}")
    a = len(dims) if axis == -1 else axis
    return [(on_value.dtype, TensorShape(dims[:a] + (d,) + dims[a:]))]


ONE_HOT = OpDef("OneHot", _one_hot_infer, _one_hot_kernel, grad=_no_gradient,
                input_names=("indices", "depth", "on_value", "off_value"))


def _tf_dtype_text(dtype):
    return f"<dtype: '{dtype.name}'>"


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """`tf.one_hot`: `on_value` where the position equals the index, `off_value` elsewhere."""
    if isinstance(indices, (np.ndarray, np.generic)) and indices.dtype.kind in "biuf" and \
            indices.dtype not in _ONE_HOT_NUMPY_INDEX_TYPES:
        # TensorFlow converts a NumPy constant to the index attr's default type (int64), truncating
        # float labels; a Python list or a float tensor is still rejected below.
        indices = np.asarray(indices).astype(np.int64)
    indices = convert_to_tensor(indices)
    if dtype is not None:
        dtype = _dt.as_dtype(dtype)
    on = None if on_value is None else convert_to_tensor(on_value, dtype_hint=dtype)
    off = None if off_value is None else convert_to_tensor(off_value, dtype_hint=dtype)
    if dtype is not None:
        for label, t in (("on_value", on), ("off_value", off)):
            if t is not None and t.dtype is not dtype:
                raise TypeError(f"dtype {_tf_dtype_text(t.dtype)} of {label} does not match dtype parameter "
                                f"{_tf_dtype_text(dtype)}")
    if on is not None and off is not None and on.dtype is not off.dtype:
        raise TypeError(f"dtype {_tf_dtype_text(on.dtype)} of on_value does not match dtype "
                        f"{_tf_dtype_text(off.dtype)} of off_value")
    dtype = dtype or (on.dtype if on is not None else off.dtype if off is not None else _dt.float32)
    if on is None:
        on = convert_to_tensor(_scalar_of(1, dtype))
    if off is None:
        off = convert_to_tensor(_scalar_of(0, dtype))
    if indices.dtype not in _ONE_HOT_INDEX_TYPES:
        raise attr_type_error("TI", indices.dtype, "OneHot", _ONE_HOT_INDEX_TYPES, "indices")
    depth = convert_to_tensor(depth, dtype=_dt.int32) if not isinstance(depth, Tensor) else depth
    axis = -1 if axis is None else static_int(axis, "axis")
    return apply(ONE_HOT, (indices, depth, on, off), {"axis": axis}, name or "one_hot")


API = {
    "": ["eye", "linspace", "one_hot"],
    "linalg": ["eye"],
}
