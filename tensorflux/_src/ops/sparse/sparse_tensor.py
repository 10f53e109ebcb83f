"""`tf.SparseTensor` and `tf.SparseTensorSpec`, plus the helpers every tf.sparse op uses.

The static shape of a SparseTensor comes from `dense_shape` when its value is known (eagerly always,
in a graph when it is a constant); otherwise only the rank is known (from the width of `indices`).
"""
import numpy as np

from ...framework.composite import CompositeTensor, TypeSpec
from ...framework.tensor import EagerTensor, Tensor
from ...types import dtypes as _dt
from ...types.shape import TensorShape, as_shape
from ...types.spec import TensorSpec
from ..convert import convert_to_tensor
from ..registry import constant_value

__all__ = ["SparseTensor", "SparseTensorSpec", "is_sparse", "as_sparse", "sparse_infer", "sparse_from_outputs",
           "rank_of"]

API = {"": ["SparseTensor", "SparseTensorSpec"], "sparse": ["SparseTensor"]}


def _shape_from_dense_shape(dense_shape, rank):
    value = constant_value(dense_shape)
    if value is not None:
        return TensorShape([int(d) if d >= 0 else None for d in np.asarray(value).reshape(-1)])
    return TensorShape(None) if rank is None else TensorShape([None] * rank)


def _assert_compatible(a, b):
    if a is not None and b is not None and a != b:
        raise ValueError(f"Dimensions {a} and {b} are not compatible")


class SparseTensor(CompositeTensor):
    """A tensor stored as the coordinates and values of its non-default entries (default 0)."""

    __slots__ = ("_indices", "_values", "_dense_shape", "_shape", "__weakref__")
    # `print(spec.value_type)` shows TensorFlow's class path, as the type's repr is part of TF's output.
    __module__ = "tensorflow.python.framework.sparse_tensor"

    def __init__(self, indices, values, dense_shape):
        if isinstance(dense_shape, TensorShape):
            dense_shape = dense_shape.as_list()
        indices = convert_to_tensor(indices, dtype=_dt.int64, name="indices")
        values = values if isinstance(values, Tensor) else convert_to_tensor(values, name="values")
        dense_shape = convert_to_tensor(dense_shape, dtype=_dt.int64, name="dense_shape")
        indices_shape = indices.shape.with_rank(2)
        values_shape = values.shape.with_rank(1)
        shape_shape = dense_shape.shape.with_rank(1)
        _assert_compatible(indices_shape[0], values_shape[0])
        _assert_compatible(indices_shape[1], shape_shape[0])
        self._indices, self._values, self._dense_shape = indices, values, dense_shape
        rank = shape_shape[0] if shape_shape[0] is not None else indices_shape[1]
        self._shape = _shape_from_dense_shape(dense_shape, rank)

    @classmethod
    def _from_parts(cls, indices, values, dense_shape, shape=None):
        """A SparseTensor of component tensors that are already right (ops' outputs): no conversion."""
        self = object.__new__(cls)
        self._indices, self._values, self._dense_shape = indices, values, dense_shape
        self._shape = shape if shape is not None else _shape_from_dense_shape(dense_shape, indices.shape[1])
        return self

    @classmethod
    def from_value(cls, sparse_tensor_value):
        if isinstance(sparse_tensor_value, SparseTensor):
            return sparse_tensor_value
        return cls(sparse_tensor_value.indices, sparse_tensor_value.values, sparse_tensor_value.dense_shape)

    indices = property(lambda self: self._indices, doc="int64 [N, rank]: the coordinates of the stored values.")
    values = property(lambda self: self._values, doc="[N]: the stored values.")
    dense_shape = property(lambda self: self._dense_shape, doc="int64 [rank]: the shape of the dense tensor.")

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def shape(self):
        return self._shape

    def get_shape(self):
        return self._shape

    def set_shape(self, shape):
        self._shape = self._shape.merge_with(as_shape(shape))

    @property
    def op(self):
        return self._values.op

    @property
    def graph(self):
        return self._values.graph

    def consumers(self):
        return []

    def with_values(self, new_values):
        """The same sparsity pattern holding `new_values` (same length)."""
        new_values = convert_to_tensor(new_values)
        _assert_compatible(new_values.shape.with_rank(1)[0], self._values.shape[0])
        return SparseTensor._from_parts(self._indices, new_values, self._dense_shape, self._shape)

    @property
    def _type_spec(self):
        return SparseTensorSpec(self._shape, self._values.dtype)

    def _to_components(self):
        return (self._indices, self._values, self._dense_shape)

    def _unbatch(self):
        """The rows of an eager SparseTensor (each one rank lower), for `Dataset.from_tensor_slices`."""
        indices, values, shape = self._indices.numpy(), self._values.numpy(), self._dense_shape.numpy()
        rows = []
        for r in range(int(shape[0])):
            mine = indices[:, 0] == r
            rows.append(SparseTensor(indices[mine][:, 1:], values[mine], shape[1:]))
        return rows

    def __repr__(self):
        return f"SparseTensor(indices={self._indices!s}, values={self._values!s}, dense_shape={self._dense_shape!s})"

    __str__ = __repr__

    def __bool__(self):
        raise TypeError("Using a SparseTensor as a Python `bool` is not allowed.")


