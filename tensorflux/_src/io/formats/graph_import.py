"""TensorFlow `FunctionDef`s (a `FunctionDefLibrary`, as TensorFlow 2.21 writes them in SavedModels and
`tf.function` graphs) as tensorflux graphs and concrete functions.

    functions = import_library(library)                 # nothing is built yet
    cf = functions.concrete("__inference_f_86", captures=[variable.handle])
    cf(tf.constant(...))                                # runs as any traced function does
    cf = function_from_def(library, name, captures)     # the same in one call

A FunctionDef's arguments are the function's inputs in order; `captures` binds the LAST arguments (a
SavedModel's bound inputs: variable handles for `resource` arguments, or constant tensors) and the
others become the concrete function's parameters (TensorSpecs named after the arguments). The outputs
are returned as a list, or packed into `output_structure` (any nest whose leaves, in order, stand for
the outputs). Functions the library calls (`PartitionedCall`/`StatefulPartitionedCall`'s `f`, the
branches of `If`/`StatelessIf`, the cond and body of `While`/`StatelessWhile`) are built on demand.

Every node is created through `registry.OPS[type]` and `Graph.create_op`, so it is re-inferred and
checked; TensorFlow's attrs are read against TensorFlow's OpDef (`op_signatures.py`) and mapped to
tensorflux's (`import_rules.py`). The library is untrusted data: names are only dict keys and op names
(which generated code mangles), attrs are checked for kind and allowed names, an unknown op type raises
`NotImplementedError: SavedModel uses op 'X' which tensorflux does not implement`, and the number of
nodes and the nesting depth of functions are capped.
"""
import heapq
import inspect
import keyword

from ...framework import errors, nest
from ...framework.graph import FuncGraph
from ...function.concrete import ConcreteFunction
from ...function.tracing import TraceResult
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ...types.spec import TensorSpec
from . import attr_values as _av
from . import import_rules
from .op_interfaces import NO_DEFAULT, interface

__all__ = ["import_library", "function_from_def", "ImportedLibrary", "MAX_NODES", "MAX_DEPTH", "MAX_ARGS"]

MAX_NODES = 1_000_000   # nodes in one function
MAX_DEPTH = 64          # functions nested in functions (calls, branches, loop bodies)
MAX_ARGS = 1 << 16      # tensors one list argument of a node may stand for (num_split, N, Tout, …)


def import_library(library):
    """An ImportedLibrary over a FunctionDefLibrary (a message, or its serialized bytes)."""
    return ImportedLibrary(library)


def function_from_def(library, name, captures=(), output_structure=None):
    """The ConcreteFunction of FunctionDef `name` of `library` (see the module docstring)."""
    lib = library if isinstance(library, ImportedLibrary) else ImportedLibrary(library)
    return lib.concrete(name, captures, output_structure)


def _invalid(message):
    return errors.InvalidArgumentError(None, None, message)


