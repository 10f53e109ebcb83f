"""`tf.train.Checkpoint`: saving and restoring the variables of an object graph, keyed by attribute paths.

The object graph is found by walking attributes, as TensorFlow's dependency tracking does: a
`tf.Checkpoint` holds its keyword arguments; a `tf.Module`, a Keras layer, model, optimizer or metric
holds whatever its attributes hold; lists, tuples and dicts hold their items. The walk is breadth first
in sorted attribute order, so the first path reaching a variable is the shortest one ("model/dense/kernel")
and two objects built the same way give the same paths. A variable reachable by several paths is saved once
with all of them, and any of them restores it.

A checkpoint `prefix` is two files: `prefix.npz` (the values, loadable without pickle) and `prefix.json`
(the object graph: which paths each value belongs to, its variable name, dtype and shape). `save` also
writes a `checkpoint` state file next to them, in TensorFlow's text format, read by `latest_checkpoint`.

Crash safety: every file is written to a temporary sibling and moved into place with `os.replace`, in
the order values, index, state file; a process killed at any point leaves the previous checkpoint whole.
The `.npz` also carries its own copy of the index, and readers take the index from there when present:
rewriting an existing prefix then switches old to new in one `os.replace`, so a reader never pairs new
values with an old index. The `.json` (written last) is what marks a checkpoint complete. A manager
deletes old checkpoints only after the state file no longer lists them.

Restoring assigns every variable that exists. Keras layers and optimizers that are not built yet get
their values when they build (deferred restoration): their `build` is wrapped once on the instance.

    ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
    path = ckpt.save("/tmp/run/ckpt")          # "/tmp/run/ckpt-1"
    ckpt.restore(tf.train.latest_checkpoint("/tmp/run")).assert_consumed()
"""
import json
import os
import re
import tempfile
import time

import numpy as np

from ..framework import errors
from ..framework.context import init_scope, state as _state
from ..function.polymorphic import Function
from .module import Module
from ..ops.registry import dtype_error_name
from ..types import dtypes as _dt
from ..types.shape import TensorShape
from .variables import Variable

__all__ = ["Checkpoint", "CheckpointManager", "latest_checkpoint", "ObjectGraph", "is_trackable",
           "child_objects", "ArrayWriter", "ArrayReader", "read_checkpoint", "write_checkpoint"]

FORMAT = "tensorflux-checkpoint"
VERSION = 1
_INDEX_KEY = "checkpoint_index.json"   # the index's copy inside the .npz (UTF-8 JSON as uint8)

# Attributes never saved: Keras's compiled train/test/predict step functions (they capture the data
# pipeline; TensorFlow's Keras leaves them out of its object graph too).
_UNSAVED_ATTRIBUTES = frozenset({"_train_function", "_test_function", "_predict_function"})
_KERAS_PACKAGE = "tensorflux._src.keras"
_trackable_types = {}


# -- the object graph ------------------------------------------------------------------------------
def is_trackable(obj):
    """Objects whose attributes are part of the object graph (modules, Keras objects, checkpoints)."""
    if isinstance(obj, (Module, Checkpoint)) or hasattr(type(obj), "_trackable_children"):
        return True
    cls = type(obj)
    known = _trackable_types.get(cls)
    if known is None:
        known = _trackable_types[cls] = any(
            getattr(c, "__module__", "").startswith(_KERAS_PACKAGE) for c in cls.__mro__)
    return known


def _is_function(obj):
    return isinstance(obj, Function)


