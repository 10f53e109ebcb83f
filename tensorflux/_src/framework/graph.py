"""Dataflow graphs: Graph, Operation, SymbolicTensor and FuncGraph (the graph of one traced function).

Invariants:
- Operations are appended in creation order, which is a valid execution order (inputs exist before use).
- Node names are unique within a graph, compared case-insensitively as TensorFlow does ("add", "Add_1").
- Stateful operations are chained by automatic control dependencies in program order.
- A FuncGraph only sees its own tensors: tensors from outside (eager values, tensors of an enclosing
  FuncGraph, variable handles) become captures, each with a Placeholder inside.

    g = FuncGraph("f")
    with g.as_default():
        x = g.placeholder(tf.float32, TensorShape([]), "x")
        y = tf.add(x, 1.0)          # records Const "Add/y" and AddV2 "Add"
"""
import contextlib
import os
import sys

import numpy as np

from ..types import dtypes as _dt
from ..types.shape import TensorShape
from .context import graph_mode
from .device import merge_device
from . import errors, input_naming
from .errors import OperatorNotAllowedInGraphError
from .tensor import EagerTensor, Tensor

__all__ = ["Graph", "FuncGraph", "Operation", "OpRecord", "SymbolicTensor", "user_source",
           "add_automatic_control_output", "is_automatic_control_output", "without_automatic_control"]

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


_LOOK_UP = object()     # `_add_op`'s default source: found by walking the stack

# co_filename -> whether it is tensorflux's own code (a module of the package, or generated code): one
# lookup per frame instead of two prefix tests.
_INTERNAL_FILES = {}


def user_source(skip=0):
    """(filename, lineno) of the innermost stack frame outside tensorflux, or None.

    The search starts at the caller's caller, `skip` frames further out when the caller knows that many
    of the frames above it are tensorflux's: each frame looked at is materialized as a frame object
    (CPython 3.11 makes them on demand), which is most of the cost of recording where an op was made.
    """
    f = sys._getframe(2 + skip)
    internal = _INTERNAL_FILES
    while f is not None:
        filename = f.f_code.co_filename
        known = internal.get(filename)
        if known is None:
            known = filename.startswith(_PACKAGE_DIR) or filename.startswith("<tensorflux")
            if len(internal) < 4096:    # generated code has numbered names: keep the table bounded
                internal[filename] = known
        if not known:
            return filename, f.f_lineno
        f = f.f_back
    return None


_BOOL_ADVICE = (
    "Using a symbolic `tf.Tensor` as a Python `bool` is not allowed. You can attempt the following "
    "resolutions to the problem: If you are running in Graph mode, use Eager execution mode or decorate "
    "this function with @tf.function. If you are using AutoGraph, you can try decorating this function with "
    "@tf.function. If that does not work, then you may be using an unsupported feature or your source code "
    "may not be visible to AutoGraph. See https://github.com/tensorflow/tensorflow/blob/master/tensorflow/"
    "python/autograph/g3doc/reference/limitations.md#access-to-source-code for more information.")


class SymbolicTensor(Tensor):
    """An output of an Operation in a graph: it has a static dtype and a possibly partial shape."""

    __slots__ = ("op", "value_index", "_dtype", "_shape")

    def __init__(self, op, value_index, dtype, shape):
        self.op = op
        self.value_index = value_index
        self._dtype = dtype
        self._shape = shape

    @property
    def dtype(self):
        return self._dtype

    @property
    def shape(self):
        return self._shape

    @property
    def name(self):
        return f"{self.op.name}:{self.value_index}"

    @property
    def graph(self):
        return self.op.graph

    @property
    def device(self):
        return self.op.device

    def set_shape(self, shape):
        self._shape = self._shape.merge_with(shape)

    def consumers(self):
        return [op for op in self.op.graph._ops if any(t is self for t in op.inputs)]

    def __bool__(self):
        raise OperatorNotAllowedInGraphError(_BOOL_ADVICE)

    def __iter__(self):
        raise OperatorNotAllowedInGraphError(
            "Iterating over a symbolic `tf.Tensor` is not allowed. You can attempt the following resolutions "
            "to the problem: If you are running in Graph mode, use Eager execution mode or decorate this "
            "function with @tf.function. If you are using AutoGraph, you can try decorating this function "
            "with @tf.function. If that does not work, then you may be using an unsupported feature or your "
            "source code may not be visible to AutoGraph.")

    def __len__(self):
        raise TypeError(f"len is not well defined for a symbolic Tensor ({self.name}). Please call `x.shape` "
                        f"rather than `len(x)` for shape information.")

    def __index__(self):
        raise TypeError(f"Cannot use a symbolic Tensor ({self.name}) as a Python index.")

    def __array__(self, dtype=None, copy=None):
        raise NotImplementedError(
            f"Cannot convert a symbolic tf.Tensor ({self.name}) to a numpy array. This error may indicate that "
            f"you're trying to pass a Tensor to a NumPy call, which is not supported.")

    def __str__(self):
        shape = f", shape={self._shape}" if self._shape.rank is not None else ""
        return f'Tensor("{self.name}"{shape}, dtype={self._dtype.name})'

    def __repr__(self):
        return f"<tf.Tensor '{self.name}' shape={self._shape} dtype={self._dtype.name}>"


