"""Tensor's Python operators (`x + y`, `x < y`, `x @ y`, `~x`, …), installed on the Tensor class with the
node names TensorFlow's operators give ("add", "mul", "truediv", "Less", …). They call the same OpDefs as
the public functions, converting a Python operand to the tensor's dtype (a requirement, not a hint).
"""
from ..framework.tensor import Tensor, EagerTensor
from ..types import dtypes as _dt
from .linalg import matrix as _linalg
from .elementwise import operator_operands
from .math.arith import ADD, ADD_STRING, SUB, MUL, FLOORDIV, FLOORMOD, POW, NEG, _OBJECT, _truediv, abs
from .math.logic import (EQUAL, NOT_EQUAL, LESS, LESS_EQUAL, GREATER, GREATER_EQUAL, LOGICAL_AND, LOGICAL_OR,
    LOGICAL_NOT, INVERT, BITWISE_AND, BITWISE_OR, BITWISE_XOR, logical_xor)
from .registry import apply


def _install_operators():
    """Installs Tensor's Python operators with TensorFlow's node names."""
    def binary(opdef, node_name):
        def method(self, other):
            if type(other) is EagerTensor and type(self) is EagerTensor:
                return apply(opdef, (self, other), None, node_name)
            x, y = operator_operands(self, other)
            return apply(opdef, (x, y), None, node_name)

        def reflected(self, other):
            x, y = operator_operands(other, self)
            return apply(opdef, (x, y), None, node_name)
        return method, reflected

    def __add__(self, other):
        if type(other) is EagerTensor and type(self) is EagerTensor:
            if self._value.dtype is not _OBJECT:
                return apply(ADD, (self, other), None, "add")
            x, y = self, other
        else:
            x, y = operator_operands(self, other)
        return apply(ADD_STRING if x.dtype is _dt.string else ADD, (x, y), None, "add")

    def __radd__(self, other):
        x, y = operator_operands(other, self)
        return apply(ADD_STRING if x.dtype is _dt.string else ADD, (x, y), None, "add")

    Tensor.__add__, Tensor.__radd__ = __add__, __radd__
    Tensor.__sub__, Tensor.__rsub__ = binary(SUB, "sub")
    Tensor.__mul__, Tensor.__rmul__ = binary(MUL, "mul")
    Tensor.__floordiv__, Tensor.__rfloordiv__ = binary(FLOORDIV, "floordiv")
    Tensor.__mod__, Tensor.__rmod__ = binary(FLOORMOD, "mod")
    Tensor.__pow__, Tensor.__rpow__ = binary(POW, "pow")
    Tensor.__lt__ = binary(LESS, "Less")[0]
    Tensor.__le__ = binary(LESS_EQUAL, "LessEqual")[0]
    Tensor.__gt__ = binary(GREATER, "Greater")[0]
    Tensor.__ge__ = binary(GREATER_EQUAL, "GreaterEqual")[0]

    def __truediv__(self, other):
        return _truediv(self, other, "truediv", operator_operands)

    def __rtruediv__(self, other):
        return _truediv(other, self, "truediv", operator_operands)

    Tensor.__truediv__, Tensor.__rtruediv__ = __truediv__, __rtruediv__

    no_shape_error = {"incompatible_shape_error": False}

    def __eq__(self, other):
        if other is None:
            return False
        x, y = operator_operands(self, other)
        return apply(EQUAL, (x, y), no_shape_error, "Equal")

    def __ne__(self, other):
        if other is None:
            return True
        x, y = operator_operands(self, other)
        return apply(NOT_EQUAL, (x, y), no_shape_error, "NotEqual")

    Tensor.__eq__, Tensor.__ne__ = __eq__, __ne__

    def __neg__(self):
        return apply(NEG, (self,), None, "Neg")

    def __abs__(self):
        return abs(self, name="Abs")

    def __invert__(self):
        if self.dtype is _dt.bool:
            return apply(LOGICAL_NOT, (self,), None, "LogicalNot")
        return apply(INVERT, (self,), None, "Invert")

    Tensor.__neg__, Tensor.__abs__, Tensor.__invert__ = __neg__, __abs__, __invert__

    def logic(logical_op, bitwise_op, node_name):
        def method(self, other):
            x, y = operator_operands(self, other)
            return apply(LOGICAL_OPS[logical_op] if x.dtype is _dt.bool else bitwise_op, (x, y), None, node_name)

        def reflected(self, other):
            x, y = operator_operands(other, self)
            return apply(LOGICAL_OPS[logical_op] if x.dtype is _dt.bool else bitwise_op, (x, y), None, node_name)
        return method, reflected

    def xor_op(x, y):
        if x.dtype is _dt.bool:
            return logical_xor(x, y, name="xor")
        return apply(BITWISE_XOR, (x, y), None, "xor")

    Tensor.__and__, Tensor.__rand__ = logic("and", BITWISE_AND, "and")
    Tensor.__or__, Tensor.__ror__ = logic("or", BITWISE_OR, "or")
    Tensor.__xor__ = lambda self, other: xor_op(*operator_operands(self, other))
    Tensor.__rxor__ = lambda self, other: xor_op(*operator_operands(other, self))

    def __matmul__(self, other):
        return _linalg.matmul(self, other, name="matmul")

    def __rmatmul__(self, other):
        return _linalg.matmul(other, self, name="matmul")

    Tensor.__matmul__, Tensor.__rmatmul__ = __matmul__, __rmatmul__


LOGICAL_OPS = {"and": LOGICAL_AND, "or": LOGICAL_OR}
_install_operators()
