"""Statistics and normalisation: `tf.nn.moments`, `tf.nn.batch_normalization`, and the fused layer
normalisation Keras' LayerNormalization runs (FusedLayerNorm / FusedLayerNormGrad, tensorflux op types).

Ops TensorFlow implements as one kernel keep its op type; functions TensorFlow composes from several
math ops in Python are one fused NumPy kernel here, under a descriptive op name: same values, dtypes and
errors, fewer graph nodes.
"""
import numpy as np

from ...framework import errors
from ...framework.context import state as _state
from ...framework.tensor import Tensor
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..shapes import creators as _creators
from ..math import summation as _summation
from ..math import reduce as _reduce
from ..linalg import blas_threads as _blas
from ..array import gather as _gather
from ..array import where as _where
from ..math import arith as _math
from ..shapes.shape_ops import shape_of
from ..shapes.shaping import broadcast_to, reshape
from ..convert import convert_to_tensor
from ..infer import broadcast_shape
from ..registry import OpDef, apply
from .activations import _HALF_TO_DOUBLE, _widen
from . import compiled_layer_norm as _compiled_layer_norm


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
        count = _math.divide(_math.cast(_gather.shape_product(dims), x.dtype),
                             _math.cast(_gather.shape_product(shape_of(mean)), x.dtype))
        rank = x.shape.rank
        if rank is None:
            raise ValueError("The gradient of moments needs an input of known rank.")
        ones = _creators.ones_like(dims)
        kept = _where.where(convert_to_tensor([i in axes for i in range(rank)]), ones, dims)

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
            if not -rank <= a < rank:
                if _state.graph is not None:  # TensorFlow's shape inference of the Mean node
                    raise ValueError(f"Invalid reduction dimension {a} for input with {rank} dimensions.")
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
    grads = [_summation.reduce_to(d_x, x), _summation.reduce_to(_math.negative(d_x), mean)]
    d_variance = _math.multiply(_math.multiply(d_x, centered), _math.multiply(_math.square(inv), -0.5))
    grads.append(_summation.reduce_to(d_variance, variance))
    if offset is not None:
        grads.append(_summation.reduce_to(grad, offset))
    if scale is not None:
        grads.append(_summation.reduce_to(_math.multiply(_math.multiply(grad, centered), inv), scale))
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


# -- fused layer normalisation -----------------------------------------------------------------------
# Keras' LayerNormalization composes moments, rsqrt and four broadcast products: eight ops forward and
# about twenty in the gradient, each a pass over the activations. Here it is one kernel each way, over
# the trailing axes from `begin_axis` on (those the layer normalises; gamma and beta have their shape),
# seen as a [rows, N] matrix:
#   y = x·(r·γ) + (β − μ·(r·γ)),  μ = mean(x), r = 1/√(mean((x − μ)²) + ε)
# in the composite's order of operations. The backward, with x̂ = (x − μ)·r and g = dy·γ:
# dx = r·(g − mean(g) − x̂·mean(g·x̂)), dγ = Σ dy·x̂, dβ = Σ dy (sums over the rows). The row means and
# the column sums are matrix-vector products (BLAS, under blas_threads' one-thread policy): NumPy's reduction along a short last axis (32 for
# the keras-io transformer) costs 6× a pass over the data. Its own gradient is composed from primitive
# ops, so every order is differentiable.
def _rows(a, begin_axis):
    return a.reshape(int(np.prod(a.shape[:begin_axis], dtype=np.int64)), -1)


def _row_mean(m, ones):
    """Each row's mean of a [rows, N] matrix, as a column [rows, 1]."""
    return _blas.matmul(m, ones)[:, None] / m.dtype.type(m.shape[1])


def _layer_norm_stats(w, epsilon):
    """μ and r = 1/√(var + ε) of each row of w [rows, N], and the ones vector of the row means."""
    ones = np.ones(w.shape[1], w.dtype)
    mean = _row_mean(w, ones)
    centered = w - mean
    variance = _row_mean(np.square(centered), ones)
    with np.errstate(divide="ignore", invalid="ignore"):
        return mean, centered, np.reciprocal(np.sqrt(variance + w.dtype.type(epsilon))), ones


def _check_layer_norm_params(x, params, begin_axis):
    for name, p in zip(("gamma", "beta"), params):
        if p.shape != x.shape[begin_axis:]:
            raise errors.InvalidArgumentError(
                None, None, f"FusedLayerNorm: {name} must have the shape of the normalized axes "
                            f"{list(x.shape[begin_axis:])} of x {list(x.shape)}, received {list(p.shape)}")


