"""The serial form of traced functions: FuncGraphs, concrete functions and their values, as JSON + arrays.

A graph is a list of nodes in creation order (a valid execution order):

    {"name": "add", "op": "AddV2", "inputs": ["x:0", "add/y:0"], "control": [], "attrs": {...},
     "outputs": [["float32", [null, 2]]], "source": ["model.py", 12]}

plus its argument placeholders (`inputs`), its captures (`[placeholder, what it stands for]`: a variable
by index, a constant array, or a tensor of the enclosing graph) and its `outputs`. Attr values are tagged
JSON: `{"tuple": [...]}`, `{"dtype": "float32"}`, `{"shape": [null, 2]}`, `{"array": "a3"}` (NumPy values
go to the .npz), `{"graph": 2}` for the branch/body FuncGraphs of If/While (serialised recursively, by
index into the graph table), `{"concrete": 1}` for nested function calls. Attrs holding Python callables
(`tf.py_function`) cannot be saved: the error names the op.

A concrete function adds its parameters with their TraceTypes, its Python signature and its structured
outputs (tensor leaves are `{"out": i}`, indices into the flat outputs).

Rebuilding creates each op through `registry.OPS[type]` and `Graph.create_op` (so every op is re-inferred
and checked), then restores the saved control inputs and static shapes exactly. The file is untrusted
data: every node is checked before use (`_check_node`): its op type must be registered (NotFoundError
otherwise, as TensorFlow's "Op type not registered") and every attr must be one its OpDef's kernel takes
(InvalidArgumentError otherwise); names are only ever used as dict keys and, in generated code, through
codegen's identifier mangler.
"""
import base64
import collections
import inspect
import math

import numpy as np

from ...framework import errors
from ...framework.graph import FuncGraph, SymbolicTensor
from ...framework.tensor import EagerTensor, Tensor
from ...function import trace_type as _tt
from ...function.concrete import ConcreteFunction
from ...function.tracing import TraceResult
from ...ops import registry
from ...ops.random import RandomStream
from ...ops.state import ResourceHandle
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ...types.spec import TensorSpec
from ...state.variables import Variable

__all__ = ["GraphWriter", "GraphReader", "SaveError", "encode_signature", "decode_signature"]


class SaveError(ValueError):
    """Something reachable from the object being saved cannot be serialised."""


_KINDS = {k: i for i, k in enumerate((inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                      inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.KEYWORD_ONLY,
                                      inspect.Parameter.VAR_KEYWORD))}
_KIND_OF = {i: k for k, i in _KINDS.items()}


def _dims(shape):
    return None if shape.rank is None else shape.as_list()


class _Unsaveable(Exception):
    """A value with no serial form (the caller adds where it was found)."""


