"""TensorShape: a possibly partial shape, with unknown dimensions (None) and unknown rank.

Invariant: `_dims` is a tuple of `int | None`, or None when the rank is unknown. Shapes are immutable.

    >>> TensorShape([2, None]).merge_with([None, 3])
    TensorShape([2, 3])
"""

__all__ = ["TensorShape", "Dimension", "as_shape", "dimension_value"]


class Dimension:
    """One dimension of a shape (TF1's Dimension object; TensorFlow 2 shapes index to plain ints)."""

    __slots__ = ("_value",)

    def __init__(self, value):
        if isinstance(value, Dimension):
            value = value._value
        if value is not None:
            try:
                value = int(value.__index__())
            except AttributeError:
                raise TypeError(f"Dimension value must be integer or None or have an __index__ method, "
                                f"got value '{value!r}' with type '{type(value)}'") from None
            if value < 0:
                raise ValueError(f"Dimension {value} must be >= 0")
        self._value = value

    @property
    def value(self):
        return self._value

    def is_compatible_with(self, other):
        other = dimension_value(other)
        return self._value is None or other is None or self._value == other

    def merge_with(self, other):
        other = dimension_value(other)
        if not self.is_compatible_with(other):
            raise ValueError(f"Dimensions {self} and {Dimension(other)} are not compatible")
        return Dimension(self._value if self._value is not None else other)

    def __eq__(self, other):
        other = dimension_value(other)
        if self._value is None or other is None:
            return None
        return self._value == other

    def __hash__(self):
        return hash(self._value)

    def __int__(self):
        return self._value

    __index__ = __int__

    def __repr__(self):
        return f"Dimension({self._value!r})"

    def __str__(self):
        return "?" if self._value is None else str(self._value)


def dimension_value(dim):
    """The int (or None) held by a Dimension, int or None."""
    if isinstance(dim, Dimension):
        return dim._value
    if dim is None:
        return None
    return int(dim.__index__()) if not isinstance(dim, int) else dim


def _to_dim(d):
    if d is None:
        return None
    if isinstance(d, Dimension):
        return d._value
    try:
        v = d.__index__()
    except AttributeError:
        raise TypeError(f"Dimension value must be integer or None or have an __index__ method, "
                        f"got value '{d!r}' with type '{type(d)}'") from None
    if v < 0:
        raise ValueError(f"Dimension {v} must be >= 0")
    return v


class TensorShape:
    """The static shape of a tensor; dimensions may be None and the rank may be unknown."""

    __slots__ = ("_dims",)

    def __init__(self, dims):
        if dims is None:
            self._dims = None
        elif isinstance(dims, TensorShape):
            self._dims = dims._dims
        elif isinstance(dims, tuple) and all(type(d) is int and d >= 0 for d in dims):
            self._dims = dims
        else:
            try:
                it = iter(dims)
            except TypeError:
                self._dims = (_to_dim(dims),)
            else:
                self._dims = tuple(_to_dim(d) for d in it)

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
        return None if self._dims is None else list(self._dims)

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
            raise ValueError(f"Shapes {self} and {as_shape(other)} are incompatible")

    def is_subtype_of(self, other):
        """True when every shape this one describes is also described by `other`."""
        other = as_shape(other)
        if other._dims is None:
            return True
        if self._dims is None or len(self._dims) != len(other._dims):
            return False
        return all(b is None or a == b for a, b in zip(self._dims, other._dims))

    def most_specific_compatible_shape(self, other):
        other = as_shape(other)
        if self._dims is None or other._dims is None or len(self._dims) != len(other._dims):
            return TensorShape(None)
        return TensorShape(tuple(a if a == b else None for a, b in zip(self._dims, other._dims)))

    most_specific_common_supertype_of = most_specific_compatible_shape

    def merge_with(self, other):
        other = as_shape(other)
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        if len(self._dims) != len(other._dims) or not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        return TensorShape(tuple(a if a is not None else b for a, b in zip(self._dims, other._dims)))

    def concatenate(self, other):
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return TensorShape(None)
        return TensorShape(self._dims + other._dims)

    def with_rank(self, rank):
        if self._dims is None:
            return TensorShape([None] * rank)
        if len(self._dims) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")
        return self

    def with_rank_at_least(self, rank):
        if self._dims is not None and len(self._dims) < rank:
            raise ValueError(f"Shape {self} must have rank at least {rank}")
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
        if self._dims is None:
            if isinstance(key, slice):
                return TensorShape(None)
            return None
        if isinstance(key, slice):
            return TensorShape(self._dims[key])
        return self._dims[key]

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


def as_shape(shape):
    """Converts a list, tuple, int, None or TensorShape to a TensorShape."""
    if isinstance(shape, TensorShape):
        return shape
    return TensorShape(shape)
