"""Math ops (`tf.math`): elementwise arithmetic, comparisons, reductions, matmul, casts.

Each op is one OpDef (TensorFlow's op type name, inference, NumPy kernel) plus its public function.
This module also installs Tensor's arithmetic operators, so `x + y` is `tf.add` under the name "add".
"""
import numpy as np

from ..framework.tensor import Tensor, EagerTensor
from ..types import dtypes as _dt
from .convert import binary_operands, convert_to_tensor
from .infer import infer_broadcast
from .registry import OpDef, apply, NUMBER



def _binary(opdef, default_name):
    """The public function of a binary elementwise op (Python scalars take the tensor's dtype)."""
    def fn(x, y, name=None):
        if type(x) is not EagerTensor or type(y) is not EagerTensor:
            x, y = binary_operands(x, y)
        return apply(opdef, (x, y), None, name or default_name)
    return fn


ADD = OpDef("AddV2", infer_broadcast, np.add, same_dtype=True, allowed=NUMBER)
MUL = OpDef("Mul", infer_broadcast, np.multiply, same_dtype=True, allowed=NUMBER)

add = _binary(ADD, "Add")
multiply = _binary(MUL, "Mul")


def _operator(fn, name, reflected=False):
    """A Tensor operator calling public op `fn` with TensorFlow's operator node name."""
    if reflected:
        def method(self, other):
            return fn(other, self, name=name)
    else:
        def method(self, other):
            return fn(self, other, name=name)
    method.__name__ = name
    return method


Tensor.__add__ = _operator(add, "add")
Tensor.__radd__ = _operator(add, "add", reflected=True)
Tensor.__mul__ = _operator(multiply, "mul")
Tensor.__rmul__ = _operator(multiply, "mul", reflected=True)


# Public names: "" is the top level (`tf.add`), other keys are namespaces (`tf.math.add`).
API = {
    "": ["add", "multiply"],
    "math": ["add", "multiply"],
}
