"""Conversion of Python and NumPy values to tensors, with TensorFlow's rules.

Python int → int32 (int64 when it does not fit), float → float32, bool → bool, str/bytes → string,
complex → complex128; nested lists follow the same rules; NumPy arrays and scalars keep their dtype.
With `dtype=`, Python values must convert losslessly in kind (`1.5` is not an int32: TypeError).

    >>> convert_to_tensor([1, 2]).dtype
    tf.int32
"""
import numpy as np

from ..framework.context import state as _state
from ..framework.tensor import EagerTensor, Tensor
from ..types import dtypes as _dt
from ..types.shape import TensorShape

__all__ = ["constant", "convert_to_tensor", "binary_operands", "to_array", "convert_n"]

_INT32_MIN, _INT32_MAX = -(2 ** 31), 2 ** 31 - 1
_INT64_MIN, _INT64_MAX = -(2 ** 63), 2 ** 63 - 1
_NP_INT32 = np.dtype(np.int32)
_NP_F32 = np.dtype(np.float32)
_OBJECT = np.dtype(object)


def _leaves(value, out):
    for v in value:
        if isinstance(v, (list, tuple)):
            _leaves(v, out)
        else:
            out.append(v)
    return out


def _unsupported(value):
    return ValueError(f"Attempt to convert a value ({value!r}) with an unsupported type ({type(value)}) to a "
                      f"Tensor.")


def _python_to_array(value):
    """The array TensorFlow would make from a Python value with no dtype requested."""
    t = type(value)
    if t is float:
        return np.float32(value)
    if t is int:
        if _INT32_MIN <= value <= _INT32_MAX:
            return np.int32(value)
        if _INT64_MIN <= value <= _INT64_MAX:
            return np.int64(value)
        raise ValueError("Can't convert Python sequence with out-of-range integer to Tensor.")
    if t is bool:
        return np.bool_(value)
    if t is str or t is bytes:
        return np.array(value.encode() if t is str else value, dtype=object)
    if t is complex:
        return np.complex128(value)
    if isinstance(value, (np.ndarray, np.generic)):
        return _normalise_numpy(value)
    if isinstance(value, (list, tuple)):
        return _sequence_to_array(value)
    if isinstance(value, TensorShape):
        if not value.is_fully_defined():
            raise ValueError(f"Cannot convert a partially known TensorShape {value} to a Tensor.")
        return np.array(value.as_list(), dtype=np.int32)
    if isinstance(value, (int, float)):  # bool/int/float subclasses (e.g. IntEnum)
        return _python_to_array(t.__mro__[-2](value) if not isinstance(value, bool) else bool(value))
    raise _unsupported(value)


def _normalise_numpy(value):
    kind = value.dtype.kind
    if kind in "US":
        return np.vectorize(lambda s: s.encode() if isinstance(s, str) else bytes(s), otypes=[object])(value) \
            if value.ndim else np.array(value.item().encode() if kind == "U" else value.item(), dtype=object)
    if kind == "O":
        return np.vectorize(lambda s: s.encode() if isinstance(s, str) else s, otypes=[object])(value) \
            if value.ndim else np.array(_encode(value.item()), dtype=object)
    if value.dtype not in _dt.FROM_NUMPY:
        raise _unsupported(value)
    return value


def _encode(s):
    return s.encode() if isinstance(s, str) else s


def _sequence_to_array(value):
    leaves = _leaves(value, [])
    if any(isinstance(v, Tensor) or hasattr(v, "__tf_tensor__") for v in leaves):
        return None  # packing tensors is the job of `stack`; callers handle None
    if leaves and all(type(v) in (str, bytes) for v in leaves):
        arr = np.array(value, dtype=object)
        return np.vectorize(_encode, otypes=[object])(arr) if arr.ndim else arr
    try:
        arr = np.array(value)
    except ValueError:
        raise ValueError("Can't convert non-rectangular Python sequence to Tensor.") from None
    if arr.dtype == _OBJECT:
        if any(v is None for v in leaves):
            raise _unsupported(value)
        raise ValueError("Can't convert non-rectangular Python sequence to Tensor.")
    kind = arr.dtype.kind
    has_numpy = any(isinstance(v, (np.generic, np.ndarray)) for v in leaves)
    if kind == "i" and not has_numpy:
        if arr.size == 0 or (arr.min() >= _INT32_MIN and arr.max() <= _INT32_MAX):
            return arr.astype(np.int32)
    elif kind == "f" and not has_numpy:
        return arr.astype(np.float32)
    elif kind in "US":
        return _normalise_numpy(arr)
    elif arr.size == 0 and not has_numpy:
        return arr.astype(np.float32)
    return _normalise_numpy(arr)


def _cast_python(value, dtype):
    """Converts a Python value to `dtype` the way TensorFlow does, or raises its TypeError."""
    np_dtype = dtype._np
    leaves = _leaves(value, []) if isinstance(value, (list, tuple)) else [value]
    ok = True
    if dtype is _dt.string:
        ok = all(isinstance(v, (str, bytes, np.str_, np.bytes_)) for v in leaves)
    elif dtype.is_integer:
        ok = all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) or isinstance(v, (bool, np.bool_))
                 for v in leaves)
    elif dtype.is_bool:
        ok = all(isinstance(v, (bool, np.bool_)) for v in leaves)
    elif dtype.is_floating:
        ok = all(isinstance(v, (int, float, np.integer, np.floating, bool, np.bool_)) for v in leaves)
    if not ok or dtype in (_dt.resource, _dt.variant):
        raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {dtype.name}")
    if dtype is _dt.string:
        arr = np.array(value, dtype=object)
        return np.vectorize(_encode, otypes=[object])(arr) if arr.ndim else np.array(_encode(value), dtype=object)
    try:
        if dtype.is_integer:
            return np.array(value).astype(np_dtype)  # wraps out-of-range values, like TensorFlow
        return np.array(value, dtype=np_dtype)
    except (ValueError, OverflowError, TypeError):
        raise ValueError("Can't convert non-rectangular Python sequence to Tensor.") from None


