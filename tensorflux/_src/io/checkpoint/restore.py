"""Restoring a checkpoint into live objects, as TensorFlow matches them: by walking the saved object graph
and the live one together from the root, child by local name.

A saved node that reaches a live variable gives it its value (dtype and shape checked with TensorFlow's
errors). A saved child the live object does not have (yet) is remembered: when a Keras layer, model or
optimizer that was not built builds its weights later, the walk continues from it and the new variables
get their saved values then (TensorFlow's restore-on-create); a `Checkpoint` attribute, or a `tf.Module`
attribute the saved graph names, set after the restore is matched when it is set (a module that makes its
variables on its first call gets their saved values as it makes them). The load status objects report
how well the two graphs matched, with TensorFlow's messages.
"""
import functools

from ...framework import errors
from ...framework.context import init_scope
from ...ops.registry import dtype_error_name
from ...state.checkpoint import ObjectGraph, child_objects, is_trackable
from ...state.module import Module, defer_restoration
from ...state.variables import Variable
from ...types import dtypes
from ...types.shape import TensorShape
from .object_graph import VARIABLE_VALUE

__all__ = ["Restoration", "CheckpointLoadStatus", "InitializationOnlyStatus"]


class Restoration:
    """One `restore` call: the saved graph, the bundle it came from, and which saved node went to which object."""

    def __init__(self, saved, reader, prefix, root):
        self.saved = saved
        self.reader = reader
        self.prefix = prefix
        self.root = root
        self.bound = {}              # saved node id -> live object
        self._visited = set()        # (saved node id, id(live object)) pairs already walked
        self._keep = []              # the live objects of _visited, so their ids stay theirs
        self.matched_variables = {}  # id(variable) -> variable that received a value

    def run(self):
        self.match(0, self.root)

    def match(self, node_id, obj):
        """Walks the saved graph from `node_id` together with the live `obj`."""
        queue = [(node_id, obj)]
        for saved_id, live in queue:
            if (saved_id, id(live)) in self._visited:
                continue
            self._visited.add((saved_id, id(live)))
            self._keep.append(live)
            self.bound.setdefault(saved_id, live)
            if isinstance(live, Variable):
                self._restore_variable(saved_id, live)
                continue
            if hasattr(live, "_restore_checkpoint_tensors"):
                self._restore_tensors(saved_id, live)
            live_children = {}
            for name, child in child_objects(live):
                live_children.setdefault(str(name), child)
            missing = False
            for name, child_id in self.saved.children[saved_id]:
                if name in live_children:
                    queue.append((child_id, live_children[name]))
                else:
                    missing = True
                    if isinstance(live, Module):
                        defer_restoration(live, name, functools.partial(self._created, child_id))
            if missing:
                self._wait_for_build(saved_id, live)

    def _created(self, node_id, value):
        """A module's attribute set after the restore: the saved node of its name goes to the new object."""
        if isinstance(value, Variable) or is_trackable(value) or isinstance(value, (list, tuple, dict)):
            self._visited.discard((node_id, id(value)))
            self.match(node_id, value)
            return True
        return False

    def _restore_variable(self, saved_id, variable):
        attribute = self.saved.attributes[saved_id].get(VARIABLE_VALUE)
        if attribute is None:
            return
        key = attribute[0]
        saved_dtype = self.reader.dtype(key)
        if saved_dtype is not variable.dtype:
            raise errors.InvalidArgumentError(
                None, None, f"tensor_name = {key}; expected dtype {dtype_error_name(variable.dtype)} does not "
                            f"equal original dtype {dtype_error_name(saved_dtype)}")
        shape = TensorShape(self.reader.shape(key))
        if not variable.shape.is_compatible_with(shape):
            raise ValueError(f"Received incompatible tensor with shape {shape} when attempting to restore variable "
                             f"with shape {variable.shape} and name {variable.name}.")
        value = self.reader.read(key)
        if saved_dtype == dtypes.string:
            value = value.astype(object)
        with init_scope():
            variable.assign(value, read_value=False)
        self.matched_variables[id(variable)] = variable

    def _restore_tensors(self, saved_id, live):
        """An object saving tensors of its own (a mutable lookup table): each saved attribute's tensors,
        `<key><suffix>` for the suffixes the object names, handed to it."""
        for attribute, (key, _) in self.saved.attributes[saved_id].items():
            arrays = {}
            for suffix in live._CHECKPOINT_SUFFIXES:
                value = self.reader.read(key + suffix)
                arrays[suffix] = value.astype(object) if self.reader.dtype(key + suffix) == dtypes.string else value
            live._restore_checkpoint_tensors(attribute, arrays)

    def _wait_for_build(self, saved_id, live):
        """Continues the walk from `live` once it builds (a Keras object not built yet has no weights)."""
        if getattr(live, "built", True) is not False or not callable(getattr(live, "build", None)):
            return
        if "build" in vars(live):
            waiting = getattr(live.build, "_restorations", None)
            if waiting is not None:
                waiting.append((self, saved_id))
            return
        original = type(live).build.__get__(live)
        waiting = [(self, saved_id)]   # held until the build: the values come then

        def build(*args, **kwargs):
            del live.build   # once: the class's build is used again
            result = original(*args, **kwargs)
            for restoration, node in waiting:
                restoration._visited.discard((node, id(live)))
                restoration.match(node, live)
            return result

        build._restorations = waiting
        live.build = build

    # -- what the statuses check -------------------------------------------------------------------
    def unmatched_variables(self):
        """Variables of the live graph that got no value."""
        return [v for v, _ in ObjectGraph(self.root).variables() if id(v) not in self.matched_variables]

    def unresolved_nodes(self):
        """Saved nodes holding values that no live object took."""
        return [i for i, attributes in enumerate(self.saved.attributes) if attributes and i not in self.bound]

    def node_name(self, node_id):
        path = self.saved.path_names()[node_id]
        return ".".join(("(root)",) + tuple(path or ()))


