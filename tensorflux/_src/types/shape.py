"""TensorShape: a possibly partial shape, with unknown dimensions (None) and unknown rank.

Invariant: `_dims` is a tuple of `int | None`, or None when the rank is unknown. Shapes are immutable.
Indexing gives plain ints (TensorFlow 2 behaviour); `.dims` gives TF1-style `Dimension` objects.

    >>> TensorShape([2, None]).merge_with([None, 3])
    TensorShape([2, 3])
"""

__all__ = ["TensorShape", "Dimension", "as_shape", "as_dimension", "dimension_value", "unknown_shape"]


def _dim_error(value):
    return TypeError(f"Dimension value must be integer or None or have an __index__ method, got value "
                     f"'{value!r}' with type '{type(value)}'")


def _to_dim(d):
    """The int (or None) for one dimension, validated like TensorFlow's Dimension."""
    if d is None:
        return None
    if type(d) is int:
        v = d
    elif isinstance(d, Dimension):
        return d._value
    else:
        try:
            v = d.__index__()
        except AttributeError:
            raise _dim_error(d) from None
    if v < 0:
        raise ValueError(f"Dimension {v} must be >= 0")
    return v


class Dimension:
    """One dimension of a shape (TF1's Dimension): arithmetic and comparisons propagate unknown (None)."""

    __slots__ = ("_value",)
    __hash__ = None  # unhashable, like TensorFlow's (== may return None)

    def __init__(self, value):
        self._value = _to_dim(value)

    @property
    def value(self):
        return self._value

    def is_compatible_with(self, other):
        other = as_dimension(other)._value
        return self._value is None or other is None or self._value == other

    def assert_is_compatible_with(self, other):
        if not self.is_compatible_with(other):
            raise ValueError(f"Dimensions {self} and {as_dimension(other)} are not compatible")

    def merge_with(self, other):
        other = as_dimension(other)
        if not self.is_compatible_with(other):
            raise ValueError(f"Dimensions {self} and {other} are not compatible")
        return Dimension(self._value if self._value is not None else other._value)

    def _combine(self, other, fn, reflected=False):
        try:
            other = as_dimension(other)._value
        except (TypeError, ValueError):
            return NotImplemented
        if self._value is None or other is None:
            return Dimension(None)
        return Dimension(fn(other, self._value) if reflected else fn(self._value, other))

    def __add__(self, other):
        return self._combine(other, int.__add__)

    def __radd__(self, other):
        return self._combine(other, int.__add__, True)

    def __sub__(self, other):
        return self._combine(other, int.__sub__)

    def __rsub__(self, other):
        return self._combine(other, int.__sub__, True)

    def __mul__(self, other):
        return self._combine(other, int.__mul__)

    def __rmul__(self, other):
        return self._combine(other, int.__mul__, True)

    def __floordiv__(self, other):
        return self._combine(other, int.__floordiv__)

    def __rfloordiv__(self, other):
        return self._combine(other, int.__floordiv__, True)

    def __mod__(self, other):
        return self._combine(other, int.__mod__)

    def __rmod__(self, other):
        return self._combine(other, int.__mod__, True)

    def __truediv__(self, other):
        raise TypeError(f"unsupported operand type(s) for /: 'Dimension' and '{type(other).__name__}', "
                        f"please use // instead")

    def __rtruediv__(self, other):
        raise TypeError(f"unsupported operand type(s) for /: '{type(other).__name__}' and 'Dimension', "
                        f"please use // instead")

    def _compare(self, other, fn):
        try:
            other = as_dimension(other)._value
        except (TypeError, ValueError):
            return NotImplemented
        if self._value is None or other is None:
            return None
        return fn(self._value, other)

    def __eq__(self, other):
        return self._compare(other, int.__eq__)

    def __ne__(self, other):
        return self._compare(other, int.__ne__)

    def __lt__(self, other):
        return self._compare(other, int.__lt__)

    def __le__(self, other):
        return self._compare(other, int.__le__)

    def __gt__(self, other):
        return self._compare(other, int.__gt__)

    def __ge__(self, other):
        return self._compare(other, int.__ge__)

    def __bool__(self):
        return bool(self._value)

    def __int__(self):
        return self._value

    __index__ = __int__

    def __reduce__(self):
        return Dimension, (self._value,)

    def __repr__(self):
        return f"Dimension({self._value!r})"

    def __str__(self):
        return "?" if self._value is None else str(self._value)


def as_dimension(value):
    return value if isinstance(value, Dimension) else Dimension(value)


def dimension_value(dim):
    """The int (or None) held by a Dimension, int or None."""
    if isinstance(dim, Dimension):
        return dim._value
    return dim


