"""`tf.saved_model.save`: writes an object's tf.functions and variables as a TensorFlow SavedModel.

    export_dir/
      saved_model.pb                 SavedModel { MetaGraphDef: tags "serve", the functions as a
                                     FunctionDefLibrary, signature_def, the SavedObjectGraph }
      variables/variables.index      a TensorFlow checkpoint of the object graph (same node ids)
      variables/variables.data-00000-of-00001
      fingerprint.pb                 FingerprintDef
      assets/                        the files of tf.saved_model.Asset objects

The object graph is the attribute graph of state/checkpoint.py plus TensorFlow's additions: the root's
`signatures` (a signature map of bare concrete functions taking keyword tensors and returning a dict),
each tf.function as a SavedFunction listing its concrete functions, and each concrete function's
captures as `bound_inputs` (variable nodes, constants, assets). Graphs become FunctionDefs through
io/formats/graph_export.py. Signatures get TensorFlow's names: key `serving_default` by default, inputs
named after the arguments, outputs `output_N` or the returned dict's keys; the GraphDef holds, as
TensorFlow's does, a Placeholder per signature input (`serving_default_x`), a VarHandleOp per variable
and a StatefulPartitionedCall per signature, which `signature_def` names.

The directory is written whole into a hidden sibling and swapped in (see "crash safety" below).
"""
import hashlib
import os
import shutil

from ...framework import nest
from ...framework.composite import CompositeTensor, TypeSpec, _ComponentsOutput
from ...framework.context import init_scope
from ...framework.tensor import Tensor
from ...function.concrete import ConcreteFunction
from ...function.polymorphic import Function
from ...state.checkpoint import ObjectGraph, is_trackable, variable_value
from ...state.variables import Variable
from ...types.spec import TensorSpec
from ..atomic import sync_directory, sync_file, temporary_directory
from ..checkpoint.object_graph import OBJECT_GRAPH_KEY, VARIABLE_VALUE, variable_key
from ..formats import attr_values as _av
from ..formats import protos
from ..formats.graph_export import GRAPH_DEF_PRODUCER, Exporter
from ..formats.tensor_bundle import BundleWriter
from . import saver_def, structures
from .assets import Asset
from .options import SaveOptions
from .restored import RestoredFunction, SignatureFunction

__all__ = ["save", "previous_dir", "DEFAULT_SIGNATURE", "TENSORFLOW_VERSION"]

DEFAULT_SIGNATURE = "serving_default"
PREDICT_METHOD = "tensorflow/serving/predict"
# What meta_info_def says wrote the file: the TensorFlow release whose behaviour tensorflux follows.
TENSORFLOW_VERSION = "2.21.0"
GIT_VERSION = "tensorflux"


def save(obj, export_dir, signatures=None, options=None):
    """Saves `obj`'s tf.functions and variables to `export_dir` (see the module docstring)."""
    if not is_trackable(obj):
        raise ValueError(f"Expected an object of type `Trackable`, such as `tf.Module` or a subclass of the "
                         f"`Trackable` class, for export. Got {obj} with type {type(obj)}.")
    if options is not None and not isinstance(options, SaveOptions):
        raise TypeError(f"`options` must be a tf.saved_model.SaveOptions, got {options!r}")
    export_dir = os.fspath(export_dir)
    with init_scope():
        _trace_input_signatures(obj)
        signature_functions = _signature_functions(obj, signatures)
        plan = _Plan(obj, signature_functions, options or SaveOptions())
        saved_model = plan.saved_model()
    staging = _staging_dir(export_dir)
    try:
        os.makedirs(os.path.join(staging, "variables"))
        plan.write_variables(os.path.join(staging, "variables", "variables"))
        os.makedirs(os.path.join(staging, "assets"))   # TensorFlow writes it even when empty
        for source, filename in plan.assets:
            shutil.copyfile(source, os.path.join(staging, "assets", filename))
        data = saved_model.SerializeToString()
        _write(os.path.join(staging, "saved_model.pb"), data)
        _write(os.path.join(staging, "fingerprint.pb"), _fingerprint(saved_model, data))
        sync_directory(staging)
        _swap_into_place(staging, export_dir)
        sync_directory(os.path.dirname(os.path.normpath(os.path.abspath(export_dir))))
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _write(path, data):
    with open(path, "wb") as f:
        f.write(data)
        sync_file(f)               # fsynced only for durable saves (TENSORFLUX_DURABLE_SAVES=1)


