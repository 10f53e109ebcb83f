"""Element-wise functions: NumPy's ufunc names over the math ops, with `tnp`'s dtype rules.

Functions that need a float (`sin`, `exp`, `arctan2`, …) turn integer and boolean inputs into float64
(float32 when preferred), as TensorFlow's tnp does; binary functions first promote both operands to
their NumPy result type (Python numbers are weak, see `dtypes`).
"""
import numpy as np

from . import dtypes as _d
from ._tf import bitwise, math, tf
from ._tf import cond_while as _cf


def _named(name, fn, doc):
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


def _float_unary(name, op, doc):
    def unary(x):
        return op(_d.floating(x))
    return _named(name, unary, doc)


def _float_binary(name, op, doc):
    def binary(x1, x2):
        a, b = _d.promoted(x1, x2)
        if not (a.dtype.is_floating or a.dtype.is_complex):
            target = _d.tf_dtype(_d.default_float())
            a, b = tf.cast(a, target), tf.cast(b, target)
        return op(a, b)
    return _named(name, binary, doc)


def _promoting_binary(name, op, doc, bool_op=None):
    def binary(x1, x2):
        a, b = _d.promoted(x1, x2)
        if a.dtype.is_bool and bool_op is not None:
            return bool_op(a, b)
        return op(a, b)
    return _named(name, binary, doc)


def _widened(x, fn):
    """`fn` of real `x` in float64: TensorFlow's tnp divides by a float64 constant in log2/log10/logaddexp2,
    which promotes float16/float32 inputs to float64."""
    if x.dtype.is_complex:
        return fn(x)
    return fn(tf.cast(x, _d.tf_dtype(np.float64)))


def _pi_times(x):
    return x * tf.cast(np.pi, x.dtype)


_FLOAT_UNARY = {
    "sin": math.sin, "cos": math.cos, "tan": math.tan, "arcsin": math.asin, "arccos": math.acos,
    "arctan": math.atan, "sinh": math.sinh, "cosh": math.cosh, "tanh": math.tanh, "arcsinh": math.asinh,
    "arccosh": math.acosh, "arctanh": math.atanh, "exp": math.exp, "expm1": math.expm1, "log": math.log,
    "log1p": math.log1p, "sqrt": math.sqrt,
    "log2": lambda x: _widened(x, lambda w: math.log(w) / tf.cast(np.log(2.0), w.dtype)),
    "log10": lambda x: _widened(x, lambda w: math.log(w) / tf.cast(np.log(10.0), w.dtype)),
    "exp2": lambda x: tf.pow(tf.cast(2.0, x.dtype), x),
    "cbrt": lambda x: tf.sign(x) * tf.pow(tf.abs(x), tf.cast(1.0 / 3.0, x.dtype)),
    "deg2rad": lambda x: x * tf.cast(np.pi / 180.0, x.dtype),
    "rad2deg": lambda x: x * tf.cast(180.0 / np.pi, x.dtype),
    "fabs": math.abs, "ceil": math.ceil, "floor": math.floor,
    "fix": lambda x: tf.where(x < 0, math.ceil(x), math.floor(x)),
    "sinc": lambda x: tf.where(tf.equal(x, 0), tf.ones_like(x),
                               math.sin(_pi_times(x)) / tf.where(tf.equal(x, 0), tf.ones_like(x), _pi_times(x))),
}
for _name, _op in _FLOAT_UNARY.items():
    globals()[_name] = _float_unary(_name, _op, f"`tnp.{_name}`: NumPy's `{_name}` element-wise (integers as floats).")


def _keep_unary(name, op, doc):
    def unary(x):
        return op(_d.to_tensor(x))
    return _named(name, unary, doc)


def _signbit(x):
    if x.dtype.is_unsigned or x.dtype.is_bool:
        return _false_like(x)
    if x.dtype.is_integer:
        return x < 0
    return x < 0  # TensorFlow's tnp compares with zero, so -0.0 has no sign bit here


def _reciprocal(x):
    if x.dtype.is_integer:
        return math.truncatediv(tf.ones_like(x), x)
    return math.reciprocal(x)


