"""Python structures as TensorFlow's `StructuredValue` (struct.proto): the input signatures, output structures
and argument specs of a SavedModel's functions.

Encoded: None, bool, int, float, str, TensorSpec, the specs of composite tensors (`SparseTensorSpec`,
`RaggedTensorSpec` as TensorFlow's `TypeSpecProto`: a class enum and the spec's state tuple), lists, tuples,
dicts with string keys, namedtuples, and tensorflux's trace types of the same shapes (a `Literal` is its
value). Decoding is the reverse (a composite spec is rebuilt from an allow-list of its classes); a
namedtuple comes back as a namedtuple class of the saved name and fields (both checked to be
identifiers), never as a class looked up by name. Anything else is refused with TypeError on save and
DataLossError on load.
"""
import collections
import inspect
import keyword

from ...framework.composite import TypeSpec
from ...framework import nest
from ...framework.errors import DataLossError
from ...function import trace_type as _tt
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ...types.spec import TensorSpec
from ..formats import attr_values as _av
from ..formats import protos

__all__ = ["encode", "decode", "trace_type_of", "encode_fullargspec", "decode_fullargspec", "MAX_DEPTH",
           "flat_specs"]

MAX_DEPTH = 64   # nesting a saved structure may have (a deeper one is a hostile file)


class Unsaveable(TypeError):
    """A value with no StructuredValue form."""


def _pb():
    return protos.load("struct")


def _spec_proto(out, spec):
    if spec.name:
        out.name = spec.name
    out.shape.CopyFrom(_av.shape_proto(protos.load("tensor_shape"), spec.shape))
    out.dtype = spec.dtype.as_datatype_enum


def encode(value, out=None):
    """A StructuredValue message for `value` (see the module docstring)."""
    out = _pb().StructuredValue() if out is None else out
    if isinstance(value, _tt.Literal):
        value = value.value
    if value is None:
        out.none_value.SetInParent()
    elif isinstance(value, bool):
        out.bool_value = value
    elif isinstance(value, int) and not isinstance(value, bool):
        if not -(1 << 63) <= value < (1 << 63):
            raise Unsaveable(f"the integer {value} does not fit in 64 bits")
        out.int64_value = value
    elif isinstance(value, float):
        out.float64_value = value
    elif isinstance(value, str):
        out.string_value = value
    elif isinstance(value, TensorSpec):
        _spec_proto(out.tensor_spec_value, value)
    elif isinstance(value, TypeSpec):
        _type_spec_proto(out.type_spec_value, value)
    elif isinstance(value, TensorShape):
        out.tensor_shape_value.CopyFrom(_av.shape_proto(protos.load("tensor_shape"), value))
    elif isinstance(value, _dt.DType):
        out.tensor_dtype_value = value.as_datatype_enum
    elif isinstance(value, _tt.NamedTuple):
        _named_tuple(out, value.cls.__name__, value.cls._fields, value.components)
    elif isinstance(value, tuple) and hasattr(type(value), "_fields"):
        _named_tuple(out, type(value).__name__, type(value)._fields, list(value))
    elif isinstance(value, (_tt.Tuple, tuple)):
        out.tuple_value.SetInParent()
        for item in (value.components if isinstance(value, _tt.Tuple) else value):
            encode(item, out.tuple_value.values.add())
    elif isinstance(value, (_tt.List, list)):
        out.list_value.SetInParent()
        for item in (value.components if isinstance(value, _tt.List) else value):
            encode(item, out.list_value.values.add())
    elif isinstance(value, (_tt.Dict, dict)):
        items = zip(value.keys, value.components) if isinstance(value, _tt.Dict) else value.items()
        out.dict_value.SetInParent()
        for key, item in items:
            if not isinstance(key, str):
                raise Unsaveable(f"a dict key {key!r} (SavedModel structures have string keys only)")
            encode(item, out.dict_value.fields[key])
    else:
        raise Unsaveable(f"a {type(value).__name__} ({value!r})")
    return out


# -- composite specs: TypeSpecProto ----------------------------------------------------------------
# TensorFlow's TypeSpecClass enum value -> (class name, the spec's state as a tuple, the spec from its state)
def _sparse_state(spec):
    return (spec.shape, spec.dtype)


def _ragged_state(spec):
    return (spec.shape, spec.dtype, spec.ragged_rank, spec.row_splits_dtype)


