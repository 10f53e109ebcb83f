"""The `SaverDef` of a SavedModel: how TensorFlow 1-style loaders (TensorFlow Serving, `saved_model_cli run`,
`tf.compat.v1.saved_model.load`) restore the variables into a session.

Two functions join the library, as TensorFlow writes them: a restore function (`RestoreV2` of every
variable's key from the `file_prefix` argument, then `AssignVariableOp` into each variable's handle) and
a save function (`ReadVariableOp` of each variable, `SaveV2` of them with the object graph, so what it
writes is a TF2 checkpoint). The GraphDef calls them from `StatefulPartitionedCall` nodes fed by the
`saver_filename` placeholder, and `saver_def` names those tensors. The functions are written directly as
FunctionDefs: they are fixed plumbing of a few ops, not traced user code.
"""
import numpy as np

from ...types import dtypes as _dt
from ..checkpoint.object_graph import OBJECT_GRAPH_KEY
from ..formats import attr_values as _av
from ..formats import protos

__all__ = ["add_saver", "RESTORE_OP", "SAVE_OP", "FILENAME_NODE"]

FILENAME_NODE = "saver_filename"
SAVE_OP = "StatefulPartitionedCall_1"
RESTORE_OP = "StatefulPartitionedCall_2"
_STRING = _dt.string.as_datatype_enum
_RESOURCE = _dt.resource.as_datatype_enum


def _const(messages, function, name, values):
    node = function.node_def.add(name=name, op="Const")
    node.attr["dtype"].type = _STRING
    node.attr["value"].tensor.CopyFrom(_av.tensor_proto(messages, np.array(values, dtype=object), _dt.string))
    return f"{name}:output:0"


def _signature(function, name, n_variables, output):
    signature = function.signature
    signature.name = name
    signature.input_arg.add(name="file_prefix", type=_STRING)
    for i in range(n_variables):
        signature.input_arg.add(name=f"variable_{i}", type=_RESOURCE)
    signature.output_arg.add(name=output, type=_STRING)
    signature.is_stateful = True


def _restore_function(messages, name, variables):
    function = messages.FunctionDef()
    _signature(function, name, len(variables), "identity")
    # RestoreV2 must restore something: with no variables, TensorFlow restores the object graph.
    keys = [key.encode() for _, key, _ in variables] or [OBJECT_GRAPH_KEY.encode()]
    names = _const(messages, function, "RestoreV2/tensor_names", keys)
    slices = _const(messages, function, "RestoreV2/shape_and_slices", [b""] * len(keys))
    restore = function.node_def.add(name="RestoreV2", op="RestoreV2")
    restore.input.extend(["file_prefix", names, slices])
    restore.attr["dtypes"].list.type.extend([v.dtype.as_datatype_enum for v, _, _ in variables] or [_STRING])
    assigns = []
    for i, (variable, _, _) in enumerate(variables):
        assign = function.node_def.add(name=f"AssignVariableOp_{i}", op="AssignVariableOp")
        assign.input.extend([f"variable_{i}", f"RestoreV2:tensors:{i}"])
        assign.attr["dtype"].type = variable.dtype.as_datatype_enum
        assign.attr["validate_shape"].b = False
        assigns.append(assign.name)
    done = function.node_def.add(name="NoOp", op="NoOp")
    done.input.extend(f"^{a}" for a in assigns)
    identity = function.node_def.add(name="Identity", op="Identity")
    identity.input.extend(["file_prefix", "^NoOp"])
    identity.attr["T"].type = _STRING
    function.ret["identity"] = "Identity:output:0"
    for a in assigns:
        function.signature.control_output.append(a)
        function.control_ret[a] = a
    return function


def _save_function(messages, name, variables, object_graph):
    function = messages.FunctionDef()
    _signature(function, name, len(variables), "identity")
    keys = [key.encode() for _, key, _ in variables] + [b"_CHECKPOINTABLE_OBJECT_GRAPH"]
    names = _const(messages, function, "SaveV2/tensor_names", keys)
    slices = _const(messages, function, "SaveV2/shape_and_slices", [b""] * len(keys))
    graph_value = _const(messages, function, "object_graph", object_graph)
    reads = []
    for i, (variable, _, _) in enumerate(variables):
        read = function.node_def.add(name=f"ReadVariableOp_{i}", op="ReadVariableOp")
        read.input.append(f"variable_{i}")
        read.attr["dtype"].type = variable.dtype.as_datatype_enum
        reads.append(f"{read.name}:value:0")
    save = function.node_def.add(name="SaveV2", op="SaveV2")
    save.input.extend(["file_prefix", names, slices] + reads + [graph_value])
    save.attr["dtypes"].list.type.extend([v.dtype.as_datatype_enum for v, _, _ in variables] + [_STRING])
    identity = function.node_def.add(name="Identity", op="Identity")
    identity.input.extend(["file_prefix", "^SaveV2"])
    identity.attr["T"].type = _STRING
    function.ret["identity"] = "Identity:output:0"
    function.signature.control_output.append("SaveV2")
    function.control_ret["SaveV2"] = "SaveV2"
    return function


def _call(graph, name, function_name, handles):
    call = graph.node.add(name=name, op="StatefulPartitionedCall")
    call.input.extend([FILENAME_NODE] + handles)
    call.attr["f"].func.name = function_name
    call.attr["Tin"].list.type.extend([_STRING] + [_RESOURCE] * len(handles))
    call.attr["Tout"].list.type.append(_STRING)
    for key in ("config", "config_proto", "executor_type"):
        call.attr[key].s = b""


def add_saver(meta, variables, object_graph):
    """Adds the save/restore functions, their graph nodes and `saver_def` to `meta` (a MetaGraphDef).

    `variables`: `[(variable, checkpoint key, name of its VarHandleOp node)]`; `object_graph`: the
    serialized TrackableObjectGraph the save function writes beside the values."""
    messages = _av.messages()
    graph = meta.graph_def
    existing = {f.signature.name for f in graph.library.function}
    restore_name, save_name = "__inference__traced_restore", "__inference__traced_save"
    while restore_name in existing or save_name in existing:
        restore_name, save_name = restore_name + "_", save_name + "_"
    graph.library.function.add().CopyFrom(_restore_function(messages, restore_name, variables))
    graph.library.function.add().CopyFrom(_save_function(messages, save_name, variables, object_graph))
    filename = graph.node.add(name=FILENAME_NODE, op="Placeholder")
    filename.attr["dtype"].type = _STRING
    filename.attr["shape"].shape.SetInParent()
    handles = [handle for _, _, handle in variables]
    _call(graph, SAVE_OP, save_name, handles)
    _call(graph, RESTORE_OP, restore_name, handles)
    saver = meta.saver_def
    saver.filename_tensor_name = f"{FILENAME_NODE}:0"
    saver.save_tensor_name = f"{SAVE_OP}:0"
    saver.restore_op_name = RESTORE_OP
    saver.version = protos.load("saver").SaverDef.V2
