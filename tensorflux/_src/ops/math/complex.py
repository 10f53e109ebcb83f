"""Complex numbers from and to their parts: `tf.complex`, `tf.math.real`, `tf.math.imag`, `tf.math.angle`.

Gradients follow TensorFlow's convention for real losses of complex values: the gradient with respect
to z = x + iy is dL/dx + i·dL/dy. So `Complex(x, y)` hands back the real and imaginary parts of its
gradient, `Real` and `Imag` put a real gradient into the matching part, and `Angle` (atan2(y, x)) gives
-g / (y + ix). On real inputs `real` is the identity, `imag` is zeros and `angle` is π where x < 0.
"""
import math

import numpy as np

from ...framework.tensor import Tensor
from ...types import dtypes as _dt
from ..shapes import creators as _creators
from . import summation as _summation
from . import arith as _math
from ..convert import convert_to_tensor
from ..infer import infer_broadcast
from ..registry import COMPLEX, OpDef, apply

__all__ = ["complex", "real", "imag", "angle"]

_COMPLEX_OF = {_dt.float32: _dt.complex64, _dt.float64: _dt.complex128}


def _infer_complex(inputs, attrs):
    return [(_COMPLEX_OF[inputs[0].dtype], infer_broadcast(inputs, attrs)[0][1])]


def _complex_kernel(re, im):
    out = np.empty(np.broadcast_shapes(re.shape, im.shape), np.result_type(re.dtype, np.complex64))
    out.real, out.imag = re, im
    return out


def _infer_part(inputs, attrs):
    return [(inputs[0].dtype.real_dtype, inputs[0].shape)]


def _complex_grad(op, grad):
    re, im = op.inputs
    return [_summation.reduce_to(real(grad), re), _summation.reduce_to(imag(grad), im)]


def _real_grad(op, grad):
    return [complex(grad, _creators.zeros_like(grad))]


def _imag_grad(op, grad):
    return [complex(_creators.zeros_like(grad), grad)]


def _angle_grad(op, grad):
    z = op.inputs[0]
    rotated = complex(imag(z), real(z))      # y + ix
    return [_math.negative(_math.divide(complex(grad, _creators.zeros_like(grad)), rotated))]


COMPLEX_OP = OpDef("Complex", _infer_complex, _complex_kernel, allowed=(_dt.float32, _dt.float64),
                   grad=_complex_grad)
REAL = OpDef("Real", _infer_part, np.real, allowed=COMPLEX, grad=_real_grad)
IMAG = OpDef("Imag", _infer_part, np.imag, allowed=COMPLEX, grad=_imag_grad)
ANGLE = OpDef("Angle", _infer_part, np.angle, allowed=COMPLEX, grad=_angle_grad)


def complex(real, imag, name=None):
    """`tf.complex`: real + i·imag, from two float32 (→ complex64) or float64 (→ complex128) tensors."""
    real = real if isinstance(real, Tensor) else convert_to_tensor(real, dtype_hint=_dt.float32)
    imag = imag if isinstance(imag, Tensor) else convert_to_tensor(imag, dtype_hint=_dt.float32)
    if real.dtype is not imag.dtype or real.dtype not in _COMPLEX_OF:
        raise TypeError(f"The `real` and `imag` components have incorrect types: {real.dtype.name} "
                        f"{imag.dtype.name}. They must be consistent, and one of [tf.float32, tf.float64]")
    return apply(COMPLEX_OP, (real, imag), None, name or "Complex")


def real(input, name=None):
    input = input if isinstance(input, Tensor) else convert_to_tensor(input)
    if not input.dtype.is_complex:
        if input.dtype.is_bool or input.dtype is _dt.string:  # a real number is returned as it is
            raise TypeError(f"input must be a numeric tensor, but got tensor with dtype {input.dtype!r}")
        return input
    return apply(REAL, (input,), None, name or "Real")


def imag(input, name=None):
    input = input if isinstance(input, Tensor) else convert_to_tensor(input)
    if not input.dtype.is_complex:
        return _creators.zeros_like(input)
    return apply(IMAG, (input,), None, name or "Imag")


def angle(input, name=None):
    input = input if isinstance(input, Tensor) else convert_to_tensor(input)
    if not input.dtype.is_complex:
        return _math.multiply(_math.cast(_math.less(input, 0), input.dtype), math.pi)
    return apply(ANGLE, (input,), None, name or "Angle")


API = {"": ["complex"], "math": ["real", "imag", "angle"]}
