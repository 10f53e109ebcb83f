"""`tf.saved_model.load`: rebuilds a saved object tree without the Python program that saved it.

Variables are created fresh holding the saved values; every graph is rebuilt op by op through the op
registry (graph_format.py) with its captured variable handles wired to those new variables; each saved
tf.function becomes a RestoredFunction over its concrete functions; objects become `_UserObject`s holding
the same attributes (sub-objects, lists, dicts, variables, functions) as the originals.
"""
import json
import os

from ...framework import errors
from .npz_arrays import ArrayReader, read_variables as read_checkpoint
from ...framework.context import init_scope, state as _state
from ...types.shape import TensorShape
from ...state.variables import Variable
from . import archive_limits, graph_format
from .restored import RestoredFunction, SignatureFunction, SignatureMap, UserObject
from .save import FORMAT, previous_dir

__all__ = ["load"]


def load(export_dir, tags=None, options=None):
    """The object saved in `export_dir` by `tf.saved_model.save`, with callable functions and `.signatures`.

    The directory is untrusted data: a malformed or hostile one raises OSError (unparsable JSON, as
    TensorFlow's "Cannot parse file"), a `tf.errors` error (unknown op types or attrs, broken structure)
    or ValueError; it never runs code of its own (see SECURITY.md).
    """
    export_dir = os.fspath(export_dir)
    if not os.path.exists(export_dir) and os.path.isdir(previous_dir(export_dir)):
        export_dir = previous_dir(export_dir)    # a save was killed while swapping directories
    path = os.path.join(export_dir, "saved_model.json")
    if not os.path.isfile(path):
        raise OSError(f"SavedModel file does not exist at: {export_dir}{os.sep}{{saved_model.json}}")
    try:
        with open(path, "rb") as f:
            payload = json.loads(f.read().decode("utf-8"))
    except (ValueError, RecursionError) as e:  # JSONDecodeError, UnicodeDecodeError, nesting too deep
        raise OSError(f"Cannot parse file {path}: {type(e).__name__}: {e}") from None
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise OSError(f"{path} is not a tensorflux SavedModel.")
    try:
        return _load(export_dir, payload)
    except (errors.OpError, OSError, ValueError, MemoryError):
        raise
    except Exception as e:  # KeyError, IndexError, TypeError, RecursionError, BadZipFile…: a broken file
        raise errors.DataLossError(None, None, f"The SavedModel at {export_dir} is malformed and cannot be "
                                               f"loaded ({type(e).__name__}: {e}).") from None


def _checked_npz(path):
    """`path`, after checking that reading it allocates at most MAX_RATIO times its size on disk."""
    if os.path.isfile(path):
        archive_limits.check_npz(path, max(os.path.getsize(path), 1 << 20) * archive_limits.MAX_RATIO, path)
    return path


def _load(export_dir, payload):
    _checked_npz(os.path.join(export_dir, "variables", "variables.npz"))
    arrays = ArrayReader(_checked_npz(os.path.join(export_dir, "saved_model.npz")))
    with init_scope():
        variables = _variables(export_dir, payload["variables"])
        keep_alive = tuple(variables)
        reader = graph_format.GraphReader(payload["graphs"], payload["concretes"], arrays, variables)
        functions = [_function(entry, reader, arrays, keep_alive) for entry in payload["functions"]]
        root = _objects(payload["objects"], variables, functions)
        root.signatures = SignatureMap(
            (name, SignatureFunction(reader.concrete(s["concrete"]), s["inputs"], s["outputs"], keep_alive))
            for name, s in payload["signatures"].items())
    return root


def _variables(export_dir, info):
    records, values = read_checkpoint(os.path.join(export_dir, "variables", "variables"))
    previous, _state.name_stack = _state.name_stack, ""  # the saved names, whatever scope load runs in
    try:
        return [Variable(values.get(record["key"]), trainable=meta["trainable"],
                         name=record["name"].rsplit(":", 1)[0], shape=TensorShape(meta["shape"]))
                for record, meta in zip(records, info)]
    finally:
        _state.name_stack = previous


def _function(entry, reader, arrays, keep_alive):
    signature = graph_format.decode_signature(entry["signature"], arrays)
    input_signature = entry["input_signature"]
    if input_signature is not None:
        input_signature = graph_format.decode_value(input_signature, arrays)
    concretes = [reader.concrete(cid) for cid in entry["concretes"]]
    return RestoredFunction(entry["name"], signature, concretes, input_signature, keep_alive)


def _unescape(name):
    """The dict key an object-graph path segment stands for (see checkpoint._escape)."""
    out, i = [], 0
    while i < len(name):
        if name[i] == "." and i + 1 < len(name) and name[i + 1] in "./":
            out.append(name[i + 1])
            i += 2
        else:
            out.append(name[i])
            i += 1
    return "".join(out)


def _objects(nodes, variables, functions):
    built = [None] * len(nodes)
    for i, node in enumerate(nodes):
        kind = node["kind"]
        if kind == "object":
            built[i] = UserObject(node.get("class", "object"), {
                name: tuple(variables[v] for v in node[name])
                for name in ("variables", "trainable_variables") if name in node})
        elif kind == "list":
            built[i] = []
        elif kind == "dict":
            built[i] = {}
        elif kind == "variable":
            built[i] = variables[node["variable"]]
        elif kind == "function":
            built[i] = functions[node["function"]]

    def get(i):
        if built[i] is None and nodes[i]["kind"] == "tuple":
            built[i] = ()  # a tuple reaching itself again sees it empty
            built[i] = tuple(get(child) for _, child in nodes[i]["children"])
        return built[i]

    for i, node in enumerate(nodes):
        kind, obj = node["kind"], get(i)
        if kind == "object":
            for name, child in node["children"]:
                object.__setattr__(obj, name, get(child))
        elif kind == "list":
            obj.extend(get(child) for _, child in node["children"])
        elif kind == "dict":
            for name, child in node["children"]:
                obj[_unescape(name)] = get(child)
    return built[0]