class ImportedLibrary:
    """The functions of one FunctionDefLibrary, built into tensorflux graphs on first use."""

    def __init__(self, library):
        messages = _av.messages()
        if isinstance(library, (bytes, bytearray, memoryview)):
            from .protos import parse
            library = parse(messages.FunctionDefLibrary, library, "a function library")
        self.defs = {}
        for fdef in library.function:
            name = fdef.signature.name
            if name in self.defs:
                raise _invalid(f"The function library defines the function {name!r} twice.")
            self.defs[name] = fdef
        # op type -> the FunctionDef of its gradient (TensorFlow's saved custom gradients), and the saved
        # output structure of such a function when a SavedModel's object graph gives it
        self.gradients = {g.registered_op_type: g.gradient_func for g in library.registered_gradients}
        self.gradient_structures = {}
        self._callees = {}      # name -> ConcreteFunction called from other functions (no captures)
        self._building = []     # names of the functions being built, outermost first

    @property
    def names(self):
        return list(self.defs)

    def function_def(self, name):
        fdef = self.defs.get(name)
        if fdef is None:
            raise errors.NotFoundError(None, None, f"The function library has no function named {name!r}.")
        return fdef

    # -- concrete functions -------------------------------------------------------------------------
    def concrete(self, name, captures=(), output_structure=None):
        """A new ConcreteFunction running FunctionDef `name`, its last arguments bound to `captures`."""
        graph, outputs = self.graph(name)
        captures = list(captures)
        n_args = len(graph.inputs) - len(captures)
        if n_args < 0:
            raise _invalid(f"The function {name!r} takes {len(graph.inputs)} inputs, fewer than the "
                           f"{len(captures)} captures given.")
        for internal, external in zip(graph.inputs[n_args:], captures):
            if internal.dtype is not external.dtype:
                raise _invalid(f"The function {name!r} takes a {internal.dtype.name} input '{internal.op.name}', "
                               f"but the capture bound to it is a {external.dtype.name} tensor.")
            graph._captures[id(external)] = (external, internal, external)
            variable = getattr(external, "_variable", None)
            if variable is not None:
                graph.handle_variables[id(internal)] = variable
        params, used = [], set()
        for i, t in enumerate(graph.inputs[:n_args]):
            pname = t.op.name if t.op.name.isidentifier() and not keyword.iskeyword(t.op.name) else f"arg_{i}"
            while pname in used:
                pname += "_"
            used.add(pname)
            params.append((pname, inspect.Parameter.POSITIONAL_OR_KEYWORD, TensorSpec(t.shape, t.dtype, pname)))
        structured = list(outputs) if output_structure is None else \
            nest.pack_sequence_as(output_structure, list(outputs))
        graph.structured_outputs = structured
        graph.structured_input_signature = (tuple(p[2] for p in params), {})
        signature = inspect.Signature([inspect.Parameter(n, k) for n, k, _ in params])
        return ConcreteFunction(TraceResult(graph, structured, list(outputs), []), None, signature, name, params)

    def callee(self, name):
        """The ConcreteFunction a call node runs (built once per name)."""
        cf = self._callees.get(name)
        if cf is None:
            cf = self._callees[name] = self.concrete(name)
        return cf

    # -- graphs -------------------------------------------------------------------------------------
    def graph(self, name, outer_graph=None):
        """(FuncGraph, output tensors) of FunctionDef `name`: a new graph each call."""
        fdef = self.function_def(name)
        if name in self._building:
            raise _invalid(f"The function {name!r} calls itself (through {' -> '.join(self._building)}); "
                           f"recursive functions cannot be imported.")
        if len(self._building) >= MAX_DEPTH:
            raise _invalid(f"Functions are nested more than {MAX_DEPTH} deep in the function library.")
        if len(fdef.node_def) > MAX_NODES:
            raise _invalid(f"The function {name!r} has {len(fdef.node_def)} nodes, more than tensorflux reads "
                           f"({MAX_NODES}).")
        self._building.append(name)
        try:
            return _FunctionBuilder(self, fdef, outer_graph).build()
        finally:
            self._building.pop()


