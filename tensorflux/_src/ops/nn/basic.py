"""Neural-network ops (`tf.nn`): activations, softmax, losses, bias_add, moments, batch norm, dropout.

Ops TensorFlow implements as one kernel keep its op type (`Relu`, `Softmax`, `BiasAdd`,
`SparseSoftmaxCrossEntropyWithLogits`…). Functions TensorFlow composes from several math ops in Python
(`gelu`, `silu`, `sigmoid_cross_entropy_with_logits`, `moments`, `batch_normalization`, `dropout`) are one
fused NumPy kernel here, under a descriptive op name: same values, dtypes and errors, fewer graph nodes.
Convolution and pooling live in `conv.py`.
"""
import math as _pymath

import numpy as np
from numpy.polynomial import chebyshev as _cheb

from ...framework import errors
from ...framework.tensor import Tensor, EagerTensor
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..array import creation as _creation
from .. import grad_util as _grad_util
from ..array import indexing as _indexing
from ..math import arith as _math
from ..math import reduce as _reduce
from .. import random as _random
from ..array.basic import broadcast_to, expand_dims, reshape, shape_of
from ..convert import convert_to_tensor
from ..infer import broadcast_shape, infer_unary
from ..registry import OpDef, apply, constant_value

__all__ = ["relu", "relu6", "leaky_relu", "elu", "selu", "gelu", "softplus", "softsign", "silu", "softmax",
           "log_softmax", "sigmoid_cross_entropy_with_logits", "softmax_cross_entropy_with_logits",
           "sparse_softmax_cross_entropy_with_logits", "l2_loss", "bias_add", "moments", "batch_normalization",
           "dropout"]

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
    return _indexing.where(condition, grad, _creation.zeros_like(grad))


def _sum_kept(x, axis):
    return _reduce.reduce_sum(x, axis=axis, keepdims=True)


# -- activations -------------------------------------------------------------------------------------
def _relu_kernel(x):
    return np.maximum(x, x.dtype.type(0))


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
def _relu_grad(op, grad):
    return [_masked(_math.greater(op.outputs[0], 0), grad)]


def _relu6_grad(op, grad):
    x = op.inputs[0]
    return [_masked(_math.logical_and(_math.greater(x, 0), _math.less(x, 6)), grad)]


def _elu_grad(op, grad):
    y = op.outputs[0]
    return [_indexing.where(_math.less(y, 0), _math.multiply(grad, _math.add(y, 1)), grad)]


def _selu_grad(op, grad):
    y = op.outputs[0]
    negative = _math.multiply(grad, _math.add(y, _SELU_SCALE * _SELU_ALPHA))
    return [_indexing.where(_math.less(y, 0), negative, _math.multiply(grad, _SELU_SCALE))]


def _softplus_grad(op, grad):
    return [_math.multiply(grad, _math.sigmoid(op.inputs[0]))]


def _softsign_grad(op, grad):
    return [_math.divide(grad, _math.square(_math.add(_math.abs(op.inputs[0]), 1)))]


def _leaky_relu_grad(op, grad):
    x = op.inputs[0]
    return [_indexing.where(_math.greater(x, 0), grad, _math.multiply(grad, op.attrs["alpha"]))]


RELU = OpDef("Relu", infer_unary, _relu_kernel, grad=_relu_grad, allowed=_RELU_TYPES, input_names=("features",))
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
    with np.errstate(over="ignore", under="ignore"):
        positive = np.where(a < _ERFC_X_MAX, np.exp(-a * a) * _cheb.chebval(u, _erfc_series()), 0.0)
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


# -- softmax -----------------------------------------------------------------------------------------
def _softmax_kernel(logits, axis):
    if logits.ndim == 0:
        raise errors.InvalidArgumentError(None, None, "logits must have >= 1 dimension, got []")
    w = _widen(logits)
    shifted = w - np.max(w, axis=axis, keepdims=True) if w.size else w
    e = np.exp(shifted)
    return (e / np.sum(e, axis=axis, keepdims=True)).astype(logits.dtype, copy=False)


def _log_softmax_kernel(logits, axis):
    if logits.ndim == 0:
        raise errors.InvalidArgumentError(None, None, "logits must have >= 1 dimension, got []")
    w = _widen(logits)
    if not w.size:
        return logits.copy()
    shifted = w - np.max(w, axis=axis, keepdims=True)
    with np.errstate(divide="ignore"):
        out = shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))
    return out.astype(logits.dtype, copy=False)


def _infer_softmax(inputs, attrs):
    x = inputs[0]
    if x.shape.rank == 0:
        raise ValueError("Shape must be at least rank 1 but is rank 0")
    return [(x.dtype, x.shape)]


