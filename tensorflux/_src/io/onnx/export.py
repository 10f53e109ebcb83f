"""`tensorflux.onnx.export`: a tf.function, a concrete function or a Keras model as an ONNX file.

The object is traced (or its traced graph taken), the graph is converted op by op (`builder.py` and the
handler modules), variables and captured constants become initializers, and the ModelProto is written
atomically. The `onnx` package is the optional extra `[onnx]`, imported on first export only.
"""
import numpy as np

from ...framework.tensor import EagerTensor
from ...function.concrete import ConcreteFunction
from ...function.polymorphic import Function, function
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ...types.spec import TensorSpec
from ..atomic import atomic_write
from . import array_handlers, control_flow, extra_handlers, nn_handlers, op_handlers  # noqa: F401  (handlers)
from .builder import ExportContext, GraphBuilder, VariableInput, referenced_names

__all__ = ["DEFAULT_OPSET", "export"]

DEFAULT_OPSET = 18        # onnxruntime 1.17+ runs it; ReduceMean & co. take their axes as an input from 18
MIN_OPSET = 17            # the handlers use Split/Squeeze/Unsqueeze with tensor inputs and sequence ops
_PROTOBUF_LIMIT = 2 ** 31 - 1


def _import_onnx():
    try:
        import onnx
    except ImportError as e:
        raise ImportError('tensorflux.onnx.export needs the `onnx` package: pip install "tensorflux[onnx]"') \
            from e
    return onnx


def export(obj, path, input_signature=None, opset=None):
    """Writes `obj` to `path` as an ONNX model and returns the `onnx.ModelProto`.

    Args:
      obj: a `tf.function` (with an `input_signature`, or `input_signature=` here, or exactly one traced
        concrete function), a concrete function, or a Keras model (its `call` in inference mode, traced
        with its input shapes and a dynamic batch dimension).
      path: the file to write (replaced atomically).
      input_signature: a list of `tf.TensorSpec` for a tf.function or a model without known inputs.
      opset: the ONNX opset (default 18; 17 up to what the installed `onnx` knows).

    The ONNX inputs are named after the function's arguments (for a Keras model, its Input tensors, with
    the batch dimension named "batch"); the outputs are `output_0`, `output_1`, … in the order of the
    flattened result, or the keys of a returned dict.

    Raises:
      ImportError: `onnx` is not installed.
      NotImplementedError: the graph holds an op with no ONNX equivalent (the error names it and its node).
      ValueError / TypeError: no single function to export, or a bad `opset`.
    """
    onnx = _import_onnx()
    opset = _check_opset(opset, onnx)
    cf, input_names, batch_named = _concrete_function(obj, input_signature)
    model = build_model(onnx, cf, opset, input_names, batch_named)
    data = model.SerializeToString()
    if len(data) > _PROTOBUF_LIMIT:
        raise ValueError(f"The ONNX model is {len(data)} bytes, over protobuf's 2 GB limit for one file.")
    with atomic_write(path) as f:
        f.write(data)
    return model


def _check_opset(opset, onnx):
    newest = onnx.defs.onnx_opset_version()
    if opset is None:
        return DEFAULT_OPSET
    if type(opset) is not int or not MIN_OPSET <= opset <= newest:
        raise ValueError(f"`opset` must be an int from {MIN_OPSET} to {newest} (the newest the installed onnx "
                         f"package knows); received {opset!r}.")
    return opset


def _concrete_function(obj, input_signature):
    """(concrete function, names of its tensor inputs or None, whether dim 0 of each input is the batch)."""
    if isinstance(obj, ConcreteFunction):
        if input_signature is not None:
            raise ValueError("`input_signature` cannot be given with a concrete function: it has one already.")
        return obj, None, False
    if isinstance(obj, Function):
        if input_signature is not None:
            return obj.get_concrete_function(*input_signature), None, False
        if obj.input_signature is not None:
            return obj.get_concrete_function(), None, False
        traced = list(obj._list_all_concrete_functions())
        if len(traced) != 1:
            raise ValueError(f"Cannot tell which concrete function of the tf.function {obj.__name__ if hasattr(obj, '__name__') else obj!r} "
                             f"to export: it has {len(traced)} traced concrete functions. Pass `input_signature` "
                             f"(a list of tf.TensorSpec) or a concrete function.")
        return traced[0], None, False
    if callable(obj) and hasattr(obj, "call") and hasattr(obj, "trainable_variables"):
        return _keras_concrete_function(obj, input_signature)
    raise TypeError(f"tensorflux.onnx.export expects a tf.function, a concrete function or a Keras model; "
                    f"received {type(obj).__name__}.")


