"""TraceTypes: what a tf.function argument looks like to the function cache.

A TraceType answers three questions: is this argument type a subtype of that one (can a trace made for
`that` run with `this`)? what is the most specific common supertype of several (used by
`reduce_retracing`)? and what value stands for the argument while tracing (`placeholder_value`)?

- tensors: `TensorSpec` (dtype + shape; fixed dims ⊂ None dims ⊂ unknown rank);
- Python bool/int/float/str/None and other hashable values: `Literal` (by value and type);
- list/tuple/namedtuple/dict: by their components (dicts are order-insensitive);
- objects with `__tf_tracing_type__(context)`: whatever that returns (the public protocol);
- variables: by dtype and shape (the variable is an argument: each call passes its handle);
- anything else: by weak identity.

    >>> from_value((tf.constant(1.0), 2))
    Tuple[TensorSpec(shape=(), dtype=tf.float32, name=None), Literal[2]]
"""
import weakref

from ..framework.composite import TypeSpec
from ..framework.tensor import Tensor
from ..types.spec import TensorSpec

__all__ = ["TraceType", "Literal", "Tuple", "List", "NamedTuple", "Dict", "Weakref", "VariableType",
           "from_value", "path_str"]


class TraceType:
    """The protocol of `tf.types.experimental.TraceType` (subclass it for custom argument types)."""

    def is_subtype_of(self, other):
        raise NotImplementedError

    def most_specific_common_supertype(self, others):
        raise NotImplementedError

    def placeholder_value(self, placeholder_context=None):
        raise NotImplementedError

    def to_tensors(self, value):
        return []

    def __eq__(self, other):
        raise NotImplementedError

    def __hash__(self):
        raise NotImplementedError


class Literal(TraceType):
    """A Python value that is baked into the trace (`Literal[2]`)."""

    __slots__ = ("value", "_key")

    def __init__(self, value):
        self.value = value
        self._key = (type(value), value)

    def is_subtype_of(self, other):
        return self == other

    def most_specific_common_supertype(self, others):
        return self if all(self == o for o in others) else None

    def placeholder_value(self, placeholder_context=None):
        return self.value

    def __eq__(self, other):
        return type(other) is Literal and self._key == other._key

    def __hash__(self):
        return hash(self._key)

    def __repr__(self):
        return f"Literal[{self.value!r}]"


class _Collection(TraceType):
    """Shared behaviour of types made of component types."""

    __slots__ = ("components",)
    _label = "Collection"

    def __init__(self, components):
        self.components = tuple(components)

    def _same_kind(self, other):
        return type(other) is type(self) and len(other.components) == len(self.components)

    def is_subtype_of(self, other):
        return self._same_kind(other) and all(
            _is_subtype(a, b) for a, b in zip(self.components, other.components))

    def most_specific_common_supertype(self, others):
        if not all(self._same_kind(o) for o in others):
            return None
        parts = []
        for i, c in enumerate(self.components):
            s = _supertype(c, [o.components[i] for o in others])
            if s is None:
                return None
            parts.append(s)
        return self._with(parts)

    def _with(self, parts):
        return type(self)(parts)

    def __eq__(self, other):
        return type(other) is type(self) and other.components == self.components

    def __hash__(self):
        return hash((type(self), self.components))

    def __repr__(self):
        return f"{self._label}[{', '.join(repr(c) for c in self.components)}]"


class Tuple(_Collection):
    __slots__ = ()
    _label = "Tuple"

    def placeholder_value(self, placeholder_context=None):
        return tuple(c.placeholder_value(placeholder_context) for c in self.components)


class List(_Collection):
    __slots__ = ()
    _label = "List"

    def placeholder_value(self, placeholder_context=None):
        return [c.placeholder_value(placeholder_context) for c in self.components]


class NamedTuple(_Collection):
    __slots__ = ("cls",)

    def __init__(self, cls, components):
        super().__init__(components)
        self.cls = cls

    def _same_kind(self, other):
        return super()._same_kind(other) and other.cls is self.cls

    def _with(self, parts):
        return NamedTuple(self.cls, parts)

    def placeholder_value(self, placeholder_context=None):
        return self.cls(*(c.placeholder_value(placeholder_context) for c in self.components))

    def __eq__(self, other):
        return type(other) is NamedTuple and other.cls is self.cls and other.components == self.components

    def __hash__(self):
        return hash((self.cls, self.components))

    def __repr__(self):
        return f"{self.cls.__name__}[{', '.join(repr(c) for c in self.components)}]"


