"""Special functions of `tf.math`: lgamma, digamma, polygamma, zeta, igamma/igammac, betainc, lbeta, erfc,
erfinv, erfcinv, ndtri, the modified Bessel functions bessel_i0/i0e/i1/i1e, xlogy/xdivy/xlog1py and
log_sigmoid, as TensorFlow's ops (Lgamma, Digamma, ..., Xlogy) with TensorFlow's gradients.

Kernels (`special_kernels.py`) compute in float64 and cast to the input dtype, so float16/float32 results
are float64 values rounded once, as TensorFlow's are within their dtype's precision.
"""
import math as _pymath

import numpy as np

from ...framework.tensor import Tensor, EagerTensor
from ...types import dtypes as _dt
from ..convert import convert_to_tensor
from ..elementwise import function_operands
from ..infer import infer_unary, infer_broadcast
from ..registry import OpDef, apply, FLOAT, COMPLEX
from . import arith as _math
from . import logic as _logic
from . import reduce as _reduce
from . import summation as _summation
from . import special_kernels as _k

_REAL_PAIR = (_dt.float32, _dt.float64)  # TensorFlow's T of Igamma, Zeta, Polygamma, Betainc


def _float_kernel(fn):
    """A kernel computing `fn` in float64 on any float input and returning the input's dtype."""
    def kernel(*arrays):
        shape = np.broadcast_shapes(*(a.shape for a in arrays))
        flat = [np.broadcast_to(a, shape).astype(np.float64).ravel() for a in arrays]
        with np.errstate(over="ignore"):  # float64 values beyond float32's range become inf, as in TensorFlow
            return fn(*flat).reshape(shape).astype(arrays[0].dtype)
    return kernel


def _unary_fn(opdef):
    def fn(x, name=None):
        if not isinstance(x, Tensor):
            x = convert_to_tensor(x)
        return apply(opdef, (x,), None, name or opdef.name)
    fn.__name__ = opdef.name.lower()
    return fn


def _operands(*values):
    """Operands of an n-ary elementwise function: Python values take the first tensor's dtype."""
    tensors = [v for v in values if isinstance(v, Tensor)]
    anchor = tensors[0] if tensors else convert_to_tensor(values[0])
    return tuple(v if isinstance(v, Tensor) else convert_to_tensor(v, dtype_hint=anchor.dtype) for v in values)


def _binary_fn(opdef, public_name):
    def fn(x, y, name=None):
        if type(x) is not EagerTensor or type(y) is not EagerTensor:
            x, y = function_operands(x, y)
        return apply(opdef, (x, y), None, name or opdef.name)
    fn.__name__ = public_name
    return fn


def _scaled(derivative):
    """Gradient grad * derivative(x, y) of a unary op."""
    return lambda op, grad: [_math.multiply(grad, derivative(op.inputs[0], op.outputs[0]))]


def _reduce_pair(op, grad_x, grad_y):
    x, y = op.inputs[0], op.inputs[1]
    return [None if grad_x is None else _summation.reduce_to(grad_x, x),
            None if grad_y is None else _summation.reduce_to(grad_y, y)]


_TWO_OVER_SQRT_PI = 2.0 / _pymath.sqrt(_pymath.pi)
_SQRT_PI_OVER_TWO = _pymath.sqrt(_pymath.pi) / 2.0
_SQRT_TWO_PI = _pymath.sqrt(2.0 * _pymath.pi)


# -- unary ops -----------------------------------------------------------------------------------------

def _bessel_i1_derivative(x, y, scaled):
    # I1'(x) = I0(x) - I1(x)/x and (e^-|x| I1)' = i0e - i1e (sign(x) + 1/x); both are 1/2 at x = 0, where
    # x is replaced by 1 in the quotient (then masked) so that no nan enters the gradient.
    at_zero = _math.cast(_logic.equal(x, _math.cast(0, x.dtype)), x.dtype)
    safe_x = _math.add(x, at_zero)
    if scaled:
        value = _math.subtract(bessel_i0e(x), _math.multiply(y, _math.add(_math.sign(x), _math.reciprocal(safe_x))))
    else:
        value = _math.subtract(bessel_i0(x), _math.divide(y, safe_x))
    return _math.add(_math.multiply(at_zero, _math.cast(0.5, x.dtype)),
                     _math.multiply(_math.subtract(_math.cast(1, x.dtype), at_zero), value))


