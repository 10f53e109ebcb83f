"""SparseTensors as strings: `tf.io.serialize_sparse` (one SparseTensor -> 3 serialized TensorProtos:
indices, values, dense shape, byte-identical to TensorFlow's), `serialize_many_sparse` (a rank >= 2
SparseTensor -> one such triple per row of its first dimension) and `deserialize_many_sparse` (triples
-> one SparseTensor batched along a new first dimension, its shape the largest of the rows').

Serialized triples are untrusted: each TensorProto is parsed and checked like `parse_tensor`'s input,
and the indices are checked against the shapes before a SparseTensor is made.
"""
import numpy as np

from ..framework import errors
from ..ops.convert import convert_to_tensor
from ..ops.registry import OpDef, apply
from ..ops.sparse.sparse_tensor import SparseTensor
from ..types import dtypes as _dt
from ..types.shape import TensorShape
from . import tensor_io


def _bad(message):
    return errors.InvalidArgumentError(None, None, message)


def _serialize(array):
    return tensor_io._serialize_kernel(array).item()


def _serialize_sparse_kernel(indices, values, dense_shape, out_type):
    out = np.empty(3, dtype=object)
    out[:] = [_serialize(indices), _serialize(values), _serialize(dense_shape)]
    return out


def _serialize_many_kernel(indices, values, dense_shape, out_type):
    if dense_shape.size < 2:
        raise _bad(f"Rank of input SparseTensor should be > 1, but saw rank: {dense_shape.size}")
    rows = int(dense_shape[0])
    for k, index in enumerate(indices):
        if np.any(index < 0) or np.any(index >= dense_shape):
            raise _bad(f"indices[{k}] = [{','.join(map(str, index))}] is out of bounds: need 0 <= index < "
                       f"[{','.join(map(str, dense_shape))}]")
    out = np.empty((rows, 3), dtype=object)
    rest = dense_shape[1:].astype(np.int64)
    for row in range(rows):
        mine = indices[:, 0] == row
        out[row] = [_serialize(np.ascontiguousarray(indices[mine, 1:]).astype(np.int64)), _serialize(values[mine]),
                    _serialize(rest)]
    return out


def _parse(data, dtype, what):
    return tensor_io._parse_kernel(np.array(data, dtype=object), dtype)


def _deserialize_many_kernel(serialized, dtype):
    if serialized.ndim != 2 or serialized.shape[1] != 3:
        raise _bad(f"Serialized sparse should be a matrix with 3 columns, got shape "
                   f"[{','.join(map(str, serialized.shape))}]")
    all_indices, all_values, shapes = [], [], []
    for row, (i_data, v_data, s_data) in enumerate(serialized):
        indices = _parse(i_data, _dt.int64, "indices")
        try:
            values = _parse(v_data, dtype, "values")
        except errors.InvalidArgumentError:
            raise _bad(f"Requested SparseTensor of type {dtype.name} but SparseTensor[{row}].values.dtype() == "
                       f"{_value_dtype_name(v_data)}") from None
        shape = _parse(s_data, _dt.int64, "shape")
        if indices.ndim != 2 or values.ndim != 1 or shape.ndim != 1 or indices.shape[0] != values.shape[0] or \
                indices.shape[1] != shape.shape[0]:
            raise _bad(f"Invalid SparseTensor at row {row}: indices {list(indices.shape)}, values "
                       f"{list(values.shape)}, shape {list(shape.shape)}")
        if shapes and shape.shape != shapes[0].shape:
            raise _bad(f"Inconsistent rank across SparseTensors: rank prior to SparseTensor[{row}] was: "
                       f"{shapes[0].size} but rank of SparseTensor[{row}] is: {shape.size}")
        if indices.size and (np.any(indices < 0) or np.any(indices >= shape)):
            raise _bad(f"SparseTensor[{row}] has an index out of its bounds {shape.tolist()}")
        all_indices.append(np.concatenate([np.full((len(indices), 1), row, np.int64), indices], axis=1))
        all_values.append(values)
        shapes.append(shape)
    rank = shapes[0].size + 1 if shapes else 1
    indices = np.concatenate(all_indices) if all_indices else np.zeros((0, rank), np.int64)
    values = np.concatenate(all_values) if all_values else np.zeros(0, dtype._np if dtype != _dt.string else object)
    dense = np.concatenate([[len(shapes)], np.max(np.stack(shapes), axis=0)]) if shapes else np.array([0], np.int64)
    return indices, values, dense.astype(np.int64)