def to_array(value, dtype=None):
    """The NumPy array TensorFlow's conversion rules give for a non-tensor value."""
    if dtype is None:
        arr = _python_to_array(value)
        if arr is None:
            raise _unsupported(value)
        return arr
    dtype = _dt.as_dtype(dtype)
    if isinstance(value, (np.ndarray, np.generic)):
        arr = _normalise_numpy(value)
        if arr.dtype != dtype._np:
            if dtype is _dt.string or arr.dtype == _OBJECT:
                raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {dtype.name}")
            arr = arr.astype(dtype._np)
        return arr
    if isinstance(value, TensorShape):
        return to_array(_python_to_array(value), dtype)
    if value is None or not isinstance(value, (int, float, bool, complex, str, bytes, list, tuple)):
        raise _unsupported(value)
    if type(value) is int and dtype.is_integer and type(value) is not bool:
        return np.array(value).astype(dtype._np)
    return _cast_python(value, dtype)


def constant(value, dtype=None, shape=None, name="Const"):
    """`tf.constant`: a tensor holding `value` (optionally cast to `dtype` and broadcast to `shape`)."""
    if isinstance(value, Tensor) or hasattr(value, "__tf_tensor__"):
        t = convert_to_tensor(value)
        if dtype is not None and _dt.as_dtype(dtype) is not t.dtype:
            from . import math as _math
            t = _math.cast(t, dtype)
        if shape is not None:
            from . import array as _array
            t = _array.reshape(t, shape)
        return t
    if isinstance(value, (list, tuple)) and _sequence_has_tensors(value):
        from . import array as _array
        t = _array.stack([constant(v) for v in value])
        return constant(t, dtype, shape)
    arr = to_array(value, dtype)
    if shape is not None:
        shape = tuple(TensorShape(shape).as_list())
        size = int(np.prod(shape, dtype=np.int64))
        if arr.size == size:
            arr = np.reshape(arr, shape)
        elif arr.size == 1:
            arr = np.broadcast_to(arr, shape).copy()
        else:
            raise TypeError(f"Eager execution of tf.constant with unsupported shape. Tensor {value!r} "
                            f"(converted from {value!r}) has {arr.size} elements, but got `shape` {shape} "
                            f"with {size} elements).")
    return _wrap_constant(arr, name)


def _sequence_has_tensors(value):
    return any(isinstance(v, Tensor) or hasattr(v, "__tf_tensor__") for v in _leaves(value, []))


def _wrap_constant(arr, name="Const"):
    graph = _state.graph
    if graph is not None:
        return graph.add_constant(arr, name)
    if arr.dtype == _OBJECT and not isinstance(arr, np.ndarray):
        arr = np.array(arr, dtype=object)
    return EagerTensor(arr)


def convert_to_tensor(value, dtype=None, name=None, dtype_hint=None, preferred_dtype=None):
    """`tf.convert_to_tensor`: tensors pass through (dtype checked); other values become constants."""
    if isinstance(value, Tensor):
        if dtype is not None:
            dtype = _dt.as_dtype(dtype)
            if value.dtype is not dtype:
                raise ValueError(f"Tensor conversion requested dtype {dtype.name} for Tensor with dtype "
                                 f"{value.dtype.name}: {value!r}")
        return value
    convert = getattr(value, "__tf_tensor__", None)
    if convert is not None and not isinstance(value, type):
        return convert(dtype, name)
    hint = dtype_hint if dtype_hint is not None else preferred_dtype
    if dtype is None and hint is not None:
        try:
            return _wrap_constant(to_array(value, hint), name or "Const")
        except (TypeError, ValueError):
            pass
    if isinstance(value, (list, tuple)) and _sequence_has_tensors(value):
        return constant(value, dtype)
    return _wrap_constant(to_array(value, dtype), name or "Const")


def binary_operands(x, y):
    """Converts the operands of a binary op: a Python value next to a tensor takes the tensor's dtype."""
    if isinstance(x, Tensor):
        if not isinstance(y, Tensor):
            y = _operand_like(y, x)
        return x, y
    if isinstance(y, Tensor):
        return _operand_like(x, y), y
    x = convert_to_tensor(x)
    return x, _operand_like(y, x)


def _operand_like(value, other):
    convert = getattr(value, "__tf_tensor__", None)
    if convert is not None:
        return convert(None, None)
    return convert_to_tensor(value, dtype=other.dtype)


def convert_n(values, dtype=None):
    """Converts a list of values that must share one dtype (the first tensor's, if any)."""
    if dtype is None:
        for v in values:
            if isinstance(v, Tensor) or hasattr(v, "__tf_tensor__"):
                dtype = convert_to_tensor(v).dtype
                break
    return [convert_to_tensor(v, dtype=dtype) if not isinstance(v, Tensor) else v for v in values]


API = {"": ["constant", "convert_to_tensor"]}
