"""Conversion of Python and NumPy values to tensors, with TensorFlow's rules.

Python values (scalars and nested sequences) follow TensorFlow's sequence converter:
- the shape comes from the first element at each level, every other sequence must match it;
- the element type comes from the FIRST leaf: int → int32 (int64 when a value does not fit int32),
  float → float32, bool → bool, str/bytes → string, complex → complex128, a NumPy float scalar → its own
  dtype; other leaves must be convertible to that type (an int list holding a float becomes float32;
  anything else is "mixed types");
- with `dtype=`, that dtype's converter is tried first; otherwise the inferred result is cast when the
  kinds are compatible (int → float, float → complex…) and TypeError is raised when they are not.
NumPy arrays and scalars keep their dtype (unicode/bytes/object-of-str → string) and cast freely.

    >>> convert_to_tensor([1, 2.5]).dtype
    tf.float32
"""
import operator
import warnings

import numpy as np

from ..framework.context import state as _state
from ..framework.tensor import EagerTensor, Tensor
from ..types import dtypes as _dt
from ..types.shape import Dimension, TensorShape
from .conversion_ops import cast_tensor, pack
from .registry import dtype_error_name

__all__ = ["constant", "convert_to_tensor", "binary_operands", "to_array", "convert_n"]

_INT32_MIN, _INT32_MAX = -(2 ** 31), 2 ** 31 - 1
_INT64_MIN, _INT64_MAX = -(2 ** 63), 2 ** 63 - 1
_UINT64_MAX = 2 ** 64 - 1
_OBJECT = np.dtype(object)
_INT64 = np.dtype(np.int64)
_FLOAT64 = np.dtype(np.float64)

_MIXED = "Can't convert Python sequence with mixed types to Tensor."
_NON_RECTANGULAR = "Can't convert non-rectangular Python sequence to Tensor."
_INT_RANGE = "Can't convert Python sequence with out-of-range integer to Tensor."
_FLOAT_RANGE = "Can't convert Python sequence with a value out of range for a double-precision float."

# NumPy kinds TensorFlow cannot hold, by the name its error message uses.
_NUMPY_TYPE_NAMES = {"M": "NPY_DATETIME", "m": "NPY_TIMEDELTA"}
_LONG_DOUBLES = {np.dtype(np.longdouble): "NPY_LONGDOUBLE", np.dtype(np.clongdouble): "NPY_CLONGDOUBLE"}


def _unsupported(value):
    # TensorFlow's graph-mode converter (tensor_util.make_tensor_proto) words this differently from the
    # eager one, and with another class for everything but None.
    if _state.graph is not None:
        if value is None:
            return ValueError("None values not supported.")
        return TypeError(f"Failed to convert elements of {value!r} to Tensor. Consider casting elements to a "
                         f"supported type.")
    return ValueError(f"Attempt to convert a value ({value!r}) with an unsupported type ({type(value)}) to a "
                      f"Tensor.")


def _cannot_convert(value, dtype):
    return TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {dtype_error_name(dtype)}")


class _Failed(Exception):
    """A converter rejected the leaves; `message` is the ValueError TensorFlow reports if nothing else works."""

    def __init__(self, message, found_float=False):
        super().__init__(message)
        self.message = message
        self.found_float = found_float


def _is_tensor_like(x):
    return isinstance(x, Tensor) or hasattr(x, "__tf_tensor__")


# -- Python sequences: shape and leaves ------------------------------------------------------------------------
def _is_sequence(x):
    """TensorFlow's notion of a sequence: anything indexable with a length, except strings and mappings."""
    if isinstance(x, (list, tuple)):
        return True
    if isinstance(x, (str, bytes, dict)) or isinstance(x, np.generic):
        return False
    cls = type(x)
    return hasattr(cls, "__getitem__") and hasattr(cls, "__len__") and not hasattr(cls, "keys")


