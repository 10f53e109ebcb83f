"""The op families as namespaces (`tf.add`, `tf.math.xlogy`, `tf.linalg.diag`): the public names each op
module lists in its `API` table, gathered here so that the NumPy-named functions read like TensorFlow
code without importing the public package (a higher floor)."""
import types as _types

from ..framework import tensor as _tensor_mod
from ..ops import convert
from ..ops.array import (creation, gather, indexing, join, manip, padding, reinterpret, reorder, scatter,
                         sorting, where as where_ops)
from ..ops.control_flow import cond_while
from ..ops.linalg import decompositions, matrix, matrix_functions, structured
from ..ops.math import arith, complex as complex_ops, logic, numeric, reduce, special
from ..ops.nn import activations as nn_activations
from ..ops.random import seeds, stateful
from ..ops.shapes import creators, shape_ops, shaping

_SOURCES = (convert, creation, gather, indexing, join, manip, padding, reinterpret, reorder, scatter, sorting,
            where_ops, cond_while, decompositions, matrix, matrix_functions, structured, arith, complex_ops, logic,
            numeric, reduce, special, nn_activations, seeds, stateful, creators, shape_ops, shaping)


def _gather(namespace):
    members = {}
    for source in _SOURCES:
        for entry in source.API.get(namespace, ()):
            public, _, private = entry.partition("=")
            members[public] = getattr(source, private or public)
    return _types.SimpleNamespace(**members)


tf = _gather("")
math = _gather("math")
linalg = _gather("linalg")
bitwise = _gather("bitwise")
random = _gather("random")
Tensor = _tensor_mod.Tensor
