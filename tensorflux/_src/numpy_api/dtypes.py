"""Conversion to tensors and dtype promotion as TensorFlow's `tnp` does them (NumPy's rules on tensors).

Python numbers are weak: `tnp.add(int32_tensor, 1)` stays int32 and `tnp.add(float32_tensor, 1.5)` stays
float32, while `tnp.add(int32_tensor, 1.5)` is float64, NumPy's `result_type` for a strong int32 and a
weak float. Nested Python lists are weak too (TensorFlow's tnp treats them like the scalars they hold).
Alone, a Python float becomes float64 and an int int64 (NumPy's defaults), or float32 / int64 once
`experimental_enable_numpy_behavior(prefer_float32=True)` has been called.
"""
import numpy as np

from ..types import dtypes as _dt
from ._tf import Tensor, convert, tf

_PYTHON_NUMBERS = (bool, int, float, complex)
_settings = {"prefer_float32": False}

bool_ = np.bool_
int_ = np.int64
float_ = np.float64
complex_ = np.complex128
string_ = np.bytes_
unicode_ = np.str_
object_ = np.object_
inexact = np.inexact
int8, int16, int32, int64 = np.int8, np.int16, np.int32, np.int64
uint8, uint16, uint32, uint64 = np.uint8, np.uint16, np.uint32, np.uint64
float16, float32, float64 = np.float16, np.float32, np.float64
complex64, complex128 = np.complex64, np.complex128
e, pi, inf = np.e, np.pi, np.inf
newaxis = None
issubdtype = np.issubdtype


def set_prefer_float32(prefer):
    _settings["prefer_float32"] = bool(prefer)


def default_float():
    """The dtype a Python float (and an integer made floating) gets: float64, or float32 when preferred."""
    return np.dtype(np.float32 if _settings["prefer_float32"] else np.float64)


def is_tensor_like(x):
    return isinstance(x, Tensor) or (hasattr(x, "__tf_tensor__") and not isinstance(x, type))


def np_dtype(dtype):
    """`dtype` (a tf.DType, NumPy type, Python type or name) as a NumPy dtype; None stays None."""
    if dtype is None:
        return None
    if isinstance(dtype, _dt.DType):
        return np.dtype(dtype.as_numpy_dtype) if dtype != _dt.string else np.dtype(object)
    if dtype is float:
        return default_float()
    return np.dtype(dtype)


def tf_dtype(dtype):
    dtype = np_dtype(dtype)
    return _dt.string if dtype.kind in "OSU" else _dt.as_dtype(dtype)


def _weak_of(x):
    """The Python number standing for `x` in NumPy's promotion when `x` is weak (a Python number or a list
    of them), else None."""
    if type(x) in _PYTHON_NUMBERS:
        return x
    if isinstance(x, (list, tuple)) and x and not any(is_tensor_like(v) for v in _leaves(x)):
        kind = np.asarray(x).dtype.kind
        return {"b": False, "i": 0, "u": 0, "f": 0.0, "c": 0j}.get(kind)
    return None


def _leaves(x):
    for v in x:
        if isinstance(v, (list, tuple)):
            yield from _leaves(v)
        else:
            yield v


def dtype_of(x):
    """The NumPy dtype `x` has (or will have as a tensor)."""
    if is_tensor_like(x):
        return np_dtype(x.dtype)
    if isinstance(x, (np.ndarray, np.generic)):
        return x.dtype
    if isinstance(x, _dt.DType) or isinstance(x, (type, np.dtype, str)):
        return np_dtype(x)
    return to_tensor(x).dtype.as_numpy_dtype if not isinstance(x, (list, tuple)) else \
        np_dtype(to_tensor(x).dtype)


def result_type(*arrays_and_dtypes):
    """`tnp.result_type`: NumPy's promotion of tensors, arrays, dtypes and (weak) Python numbers, as a tf.DType."""
    strong, weak = [], []
    for x in arrays_and_dtypes:
        w = _weak_of(x)
        if w is None:
            strong.append(dtype_of(x))
        else:
            weak.append(w)
    if not strong:
        found = np.result_type(*weak)
        if found == np.float64:
            found = default_float()
        return tf_dtype(found)
    return tf_dtype(np.result_type(*strong, *weak))


def promote_types(type1, type2):
    """`tnp.promote_types`: the NumPy dtype both types convert to safely."""
    return np.promote_types(np_dtype(type1), np_dtype(type2))


def finfo(dtype):
    """`tnp.finfo`: machine limits of a floating dtype (a tf.DType, NumPy type or tensor)."""
    return np.finfo(dtype_of(dtype) if not isinstance(dtype, (type, np.dtype, str)) else np_dtype(dtype))


def iinfo(int_type):
    """`tnp.iinfo`: machine limits of an integer dtype (a tf.DType, NumPy type or tensor)."""
    return np.iinfo(dtype_of(int_type) if not isinstance(int_type, (type, np.dtype, str)) else np_dtype(int_type))


def to_tensor(x, dtype=None):
    """`x` as a tensor of `dtype` (inferred as NumPy does when None)."""
    wanted = np_dtype(dtype)
    if is_tensor_like(x):
        t = convert.convert_to_tensor(x)
        return t if wanted is None or np_dtype(t.dtype) == wanted else tf.cast(t, tf_dtype(wanted))
    if isinstance(x, (list, tuple)) and any(is_tensor_like(v) for v in _leaves(x)):
        parts = [to_tensor(v) for v in x]
        common = wanted if wanted is not None else np_dtype(result_type(*parts))
        return tf.stack([to_tensor(p, common) for p in parts])
    python_float = wanted is None and _weak_of(x) is not None
    arr = np.asarray(x, dtype=wanted if wanted is None or wanted.kind != "O" else None)
    if python_float and arr.dtype == np.float64:
        arr = arr.astype(default_float())
    elif python_float and arr.dtype == np.complex128 and _settings["prefer_float32"]:
        arr = arr.astype(np.complex64)
    if arr.dtype.kind in "US":
        return convert.constant(arr.astype(object) if arr.dtype.kind == "U" else arr)
    return convert.constant(arr)


def promoted(*args):
    """The arguments as tensors of their common (promoted) dtype."""
    common = np_dtype(result_type(*args))
    return [to_tensor(a, common) for a in args]


def floating(x):
    """`x` as a tensor that is floating or complex: integers and booleans become the default float."""
    t = to_tensor(x)
    if t.dtype.is_floating or t.dtype.is_complex:
        return t
    return tf.cast(t, tf_dtype(default_float()))


API = {"experimental.numpy": [
    "bool_", "int_", "float_", "complex_", "string_", "unicode_", "object_", "inexact", "int8", "int16", "int32",
    "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32", "float64", "complex64", "complex128",
    "e", "pi", "inf", "newaxis", "issubdtype", "result_type", "promote_types", "finfo", "iinfo"]}