def _scalar_of(x):
    """A 0-d NumPy array stands for its element, as in TensorFlow."""
    if isinstance(x, np.ndarray) and x.ndim == 0:
        return x[()]
    return x


def _infer_shape(value):
    """(shape, first_leaf) following first elements; first_leaf is None when some dimension is 0."""
    shape = []
    x = value
    while True:
        x = _scalar_of(x)
        if isinstance(x, (str, bytes)):
            return shape, x
        if isinstance(x, np.ndarray):
            shape.extend(x.shape)
            return shape, (x.flat[0] if x.size else None)
        if isinstance(x, Tensor):  # TensorFlow walks into the tensor and asks a scalar one for its len()
            raise ValueError("TypeError: Scalar tensor has no `len()`")
        if not _is_sequence(x):
            return shape, x
        n = len(x)
        shape.append(n)
        if n == 0:
            return shape, None
        x = x[0]


def _flat_leaves(value, shape):
    """The leaves of a rectangular nested sequence, row-major; raises TensorFlow's shape/type errors."""
    leaves = []
    rank = len(shape)

    def walk(x, depth):
        x = _scalar_of(x)
        if isinstance(x, np.ndarray):
            if x.shape != tuple(shape[depth:]):
                raise ValueError(_MIXED if x.ndim > rank - depth else _NON_RECTANGULAR)
            leaves.extend(x.ravel().tolist() if x.dtype == _OBJECT else x.ravel())
            return
        # A str where a sequence is expected is one (of characters), as in TensorFlow.
        if not isinstance(x, (str, bytes)) and not _is_sequence(x):
            raise ValueError(_NON_RECTANGULAR)
        if len(x) != shape[depth]:
            raise ValueError(_NON_RECTANGULAR)
        if depth == rank - 1:
            leaves.extend(x)
        else:
            for child in x:
                walk(child, depth + 1)

    if rank == 0:
        return [_scalar_of(value)]
    walk(value, 0)
    if any(type(v) is np.ndarray for v in leaves):
        leaves = [_scalar_of(v) for v in leaves]
    return leaves


# -- converters: one per TensorFlow element kind --------------------------------------------------------------
def _check_types(leaves, accept):
    """Raises _Failed(mixed) unless `accept(type)` holds for every leaf type; returns the set of types."""
    types = set(map(type, leaves))
    for t in types:
        verdict = accept(t)
        if verdict is not True:
            raise _Failed(_MIXED, found_float=verdict == "float")
    return types


def _accept_int(t):
    if issubclass(t, (int, np.integer)) and not issubclass(t, Tensor):
        return True
    if issubclass(t, (float, np.floating)):
        return "float"
    return t is Dimension


def _ints_to_int64(leaves, types):
    if Dimension in types:
        leaves = [operator.index(v) for v in leaves]
    try:
        arr = np.array(leaves, dtype=_INT64)
    except (OverflowError, TypeError):
        raise _Failed(_INT_RANGE) from None
    if np.uint64 in types and any(type(v) is np.uint64 and v > _INT64_MAX for v in leaves):
        raise _Failed(_INT_RANGE)
    return arr


def _convert_int(leaves, narrow):
    """Python ints: int32 when every value fits (or when `narrow` is False, always int64)."""
    arr = _ints_to_int64(leaves, _check_types(leaves, _accept_int))
    if narrow and (arr.size == 0 or (arr.min() >= _INT32_MIN and arr.max() <= _INT32_MAX)):
        return arr.astype(np.int32)
    return arr


def _convert_int32_requested(leaves):
    arr = _convert_int(leaves, narrow=True)
    if arr.dtype != np.int32:
        raise _Failed(_INT_RANGE)  # TensorFlow retries through int64 and casts (wrapping)
    return arr


def _convert_uint64_requested(leaves):
    types = _check_types(leaves, _accept_int)
    if Dimension in types:
        leaves = [operator.index(v) for v in leaves]
    if any(v < 0 or v > _UINT64_MAX for v in leaves):
        raise _Failed(_INT_RANGE)
    return np.array(leaves, dtype=np.uint64)


