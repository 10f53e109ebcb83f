"""`tf.nn.local_response_normalization` (alias `tf.nn.lrn`, the LRN op): each value divided by
(bias + alpha * sum of squares over the `depth_radius` neighbouring channels) ** beta, with the LRNGrad op
as its gradient.
"""
import numpy as np

from ...framework import errors
from ...framework.tensor import Tensor
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..convert import convert_to_tensor
from ..registry import OpDef, apply

_LRN_TYPES = (_dt.float16, _dt.bfloat16, _dt.float32)


def _window_sum(values, radius):
    """sum over channels d - radius .. d + radius (clipped at the edges), for every d of the last axis."""
    depth = values.shape[-1]
    cumulative = np.concatenate([np.zeros(values.shape[:-1] + (1,), values.dtype), np.cumsum(values, axis=-1)], -1)
    upper = np.minimum(np.arange(depth) + radius + 1, depth)
    lower = np.maximum(np.arange(depth) - radius, 0)
    return cumulative[..., upper] - cumulative[..., lower]


def _check(x):
    if x.ndim != 4:
        raise errors.InvalidArgumentError(None, None, "in must be 4-dimensional")


def _lrn_kernel(x, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5):
    _check(x)
    wide = x.astype(np.float64)
    scale = bias + alpha * _window_sum(wide * wide, depth_radius)
    return (wide * scale ** -beta).astype(x.dtype)


def _lrn_grad_kernel(grads, x, y, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5):
    # dy_i/dx_k = [i == k] N_i^-beta - 2 alpha beta x_i x_k N_i^(-beta-1) for k in i's window, and the
    # windows are symmetric, so the second term sums over k's own window.
    _check(x)
    g, xw = grads.astype(np.float64), x.astype(np.float64)
    norm = bias + alpha * _window_sum(xw * xw, depth_radius)
    inner = _window_sum(g * xw * norm ** (-beta - 1.0), depth_radius)
    return (g * norm ** -beta - 2.0 * alpha * beta * xw * inner).astype(x.dtype)


def _infer_lrn(inputs, attrs):
    shape = inputs[0].shape
    if shape.rank is not None and shape.rank != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {shape.rank} for 'LRN'")
    return [(inputs[0].dtype, shape if shape.rank is not None else TensorShape([None] * 4))]


def _lrn_grad(op, grad):
    return [apply(LRN_GRAD, (grad, op.inputs[0], op.outputs[0]), dict(op.attrs), "LRNGrad")]


LRN = OpDef("LRN", _infer_lrn, _lrn_kernel, allowed=_LRN_TYPES, input_names=("input",), grad=_lrn_grad)
LRN_GRAD = OpDef("LRNGrad", lambda i, a: [(i[1].dtype, i[1].shape)], _lrn_grad_kernel, same_dtype=True,
                 allowed=_LRN_TYPES, input_names=("input_grads", "input_image", "output_image"))


def local_response_normalization(input, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, name=None):  # noqa: A002
    """`tf.nn.local_response_normalization`: input / (bias + alpha * sqr_sum) ** beta, sqr_sum over the
    2 * depth_radius + 1 channels around each one (4-D input, channels last)."""
    input = input if isinstance(input, Tensor) else convert_to_tensor(input)
    attrs = {"depth_radius": int(depth_radius), "bias": float(bias), "alpha": float(alpha), "beta": float(beta)}
    return apply(LRN, (input,), attrs, name or "LRN")


lrn = local_response_normalization

API = {"nn": ["local_response_normalization", "lrn"]}