def _softmax_grad(op, grad):
    y, axis = op.outputs[0], op.attrs["axis"]
    return [_math.multiply(_math.subtract(grad, _sum_kept(_math.multiply(grad, y), [axis])), y)]


def _log_softmax_grad(op, grad):
    y, axis = op.outputs[0], op.attrs["axis"]
    return [_math.subtract(grad, _math.multiply(_math.exp(y), _sum_kept(grad, [axis])))]


SOFTMAX = OpDef("Softmax", _infer_softmax, _softmax_kernel, grad=_softmax_grad, allowed=_HALF_TO_DOUBLE,
                input_names=("logits",))
LOG_SOFTMAX = OpDef("LogSoftmax", _infer_softmax, _log_softmax_kernel, grad=_log_softmax_grad,
                    allowed=_HALF_TO_DOUBLE, input_names=("logits",))


def _static_int(value, what):
    if isinstance(value, Tensor):
        v = constant_value(value)
        if v is None:
            raise TypeError(f"`{what}` must be a static integer, not a symbolic tensor.")
        value = v
    try:
        return int(value)
    except (TypeError, ValueError):
        raise TypeError(f"`{what}` must be an integer, got {value!r}.") from None


def _softmax_axis(logits, axis):
    axis = -1 if axis is None else _static_int(axis, "axis")
    rank = logits.shape.rank
    if rank is None:
        if axis != -1:
            raise ValueError(f"`axis` {axis} needs a tensor of known rank; only axis=-1 works for unknown rank.")
        return axis
    if rank and not -rank <= axis < rank:
        raise errors.InvalidArgumentError(
            None, None, f"`dim` must be in the range [{-rank}, {rank}) where {rank} is the number of dimensions "
                        f"in the input. Received: dim={axis}")
    return axis % rank if rank else -1


def softmax(logits, axis=None, name=None):
    """`tf.nn.softmax`: `exp(logits) / sum(exp(logits), axis)` (default: last axis)."""
    logits = convert_to_tensor(logits)
    return apply(SOFTMAX, (logits,), {"axis": _softmax_axis(logits, axis)}, name or "Softmax")


def log_softmax(logits, axis=None, name=None):
    """`tf.nn.log_softmax`: `logits - log(sum(exp(logits), axis))`."""
    logits = convert_to_tensor(logits)
    return apply(LOG_SOFTMAX, (logits,), {"axis": _softmax_axis(logits, axis)}, name or "LogSoftmax")


# -- losses ------------------------------------------------------------------------------------------
def _dims_text(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def _sigmoid_ce_kernel(labels, logits):
    if labels.shape != logits.shape:
        raise errors.InvalidArgumentError(
            None, None, f"`logits` and `labels` must have the same shape, received "
                        f"({logits.shape} vs {labels.shape}).")
    x, z = _widen(logits), _widen(labels)
    # max(x, 0) - x·z + log(1 + exp(-|x|)): stable for logits of any size.
    out = np.maximum(x, 0) - x * z + np.log1p(np.exp(-np.abs(x)))
    return out.astype(logits.dtype, copy=False)


def _infer_sigmoid_ce(inputs, attrs):
    labels, logits = inputs
    if not labels.shape.is_compatible_with(logits.shape):
        raise ValueError(f"`logits` and `labels` must have the same shape, received "
                         f"({logits.shape} vs {labels.shape}).")
    return [(logits.dtype, logits.shape.merge_with(labels.shape))]


def _sigmoid_ce_grad(op, grad):
    labels, logits = op.inputs
    return [_math.multiply(grad, _math.negative(logits)),
            _math.multiply(grad, _math.subtract(_math.sigmoid(logits), labels))]


SIGMOID_CE = OpDef("SigmoidCrossEntropyWithLogits", _infer_sigmoid_ce, _sigmoid_ce_kernel, grad=_sigmoid_ce_grad,
                   allowed=(_dt.bfloat16, _dt.float16, _dt.float32, _dt.float64), same_dtype=True,
                   input_names=("labels", "logits"))


def sigmoid_cross_entropy_with_logits(labels=None, logits=None, name=None):
    """`tf.nn.sigmoid_cross_entropy_with_logits`: elementwise logistic loss of `logits` against `labels`."""
    if labels is None or logits is None:
        raise ValueError(f"Both `labels` and `logits` must be provided for sigmoid_cross_entropy_with_logits"
                         f"Received: labels={labels} and logits={logits}")
    logits = convert_to_tensor(logits)
    labels = convert_to_tensor(labels, dtype=logits.dtype) if not isinstance(labels, Tensor) else labels
    if labels.dtype is logits.dtype:
        _infer_sigmoid_ce((labels, logits), None)
    return apply(SIGMOID_CE, (labels, logits), None, name or "logistic_loss")


def _softmax_ce_kernel(logits, labels, axis):
    if logits.ndim == 0:
        raise errors.InvalidArgumentError(None, None, "logits and labels must not be scalars")
    try:
        shape = np.broadcast_shapes(logits.shape, labels.shape)
    except ValueError:
        shape = None
    if shape is None or shape != logits.shape:
        raise errors.InvalidArgumentError(
            None, None, f"logits and labels must be broadcastable: logits_size={_dims_text(logits.shape)} "
                        f"labels_size={_dims_text(labels.shape)}")
    x = _widen(logits)
    z = labels.astype(x.dtype)
    shifted = x - np.max(x, axis=axis, keepdims=True)
    log_sum = np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))
    log_probs = shifted - log_sum
    # Where a label is 0, its term is 0 even if log_prob is -inf.
    loss = np.subtract(0, np.sum(np.where(z != 0, z * log_probs, 0), axis=axis))  # 0 - s: never -0.0
    backprop = np.exp(log_probs) - z
    return loss.astype(logits.dtype, copy=False), backprop.astype(logits.dtype, copy=False)


