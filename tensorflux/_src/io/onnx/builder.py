"""The ONNX side of an export: names, nodes, initializers, and the walk that converts a traced graph.

A FuncGraph is converted op by op in creation order (a valid order) into one ONNX graph. `env` maps each
tensorflux tensor (by id) to the name of the ONNX value holding it, or to a `VariableInput` for a resource
handle that stands for a tf.Variable (its value becomes an initializer when it is read). Handlers, one per
TensorFlow op type, are registered in `HANDLERS` by the handler modules of this room; each receives the
builder, the op and the ONNX names of its inputs and returns the ONNX names of the op's outputs.

Every ONNX value name is unique over the whole model (the main graph and every If/Loop body), which the
ONNX format requires because a subgraph may read any value of the graphs enclosing it. Constants and
variables become initializers of the main graph, visible from every subgraph.
"""
import re

import numpy as np

from ...framework import errors
from ...types import dtypes as _dt

__all__ = ["HANDLERS", "ExportContext", "GraphBuilder", "VariableInput", "handles", "unsupported"]

HANDLERS = {}   # TensorFlow op type -> handler(builder, op, input names) -> output names

# Ops that only run for their side effects (checks, prints): dropped when nothing reads them, because an
# exported model computes its outputs and has no place for a Python-side effect.
DROPPABLE_SIDE_EFFECTS = frozenset({"Assert", "NoOp", "PrintV2", "CheckNumerics", "WriteSummary",
                                    "FlushSummaryWriter"})

# Ops whose outputs are never folded into constants at export time (control flow, state, randomness).
_NEVER_FOLD = frozenset({"If", "StatelessIf", "While", "StatelessWhile", "StatefulPartitionedCall",
                         "ReadVariableOp", "Placeholder", "Const"})
_FOLD_LIMIT = 1 << 16   # elements: larger results stay ops, so the file does not grow with folded data

INT64_MAX = np.iinfo(np.int64).max


def handles(*op_types):
    """Registers the decorated function as the handler of `op_types`."""
    def register(fn):
        for t in op_types:
            HANDLERS[t] = fn
        return fn
    return register


def unsupported(op, why=""):
    detail = f": {why}" if why else ""
    return NotImplementedError(f"ONNX export does not support op '{op.type}' (node '{op.name}'){detail}")


class VariableInput:
    """A resource handle that stands for `variable`: reading it gives the variable's value."""

    __slots__ = ("variable",)

    def __init__(self, variable):
        self.variable = variable


class ExportContext:
    """What the whole export shares: the onnx module, the opset, unique names, initializers."""

    def __init__(self, onnx, opset):
        self.onnx = onnx
        self.helper = onnx.helper
        self.opset = opset
        self._initializers = []       # names of the initializers, in creation order (values in `constants`)
        self.constants = {}          # ONNX name -> NumPy value, for names known at export time
        self.sequence_elem = {}      # ONNX name -> element type, for values that are ONNX sequences
        self._used = set()
        self._variables = {}         # id(variable) -> initializer name
        self._alive = []             # variables stay alive while their ids are keys

    def unique(self, hint):
        """`hint` (made safe) if no value has that name yet, else `hint_1`, `hint_2`, …"""
        base = re.sub(r"[^A-Za-z0-9_./:-]", "_", str(hint)) or "v"
        name, k = base, 0
        while name in self._used:
            k += 1
            name = f"{base}_{k}"
        self._used.add(name)
        return name

    def initializer(self, array, hint):
        """A new initializer holding `array` (written into the model only if something reads it)."""
        name = self.unique(hint)
        self._initializers.append(name)
        self.constants[name] = np.asarray(array)
        return name

    def add_initializers(self, graph, used):
        """Writes the initializers named in `used` into `graph` (a GraphProto), each array copied once: straight
        into the message, not through a TensorProto that would be copied again on insertion."""
        for name in self._initializers:
            if name not in used:
                continue
            array = self.constants[name]
            tensor = graph.initializer.add()
            tensor.name = name
            tensor.data_type = self.elem_type(array.dtype)
            tensor.dims.extend(array.shape)
            # ONNX's raw data is little-endian; np.array(order="C") keeps a scalar 0-d
            tensor.raw_data = np.array(array, dtype=array.dtype.newbyteorder("<"), order="C").tobytes()

    def variable(self, variable):
        name = self._variables.get(id(variable))
        if name is None:
            value = np.asarray(variable.numpy())
            name = self._variables[id(variable)] = self.initializer(value, variable.name.split(":")[0])
            self._alive.append(variable)
        return name

    def elem_type(self, dtype):
        """The ONNX element type of a tensorflux DType (or NumPy dtype)."""
        if isinstance(dtype, _dt.DType):
            if dtype in (_dt.string, _dt.resource, _dt.variant):
                raise TypeError(f"ONNX export cannot hold a tensor of dtype {dtype.name} as a plain tensor.")
            dtype = dtype.as_numpy_dtype
        return self.helper.np_dtype_to_tensor_dtype(np.dtype(dtype))


