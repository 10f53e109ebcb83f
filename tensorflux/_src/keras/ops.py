"""`keras.ops`: Keras 3's backend-agnostic operations (NumPy-style names and arguments) on tensorflux.

    ops.sum(x, axis=0)            # not reduce_sum
    ops.split(x, 2, axis=1)       # NumPy's indices_or_sections
    ops.concatenate([a, b])       # axis 0 by default, as NumPy

Each operation accepts tensors, NumPy arrays and Python numbers and returns a tf.Tensor. NumPy arrays
keep their dtype (float64 stays float64); created and integer-averaged results are float32 (Keras'
floatx): `ops.ones((2,))` and `ops.mean` of integers are float32.
Binary operations promote on Keras 3's dtype lattice (ops_base): a Python number is weak (a float with
an integer tensor gives float32), int8 and uint8 meet at int16, float32 and float64 at float64. Called on
KerasTensors (the functional API) an operation becomes a node of the model, an `Operation` named as Keras
names it (`ops.not_equal` → `NotEqual`).

This module holds the core set; the rest of Keras' names live beside it (ops_numpy, ops_stats,
ops_shapes, ops_nn, ops_linalg, ops_image, ops_core) and are gathered into the API table below, which
also builds the `keras.ops.numpy`, `keras.ops.nn`, `keras.ops.linalg` and `keras.ops.image` namespaces.
"""
import builtins

import numpy as np

import tensorflux as tf

from . import bias as _bias
from . import keras_tensor as _keras_tensor
from . import ops_core, ops_image, ops_linalg, ops_nn, ops_numpy, ops_shapes, ops_stats
from .ops_base import FLOATX as _FLOATX
from .ops_base import as_dtype as _dtype
from .ops_base import convert_to_tensor, floating as _floating, int32_sum_dtype, operation as _operation, promote


def _common(x1, x2):
    """The two operands as tensors of Keras' result dtype (Python numbers are weak, see ops_base)."""
    return promote(x1, x2)


def _binary(tf_fn):
    def op(x1, x2):
        return tf_fn(*_common(x1, x2))
    return op


# -- creation -------------------------------------------------------------------------------------
def ones(shape, dtype=None):
    return tf.ones(shape, _dtype(dtype or _FLOATX))


def zeros(shape, dtype=None):
    return tf.zeros(shape, _dtype(dtype or _FLOATX))


def full(shape, fill_value, dtype=None):
    return tf.fill(shape, tf.constant(fill_value, _dtype(dtype) if dtype else None))


def ones_like(x, dtype=None):
    return tf.ones_like(convert_to_tensor(x), dtype=_dtype(dtype) if dtype else None)


def zeros_like(x, dtype=None):
    return tf.zeros_like(convert_to_tensor(x), dtype=_dtype(dtype) if dtype else None)


def eye(N, M=None, k=0, dtype=None):
    if k:
        return tf.constant(np.eye(N, M, k), _dtype(dtype or _FLOATX))
    return tf.eye(N, M, dtype=_dtype(dtype or _FLOATX))


def arange(start, stop=None, step=1, dtype=None):
    if dtype is None:
        dtype = "float32" if builtins.any(isinstance(v, float) for v in (start, stop, step)) else "int32"
    return tf.range(start, stop, step, dtype=_dtype(dtype)) if stop is not None else \
        tf.range(start, delta=step, dtype=_dtype(dtype))


# -- elementwise ----------------------------------------------------------------------------------
@_operation
def add(x1, x2):
    return _bias.add(*_common(x1, x2))     # a BiasAdd where x2 is a bias of x1's channels, as Keras


@_operation
def subtract(x1, x2):
    return _binary(tf.subtract)(x1, x2)


@_operation
def multiply(x1, x2):
    return _binary(tf.multiply)(x1, x2)


@_operation
def divide(x1, x2):
    x1, x2 = _common(x1, x2)
    if not x1.dtype.is_floating:
        x1, x2 = tf.cast(x1, _FLOATX), tf.cast(x2, _FLOATX)
    return tf.divide(x1, x2)


true_divide = divide


@_operation
def power(x1, x2):
    return _binary(tf.pow)(x1, x2)


@_operation
def maximum(x1, x2):
    return _binary(tf.maximum)(x1, x2)


@_operation
def minimum(x1, x2):
    return _binary(tf.minimum)(x1, x2)


