"""Values inside graph protocol buffers: NumPy arrays as `TensorProto`, shapes as `TensorShapeProto`, and
attr values (`AttrValue`) of every kind an OpDef declares, in both directions.

    proto = tensor_proto(np.ones((2, 2), np.float32))      # tensor_content, as TensorFlow writes it
    array = tensor_array(proto)                            # accepts tensor_content and the typed *_val fields
    attr_value(pb, "list(int)", (1, 2, 2, 1))              # -> AttrValue(list=ListValue(i=[1, 2, 2, 1]))
    attr_python(value, "list(int)")                        # -> (1, 2, 2, 1)

Reading treats the proto as untrusted: sizes are checked before anything is allocated (a TensorProto
may not promise more elements than it holds, nor more than `MAX_ELEMENTS`), and a wrong kind is a
`DataLossError` naming what was expected.
"""
import numpy as np

from ...framework import errors
from ...types import dtypes as _dt
from ...types.shape import TensorShape

__all__ = ["tensor_proto", "tensor_array", "shape_proto", "shape_of", "attr_value", "attr_python",
           "MAX_ELEMENTS", "dtype_of_enum", "messages"]

MAX_ELEMENTS = 1 << 31  # no constant in a graph may claim more elements than this

# The typed repeated field TensorFlow uses for each dtype when it does not write tensor_content.
_VAL_FIELDS = {
    "float32": "float_val", "float64": "double_val", "int32": "int_val", "int16": "int_val", "int8": "int_val",
    "uint8": "int_val", "uint16": "int_val", "int64": "int64_val", "uint32": "uint32_val",
    "uint64": "uint64_val", "bool": "bool_val", "float16": "half_val", "bfloat16": "half_val",
    "complex64": "scomplex_val", "complex128": "dcomplex_val", "string": "string_val",
}


_messages = []


def messages():
    """The graph message classes (AttrValue, TensorProto, NodeDef, FunctionDef, GraphDef, …) as one
    namespace, loading protobuf on first use."""
    if not _messages:
        import types
        from . import protos
        ns = types.SimpleNamespace()
        for module, names in (("attr_value", ("AttrValue", "NameAttrList")), ("tensor", ("TensorProto",)),
                              ("tensor_shape", ("TensorShapeProto",)), ("node_def", ("NodeDef",)),
                              ("function", ("FunctionDef", "FunctionDefLibrary")), ("graph", ("GraphDef",)),
                              ("op_def", ("OpDef",)), ("versions", ("VersionDef",))):
            loaded = protos.load(module)
            for name in names:
                setattr(ns, name, getattr(loaded, name))
        _messages.append(ns)
    return _messages[0]


def _bad(message):
    return errors.DataLossError(None, None, message)


def dtype_of_enum(enum, what):
    """The DType of a DataType enum value read from a file (DataLossError naming `what` otherwise)."""
    try:
        dtype = _dt.as_dtype(int(enum))
    except (TypeError, ValueError, KeyError):
        raise _bad(f"{what}: {enum!r} is not a TensorFlow DataType.") from None
    if int(enum) > 100:  # reference dtypes (DT_FLOAT_REF, …) belong to TF1 graphs
        raise _bad(f"{what}: reference dtypes are not supported.")
    return dtype


# -- shapes -----------------------------------------------------------------------------------------
def shape_proto(pb, shape):
    """A TensorShapeProto (unknown rank, or dims with -1 for unknown sizes)."""
    proto = pb.TensorShapeProto()
    shape = shape if isinstance(shape, TensorShape) else TensorShape(shape)
    if shape.rank is None:
        proto.unknown_rank = True
    else:
        for d in shape.as_list():
            proto.dim.add().size = -1 if d is None else int(d)
    return proto


def shape_of(proto):
    """The TensorShape a TensorShapeProto states."""
    if proto.unknown_rank:
        return TensorShape(None)
    dims = []
    for d in proto.dim:
        if d.size < -1:
            raise _bad(f"A shape in the graph has the invalid dimension {d.size}.")
        dims.append(None if d.size == -1 else int(d.size))
    return TensorShape(dims)


# -- tensors ----------------------------------------------------------------------------------------
# dtypes whose tensors of more than one element TensorFlow writes as little-endian bytes in tensor_content
# (make_tensor_proto); the others, and every tensor of one element, use the typed value field.
_CONTENT_DTYPES = frozenset(["float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64",
                             "uint8", "uint32", "uint64"])


