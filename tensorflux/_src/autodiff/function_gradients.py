"""The gradient of a tf.function call: the called ConcreteFunction's traced backward function."""
from ..ops.registry import OPS
from .backprop import backprop


def _call_grad(op, *grads):
    return op.attrs["concrete"]._gradient(op, grads, backprop)


OPS["StatefulPartitionedCall"].grad = _call_grad
OPS["StatefulPartitionedCall"].none_grads = True