def _accept_float(t):
    if t is np.bool_ or issubclass(t, (complex, np.complexfloating, str, bytes)) or issubclass(t, Tensor):
        return False
    return issubclass(t, (float, int, np.floating, np.integer)) or t is Dimension


def _convert_float(leaves, np_dtype, check_range):
    """Python floats (and ints) as `np_dtype`; finite values that overflow it are an error unless cast."""
    types = _check_types(leaves, _accept_float)
    if Dimension in types:
        leaves = [operator.index(v) if type(v) is Dimension else v for v in leaves]
    try:
        arr = np.array(leaves, dtype=_FLOAT64)
    except OverflowError:
        raise _Failed(_FLOAT_RANGE) from None
    if np_dtype == _FLOAT64:
        return arr
    with np.errstate(over="ignore"):
        out = arr.astype(np_dtype)
    if check_range and np.isinf(out).any() and not np.array_equal(np.isinf(out), np.isinf(arr)):
        raise _Failed(_FLOAT_RANGE)
    return out


def _accept_complex(t):
    if t is np.bool_ or issubclass(t, (str, bytes)) or issubclass(t, Tensor):
        return False
    return issubclass(t, (complex, float, int, np.number)) or t is Dimension


def _convert_complex(leaves):
    types = _check_types(leaves, _accept_complex)
    if Dimension in types:
        leaves = [operator.index(v) if type(v) is Dimension else v for v in leaves]
    try:
        return np.array(leaves, dtype=np.complex128)
    except OverflowError:
        raise _Failed(_FLOAT_RANGE) from None


def _convert_bool(leaves):
    _check_types(leaves, lambda t: t is bool or t is np.bool_)
    return np.array(leaves, dtype=np.bool_)


def _convert_string(leaves):
    _check_types(leaves, lambda t: issubclass(t, (str, bytes)))
    return _bytes_array([v.encode() if isinstance(v, str) else bytes(v) for v in leaves])


def _bytes_array(items):
    arr = np.empty(len(items), dtype=object)
    arr[:] = items
    return arr


# dtype= converters TensorFlow tries before inferring from the first leaf.
_REQUESTED = {
    _dt.int32: _convert_int32_requested,
    _dt.int64: lambda leaves: _convert_int(leaves, narrow=False),
    _dt.uint64: _convert_uint64_requested,
    _dt.float32: lambda leaves: _convert_float(leaves, np.dtype(np.float32), check_range=True),
    _dt.float64: lambda leaves: _convert_float(leaves, _FLOAT64, check_range=True),
    _dt.complex128: _convert_complex,
    _dt.string: _convert_string,
    _dt.bool: _convert_bool,
}


def _convert_inferred(first, leaves, requested):
    """Converts by the kind of the first leaf; ints meeting a float are redone as floats."""
    if isinstance(first, (str, bytes)):
        return _convert_string(leaves)
    if isinstance(first, (bool, np.bool_)):
        return _convert_bool(leaves)
    if isinstance(first, np.floating) and first.dtype in _dt.FROM_NUMPY:
        return _convert_float(leaves, first.dtype, check_range=True)
    if isinstance(first, (float, int, np.integer, Dimension)) and not isinstance(first, Tensor):
        if not isinstance(first, float):
            try:
                return _convert_int(leaves, narrow=True)
            except _Failed as e:
                if not e.found_float:
                    raise
        # Python floats are float32 unless a dtype was requested (then float64, cast afterwards).
        return _convert_float(leaves, np.dtype(np.float32) if requested is None else _FLOAT64,
                              check_range=requested is None)
    if isinstance(first, (complex, np.complexfloating)):
        return _convert_complex(leaves)
    raise _unsupported(first)