def _infer_softmax_ce(inputs, attrs):
    logits, labels = inputs
    axis = attrs["axis"]
    dims = logits.shape._dims
    if dims is None:
        return [(logits.dtype, TensorShape(None)), (logits.dtype, TensorShape(None))]
    if labels.shape._dims is not None:
        try:
            broadcast_shape(logits.shape, labels.shape)
        except ValueError:
            raise ValueError(f"logits and labels must be broadcastable: logits_size={logits.shape} "
                             f"labels_size={labels.shape}") from None
    loss = dims[:axis] + dims[axis + 1:]
    return [(logits.dtype, TensorShape(loss)), (logits.dtype, logits.shape)]


def _cross_entropy_logits_grad(logits, backprop, grad_loss, grad_backprop, axis):
    """d/dlogits of a (loss, softmax - labels) pair: the loss gradient times the kernel's backprop, plus,
    when the backprop output itself was differentiated (second order), that gradient through softmax."""
    result = None
    if grad_loss is not None:
        result = _math.multiply(expand_dims(grad_loss, axis), backprop)
    if grad_backprop is not None:
        p = softmax(logits, axis=axis)
        through = _math.multiply(_math.subtract(grad_backprop, _sum_kept(_math.multiply(grad_backprop, p), [axis])), p)
        result = through if result is None else _math.add(result, through)
    return result


def _softmax_ce_grad(op, grad_loss, grad_backprop):
    logits, labels = op.inputs
    axis = op.attrs["axis"]
    d_logits = _cross_entropy_logits_grad(logits, op.outputs[1], grad_loss, grad_backprop, axis)
    d_labels = None
    if labels.dtype.is_floating:  # the loss is -sum(labels · log_softmax(logits))
        parts = []
        if grad_loss is not None:
            parts.append(_math.multiply(expand_dims(grad_loss, axis), _math.negative(log_softmax(logits, axis=axis))))
        if grad_backprop is not None:
            parts.append(_math.negative(grad_backprop))
        if parts:
            d_labels = parts[0] if len(parts) == 1 else _math.add(parts[0], parts[1])
            d_labels = _grad_util.reduce_to(d_labels, labels)
            if d_labels.dtype is not labels.dtype:
                d_labels = _math.cast(d_labels, labels.dtype)
    return [d_logits, d_labels]


SOFTMAX_CE = OpDef("SoftmaxCrossEntropyWithLogits", _infer_softmax_ce, _softmax_ce_kernel, grad=_softmax_ce_grad,
                   allowed=_HALF_TO_DOUBLE, input_names=("features", "labels"), multi=True)
SOFTMAX_CE.none_grads = True  # the backprop output is internal: usually no gradient reaches it