# -- writing ---------------------------------------------------------------------------------------
class GraphWriter:
    """Serialises concrete functions and everything their graphs refer to.

    `arrays` (a checkpoint.ArrayWriter) receives NumPy values; `variable_index(variable)` gives the index
    under which a captured variable is saved.
    """

    def __init__(self, arrays, variable_index):
        self.arrays = arrays
        self.variable_index = variable_index
        self.graphs = []
        self.concretes = []
        self._graph_ids = {}
        self._concrete_ids = {}
        self._alive = []  # the serialised objects stay alive, so their ids stay unique

    # -- concrete functions ----------------------------------------------------------------------
    def concrete(self, cf, strict=True):
        """The index of `cf` in the concrete-function table (serialising it on first use).

        `strict`: its parameters must be restorable (a function called by name after loading); a function
        only called from another graph may have parameters with no serial form.
        """
        cid = self._concrete_ids.get(id(cf))
        if cid is not None:
            if strict and self.concretes[cid]["opaque"]:
                self._params(cf, strict=True)  # raises the precise error
            return cid
        cid = self._concrete_ids[id(cf)] = len(self.concretes)
        self._alive.append(cf)
        entry = {"name": cf._name, "graph": None, "opaque": False}
        self.concretes.append(entry)
        params, opaque = self._params(cf, strict)
        entry.update(params=params, opaque=opaque, signature=encode_signature(cf._signature, self._value_or_none))
        entry["graph"] = self.graph(cf.graph)
        flat = cf._trace.flat_outputs
        positions = {id(t): i for i, t in enumerate(flat)}
        entry["flat_outputs"] = [t.name for t in flat]
        entry["structured_outputs"] = self._structure(cf._trace.structured_outputs, positions, cf)
        return cid

    def _params(self, cf, strict):
        out, opaque = [], False
        for name, kind, ttype in cf._params:
            try:
                encoded = encode_trace_type(ttype, self._value)
            except _Unsaveable as e:
                if strict:
                    raise SaveError(f"Cannot save the concrete function {cf._name}{cf._signature_text()}: its "
                                    f"argument `{name}` was traced as {ttype!r}, which cannot be restored without "
                                    f"the original Python program ({e}). Pass tensors, Python scalars, or "
                                    f"lists/tuples/dicts of them.") from None
                encoded, opaque = {"opaque": repr(ttype)}, True
            out.append([name, _KINDS[kind], encoded])
        return out, opaque

    def _structure(self, value, positions, cf):
        if isinstance(value, Tensor) and id(value) in positions:
            return {"out": positions[id(value)]}
        if isinstance(value, tuple) and hasattr(type(value), "_fields"):
            return {"namedtuple": [type(value).__name__, list(value._fields),
                                   [self._structure(v, positions, cf) for v in value]]}
        if isinstance(value, (list, tuple)):
            return {"list" if isinstance(value, list) else "tuple": [self._structure(v, positions, cf)
                                                                      for v in value]}
        if isinstance(value, dict):
            return {"dict": [[self._value(k), self._structure(v, positions, cf)] for k, v in value.items()]}
        try:
            return self._value(value)
        except _Unsaveable as e:
            raise SaveError(f"Cannot save the concrete function {cf._name}: it returns {e}.") from None

    # -- graphs ----------------------------------------------------------------------------------
    def graph(self, graph):
        gid = self._graph_ids.get(id(graph))
        if gid is not None:
            return gid
        gid = self._graph_ids[id(graph)] = len(self.graphs)
        self._alive.append(graph)
        entry = {"name": graph.name}
        self.graphs.append(entry)
        entry["nodes"] = [self._node(op, graph) for op in graph.get_operations()]
        entry["inputs"] = [t.name for t in graph.inputs]
        entry["captures"] = [[internal.name, self._capture(external, graph)]
                             for external, internal in graph.captures]
        entry["outputs"] = [t.name for t in graph.outputs]
        return gid

    def _node(self, op, graph):
        attrs = {}
        for key, value in op.attrs.items():
            try:
                attrs[key] = self._value(value)
            except _Unsaveable as e:
                raise SaveError(f"Cannot save the op '{op.name}' (type {op.type}) of the function graph "
                                f"'{graph.name}': its attr '{key}' holds {e}.") from None
        node = {"name": op.name, "op": op.type, "inputs": [t.name for t in op.inputs],
                "control": [c.name for c in op.control_inputs], "attrs": attrs,
                "outputs": [[t.dtype.name, _dims(t.shape)] for t in op.outputs]}
        if op.opdef is not None and op.opdef.name != op.type:
            node["opdef"] = op.opdef.name
        if op.source is not None:
            node["source"] = [str(op.source[0]), int(op.source[1])]
        return node

    def _capture(self, external, graph):
        if isinstance(external, ResourceHandle):
            variable = external._variable
            if variable is None:
                raise SaveError(f"The function graph '{graph.name}' captures the handle of a variable that no "
                                f"longer exists; it cannot be saved.")
            return {"variable": self.variable_index(variable)}
        if isinstance(external, SymbolicTensor):
            return {"tensor": [self.graph(external.graph), external.name]}
        value = getattr(external, "_value", None)
        if isinstance(external, EagerTensor) and isinstance(value, (np.ndarray, np.generic)):
            return {"constant": self._value(value)}
        raise SaveError(f"The function graph '{graph.name}' captures {external!r}, which cannot be saved (only "
                        f"variables and constant tensors can be captured by a saved function).")

    # -- values ----------------------------------------------------------------------------------
    def _value_or_none(self, value):
        try:
            return self._value(value)
        except _Unsaveable:
            return None

    def _value(self, v):
        if v is None or type(v) in (bool, int, str):
            return v
        if type(v) is float:
            return v if math.isfinite(v) else {"float": repr(v)}
        if isinstance(v, _dt.DType):
            return {"dtype": v.name}
        if isinstance(v, TensorShape):
            return {"shape": _dims(v)}
        if isinstance(v, TensorSpec):
            return {"spec": [_dims(v.shape), v.dtype.name, v.name]}
        if isinstance(v, np.dtype) or isinstance(v, type) and issubclass(v, np.generic):
            return {"np_dtype": _dt.FROM_NUMPY[np.dtype(v)].name}
        if isinstance(v, np.ndarray):
            return {"array": self.arrays.add(v)}
        if isinstance(v, np.generic):
            return {"array": self.arrays.add(np.asarray(v)), "scalar": True}
        if isinstance(v, tuple):
            return {"tuple": [self._value(x) for x in v]}
        if isinstance(v, list):
            return {"list": [self._value(x) for x in v]}
        if isinstance(v, dict):
            return {"dict": [[self._value(k), self._value(x)] for k, x in v.items()]}
        if isinstance(v, bytes):
            return {"bytes": base64.b64encode(v).decode("ascii")}
        if isinstance(v, complex):
            return {"complex": [repr(v.real), repr(v.imag)]}
        if isinstance(v, FuncGraph):
            return {"graph": self.graph(v)}
        if isinstance(v, ConcreteFunction):
            return {"concrete": self.concrete(v, strict=False)}
        if isinstance(v, SymbolicTensor):
            return {"tensor": [self.graph(v.graph), v.name]}
        if isinstance(v, RandomStream):
            return {"random_stream": [v.seed, v.seed2]}
        if isinstance(v, Variable):
            return {"variable": self.variable_index(v)}
        if isinstance(v, EagerTensor) and isinstance(getattr(v, "_value", None), (np.ndarray, np.generic)):
            return {"eager": self._value(v._value)}
        if callable(v):
            raise _Unsaveable(f"the Python callable {v!r}; ops that call back into Python (tf.py_function, "
                              f"tf.numpy_function) cannot be saved, because loading must not need the original "
                              f"Python program")
        raise _Unsaveable(f"a {type(v).__name__} ({v!r}), which has no serial form")