class Operation:
    """A node: op type, inputs, attrs, outputs and control inputs; `opdef` holds the kernel."""

    __slots__ = ("name", "type", "inputs", "attrs", "outputs", "control_inputs", "graph", "opdef", "source",
                 "device", "__weakref__")

    def __init__(self, graph, name, opdef, type_name, inputs, attrs, source):
        self.graph = graph
        self.name = name
        self.opdef = opdef
        self.type = type_name
        self.inputs = inputs
        self.attrs = attrs
        self.outputs = []
        self.control_inputs = []
        self.source = source
        self.device = graph._device      # requested with tf.device ("" when none): recorded, as in TF

    def get_attr(self, name):
        try:
            return self.attrs[name]
        except KeyError:
            raise ValueError(f"Operation '{self.name}' has no attr named '{name}'.") from None

    def values(self):
        return tuple(self.outputs)

    @property
    def node_def(self):
        return NodeDef(self)

    @property
    def stateful(self):
        return self.opdef is not None and self.opdef.stateful

    def __repr__(self):
        return f"<tf.Operation '{self.name}' type={self.type}>"


class OpRecord:
    """An executed or replayed op as gradients see it: its OpDef, input and output tensors, and attrs
    (an Operation offers the same interface)."""

    __slots__ = ("opdef", "inputs", "outputs", "attrs")

    def __init__(self, opdef, inputs, outputs, attrs):
        self.opdef = opdef
        self.inputs = inputs
        self.outputs = outputs
        self.attrs = attrs

    @property
    def type(self):
        return self.opdef.name

    @property
    def name(self):
        return self.opdef.name

    def get_attr(self, name):
        return self.attrs[name]


class NodeDef:
    """A GraphDef node view: `.name`, `.op`, `.input` (with `^name` control inputs), `.attr`."""

    __slots__ = ("name", "op", "input", "attr")

    def __init__(self, op):
        self.name = op.name
        self.op = op.type
        self.input = [t.name if t.value_index else t.op.name for t in op.inputs] + \
            ["^" + c.name for c in op.control_inputs]
        self.attr = dict(op.attrs)

    def __repr__(self):
        lines = [f'name: "{self.name}"', f'op: "{self.op}"'] + [f'input: "{i}"' for i in self.input]
        return "\n".join(lines) + "\n"


class GraphDef:
    __slots__ = ("node", "library")

    def __init__(self, nodes):
        self.node = nodes
        self.library = None

    def __repr__(self):
        return "".join(f"node {{\n  {repr(n).strip().replace(chr(10), chr(10) + '  ')}\n}}\n" for n in self.node)


# Set by io/formats/graph_export.py (a higher floor): graph -> GraphDef proto, or None when the graph holds
# an op TensorFlow's format cannot express (then `as_graph_def` returns the light view).
GRAPH_DEF_EXPORTER = [None]


