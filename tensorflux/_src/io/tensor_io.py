"""Tensors as bytes, as ops of `tf.io`: `serialize_tensor`/`parse_tensor` (SerializeTensor/ParseTensor:
a TensorProto, byte-identical to TensorFlow's), `decode_raw` (DecodeRaw/DecodePaddedRaw: the bytes of a
string reinterpreted as numbers) and `matching_files` (MatchingFiles: the sorted paths matching glob
patterns).

A parsed TensorProto is untrusted data: `io/formats/attr_values.tensor_array` checks its dtype, its shape
and that its content holds exactly the promised elements before anything is allocated; protobuf is
loaded on the first serialize/parse, not by `import tensorflux`.
"""
import glob as _glob
import os

import numpy as np

from ..framework import errors
from ..framework.tensor import Tensor
from ..ops.convert import convert_to_tensor
from ..ops.registry import OpDef, apply, dtype_error_name
from ..types import dtypes as _dt
from ..types.shape import TensorShape


def _bad(message):
    return errors.InvalidArgumentError(None, None, message)


def _string_operand(value):
    return value if isinstance(value, Tensor) else convert_to_tensor(value, dtype=_dt.string)


def _as_bytes(element):
    return element if isinstance(element, bytes) else str(element).encode()


# -- SerializeTensor / ParseTensor ------------------------------------------------------------------

def _serialize_kernel(tensor, T=None):  # noqa: N803 - TensorFlow's attr name
    from .formats import attr_values
    pb = attr_values.messages()
    dtype = _dt.FROM_NUMPY[tensor.dtype] if tensor.dtype != object else _dt.string
    proto = attr_values.tensor_proto(pb, tensor, dtype)
    proto.tensor_shape.SetInParent()  # TensorFlow writes the (possibly empty) shape message for scalars too
    return np.array(proto.SerializeToString(), dtype=object)


def _infer_serialize(inputs, attrs):
    return [(_dt.string, TensorShape([]))]


def _parse_kernel(serialized, out_type):
    from google.protobuf.message import DecodeError
    from .formats import attr_values
    pb = attr_values.messages()
    data = _as_bytes(serialized.item()) if serialized.ndim == 0 else None
    if data is None:
        raise _bad(f"Expected `serialized` to be a scalar, got shape: [{','.join(map(str, serialized.shape))}]")
    proto = pb.TensorProto()
    try:
        proto.ParseFromString(data)
    except (DecodeError, RuntimeWarning, ValueError):
        import base64
        raise _bad(f"Could not parse `serialized` as TensorProto, base64: {base64.b64encode(data).decode()}") from None
    try:
        parsed = _dt.as_dtype(int(proto.dtype))
    except (TypeError, ValueError, KeyError):
        raise _bad(f"Could not parse `serialized` as TensorProto: unknown DataType {proto.dtype}") from None
    if parsed != out_type:
        raise _bad(f"Type mismatch between parsed tensor ({dtype_error_name(parsed)}) and dtype "
                   f"({dtype_error_name(out_type)})")
    try:
        value = attr_values.tensor_array(proto, "the parsed tensor")
    except errors.DataLossError as e:
        raise _bad(e.message) from None
    return value.astype(out_type._np) if out_type is not _dt.string else value


def _infer_parse(inputs, attrs):
    return [(attrs["out_type"], TensorShape(None))]


SERIALIZE_TENSOR = OpDef("SerializeTensor", _infer_serialize, _serialize_kernel, input_names=("tensor",))
PARSE_TENSOR = OpDef("ParseTensor", _infer_parse, _parse_kernel, input_names=("serialized",))


def serialize_tensor(tensor, name=None):
    """`tf.io.serialize_tensor`: `tensor` as a serialized TensorProto (a scalar string)."""
    tensor = tensor if isinstance(tensor, Tensor) else convert_to_tensor(tensor)
    return apply(SERIALIZE_TENSOR, (tensor,), {"T": tensor.dtype}, name or "SerializeTensor")


def parse_tensor(serialized, out_type, name=None):
    """`tf.io.parse_tensor`: the tensor a serialized TensorProto holds; its dtype must be `out_type`."""
    return apply(PARSE_TENSOR, (_string_operand(serialized),), {"out_type": _dt.as_dtype(out_type)},
                 name or "ParseTensor")


# -- DecodeRaw / DecodePaddedRaw --------------------------------------------------------------------

_RAW_TYPES = (_dt.float16, _dt.float32, _dt.float64, _dt.int32, _dt.uint16, _dt.uint8, _dt.int16, _dt.int8,
              _dt.int64, _dt.complex64, _dt.complex128, _dt.bool, _dt.bfloat16)