def encode_trace_type(ttype, value):
    """The serial form of a parameter's TraceType (`value` encodes literal values)."""
    if isinstance(ttype, TensorSpec):
        return {"spec": [_dims(ttype.shape), ttype.dtype.name, ttype.name]}
    if isinstance(ttype, _tt.Literal):
        return {"literal": value(ttype.value)}
    if isinstance(ttype, _tt.NamedTuple):
        return {"NamedTuple": [ttype.cls.__name__, list(ttype.cls._fields),
                               [encode_trace_type(c, value) for c in ttype.components]]}
    if isinstance(ttype, _tt.Tuple):
        return {"Tuple": [encode_trace_type(c, value) for c in ttype.components]}
    if isinstance(ttype, _tt.List):
        return {"List": [encode_trace_type(c, value) for c in ttype.components]}
    if isinstance(ttype, _tt.Dict):
        return {"Dict": [[value(k), encode_trace_type(c, value)] for k, c in zip(ttype.keys, ttype.components)]}
    if isinstance(ttype, _tt.VariableType):
        return {"VariableSpec": [_dims(ttype.shape), ttype.dtype.name, bool(ttype.trainable)]}
    raise _Unsaveable(f"a {type(ttype).__name__} argument")


def encode_signature(signature, value):
    """`[[name, kind, default?]]` of an inspect.Signature (None stays None); defaults with no serial form
    are recorded as missing (calls that rely on them then match no saved function)."""
    if signature is None:
        return None
    out = []
    for p in signature.parameters.values():
        item = [p.name, _KINDS[p.kind]]
        if p.default is not inspect.Parameter.empty:
            encoded = value(p.default)
            item.append({"default": encoded} if encoded is not None or p.default is None else {"unsaved": repr(p.default)})
        out.append(item)
    return out