def _angle_of_real(x):
    return tf.where(x < 0, tf.cast(np.pi, x.dtype) * tf.ones_like(x), tf.zeros_like(x))


def _bool_safe_negative(x):
    if x.dtype.is_bool:
        raise TypeError("The numpy boolean negative, the `-` operator, is not supported, use the `~` operator "
                        "or the logical_not function instead.")
    return tf.negative(x)


_KEEP_UNARY = {
    "abs": lambda x: x if x.dtype.is_bool else tf.abs(x),
    "absolute": lambda x: x if x.dtype.is_bool else tf.abs(x),
    "negative": _bool_safe_negative,
    "positive": lambda x: tf.identity(x),
    "sign": lambda x: tf.sign(x),
    "square": lambda x: x & x if x.dtype.is_bool else x * x,
    "reciprocal": _reciprocal,
    "conj": lambda x: math.conj(x) if x.dtype.is_complex else tf.identity(x),
    "conjugate": lambda x: math.conj(x) if x.dtype.is_complex else tf.identity(x),
    "real": lambda x: math.real(x) if x.dtype.is_complex else tf.identity(x),
    "imag": lambda x: math.imag(x) if x.dtype.is_complex else tf.zeros_like(x),
    "signbit": _signbit,
    "isnan": lambda x: math.is_nan(x) if x.dtype.is_floating or x.dtype.is_complex else _false_like(x),
    "isinf": lambda x: math.is_inf(x) if x.dtype.is_floating else _false_like(x),
    "isfinite": lambda x: math.is_finite(x) if x.dtype.is_floating else ~_false_like(x),
    "isposinf": lambda x: tf.equal(x, np.inf) if x.dtype.is_floating else _false_like(x),
    "isneginf": lambda x: tf.equal(x, -np.inf) if x.dtype.is_floating else _false_like(x),
    "iscomplex": lambda x: tf.not_equal(math.imag(x), 0) if x.dtype.is_complex else _false_like(x),
    "isreal": lambda x: tf.equal(math.imag(x), 0) if x.dtype.is_complex else ~_false_like(x),
    "bitwise_not": lambda x: tf.logical_not(x) if x.dtype.is_bool else bitwise.invert(x),
    "logical_not": lambda x: tf.logical_not(tf.cast(x, _d.tf_dtype(np.bool_))),
}


def _false_like(x):
    return tf.cast(tf.zeros_like(x), _d.tf_dtype(np.bool_))


for _name, _op in _KEEP_UNARY.items():
    globals()[_name] = _keep_unary(_name, _op, f"`tnp.{_name}`: NumPy's `{_name}` element-wise.")


def angle(z, deg=False):
    """The argument of each complex number (0 or π for reals), in degrees with `deg=True`."""
    z = _d.to_tensor(z)
    result = math.angle(z) if z.dtype.is_complex else _angle_of_real(_d.floating(z))
    return result * tf.cast(180.0 / np.pi, result.dtype) if deg else result


def around(a, decimals=0):
    """Rounds half to even, to `decimals` places (integers with decimals >= 0 are returned as they are)."""
    a = _d.to_tensor(a)
    if a.dtype.is_integer or a.dtype.is_bool:
        if decimals >= 0:
            return tf.identity(a)
        factor = tf.cast(10 ** -decimals, _d.tf_dtype(np.float64))
        return tf.cast(tf.round(tf.cast(a, factor.dtype) / factor) * factor, a.dtype)
    factor = tf.cast(10.0 ** decimals, a.dtype)
    return tf.round(a * factor) / factor if decimals else tf.round(a)


def round(a, decimals=0):  # noqa: A001  (NumPy's name)
    """`tnp.round`: `around` under NumPy's newer name."""
    return around(a, decimals)


