"""Composite tensors (`tf.SparseTensor`, `tf.RaggedTensor`): values made of several component tensors.

A composite is described by a `TypeSpec` (`SparseTensorSpec`, `RaggedTensorSpec`) that knows its
component specs and how to rebuild the value from components. That is all tf.function needs:

- as an argument, the spec is the argument's TraceType (`__tf_tracing_type__`): tracing makes one
  placeholder per component (`placeholder_value`), each call passes the components (`to_tensors`);
- as a return value, tracing replaces the composite by `components_output(value)`, a tuple of its
  component tensors whose class re-packs them into the composite when nest rebuilds the structure
  (`type(template)(children)`), so the concrete function returns a composite of eager tensors eagerly
  and of graph tensors when called inside another trace.
"""
import threading

from . import nest
from .tensor import Tensor

__all__ = ["CompositeTensor", "TypeSpec", "components_output", "expand_outputs", "pack_traced_outputs"]


class _Packing(threading.local):
    """True while tracing packs its own outputs: the structure keeps the component tuples (the concrete
    function's output plan needs them as nested tuples), instead of rebuilding the composites."""
    keep_components = False


_packing = _Packing()


class CompositeTensor:
    """Base of values made of component tensors; subclasses define `_type_spec` and `_to_components`."""

    __slots__ = ()

    def _to_components(self):
        raise TypeError(f"{type(self).__name__} does not list its components")

    def __tf_tracing_type__(self, context):
        return self._type_spec


class TypeSpec:
    """Base of composite specs. Subclasses define `_component_specs()`, `_from_components(list)`,
    `_to_components(value)`, `_key()` (what makes two specs equal), `_with_shape(shape)` and `value_type`;
    a spec is also the TraceType of its values (shape subtyping as for TensorSpec)."""

    __slots__ = ()

    def _component_specs(self):
        raise TypeError(f"{type(self).__name__} does not list its component specs")

    def to_tensors(self, value):
        return list(self._to_components(value))

    def placeholder_value(self, placeholder_context=None):
        graph, name = placeholder_context.graph, placeholder_context.name or "arg"
        parts = [graph.placeholder(spec.dtype, spec.shape, name) for spec in self._component_specs()]
        return self._from_components(parts)

    def is_compatible_with(self, spec_or_value):
        other = spec_or_value if isinstance(spec_or_value, TypeSpec) else getattr(spec_or_value, "_type_spec", None)
        return type(other) is type(self) and other.dtype is self.dtype and \
            self._shape.is_compatible_with(other._shape) and self._key()[2:] == other._key()[2:]

    def is_subtype_of(self, other):
        return type(other) is type(self) and other.dtype is self.dtype and \
            self._shape.is_subtype_of(other._shape) and self._key()[2:] == other._key()[2:]

    def most_specific_common_supertype(self, others):
        shape = self._shape
        for o in others:
            if type(o) is not type(self) or o.dtype is not self.dtype or o._key()[2:] != self._key()[2:]:
                return None
            shape = shape.most_specific_compatible_shape(o._shape)
        return self._with_shape(shape)

    def __eq__(self, other):
        return type(other) is type(self) and other._key() == self._key()

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash((type(self), self._key()))

    def __reduce__(self):
        return type(self), self._key()[:2]


class _ComponentsOutput(tuple):
    """A composite's component tensors standing in its place in a traced function's outputs; nest
    rebuilds a tuple of this class through `type(template)(children)`, which gives back the composite."""

    __slots__ = ()
    _spec = None

    def __new__(cls, components):
        components = list(components)
        if not _packing.keep_components and all(isinstance(c, Tensor) for c in components):
            return cls._spec._from_components(components)
        return tuple.__new__(cls, components)   # a structure of non-tensors (specs mapped over outputs)


def components_output(value):
    """The tuple of `value`'s components that re-packs into a composite like `value` (see the module doc)."""
    spec = value._type_spec
    cls = type(f"{type(value).__name__}Components", (_ComponentsOutput,), {"__slots__": (), "_spec": spec})
    return tuple.__new__(cls, value._to_components())


def expand_outputs(structure):
    """`structure` with each composite leaf replaced by `components_output` (for tracing's outputs)."""
    if isinstance(structure, CompositeTensor):
        return components_output(structure)
    if type(structure) in (list, tuple):
        if not any(isinstance(x, CompositeTensor) or type(x) in (list, tuple, dict) for x in structure):
            return structure
        return type(structure)(expand_outputs(x) for x in structure)
    if type(structure) is dict:
        return {k: expand_outputs(v) for k, v in structure.items()}
    if isinstance(structure, tuple) and hasattr(type(structure), "_fields"):
        return type(structure)(*(expand_outputs(x) for x in structure))
    return structure


def pack_traced_outputs(structure, leaves):
    """`nest.pack_sequence_as(structure, leaves)` that keeps composites as their component tuples."""
    _packing.keep_components = True
    try:
        return nest.pack_sequence_as(structure, leaves)
    finally:
        _packing.keep_components = False
