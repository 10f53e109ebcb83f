"""`tf.saved_model.load`: rebuilds a SavedModel's object graph (TensorFlow's or tensorflux's) without the
Python program that saved it.

Each SavedObject becomes: a user object (`_UserObject`) or list/dict/tuple with the same children; a
variable created holding its value from `variables/variables` (the checkpoint's object graph has the
same node ids; otherwise it is matched by path); a constant from the GraphDef's Const node; an Asset
pointing into `assets/`; a tf.function (RestoredFunction) over its concrete functions; the root's
`signatures` as signature functions taking keyword tensors and returning a dict. Concrete functions come
from the FunctionDefLibrary through io/formats/graph_import.py, their captures bound to the nodes named
by `bound_inputs`, their arguments and outputs structured as the saved `StructuredValue`s say.

The directory is untrusted data: a malformed or hostile one raises OSError (an unparsable file, as
TensorFlow's "Cannot parse file"), a `tf.errors` error, NotImplementedError for an op or object kind
tensorflux lacks, or ValueError; it never runs code of its own (see SECURITY.md).
"""
import inspect
import os

import numpy as np

from ...framework import errors, nest
from ...framework.composite import TypeSpec, _ComponentsOutput
from ...framework.context import init_scope, state as _state
from ...framework.tensor import EagerTensor
from ...function.concrete import ConcreteFunction
from ...ops.convert import convert_to_tensor
from ...ops.state import ResourceHandle
from ...state.variables import Variable
from ...types.shape import TensorShape
from ...types.spec import TensorSpec
from ..checkpoint.checkpoint import read_object_graph
from ..checkpoint.object_graph import VARIABLE_VALUE
from ..formats import attr_values as _av
from ..formats import protos
from ..formats.graph_import import import_library
from ..formats.tensor_bundle import BundleReader
from . import structures
from .assets import Asset
from .options import LoadOptions
from .restored import RestoredFunction, SignatureFunction, SignatureMap, UserObject
from .save import previous_dir

__all__ = ["load", "read_saved_model"]

MAX_OBJECTS = 1 << 20
_CONTAINERS = {"trackable_list_wrapper": list, "trackable_dict_wrapper": dict, "trackable_tuple_wrapper": tuple}


def read_saved_model(export_dir):
    """The SavedModel message of `export_dir` (binary `saved_model.pb` or text `saved_model.pbtxt`)."""
    pb = protos.load("saved_model")
    binary, text = os.path.join(export_dir, "saved_model.pb"), os.path.join(export_dir, "saved_model.pbtxt")
    if os.path.isfile(binary):
        with open(binary, "rb") as f:
            data = f.read()
        message = pb.SavedModel()
        try:
            message.ParseFromString(data)
        except Exception as error:  # DecodeError and the runtime's RuntimeWarning/ValueError variants
            raise OSError(f"Cannot parse file {binary}: {error}.") from None
        return message
    if os.path.isfile(text):
        from google.protobuf import text_format
        with open(text, "rb") as f:
            data = f.read()
        try:
            return text_format.Parse(data.decode("utf-8"), pb.SavedModel())
        except (text_format.ParseError, UnicodeDecodeError) as error:
            raise OSError(f"Cannot parse file {text}: {error}.") from None
    raise OSError(f"SavedModel file does not exist at: {export_dir}{os.sep}{{saved_model.pbtxt|saved_model.pb}}")


def _meta_graph(saved_model, tags, export_dir):
    metas = list(saved_model.meta_graphs)
    if not metas:
        raise errors.DataLossError(None, None, f"The SavedModel at {export_dir} has no MetaGraphDef.")
    if tags is None:
        if len(metas) == 1:
            return metas[0]
        tags = ["serve"]
    wanted = {tags} if isinstance(tags, str) else set(tags)
    for meta in metas:
        if set(meta.meta_info_def.tags) == wanted:
            return meta
    available = [sorted(m.meta_info_def.tags) for m in metas]
    raise RuntimeError(f"MetaGraphDef associated with tags {sorted(wanted)} could not be found in SavedModel, with "
                       f"available tags '{available}'. To inspect available tag-sets in the SavedModel, please use "
                       f"the SavedModel CLI: `saved_model_cli`.")