def _raw_dtype(out_type, little_endian):
    np_dtype = np.dtype(out_type._np)
    return np_dtype.newbyteorder("<" if little_endian else ">")


def _decode_raw_kernel(data, out_type, little_endian=True):
    items = [_as_bytes(b) for b in data.reshape(-1)]
    size = np.dtype(out_type._np).itemsize
    width = len(items[0]) if items else 0
    for i, item in enumerate(items):
        if len(item) != width:
            raise _bad(f"DecodeRaw requires input strings to all be the same size, but element {i} has size "
                       f"{width} != {len(item)}")
    if width % size:
        raise _bad(f"Input to DecodeRaw has length {width} that is not a multiple of {size}, the size of "
                   f"{dtype_error_name(out_type)}")
    raw = np.frombuffer(b"".join(items), dtype=_raw_dtype(out_type, little_endian))
    return raw.astype(out_type._np).reshape(data.shape + (width // size,))


def _decode_padded_raw_kernel(data, fixed_length, out_type, little_endian=True):
    length = int(fixed_length)
    size = np.dtype(out_type._np).itemsize
    if length % size:
        raise _bad(f"fixed_length ({length}) must be a multiple of the size of out_type ({size})")
    padded = [_as_bytes(b)[:length].ljust(length, b"\0") for b in data.reshape(-1)]
    raw = np.frombuffer(b"".join(padded), dtype=_raw_dtype(out_type, little_endian))
    return raw.astype(out_type._np).reshape(data.shape + (length // size,))


def _infer_decode_raw(inputs, attrs):
    data = inputs[0]
    out = attrs["out_type"]
    if data.shape.rank is None:
        return [(out, TensorShape(None))]
    width = None
    if len(inputs) > 1:
        from ..ops.registry import constant_value
        known = constant_value(inputs[1])
        width = int(known) // np.dtype(out._np).itemsize if known is not None else None
    return [(out, TensorShape(list(data.shape._dims) + [width]))]


DECODE_RAW = OpDef("DecodeRaw", _infer_decode_raw, _decode_raw_kernel, allowed=(_dt.string,),
                   input_names=("bytes",))
DECODE_PADDED_RAW = OpDef("DecodePaddedRaw", _infer_decode_raw, _decode_padded_raw_kernel, allowed=(_dt.string,),
                          input_names=("input_bytes", "fixed_length"))


def decode_raw(input_bytes, out_type, little_endian=True, fixed_length=None, name=None):
    """`tf.io.decode_raw`: each string's bytes as a vector of `out_type` (all strings of one length, or
    each cut/zero-padded to `fixed_length` bytes)."""
    out_type = _dt.as_dtype(out_type)
    if out_type not in _RAW_TYPES:
        raise TypeError(f"Value for attr 'out_type' of {out_type.name} is not in the list of allowed values: "
                        + ", ".join(dtype_error_name(d) for d in _RAW_TYPES))
    data = _string_operand(input_bytes)
    attrs = {"out_type": out_type, "little_endian": bool(little_endian)}
    if fixed_length is None:
        return apply(DECODE_RAW, (data,), attrs, name or "DecodeRaw")
    length = convert_to_tensor(fixed_length, dtype=_dt.int32)
    return apply(DECODE_PADDED_RAW, (data, length), attrs, name or "DecodePaddedRaw")


# -- MatchingFiles ---------------------------------------------------------------------------------

def _matching_files_kernel(pattern):
    found = set()
    for p in pattern.reshape(-1):
        found.update(_glob.glob(os.fsdecode(_as_bytes(p)), include_hidden=True))
    return np.array([os.fsencode(f) for f in sorted(found)], dtype=object).reshape(-1)


def _infer_matching_files(inputs, attrs):
    if inputs[0].shape.rank is not None and inputs[0].shape.rank > 1:
        raise ValueError(f"Shape must be at most rank 1 but is rank {inputs[0].shape.rank} for 'MatchingFiles'")
    return [(_dt.string, TensorShape([None]))]


MATCHING_FILES = OpDef("MatchingFiles", _infer_matching_files, _matching_files_kernel, allowed=(_dt.string,),
                       stateful=True, input_names=("pattern",))


def matching_files(pattern, name=None):
    """`tf.io.matching_files`: the sorted paths matching a glob pattern (or any of a 1-D list of them);
    an empty vector when nothing matches."""
    return apply(MATCHING_FILES, (_string_operand(pattern),), None, name or "MatchingFiles")


API = {"io": ["serialize_tensor", "parse_tensor", "decode_raw", "matching_files"]}
