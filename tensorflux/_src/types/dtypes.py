"""TensorFlow's DType objects, backed by NumPy dtypes.

Invariant: there is exactly one DType object per TensorFlow dtype, so DTypes compare by identity and
`as_dtype` is a dict lookup; even `DType(1)` returns the canonical `float32`. `tf.string` is stored in
NumPy as an object array of `bytes`; `tf.resource` and `tf.variant` hold Python objects.

    >>> as_dtype("float32") is float32
    True
"""
import numpy as np
import ml_dtypes

__all__ = [
    "DType", "as_dtype", "float16", "half", "float32", "float64", "double", "bfloat16", "int8", "int16",
    "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool", "string", "complex64", "complex128",
    "resource", "variant", "qint8", "quint8", "qint16", "quint16", "qint32", "QUANTIZED_DTYPES",
]

_builtin_bool = bool


class DType:
    """A TensorFlow element type (`tf.float32`, `tf.int32`, …).

    `DType(type_enum)` is TensorFlow's constructor from a DataType enum; it returns the canonical object.
    """

    __slots__ = ("_name", "_np", "_enum", "is_floating", "is_integer", "is_complex", "is_bool",
                 "is_unsigned", "is_quantized", "__weakref__")

    def __new__(cls, type_enum):
        found = _BY_ENUM.get(int(type_enum))
        if found is None:
            raise TypeError(f"{type_enum} does not correspond to a valid tensorflow::DataType")
        return found

    @classmethod
    def _define(cls, name, np_dtype, enum, quantized=False):
        self = object.__new__(cls)
        self._name = name
        self._np = np_dtype
        self._enum = enum
        kind = "V" if quantized else np_dtype.kind
        self.is_floating = kind == "f" or name == "bfloat16"
        self.is_integer = kind in "iu" and name not in ("resource", "variant")
        self.is_complex = kind == "c"
        self.is_bool = kind == "b"
        self.is_unsigned = kind == "u"
        self.is_quantized = quantized
        return self

    @property
    def name(self):
        return self._name

    @property
    def as_numpy_dtype(self):
        """The NumPy scalar type (`np.float32`, …); `object` for strings; a record dtype when quantized."""
        if self._enum in (20, 21):  # resource, variant: TensorFlow has no NumPy equivalent
            raise KeyError(self._enum)
        if self.is_quantized:
            return self._np
        if self._enum == 7:
            return object
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
        return self._enum not in (20, 21)

    @property
    def is_numeric(self):
        return self.is_floating or self.is_integer or self.is_complex or self.is_quantized

    @property
    def size(self):
        return 0 if self._np.kind == "O" else self._np.itemsize

    @property
    def min(self):
        """The smallest representable value; TypeError for dtypes without one (bool, string, complex…)."""
        return self._limit("minimum", lambda info: info.min)

    @property
    def max(self):
        """The largest representable value; TypeError for dtypes without one (bool, string, complex…)."""
        return self._limit("maximum", lambda info: info.max)

    def _limit(self, which, pick):
        if self._enum in (20, 21):
            raise TypeError(f"Cannot find {which} value of {self}.")
        if self.is_quantized:
            raise TypeError(f"Cannot find {which} value of {self} with quantized type {self}.")
        if self.is_floating:
            return pick(ml_dtypes.finfo(self._np))
        if self.is_integer:
            return pick(np.iinfo(self._np))
        raise TypeError(f"Cannot find {which} value of {self} with type {self}.")

    @property
    def limits(self):
        """TensorFlow's image-intensity range `(0, max)`: floats are (0, 1); others as listed below."""
        top = _INTENSITY_MAX.get(self._name)
        if top is None:
            if not self.is_numpy_compatible:
                raise KeyError(self._enum)
            raise ValueError(f"{self} does not have defined limits.")
        return 0, top

    def is_compatible_with(self, other):
        return as_dtype(other) is self

    # TraceType protocol: a dtype is only a subtype of itself.
    def is_subtype_of(self, other):
        return other is self

    def most_specific_common_supertype(self, others):
        return self if all(o is self for o in others) else None

    def __eq__(self, other):
        if type(other) is DType:
            return other is self
        if other is None:
            return False
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

    def __str__(self):
        return f"<dtype: '{self._name}'>"

    def __reduce__(self):
        return as_dtype, (self._name,)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


