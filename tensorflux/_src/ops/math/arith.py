"""Math ops (`tf.math`): elementwise arithmetic, unary functions, casts, clipping, add_n.

Each op is one OpDef (TensorFlow's op type name, inference, NumPy kernel, gradient) plus its public
function. Comparisons/logic/bitwise ops are in `math_logic.py`, reductions in `math_reduce.py`,
matmul/einsum/tensordot in `linalg.py`, Tensor's operators in `operators.py`; operand conversion rules
in `elementwise.py`.
"""
import contextvars

import numpy as np

from ...framework import errors
from ...framework.context import state as _state
from ...framework.tensor import Tensor, EagerTensor
from ...types import dtypes as _dt
from ..convert import convert_to_tensor
from ..conversion_ops import CAST
from ..infer import infer_broadcast, infer_unary
from ..registry import OpDef, apply, FLOAT, COMPLEX, INT, REAL, NUMBER
from ..shapes import creators as _creators
from . import eigen_float as _eigen
from . import summation as _summation

_SIGNED = (_dt.int8, _dt.int16, _dt.int32, _dt.int64)
_SIGNED_NUMBER = FLOAT + _SIGNED + COMPLEX
_FLOAT_COMPLEX = FLOAT + COMPLEX
_BOOL = np.dtype(np.bool_)
_OBJECT = np.dtype(object)  # strings
_FLOAT32 = np.dtype(np.float32)
_QUIET = dict(all="ignore")  # TensorFlow computes inf/nan silently where NumPy would warn

from ..elementwise import binary_function as _binary, unary_function as _unary, function_operands
# Comparisons and logic live in math_logic; re-exported here because gradients and callers use them
# as math ops.
from .logic import (equal, not_equal, less, less_equal, greater, greater_equal, logical_and, logical_or,
    logical_not, logical_xor)


def _infer_bool_unary(inputs, attrs):
    return [(_dt.bool, inputs[0].shape)]


# -- arithmetic -----------------------------------------------------------------------------------

def _not_found(op_name, dtype):
    return errors.NotFoundError(None, None, f"Could not find device for node: {{{{node {op_name}}}}} = "
                                            f"{op_name}[T=DT_{_dt.FROM_NUMPY[dtype].name.upper()}]")


def _check_int_divisor(y):
    if np.count_nonzero(y) != np.size(y):  # (np.all costs ~2 µs of Python dispatch per call)
        raise errors.InvalidArgumentError(None, None, "Integer division by zero")


def _quiet_context():
    """A context in which NumPy's floating-point errors are ignored, or None on a NumPy that keeps its
    error modes elsewhere. Entering it (`Context.run`) costs about 0.1 us; `np.errstate` costs microseconds,
    an eager op's whole budget."""
    try:
        from numpy._core._ufunc_config import _extobj_contextvar, _make_extobj
    except ImportError:
        return None
    context = contextvars.Context()
    context.run(_extobj_contextvar.set, _make_extobj(all="ignore"))
    return context


_QUIET_CONTEXT = _quiet_context()


def _realdiv_kernel(x, y):
    """x / y for floats, nan and inf computed silently as TensorFlow does, even when the user's warning
    filters show every RuntimeWarning (masked averages divide 0 by 0 at masked steps)."""
    if x.dtype.kind in "iu":
        raise _not_found("RealDiv", x.dtype)
    if _QUIET_CONTEXT is not None:
        try:
            return _QUIET_CONTEXT.run(np.true_divide, x, y)
        except RuntimeError:    # the context is entered by another thread at this moment
            pass
    with np.errstate(**_QUIET):
        return np.true_divide(x, y)


def _floordiv_kernel(x, y):
    if x.dtype.kind in "iu":
        _check_int_divisor(y)
        return np.floor_divide(x, y)
    return np.floor(np.true_divide(x, y))  # TensorFlow floors the quotient: 1.0 // 0.1 == 10


def _floormod_kernel(x, y):
    if x.dtype.kind in "iu":
        _check_int_divisor(y)
        return np.remainder(x, y)  # integers: Python's floor-mod is TensorFlow's
    r = np.fmod(x, y)
    # TensorFlow's rule for floats: move a non-zero remainder to the divisor's sign (keeps -0.0 as -0.0).
    return np.where((r != 0) & ((y < 0) != (r < 0)), r + y, r).astype(x.dtype, copy=False)


def _truncatediv_kernel(x, y):
    with np.errstate(**_QUIET):
        if x.dtype.kind in "iu":
            if not np.all(y):
                raise errors.InternalError(None, None, "Unexpected error in binary operator (only integer "
                                                       "div and mod should have errors)")
            return np.floor_divide(x - np.fmod(x, y), y)  # exact: x - fmod(x, y) is a multiple of y
        return np.trunc(np.true_divide(x, y))