def _compatible(requested, found):
    """TensorFlow's rule for casting an inferred sequence result to the requested dtype."""
    if requested.is_integer:
        return found.is_integer
    if requested.is_floating:
        return found.is_floating or found.is_integer
    if requested.is_complex:
        return found.is_complex or found.is_floating or found.is_integer
    return False


def _sequence_to_array(value, requested):
    """TensorFlow's conversion of a Python scalar or nested sequence (`requested` may be None)."""
    shape, first = _infer_shape(value)
    if first is None and shape and 0 in shape:
        np_dtype = requested._np if requested is not None else np.dtype(np.float32)
        return np.zeros(shape, dtype=np_dtype) if np_dtype != _OBJECT else np.empty(shape, dtype=object)
    leaves = _flat_leaves(value, shape)
    arr = None
    if requested is not None:
        convert = _REQUESTED.get(requested)
        if convert is not None:
            try:
                arr = convert(leaves)
            except _Failed:
                pass  # TensorFlow falls back to inferring from the first leaf
    if arr is None:
        try:
            arr = _convert_inferred(_scalar_of(first), leaves, requested)
        except _Failed as e:
            raise ValueError(e.message) from None
    if requested is not None and arr.dtype != requested._np:
        if not _compatible(requested, _dt.FROM_NUMPY[arr.dtype]):
            raise _cannot_convert(value, requested)
        with np.errstate(over="ignore", invalid="ignore"):
            arr = arr.astype(requested._np)
    if shape:
        return arr.reshape(shape)
    return arr.reshape(()) if arr.dtype == _OBJECT else arr[0]  # strings stay 0-d arrays, numbers scalars


# -- NumPy values --------------------------------------------------------------------------------------------
def _numpy_error(detail):
    return ValueError(f"Failed to convert a NumPy array to a Tensor ({detail}).")


def _normalise_numpy(value):
    """The array a NumPy value becomes: same dtype, never sharing the caller's (mutable) buffer;
    strings as object arrays of bytes."""
    dtype = value.dtype
    if dtype in _dt.FROM_NUMPY and dtype != _OBJECT:
        return value.copy() if type(value) is np.ndarray else value
    kind = dtype.kind
    if kind == "U":
        return np.char.encode(value, "utf-8").astype(object) if value.ndim else \
            np.array(str(value).encode(), dtype=object)
    if kind == "S":
        return np.asarray(value).astype(object)
    if kind == "O":
        arr = np.asarray(value)
        items = arr.ravel().tolist()
        for v in items:
            if not isinstance(v, (str, bytes)):
                raise _numpy_error(f"Unsupported object type {type(v).__name__}")
        encoded = _bytes_array([v.encode() if isinstance(v, str) else v for v in items])
        return encoded.reshape(arr.shape)
    if dtype in _LONG_DOUBLES:
        raise _numpy_error(f"Unsupported numpy type: {_LONG_DOUBLES[dtype]}")
    if kind in _NUMPY_TYPE_NAMES:
        raise _numpy_error(f"Unsupported numpy type: {_NUMPY_TYPE_NAMES[kind]}")
    native = dtype.newbyteorder("=")
    if native in _dt.FROM_NUMPY:
        return value.astype(native)
    raise _numpy_error("Unsupported numpy data type")


def _numpy_to_array(value, requested):
    """A NumPy value cast (NumPy's rules, wrapping) to `requested` when given."""
    if requested is None:
        return _normalise_numpy(value)
    if requested is _dt.string:
        if value.dtype.kind in "OUS":
            return _normalise_numpy(value)
        if value.size == 0:
            return np.empty(value.shape, dtype=object)
        raise _numpy_error(f"Unsupported object type {type(value.flat[0].item()).__name__}")
    if not requested.is_numpy_compatible:
        raise _numpy_error("Unexpected numpy data type")
    _reject_quantized(requested)
    if value.dtype == requested._np:
        return _normalise_numpy(value)
    if value.dtype.kind not in "OUS":
        value = _normalise_numpy(value)
    with np.errstate(over="ignore", invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)  # TensorFlow drops the imaginary part too
        if isinstance(value, np.generic):
            return np.asarray(value).astype(requested._np)[()]
        return value.astype(requested._np)


