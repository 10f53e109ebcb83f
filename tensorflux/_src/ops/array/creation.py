"""Creator ops: range, zeros, ones, zeros_like, ones_like, fill, eye, linspace and one_hot.

zeros/ones/eye with a static shape are constants (TensorFlow folds them the same way); with a shape known
only at run time they become Fill (or OneHot for eye). range follows TensorFlow's dtype rule: the widest
of its arguments' dtypes in the order int32 < int64 < float16 < bfloat16 < float32 < float64.
"""
import numpy as np

from ...framework import errors
from ...framework.context import state as _state
from ...framework.tensor import EagerTensor, Tensor
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from .. import grad_util as _grad_util
from ..math import arith as _math
from ..math import reduce as _reduce
from .common import (_eager_const, _normalize_dim, attr_type_error, bad, fmt_shape, index_input, shape_of_value,
                     static_int, unknown_vector_dims, value_dims)
from .join import concat, stack
from .shape_ops import shape, shape_of
from .shaping import broadcast_to, reshape
from ..convert import constant, convert_to_tensor
from ..infer import broadcast_shape, infer_unary
from ..registry import FLOAT, NUMBER, OpDef, apply, constant_value, dtype_error_name

__all__ = ["range", "zeros", "ones", "zeros_like", "ones_like", "fill", "eye", "linspace", "one_hot"]

_UNKNOWN = TensorShape(None)


# ---------------------------------------------------------------------------------------------------
# Creators: fill, zeros, ones, *_like, eye, range, linspace, one_hot
# ---------------------------------------------------------------------------------------------------

def _fill_dims(dims, static):
    for d in dims:
        if d < 0:
            msg = f"Dimension {d} must be >= 0"
            raise ValueError(msg) if static else bad(msg)
    return tuple(dims)


def _fill_kernel(dims, value):
    if dims.ndim > 1:
        raise bad(f"dims must be a vector, got shape {fmt_shape(dims.shape)}")
    if value.ndim > 1 or value.size != 1:
        raise bad(f"value must represent a scalar, got shape {fmt_shape(value.shape)}")
    return np.full(_fill_dims(np.reshape(dims, -1).tolist(), False), value.reshape(()), dtype=value.dtype)


def _fill_infer(inputs, attrs):
    dims, value = inputs
    requested = value_dims(dims)
    if requested is None:
        return [(value.dtype, unknown_vector_dims(dims) if dims.shape.rank != 0 else TensorShape((None,)))]
    return [(value.dtype, TensorShape(_fill_dims(requested, True)))]


def _fill_grad(op, grad):
    """Every element is `value`, so its gradient is the sum of the output gradient."""
    return [None, reshape(_reduce.reduce_sum(grad), shape_of(op.inputs[1]))]


def _no_gradient(op, *grads):
    """Ops whose outputs do not depend differentiably on their inputs (as TensorFlow registers them)."""
    return [None] * len(op.inputs)


FILL = OpDef("Fill", _fill_infer, _fill_kernel, grad=_fill_grad, input_names=("dims", "value"))


def fill(dims, value, name=None):
    """`tf.fill`: a tensor of shape `dims` with every element `value`."""
    dims = index_input(dims, "index_type", "Fill", "dims")
    value = convert_to_tensor(value)
    return apply(FILL, (dims, value), None, name or "Fill")


def _scalar_of(value, dtype):
    """0 or 1 as a scalar array of `dtype` (False/True for bool; 0 is b"" for strings, 1 is an error)."""
    if dtype is _dt.string:
        if value:
            raise TypeError(f"Cannot convert {value} to EagerTensor of dtype string")
        return np.array(b"", dtype=object)
    return np.array(value).astype(dtype._np)


def _filled(shape, dtype, fill_value, name):
    """zeros/ones: a constant when the shape is static (as TensorFlow folds it), else a Fill."""
    dtype = _dt.as_dtype(dtype)
    scalar = _scalar_of(fill_value, dtype)
    static = shape_of_value(shape)
    if static is None:
        if isinstance(shape, (list, tuple)) and any(isinstance(d, float) for d in shape):
            raise TypeError(f"Cannot convert {list(shape)!r} to EagerTensor of dtype int32")
        return fill(shape, _eager_const(np.asarray(scalar), "Const"), name=name)
    for d in static:
        if d < 0:
            raise errors.eager_error(errors.InvalidArgumentError, f"Dimension {d} must be >= 0", "Fill")
    if fill_value == 0 and dtype is not _dt.string:
        arr = np.zeros(static, dtype=dtype._np)
    else:
        arr = np.full(static, scalar, dtype=dtype._np)
    return _eager_const(arr, name)


def zeros(shape, dtype=_dt.float32, name=None):
    """`tf.zeros`: a tensor of `shape` (list, tuple, TensorShape or tensor) filled with zeros."""
    return _filled(shape, dtype, 0, name or "zeros")


def ones(shape, dtype=_dt.float32, name=None):
    """`tf.ones`: a tensor of `shape` filled with ones."""
    return _filled(shape, dtype, 1, name or "ones")


def _zeros_like_kernel(x):
    if x.dtype == object:
        return np.full(x.shape, b"", dtype=object)
    return np.zeros_like(x)


def _ones_like_kernel(x):
    return np.ones_like(x)