class Graph:
    """A dataflow graph being built or run."""

    is_func_graph = False

    def __init__(self):
        self._ops = []
        self._by_name = {}
        self._used_names = {}
        self._name_stack = ""
        self._last_stateful = None
        self.outer_graph = None
        self._finalized = False
        self._control_dependencies = []
        # ids of ops an input conversion made (Consts from Python values, reads of variables passed as
        # inputs), not yet consumed: the op that consumes them names them inside its own scope
        self._implicit_consts = set()
        # ids of implicit ops already named inside their consumer's scope (`packed/1`, `ReadVariableOp/resource`):
        # they move with it when the consumer is itself renamed (`mul/ReadVariableOp/resource`)
        self._scoped_inputs = set()
        # id(op) -> op made without taking its name yet (a captured graph tensor's placeholder, named in
        # its consumer's scope once that is named: `mul/mul`); `name_deferred` gives it its own name
        self._deferred_names = {}
        self._device = ""               # the innermost tf.device scope, as "/device:CPU:0"

    # -- building ------------------------------------------------------------------------------
    def as_default(self):
        return graph_mode(self)

    def unique_name(self, name, mark_as_used=True):
        if self._name_stack:
            name = self._name_stack + name
        if mark_as_used:
            return self._unique_scoped(name)
        count = self._used_names.get(name.lower(), 0)
        if count == 0:
            return name
        candidate = f"{name}_{count}"
        while candidate.lower() in self._used_names:
            count += 1
            candidate = f"{name}_{count}"
        return candidate

    @contextlib.contextmanager
    def name_scope(self, name):
        old = self._name_stack
        if name is None or name == "":
            self._name_stack = ""
        elif name.endswith("/"):
            self._name_stack = name
        else:
            scope = self.unique_name(name)
            self._name_stack = ""
            self._name_stack = scope + "/"
        try:
            yield self._name_stack
        finally:
            self._name_stack = old

    @contextlib.contextmanager
    def device(self, device_name):
        """Ops created inside record `device_name` (merged over the enclosing scope's; None clears it)."""
        old = self._device
        self._device = "" if device_name is None else merge_device(device_name, old)
        try:
            yield
        finally:
            self._device = old

    @contextlib.contextmanager
    def control_dependencies(self, control_inputs):
        """Ops created inside run after `control_inputs` (tensors, ops, or variables just assigned)."""
        ops = []
        for c in control_inputs or []:
            if isinstance(c, SymbolicTensor):
                ops.append(c.op)
            elif isinstance(c, Operation):
                ops.append(c)
            elif getattr(c, "_is_variable", False) and self._last_stateful is not None:
                ops.append(self._last_stateful)  # `v.assign(...)`: the update just recorded
            elif c is not None and not isinstance(c, Tensor):
                raise TypeError(f"Can not convert a {type(c).__name__} into a Tensor or Operation.")
        self._control_dependencies.append(ops)
        try:
            yield
        finally:
            self._control_dependencies.pop()

    def _graph_input(self, t):
        """`t` as a tensor of this graph (capturing it if it comes from outside), or a clear error."""
        if isinstance(t, SymbolicTensor):
            if t.op.graph is self:
                return t
            return self.capture(t)
        if isinstance(t, EagerTensor):
            return self.capture(t)
        raise TypeError(f"Expected a Tensor, got {type(t).__name__}: {t!r}")

    def capture(self, tensor):
        raise TypeError(
            f"{tensor!r} is out of scope and cannot be used here. Use return values, explicit Python locals or "
            f"TensorFlow collections to access it.")

    def create_op(self, opdef, inputs, attrs, name=None, type_name=None, skip=0):
        """Adds an op to the graph (after checking dtypes and inferring outputs) and returns its outputs.
        `skip`: how many frames above the caller are known to be tensorflux's (see `user_source`)."""
        inputs = [t if isinstance(t, SymbolicTensor) and t.op.graph is self else self._graph_input(t)
                  for t in inputs]
        _check_graph_dtypes(opdef, inputs)
        results = opdef.infer(inputs, attrs)
        op = self._add_op(opdef, type_name or opdef.name, inputs, attrs, name or opdef.name, results,
                          user_source(skip))
        if self._implicit_consts:
            input_naming.scope_implicit_inputs(self, op, input_naming.converted_input_names(opdef, len(inputs)))
        if opdef.multi:
            # An op without outputs (an assert, a print, an assign) is returned as the Operation itself,
            # as TensorFlow does, so it can be used in tf.control_dependencies.
            return tuple(op.outputs) if op.outputs else op
        return op.outputs[0]

    def _add_op(self, opdef, type_name, inputs, attrs, name, results, source=_LOOK_UP, defer_name=False):
        # a name ending in "/" is a name scope's (`tf.identity(y, name=scope)`): the op takes it exactly
        unique = name if defer_name else name[:-1] if name.endswith("/") else self.unique_name(name)
        op = Operation(self, unique, opdef, type_name, inputs, attrs,
                       user_source() if source is _LOOK_UP else source)
        if defer_name:
            self._deferred_names[id(op)] = op
        if len(results) == 1:
            dtype, shape = results[0]
            op.outputs = [SymbolicTensor(op, 0, dtype, shape if type(shape) is TensorShape else TensorShape(shape))]
        else:
            op.outputs = [SymbolicTensor(op, i, dtype, shape if isinstance(shape, TensorShape) else TensorShape(shape))
                          for i, (dtype, shape) in enumerate(results)]
        if self._control_dependencies:
            for deps in self._control_dependencies:
                op.control_inputs.extend(d for d in deps if d.graph is self)
        if opdef is not None and opdef.stateful:
            if self._last_stateful is not None and self._last_stateful not in op.control_inputs:
                op.control_inputs.append(self._last_stateful)
            self._last_stateful = op
        self._ops.append(op)
        if not defer_name:
            self._by_name[op.name] = op
        return op

    def name_deferred(self, op, name=None):
        """Gives `op`, made with its name deferred, the unique name made from `name` (its provisional one)."""
        del self._deferred_names[id(op)]
        op.name = self._unique_scoped(op.name if name is None else name)
        self._by_name[op.name] = op

    def add_constant(self, array, name="Const", implicit=False):
        """A Const op holding `array` (a NumPy value); codegen turns it into a module-level constant.

        `implicit`: the constant converts a Python value passed to an op; like TensorFlow (which converts
        it inside the op's name scope), it is renamed `<op>/<input name>` when that op consumes it.
        """
        dtype = _dt.FROM_NUMPY[array.dtype]
        shape = TensorShape._from_tuple(array.shape)
        # An implicit constant takes its consumer's user line when named into its scope (the same user
        # statement made both), which spares looking up the stack for it.
        op = self._add_op(None, "Const", [], {"value": array, "dtype": dtype}, name, [(dtype, shape)],
                          None if implicit else _LOOK_UP)
        if implicit:
            self._implicit_consts.add(id(op))
        return op.outputs[0]

    def mark_implicit_read(self, read):
        """`read` (a ReadVariableOp) converts a variable passed as an op input: TensorFlow reads it inside
        that op's name scope (`mul/ReadVariableOp`), which `input_naming.scope_implicit_inputs` gives it."""
        self._implicit_consts.add(id(read.op))

    def keep_name(self, tensor):
        """`tensor`'s op keeps its name even if an input conversion made it (`tf.convert_to_tensor(3.0)`)."""
        self._implicit_consts.discard(id(tensor.op))
        if tensor.op.source is None:
            tensor.op.source = user_source()

    def mark_autopacked(self, pack, elements):
        """`pack` stacks a list converted for an op's input (`[x, 2.0]`): the consuming op names it
        `<op>/<input name>` and the constants converted for its `elements` (`packed/1`) follow it."""
        self._implicit_consts.add(id(pack.op))
        self._scoped_inputs.update(id(e.op) for e in elements)

    def _unique_scoped(self, name):
        """`unique_name` of a name that already holds its name scope."""
        key = name.lower()
        used = self._used_names
        count = used.get(key, 0)
        used[key] = count + 1
        if count == 0:
            return name
        candidate = f"{name}_{count}"
        while candidate.lower() in used:
            count += 1
            candidate = f"{name}_{count}"
        used[candidate.lower()] = 1
        return candidate

    def constant_value_of(self, tensor):
        """The NumPy value of `tensor` when it is a graph constant (through Identity), else None."""
        op = tensor.op
        while op.type == "Identity" and op.inputs:
            op = op.inputs[0].op
        if op.type == "Const":
            return op.attrs["value"]
        if op.type == "Shape" and op.inputs and op.inputs[0].shape.is_fully_defined():
            return np.array(op.inputs[0].shape.as_list(), dtype=op.outputs[0].dtype.as_numpy_dtype)
        return None

    # -- inspection ----------------------------------------------------------------------------
    def get_operations(self):
        return list(self._ops)

    def get_operation_by_name(self, name):
        try:
            return self._by_name[name]
        except KeyError:
            raise KeyError(f"The name {name!r} refers to an Operation not in the graph.") from None

    def get_tensor_by_name(self, name):
        op_name, _, index = name.partition(":")
        if not index:
            raise ValueError(f"The name {name!r} looks a like an Operation name, not a Tensor name. Tensor "
                             f"names must be of the form \"<op_name>:<output_index>\".")
        op = self.get_operation_by_name(op_name)
        try:
            return op.outputs[int(index)]
        except IndexError:
            raise KeyError(f"The name {name!r} refers to a Tensor which does not exist. The operation "
                           f"{op_name!r} exists but only has {len(op.outputs)} outputs.") from None

    def as_graph_def(self, add_shapes=False):
        """TensorFlow's GraphDef protocol buffer of this graph (written by the io room's graph exporter,
        registered in `GRAPH_DEF_EXPORTER`); without it, a light view with the same `.node` fields."""
        exporter = GRAPH_DEF_EXPORTER[0]
        if exporter is not None:
            exported = exporter(self, add_shapes)
            if exported is not None:
                return exported
        return GraphDef([op.node_def for op in self._ops])

    @property
    def operations(self):
        return list(self._ops)

    def finalize(self):
        self._finalized = True

    @property
    def finalized(self):
        return self._finalized


