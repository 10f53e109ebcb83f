"""Sum, and summing a broadcast gradient back to an input's shape: the one reduction every gradient needs.

`reduce_to` is what binary-op gradients use:

    def _add_grad(op, grad):
        x, y = op.inputs
        return [reduce_to(grad, x), reduce_to(grad, y)]

With static shapes the reduction is a `reduce_sum` over the broadcast axes plus a reshape (decided
while building the gradient); with unknown dims it is one `SumToShape` op that reduces at run time.

This module sits below arith (whose gradients use `reduce_to`) and imports no other math module, so
the gradients here that need arithmetic are registered from above: Sum's by reduce.py. The gradients of
Fill and BroadcastTo (sums of the output gradient) are registered here onto their OpDefs in ops/shapes.
"""
import numpy as np

from ...framework import errors
from ...framework.tensor import Tensor
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..convert import convert_to_tensor, to_array
from ..infer import infer_reduce
from ..registry import NUMBER, OpDef, apply, constant_value
from ..shapes import creators as _creators
from ..shapes import shape_ops as _shape_ops
from ..shapes import shaping as _shaping
from ..shapes.common import attr_type_error
from . import eigen_sum as _eigen_sum

__all__ = ["SUM", "reduce_sum", "static_axis", "reduce_to", "SUM_TO_SHAPE"]

_NARROW_FLOATS = (np.dtype(np.float16), _dt.bfloat16._np)


_add_reduce = np.add.reduce
_FLOAT32 = np.dtype(np.float32)


def _reduction_axes(x, axis):
    """`axis` checked against x's rank and made non-negative, with TensorFlow's run-time messages."""
    if axis is None:
        return None
    rank = x.ndim
    seen = []
    for a in axis:
        if not -rank <= a < rank:
            raise errors.InvalidArgumentError(
                None, None, f"Invalid reduction dimension ({a} for input with {rank} dimension(s)")
        a %= rank
        if a in seen:
            raise errors.InvalidArgumentError(
                None, None, f"Invalid reduction arguments: Axes contains duplicate dimension: {a}")
        seen.append(a)
    return tuple(seen)


def _sum_kernel(x, axis=None, keepdims=False):
    if x.dtype is _FLOAT32:     # TensorFlow's (Eigen's) order of additions, so the last bits agree
        return _eigen_sum.reduce_sum(x, None if axis is None else _reduction_axes(x, axis), keepdims)
    if x.dtype in _NARROW_FLOATS:  # half precision accumulates in float32, as TensorFlow's kernels do
        return np.sum(x, axis=_reduction_axes(x, axis), keepdims=keepdims, dtype=np.float32).astype(x.dtype)
    if x.dtype == _FLOAT32:     # a float32 dtype object other than NumPy's native one
        return _eigen_sum.reduce_sum(x, _reduction_axes(x, axis), keepdims)
    # np.add.reduce is np.sum without its Python-level dispatch (this kernel runs in every loop iteration)
    return _add_reduce(x, _reduction_axes(x, axis), x.dtype, None, keepdims)


# Sum's own gradient (the output gradient spread back over the reduced axes) needs arith: reduce.py
# registers it.
SUM = OpDef("Sum", infer_reduce, _sum_kernel, allowed=NUMBER, input_names=("input",))


def static_axis(axis, what="axis", op_name=None):
    """A reduction `axis` argument as None or a tuple of ints (tensors must have a known value).

    Values TensorFlow cannot convert raise its conversion error (ValueError eagerly, TypeError in a graph);
    a string axis is its attr error for `Tidx` when `op_name` is given."""
    if axis is None:
        return None
    if isinstance(axis, Tensor):
        value = constant_value(axis)
        if value is None:
            raise TypeError(f"`{what}` must be statically known (a Python int, list of ints or a constant "
                            f"tensor), got {axis!r}")
        axis = value
    if isinstance(axis, (list, tuple)) and len(axis) == 0:
        return ()
    if isinstance(axis, (np.ndarray, np.generic)):
        arr = np.asarray(axis)
    else:
        try:
            arr = to_array(axis)
        except (TypeError, ValueError) as e:
            raise type(e)(f"`{what}`: {e}") from None
    if arr.dtype.kind not in "iu" or arr.ndim > 1:
        if op_name is not None and arr.dtype.kind in "OSU" and arr.ndim <= 1:
            raise attr_type_error("Tidx", _dt.string, op_name)
        raise TypeError(f"Cannot convert {axis!r} to EagerTensor of dtype int32")
    return tuple(int(a) for a in arr.reshape(-1))