# -- reading ---------------------------------------------------------------------------------------
class _UnsavedDefault:
    """Stands for a default value that could not be saved; it matches no saved function."""

    def __init__(self, text):
        self._text = text

    def __repr__(self):
        return f"<unsaved default {self._text}>"


class _Opaque(_tt.TraceType):
    """A parameter type with no serial form (a function only called from other graphs): matches nothing."""

    def __init__(self, text):
        self.text = text

    def is_subtype_of(self, other):
        return False

    def most_specific_common_supertype(self, others):
        return None

    def placeholder_value(self, placeholder_context=None):
        raise TypeError(f"A saved function's argument of type {self.text} cannot be recreated.")

    def __eq__(self, other):
        return other is self

    def __hash__(self):
        return id(self)

    def __repr__(self):
        return self.text


_namedtuple_classes = {}


def namedtuple_class(name, fields):
    """A namedtuple class standing for a saved one (made once per name and fields)."""
    key = (name, tuple(fields))
    cls = _namedtuple_classes.get(key)
    if cls is None:
        cls = _namedtuple_classes[key] = collections.namedtuple(name, fields)
    return cls


def decode_value(v, arrays, resolve=None):
    """A value from its tagged JSON form; `resolve(tag, payload)` handles graph-related tags."""
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, list):  # plain JSON lists appear only inside tagged containers
        return [decode_value(x, arrays, resolve) for x in v]
    if "array" in v:
        array = arrays.get(v["array"])
        return array[()] if v.get("scalar") else array
    (tag, payload), = v.items()
    if tag == "float":
        return float(payload)
    if tag == "dtype":
        return _dt.as_dtype(payload)
    if tag == "shape":
        return TensorShape(payload)
    if tag == "spec":
        return TensorSpec(TensorShape(payload[0]), _dt.as_dtype(payload[1]), payload[2])
    if tag == "np_dtype":
        return np.dtype(_dt.as_dtype(payload).as_numpy_dtype)
    if tag == "tuple":
        return tuple(decode_value(x, arrays, resolve) for x in payload)
    if tag == "list":
        return [decode_value(x, arrays, resolve) for x in payload]
    if tag == "dict":
        return {_hashable(decode_value(k, arrays, resolve)): decode_value(x, arrays, resolve) for k, x in payload}
    if tag == "bytes":
        return base64.b64decode(payload)
    if tag == "complex":
        return complex(float(payload[0]), float(payload[1]))
    if tag == "random_stream":
        return RandomStream(payload[0], payload[1])
    if tag == "eager":
        return EagerTensor(decode_value(payload, arrays, resolve))
    if resolve is not None:
        return resolve(tag, payload)
    raise ValueError(f"Unknown value tag {tag!r} in a saved function.")


def _hashable(key):
    return tuple(_hashable(k) for k in key) if isinstance(key, list) else key


def decode_trace_type(v, arrays):
    (tag, payload), = v.items()
    if tag == "spec":
        return TensorSpec(TensorShape(payload[0]), _dt.as_dtype(payload[1]), payload[2])
    if tag == "literal":
        return _tt.Literal(decode_value(payload, arrays))
    if tag == "Tuple":
        return _tt.Tuple(decode_trace_type(c, arrays) for c in payload)
    if tag == "List":
        return _tt.List(decode_trace_type(c, arrays) for c in payload)
    if tag == "NamedTuple":
        return _tt.NamedTuple(namedtuple_class(payload[0], payload[1]),
                              [decode_trace_type(c, arrays) for c in payload[2]])
    if tag == "Dict":
        return _tt.Dict([_hashable(decode_value(k, arrays)) for k, _ in payload],
                        [decode_trace_type(c, arrays) for _, c in payload])
    if tag == "VariableSpec":
        return _tt.VariableType(_dt.as_dtype(payload[1]), TensorShape(payload[0]), payload[2])
    if tag == "opaque":
        return _Opaque(payload)
    raise ValueError(f"Unknown argument type tag {tag!r} in a saved function.")