# Stateful ops TensorFlow's automatic control dependencies leave out of a function's control output (its
# legacy random ops, whose numbers nothing may read, and a NoOp, which TensorFlow does not count as stateful).
_NOT_RUN_FOR_EFFECT = frozenset({"RandomUniform", "RandomUniformInt", "RandomStandardNormal", "TruncatedNormal",
                                 "ParameterizedTruncatedNormal", "RandomGamma", "RandomPoisson", "RandomPoissonV2",
                                 "RandomShuffle", "Multinomial", "NoOp"})
_CALLS = ("PartitionedCall", "StatefulPartitionedCall")


def _runs_for_effect(op):
    """Whether a function must run `op` even when no output needs its value, as TensorFlow's automatic
    control dependencies decide: a stateful op (a call: one whose callee holds one), except a legacy
    random op and a variable read whose value nothing consumes."""
    if op.type in _CALLS and "graph" in op.attrs:
        return any(o.opdef is not None and o.opdef.stateful for o in op.attrs["graph"].get_operations())
    if op.opdef is None or not op.opdef.stateful or op.type in _NOT_RUN_FOR_EFFECT:
        return False
    if op.type == "ReadVariableOp":
        return any(t.consumers() for t in op.outputs)
    return True


def is_automatic_control_output(op):
    """True for the NoOp `add_automatic_control_output` made (a user's `tf.no_op()` has its OpDef)."""
    return op.type == "NoOp" and op.opdef is None


