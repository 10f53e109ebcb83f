"""Activation ops (`tf.nn.relu`, `relu6`, `leaky_relu`, `elu`, `selu`, `softplus`, `softsign`, `gelu`,
`silu`/`swish`), and the dtype lists and float16 widening the other nn ops share.

Ops TensorFlow implements as one kernel keep its op type; functions TensorFlow composes from several
math ops in Python are one fused NumPy kernel here, under a descriptive op name: same values, dtypes and
errors, fewer graph nodes.
"""
import math as _pymath

import numpy as np

from ...framework.tensor import Tensor, EagerTensor
from ...types import dtypes as _dt
from ..shapes import creators as _creators
from ..array import where as _where
from ..math import arith as _math
from ..math import reduce as _reduce
from ..convert import convert_to_tensor
from ..infer import infer_unary
from ..linalg import blas_threads
from ..registry import OpDef, apply, constant_value


# TensorFlow's dtype lists, in the order its error messages print them.
_HALF_TO_DOUBLE = (_dt.float16, _dt.bfloat16, _dt.float32, _dt.float64)
_RELU_TYPES = (_dt.float32, _dt.float64, _dt.int32, _dt.uint8, _dt.int16, _dt.int8, _dt.int64, _dt.bfloat16,
               _dt.uint16, _dt.float16, _dt.uint32, _dt.uint64)
_NARROW = (np.dtype(_dt.float16._np), np.dtype(_dt.bfloat16._np))


def _widen(x):
    """float16/bfloat16 arrays are computed in float32 (as TensorFlow's CPU kernels do)."""
    return x.astype(np.float32) if x.dtype in _NARROW else x


def _unary(opdef, default_name):
    def fn(features, name=None):
        if type(features) is not EagerTensor:
            features = convert_to_tensor(features)
        return apply(opdef, (features,), None, name or default_name)
    return fn


def _masked(condition, grad):
    """`grad` where `condition` holds, 0 elsewhere (a select, so an infinite gradient never becomes NaN)."""
    return _where.where(condition, grad, _creators.zeros_like(grad))


def _sum_kept(x, axis):
    return _reduce.reduce_sum(x, axis=axis, keepdims=True)


# -- elementwise passes over big arrays, by blocks in the worker threads ------------------------------
# A convnet's activations are megabytes ([128, 26, 26, 32] float32 is 11 MB): one NumPy pass over them is
# a memory-bound loop on one core while the other waits. Above this size the pass is cut into
# contiguous blocks shared out over the worker threads (NumPy releases the GIL inside a ufunc loop);
# every element is computed by the same ufunc whatever the blocks, so the bits never depend on them.
BLOCKED_MIN_ELEMENTS = 1 << 18
_BLOCK_ELEMENTS = 1 << 16


def _blockable(*arrays):
    """Whether `arrays` (one shape, C-contiguous) are big enough to be worth splitting over threads."""
    first = arrays[0]
    return (first.size >= BLOCKED_MIN_ELEMENTS and all(a.shape == first.shape and a.flags.c_contiguous
                                                       for a in arrays)
            and blas_threads.usable_workers() > 1)


