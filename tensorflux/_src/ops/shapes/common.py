"""What the array ops share: TensorFlow's kernel error texts, shape-like arguments converted to int32/int64
index tensors, static values of shapes and axes.
"""
import numpy as np

from ...framework import errors
from ...framework.context import state as _state
from ...framework.tensor import EagerTensor, Tensor
from ...types import dtypes as _dt
from ...types.shape import Dimension, TensorShape
from ..convert import constant, convert_n, convert_to_tensor, to_array
from ..registry import constant_value, dtype_error_name


_INDEX_TYPES = (_dt.int32, _dt.int64)
_UNKNOWN = TensorShape(None)


# ---------------------------------------------------------------------------------------------------
# Shared helpers (used by every array module)
# ---------------------------------------------------------------------------------------------------

def bad(message):
    """The InvalidArgumentError a kernel raises (the registry appends ` [Op:Name]`)."""
    return errors.InvalidArgumentError(None, None, message)


def fmt_shape(dims):
    """A shape as TensorFlow's kernels print it: `[2,3]`."""
    return "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"


def attr_type_error(attr, dtype, op_name, allowed=_INDEX_TYPES, param=None):
    """TensorFlow's error for an input whose dtype its op does not accept (e.g. a float shape)."""
    names = ", ".join(dtype_error_name(d) for d in allowed)
    if _state.graph is not None:
        return TypeError(f"Value passed to parameter '{param or attr}' has DataType {dtype.name} not in list "
                         f"of allowed values: {names}")
    return errors.eager_error(
        errors.InvalidArgumentError,
        f"Value for attr '{attr}' of {dtype_error_name(dtype)} is not in the list of allowed values: "
        f"{names}\n\t; NodeDef: {{{{node {op_name}}}}}", op_name)


def index_input(value, attr, op_name, param=None):
    """Converts a shape-like argument (list of ints, TensorShape, tensor) to an int32/int64 tensor."""
    if _state.graph is None and type(value) in (list, tuple) and all(type(v) is int for v in value):
        try:
            return EagerTensor(np.array(value, dtype=np.int32))
        except OverflowError:
            pass
    if type(value) in (list, tuple) and not value:  # an empty shape is int32, not float32's default
        t = convert_to_tensor(np.zeros((0,), dtype=np.int32))
    else:
        t = convert_to_tensor(value)
    if t.dtype not in _INDEX_TYPES:
        raise attr_type_error(attr, t.dtype, op_name, param=param)
    return t


def static_int(value, what, attr="Tidx", op_name=None, is_attr=False):
    """A Python int for an argument that must be known when the op is built (an axis, a count).

    A value that does not convert raises TensorFlow's conversion error for a tensor input, or TypeError
    for an op attribute (`is_attr`, e.g. Unpack's axis), whose conversion TensorFlow checks in Python."""
    if type(value) is int:
        return value
    if isinstance(value, (Dimension,)):
        return value.value
    try:
        arr = constant_value(value) if isinstance(value, Tensor) else to_array(value)
    except (TypeError, ValueError) as e:  # TensorFlow's conversion error, with its class
        raise (TypeError if is_attr else type(e))(f"`{what}` must be an integer: {e}") from None
    if arr is None:
        raise TypeError(f"`{what}` must be statically known (a Python int or a constant tensor), got "
                        f"{value!r}")
    arr = np.asarray(arr)
    if arr.dtype.kind not in "iu" or arr.dtype == np.bool_:
        if op_name is not None and arr.dtype in _dt.FROM_NUMPY:
            raise attr_type_error(attr, _dt.FROM_NUMPY[arr.dtype], op_name)
        raise TypeError(f"`{what}` must be an integer, got {value!r}")
    if arr.size != 1:
        raise ValueError(f"`{what}` must be a single integer, got {value!r}")
    return int(arr.reshape(()))