def _hash64(data):
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little")


def _fingerprint(saved_model, data):
    """A FingerprintDef (tensorflux's own 64-bit hashes of the same parts TensorFlow hashes)."""
    meta = saved_model.meta_graphs[0]
    fingerprint = protos.load("fingerprint").FingerprintDef(
        saved_model_checksum=_hash64(data),
        graph_def_program_hash=_hash64(meta.graph_def.SerializeToString(deterministic=True)),
        signature_def_hash=_hash64(b"".join(meta.signature_def[k].SerializeToString(deterministic=True)
                                            for k in sorted(meta.signature_def))),
        saved_object_graph_hash=_hash64(meta.object_graph_def.SerializeToString(deterministic=True)))
    fingerprint.version.producer = 1
    return fingerprint.SerializeToString()


# -- crash safety ------------------------------------------------------------------------------------
# A save is written whole into a hidden sibling directory (`.name.saving-<pid>-…`, io/atomic.py), then
# swapped in with two renames: the old directory goes to `previous_dir(export_dir)`, the new one takes
# its name, the old one is removed. A reader sees the old save or the new one, never a mix; a process
# killed between the two renames leaves only the previous save, which `load` reads from there and the
# next save puts back first. Staging directories of writers that died are removed by the next save.

def previous_dir(export_dir):
    head, tail = os.path.split(os.path.normpath(os.path.abspath(export_dir)))
    return os.path.join(head, f".{tail}.previous")


def _staging_dir(export_dir):
    head = os.path.dirname(os.path.normpath(os.path.abspath(export_dir)))
    os.makedirs(head, exist_ok=True)
    return temporary_directory(os.path.normpath(os.path.abspath(export_dir)))


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


# -- which functions -----------------------------------------------------------------------------------
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


def _signature_wrapper(name, fn):
    """`(ConcreteFunction taking the inputs by sorted name and returning a dict, input names, output keys)`."""
    if isinstance(fn, SignatureFunction):
        specs = list(fn._specs)
        keys = list(fn._output_keys)

        def call(values):
            return fn(**values)
    else:
        # A signature takes flat tensors: an argument that is a list/tuple/dict of TensorSpecs (a
        # multi-input Keras model's) gives one input per spec, named by the spec (else `arg_i`), and a
        # composite (SparseTensorSpec, RaggedTensorSpec) one input per component (`r`, `r_1`, ...); the
        # function gets the structure back, as TensorFlow does.
        specs, layout = [], []
        arguments = fn.structured_input_signature[0] if fn.structured_input_signature else ()
        for position, (pname, _, ttype) in enumerate(fn._params):
            structure = ttype if isinstance(ttype, (TensorSpec, TypeSpec)) or position >= len(arguments) else \
                arguments[position]
            leaves = nest.flatten(structure)
            if not leaves or not all(isinstance(t, (TensorSpec, TypeSpec)) for t in leaves):
                raise ValueError(f"Signature '{name}': the function {fn._name} takes `{pname}` as {ttype!r}; a "
                                 f"signature function may only take tensors (TensorSpecs, composite specs, or a "
                                 f"list, tuple or dict of them).")
            names = []
            for i, leaf in enumerate(leaves):
                base = getattr(leaf, "name", None) or (pname if len(leaves) == 1 else f"{pname}_{i}")
                parts = leaf._component_specs() if isinstance(leaf, TypeSpec) else [leaf]
                for j, part in enumerate(parts):
                    names.append(base if j == 0 else f"{base}_{j}")
                    specs.append(TensorSpec(part.shape, part.dtype, names[-1]))
            simple = len(leaves) == 1 and isinstance(structure, TensorSpec)
            layout.append((None if simple else structure, names))
        units = _output_units(fn.structured_outputs)
        if not all(isinstance(t, (Tensor, CompositeTensor)) for _, t in units):
            raise ValueError(f"Signature '{name}': every output of a signature function must be a tensor; "
                             f"{fn._name} returns {fn.structured_outputs!r}.")
        keys = [k for k, _ in units]

        def call(values):
            result = fn(*[values[names[0]] if structure is None else nest.pack_sequence_as(
                structure, [values[n] for n in names], expand_composites=True) for structure, names in layout])
            if isinstance(result, dict) and sorted(result) == keys:
                return {k: result[k] for k in keys}
            return dict(zip(keys, nest.flatten(result)))
    ordered = sorted(specs, key=lambda s: s.name)
    if len({s.name for s in ordered}) != len(ordered):
        raise ValueError(f"Signature '{name}': two inputs are named alike ({[s.name for s in specs]}).")

    def signature_wrapper(*tensors):
        outputs = call({s.name: t for s, t in zip(ordered, tensors)})
        return {k: outputs[k] for k in sorted(outputs)}

    wrapper = Function(signature_wrapper, name="signature_wrapper", input_signature=ordered, autograph=False)
    cf = wrapper.get_concrete_function()
    cf._signature_specs = ordered
    return cf, [s.name for s in ordered], sorted(keys)