def tensor_proto(pb, array, dtype=None, typed_values=False):
    """`array` as a TensorProto: numbers as little-endian bytes in tensor_content, as TensorFlow's kernels
    serialize tensors (`tf.io.serialize_tensor`); with `typed_values`, in the fields Python TensorFlow's
    make_tensor_proto uses for graph constants: tensor_content for more than one number of most dtypes, else
    the typed value field (`float_val: 2`, `bool_val`), the shape always present (`tensor_shape {}`)."""
    array = np.asarray(array)
    dtype = dtype or _dt.FROM_NUMPY[array.dtype]
    proto = pb.TensorProto(dtype=dtype.as_datatype_enum)
    if typed_values:
        proto.tensor_shape.SetInParent()
    for d in array.shape:
        proto.tensor_shape.dim.add().size = int(d)
    flat = array.reshape(-1)
    if dtype is _dt.string:
        proto.string_val.extend(v if isinstance(v, bytes) else str(v).encode() for v in flat)
    elif not flat.size:
        pass
    elif not typed_values or (flat.size > 1 and dtype.name in _CONTENT_DTYPES):
        proto.tensor_content = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<")).tobytes()
    else:
        field = _VAL_FIELDS.get(dtype.name)
        if field is None:
            proto.tensor_content = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<")).tobytes()
        elif field == "half_val":   # the 16 bits of each value (a bfloat16's are its float32's upper half)
            bits = flat.astype(np.float16).view(np.uint16) if dtype is _dt.float16 else \
                (flat.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
            proto.half_val.extend(int(b) for b in bits)
        elif field in ("scomplex_val", "dcomplex_val"):
            getattr(proto, field).extend(float(x) for c in flat for x in (c.real, c.imag))
        elif field == "bool_val":
            proto.bool_val.extend(bool(b) for b in flat)
        elif field in ("float_val", "double_val"):
            getattr(proto, field).extend(float(x) for x in flat)
        else:
            getattr(proto, field).extend(int(x) for x in flat)
    return proto


def tensor_array(proto, what="a constant"):
    """The NumPy value of a TensorProto, from tensor_content or the typed value fields (a shorter value
    list is padded with its last element, as TensorFlow does)."""
    dtype = dtype_of_enum(proto.dtype, what)
    shape = shape_of(proto.tensor_shape)
    if not shape.is_fully_defined():
        raise _bad(f"{what}: a constant's shape must be fully defined, got {shape}.")
    dims = tuple(shape.as_list())
    count = 1
    for d in dims:
        count *= d
    if count > MAX_ELEMENTS:
        raise _bad(f"{what}: the constant claims {count} elements, more than tensorflux reads ({MAX_ELEMENTS}).")
    if dtype.name not in _VAL_FIELDS:
        raise _bad(f"{what}: constants of dtype {dtype.name} cannot be read.")
    np_dtype = np.dtype(dtype.as_numpy_dtype)
    if dtype is _dt.string:
        values = list(proto.string_val)
        return _fill(np.array(values, dtype=object), count, dims, what)
    if proto.tensor_content:
        expected = count * np_dtype.itemsize
        if len(proto.tensor_content) != expected:
            raise _bad(f"{what}: tensor_content holds {len(proto.tensor_content)} bytes, but a {dtype.name} "
                       f"tensor of shape {list(dims)} needs {expected}.")
        return np.frombuffer(proto.tensor_content, dtype=np_dtype.newbyteorder("<")).astype(np_dtype).reshape(dims)
    field = _VAL_FIELDS[dtype.name]
    raw = getattr(proto, field)
    if field == "half_val":
        bits = np.array(raw, dtype=np.uint16)
        values = bits.view(np.float16) if dtype is _dt.float16 else \
            (bits.astype(np.uint32) << 16).view(np.float32).astype(np_dtype)
    elif field in ("scomplex_val", "dcomplex_val"):
        flat = np.array(raw, dtype=np.float64)
        values = (flat[0::2] + 1j * flat[1::2]).astype(np_dtype)
    else:
        values = np.array(raw).astype(np_dtype) if len(raw) else np.zeros(0, np_dtype)
    return _fill(values, count, dims, what)


def _fill(values, count, dims, what):
    if len(values) > count:
        raise _bad(f"{what}: the constant holds {len(values)} values for {count} elements.")
    if len(values) == count:
        return values.reshape(dims)
    if len(values) == 0:
        return np.zeros(dims, dtype=values.dtype) if values.dtype != object else np.full(dims, b"", dtype=object)
    out = np.empty(count, dtype=values.dtype)
    out[:len(values)] = values
    out[len(values):] = values[-1]
    return out.reshape(dims)


# -- attr values ------------------------------------------------------------------------------------
def _dtype_enum(value):
    return _dt.as_dtype(value).as_datatype_enum


def attr_value(pb, kind, value):
    """An AttrValue of OpDef attr kind `kind` ("int", "list(type)", "func", …) holding the Python `value`.

    `pb` is the attr_value_pb2 module (its TensorProto and TensorShapeProto come along); a `func` value is
    the function's name.
    """
    out = pb.AttrValue()
    if kind == "type":
        out.type = _dtype_enum(value)
    elif kind == "int":
        out.i = int(value)
    elif kind == "float":
        out.f = float(value)
    elif kind == "bool":
        out.b = bool(value)
    elif kind == "string":
        out.s = value if isinstance(value, bytes) else str(value).encode()
    elif kind == "shape":
        out.shape.CopyFrom(shape_proto(pb, value))
    elif kind == "tensor":
        out.tensor.CopyFrom(tensor_proto(pb, value, typed_values=True))
    elif kind == "func":
        out.func.name = value
    elif kind.startswith("list("):
        item = kind[5:-1]
        lst = out.list
        lst.SetInParent()
        for v in value:
            if item == "type":
                lst.type.append(_dtype_enum(v))
            elif item == "int":
                lst.i.append(int(v))
            elif item == "float":
                lst.f.append(float(v))
            elif item == "bool":
                lst.b.append(bool(v))
            elif item == "string":
                lst.s.append(v if isinstance(v, bytes) else str(v).encode())
            elif item == "shape":
                lst.shape.add().CopyFrom(shape_proto(pb, v))
            elif item == "func":
                lst.func.add().name = v
            else:
                raise TypeError(f"attr kind {kind!r} cannot be written")
    else:
        raise TypeError(f"attr kind {kind!r} cannot be written")
    return out


_ONEOF_OF_KIND = {"type": "type", "int": "i", "float": "f", "bool": "b", "string": "s", "shape": "shape",
                  "tensor": "tensor", "func": "func"}


def attr_python(value, kind, what):
    """The Python value of an AttrValue that must be of OpDef kind `kind` (DataLossError otherwise).

    Types become DTypes, shapes TensorShapes, tensors arrays, strings `str` (bytes when not UTF-8),
    functions their name, lists tuples.
    """
    field = value.WhichOneof("value")
    if kind.startswith("list("):
        if field not in ("list", None):
            raise _bad(f"{what}: expected a {kind}, the graph holds a {field}.")
        item = kind[5:-1]
        lst = value.list
        if item == "type":
            return tuple(dtype_of_enum(t, what) for t in lst.type)
        if item == "int":
            return tuple(int(i) for i in lst.i)
        if item == "float":
            return tuple(float(f) for f in lst.f)
        if item == "bool":
            return tuple(bool(b) for b in lst.b)
        if item == "string":
            return tuple(_text(s) for s in lst.s)
        if item == "shape":
            return tuple(shape_of(s) for s in lst.shape)
        if item == "func":
            return tuple(f.name for f in lst.func)
        raise _bad(f"{what}: attrs of kind {kind} cannot be read.")
    expected = _ONEOF_OF_KIND.get(kind)
    if expected is None:
        raise _bad(f"{what}: attrs of kind {kind} cannot be read.")
    if field != expected:
        raise _bad(f"{what}: expected a {kind}, the graph holds {field or 'nothing'}.")
    if kind == "type":
        return dtype_of_enum(value.type, what)
    if kind == "int":
        return int(value.i)
    if kind == "float":
        return float(value.f)
    if kind == "bool":
        return bool(value.b)
    if kind == "string":
        return _text(value.s)
    if kind == "shape":
        return shape_of(value.shape)
    if kind == "tensor":
        return tensor_array(value.tensor, what)
    return value.func.name


def _text(raw):
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return bytes(raw)