def static_int_tuple(value, what):
    """A tuple of Python ints for a static list argument (perm, reverse axes)."""
    arr = constant_value(value) if isinstance(value, Tensor) else value
    if arr is None:
        raise TypeError(f"`{what}` must be statically known (a list of ints or a constant tensor), got "
                        f"{value!r}")
    arr = np.asarray(arr)
    if arr.dtype.kind not in "iu" and arr.size:
        raise TypeError(f"`{what}` must be a list of integers, got {value!r}")
    return tuple(int(v) for v in arr.reshape(-1))


def convert_same(values):
    """Converts a list for an op taking N tensors of one dtype: the first tensor's dtype, or else the
    first value's (so `[[1], [2.]]` fails on `[2.]`, as in TensorFlow)."""
    if _holds_tensor(values):
        return convert_n(values)
    first = convert_to_tensor(values[0])
    return [first] + [convert_to_tensor(v, dtype=first.dtype) for v in values[1:]]


def shape_of_value(value):
    """The static shape given as a shape argument, as a list of ints, or None when it is not static."""
    if isinstance(value, TensorShape):
        return value.as_list() if value.is_fully_defined() else None
    if isinstance(value, Tensor):
        known = constant_value(value) if value.dtype in _INDEX_TYPES else None
        return None if known is None else [int(v) for v in np.reshape(known, -1)]
    if isinstance(value, (int, np.integer, Dimension)):
        return [int(value)]
    if isinstance(value, (list, tuple)):
        out = []
        for v in value:
            if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
                out.append(int(v))
            elif isinstance(v, Dimension) and v.value is not None:
                out.append(v.value)
            else:
                return None
        return out
    if isinstance(value, np.ndarray) and value.dtype.kind in "iu":
        return [int(v) for v in value.reshape(-1)]
    return None


def value_dims(t, size=None):
    """The value of a 1-D int input as a tuple when static, else None (for inference)."""
    v = constant_value(t)
    if v is None:
        return None
    return tuple(int(d) for d in np.reshape(v, -1))


def partial_dims(t, _depth=0):
    """TensorFlow's "tensor as shape" for a 1-D int input that is not a constant: a tuple of ints (and
    None for what is unknown) when its length is known, else None. As TensorFlow's shape refiner does, it
    reads through `tf.shape(x)` (x's known dims), a slice of one, `tf.stack` of scalars, `tf.concat`, casts,
    and scalars computed from known dims by + - * //, so `tf.reshape(x, tf.stack([tf.shape(x)[0], 4, 8]))`
    keeps the dims it knows."""
    value = constant_value(t)
    if value is not None:
        return tuple(int(d) for d in np.reshape(value, -1)) if np.ndim(value) == 1 else None
    op = getattr(t, "op", None)
    if op is None or _depth > 8:
        return None
    kind = op.type
    if kind == "Shape" and op.inputs:
        shape = op.inputs[0].shape
        return None if shape.rank is None else tuple(shape.as_list())
    if kind in ("Cast", "Identity"):
        return partial_dims(op.inputs[0], _depth + 1)
    if kind == "Pack" and op.attrs.get("axis", 0) == 0 and all(i.shape.rank == 0 for i in op.inputs):
        return tuple(partial_scalar(i, _depth + 1) for i in op.inputs)
    if kind == "ConcatV2":     # tensorflux holds the axis as an attribute (an input only when exported)
        values = op.inputs if "axis" in op.attrs else op.inputs[:-1]
        axis = op.attrs["axis"] if "axis" in op.attrs else constant_value(op.inputs[-1])
        parts = [partial_dims(i, _depth + 1) for i in values]
        if axis is not None and np.size(axis) == 1 and int(np.reshape(axis, -1)[0]) in (0, -1) and \
                all(p is not None for p in parts):
            return tuple(d for p in parts for d in p)
    if kind == "StridedSlice" and t.shape.rank == 1:
        sliced = _sliced(op, _depth)
        if sliced is not None:
            return sliced
    n = t.shape[0] if t.shape.rank == 1 else None
    return None if n is None else (None,) * n


