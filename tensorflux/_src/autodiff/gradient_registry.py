"""`tf.RegisterGradient` and `tf.no_gradient`: a program's own gradient for an op type, or the declaration
that an op type has none (its inputs then get no gradient, instead of the LookupError "gradient registry
has no entry for: <op>"). A gradient function receives the op (`inputs`, `outputs`, `type`, `get_attr`)
and one gradient per output, and returns one per input, as TensorFlow's do."""
from ..ops.registry import OPS

__all__ = ["RegisterGradient", "no_gradient"]

# Gradients registered for op types tensorflux does not define: kept so that a second registration of
# the same type is refused, as TensorFlow refuses it.
_UNDEFINED_OP_GRADIENTS = {}


def _no_gradient(op, *grads):
    return [None] * len(op.inputs)


def _register(op_type, grad_fn):
    if not isinstance(op_type, str):
        raise TypeError("op_type must be a string")
    opdef = OPS.get(op_type)
    previous = opdef.grad if opdef is not None else _UNDEFINED_OP_GRADIENTS.get(op_type)
    if previous is not None:
        code = getattr(previous, "__code__", None)
        where = f"{previous.__name__} {code.co_filename}:{code.co_firstlineno}" if code else repr(previous)
        raise KeyError(f"Registering two gradient with name '{op_type}'! (Previous registration was in {where})")
    if opdef is not None:
        opdef.grad = grad_fn
    else:
        _UNDEFINED_OP_GRADIENTS[op_type] = grad_fn


class RegisterGradient:
    """`@tf.RegisterGradient("OpType")`: the decorated function becomes the gradient of ops of that type."""

    __slots__ = ("_op_type",)

    def __init__(self, op_type):
        if not isinstance(op_type, str):
            raise TypeError("op_type must be a string")
        self._op_type = op_type

    def __call__(self, f):
        _register(self._op_type, f)
        return f


def no_gradient(op_type):
    """`tf.no_gradient("OpType")`: ops of that type pass no gradient to their inputs."""
    _register(op_type, _no_gradient)


API = {"": __all__}
