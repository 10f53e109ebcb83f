"""TensorFlow's DType objects, backed by NumPy dtypes.

Invariant: there is exactly one DType object per TensorFlow dtype, so DTypes compare by identity and
`as_dtype` is a dict lookup. `tf.string` is stored in NumPy as an object array of `bytes`;
`tf.resource` and `tf.variant` hold Python objects.

    >>> as_dtype("float32") is float32
    True
"""
import numpy as np
import ml_dtypes

__all__ = [
    "DType", "as_dtype", "float16", "half", "float32", "float64", "double", "bfloat16", "int8", "int16",
    "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool", "string", "complex64", "complex128",
    "resource", "variant", "qint8", "quint8", "qint32",
]

_builtin_bool = bool


class DType:
    """A TensorFlow element type (`tf.float32`, `tf.int32`, …)."""

    __slots__ = ("_name", "_np", "_enum", "is_floating", "is_integer", "is_complex", "is_bool",
                 "is_unsigned", "is_quantized", "__weakref__")

    def __init__(self, name, np_dtype, enum):
        self._name = name
        self._np = np_dtype
        self._enum = enum
        kind = np_dtype.kind if np_dtype is not None else "O"
        self.is_floating = kind == "f" or name == "bfloat16"
        self.is_integer = kind in "iu" and name not in ("resource", "variant")
        self.is_complex = kind == "c"
        self.is_bool = kind == "b"
        self.is_unsigned = kind == "u" or name == "bool"
        self.is_quantized = False

    @property
    def name(self):
        return self._name

    @property
    def as_numpy_dtype(self):
        """The NumPy scalar type (`np.float32`, …); `object` for string, resource and variant."""
        return self._np.type

    @property
    def as_datatype_enum(self):
        return self._enum

    @property
    def base_dtype(self):
        return self

    @property
    def real_dtype(self):
        if self is complex64:
            return float32
        if self is complex128:
            return float64
        return self

    @property
    def is_numpy_compatible(self):
        return self._name not in ("resource", "variant")

    @property
    def size(self):
        return self._np.itemsize if self._np.kind != "O" else 1

    @property
    def min(self):
        """The smallest representable value; raises TypeError for non-numeric dtypes."""
        return self._limit(lambda info: info.min)

    @property
    def max(self):
        """The largest representable value; raises TypeError for non-numeric dtypes."""
        return self._limit(lambda info: info.max)

    def _limit(self, pick):
        if self.is_bool:
            return pick(_BoolInfo)
        if self.is_floating:
            return pick(ml_dtypes.finfo(self._np))
        if self.is_integer:
            return pick(np.iinfo(self._np))
        raise TypeError(f"Cannot find minimum value of {self}.")

    @property
    def limits(self):
        return (self.min, self.max)

    def is_compatible_with(self, other):
        return as_dtype(other) is self

    def __eq__(self, other):
        if other is None:
            return False
        if type(other) is DType:
            return other is self
        try:
            return as_dtype(other) is self
        except TypeError:
            return False

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return self._enum

    def __repr__(self):
        return "tf." + self._name

    def __reduce__(self):
        return as_dtype, (self._name,)


class _BoolInfo:
    min = False
    max = True


float16 = half = DType("float16", np.dtype(np.float16), 19)
float32 = DType("float32", np.dtype(np.float32), 1)
float64 = double = DType("float64", np.dtype(np.float64), 2)
bfloat16 = DType("bfloat16", np.dtype(ml_dtypes.bfloat16), 14)
int8 = DType("int8", np.dtype(np.int8), 6)
int16 = DType("int16", np.dtype(np.int16), 5)
int32 = DType("int32", np.dtype(np.int32), 3)
int64 = DType("int64", np.dtype(np.int64), 9)
uint8 = DType("uint8", np.dtype(np.uint8), 4)
uint16 = DType("uint16", np.dtype(np.uint16), 17)
uint32 = DType("uint32", np.dtype(np.uint32), 22)
uint64 = DType("uint64", np.dtype(np.uint64), 23)
bool = DType("bool", np.dtype(np.bool_), 10)  # noqa: A001 - TensorFlow's public name
string = DType("string", np.dtype(object), 7)
complex64 = DType("complex64", np.dtype(np.complex64), 8)
complex128 = DType("complex128", np.dtype(np.complex128), 18)
resource = DType("resource", np.dtype(object), 20)
variant = DType("variant", np.dtype(object), 21)
# Quantized types exist only as names, as in TensorFlow's Python API they are rarely computed with.
qint8 = DType("qint8", np.dtype(np.int8), 11)
quint8 = DType("quint8", np.dtype(np.uint8), 12)
qint32 = DType("qint32", np.dtype(np.int32), 13)
for _q in (qint8, quint8, qint32):
    _q.is_quantized = True
    _q.is_integer = False

ALL = (float16, float32, float64, bfloat16, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
       bool, string, complex64, complex128, resource, variant, qint8, quint8, qint32)
_BY_NAME = {d.name: d for d in ALL}
_BY_NAME.update(half=float16, double=float64)
_BY_ENUM = {d.as_datatype_enum: d for d in ALL}

# NumPy dtype → DType for array-backed tensors. Object arrays are strings (resources use their own class).
FROM_NUMPY = {d._np: d for d in (float16, float32, float64, bfloat16, int8, int16, int32, int64, uint8,
                                 uint16, uint32, uint64, bool, complex64, complex128)}
FROM_NUMPY[np.dtype(object)] = string
FROM_NUMPY_TYPE = {np.dtype(k).type: v for k, v in FROM_NUMPY.items()}
_PY_TYPES = {float: float32, int: int32, _builtin_bool: bool, str: string, bytes: string, complex: complex128}


def as_dtype(type_value):
    """Converts a DType, a name, a NumPy dtype or type, or a Python type to a DType.

    Raises TypeError naming the value when it is none of those, as TensorFlow does.
    """
    if type(type_value) is DType:
        return type_value
    try:
        found = _BY_NAME.get(type_value) if isinstance(type_value, str) else None
        if found is not None:
            return found
        if isinstance(type_value, np.dtype):
            if type_value.kind in "US":
                return string
            return FROM_NUMPY[type_value]
        if isinstance(type_value, type):
            if type_value in _PY_TYPES:
                return _PY_TYPES[type_value]
            if issubclass(type_value, (np.str_, np.bytes_)):
                return string
            return FROM_NUMPY_TYPE[type_value]
        if isinstance(type_value, int) and type_value in _BY_ENUM:
            return _BY_ENUM[type_value]
        real = getattr(type_value, "dtype", None)
        if isinstance(real, DType):
            return real
    except (KeyError, TypeError):
        pass
    raise TypeError(f"Cannot convert the argument `type_value`: {type_value!r} to a TensorFlow DType.")
