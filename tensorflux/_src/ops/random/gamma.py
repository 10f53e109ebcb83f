"""TensorFlow's gamma sampler (RandomGamma, StatelessRandomGammaV2), draw for draw, and its gradient.

Each output reads its own part of the Philox stream, 256 blocks after the previous output's (so the
numbers do not depend on how TensorFlow splits the work). alpha == 1 takes an exponential draw, -log1p(-u);
other alphas use Marsaglia and Tsang's transformation-rejection: d = alpha - 1/3 (alpha + 2/3 below one),
c = 1 / (3 sqrt(d)), a normal x and a uniform u per try, accepting d (1 + c x)^3 by the squeeze or the log
test, times u'^(1/alpha) for alpha < 1. Normals and uniforms are float64 pairs from one Philox block each,
used last first, as TensorFlow's kernel consumes them; everything is computed in float64 and rounded to the
output dtype once.

The gradient with respect to alpha is the implicit reparameterisation TensorFlow uses (RandomGammaGrad):
d sample / d alpha = -(d P(alpha, x) / d alpha) / (d P(alpha, x) / d x), P the regularised lower
incomplete gamma function.
"""
import functools
import math

import numpy as np

from ...types import dtypes as _dt
from ..array import creation as _creation
from ..array import join as _join
from ..array import reinterpret as _reinterpret
from ..convert import convert_to_tensor
from ..math import arith as _math
from ..math import reduce as _reduce
from ..registry import OpDef, apply
from ..shapes import shape_ops as _shape_ops
from ..shapes import shaping as _shaping
from .sampling import _SHAPE_TYPES, _check_shape_value, _output_shape, _shape_tensor
from .seeds import _stream
from . import per_output
from .stateless import _seed_pair, _seed_tensor
from .. import philox

_PREFETCH = 3               # blocks read ahead for every output (one try needs two; a third covers most)


def _sample_one(alpha, next_block):
    """One gamma(alpha, 1) draw as TensorFlow's kernel makes it, from the output's blocks."""
    uniforms = []

    def uniform():
        if not uniforms:
            uniforms.extend(per_output.uniform_pair(next_block()))
        return uniforms.pop()                # the kernel reads its pair from the end

    if alpha == 1.0:
        return -math.log1p(-uniform())
    small = alpha < 1
    d = alpha + (2.0 / 3 if small else -1.0 / 3)
    c = 1.0 / 3 / math.sqrt(d)
    normals = []
    while True:
        if not normals:
            normals.extend(per_output.normal_pair(next_block()))
        x = normals.pop()
        v = 1 + c * x
        if v <= 0:
            continue
        v = v * v * v
        u = uniform()
        if u < 1 - 0.0331 * (x * x) * (x * x) or math.log(u) < 0.5 * x * x + d * (1 - v + math.log(v)):
            result = d * v
            if small:
                result *= math.pow(uniform(), 1 / alpha)
            return result


def sample(position, sample_shape, alpha, dtype):
    """Gamma(alpha, 1) draws of shape `sample_shape + alpha.shape` from `position` (philox.PhiloxPosition),
    in NumPy `dtype`, as TensorFlow's kernels draw them."""
    flat = per_output.draw_each(position, sample_shape, alpha, lambda a: functools.partial(_sample_one, a),
                                _PREFETCH)
    with np.errstate(over="ignore", under="ignore"):
        return flat.astype(dtype)


def reserved_blocks(outputs):
    """How far a stateful RandomGamma moves its stream per run."""
    return outputs * per_output.RESERVED_BLOCKS


def sample_derivative(alpha, sample):
    """d sample / d alpha of gamma(alpha, 1) draws (RandomGammaGrad), in float64 then the inputs' dtype."""
    from ..math import special_kernels as _special    # a lazy room: only gradients need it
    x = np.asarray(sample, np.float64)
    a = np.broadcast_to(np.asarray(alpha, np.float64), x.shape)
    with np.errstate(all="ignore"):
        d_alpha = np.asarray(_special.igamma_grad_a(a.ravel(), x.ravel()), np.float64).reshape(x.shape)
        log_density = (a - 1) * np.log(x) - x - np.vectorize(math.lgamma, otypes=[np.float64])(a)
        result = -d_alpha / np.exp(log_density)
        result = np.where(x == 0, 0.0, result)
    return result.astype(np.result_type(alpha, sample))


# -- ops ------------------------------------------------------------------------------------------------
_GAMMA_DTYPES = (_dt.float16, _dt.float32, _dt.float64)


def _random_gamma_kernel(shape, alpha, seed, seed2, stream):
    dims = _check_shape_value(shape)
    outputs = int(np.prod(dims, dtype=np.int64)) * alpha.size
    position = stream.reserve(reserved_blocks(outputs))
    return sample(position, dims, alpha, alpha.dtype)


def _infer_random_gamma(inputs, attrs):
    return [(inputs[1].dtype, _output_shape(inputs[0]).concatenate(inputs[1].shape))]