def _truncatemod_kernel(x, y):
    if x.dtype.kind in "iu":
        _check_int_divisor(y)
    with np.errstate(**_QUIET):
        return np.fmod(x, y)


def _pow_kernel(x, y):
    if x.dtype.kind == "i" and np.any(y < 0):
        raise errors.InvalidArgumentError(None, None, "Integers to negative integer powers are not allowed")
    with np.errstate(**_QUIET):
        return np.power(x, y)


def _div_no_nan_kernel(x, y):
    with np.errstate(**_QUIET):
        return np.where(y == 0, np.zeros((), x.dtype), np.true_divide(x, y)).astype(x.dtype, copy=False)


def _mul_no_nan_kernel(x, y):
    with np.errstate(**_QUIET):
        return np.where(y == 0, np.zeros((), x.dtype), np.multiply(x, y)).astype(x.dtype, copy=False)


def _squared_difference_kernel(x, y):
    with np.errstate(**_QUIET):
        d = np.subtract(x, y)
        return d * np.conj(d) if d.dtype.kind == "c" else d * d


# -- gradients of binary ops ------------------------------------------------------------------------
# Written with public ops so they run eagerly and build graph ops alike. A broadcast operand gets its
# gradient summed back to its own shape; complex factors are conjugated (TensorFlow's convention).

def _unbroadcast(op, grad_x, grad_y):
    x, y = op.inputs
    return [_summation.reduce_to(grad_x, x), _summation.reduce_to(grad_y, y)]


def _add_grad(op, grad):
    return _unbroadcast(op, grad, grad)


def _sub_grad(op, grad):
    return _unbroadcast(op, grad, negative(grad))


def _mul_grad(op, grad):
    x, y = op.inputs
    return _unbroadcast(op, multiply(grad, conj(y)), multiply(conj(x), grad))


def _realdiv_grad(op, grad):
    x, y = op.inputs
    return _unbroadcast(op, realdiv(grad, conj(y)), multiply(grad, conj(realdiv(realdiv(negative(x), y), y))))


def _div_no_nan_grad(op, grad):
    x, y = op.inputs
    return _unbroadcast(op, divide_no_nan(grad, conj(y)),
                        multiply(grad, conj(divide_no_nan(divide_no_nan(negative(x), y), y))))


def _mul_no_nan_grad(op, grad):
    x, y = op.inputs
    return _unbroadcast(op, multiply_no_nan(grad, conj(y)), multiply_no_nan(conj(x), grad))


def _not_differentiable_pair(op, grad):
    return [None, None]  # piecewise constant (FloorDiv, TruncateDiv): TensorFlow gives no gradient


def _floormod_grad(op, grad):
    x, y = op.inputs  # x - floor(x / y) * y, with the floor treated as a constant
    return _unbroadcast(op, grad, multiply(grad, negative(floordiv(x, y))))


def _pow_grad(op, grad):
    x, y = op.inputs
    z = op.outputs[0]
    grad_x = multiply(grad, conj(multiply(y, pow(x, subtract(y, 1)))))
    # d/dy x^y = x^y log(x); TensorFlow uses 0 where the log is undefined (x <= 0, or x == 0 for complex).
    has_log = not_equal(x, 0) if x.dtype.is_complex else greater(x, 0)
    log_x = _only_where(log(x), has_log)
    return _unbroadcast(op, grad_x, multiply(grad, conj(multiply(z, log_x))))


def _only_where(t, mask):
    """`t` where `mask` holds and exactly 0 elsewhere, even where `t` is inf or NaN (a select, as MulNoNan)."""
    return multiply_no_nan(t, cast(mask, t.dtype))


def _selecting_grad(pick_x):
    """Maximum/Minimum: the whole gradient goes to the selected operand; ties go to x, as in TensorFlow."""
    def grad_fn(op, grad):
        x, y = op.inputs
        to_x = pick_x(x, y)
        return _unbroadcast(op, _only_where(grad, to_x), _only_where(grad, logical_not(to_x)))
    return grad_fn


def _squared_difference_grad(op, grad):
    x, y = op.inputs
    grad_x = multiply(multiply(grad, 2), conj(subtract(x, y)))
    return _unbroadcast(op, grad_x, negative(grad_x))


def _atan2_grad(op, grad):
    y, x = op.inputs  # TensorFlow's Atan2 takes (y, x)
    scaled = realdiv(grad, add(square(x), square(y)))
    return _unbroadcast(op, multiply(x, scaled), multiply(negative(y), scaled))


