"""`tf.RaggedTensor` and `tf.RaggedTensorSpec`.

A RaggedTensor is `values` (a Tensor, or another RaggedTensor for more ragged dimensions) partitioned
into rows by `row_splits` (int64 by default): row i is `values[row_splits[i]:row_splits[i + 1]]`. Its
components, as a composite crossing tf.function, are `flat_values` then each level's row splits.

Every method is composed of tensorflux ops on the components, so it works eagerly and while tracing, and
gradients reach `flat_values`.
"""
import numpy as np

from ...framework import errors
from ...framework.composite import CompositeTensor, TypeSpec
from ...framework.tensor import EagerTensor, Tensor
from ...types import dtypes as _dt
from ...types.shape import TensorShape, as_shape
from ...types.spec import TensorSpec
from ..array import gather as _gather
from ..array import join as _join
from ..array import scatter as _scatter
from ..array import segment as _segment
from ..convert import convert_to_tensor
from ..math import arith as _arith
from ..math import reduce as _reduce
from ..registry import constant_value
from ..shapes import creators as _creators
from ..shapes import shape_ops as _shape_ops
from ..shapes import shaping as _shaping

__all__ = ["RaggedTensor", "RaggedTensorSpec", "is_ragged"]

API = {"": ["RaggedTensor", "RaggedTensorSpec"]}

_SPLITS_TYPES = (_dt.int32, _dt.int64)


def is_ragged(x):
    return isinstance(x, RaggedTensor)


def _splits(value, dtype, what="row_splits"):
    """A row-partition tensor: a tensor keeps its int32/int64 dtype (as in TensorFlow); Python values become
    `dtype` (int64)."""
    if isinstance(value, Tensor):
        t = value
    else:
        t = convert_to_tensor(value, dtype_hint=dtype)
        if t.dtype is not dtype and t.dtype in _SPLITS_TYPES:
            t = _arith.cast(t, dtype)
    if t.dtype not in _SPLITS_TYPES:
        raise ValueError(f"{what} must have dtype int32 or int64; got {t.dtype!r}")
    if t.shape.rank is not None and t.shape.rank != 1:
        raise ValueError(f"Shape {t.shape} must have rank 1")
    return t


def _values(values):
    return values if isinstance(values, (Tensor, RaggedTensor)) else convert_to_tensor(values)


def _check_splits(splits, nvals):
    """Eager validation, TensorFlow's InvalidArgumentError texts."""
    s = getattr(splits, "_value", None)
    if s is None:
        return
    if s.size == 0:
        raise errors.InvalidArgumentError(None, None, "Arguments to from_row_splits do not form a valid RaggedTensor:"
                                          "zero: Arguments to from_row_splits do not form a valid RaggedTensor")
    if s[0] != 0:
        raise errors.InvalidArgumentError(None, None, "Arguments to from_row_splits do not form a valid RaggedTensor:"
                                          "zero")
    if (np.diff(s) < 0).any():
        raise errors.InvalidArgumentError(None, None, "Arguments to from_row_splits do not form a valid RaggedTensor:"
                                          "monotonic")
    if nvals is not None and s[-1] != nvals:
        raise errors.InvalidArgumentError(None, None, "Arguments to from_row_splits do not form a valid RaggedTensor:"
                                          "lengths")


def _nrows_of(values):
    if isinstance(values, RaggedTensor):
        return values.nrows()
    return _shape_ops.shape(values, out_type=_dt.int64)[0]