def softmax_cross_entropy_with_logits(labels, logits, axis=-1, name=None):
    """`tf.nn.softmax_cross_entropy_with_logits` (v2): cross entropy of probability `labels` along `axis`."""
    logits = convert_to_tensor(logits)
    labels = convert_to_tensor(labels)
    if labels.dtype is not logits.dtype and not (labels.dtype.is_floating or labels.dtype.is_integer):
        raise TypeError(f"`labels` must be numeric, got dtype {labels.dtype.name}")
    rank = logits.shape.rank
    axis = _static_int(axis, "axis")
    if rank is not None:
        if rank == 0:
            raise errors.InvalidArgumentError(None, "SoftmaxCrossEntropyWithLogits",
                                              "logits and labels must not be scalars")
        if not -rank <= axis < rank:
            raise errors.InvalidArgumentError(
                None, None, f"`dim` must be in the range [{-rank}, {rank}) where {rank} is the number of "
                            f"dimensions in the input. Received: dim={axis}")
        axis %= rank
    elif axis != -1:
        raise ValueError(f"`axis` {axis} needs logits of known rank.")
    return apply(SOFTMAX_CE, (logits, labels), {"axis": axis}, name or "softmax_cross_entropy_with_logits")[0]


def _sparse_softmax_ce_kernel(logits, labels):
    classes = logits.shape[-1]
    if classes == 0:
        raise errors.InvalidArgumentError(
            None, None, f"Must have at least one class, but got logits shape {_dims_text(logits.shape)}")
    if labels.size:
        high, low = labels.max(), labels.min()
        if high >= classes or low < 0:
            bad = high if high >= classes else low
            values = " ".join(str(v) for v in labels.ravel()[:10])
            raise errors.InvalidArgumentError(
                None, None, f"Received a label value of {bad} which is outside the valid range of [0, {classes})."
                            f"  Label values: {values}")
    x = _widen(logits)
    shifted = x - np.max(x, axis=-1, keepdims=True) if x.size else x
    log_probs = shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))
    picked = np.take_along_axis(log_probs, labels[..., None].astype(np.intp), axis=-1)[..., 0]
    backprop = np.exp(log_probs)
    np.put_along_axis(backprop, labels[..., None].astype(np.intp),
                      np.take_along_axis(backprop, labels[..., None].astype(np.intp), axis=-1) - 1, axis=-1)
    return (-picked).astype(logits.dtype, copy=False), backprop.astype(logits.dtype, copy=False)


def _infer_sparse_softmax_ce(inputs, attrs):
    logits, labels = inputs
    if labels.dtype not in (_dt.int32, _dt.int64):
        raise TypeError(f"Value for attr 'Tlabels' of {labels.dtype.name} is not in the list of allowed values: "
                        f"int32, int64")
    _check_sparse_shapes(labels.shape, logits.shape)
    if logits.shape.rank is None:
        loss = labels.shape
    else:
        loss = TensorShape(logits.shape._dims[:-1])
        if labels.shape.rank is not None:
            loss = loss.merge_with(labels.shape)
    return [(logits.dtype, loss), (logits.dtype, logits.shape)]


def _check_sparse_shapes(labels_shape, logits_shape):
    if logits_shape.rank == 0:
        raise ValueError(f"`logits` cannot be a scalar. Received logits={logits_shape}`")
    if labels_shape.rank is None or logits_shape.rank is None:
        return
    if labels_shape.rank != logits_shape.rank - 1:
        raise ValueError(f"`labels.shape.rank` must equal `logits.shape.rank - 1`. Received: labels.shape="
                         f"{_tuple_text(labels_shape)} of rank {labels_shape.rank} and logits.shape="
                         f"{_tuple_text(logits_shape)} of rank {logits_shape.rank}")
    if not labels_shape.is_compatible_with(logits_shape._dims[:-1]):
        raise ValueError(f"`labels.shape` must equal `logits.shape` except for the last dimension. Received: "
                         f"labels.shape={_tuple_text(labels_shape)} and logits.shape={_tuple_text(logits_shape)}")


def _tuple_text(shape):
    return str(tuple(shape._dims))


def _sparse_softmax_ce_grad(op, grad_loss, grad_backprop):
    return [_cross_entropy_logits_grad(op.inputs[0], op.outputs[1], grad_loss, grad_backprop, -1), None]


SPARSE_SOFTMAX_CE = OpDef("SparseSoftmaxCrossEntropyWithLogits", _infer_sparse_softmax_ce,
                          _sparse_softmax_ce_kernel, grad=_sparse_softmax_ce_grad, allowed=_HALF_TO_DOUBLE,
                          input_names=("features", "labels"), multi=True)
SPARSE_SOFTMAX_CE.none_grads = True


