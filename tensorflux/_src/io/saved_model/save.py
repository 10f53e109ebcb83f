"""`tf.saved_model.save`: writes an object's tf.functions (their traced graphs) and variables to a directory.

    export_dir/
      saved_model.json         object tree, functions, graphs (graph_format.py), signatures, variable info
      saved_model.npz          the arrays the graphs hold (constants, array attrs, captured constants)
      variables/variables.*    the variables, as a checkpoint of the saved object

The directory is replaced as a whole (see "crash safety" below): files of an earlier save, or others
placed in it, do not survive a new save.

Every tf.function reachable through attributes is saved with the concrete functions it has traced; one
with an `input_signature` that was never called is traced first. Variables are saved once each, whether
reached through attributes or only captured by a function.
"""
import json
import os
import shutil
import tempfile

from ...state.checkpoint import ObjectGraph, is_trackable, variable_value
from ..checkpoint.checkpoint import write_checkpoint
from .npz_arrays import ArrayWriter, write_json as _write_json
from ...framework import nest
from ...framework.context import init_scope
from ...framework.tensor import Tensor
from ...function.concrete import ConcreteFunction
from ...function.polymorphic import Function
from ...types.spec import TensorSpec
from ...state.variables import Variable
from . import graph_format
from .restored import RestoredFunction, SignatureFunction

__all__ = ["save", "FORMAT", "VERSION"]

FORMAT = "tensorflux-saved-model"
VERSION = 1
DEFAULT_SIGNATURE = "serving_default"


def save(obj, export_dir, signatures=None, options=None):
    """Saves `obj`'s tf.functions and variables to `export_dir` (see the module docstring)."""
    if not is_trackable(obj):
        raise ValueError(f"Expected an object of type `Trackable`, such as `tf.Module` or a subclass of the "
                         f"`Trackable` class, for export. Got {obj} with type {type(obj)}.")
    export_dir = os.fspath(export_dir)
    with init_scope():
        _trace_input_signatures(obj)
        signature_functions = _signature_functions(obj, signatures)
        tree = ObjectGraph(obj, with_functions=True)
        payload, arrays, variables = _serialise(tree, signature_functions)
        records = []
        values = ArrayWriter("v")
        for variable, paths in variables:
            value = variable_value(variable)
            records.append({"key": values.add(value), "paths": paths, "name": variable.name,
                            "dtype": variable.dtype.name, "shape": list(value.shape)})
    staging = _staging_dir(export_dir)
    try:
        os.makedirs(os.path.join(staging, "variables"))
        values.write(os.path.join(staging, "variables", "variables.npz"))
        _write_json(os.path.join(staging, "variables", "variables.json"),
                    {"format": "tensorflux-checkpoint", "version": 1, "variables": records})
        write_checkpoint(os.path.join(staging, "variables", "variables"), obj)
        arrays.write(os.path.join(staging, "saved_model.npz"))
        _write_json(os.path.join(staging, "saved_model.json"), payload)
        _swap_into_place(staging, export_dir)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


# -- crash safety ------------------------------------------------------------------------------------
# A save is written whole into a hidden sibling directory, then swapped in with two renames: the old
# directory goes to `previous_dir(export_dir)`, the new one takes its name, the old one is removed. A
# reader sees the old save or the new one, never a mix; a process killed between the two renames leaves
# only the previous save, which `load` reads from there and the next save puts back first.
def previous_dir(export_dir):
    head, tail = os.path.split(os.path.normpath(os.path.abspath(export_dir)))
    return os.path.join(head, f".{tail}.previous")


def _staging_dir(export_dir):
    head, tail = os.path.split(os.path.normpath(os.path.abspath(export_dir)))
    os.makedirs(head, exist_ok=True)
    return tempfile.mkdtemp(dir=head, prefix=f".{tail}.saving-")


def _swap_into_place(staging, export_dir):
    export_dir = os.path.normpath(os.path.abspath(export_dir))
    previous = previous_dir(export_dir)
    if os.path.isdir(previous):
        if os.path.isdir(export_dir):
            shutil.rmtree(previous)                 # a stale copy left after a completed swap
        else:
            os.rename(previous, export_dir)         # an interrupted swap: the previous save is the good one
    if os.path.isdir(export_dir):
        os.rename(export_dir, previous)
        os.rename(staging, export_dir)
        shutil.rmtree(previous)
    else:
        if os.path.exists(export_dir):
            raise FileExistsError(f"Cannot save a SavedModel to {export_dir}: it exists and is not a directory.")
        os.rename(staging, export_dir)


def _functions_of(obj):
    return [node for node in ObjectGraph(obj, with_functions=True).nodes if isinstance(node, Function)]


def _trace_input_signatures(obj):
    """tf.functions with an input_signature that were never called are traced now (as TensorFlow does)."""
    for fn in _functions_of(obj):
        if fn.input_signature is not None and not len(fn._cache) and not isinstance(fn, RestoredFunction):
            fn.get_concrete_function()


def _signature_function(value):
    if isinstance(value, (ConcreteFunction, SignatureFunction)):
        return value
    if isinstance(value, Function) and value.input_signature is not None:
        return value.get_concrete_function()
    raise ValueError(f"Expected a TensorFlow function for which to generate a signature, but got {value}. Only "
                     f"`tf.functions` with an input signature or concrete functions can be used as a signature.")


