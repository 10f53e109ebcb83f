"""`tf.sets`: intersection, union and difference of the sets held in the last dimension of two tensors (or
SparseTensors), and `size`. A result is a SparseTensor whose rows list each set's elements in ascending
order; its last dimension is the largest set's size. One op per input kind, as TensorFlow's
(`DenseToDenseSetOperation`, `DenseToSparseSetOperation`, `SparseToSparseSetOperation`, `SetSize`); a
SparseTensor input is passed as its (indices, values, dense_shape) components."""
import numpy as np

from ...framework import errors
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..convert import convert_to_tensor
from ..registry import OpDef, apply
from .sparse_tensor import SparseTensor

__all__ = ["set_intersection", "set_union", "set_difference", "set_size"]

_SET_DTYPES = frozenset((_dt.int8, _dt.int16, _dt.int32, _dt.int64, _dt.uint8, _dt.uint16, _dt.string))
_COMBINE = {"intersection": lambda a, b: a & b, "union": lambda a, b: a | b,
            "a-b": lambda a, b: a - b, "b-a": lambda a, b: b - a}


def _dense_rows(array):
    if array.ndim < 2:
        dims = ",".join(str(d) for d in array.shape)
        raise errors.InvalidArgumentError(None, None, f"Shape [{dims}] has rank {array.ndim} < 2")
    lead = array.shape[:-1]
    flat = array.reshape(-1, array.shape[-1])
    return lead, {index: set(flat[i].tolist()) for i, index in enumerate(np.ndindex(*lead))}


def _sparse_rows(indices, values, shape):
    lead = tuple(int(d) for d in shape[:-1])
    rows = {index: set() for index in np.ndindex(*lead)}
    for position, value in zip(indices.tolist(), values.tolist()):
        rows[tuple(position[:-1])].add(value)
    return lead, rows


def _as_result(lead, rows, dtype):
    width = max((len(r) for r in rows.values()), default=0)
    indices, values = [], []
    for index in np.ndindex(*lead):
        for k, value in enumerate(sorted(rows[index])):
            indices.append(list(index) + [k])
            values.append(value)
    return (np.array(indices, dtype=np.int64).reshape(-1, len(lead) + 1),
            np.array(values, dtype=dtype).reshape(-1), np.array(list(lead) + [width], dtype=np.int64))


def _set_kernel(*arrays, set_operation, kinds):
    parts, position = [], 0
    for kind in kinds:
        if kind == "dense":
            parts.append(_dense_rows(arrays[position]))
            position += 1
        else:
            parts.append(_sparse_rows(*arrays[position:position + 3]))
            position += 3
    (lead, rows_a), (lead_b, rows_b) = parts
    if tuple(lead) != tuple(lead_b):
        raise errors.InvalidArgumentError(None, None, f"Shapes {list(lead)} and {list(lead_b)} of the sets' "
                                                      f"leading dimensions differ")
    combine = _COMBINE[set_operation]
    dtype = arrays[0 if kinds[0] == "dense" else 1].dtype
    return _as_result(lead, {i: combine(rows_a[i], rows_b[i]) for i in rows_a}, dtype)


def _set_infer(inputs, attrs):
    kinds = attrs["kinds"]
    for kind, x in zip(kinds, (inputs[0], inputs[1 if kinds[0] == "dense" else 3])):
        if kind == "dense" and x.shape.rank is not None and x.shape.rank < 2:   # TensorFlow's shape function
            raise ValueError(f"Shape must be at least rank 2 but is rank {x.shape.rank}")
    first = inputs[0] if kinds[0] == "dense" else inputs[1]
    rank = first.shape.rank if kinds[0] == "dense" else None
    return [(_dt.int64, TensorShape([None, rank])), (first.dtype, TensorShape([None])),
            (_dt.int64, TensorShape([rank]))]


_SET_OPS = {kinds: OpDef(name, _set_infer, _set_kernel, multi=True) for kinds, name in (
    (("dense", "dense"), "DenseToDenseSetOperation"), (("dense", "sparse"), "DenseToSparseSetOperation"),
    (("sparse", "sparse"), "SparseToSparseSetOperation"))}


def _set_size_kernel(indices, values, shape):
    lead, rows = _sparse_rows(indices, values, shape)
    return np.array([len(rows[i]) for i in np.ndindex(*lead)], dtype=np.int32).reshape(lead)


SET_SIZE = OpDef("SetSize", lambda inputs, attrs: [(_dt.int32, TensorShape(None))], _set_size_kernel,
                 input_names=("set_indices", "set_values", "set_shape"))


def _checked(x, arg):
    if not isinstance(x, SparseTensor):
        x = convert_to_tensor(x)
    if x.dtype not in _SET_DTYPES:
        allowed = ", ".join(f"tf.{d.name}" for d in _SET_DTYPES)
        raise TypeError(f"'{arg}' has invalid dtype `<dtype: '{x.dtype.name}'>` not in supported dtypes: "
                        f"`frozenset({{{allowed}}})`.")
    return x


def _components(x):
    return (x.indices, x.values, x.dense_shape) if isinstance(x, SparseTensor) else (x,)


def _set_operation(a, b, operation):
    a, b = _checked(a, "a"), _checked(b, "b")
    if isinstance(a, SparseTensor) and not isinstance(b, SparseTensor):
        a, b = b, a      # TensorFlow's ops take the dense operand first; flip the difference to match
        operation = {"a-b": "b-a", "b-a": "a-b"}.get(operation, operation)
    kinds = tuple("sparse" if isinstance(x, SparseTensor) else "dense" for x in (a, b))
    if a.dtype is not b.dtype:
        raise TypeError(f"Types don't match, {a.dtype!r} vs {b.dtype!r}.")
    indices, values, shape = apply(_SET_OPS[kinds], _components(a) + _components(b),
                                   {"set_operation": operation, "kinds": kinds}, _SET_OPS[kinds].name)
    return SparseTensor(indices, values, shape)


def set_intersection(a, b, validate_indices=True):
    """`tf.sets.intersection`: the elements in both sets, per row of the last dimension."""
    return _set_operation(a, b, "intersection")


def set_union(a, b, validate_indices=True):
    """`tf.sets.union`: the elements in either set, per row of the last dimension."""
    return _set_operation(a, b, "union")


def set_difference(a, b, aminusb=True, validate_indices=True):
    """`tf.sets.difference`: the elements of `a` not in `b` (of `b` not in `a` with `aminusb=False`)."""
    return _set_operation(a, b, "a-b" if aminusb else "b-a")


def set_size(a, validate_indices=True):
    """`tf.sets.size`: the number of distinct elements in each set of SparseTensor `a`."""
    if not isinstance(a, SparseTensor):
        raise TypeError(f"Expected `SparseTensor`, got {a}.")
    _checked(a, "a")
    return apply(SET_SIZE, _components(a), None, "SetSize")


API = {"sets": ["intersection=set_intersection", "union=set_union", "difference=set_difference",
                 "size=set_size"]}
