"""Reading a tensor's shape (Shape, ShapeN, Size, Rank) and passing a tensor through unchanged (Identity,
StopGradient).

Each op is one OpDef (TensorFlow's op type name, static inference, vectorised NumPy kernel) plus its
public function with TensorFlow's signature. Things TensorFlow takes as tensors that users compute are
op inputs whose values inference reads with `constant_value`; static configuration are attrs.
"""
import numpy as np

from ...framework.tensor import Tensor
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..convert import convert_to_tensor
from ..infer import infer_unary
from ..registry import OpDef, apply
from .common import _INDEX_TYPES, attr_type_error, convert_same




# ---------------------------------------------------------------------------------------------------
# Identity, shape queries
# ---------------------------------------------------------------------------------------------------

def _identity_kernel(x):
    return x


def _identity_grad(op, grad):
    return [grad]


IDENTITY = OpDef("Identity", infer_unary, _identity_kernel, grad=_identity_grad, input_names=("input",))
STOP_GRADIENT = OpDef("StopGradient", infer_unary, _identity_kernel, input_names=("input",))


def identity(input, name=None):  # noqa: A002
    """`tf.identity`: the same value (a new node in a graph)."""
    if not isinstance(input, Tensor):
        input = convert_to_tensor(input)
    return apply(IDENTITY, (input,), None, name or "Identity")


def stop_gradient(input, name=None):  # noqa: A002
    """`tf.stop_gradient`: the same value, with no gradient flowing back through it."""
    if not isinstance(input, Tensor):
        input = convert_to_tensor(input)
    return apply(STOP_GRADIENT, (input,), None, name or "StopGradient")


def _out_type(out_type, op_name):
    dtype = _dt.as_dtype(out_type)
    if dtype not in _INDEX_TYPES:
        raise attr_type_error("out_type", dtype, op_name, param="out_type")
    return dtype


def _shape_kernel(x, out_type):
    return np.array(x.shape, dtype=out_type)


def _shape_infer(inputs, attrs):
    rank = inputs[0].shape.rank
    return [(_dt.as_dtype(attrs["out_type"]), TensorShape((rank,)))]


def _shape_n_kernel(*arrays, out_type):
    return tuple(np.array(a.shape, dtype=out_type) for a in arrays)


def _shape_n_infer(inputs, attrs):
    dtype = _dt.as_dtype(attrs["out_type"])
    return [(dtype, TensorShape((t.shape.rank,))) for t in inputs]


def _size_kernel(x, out_type):
    return np.array(x.size, dtype=out_type)


def _scalar_infer(dtype_attr):
    def infer(inputs, attrs):
        return [(_dt.as_dtype(attrs[dtype_attr]) if dtype_attr else _dt.int32, TensorShape(()))]
    return infer


def _rank_kernel(x):
    return np.array(x.ndim, dtype=np.int32)


SHAPE = OpDef("Shape", _shape_infer, _shape_kernel, input_names=("input",))
SHAPE_N = OpDef("ShapeN", _shape_n_infer, _shape_n_kernel, multi=True, same_dtype=True, input_names=("input",),
                  list_input="input")
SIZE = OpDef("Size", _scalar_infer("out_type"), _size_kernel, input_names=("input",))
RANK = OpDef("Rank", _scalar_infer(None), _rank_kernel, input_names=("input",))
_INT32_NP = np.dtype(np.int32)
_SHAPE_INT32 = {"out_type": _INT32_NP}


def shape(input, out_type=None, name=None):  # noqa: A002
    """`tf.shape`: the dynamic shape of `input` as a 1-D int32 (or `out_type`) tensor."""
    if not isinstance(input, Tensor):
        input = convert_to_tensor(input)
    attrs = _SHAPE_INT32 if out_type is None else {"out_type": _out_type(out_type, "Shape")._np}
    return apply(SHAPE, (input,), attrs, name or "Shape")


def shape_n(input, out_type=None, name=None):  # noqa: A002
    """`tf.shape_n`: the shapes of a list of tensors."""
    values = list(input)
    if not values:
        raise ValueError("List argument 'input' to 'ShapeN' Op with length 0 shorter than minimum length 1.")
    tensors = convert_same(values)  # one attr T: Python values take the first tensor's dtype
    attrs = _SHAPE_INT32 if out_type is None else {"out_type": _out_type(out_type, "ShapeN")._np}
    return list(apply(SHAPE_N, tuple(tensors), attrs, name or "ShapeN"))


def size(input, out_type=None, name=None):  # noqa: A002
    """`tf.size`: the number of elements of `input` as a scalar."""
    if not isinstance(input, Tensor):
        input = convert_to_tensor(input)
    attrs = _SHAPE_INT32 if out_type is None else {"out_type": _out_type(out_type, "Size")._np}
    return apply(SIZE, (input,), attrs, name or "Size")


def rank(input, name=None):  # noqa: A002
    """`tf.rank`: the number of dimensions of `input` as an int32 scalar."""
    if not isinstance(input, Tensor):
        input = convert_to_tensor(input)
    return apply(RANK, (input,), None, name or "Rank")

def shape_of(t):
    """`t`'s shape as a list of ints when fully known statically, else its dynamic int32 shape tensor."""
    if t.shape.is_fully_defined():
        return t.shape.as_list()
    return shape(t)


API = {"": ["shape", "shape_n", "size", "rank", "identity", "stop_gradient"]}