class SparseTensorSpec(TypeSpec):
    """The type of a SparseTensor: its (possibly partial) dense shape and dtype."""

    __slots__ = ("_shape", "_dtype")

    def __init__(self, shape=None, dtype=_dt.float32):
        self._shape = as_shape(shape)
        self._dtype = _dt.as_dtype(dtype)

    @classmethod
    def from_value(cls, value):
        if isinstance(value, SparseTensor):
            return value._type_spec
        return cls(TensorShape(constant_value(value.dense_shape)), value.values.dtype)

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)

    @property
    def value_type(self):
        return SparseTensor

    def _key(self):
        return (self._shape, self._dtype)

    def _with_shape(self, shape):
        return SparseTensorSpec(shape, self._dtype)

    def _unbatched(self):
        return SparseTensorSpec(self._shape[1:], self._dtype)

    def _component_specs(self):
        rank = self._shape.rank
        return [TensorSpec([None, rank], _dt.int64), TensorSpec([None], self._dtype), TensorSpec([rank], _dt.int64)]

    def _from_components(self, components):
        indices, values, dense_shape = components
        shape = self._shape if not isinstance(dense_shape, EagerTensor) else None
        return SparseTensor._from_parts(indices, values, dense_shape, shape)

    def _to_components(self, value):
        return (value.indices, value.values, value.dense_shape)

    def __repr__(self):
        return f"SparseTensorSpec({self._shape!r}, {self._dtype!r})"


def is_sparse(x):
    return isinstance(x, SparseTensor)


def as_sparse(sp_input, argument="sp_input"):
    """`sp_input` if it is a SparseTensor, else TensorFlow's TypeError naming the argument."""
    if isinstance(sp_input, SparseTensor):
        return sp_input
    if hasattr(sp_input, "indices") and hasattr(sp_input, "dense_shape") and hasattr(sp_input, "values"):
        return SparseTensor.from_value(sp_input)
    raise TypeError(f"Input must be a SparseTensor.")


def rank_of(sp):
    """The static rank of a SparseTensor (None when unknown)."""
    rank = sp.dense_shape.shape[0]
    return rank if rank is not None else sp.indices.shape[1]


def sparse_infer(dtype_from=1, rank_from=0):
    """Inference for an op whose outputs are (indices, values, dense_shape) of a SparseTensor; the values'
    dtype is input `dtype_from`'s, the rank the width of input `rank_from` (an indices matrix)."""
    def infer(inputs, attrs):
        rank = inputs[rank_from].shape[1] if inputs[rank_from].shape.rank == 2 else None
        return [(_dt.int64, TensorShape([None, rank])), (inputs[dtype_from].dtype, TensorShape([None])),
                (_dt.int64, TensorShape([rank]))]
    return infer


def sparse_from_outputs(outputs, shape=None):
    """A SparseTensor from an op's (indices, values, dense_shape) outputs."""
    indices, values, dense_shape = outputs[:3]
    return SparseTensor._from_parts(indices, values, dense_shape, shape)
