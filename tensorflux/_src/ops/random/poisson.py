"""TensorFlow's Poisson sampler (RandomPoissonV2, StatelessRandomPoisson), draw for draw.

As for gamma, each output reads its own part of the Philox stream, 256 blocks after the previous output's,
taking float64 uniforms in pairs from one Philox block, last first. Rates below 10 use Knuth's method
(multiply uniforms until the product falls to exp(-rate)); larger finite rates use Hormann's transformed
rejection (PTRS) with TensorFlow's constants; an infinite rate gives infinity. A NaN rate gives NaN (0 in an
integer dtype), where TensorFlow's kernel loops forever. Everything is computed in float64 and converted to
the output dtype once.
"""
import functools
import math

import numpy as np

from ...framework import errors
from ...types import dtypes as _dt
from ..convert import convert_to_tensor
from ...framework.context import state as _state
from ..registry import OpDef, apply, dtype_error_name
from .. import philox
from .sampling import _SHAPE_TYPES, _check_shape_value, _output_shape, _shape_tensor
from .seeds import _stream
from . import per_output
from .stateless import _seed_pair, _seed_tensor

_PREFETCH = 2
_POISSON_DTYPES = (_dt.float16, _dt.float32, _dt.float64, _dt.int32, _dt.int64)


def _sample_one(rate, consts, next_block):
    uniforms = []

    def uniform():
        if not uniforms:
            uniforms.extend(per_output.uniform_pair(next_block()))
        return uniforms.pop()

    if math.isnan(rate):          # TensorFlow's kernel never leaves its rejection loop; tensorflux gives NaN
        return math.nan
    if rate < 10:
        limit, product, count = consts, 1.0, 0.0
        while True:
            product *= uniform()
            if product <= limit:
                return count
            count += 1
    if math.isinf(rate):
        return math.inf
    log_rate, b, a, inv_alpha = consts
    while True:
        u = uniform() - 0.5
        v = uniform()
        u_shifted = 0.5 - abs(u)
        k = math.floor((2 * a / u_shifted + b) * u + rate + 0.43)
        if k < 0:
            continue
        if u_shifted >= 0.07 and v <= 0.9277 - 3.6224 / (b - 2):
            return k
        if u_shifted < 0.013 and v > u_shifted:
            continue
        s = math.log(v * inv_alpha / (a / (u_shifted * u_shifted) + b))
        t = -rate + k * log_rate - math.lgamma(k + 1)
        if s <= t:
            return k


def _constants(rate):
    if math.isnan(rate):
        return None
    if rate < 10:
        return math.exp(-rate)
    if math.isinf(rate):
        return None
    b = 0.931 + 2.53 * math.sqrt(rate)
    return math.log(rate), b, -0.059 + 0.02483 * b, 1.1239 + 1.1328 / (b - 3.4)


def sample(position, sample_shape, rate, dtype):
    """Poisson(rate) draws of shape `sample_shape + rate.shape` from `position`, as TensorFlow's kernels
    draw them, in NumPy `dtype`."""
    shaped = per_output.draw_each(position, sample_shape, rate,
                                  lambda r: functools.partial(_sample_one, r, _constants(r)), _PREFETCH)
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)
        shaped = np.where(np.isinf(shaped), info.max, np.minimum(np.nan_to_num(shaped, nan=0.0), info.max))
    return shaped.astype(dtype)


def _random_poisson_kernel(shape, rate, dtype, seed, seed2, stream):
    dims = _check_shape_value(shape)
    outputs = int(np.prod(dims, dtype=np.int64)) * rate.size
    position = stream.reserve(outputs * per_output.RESERVED_BLOCKS)
    return sample(position, dims, rate, dtype)


def _infer_random_poisson(inputs, attrs):
    return [(_dt.as_dtype(attrs["dtype"]), _output_shape(inputs[0]).concatenate(inputs[1].shape))]


def _stateless_poisson_kernel(shape, seed, lam, dtype):
    dims = _check_shape_value(shape)
    lead = per_output.leading_dims(dims, lam.shape)
    return sample(philox.stateless_position(_seed_pair(seed)), lead, lam, dtype).reshape(dims)


def _infer_stateless_poisson(inputs, attrs):
    return [(_dt.as_dtype(attrs["dtype"]), _output_shape(inputs[0]))]


def _no_gradient(op, *grads):
    return [None] * len(op.inputs)


RANDOM_POISSON = OpDef("RandomPoissonV2", _infer_random_poisson, _random_poisson_kernel, grad=_no_gradient,
                       stateful=True, allowed=_SHAPE_TYPES, input_names=("shape", "rate"))
STATELESS_POISSON = OpDef("StatelessRandomPoisson", _infer_stateless_poisson, _stateless_poisson_kernel,
                          grad=_no_gradient, allowed=_SHAPE_TYPES, input_names=("shape", "seed", "lam"))


def _check_dtype(dtype):
    dtype = _dt.as_dtype(dtype)
    if dtype not in _POISSON_DTYPES:
        raise TypeError(f"Value passed to parameter 'dtype' has DataType {dtype.name} not in list of allowed "
                        f"values: float16, float32, float64, int32, int64")
    return dtype


def _rate(lam, op_name, param):
    """The rate as a tensor of one of TensorFlow's rate dtypes (its error otherwise: an InvalidArgumentError
    eagerly, a TypeError while tracing)."""
    lam = convert_to_tensor(lam, dtype_hint=_dt.float32)
    if lam.dtype not in _POISSON_DTYPES:
        if _state.graph is not None:
            raise TypeError(f"Value passed to parameter '{param}' has DataType {lam.dtype.name} not in list of "
                            f"allowed values: float16, float32, float64, int32, int64")
        raise errors.eager_error(
            errors.InvalidArgumentError,
            f"Value for attr '{'R' if param == 'rate' else 'Rtype'}' of {dtype_error_name(lam.dtype)} is not in "
            f"the list of allowed values: half, float, double, int32, int64", op_name, kernel=False)
    return lam


def poisson(shape, lam, dtype=_dt.float32, seed=None, name=None):
    """`tf.random.poisson`: samples of shape `shape + lam.shape` from Poisson(lam), TensorFlow's draws."""
    dtype = _check_dtype(dtype)
    shape_t = _shape_tensor(shape)
    # Eagerly, TensorFlow continues one stream per cached kernel. Observed in TF 2.21: the rate's dtype does
    # not separate them, but a rate given as a Python list does (its wrapper's slow path caches its own).
    slow_path = isinstance(lam, (list, tuple))
    lam = _rate(lam, "RandomPoissonV2", "rate")
    stream, s1, s2 = _stream("RandomPoissonV2", seed, (dtype._np, shape_t.dtype, slow_path))
    return apply(RANDOM_POISSON, (shape_t, lam), {"dtype": dtype._np, "seed": s1, "seed2": s2, "stream": stream},
                 name or "random_poisson")


def stateless_poisson(shape, seed, lam, dtype=_dt.int32, name=None):
    """`tf.random.stateless_poisson`: like `poisson` but the same `seed` [2] gives the same samples, and
    `shape` already ends with lam's shape."""
    dtype = _check_dtype(dtype)
    shape_t = _shape_tensor(shape)
    lam = _rate(lam, "StatelessRandomPoisson", "lam")
    return apply(STATELESS_POISSON, (shape_t, _seed_tensor(seed), lam), {"dtype": dtype._np},
                 name or "stateless_random_poisson")


API = {"random": ["poisson", "stateless_poisson"]}