def _reject_quantized(dtype):
    if dtype.is_quantized:
        raise TypeError(f"tensorflux does not support tensors of quantized dtype {dtype.name}.")


# -- public conversion ------------------------------------------------------------------------------------------
def _python_scalar_fast(value):
    """The common Python scalars without a requested dtype, or None to take the general path."""
    t = type(value)
    if t is int:
        if _INT32_MIN <= value <= _INT32_MAX:
            return np.int32(value)
        if _INT64_MIN <= value <= _INT64_MAX:
            return np.int64(value)
        raise ValueError(_INT_RANGE)
    if t is float:
        if -3.4028235677973366e38 < value < 3.4028235677973366e38 or value != value or \
                value in (float("inf"), float("-inf")):
            return np.float32(value)
        raise ValueError(_FLOAT_RANGE)
    if t is bool:
        return np.bool_(value)
    if t is str:
        return np.array(value.encode(), dtype=object)
    if t is bytes:
        return np.array(value, dtype=object)
    return None


def _limits(dtype):
    """The range a Python number may take to be stored as `dtype` exactly (floats: without overflow)."""
    if dtype.is_integer:
        return int(dtype.min), int(dtype.max)
    if dtype.is_floating:
        return float(dtype.min), float(dtype.max)
    return None


_FAST_LIMITS = {d: _limits(d) for d in _dt.ALL if d.is_integer or d.is_floating}


def _python_scalar_as(value, dtype):
    """The common Python scalar next to a tensor (`x + 1`) as `dtype`, or None to take the general path."""
    t = type(value)
    if t is int or t is float:
        limits = _FAST_LIMITS.get(dtype)
        if limits is not None:
            if t is float and dtype.is_integer:
                return None
            if limits[0] <= value <= limits[1]:
                return dtype._np.type(value)
        elif dtype.is_complex:
            return dtype._np.type(value)
        return None
    if t is bool and (dtype.is_bool or dtype in _FAST_LIMITS):
        return dtype._np.type(value)
    if dtype is _dt.string and (t is str or t is bytes):
        return np.array(value.encode() if t is str else value, dtype=object)
    return None


def to_array(value, dtype=None):
    """The NumPy value TensorFlow's conversion rules give for a non-tensor `value` (as in `tf.constant`)."""
    if dtype is None:
        arr = _python_scalar_fast(value)
        if arr is not None:
            return arr
        if isinstance(value, (np.ndarray, np.generic)):
            return _numpy_to_array(value, None)
        return _sequence_to_array(value, None)
    dtype = _dt.as_dtype(dtype)
    arr = _python_scalar_as(value, dtype)
    if arr is not None:
        return arr
    if isinstance(value, (np.ndarray, np.generic)):
        return _numpy_to_array(value, dtype)
    if not dtype.is_numpy_compatible:
        if value is None:
            raise _unsupported(value)
        raise _cannot_convert(value, dtype)
    _reject_quantized(dtype)
    return _sequence_to_array(value, dtype)


def constant(value, dtype=None, shape=None, name="Const"):
    """`tf.constant`: a tensor holding `value`, optionally of `dtype` and reshaped/broadcast to `shape`."""
    graph = _state.graph
    if isinstance(value, Tensor):
        if graph is None and shape is None and (dtype is None or _dt.as_dtype(dtype) is value.dtype):
            return value
        arr = _constant_of_tensor(value, dtype, graph)
    else:
        arr = to_array(value, dtype)
    if shape is not None:
        arr = _apply_shape(arr, value, shape, graph)
    return _wrap_constant(arr, name)


