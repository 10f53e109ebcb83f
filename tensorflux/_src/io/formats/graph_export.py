"""Traced tensorflux graphs as TensorFlow protocol buffers: `FunctionDef`s in a `FunctionDefLibrary`, and
`GraphDef`s (TensorBoard's graph view, `graph_def` properties).

    library, names = export_library([concrete_fn, ...])   # names[i]: the FunctionDef of concrete_fn i
    graph_def = export_graph_def(concrete_fn)             # its graph as top-level nodes + the library

A function's arguments are its graph's inputs in order: the traced arguments, then the captures (a
captured variable is a `resource` argument, read by `ReadVariableOp` and written by `AssignVariableOp`
with their `dtype`, as TensorFlow writes them). Inside a FunctionDef, inputs name TensorFlow's output
arguments (`MatMul:product:0`); every node carries its op's full attr set as TensorFlow's OpDef declares
it (type attrs such as `T`/`Tidx`/`DstT` read from the wired tensors, defaults filled in) plus
`_output_shapes`; each function carries `_input_shapes` and its arguments `_output_shapes` and
`_user_specified_name`, as in TensorFlow's SavedModels. Control flow becomes `If`/`StatelessIf`/`While`/`StatelessWhile` with branch, cond and
body functions in the library; calls of other concrete functions become `PartitionedCall` /
`StatefulPartitionedCall` with `f`. Stateful nodes are listed as control outputs, so TensorFlow runs them
even when no output depends on them. How each tensorflux op maps onto TensorFlow's is in
`export_rules.py`; an op with no mapping raises `ValueError` naming the op and its node.
"""
import itertools
import re
import weakref

from ...types import dtypes as _dt
from ...types.shape import TensorShape
from . import attr_values as _av
from ...ops.control_flow.cond_while import return_conversions
from .export_rules import ExportError, rule_for
from .op_interfaces import NO_DEFAULT, interface

__all__ = ["export_library", "export_graph_def", "Exporter", "ExportError", "GRAPH_DEF_PRODUCER"]

_NEXT_NUMBER = itertools.count(1)
_FUNCTION_NUMBERS = {}      # id(graph) -> (weak reference to it, its number)

# The GraphDef/FunctionDef versions TensorFlow 2.21 writes (VersionDef.producer, min_consumer).
GRAPH_DEF_PRODUCER = 2474
GRAPH_DEF_MIN_CONSUMER = 12


def export_library(concrete_functions):
    """(FunctionDefLibrary, [FunctionDef name of each function]) for concrete functions and everything
    they call (branch, loop and callee functions are added once each)."""
    exporter = Exporter()
    names = [exporter.concrete(cf) for cf in concrete_functions]
    return exporter.library, names


def export_graph_def(function, add_shapes=True):
    """A GraphDef of a concrete function's (or FuncGraph's) graph: Placeholder nodes for its inputs, its
    nodes, and the functions it calls in `library`. `add_shapes` as TensorFlow's `as_graph_def`: each
    node's `_output_shapes` and each function's `_input_shapes` (TensorBoard's graphs have them; a plain
    `as_graph_def()` does not)."""
    graph = getattr(function, "graph", function)
    outputs = getattr(getattr(function, "_trace", None), "flat_outputs", None) or list(getattr(graph, "outputs", []))
    exporter = Exporter(add_shapes=add_shapes)
    builder = _Builder(exporter, _av.messages().GraphDef(), graph_mode=True)
    builder.build(graph, list(getattr(graph, "inputs", [])), outputs)
    graph_def = builder.proto
    graph_def.versions.producer = GRAPH_DEF_PRODUCER
    if len(exporter.library.function):      # TensorFlow names a minimum consumer only with a library
        graph_def.library.CopyFrom(exporter.library)
        graph_def.versions.min_consumer = GRAPH_DEF_MIN_CONSUMER
    return graph_def