# -- the object graph --------------------------------------------------------------------------------
class _Plan:
    """The nodes of the SavedObjectGraph (and of the variables' checkpoint, with the same ids)."""

    def __init__(self, root, signature_functions, options):
        tree = ObjectGraph(root, with_functions=True)
        self.nodes = list(tree.nodes)
        self.children = [list(c) for c in tree.children]
        self.kinds = [None] * len(self.nodes)
        self.exporter = Exporter()
        self.exporter.custom_gradients = bool(options.experimental_custom_gradients)
        self.concretes = {}          # FunctionDef name -> (ConcreteFunction, bound input node ids)
        self.constants = []          # (graph node name, array) of captured constants
        self.assets = []             # (source path, file name in assets/)
        self._asset_index = {}       # id(asset) -> index in meta_graph.asset_file_def
        self._constant_nodes = {}    # id(captured tensor) -> node id
        self._node_of = {id(obj): i for i, obj in enumerate(self.nodes)}
        self._by_path_tensor = {}    # id(asset path tensor) -> asset node id
        for i, obj in enumerate(self.nodes):
            if isinstance(obj, Asset):
                self._by_path_tensor[id(obj.asset_path)] = i
                self._asset_index[id(obj)] = len(self.assets)
                self.assets.append((obj._source_path, obj._file_name))
        self.signatures = {}         # name -> (FunctionDef name, input names, output keys, wrapper cf)
        for name, fn in signature_functions.items():
            cf, inputs, keys = _signature_wrapper(name, fn)
            self.signatures[name] = (self._export(cf), inputs, keys, cf)
        self.functions = {}          # node id -> [FunctionDef names]
        for i, obj in enumerate(list(self.nodes)):
            if isinstance(obj, Function):
                self.functions[i] = [self._export(cf) for cf in obj._list_all_concrete_functions_for_serialization()]
            elif isinstance(obj, ConcreteFunction):     # an attribute holding a concrete function
                self.functions[i] = [self._export(obj)]
        # Custom gradients' functions, traced while the functions using them were exported (and theirs).
        done = 0
        while done < len(self.exporter.gradient_functions):
            self._export(self.exporter.gradient_functions[done])
            done += 1
        self.signature_map = self._add(None, "signature_map")
        self.children[0].append(("signatures", self.signature_map))
        self.signature_nodes = {}
        for name in sorted(self.signatures):
            node = self._add(None, "signature")
            self.children[self.signature_map].append((name, node))
            self.signature_nodes[name] = node

    def _add(self, obj, kind):
        self.nodes.append(obj)
        self.children.append([])
        self.kinds.append(kind)
        return len(self.nodes) - 1

    def _export(self, cf):
        name = self.exporter.concrete(cf)
        if name not in self.concretes:
            self.concretes[name] = (cf, [self._bound_input(cf, t) for t in cf.graph.external_captures])
        return name

    def _bound_input(self, cf, external):
        variable = getattr(external, "_variable", None)
        if variable is not None:
            node = self._node_of.get(id(variable))
            if node is None:
                raise ValueError(f"Tried to export a function which references an 'untracked' resource "
                                 f"{variable!r} (in {cf._name}). TensorFlow objects (e.g. tf.Variable) captured by "
                                 f"functions must be 'tracked' by assigning them to an attribute of a tracked "
                                 f"object or assigned to an attribute of the main object directly.")
            return node
        node = self._by_path_tensor.get(id(external)) or self._constant_nodes.get(id(external))
        if node is None:
            node = self._add(external, "constant")
            self._constant_nodes[id(external)] = node
            self.constants.append((node, external))
        return node

    # -- messages ---------------------------------------------------------------------------------
    def saved_model(self):
        pb = protos.load("saved_model")
        saved_model = pb.SavedModel(saved_model_schema_version=1)
        meta = saved_model.meta_graphs.add()
        info = meta.meta_info_def
        info.tags.append("serve")
        info.tensorflow_version = TENSORFLOW_VERSION
        info.tensorflow_git_version = GIT_VERSION
        info.stripped_default_attrs = False
        graph = meta.graph_def
        graph.versions.producer = GRAPH_DEF_PRODUCER
        graph.versions.min_consumer = 12
        constant_names, handles = self._graph_nodes(graph)
        graph.library.CopyFrom(self.exporter.library)
        checkpoint_graph, keyed = self.checkpoint_graph()
        saver_def.add_saver(meta, [(v, key, handles[self._node_of[id(v)]]) for v, key in keyed],
                            checkpoint_graph.SerializeToString())
        for name, (fname, inputs, keys, cf) in sorted(self.signatures.items()):
            self._signature_def(meta.signature_def[name], name, inputs, keys, cf)
        for source, filename in self.assets:
            asset = meta.asset_file_def.add(filename=filename)
            asset.tensor_info.name = f"asset_path_{filename}:0"
        self._object_graph(meta.object_graph_def, constant_names)
        return saved_model

    def _graph_nodes(self, graph):
        """Variable handles, signature placeholders and calls, constants and asset paths, as TF writes them."""
        messages = _av.messages()
        handles = {}
        for i, obj in enumerate(self.nodes):
            if isinstance(obj, Variable):
                name = f"{_node_name(obj.name)}_{i}"
                node = graph.node.add(name=name, op="VarHandleOp")
                node.attr["dtype"].type = obj.dtype.as_datatype_enum
                node.attr["shape"].shape.CopyFrom(_av.shape_proto(messages, obj.shape))
                node.attr["shared_name"].s = name.encode()
                node.attr["container"].s = b""
                node.attr["debug_name"].s = _node_name(obj.name).encode()
                node.attr["allowed_devices"].list.SetInParent()
                handles[i] = name
        constant_names = {}
        for node_id, tensor in self.constants:
            name = f"Const_{node_id}"
            node = graph.node.add(name=name, op="Const")
            node.attr["dtype"].type = tensor.dtype.as_datatype_enum
            node.attr["value"].tensor.CopyFrom(_av.tensor_proto(messages, tensor.numpy(), tensor.dtype,
                                                                 typed_values=True))
            handles[node_id] = constant_names[node_id] = name
        for source, filename in self.assets:
            node = graph.node.add(name=f"asset_path_{filename}", op="Const")
            node.attr["dtype"].type = 7
            node.attr["value"].tensor.CopyFrom(_av.tensor_proto(messages, filename.encode(), None, typed_values=True))
        for name, (fname, inputs, keys, cf) in sorted(self.signatures.items()):
            call_inputs = []
            for spec in cf._signature_specs:
                placeholder = graph.node.add(name=f"{name}_{spec.name}", op="Placeholder")
                placeholder.attr["dtype"].type = spec.dtype.as_datatype_enum
                placeholder.attr["shape"].shape.CopyFrom(_av.shape_proto(messages, spec.shape))
                call_inputs.append(placeholder.name)
            bound = self.concretes[fname][1]
            call_inputs += [handles[b] if b in handles else f"asset_path_{self._asset_file(b)}" for b in bound]
            call = graph.node.add(name=_call_name(name), op="StatefulPartitionedCall")
            call.input.extend(call_inputs)
            call.attr["f"].func.name = fname
            call.attr["Tin"].list.type.extend(
                [t.dtype.as_datatype_enum for t in cf.graph.inputs])
            call.attr["Tout"].list.type.extend([t.dtype.as_datatype_enum for t in cf.outputs])
            for key in ("config", "config_proto", "executor_type"):
                call.attr[key].s = b""
        return constant_names, handles

    def _asset_file(self, node_id):
        return self.nodes[node_id]._file_name

    def _signature_def(self, proto, name, inputs, keys, cf):
        shape_pb = protos.load("tensor_shape")
        for spec in cf._signature_specs:
            info = proto.inputs[spec.name]
            info.name = f"{name}_{spec.name}:0"
            info.dtype = spec.dtype.as_datatype_enum
            info.tensor_shape.CopyFrom(_av.shape_proto(shape_pb, spec.shape))
        structured = cf.structured_outputs if isinstance(cf.structured_outputs, dict) else {}
        index = 0
        for key, tensor in zip(keys, cf.outputs) if sorted(structured) != sorted(keys) else \
                [(k, structured[k]) for k in keys]:
            info = proto.outputs[key]
            parts = list(tensor) if isinstance(tensor, _ComponentsOutput) else [tensor]
            if isinstance(tensor, _ComponentsOutput):    # a composite: its spec and its components' tensors
                composite = info.composite_tensor
                spec_message = structures.encode(tensor._spec)
                composite.type_spec.CopyFrom(spec_message.type_spec_value)
                infos = [composite.components.add() for _ in parts]
            else:
                infos = [info]
            for part, part_info in zip(parts, infos):
                part_info.name = f"{_call_name(name)}:{index}"
                part_info.dtype = part.dtype.as_datatype_enum
                part_info.tensor_shape.CopyFrom(_av.shape_proto(shape_pb, part.shape))
                index += 1
        proto.method_name = PREDICT_METHOD

    def _object_graph(self, graph, constant_names):
        wrappers = {fname for fname, _, _, _ in self.signatures.values()}
        for fname, (cf, bound) in self.concretes.items():
            saved = graph.concrete_functions[fname]
            saved.bound_inputs.extend(bound)
            if fname in wrappers:   # a signature takes its tensors by keyword, as TensorFlow canonicalizes it
                specs = cf._signature_specs
                structures.encode(((), {s.name: s for s in specs}), saved.canonicalized_input_signature)
            else:
                _canonical_inputs(saved.canonicalized_input_signature, cf)
            _output_signature(saved.output_signature, cf)
        for i, obj in enumerate(self.nodes):
            node = graph.nodes.add()
            for name, child in self.children[i]:
                node.children.add(node_id=child, local_name=str(name))
            kind = self.kinds[i]
            if kind == "signature_map":
                _user_object(node, "signature_map")
            elif kind == "signature":
                name = next(n for n, c in self.children[self.signature_map] if c == i)
                fname, inputs, _, _ = self.signatures[name]
                bare = node.bare_concrete_function
                bare.concrete_function_name = fname
                bare.argument_keywords.extend(inputs)
                bare.allowed_positional_arguments = len(inputs)
                spec = bare.function_spec
                structures.encode_fullargspec(_keyword_signature(inputs), spec.fullargspec)
                spec.input_signature.none_value.SetInParent()
            elif kind == "constant":
                node.constant.operation = constant_names[i]
            elif isinstance(obj, Variable):
                variable = node.variable
                variable.dtype = obj.dtype.as_datatype_enum
                variable.shape.CopyFrom(_av.shape_proto(protos.load("tensor_shape"), obj.shape))
                variable.trainable = bool(obj.trainable)
                variable.name = _full_name(obj)
            elif isinstance(obj, Function):
                self._saved_function(node.function, obj, self.functions[i])
            elif isinstance(obj, ConcreteFunction):
                bare = node.bare_concrete_function      # called as TensorFlow's loader calls one: positionally
                bare.concrete_function_name = self.functions[i][0]
                bare.argument_keywords.extend(name for name, _, _ in obj._params)
                bare.allowed_positional_arguments = len(obj._params)
            elif isinstance(obj, Asset):
                node.asset.asset_file_def_index = self._asset_index[id(obj)]
            elif isinstance(obj, list):
                _user_object(node, "trackable_list_wrapper")
            elif isinstance(obj, dict):
                _user_object(node, "trackable_dict_wrapper")
            elif isinstance(obj, tuple):
                _user_object(node, "trackable_tuple_wrapper")
            else:
                _user_object(node, "_generic_user_object")
            if kind is None and isinstance(obj, Function):
                for name, child in self.children[i]:
                    node.dependencies.add(node_id=child, local_name=name)

    @staticmethod
    def _saved_function(proto, fn, names):
        proto.concrete_functions.extend(names)
        signature = None if isinstance(fn, RestoredFunction) and fn._signature is None else fn._signature
        spec = proto.function_spec
        structures.encode_fullargspec(signature, spec.fullargspec)
        spec.is_method = False
        if fn.input_signature is not None:
            structures.encode(tuple(fn.input_signature), spec.input_signature)
        else:
            spec.input_signature.none_value.SetInParent()

    # -- the variables' checkpoint ------------------------------------------------------------------
    def checkpoint_graph(self):
        """`(TrackableObjectGraph, [(variable, checkpoint key)])`: the object graph node for node as the
        SavedObjectGraph, each variable keyed by its first path."""
        pb = protos.load("trackable_object_graph")
        graph = pb.TrackableObjectGraph()
        paths = _first_paths(self.children)
        holds = [isinstance(obj, Variable) for obj in self.nodes]
        changed = True
        while changed:
            changed = False
            for i, children in enumerate(self.children):
                if not holds[i] and any(holds[c] for _, c in children):
                    holds[i] = changed = True
        keyed = []
        for i, obj in enumerate(self.nodes):
            node = graph.nodes.add()
            for name, child in self.children[i]:
                node.children.add(node_id=child, local_name=str(name))
            node.has_checkpoint_values.value = holds[i]
            if isinstance(obj, Variable):
                key = variable_key(paths[i])
                node.attributes.add(name=VARIABLE_VALUE, full_name=_full_name(obj), checkpoint_key=key)
                keyed.append((obj, key))
        return graph, keyed

    def write_variables(self, prefix):
        """The checkpoint of the variables (streamed one variable at a time)."""
        graph, keyed = self.checkpoint_graph()
        with BundleWriter(prefix) as writer:
            for variable, key in keyed:
                writer.add(key, variable_value(variable), dtype=variable.dtype)
            writer.add(OBJECT_GRAPH_KEY, _scalar_bytes(graph.SerializeToString()))


