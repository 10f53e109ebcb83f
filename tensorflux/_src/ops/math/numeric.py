"""Small numeric functions of `tf.math`: `nextafter` (NextAfter), `reciprocal_no_nan`, `polyval`
(Horner's rule), `accumulate_n` (add_n), the order predicates `is_non_decreasing` /
`is_strictly_increasing`, and `zero_fraction`.
"""
import numpy as np

from ...framework.tensor import Tensor
from ...types import dtypes as _dt
from ..convert import convert_to_tensor
from ..elementwise import function_operands
from ..infer import infer_broadcast
from ..registry import OpDef, apply
from ..shapes import creators as _creators
from ..shapes import shaping as _shaping
from . import arith as _math
from . import logic as _logic
from . import reduce as _reduce
from . import summation as _summation


def _tensor(x):
    return x if isinstance(x, Tensor) else convert_to_tensor(x)


def _next_after_grad(op, grad):
    """TensorFlow's NextAfter gradient: 1 for x1 and 0 for x2, each times `grad` (so an inf or NaN upstream
    gradient gives NaN for x2, as in TensorFlow), summed back to the operand's shape."""
    x1, x2 = op.inputs
    return [_summation.reduce_to(grad, x1),
            _summation.reduce_to(_math.multiply(_creators.zeros_like(x2), grad), x2)]


NEXT_AFTER = OpDef("NextAfter", infer_broadcast, np.nextafter, same_dtype=True, allowed=(_dt.float64, _dt.float32),
                   input_names=("x1", "x2"), grad=_next_after_grad)


def nextafter(x1, x2, name=None):
    """`tf.math.nextafter`: the next representable value after x1 in the direction of x2."""
    x1, x2 = function_operands(x1, x2)
    return apply(NEXT_AFTER, (x1, x2), None, name or "NextAfter")


def reciprocal_no_nan(x, name=None):
    """`tf.math.reciprocal_no_nan`: 1 / x, and 0 where x is 0."""
    x = _tensor(x)
    if not (x.dtype.is_floating or x.dtype.is_complex):
        raise TypeError(f"x has to be a float or complex tensor, got {x.dtype.name}")
    return _math.divide_no_nan(_math.cast(1, x.dtype), x, name=name)


def polyval(coeffs, x, name=None):
    """`tf.math.polyval`: coeffs[0] * x^(n-1) + ... + coeffs[n-1], by Horner's rule (0 for no coefficients)."""
    if not isinstance(coeffs, (list, tuple)):
        raise ValueError(f"Argument coeffs must be list type found {type(coeffs)}.")
    x = _tensor(x)
    if not coeffs:
        return _math.multiply(x, _math.cast(0, x.dtype), name=name)
    result = _math.cast(_tensor(coeffs[0]), x.dtype) if not isinstance(coeffs[0], Tensor) else coeffs[0]
    for c in coeffs[1:]:
        result = _math.add(_math.multiply(result, x), c)
    return result


def accumulate_n(inputs, shape=None, tensor_dtype=None, name=None):
    """`tf.math.accumulate_n` (deprecated in TensorFlow for add_n): the elementwise sum of `inputs`."""
    inputs = [_tensor(t) for t in inputs]
    if tensor_dtype is not None:
        for t in inputs:
            if t.dtype != _dt.as_dtype(tensor_dtype):
                raise TypeError(f"tensor_dtype is {_dt.as_dtype(tensor_dtype).name}, but input is of type "
                                f"{t.dtype.name}")
    if shape is not None and inputs:
        for t in inputs:
            if not t.shape.is_compatible_with(shape):
                raise ValueError(f"Shape of input {t.shape} is incompatible with shape {shape}")
    return _math.add_n(inputs, name=name)


def _consecutive(x, compare, name):
    x = _shaping.reshape(_tensor(x), [-1])
    return _reduce.reduce_all(compare(x[:-1], x[1:]), name=name)


def is_non_decreasing(x, name=None):
    """`tf.math.is_non_decreasing`: True when each element (flattened) is >= the one before it."""
    return _consecutive(x, _logic.less_equal, name)


def is_strictly_increasing(x, name=None):
    """`tf.math.is_strictly_increasing`: True when each element (flattened) is > the one before it."""
    return _consecutive(x, _logic.less, name)


def zero_fraction(value, name=None):
    """`tf.math.zero_fraction` (also `tf.nn.zero_fraction`): the fraction of elements equal to zero, as
    float32."""
    value = _tensor(value)
    zeros = _math.cast(_logic.equal(value, _math.cast(0, value.dtype)), _dt.float32)
    return _reduce.reduce_mean(zeros, name=name)


API = {
    "math": ["nextafter", "reciprocal_no_nan", "polyval", "accumulate_n", "is_non_decreasing",
             "is_strictly_increasing", "zero_fraction"],
    "nn": ["zero_fraction"],
}
