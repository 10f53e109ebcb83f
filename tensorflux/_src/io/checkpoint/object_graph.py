"""The `TrackableObjectGraph` stored under `_CHECKPOINTABLE_OBJECT_GRAPH`, as TensorFlow writes and reads it.

Writing: every node of the live object graph (state/checkpoint.ObjectGraph) becomes one
`TrackableObject` with its children by local name; a variable carries one attribute, `VARIABLE_VALUE`,
whose checkpoint key is the escaped path of the shortest route to it plus `/.ATTRIBUTES/VARIABLE_VALUE`
(a mutable lookup table its `table` attribute, saved as the two tensors `<key>-keys` and `<key>-values`);
`has_checkpoint_values` says whether a value lives in the node or below it.

Reading: the proto is untrusted. `SavedGraph` checks node ids, names and keys before any of them is
used; it never follows a name to an attribute lookup (names are only compared with the live object's
own children).
"""
from ...framework.errors import DataLossError
from ...state.checkpoint import ObjectGraph, path_text, variable_value
from ...state.variables import Variable
from ..formats import protos

__all__ = ["OBJECT_GRAPH_KEY", "VARIABLE_VALUE", "attribute_key", "build_object_graph", "SavedGraph",
           "variable_key"]

OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
VARIABLE_VALUE = "VARIABLE_VALUE"
_ATTRIBUTES = ".ATTRIBUTES"
_MAX_NODES = 1 << 22        # far beyond any real program; a bigger claim is a hostile file


def variable_key(path):
    """The checkpoint key of a variable reached by `path` (a tuple of child names)."""
    return f"{path_text(path)}/{_ATTRIBUTES}/{VARIABLE_VALUE}" if path else f"{_ATTRIBUTES}/{VARIABLE_VALUE}"


def _full_name(variable):
    name = variable.name
    return name[:-2] if name.endswith(":0") else name


def attribute_key(path, attribute):
    """The checkpoint key of an object's saved attribute (`VARIABLE_VALUE`, a table's `table`)."""
    return f"{path_text(path)}/{_ATTRIBUTES}/{attribute}" if path else f"{_ATTRIBUTES}/{attribute}"


def build_object_graph(root):
    """`(TrackableObjectGraph proto, [(checkpoint key, NumPy value, DType)])` of the objects reachable from
    `root`: each variable's value, and the tensors an object such as a mutable lookup table saves
    (`_checkpoint_tensors()`: `{attribute: {key suffix: array}}`, TensorFlow's `table-keys`/`table-values`)."""
    pb = protos.load("trackable_object_graph")
    graph = ObjectGraph(root)
    proto = pb.TrackableObjectGraph()
    saved = []
    for obj, children, paths in zip(graph.nodes, graph.children, graph.paths):
        node = proto.nodes.add()
        for name, child in children:
            node.children.add(node_id=child, local_name=str(name))
        if isinstance(obj, Variable):
            key = variable_key(paths[0])
            node.attributes.add(name=VARIABLE_VALUE, full_name=_full_name(obj), checkpoint_key=key)
            saved.append((key, variable_value(obj), obj.dtype))
            continue
        tensors = getattr(obj, "_checkpoint_tensors", None)
        for attribute, arrays in (tensors() if tensors is not None else {}).items():
            key = attribute_key(paths[0], attribute)
            node.attributes.add(name=attribute, checkpoint_key=key)
            for suffix, array in arrays.items():
                saved.append((key + suffix, array, None))
    _mark_values(proto)
    return proto, saved


def _mark_values(proto):
    """`has_checkpoint_values` of each node: it or a node below it holds a value (cycles allowed)."""
    holds = [bool(node.attributes) for node in proto.nodes]
    changed = True
    while changed:
        changed = False
        for i, node in enumerate(proto.nodes):
            if not holds[i] and any(holds[c.node_id] for c in node.children):
                holds[i] = changed = True
    for node, value in zip(proto.nodes, holds):
        node.has_checkpoint_values.value = value


class SavedGraph:
    """A parsed, checked `TrackableObjectGraph`: `children[i]` is `[(local name, node id)]`, `attributes[i]`
    `{name: (checkpoint key, full name)}`, `slots[i]` `[(original node id, slot name, slot node id)]`."""

    def __init__(self, data, where):
        pb = protos.load("trackable_object_graph")
        proto = protos.parse(pb.TrackableObjectGraph, data, f"the object graph of {where}")
        count = len(proto.nodes)
        if not 0 < count <= _MAX_NODES:
            raise DataLossError(None, None, f"The object graph of {where} has {count} nodes")
        self.proto = proto
        self.children, self.attributes, self.slots = [], [], []
        for index, node in enumerate(proto.nodes):
            refs = []
            for ref in node.children:
                self._check_id(ref.node_id, count, where, index)
                refs.append((ref.local_name, ref.node_id))
            self.children.append(refs)
            self.attributes.append({a.name: (a.checkpoint_key, a.full_name) for a in node.attributes})
            slots = []
            for slot in node.slot_variables:
                self._check_id(slot.original_variable_node_id, count, where, index)
                self._check_id(slot.slot_variable_node_id, count, where, index)
                slots.append((slot.original_variable_node_id, slot.slot_name, slot.slot_variable_node_id))
            self.slots.append(slots)

    @staticmethod
    def _check_id(node_id, count, where, index):
        if not 0 <= node_id < count:
            raise DataLossError(None, None, f"The object graph of {where}: node {index} refers to node {node_id} "
                                f"of {count}")

    def __len__(self):
        return len(self.children)

    def path_names(self):
        """Each node's first path from the root (breadth first), as a tuple of local names; None if unreached."""
        paths = [None] * len(self.children)
        paths[0] = ()
        queue = [0]
        for current in queue:
            for name, child in self.children[current]:
                if paths[child] is None:
                    paths[child] = paths[current] + (name,)
                    queue.append(child)
        return paths

    def node_text(self, index):
        """The node as TensorFlow prints it in `assert_consumed` errors."""
        return str(self.proto.nodes[index])