class _FunctionBuilder:
    """Builds the FuncGraph of one FunctionDef."""

    def __init__(self, library, fdef, outer_graph):
        self.library = library
        self.fdef = fdef
        self.name = fdef.signature.name
        self.graph = FuncGraph(self.name, outer_graph=outer_graph)
        self.tensors = {}    # reference text -> tensor
        self.ops = {}        # node name -> the Operation control inputs wait for

    def where(self, node=None):
        return f"node {node.name!r} ({node.op}) of function {self.name!r}" if node is not None else \
            f"function {self.name!r}"

    def build(self):
        graph, signature = self.graph, self.fdef.signature
        for i, arg in enumerate(signature.input_arg):
            dtype = _av.dtype_of_enum(arg.type, f"argument {arg.name!r} of {self.where()}")
            shape = TensorShape(None) if dtype is not _dt.resource else TensorShape([])
            shapes = self.fdef.arg_attr[i].attr.get("_output_shapes") if i in self.fdef.arg_attr else None
            if shapes is not None and shapes.WhichOneof("value") == "list" and len(shapes.list.shape) == 1 \
                    and dtype is not _dt.resource:
                shape = _av.shape_of(shapes.list.shape[0])
            if arg.name in self.tensors:
                raise _invalid(f"The {self.where()} has two arguments named {arg.name!r}.")
            self.tensors[arg.name] = graph.placeholder(dtype, shape, arg.name)
        for node in self._ordered_nodes():
            self._node(node)
        outputs = []
        for arg in signature.output_arg:
            ref = self.fdef.ret.get(arg.name)
            if ref is None:
                raise _invalid(f"The {self.where()} does not say which tensor its output {arg.name!r} is.")
            t = self._tensor(ref, None)
            expected = _av.dtype_of_enum(arg.type, f"output {arg.name!r} of {self.where()}")
            if t.dtype is not expected:
                raise _invalid(f"The output {arg.name!r} of {self.where()} is declared {expected.name} but "
                               f"computed as {t.dtype.name}.")
            outputs.append(t)
        graph.outputs = list(outputs)
        graph.mark_out_of_scope()
        return graph, outputs

    def _ordered_nodes(self):
        """The nodes in an order where every input comes first (FunctionDefs do not promise one), otherwise
        in the file's order: TensorFlow writes nodes in creation order, and stateful ops must keep theirs."""
        nodes = {}
        for node in self.fdef.node_def:
            if node.name in nodes or node.name in self.tensors:
                raise _invalid(f"The {self.where()} has two nodes (or a node and an argument) named "
                               f"{node.name!r}.")
            nodes[node.name] = node
        waiting = {}
        ready = []
        pending = {}
        for name, node in nodes.items():
            deps = set()
            for ref in node.input:
                dep = ref[1:] if ref.startswith("^") else ref.split(":", 1)[0]
                if dep in nodes:
                    deps.add(dep)
                elif ref.startswith("^") or ":" in ref or dep not in self.tensors:
                    raise _invalid(f"The {self.where(node)} takes the input {ref!r}, which is neither an "
                                   f"argument nor a node of the function.")
            pending[name] = len(deps)
            for dep in deps:
                waiting.setdefault(dep, []).append(name)
            if not deps:
                ready.append(name)
        position = {name: i for i, name in enumerate(nodes)}
        ready = [(position[name], name) for name in ready]
        heapq.heapify(ready)
        order = []
        while ready:
            _, name = heapq.heappop(ready)
            order.append(nodes[name])
            for nxt in waiting.get(name, ()):
                pending[nxt] -= 1
                if pending[nxt] == 0:
                    heapq.heappush(ready, (position[nxt], nxt))
        if len(order) != len(nodes):
            raise _invalid(f"The nodes of {self.where()} form a cycle.")
        return order

    def _tensor(self, ref, node):
        t = self.tensors.get(ref)
        if t is None:
            raise _invalid(f"The {self.where(node) if node is not None else self.where()} refers to {ref!r}, "
                           f"which is not an output of any node.")
        return t

    def _node(self, node):
        iface = interface(node.op)
        if iface is None or not import_rules.supported(node.op):
            raise NotImplementedError(f"SavedModel uses op '{node.op}' which tensorflux does not implement "
                                      f"({self.where(node)}).")
        attrs = self._attrs(node, iface)
        inputs, controls = [], []
        for ref in node.input:
            if ref.startswith("^"):
                controls.append(self.ops[ref[1:]])
            else:
                inputs.append(self._tensor(ref, node))
        try:
            groups = iface.bind(iface.inputs, len(inputs), attrs)
        except ValueError as e:
            raise _invalid(f"The {self.where(node)} has inputs that do not match the op: {e}") from None
        flat = 0
        for arg, n in groups:
            for t in inputs[flat:flat + n]:
                expected = arg.dtype if arg.dtype is not None else \
                    (attrs.get(arg.type_attr) if arg.type_attr else None)
                if expected is not None and isinstance(expected, _dt.DType) and t.dtype is not expected:
                    raise _invalid(f"The {self.where(node)} takes a {expected.name} tensor as its input "
                                   f"'{arg.name}', got {t.dtype.name} ({t.name}).")
            flat += n
        before = len(self.graph._ops)
        outputs = import_rules.build(self, node, inputs, attrs)
        created = self.graph._ops[before:]
        if not created and outputs:
            created = [outputs[0].op]
        for op in created:
            for c in controls:
                if c not in op.control_inputs and c.graph is self.graph:
                    op.control_inputs.append(c)
        self.ops[node.name] = created[-1] if created else (outputs[0].op if outputs else None)
        out_groups = iface.bind(iface.outputs, len(outputs), attrs) if iface.outputs else []
        flat = 0
        for arg, n in out_groups:
            for j in range(n):
                self.tensors[f"{node.name}:{arg.name}:{j}"] = outputs[flat + j]
            flat += n

    def _attrs(self, node, iface):
        attrs = {}
        for key, value in node.attr.items():
            if key.startswith("_"):
                continue  # TensorFlow's annotations (_output_shapes, _read_only_resource_inputs, …)
            spec = iface.attrs.get(key)
            if spec is None:
                raise _invalid(f"NodeDef mentions attr '{key}' not in Op<name={node.op}>; NodeDef: "
                               f"{self.where(node)}.")
            attrs[key] = _av.attr_python(value, spec[0], f"attr '{key}' of {self.where(node)}")
        for key, (kind, default) in iface.attrs.items():
            if key not in attrs:
                if default is NO_DEFAULT:
                    raise _invalid(f"The {self.where(node)} lacks the attr '{key}' ({kind}), which its op "
                                   f"requires.")
                attrs[key] = _default(kind, default)
        for arg in iface.inputs + iface.outputs:   # counts are checked before anything is sized by them
            n = arg.count(attrs)
            if n is not None and not 0 <= n <= MAX_ARGS:
                raise _invalid(f"The {self.where(node)} gives its argument '{arg.name}' {n} tensors; tensorflux "
                               f"reads between 0 and {MAX_ARGS}.")
        return attrs

    def output_shapes(self, node):
        """The `_output_shapes` TensorFlow annotated `node` with, or None."""
        value = node.attr.get("_output_shapes")
        if value is None or value.WhichOneof("value") != "list":
            return None
        return [_av.shape_of(s) for s in value.list.shape]


def _default(kind, default):
    if kind == "type":
        return _dt.as_dtype(default)
    if kind == "shape":
        return TensorShape(default)
    if kind == "list(type)":
        return tuple(_dt.as_dtype(d) for d in default)
    if kind == "list(shape)":
        return tuple(TensorShape(s) for s in default)
    if kind.startswith("list("):
        return tuple(default)
    return default