def _sample_dims_gradient(op, grad, sample_rank):
    """Sum of grad * d sample / d alpha over the sample dimensions (TensorFlow's RandomGamma gradient)."""
    alpha, samples = op.inputs[1], op.outputs[0]
    alpha_b = _shaping.reshape(alpha, _join.concat([_creation.ones([sample_rank], _dt.int32),
                                                   _shape_ops.shape(alpha, out_type=_dt.int32)], 0))
    partial = apply(RANDOM_GAMMA_GRAD, (alpha_b, samples), None, "RandomGammaGrad")
    return _reduce.reduce_sum(_math.multiply(grad, partial), axis=list(range(sample_rank)))


def _random_gamma_grad(op, grad):
    sample_rank = op.outputs[0].shape.rank - op.inputs[1].shape.rank
    return [None, _sample_dims_gradient(op, grad, sample_rank)]


def _random_gamma_grad_kernel(alpha, sample):
    return sample_derivative(np.broadcast_to(alpha, np.broadcast_shapes(alpha.shape, sample.shape)), sample)


def _infer_broadcast_pair(inputs, attrs):
    from ..infer import broadcast_shape
    return [(inputs[0].dtype, broadcast_shape(inputs[0].shape, inputs[1].shape))]


RANDOM_GAMMA = OpDef("RandomGamma", _infer_random_gamma, _random_gamma_kernel, grad=_random_gamma_grad,
                     stateful=True, allowed=_SHAPE_TYPES, input_names=("shape", "alpha"))
RANDOM_GAMMA_GRAD = OpDef("RandomGammaGrad", _infer_broadcast_pair, _random_gamma_grad_kernel,
                          allowed=(_dt.float32, _dt.float64), same_dtype=True, input_names=("alpha", "sample"))


def _stateless_gamma_kernel(shape, seed, alpha):
    dims = _check_shape_value(shape)
    lead = per_output.leading_dims(dims, alpha.shape)
    return sample(philox.stateless_position(_seed_pair(seed)), lead, alpha, alpha.dtype).reshape(dims)


def _infer_stateless_gamma(inputs, attrs):
    return [(inputs[2].dtype, _output_shape(inputs[0]))]


def _stateless_gamma_grad(op, grad):
    sample_rank = op.outputs[0].shape.rank - op.inputs[2].shape.rank
    alpha, samples = op.inputs[2], op.outputs[0]
    alpha_b = _shaping.reshape(alpha, _join.concat([_creation.ones([sample_rank], _dt.int32),
                                                   _shape_ops.shape(alpha, out_type=_dt.int32)], 0))
    partial = apply(RANDOM_GAMMA_GRAD, (alpha_b, samples), None, "RandomGammaGrad")
    return [None, None, _reduce.reduce_sum(_math.multiply(grad, partial), axis=list(range(sample_rank)))]


STATELESS_GAMMA = OpDef("StatelessRandomGammaV2", _infer_stateless_gamma, _stateless_gamma_kernel,
                        grad=_stateless_gamma_grad, allowed=_SHAPE_TYPES, input_names=("shape", "seed", "alpha"))


def _alpha_beta(alpha, beta, dtype):
    dtype = _dt.as_dtype(dtype)
    if dtype not in _GAMMA_DTYPES:
        raise TypeError(f"Value passed to parameter 'alpha' has DataType {dtype.name} not in list of allowed "
                        f"values: float16, float32, float64")
    alpha = convert_to_tensor(alpha, dtype=dtype)
    beta = convert_to_tensor(beta if beta is not None else 1, dtype=dtype)
    alpha_b = _shaping.broadcast_to(alpha, _reinterpret.broadcast_dynamic_shape(_shape_ops.shape(alpha),
                                                                               _shape_ops.shape(beta)))
    return alpha_b, beta, dtype


def _scaled(samples, beta, dtype):
    tiny = np.finfo(dtype._np).tiny
    return _math.maximum(convert_to_tensor(tiny, dtype=dtype), _math.divide(samples, beta))


def gamma(shape, alpha, beta=None, dtype=_dt.float32, seed=None, name=None):
    """`tf.random.gamma`: samples of shape `shape + broadcast(alpha, beta).shape` from Gamma(alpha, beta)
    (beta is the rate), TensorFlow's draws; differentiable with respect to alpha and beta."""
    shape_t = _shape_tensor(shape)
    alpha_b, beta_t, dtype = _alpha_beta(alpha, beta, dtype)
    stream, s1, s2 = _stream("RandomGamma", seed, (dtype._np, shape_t.dtype))
    samples = apply(RANDOM_GAMMA, (shape_t, alpha_b), {"seed": s1, "seed2": s2, "stream": stream},
                    name or "RandomGamma")
    return _scaled(samples, beta_t, dtype)


def stateless_gamma(shape, seed, alpha, beta=None, dtype=_dt.float32, name=None):
    """`tf.random.stateless_gamma`: like `gamma` but the same `seed` [2] gives the same samples, and
    `shape` already ends with broadcast(alpha, beta).shape."""
    shape_t = _shape_tensor(shape)
    alpha_b, beta_t, dtype = _alpha_beta(alpha, beta, dtype)
    seed_t = _seed_tensor(seed)
    samples = apply(STATELESS_GAMMA, (shape_t, seed_t, alpha_b), None, name or "StatelessRandomGammaV2")
    return _scaled(samples, beta_t, dtype)


API = {"random": ["gamma", "stateless_gamma"]}