def _value_dtype_name(data):
    from .formats import attr_values
    proto = attr_values.messages().TensorProto()
    proto.ParseFromString(bytes(data))
    try:
        return _dt.as_dtype(int(proto.dtype)).name.replace("float32", "float").replace("float64", "double")
    except (TypeError, ValueError, KeyError):
        return "unknown"


SERIALIZE_SPARSE = OpDef("SerializeSparse", lambda i, a: [(_dt.string, TensorShape([3]))], _serialize_sparse_kernel,
                         input_names=("sparse_indices", "sparse_values", "sparse_shape"))
SERIALIZE_MANY_SPARSE = OpDef("SerializeManySparse", lambda i, a: [(_dt.string, TensorShape([None, 3]))],
                              _serialize_many_kernel, input_names=("sparse_indices", "sparse_values", "sparse_shape"))
DESERIALIZE_MANY_SPARSE = OpDef("DeserializeManySparse",
                                lambda i, a: [(_dt.int64, TensorShape([None, None])), (a["dtype"], TensorShape([None])),
                                              (_dt.int64, TensorShape([None]))],
                                _deserialize_many_kernel, multi=True, allowed=(_dt.string,),
                                input_names=("serialized_sparse",))


def _sparse(sp_input):
    if not isinstance(sp_input, SparseTensor):
        raise TypeError(f"Input must be a SparseTensor, got {type(sp_input).__name__}")
    return sp_input


def _string_out(out_type):
    out_type = _dt.as_dtype(out_type)
    if out_type != _dt.string:
        raise errors.UnimplementedError(None, None, f"serialize_sparse: out_type {out_type.name} is not implemented "
                                        "in tensorflux (tf.string is)")
    return out_type


def serialize_sparse(sp_input, out_type=_dt.string, name=None):
    """`tf.io.serialize_sparse`: a `[3]` string tensor, the serialized indices, values and dense shape."""
    sp = _sparse(sp_input)
    return apply(SERIALIZE_SPARSE, (sp.indices, sp.values, sp.dense_shape), {"out_type": _string_out(out_type)},
                 name or "SerializeSparse")


def serialize_many_sparse(sp_input, out_type=_dt.string, name=None):
    """`tf.io.serialize_many_sparse`: `[N, 3]`, one serialized SparseTensor per row of the first dimension."""
    sp = _sparse(sp_input)
    return apply(SERIALIZE_MANY_SPARSE, (sp.indices, sp.values, sp.dense_shape), {"out_type": _string_out(out_type)},
                 name or "SerializeManySparse")


def deserialize_many_sparse(serialized_sparse, dtype, rank=None, name=None):
    """`tf.io.deserialize_many_sparse`: the `[N, 3]` serialized SparseTensors as one SparseTensor batched
    along a new first dimension (each row's shape padded to the largest)."""
    dtype = _dt.as_dtype(dtype)
    serialized = convert_to_tensor(serialized_sparse)
    indices, values, dense_shape = apply(DESERIALIZE_MANY_SPARSE, (serialized,), {"dtype": dtype},
                                         name or "DeserializeManySparse")
    return SparseTensor(indices, values, dense_shape)


API = {"io": ["serialize_sparse", "serialize_many_sparse", "deserialize_many_sparse"]}