ADD = OpDef("AddV2", infer_broadcast, np.add, same_dtype=True, allowed=NUMBER, grad=_add_grad)
ADD_STRING = OpDef("Add", infer_broadcast, np.add, same_dtype=True, allowed=NUMBER + (_dt.string,),
                   grad=_add_grad)
SUB = OpDef("Sub", infer_broadcast, np.subtract, same_dtype=True, allowed=NUMBER, grad=_sub_grad)
MUL = OpDef("Mul", infer_broadcast, np.multiply, same_dtype=True, allowed=NUMBER + (_dt.bool,), grad=_mul_grad)
REALDIV = OpDef("RealDiv", infer_broadcast, _realdiv_kernel, same_dtype=True, allowed=NUMBER, grad=_realdiv_grad)
FLOORDIV = OpDef("FloorDiv", infer_broadcast, _floordiv_kernel, same_dtype=True, allowed=REAL,
                 grad=_not_differentiable_pair)
FLOORMOD = OpDef("FloorMod", infer_broadcast, _floormod_kernel, same_dtype=True, allowed=INT + FLOAT,
                 grad=_floormod_grad)
TRUNCATEDIV = OpDef("TruncateDiv", infer_broadcast, _truncatediv_kernel, same_dtype=True, allowed=REAL,
                    grad=_not_differentiable_pair)
TRUNCATEMOD = OpDef("TruncateMod", infer_broadcast, _truncatemod_kernel, same_dtype=True, allowed=REAL)
POW = OpDef("Pow", infer_broadcast, _pow_kernel, same_dtype=True, allowed=_SIGNED_NUMBER, grad=_pow_grad)
MAXIMUM = OpDef("Maximum", infer_broadcast, np.maximum, same_dtype=True, allowed=REAL,
                grad=_selecting_grad(lambda x, y: greater_equal(x, y)))
MINIMUM = OpDef("Minimum", infer_broadcast, np.minimum, same_dtype=True, allowed=REAL,
                grad=_selecting_grad(lambda x, y: less_equal(x, y)))
DIV_NO_NAN = OpDef("DivNoNan", infer_broadcast, _div_no_nan_kernel, same_dtype=True, allowed=_FLOAT_COMPLEX,
                   grad=_div_no_nan_grad)
MUL_NO_NAN = OpDef("MulNoNan", infer_broadcast, _mul_no_nan_kernel, same_dtype=True, allowed=_FLOAT_COMPLEX,
                   grad=_mul_no_nan_grad)
SQUARED_DIFFERENCE = OpDef("SquaredDifference", infer_broadcast, _squared_difference_kernel, same_dtype=True,
                           allowed=FLOAT + (_dt.int32, _dt.int64) + COMPLEX, grad=_squared_difference_grad)
ATAN2 = OpDef("Atan2", infer_broadcast, np.arctan2, same_dtype=True, allowed=FLOAT, grad=_atan2_grad)

_add_number = _binary(ADD, "Add", function_operands)  # tf.add converts with a dtype hint
_add_string = _binary(ADD_STRING, "Add", function_operands)


def add(x, y, name=None):
    """`tf.math.add`: x + y elementwise; strings concatenate (TensorFlow's separate `Add` op)."""
    if type(x) is EagerTensor and type(y) is EagerTensor:
        if x._value.dtype is not _OBJECT:
            return apply(ADD, (x, y), None, name or "Add")
    else:
        x, y = function_operands(x, y)
    return apply(ADD_STRING if x.dtype is _dt.string else ADD, (x, y), None, name or "Add")


subtract = _binary(SUB, "Sub")
multiply = _binary(MUL, "Mul")
realdiv = _binary(REALDIV, "RealDiv")
floordiv = _binary(FLOORDIV, "floordiv")
floormod = _binary(FLOORMOD, "FloorMod")
mod = floormod
truncatediv = _binary(TRUNCATEDIV, "TruncateDiv")
truncatemod = _binary(TRUNCATEMOD, "TruncateMod")
pow = _binary(POW, "Pow")  # noqa: A001 - TensorFlow's public name
maximum = _binary(MAXIMUM, "Maximum")
minimum = _binary(MINIMUM, "Minimum")
squared_difference = _binary(SQUARED_DIFFERENCE, "SquaredDifference")


def multiply_no_nan(x, y, name=None):
    """`tf.math.multiply_no_nan`: x * y, but 0 where y is 0 even if x is NaN or Inf. `y` is converted to
    `x`'s dtype (a ValueError naming `y` otherwise); a tensor of another dtype is a TypeError."""
    if type(x) is not EagerTensor or type(y) is not EagerTensor or x._value.dtype != y._value.dtype:
        x = convert_to_tensor(x)
        # TensorFlow captures an eager tensor into a graph without the requested-dtype check.
        if not (_state.graph is not None and isinstance(y, EagerTensor)):
            try:
                y = convert_to_tensor(y, dtype=x.dtype)
            except ValueError as e:
                raise ValueError(f"y: {e}") from None
        if y.dtype is not x.dtype:
            raise TypeError(f"`x` and `y` must have the same dtype, got {x.dtype!r} != {y.dtype!r}.")
    return apply(MUL_NO_NAN, (x, y), None, name or "multiply_no_nan")