def add_automatic_control_output(graph, returned):
    """TensorFlow's control output of a function: when it returns tensors (`returned`, its output Identity
    ops) and holds ops that must run for their effects, one `NoOp` after those ops, and every returned
    Identity after the NoOp. Nothing executes it: the code generator drops the NoOp and these control
    edges (`runtime/codegen.py`); it is there so the op list and GraphDef are TensorFlow's."""
    if not returned:
        return None
    effects = [op for op in graph._ops if _runs_for_effect(op)]
    if not effects:
        return None
    noop = Operation(graph, graph.unique_name("NoOp"), None, "NoOp", [], {}, None)
    noop.control_inputs = effects
    graph._ops.append(noop)
    graph._by_name[noop.name] = noop
    for op in returned:
        op.control_inputs.append(noop)
    return noop


def without_automatic_control(ops, outputs):
    """`ops` (an op list, nested calls already inlined) and `outputs` as the runtime passes take them:
    without automatic control outputs, whose NoOps go and whose returned Identity ops become copies
    without that control edge (the passes may then elide them as before; later readers of a copy are
    copied too). Nothing of it reaches generated code."""
    for op in ops:      # (is_automatic_control_output inlined: every first call scans every graph)
        if op.type == "NoOp" and op.opdef is None:
            break
    else:
        return ops, outputs
    remap, kept = {}, []
    for op in ops:
        if is_automatic_control_output(op):
            continue
        # (an inlined callee's Identity may still name the callee's own NoOp, copied after it)
        automatic = [c for c in op.control_inputs if is_automatic_control_output(c)]
        if automatic or any(id(t) in remap for t in op.inputs):
            new = Operation(op.graph, op.name, op.opdef, op.type, [remap.get(id(t), t) for t in op.inputs],
                            op.attrs, op.source)
            new.device = op.device
            new.outputs = [SymbolicTensor(new, i, t.dtype, t.shape) for i, t in enumerate(op.outputs)]
            new.control_inputs = [c for c in op.control_inputs if not is_automatic_control_output(c)]
            remap.update((id(old), fresh) for old, fresh in zip(op.outputs, new.outputs))
            op = new
        kept.append(op)
    return kept, [remap.get(id(t), t) for t in outputs]


