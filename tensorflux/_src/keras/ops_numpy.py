"""`keras.ops` (and `keras.ops.numpy`): the NumPy-named operations beyond the core set in ops.py.

Each runs the `tf.experimental.numpy` function of the same name on operands first converted with Keras'
rules (ops_base): integer inputs of float functions become float32, binary operands meet at Keras'
result dtype, sums of narrow integers are int32 and indices int32 (where tnp would give float64/int64).
"""
import numpy as np

import tensorflux as tf
import tensorflux.experimental.numpy as tnp

from .ops_base import (FLOATX, as_dtype, axis_arg, convert_to_tensor, float_promote, floating, int32_sum_dtype,
                       operation, promote)


def _named(name, fn, doc):
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return operation(fn)


def _float_unary(name):
    numpy_fn = getattr(tnp, name)

    def unary(x):
        return numpy_fn(floating(x))
    return _named(name, unary, f"`keras.ops.{name}`: element-wise, integers computed as float32.")


def _keep_unary(name, numpy_name=None):
    numpy_fn = getattr(tnp, numpy_name or name)

    def unary(x):
        return numpy_fn(convert_to_tensor(x))
    return _named(name, unary, f"`keras.ops.{name}`: element-wise, in the input's dtype.")


def _binary(name, numpy_name=None, make_float=False):
    numpy_fn = getattr(tnp, numpy_name or name)

    def binary(x1, x2):
        return numpy_fn(*(float_promote(x1, x2) if make_float else promote(x1, x2)))
    return _named(name, binary, f"`keras.ops.{name}` of the operands promoted as Keras does.")


_FLOAT_UNARY = ("arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh", "cos", "cosh", "sin", "sinh", "tan",
                "expm1", "exp2", "log1p", "cbrt", "deg2rad", "rad2deg", "sinc", "fabs", "floor",
                "ceil", "angle")
_KEEP_UNARY = ("conj", "conjugate", "real", "imag", "isfinite", "isinf", "isnan", "isneginf", "isposinf", "isreal",
               "signbit", "ravel", "bitwise_not", "fliplr", "flipud", "diagflat", "copy")
_BINARY = ("floor_divide", "mod", "bitwise_and", "bitwise_or", "bitwise_xor", "gcd", "lcm")
_FLOAT_BINARY = ("arctan2", "hypot", "logaddexp", "nextafter", "heaviside")
for _name in _FLOAT_UNARY:
    globals()[_name] = _float_unary(_name)
for _name in _KEEP_UNARY:
    globals()[_name] = _keep_unary(_name)
for _name in _BINARY:
    globals()[_name] = _binary(_name)
for _name in _FLOAT_BINARY:
    globals()[_name] = _binary(_name, make_float=True)


@operation
def log2(x):
    x = floating(x)
    return tf.math.log(x) / tf.cast(np.log(2.0), x.dtype)


@operation
def log10(x):
    x = floating(x)
    return tf.math.log(x) / tf.cast(np.log(10.0), x.dtype)


@operation
def logaddexp2(x1, x2):
    x1, x2 = float_promote(x1, x2)
    ln2 = tf.cast(np.log(2.0), x1.dtype)
    return tnp.logaddexp(x1 * ln2, x2 * ln2) / ln2


@operation
def bitwise_invert(x):
    return tnp.bitwise_not(convert_to_tensor(x))


@operation
def trunc(x):
    x = convert_to_tensor(x)
    return x if x.dtype.is_integer or x.dtype.is_bool else tnp.fix(x)


@operation
def reciprocal(x):
    x = floating(x)
    return tf.math.reciprocal(x)


@operation
def logical_xor(x1, x2):
    return tnp.logical_xor(convert_to_tensor(x1), convert_to_tensor(x2))


def _shift(name, fn):
    def shift(x, y):
        x, y = promote(x, y)
        return fn(x, y)
    return _named(name, shift, f"`keras.ops.{name}`: bit shift of integers.")