LGAMMA = OpDef("Lgamma", infer_unary, _float_kernel(_k.lgamma), allowed=FLOAT,
               grad=_scaled(lambda x, y: digamma(x)))
DIGAMMA = OpDef("Digamma", infer_unary, _float_kernel(_k.digamma), allowed=FLOAT,
                grad=_scaled(lambda x, y: polygamma(_math.cast(1, x.dtype), x)))
ERFC = OpDef("Erfc", infer_unary, _float_kernel(_k.erfc), allowed=FLOAT,
             grad=_scaled(lambda x, y: _math.multiply(_math.exp(_math.negative(_math.square(x))),
                                                      -_TWO_OVER_SQRT_PI)))
def _erfinv_kernel(x):
    # TensorFlow's half/float32 kernel is ndtri((x + 1) / 2) / sqrt(2) with (x + 1) / 2 rounded to float32,
    # which near +-1 loses digits the exact inverse keeps; the same rounding gives the same values.
    if x.dtype.itemsize <= 4:
        half = ((x.astype(np.float32) + np.float32(1)) * np.float32(0.5)).astype(np.float64)
        return (_k.ndtri(half.ravel()) / np.sqrt(2.0)).reshape(x.shape).astype(x.dtype)
    return _k.erfinv(x.ravel()).reshape(x.shape)


ERFINV = OpDef("Erfinv", infer_unary, _erfinv_kernel, allowed=FLOAT,
               grad=_scaled(lambda x, y: _math.multiply(_math.exp(_math.square(y)), _SQRT_PI_OVER_TWO)))
NDTRI = OpDef("Ndtri", infer_unary, _float_kernel(_k.ndtri), allowed=FLOAT,
              grad=_scaled(lambda x, y: _math.multiply(_math.exp(_math.multiply(_math.square(y), 0.5)),
                                                       _SQRT_TWO_PI)))


def _i0(a):
    return _k.bessel_i0e(a) * np.exp(np.abs(a))


def _i1(a):
    return _k.bessel_i1e(a) * np.exp(np.abs(a))


BESSEL_I0 = OpDef("BesselI0", infer_unary, _float_kernel(_i0), allowed=FLOAT,
                  grad=_scaled(lambda x, y: bessel_i1(x)))
BESSEL_I0E = OpDef("BesselI0e", infer_unary, _float_kernel(_k.bessel_i0e), allowed=FLOAT,
                   grad=_scaled(lambda x, y: _math.subtract(bessel_i1e(x), _math.multiply(_math.sign(x), y))))
BESSEL_I1 = OpDef("BesselI1", infer_unary, _float_kernel(_i1), allowed=FLOAT,
                  grad=_scaled(lambda x, y: _bessel_i1_derivative(x, y, False)))
BESSEL_I1E = OpDef("BesselI1e", infer_unary, _float_kernel(_k.bessel_i1e), allowed=FLOAT,
                   grad=_scaled(lambda x, y: _bessel_i1_derivative(x, y, True)))

lgamma = _unary_fn(LGAMMA)
digamma = _unary_fn(DIGAMMA)
erfc = _unary_fn(ERFC)
erfinv = _unary_fn(ERFINV)
ndtri = _unary_fn(NDTRI)
bessel_i0 = _unary_fn(BESSEL_I0)
bessel_i0e = _unary_fn(BESSEL_I0E)
bessel_i1 = _unary_fn(BESSEL_I1)
bessel_i1e = _unary_fn(BESSEL_I1E)