def partial_scalar(t, _depth=0):
    """An int scalar's value when known (through the ops `partial_dims` reads), else None."""
    value = constant_value(t)
    if value is not None:
        return int(value) if np.ndim(value) == 0 and np.asarray(value).dtype.kind in "iu" else None
    op = getattr(t, "op", None)
    if op is None or _depth > 8:
        return None
    kind = op.type
    if kind in ("Cast", "Identity"):
        return partial_scalar(op.inputs[0], _depth + 1)
    if kind == "StridedSlice" and t.shape.rank == 0:
        sliced = _sliced(op, _depth)
        return sliced[0] if sliced is not None and len(sliced) == 1 else None
    if kind == "Unpack" and op.attrs.get("axis", 0) == 0:
        dims = partial_dims(op.inputs[0], _depth + 1)
        index = getattr(t, "value_index", None)      # (`in`/`index` would compare tensors)
        return None if dims is None or index is None or index >= len(dims) else dims[index]
    if kind in ("AddV2", "Add", "Sub", "Mul", "FloorDiv"):
        a, b = (partial_scalar(i, _depth + 1) for i in op.inputs)
        if a is None or b is None or (kind == "FloorDiv" and b == 0):
            return None
        return {"AddV2": a + b, "Add": a + b, "Sub": a - b, "Mul": a * b}.get(kind, a // b if b else None)
    return None


def _sliced(op, depth):
    """The dims a plain StridedSlice (constant bounds, stride 1, no ellipsis/new axes) of a partially known
    1-D shape tensor takes, as a tuple; None otherwise."""
    if any(op.attrs.get(m, 0) for m in ("ellipsis_mask", "new_axis_mask")):
        return None
    source = partial_dims(op.inputs[0], depth + 1)
    begin, end, strides = (constant_value(i) for i in op.inputs[1:4])
    if source is None or begin is None or end is None or strides is None or np.size(begin) != 1 or \
            int(np.reshape(strides, -1)[0]) != 1:
        return None
    n = len(source)
    start, stop = int(np.reshape(begin, -1)[0]), int(np.reshape(end, -1)[0])
    if op.attrs.get("shrink_axis_mask", 0) & 1:
        index = start + n if start < 0 else start
        return (source[index],) if 0 <= index < n else None
    start = 0 if op.attrs.get("begin_mask", 0) & 1 else start
    stop = n if op.attrs.get("end_mask", 0) & 1 else stop
    return tuple(source[slice(start, stop)])


def shape_from_tensor(t):
    """The static shape a shape-valued input `t` (not a constant) gives an output: its dims known in part
    (`partial_dims`), else as many unknown dims as it has elements (unknown rank if that is unknown)."""
    partial = partial_dims(t) if t.shape.rank == 1 else None
    if partial is not None and all(d is None or d >= 0 for d in partial):
        return TensorShape(partial)
    return unknown_vector_dims(t)


def unknown_vector_dims(t):
    """Unknown dims, as many as a 1-D shape-like input has elements (unknown rank if that is unknown)."""
    n = t.shape[0] if t.shape.rank == 1 else None
    return _UNKNOWN if n is None else TensorShape((None,) * n)


def _eager_const(arr, name):
    """A constant tensor holding `arr` (a graph Const when building a graph)."""
    if _state.graph is None:
        return EagerTensor(arr)
    return constant(arr, name=name)


def _normalize_dim(axis, rank, msg):
    if not -rank <= axis < rank:
        raise ValueError(msg)
    return axis % rank


def _holds_tensor(values):
    for v in values:
        if isinstance(v, Tensor) or hasattr(v, "__tf_tensor__"):
            return True
        if isinstance(v, (list, tuple)) and _holds_tensor(v):
            return True
    return False
