"""`tf.train.Checkpoint`: writes the variables of an object graph as a TensorFlow checkpoint and restores them.

    ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
    path = ckpt.save("/tmp/run/ckpt")          # "/tmp/run/ckpt-1": ckpt-1.index + ckpt-1.data-00000-of-00001
    ckpt.restore(tf.train.latest_checkpoint("/tmp/run")).assert_consumed()

The files are TensorFlow's (a tensor bundle with the object graph under `_CHECKPOINTABLE_OBJECT_GRAPH`),
so TensorFlow restores them and tensorflux restores TensorFlow's. Values stream from each variable to the
data file one at a time and back, so a checkpoint never needs a second copy of the weights in memory.
Crash safety is the bundle writer's (io/formats/tensor_bundle.py): the index's rename commits a write.
"""
import os

import numpy as np

from ...framework import errors
from ...framework.context import init_scope, state as _state
from ...state.checkpoint import is_trackable, child_objects, variable_value
from ...state.variables import Variable
from ..formats.tensor_bundle import BundleReader, BundleWriter
from ...state import worker_paths as chief
from .object_graph import OBJECT_GRAPH_KEY, SavedGraph, build_object_graph
from .restore import CheckpointLoadStatus, InitializationOnlyStatus, Restoration
from .state_file import CheckpointState, write_state

__all__ = ["Checkpoint", "CheckpointOptions", "write_checkpoint", "open_checkpoint", "resolve_prefix"]


class CheckpointOptions:
    """`tf.train.CheckpointOptions`: accepted for compatibility; tensorflux saves on the host, synchronously."""

    def __init__(self, experimental_io_device=None, experimental_enable_async_checkpoint=False,
                 experimental_write_callbacks=None, enable_async=False, experimental_sharding_callback=None,
                 experimental_skip_slot_variables=False):
        self.experimental_io_device = experimental_io_device
        self.enable_async = bool(experimental_enable_async_checkpoint or enable_async)
        self.experimental_enable_async_checkpoint = self.enable_async
        self.experimental_write_callbacks = experimental_write_callbacks
        self.experimental_sharding_callback = experimental_sharding_callback
        self.experimental_skip_slot_variables = experimental_skip_slot_variables


def write_checkpoint(prefix, root):
    """Writes the variables reachable from `root` as a TensorFlow checkpoint at `prefix`; returns `prefix`."""
    prefix = os.fspath(prefix)
    proto, tensors = build_object_graph(root)
    directory = os.path.dirname(os.path.abspath(prefix))
    os.makedirs(directory, exist_ok=True)
    with BundleWriter(prefix) as writer:
        for key, value, dtype in tensors:
            writer.add(key, value, dtype=dtype)
        writer.add(OBJECT_GRAPH_KEY, np.array(proto.SerializeToString(), dtype=object))
    return prefix


def resolve_prefix(path):
    """A SavedModel directory stands for the checkpoint of its variables (as in TensorFlow)."""
    path = os.fspath(path)
    inner = os.path.join(path, "variables", "variables")
    if os.path.isdir(path) and os.path.isfile(inner + ".index"):
        return inner
    return path


def _not_found(prefix):
    message = (f"Unsuccessful TensorSliceReader constructor: Failed to find any matching files for {prefix}")
    if os.path.isfile(prefix + ".npz") or os.path.isfile(prefix + ".json"):
        message += (f"\n{prefix}.npz/.json is a checkpoint in tensorflux's former format (NumPy + JSON); it is "
                    f"not a TensorFlow checkpoint and can no longer be read. Restore it with the tensorflux release "
                    f"that wrote it and save the restored objects with this one (np.save of their values bridges "
                    f"the two).")
    return errors.NotFoundError(None, None, message)


def open_checkpoint(path):
    """`(prefix, BundleReader)` of the checkpoint at `path`; NotFoundError (TensorFlow's words) without one."""
    prefix = resolve_prefix(path)
    if not os.path.isfile(prefix + ".index"):
        raise _not_found(prefix)
    return prefix, BundleReader(prefix)


def read_object_graph(prefix, reader):
    """The checked SavedGraph stored in the checkpoint."""
    if OBJECT_GRAPH_KEY not in reader:
        raise errors.UnimplementedError(
            None, None, f"The checkpoint at {prefix} has no object graph ({OBJECT_GRAPH_KEY}): it is a name-based "
                        f"checkpoint of TensorFlow 1's tf.compat.v1.train.Saver, which tf.train.Checkpoint in "
                        f"tensorflux does not restore (tf.train.load_checkpoint reads its tensors)")
    data = reader.read(OBJECT_GRAPH_KEY)
    if data.shape != () or not isinstance(data.item(), bytes):
        raise errors.DataLossError(None, None, f"{OBJECT_GRAPH_KEY} of {prefix} is not a scalar string")
    return SavedGraph(data.item(), prefix)