def decode_signature(items, arrays):
    """The inspect.Signature saved by `encode_signature` (None stays None)."""
    if items is None:
        return None
    params = []
    for item in items:
        name, kind = item[0], _KIND_OF[item[1]]
        default = inspect.Parameter.empty
        if len(item) > 2:
            (tag, payload), = item[2].items()
            default = decode_value(payload, arrays) if tag == "default" else _UnsavedDefault(payload)
        params.append(inspect.Parameter(name, kind, default=default))
    return inspect.Signature(params)


class GraphReader:
    """Rebuilds graphs and concrete functions from their serial form (each once, on first use)."""

    def __init__(self, graphs, concretes, arrays, variables):
        self._graph_entries = graphs
        self._concrete_entries = concretes
        self.arrays = arrays
        self.variables = variables
        self._graphs = {}      # gid -> FuncGraph
        self._tensors = {}     # gid -> {tensor name: tensor}
        self._concretes = {}   # cid -> ConcreteFunction
        self._building = []    # graphs being rebuilt, innermost last

    def concrete(self, cid):
        cf = self._concretes.get(cid)
        if cf is not None:
            return cf
        entry = self._concrete_entries[cid]
        gid = entry["graph"]
        graph = self.graph(gid)
        tensors = self._tensors[gid]
        flat = [tensors[n] for n in entry["flat_outputs"]]
        structured = self._structure(entry["structured_outputs"], flat)
        params = [(name, _KIND_OF[kind], decode_trace_type(t, self.arrays)) for name, kind, t in entry["params"]]
        types = tuple(t for _, _, t in params)
        graph.structured_outputs = structured
        graph.structured_input_signature = (types, {})
        signature = decode_signature(entry["signature"], self.arrays)
        if signature is None:  # the function had no Python signature: bind as `bind(None, …)` would
            signature = inspect.Signature([inspect.Parameter(n, k) for n, k, _ in params])
        cf = ConcreteFunction(TraceResult(graph, structured, flat, []), None, signature, entry["name"], params)
        self._concretes[cid] = cf
        return cf

    def _structure(self, v, flat):
        if isinstance(v, dict) and len(v) == 1:
            (tag, payload), = v.items()
            if tag == "out":
                return flat[payload]
            if tag == "namedtuple":
                cls = namedtuple_class(payload[0], payload[1])
                return cls(*(self._structure(x, flat) for x in payload[2]))
            if tag in ("list", "tuple"):
                items = [self._structure(x, flat) for x in payload]
                return items if tag == "list" else tuple(items)
            if tag == "dict":
                return {_hashable(decode_value(k, self.arrays)): self._structure(x, flat) for k, x in payload}
        return decode_value(v, self.arrays)

    def graph(self, gid):
        graph = self._graphs.get(gid)
        if graph is not None:
            return graph
        entry = self._graph_entries[gid]
        outer = self._building[-1] if self._building else None
        graph = FuncGraph(entry["name"], outer_graph=outer)
        self._graphs[gid] = graph
        tensors = self._tensors[gid] = {}
        ops = {}
        self._building.append(graph)
        try:
            for node in entry["nodes"]:
                op = self._node(graph, node, tensors, ops)
                ops[node["name"]] = op
                for i, t in enumerate(op.outputs):
                    tensors[f"{node['name']}:{i}"] = t
        finally:
            self._building.pop()
        graph.inputs = [tensors[n] for n in entry["inputs"]]
        for internal_name, ref in entry["captures"]:
            internal = tensors[internal_name]
            external = self._external(ref)
            graph._captures[id(external)] = (external, internal, external)
            variable = getattr(external, "_variable", None)
            if variable is None and isinstance(external, SymbolicTensor):
                variable = getattr(external.graph, "handle_variables", {}).get(id(external))
            if variable is not None:
                graph.handle_variables[id(internal)] = variable
        graph.outputs = [tensors[n] for n in entry["outputs"]]
        graph.mark_out_of_scope()
        return graph

    def _external(self, ref):
        (tag, payload), = ref.items()
        if tag == "variable":
            return self.variables[payload].handle
        if tag == "constant":
            return EagerTensor(decode_value(payload, self.arrays))
        if tag == "tensor":
            self.graph(payload[0])
            return self._tensors[payload[0]][payload[1]]
        raise ValueError(f"Unknown capture tag {tag!r} in a saved function.")

    def _resolve(self, tag, payload):
        if tag == "variable":
            return self.variables[payload]
        if tag == "graph":
            return self.graph(payload)
        if tag == "concrete":
            return self.concrete(payload)
        if tag == "tensor":
            self.graph(payload[0])
            return self._tensors[payload[0]][payload[1]]
        raise ValueError(f"Unknown value tag {tag!r} in a saved function.")

    def _node(self, graph, node, tensors, ops):
        _check_node(node, graph.name)
        attrs = {k: decode_value(v, self.arrays, self._resolve) for k, v in node["attrs"].items()}
        _check_required_attrs(node, attrs, graph.name)
        saved = [(_dt.as_dtype(d), TensorShape(s)) for d, s in node["outputs"]]
        kind = node["op"]
        if kind in ("Placeholder", "Const"):
            op = graph._add_op(None, kind, [], attrs, node["name"], saved)
        else:
            opdef = registry.OPS.get(node.get("opdef", kind))
            if opdef is None:
                raise ValueError(f"The saved function graph '{graph.name}' uses the op type {kind!r} (node "
                                 f"'{node['name']}'), which this version of tensorflux does not define.")
            graph.create_op(opdef, [tensors[n] for n in node["inputs"]], attrs, node["name"], type_name=kind)
            op = graph._ops[-1]
            # Outputs added after the op was built (a While differentiated inside the function gets its
            # iteration history as an extra output) are added back the same way.
            for dtype, shape in saved[len(op.outputs):]:
                op.outputs.append(SymbolicTensor(op, len(op.outputs), dtype, shape))
            if len(op.outputs) != len(saved):
                raise ValueError(f"The saved op '{node['name']}' ({kind}) had {len(saved)} outputs, but rebuilding "
                                 f"it gives {len(op.outputs)}.")
            for t, (dtype, shape) in zip(op.outputs, saved):
                if t.dtype is not dtype:
                    raise ValueError(f"The saved op '{node['name']}' ({kind}) produced {dtype.name}, but rebuilding "
                                     f"it gives {t.dtype.name}.")
                t._shape = shape
        op.control_inputs = [ops[c] for c in node["control"]]
        source = node.get("source")
        valid = isinstance(source, list) and len(source) == 2 and isinstance(source[0], str) and \
            type(source[1]) is int
        op.source = (source[0], source[1]) if valid else None
        return op