def _scalar_bytes(data):
    import numpy as np
    return np.array(data, dtype=object)


def _first_paths(children):
    paths = [None] * len(children)
    paths[0] = ()
    queue = [0]
    for current in queue:
        for name, child in children[current]:
            if paths[child] is None:
                paths[child] = paths[current] + (str(name),)
                queue.append(child)
    return paths


def _user_object(node, identifier):
    node.user_object.identifier = identifier
    node.user_object.version.producer = 1
    node.user_object.version.min_consumer = 1


def _full_name(variable):
    name = variable._name     # a Keras variable's `name` is short ('kernel'); its resource has the path
    return name[:-2] if name.endswith(":0") else name


def _node_name(text):
    cleaned = "".join(c if c.isalnum() or c in "_-" else "_" for c in _full_name_text(text))
    return cleaned if cleaned and cleaned[0].isalpha() else f"v_{cleaned}"


def _full_name_text(text):
    return text[:-2] if text.endswith(":0") else text


def _call_name(signature_name):
    return "StatefulPartitionedCall" if signature_name == DEFAULT_SIGNATURE else \
        f"StatefulPartitionedCall_{_node_name(signature_name)}"


def _keyword_signature(names):
    import inspect
    return inspect.Signature([inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY) for n in names])


def _canonical_inputs(out, cf):
    """((positional trace types...), {keyword: trace type}) of a concrete function, as TF canonicalizes."""
    positional, keywords = [], {}
    for pname, kind, ttype in cf._params:
        if kind.name == "KEYWORD_ONLY":
            keywords[pname] = ttype
        else:
            positional.append(ttype)
    specs = [_named(t, n) for (n, _, _), t in zip(cf._params, positional)]
    try:
        structures.encode((tuple(specs), {k: _named(v, k) for k, v in keywords.items()}), out)
    except structures.Unsaveable as error:
        raise ValueError(f"Cannot save the concrete function {cf._name}{cf._signature_text()}: an argument was "
                         f"traced as {error}, which a SavedModel cannot describe. Pass tensors, Python scalars, "
                         f"strings or lists/tuples/dicts of them.") from None