class Checkpoint:
    """`tf.train.Checkpoint(root=None, **objects)`: saves and restores the variables of `objects`."""

    def __init__(self, root=None, **kwargs):
        children = {}
        if root is not None:
            _check_trackable("root", root)
        for name, value in sorted(kwargs.items()):
            _check_trackable(name, value)
            children[name] = value
        object.__setattr__(self, "_root", root)
        object.__setattr__(self, "_children", children)
        object.__setattr__(self, "_save_counter", None)
        object.__setattr__(self, "_restorations", [])
        for name, value in children.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)
        if not name.startswith("_") and (isinstance(value, (Variable, list, tuple, dict)) or is_trackable(value)):
            self._children[name] = value
            self._restore_on_create(name, value)

    def _restore_on_create(self, name, value):
        """Gives an object attached after a restore the values saved for it."""
        for restoration in self._restorations:
            for saved_name, node in restoration.saved.children[0]:
                if saved_name == name:
                    restoration.match(node, value)

    def _trackable_children(self):
        items = []
        if self._root is not None:
            items += child_objects(self._root)
        items += sorted(self._children.items())
        if self._save_counter is not None:
            items.append(("save_counter", self._save_counter))
        return items

    @property
    def save_counter(self):
        """An int64 variable counting `save` calls (it numbers the checkpoint files)."""
        if self._save_counter is None:
            with init_scope():
                previous, _state.name_stack = _state.name_stack, ""
                try:
                    counter = Variable(np.int64(0), trainable=False, name="save_counter")
                finally:
                    _state.name_stack = previous
            object.__setattr__(self, "_save_counter", counter)
            self._restore_on_create("save_counter", counter)
        return self._save_counter

    def write(self, file_prefix, options=None):
        """Writes the checkpoint at `file_prefix` (no numbering, no `checkpoint` file); returns the prefix."""
        return write_checkpoint(os.fspath(file_prefix), self)

    def save(self, file_prefix, options=None):
        """Increments `save_counter`, writes `file_prefix-<counter>`, updates the `checkpoint` state file.

        In a multi-worker job only the chief writes there; every other worker writes the same files in a
        temporary `workertemp_<task_id>` directory and deletes it (state/worker_paths.py), and returns the
        chief's path."""
        counter = self.save_counter
        with init_scope():
            counter.assign_add(np.int64(1), read_value=False)
        file_prefix = os.fspath(file_prefix)
        directory, name = os.path.split(file_prefix)
        written_in = chief.write_dirpath(directory) if directory else chief.write_dirpath(".")
        target = file_prefix if chief.is_chief() else os.path.join(written_in, name)
        path = self.write(f"{target}-{int(variable_value(counter))}")
        state_dir = os.path.dirname(path)
        relative = os.path.relpath(path, state_dir) if state_dir else path
        write_state(state_dir or ".", CheckpointState(relative, [relative]))
        if chief.is_chief():
            return path
        chief.remove_temp_dirpath(directory or ".")
        return f"{file_prefix}-{int(variable_value(counter))}"

    def read(self, save_path, options=None):
        """Restores from `save_path` (a prefix, or a SavedModel directory); returns a load status."""
        if save_path is None:
            return InitializationOnlyStatus()
        prefix, reader = open_checkpoint(save_path)
        saved = read_object_graph(prefix, reader)
        restoration = Restoration(saved, reader, prefix, self)
        restoration.run()
        self._restorations.append(restoration)
        return CheckpointLoadStatus(restoration)

    def restore(self, save_path, options=None):
        """`read`, then creates `save_counter` (restored if the checkpoint has one), as TensorFlow does."""
        try:
            status = self.read(save_path, options)
        except errors.NotFoundError as error:
            raise errors.NotFoundError(
                None, None, f"Error when restoring from checkpoint or SavedModel at {os.fspath(save_path)}: "
                            f"{error.message}\nPlease double-check that the path is correct. You may be missing "
                            f"the checkpoint suffix (e.g. the '-1' in 'path/to/ckpt-1').") from None
        self.save_counter  # noqa: B018 - created now; restore-on-create gives it the saved count
        return status

    def __repr__(self):
        return f"<tensorflux.checkpoint.Checkpoint object at 0x{id(self):x}>"


def _check_trackable(name, value):
    # a list, tuple or dict is tracked as a container, as TensorFlow wraps it (its trackable items are saved)
    if not (isinstance(value, (Variable, list, tuple, dict)) or is_trackable(value)):
        raise ValueError(f"`Checkpoint` was expecting {name} to be a trackable object (an object derived from "
                         f"`Trackable`), got {value}. If you believe this object should be trackable (i.e. it is "
                         f"part of the TensorFlow Python API and manages state), please open an issue.")


API = {"train": ["Checkpoint", "CheckpointOptions"]}