def _composite_classes():
    from ...ops.ragged.ragged_tensor import RaggedTensorSpec
    from ...ops.sparse.sparse_tensor import SparseTensorSpec
    return {1: ("SparseTensorSpec", SparseTensorSpec, _sparse_state, 2),
            3: ("RaggedTensorSpec", RaggedTensorSpec, _ragged_state, 4)}


def _type_spec_proto(out, spec):
    for enum, (name, cls, state, _) in _composite_classes().items():
        if type(spec) is cls:
            out.type_spec_class = enum
            out.type_spec_class_name = name
            out.num_flat_components = len(spec._component_specs())
            encode(state(spec), out.type_state)
            return
    raise Unsaveable(f"a {type(spec).__name__} ({spec!r}), a composite TensorFlow's SavedModel structures "
                     f"cannot name")


def _decode_type_spec(message, depth):
    known = _composite_classes().get(message.type_spec_class)
    if known is None or message.type_spec_class_name not in ("", known[0]):
        raise DataLossError(None, None, f"tensorflux does not read the saved TypeSpec "
                                        f"{message.type_spec_class_name or message.type_spec_class!r}")
    name, cls, _, n_state = known
    state = decode(message.type_state, depth + 1)
    kinds = (TensorShape, _dt.DType, int, _dt.DType)[:n_state]
    if not (isinstance(state, tuple) and len(state) == n_state and
            all(isinstance(v, k) and not isinstance(v, bool) for v, k in zip(state, kinds))):
        raise DataLossError(None, None, f"a saved {name} has the state {state!r}")
    try:
        spec = cls(*state)
    except (TypeError, ValueError) as error:
        raise DataLossError(None, None, f"a saved {name} is invalid: {error}") from None
    if message.num_flat_components not in (0, len(spec._component_specs())):
        raise DataLossError(None, None, f"a saved {name} says it has {message.num_flat_components} components")
    return spec


def flat_specs(structure):
    """The TensorSpecs of the flat tensors a decoded structure stands for (a composite spec gives its
    components' specs)."""
    out = []
    for leaf in nest.flatten(structure):
        if isinstance(leaf, TensorSpec):
            out.append(leaf)
        elif isinstance(leaf, TypeSpec):
            out.extend(leaf._component_specs())
    return out


def _named_tuple(out, name, fields, values):
    out.named_tuple_value.name = name
    for field, item in zip(fields, values):
        pair = out.named_tuple_value.values.add()
        pair.key = field
        encode(item, pair.value)


_namedtuple_classes = {}


def _identifier(text, what):
    if not (isinstance(text, str) and text.isidentifier() and not keyword.iskeyword(text)
            and not text.startswith("_")):
        raise DataLossError(None, None, f"a saved namedtuple's {what} {text!r} is not a Python identifier")
    return text


def namedtuple_class(name, fields):
    """A namedtuple class standing for a saved one (made once per name and fields)."""
    key = (name, tuple(fields))
    cls = _namedtuple_classes.get(key)
    if cls is None:
        _identifier(name, "name")
        for field in fields:
            _identifier(field, "field")
        if len(set(fields)) != len(fields):
            raise DataLossError(None, None, f"a saved namedtuple {name!r} repeats a field")
        cls = _namedtuple_classes[key] = collections.namedtuple(name, fields)
    return cls


def decode(message, depth=0):
    """The Python value a StructuredValue stands for (TensorSpec leaves for tensors)."""
    if depth > MAX_DEPTH:
        raise DataLossError(None, None, f"a saved structure is nested more than {MAX_DEPTH} deep")
    kind = message.WhichOneof("kind")
    if kind is None or kind == "none_value":
        return None
    if kind in ("bool_value", "int64_value", "float64_value", "string_value"):
        return getattr(message, kind)
    if kind == "tensor_spec_value":
        spec = message.tensor_spec_value
        dtype = _av.dtype_of_enum(spec.dtype, "a saved TensorSpec")
        return TensorSpec(_av.shape_of(spec.shape), dtype, spec.name or None)
    if kind == "tensor_shape_value":
        return TensorShape(_av.shape_of(message.tensor_shape_value))
    if kind == "tensor_dtype_value":
        return _av.dtype_of_enum(message.tensor_dtype_value, "a saved dtype")
    if kind == "list_value":
        return [decode(v, depth + 1) for v in message.list_value.values]
    if kind == "tuple_value":
        return tuple(decode(v, depth + 1) for v in message.tuple_value.values)
    if kind == "dict_value":
        return {k: decode(message.dict_value.fields[k], depth + 1) for k in sorted(message.dict_value.fields)}
    if kind == "named_tuple_value":
        named = message.named_tuple_value
        cls = namedtuple_class(named.name, [p.key for p in named.values])
        return cls(*(decode(p.value, depth + 1) for p in named.values))
    if kind == "type_spec_value":
        return _decode_type_spec(message.type_spec_value, depth)
    raise DataLossError(None, None, f"tensorflux does not read the saved structure kind {kind!r}")


