"""TensorSpec: the type of a tensor argument (dtype + possibly partial shape + optional name).

A TensorSpec is also a TraceType: `is_subtype_of` holds when dtypes match and the shape is at least as
specific, so `TensorSpec([2], tf.float32)` is a subtype of `TensorSpec([None], tf.float32)`.
"""
from . import dtypes as _dtypes
from .shape import TensorShape, as_shape

__all__ = ["TensorSpec"]


class TensorSpec:
    """Describes a tensor: `TensorSpec(shape=(None,), dtype=tf.int32, name=None)`."""

    __slots__ = ("_shape", "_dtype", "_name", "__weakref__")

    def __init__(self, shape, dtype=_dtypes.float32, name=None):
        self._shape = as_shape(shape)
        self._dtype = _dtypes.as_dtype(dtype)
        self._name = name

    @classmethod
    def from_tensor(cls, tensor, name=None):
        """The spec of a tensor (eager or symbolic); keeps the tensor's op name for symbolic ones."""
        if name is None:
            op = getattr(tensor, "op", None)
            name = getattr(op, "name", None) if op is not None else None
        return cls(tensor.shape, tensor.dtype, name)

    @classmethod
    def from_spec(cls, spec, name=None):
        return cls(spec.shape, spec.dtype, name if name is not None else spec.name)

    @property
    def shape(self):
        return self._shape

    @property
    def dtype(self):
        return self._dtype

    @property
    def name(self):
        return self._name

    def is_compatible_with(self, spec_or_tensor):
        """True when dtypes match and shapes are compatible (tensors are accepted too)."""
        dtype = getattr(spec_or_tensor, "dtype", None)
        shape = getattr(spec_or_tensor, "shape", None)
        if dtype is None or shape is None:
            return False
        return _dtypes.as_dtype(dtype) is self._dtype and self._shape.is_compatible_with(shape)

    def is_subtype_of(self, other):
        if type(other) is not TensorSpec:
            return False
        return self._dtype is other._dtype and self._shape.is_subtype_of(other._shape) and \
            (other._name is None or self._name == other._name)

    def most_specific_common_supertype(self, others):
        shape = self._shape
        for o in others:
            if type(o) is not TensorSpec or o._dtype is not self._dtype:
                return None
            shape = shape.most_specific_compatible_shape(o._shape)
        names = {self._name, *(o._name for o in others)}
        return TensorSpec(shape, self._dtype, self._name if len(names) == 1 else None)

    def _without_name(self):
        return self if self._name is None else TensorSpec(self._shape, self._dtype)

    def __eq__(self, other):
        return (type(other) is TensorSpec and self._dtype is other._dtype and self._shape == other._shape
                and self._name == other._name)

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash((self._shape, self._dtype, self._name))

    def __repr__(self):
        return f"TensorSpec(shape={self._shape}, dtype={self._dtype!r}, name={self._name!r})"

    def __reduce__(self):
        return TensorSpec, (self._shape, self._dtype, self._name)