def by_blocks(pass_, out, *arrays, rows=None):
    """`pass_(*blocks, out=out_block)` over row blocks of `out` and `arrays` (the same leading dimension,
    viewed 2-D as [rows, -1] when `rows` is given, else flat), shared out over the worker threads."""
    if rows is None:
        flat = [a.reshape(-1) for a in arrays]
        target, step = out.reshape(-1), _BLOCK_ELEMENTS
    else:
        flat = [a.reshape(rows, -1) for a in arrays]
        target = out.reshape(rows, -1)
        step = max(1, _BLOCK_ELEMENTS // max(1, target.shape[1]))
    size = target.shape[0]
    count = max(2 * blas_threads.usable_workers(), -(-size // step))
    step = -(-size // count)
    bounds = [(lo, min(size, lo + step)) for lo in range(0, size, step)]

    def run_block(i):
        lo, hi = bounds[i]
        pass_(*(a[lo:hi] for a in flat), out=target[lo:hi])
    blas_threads.run_blocks(run_block, len(bounds))
    return out


# -- activations -------------------------------------------------------------------------------------
def _relu_kernel(x):
    zero = x.dtype.type(0)
    if _blockable(x) and x.dtype.kind == "f":
        return by_blocks(lambda a, out: np.maximum(a, zero, out=out), np.empty_like(x), x)
    return np.maximum(x, zero)


def _relu6_kernel(x):
    return np.clip(x, x.dtype.type(0), x.dtype.type(6))


def _elu_kernel(x):
    w = _widen(x)
    return np.where(w > 0, w, np.expm1(np.minimum(w, 0))).astype(x.dtype, copy=False)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _selu_kernel(x):
    w = _widen(x)
    neg = (_SELU_SCALE * _SELU_ALPHA) * np.expm1(np.minimum(w, 0))
    return np.where(w > 0, _SELU_SCALE * w, neg).astype(x.dtype, copy=False)


def _softplus_kernel(x):
    w = _widen(x)
    return np.logaddexp(w, 0).astype(x.dtype, copy=False)


def _softsign_kernel(x):
    w = _widen(x)
    return (w / (1 + np.abs(w))).astype(x.dtype, copy=False)


def _leaky_relu_kernel(x, alpha):
    if x.dtype.kind in "iu":  # TensorFlow casts integer features to float32 first
        x = x.astype(np.float32)
    return np.where(x > 0, x, x * x.dtype.type(alpha)).astype(x.dtype, copy=False)


def _infer_leaky_relu(inputs, attrs):
    x = inputs[0]
    return [(_dt.float32 if x.dtype.is_integer else x.dtype, x.shape)]


# Activation gradients follow TensorFlow's *Grad kernels, including the value at the kinks: relu and
# relu6 pass nothing at 0 (and relu6 nothing at 6), leaky_relu passes `alpha` at 0, elu/selu pass the
# positive-side slope at 0.
def _relu_grad_kernel(gradients, features):
    # TensorFlow's ReluGrad: gradients * (features > 0), so a NaN or infinite gradient where the unit is
    # off gives NaN there, as in TensorFlow. One pass instead of a comparison, zeros and a select.
    if _blockable(gradients, features) and gradients.dtype == features.dtype and gradients.dtype.kind == "f":
        return by_blocks(lambda g, f, out: np.multiply(g, f > 0, dtype=g.dtype, out=out), np.empty_like(gradients),
                         gradients, features)
    return np.multiply(gradients, features > 0, dtype=gradients.dtype)


def _relu_grad_grad(op, grad):
    return [apply(RELU_GRAD, (grad, op.inputs[1]), None, "ReluGrad"), _creators.zeros_like(op.inputs[1])]


def _relu_grad(op, grad):
    return [apply(RELU_GRAD, (grad, op.outputs[0]), None, "ReluGrad")]


def _relu6_grad(op, grad):
    x = op.inputs[0]
    return [_masked(_math.logical_and(_math.greater(x, 0), _math.less(x, 6)), grad)]


def _elu_grad(op, grad):
    y = op.outputs[0]
    return [_where.where(_math.less(y, 0), _math.multiply(grad, _math.add(y, 1)), grad)]


def _selu_grad(op, grad):
    y = op.outputs[0]
    negative = _math.multiply(grad, _math.add(y, _SELU_SCALE * _SELU_ALPHA))
    return [_where.where(_math.less(y, 0), negative, _math.multiply(grad, _SELU_SCALE))]


def _softplus_grad(op, grad):
    return [_math.multiply(grad, _math.sigmoid(op.inputs[0]))]


def _softsign_grad(op, grad):
    return [_math.divide(grad, _math.square(_math.add(_math.abs(op.inputs[0]), 1)))]


def _leaky_relu_grad(op, grad):
    x = op.inputs[0]
    return [_where.where(_math.greater(x, 0), grad, _math.multiply(grad, op.attrs["alpha"]))]


RELU = OpDef("Relu", infer_unary, _relu_kernel, grad=_relu_grad, allowed=_RELU_TYPES, input_names=("features",))
RELU_GRAD = OpDef("ReluGrad", infer_unary, _relu_grad_kernel, grad=_relu_grad_grad, allowed=_RELU_TYPES,
                  same_dtype=True, input_names=("gradients", "features"))
RELU6 = OpDef("Relu6", infer_unary, _relu6_kernel, grad=_relu6_grad, allowed=_RELU_TYPES,
              input_names=("features",))
ELU = OpDef("Elu", infer_unary, _elu_kernel, grad=_elu_grad, allowed=_HALF_TO_DOUBLE, input_names=("features",))
SELU = OpDef("Selu", infer_unary, _selu_kernel, grad=_selu_grad, allowed=_HALF_TO_DOUBLE, input_names=("features",))
SOFTPLUS = OpDef("Softplus", infer_unary, _softplus_kernel, grad=_softplus_grad, allowed=_HALF_TO_DOUBLE,
                 input_names=("features",))
SOFTSIGN = OpDef("Softsign", infer_unary, _softsign_kernel, grad=_softsign_grad, allowed=_HALF_TO_DOUBLE,
                 input_names=("features",))
LEAKY_RELU = OpDef("LeakyRelu", _infer_leaky_relu, _leaky_relu_kernel, grad=_leaky_relu_grad,
                   allowed=_HALF_TO_DOUBLE + (_dt.int8, _dt.int16, _dt.int32, _dt.int64, _dt.uint8, _dt.uint16,
                                              _dt.uint32, _dt.uint64),
                   input_names=("features",))

relu = _unary(RELU, "Relu")
relu6 = _unary(RELU6, "Relu6")
elu = _unary(ELU, "Elu")
selu = _unary(SELU, "Selu")
softplus = _unary(SOFTPLUS, "Softplus")
softsign = _unary(SOFTSIGN, "Softsign")


def leaky_relu(features, alpha=0.2, name=None):
    """`tf.nn.leaky_relu`: `x` where positive, `alpha * x` elsewhere (integer inputs give float32)."""
    if isinstance(alpha, Tensor) or not isinstance(alpha, (int, float, np.number)):
        raise TypeError(f"Expected float for argument 'alpha' not {alpha!r}.")
    features = convert_to_tensor(features)
    return apply(LEAKY_RELU, (features,), {"alpha": float(alpha)}, name or "LeakyRelu")


# The complementary error function, needed by gelu. NumPy has none, so erfc(x) = exp(-x²)·g(t) with
# t = 2/(2+x) uses a Chebyshev interpolant of the smooth g, built once from Python's math.erfc
# (continued fraction where exp(x²) would overflow). Relative error ~1e-13 for 0 <= x <= 27; beyond,
# erfc underflows to 0 in float64 anyway.
_ERFC_X_MAX = 27.0
_ERFC_T0 = 2.0 / (2.0 + _ERFC_X_MAX)
_erfc_coefficients = []


def _scaled_erfc(x):
    """exp(x²)·erfc(x) for x >= 0, in Python floats."""
    if x < 5.0:
        return _pymath.exp(x * x) * _pymath.erfc(x)
    denominator = x
    for k in range(300, 0, -1):  # Laplace's continued fraction, evaluated backwards
        denominator = x + (k / 2.0) / denominator
    return 1.0 / (_pymath.sqrt(_pymath.pi) * denominator)


def _erfc_series():
    if not _erfc_coefficients:
        from numpy.polynomial import chebyshev as _cheb  # here, not at import: numpy.polynomial costs ~14 ms
        def g(u):
            t = _ERFC_T0 + (np.atleast_1d(u) + 1.0) * 0.5 * (1.0 - _ERFC_T0)
            return np.array([_scaled_erfc(2.0 / v - 2.0) for v in t])
        _erfc_coefficients.append(_cheb.chebinterpolate(g, 40))
    return _erfc_coefficients[0]


def _erfc(x):
    """erfc of a float64 array."""
    a = np.abs(x)
    t = 2.0 / (2.0 + a)
    u = (t - _ERFC_T0) / (1.0 - _ERFC_T0) * 2.0 - 1.0
    from numpy.polynomial.chebyshev import chebval  # cached in sys.modules after the first call
    with np.errstate(over="ignore", under="ignore"):
        positive = np.where(a < _ERFC_X_MAX, np.exp(-a * a) * chebval(u, _erfc_series()), 0.0)
    return np.where(x < 0, 2.0 - positive, positive)


def _gelu_kernel(x, approximate):
    w = x.astype(np.float64)
    if approximate:
        inner = np.sqrt(2.0 / np.pi) * (w + 0.044715 * w ** 3)
        out = 0.5 * w * (1.0 + np.tanh(inner))
    else:
        out = 0.5 * w * _erfc(-w / np.sqrt(2.0))
    return out.astype(x.dtype)


def _silu_kernel(x, beta):
    w = _widen(x)
    # x·sigmoid(βx) written with exp of a non-positive number, so it never overflows.
    z = w * w.dtype.type(beta)
    e = np.exp(-np.abs(z))
    sig = np.where(z >= 0, 1 / (1 + e), e / (1 + e))
    return (w * sig).astype(x.dtype, copy=False)


def _gelu_grad(op, grad):
    x = op.inputs[0]
    if op.attrs["approximate"]:
        # d/dx 0.5·x·(1 + tanh(u)), u = c·(x + 0.044715·x³)
        c = _pymath.sqrt(2.0 / _pymath.pi)
        x2 = _math.square(x)
        t = _math.tanh(_math.multiply(_math.multiply(x, _math.add(_math.multiply(x2, 0.044715), 1.0)), c))
        du = _math.multiply(_math.add(_math.multiply(x2, 3 * 0.044715), 1.0), c)
        slope = _math.multiply(_math.add(_math.add(t, 1.0), _math.multiply(_math.multiply(
            x, _math.subtract(1.0, _math.square(t))), du)), 0.5)
    else:
        # Φ(x) + x·φ(x)
        cdf = _math.multiply(_math.add(_math.erf(_math.multiply(x, 1 / _pymath.sqrt(2.0))), 1.0), 0.5)
        pdf = _math.multiply(_math.exp(_math.multiply(_math.square(x), -0.5)), 1 / _pymath.sqrt(2 * _pymath.pi))
        slope = _math.add(cdf, _math.multiply(x, pdf))
    return [_math.multiply(grad, slope)]


def _silu_grad(op, grad):
    x = op.inputs[0]
    beta = op.attrs["beta"]
    bx = _math.multiply(x, beta)
    s = _math.sigmoid(bx)
    slope = _math.multiply(s, _math.add(_math.multiply(bx, _math.subtract(1.0, s)), 1.0))
    return [_math.multiply(grad, slope)]


GELU = OpDef("Gelu", infer_unary, _gelu_kernel, grad=_gelu_grad, allowed=_HALF_TO_DOUBLE, input_names=("features",))
SILU = OpDef("Silu", infer_unary, _silu_kernel, grad=_silu_grad,
             allowed=(_dt.bfloat16, _dt.float16, _dt.float32, _dt.float64), input_names=("features",))


def gelu(features, approximate=False, name=None):
    """`tf.nn.gelu`: `x·Φ(x)`, or its tanh approximation when `approximate=True`."""
    features = convert_to_tensor(features)
    if not features.dtype.is_floating:
        raise ValueError(f"`features.dtype` must be a floating point tensor.Received:features.dtype="
                         f"<dtype: '{features.dtype.name}'>")
    return apply(GELU, (features,), {"approximate": bool(approximate)}, name or "Gelu")


def silu(features, beta=1.0, name=None):
    """`tf.nn.silu` (`tf.nn.swish`): `x·sigmoid(beta·x)`."""
    features = convert_to_tensor(features)
    if isinstance(beta, Tensor):
        value = constant_value(beta)
        if value is None:
            raise TypeError("`beta` must be a Python number or a constant tensor.")
        beta = value
    return apply(SILU, (features,), {"beta": float(beta)}, name or "Silu")


swish = silu


# tf.nn.sigmoid / tf.nn.tanh are tf.math's own objects (exported here, in an eager module, so that the
# ragged dispatch wraps them in both namespaces alike).
sigmoid = _math.sigmoid
tanh = _math.tanh

API = {
    "nn": ["relu", "relu6", "leaky_relu", "elu", "selu", "gelu", "softplus", "softsign", "silu", "swish", "sigmoid",
           "tanh"],
    "math": ["softplus", "softsign"],
}