def trace_type_of(value):
    """The trace type a decoded input structure stands for (tensors as TensorSpec, the rest literal)."""
    if isinstance(value, (TensorSpec, TypeSpec)):
        return value
    if isinstance(value, tuple) and hasattr(type(value), "_fields"):
        return _tt.NamedTuple(type(value), [trace_type_of(v) for v in value])
    if isinstance(value, tuple):
        return _tt.Tuple(trace_type_of(v) for v in value)
    if isinstance(value, list):
        return _tt.List(trace_type_of(v) for v in value)
    if isinstance(value, dict):
        return _tt.Dict(list(value), [trace_type_of(v) for v in value.values()])
    return _tt.Literal(value)


# -- FullArgSpec ------------------------------------------------------------------------------------
def encode_fullargspec(signature, out, drop_self=False, defaults_ok=True):
    """Writes an inspect.Signature as TensorFlow's `FullArgSpec` named tuple into `out`."""
    params = list(signature.parameters.values()) if signature is not None else []
    args, kwonly, defaults, kwonly_defaults = [], [], [], {}
    varargs = varkw = None
    for p in params:
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            args.append(p.name)
            if p.default is not p.empty:
                defaults.append(p.default)
        elif p.kind is p.VAR_POSITIONAL:
            varargs = p.name
        elif p.kind is p.KEYWORD_ONLY:
            kwonly.append(p.name)
            if p.default is not p.empty:
                kwonly_defaults[p.name] = p.default
        else:
            varkw = p.name
    if drop_self and args[:1] == ["self"]:
        args = args[1:]

    def saveable(values):
        try:
            encode(values)
            return True
        except Unsaveable:
            return False

    fields = [("args", args), ("varargs", varargs), ("varkw", varkw),
              ("defaults", tuple(defaults) if defaults and saveable(tuple(defaults)) else None),
              ("kwonlyargs", kwonly),
              ("kwonlydefaults", kwonly_defaults if kwonly_defaults and saveable(kwonly_defaults) else None),
              ("annotations", {})]
    _named_tuple(out, "FullArgSpec", [k for k, _ in fields], [v for _, v in fields])
    return out


def decode_fullargspec(message):
    """The inspect.Signature a saved FullArgSpec describes (None when it holds none)."""
    if message.WhichOneof("kind") != "named_tuple_value":
        return None
    spec = {p.key: p.value for p in message.named_tuple_value.values}

    def get(key, default):
        return decode(spec[key]) if key in spec else default

    args, varargs, varkw = get("args", []) or [], get("varargs", None), get("varkw", None)
    defaults, kwonly, kwonly_defaults = get("defaults", None) or (), get("kwonlyargs", []) or [], \
        get("kwonlydefaults", None) or {}
    names = list(args) + list(kwonly) + [n for n in (varargs, varkw) if n]
    for name in names:
        if not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name):
            raise DataLossError(None, None, f"a saved function's argument name {name!r} is not an identifier")
    if len(set(names)) != len(names) or len(defaults) > len(args) or not isinstance(kwonly_defaults, dict):
        raise DataLossError(None, None, "a saved function's argument spec is inconsistent")
    params = []
    first_default = len(args) - len(defaults)
    for i, name in enumerate(args):
        default = defaults[i - first_default] if i >= first_default else inspect.Parameter.empty
        params.append(inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=default))
    if varargs:
        params.append(inspect.Parameter(varargs, inspect.Parameter.VAR_POSITIONAL))
    for name in kwonly:
        params.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY,
                                        default=kwonly_defaults.get(name, inspect.Parameter.empty)))
    if varkw:
        params.append(inspect.Parameter(varkw, inspect.Parameter.VAR_KEYWORD))
    try:
        return inspect.Signature(params)
    except ValueError as error:
        raise DataLossError(None, None, f"a saved function's argument spec is inconsistent: {error}") from None
