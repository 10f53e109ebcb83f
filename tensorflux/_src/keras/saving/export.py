"""`model.export(path)`: Keras 3's SavedModel export for serving (`format="tf_saved_model"`).

The model's inference call becomes a `tf.function` with the model's input signature, saved as the
endpoint `serve` and the signature `serving_default` (outputs named `output_0`, …) of a SavedModel that
tracks the model's variables; TensorFlow's `tf.saved_model.load(path).serve(x)`, TensorFlow Serving and
`saved_model_cli` read it. The SavedModel writer is io/saved_model (TensorFlow's format, atomic).
"""
import tensorflux as tf

from ..models.model import Model, Sequential

__all__ = ["export_model"]

_FORMATS = ["tf_saved_model", "onnx", "openvino", "litert", "torch"]


def _spec(tensor):
    return tf.TensorSpec(shape=tensor.shape, dtype=tensor._dtype, name=tensor.name)


def _input_signature(model):
    if isinstance(model, Model._functional):
        return [tf.nest.map_structure(_spec, model._input_struct)]
    if isinstance(model, Sequential) and getattr(model, "_graph", None) is not None:
        return [_spec(model.inputs[0])]
    shapes = getattr(model, "_build_shapes", None)
    if shapes is None:
        raise ValueError("The model provided has never been called. It must be called at least once before "
                         "export.")
    is_shape = lambda s: isinstance(s, (list, tuple)) and all(d is None or isinstance(d, int) for d in s)  # noqa: E731
    if is_shape(shapes):
        return [tf.TensorSpec(shape=[None] + list(shapes)[1:], dtype=tf.float32, name="keras_tensor")]
    return [_nested_specs(shapes, is_shape)]


def _nested_specs(shapes, is_shape):
    if is_shape(shapes):
        return tf.TensorSpec(shape=[None] + list(shapes)[1:], dtype=tf.float32)
    if isinstance(shapes, dict):
        return {k: _nested_specs(v, is_shape) for k, v in shapes.items()}
    return [_nested_specs(s, is_shape) for s in shapes]


def _describe(spec, name):
    return f"  {name} (POSITIONAL_ONLY): {spec!r}"


def _refuse_vocabulary_lookups(concrete):
    """Lookup layers (StringLookup, IntegerLookup, TextVectorization) keep their vocabulary in a Python table
    that TensorFlow's SavedModel would hold as a hash-table resource with creator and initializer
    functions; the writer does not make those yet, so such a model is refused by name (loading TensorFlow's
    exports of these layers works: io/formats/table_rules.py)."""
    for op in concrete.graph.get_operations():
        if op.type == "KerasVocabularyLookup":
            raise NotImplementedError(f"Exporting a Keras vocabulary lookup (StringLookup, IntegerLookup or "
                                      f"TextVectorization; op '{op.name}') to a SavedModel is not implemented: "
                                      f"tensorflux does not write TensorFlow's hash-table resources yet. Save the "
                                      f"model as a `.keras` file instead.")


def export_model(model, filepath, format="tf_saved_model", verbose=None, input_signature=None, **kwargs):
    """Writes `model`'s inference function to `filepath` as a SavedModel (endpoint `serve`)."""
    if format not in _FORMATS:
        raise ValueError(f"Unrecognized format={format}. Supported formats are: {_FORMATS}.")
    if format != "tf_saved_model":
        raise NotImplementedError(f"tensorflux exports Keras models as `format='tf_saved_model'` only (for ONNX: "
                                  f"`tensorflux.onnx.export(model, path)`). Received: format={format}")
    if kwargs:
        raise ValueError(f"The following argument(s) are not supported: {sorted(kwargs)}")
    signature = list(input_signature) if input_signature is not None else _input_signature(model)

    if len(signature) == 1:         # the model's one input (a tensor, or a dict/list of them)
        def serve(inputs):
            return model(inputs, training=False)
    else:
        def serve(*args):
            return model(*args, training=False)
    # Traced once on the signature (rather than given `input_signature=`, which tensorflux's tf.function
    # does not yet bind for a dict of specs), so `serve` holds exactly this concrete function.
    serve = tf.function(serve)
    concrete = serve.get_concrete_function(*signature)
    _refuse_vocabulary_lookups(concrete)
    root = tf.Module()
    root.keras_variables = list(model.variables)     # tracked, so the SavedModel holds the weights
    root.serve = serve
    tf.saved_model.save(root, filepath, signatures={"serving_default": concrete})
    if verbose is None or verbose:
        lines = [f"Saved artifact at '{filepath}'. The following endpoints are available:", "",
                 "* Endpoint 'serve'"]
        lines += [_describe(spec, f"args_{i}") for i, spec in enumerate(signature)]
        outputs = tf.nest.map_structure(lambda t: tf.TensorSpec(t.shape, t.dtype), concrete.structured_outputs)
        lines += ["Output Type:", f"  {outputs!r}", "Captures:"]
        lines += [f"  {id(v)}: TensorSpec(shape=(), dtype=tf.resource, name=None)" for v in model.variables]
        print("\n".join(lines))


if "export" not in vars(Model):     # models/model.py may define its own `export` delegating here
    Model.export = export_model
