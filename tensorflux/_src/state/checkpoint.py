"""Object tracking for checkpoints and SavedModels: which objects and variables an object graph holds, and
under which names.

The object graph is found by walking attributes, as TensorFlow's dependency tracking does: a
`tf.train.Checkpoint` holds its keyword arguments; a `tf.Module`, a Keras layer, model, optimizer or metric
holds whatever its attributes hold; lists, tuples and dicts hold their items. An object may instead name
its children itself with a `_trackable_children()` method returning `[(name, child)]`. The walk is
breadth first in the order the attributes were set (TensorFlow's order: it decides which of two equally
short paths names a shared variable's checkpoint key), so the first path reaching a variable is the
shortest one ("model/dense/kernel") and two objects built the same way give the same paths. A variable reachable by
several paths is one node of the graph with all of them.

The files (TensorFlow's tensor bundles holding a `TrackableObjectGraph`) are written and read one floor
up, in `io/checkpoint/`; `tf.train.Checkpoint` lives there too.
"""
import numpy as np

from ..function.concrete import ConcreteFunction
from ..function.polymorphic import Function
from .module import Module
from .variables import Variable

__all__ = ["ObjectGraph", "is_trackable", "child_objects", "variable_value", "escape_local_name",
           "path_text"]

# Attributes never saved: Keras's compiled train/test/predict step functions (they capture the data
# pipeline; TensorFlow's Keras leaves them out of its object graph too).
_UNSAVED_ATTRIBUTES = frozenset({"_train_function", "_test_function", "_predict_function"})
_KERAS_PACKAGE = "tensorflux._src.keras"
_trackable_types = {}


# -- the object graph ------------------------------------------------------------------------------
def is_trackable(obj):
    """Objects whose attributes are part of the object graph (modules, Keras objects, checkpoints)."""
    if isinstance(obj, Module) or hasattr(type(obj), "_trackable_children"):
        return True
    cls = type(obj)
    known = _trackable_types.get(cls)
    if known is None:
        known = _trackable_types[cls] = any(
            getattr(c, "__module__", "").startswith(_KERAS_PACKAGE) for c in cls.__mro__)
    return known


def _is_function(obj):
    return isinstance(obj, (Function, ConcreteFunction))   # a concrete function attribute: a SavedModel child


def escape_local_name(name):
    """A child's name as one segment of a checkpoint key (TensorFlow's escaping: "." -> "..", "/" -> ".S")."""
    return str(name).replace(".", "..").replace("/", ".S")


class ObjectGraph:
    """The objects reachable from `root`, breadth first: trackables, containers, variables (and
    tf.functions when `with_functions`).

    `nodes[i]` is an object, `children[i]` its `[(name, node index)]`, `paths[i]` every path (a tuple of
    names) reaching it, the shortest first.
    """

    def __init__(self, root, with_functions=False):
        self.with_functions = with_functions
        self.nodes, self.children, self.paths = [], [], []
        self._index = {}
        self._add(root, ())
        cursor = 0
        while cursor < len(self.nodes):
            obj, path = self.nodes[cursor], self.paths[cursor][0]
            for name, child in child_objects(obj, self.with_functions):
                self.children[cursor].append((name, self._add(child, path + (name,))))
            cursor += 1

    def _add(self, obj, path):
        index = self._index.get(id(obj))
        if index is None:
            index = self._index[id(obj)] = len(self.nodes)
            self.nodes.append(obj)
            self.children.append([])
            self.paths.append([path])
        elif path not in self.paths[index]:
            self.paths[index].append(path)
        return index

    def index_of(self, obj):
        return self._index.get(id(obj))

    def variables(self):
        """`[(variable, paths)]` in walk order."""
        return [(obj, [path_text(p) for p in paths])
                for obj, paths in zip(self.nodes, self.paths) if isinstance(obj, Variable)]

def _relevant(value, with_functions, depth=0):
    if isinstance(value, Variable) or is_trackable(value):
        return True
    if with_functions and _is_function(value):
        return True
    if isinstance(value, (list, tuple)) and depth < 32:
        return any(_relevant(v, with_functions, depth + 1) for v in value)
    if isinstance(value, dict) and depth < 32:
        return any(_relevant(v, with_functions, depth + 1) for v in value.values())
    return False


def child_objects(obj, with_functions=False):
    """`[(name, child)]`: what `obj` holds that belongs to the object graph."""
    if isinstance(obj, (list, tuple)):
        items = [(str(i), v) for i, v in enumerate(obj)]
    elif isinstance(obj, dict):
        try:
            keys = sorted(obj)
        except TypeError:
            keys = list(obj)
        items = [(str(k), obj[k]) for k in keys]
    elif isinstance(obj, Variable) or _is_function(obj):
        return []
    else:
        items = _attribute_items(obj, with_functions)
    return [(name, v) for name, v in items if _relevant(v, with_functions)]


def _attribute_items(obj, with_functions):
    custom = getattr(obj, "_trackable_children", None)
    if custom is not None:
        return list(custom())
    ignored = getattr(obj, "_TF_MODULE_IGNORED_PROPERTIES", ())
    attributes = vars(obj) if hasattr(obj, "__dict__") else {}
    items = [(name, attributes[name]) for name in attributes
             if name not in ignored and name not in _UNSAVED_ATTRIBUTES]
    if with_functions:
        items += _class_functions(obj, attributes)
    return items


def _class_functions(obj, attributes):
    """tf.functions defined as methods (class attributes), bound to `obj`."""
    found = []
    seen = set(attributes)
    for cls in type(obj).__mro__:
        for name, value in vars(cls).items():
            if name not in seen and _is_function(value):
                seen.add(name)
                found.append((name, getattr(obj, name)))
    return sorted(found, key=lambda item: item[0])


def path_text(path):
    """A path (a tuple of child names) as the text of a checkpoint key, each name escaped."""
    return "/".join(escape_local_name(name) for name in path)


def variable_value(variable):
    """A variable's current value as a NumPy array (read without running an op)."""
    return np.asarray(variable._resource.value)