# -- validation of untrusted nodes ---------------------------------------------------------------------
_BUILTIN_NODES = ("Placeholder", "Const")   # built without an OpDef; codegen never passes their attrs on
# Ops codegen emits as Python control flow: their attrs are read by the emitter, not passed to a kernel.
_CONTROL_FLOW = {"If", "StatelessIf", "While", "StatelessWhile", "WhileGrad"}
# The attrs the graph builder and codegen read from these nodes, with the types they must decode to.
_GRAPHS = ("FuncGraph", lambda v: isinstance(v, FuncGraph))
_COUNT = ("non-negative int", lambda v: type(v) is int and v >= 0)
_REQUIRED_ATTRS = {
    "Placeholder": {"dtype": ("DType", lambda v: isinstance(v, _dt.DType)),
                    "shape": ("TensorShape", lambda v: isinstance(v, TensorShape))},
    "Const": {"value": ("array", lambda v: isinstance(v, (np.ndarray, np.generic))),
              "dtype": ("DType", lambda v: isinstance(v, _dt.DType))},
    "If": {"then_graph": _GRAPHS, "else_graph": _GRAPHS, "n_then": _COUNT},
    "While": {"cond_graph": _GRAPHS, "body_graph": _GRAPHS, "n_vars": _COUNT, "n_cond": _COUNT},
    "WhileGrad": {"grad_graph": _GRAPHS, "n_vars": _COUNT, "n_templates": _COUNT},
}
_REQUIRED_ATTRS["StatelessIf"] = _REQUIRED_ATTRS["If"]
_REQUIRED_ATTRS["StatelessWhile"] = _REQUIRED_ATTRS["While"]