_PROMOTING = {
    "add": (tf.add, tf.logical_or), "subtract": (tf.subtract, None), "multiply": (tf.multiply, tf.logical_and),
    "maximum": (tf.maximum, tf.logical_or), "minimum": (tf.minimum, tf.logical_and),
    "power": (tf.pow, None), "mod": (math.floormod, None), "remainder": (math.floormod, None),
    "equal": (tf.equal, None), "not_equal": (tf.not_equal, None), "greater": (tf.greater, None),
    "greater_equal": (tf.greater_equal, None), "less": (tf.less, None), "less_equal": (tf.less_equal, None),
    "bitwise_and": (bitwise.bitwise_and, tf.logical_and), "bitwise_or": (bitwise.bitwise_or, tf.logical_or),
    "bitwise_xor": (bitwise.bitwise_xor, math.logical_xor),
}
for _name, (_op, _bool_op) in _PROMOTING.items():
    globals()[_name] = _promoting_binary(_name, _op, f"`tnp.{_name}`: NumPy's `{_name}` of the promoted operands.",
                                         _bool_op)


def _floor_divide(a, b):
    if a.dtype.is_integer:
        return math.floordiv(a, b)
    return math.floor(a / b)


floor_divide = _promoting_binary("floor_divide", _floor_divide, "`tnp.floor_divide`: the largest integer <= x1 / x2.")


def _logaddexp(a, b):
    big = tf.maximum(a, b)
    spread = -tf.abs(a - b)
    spread = tf.where(math.is_nan(spread), tf.zeros_like(spread), spread)  # both the same infinity
    return big + math.log1p(math.exp(spread))


def _logaddexp2(a, b):
    ln2 = tf.cast(np.log(2.0), _d.tf_dtype(np.float64))
    return _widened(a, lambda w: _logaddexp(w * ln2, tf.cast(b, w.dtype) * ln2) / ln2)


def _heaviside(a, b):
    return tf.where(a < 0, tf.zeros_like(a), tf.where(a > 0, tf.ones_like(a), b * tf.ones_like(a)))


_FLOAT_BINARY = {
    "arctan2": math.atan2, "hypot": lambda a, b: tf.sqrt(a * a + b * b), "logaddexp": _logaddexp,
    "logaddexp2": _logaddexp2, "heaviside": _heaviside, "nextafter": math.nextafter,
}
for _name, _op in _FLOAT_BINARY.items():
    globals()[_name] = _float_binary(_name, _op, f"`tnp.{_name}`: NumPy's `{_name}` (integers as floats).")


def _true_divide_operands(x1, x2):
    a, b = _d.promoted(x1, x2)
    if a.dtype.is_bool:
        target = _d.tf_dtype(_d.default_float())
        a, b = tf.cast(a, target), tf.cast(b, target)
    return a, b


def divide(x1, x2):
    """x1 / x2 as floats; integer operands give float64 (int8/int16 give float32, as tf.truediv)."""
    return tf.divide(*_true_divide_operands(x1, x2))


def true_divide(x1, x2):
    """`tnp.true_divide`: the same as `divide`."""
    return tf.divide(*_true_divide_operands(x1, x2))


def float_power(x1, x2):
    """x1 ** x2 in floating point: integers are computed as float64, floats keep their promoted dtype (as
    TensorFlow's tnp; NumPy would widen float32 too)."""
    a, b = _d.promoted(x1, x2)
    if not (a.dtype.is_floating or a.dtype.is_complex):
        a, b = tf.cast(a, _d.tf_dtype(np.float64)), tf.cast(b, _d.tf_dtype(np.float64))
    return tf.pow(a, b)


def divmod(x1, x2):  # noqa: A001  (NumPy's name)
    """(floor_divide(x1, x2), mod(x1, x2))."""
    return floor_divide(x1, x2), globals()["mod"](x1, x2)


def _gcd_of(a, b):
    a, b = tf.abs(a), tf.abs(b)

    def body(a, b):
        nonzero = tf.not_equal(b, 0)
        safe_b = tf.where(nonzero, b, tf.ones_like(b))
        return tf.where(nonzero, b, a), tf.where(nonzero, math.floormod(a, safe_b), b)

    a, b = tf.broadcast_to(a, tf.shape(a + b)), tf.broadcast_to(b, tf.shape(a + b))
    a, b = _cf.while_loop(lambda a, b: tf.reduce_any(tf.not_equal(b, 0)), body, [a, b])
    return a


def _integer_operands(x1, x2, name):
    a, b = _d.promoted(x1, x2)
    if not a.dtype.is_integer:
        raise ValueError(f"Arguments to {name} must be integers, received dtype {a.dtype.name}")
    return a, b


