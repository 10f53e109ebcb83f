"""`tf.make_tensor_proto` and `tf.make_ndarray`: NumPy-like values as TensorFlow's `TensorProto` messages and
back, with TensorFlow's choice of field (tensor_content for a numeric tensor of several elements given
in full, the typed `*_val` field for scalars, broadcast values, strings, bools and complex numbers), so the
serialized bytes equal TensorFlow's. protobuf is loaded on the first call, not by `import tensorflux`.
"""
import numpy as np

from ..framework.tensor import Tensor
from ..types import dtypes as _dt
from ..types.shape import TensorShape

# Dtypes TensorFlow writes into tensor_content (little-endian bytes) when the value is given in full.
_CONTENT_TYPES = frozenset((_dt.float16, _dt.float32, _dt.float64, _dt.int32, _dt.uint8, _dt.int16, _dt.int8,
                            _dt.int64, _dt.uint16, _dt.uint32, _dt.uint64))


def _as_array(values, dtype):
    if isinstance(values, Tensor):
        values = values.numpy()
    if dtype is _dt.string:
        return np.array(values, dtype=object)
    if dtype is not None:
        return np.asarray(values, dtype=dtype._np)
    array = np.asarray(values)
    if array.dtype.kind in "US":
        return np.array(values, dtype=object)
    if array.dtype == np.float64 and not isinstance(values, np.ndarray) and not isinstance(values, np.generic):
        return array.astype(np.float32)  # Python floats become float32, as tf.constant does
    if array.dtype == np.int64 and not isinstance(values, (np.ndarray, np.generic)):
        fits = array.size == 0 or (array.min() >= -2 ** 31 and array.max() < 2 ** 31)
        return array.astype(np.int32) if fits else array
    return array


def make_tensor_proto(values, dtype=None, shape=None, verify_shape=False, allow_broadcast=False):
    """`tf.make_tensor_proto`: a TensorProto holding `values` (cast to `dtype`, reshaped or broadcast to
    `shape` from a single value)."""
    from .formats import attr_values
    pb = attr_values.messages()
    dtype = _dt.as_dtype(dtype) if dtype is not None else None
    array = _as_array(values, dtype)
    if dtype is None:
        dtype = _dt.string if array.dtype == object else _dt.FROM_NUMPY[array.dtype]
    if shape is None:
        dims = list(array.shape)
    else:
        dims = [int(d) for d in (shape.as_list() if isinstance(shape, TensorShape) else shape)]
    count = int(np.prod(dims, dtype=np.int64))
    if verify_shape and list(array.shape) != dims:
        raise TypeError(f"Expected Tensor's shape: {tuple(dims)}, but got {array.shape}.")
    if array.size not in (count, 1) and not allow_broadcast:
        raise TypeError(f"Expected Tensor's shape: {tuple(dims)}, but got {array.shape}." if verify_shape else
                        f"Too many elements provided. Takes at most {count:d}, but got {array.size:d}.")
    proto = pb.TensorProto(dtype=dtype.as_datatype_enum)
    proto.tensor_shape.SetInParent()
    for d in dims:
        proto.tensor_shape.dim.add().size = d
    flat = array.reshape(-1)
    if array.size == count and dtype in _CONTENT_TYPES and count > 1:
        proto.tensor_content = np.ascontiguousarray(flat, dtype=flat.dtype.newbyteorder("<")).tobytes()
        return proto
    _append_values(proto, flat, dtype)
    return proto


def _append_values(proto, flat, dtype):
    if dtype is _dt.string:
        proto.string_val.extend(v if isinstance(v, bytes) else str(v).encode() for v in flat)
    elif dtype in (_dt.float16, _dt.bfloat16):
        bits = flat.astype(np.float16).view(np.uint16) if dtype is _dt.float16 else \
            (flat.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
        proto.half_val.extend(int(b) for b in bits)
    elif dtype is _dt.float32:
        proto.float_val.extend(float(v) for v in flat)
    elif dtype is _dt.float64:
        proto.double_val.extend(float(v) for v in flat)
    elif dtype in (_dt.int32, _dt.int16, _dt.int8, _dt.uint8, _dt.uint16):
        proto.int_val.extend(int(v) for v in flat)
    elif dtype is _dt.int64:
        proto.int64_val.extend(int(v) for v in flat)
    elif dtype is _dt.uint32:
        proto.uint32_val.extend(int(v) for v in flat)
    elif dtype is _dt.uint64:
        proto.uint64_val.extend(int(v) for v in flat)
    elif dtype is _dt.bool:
        proto.bool_val.extend(bool(v) for v in flat)
    elif dtype in (_dt.complex64, _dt.complex128):
        field = proto.scomplex_val if dtype is _dt.complex64 else proto.dcomplex_val
        for v in flat:
            field.extend((float(v.real), float(v.imag)))
    else:
        raise TypeError(f"Unrecognized data type: {dtype.name}")


def make_ndarray(tensor):
    """`tf.make_ndarray`: the NumPy array a TensorProto holds (strings as an object array of bytes)."""
    from .formats import attr_values
    return attr_values.tensor_array(tensor, "the TensorProto")


API = {"": ["make_tensor_proto", "make_ndarray"]}