@_operation
def equal(x1, x2):
    return _binary(tf.equal)(x1, x2)


@_operation
def not_equal(x1, x2):
    return _binary(tf.not_equal)(x1, x2)


@_operation
def greater(x1, x2):
    return _binary(tf.greater)(x1, x2)


@_operation
def greater_equal(x1, x2):
    return _binary(tf.greater_equal)(x1, x2)


@_operation
def less(x1, x2):
    return _binary(tf.less)(x1, x2)


@_operation
def less_equal(x1, x2):
    return _binary(tf.less_equal)(x1, x2)


@_operation
def logical_and(x1, x2):
    return tf.logical_and(tf.cast(convert_to_tensor(x1), tf.bool), tf.cast(convert_to_tensor(x2), tf.bool))


@_operation
def logical_or(x1, x2):
    return tf.logical_or(tf.cast(convert_to_tensor(x1), tf.bool), tf.cast(convert_to_tensor(x2), tf.bool))


@_operation
def logical_not(x):
    return tf.logical_not(tf.cast(convert_to_tensor(x), tf.bool))


def _unary(tf_fn, floating=True):
    def op(x):
        return tf_fn(_floating(x) if floating else convert_to_tensor(x))
    return op


@_operation
def square(x):
    return tf.square(convert_to_tensor(x))


@_operation
def sqrt(x):
    return _unary(tf.sqrt)(x)


@_operation
def exp(x):
    return _unary(tf.exp)(x)


@_operation
def log(x):
    return _unary(tf.math.log)(x)


@_operation
def abs(x):  # noqa: A001  (Keras' name)
    return tf.abs(convert_to_tensor(x))


absolute = abs


@_operation
def negative(x):
    return tf.negative(convert_to_tensor(x))


@_operation
def sign(x):
    return tf.sign(convert_to_tensor(x))


@_operation
def round(x, decimals=0):  # noqa: A001  (Keras' name)
    x = convert_to_tensor(x)
    if decimals:
        factor = tf.constant(10.0 ** decimals, x.dtype)
        return tf.round(x * factor) / factor
    return tf.round(x)


@_operation
def clip(x, x_min, x_max):
    x = convert_to_tensor(x)
    return tf.clip_by_value(x, tf.cast(x_min, x.dtype), tf.cast(x_max, x.dtype))


@_operation
def where(condition, x1=None, x2=None):
    condition = tf.cast(convert_to_tensor(condition), tf.bool)
    if x1 is None and x2 is None:
        return tuple(tf.unstack(tf.transpose(tf.where(condition)))) if condition.shape.rank else tf.where(condition)
    x1, x2 = _common(x1, x2)
    return tf.where(condition, x1, x2)


# -- activations ----------------------------------------------------------------------------------
@_operation
def relu(x):
    return tf.nn.relu(convert_to_tensor(x))


@_operation
def sigmoid(x):
    return tf.sigmoid(_floating(x))


@_operation
def tanh(x):
    return tf.tanh(_floating(x))


@_operation
def softmax(x, axis=-1):
    return tf.nn.softmax(_floating(x), axis=axis)


@_operation
def log_softmax(x, axis=-1):
    return tf.nn.log_softmax(_floating(x), axis=axis)


@_operation
def softplus(x):
    return tf.nn.softplus(_floating(x))


@_operation
def gelu(x, approximate=True):
    return tf.nn.gelu(_floating(x), approximate=approximate)


@_operation
def silu(x):
    return tf.nn.silu(_floating(x))


swish = silu


# -- reductions -----------------------------------------------------------------------------------
def _axis(axis):
    return list(axis) if isinstance(axis, tuple) else axis


@_operation
def sum(x, axis=None, keepdims=False):  # noqa: A001  (Keras' name)
    x = convert_to_tensor(x)
    return tf.reduce_sum(tf.cast(x, int32_sum_dtype(x)), axis=_axis(axis), keepdims=keepdims)


@_operation
def mean(x, axis=None, keepdims=False):
    return tf.reduce_mean(_floating(x), axis=_axis(axis), keepdims=keepdims)


@_operation
def max(x, axis=None, keepdims=False, initial=None):  # noqa: A001  (Keras' name)
    result = tf.reduce_max(convert_to_tensor(x), axis=_axis(axis), keepdims=keepdims)
    return result if initial is None else tf.maximum(result, tf.cast(initial, result.dtype))


