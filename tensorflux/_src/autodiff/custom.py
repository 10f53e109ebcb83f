"""`tf.custom_gradient` and `tf.stop_gradient`'s place in differentiation.

`custom_gradient(f)`: `f(*xs)` returns `(ys, grad_fn)`. The ops inside `f` are not recorded; instead
one `CustomGradient` op maps `xs` to `ys` (an identity on `ys` at run time) and its gradient calls
`grad_fn(*dys)`. The same op works eagerly and in graphs.

    @tf.custom_gradient
    def clip_grad(x):
        return tf.identity(x), lambda dy: tf.clip_by_value(dy, -1.0, 1.0)
"""
import functools
import inspect

from ..framework import nest
from ..framework.context import state as _state
from ..framework.tensor import Tensor
from ..ops.convert import convert_to_tensor
from ..ops.registry import OpDef, OPS, apply
from . import tape as _tape

__all__ = ["custom_gradient"]


def _infer(inputs, attrs):
    n = attrs["n_outputs"]
    return [(t.dtype, t.shape) for t in inputs[len(inputs) - n:]]


def _kernel(*arrays, n_outputs, grad_fn, n_inputs, variables):
    return tuple(arrays[len(arrays) - n_outputs:])


def _grad(op, *dys):
    n_inputs, variables = op.attrs["n_inputs"], op.attrs["variables"]
    if variables:
        result, variable_grads = op.attrs["grad_fn"](*dys, variables=list(variables))
        variable_grads = list(variable_grads)
        if len(variable_grads) != len(variables):
            raise ValueError(f"custom_gradient function expected to return {len(variables)} gradients for the "
                             f"variables it used, but returned {len(variable_grads)} instead.")
    else:
        result, variable_grads = op.attrs["grad_fn"](*dys), []
    grads = list(result) if isinstance(result, (list, tuple)) else [result]
    if len(grads) != n_inputs:
        raise ValueError(f"custom_gradient function expected to return {n_inputs} gradients, but returned "
                         f"{len(grads)} instead.")
    return grads + variable_grads + [None] * op.attrs["n_outputs"]


CUSTOM = OpDef("CustomGradient", _infer, _kernel, grad=_grad, multi=True)


def custom_gradient(f=None):
    """Decorates `f(*xs) -> (ys, grad_fn)` so that differentiation uses `grad_fn`."""
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def wrapped(*args, **kwargs):
        xs = [convert_to_tensor(a) if not isinstance(a, Tensor) else a for a in args]
        paused = [t for t in _tape.active_tapes() if t._recording]
        for t in paused:
            t._recording = False
        # A private tape notes which trainable variables `f` reads; they become inputs of the op, and
        # `grad_fn(*dys, variables=...)` returns their gradients too (TensorFlow's protocol).
        reads = _tape.GradientTape(persistent=True)
        try:
            with reads:
                ys, grad_fn = f(*xs, **kwargs)
        finally:
            for t in paused:
                t._recording = True
            _tape._refresh_flag()
        flat_ys = [convert_to_tensor(y) for y in nest.flatten(ys)]
        if not _state.tape_active and _state.graph is None:
            return ys       # eager with nothing recording: no gradient will be asked for
        # In a graph the op is always there (as TensorFlow's IdentityN is): the function may be
        # differentiated later, called under a tape, or saved with its gradient.
        variables = reads.watched_variables()
        if variables and "variables" not in inspect.signature(grad_fn).parameters:
            raise TypeError("If using @custom_gradient with a function that uses variables, then grad_fn must "
                            "accept a keyword argument 'variables'.")
        handles = tuple(v.handle for v in variables)
        outs = apply(CUSTOM, tuple(xs) + handles + tuple(flat_ys),
                     {"n_outputs": len(flat_ys), "n_inputs": len(xs), "grad_fn": grad_fn,
                      "variables": tuple(variables)}, "CustomGradient")
        return nest.pack_sequence_as(ys, list(outs))

    return wrapped


def _stop_gradient_grad(op, grad):
    return [None]


OPS["StopGradient"].grad = _stop_gradient_grad
