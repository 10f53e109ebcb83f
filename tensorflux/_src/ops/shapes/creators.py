"""The creators the math ops build on: fill, zeros, ones, zeros_like, ones_like and range.

zeros/ones (and in graphs zeros_like/ones_like of a static shape) are constants when the shape is static
and small, as TensorFlow folds them: under 1000 elements; larger ones and shapes known only at run time
become Fill. range follows TensorFlow's dtype rule: the widest of its arguments'
dtypes in the order int32 < int64 < float16 < bfloat16 < float32 < float64. Fill's gradient (a sum)
is registered by math/summation.py, above this room.
"""
import numpy as np

from ...framework import errors
from ...framework.context import state as _state
from ...framework.tensor import EagerTensor, Tensor
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from .common import (_eager_const, bad, fmt_shape, index_input, shape_of_value, unknown_vector_dims,
    value_dims, partial_dims, partial_scalar)
from .shape_ops import shape
from ..conversion_ops import cast_tensor
from ..convert import convert_to_tensor
from ..infer import infer_unary
from ..registry import NUMBER, OpDef, apply, constant_value


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
        partial = partial_dims(dims) if dims.shape.rank == 1 else None   # dims known through tf.shape(...)
        if partial is not None and all(d is None or d >= 0 for d in partial):
            return [(value.dtype, TensorShape(partial))]
        return [(value.dtype, unknown_vector_dims(dims) if dims.shape.rank != 0 else TensorShape((None,)))]
    return [(value.dtype, TensorShape(_fill_dims(requested, True)))]


def _no_gradient(op, *grads):
    """Ops whose outputs do not depend differentiably on their inputs (as TensorFlow registers them)."""
    return [None] * len(op.inputs)


FILL = OpDef("Fill", _fill_infer, _fill_kernel, input_names=("dims", "value"))  # gradient: math/summation.py


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
    graph = _state.graph
    if graph is not None and int(np.prod(static, dtype=np.int64)) >= _FOLD_LIMIT:
        # TensorFlow folds only small fills into a constant; a large one stays a Fill of two constants
        # (`zeros/shape_as_tensor`, `zeros/Const`), which keeps big zeros out of GraphDefs and SavedModels.
        with graph.name_scope(name) as scope:
            dims = _eager_const(np.array(static, dtype=np.int64 if max(static) > _INT32_MAX else np.int32),
                                "shape_as_tensor")
            value = _eager_const(scalar, "Const")
            return apply(FILL, (dims, value), None, scope)
    if fill_value == 0 and dtype is not _dt.string:
        arr = np.zeros(static, dtype=dtype._np)
    else:
        arr = np.full(static, scalar, dtype=dtype._np)
    return _eager_const(arr, name)


_FOLD_LIMIT = 1000      # elements: TensorFlow's bound for folding zeros/ones into a constant in graphs
_INT32_MAX = 2**31 - 1


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
    if _state.graph is not None and input.shape.is_fully_defined() and input.dtype not in (_dt.variant, _dt.resource):
        # as TensorFlow builds graphs: a static shape needs no input, the value is zeros(shape)/ones(shape)
        return _filled(input.shape.as_list(), input.dtype if dtype is None else dtype, fill_value, name)
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
        if dtype.is_integer:     # bounds known through tf.shape(...) (TensorFlow's shape refiner)
            known = [partial_scalar(t) if v is None else int(np.asarray(v).reshape(())) for t, v in zip(inputs, values)]
            if None not in known and known[2] != 0:
                return [(dtype, TensorShape((_range_size(*known, True),)))]
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
    return cast_tensor(value, dtype)


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


API = {"": ["range", "zeros", "ones", "zeros_like", "ones_like", "fill"]}
