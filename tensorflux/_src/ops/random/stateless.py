"""The stateless random ops: the same seed always gives the same values.

`tf.random.stateless_uniform` / `stateless_normal` / `stateless_truncated_normal` (StatelessRandom*:
a seed [2] is scrambled into a Philox position on every run) and the key/counter ops Generator draws
with (Stateless*V2: the Philox stream at a given key [1] and counter [2]). Both give TensorFlow's own
numbers (ops/philox.py); ThreeFry is not available on CPU, in TensorFlow as here. `stateless_categorical`
(StatelessMultinomial) samples as TensorFlow's kernel does (multinomial.py).
"""
import numpy as np

from ...framework import errors
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..convert import convert_to_tensor
from ..registry import OpDef, apply, constant_value
from .. import philox
from . import multinomial as _multinomial
from ..shapes.creators import _no_gradient   # random draws: TensorFlow registers no gradient
from .sampling import (_SHAPE_TYPES, _UNIFORM_DTYPES, _affine, _bounds, _check_dtype, _check_shape_value,
    _float_dtype, _infer_random, _output_shape, _scale_shift, _shape_tensor)


# -- stateless ops -----------------------------------------------------------------------------------
def _seed_pair(seed):
    if seed.shape != (2,):
        raise errors.InvalidArgumentError(
            None, None, f"seed must have shape [2], not [{','.join(str(d) for d in seed.shape)}]")
    return seed


def _stateless_uniform_kernel(shape, seed, dtype):
    return philox.stateless(_seed_pair(seed), _check_shape_value(shape), dtype, "uniform")


def _stateless_normal_kernel(shape, seed, dtype):
    return philox.stateless(_seed_pair(seed), _check_shape_value(shape), dtype, "normal")


def _stateless_truncated_normal_kernel(shape, seed, dtype):
    return philox.stateless(_seed_pair(seed), _check_shape_value(shape), dtype, "truncated_normal")


def _stateless_uniform_int_kernel(shape, seed, minval, maxval):
    lo, hi = _bounds(minval, maxval)
    return philox.stateless(_seed_pair(seed), _check_shape_value(shape), minval.dtype, "uniform", minval=lo, maxval=hi)


def _stateless_full_int_kernel(shape, seed, dtype):
    return philox.stateless(_seed_pair(seed), _check_shape_value(shape), dtype, "uniform_full_int")


def _infer_stateless_int(inputs, attrs):
    return [(inputs[2].dtype, _output_shape(inputs[0]))]


STATELESS_UNIFORM = OpDef("StatelessRandomUniform", _infer_random, _stateless_uniform_kernel,
                          allowed=_SHAPE_TYPES, grad=_no_gradient, input_names=("shape", "seed"))
STATELESS_NORMAL = OpDef("StatelessRandomNormal", _infer_random, _stateless_normal_kernel,
                         allowed=_SHAPE_TYPES, grad=_no_gradient, input_names=("shape", "seed"))
STATELESS_TRUNCATED_NORMAL = OpDef("StatelessTruncatedNormal", _infer_random, _stateless_truncated_normal_kernel,
                                   allowed=_SHAPE_TYPES, grad=_no_gradient, input_names=("shape", "seed"))
STATELESS_UNIFORM_INT = OpDef("StatelessRandomUniformInt", _infer_stateless_int, _stateless_uniform_int_kernel,
                              allowed=_SHAPE_TYPES, grad=_no_gradient,
                              input_names=("shape", "seed", "minval", "maxval"))
STATELESS_UNIFORM_FULL_INT = OpDef("StatelessRandomUniformFullInt", _infer_random, _stateless_full_int_kernel,
                                   allowed=_SHAPE_TYPES, grad=_no_gradient,
                                   input_names=("shape", "seed"))


def _seed_tensor(seed):
    seed = convert_to_tensor(seed)
    if seed.dtype not in (_dt.int32, _dt.int64):
        raise errors.InvalidArgumentError(
            None, "StatelessRandomGetKeyCounter",
            f"Value for attr 'Tseed' of {seed.dtype.name} is not in the list of allowed values: int32, int64")
    return seed


_THREEFRY_NAMES = ("threefry", 2)


