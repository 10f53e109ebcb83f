"""`tf.grad_pass_through(f)` (the forward pass is `f`, the backward an identity: straight-through
estimators, gradients through an assignment) and `tf.recompute_grad(f)` (the backward pass runs `f` again
under its own tape instead of keeping the forward's intermediates). Both are built on `custom_gradient`."""
import functools

from ..framework import nest
from .tape import GradientTape
from .custom import custom_gradient

__all__ = ["grad_pass_through", "recompute_grad"]


def grad_pass_through(f):
    """`f` with the identity as its gradient: `d f(x) / dx` is taken to be 1 (the upstream gradient passes
    through unchanged); variables `f` reads get no gradient."""

    @custom_gradient
    def _pass_through(*args, **kwargs):
        def grad(*dys, variables=None):
            dys = dys if len(dys) == len(args) else dys[:len(args)]
            return (list(dys), [None] * len(variables)) if variables else list(dys)
        return f(*args, **kwargs), grad
    return functools.wraps(f)(_pass_through) if hasattr(f, "__name__") else _pass_through


def recompute_grad(f):
    """`f` whose gradient recomputes its forward pass (to save memory, as TensorFlow intends); the values
    and gradients equal `f`'s, those of the variables it reads included."""

    @custom_gradient
    def _recompute(*args, **kwargs):
        result = f(*args, **kwargs)

        def grad(*dresults, variables=None):
            variables = list(variables or [])
            with GradientTape() as tape:
                tape.watch(list(args))
                recomputed = f(*args, **kwargs)
            grads = tape.gradient(nest.flatten(recomputed), list(args) + variables, output_gradients=list(dresults))
            return (grads[:len(args)], grads[len(args):]) if variables else grads[:len(args)]
        return result, grad
    return functools.wraps(f)(_recompute) if hasattr(f, "__name__") else _recompute


API = {"": __all__}