def _check_required_attrs(node, attrs, graph_name):
    """The attrs codegen reads from builtin and control-flow nodes are present and of the right kind."""
    for key, (expected, valid) in _REQUIRED_ATTRS.get(node["op"], {}).items():
        if key not in attrs or not valid(attrs[key]):
            got = "nothing" if key not in attrs else type(attrs[key]).__name__
            raise errors.InvalidArgumentError(None, None, f"NodeDef {node['name']!r} ({node['op']}, saved function "
                                                          f"graph {graph_name!r}) needs the attr '{key}' as a "
                                                          f"{expected}; the file holds {got}.")
_NODE_FIELDS = (("name", str), ("op", str), ("inputs", list), ("control", list), ("attrs", dict),
                ("outputs", list))
_accepted_attrs_cache = {}


def _accepted_attrs(opdef):
    """The attr names `opdef`'s kernel accepts as keywords, or None when it takes `**attrs`."""
    if opdef in _accepted_attrs_cache:
        return _accepted_attrs_cache[opdef]
    try:
        params = inspect.signature(opdef.kernel).parameters.values()
    except (TypeError, ValueError):
        params = None
    if params is None or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        names = None
    else:
        names = frozenset(p.name for p in params if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                                                 inspect.Parameter.KEYWORD_ONLY))
    _accepted_attrs_cache[opdef] = names
    return names


def _check_node(node, graph_name):
    """Raises a TensorFlow error unless `node` is a well-formed node of a registered op with known attrs."""
    if not isinstance(node, dict):
        raise errors.DataLossError(None, None, f"A node of the saved function graph '{graph_name}' is a "
                                               f"{type(node).__name__}, not an object.")
    for field, kind in _NODE_FIELDS:
        if not isinstance(node.get(field), kind):
            raise errors.DataLossError(None, None, f"A node of the saved function graph '{graph_name}' has no "
                                                   f"valid `{field}` field (expected a {kind.__name__}).")
    name, op_type = node["name"], node["op"]
    opdef_name = node.get("opdef", op_type)
    if op_type in _BUILTIN_NODES and opdef_name == op_type:
        accepted = _REQUIRED_ATTRS[op_type]
    else:
        opdef = registry.OPS.get(opdef_name) if isinstance(opdef_name, str) else None
        if opdef is None or (op_type != opdef_name and (op_type in _CONTROL_FLOW or op_type in _BUILTIN_NODES)):
            raise errors.NotFoundError(None, None, f"Op type not registered {op_type!r} in binary running on "
                                                   f"tensorflux (node {name!r} of the saved function graph "
                                                   f"{graph_name!r}). Make sure the Op and Kernel are registered "
                                                   f"in the binary running in this process.")
        accepted = None if op_type in _CONTROL_FLOW else _accepted_attrs(opdef)
    for key in node["attrs"]:
        if not isinstance(key, str) or not key.isidentifier() or key.startswith("__") or \
                (accepted is not None and key not in accepted):
            raise errors.InvalidArgumentError(None, None, f"NodeDef mentions attr {key!r} not in Op<name="
                                                          f"{opdef_name}>; NodeDef: {name!r} (saved function "
                                                          f"graph {graph_name!r}).")