class RaggedTensor(CompositeTensor):
    """A tensor with one or more ragged (variable-length) dimensions."""

    __slots__ = ("_values", "_row_splits", "__weakref__")
    # the class path TensorFlow's own output shows (`print(spec.value_type)`)
    __module__ = "tensorflow.python.ops.ragged.ragged_tensor"

    def __init__(self, values, row_partition, internal=False):
        if not internal:
            raise ValueError("RaggedTensor constructor is private; please use one of the factory methods instead "
                             "(e.g., RaggedTensor.from_row_lengths())")
        self._values, self._row_splits = values, row_partition

    @classmethod
    def _make(cls, values, row_splits):
        self = object.__new__(cls)
        self._values, self._row_splits = values, row_splits
        return self

    # -- factories ---------------------------------------------------------------------------------
    @classmethod
    def from_row_splits(cls, values, row_splits, name=None, validate=True):
        values = _values(values)
        splits = _splits(row_splits, _dt.int64)
        if validate:
            _check_splits(splits, _static_nrows(values))
        return cls._make(values, splits)

    @classmethod
    def from_row_lengths(cls, values, row_lengths, name=None, validate=True):
        lengths = _splits(row_lengths, _dt.int64, "row_lengths")
        zero = _creators.zeros([1], dtype=lengths.dtype)
        return cls.from_row_splits(values, _join.concat([zero, _reduce.cumsum(lengths)], axis=0), validate=validate)

    @classmethod
    def from_row_starts(cls, values, row_starts, name=None, validate=True):
        values = _values(values)
        starts = _splits(row_starts, _dt.int64, "row_starts")
        total = _arith.cast(_nrows_of(values), starts.dtype)
        return cls.from_row_splits(values, _join.concat([starts, _shaping.reshape(total, [1])], axis=0),
                                   validate=validate)

    @classmethod
    def from_row_limits(cls, values, row_limits, name=None, validate=True):
        limits = _splits(row_limits, _dt.int64, "row_limits")
        zero = _creators.zeros([1], dtype=limits.dtype)
        return cls.from_row_splits(values, _join.concat([zero, limits], axis=0), validate=validate)

    @classmethod
    def from_value_rowids(cls, values, value_rowids, nrows=None, name=None, validate=True):
        values = _values(values)
        rowids = _splits(value_rowids, _dt.int64, "value_rowids")
        if nrows is None:   # one past the largest row id (0 rows when there are no values)
            nrows = _reduce.reduce_max(_join.concat([rowids, _creators.zeros([1], rowids.dtype) - 1], 0)) + 1
        nrows = convert_to_tensor(nrows, dtype=rowids.dtype)
        lengths = _segment.unsorted_segment_sum(_creators.ones_like(rowids), rowids, nrows)
        return cls.from_row_lengths(values, lengths, validate=validate)

    @classmethod
    def from_nested_row_splits(cls, flat_values, nested_row_splits, name=None, validate=True):
        result = _values(flat_values)
        for splits in reversed(list(nested_row_splits)):
            result = cls.from_row_splits(result, splits, validate=validate)
        return result

    @classmethod
    def from_nested_row_lengths(cls, flat_values, nested_row_lengths, name=None, validate=True):
        result = _values(flat_values)
        for lengths in reversed(list(nested_row_lengths)):
            result = cls.from_row_lengths(result, lengths, validate=validate)
        return result

    @classmethod
    def from_nested_value_rowids(cls, flat_values, nested_value_rowids, nested_nrows=None, name=None, validate=True):
        result = _values(flat_values)
        nested_nrows = [None] * len(nested_value_rowids) if nested_nrows is None else list(nested_nrows)
        for rowids, nrows in reversed(list(zip(nested_value_rowids, nested_nrows))):
            result = cls.from_value_rowids(result, rowids, nrows, validate=validate)
        return result

    @classmethod
    def from_tensor(cls, tensor, lengths=None, padding=None, ragged_rank=1, name=None, row_splits_dtype=_dt.int64):
        """Rows of `tensor` cut at `lengths`, or where trailing `padding` starts (else kept whole)."""
        tensor = convert_to_tensor(tensor)
        if lengths is not None and padding is not None:
            raise ValueError("Specify argument `lengths` or `padding`, but not both.")
        if ragged_rank > 1:
            inner = cls.from_tensor(_shaping.reshape(tensor, _join.concat(
                [[-1], _shape_ops.shape(tensor)[2:]], axis=0)), lengths=None, padding=padding,
                ragged_rank=ragged_rank - 1, row_splits_dtype=row_splits_dtype) if lengths is None else None
            if inner is None:
                raise ValueError("lengths with ragged_rank > 1 is not supported")
            width = _arith.cast(_shape_ops.shape(tensor)[1], _dt.int64)
            rows = _arith.cast(_shape_ops.shape(tensor)[0], _dt.int64)
            return cls.from_row_splits(inner, _creators.range(rows + 1, dtype=_dt.int64) * width, validate=False)
        shape = _shape_ops.shape(tensor, out_type=_dt.int64)
        nrows, width = shape[0], shape[1]
        if padding is not None:
            padding = convert_to_tensor(padding, dtype=tensor.dtype)
            is_pad = _equal(tensor, padding)
            if tensor.shape.rank is not None and tensor.shape.rank > 2:
                is_pad = _reduce.reduce_all(is_pad, axis=list(range(2, tensor.shape.rank)))
            # a row's length: one past its last element that is not padding
            keep = _arith.cast(_logical_not(is_pad), _dt.int64)
            positions = _creators.range(1, width + 1, dtype=_dt.int64)
            lengths = _reduce.reduce_max(keep * positions, axis=1)
        elif lengths is None:
            lengths = _creators.fill(_shaping.reshape(nrows, [1]), width)
        lengths = _arith.cast(convert_to_tensor(lengths), _dt.int64)
        mask = _less(_creators.range(width, dtype=_dt.int64), _shaping.expand_dims(lengths, 1))
        from ..array import indexing as _indexing
        values = _indexing.boolean_mask(tensor, mask)
        return cls.from_row_lengths(values, lengths, validate=False).with_row_splits_dtype(row_splits_dtype)

    @classmethod
    def from_sparse(cls, st_input, name=None, row_splits_dtype=_dt.int64):
        if st_input.shape.rank != 2:
            raise ValueError("rank(st_input) must be 2.")
        rowids = st_input.indices[:, 0]
        return cls.from_value_rowids(st_input.values, rowids, st_input.dense_shape[0], validate=False)

    # -- components --------------------------------------------------------------------------------
    values = property(lambda self: self._values, doc="The concatenated rows (a Tensor or RaggedTensor).")
    row_splits = property(lambda self: self._row_splits, doc="Where each row starts and ends in `values`.")

    @property
    def flat_values(self):
        v = self._values
        while isinstance(v, RaggedTensor):
            v = v._values
        return v

    @property
    def nested_row_splits(self):
        out, rt = [], self
        while isinstance(rt, RaggedTensor):
            out.append(rt._row_splits)
            rt = rt._values
        return tuple(out)

    @property
    def ragged_rank(self):
        return len(self.nested_row_splits)

    @property
    def dtype(self):
        return self.flat_values.dtype

    @property
    def row_splits_dtype(self):
        return self._row_splits.dtype

    @property
    def shape(self):
        nrows = self._row_splits.shape[0]
        inner = self._values.shape
        dims = [None if nrows is None else nrows - 1, None]
        if inner.rank is None:
            return TensorShape(None)
        return TensorShape(dims + list(inner.as_list()[1:]) if inner.rank else dims)

    def get_shape(self):
        return self.shape

    @property
    def uniform_row_length(self):
        return None

    # -- row partition views ----------------------------------------------------------------------
    def row_lengths(self, axis=1, name=None):
        if axis in (1, -self.shape.rank + 1 if self.shape.rank else 1):
            return self._row_splits[1:] - self._row_splits[:-1]
        if axis == 0:
            raise ValueError("axis=0 does not have row lengths")
        return self.with_values(self._values.row_lengths(axis - 1))

    def nrows(self, out_type=None, name=None):
        n = _shape_ops.shape(self._row_splits, out_type=self._row_splits.dtype)[0] - 1
        return n if out_type is None else _arith.cast(n, out_type)

    def row_starts(self, name=None):
        return self._row_splits[:-1]

    def row_limits(self, name=None):
        return self._row_splits[1:]

    def value_rowids(self, name=None):
        lengths = self.row_lengths()
        return _shaping_repeat(_creators.range(self.nrows(), dtype=self._row_splits.dtype), lengths)

    def nested_row_lengths(self, name=None):
        return tuple(s[1:] - s[:-1] for s in self.nested_row_splits)

    def nested_value_rowids(self, name=None):
        out, rt = [], self
        while isinstance(rt, RaggedTensor):
            out.append(rt.value_rowids())
            rt = rt._values
        return tuple(out)

    def bounding_shape(self, axis=None, name=None, out_type=None):
        dtype = out_type or self._row_splits.dtype
        nrows = _shaping.reshape(self.nrows(out_type=dtype), [1])
        lengths = self.row_lengths()
        longest = _reduce.reduce_max(_join.concat([_arith.cast(lengths, dtype), _creators.zeros([1], dtype)], 0))
        if isinstance(self._values, RaggedTensor):
            inner = self._values.bounding_shape(out_type=dtype)[1:]
        else:
            inner = _shape_ops.shape(self._values, out_type=dtype)[1:]
        shape = _join.concat([nrows, _shaping.reshape(longest, [1]), inner], axis=0)
        return shape if axis is None else _gather.gather(shape, axis)

    # -- new tensors from this one ----------------------------------------------------------------------
    def with_values(self, new_values):
        return RaggedTensor._make(_values(new_values), self._row_splits)

    def with_flat_values(self, new_values):
        if isinstance(self._values, RaggedTensor):
            return self.with_values(self._values.with_flat_values(new_values))
        return self.with_values(new_values)

    def with_row_splits_dtype(self, dtype):
        dtype = _dt.as_dtype(dtype)
        if dtype is self._row_splits.dtype:
            return self
        values = self._values.with_row_splits_dtype(dtype) if isinstance(self._values, RaggedTensor) else self._values
        return RaggedTensor._make(values, _arith.cast(self._row_splits, dtype))

    def merge_dims(self, outer_axis, inner_axis):
        if (outer_axis, inner_axis) != (0, 1):
            raise ValueError("merge_dims supports outer_axis=0, inner_axis=1")
        return self._values

    def to_tensor(self, default_value=None, name=None, shape=None):
        """A dense tensor: rows padded with `default_value` (0) to the bounding shape, or cut/padded to `shape`."""
        dense_values = self._values.to_tensor(default_value) if isinstance(self._values, RaggedTensor) \
            else self._values
        bounding = _join.concat([_shaping.reshape(self.nrows(out_type=_dt.int64), [1]),
                                 _shape_ops.shape(dense_values, out_type=_dt.int64)], axis=0)
        longest = _reduce.reduce_max(_join.concat([_arith.cast(self.row_lengths(), _dt.int64),
                                                   _creators.zeros([1], _dt.int64)], 0))
        bounding = _join.concat([bounding[:1], _shaping.reshape(longest, [1]), bounding[2:]], axis=0)
        target = bounding
        if shape is not None:
            wanted = [(-1 if d is None else d) for d in as_shape(shape).as_list()]
            wanted_t = convert_to_tensor(wanted, dtype=_dt.int64)
            # dimensions given in `shape` replace the bounding ones (only the outer two may differ)
            chosen = _arith.maximum(wanted_t, _creators.zeros_like(wanted_t)) * _arith.cast(
                _greater_equal(wanted_t, 0), _dt.int64) + bounding * _arith.cast(_less(wanted_t, 0), _dt.int64)
            target = _join.concat([chosen[:2], bounding[2:]], axis=0)
        rowids = _arith.cast(self.value_rowids(), _dt.int64)
        columns = _creators.range(_shape_ops.size(rowids, out_type=_dt.int64), dtype=_dt.int64) - \
            _gather.gather(_arith.cast(self._row_splits, _dt.int64), rowids)
        inside = _logical_and(_less(rowids, target[0]), _less(columns, target[1]))
        from ..array import indexing as _indexing
        coords = _indexing.boolean_mask(_join.stack([rowids, columns], axis=1), inside)
        kept = _indexing.boolean_mask(dense_values, inside)
        default = convert_to_tensor(0 if default_value is None else default_value, dtype=self.dtype)
        filled = _creators.fill(target, default)
        placed = _scatter.tensor_scatter_nd_update(filled, coords, kept)
        if shape is not None:
            placed = _shaping.reshape(placed, [d if d is not None else -1 for d in as_shape(shape).as_list()]) \
                if as_shape(shape).is_fully_defined() else placed
        return placed

    def to_sparse(self, name=None):
        from ..sparse.sparse_tensor import SparseTensor
        dense_rank1 = not isinstance(self._values, RaggedTensor) and self._values.shape.rank == 1
        if not dense_rank1:
            raise ValueError("to_sparse supports a 2-D RaggedTensor")
        rowids = _arith.cast(self.value_rowids(), _dt.int64)
        columns = _creators.range(_shape_ops.size(rowids, out_type=_dt.int64), dtype=_dt.int64) - \
            _gather.gather(_arith.cast(self._row_splits, _dt.int64), rowids)
        return SparseTensor._from_parts(_join.stack([rowids, columns], axis=1), self._values,
                                        _arith.cast(self.bounding_shape(), _dt.int64))

    def numpy(self):
        """Eager only: a NumPy array of the rows (an object array when their lengths differ)."""
        values = self._values.numpy()
        splits = self._row_splits.numpy()
        rows = [values[splits[i]:splits[i + 1]] for i in range(len(splits) - 1)]
        if not rows:
            return np.zeros((0, 0) + np.shape(values)[1:], dtype=values.dtype)
        if any(len(r) != len(rows[0]) for r in rows):
            out = np.empty(len(rows), dtype=object)    # filled one by one: NumPy must not merge the rows
            for i, r in enumerate(rows):
                out[i] = r
            return out
        return np.array(rows)

    def to_list(self):
        values = self._values.to_list() if isinstance(self._values, RaggedTensor) else self._values.numpy().tolist()
        splits = self._row_splits.numpy().tolist()
        return [values[splits[i]:splits[i + 1]] for i in range(len(splits) - 1)]

    # -- composite ----------------------------------------------------------------------------------------
    @property
    def _type_spec(self):
        return RaggedTensorSpec(self.shape, self.dtype, self.ragged_rank, self._row_splits.dtype)

    def _to_components(self):
        return (self.flat_values,) + self.nested_row_splits

    def _unbatch(self):
        rows = [self[i] for i in range(int(self.nrows().numpy()))]
        return [r if isinstance(r, RaggedTensor) else r.numpy() for r in rows]

    def __repr__(self):
        if isinstance(self.flat_values, EagerTensor) and all(isinstance(s, EagerTensor) for s in self.nested_row_splits):
            with np.printoptions(formatter={"all": _format_element}):
                text = _format_element(self.numpy())
            return f"<tf.RaggedTensor {text}>"
        return f"tf.RaggedTensor(values={self._values}, row_splits={self._row_splits})"

    __str__ = __repr__

    def __bool__(self):
        raise TypeError("RaggedTensor may not be used as a boolean.")