def erfcinv(x, name=None):
    """`tf.math.erfcinv`: the inverse of erfc on [0, 2], as -ndtri(x / 2) / sqrt(2)."""
    x = x if isinstance(x, Tensor) else convert_to_tensor(x)
    return _math.multiply(ndtri(_math.multiply(x, 0.5)), -1.0 / _pymath.sqrt(2.0), name=name)


def log_sigmoid(x, name=None):
    """`tf.math.log_sigmoid`: log(1 / (1 + exp(-x))) = min(x, 0) - log1p(exp(-|x|)), without overflow."""
    x = x if isinstance(x, Tensor) else convert_to_tensor(x)
    zero = _math.cast(0, x.dtype)
    return _math.subtract(_math.minimum(x, zero), _math.log1p(_math.exp(_math.negative(_math.abs(x)))), name=name)


def lbeta(x, name=None):
    """`tf.math.lbeta`: log |Beta(x)| over the last dimension, sum(lgamma(x)) - lgamma(sum(x))."""
    x = x if isinstance(x, Tensor) else convert_to_tensor(x)
    return _math.subtract(_reduce.reduce_sum(lgamma(x), axis=-1), lgamma(_reduce.reduce_sum(x, axis=-1)), name=name)


# -- binary ops: polygamma, zeta, igamma, igammac ---------------------------------------------------

def _polygamma_grad(op, grad):
    a, x = op.inputs
    return _reduce_pair(op, None, _math.multiply(grad, polygamma(_math.add(a, _math.cast(1, a.dtype)), x)))


def _zeta_grad(op, grad):
    s, q = op.inputs
    return _reduce_pair(op, None, _math.multiply(grad, _math.negative(
        _math.multiply(s, zeta(_math.add(s, _math.cast(1, s.dtype)), q)))))


def _igamma_density(a, x):
    # d P(a, x) / dx = exp(-x + (a - 1) log x - lgamma(a))
    return _math.exp(_math.subtract(_math.subtract(xlogy(_math.subtract(a, _math.cast(1, a.dtype)), x), x),
                                    lgamma(a)))


def _igamma_grad(sign):
    def grad_fn(op, grad):
        a, x = op.inputs
        grad_a = _math.multiply(grad, apply(IGAMMA_GRAD_A, (a, x), None, "IgammaGradA"))
        grad_x = _math.multiply(grad, _igamma_density(a, x))
        if sign < 0:
            grad_a, grad_x = _math.negative(grad_a), _math.negative(grad_x)
        return _reduce_pair(op, grad_a, grad_x)
    return grad_fn


POLYGAMMA = OpDef("Polygamma", infer_broadcast, _float_kernel(_k.polygamma), same_dtype=True, allowed=_REAL_PAIR,
                  input_names=("a", "x"), grad=_polygamma_grad)
ZETA = OpDef("Zeta", infer_broadcast, _float_kernel(_k.zeta), same_dtype=True, allowed=_REAL_PAIR,
             input_names=("x", "q"), grad=_zeta_grad)
IGAMMA = OpDef("Igamma", infer_broadcast, _float_kernel(_k.igamma), same_dtype=True, allowed=_REAL_PAIR,
               input_names=("a", "x"), grad=_igamma_grad(1))
IGAMMAC = OpDef("Igammac", infer_broadcast, _float_kernel(lambda a, x: _k.igamma(a, x, upper=True)),
                same_dtype=True, allowed=_REAL_PAIR, input_names=("a", "x"), grad=_igamma_grad(-1))
IGAMMA_GRAD_A = OpDef("IgammaGradA", infer_broadcast, _float_kernel(_k.igamma_grad_a), same_dtype=True,
                      allowed=_REAL_PAIR, input_names=("a", "x"))

polygamma = _binary_fn(POLYGAMMA, "polygamma")
zeta = _binary_fn(ZETA, "zeta")
igamma = _binary_fn(IGAMMA, "igamma")
igammac = _binary_fn(IGAMMAC, "igammac")