def _constant_of_tensor(value, dtype, graph):
    array = getattr(value, "_value", None)
    if array is None:  # a symbolic tensor
        raise TypeError("Expected any non-tensor type, but got a tensor instead.")
    if dtype is not None:
        dtype = _dt.as_dtype(dtype)
        if dtype is not value.dtype:
            if graph is None:
                raise TypeError(f"Expected tensor {value} with dtype {dtype!r}, but got dtype {value.dtype!r}.")
            return to_array(np.asarray(array), dtype)  # a graph constant is built from the value, cast
    return array


def _apply_shape(arr, value, shape, graph):
    """TensorFlow's `shape=`: same element count reshapes, one element broadcasts, else TypeError."""
    target = TensorShape(shape if not isinstance(shape, Tensor) else np.asarray(shape))
    dims = tuple(_shape_dims(target))
    size = int(np.prod(dims, dtype=np.int64))
    n = int(np.size(arr))
    if n == size:
        return np.reshape(arr, dims)
    if n == 1:
        return np.broadcast_to(arr, dims).copy()
    if graph is not None:
        raise TypeError(f"Expected Tensor's shape: {target}, but got {TensorShape(np.shape(arr))}.")
    text = np.asarray(arr)
    raise TypeError(f"Eager execution of tf.constant with unsupported shape. Tensor {text} (converted from "
                    f"{value}) has {n} elements, but got `shape` {target} with {size} elements).")


def _shape_dims(target):
    for d in target.as_list():
        if d is None:
            raise _unsupported(None)  # TensorFlow converts `shape` to a tensor, which fails on None
        yield d


def _wrap_constant(arr, name="Const", implicit=False):
    graph = _state.graph
    if graph is not None:
        return graph.add_constant(arr, name, implicit)
    return EagerTensor(arr)


_PYTHON_SCALARS = frozenset((int, float, bool, str, bytes))


def convert_to_tensor(value, dtype=None, name=None, dtype_hint=None):
    """`tf.convert_to_tensor`: tensors pass through (dtype checked); other values become constants."""
    if type(value) in _PYTHON_SCALARS and dtype_hint is None:  # the hot path of `x + 1`
        if dtype is None:
            return _wrap_constant(_python_scalar_fast(value), name or "Const", name is None)
        dtype = _dt.as_dtype(dtype)
        arr = _python_scalar_as(value, dtype)
        return _wrap_constant(arr if arr is not None else to_array(value, dtype), name or "Const", name is None)
    if isinstance(value, Tensor):
        if dtype is not None:
            dtype = _dt.as_dtype(dtype)
            if value.dtype is not dtype:
                prefix = "" if name is None else f"{name}: "   # TF names the argument when given a name
                raise ValueError(f"{prefix}Tensor conversion requested dtype {dtype.name} for Tensor with dtype "
                                 f"{value.dtype.name}: {value!r}")
        return value
    convert = getattr(value, "__tf_tensor__", None)
    if convert is not None and not isinstance(value, type):
        return convert(dtype, name)
    if dtype is not None:
        dtype = _dt.as_dtype(dtype)
    elif dtype_hint is not None:
        hint = _dt.as_dtype(dtype_hint)
        try:
            return _convert_value(value, hint, name)
        except (TypeError, ValueError):
            pass  # a hint is only a preference
    return _convert_value(value, dtype, name)


def user_convert_to_tensor(value, dtype=None, name=None, dtype_hint=None):
    """`tf.convert_to_tensor` called by the user: a constant it makes keeps its own name (`Const`), where
    one made while converting an op's input is named inside that op's scope (`mul/y`)."""
    out = convert_to_tensor(value, dtype, name, dtype_hint)
    graph = _state.graph
    if graph is not None and out is not value:
        graph.keep_name(out)
    return out