def sparse_softmax_cross_entropy_with_logits(labels, logits, name=None):
    """`tf.nn.sparse_softmax_cross_entropy_with_logits`: cross entropy against integer class `labels`."""
    logits = convert_to_tensor(logits)
    labels = convert_to_tensor(labels)
    if logits.shape.rank == 0:
        raise ValueError(f"`logits` cannot be a scalar. Received logits={_scalar_text(logits)}`")
    if labels.dtype not in (_dt.int32, _dt.int64):
        raise errors.InvalidArgumentError(
            None, "SparseSoftmaxCrossEntropyWithLogits",
            f"Value for attr 'Tlabels' of {_error_name(labels.dtype)} is not in the list of allowed values: "
            f"int32, int64")
    _check_sparse_shapes(labels.shape, logits.shape)
    return apply(SPARSE_SOFTMAX_CE, (logits, labels), None, name or "SparseSoftmaxCrossEntropyWithLogits")[0]


def _scalar_text(t):
    value = constant_value(t)
    return value.item() if value is not None else t


def _error_name(dtype):
    return {"float32": "float", "float64": "double", "float16": "half"}.get(dtype.name, dtype.name)


def _l2_loss_kernel(t):
    w = t.astype(np.float32) if t.dtype in _NARROW else t
    return np.asarray(np.sum(np.square(w)) / 2).astype(t.dtype)


def _infer_scalar(inputs, attrs):
    return [(inputs[0].dtype, TensorShape(()))]


def _l2_loss_grad(op, grad):
    return [_math.multiply(op.inputs[0], grad)]


L2_LOSS = OpDef("L2Loss", _infer_scalar, _l2_loss_kernel, grad=_l2_loss_grad, allowed=_HALF_TO_DOUBLE,
                input_names=("t",))


def l2_loss(t, name=None):
    """`tf.nn.l2_loss`: `sum(t ** 2) / 2`."""
    t = convert_to_tensor(t)
    return apply(L2_LOSS, (t,), None, name or "L2Loss")


# -- bias_add ----------------------------------------------------------------------------------------
def _bias_add_kernel(value, bias, data_format):
    if value.ndim < 2:
        raise errors.InvalidArgumentError(
            None, None, f"Input tensor must be at least 2D: {_dims_text(value.shape)}")
    if bias.ndim != 1:
        raise errors.InvalidArgumentError(None, None, f"Biases must be 1D: {_dims_text(bias.shape)}")
    channel = 1 if data_format == "NCHW" else value.ndim - 1
    if bias.shape[0] != value.shape[channel]:
        raise errors.InvalidArgumentError(
            None, None, f"Must provide as many biases as the last dimension of the input tensor: "
                        f"{_dims_text(bias.shape)} vs. {_dims_text(value.shape)}")
    if channel != value.ndim - 1:
        bias = bias.reshape(bias.shape + (1,) * (value.ndim - 2))
    return np.add(value, bias)


def _infer_bias_add(inputs, attrs):
    value, bias = inputs
    dims = value.shape._dims
    if dims is None:
        return [(value.dtype, value.shape)]
    if len(dims) < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {len(dims)} for '{{{{node BiasAdd}}}}' "
                         f"with input shapes: {_shape_text(value.shape)}, {_shape_text(bias.shape)}.")
    if bias.shape.rank is not None and bias.shape.rank != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {bias.shape.rank} for '{{{{node BiasAdd}}}}' "
                         f"with input shapes: {_shape_text(value.shape)}, {_shape_text(bias.shape)}.")
    channel = 1 if attrs["data_format"] == "NCHW" else len(dims) - 1
    c, b = dims[channel], bias.shape._dims[0] if bias.shape.rank == 1 else None
    if c is not None and b is not None and c != b:
        raise ValueError(f"Dimensions must be equal, but are {c} and {b} for '{{{{node BiasAdd}}}}' with input "
                         f"shapes: {_shape_text(value.shape)}, {_shape_text(bias.shape)}.")
    if c is None and b is not None:
        dims = dims[:channel] + (b,) + dims[channel + 1:]
    return [(value.dtype, TensorShape(dims))]


def _shape_text(shape):
    if shape.rank is None:
        return "?"
    return "[" + ",".join("?" if d is None else str(d) for d in shape._dims) + "]"


def _bias_add_grad(op, grad):
    """The bias gets the gradient summed over every dimension but the channel one."""
    rank = grad.shape.rank
    channels_first = op.attrs["data_format"] == "NCHW"
    if rank is not None:
        channel = 1 if channels_first else rank - 1
        return [grad, _reduce.reduce_sum(grad, axis=[a for a in range(rank) if a != channel])]
    if channels_first:  # [N, C, rest...] -> [N, C, -1]
        folded = reshape(grad, _indexing.joined_shape(shape_of(grad)[:2], [-1]))
        return [grad, _reduce.reduce_sum(folded, axis=[0, 2])]
    return [grad, _reduce.reduce_sum(reshape(grad, _indexing.joined_shape([-1], shape_of(grad)[-1:])), axis=[0])]