def load(export_dir, tags=None, options=None):
    """The object saved in `export_dir` with callable functions and `.signatures` (see the module docstring)."""
    export_dir = os.fspath(export_dir)
    if options is not None and not isinstance(options, LoadOptions):
        raise TypeError(f"`options` must be a tf.saved_model.LoadOptions, got {options!r}")
    if not os.path.exists(export_dir) and os.path.isdir(previous_dir(export_dir)):
        export_dir = previous_dir(export_dir)    # a save was killed while swapping directories
    saved_model = read_saved_model(export_dir)
    meta = _meta_graph(saved_model, tags, export_dir)
    try:
        with init_scope():
            return _Loader(export_dir, meta, options or LoadOptions()).root
    except (errors.OpError, OSError, ValueError, MemoryError, NotImplementedError, RuntimeError):
        raise
    except Exception as e:  # KeyError, IndexError, TypeError, RecursionError…: a broken file
        raise errors.DataLossError(None, None, f"The SavedModel at {export_dir} is malformed and cannot be "
                                               f"loaded ({type(e).__name__}: {e}).") from None


class _Prefetch:
    """The variables' saved values, read by two threads while the loader works through the object graph
    (reading 100 MB is most of a load; tensor_bundle's reads are positioned, so threads may share a file).
    A value is handed out once: a key that two variables name is read again for the second."""

    _MIN_BYTES = 8 << 20        # below this, starting threads costs more than it saves

    @classmethod
    def start(cls, reader, keys):
        wanted = [key for key in dict.fromkeys(keys.values()) if key in reader]
        if len(wanted) < 2 or sum(reader.entry(key).size for key in wanted) < cls._MIN_BYTES:
            return None
        return cls(reader, wanted)

    def __init__(self, reader, keys):
        from concurrent.futures import ThreadPoolExecutor      # here: a load of a large model is rare
        self._reader = reader
        pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="saved-model-restore")
        self._futures = {key: pool.submit(reader.read, key) for key in keys}
        pool.shutdown(wait=False)       # its threads end once the last value is read

    def take(self, key):
        future = self._futures.pop(key, None)
        return self._reader.read(key) if future is None else future.result()   # a read's error, as raised

    def cancel(self):
        for future in self._futures.values():
            future.cancel()
        self._futures.clear()


def _bad(message):
    return errors.DataLossError(None, None, message)