atan2 = _binary(ATAN2, "Atan2")

# TensorFlow's true division: integers are cast to a float wide enough for them first.
_TRUEDIV_FLOAT = {_dt.int8: _dt.float32, _dt.uint8: _dt.float32, _dt.int16: _dt.float32,
                  _dt.uint16: _dt.float32, _dt.int32: _dt.float64, _dt.uint32: _dt.float64,
                  _dt.int64: _dt.float64, _dt.uint64: _dt.float64}
_TRUEDIV_OK = set(_TRUEDIV_FLOAT) | set(FLOAT) | set(COMPLEX)


def _as_float_operands(x, y, name, op_label):
    if x.dtype is not y.dtype:
        raise TypeError(f"`x` and `y` must have the same dtype, got {x.dtype!r} != {y.dtype!r}.")
    if x.dtype not in _TRUEDIV_OK:
        expected = ", ".join(repr(d) for d in (_dt.uint8, _dt.int8, _dt.uint16, _dt.int16, _dt.uint32, _dt.int32,
                                               _dt.uint64, _dt.int64, _dt.bfloat16, _dt.float16, _dt.float32,
                                               _dt.float64, _dt.complex64, _dt.complex128))
        raise TypeError(f"Invalid dtype {x.dtype!r} in {op_label}. Expected one of {{{expected}}}.")
    target = _TRUEDIV_FLOAT.get(x.dtype)
    if target is not None:
        x = cast(x, target, name=f"{name}/Cast")
        y = cast(y, target, name=f"{name}/Cast_1")
    return x, y


def _truediv(x, y, name, convert):
    if type(x) is not EagerTensor or type(y) is not EagerTensor:
        x, y = convert(x, y)
    if x.dtype._np.kind != "f" or y.dtype is not x.dtype:
        x, y = _as_float_operands(x, y, name, "__truediv__")
    return apply(REALDIV, (x, y), None, name)


def truediv(x, y, name=None):
    """`tf.math.truediv`: division in floating point (int8/16 → float32, int32/64 → float64)."""
    return _truediv(x, y, name or "truediv", function_operands)


def divide(x, y, name=None):
    """`tf.math.divide`: `x / y` with TensorFlow's true-division dtype rules."""
    return _truediv(x, y, name or "truediv", function_operands)


def divide_no_nan(x, y, name=None):
    """`tf.math.divide_no_nan`: x / y, but 0 wherever y is 0 (integers divide in floating point)."""
    name = name or "div_no_nan"
    x, y = function_operands(x, y)
    if x.dtype._np.kind not in "fc" or y.dtype is not x.dtype:
        x, y = _as_float_operands(x, y, name, "div_no_nan")
    return apply(DIV_NO_NAN, (x, y), None, name)


def scalar_mul(scalar, x, name=None):
    """`tf.math.scalar_mul`: a scalar times a tensor."""
    scalar = convert_to_tensor(scalar, dtype_hint=getattr(x, "dtype", None))
    if scalar.shape.rank not in (0, None):
        raise ValueError(f"Only scalar multiply works, got shape {scalar.shape}")
    return multiply(scalar, x, name=name or "scalar_mul")


# -- unary -----------------------------------------------------------------------------------------

def _eigen_or(fn, numpy_fn):
    """A kernel computing float32 as TensorFlow's Eigen kernels do (eigen_float.py), other dtypes with
    NumPy."""
    def kernel(x):
        dtype = x.dtype
        if dtype is _FLOAT32 or dtype == _FLOAT32:     # identity first: this runs in every loop iteration
            return fn(x)
        with np.errstate(**_QUIET):
            return numpy_fn(x)
    kernel.__name__ = f"{numpy_fn.__name__}_kernel"
    return kernel


def _sigmoid_kernel(x):
    if x.dtype == np.float32:
        return _eigen.sigmoid(x)
    with np.errstate(**_QUIET):
        if x.dtype.kind == "c":
            return np.reciprocal(1 + np.exp(-x))
        e = np.exp(-np.abs(x))  # never overflows; picks the stable branch per sign
        return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)


_TWO_OVER_SQRT_PI = 2.0 / np.sqrt(np.pi)
_SERIES_LIMIT = 2.5  # below: the all-positive Taylor series; above: the continued fraction of erfc