@_operation
def min(x, axis=None, keepdims=False, initial=None):  # noqa: A001  (Keras' name)
    result = tf.reduce_min(convert_to_tensor(x), axis=_axis(axis), keepdims=keepdims)
    return result if initial is None else tf.minimum(result, tf.cast(initial, result.dtype))


@_operation
def prod(x, axis=None, keepdims=False, dtype=None):
    x = convert_to_tensor(x)
    x = tf.cast(x, int32_sum_dtype(x) if dtype is None else _dtype(dtype))
    return tf.reduce_prod(x, axis=_axis(axis), keepdims=keepdims)


@_operation
def std(x, axis=None, keepdims=False):
    return tf.math.reduce_std(_floating(x), axis=_axis(axis), keepdims=keepdims)


@_operation
def var(x, axis=None, keepdims=False):
    return tf.math.reduce_variance(_floating(x), axis=_axis(axis), keepdims=keepdims)


@_operation
def all(x, axis=None, keepdims=False):  # noqa: A001  (Keras' name)
    return tf.reduce_all(tf.cast(convert_to_tensor(x), tf.bool), axis=_axis(axis), keepdims=keepdims)


@_operation
def any(x, axis=None, keepdims=False):  # noqa: A001  (Keras' name)
    return tf.reduce_any(tf.cast(convert_to_tensor(x), tf.bool), axis=_axis(axis), keepdims=keepdims)


@_operation
def argmax(x, axis=None, keepdims=False):
    x = convert_to_tensor(x)
    if axis is None:
        x, axis = tf.reshape(x, [-1]), 0
    result = tf.argmax(x, axis=axis, output_type=tf.int32)
    return tf.expand_dims(result, axis) if keepdims else result


@_operation
def argmin(x, axis=None, keepdims=False):
    x = convert_to_tensor(x)
    if axis is None:
        x, axis = tf.reshape(x, [-1]), 0
    result = tf.argmin(x, axis=axis, output_type=tf.int32)
    return tf.expand_dims(result, axis) if keepdims else result


@_operation
def cumsum(x, axis=None, dtype=None):
    x = convert_to_tensor(x)
    if axis is None:
        x, axis = tf.reshape(x, [-1]), 0
    return tf.cumsum(x if dtype is None else tf.cast(x, _dtype(dtype)), axis=axis)


# -- linear algebra -------------------------------------------------------------------------------
@_operation
def matmul(x1, x2):
    return _binary(tf.matmul)(x1, x2)


@_operation
def dot(x1, x2):
    x1, x2 = _common(x1, x2)
    if x1.shape.rank == 0 or x2.shape.rank == 0:
        return x1 * x2
    if x2.shape.rank == 1:
        return tf.tensordot(x1, x2, axes=[[x1.shape.rank - 1], [0]])
    return tf.tensordot(x1, x2, axes=[[x1.shape.rank - 1], [x2.shape.rank - 2]])


@_operation
def einsum(subscripts, *operands):
    return tf.einsum(subscripts, *[convert_to_tensor(o) for o in operands])


# -- shapes ---------------------------------------------------------------------------------------
def shape(x):
    """The static shape as a tuple (None for unknown dimensions), as Keras 3 returns it."""
    if isinstance(x, _keras_tensor.KerasTensor):
        return x.shape
    return tuple(convert_to_tensor(x).shape.as_list())


def ndim(x):
    return len(shape(x))


def size(x):
    return tf.size(convert_to_tensor(x))


@_operation
def cast(x, dtype):
    return tf.cast(convert_to_tensor(x), _dtype(dtype))


@_operation
def reshape(x, newshape):
    return tf.reshape(convert_to_tensor(x), newshape)


@_operation
def expand_dims(x, axis):
    x = convert_to_tensor(x)
    for a in sorted(axis) if isinstance(axis, (list, tuple)) else (axis,):
        x = tf.expand_dims(x, a)
    return x


@_operation
def squeeze(x, axis=None):
    return tf.squeeze(convert_to_tensor(x), axis=axis)


@_operation
def transpose(x, axes=None):
    return tf.transpose(convert_to_tensor(x), perm=axes)


