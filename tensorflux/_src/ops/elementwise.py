"""Building blocks of elementwise ops: operand conversion with TensorFlow's two rules, and the public
functions of unary and binary ops.

Public functions that are TensorFlow's generated ops (`tf.subtract`, `tf.equal`...) convert a Python value
next to an eager tensor to that tensor's dtype or raise TypeError; wrappers such as `tf.add` use the dtype
as a *hint* (`tf.add(int_tensor, 1.5)` fails in the op with a dtype mismatch); operators use it as a
*requirement* (`int_tensor + 1.5` is a TypeError).
"""
import numpy as np

from ..framework.context import state as _state
from ..framework.tensor import Tensor, EagerTensor
from ..types import dtypes as _dt
from .convert import binary_operands, convert_to_tensor
from .registry import apply, dtype_error_name

__all__ = ["function_operands", "gen_op_operands", "operator_operands", "binary_function", "unary_function", "hinted",
           "error_name"]


def _scalar_like(value, other):
    """Fast path: a Python int/float next to an eager float (or int32/int64) tensor, or None."""
    if _state.graph is not None or type(other) is not EagerTensor:
        return None
    np_dtype = other._value.dtype
    kind = np_dtype.kind
    t = type(value)
    if kind == "f" and (t is float or t is int):
        return EagerTensor(np_dtype.type(value))
    if t is int and kind == "i" and np_dtype.itemsize >= 4 and -2147483648 <= value <= 2147483647:
        return EagerTensor(np_dtype.type(value))
    return None


def _hinted(value, other):
    if isinstance(value, (np.ndarray, np.generic)) or hasattr(value, "__tf_tensor__"):
        return convert_to_tensor(value)  # NumPy values keep their own dtype, as in TensorFlow
    fast = _scalar_like(value, other)
    if fast is not None:
        return fast
    return convert_to_tensor(value, dtype_hint=other.dtype)


def function_operands(x, y):
    """Operands of a public binary function: a Python value takes the other tensor's dtype if it can."""
    if isinstance(x, Tensor):
        if not isinstance(y, Tensor):
            y = _hinted(y, x)
        return x, y
    if isinstance(y, Tensor):
        return _hinted(x, y), y
    x = convert_to_tensor(x)
    return x, _hinted(y, x)


def gen_op_operands(x, y):
    """Operands of a public function that is TensorFlow's generated op: eagerly a Python value must
    convert to the other tensor's dtype (`tf.subtract(float_tensor, "a")` is a TypeError, as TensorFlow's
    eager fast path does); in a graph it is only a hint, and the op reports the dtype mismatch."""
    if _state.graph is not None:
        return function_operands(x, y)
    if isinstance(x, Tensor):
        if not isinstance(y, Tensor):
            y = _required(y, x)
        return x, y
    if isinstance(y, Tensor):
        return _required(x, y), y
    x = convert_to_tensor(x)
    return x, _required(y, x)


def _required(value, other):
    if isinstance(value, (np.ndarray, np.generic)) or hasattr(value, "__tf_tensor__"):
        return convert_to_tensor(value)  # NumPy values keep their own dtype, as in TensorFlow
    fast = _scalar_like(value, other)
    if fast is not None:
        return fast
    return convert_to_tensor(value, dtype=other.dtype)


def operator_operands(x, y):
    """Operands of a Tensor operator: a Python value must convert to the tensor's dtype."""
    if isinstance(x, Tensor) and not isinstance(y, Tensor):
        fast = _scalar_like(y, x)
        if fast is not None:
            return x, fast
    elif isinstance(y, Tensor) and not isinstance(x, Tensor):
        fast = _scalar_like(x, y)
        if fast is not None:
            return fast, y
    return binary_operands(x, y)


def _binary(opdef, default_name, operands=gen_op_operands):
    """The public function of a binary elementwise op (`operands`: TensorFlow's conversion rule for it)."""
    def fn(x, y, name=None):
        if type(x) is not EagerTensor or type(y) is not EagerTensor:
            x, y = operands(x, y)
        return apply(opdef, (x, y), None, name or default_name)
    return fn


def _unary(opdef, default_name=None):
    """The public function of a unary elementwise op."""
    default_name = default_name or opdef.name

    def fn(x, name=None):
        if not isinstance(x, Tensor):
            x = convert_to_tensor(x)
        return apply(opdef, (x,), None, name or default_name)
    return fn


def error_name(np_dtype):
    """TensorFlow's name of a NumPy dtype in kernel messages ("float", "double", "int32")."""
    return dtype_error_name(_dt.FROM_NUMPY[np_dtype])


binary_function = _binary
unary_function = _unary
hinted = _hinted
