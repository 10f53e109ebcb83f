"""`tf.custom_gradient` in TensorFlow's graph form, both ways: what keeps a custom gradient through a
SavedModel (`SaveOptions(experimental_custom_gradients=True)`, TensorFlow's default).

TensorFlow writes a custom gradient as one `IdentityN` node over the forward results followed by the
arguments (`IdentityN(ys..., xs...)`; the results are its first outputs) carrying the attr
`_gradient_op_type: "CustomGradient-<n>"`. The gradient function, traced with one argument per
output of that node (`result_grads_i`) and returning one gradient per input of it — None for the
results, then the arguments' gradients — is a FunctionDef of the library, named in the library's
`registered_gradients` against that op type, and listed in the object graph's `concrete_functions` with
the None places in its output signature. A loader gives the node that gradient instead of IdentityN's.

Export: `export(builder, op, inputs, control)` is the export rule of tensorflux's `CustomGradient` op; the
gradient function is traced (with the op's Python `grad_fn`) only when the exporter keeps custom
gradients. A custom gradient over variables (`grad_fn(..., variables=...)`) is written without its
gradient function. Import: `import_identity_n(builder, node, inputs, attrs)` builds a `CustomGradient`
op whose gradient calls the loaded gradient function, for an IdentityN whose op type the library
registers; any other IdentityN is TensorFlow's plain one.
"""
from ...framework.context import init_scope
from ...types.spec import TensorSpec

__all__ = ["GRADIENT_OP_TYPE_ATTR", "export", "import_identity_n", "place_gradients"]

GRADIENT_OP_TYPE_ATTR = "_gradient_op_type"


def export(b, op, ins, control=()):
    """IdentityN(ys..., xs...) with TensorFlow's gradient op type, run after the nodes named in `control`;
    returns the Values of the ys."""
    n_outputs, n_inputs = op.attrs["n_outputs"], op.attrs["n_inputs"]
    ys, xs = ins[len(ins) - n_outputs:], ins[:n_inputs]
    specs = [(t.dtype, t.shape) for t in op.outputs] + [(v.dtype, v.shape) for v in xs]
    exporter = b.exporter
    op_type = f"CustomGradient-{exporter.next_gradient_number()}"
    outs = b.emit("IdentityN", ys + xs, {}, specs, control=control)
    b.nodes[-1].attr[GRADIENT_OP_TYPE_ATTR].s = op_type.encode()
    if exporter.custom_gradients and not op.attrs["variables"]:
        cf = _trace_gradient(op.attrs["grad_fn"], specs, n_outputs, op.name)
        name = exporter.concrete(cf)
        exporter.library.registered_gradients.add(gradient_func=name, registered_op_type=op_type)
        exporter.gradient_functions.append(cf)
    return outs[:n_outputs]


def _trace_gradient(grad_fn, specs, n_outputs, where):
    """The gradient function as TensorFlow traces it: one argument per IdentityN output, returning
    None for each forward result, then what `grad_fn` returns for the arguments."""
    from ...function.polymorphic import Function     # the function room, only when gradients are saved

    def internal_grad_fn(*result_grads):
        result = grad_fn(*result_grads[:n_outputs])
        grads = list(result) if isinstance(result, (list, tuple)) else [result]
        return [None] * n_outputs + grads

    signature = [TensorSpec(shape, dtype, f"result_grads_{i}") for i, (dtype, shape) in enumerate(specs)]
    try:
        with init_scope():
            return Function(internal_grad_fn, name="internal_grad_fn", input_signature=signature,
                            autograph=False).get_concrete_function()
    except Exception as e:
        raise ValueError(f"Error when tracing gradients for SavedModel (the custom gradient of '{where}'): {e}\n"
                         f"To save the model without its custom gradients, pass "
                         f"`options=tf.saved_model.SaveOptions(experimental_custom_gradients=False)`.") from None


def place_gradients(results, structure, count):
    """The gradients of an IdentityN's `count` inputs from a loaded gradient function's tensors:
    where its saved output signature (`structure`, a list with None places) says, else the last ones."""
    results = list(results)
    if isinstance(structure, (list, tuple)) and len(structure) == count and \
            sum(s is not None for s in structure) == len(results):
        found = iter(results)
        return [None if s is None else next(found) for s in structure]
    if len(results) > count:
        raise ValueError(f"A loaded custom gradient returned {len(results)} gradients for an op of {count} "
                         f"inputs.")
    return [None] * (count - len(results)) + results


def import_identity_n(builder, node, inputs, attrs, generic):
    """A CustomGradient op for an IdentityN whose gradient op type the library registers; else `generic`."""
    value = node.attr.get(GRADIENT_OP_TYPE_ATTR)
    op_type = value.s.decode("utf-8", "replace") if value is not None and value.WhichOneof("value") == "s" \
        else None
    library = builder.library
    function_name = library.gradients.get(op_type) if op_type is not None else None
    if function_name is None or not inputs:
        return generic(builder, node, inputs, attrs)
    library.function_def(function_name)          # a registered name the library lacks is an error now
    count = len(inputs)
    forward = list(inputs)

    def grad_fn(*dys):
        from ...ops.shapes.creators import zeros_like
        gradient = library.callee(function_name)     # built on first differentiation
        args = [dy if dy is not None else zeros_like(x) for dy, x in zip(dys, forward)]
        return place_gradients(gradient(*args), library.gradient_structures.get(function_name), count)

    from ...autodiff.custom import CUSTOM
    out = builder.graph.create_op(CUSTOM, forward + forward, {"n_outputs": count, "n_inputs": count,
                                                              "grad_fn": grad_fn, "variables": ()},
                                  node.name, type_name="CustomGradient")
    return list(out) if isinstance(out, tuple) else [out]
