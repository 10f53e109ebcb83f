"""Helpers for writing gradients: reducing a broadcast gradient back to an input's shape.

    def _add_grad(op, grad):
        x, y = op.inputs
        return [reduce_to(grad, x), reduce_to(grad, y)]

With static shapes the reduction is a `reduce_sum` over the broadcast axes plus a reshape (decided
while building the gradient); with unknown dims it is one `SumToShape` op that reduces at run time.
"""
import numpy as np

from ..types.shape import TensorShape
from .array import shape_ops as _shape_ops
from .array import shaping as _shaping
from .math import reduce as _reduce
from .registry import OpDef, apply, constant_value

__all__ = ["reduce_to", "SUM_TO_SHAPE"]


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
        out = _reduce.reduce_sum(grad, axis=axes) if axes else grad
        return _shaping.reshape(out, l)
    return apply(SUM_TO_SHAPE, (grad, _shape_ops.shape(like)), None, "SumToShape")
