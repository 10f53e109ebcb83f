"""`tf.IndexedSlices`: a tensor given as some of its slices along axis 0 — `values[i]` is row
`indices[i]` of a tensor of shape `dense_shape`; rows named twice add up, rows never named are zero.

It is what the gradient of `tf.gather` (axis 0) is, so an embedding lookup of 32 rows of a 20000-row
table has a 32-row gradient instead of a 20000-row one. Adding two of them concatenates their rows;
`tf.convert_to_tensor` densifies one (summing repeated rows). The densifying op lives on a higher
floor (`ops/array/gather.py`, UnsortedSegmentSum) and registers itself here with `set_densifier`.

A composite tensor: it crosses tf.function boundaries as its components (values, indices and, when
known, dense_shape), described by `IndexedSlicesSpec`.
"""
from ..types import dtypes as _dt
from ..types.shape import TensorShape, as_shape
from ..types.spec import TensorSpec
from .composite import CompositeTensor, TypeSpec

__all__ = ["IndexedSlices", "IndexedSlicesSpec", "set_densifier", "densify"]

_densifier = []   # [function(IndexedSlices, dtype) -> Tensor], set by ops/array/gather.py


def set_densifier(function):
    """Installs the function that turns an IndexedSlices into a dense tensor (an op of a higher floor)."""
    _densifier[:] = [function]


def densify(value, dtype=None):
    """`value` as a dense tensor if it is an IndexedSlices; anything else is returned as it is."""
    if not isinstance(value, IndexedSlices):
        return value
    return _densifier[0](value, dtype)


def _static_shape(dense_shape, values_shape):
    """The dense tensor's shape as far as it is known without running anything: dense_shape's value when
    it is eager or a graph constant, else its length as the rank, and the values' trailing dims."""
    if dense_shape is None:
        return TensorShape(None)
    value = getattr(dense_shape, "_value", None)
    if value is None and getattr(dense_shape, "op", None) is not None:
        value = dense_shape.op.graph.constant_value_of(dense_shape)
    if value is not None:
        return TensorShape([int(d) for d in value])
    rank = dense_shape.shape[0] if dense_shape.shape.rank == 1 else None
    if rank is not None and values_shape.rank == rank:
        return TensorShape([None] + values_shape.as_list()[1:])
    return TensorShape(None if rank is None else [None] * rank)


class IndexedSlices(CompositeTensor):
    """Slices `values` of a tensor of shape `dense_shape` at rows `indices` (TensorFlow's class)."""

    __slots__ = ("_values", "_indices", "_dense_shape", "__weakref__")

    def __init__(self, values, indices, dense_shape=None):
        self._values = values
        self._indices = indices
        self._dense_shape = dense_shape

    values = property(lambda self: self._values, doc="The slices: a tensor of shape [n] + dense_shape[1:].")
    indices = property(lambda self: self._indices, doc="The row of the dense tensor each slice is (1-D).")
    dense_shape = property(lambda self: self._dense_shape, doc="The dense tensor's shape (1-D), or None.")
    dtype = property(lambda self: self._values.dtype)
    name = property(lambda self: self._values.name)
    device = property(lambda self: self._values.device)
    op = property(lambda self: self._values.op)
    graph = property(lambda self: self._values.graph)

    @property
    def shape(self):
        """The dense tensor's static shape (from dense_shape when it is known)."""
        return _static_shape(self._dense_shape, self._values.shape)

    def consumers(self):
        return self._values.consumers() if hasattr(self._values, "consumers") else []

    def __neg__(self):
        return IndexedSlices(-self._values, self._indices, self._dense_shape)

    def __tf_tensor__(self, dtype=None, name=None):
        return densify(self, dtype)

    def __str__(self):
        dense = "" if self._dense_shape is None else ", dense_shape=%s" % (self._dense_shape,)
        return "IndexedSlices(indices=%s, values=%s%s)" % (self._indices, self._values, dense)

    # -- composite ------------------------------------------------------------------------------
    @property
    def _type_spec(self):
        return IndexedSlicesSpec(self.shape, self.dtype, self._indices.dtype,
                                 None if self._dense_shape is None else self._dense_shape.dtype,
                                 self._indices.shape)

    def _to_components(self):
        parts = (self._values, self._indices)
        return parts if self._dense_shape is None else parts + (self._dense_shape,)


class IndexedSlicesSpec(TypeSpec):
    """The type of an IndexedSlices: the dense shape and dtype, the indices' dtype and shape, and the
    dense_shape's dtype (None when the value has no dense_shape)."""

    __slots__ = ("_shape", "_dtype", "_indices_dtype", "_dense_shape_dtype", "_indices_shape")

    def __init__(self, shape=None, dtype=_dt.float32, indices_dtype=_dt.int64, dense_shape_dtype=None,
                 indices_shape=None):
        self._shape = as_shape(shape)
        self._dtype = _dt.as_dtype(dtype)
        self._indices_dtype = _dt.as_dtype(indices_dtype)
        self._dense_shape_dtype = None if dense_shape_dtype is None else _dt.as_dtype(dense_shape_dtype)
        self._indices_shape = as_shape(indices_shape).with_rank(1) if indices_shape is not None \
            else TensorShape([None])

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)

    @property
    def value_type(self):
        return IndexedSlices

    def _key(self):
        return (self._shape, self._dtype, self._indices_dtype, self._dense_shape_dtype, self._indices_shape)

    def _with_shape(self, shape):
        return IndexedSlicesSpec(shape, self._dtype, self._indices_dtype, self._dense_shape_dtype,
                                 self._indices_shape)

    def _component_specs(self):
        rows = self._indices_shape[0]
        values = TensorShape([rows] + (self._shape.as_list()[1:] if self._shape.rank is not None else [])) \
            if self._shape.rank is not None else TensorShape(None)
        specs = [TensorSpec(values, self._dtype), TensorSpec(self._indices_shape, self._indices_dtype)]
        if self._dense_shape_dtype is not None:
            specs.append(TensorSpec([self._shape.rank], self._dense_shape_dtype))
        return specs

    def _from_components(self, components):
        return IndexedSlices(*components)

    def _to_components(self, value):
        return value._to_components()

    def __reduce__(self):
        return type(self), self._key()

    def __repr__(self):
        return (f"IndexedSlicesSpec(shape={self._shape!r}, dtype={self._dtype!r}, indices_dtype="
                f"{self._indices_dtype!r}, dense_shape_dtype={self._dense_shape_dtype!r}, indices_shape="
                f"{self._indices_shape!r})")


def is_indexed_slices(value):
    return isinstance(value, IndexedSlices)


API = {"": ["IndexedSlices", "IndexedSlicesSpec"]}
