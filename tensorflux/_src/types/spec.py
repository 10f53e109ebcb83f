"""TensorSpec: the type of a tensor argument (dtype + possibly partial shape + optional name).

A TensorSpec is also a TraceType: `is_subtype_of` holds when dtypes match and the shape is at least as
specific, so `TensorSpec([2], tf.float32)` is a subtype of `TensorSpec([None], tf.float32)`.

The Tensor class lives in `framework`, above this room; it registers itself with `register_tensor_type`
so that `from_tensor`, `is_compatible_with` and `value_type` can recognise tensors without an import.
"""
from . import dtypes as _dtypes
from .shape import as_shape

__all__ = ["TensorSpec", "register_tensor_type"]

_tensor_type = [None]


def register_tensor_type(cls):
    """Called once by `framework.tensor` with its `Tensor` base class."""
    _tensor_type[0] = cls


def _is_tensor(value):
    return _tensor_type[0] is not None and isinstance(value, _tensor_type[0])


class TensorSpec:
    """Describes a tensor: `TensorSpec(shape=(None,), dtype=tf.int32, name=None)`."""

    __slots__ = ("_shape", "_dtype", "_name", "__weakref__")

    def __init__(self, shape, dtype=_dtypes.float32, name=None):
        self._shape = as_shape(shape)
        self._dtype = _dtypes.as_dtype(dtype)
        self._name = name

    @classmethod
    def from_tensor(cls, tensor, name=None):
        """The spec of a tensor; a symbolic tensor's op name is the default name. Other values: ValueError."""
        if not _is_tensor(tensor):
            raise ValueError(f"`tensor` should be a tf.Tensor, but got type {type(tensor)}.")
        if name is None:
            try:
                name = tensor.op.name  # symbolic tensors are named after their op
            except AttributeError:  # eager tensors have no op
                pass
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

    @property
    def value_type(self):
        return _tensor_type[0]

    def is_compatible_with(self, spec_or_tensor):
        """True for a TensorSpec or tensor of this dtype and a compatible shape (names are ignored)."""
        if not (type(spec_or_tensor) is TensorSpec or _is_tensor(spec_or_tensor)):
            return False
        return spec_or_tensor.dtype is self._dtype and self._shape.is_compatible_with(spec_or_tensor.shape)

    def is_subtype_of(self, other):
        """True when `other` describes every tensor this spec describes; an unnamed spec fits any name."""
        if type(other) is not TensorSpec:
            return False
        return (not self._name or self._name == other._name) and self._dtype is other._dtype and \
            self._shape.is_subtype_of(other._shape)

    def most_specific_common_supertype(self, others):
        """The most specific spec that all of `self` and `others` are subtypes of, or None."""
        shape = self._shape
        for o in others:
            if type(o) is not TensorSpec or o._dtype is not self._dtype or o._name != self._name:
                return None
            shape = shape.most_specific_compatible_shape(o._shape)
        return TensorSpec(shape, self._dtype, self._name)

    def most_specific_compatible_type(self, other):
        """TF1's name for the common supertype; ValueError when there is none."""
        result = self.most_specific_common_supertype([other])
        if result is None:
            raise ValueError(f"No TypeSpec is compatible with both {self} and {other}")
        return result

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