def _convert_value(value, dtype, name):
    if isinstance(value, (list, tuple)) and _has_tensors(value):
        return _autopack(value, dtype, name)
    if isinstance(value, TensorShape):
        return _wrap_constant(_shape_to_array(value, dtype), name or "Const")
    if isinstance(value, Dimension):
        return _wrap_constant(_dimension_to_array(value, dtype), name or "Const")
    return _wrap_constant(to_array(value, dtype), name or "Const", name is None)


def _shape_to_array(shape, dtype):
    if not shape.is_fully_defined():
        raise ValueError(f"Cannot convert a partially known TensorShape {shape} to a Tensor.")
    dims = shape.as_list()
    if dtype is None:
        dtype = _dt.int64 if any(d > _INT32_MAX for d in dims) else _dt.int32
    elif dtype is _dt.int32 and any(d > _INT32_MAX for d in dims):
        raise ValueError(f"Cannot convert TensorShape {shape} to dtype int32; a dimension is too large. "
                         f"Consider using tf.int64.")
    elif dtype not in (_dt.int32, _dt.int64):
        raise TypeError(f"Cannot convert TensorShape {shape} to dtype {dtype}. Allowed dtypes are tf.int32 "
                        f"and tf.int64.")
    return np.array(dims, dtype=dtype._np)


def _dimension_to_array(dim, dtype):
    if dim.value is None:
        raise ValueError(f"Cannot convert unknown Dimension {dim} to a Tensor.")
    if dtype is None:
        dtype = _dt.int32
    elif dtype not in (_dt.int32, _dt.int64):
        raise TypeError(f"Cannot convert Dimension {dim} to dtype {dtype}. Allowed dtypes are tf.int32 and "
                        f"tf.int64.")
    return dtype._np.type(dim.value)


def _has_tensors(value):
    for v in value:
        if isinstance(v, (list, tuple)):
            if _has_tensors(v):
                return True
        elif _is_tensor_like(v):
            return True
    return False


def _first_tensor_dtype(value):
    for v in value:
        if isinstance(v, (list, tuple)):
            found = _first_tensor_dtype(v)
            if found is not None:
                return found
        elif _is_tensor_like(v):
            return convert_to_tensor(v).dtype
    return None


def _autopack(value, dtype, name=None):
    """A list holding tensors becomes their `stack` (TensorFlow's "packed" node); other elements are
    converted to the first tensor's dtype, and tensors are cast when another dtype was requested.

    In a graph, as TensorFlow's autopacking does, the Pack takes a name scope's name and the constants
    converted for it are named by their index inside it (`packed/1`); a nested list is the Pack `packed/0`.
    Without `name` (a list converted for an op's input) the consuming op renames the Pack into its own
    scope (`concat/values_1`), its elements with it."""
    inferred = _first_tensor_dtype(value)
    target = inferred if dtype is None else dtype
    graph = _state.graph

    def element(v, index):
        if isinstance(v, (list, tuple)):
            return pack_level(v, index) if _has_tensors(v) else constant(v, dtype=target, name=index)
        if _is_tensor_like(v):
            t = convert_to_tensor(v)
            return cast_tensor(t, target) if dtype is not None else t
        return constant(v, dtype=target, name=index)

    def pack_level(seq, scope_name, converted=None):
        if graph is None:
            return pack([element(v, "Const") for v in seq], name=scope_name)
        with graph.name_scope(scope_name) as scope:
            elems = [element(v, str(i)) for i, v in enumerate(seq)]
            if converted is not None:
                converted.extend(elems)
            return pack(elems, name=scope)

    if graph is None:
        return pack_level(value, "packed")
    elems = []
    packed = pack_level(value, name or "packed", elems)
    if name is None:
        graph.mark_autopacked(packed, [e for e in elems if e.op.name.startswith(packed.op.name + "/")])
    return packed


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
            if _is_tensor_like(v):
                dtype = convert_to_tensor(v).dtype
                break
    return [convert_to_tensor(v, dtype=dtype) if not isinstance(v, Tensor) else v for v in values]


API = {"": ["constant", "convert_to_tensor=user_convert_to_tensor"]}