left_shift = _shift("left_shift", tf.bitwise.left_shift)
right_shift = _shift("right_shift", tf.bitwise.right_shift)
bitwise_left_shift = _shift("bitwise_left_shift", tf.bitwise.left_shift)
bitwise_right_shift = _shift("bitwise_right_shift", tf.bitwise.right_shift)


@operation
def fmod(x1, x2):
    """The remainder with the sign of the dividend (C's fmod)."""
    x1, x2 = promote(x1, x2)
    return tf.truncatemod(x1, x2)


@operation
def fmax(x1, x2):
    """The element-wise maximum, ignoring NaN where the other operand is a number ."""
    x1, x2 = promote(x1, x2)
    if not x1.dtype.is_floating:
        return tf.maximum(x1, x2)
    return tf.where(tf.math.is_nan(x1), x2, tf.where(tf.math.is_nan(x2), x1, tf.maximum(x1, x2)))


@operation
def fmin(x1, x2):
    """The element-wise minimum, ignoring NaN where the other operand is a number ."""
    x1, x2 = promote(x1, x2)
    if not x1.dtype.is_floating:
        return tf.minimum(x1, x2)
    return tf.where(tf.math.is_nan(x1), x2, tf.where(tf.math.is_nan(x2), x1, tf.minimum(x1, x2)))


@operation
def divide_no_nan(x1, x2):
    x1, x2 = float_promote(x1, x2)
    return tf.math.divide_no_nan(x1, x2)


@operation
def ldexp(x1, x2):
    """x1 * 2 ** x2 (x2 integer)."""
    x1 = convert_to_tensor(x1)
    x2 = convert_to_tensor(x2)
    if not x2.dtype.is_integer:
        raise TypeError(f"ldexp exponent must be an integer type. Received: x2={x2.dtype.name}")
    dtype = x1.dtype if x1.dtype.is_floating else FLOATX
    return tf.cast(x1, dtype) * tf.pow(tf.constant(2.0, dtype), tf.cast(x2, dtype))


@operation
def isclose(x1, x2, rtol=1e-5, atol=1e-8, equal_nan=False):
    x1, x2 = promote(x1, x2)
    return tnp.isclose(x1, x2, rtol, atol, equal_nan)


@operation
def allclose(x1, x2, rtol=1e-5, atol=1e-8, equal_nan=False):
    x1, x2 = promote(x1, x2)
    return tnp.allclose(x1, x2, rtol, atol, equal_nan)


@operation
def nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    """NaN replaced by `nan`, infinities by `posinf`/`neginf` (default: the dtype's largest values)."""
    x = convert_to_tensor(x)
    if not x.dtype.is_floating:
        return x
    big = x.dtype.max
    x = tf.where(tf.math.is_nan(x), tf.cast(nan, x.dtype), x)
    x = tf.where(tf.equal(x, np.inf), tf.cast(big if posinf is None else posinf, x.dtype), x)
    return tf.where(tf.equal(x, -np.inf), tf.cast(-big if neginf is None else neginf, x.dtype), x)


# -- creation --------------------------------------------------------------------------------------------------
@operation
def array(x, dtype=None):
    return convert_to_tensor(x, dtype)


@operation
def empty(shape, dtype=None):
    return tf.zeros(shape, as_dtype(dtype or FLOATX))


@operation
def empty_like(x, dtype=None):
    x = convert_to_tensor(x)
    return tf.zeros_like(x, as_dtype(dtype) if dtype else x.dtype)


@operation
def full_like(x, fill_value, dtype=None):
    x = convert_to_tensor(x)
    dtype = as_dtype(dtype) if dtype else x.dtype
    return tf.fill(tf.shape(x), tf.cast(convert_to_tensor(fill_value), dtype))


@operation
def identity(n, dtype=None):
    return tf.eye(n, dtype=as_dtype(dtype or FLOATX))


@operation
def tri(N, M=None, k=0, dtype=None):  # noqa: N803  (Keras' names)
    return tnp.tri(N, M, k, dtype=(as_dtype(dtype) if dtype else FLOATX).as_numpy_dtype)