# Every quantity but dγ and dβ belongs to one row, and a row mean is a matrix-vector product whose bits
# do not depend on the rows around it as long as a block starts at a multiple of 64 rows (OpenBLAS's
# gemv handles rows in groups; checked against the whole product for 1-1024-row blocks). So over
# 2^16 values the rows are cut into such blocks, each computed whole by one worker thread; dγ and dβ,
# sums down the rows, are computed afterwards over all rows as before (one on each thread).
LAYER_NORM_BLOCKED_MIN_ELEMENTS = 1 << 16
_LAYER_NORM_BLOCK_ELEMENTS = 1 << 15
_ROW_ALIGN = 64


def _row_blocks(rows, width, run_block):
    """run_block(lo, hi) over blocks of rows starting at multiples of 64, shared out over the worker
    threads when the matrix is big enough (one block otherwise)."""
    if rows * width < LAYER_NORM_BLOCKED_MIN_ELEMENTS or _blas.usable_workers() < 2:
        run_block(0, rows)
        return
    step = max(_ROW_ALIGN, _LAYER_NORM_BLOCK_ELEMENTS // max(width, 1) // _ROW_ALIGN * _ROW_ALIGN)
    _blas.run_blocks(lambda i: run_block(i * step, min(rows, (i + 1) * step)), -(-rows // step))


def _fused_layer_norm_kernel(x, gamma, beta, begin_axis, epsilon):
    _check_layer_norm_params(x, (gamma, beta), begin_axis)
    w = _rows(_widen(x), begin_axis)
    g, b = _widen(gamma).reshape(-1), _widen(beta).reshape(-1)
    out = np.empty_like(w)
    loops = _compiled_layer_norm.layer_norm_loops(w, g)
    if loops is not None and b.dtype == g.dtype and b.flags.c_contiguous:
        finite = []
        _row_blocks(w.shape[0], w.shape[1], lambda lo, hi: finite.append(
            loops[0](w[lo:hi], g, b, w.dtype.type(epsilon), out[lo:hi])))
        if all(finite):
            return out.reshape(x.shape).astype(x.dtype, copy=False)

    def run_block(lo, hi):
        block = w[lo:hi]
        mean, _, r, _ = _layer_norm_stats(block, epsilon)
        scale = r * g
        np.add(block * scale, b - mean * scale, out=out[lo:hi])
    _row_blocks(w.shape[0], w.shape[1], run_block)
    return out.reshape(x.shape).astype(x.dtype, copy=False)


def _fused_layer_norm_grad_kernel(dy, x, gamma, begin_axis, epsilon):
    _check_layer_norm_params(x, (gamma,), begin_axis)
    w, g_in = _rows(_widen(x), begin_axis), _rows(_widen(dy), begin_axis)
    gam = _widen(gamma).reshape(-1)
    dx = np.empty_like(w)
    g_x_hat = np.empty_like(w)      # dy·x̂, summed down the rows into dγ at the end
    loops = _compiled_layer_norm.layer_norm_loops(w, gam)
    if loops is not None and g_in.dtype == w.dtype and g_in.flags.c_contiguous:
        finite = []
        _row_blocks(w.shape[0], w.shape[1], lambda lo, hi: finite.append(
            loops[1](g_in[lo:hi], w[lo:hi], gam, w.dtype.type(epsilon), dx[lo:hi], g_x_hat[lo:hi])))
        compiled = all(finite)
    else:
        compiled = False

    def run_block(lo, hi):
        _, centered, r, ones = _layer_norm_stats(w[lo:hi], epsilon)
        x_hat = centered * r
        g_block = g_in[lo:hi]
        np.multiply(g_block, x_hat, out=g_x_hat[lo:hi])
        g = g_block * gam
        np.multiply(r, g - _row_mean(g, ones) - x_hat * _row_mean(g * x_hat, ones), out=dx[lo:hi])
    if not compiled:
        _row_blocks(w.shape[0], w.shape[1], run_block)
    row_ones = np.ones(w.shape[0], w.dtype)
    sums = [g_in, g_x_hat]
    if w.size >= LAYER_NORM_BLOCKED_MIN_ELEMENTS:
        _blas.run_blocks(lambda i: sums.__setitem__(i, _blas.matmul(row_ones, sums[i])), 2)
    else:
        sums = [_blas.matmul(row_ones, a) for a in sums]
    d_beta, d_gamma = sums
    return (dx.reshape(x.shape).astype(x.dtype, copy=False), d_gamma.reshape(gamma.shape).astype(gamma.dtype, copy=False),
            d_beta.reshape(gamma.shape).astype(gamma.dtype, copy=False))


def _infer_fused_layer_norm(inputs, attrs):
    return [(inputs[0].dtype, inputs[0].shape)]


def _infer_fused_layer_norm_grad(inputs, attrs):
    dy, x, gamma = inputs
    return [(x.dtype, x.shape), (gamma.dtype, gamma.shape), (gamma.dtype, gamma.shape)]


def _fused_layer_norm_grad(op, grad):
    x, gamma, _ = op.inputs
    dx, d_gamma, d_beta = apply(FUSED_LAYER_NORM_GRAD, (grad, x, gamma), op.attrs, "FusedLayerNormGrad")
    return [dx, d_gamma, d_beta]


def _fused_layer_norm_grad_grad(op, grad_dx, grad_gamma, grad_beta):
    """The gradient of (dx, dγ, dβ) w.r.t. (dy, x, γ), in primitive ops. With Q the backward applied to
    the incoming dx-gradient Gx, Q = r·(Gx − mean(Gx) − x̂·mean(Gx·x̂)):
      d dy = γ·Q + Gγ·x̂ + Gβ,   d γ = Σ dy·Q,
      d x  = r·(P − mean(P) − x̂·mean(P·x̂)) − r²·S/N·x̂,   where
      P = −r·g·Σ(Gx·x̂)/N − r·mean(g·x̂)·Gx + Gγ·dy  and  S = Σ Gx·(g − mean(g) − x̂·mean(g·x̂))."""
    dy, x, gamma = op.inputs
    begin, eps = op.attrs["begin_axis"], op.attrs["epsilon"]
    rank = x.shape.rank
    axes, rows = list(range(begin, rank)), list(range(begin))
    count = float(np.prod(gamma.shape.as_list()))
    m, sub, add = _math.multiply, _math.subtract, _math.add

    def mean(t):
        return _reduce.reduce_mean(t, axes, keepdims=True)

    def total(t):
        return _summation.reduce_sum(t, axes, keepdims=True)

    grad_dx = _creators.zeros_like(x) if grad_dx is None else grad_dx
    grad_gamma = _creators.zeros_like(gamma) if grad_gamma is None else grad_gamma
    grad_beta = _creators.zeros_like(gamma) if grad_beta is None else grad_beta
    mu = mean(x)
    centered = sub(x, mu)
    r = _math.rsqrt(add(mean(_math.square(centered)), _math.cast(eps, x.dtype)))
    x_hat = m(centered, r)
    q = m(r, sub(sub(grad_dx, mean(grad_dx)), m(x_hat, mean(m(grad_dx, x_hat)))))
    d_dy = add(add(m(gamma, q), m(grad_gamma, x_hat)), grad_beta)
    d_gamma = _summation.reduce_sum(m(dy, q), rows)
    g = m(dy, gamma)
    g_mean, gx_mean = mean(g), mean(m(g, x_hat))
    s = total(m(grad_dx, sub(sub(g, g_mean), m(x_hat, gx_mean))))
    p = add(sub(_math.negative(m(m(r, g), total(m(grad_dx, x_hat)) / count)), m(m(r, gx_mean), grad_dx)),
            m(grad_gamma, dy))
    d_x = sub(m(r, sub(sub(p, mean(p)), m(x_hat, mean(m(p, x_hat))))), m(m(m(r, r), s) / count, x_hat))
    return [d_dy, d_x, d_gamma]


FUSED_LAYER_NORM = OpDef("FusedLayerNorm", _infer_fused_layer_norm, _fused_layer_norm_kernel,
                         grad=_fused_layer_norm_grad, allowed=_HALF_TO_DOUBLE, same_dtype=True,
                         input_names=("x", "gamma", "beta"))
FUSED_LAYER_NORM_GRAD = OpDef("FusedLayerNormGrad", _infer_fused_layer_norm_grad, _fused_layer_norm_grad_kernel,
                              grad=_fused_layer_norm_grad_grad, allowed=_HALF_TO_DOUBLE, same_dtype=True,
                              input_names=("dy", "x", "gamma"), multi=True)


def fused_layer_norm(x, gamma, beta, begin_axis, epsilon, name=None):
    """Layer normalisation of `x` over its axes from `begin_axis` on, scaled by `gamma` and shifted by
    `beta` (both of the normalized axes' shape), as one op forward and one backward (Keras'
    LayerNormalization uses it; not a TensorFlow API)."""
    x = convert_to_tensor(x)
    rank = x.shape.rank
    if rank is None or not 0 <= begin_axis < rank:
        raise ValueError(f"fused_layer_norm needs an input of known rank with 0 <= begin_axis < rank; received "
                         f"begin_axis={begin_axis} for an input of shape {x.shape}")
    gamma = gamma if isinstance(gamma, Tensor) else convert_to_tensor(gamma, dtype=x.dtype)
    beta = beta if isinstance(beta, Tensor) else convert_to_tensor(beta, dtype=x.dtype)
    attrs = {"begin_axis": int(begin_axis), "epsilon": float(epsilon)}
    return apply(FUSED_LAYER_NORM, (x, gamma, beta), attrs, name or "FusedLayerNorm")


API = {"nn": ["moments", "batch_normalization"]}