BIAS_ADD = OpDef("BiasAdd", _infer_bias_add, _bias_add_kernel, grad=_bias_add_grad, same_dtype=True,
                 allowed=(_dt.float32, _dt.float64, _dt.int32, _dt.uint8, _dt.int16, _dt.int8, _dt.int64,
                          _dt.bfloat16, _dt.uint16, _dt.float16, _dt.uint32, _dt.uint64, _dt.complex64,
                          _dt.complex128),
                 input_names=("value", "bias"))


def bias_add(value, bias, data_format=None, name=None):
    """`tf.nn.bias_add`: adds the 1-D `bias` along the channel dimension (last, or 1 for "NC…" formats)."""
    value = convert_to_tensor(value)
    bias = convert_to_tensor(bias, dtype=value.dtype) if not isinstance(bias, Tensor) else bias
    data_format = "NCHW" if data_format is not None and str(data_format).startswith("NC") else "NHWC"
    return apply(BIAS_ADD, (value, bias), {"data_format": data_format}, name or "BiasAdd")


# -- moments and batch normalisation -----------------------------------------------------------------
def _moments_kernel(x, axes, keepdims):
    if x.dtype.kind in "iu":
        # Integer moments truncate like TensorFlow's integer Mean, the variance using the truncated mean.
        count = max(int(np.prod([x.shape[a] for a in axes], dtype=np.int64)), 1)
        mean = np.trunc(np.sum(x, axis=axes, dtype=np.int64, keepdims=True) / count).astype(np.int64)
        diff = x.astype(np.int64) - mean
        variance = np.trunc(np.sum(diff * diff, axis=axes, keepdims=True) / count).astype(np.int64)
    else:
        w = _widen(x)
        mean = np.mean(w, axis=axes, keepdims=True)
        variance = np.mean(np.square(w - mean), axis=axes, keepdims=True)
    if not keepdims:
        mean, variance = np.squeeze(mean, axis=axes), np.squeeze(variance, axis=axes)
    return mean.astype(x.dtype), variance.astype(x.dtype)


def _infer_moments(inputs, attrs):
    x = inputs[0]
    dims = x.shape._dims
    if dims is None:
        return [(x.dtype, TensorShape(None))] * 2
    axes = set(attrs["axes"])
    if attrs["keepdims"]:
        out = tuple(1 if i in axes else d for i, d in enumerate(dims))
    else:
        out = tuple(d for i, d in enumerate(dims) if i not in axes)
    return [(x.dtype, TensorShape(out))] * 2


def _moments_grad(op, grad_mean, grad_variance):
    """mean = Σx/N and variance = Σ(x - mean)²/N over `axes`: each spreads its gradient back over the
    reduced elements (the variance's dependence on the mean cancels, since Σ(x - mean) = 0)."""
    x, mean = op.inputs[0], op.outputs[0]
    axes, keepdims = op.attrs["axes"], op.attrs["keepdims"]
    dims = shape_of(x)
    if isinstance(dims, list):
        count = float(np.prod([dims[a] for a in axes]))
        kept = [1 if i in axes else d for i, d in enumerate(dims)]
    else:
        count = _math.divide(_math.cast(_indexing.shape_product(dims), x.dtype),
                             _math.cast(_indexing.shape_product(shape_of(mean)), x.dtype))
        rank = x.shape.rank
        if rank is None:
            raise ValueError("The gradient of moments needs an input of known rank.")
        ones = _creation.ones_like(dims)
        kept = _indexing.where(convert_to_tensor([i in axes for i in range(rank)]), ones, dims)

    def spread(g):
        return g if keepdims else reshape(g, kept)

    result = None
    if grad_mean is not None:
        result = broadcast_to(_math.divide(spread(grad_mean), count), dims)
    if grad_variance is not None:
        centered = _math.subtract(x, spread(mean))
        term = _math.multiply(centered, _math.multiply(spread(grad_variance), 2.0 / count if isinstance(count, float)
                                                        else _math.divide(2.0, count)))
        result = term if result is None else _math.add(result, term)
    return [result]


MOMENTS = OpDef("Moments", _infer_moments, _moments_kernel, grad=_moments_grad,
                allowed=_HALF_TO_DOUBLE + (_dt.int8, _dt.int16, _dt.int32, _dt.int64, _dt.uint8, _dt.uint16,
                                           _dt.uint32, _dt.uint64),
                input_names=("x",), multi=True)
MOMENTS.none_grads = True