class _Loader:
    def __init__(self, export_dir, meta, options):
        self.export_dir = export_dir
        self.meta = meta
        self.options = options
        graph = meta.object_graph_def
        self.proto = graph
        count = len(graph.nodes)
        if not 0 < count <= MAX_OBJECTS:
            raise _bad(f"The SavedModel at {export_dir} has {count} objects.")
        for index, node in enumerate(graph.nodes):
            for ref in list(node.children) + list(node.dependencies):
                if not 0 <= ref.node_id < count:
                    raise _bad(f"Object {index} of the SavedModel refers to object {ref.node_id} of {count}.")
        for name, saved in graph.concrete_functions.items():
            if any(not 0 <= b < count for b in saved.bound_inputs):
                raise _bad(f"The concrete function {name!r} binds an object that does not exist.")
        self.operations = {node.name: node for node in meta.graph_def.node}
        self.library = import_library(meta.graph_def.library)
        for fname in self.library.gradients.values():   # where a saved custom gradient's Nones are
            saved = graph.concrete_functions.get(fname)
            if saved is not None:
                self.library.gradient_structures[fname] = structures.decode(saved.output_signature)
        self.objects = [None] * count
        self._concretes = {}
        self._keep_alive = []
        self._variable_values = self._checkpoint_values()
        self._prefetched = _Prefetch.start(*self._variable_values) if self._variable_values else None
        try:
            self._build(graph)
        finally:
            if self._prefetched:
                self._prefetched.cancel()       # after a failure: no thread goes on reading for nothing

    def _build(self, graph):
        signature_map = self._signature_map_node()
        self._resource_handles = {}
        for index, node in enumerate(graph.nodes):
            self.objects[index] = self._create(index, node)
        self._restore_resources()
        for index, node in enumerate(graph.nodes):
            kind = node.WhichOneof("kind")
            if kind == "function":
                self.objects[index] = self._function(node.function, index)
            elif kind == "bare_concrete_function":
                self.objects[index] = self._bare(node.bare_concrete_function, signature_map is not None and any(
                    c.node_id == index for c in graph.nodes[signature_map].children))
        self._wire()
        self.root = self.objects[0]
        if isinstance(self.root, UserObject) and "signatures" not in vars(self.root):
            object.__setattr__(self.root, "signatures", SignatureMap())

    def _signature_map_node(self):
        for ref in self.proto.nodes[0].children:
            if ref.local_name == "signatures":
                node = self.proto.nodes[ref.node_id]
                if node.WhichOneof("kind") == "user_object" and node.user_object.identifier == "signature_map":
                    return ref.node_id
        return None

    # -- variables ------------------------------------------------------------------------------------
    def _checkpoint_values(self):
        """{node id: checkpoint key} and the reader of `variables/variables` (nothing when skipped/absent)."""
        prefix = os.path.join(self.export_dir, "variables", "variables")
        has_variables = any(n.WhichOneof("kind") == "variable" for n in self.proto.nodes)
        if self.options.experimental_skip_checkpoint or not has_variables:
            return None
        if not os.path.isfile(prefix + ".index"):
            raise errors.NotFoundError(None, None, f"The SavedModel at {self.export_dir} has variables but no "
                                                   f"checkpoint of them ({prefix}.index).")
        reader = BundleReader(prefix)
        saved = read_object_graph(prefix, reader)
        keys = {}
        if len(saved) == len(self.proto.nodes):
            for index, attributes in enumerate(saved.attributes):
                if VARIABLE_VALUE in attributes:
                    keys[index] = attributes[VARIABLE_VALUE][0]
        else:   # match by the first path to each node
            by_path = {}
            for index, path in enumerate(saved.path_names()):
                if path is not None and VARIABLE_VALUE in saved.attributes[index]:
                    by_path[path] = saved.attributes[index][VARIABLE_VALUE][0]
            for index, path in enumerate(_paths(self.proto)):
                if path in by_path:
                    keys[index] = by_path[path]
        return reader, keys

    def _variable(self, index, proto):
        dtype = _av.dtype_of_enum(proto.dtype, f"variable {index}")
        shape = _av.shape_of(proto.shape)
        name = proto.name or "Variable"
        if self._variable_values is None:
            if not shape.is_fully_defined():
                raise _bad(f"variable {index} has the shape {shape} and no saved value")
            value = np.zeros(shape.as_list(), dtype=object if dtype.name == "string" else dtype.as_numpy_dtype)
        else:
            reader, keys = self._variable_values
            key = keys.get(index)
            if key is None:
                if not self.options.allow_partial_checkpoint:
                    raise errors.NotFoundError(None, None, f"The checkpoint of the SavedModel at {self.export_dir} "
                                                           f"holds no value for the variable {name!r}.")
                value = np.zeros([d or 0 for d in shape.as_list()] if shape.rank is not None else [],
                                 dtype=dtype.as_numpy_dtype)
            else:
                if reader.dtype(key) is not dtype:
                    raise errors.InvalidArgumentError(None, None, f"The variable {name!r} is {dtype.name} but its "
                                                                  f"saved value is {reader.dtype(key).name}.")
                # read for this variable alone: as a tensor it becomes the variable's buffer, where a bare
                # array would be copied defensively (a second copy of every weight)
                value = EagerTensor(self._prefetched.take(key) if self._prefetched else reader.read(key))
                if not shape.is_compatible_with(TensorShape(value.shape)):
                    raise ValueError(f"Received incompatible tensor with shape {value.shape} when attempting to "
                                     f"restore variable with shape {shape} and name {name}.")
        previous, _state.name_stack = _state.name_stack, ""   # the saved names, whatever scope load runs in
        try:
            return Variable(value, trainable=proto.trainable, name=name, dtype=dtype, shape=shape)
        finally:
            _state.name_stack = previous

    # -- objects --------------------------------------------------------------------------------------
    def _create(self, index, node):
        kind = node.WhichOneof("kind")
        if kind == "user_object":
            identifier = node.user_object.identifier
            if identifier == "signature_map":
                return SignatureMap()
            container = _CONTAINERS.get(identifier)
            if container is list:
                return []
            if container is dict:
                return {}
            if container is tuple:
                return None   # built once its children exist
            return UserObject(identifier or "_generic_user_object")
        if kind == "variable":
            variable = self._variable(index, node.variable)
            self._keep_alive.append(variable)
            return variable
        if kind == "constant":
            op = self.operations.get(node.constant.operation)
            if op is None or op.op != "Const" or "value" not in op.attr:
                raise _bad(f"The constant object {index} names the operation {node.constant.operation!r}, which "
                           f"is not a Const node of the graph.")
            return convert_to_tensor(_av.tensor_array(op.attr["value"].tensor, f"constant {index}"))
        if kind == "asset":
            files = self.meta.asset_file_def
            position = node.asset.asset_file_def_index
            if not 0 <= position < len(files):
                raise _bad(f"The asset object {index} names asset file {position} of {len(files)}.")
            filename = files[position].filename
            if not filename or os.path.basename(filename) != filename or filename in (".", ".."):
                raise _bad(f"The asset file name {filename!r} is not a plain file name.")
            return Asset(os.path.join(self.export_dir, "assets", filename))
        if kind in ("function", "bare_concrete_function"):
            return None
        if kind == "resource":      # made by its _create_resource function (see _restore_resources)
            return UserObject(node.registered_name or "_resource")
        raise NotImplementedError(f"SavedModel holds an object of kind {kind!r} (object {index}), which tensorflux "
                                  f"does not load.")

    def _restore_resources(self):
        """Each resource object (a lookup table) gets its handle from its `_create_resource` function, then
        its contents from its `_initialize` function, as TensorFlow's loader does; the handle is what
        functions binding the object capture (ops of io/formats/table_rules.py)."""
        from ..formats import table_rules  # noqa: F401  (the table ops and their interfaces)
        resources = [i for i, node in enumerate(self.proto.nodes) if node.WhichOneof("kind") == "resource"]
        for index in resources:
            made = self._call_child(index, "_create_resource")
            if made is None or getattr(made, "_value", None) is None:
                raise _bad(f"The resource object {index} has no `_create_resource` function making its handle.")
            handle = ResourceHandle(table_rules.table_of(made._value))
            self._resource_handles[index] = handle
            object.__setattr__(self.objects[index], "resource_handle", handle)
        for index in resources:
            self._call_child(index, "_initialize")

    def _call_child(self, index, local_name):
        """Runs the function child `local_name` of object `index` (its one concrete function); None when the
        object has no such child."""
        for ref in self.proto.nodes[index].children:
            child = self.proto.nodes[ref.node_id]
            if ref.local_name == local_name and child.WhichOneof("kind") == "function":
                if len(child.function.concrete_functions) != 1:
                    raise _bad(f"The function {local_name!r} of object {index} has "
                               f"{len(child.function.concrete_functions)} concrete functions, not one.")
                return self.concrete(child.function.concrete_functions[0])()
        return None

    def _capture(self, node_id, fname):
        if node_id in self._resource_handles:
            return self._resource_handles[node_id]
        obj = self.objects[node_id]
        if isinstance(obj, Variable):
            return obj.handle
        if isinstance(obj, Asset):
            return obj.asset_path
        if hasattr(obj, "dtype") and hasattr(obj, "shape") and not isinstance(obj, (list, dict)):
            return obj
        raise _bad(f"The concrete function {fname!r} binds object {node_id}, which is not a variable, constant or "
                   f"asset.")

    def concrete(self, fname, names=None):
        """The ConcreteFunction of FunctionDef `fname`, structured as its SavedConcreteFunction says."""
        cf = self._concretes.get(fname)
        if cf is not None:
            return cf
        saved = self.proto.concrete_functions.get(fname)
        if saved is None:
            raise _bad(f"The SavedModel lists the concrete function {fname!r} but does not describe it.")
        captures = [self._capture(b, fname) for b in saved.bound_inputs]
        output_structure = structures.decode(saved.output_signature)
        flat = self.library.concrete(fname, captures)
        outputs = flat._trace.flat_outputs
        if len(structures.flat_specs(output_structure)) == len(outputs):
            it = iter(outputs)
            structured = nest.map_structure(lambda x: _take(x, it), output_structure)
        else:
            structured = outputs[0] if len(outputs) == 1 else list(outputs)
        cf = self._structured(flat, saved, structured, names)
        self._concretes[fname] = cf
        return cf

    def _structured(self, flat, saved, structured, names):
        inputs = structures.decode(saved.canonicalized_input_signature)
        graph = flat.graph
        graph.structured_outputs = structured
        flat._trace.structured_outputs = structured
        if not (isinstance(inputs, tuple) and len(inputs) == 2 and isinstance(inputs[0], tuple)
                and isinstance(inputs[1], dict)):
            return flat
        positional, keywords = inputs
        n_flat = len(flat._params)
        specs = structures.flat_specs((positional, keywords))
        if len(specs) != n_flat:
            raise _bad(f"The concrete function {flat._name!r} takes {n_flat} tensors but its saved input "
                       f"signature describes {len(specs)}.")
        arg_names = list(names or [])
        params = []
        for i, value in enumerate(positional):
            pname = arg_names[i] if i < len(arg_names) else (
                value.name if isinstance(value, TensorSpec) and value.name and value.name.isidentifier()
                else f"arg_{i}")
            params.append((pname, inspect.Parameter.POSITIONAL_OR_KEYWORD, structures.trace_type_of(value)))
        for key, value in keywords.items():
            if not key.isidentifier():
                raise _bad(f"The concrete function {flat._name!r} takes the keyword {key!r}.")
            params.append((key, inspect.Parameter.KEYWORD_ONLY, structures.trace_type_of(value)))
        if len({p[0] for p in params}) != len(params):
            params = [(f"arg_{i}", k, t) for i, (_, k, t) in enumerate(params)]
        signature = inspect.Signature([inspect.Parameter(n, k) for n, k, _ in params])
        graph.structured_input_signature = (tuple(positional), dict(keywords))
        return ConcreteFunction(flat._trace, None, signature, flat._name, params)

    def _function(self, proto, index):
        signature = structures.decode_fullargspec(proto.function_spec.fullargspec)
        names = [p.name for p in signature.parameters.values()] if signature is not None else None
        if proto.function_spec.is_method and names and names[0] == "self":
            names = names[1:]
            signature = signature.replace(parameters=list(signature.parameters.values())[1:])
        input_signature = None
        if proto.function_spec.input_signature.WhichOneof("kind") not in (None, "none_value"):
            decoded = structures.decode(proto.function_spec.input_signature)
            input_signature = tuple(decoded) if isinstance(decoded, (list, tuple)) else None
        concretes = [self.concrete(name, names) for name in proto.concrete_functions]
        name = self._name_of(index)
        return RestoredFunction(name, signature, concretes, input_signature, tuple(self._keep_alive))

    def _name_of(self, index):
        for node in self.proto.nodes:
            for ref in node.children:
                if ref.node_id == index and ref.local_name.isidentifier():
                    return ref.local_name
        return "restored_function"

    def _bare(self, proto, is_signature):
        cf = self.concrete(proto.concrete_function_name)
        if not is_signature:
            return cf
        saved = self.proto.concrete_functions[proto.concrete_function_name]
        inputs = structures.decode(saved.canonicalized_input_signature)
        keywords = inputs[1] if isinstance(inputs, tuple) and len(inputs) == 2 and isinstance(inputs[1], dict) \
            else {}
        positional = inputs[0] if keywords == {} and isinstance(inputs, tuple) and inputs else ()
        input_names = sorted(keywords) if keywords else [
            s.name if isinstance(s, TensorSpec) and s.name else f"input_{i}" for i, s in enumerate(positional)]
        outputs = cf.structured_outputs
        keys = sorted(outputs) if isinstance(outputs, dict) else [f"output_{i}" for i in range(len(cf.outputs))]
        return SignatureFunction(cf, input_names, keys, tuple(self._keep_alive))

    # -- children -------------------------------------------------------------------------------------
    def _wire(self):
        nodes = self.proto.nodes
        building = set()

        def get(index):
            if self.objects[index] is None and nodes[index].WhichOneof("kind") == "user_object":
                if index in building:
                    return ()
                building.add(index)
                self.objects[index] = tuple(get(ref.node_id) for ref in nodes[index].children)
            return self.objects[index]

        for index, node in enumerate(nodes):
            obj = get(index)
            if isinstance(obj, (UserObject, SignatureMap)):
                for ref in node.children:
                    child = get(ref.node_id)
                    if isinstance(obj, SignatureMap):
                        if isinstance(child, SignatureFunction):
                            obj[ref.local_name] = child
                    elif child is not None:
                        object.__setattr__(obj, ref.local_name, child)
            elif isinstance(obj, list):
                obj.extend(get(ref.node_id) for ref in node.children)
            elif isinstance(obj, dict):
                for ref in node.children:
                    obj[ref.local_name] = get(ref.node_id)


def _take(leaf, outputs):
    """The output(s) a leaf of a saved output structure stands for: a tensor for a TensorSpec, a composite's
    component tuple (which tf.function's output packing turns into the composite) for a composite spec."""
    if isinstance(leaf, TensorSpec):
        return next(outputs)
    if isinstance(leaf, TypeSpec):
        parts = [next(outputs) for _ in leaf._component_specs()]
        cls = type(f"{leaf.value_type.__name__}Components", (_ComponentsOutput,), {"__slots__": (), "_spec": leaf})
        return tuple.__new__(cls, parts)
    return leaf


def _paths(proto):
    paths = [None] * len(proto.nodes)
    paths[0] = ()
    queue = [0]
    for current in queue:
        for ref in proto.nodes[current].children:
            if paths[ref.node_id] is None:
                paths[ref.node_id] = paths[current] + (ref.local_name,)
                queue.append(ref.node_id)
    return paths