def _escape(key):
    return str(key).replace(".", "..").replace("/", "./")


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
        return [(obj, [_path_text(p) for p in paths])
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
        items = [(_escape(k), obj[k]) for k in keys]
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
    items = [(name, attributes[name]) for name in sorted(attributes)
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


def _path_text(path):
    return "/".join(path)


# -- arrays in .npz files --------------------------------------------------------------------------
class ArrayWriter:
    """Collects arrays under generated keys and writes them as one `.npz` (no pickled objects).

    String tensors (object arrays of bytes) are stored as their concatenated bytes plus lengths; dtypes
    NumPy cannot store natively (bfloat16, …) as unsigned integers of the same width plus the dtype name.
    """

    def __init__(self, prefix="a"):
        self._prefix = prefix
        self.entries = {}

    def add(self, array, key=None):
        key = key or f"{self._prefix}{len(self.entries)}"
        array = np.asarray(array)
        if array.dtype.kind == "O":
            items = [x if isinstance(x, bytes) else str(x).encode() for x in array.reshape(-1)]
            self.entries[key + ".bytes"] = np.frombuffer(b"".join(items), dtype=np.uint8)
            self.entries[key + ".lengths"] = np.array([len(x) for x in items], dtype=np.int64).reshape(array.shape)
        elif array.dtype.type.__module__ != "numpy":
            name = _dt.FROM_NUMPY[array.dtype].name
            self.entries[f"{key}.as.{name}"] = array.view(np.dtype(f"u{array.dtype.itemsize}"))
        else:
            self.entries[key] = array
        return key

    def write(self, path):
        _atomic_write(path, lambda f: np.savez(f, **self.entries))


class ArrayReader:
    """Reads arrays written by ArrayWriter."""

    def __init__(self, path):
        with np.load(path, allow_pickle=False) as data:
            self._data = {k: data[k] for k in data.files}
        embedded = self._data.pop(_INDEX_KEY, None)
        self.index = None if embedded is None else embedded.tobytes()  # the checkpoint's own index, if any
        self._custom = {}
        for k in self._data:
            base, sep, name = k.partition(".as.")
            if sep:
                self._custom[base] = (k, name)

    def __contains__(self, key):
        return key in self._data or key + ".lengths" in self._data or key in self._custom

    def get(self, key):
        if key in self._data:
            return self._data[key]
        if key in self._custom:
            stored, name = self._custom[key]
            return self._data[stored].view(_dt.as_dtype(name).as_numpy_dtype)
        lengths = self._data[key + ".lengths"]
        raw = self._data[key + ".bytes"].tobytes()
        ends = np.cumsum(lengths.reshape(-1))
        items = [raw[end - n:end] for n, end in zip(lengths.reshape(-1), ends)]
        out = np.empty(len(items), dtype=object)
        out[:] = items
        return out.reshape(lengths.shape)


def _atomic_write(path, write):
    """Writes through a temporary file in the same directory, so readers never see half a file."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(path)}.tmp-")
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def _write_json(path, payload):
    _atomic_write(path, lambda f: f.write(json.dumps(payload, indent=1).encode()))


def variable_value(variable):
    """A variable's current value as a NumPy array (read without running an op)."""
    return np.asarray(variable._resource.value)


def write_checkpoint(prefix, root):
    """Writes the variables reachable from `root` to `prefix.npz` + `prefix.json`."""
    graph = ObjectGraph(root)
    arrays = ArrayWriter("v")
    records = []
    for variable, paths in graph.variables():
        value = variable_value(variable)
        records.append({"key": arrays.add(value), "paths": paths, "name": variable.name,
                        "dtype": variable.dtype.name, "shape": list(value.shape)})
    index = json.dumps({"format": FORMAT, "version": VERSION, "variables": records}, indent=1).encode()
    arrays.entries[_INDEX_KEY] = np.frombuffer(index, dtype=np.uint8)
    arrays.write(prefix + ".npz")      # values and their index switch together (see the module docstring)
    _atomic_write(prefix + ".json", lambda f: f.write(index))   # last: the checkpoint is complete
    return prefix


def read_checkpoint(prefix):
    """`(records, ArrayReader)` of a checkpoint; NotFoundError (TensorFlow's wording) when missing."""
    prefix = _resolve_saved_model_dir(prefix)
    try:
        reader = ArrayReader(prefix + ".npz")
        index = reader.index
        if index is None:  # written before the index was embedded, or by a SavedModel
            with open(prefix + ".json", "rb") as f:
                index = f.read()
    except (FileNotFoundError, NotADirectoryError):
        raise errors.NotFoundError(
            None, None, f"Error when restoring from checkpoint or SavedModel at {prefix}: Unsuccessful "
                        f"TensorSliceReader constructor: Failed to find any matching files for {prefix}\nPlease "
                        f"double-check that the path is correct. You may be missing the checkpoint suffix (e.g. "
                        f"the '-1' in 'path/to/ckpt-1').") from None
    try:
        payload = json.loads(index.decode("utf-8"))
    except (ValueError, RecursionError):  # JSONDecodeError, UnicodeDecodeError, nesting too deep
        payload = None
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise errors.DataLossError(None, None, f"{prefix}.json is not a tensorflux checkpoint.")
    return payload["variables"], reader


def _resolve_saved_model_dir(path):
    """A SavedModel directory stands for the checkpoint of its variables (as in TensorFlow)."""
    path = os.fspath(path)
    inner = os.path.join(path, "variables", "variables")
    if os.path.isdir(path) and os.path.exists(inner + ".json"):
        return inner
    return path


# -- restoring -------------------------------------------------------------------------------------
class _Restoration:
    """Saved values matched against the variables of a live object graph, by path."""

    def __init__(self, root, records, reader, prefix):
        self.root = root
        self.records = records
        self.reader = reader
        self.prefix = prefix
        self.by_path = {}
        for i, record in enumerate(records):
            for p in record["paths"]:
                self.by_path.setdefault(p, i)
        self.consumed = set()        # record indices restored
        self.matched = {}            # id(variable) -> variable, for every variable that got a value
        self.seen = {}               # id(variable) -> variable, for every variable walked

    def run(self):
        graph = ObjectGraph(self.root)
        self._assign(graph.variables())
        self._defer(graph)

    def _assign(self, variables):
        for variable, paths in variables:
            self.seen[id(variable)] = variable
            if id(variable) in self.matched:
                continue
            index = next((self.by_path[p] for p in paths if p in self.by_path), None)
            if index is None or index in self.consumed:
                continue
            record = self.records[index]
            _restore_variable(variable, self.reader.get(record["key"]), record, paths[0])
            self.consumed.add(index)
            self.matched[id(variable)] = variable

    def _defer(self, graph):
        """Wraps `build` of unbuilt layers/optimizers that saved values are waiting for."""
        pending = [p for p, i in self.by_path.items() if i not in self.consumed]
        if not pending:
            return
        for obj, paths in zip(graph.nodes, graph.paths):
            if getattr(obj, "built", True) is not False or not callable(getattr(obj, "build", None)):
                continue
            prefixes = [_path_text(p) + "/" for p in paths]
            if any(q.startswith(pre) for q in pending for pre in prefixes) and "build" not in vars(obj):
                self._wrap_build(obj, paths)

    def _wrap_build(self, obj, paths):
        restoration = self
        original = type(obj).build.__get__(obj)

        def build(*args, **kwargs):
            del obj.build  # once: the class's build is used again
            result = original(*args, **kwargs)
            sub = ObjectGraph(obj)
            found = []
            for variable, rel in sub.variables():
                found.append((variable, [_path_text(p) + "/" + r for p in paths for r in rel]))
            restoration._assign(found)
            return result

        obj.build = build

    def unmatched_python(self):
        return [v for k, v in self.seen.items() if k not in self.matched]

    def unresolved_records(self):
        return [r for i, r in enumerate(self.records) if i not in self.consumed]


def _restore_variable(variable, value, record, path):
    saved_dtype = _dt.as_dtype(record["dtype"])
    if saved_dtype is not variable.dtype:
        raise errors.InvalidArgumentError(
            None, None, f"tensor_name = {path}; expected dtype {dtype_error_name(variable.dtype)} does not equal "
                        f"original dtype {dtype_error_name(saved_dtype)}")
    if not variable.shape.is_compatible_with(TensorShape(value.shape)):
        raise ValueError(f"Received incompatible tensor with shape {TensorShape(value.shape)} when attempting to "
                         f"restore variable with shape {variable.shape} and name {variable.name}.")
    with init_scope():
        variable.assign(value, read_value=False)


class CheckpointLoadStatus:
    """What `Checkpoint.restore` returns: checks of how well the checkpoint matched the objects."""

    def __init__(self, restoration):
        self._restoration = restoration

    def assert_consumed(self):
        """Every saved value was restored and every variable of the object graph got one."""
        self.assert_existing_objects_matched()
        unresolved = self._restoration.unresolved_records()
        if unresolved:
            r = unresolved[0]
            raise AssertionError(
                f"Unresolved object in checkpoint (root).{r['paths'][0].replace('/', '.')}: a variable "
                f"{r['name']!r} of shape {tuple(r['shape'])} and dtype {r['dtype']} ({len(unresolved)} unresolved "
                f"value(s) in total)")
        return self

    def assert_existing_objects_matched(self):
        """Every variable of the object graph got a value (saved values may be left over)."""
        unmatched = self._restoration.unmatched_python()
        if unmatched:
            shown = unmatched[:10]
            raise AssertionError(
                f"Found {len(unmatched)} Python objects that were not bound to checkpointed values, likely due to "
                f"changes in the Python program. Showing {len(shown)} of {len(unmatched)} unmatched objects: "
                f"{shown}")
        return self

    def assert_nontrivial_match(self):
        """At least one value other than the save counter was restored."""
        restored = [self._restoration.records[i] for i in self._restoration.consumed]
        if not any(r["paths"] != ["save_counter"] for r in restored):
            raise AssertionError(f"Nothing except the root object matched a checkpointed value. Typically this "
                                 f"means that the checkpoint does not match the Python program. The following "
                                 f"objects have no matching checkpointed value: "
                                 f"{self._restoration.unmatched_python()}")
        return self

    def expect_partial(self):
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


# -- tf.train.Checkpoint ---------------------------------------------------------------------------
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
        for name, value in children.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)
        if not name.startswith("_") and (isinstance(value, Variable) or is_trackable(value)):
            self._children[name] = value

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
        return self._save_counter

    def write(self, file_prefix, options=None):
        """Writes `file_prefix.npz` / `.json` (no numbering, no state file); returns `file_prefix`."""
        return write_checkpoint(os.fspath(file_prefix), self)

    def save(self, file_prefix, options=None):
        """Increments `save_counter`, writes `file_prefix-<counter>`, updates the `checkpoint` state file."""
        counter = self.save_counter
        with init_scope():
            counter.assign_add(np.int64(1), read_value=False)
        path = self.write(f"{os.fspath(file_prefix)}-{int(variable_value(counter))}")
        directory = os.path.dirname(path) or "."
        relative = os.path.basename(path) if os.path.dirname(os.path.abspath(path)) == os.path.abspath(directory) \
            else path
        _write_state(directory, relative, [relative])
        return path

    def read(self, save_path, options=None):
        """Restores from `save_path` (without touching `save_counter` unless it was saved)."""
        if save_path is None:
            return InitializationOnlyStatus()
        records, reader = read_checkpoint(os.fspath(save_path))
        if any(r["paths"] == ["save_counter"] for r in records):
            self.save_counter  # noqa: B018 - created so the saved count is restored into it
        restoration = _Restoration(self, records, reader, save_path)
        restoration.run()
        return CheckpointLoadStatus(restoration)

    def restore(self, save_path, options=None):
        """Restores every variable of the object graph saved at `save_path`; returns a load status."""
        return self.read(save_path, options)

    def __repr__(self):
        return f"<tensorflux.checkpoint.Checkpoint object at 0x{id(self):x}>"


def _check_trackable(name, value):
    if not (isinstance(value, Variable) or is_trackable(value)):
        raise ValueError(f"`Checkpoint` was expecting {name} to be a trackable object (an object derived from "
                         f"`Trackable`), got {value}. If you believe this object should be trackable (i.e. it is "
                         f"part of the TensorFlow Python API and manages state), please open an issue.")


# -- the `checkpoint` state file -------------------------------------------------------------------
_STATE_LINE = re.compile(r'^\s*(\w+)\s*:\s*(?:"((?:[^"\\]|\\.)*)"|([-+0-9.eE]+))\s*$')


def _write_state(directory, latest, paths, timestamps=None, last_preserved=None, filename="checkpoint"):
    lines = [f"model_checkpoint_path: {json.dumps(latest)}"]
    lines += [f"all_model_checkpoint_paths: {json.dumps(p)}" for p in paths]
    lines += [f"all_model_checkpoint_timestamps: {t!r}" for t in timestamps or ()]
    if last_preserved is not None:
        lines.append(f"last_preserved_timestamp: {last_preserved!r}")
    _atomic_write(os.path.join(directory, filename), lambda f: f.write(("\n".join(lines) + "\n").encode()))


def _read_state(directory, filename="checkpoint"):
    """`{"model_checkpoint_path": str, "all_model_checkpoint_paths": [...], ...}` or None."""
    try:
        with open(os.path.join(directory, filename)) as f:
            text = f.read()
    except (FileNotFoundError, NotADirectoryError):
        return None
    state = {"model_checkpoint_path": None, "all_model_checkpoint_paths": [],
             "all_model_checkpoint_timestamps": [], "last_preserved_timestamp": None}
    for line in text.splitlines():
        m = _STATE_LINE.match(line)
        if m is None:
            continue
        key, text_value, number = m.groups()
        value = json.loads(f'"{text_value}"') if text_value is not None else float(number)
        if isinstance(state.get(key), list):
            state[key].append(value)
        else:
            state[key] = value
    return state


def _absolute(directory, path):
    return path if os.path.isabs(path) else os.path.join(directory, path)


def _exists(prefix):
    return os.path.exists(prefix + ".json") and os.path.exists(prefix + ".npz")


def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """The prefix of the newest checkpoint recorded in `checkpoint_dir`'s state file, or None."""
    checkpoint_dir = os.fspath(checkpoint_dir)
    state = _read_state(checkpoint_dir, latest_filename or "checkpoint")
    if state is None or not state["model_checkpoint_path"]:
        return None
    path = _absolute(checkpoint_dir, state["model_checkpoint_path"])
    return path if _exists(path) else None


class CheckpointManager:
    """`tf.train.CheckpointManager`: numbered saves in one directory, keeping the newest `max_to_keep`."""

    def __init__(self, checkpoint, directory, max_to_keep, keep_checkpoint_every_n_hours=None,
                 checkpoint_name="ckpt", step_counter=None, checkpoint_interval=None, init_fn=None):
        if max_to_keep is not None and (not isinstance(max_to_keep, int) or max_to_keep <= 0):
            raise ValueError(f"Expected a positive integer or `None` for `max_to_keep`, got {max_to_keep}.")
        if checkpoint_interval is not None and step_counter is None:
            raise ValueError("`step_counter` should be passed if `checkpoint_interval` is not None.")
        self._checkpoint = checkpoint
        self._directory = os.fspath(directory)
        self._max_to_keep = max_to_keep
        self._keep_hours = keep_checkpoint_every_n_hours
        self._prefix = os.path.join(self._directory, checkpoint_name)
        self._step_counter = step_counter
        self._interval = checkpoint_interval
        self._last_step = None
        self._init_fn = init_fn
        self._kept = []   # [(prefix, timestamp)], oldest first
        self._last_preserved = time.time()
        state = _read_state(self._directory)
        if state is not None:
            stamps = state["all_model_checkpoint_timestamps"]
            paths = [_absolute(self._directory, p) for p in state["all_model_checkpoint_paths"]]
            if len(stamps) != len(paths):
                stamps = [time.time()] * len(paths)
            self._kept = [(p, t) for p, t in zip(paths, stamps) if _exists(p)]
            if state["last_preserved_timestamp"] is not None:
                self._last_preserved = state["last_preserved_timestamp"]

    @property
    def directory(self):
        return self._directory

    @property
    def checkpoint(self):
        return self._checkpoint

    @property
    def checkpoint_interval(self):
        return self._interval

    @property
    def checkpoints(self):
        """The prefixes of the kept checkpoints, oldest first."""
        return [p for p, _ in self._kept]

    @property
    def latest_checkpoint(self):
        return self._kept[-1][0] if self._kept else None

    def save(self, checkpoint_number=None, check_interval=True, options=None):
        """Saves `<directory>/<name>-<number>`; returns its prefix (None when the interval skips it)."""
        if self._interval is not None and check_interval:
            step = int(np.asarray(self._step_counter))
            if self._last_step is not None and step < self._last_step + self._interval:
                return None
            self._last_step = step
        counter = self._checkpoint.save_counter
        with init_scope():
            counter.assign_add(np.int64(1), read_value=False)
        number = int(variable_value(counter)) if checkpoint_number is None else int(np.asarray(checkpoint_number))
        prefix = self._checkpoint.write(f"{self._prefix}-{number}")
        now = time.time()
        self._kept = [(p, t) for p, t in self._kept if p != prefix] + [(prefix, now)]
        swept = self._sweep()
        _write_state(self._directory, self._relative(prefix), [self._relative(p) for p, _ in self._kept],
                     [t for _, t in self._kept], self._last_preserved)
        for old in swept:  # only now that the state file no longer lists them
            for suffix in (".json", ".npz"):  # the index first: a checkpoint without it is not complete
                if os.path.exists(old + suffix):
                    os.remove(old + suffix)
        return prefix

    def _relative(self, path):
        return os.path.relpath(path, self._directory) if os.path.dirname(path) == self._directory else path

    def _sweep(self):
        """Drops the oldest checkpoints beyond `max_to_keep` from the kept list (keeping one every n hours
        if asked); returns the prefixes to delete once the state file is written."""
        swept = []
        if self._max_to_keep is None:
            return swept
        while len(self._kept) > self._max_to_keep:
            prefix, stamp = self._kept.pop(0)
            if self._keep_hours is not None and stamp - self._last_preserved >= self._keep_hours * 3600:
                self._last_preserved = stamp
                continue
            swept.append(prefix)
        return swept

    def restore_or_initialize(self):
        """Restores the latest checkpoint (returning its prefix), else runs `init_fn` (returning None)."""
        latest = self.latest_checkpoint
        if latest is not None:
            self._checkpoint.restore(latest)
            return latest
        if self._init_fn is not None:
            self._init_fn()
        return None


API = {"train": ["Checkpoint", "CheckpointManager", "latest_checkpoint"]}