def _check_alg(alg, op_name):
    """TensorFlow's stateless ops take 'philox', 'auto_select' (Philox on CPU) or 'threefry'; a ThreeFry
    key/counter has a one-word counter, which the CPU kernels reject."""
    name = alg.value if hasattr(alg, "value") else alg
    if isinstance(name, str):
        name = name.lower()
    if name in _THREEFRY_NAMES:
        raise errors.InvalidArgumentError(
            None, op_name, "counter must be a vector with length at least 2; got shape: [1]. (Note that batched "
                           "counters are not supported yet.)")
    if name not in ("philox", "auto_select", 1, 3):
        raise ValueError(f"Argument `alg` got unsupported value {alg}. Supported values are philox for the "
                         f"Philox algorithm, threefry for the ThreeFry algorithm, and auto_select for "
                         f"auto-selection.")


def stateless_uniform(shape, seed, minval=0, maxval=None, dtype=_dt.float32, name=None, alg="auto_select"):
    """`tf.random.stateless_uniform`: like `uniform`, but the same `seed` [2] always gives the same values."""
    dtype = _check_dtype(dtype, _UNIFORM_DTYPES + (_dt.uint32, _dt.uint64))
    shape_t, seed_t = _shape_tensor(shape), _seed_tensor(seed)
    _check_alg(alg, "StatelessRandomUniformIntV2" if dtype.is_integer else "StatelessRandomUniformV2")
    if dtype.is_integer:
        if minval is None and maxval is None:
            return apply(STATELESS_UNIFORM_FULL_INT, (shape_t, seed_t), {"dtype": dtype._np},
                         name or "stateless_random_uniform")
        if minval is None or maxval is None:
            raise ValueError(f"For integer `dtype` argument <dtype: '{dtype.name}'>, argument `minval` and "
                             f"`maxval` must be both None or not None. Got `minval`={minval} and `maxval`={maxval}.")
        low = convert_to_tensor(minval, dtype=dtype)
        high = convert_to_tensor(maxval, dtype=dtype)
        return apply(STATELESS_UNIFORM_INT, (shape_t, seed_t, low, high), None,
                     name or "stateless_random_uniform")
    if maxval is None:
        maxval = 1
    unit = apply(STATELESS_UNIFORM, (shape_t, seed_t), {"dtype": dtype._np}, name or "stateless_random_uniform")
    return _affine(unit, minval, maxval, dtype)


def stateless_normal(shape, seed, mean=0.0, stddev=1.0, dtype=_dt.float32, name=None, alg="auto_select"):
    """`tf.random.stateless_normal`: like `normal`, but the same `seed` [2] always gives the same values."""
    dtype = _float_dtype(dtype)
    shape_t, seed_t = _shape_tensor(shape), _seed_tensor(seed)
    _check_alg(alg, "StatelessRandomNormalV2")
    values = apply(STATELESS_NORMAL, (shape_t, seed_t), {"dtype": dtype._np}, name or "stateless_random_normal")
    return _scale_shift(values, mean, stddev, dtype)


def stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype=_dt.float32, name=None,
                               alg="auto_select"):
    """`tf.random.stateless_truncated_normal`: normal draws kept within 2 stddev of the mean, the same for
    the same `seed` [2]."""
    dtype = _float_dtype(dtype)
    shape_t, seed_t = _shape_tensor(shape), _seed_tensor(seed)
    _check_alg(alg, "StatelessTruncatedNormalV2")
    values = apply(STATELESS_TRUNCATED_NORMAL, (shape_t, seed_t), {"dtype": dtype._np},
                   name or "stateless_truncated_normal")
    return _scale_shift(values, mean, stddev, dtype)


def _position(key, counter):
    """The Philox position at `key` [1] and `counter` [2] (int64 words, least significant first)."""
    if key.shape != (1,) or counter.shape != (2,):
        raise errors.InvalidArgumentError(
            None, None, f"key must have shape [1] and counter shape [2], got [{','.join(map(str, key.shape))}] and "
                        f"[{','.join(map(str, counter.shape))}]")
    low, high = (int(w) for w in counter.astype(np.int64).view(np.uint64))
    return philox.PhiloxPosition(int(key.astype(np.int64).view(np.uint64)[0]), low | (high << 64))


def _keyed_uniform_kernel(shape, key, counter, alg, dtype):
    return philox.draw(_position(key, counter), _check_shape_value(shape), dtype, "uniform")


def _keyed_normal_kernel(shape, key, counter, alg, dtype):
    return philox.draw(_position(key, counter), _check_shape_value(shape), dtype, "normal")