class CheckpointLoadStatus:
    """What `Checkpoint.read`/`restore` return: checks of how well the checkpoint matched the objects."""

    def __init__(self, restoration):
        self._restoration = restoration

    def assert_consumed(self):
        """Every live variable got a value and every saved value went to an object."""
        self.assert_existing_objects_matched()
        for node_id in self._restoration.unresolved_nodes():
            raise AssertionError(f"Unresolved object in checkpoint {self._restoration.node_name(node_id)}: "
                                 f"{self._restoration.saved.node_text(node_id)}")
        return self

    def assert_existing_objects_matched(self):
        """Every variable of the live object graph got a value (saved values may be left over)."""
        unmatched = self._restoration.unmatched_variables()
        if unmatched:
            shown = unmatched[:10]
            raise AssertionError(
                f"Found {len(unmatched)} Python objects that were not bound to checkpointed values, likely due to "
                f"changes in the Python program. Showing {len(shown)} of {len(unmatched)} unmatched objects: "
                f"{shown}")
        return self

    def assert_nontrivial_match(self):
        """Something other than the root matched a saved object."""
        if len(self._restoration.bound) <= 1:
            raise AssertionError(f"Nothing except the root object matched a checkpointed value. Typically this "
                                 f"means that the checkpoint does not match the Python program. The following "
                                 f"objects have no matching checkpointed value: "
                                 f"{self._restoration.unmatched_variables()}")
        return self

    def expect_partial(self):
        """Silences warnings about a partial match (tensorflux does not print them); returns the status."""
        return self

    def run_restore_ops(self, session=None):
        return None

    def initialize_or_restore(self, session=None):
        return None


class InitializationOnlyStatus:
    """What `restore(None)` returns: nothing was restored (variables keep their initial values)."""

    def _nothing(self):
        raise AssertionError("No checkpoint specified (save_path=None); nothing is being restored.")

    def assert_consumed(self):
        self._nothing()

    def assert_existing_objects_matched(self):
        self._nothing()

    def assert_nontrivial_match(self):
        self._nothing()

    def expect_partial(self):
        return self

    def run_restore_ops(self, session=None):
        return None

    def initialize_or_restore(self, session=None):
        return None