# -- Betainc -------------------------------------------------------------------------------------------

def _betainc_grad(op, grad):
    # Only x has a gradient in TensorFlow: d I_x(a, b) / dx = x^(a-1) (1-x)^(b-1) / B(a, b).
    a, b, x = op.inputs
    one = _math.cast(1, x.dtype)
    log_beta = _math.subtract(_math.add(lgamma(a), lgamma(b)), lgamma(_math.add(a, b)))
    density = _math.exp(_math.subtract(_math.add(xlog1py(_math.subtract(b, one), _math.negative(x)),
                                                 xlogy(_math.subtract(a, one), x)), log_beta))
    return [None, None, _summation.reduce_to(_math.multiply(grad, density), x)]


def _infer_betainc(inputs, attrs):
    return infer_broadcast(inputs, attrs)


BETAINC = OpDef("Betainc", _infer_betainc, _float_kernel(_k.betainc), same_dtype=True, allowed=_REAL_PAIR,
                input_names=("a", "b", "x"), grad=_betainc_grad)


def betainc(a, b, x, name=None):
    """`tf.math.betainc`: the regularised incomplete beta function I_x(a, b)."""
    a, b, x = _operands(a, b, x)
    return apply(BETAINC, (a, b, x), None, name or "Betainc")


# -- Xlogy / Xdivy / Xlog1py ------------------------------------------------------------------------

def _where_x_zero(x, y, value):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x == 0, np.zeros((), x.dtype), value).astype(np.result_type(x, y), copy=False)


def _xlogy_kernel(x, y):
    with np.errstate(divide="ignore", invalid="ignore"):
        return _where_x_zero(x, y, x * np.log(y))


def _xdivy_kernel(x, y):
    with np.errstate(divide="ignore", invalid="ignore"):
        return _where_x_zero(x, y, x / y)


def _xlog1py_kernel(x, y):
    with np.errstate(divide="ignore", invalid="ignore"):
        return _where_x_zero(x, y, x * np.log1p(y))


def _not_zero(x):
    return _math.cast(_logic.not_equal(x, _math.cast(0, x.dtype)), x.dtype)


def _xlogy_grad(op, grad):
    x, y = op.inputs
    return _reduce_pair(op, _math.multiply(grad, xlogy(_not_zero(x), y)), _math.multiply(grad, xdivy(x, y)))


def _xdivy_grad(op, grad):
    x, y = op.inputs
    return _reduce_pair(op, _math.multiply(grad, xdivy(_not_zero(x), y)),
                        _math.multiply(grad, xdivy(_math.negative(x), _math.square(y))))


def _xlog1py_grad(op, grad):
    x, y = op.inputs
    return _reduce_pair(op, _math.multiply(grad, xlog1py(_not_zero(x), y)),
                        _math.multiply(grad, xdivy(x, _math.add(y, _math.cast(1, y.dtype)))))


_X_TYPES = FLOAT + COMPLEX
XLOGY = OpDef("Xlogy", infer_broadcast, _xlogy_kernel, same_dtype=True, allowed=_X_TYPES, grad=_xlogy_grad)
XDIVY = OpDef("Xdivy", infer_broadcast, _xdivy_kernel, same_dtype=True, allowed=_X_TYPES, grad=_xdivy_grad)
XLOG1PY = OpDef("Xlog1py", infer_broadcast, _xlog1py_kernel, same_dtype=True, allowed=_X_TYPES, grad=_xlog1py_grad)

xlogy = _binary_fn(XLOGY, "xlogy")
xdivy = _binary_fn(XDIVY, "xdivy")
xlog1py = _binary_fn(XLOG1PY, "xlog1py")


API = {
    "math": ["lgamma", "digamma", "polygamma", "zeta", "igamma", "igammac", "betainc", "lbeta", "erfc", "erfinv",
             "erfcinv", "ndtri", "bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e", "xlogy", "xdivy", "xlog1py",
             "log_sigmoid"],
}