float16 = half = DType._define("float16", np.dtype(np.float16), 19)
float32 = DType._define("float32", np.dtype(np.float32), 1)
float64 = double = DType._define("float64", np.dtype(np.float64), 2)
bfloat16 = DType._define("bfloat16", np.dtype(ml_dtypes.bfloat16), 14)
int8 = DType._define("int8", np.dtype(np.int8), 6)
int16 = DType._define("int16", np.dtype(np.int16), 5)
int32 = DType._define("int32", np.dtype(np.int32), 3)
int64 = DType._define("int64", np.dtype(np.int64), 9)
uint8 = DType._define("uint8", np.dtype(np.uint8), 4)
uint16 = DType._define("uint16", np.dtype(np.uint16), 17)
uint32 = DType._define("uint32", np.dtype(np.uint32), 22)
uint64 = DType._define("uint64", np.dtype(np.uint64), 23)
bool = DType._define("bool", np.dtype(np.bool_), 10)  # noqa: A001 - TensorFlow's public name
string = DType._define("string", np.dtype(object), 7)
complex64 = DType._define("complex64", np.dtype(np.complex64), 8)
complex128 = DType._define("complex128", np.dtype(np.complex128), 18)
resource = DType._define("resource", np.dtype(object), 20)
variant = DType._define("variant", np.dtype(object), 21)
# Quantized types are names only (no kernels compute with them); their NumPy form is TensorFlow's record dtype.
qint8 = DType._define("qint8", np.dtype([("qint8", np.int8)]), 11, quantized=True)
quint8 = DType._define("quint8", np.dtype([("quint8", np.uint8)]), 12, quantized=True)
qint16 = DType._define("qint16", np.dtype([("qint16", np.int16)]), 15, quantized=True)
quint16 = DType._define("quint16", np.dtype([("quint16", np.uint16)]), 16, quantized=True)
qint32 = DType._define("qint32", np.dtype([("qint32", np.int32)]), 13, quantized=True)
QUANTIZED_DTYPES = frozenset((qint8, quint8, qint16, quint16, qint32))

ALL = (float16, float32, float64, bfloat16, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
       bool, string, complex64, complex128, resource, variant, qint8, quint8, qint16, quint16, qint32)
_BY_NAME = {d.name: d for d in ALL}
_BY_NAME.update(half=float16, double=float64, float=float32)
_BY_ENUM = {d.as_datatype_enum: d for d in ALL}
# `limits` is TensorFlow's intensity range table: it has no entry for float16, bfloat16 or complex.
_INTENSITY_MAX = {"bool": True, "float32": 1, "float64": 1,
                  **{d.name: int(np.iinfo(d._np).max) for d in ALL if d.is_integer}}

# NumPy dtype → DType for array-backed tensors. Object arrays are strings (resources use their own class).
FROM_NUMPY = {d._np: d for d in (float16, float32, float64, bfloat16, int8, int16, int32, int64, uint8,
                                 uint16, uint32, uint64, bool, complex64, complex128)}
FROM_NUMPY[np.dtype(object)] = string
_FROM_RECORD = {d._np: d for d in QUANTIZED_DTYPES}
# Python types TensorFlow accepts as dtypes (int, str, complex are deliberately not among them).
_PY_TYPES = {float: float32, _builtin_bool: bool, object: string}


def _from_numpy_dtype(np_dtype):
    if np_dtype.kind in "US":
        return string
    found = FROM_NUMPY.get(np_dtype)
    if found is None and np_dtype.byteorder not in "=|":
        found = FROM_NUMPY.get(np_dtype.newbyteorder("="))
    if found is None and np_dtype.kind == "V":
        found = _FROM_RECORD.get(np_dtype)
    return found


def as_dtype(type_value):
    """Converts a DType, a name, a DataType enum, a NumPy dtype/type or `float`/`bool`/`object`.

    Raises TypeError naming the value for anything else, as TensorFlow does.
    """
    if type(type_value) is DType:
        return type_value
    if isinstance(type_value, np.dtype):
        found = _from_numpy_dtype(type_value)
        if found is not None:
            return found
    else:
        try:
            found = _BY_NAME.get(type_value) if isinstance(type_value, str) else _BY_ENUM.get(type_value)
            if found is None:
                found = _PY_TYPES.get(type_value)
        except TypeError:  # unhashable
            found = None
        if found is not None:
            return found
        if isinstance(type_value, type) and issubclass(type_value, np.generic):
            try:
                found = _from_numpy_dtype(np.dtype(type_value))
            except TypeError:
                found = None
            if found is not None:
                return found
        else:
            np_dtype = getattr(type_value, "dtype", None)  # NumPy arrays and scalars
            if isinstance(np_dtype, np.dtype):
                found = _from_numpy_dtype(np_dtype)
                if found is not None:
                    return found
    raise TypeError(f"Cannot convert the argument `type_value`: {type_value!r} to a TensorFlow DType.")