class GraphBuilder:
    """The nodes of one ONNX graph (the main graph or an If/Loop body) being built."""

    def __init__(self, ctx, parent=None):
        self.ctx = ctx
        self.parent = parent         # the builder of the enclosing graph, whose values this graph can read
        self.nodes = []
        self._channels_first = {}    # channels-last ONNX name -> the same value in channels-first layout

    def channels_first_of(self, name):
        """The channels-first twin of `name` made in this graph or an enclosing one (visible here), or None."""
        builder = self
        while builder is not None:
            twin = builder._channels_first.get(name)
            if twin is not None:
                return twin
            builder = builder.parent
        return None

    def remember_channels_first(self, name, twin):
        self._channels_first[name] = twin

    # -- nodes and values --------------------------------------------------------------------------
    def node(self, op_type, inputs, hint, n_out=1, **attrs):
        """Appends one node; returns the names of its `n_out` outputs."""
        outs = [self.ctx.unique(hint if n_out == 1 else f"{hint}:{i}") for i in range(n_out)]
        node_name = self.ctx.unique(f"{hint}/{op_type}")
        self.nodes.append(self.ctx.helper.make_node(op_type, list(inputs), outs, name=node_name, **attrs))
        return outs

    def op(self, op_type, inputs, hint, **attrs):
        """`node` for a node with one output: returns its name."""
        return self.node(op_type, inputs, hint, 1, **attrs)[0]

    def const(self, array, hint="const"):
        return self.ctx.initializer(array, hint)

    def i64(self, values, hint="const"):
        return self.const(np.asarray(values, dtype=np.int64), hint)

    def value(self, name):
        """The NumPy value of an ONNX value known at export time, or None."""
        return self.ctx.constants.get(name) if isinstance(name, str) else None

    def cast(self, name, dtype, hint=None):
        """`name` cast to `dtype` (a DType or NumPy dtype); constants are cast at export time."""
        target = np.dtype(dtype.as_numpy_dtype if isinstance(dtype, _dt.DType) else dtype)
        known = self.value(name)
        if known is not None:
            return self.const(known.astype(target), hint or name)
        return self.op("Cast", [name], hint or f"{name}_cast", to=self.ctx.elem_type(target))

    def as_int64(self, name, hint=None):
        """An index tensor (int32 in TensorFlow graphs) as the int64 ONNX's shape inputs take."""
        return self.cast(name, np.int64, hint)

    def unsqueeze(self, name, axes, hint):
        known = self.value(name)
        if known is not None:      # a constant (a bias, a folded weight) is reshaped at export time
            return self.const(np.expand_dims(known, tuple(axes)), hint)
        return self.op("Unsqueeze", [name, self.i64(list(axes), f"{hint}/axes")], hint)

    def squeeze(self, name, axes, hint):
        if not axes:
            return name
        known = self.value(name)
        if known is not None:
            return self.const(np.squeeze(known, tuple(axes)), hint)
        return self.op("Squeeze", [name, self.i64(list(axes), f"{hint}/axes")], hint)

    def reduce(self, kind, name, axes, keepdims, hint):
        """ONNX Reduce`kind` over `axes` (None: all); axes moved from attribute to input in opset 18."""
        attrs = {"keepdims": int(bool(keepdims))}
        if axes is None:
            return self.op(f"Reduce{kind}", [name], hint, **attrs)
        axes = [int(a) for a in np.atleast_1d(axes)]
        if kind == "Sum" or self.ctx.opset >= 18:
            return self.op(f"Reduce{kind}", [name, self.i64(axes, f"{hint}/axes")], hint, **attrs)
        return self.op(f"Reduce{kind}", [name], hint, axes=axes, **attrs)

    def value_info(self, name, tensor, with_shape=True):
        """The ONNX type of `name`, which holds `tensor`'s value (a sequence for a TensorList)."""
        helper = self.ctx.helper
        if tensor.dtype is _dt.variant:
            elem = self.ctx.sequence_elem.get(name)
            if elem is None:
                raise NotImplementedError(f"ONNX export cannot tell the element type of the variant tensor "
                                          f"'{tensor.name}' (only TensorLists are supported).")
            return helper.make_tensor_sequence_value_info(name, elem, None)
        shape = tensor.shape.as_list() if with_shape and tensor.shape.rank is not None else None
        return helper.make_tensor_value_info(name, self.ctx.elem_type(tensor.dtype), shape)

    def graph(self, name, inputs, outputs, output_names):
        """The GraphProto of this builder's nodes that `output_names` need (the rest are pruned)."""
        nodes = prune(self.nodes, output_names)
        return self.ctx.helper.make_graph(nodes, name, inputs, outputs)

    # -- the walk ----------------------------------------------------------------------------------
    def convert(self, graph, env, outputs):
        """Converts the ops of `graph` needed for `outputs` (tensors of `graph`); returns their ONNX names.

        `env` must already map the graph's placeholders that those ops read."""
        for op in _needed_ops(graph, outputs):
            if op.type == "Placeholder":
                if id(op.outputs[0]) not in env:
                    raise ValueError(f"ONNX export: the placeholder '{op.name}' of graph "
                                     f"'{getattr(graph, 'name', '')}' has no value.")
                continue
            if op.type == "Const":
                env[id(op.outputs[0])] = self.const(np.asarray(op.attrs["value"]), op.name)
                continue
            inputs = [env[id(t)] for t in op.inputs]
            names = self._fold(op, inputs)
            if names is None:
                handler = HANDLERS.get(op.type)
                if handler is None:
                    raise unsupported(op)
                names = handler(self, op, inputs)
            if len(names) != len(op.outputs):
                raise AssertionError(f"handler of {op.type} gave {len(names)} outputs for {len(op.outputs)}")
            for t, name in zip(op.outputs, names):
                env[id(t)] = name
        return [env[id(t)] for t in outputs]

    def _fold(self, op, inputs):
        """The op's outputs as constants when every input is known at export time (shape arithmetic)."""
        if op.type in _NEVER_FOLD or op.opdef is None or op.opdef.stateful or not inputs:
            return None
        values = [self.value(n) for n in inputs]
        if any(v is None for v in values) or any(t.dtype in (_dt.variant, _dt.resource, _dt.string)
                                                  for t in op.outputs):
            return None
        try:
            result = op.opdef.kernel(*values, **op.attrs)
        except (TypeError, ValueError, ArithmeticError, LookupError, errors.OpError):
            return None     # a kernel that wants more than its attrs, or refuses the values: the handler's job
        results = list(result) if op.opdef.multi else [result]
        if len(results) != len(op.outputs):
            return None
        arrays = []
        for r, t in zip(results, op.outputs):
            r = np.asarray(r)
            if r.size > _FOLD_LIMIT or r.dtype != np.dtype(t.dtype.as_numpy_dtype):
                return None
            arrays.append(r)
        return [self.const(a, f"{op.name}:{i}" if len(arrays) > 1 else op.name) for i, a in enumerate(arrays)]