class Exporter:
    """Turns graphs into FunctionDefs of one library (each graph + argument layout once)."""

    def __init__(self, add_shapes=True):
        self.messages = _av.messages()
        self.add_shapes = add_shapes    # `_output_shapes`/`_input_shapes`, as TensorFlow's SavedModels have
        self.library = self.messages.FunctionDefLibrary()
        self._names = {}        # (id(graph), layout key) -> FunctionDef name
        self._used = set()
        self._alive = []        # keeps exported graphs alive so their ids stay unique
        self.custom_gradients = False   # trace custom gradients' functions (a SavedModel's option)
        self.gradient_functions = []    # the ConcreteFunctions of those, in export order
        self._gradient_numbers = 0

    @staticmethod
    def function_numbers(*graphs):
        """Each graph's number in the names of its branch or loop function (`cond_true_6`): drawn once per
        graph from a process-wide counter, consecutive for graphs numbered together, as TensorFlow's uids,
        so that exporting a graph again gives the same names."""
        numbers = []
        for graph in graphs:
            number = _FUNCTION_NUMBERS.get(id(graph))
            if number is None or number[0]() is not graph:
                number = (weakref.ref(graph), next(_NEXT_NUMBER))
                _FUNCTION_NUMBERS[id(graph)] = number
                weakref.finalize(graph, _FUNCTION_NUMBERS.pop, id(graph), None)
            numbers.append(number[1])
        return numbers

    def next_gradient_number(self):
        """The number of the next `CustomGradient-<n>` op type (unique within the library)."""
        self._gradient_numbers += 1
        return self._gradient_numbers

    def unique_function_name(self, base):
        base = re.sub(r"[^A-Za-z0-9_]", "_", base) or "function"
        name, n = base, 0
        while name in self._used:
            n += 1
            name = f"{base}_{n}"
        self._used.add(name)
        return name

    def concrete(self, cf):
        """The FunctionDef name of a ConcreteFunction (its inputs: arguments, then captures)."""
        return self.function(cf.graph, cf._trace.flat_outputs, name=cf._inference_name)

    def function(self, graph, outputs, name=None, layout=None, passthrough=(), wrap=None, branch=None):
        """The name of a FunctionDef computing `outputs` of `graph`.

        `layout` lists the function's arguments: placeholders of `graph`, or `(dtype, shape)` for an
        argument the graph ignores (TensorFlow's branch and loop functions all take every input);
        `passthrough` are arguments (indices into the layout) returned unchanged after `outputs` (in a branch
        or loop function, as TensorFlow's while_v2 returns a loop's captures: the argument `while_n_0`
        returned as the output `while_n`, no node between them);
        `wrap(builder, args, results) -> results` adds nodes around the graph's results (a loop counter);
        `branch` is `(scope, outer names[, named lead])` for a cond branch or a loop's functions (a loop's
        two lead arguments, counter and limit, named after their outer constants): nodes are named in the scope
        (`cond/mul`) and its arguments after their first consumer and the outer tensor (`cond_mul_x`), as
        TensorFlow names them.
        """
        layout = list(graph.inputs) if layout is None else layout
        key = (id(graph), tuple(id(a) if not isinstance(a, tuple) else (a[0].name, str(a[1])) for a in layout),
               tuple(id(t) for t in outputs), tuple(passthrough), wrap, branch and branch[0])
        found = self._names.get(key)
        if found is not None:
            return found
        self._alive.append(graph)
        fname = self.unique_function_name(name or f"{graph.name}")
        self._names[key] = fname
        builder = _Builder(self, self.messages.FunctionDef(), graph_mode=False)
        if branch is not None:
            builder.scope, builder.outer_names = branch[0] + "/", list(branch[1])
            builder.named_lead = branch[2] if len(branch) > 2 else 0
        builder.proto.signature.name = fname
        builder.build(graph, layout, outputs, passthrough, wrap)
        self.library.function.add().CopyFrom(builder.proto)
        return fname


class Value:
    """A tensor as the builder wires it: its reference text, dtype and static shape."""

    __slots__ = ("ref", "dtype", "shape")

    def __init__(self, ref, dtype, shape):
        self.ref, self.dtype, self.shape = ref, dtype, shape