def _erf_float64(x):
    a = np.abs(x)
    out = np.empty_like(a)
    small = a < _SERIES_LIMIT
    xs = a[small]
    # erf(x) = 2/sqrt(pi) exp(-x^2) sum_n (2x^2)^n x / (1*3*...*(2n+1)): no cancellation for x >= 0.
    two_x2 = 2.0 * xs * xs
    term = xs.copy()
    total = xs.copy()
    for n in range(1, 64):
        term = term * two_x2 / (2 * n + 1)
        total += term
    out[small] = _TWO_OVER_SQRT_PI * np.exp(-xs * xs) * total
    xl = a[~small]
    # erfc(x) = exp(-x^2)/sqrt(pi) / (x + (1/2)/(x + 1/(x + (3/2)/(x + ...)))), evaluated from its tail.
    frac = xl.copy()
    for k in range(80, 0, -1):
        frac = xl + (k / 2.0) / frac
    out[~small] = 1.0 - np.exp(-xl * xl) / np.sqrt(np.pi) / frac
    return np.copysign(out, x)


def _erf_kernel(x):
    with np.errstate(**_QUIET):
        wide = np.asarray(x, dtype=np.float64)
        return _erf_float64(wide.reshape(-1)).reshape(wide.shape).astype(x.dtype)


def _round_kernel(x):
    if x.dtype.kind in "iu":
        return x  # integers are already round; tensors are immutable, so sharing the array is safe
    return np.round(x)  # half to even, like TensorFlow


def _rsqrt_kernel(x):
    with np.errstate(**_QUIET):
        return np.reciprocal(np.sqrt(x))


def _reciprocal_kernel(x):
    if x.dtype.kind in "iu":
        raise _not_found("Reciprocal", x.dtype)
    with np.errstate(**_QUIET):
        return np.reciprocal(x)


def _infer_complex_abs(inputs, attrs):
    x = inputs[0]
    return [(x.dtype.real_dtype, x.shape)]


def _complex_abs_kernel(x):
    return np.abs(x)


def _conj_kernel(x):
    return np.conj(x)


# -- gradients of unary ops -------------------------------------------------------------------------

def _chain(derivative):
    """The gradient `grad * conj(f'(x))` of an elementwise f, given `derivative(x, y)` with y = f(x)."""
    def grad_fn(op, grad):
        return [multiply(grad, conj(derivative(op.inputs[0], op.outputs[0])))]
    return grad_fn


def _neg_grad(op, grad):
    return [negative(grad)]


def _sign_grad(op, grad):
    return [_creators.zeros_like(op.inputs[0])]


def _no_gradient(op, grad):
    return [None]  # piecewise constant (Round, Rint, Floor, Ceil): TensorFlow gives no gradient


def _conj_grad(op, grad):
    return [conj(grad)]


def _complex_abs_grad(op, grad):
    x, y = op.inputs[0], op.outputs[0]  # d|x| = Re(conj(x / |x|) dx), and 0 at x == 0
    return [divide_no_nan(multiply(cast(grad, x.dtype), x), cast(y, x.dtype))]


def _one_minus_square(t):
    return subtract(1, square(t))


_TWO_OVER_SQRT_PI_GRAD = float(2.0 / np.sqrt(np.pi))

NEG = OpDef("Neg", infer_unary, np.negative, allowed=_SIGNED_NUMBER, grad=_neg_grad)
ABS = OpDef("Abs", infer_unary, np.abs, allowed=FLOAT + _SIGNED, grad=_chain(lambda x, y: sign(x)))
COMPLEX_ABS = OpDef("ComplexAbs", _infer_complex_abs, _complex_abs_kernel, allowed=COMPLEX, grad=_complex_abs_grad)
SIGN = OpDef("Sign", infer_unary, np.sign, allowed=_SIGNED_NUMBER, grad=_sign_grad)
SQUARE = OpDef("Square", infer_unary, np.square, allowed=NUMBER, grad=_chain(lambda x, y: multiply(x, 2)))
SQRT = OpDef("Sqrt", infer_unary, np.sqrt, allowed=_FLOAT_COMPLEX, grad=_chain(lambda x, y: realdiv(0.5, y)))
RSQRT = OpDef("Rsqrt", infer_unary, _rsqrt_kernel, allowed=_FLOAT_COMPLEX,
              grad=_chain(lambda x, y: multiply(multiply(square(y), y), -0.5)))