def moments(x, axes, shift=None, keepdims=False, name=None):
    """`tf.nn.moments`: the mean and variance of `x` over `axes` (`shift` is unused, as in TensorFlow 2)."""
    x = convert_to_tensor(x)
    if isinstance(axes, Tensor):
        raise TypeError(f"Expected list for 'axis' argument to 'squeeze' Op, not {axes!r}.")
    axes = [axes] if isinstance(axes, (int, np.integer)) else list(axes)
    rank = x.shape.rank
    normalized = []
    for a in axes:
        a = int(a)
        if rank is not None:
            if not -rank <= a < max(rank, 1):
                raise errors.InvalidArgumentError(
                    None, "Mean", f"Invalid reduction dimension ({a} for input with {rank} dimension(s)")
            a %= rank
        elif a < 0:
            raise ValueError("Negative `axes` need a tensor of known rank.")
        normalized.append(a)
    attrs = {"axes": tuple(sorted(set(normalized))), "keepdims": bool(keepdims)}
    mean, variance = apply(MOMENTS, (x,), attrs, name or "moments")
    return mean, variance


def _batch_norm_kernel(x, mean, variance, *affine, variance_epsilon, has_offset, has_scale):
    w = _widen(x)
    inv = 1.0 / np.sqrt(_widen(variance) + w.dtype.type(variance_epsilon))
    if has_scale:
        inv = inv * _widen(affine[-1])
    shift = -_widen(mean) * inv
    if has_offset:
        shift = shift + _widen(affine[0])
    out = w * inv + shift
    return out.astype(x.dtype, copy=False)


def _infer_batch_norm(inputs, attrs):
    shape = inputs[0].shape
    for t in inputs[1:]:
        shape = broadcast_shape(shape, t.shape)
    return [(inputs[0].dtype, shape)]


def _batch_norm_grad(op, grad):
    """out = (x - mean)·s·scale + offset with s = 1/sqrt(variance + eps); every input may broadcast."""
    x, mean, variance = op.inputs[:3]
    affine = list(op.inputs[3:])
    offset = affine.pop(0) if op.attrs["has_offset"] else None
    scale = affine.pop(0) if op.attrs["has_scale"] else None
    inv = _math.rsqrt(_math.add(variance, op.attrs["variance_epsilon"]))
    scaled_inv = inv if scale is None else _math.multiply(inv, scale)
    centered = _math.subtract(x, mean)
    d_x = _math.multiply(grad, scaled_inv)
    grads = [_grad_util.reduce_to(d_x, x), _grad_util.reduce_to(_math.negative(d_x), mean)]
    d_variance = _math.multiply(_math.multiply(d_x, centered), _math.multiply(_math.square(inv), -0.5))
    grads.append(_grad_util.reduce_to(d_variance, variance))
    if offset is not None:
        grads.append(_grad_util.reduce_to(grad, offset))
    if scale is not None:
        grads.append(_grad_util.reduce_to(_math.multiply(_math.multiply(grad, centered), inv), scale))
    return grads


BATCH_NORM = OpDef("BatchNormalization", _infer_batch_norm, _batch_norm_kernel, grad=_batch_norm_grad,
                   allowed=_HALF_TO_DOUBLE,
                   same_dtype=True, input_names=("x", "mean", "variance", "offset", "scale"))


def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """`tf.nn.batch_normalization`: `(x - mean) / sqrt(variance + eps) * scale + offset`."""
    x = convert_to_tensor(x)

    def operand(v):
        return v if isinstance(v, Tensor) else convert_to_tensor(v, dtype=x.dtype)

    inputs = [x, operand(mean), operand(variance)]
    if offset is not None:
        inputs.append(operand(offset))
    if scale is not None:
        inputs.append(operand(scale))
    attrs = {"variance_epsilon": float(variance_epsilon), "has_offset": offset is not None,
             "has_scale": scale is not None}
    return apply(BATCH_NORM, tuple(inputs), attrs, name or "batchnorm")


# -- dropout -----------------------------------------------------------------------------------------
def _dropout_kernel(x, rate, noise_shape, seed, seed2, stream):
    dims = x.shape if noise_shape is None else tuple(
        x.shape[i] if d is None and i < x.ndim else d for i, d in enumerate(noise_shape))
    try:
        np.broadcast_shapes(dims, x.shape)
        ok = np.broadcast_shapes(dims, x.shape) == x.shape
    except ValueError:
        ok = False
    if not ok:
        raise errors.InvalidArgumentError(
            None, None, f"condition {_dims_text(dims)}, then {_dims_text(x.shape)}, and else [] must be "
                        f"broadcastable")
    rate = float(rate)
    noise = _random._uniform_unit(stream.generator, dims, np.dtype(np.float32) if x.dtype in _NARROW else x.dtype)
    keep = noise >= rate
    scale = 1.0 / (1.0 - rate) if rate < 1 else 0.0
    out = np.where(keep, _widen(x) * scale, 0).astype(x.dtype, copy=False)
    # The second output is this draw's multiplier (0 or 1/(1 - rate)), so the gradient reuses the mask.
    mask = np.broadcast_to(np.where(keep, scale, 0.0).astype(x.dtype), x.shape)
    return out, mask