class _Builder:
    """Builds one FunctionDef (or a GraphDef's node list) from one graph."""

    def __init__(self, exporter, proto, graph_mode):
        self.exporter = exporter
        self.messages = exporter.messages
        self.proto = proto
        self.graph_mode = graph_mode
        self.values = {}            # id(tensor) -> Value
        self._node_names = set()
        self.stateful_nodes = []
        self.op_nodes = {}          # id(tensorflux op) -> name of the node standing for it
        self.last_node = None
        self.last_proto = None
        self.op_protos = {}         # id(tensorflux op) -> the NodeDef standing for it
        self.op = None              # the tensorflux op being exported (for error messages)
        self._pending = {}          # id(capture placeholder) -> its Placeholder node's arguments, made on use
        self.scope = ""             # a cond branch's node names start with the cond's scope (`cond/`)
        self.outer_names = None     # a cond branch: the outer tensors' op names, by argument
        self.named_lead = 0         # a loop: its counter and limit arguments are named after the outer tensors

    @property
    def nodes(self):
        return self.proto.node if self.graph_mode else self.proto.node_def

    def unique(self, name):
        # TensorFlow's node names: [A-Za-z0-9.][A-Za-z0-9_.\-/>]* (tensorflux allows more in user scopes)
        base = re.sub(r"[^A-Za-z0-9_.\-/>]", "_", name or "node")
        if not re.match(r"[A-Za-z0-9.]", base):
            base = "node" + base
        candidate, n = base, 0
        while candidate.lower() in self._node_names:
            n += 1
            candidate = f"{base}_{n}"
        self._node_names.add(candidate.lower())
        return candidate

    # -- the graph ------------------------------------------------------------------------------
    def build(self, graph, layout, outputs, passthrough=(), wrap=None):
        args = []
        capture_names = _capture_names(graph) if self.outer_names is None else \
            _branch_arg_names(graph, layout, outputs, self.scope, self.outer_names, self.named_lead, passthrough)
        passed_names = {}       # layout index of a passed-through argument -> its output's name
        self._pending = {}
        for item in layout:
            if isinstance(item, tuple):
                dtype, shape, user_name = item[0], TensorShape(item[1]), None
                placeholder = None
            else:
                placeholder = item
                dtype, shape, user_name = item.dtype, item.shape, item.op.name
            node_name, user_name = capture_names.get(id(item), (user_name, user_name))
            if self.graph_mode and id(placeholder) in capture_names:
                # TensorFlow makes a captured tensor's Placeholder where it is first used
                self._pending[id(placeholder)] = (placeholder, dtype, shape, user_name, node_name)
                args.append(None)
                continue
            if user_name is None and self.outer_names is None:
                user_name = "unused"
            if self.scope and len(args) in passthrough and node_name:
                passed_names[len(args)] = re.sub(r"[^a-z0-9_]", "_", node_name.lower())
                node_name += "_0"
            args.append(self._argument(placeholder, dtype, shape, user_name, node_name))
        # A cond branch's Python results are converted as it returns, each next to its Identity (as in TF)
        late = return_conversions(graph) if self.scope and not self.named_lead and wrap is not None else ()
        for op in graph.get_operations():
            if id(op) in late:
                continue
            if op.type == "Placeholder":
                if id(op.outputs[0]) in self._pending:
                    continue
                if id(op.outputs[0]) not in self.values and self.graph_mode:
                    # a v1 graph's placeholder (tf.compat.v1.placeholder): a Placeholder node as in TF
                    self._argument(op.outputs[0], op.outputs[0].dtype, op.outputs[0].shape, op.name)
                elif id(op.outputs[0]) not in self.values:
                    raise ExportError(f"The placeholder '{op.name}' of the graph '{graph.name}' is neither an "
                                      f"argument nor a capture; the graph cannot be exported.")
                continue
            self._export_op(op)
        self.op = None
        self._late_controls(graph)
        if late and not self.stateful_nodes:
            results = []
            for t in outputs:
                if id(t) not in self.values:
                    self._export_op(t.op)
                results += wrap(self, args, [self.value(t)])
        else:
            for op in graph.get_operations():
                if id(op) in late:
                    self._export_op(op)
            results = [self.value(t) for t in outputs]
            if wrap is not None:
                results = wrap(self, args, results)
        first_passed = len(results)
        results += [args[i] for i in passthrough]
        if self.graph_mode:
            return
        signature = self.proto.signature
        # As TensorFlow's saved functions: every input's shape (a resource handle is a scalar), and how the
        # function was made.
        if self.exporter.add_shapes:
            shapes = self.proto.attr["_input_shapes"].list
            shapes.SetInParent()
            for v in args:
                shapes.shape.add().CopyFrom(_av.shape_proto(self.messages, [] if v.dtype is _dt.resource else v.shape))
        self.proto.attr["_construction_context"].s = b"kEagerRuntime"
        for k, v in enumerate(results):
            arg_name = "identity" if k == 0 else f"identity_{k}"
            if self.scope:      # TensorFlow names a branch's outputs after their nodes (`cond_identity`)
                arg_name = re.sub(r"[^a-z0-9_]", "_", v.ref.split(":")[0].lower())
                if k >= first_passed and passthrough[k - first_passed] in passed_names:
                    arg_name = passed_names[passthrough[k - first_passed]]
            out = signature.output_arg.add()
            out.name, out.type = arg_name, v.dtype.as_datatype_enum
            self.proto.ret[arg_name] = v.ref
        for name in self.stateful_nodes:
            signature.control_output.append(name)
            self.proto.control_ret[name] = name
        signature.is_stateful = bool(self.stateful_nodes)

    def _argument(self, placeholder, dtype, shape, user_name, node_name=None):
        node_name = node_name or user_name
        if self.graph_mode:
            name = self.unique(node_name)
            node = self.nodes.add(name=name, op="Placeholder")
            node.attr["dtype"].type = dtype.as_datatype_enum
            node.attr["shape"].shape.CopyFrom(_av.shape_proto(self.messages, shape))
            node.attr["_user_specified_name"].s = user_name.encode()
            self._output_shapes(node, [shape])
            value = Value(name, dtype, shape)
        else:
            base = re.sub(r"[^a-z0-9_]", "_", node_name.lower())
            if not base or not base[0].isalpha():
                base = "arg_" + base
            name = self.unique(base)
            signature = self.proto.signature
            arg = signature.input_arg.add()
            arg.name, arg.type = name, dtype.as_datatype_enum
            index = len(signature.input_arg) - 1
            if dtype is not _dt.resource or user_name is not None:   # TensorFlow has no empty arg_attr entries
                attrs = self.proto.arg_attr[index].attr
                if dtype is not _dt.resource:
                    attrs["_output_shapes"].list.shape.add().CopyFrom(_av.shape_proto(self.messages, shape))
                if user_name is not None:
                    attrs["_user_specified_name"].s = user_name.encode()
            value = Value(name, dtype, shape)
        if placeholder is not None:
            self.values[id(placeholder)] = value
        return value

    def _export_op(self, op):
        self.op = op
        fn = rule_for(op.type)
        if fn is None:
            raise ExportError(f"Cannot export the op '{op.name}' (type {op.type}) of the graph "
                              f"'{op.graph.name}': TensorFlow's graph format has no equivalent that tensorflux "
                              f"knows how to write.")
        for t in op.inputs:
            pending = self._pending.pop(id(t), None)
            if pending is not None:
                self._argument(*pending)
        inputs = [self.value(t) for t in op.inputs]
        outs = fn(self, op, inputs)
        if len(outs) != len(op.outputs):
            raise ExportError(f"internal: the export rule of {op.type} gave {len(outs)} outputs for {len(op.outputs)}")
        for t, v in zip(op.outputs, outs):
            self.values[id(t)] = v
        self.op_nodes[id(op)] = self.last_node
        self.op_protos[id(op)] = self.last_proto

    def _late_controls(self, graph):
        """Control inputs on nodes made later in the graph (the automatic control NoOp that every output
        Identity waits for): TensorFlow lists them as `^NoOp` although the NoOp node comes after."""
        for op in graph.get_operations():
            node = self.op_protos.get(id(op))
            if node is None:
                continue
            for c in op.control_inputs:
                name = self.op_nodes.get(id(c))
                if name is not None and "^" + name not in node.input:
                    node.input.append("^" + name)

    def value(self, tensor):
        try:
            return self.values[id(tensor)]
        except KeyError:
            raise ExportError(f"The tensor {tensor.name} is used before it is defined in the exported graph.") \
                from None

    # -- nodes ----------------------------------------------------------------------------------
    def emit(self, op_type, inputs, attrs, outputs, name=None, control=(), stateful=None, private=(),
             reserved=False, scoped=True):
        """Adds one node of TensorFlow op `op_type`; returns a Value per output.

        `inputs` are Values; `attrs` Python values by attr name (type and count attrs not given are read
        from the inputs and `outputs`, a list of (dtype, shape)); `control` are node names to run first;
        `private` are `(name, kind, value)` of attrs outside the op's interface that TensorFlow's graph
        construction adds (`_lower_using_switch_merge`, `_read_only_resource_inputs`, ...); a `reserved`
        name (from `reserve`) is used as it is, an unscoped one without the branch's scope.
        """
        iface = interface(op_type)
        if iface is None:
            raise ExportError(f"internal: no interface recorded for TensorFlow op {op_type}")
        source = self.op
        if not reserved:
            name = self.unique((self.scope if scoped else "") + (name or (source.name if source is not None
                                                                          else op_type)))
        attrs = dict(attrs)
        wired = []
        try:
            for arg, n in iface.bind(iface.inputs, len(inputs), attrs):
                group, inputs = inputs[:n], inputs[n:]
                self._type_attrs(arg, [v.dtype for v in group], attrs)
                wired.extend(v.ref for v in group)
            out_groups = iface.bind(iface.outputs, len(outputs), attrs)
        except ValueError as e:
            raise ExportError(f"Cannot export the op '{getattr(source, 'name', name)}' as TensorFlow's "
                              f"{op_type}: {e}") from None
        refs, flat = [], 0
        for arg, n in out_groups:
            group = outputs[flat:flat + n]
            self._type_attrs(arg, [d for d, _ in group], attrs)
            for j in range(n):
                ref = (name if flat + j == 0 else f"{name}:{flat + j}") if self.graph_mode \
                    else f"{name}:{arg.name}:{j}"
                refs.append(Value(ref, group[j][0], TensorShape(group[j][1])))
            flat += n
        node = self.nodes.add(name=name, op=op_type)
        self.last_node, self.last_proto = name, node
        node.input.extend(wired)
        node.input.extend("^" + c for c in control)
        for key, (kind, default) in iface.attrs.items():
            value = attrs.pop(key, default)
            if value is NO_DEFAULT:
                raise ExportError(f"Cannot export the op '{getattr(source, 'name', name)}' as TensorFlow's "
                                  f"{op_type}: its attr '{key}' ({kind}) is unknown.")
            try:
                node.attr[key].CopyFrom(_av.attr_value(self.messages, kind, value))
            except (TypeError, ValueError) as e:
                raise ExportError(f"Cannot export the op '{getattr(source, 'name', name)}' as TensorFlow's "
                                  f"{op_type}: its attr '{key}' ({kind}) cannot hold {value!r} ({e}).") from None
        if attrs:
            raise ExportError(f"internal: attrs {sorted(attrs)} are not attrs of TensorFlow's {op_type}")
        for key, kind, value in private:
            node.attr[key].CopyFrom(_av.attr_value(self.messages, kind, value))
        self._output_shapes(node, [s for _, s in outputs])
        if iface.stateful if stateful is None else stateful:
            self.stateful_nodes.append(name)
        return refs

    def _type_attrs(self, arg, dtypes, attrs):
        if arg.number_attr is not None:
            attrs.setdefault(arg.number_attr, len(dtypes))
        if arg.type_attr is not None and dtypes:
            attrs.setdefault(arg.type_attr, dtypes[0])
        if arg.list_attr is not None:
            attrs.setdefault(arg.list_attr, list(dtypes))

    def _output_shapes(self, node, shapes):
        if not self.exporter.add_shapes:
            return
        lst = node.attr["_output_shapes"].list
        lst.SetInParent()
        for s in shapes:
            lst.shape.add().CopyFrom(_av.shape_proto(self.messages, s))

    def reserve(self, name):
        """A unique node name in this function's scope, taken now for a node made later (TensorFlow names an
        op before the constants made inside its name scope: `while/add_1`, then `while/add_1/y`)."""
        return self.unique(self.scope + name)

    def const(self, array, name, dtype=None, scoped=True):
        """A Const node holding `array`; returns its Value."""
        import numpy as np
        array = np.asarray(array) if dtype is None else np.asarray(array, dtype=dtype.as_numpy_dtype)
        dtype = _dt.FROM_NUMPY[array.dtype]
        saved, self.op = self.op, None
        try:
            (value,) = self.emit("Const", [], {"value": array, "dtype": dtype}, [(dtype, array.shape)], name=name,
                                 scoped=scoped)
        finally:
            self.op = saved
        return value

    def function(self, graph, outputs, layout=None, passthrough=(), name=None, wrap=None, branch=None):
        return self.exporter.function(graph, outputs, name=name, layout=layout, passthrough=passthrough, wrap=wrap,
                                      branch=branch)