def _signature_functions(obj, signatures):
    """`{name: ConcreteFunction | SignatureFunction}`; TensorFlow's default when `signatures` is None: the
    object's one tf.function with an input_signature (none when there are several), or the signatures of
    an object that was itself loaded."""
    if signatures is None:
        loaded = getattr(obj, "signatures", None)
        if isinstance(loaded, dict) and all(isinstance(v, SignatureFunction) for v in loaded.values()):
            return dict(loaded)
        tree = ObjectGraph(obj, with_functions=True)
        candidates = []
        for _, index in tree.children[0]:
            fn = tree.nodes[index]
            if isinstance(fn, Function) and fn.input_signature is not None and fn not in candidates:
                candidates.append(fn)
        return {DEFAULT_SIGNATURE: _signature_function(candidates[0])} if len(candidates) == 1 else {}
    if not isinstance(signatures, dict):
        return {DEFAULT_SIGNATURE: _signature_function(signatures)}
    out = {}
    for name, value in signatures.items():
        if not isinstance(name, str):
            raise ValueError(f"Signature keys must be strings, got {name!r}.")
        out[name] = _signature_function(value)
    return out


def _serialise(tree, signature_functions):
    arrays = ArrayWriter("a")
    variables = list(tree.variables())
    index = {id(v): i for i, (v, _) in enumerate(variables)}

    def variable_index(variable):
        i = index.get(id(variable))
        if i is None:  # captured by a function but not reachable through attributes
            i = index[id(variable)] = len(variables)
            variables.append((variable, []))
        return i

    writer = graph_format.GraphWriter(arrays, variable_index)
    functions, objects = [], []
    for node, children in zip(tree.nodes, tree.children):
        links = [[name, child] for name, child in children]
        if isinstance(node, Variable):
            objects.append({"kind": "variable", "variable": variable_index(node)})
        elif isinstance(node, Function):
            objects.append({"kind": "function", "function": len(functions)})
            functions.append(_function_entry(node, writer))
        elif isinstance(node, (list, tuple, dict)):
            kind = "list" if isinstance(node, list) else "tuple" if isinstance(node, tuple) else "dict"
            objects.append({"kind": kind, "children": links})
        else:
            entry = {"kind": "object", "class": type(node).__name__, "children": links}
            entry.update(_variable_lists(node, variable_index))
            objects.append(entry)
    signatures = {name: _signature_entry(name, fn, writer) for name, fn in signature_functions.items()}
    variable_info = [{"trainable": bool(v.trainable), "shape": graph_format._dims(v.shape)} for v, _ in variables]
    payload = {"format": FORMAT, "version": VERSION, "objects": objects, "functions": functions,
               "signatures": signatures, "variables": variable_info, "graphs": writer.graphs,
               "concretes": writer.concretes}
    json.dumps(payload)  # fail here, before anything is written, if something slipped through
    return payload, arrays, variables


def _variable_lists(obj, variable_index):
    """The object's own `variables` / `trainable_variables` lists (their order is the object's: a Keras
    layer lists its kernel before its bias), as variable indices."""
    out = {}
    for name in ("variables", "trainable_variables"):
        try:
            found = getattr(obj, name, None)
        except Exception:  # a property that cannot be computed on this object is simply not saved
            continue
        if isinstance(found, (list, tuple)) and all(isinstance(v, Variable) for v in found):
            out[name] = [variable_index(v) for v in found]
    return out


def _function_entry(fn, writer):
    signature = None if isinstance(fn, RestoredFunction) and fn._signature is None else fn._signature
    input_signature = fn.input_signature
    return {"name": fn._name,
            "signature": graph_format.encode_signature(signature, writer._value_or_none),
            "input_signature": None if input_signature is None else writer._value(tuple(input_signature)),
            "concretes": [writer.concrete(cf) for cf in fn._list_all_concrete_functions_for_serialization()]}


def _signature_entry(name, fn, writer):
    if isinstance(fn, SignatureFunction):
        return {"concrete": writer.concrete(fn._concrete), "inputs": list(fn._input_names),
                "outputs": list(fn._output_keys)}
    for pname, _, ttype in fn._params:
        if not isinstance(ttype, (TensorSpec, graph_format._tt.Literal)):
            raise ValueError(f"Signature '{name}': the function {fn._name} takes `{pname}` as {ttype!r}; a signature "
                             f"function may only take tensors (a flat list of TensorSpecs).")
    n_args = len(fn.graph.inputs) - len(fn.graph.internal_captures)
    inputs = [t.op.name for t in fn.graph.inputs[:n_args]]
    structured = fn.structured_outputs
    leaves = nest.flatten(structured)
    if not all(isinstance(t, Tensor) for t in leaves):
        raise ValueError(f"Signature '{name}': every output of a signature function must be a tensor; "
                         f"{fn._name} returns {structured!r}.")
    if isinstance(structured, dict) and all(isinstance(k, str) for k in structured) and \
            all(isinstance(v, Tensor) for v in structured.values()):
        outputs = sorted(structured)
    else:
        outputs = [f"output_{i}" for i in range(len(leaves))]
    return {"concrete": writer.concrete(fn), "inputs": inputs, "outputs": outputs}
