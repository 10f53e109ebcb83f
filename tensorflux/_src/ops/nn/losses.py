"""Softmax and the losses built on it: `softmax`, `log_softmax`, the sigmoid, softmax and sparse softmax
cross-entropies with logits, and `l2_loss`.

Ops TensorFlow implements as one kernel keep its op type; functions TensorFlow composes from several
math ops in Python are one fused NumPy kernel here, under a descriptive op name: same values, dtypes and
errors, fewer graph nodes.
"""
import functools

import numpy as np

from ...framework import errors
from ...framework.tensor import Tensor
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..math import summation as _summation
from ..math import eigen_float as _eigen_float
from ..math import eigen_sum as _eigen_sum
from ..math import arith as _math
from ..shapes.shaping import expand_dims
from ..convert import convert_to_tensor
from ..infer import broadcast_shape
from ..registry import OpDef, apply, constant_value
from ..linalg import blas_threads
from .activations import _HALF_TO_DOUBLE, _NARROW, _sum_kept, _widen
from . import compiled_softmax as _compiled_softmax


_FLOAT32 = np.dtype(np.float32)


# -- softmax -----------------------------------------------------------------------------------------
# Forward and backward are one kernel each, working in place on one fresh array: the shift by the max
# (so exp never overflows), exp, and the normalisation reuse the buffer, and each reduction runs once.
# The backward passes are ops of their own (SoftmaxGrad, LogSoftmaxGrad) instead of chains of small
# ops; their own gradients (second order) are written with ops below.

def _shifted(logits, axis):
    """A new float array holding `logits - max(logits, axis)` (float16/bfloat16 widened to float32)."""
    w = _widen(logits)
    return np.subtract(w, np.max(w, axis=axis, keepdims=True), dtype=w.dtype)


# Up to this many values a float32 (log-)softmax takes TensorFlow's Eigen path (Eigen's exp, its order of
# additions). Above it TensorFlow splits the exp over its thread pool in blocks whose ends take Eigen's scalar
# path, which is not reproduced, so its bits are out of reach anyway; NumPy's vectorised exp is then used,
# 3x faster than the exact scalar exp (an attention softmax has millions of values per step).
EXACT_SOFTMAX_LIMIT = 16384
_F32_ONE = np.float32(1.0)


def _as_rows(x, axis):
    """(rows, classes) float32 copy of `x` with `axis` swapped with the last one (TensorFlow transposes
    so, which decides which rows fall in a packet), and the function putting a result back."""
    moved = np.swapaxes(x, axis, -1)
    shape = moved.shape
    rows = np.ascontiguousarray(moved).reshape(-1, shape[-1])
    return rows, lambda r: np.ascontiguousarray(np.swapaxes(r.reshape(shape), -1, axis))


def _softmax_float32(logits, axis):
    """TensorFlow's CPU softmax: exp(x - max) by Eigen's exp over the whole tensor, each row's sum in
    Eigen's order, and the row scaled by the sum's reciprocal (Eigen's packet reciprocal for all but the
    last rows % 8 rows) -- a multiply, not a divide.

    The reciprocal here is the exact quotient: Eigen's packet reciprocal is the processor's approximate RCPPS
    refined by a Newton step, whose bits differ between AMD and Intel processors (so TensorFlow's own last
    digits depend on the machine) and which only compiled code can run; the exact quotient equals it for
    most rows and never makes a first call wait for a compiler."""
    rows, back = _as_rows(logits, axis)
    e = _eigen_float.exp(np.subtract(rows, rows.max(axis=1, keepdims=True)))
    e *= np.divide(_F32_ONE, _eigen_sum.sum_rows(e), dtype=np.float32)[:, None]
    return back(_eigen_float.flush_denormals(e))      # TensorFlow's threads flush subnormal products


def _log_softmax_float32(logits, axis):
    """TensorFlow's CPU log_softmax: (x - max) - log(sum(exp(x - max))), the exp evaluated inside Eigen's
    row reduction (scalar path for each row's last classes % 8) and the log by Eigen's log over the
    vector of sums."""
    rows, back = _as_rows(logits, axis)
    shifted = np.subtract(rows, rows.max(axis=1, keepdims=True))
    log_sum = _eigen_float.log(_eigen_sum.sum_rows(_eigen_float.exp_by_rows(shifted)))
    shifted -= log_sum[:, None]
    return back(shifted)