EXP = OpDef("Exp", infer_unary, _eigen_or(_eigen.exp, np.exp), allowed=_FLOAT_COMPLEX, grad=_chain(lambda x, y: y))
EXPM1 = OpDef("Expm1", infer_unary, np.expm1, allowed=_FLOAT_COMPLEX, grad=_chain(lambda x, y: exp(x)))
LOG = OpDef("Log", infer_unary, _eigen_or(_eigen.log, np.log), allowed=_FLOAT_COMPLEX, grad=_chain(lambda x, y: reciprocal(x)))
LOG1P = OpDef("Log1p", infer_unary, np.log1p, allowed=_FLOAT_COMPLEX,
              grad=_chain(lambda x, y: reciprocal(add(x, 1))))
SIN = OpDef("Sin", infer_unary, np.sin, allowed=_FLOAT_COMPLEX, grad=_chain(lambda x, y: cos(x)))
COS = OpDef("Cos", infer_unary, np.cos, allowed=_FLOAT_COMPLEX, grad=_chain(lambda x, y: negative(sin(x))))
TAN = OpDef("Tan", infer_unary, np.tan, allowed=_FLOAT_COMPLEX,
            grad=_chain(lambda x, y: square(reciprocal(cos(x)))))
ASIN = OpDef("Asin", infer_unary, np.arcsin, allowed=_FLOAT_COMPLEX,
             grad=_chain(lambda x, y: reciprocal(sqrt(_one_minus_square(x)))))
ACOS = OpDef("Acos", infer_unary, np.arccos, allowed=_FLOAT_COMPLEX,
             grad=_chain(lambda x, y: negative(reciprocal(sqrt(_one_minus_square(x))))))
ATAN = OpDef("Atan", infer_unary, np.arctan, allowed=_FLOAT_COMPLEX,
             grad=_chain(lambda x, y: reciprocal(add(square(x), 1))))
SINH = OpDef("Sinh", infer_unary, np.sinh, allowed=_FLOAT_COMPLEX, grad=_chain(lambda x, y: cosh(x)))
COSH = OpDef("Cosh", infer_unary, np.cosh, allowed=_FLOAT_COMPLEX, grad=_chain(lambda x, y: sinh(x)))
TANH = OpDef("Tanh", infer_unary, _eigen_or(_eigen.tanh, np.tanh), allowed=_FLOAT_COMPLEX,
             grad=_chain(lambda x, y: _one_minus_square(y)))
ASINH = OpDef("Asinh", infer_unary, np.arcsinh, allowed=_FLOAT_COMPLEX,
              grad=_chain(lambda x, y: reciprocal(cosh(y))))
ACOSH = OpDef("Acosh", infer_unary, np.arccosh, allowed=_FLOAT_COMPLEX,
              grad=_chain(lambda x, y: reciprocal(sinh(y))))
ATANH = OpDef("Atanh", infer_unary, np.arctanh, allowed=_FLOAT_COMPLEX,
              grad=_chain(lambda x, y: reciprocal(_one_minus_square(x))))
SIGMOID = OpDef("Sigmoid", infer_unary, _sigmoid_kernel, allowed=_FLOAT_COMPLEX,
                grad=_chain(lambda x, y: multiply(y, subtract(1, y))))
ERF = OpDef("Erf", infer_unary, _erf_kernel, allowed=FLOAT,
            grad=_chain(lambda x, y: multiply(exp(negative(square(x))), _TWO_OVER_SQRT_PI_GRAD)))
ROUND = OpDef("Round", infer_unary, _round_kernel, allowed=FLOAT + _SIGNED + COMPLEX, grad=_no_gradient)
RINT = OpDef("Rint", infer_unary, np.rint, allowed=FLOAT, grad=_no_gradient)
FLOOR = OpDef("Floor", infer_unary, np.floor, allowed=FLOAT, grad=_no_gradient)
CEIL = OpDef("Ceil", infer_unary, np.ceil, allowed=FLOAT, grad=_no_gradient)
RECIPROCAL = OpDef("Reciprocal", infer_unary, _reciprocal_kernel, allowed=_FLOAT_COMPLEX + _SIGNED,
                   grad=_chain(lambda x, y: negative(square(y))))
CONJ = OpDef("Conj", infer_unary, _conj_kernel, allowed=COMPLEX, grad=_conj_grad)
IS_NAN = OpDef("IsNan", _infer_bool_unary, np.isnan, allowed=FLOAT)
IS_FINITE = OpDef("IsFinite", _infer_bool_unary, np.isfinite, allowed=FLOAT)
IS_INF = OpDef("IsInf", _infer_bool_unary, np.isinf, allowed=FLOAT)