def gcd(x1, x2):
    """The greatest common divisor of |x1| and |x2| (Euclid's algorithm, element-wise)."""
    return _gcd_of(*_integer_operands(x1, x2, "gcd"))


def lcm(x1, x2):
    """The lowest common multiple of |x1| and |x2| (0 when either is 0)."""
    a, b = _integer_operands(x1, x2, "lcm")
    divisor = _gcd_of(a, b)
    safe = tf.where(tf.equal(divisor, 0), tf.ones_like(divisor), divisor)
    return tf.abs(math.floordiv(a, safe) * b)


def _as_bool(x):
    return tf.cast(_d.to_tensor(x), _d.tf_dtype(np.bool_))


def logical_and(x1, x2):
    return tf.logical_and(_as_bool(x1), _as_bool(x2))


def logical_or(x1, x2):
    return tf.logical_or(_as_bool(x1), _as_bool(x2))


def logical_xor(x1, x2):
    return math.logical_xor(_as_bool(x1), _as_bool(x2))


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|a - b| <= atol + rtol * |b| element-wise (infinities equal only to themselves)."""
    a, b = _d.promoted(a, b)
    if not (a.dtype.is_floating or a.dtype.is_complex):
        a, b = tf.cast(a, _d.tf_dtype(np.float64)), tf.cast(b, _d.tf_dtype(np.float64))
    magnitude = tf.abs(a - b)
    bound = tf.cast(atol, magnitude.dtype) + tf.cast(rtol, magnitude.dtype) * tf.abs(b)
    result = magnitude <= bound  # TensorFlow's tnp: an infinity is not close to itself (inf - inf is NaN)
    if equal_nan:
        result = result | (math.is_nan(a) & math.is_nan(b))
    return result


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return tf.reduce_all(isclose(a, b, rtol, atol, equal_nan))


def array_equal(a1, a2):
    """True when both have one shape and equal elements (a scalar bool tensor)."""
    a, b = _d.promoted(a1, a2)
    if a.shape.as_list() != b.shape.as_list():
        return tf.constant(False)
    return tf.reduce_all(tf.equal(a, b))


def clip(a, a_min, a_max):
    """`a` limited to [a_min, a_max] (either bound may be None)."""
    if a_min is None and a_max is None:
        raise ValueError("Not more than one of `a_min` and `a_max` may be `None`.")
    a = _d.to_tensor(a)
    if a_min is not None:
        a, low = _d.promoted(a, a_min)
        a = tf.maximum(a, low)
    if a_max is not None:
        a, high = _d.promoted(a, a_max)
        a = tf.minimum(a, high)
    return a


def where(condition, x=None, y=None):
    """Elements of `x` where `condition` holds, else of `y`; with one argument, `nonzero(condition)`."""
    condition = _as_bool(condition)
    if x is None and y is None:
        indices = tf.where(condition)
        return [indices[:, i] for i in range(condition.shape.rank)]
    if x is None or y is None:
        raise ValueError("Both x and y must be ndarrays, or both must be None.")
    x, y = _d.promoted(x, y)
    return tf.where(condition, x, y)


def select(condlist, choicelist, default=0):
    """The choice of the first condition that holds, element-wise; `default` where none does."""
    if len(condlist) != len(choicelist):
        raise ValueError(f"condlist and choicelist must have the same length, got {len(condlist)} and "
                         f"{len(choicelist)}")
    choices = _d.promoted(*choicelist, default)
    result = choices[-1]
    for condition, choice in reversed(list(zip(condlist, choices[:-1]))):
        result = tf.where(_as_bool(condition), choice, result)
    return result


API = {"experimental.numpy": sorted(
    list(_FLOAT_UNARY) + list(_KEEP_UNARY) + list(_PROMOTING) + list(_FLOAT_BINARY) + [
        "angle", "around", "round", "floor_divide", "divide", "true_divide", "float_power", "divmod", "gcd", "lcm",
        "logical_and", "logical_or", "logical_xor", "isclose", "allclose", "array_equal", "clip", "where",
        "select"])}