def _infer_dropout(inputs, attrs):
    x = inputs[0]
    noise_shape = attrs["noise_shape"]
    if noise_shape is not None and x.shape.rank is not None:
        if len(noise_shape) > x.shape.rank:
            raise ValueError(f"`noise_shape` {list(noise_shape)} has more dimensions than `x` {x.shape}.")
        try:
            out = broadcast_shape(x.shape, TensorShape(noise_shape))
        except ValueError:
            out = None
        if out is None or not out.is_compatible_with(x.shape):
            raise ValueError(f"`noise_shape` {list(noise_shape)} does not broadcast to the shape of `x` "
                             f"{x.shape}.")
    return [(x.dtype, x.shape), (x.dtype, x.shape)]


def _dropout_grad(op, grad, grad_mask):
    """out = x·mask with mask = keep/(1 - rate): d/dx = mask, d/drate = Σ grad·x·mask/(1 - rate)."""
    if grad is None:
        return [None, None]
    x, rate = op.inputs
    mask = op.outputs[1]
    d_x = _math.multiply(grad, mask)
    d_rate = _math.divide(_reduce.reduce_sum(_math.multiply(d_x, x)), _math.subtract(1.0, rate))
    return [d_x, d_rate]


DROPOUT = OpDef("Dropout", _infer_dropout, _dropout_kernel, grad=_dropout_grad, stateful=True,
                allowed=_HALF_TO_DOUBLE, same_dtype=True, input_names=("x", "rate"), multi=True)
DROPOUT.none_grads = True  # the mask output is internal


def dropout(x, rate, noise_shape=None, seed=None, name=None):
    """`tf.nn.dropout`: zeroes each element with probability `rate` and scales the rest by 1/(1-rate)."""
    x = convert_to_tensor(x)
    if not x.dtype.is_floating:
        raise ValueError(f"`x.dtype` must be a floating point tensor as `x` will be scaled. Received: "
                         f"x_dtype=<dtype: '{x.dtype.name}'>")
    if isinstance(rate, Tensor):
        if rate.shape.rank is not None and rate.shape.rank != 0:
            raise ValueError(f"Shape {tuple(rate.shape._dims)} must have rank 0")
        if rate.dtype is not x.dtype:
            raise ValueError(f"`x.dtype` must be compatible with `rate.dtype`. Received: x.dtype=<dtype: "
                             f"'{x.dtype.name}'> and rate.dtype=<dtype: '{rate.dtype.name}'>")
        rate_t = rate
    else:
        if isinstance(rate, bool) or not isinstance(rate, (int, float, np.number)):
            raise ValueError(f"`rate` must be a scalar or scalar tensor. Received: rate={rate}")
        if not 0 <= rate < 1:
            raise ValueError(f"`rate` must be a scalar tensor or a float in the range [0, 1). Received: "
                             f"rate={rate}")
        if rate == 0:
            return x
        rate_t = convert_to_tensor(float(rate), dtype=x.dtype)
    if noise_shape is not None:
        if isinstance(noise_shape, Tensor):
            value = constant_value(noise_shape)
            if value is None:
                raise TypeError("`noise_shape` must be static (a list or a constant tensor).")
            noise_shape = value.tolist()
        noise_shape = tuple(TensorShape(noise_shape)._dims)
    stream, s1, s2 = _random._stream("Dropout", seed)
    attrs = {"noise_shape": noise_shape, "seed": s1, "seed2": s2, "stream": stream}
    return apply(DROPOUT, (x, rate_t), attrs, name or "dropout")[0]


API = {
    "nn": ["relu", "relu6", "leaky_relu", "elu", "selu", "gelu", "softplus", "softsign", "silu", "swish",
           "softmax", "log_softmax", "sigmoid_cross_entropy_with_logits", "softmax_cross_entropy_with_logits",
           "sparse_softmax_cross_entropy_with_logits", "l2_loss", "bias_add", "moments", "batch_normalization",
           "dropout"],
    "math": ["softmax", "log_softmax", "softplus", "softsign"],
}