@_operation
def tile(x, repeats):
    x = convert_to_tensor(x)
    repeats = [repeats] if isinstance(repeats, int) else list(repeats)
    if len(repeats) < x.shape.rank:
        repeats = [1] * (x.shape.rank - len(repeats)) + repeats
    elif len(repeats) > x.shape.rank:
        x = tf.reshape(x, [1] * (len(repeats) - x.shape.rank) + x.shape.as_list())
    return tf.tile(x, repeats)


@_operation
def repeat(x, repeats, axis=None):
    x = convert_to_tensor(x)
    if axis is None:
        x, axis = tf.reshape(x, [-1]), 0
    return tf.repeat(x, repeats, axis=axis)


@_operation
def concatenate(xs, axis=0):
    return tf.concat([convert_to_tensor(x) for x in xs], axis=axis)


@_operation
def stack(x, axis=0):
    return tf.stack([convert_to_tensor(v) for v in x], axis=axis)


@_operation
def unstack(x, num=None, axis=0):
    return tf.unstack(convert_to_tensor(x), num=num, axis=axis)


@_operation
def split(x, indices_or_sections, axis=0):
    """NumPy's split: an int cuts `axis` into that many equal parts, a list gives the cut indices."""
    x = convert_to_tensor(x)
    if isinstance(indices_or_sections, int):
        length = x.shape[axis]
        if length is not None and length % indices_or_sections:
            raise ValueError(f"array split does not result in an equal division: axis {axis} has length {length}, "
                             f"which {indices_or_sections} does not divide")
        return tf.split(x, indices_or_sections, axis=axis)
    bounds = [0] + list(indices_or_sections) + [x.shape[axis]]
    return tf.split(x, [b - a for a, b in zip(bounds[:-1], bounds[1:])], axis=axis)


@_operation
def flip(x, axis=None):
    x = convert_to_tensor(x)
    axes = list(range(x.shape.rank)) if axis is None else [axis] if isinstance(axis, int) else list(axis)
    return tf.reverse(x, axes)


@_operation
def take(x, indices, axis=None):
    x = convert_to_tensor(x)
    if axis is None:
        x, axis = tf.reshape(x, [-1]), 0
    return tf.gather(x, indices, axis=axis)


@_operation
def one_hot(x, num_classes, axis=-1, dtype=None, sparse=False):
    if sparse:
        raise NotImplementedError("tensorflux's keras.ops.one_hot makes dense tensors only (sparse=True).")
    return tf.one_hot(tf.cast(convert_to_tensor(x), tf.int64), num_classes, axis=axis,
                      dtype=_dtype(dtype or _FLOATX))


@_operation
def stop_gradient(variable):
    return tf.stop_gradient(convert_to_tensor(variable))


def convert_to_numpy(x):
    return np.asarray(x.numpy() if hasattr(x, "numpy") else x)


def is_tensor(x):
    return isinstance(x, (tf.Tensor, tf.Variable))


def dtype(x):
    return convert_to_tensor(x).dtype.name


_CORE = [
    "abs", "absolute", "add", "all", "any", "arange", "argmax", "argmin", "cast", "clip", "concatenate",
    "convert_to_numpy", "convert_to_tensor", "cumsum", "divide", "dot", "dtype", "einsum", "equal", "exp",
    "expand_dims", "eye", "flip", "full", "gelu", "greater", "greater_equal", "is_tensor", "less", "less_equal",
    "log", "log_softmax", "logical_and", "logical_not", "logical_or", "matmul", "max", "maximum", "mean", "min",
    "minimum", "multiply", "ndim", "negative", "not_equal", "one_hot", "ones", "ones_like", "power", "prod", "relu",
    "repeat", "reshape", "round", "shape", "sigmoid", "sign", "silu", "size", "softmax", "softplus", "split",
    "sqrt", "square", "squeeze", "stack", "std", "stop_gradient", "subtract", "sum", "swish", "take", "tanh",
    "tile", "transpose", "true_divide", "unstack", "var", "where", "zeros", "zeros_like"]