def _keyed_truncated_normal_kernel(shape, key, counter, alg, dtype):
    return philox.draw(_position(key, counter), _check_shape_value(shape), dtype, "truncated_normal")


def _keyed_uniform_int_kernel(shape, key, counter, alg, minval, maxval):
    lo, hi = _bounds(minval, maxval)
    return philox.draw(_position(key, counter), _check_shape_value(shape), minval.dtype, "uniform", lo, hi)


def _keyed_full_int_kernel(shape, key, counter, alg, dtype):
    return philox.draw(_position(key, counter), _check_shape_value(shape), dtype, "uniform_full_int")


def _infer_keyed_int(inputs, attrs):
    return [(inputs[4].dtype, _output_shape(inputs[0]))]


_KEYED_INPUTS = ("shape", "key", "counter", "alg")
STATELESS_UNIFORM_V2 = OpDef("StatelessRandomUniformV2", _infer_random, _keyed_uniform_kernel,
                             allowed=_SHAPE_TYPES, grad=_no_gradient, input_names=_KEYED_INPUTS)
STATELESS_NORMAL_V2 = OpDef("StatelessRandomNormalV2", _infer_random, _keyed_normal_kernel,
                            allowed=_SHAPE_TYPES, grad=_no_gradient, input_names=_KEYED_INPUTS)
STATELESS_TRUNCATED_NORMAL_V2 = OpDef("StatelessTruncatedNormalV2", _infer_random, _keyed_truncated_normal_kernel,
                                      allowed=_SHAPE_TYPES, grad=_no_gradient, input_names=_KEYED_INPUTS)
STATELESS_UNIFORM_INT_V2 = OpDef("StatelessRandomUniformIntV2", _infer_keyed_int, _keyed_uniform_int_kernel,
                                 allowed=_SHAPE_TYPES, grad=_no_gradient,
                                 input_names=_KEYED_INPUTS + ("minval", "maxval"))
STATELESS_UNIFORM_FULL_INT_V2 = OpDef("StatelessRandomUniformFullIntV2", _infer_random, _keyed_full_int_kernel,
                                      allowed=_SHAPE_TYPES, grad=_no_gradient,
                                      input_names=_KEYED_INPUTS)


# -- stateless categorical ---------------------------------------------------------------------------
def _stateless_multinomial_kernel(logits, num_samples, seed, output_dtype):
    n = _multinomial.check(logits, num_samples)
    position = philox.stateless_position(_seed_pair(seed))
    return _multinomial.sample(position, logits, n).astype(output_dtype)


def _infer_stateless_multinomial(inputs, attrs):
    logits = inputs[0]
    count = constant_value(inputs[1])
    dims = logits.shape._dims
    if dims is not None and len(dims) != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {len(dims)} for 'StatelessMultinomial' with input "
                         f"shapes: {logits.shape}.")
    return [(_dt.as_dtype(attrs["output_dtype"]),
             TensorShape([dims[0] if dims is not None else None, int(count) if count is not None else None]))]


STATELESS_MULTINOMIAL = OpDef("StatelessMultinomial", _infer_stateless_multinomial, _stateless_multinomial_kernel,
                              allowed=(_dt.float32, _dt.float64, _dt.float16, _dt.bfloat16), grad=_no_gradient,
                              input_names=("logits", "num_samples", "seed"))


def stateless_categorical(logits, num_samples, seed, dtype=_dt.int64, name=None):
    """`tf.random.stateless_categorical`: `num_samples` class indices per row of `logits` [batch, classes],
    the same for the same `seed` [2] (TensorFlow's draws)."""
    out_dtype = _dt.as_dtype(dtype)
    if out_dtype not in (_dt.int32, _dt.int64):
        raise ValueError(f"Argument `dtype` got invalid value <dtype: '{out_dtype.name}'>. Accepted dtypes are (tf.int32, "
                         f"tf.int64).")
    logits = convert_to_tensor(logits)
    num_samples = convert_to_tensor(num_samples, dtype=_dt.int32)
    return apply(STATELESS_MULTINOMIAL, (logits, num_samples, _seed_tensor(seed)), {"output_dtype": out_dtype._np},
                 name or "stateless_random_categorical")


API = {"random": ["stateless_uniform", "stateless_normal", "stateless_truncated_normal", "stateless_categorical"]}
