"""FunctionType: a function's parameters with the TraceType of each, binding of call arguments, printing.

    (a: TensorSpec(shape=(), dtype=tf.string, name=None)) -> TensorSpec(shape=(), dtype=tf.string, name=None)

Binding follows Python's rules (`inspect.Signature.bind`) and reports failures with TensorFlow's
wording: `Binding inputs to tf.function failed due to …`.
"""
import inspect


__all__ = ["Parameter", "FunctionType", "signature_of", "bind"]

_KIND_NAMES = {
    inspect.Parameter.POSITIONAL_ONLY: "POSITIONAL_ONLY",
    inspect.Parameter.POSITIONAL_OR_KEYWORD: "POSITIONAL_OR_KEYWORD",
    inspect.Parameter.VAR_POSITIONAL: "VAR_POSITIONAL",
    inspect.Parameter.KEYWORD_ONLY: "KEYWORD_ONLY",
    inspect.Parameter.VAR_KEYWORD: "VAR_KEYWORD",
}


class Parameter:
    __slots__ = ("name", "kind", "optional", "type_constraint")

    def __init__(self, name, kind, optional, type_constraint):
        self.name = name
        self.kind = kind
        self.optional = optional
        self.type_constraint = type_constraint

    def __repr__(self):
        return f"{self.name}: {self.type_constraint!r}"


class FunctionType:
    """Parameters (name, kind, TraceType) and the output type of one concrete function."""

    def __init__(self, parameters, output_type=None, captures=()):
        self.parameters = {p.name: p for p in parameters}
        self.output = output_type
        self.captures = captures

    def __repr__(self):
        params = ", ".join(repr(p) for p in self.parameters.values())
        return f"({params}) -> {self.output!r}"

    def pretty_printed_signature(self, verbose=True):
        lines = ["Input Parameters:"]
        for p in self.parameters.values():
            lines.append(f"  {p.name} ({_KIND_NAMES[p.kind]}): {p.type_constraint!r}")
        lines.append("Output Type:")
        lines.append(f"  {self.output!r}")
        lines.append("Captures:")
        if self.captures:
            for c in self.captures:
                lines.append(f"  {c}")
        else:
            lines.append("  None")
        return "\n".join(lines)


def signature_of(python_function):
    """The inspect.Signature of a function (or callable object), or None when it has none."""
    try:
        return inspect.signature(python_function)
    except (TypeError, ValueError):
        return None


def bind(signature, args, kwargs, fn_name="function"):
    """`[(name, kind, value)]` for a call, defaults applied; TypeError with TensorFlow's wording."""
    if signature is None:
        return [(f"args_{i}", inspect.Parameter.POSITIONAL_ONLY, a) for i, a in enumerate(args)] + \
            [(k, inspect.Parameter.KEYWORD_ONLY, v) for k, v in sorted(kwargs.items())]
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError as e:
        raise TypeError(f"Binding inputs to tf.function `{fn_name}` failed due to `{e}`. Received args: {args} "
                        f"and kwargs: {kwargs} for signature: {signature}.") from None
    bound.apply_defaults()
    out = []
    for name, value in bound.arguments.items():
        kind = signature.parameters[name].kind
        out.append((name, kind, value))
    return out