negative = _unary(NEG)
sign = _unary(SIGN)
square = _unary(SQUARE)
sqrt = _unary(SQRT)
rsqrt = _unary(RSQRT)
exp = _unary(EXP)
expm1 = _unary(EXPM1)
log = _unary(LOG)
log1p = _unary(LOG1P)
sin = _unary(SIN)
cos = _unary(COS)
tan = _unary(TAN)
asin = _unary(ASIN)
acos = _unary(ACOS)
atan = _unary(ATAN)
sinh = _unary(SINH)
cosh = _unary(COSH)
tanh = _unary(TANH)
asinh = _unary(ASINH)
acosh = _unary(ACOSH)
atanh = _unary(ATANH)
sigmoid = _unary(SIGMOID)
erf = _unary(ERF)
round = _unary(ROUND)  # noqa: A001 - TensorFlow's public name
rint = _unary(RINT)
floor = _unary(FLOOR)
ceil = _unary(CEIL)
reciprocal = _unary(RECIPROCAL)
is_nan = _unary(IS_NAN)
is_finite = _unary(IS_FINITE)
is_inf = _unary(IS_INF)


def abs(x, name=None):  # noqa: A001 - TensorFlow's public name
    """`tf.math.abs`: |x|; complex inputs give their real-typed magnitude (TensorFlow's ComplexAbs)."""
    if not isinstance(x, Tensor):
        x = convert_to_tensor(x)
    if x.dtype.is_complex:
        return apply(COMPLEX_ABS, (x,), None, name or "Abs")
    return apply(ABS, (x,), None, name or "Abs")


def conj(x, name=None):
    """`tf.math.conj`: the complex conjugate; real tensors are returned unchanged, as in TensorFlow."""
    if not isinstance(x, Tensor):
        x = convert_to_tensor(x)
    if not x.dtype.is_complex:
        if x.dtype.is_floating or x.dtype.is_integer:
            return x
        raise TypeError(f"Expected numeric or variant tensor, got dtype {x.dtype!r}")
    return apply(CONJ, (x,), None, name or "Conj")

# -- cast (the Cast op sits in the ops core, conversion_ops.py, because convert_to_tensor casts) ------
def cast(x, dtype, name=None):
    """`tf.cast`'s tensor: `x` converted to `dtype` (floats truncate toward zero; complex keeps its real
    part). In a graph, as TensorFlow: converting `x` and the Cast share one `Cast` name scope
    (`Cast_1/ReadVariableOp`, `Cast_2/x`), and the Cast takes the scope's name."""
    dtype = _dt.as_dtype(dtype)
    if isinstance(x, Tensor):
        if x.dtype is dtype:
            return x
        if _state.graph is None:
            return apply(CAST, (x,), {"DstT": dtype._np}, name or "Cast")
    graph = _state.graph
    if graph is None:
        x = convert_to_tensor(x)
        return x if x.dtype is dtype else apply(CAST, (x,), {"DstT": dtype._np}, name or "Cast")
    with graph.name_scope(name or "Cast") as scope:
        x = x if isinstance(x, Tensor) else convert_to_tensor(x, name="x")
        return x if x.dtype is dtype else apply(CAST, (x,), {"DstT": dtype._np}, scope)


def user_cast(x, dtype, name=None):
    """`tf.cast` as the user calls it: a variable already of `dtype` comes back as itself, as TensorFlow
    returns it (read where it is used), else `cast`."""
    if getattr(x, "_is_variable", False) and x.dtype is _dt.as_dtype(dtype):
        return x
    return cast(x, dtype, name)


def saturate_cast(value, dtype, name=None):
    """`tf.dtypes.saturate_cast`: clamps to `dtype`'s range before casting."""
    dtype = _dt.as_dtype(dtype)
    value = convert_to_tensor(value)
    name = name or "saturate_cast"
    if value.dtype.is_complex or dtype.is_complex or value.dtype.is_bool or dtype.is_bool:
        return cast(value, dtype, name=name)
    src = value.dtype
    if dtype.min > src.min:
        value = maximum(value, cast(dtype.min, src) if src.is_floating else _limit(dtype.min, src),
                        name=f"{name}/Maximum")
    if dtype.max < src.max:
        value = minimum(value, cast(dtype.max, src) if src.is_floating else _limit(dtype.max, src),
                        name=f"{name}/Minimum")
    return cast(value, dtype, name=name)


def _limit(value, dtype):
    return convert_to_tensor(np.array(value).astype(dtype._np))


# -- clipping and sums of lists ---------------------------------------------------------------------

def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """`tf.clip_by_value`: min(max(t, low), high), built as TensorFlow builds it (Minimum, then Maximum)."""
    name = name or "clip_by_value"
    if not isinstance(t, Tensor):
        t = convert_to_tensor(t)
    low = clip_value_min if isinstance(clip_value_min, Tensor) else convert_to_tensor(clip_value_min, t.dtype)
    high = clip_value_max if isinstance(clip_value_max, Tensor) else convert_to_tensor(clip_value_max, t.dtype)
    result = maximum(minimum(t, high, name=f"{name}/Minimum"), low, name=name)
    if not result.shape.is_compatible_with(t.shape):
        raise ValueError(f"Shapes {t.shape} and {result.shape} are incompatible")
    return result