def _check_graph_dtypes(opdef, inputs):
    """TensorFlow's graph-construction TypeErrors for inputs of the wrong dtype."""
    if not inputs or opdef is None:
        return
    first = inputs[0].dtype
    names = opdef.input_names
    if opdef.allowed is not None and first not in opdef.allowed:
        allowed = ", ".join(d.name for d in opdef.allowed)
        raise TypeError(f"Value passed to parameter '{names[0]}' has DataType {first.name} not in list of "
                        f"allowed values: {allowed}")
    if opdef.same_dtype:
        for i in range(1, len(inputs)):
            if inputs[i].dtype is not first:
                arg = names[i] if i < len(names) else f"input_{i}"
                raise TypeError(f"Input '{arg}' of '{opdef.name}' Op has type {inputs[i].dtype.name} that does "
                                f"not match type {first.name} of argument '{names[0]}'.")


class FuncGraph(Graph):
    """The graph of one traced Python function: placeholders for its arguments, captures, outputs."""

    is_func_graph = True

    def __init__(self, name, outer_graph=None):
        super().__init__()
        self.name = name
        self.outer_graph = outer_graph
        self.inputs = []            # argument placeholders, then capture placeholders
        self.outputs = []           # flat output tensors
        self.structured_outputs = None
        self.structured_input_signature = None
        self._captures = {}         # id(external tensor) -> (external tensor, internal placeholder)
        self._captured_constants = {}   # id(small eager tensor) -> (that tensor, its Const in this graph)
        self._captured_values = []      # every captured outside tensor, by placeholder or by value, in order
        self.handle_variables = {}  # id(resource placeholder) -> the tf.Variable it stands for
        self.arg_handles = {}       # id(resource placeholder of a variable argument) -> that call's handle
        self.control_captures = []
        self._out_of_scope = False

    def placeholder(self, dtype, shape, name):
        """A Placeholder op for an argument."""
        op = self._add_op(None, "Placeholder", [], {"dtype": dtype, "shape": shape}, name, [(dtype, shape)])
        t = op.outputs[0]
        self.inputs.append(t)
        return t

    def capture(self, tensor, name=None):
        """The placeholder standing for an outside tensor inside this graph (created on first use); a small
        eager tensor becomes a Const instead, as TensorFlow captures it by value."""
        key = id(tensor)
        hit = self._captures.get(key)
        if hit is not None:
            return hit[1]
        if type(tensor) is EagerTensor and _small_value(tensor._value):
            if not getattr(self.outer_graph, "is_func_graph", False):
                return self._capture_by_value(tensor)
            # A branch or loop body: the enclosing function holds the Const, and this graph captures it
            # as an input of the If/While, as TensorFlow's nested graphs do.
            tensor = self.outer_graph.capture(tensor)
            hit = self._captures.get(id(tensor))
            if hit is not None:
                return hit[1]
            key = id(tensor)
        if isinstance(tensor, SymbolicTensor):
            # As TensorFlow: a tensor leaked from a finished tf.function trace is captured like any outside
            # tensor, and calling the function fails (it has no value: ConcreteFunction._capture_values);
            # one from a control-flow body or branch (a graph nested in another) used outside it is an
            # InaccessibleTensorError, a ValueError, while tracing.
            if not self._is_enclosing(tensor.op.graph) and getattr(tensor.op.graph, "outer_graph", None) is not None:
                raise errors.InaccessibleTensorError(
                    f"{tensor!r} is out of scope and cannot be used here. Use return values, explicit Python "
                    f"locals or TensorFlow collections to access it.\nPlease see "
                    f"https://www.tensorflow.org/guide/function#all_outputs_of_a_tffunction_must_be_return_values"
                    f" for more information.\n\n{tensor!r} was defined here:\n    {_where(tensor.op)}\n\n"
                    f"The tensor {tensor!r} cannot be accessed from {self.name}, because it was defined in "
                    f"{tensor.op.graph.name if hasattr(tensor.op.graph, 'name') else 'another graph'}, which is "
                    f"out of scope.")
            external = tensor
            if self.outer_graph is not None and tensor.op.graph is not self.outer_graph:
                external = self.outer_graph.capture(tensor)
        else:
            external = tensor
        # TensorFlow captures a tensor while converting the inputs of the op consuming it, inside that op's
        # name scope: the placeholder of a graph tensor is `<op>/<its op's name>` (`mul/mul`), and its name
        # waits for the op's, which it must not take (`mul`, not `mul_1`); one nothing consumes takes its
        # own name when the next op is made or tracing ends.
        symbolic = name is None and isinstance(tensor, SymbolicTensor)
        op = self._add_op(None, "Placeholder", [], {"dtype": tensor.dtype, "shape": tensor.shape},
                          name or _capture_name(tensor), [(tensor.dtype, tensor.shape)], defer_name=symbolic)
        if name is None:
            # an eager value (a variable's handle) is named after the input it is converted for (`add/y`,
            # `mul/ReadVariableOp/resource`)
            self._implicit_consts.add(id(op))
        internal = op.outputs[0]
        self._captures[key] = (tensor, internal, external)
        self._captured_values.append(external)
        variable = getattr(tensor, "_variable", None)
        if variable is None:
            variable = self._outer_variable(tensor)
        if variable is not None:
            self.handle_variables[id(internal)] = variable
        self.inputs.append(internal)
        return internal

    def _capture_by_value(self, tensor):
        """TensorFlow's FuncGraph captures an eager tensor of at most 128 elements as a Const made where it is
        first used (named `<op>/<input>` then), one per tensor, so the graph holds its value instead of an
        input. The tensor is kept with its Const so that its id is not reused while the graph lives."""
        hit = self._captured_constants.get(id(tensor))
        if hit is not None:
            return hit[1]
        const = self.add_constant(tensor._value, "Const", implicit=True)
        self._captured_constants[id(tensor)] = (tensor, const)
        self._captured_values.append(tensor)
        return const

    def _outer_variable(self, tensor):
        graph = getattr(getattr(tensor, "op", None), "graph", None)
        return getattr(graph, "handle_variables", {}).get(id(tensor))

    def variable_of(self, handle):
        """The tf.Variable a resource tensor of this graph stands for, if any."""
        return self.handle_variables.get(id(handle))

    def _is_enclosing(self, graph):
        g = self.outer_graph
        while g is not None:
            if g is graph:
                return not getattr(g, "_out_of_scope", False)
            g = g.outer_graph
        return False

    @property
    def captures(self):
        """[(external, internal)] in capture order."""
        return [(ext, internal) for _, internal, ext in self._captures.values()]

    @property
    def captured_values(self):
        """The outside tensors this graph uses, in capture order: those fed to a placeholder at each call
        (`external_captures`) and the small eager tensors held as Consts."""
        logged = {id(t) for t in self._captured_values}   # captures added directly (a GraphDef import) go last
        return self._captured_values + [ext for ext in self.external_captures if id(ext) not in logged]

    @property
    def external_captures(self):
        return [ext for _, _, ext in self._captures.values()]

    @property
    def internal_captures(self):
        return [internal for _, internal, _ in self._captures.values()]

    def mark_out_of_scope(self):
        """Called when tracing ends: tensors of this graph may no longer be used from outside."""
        self._out_of_scope = True
        for op in list(self._deferred_names.values()):     # captures nothing consumed (returned as they are)
            self.name_deferred(op)


_EAGER_CONST_THRESHOLD = 128    # TensorFlow's limit for capturing an eager tensor by value


def _small_value(value):
    """Whether an eager tensor's value is captured as a Const: a plain (non-resource, non-variant) value of at
    most 128 elements."""
    size = getattr(value, "size", 1)
    return size <= _EAGER_CONST_THRESHOLD and isinstance(value, (np.ndarray, np.generic))


def _capture_name(tensor):
    if isinstance(tensor, SymbolicTensor):
        return tensor.op.name
    handle_name = getattr(tensor, "_capture_name", None)
    return handle_name or "Const"


def _where(op):
    if op.source is None:
        return "<unknown>"
    return f"File \"{op.source[0]}\", line {op.source[1]}"
