"""`tf.where`: the coordinates of the true elements of a condition (Where), or an elementwise choice
between two tensors (SelectV2, broadcasting), as TensorFlow's two ops behind the one function.
"""
import numpy as np

from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..shapes import creators as _creators
from ..math import summation as _summation
from ..shapes.common import bad, fmt_shape
from ..convert import binary_operands, convert_to_tensor
from ..infer import broadcast_shape
from ..registry import NUMBER, OpDef, apply


# ---------------------------------------------------------------------------------------------------
# where (Where / SelectV2)
# ---------------------------------------------------------------------------------------------------

def _where_kernel(x):
    if x.ndim == 0:
        raise bad("WhereOp : Unhandled input dimensions: 0")
    return np.argwhere(x).astype(np.int64, copy=False)


def _where_infer(inputs, attrs):
    rank = inputs[0].shape.rank
    if rank == 0:
        raise ValueError("WhereOp : Unhandled input dimensions: 0")
    return [(_dt.int64, TensorShape((None, rank)))]


WHERE = OpDef("Where", _where_infer, _where_kernel, allowed=NUMBER + (_dt.bool,), input_names=("input",))


def _select_kernel(condition, x, y):
    if x.dtype != y.dtype:
        raise bad(f"cannot compute SelectV2 as input #2(zero-based) was expected to be a "
                  f"{_dt.FROM_NUMPY[x.dtype].name} tensor but is a {_dt.FROM_NUMPY[y.dtype].name} tensor")
    try:
        np.broadcast_shapes(condition.shape, x.shape, y.shape)
    except ValueError:
        raise bad(f"condition {fmt_shape(condition.shape)}, then {fmt_shape(x.shape)}, and else "
                  f"{fmt_shape(y.shape)} must be broadcastable") from None
    return np.where(condition, x, y)


def _select_infer(inputs, attrs):
    condition, x, y = inputs
    if x.dtype is not y.dtype:
        raise TypeError(f"Input 'e' of 'SelectV2' Op has type {y.dtype.name} that does not match type "
                        f"{x.dtype.name} of argument 't'.")
    return [(x.dtype, broadcast_shape(broadcast_shape(condition.shape, x.shape), y.shape))]


def _select_grad(op, grad):
    condition, x, y = op.inputs
    zeros = _creators.zeros_like(grad)
    return [None, _summation.reduce_to(where(condition, grad, zeros), x),
            _summation.reduce_to(where(condition, zeros, grad), y)]


SELECT_V2 = OpDef("SelectV2", _select_infer, _select_kernel, grad=_select_grad, allowed=(_dt.bool,),
                  input_names=("condition", "t", "e"))


def where(condition, x=None, y=None, name=None):
    """`tf.where`: with only `condition`, the int64 coordinates of its true elements ([N, rank]);
    with `x` and `y`, elements of `x` where `condition` is true and of `y` elsewhere (broadcasting)."""
    if x is None and y is None:
        condition = convert_to_tensor(condition)
        return apply(WHERE, (condition,), None, name or "Where")
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    condition = convert_to_tensor(condition, dtype=_dt.bool)
    x, y = binary_operands(x, y)
    return apply(SELECT_V2, (condition, x, y), None, name or "SelectV2")


API = {"": ["where"]}