def _infer_add_n(inputs, attrs):
    shape = inputs[0].shape
    for i, t in enumerate(inputs[1:], 1):
        if not shape.is_compatible_with(t.shape):
            a, b = shape, t.shape
            if a.rank is not None and b.rank is not None and a.rank == b.rank:
                dim = next(d for d in range(a.rank) if not a[d:d + 1].is_compatible_with(b[d:d + 1]))
                raise ValueError(f"Dimension {dim} in both shapes must be equal, but are {a.as_list()[dim]} and "
                                 f"{b.as_list()[dim]}. Shapes are {_bracket(a)} and {_bracket(b)}.")
            raise ValueError(f"Shapes must be equal rank, but are {a.rank} and {b.rank}")
        shape = shape.merge_with(t.shape)
    return [(inputs[0].dtype, shape)]


def _bracket(shape):
    return "[" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]"


def _add_n_kernel(*arrays):
    first = arrays[0]
    for i, a in enumerate(arrays[1:], 1):
        if a.shape != first.shape:
            raise errors.InvalidArgumentError(
                None, None, f"Inputs to operation AddN of type AddN must have the same size and shape.  "
                            f"Input 0: {_dims(first)} != input {i}: {_dims(a)}")
    total = first.copy() if isinstance(first, np.ndarray) else first
    for a in arrays[1:]:
        total = np.add(total, a)
    return total


def _dims(a):
    return "[" + ",".join(str(d) for d in a.shape) + "]"


def _add_n_grad(op, grad):
    return [grad] * len(op.inputs)


ADD_N = OpDef("AddN", _infer_add_n, _add_n_kernel, same_dtype=True, allowed=NUMBER,
              input_names=("inputs",) * 3, grad=_add_n_grad)


def add_n(inputs, name=None):
    """`tf.math.add_n`: the elementwise sum of a list of same-shaped, same-dtype tensors."""
    if isinstance(inputs, Tensor) or not isinstance(inputs, (list, tuple)):
        inputs = list(inputs) if inputs is not None else []
    if not inputs:
        raise ValueError("Inputs must be an iterable of at least one Tensor/IndexedSlices with the same dtype "
                         "and shape.")
    inputs = [t if isinstance(t, Tensor) else _converted_before_add_n(t) for t in inputs]
    if len(inputs) == 1:
        return inputs[0]
    return apply(ADD_N, tuple(inputs), None, name or "AddN")


def _converted_before_add_n(value):
    """TensorFlow converts add_n's inputs before entering its op's scope: a Python value is a `Const`."""
    t = convert_to_tensor(value)
    if _state.graph is not None:
        _state.graph.keep_name(t)
    return t


# Public names: "" is the top level (`tf.add`), other keys are namespaces (`tf.math.add`).
API = {
    "": ["add", "subtract", "multiply", "divide", "truediv", "realdiv", "truncatediv", "truncatemod",
         "pow", "negative", "abs", "sign", "square", "sqrt", "exp", "sin", "cos", "tan", "tanh", "sigmoid",
         "asin", "acos", "atan", "atan2", "sinh", "cosh", "asinh", "acosh", "atanh",
         "maximum", "minimum", "round", "floor", "add_n", "cast=user_cast", "saturate_cast", "clip_by_value",
         "scalar_mul"],
    "math": ["add", "subtract", "multiply", "divide", "truediv", "floordiv", "floormod", "mod", "pow",
             "negative", "abs", "sign", "square", "sqrt", "rsqrt", "exp", "expm1", "log", "log1p", "sin",
             "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "asinh", "acosh", "atanh", "tanh",
             "sigmoid", "erf", "maximum", "minimum", "round", "rint", "floor", "ceil", "reciprocal", "add_n",
             "is_nan", "is_finite", "is_inf", "divide_no_nan", "multiply_no_nan", "squared_difference", "conj",
             "scalar_mul"],
    "dtypes": ["cast=user_cast", "saturate_cast"],
}


# Ops whose kernel is exactly a NumPy ufunc: generated code may have them write into a dead input buffer.
# (Floating-point warnings these raise are silenced for tensorflux code by the registry's warnings filter.)
for _op, _ufunc in ((ADD, np.add), (SUB, np.subtract), (MUL, np.multiply), (MAXIMUM, np.maximum),
                    (MINIMUM, np.minimum), (NEG, np.negative), (ABS, np.abs), (SQUARE, np.square),
                    (REALDIV, np.true_divide), (SQRT, np.sqrt), (SIN, np.sin), (COS, np.cos)):
    _op.inplace = _ufunc