def _capture_names(graph):
    """`{id(placeholder): (node name, user name)}` for the graph's captures of eager tensors (variable
    handles, constants), named as TensorFlow names them: after their first consumer and its input argument
    (`AssignAddVariableOp/resource`, `_user_specified_name` "resource")."""
    internals = getattr(graph, "captures", None)
    if not internals:
        return {}
    wanted = {id(internal) for external, internal in internals if not hasattr(external, "op")}
    names = {}
    for op in graph.get_operations():
        if not wanted:
            break
        for position, t in enumerate(op.inputs):
            if id(t) in wanted:
                arg = _input_arg_name(op, position)
                names[id(t)] = (f"{op.name}/{arg}", arg)
                wanted.discard(id(t))
    return names


# Ops whose inputs after the first `n` are one TensorFlow list argument: (n, the list's name).
_LIST_INPUTS = {"If": (1, "input"), "StatelessIf": (1, "input"), "While": (0, "input"),
                "StatelessWhile": (0, "input"), "StatefulPartitionedCall": (0, "args")}


def _input_arg_name(op, position):
    """TensorFlow's name of `op`'s input `position` as a captured tensor's placeholder is named after it
    (`resource`; `input_0` for an item of a list argument)."""
    listed = _LIST_INPUTS.get(op.type)
    if listed is not None and position >= listed[0]:
        return f"{listed[1]}_{position - listed[0]}"
    input_names = getattr(op.opdef, "input_names", None) or ()
    return input_names[position] if position < len(input_names) else "input"