class Dict(_Collection):
    """A dict's type: its sorted keys and their value types (insertion order does not matter)."""

    __slots__ = ("keys", "cls")

    def __init__(self, keys, components, cls=dict):
        super().__init__(components)
        self.keys = tuple(keys)
        self.cls = cls

    def _same_kind(self, other):
        return type(other) is Dict and other.keys == self.keys

    def _with(self, parts):
        return Dict(self.keys, parts, self.cls)

    def placeholder_value(self, placeholder_context=None):
        return self.cls(zip(self.keys, (c.placeholder_value(placeholder_context) for c in self.components)))

    def __eq__(self, other):
        return type(other) is Dict and other.keys == self.keys and other.components == self.components

    def __hash__(self):
        return hash((self.keys, self.components))

    def __repr__(self):
        return "Dict[" + ", ".join(f"[{k!r}, {c!r}]" for k, c in zip(self.keys, self.components)) + "]"


class Weakref(TraceType):
    """An object matched by identity, held weakly so the cache does not keep it alive."""

    __slots__ = ("ref", "_id")

    def __init__(self, obj):
        try:
            self.ref = weakref.ref(obj)
        except TypeError:
            self.ref = lambda o=obj: o  # objects that cannot be weakly referenced are held strongly
        self._id = id(obj)

    def is_subtype_of(self, other):
        return self == other

    def most_specific_common_supertype(self, others):
        return self if all(self == o for o in others) else None

    def placeholder_value(self, placeholder_context=None):
        return self.ref()

    @property
    def alive(self):
        return self.ref() is not None

    def __eq__(self, other):
        return type(other) is Weakref and self._id == other._id and self.ref() is other.ref()

    def __hash__(self):
        return self._id

    def __repr__(self):
        obj = self.ref()
        return f"Weakref[{type(obj).__name__} at {self._id:#x}]"


class VariableType(TraceType):
    """A tf.Variable argument: matched by dtype and shape (like TensorFlow's VariableSpec), so one trace
    serves every variable of that type; the trace reads and writes the variable passed in each call."""

    __slots__ = ("dtype", "shape", "trainable")

    def __init__(self, dtype, shape, trainable=True):
        self.dtype, self.shape, self.trainable = dtype, shape, trainable

    def is_subtype_of(self, other):
        return type(other) is VariableType and other.dtype is self.dtype and self.shape.is_subtype_of(other.shape)

    def most_specific_common_supertype(self, others):
        if not all(type(o) is VariableType and o.dtype is self.dtype for o in others):
            return None
        shape = self.shape
        for o in others:
            shape = shape.most_specific_compatible_shape(o.shape)
        return VariableType(self.dtype, shape, self.trainable)

    def placeholder_value(self, placeholder_context=None):
        raise TypeError("A variable argument's placeholder is made by tracing (it needs the graph).")

    def __eq__(self, other):
        return type(other) is VariableType and other.dtype is self.dtype and other.shape == self.shape

    def __hash__(self):
        return hash((self.dtype, self.shape))

    def __repr__(self):
        return f"VariableSpec(shape={self.shape}, dtype={self.dtype!r}, trainable={self.trainable}, alias_id=None)"


def _is_subtype(a, b):
    return a == b or a.is_subtype_of(b)


def _supertype(a, others):
    if all(a == o for o in others):
        return a
    return a.most_specific_common_supertype(others)


def from_value(value, context=None):
    """The TraceType of one argument value."""
    if isinstance(value, Tensor):
        return TensorSpec(value.shape, value.dtype)
    t = type(value)
    if t in (int, float, bool, str, bytes, complex) or value is None:
        return Literal(value)
    custom = getattr(value, "__tf_tracing_type__", None)
    if custom is not None and not isinstance(value, type):
        return custom(context)
    if getattr(value, "_is_variable", False):
        return VariableType(value.dtype, value.shape, value.trainable)
    if isinstance(value, (TensorSpec, TypeSpec)):   # a spec (tf.RaggedTensorSpec too) stands for its values
        return value
    if t is list:
        return List(from_value(v, context) for v in value)
    if t is tuple:
        return Tuple(from_value(v, context) for v in value)
    if isinstance(value, tuple) and hasattr(t, "_fields"):
        return NamedTuple(t, (from_value(v, context) for v in value))
    if isinstance(value, dict):
        try:
            keys = sorted(value)
        except TypeError:
            keys = list(value)
        return Dict(keys, (from_value(value[k], context) for k in keys), t)
    try:
        hash(value)
    except TypeError:
        return Weakref(value)
    if t.__hash__ is object.__hash__:
        return Weakref(value)
    return Literal(value)


def path_str(path):
    """`args[1]['lr']`-style text for a path of indices/keys."""
    out = ""
    for p in path:
        out += f"[{p!r}]"
    return out