# Keras' sub-namespaces hold the same objects as keras.ops (keras.ops.numpy.add is keras.ops.add).
_NUMPY_NAMES = (
    "abs", "absolute", "add", "all", "allclose", "amax", "amin", "angle", "any", "append", "arange", "arccos",
    "arccosh", "arcsin", "arcsinh", "arctan", "arctan2", "arctanh", "argmax", "argmin", "argpartition",
    "argsort", "array", "array_split", "average", "bartlett", "bincount", "bitwise_and", "bitwise_invert",
    "bitwise_left_shift", "bitwise_not", "bitwise_or", "bitwise_right_shift", "bitwise_xor", "blackman",
    "broadcast_to", "cbrt", "ceil", "clip", "concatenate", "conj", "conjugate", "copy", "corrcoef", "correlate",
    "cos", "cosh", "count_nonzero", "cross", "cumprod", "cumsum", "deg2rad", "diag", "diagflat", "diagonal",
    "diff", "digitize", "divide", "divide_no_nan", "dot", "dsplit", "dstack", "einsum", "empty", "empty_like",
    "equal", "exp", "exp2", "expand_dims", "expm1", "eye", "fabs", "flip", "fliplr", "flipud", "floor",
    "floor_divide", "fmax", "fmin", "fmod", "full", "full_like", "gcd", "geomspace", "get_item", "greater",
    "greater_equal", "hamming", "hanning", "heaviside", "histogram", "hsplit", "hstack", "hypot", "i0",
    "identity", "imag", "inner", "isclose", "isfinite", "isin", "isinf", "isnan", "isneginf", "isposinf",
    "isreal", "kaiser", "kron", "lcm", "ldexp", "left_shift", "less", "less_equal", "linspace", "log", "log10",
    "log1p", "log2", "logaddexp", "logaddexp2", "logical_and", "logical_not", "logical_or", "logical_xor",
    "logspace", "matmul", "max", "maximum", "mean", "median", "meshgrid", "min", "minimum", "mod", "moveaxis",
    "multiply", "nan_to_num", "nanargmax", "nanargmin", "nancumprod", "nancumsum", "nanmax", "nanmean",
    "nanmedian", "nanmin", "nanpercentile", "nanprod", "nanquantile", "nanstd", "nansum", "nanvar", "ndim",
    "negative", "nextafter", "nonzero", "not_equal", "ones", "ones_like", "outer", "pad", "percentile", "power",
    "prod", "ptp", "quantile", "rad2deg", "ravel", "real", "reciprocal", "repeat", "reshape", "right_shift",
    "roll", "rot90", "round", "searchsorted", "select", "sign", "signbit", "sin", "sinc", "sinh", "size",
    "slogdet", "sort", "split", "sqrt", "square", "squeeze", "stack", "std", "subtract", "sum", "swapaxes",
    "take", "take_along_axis", "tan", "tanh", "tensordot", "tile", "trace", "transpose", "trapezoid", "tri",
    "tril", "triu", "true_divide", "trunc", "unique", "unravel_index", "vander", "var", "vdot", "vectorize",
    "view", "vsplit", "vstack", "where", "zeros", "zeros_like")
_NN_NAMES = (
    "adaptive_average_pool", "adaptive_max_pool", "average_pool", "batch_normalization", "binary_crossentropy",
    "categorical_crossentropy", "celu", "conv", "conv_transpose", "ctc_decode", "ctc_loss", "depth_to_space",
    "depthwise_conv", "dot_product_attention", "elu", "fold", "gelu", "glu", "hard_shrink", "hard_sigmoid",
    "hard_silu", "hard_swish", "hard_tanh", "layer_normalization", "leaky_relu", "log_sigmoid", "log_softmax",
    "max_pool", "moments", "multi_hot", "normalize", "one_hot", "polar", "psnr", "relu", "relu6",
    "rms_normalization", "selu", "separable_conv", "sigmoid", "silu", "soft_shrink", "softmax", "softplus",
    "softsign", "space_to_depth", "sparse_categorical_crossentropy", "sparse_plus", "sparse_sigmoid",
    "sparsemax", "squareplus", "swish", "tanh_shrink", "threshold", "unfold")
_PARTS = (ops_numpy, ops_stats, ops_shapes, ops_nn, ops_linalg, ops_image, ops_core)


def _gather_api():
    """This module's API table: the core names, each part's names (bound here too, as keras/__init__ reads
    them from this module), and the sub-namespaces."""
    table = {"keras.ops": list(_CORE)}
    for part in _PARTS:
        for namespace, names in part.API.items():
            for name in names:          # image names (resize, …) do not clash with keras.ops names
                globals()[name] = getattr(part, name)
            table.setdefault(namespace, []).extend(names)
    table["keras.ops.numpy"] = list(_NUMPY_NAMES)
    table["keras.ops.nn"] = list(_NN_NAMES)
    return table


API = _gather_api()