# An attention softmax runs over millions of values ([batch, heads, queries, keys]) in rows of a few
# hundred. Done as whole-array passes (max, subtract, exp, sum, divide), each pass streams the array
# through memory again; done a block of rows at a time, the block stays in the core's cache for all five
# passes, and the blocks are shared out over the worker threads. Every row is computed by the same
# ufuncs on the same row as the whole-array form (a row's sum is NumPy's pairwise sum of that row either
# way), so the bits do not depend on the blocks or the threads.
ROW_BLOCK_MIN_ELEMENTS = 1 << 17
_ROW_BLOCK_ELEMENTS = 1 << 15        # 128 KB of float32: the block and its result stay in L2


def _by_row_blocks(x, axis):
    return (x.size >= ROW_BLOCK_MIN_ELEMENTS and axis in (-1, x.ndim - 1) and x.dtype.kind == "f"
            and x.dtype not in _NARROW and x.flags.c_contiguous and x.shape[-1] > 0)


def _row_blocks(pass_, *arrays, block_elements=None):
    """A new array computed by `pass_(*row_blocks, out=out_block)` over blocks of whole last-axis rows
    (of about `block_elements` values, _ROW_BLOCK_ELEMENTS by default)."""
    classes = arrays[0].shape[-1]
    rows = [a.reshape(-1, classes) for a in arrays]
    out = np.empty_like(arrays[0])
    target = out.reshape(-1, classes)
    count = target.shape[0]
    step = max(1, (block_elements or _ROW_BLOCK_ELEMENTS) // classes)

    def run_block(i):
        lo = i * step
        hi = min(count, lo + step)
        pass_(*(r[lo:hi] for r in rows), out=target[lo:hi])
    blas_threads.run_blocks(run_block, -(-count // step))
    return out


def _softmax_rows(x, out):
    np.subtract(x, x.max(axis=1, keepdims=True), out=out)
    np.exp(out, out=out)
    out /= out.sum(axis=1, keepdims=True)


def _softmax_grad_rows(y, grad, out):
    np.multiply(grad, y, out=out)
    total = out.sum(axis=1, keepdims=True)
    np.subtract(grad, total, out=out)
    out *= y


# Once the ops are hot, the passes around the exp run as compiled loops with the same bits
# (compiled_softmax.py); a block they decline (NaN or infinite values) runs the NumPy passes above.
def _softmax_rows_compiled(loops, x, out):
    if loops[3] is not None:
        if not loops[3](x, out):
            _softmax_rows(x, out)
        return
    if loops[0](x, out):
        np.exp(out, out=out)
        loops[1](out)
    else:
        _softmax_rows(x, out)


def _softmax_grad_rows_compiled(loops, y, grad, out):
    if not loops[2](y, grad, out):
        _softmax_grad_rows(y, grad, out)


# A compiled pass finishes each row before the next, so its blocks need not fit the cache: larger ones
# (eight times the NumPy passes' blocks, about ten for an attention softmax) cost fewer hand-overs,
# 0.6 ms less per softmax and gradient.
_COMPILED_BLOCK_FACTOR = 8


def _by_rows(numpy_pass, compiled_pass, *arrays):
    """_row_blocks with the compiled pass bound to its loops when they are built for these arrays, else
    with the NumPy one."""
    loops = _compiled_softmax.softmax_loops(*(a.reshape(-1, a.shape[-1]) for a in arrays))
    if loops is None:
        return _row_blocks(numpy_pass, *arrays)
    return _row_blocks(functools.partial(compiled_pass, loops), *arrays,
                       block_elements=_ROW_BLOCK_ELEMENTS * _COMPILED_BLOCK_FACTOR)


def _softmax_kernel(logits, axis):
    if logits.ndim == 0:
        raise errors.InvalidArgumentError(None, None, "logits must have >= 1 dimension, got []")
    if not logits.size:
        return logits.copy()
    if logits.dtype == _FLOAT32 and logits.size <= EXACT_SOFTMAX_LIMIT:
        return _softmax_float32(logits, axis)
    if _by_row_blocks(logits, axis):
        return _by_rows(_softmax_rows, _softmax_rows_compiled, logits)
    out = _shifted(logits, axis)
    np.exp(out, out=out)
    out /= np.sum(out, axis=axis, keepdims=True)
    return out.astype(logits.dtype, copy=False)


def _log_softmax_kernel(logits, axis):
    if logits.ndim == 0:
        raise errors.InvalidArgumentError(None, None, "logits must have >= 1 dimension, got []")
    if not logits.size:
        return logits.copy()
    if logits.dtype == _FLOAT32 and logits.size <= EXACT_SOFTMAX_LIMIT:
        return _log_softmax_float32(logits, axis)
    out = _shifted(logits, axis)
    with np.errstate(divide="ignore"):
        log_sum = np.log(np.sum(np.exp(out), axis=axis, keepdims=True))
    out -= log_sum
    return out.astype(logits.dtype, copy=False)


def _infer_softmax(inputs, attrs):
    x = inputs[0]
    if x.shape.rank == 0:
        raise ValueError("Shape must be at least rank 1 but is rank 0")
    return [(x.dtype, x.shape)]


def _softmax_grad_kernel(y, grad, axis):
    """d logits = y * (grad - sum(grad * y, axis))."""
    if y.shape == grad.shape and y.dtype == grad.dtype and _by_row_blocks(y, axis) and grad.flags.c_contiguous:
        return _by_rows(_softmax_grad_rows, _softmax_grad_rows_compiled, y, grad)
    wy, wg = _widen(y), _widen(grad)
    out = np.multiply(wg, wy)
    total = np.sum(out, axis=axis, keepdims=True)
    np.subtract(wg, total, out=out)
    out *= wy
    return out.astype(y.dtype, copy=False)


def _log_softmax_grad_kernel(y, grad, axis):
    """d logits = grad - exp(y) * sum(grad, axis)."""
    wy, wg = _widen(y), _widen(grad)
    out = np.exp(wy)
    out *= np.sum(wg, axis=axis, keepdims=True)
    np.subtract(wg, out, out=out)
    return out.astype(y.dtype, copy=False)


def _infer_softmax_grad(inputs, attrs):
    y, grad = inputs
    return [(y.dtype, y.shape.merge_with(grad.shape) if y.shape.is_compatible_with(grad.shape) else y.shape)]


def _softmax_grad_grad(op, h):
    """Of out = y * (g - S), S = sum(g * y): d g = y * (h - sum(h * y)), d y = h * (g - S) - g * sum(h * y)."""
    y, g = op.inputs
    axis = op.attrs["axis"]
    total_g = _sum_kept(_math.multiply(g, y), [axis])
    total_h = _sum_kept(_math.multiply(h, y), [axis])
    d_y = _math.subtract(_math.multiply(h, _math.subtract(g, total_g)), _math.multiply(g, total_h))
    return [d_y, apply(SOFTMAX_GRAD, (y, h), {"axis": axis}, "SoftmaxGrad")]


def _log_softmax_grad_grad(op, h):
    """Of out = g - exp(y) * sum(g): d g = h - sum(h * exp(y)), d y = -h * exp(y) * sum(g)."""
    y, g = op.inputs
    axis = op.attrs["axis"]
    p = _math.exp(y)
    d_g = _math.subtract(h, _sum_kept(_math.multiply(h, p), [axis]))
    d_y = _math.negative(_math.multiply(_math.multiply(h, p), _sum_kept(g, [axis])))
    return [d_y, d_g]


SOFTMAX_GRAD = OpDef("SoftmaxGrad", _infer_softmax_grad, _softmax_grad_kernel, grad=_softmax_grad_grad,
                     allowed=_HALF_TO_DOUBLE, same_dtype=True, input_names=("softmax", "grad"))
LOG_SOFTMAX_GRAD = OpDef("LogSoftmaxGrad", _infer_softmax_grad, _log_softmax_grad_kernel,
                         grad=_log_softmax_grad_grad, allowed=_HALF_TO_DOUBLE, same_dtype=True,
                         input_names=("log_softmax", "grad"))


def _softmax_grad(op, grad):
    return [apply(SOFTMAX_GRAD, (op.outputs[0], grad), {"axis": op.attrs["axis"]}, "SoftmaxGrad")]


def _log_softmax_grad(op, grad):
    return [apply(LOG_SOFTMAX_GRAD, (op.outputs[0], grad), {"axis": op.attrs["axis"]}, "LogSoftmaxGrad")]


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
            d_labels = _summation.reduce_to(d_labels, labels)
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


API = {
    "nn": ["softmax", "log_softmax", "sigmoid_cross_entropy_with_logits", "softmax_cross_entropy_with_logits",
           "sparse_softmax_cross_entropy_with_logits", "l2_loss"],
    "math": ["softmax", "log_softmax"],
}