def _keras_concrete_function(model, input_signature):
    """The model's call in inference mode, traced once for its inputs with a dynamic batch dimension."""
    keys = None
    if input_signature is None:
        inputs = getattr(model, "inputs", None)
        if not inputs:
            raise ValueError(f"The Keras model {getattr(model, 'name', '')!r} has no known inputs (it was not built "
                             f"from Input layers): pass `input_signature` (a list of tf.TensorSpec).")
        if isinstance(inputs, dict):       # a functional model called with a dict: ONNX inputs named by its keys
            keys, inputs = list(inputs), list(inputs.values())
        specs = []
        for i, k in enumerate(inputs):
            shape = list(TensorShape(k.shape).as_list())
            name = keys[i] if keys else getattr(k, "name", None)
            specs.append(TensorSpec([None] + shape[1:], _dt.as_dtype(k.dtype), name))
        batch_named = True
    else:
        specs, batch_named = list(input_signature), False
    single = len(specs) == 1

    def call(*args):
        if keys:
            return model(dict(zip(keys, args)), training=False)
        return model(args[0] if single else list(args), training=False)

    cf = function(call).get_concrete_function(*specs)
    names = [spec.name or f"input_{i}" for i, spec in enumerate(specs)]
    return cf, names, batch_named


def build_model(onnx, cf, opset, input_names=None, batch_named=False):
    """The ONNX ModelProto of the concrete function `cf`."""
    ctx = ExportContext(onnx, opset)
    helper = ctx.helper
    graph = cf.graph
    capture_ids = {id(internal) for _, internal in graph.captures}
    args = [t for t in graph.inputs if id(t) not in capture_ids]
    if input_names is None or len(input_names) != len(args):
        input_names = [t.op.name for t in args]
    env, inputs = {}, []
    for t, wanted in zip(args, input_names):
        if t.dtype in (_dt.resource, _dt.variant, _dt.string):
            raise TypeError(f"ONNX export cannot take the argument '{t.op.name}' of dtype {t.dtype.name} as a "
                            f"model input (tensors of numbers and booleans only).")
        name = ctx.unique(wanted)
        env[id(t)] = name
        dims = None
        if t.shape.rank is not None:
            dims = [d if d is not None else ("batch" if i == 0 and batch_named else f"{name}_dim{i}")
                    for i, d in enumerate(t.shape.as_list())]
        inputs.append(helper.make_tensor_value_info(name, ctx.elem_type(t.dtype), dims))
    for external, internal in graph.captures:
        env[id(internal)] = _captured(ctx, graph, external, internal)
    builder = GraphBuilder(ctx)
    values = builder.convert(graph, env, graph.outputs)
    out_names, outputs = _output_names(cf, graph.outputs), []
    for value, name, t in zip(values, out_names, graph.outputs):
        if isinstance(value, VariableInput):
            raise TypeError(f"ONNX export cannot return the variable handle '{t.name}'.")
        name = ctx.unique(name)
        builder.nodes.append(helper.make_node("Identity", [value], [name], name=ctx.unique(f"{name}/Identity")))
        outputs.append(builder.value_info(name, t))
    names_out = [o.name for o in outputs]
    nodes_graph = builder.graph(getattr(graph, "name", "main") or "main", inputs, outputs, names_out)
    model = helper.make_model_gen_version(nodes_graph, opset_imports=[helper.make_opsetid("", opset)],
                                          producer_name="tensorflux")
    # The weights go in last, into the model's own graph: make_model copies the graph it is given.
    ctx.add_initializers(model.graph, referenced_names(model.graph.node))
    _infer_unknown_ranks(onnx, model)
    return model


def _infer_unknown_ranks(onnx, model):
    """Gives outputs whose rank tensorflux did not know the shape ONNX's shape inference finds (the format
    requires a shape on the main graph's outputs)."""
    unknown = [o for o in model.graph.output if o.type.HasField("tensor_type")
               and not o.type.tensor_type.HasField("shape")]
    if not unknown:
        return
    try:
        inferred = onnx.shape_inference.infer_shapes(model)
    except (onnx.shape_inference.InferenceError, onnx.checker.ValidationError):
        return          # inference is a courtesy here: the model is complete without it
    found = {v.name: v for v in list(inferred.graph.value_info) + list(inferred.graph.output)}
    for out in unknown:
        info = found.get(out.name)
        if info is not None and info.type.tensor_type.HasField("shape"):
            out.type.tensor_type.shape.CopyFrom(info.type.tensor_type.shape)


def _captured(ctx, graph, external, internal):
    variable = graph.variable_of(internal)
    if variable is None:
        variable = getattr(external, "_variable", None)
    if variable is not None:
        return VariableInput(variable)
    value = getattr(external, "_value", None)
    if isinstance(external, EagerTensor) and isinstance(value, (np.ndarray, np.generic)):
        if internal.dtype in (_dt.resource, _dt.variant, _dt.string):
            raise TypeError(f"ONNX export cannot capture the {internal.dtype.name} tensor '{internal.name}'.")
        return ctx.initializer(np.asarray(value), internal.op.name)
    raise TypeError(f"ONNX export cannot capture {external!r} (only variables and constant tensors).")


def _output_names(cf, outputs):
    """`output_<i>` for each flat output, or its key when the function returns a dict of tensors (matched by
    identity: the flat order is nest's sorted-key order, not the dict's)."""
    structured = getattr(cf, "structured_outputs", None)
    keys = {}
    if isinstance(structured, dict):
        keys = {id(t): str(k) for k, t in structured.items()}
    return [keys.get(id(t), f"output_{i}") for i, t in enumerate(outputs)]


API = {"onnx": ["export"]}