def referenced_names(nodes):
    """Every value name the nodes read, including the enclosing-scope reads of their subgraphs."""
    names = set()
    for node in nodes:
        names.update(node.input)
        for attr in node.attribute:
            if attr.HasField("g"):
                names.update(referenced_names(attr.g.node))
            for g in attr.graphs:
                names.update(referenced_names(g.node))
    return names


def prune(nodes, output_names):
    """The nodes that `output_names` depend on, in their order (unread transposes, unused branches out)."""
    needed = set(output_names)
    kept = []
    for node in reversed(nodes):
        if any(o in needed for o in node.output):
            kept.append(node)
            needed.update(referenced_names([node]))
    return kept[::-1]


def _needed_ops(graph, outputs):
    """The ops of `graph` that `outputs` depend on through data edges, in graph order.

    Ops nothing reads are left out; a stateful op among them (an assignment) changes what the function
    does, so it is refused unless it is a check or a print, which an exported model cannot perform."""
    needed = set()
    stack = [t.op for t in outputs]
    while stack:
        op = stack.pop()
        if id(op) in needed:
            continue
        needed.add(id(op))
        stack.extend(t.op for t in op.inputs)
    ops = []
    for op in graph.get_operations():
        if id(op) in needed:
            ops.append(op)
        elif op.opdef is not None and op.opdef.stateful and op.type not in DROPPABLE_SIDE_EFFECTS \
                and op.type != "ReadVariableOp":
            raise unsupported(op, "its side effect is not part of the function's outputs")
    return ops