def _reduce(opdef, default_name):
    def fn(input_tensor, axis=None, keepdims=False, name=None):
        if not isinstance(input_tensor, Tensor):
            input_tensor = convert_to_tensor(input_tensor)
        attrs = {"axis": static_axis(axis, op_name=opdef.name), "keepdims": bool(keepdims)}
        return apply(opdef, (input_tensor,), attrs, name or default_name)
    fn.__name__ = default_name
    return fn


reduce_sum = _reduce(SUM, "Sum")


# -- summing a broadcast gradient back ----------------------------------------------------------------
def _sum_to_shape(grad, shape):
    shape = tuple(int(d) for d in shape)
    extra = grad.ndim - len(shape)
    axes = tuple(range(extra)) + tuple(i + extra for i, d in enumerate(shape) if d == 1 and grad.shape[i + extra] != 1)
    out = grad.sum(axis=axes, dtype=grad.dtype) if axes else grad
    return np.reshape(out, shape)


def _infer_sum_to_shape(inputs, attrs):
    value = constant_value(inputs[1])
    if value is not None:
        return [(inputs[0].dtype, TensorShape([int(d) for d in value]))]
    producer = getattr(inputs[1], "op", None)
    if producer is not None and producer.type == "Shape":  # reducing to another tensor's (partial) shape
        return [(inputs[0].dtype, producer.inputs[0].shape)]
    n = inputs[1].shape[0] if inputs[1].shape.rank == 1 else None
    return [(inputs[0].dtype, TensorShape([None] * n) if n is not None else TensorShape(None))]


def _sum_to_shape_grad(op, grad):
    return [_shaping.broadcast_to(grad, _shape_ops.shape(op.inputs[0])), None]


SUM_TO_SHAPE = OpDef("SumToShape", _infer_sum_to_shape, _sum_to_shape, grad=_sum_to_shape_grad)


def reduce_to(grad, like):
    """`grad` summed over the axes along which `like` was broadcast, reshaped to `like`'s shape."""
    gs, ls = grad.shape, like.shape
    if gs.is_fully_defined() and ls.is_fully_defined():
        g, l = gs.as_list(), ls.as_list()
        if g == l:
            return grad
        extra = len(g) - len(l)
        axes = list(range(extra)) + [i + extra for i, d in enumerate(l) if d == 1 and g[i + extra] != 1]
        out = reduce_sum(grad, axis=axes) if axes else grad
        return _shaping.reshape(out, l)
    return apply(SUM_TO_SHAPE, (grad, _shape_ops.shape(like)), None, "SumToShape")


def _broadcast_to_grad(op, grad):
    """BroadcastTo's gradient: `grad` summed back to the input's shape (always reshaped to it)."""
    x = op.inputs[0]
    gs, xs = grad.shape, x.shape
    if gs.is_fully_defined() and xs.is_fully_defined():
        g, d = gs.as_list(), xs.as_list()
        extra = len(g) - len(d)
        axes = list(range(extra)) + [i + extra for i, n in enumerate(d) if n == 1 and g[i + extra] != 1]
        return [_shaping.reshape(reduce_sum(grad, axis=axes) if axes else grad, d), None]
    return [apply(SUM_TO_SHAPE, (grad, _shape_ops.shape(x)), None, "SumToShape"), None]


def _fill_grad(op, grad):
    """Every element is `value`, so its gradient is the sum of the output gradient."""
    return [None, _shaping.reshape(reduce_sum(grad), _shape_ops.shape_of(op.inputs[1]))]


_creators.FILL.grad = _fill_grad
_shaping.BROADCAST_TO.grad = _broadcast_to_grad