ZEROS_LIKE = OpDef("ZerosLike", infer_unary, _zeros_like_kernel, grad=_no_gradient)
ONES_LIKE = OpDef("OnesLike", infer_unary, _ones_like_kernel, grad=_no_gradient, allowed=NUMBER + (_dt.bool,))


def _like(input, dtype, opdef, fill_value, name):  # noqa: A002
    input = convert_to_tensor(input)
    if dtype is None or _dt.as_dtype(dtype) is input.dtype:
        return apply(opdef, (input,), None, name)
    if input.shape.is_fully_defined():
        return _filled(input.shape.as_list(), dtype, fill_value, name)
    return _filled(shape(input), dtype, fill_value, name)


def zeros_like(input, dtype=None, name=None):  # noqa: A002
    """`tf.zeros_like`: zeros with the shape (and by default the dtype) of `input`."""
    return _like(input, dtype, ZEROS_LIKE, 0, name or "zeros_like")


def ones_like(input, dtype=None, name=None):  # noqa: A002
    """`tf.ones_like`: ones with the shape (and by default the dtype) of `input`."""
    return _like(input, dtype, ONES_LIKE, 1, name or "ones_like")


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

_RANGE_TYPES = (_dt.bfloat16, _dt.float16, _dt.float32, _dt.float64, _dt.int8, _dt.int16, _dt.int32, _dt.int64,
                _dt.uint16, _dt.uint32, _dt.uint64)
# TensorFlow infers range's dtype as the widest of its arguments' in this order.
_RANGE_HIERARCHY = (_dt.int32, _dt.int64, _dt.float16, _dt.bfloat16, _dt.float32, _dt.float64)


def _num_text(v):
    return f"{v:g}" if isinstance(v, (float, np.floating)) else str(v)


def _range_size(start, limit, delta, static):
    """The number of elements of range(start, limit, delta) (NumPy scalars of one dtype)."""
    def fail(msg):
        return ValueError(msg) if static else bad(msg)
    if delta == 0:
        raise fail(f"Requires delta != 0: {_num_text(delta)}")
    if delta > 0 and start > limit:
        raise fail(f"Requires start <= limit when delta > 0: {_num_text(start)}/{_num_text(limit)}")
    if delta < 0 and start < limit:
        raise fail(f"Requires start >= limit when delta < 0: {_num_text(start)}/{_num_text(limit)}")
    if isinstance(start, np.integer):
        span, step = abs(int(limit) - int(start)), abs(int(delta))
        return (span + step - 1) // step
    return int(np.ceil(np.abs((limit - start) / delta)))  # in the tensor's dtype, as TensorFlow does


def _range_kernel(start, limit, delta):
    for label, v in (("start", start), ("limit", limit), ("delta", delta)):
        if v.ndim:
            raise bad(f"{label} must be a scalar, not shape {fmt_shape(v.shape)}")
    start, limit, delta = start[()], limit[()], delta[()]
    n = _range_size(start, limit, delta, False)
    dtype = start.dtype
    return (np.arange(n, dtype=dtype) * delta + start).astype(dtype, copy=False)


def _range_infer(inputs, attrs):
    values = [constant_value(t) for t in inputs]
    dtype = inputs[0].dtype
    if any(v is None for v in values):
        return [(dtype, TensorShape((None,)))]
    start, limit, delta = (np.asarray(v).reshape(())[()] for v in values)
    return [(dtype, TensorShape((_range_size(start, limit, delta, True),)))]


RANGE = OpDef("Range", _range_infer, _range_kernel, grad=_no_gradient, allowed=_RANGE_TYPES, same_dtype=True,
              input_names=("start", "limit", "delta"))


def _as_dtype_tensor(value, dtype):
    """`value` as a tensor of `dtype`; tensors of another dtype are cast (as TensorFlow's range does)."""
    if not isinstance(value, Tensor):
        return convert_to_tensor(value, dtype=dtype)
    if value.dtype is dtype:
        return value
    if _state.graph is None:
        return EagerTensor(np.asarray(value._value).astype(dtype._np))
    return _math.cast(value, dtype)


def range(start, limit=None, delta=1, dtype=None, name="range"):  # noqa: A001 - TensorFlow's name
    """`tf.range`: `[start, start + delta, ...)` up to `limit`; `tf.range(n)` counts from 0."""
    if limit is None:
        start, limit = 0, start
    if dtype is not None:
        dtype = _dt.as_dtype(dtype)
    else:
        args = [a if isinstance(a, Tensor) else convert_to_tensor(a) for a in (start, limit, delta)]
        kinds = {a.dtype for a in args}
        if kinds <= set(_RANGE_HIERARCHY):
            dtype = max(kinds, key=_RANGE_HIERARCHY.index)
        elif len(kinds) == 1:
            dtype = kinds.pop()
        else:
            raise TypeError(f"Cannot infer the dtype of tf.range from arguments of dtypes "
                            f"{sorted(k.name for k in kinds)}; pass dtype=")
        start, limit, delta = args
    inputs = tuple(_as_dtype_tensor(v, dtype) for v in (start, limit, delta))
    return apply(RANGE, inputs, None, name)


# linspace ------------------------------------------------------------------------------------------

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
    return [_grad_util.reduce_to(to_start, start), _grad_util.reduce_to(to_stop, stop), None]


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
    d = None if d is None else int(d)
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
    "": ["range", "zeros", "ones", "zeros_like", "ones_like", "fill", "eye", "linspace", "one_hot"],
    "linalg": ["eye"],
}
