"""Comparisons, logical and bitwise ops (`tf.math.equal`, `tf.math.logical_and`, `tf.bitwise.*`)."""
import numpy as np

from ...framework import errors
from ...framework.tensor import Tensor
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..convert import convert_to_tensor
from ..elementwise import (binary_function as _binary, unary_function as _unary, hinted as _hinted,
    error_name as _error_name)
from ..infer import infer_broadcast, infer_compare, infer_unary
from ..registry import OpDef, apply, INT, REAL

_BOOL = np.dtype(np.bool_)


# -- comparisons and logic -------------------------------------------------------------------------

def _equal_kernel(fn):
    def kernel(x, y, incompatible_shape_error=True):
        try:
            return fn(x, y)
        except ValueError:
            if incompatible_shape_error:
                raise
            # TensorFlow's operators compare tensors of incompatible shapes as "not equal".
            return np.bool_(fn is np.not_equal)
    kernel.__name__ = fn.__name__
    return kernel


def _infer_equal(inputs, attrs):
    try:
        return infer_compare(inputs, attrs)
    except ValueError:
        if attrs.get("incompatible_shape_error", True):
            raise
        return [(_dt.bool, TensorShape(()))]


def _bool_only(op_name, fn):
    """A logical kernel with TensorFlow's message for non-bool inputs (these ops have no `T` attr)."""
    def kernel(*arrays):
        for i, a in enumerate(arrays):
            if a.dtype != _BOOL:
                raise errors.InvalidArgumentError(
                    None, None, f"cannot compute {op_name} as input #{i}(zero-based) was expected to be a bool "
                                f"tensor but is a {_error_name(a.dtype)} tensor")
        return fn(*arrays)
    kernel.__name__ = fn.__name__
    return kernel


_ORDERED = REAL
EQUAL = OpDef("Equal", _infer_equal, _equal_kernel(np.equal), same_dtype=True)
NOT_EQUAL = OpDef("NotEqual", _infer_equal, _equal_kernel(np.not_equal), same_dtype=True)
LESS = OpDef("Less", infer_compare, np.less, same_dtype=True, allowed=_ORDERED)
LESS_EQUAL = OpDef("LessEqual", infer_compare, np.less_equal, same_dtype=True, allowed=_ORDERED)
GREATER = OpDef("Greater", infer_compare, np.greater, same_dtype=True, allowed=_ORDERED)
GREATER_EQUAL = OpDef("GreaterEqual", infer_compare, np.greater_equal, same_dtype=True, allowed=_ORDERED)
LOGICAL_AND = OpDef("LogicalAnd", infer_broadcast, _bool_only("LogicalAnd", np.logical_and))
LOGICAL_OR = OpDef("LogicalOr", infer_broadcast, _bool_only("LogicalOr", np.logical_or))
LOGICAL_NOT = OpDef("LogicalNot", infer_unary, _bool_only("LogicalNot", np.logical_not))

equal = _binary(EQUAL, "Equal")
not_equal = _binary(NOT_EQUAL, "NotEqual")
less = _binary(LESS, "Less")
less_equal = _binary(LESS_EQUAL, "LessEqual")
greater = _binary(GREATER, "Greater")
greater_equal = _binary(GREATER_EQUAL, "GreaterEqual")


def _bool_operands(x, y):
    if not isinstance(x, Tensor):
        x = convert_to_tensor(x, dtype=_dt.bool) if not isinstance(y, Tensor) else _hinted(x, y)
    if not isinstance(y, Tensor):
        y = convert_to_tensor(y, dtype=x.dtype if x.dtype is _dt.bool else None)
    return x, y


def logical_and(x, y, name=None):
    """`tf.math.logical_and` (bool tensors only)."""
    x, y = _bool_operands(x, y)
    return apply(LOGICAL_AND, (x, y), None, name or "LogicalAnd")


def logical_or(x, y, name=None):
    """`tf.math.logical_or` (bool tensors only)."""
    x, y = _bool_operands(x, y)
    return apply(LOGICAL_OR, (x, y), None, name or "LogicalOr")


def logical_not(x, name=None):
    """`tf.math.logical_not` (bool tensors only)."""
    if not isinstance(x, Tensor):
        x = convert_to_tensor(x, dtype=_dt.bool)
    return apply(LOGICAL_NOT, (x,), None, name or "LogicalNot")


def logical_xor(x, y, name="LogicalXor"):
    """`tf.math.logical_xor`: built, like TensorFlow's, as (x or y) and not (x and y)."""
    x, y = _bool_operands(x, y)
    return logical_and(logical_or(x, y), logical_not(logical_and(x, y)), name=name)


# -- bitwise -----------------------------------------------------------------------------------------

def _shift_kernel(fn):
    def kernel(x, y):
        # TensorFlow clamps the shift amount to [0, bits - 1] instead of leaving it undefined.
        bits = x.dtype.itemsize * 8
        return fn(x, np.clip(y, 0, bits - 1).astype(x.dtype, copy=False))
    kernel.__name__ = fn.__name__
    return kernel


BITWISE_AND = OpDef("BitwiseAnd", infer_broadcast, np.bitwise_and, same_dtype=True, allowed=INT)
BITWISE_OR = OpDef("BitwiseOr", infer_broadcast, np.bitwise_or, same_dtype=True, allowed=INT)
BITWISE_XOR = OpDef("BitwiseXor", infer_broadcast, np.bitwise_xor, same_dtype=True, allowed=INT)
INVERT = OpDef("Invert", infer_unary, np.invert, allowed=INT)
LEFT_SHIFT = OpDef("LeftShift", infer_broadcast, _shift_kernel(np.left_shift), same_dtype=True, allowed=INT)
RIGHT_SHIFT = OpDef("RightShift", infer_broadcast, _shift_kernel(np.right_shift), same_dtype=True, allowed=INT)

bitwise_and = _binary(BITWISE_AND, "BitwiseAnd")
bitwise_or = _binary(BITWISE_OR, "BitwiseOr")
bitwise_xor = _binary(BITWISE_XOR, "BitwiseXor")
invert = _unary(INVERT)
left_shift = _binary(LEFT_SHIFT, "LeftShift")
right_shift = _binary(RIGHT_SHIFT, "RightShift")


API = {
    "": ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and", "logical_or",
         "logical_not"],
    "math": ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and",
             "logical_or", "logical_not", "logical_xor"],
    "bitwise": ["bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift", "right_shift"],
}