def _branch_arg_names(graph, layout, outputs, scope, outer_names, named_lead=0, passthrough=()):
    """`{id(placeholder): (node name, user name)}` for a cond branch's arguments, as TensorFlow names the
    placeholders its branch graphs capture: `<scope><first consumer>/<outer op name>` (the consumer being
    an output's Identity when the argument is returned as it is), and `<scope>Placeholder` for an input the
    branch ignores (with no user name)."""
    names = {}
    for k, item in enumerate(layout):
        outer = outer_names[k]
        if isinstance(item, tuple):
            # a loop's counter and limit are named after their outer constants (`while/loop_counter`)
            named = (k < named_lead or k in passthrough) and outer is not None
            names[id(item)] = (f"{scope}{outer}", outer) if named else (f"{scope}Placeholder", None)
            continue
        if outer is None:               # a loop variable
            names[id(item)] = (f"{scope}Placeholder", None)
            continue
        consumer = next((op for op in graph.get_operations() if any(t is item for t in op.inputs)), None)
        if consumer is not None and item.dtype is _dt.resource:
            # a variable's handle: TensorFlow's branch captured it from the eager context, by input name
            outer = _input_arg_name(consumer, next(i for i, t in enumerate(consumer.inputs) if t is item))
        consumer = consumer.name if consumer is not None else None
        if consumer is None:
            m = next((m for m, t in enumerate(outputs) if t is item), None)
            consumer = None if m is None else ("Identity" if m == 0 else f"Identity_{m}")
        names[id(item)] = (f"{scope}{consumer}/{outer}" if consumer else f"{scope}{outer}", outer)
    return names


def graph_def_or_none(graph, add_shapes=False):
    """`Graph.as_graph_def()`: the GraphDef, or None when an op has no TensorFlow form (or protobuf is
    missing), so that the caller falls back to its light view. (namespaces.py installs it as the framework's
    GRAPH_DEF_EXPORTER, loading this module on the first call.)"""
    try:
        return export_graph_def(graph, add_shapes=add_shapes)
    except (ExportError, ImportError):
        return None