@operation
def tril(x, k=0):
    return tnp.tril(convert_to_tensor(x), k)


@operation
def triu(x, k=0):
    return tnp.triu(convert_to_tensor(x), k)


@operation
def diag(x, k=0):
    return tnp.diag(convert_to_tensor(x), k)


@operation
def diagonal(x, offset=0, axis1=0, axis2=1):
    return tnp.diagonal(convert_to_tensor(x), offset, axis1, axis2)


@operation
def trace(x, offset=0, axis1=0, axis2=1):
    x = convert_to_tensor(x)
    return tf.reduce_sum(tf.cast(tnp.diagonal(x, offset, axis1, axis2), int32_sum_dtype(x)), axis=-1)


def _spaced(name, numpy_fn):
    def spaced(start, stop, num=50, endpoint=True, *args, dtype=None, axis=0, **kwargs):
        values = numpy_fn(start, stop, num, endpoint, *args, axis=axis, **kwargs)
        dtype = as_dtype(dtype) if dtype else FLOATX
        return tf.cast(values[0], dtype) if isinstance(values, tuple) else tf.cast(values, dtype)
    return _named(name, spaced, f"`keras.ops.{name}`: evenly spaced values (float32 by default).")


geomspace = _spaced("geomspace", tnp.geomspace)


@operation
def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    values = tnp.linspace(start, stop, num, endpoint, retstep, axis=axis)
    dtype = as_dtype(dtype) if dtype else FLOATX
    if retstep:
        return tf.cast(values[0], dtype), tf.cast(values[1], dtype)
    return tf.cast(values, dtype)


@operation
def logspace(start, stop, num=50, endpoint=True, base=10, dtype=None, axis=0):
    return tf.cast(tnp.logspace(start, stop, num, endpoint, base, axis=axis), as_dtype(dtype) if dtype else FLOATX)


@operation
def meshgrid(*x, indexing="xy"):
    return tnp.meshgrid(*[convert_to_tensor(v) for v in x], indexing=indexing)


@operation
def vander(x, N=None, increasing=False):  # noqa: N803
    return tnp.vander(convert_to_tensor(x), N, increasing)


def _window(name, values):
    def window(x):
        return tf.constant(values(int(x)).astype(np.float32))
    return _named(name, window, f"`keras.ops.{name}`: the {name} window of length x (float32).")


bartlett = _window("bartlett", np.bartlett)
blackman = _window("blackman", np.blackman)
hamming = _window("hamming", np.hamming)
hanning = _window("hanning", np.hanning)


@operation
def kaiser(x, beta):
    """The Kaiser window of length x and shape `beta` (float32)."""
    n = int(x)
    if n == 1:
        return tf.ones([1], FLOATX)
    ratio = 2.0 * tf.range(n, dtype=tf.float64) / (n - 1) - 1.0
    beta = tf.cast(beta, tf.float64)
    return tf.cast(tf.math.bessel_i0(beta * tf.sqrt(1.0 - ratio * ratio)) / tf.math.bessel_i0(beta), FLOATX)


@operation
def i0(x):
    return tf.math.bessel_i0(floating(x))


API_NUMPY = sorted(list(_FLOAT_UNARY) + list(_KEEP_UNARY) + list(_BINARY) + list(_FLOAT_BINARY) + [
    "log2", "log10", "logaddexp2", "bitwise_invert", "trunc", "reciprocal", "logical_xor", "left_shift", "right_shift", "bitwise_left_shift",
    "bitwise_right_shift", "fmod", "divide_no_nan", "ldexp", "isclose", "allclose", "nan_to_num", "array", "empty",
    "empty_like", "full_like", "identity", "tri", "tril", "triu", "diag", "diagonal", "trace", "geomspace",
    "linspace", "logspace", "meshgrid", "vander", "bartlett", "blackman", "hamming", "hanning", "kaiser", "i0"])
API = {"keras.ops": API_NUMPY + ["fmax", "fmin"]}
