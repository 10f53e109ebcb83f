"""TensorFlow's op interfaces (from `op_signatures.SIGNATURES`) parsed once into objects, and the binding
of a node's flat inputs/outputs to the interface's arguments.

    iface = interface("ConcatV2")          # inputs: values (N*@T), axis (@Tidx)
    iface.bind(iface.inputs, 3, attrs)     # -> [(Arg values, 2), (Arg axis, 1)]

Both the exporter (which fills type and count attrs from the tensors it wires) and the importer (which
maps TensorFlow's `node:output_arg:index` references to flat outputs) go through here.
"""
from ...types import dtypes as _dt

__all__ = ["interface", "Interface", "Arg", "NO_DEFAULT"]

NO_DEFAULT = object()


class Arg:
    """One input or output argument: a fixed dtype, a type attr, a count attr, or a type-list attr."""

    __slots__ = ("name", "dtype", "type_attr", "number_attr", "list_attr")

    def __init__(self, text):
        self.name, _, kind = text.partition(":")
        self.dtype = self.type_attr = self.number_attr = self.list_attr = None
        if kind.startswith("["):
            self.list_attr = kind[1:-1]
            return
        if "*" in kind:
            self.number_attr, _, kind = kind.partition("*")
        if kind.startswith("@"):
            self.type_attr = kind[1:]
        else:
            self.dtype = _dt.as_dtype(kind)

    @property
    def variadic(self):
        return self.number_attr is not None or self.list_attr is not None

    def count(self, attrs):
        """How many tensors this argument stands for, when `attrs` says; None when it does not."""
        if self.number_attr is not None:
            n = attrs.get(self.number_attr)
            return n if type(n) is int else None
        if self.list_attr is not None:
            types = attrs.get(self.list_attr)
            return len(types) if isinstance(types, (list, tuple)) else None
        return 1


class Interface:
    __slots__ = ("name", "inputs", "outputs", "attrs", "stateful")

    def __init__(self, name, inputs, outputs, attrs, stateful):
        self.name = name
        self.inputs = [Arg(a) for a in inputs.split()]
        self.outputs = [Arg(a) for a in outputs.split()]
        # name -> (kind, default or NO_DEFAULT)
        self.attrs = {a[0]: (a[1], a[2] if len(a) > 2 else NO_DEFAULT) for a in attrs}
        self.stateful = stateful

    def bind(self, args, total, attrs):
        """[(Arg, count)] splitting `total` flat tensors over `args`; a variadic argument whose count the
        attrs do not give takes what the others leave. ValueError when the numbers cannot match."""
        counts = [a.count(attrs) for a in args]
        unknown = [i for i, c in enumerate(counts) if c is None]
        if len(unknown) > 1:
            raise ValueError(f"op {self.name}: the attrs must give the lengths of its list arguments")
        if unknown:
            rest = total - sum(c for c in counts if c is not None)
            if rest < 0:
                raise ValueError(f"op {self.name}: {total} tensors are too few for its arguments")
            counts[unknown[0]] = rest
        if sum(counts) != total:
            raise ValueError(f"op {self.name} takes {sum(counts)} tensors here, got {total}")
        return list(zip(args, counts))


_cache = {}


def interface(op_type):
    """TensorFlow's interface of `op_type`, or None when TensorFlow has no such op (as far as tensorflux
    records)."""
    found = _cache.get(op_type)
    if found is None:
        from .op_signatures import SIGNATURES  # a large table: loaded on first export or import, not at startup
        entry = SIGNATURES.get(op_type) if isinstance(op_type, str) else None
        if entry is None:
            return None
        found = _cache[op_type] = Interface(op_type, *entry)
    return found