def _format_element(x):
    """How a RaggedTensor's rows print: NumPy's layout with ", " separators; an empty array as its list."""
    if isinstance(x, np.ndarray):
        return np.array2string(x, separator=", ") if x.size else repr(x.tolist())
    return str(x)


def _static_nrows(values):
    if isinstance(values, RaggedTensor):
        n = values._row_splits.shape[0]
        return None if n is None else n - 1
    return values.shape[0] if values.shape.rank else None


def _shaping_repeat(values, counts):
    from ..array import manip as _manip
    return _manip.repeat(values, counts, axis=0)


def _equal(a, b):
    from ..math import logic
    return logic.equal(a, b)


def _less(a, b):
    from ..math import logic
    return logic.less(a, b)


def _greater_equal(a, b):
    from ..math import logic
    return logic.greater_equal(a, b)


def _logical_not(a):
    from ..math import logic
    return logic.logical_not(a)


def _logical_and(a, b):
    from ..math import logic
    return logic.logical_and(a, b)


class RaggedTensorSpec(TypeSpec):
    """The type of a RaggedTensor: shape (ragged dimensions None), dtype, ragged rank, row-splits dtype."""

    __slots__ = ("_shape", "_dtype", "_ragged_rank", "_row_splits_dtype", "_flat_values_spec")

    def __init__(self, shape=None, dtype=_dt.float32, ragged_rank=None, row_splits_dtype=_dt.int64,
                 flat_values_spec=None):
        self._shape = as_shape(shape)
        self._dtype = _dt.as_dtype(dtype)
        self._row_splits_dtype = _dt.as_dtype(row_splits_dtype)
        rank = self._shape.rank
        if ragged_rank is None:
            if rank is None:
                raise ValueError("Must specify ragged_rank or a shape with a known rank.")
            ragged_rank = rank - 1
        if not isinstance(ragged_rank, int):
            raise TypeError(f"Argument `ragged_rank` must be an int. Received {ragged_rank}.")
        if rank is not None and not 0 <= ragged_rank < rank and not (rank == 0 and ragged_rank == 0):
            raise ValueError(f"Argument `ragged_rank` must be less than rank ({rank}). Received ragged_rank="
                             f"{ragged_rank}.")
        self._ragged_rank = ragged_rank
        self._flat_values_spec = flat_values_spec

    @classmethod
    def from_value(cls, value):
        return value._type_spec

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)
    ragged_rank = property(lambda self: self._ragged_rank)
    row_splits_dtype = property(lambda self: self._row_splits_dtype)
    flat_values_spec = property(lambda self: self._flat_values_spec)

    @property
    def value_type(self):
        return RaggedTensor if self._ragged_rank > 0 else Tensor

    def _key(self):
        return (self._shape, self._dtype, self._ragged_rank, self._row_splits_dtype)

    def __reduce__(self):
        return RaggedTensorSpec, self._key()

    def _with_shape(self, shape):
        return RaggedTensorSpec(shape, self._dtype, self._ragged_rank, self._row_splits_dtype)

    def _unbatched(self):
        return RaggedTensorSpec(self._shape[1:], self._dtype, self._ragged_rank - 1, self._row_splits_dtype)

    def _component_specs(self):
        dims = self._shape.as_list() if self._shape.rank is not None else None
        inner = dims[self._ragged_rank + 1:] if dims is not None else None
        flat = TensorSpec(TensorShape([None] + inner) if inner is not None else TensorShape(None), self._dtype)
        splits = [TensorSpec([None if dims is None or dims[0] is None else dims[0] + 1], self._row_splits_dtype)]
        splits += [TensorSpec([None], self._row_splits_dtype) for _ in range(self._ragged_rank - 1)]
        return [flat] + splits

    def _from_components(self, components):
        flat, splits = components[0], components[1:]
        result = flat
        for s in reversed(list(splits)):
            result = RaggedTensor._make(result, s)
        return result

    def _to_components(self, value):
        return value._to_components()

    def __repr__(self):
        return f"RaggedTensorSpec({self._shape!r}, {self._dtype!r}, {self._ragged_rank}, {self._row_splits_dtype!r})"