def _named(ttype, name):
    if isinstance(ttype, TensorSpec) and not ttype.name:
        return TensorSpec(ttype.shape, ttype.dtype, name)
    return ttype


def _output_units(structured):
    """A signature's outputs as `[(key, tensor or composite)]`: the keys of a returned dict of tensors and
    composites, else `output_<i>` over the returned leaves (composites whole)."""
    structured = _with_composites(structured)
    if isinstance(structured, dict) and all(isinstance(k, str) for k in structured) and \
            all(isinstance(v, (Tensor, CompositeTensor)) for v in structured.values()):
        return [(k, structured[k]) for k in sorted(structured)]
    return [(f"output_{i}", v) for i, v in enumerate(nest.flatten(structured))]


def _with_composites(structure):
    """A traced function's structured outputs with each composite's component tuple (`components_output`)
    as the composite it stands for."""
    if isinstance(structure, _ComponentsOutput):
        return structure._spec._from_components(list(structure))
    if isinstance(structure, tuple) and hasattr(type(structure), "_fields"):
        return type(structure)(*(_with_composites(v) for v in structure))
    if type(structure) in (list, tuple):
        return type(structure)(_with_composites(v) for v in structure)
    if isinstance(structure, dict):
        return {k: _with_composites(v) for k, v in structure.items()}
    return structure


def _output_signature(out, cf):
    def spec(value):
        if isinstance(value, Tensor):
            return TensorSpec(value.shape, value.dtype)
        if isinstance(value, _ComponentsOutput):
            return value._spec
        return value

    def walk(value):   # a composite's component tuple is one leaf (its spec), not a tuple of tensors
        if isinstance(value, _ComponentsOutput) or not isinstance(value, (list, tuple, dict)):
            return spec(value)
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items()}
        if hasattr(type(value), "_fields"):
            return type(value)(*(walk(v) for v in value))
        return type(value)(walk(v) for v in value)
    try:
        structures.encode(walk(cf.structured_outputs), out)
    except (structures.Unsaveable, TypeError) as error:
        raise ValueError(f"Cannot save the concrete function {cf._name}: it returns {error}.") from None