class TensorShape:
    """The static shape of a tensor; dimensions may be None and the rank may be unknown."""

    __slots__ = ("_dims",)

    def __init__(self, dims):
        if dims is None:
            self._dims = None
        elif isinstance(dims, TensorShape):
            self._dims = dims._dims
        elif isinstance(dims, (tuple, list)):
            self._dims = tuple([_to_dim(d) for d in dims])
        else:
            try:
                it = iter(dims)
            except TypeError:
                self._dims = (_to_dim(dims),)  # a single dimension
            else:
                self._dims = tuple(_iter_dims(dims, it))

    @classmethod
    def _from_tuple(cls, dims):
        """Trusted fast constructor for a tuple of non-negative ints (NumPy's .shape)."""
        s = object.__new__(cls)
        s._dims = dims
        return s

    @property
    def rank(self):
        return None if self._dims is None else len(self._dims)

    ndims = rank

    @property
    def dims(self):
        return None if self._dims is None else [Dimension(d) for d in self._dims]

    def as_list(self):
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def num_elements(self):
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self._dims:
            n *= d
        return n

    def is_fully_defined(self):
        return self._dims is not None and None not in self._dims

    def assert_is_fully_defined(self):
        if not self.is_fully_defined():
            raise ValueError(f"Shape {self} is not fully defined")

    def is_compatible_with(self, other):
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        if len(self._dims) != len(other._dims):
            return False
        return all(a is None or b is None or a == b for a, b in zip(self._dims, other._dims))

    def assert_is_compatible_with(self, other):
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are incompatible")

    def is_subtype_of(self, other):
        """True when every shape this one describes is also described by `other` (a TensorShape)."""
        if not isinstance(other, TensorShape):
            return False
        if other._dims is None:
            return True
        if self._dims is None or len(self._dims) != len(other._dims):
            return False
        return all(b is None or a == b for a, b in zip(self._dims, other._dims))

    def most_specific_compatible_shape(self, other):
        other = as_shape(other)
        if self._dims is None or other._dims is None or len(self._dims) != len(other._dims):
            return TensorShape(None)
        return TensorShape._from_tuple(tuple(a if a == b else None for a, b in zip(self._dims, other._dims)))

    def most_specific_common_supertype(self, others):
        """The most specific shape describing this shape and every shape in `others`."""
        result = self
        for other in others:
            if not isinstance(other, TensorShape):
                return None
            result = result.most_specific_compatible_shape(other)
        return result

    def merge_with(self, other):
        other = as_shape(other)
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        if len(self._dims) != len(other._dims) or not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        return TensorShape._from_tuple(tuple(a if a is not None else b for a, b in zip(self._dims, other._dims)))

    def concatenate(self, other):
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return TensorShape(None)
        return TensorShape._from_tuple(self._dims + other._dims)

    def assert_same_rank(self, other):
        other = as_shape(other)
        if self._dims is not None and other._dims is not None and len(self._dims) != len(other._dims):
            raise ValueError(f"Shapes {self} and {other} must have the same rank")

    def assert_has_rank(self, rank):
        if self._dims is not None and len(self._dims) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")

    def with_rank(self, rank):
        if self._dims is None:
            return unknown_shape(rank)
        if len(self._dims) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")
        return self

    def with_rank_at_least(self, rank):
        if self._dims is not None and len(self._dims) < rank:
            raise ValueError(f"Shape {self} must have rank at least {rank}")
        return self

    def with_rank_at_most(self, rank):
        if self._dims is not None and len(self._dims) > rank:
            raise ValueError(f"Shape {self} must have rank at most {rank}")
        return self

    def __add__(self, other):
        return self.concatenate(other)

    def __radd__(self, other):
        return as_shape(other).concatenate(self)

    def __len__(self):
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __bool__(self):
        return self._dims is not None

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self._dims)

    def __getitem__(self, key):
        if self._dims is not None:
            if isinstance(key, slice):
                return TensorShape._from_tuple(self._dims[key])
            return self._dims[key]
        if not isinstance(key, slice):
            return None
        # Unknown rank: only a slice with known non-negative bounds has a known length.
        if key.step is not None:
            raise ValueError("Steps are not yet handled")
        start = 0 if key.start is None else key.start
        if key.stop is None or start < 0 or key.stop < 0:
            return TensorShape(None)
        return unknown_shape(max(key.stop - start, 0))

    def __eq__(self, other):
        try:
            other = as_shape(other)
        except (TypeError, ValueError):
            return NotImplemented
        return self._dims == other._dims

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self):
        return hash(self._dims)

    def __repr__(self):
        if self._dims is None:
            return "TensorShape(None)"
        return f"TensorShape({list(self._dims)})"

    def __str__(self):
        if self._dims is None:
            return "<unknown>"
        if len(self._dims) == 1:
            return f"({self._dims[0]},)"
        return "(" + ", ".join(str(d) for d in self._dims) + ")"

    def __reduce__(self):
        return TensorShape, (self._dims,)


def _iter_dims(dims, it):
    for d in it:
        try:
            yield _to_dim(d)
        except TypeError as e:
            raise TypeError(f"Failed to convert '{dims!r}' to a shape: '{d!r}'could not be converted to a "
                            f"dimension. A shape should either be single dimension (e.g. 10), or an iterable "
                            f"of dimensions (e.g. [1, 10, None]).") from e


def unknown_shape(rank=None):
    """A shape of unknown rank, or of `rank` unknown dimensions."""
    return TensorShape(None if rank is None else (None,) * rank)


def as_shape(shape):
    """Converts a list, tuple, int, None or TensorShape to a TensorShape."""
    if isinstance(shape, TensorShape):
        return shape
    return TensorShape(shape)


# TensorFlow 2 keeps `Dimension` and the shape helpers under tf.compat (TF 1's names).
API = {"compat": ["dimension_value"], "compat.v1": ["Dimension", "TensorShape", "dimension_value"]}
