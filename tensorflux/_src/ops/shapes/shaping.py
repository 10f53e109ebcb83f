"""Ops that change only a tensor's shape: reshape, expand_dims, squeeze and broadcast_to.

Reshape, ExpandDims and Squeeze return NumPy views: tensors are immutable, so sharing the buffer is safe
and free.

Each op is one OpDef (TensorFlow's op type name, static inference, vectorised NumPy kernel) plus its
public function with TensorFlow's signature. Things TensorFlow takes as tensors that users compute are
op inputs whose values inference reads with `constant_value`; static configuration are attrs.
"""
import math

import numpy as np

from ...framework import errors
from ...framework.tensor import Tensor
from ...types.shape import TensorShape
from ..convert import convert_to_tensor
from ..registry import OpDef, apply, constant_value
from .common import (_UNKNOWN, bad, fmt_shape, index_input, static_int, static_int_tuple, unknown_vector_dims,
    value_dims, partial_dims, shape_from_tensor)
from .shape_ops import shape, shape_of




# ---------------------------------------------------------------------------------------------------
# Reshape, expand_dims, squeeze, broadcast_to
# ---------------------------------------------------------------------------------------------------

def _resolve_reshape(in_dims, requested, static):
    """The output dims of reshaping a tensor of dims `in_dims` (may hold None) to `requested`."""
    def fail(msg):
        return ValueError(msg) if static else bad(msg)
    unknown = None
    product = 1
    for i, d in enumerate(requested):
        if d == -1:
            if unknown is not None:
                raise fail(f"Only one input size may be -1, not both {unknown} and {i}")
            unknown = i
        elif d < 0:
            raise fail(f"Size {i} must be non-negative, not {d}")
        else:
            product *= d
    size = None if None in in_dims else math.prod(in_dims)     # np.prod cost ~6 us on every Reshape
    out = list(requested)
    if unknown is None:
        if size is not None and product != size:
            if static:
                raise ValueError(f"Cannot reshape a tensor with {size} elements to shape {fmt_shape(requested)} "
                                 f"({product} elements)")
            raise bad(f"Input to reshape is a tensor with {size} values, but the requested shape has {product}")
        return tuple(out)
    if size is None:
        out[unknown] = None
        return tuple(out)
    if product == 0 or size == 0:
        if size != 0:
            raise fail(f"Input to reshape is a tensor with {size} values, but the requested shape has 0")
        # An empty input: the missing size comes from the non-zero dims, as TensorFlow does.
        nonzero_in = int(np.prod([d for d in in_dims if d], dtype=np.int64))
        nonzero_req = int(np.prod([d for d in requested if d > 0], dtype=np.int64))
        if product == 0 and nonzero_in % nonzero_req:
            raise fail("Reshape cannot infer the missing input size for an empty tensor unless all specified "
                       "input sizes are non-zero")
        out[unknown] = nonzero_in // nonzero_req if product == 0 else 0
        return tuple(out)
    if size % product:
        raise fail(f"Input to reshape is a tensor with {size} values, but the requested shape requires a "
                   f"multiple of {product}")
    out[unknown] = size // product
    return tuple(out)


def _reshape_kernel(x, shape):
    if shape.ndim != 1:
        raise bad(f"sizes input must be 1-D, not {fmt_shape(shape.shape)}")
    return x.reshape(_resolve_reshape(x.shape, shape.tolist(), False))


def _reshape_infer(inputs, attrs):
    x, shape = inputs
    if shape.shape.rank not in (None, 1):       # TensorFlow's shape function checks the rank first
        dims = ", ".join("[" + ",".join("?" if d is None else str(d) for d in t.shape.as_list()) + "]"
                         if t.shape.rank is not None else "?" for t in inputs)
        raise ValueError(f"Shape must be rank 1 but is rank {shape.shape.rank} for '{{{{node Reshape}}}}' with input "
                         f"shapes: {dims}.")
    requested = value_dims(shape)
    if requested is None:
        partial = partial_dims(shape)      # dims known through tf.shape(...) (TensorFlow's shape refiner)
        if partial is None:
            return [(x.dtype, unknown_vector_dims(shape))]
        if None in partial:
            return [(x.dtype, TensorShape(tuple(None if d is None or d < 0 else d for d in partial)))]
        requested = partial
    in_dims = x.shape._dims
    if in_dims is None:
        return [(x.dtype, TensorShape(tuple(None if d == -1 else d for d in requested)))]
    return [(x.dtype, TensorShape(_resolve_reshape(in_dims, requested, True)))]


def _reshape_grad(op, grad):
    return [reshape(grad, shape_of(op.inputs[0])), None]


RESHAPE = OpDef("Reshape", _reshape_infer, _reshape_kernel, grad=_reshape_grad, input_names=("tensor", "shape"))


def reshape(tensor, shape, name=None):
    """`tf.reshape`: the same values in a new shape; one dimension may be -1 (inferred)."""
    if not isinstance(tensor, Tensor):
        tensor = convert_to_tensor(tensor)
    return apply(RESHAPE, (tensor, index_input(shape, "Tshape", "Reshape", "shape")), None, name or "Reshape")

def _expand_dims_problem(axis, rank):
    if not -1 - rank <= axis <= rank:
        return f"Tried to expand dim index {axis} for tensor with {rank} dimensions."
    return None


def _expand_dims_kernel(x, axis):
    problem = _expand_dims_problem(axis, x.ndim)
    if problem:
        raise bad(problem)
    return np.expand_dims(x, axis)


def _expand_dims_infer(inputs, attrs):
    x = inputs[0]
    axis = attrs["axis"]
    dims = x.shape._dims
    if dims is None:
        return [(x.dtype, _UNKNOWN)]
    rank = len(dims)
    if _expand_dims_problem(axis, rank):
        raise ValueError(f"dim {axis} not in the interval [{-1 - rank}, {rank}].")
    axis = axis % (rank + 1)
    return [(x.dtype, TensorShape(dims[:axis] + (1,) + dims[axis:]))]


def _restore_shape_grad(op, grad):
    """The gradient of an op that only changes the shape: the gradient in the input's shape."""
    return [reshape(grad, shape_of(op.inputs[0]))]


EXPAND_DIMS = OpDef("ExpandDims", _expand_dims_infer, _expand_dims_kernel, grad=_restore_shape_grad)


def expand_dims(input, axis, name=None):  # noqa: A002 - TensorFlow's argument name
    """`tf.expand_dims`: inserts a dimension of size 1 at `axis`."""
    input = convert_to_tensor(input)
    if type(axis) is not int:
        if isinstance(axis, (list, tuple, np.ndarray, Tensor)) and np.size(
                constant_value(axis) if isinstance(axis, Tensor) else axis) not in (1, None):
            raise errors.eager_error(errors.InvalidArgumentError, "'dim' must be a tensor with a single value",
                                     "ExpandDims")
        axis = static_int(axis, "axis", "Tdim", "ExpandDims")
    return apply(EXPAND_DIMS, (input,), {"axis": axis}, name or "ExpandDims")


def _squeeze_axes(dims, axis, static):
    """The kept dims after squeezing `axis` (a tuple) out of `dims` (may hold None)."""
    rank = len(dims)
    drop = set()
    for a in axis:
        if not -rank <= a < rank:
            msg = f"Tried to squeeze dim index {a} for tensor with {rank} dimensions."
            raise ValueError(msg) if static else bad(msg)
        a %= rank
        if dims[a] is not None and dims[a] != 1:
            msg = f"Can not squeeze dim[{a}], expected a dimension of 1, got {dims[a]}"
            raise ValueError(msg) if static else bad(msg)
        drop.add(a)
    return tuple(d for i, d in enumerate(dims) if i not in drop)


def _squeeze_kernel(x, axis=None):
    if axis is None:
        return np.squeeze(x)
    return x.reshape(_squeeze_axes(x.shape, axis, False))


def _squeeze_infer(inputs, attrs):
    x = inputs[0]
    axis = attrs.get("axis")
    dims = x.shape._dims
    if dims is None:
        return [(x.dtype, _UNKNOWN)]
    if axis is None:
        if None in dims:  # an unknown dim may or may not be 1
            return [(x.dtype, _UNKNOWN)]
        return [(x.dtype, TensorShape(tuple(d for d in dims if d != 1)))]
    return [(x.dtype, TensorShape(_squeeze_axes(dims, axis, True)))]


SQUEEZE = OpDef("Squeeze", _squeeze_infer, _squeeze_kernel, grad=_restore_shape_grad)


def squeeze(input, axis=None, name=None):  # noqa: A002
    """`tf.squeeze`: removes dimensions of size 1 (all of them, or those listed in `axis`)."""
    input = convert_to_tensor(input)
    if axis is None:
        return apply(SQUEEZE, (input,), None, name or "Squeeze")
    if isinstance(axis, (int, np.integer)):
        axis = (int(axis),)
    else:
        axis = static_int_tuple(axis, "axis")
    return apply(SQUEEZE, (input,), {"axis": axis}, name or "Squeeze")



def _broadcast_to_problem(in_dims, out_dims):
    if len(in_dims) > len(out_dims):
        return f"Rank of input ({len(in_dims)}) must be no greater than rank of output shape ({len(out_dims)})."
    for d_in, d_out in zip(reversed(in_dims), reversed(out_dims)):
        if d_in is not None and d_out is not None and d_in != d_out and d_in != 1:
            if len(in_dims) == len(out_dims):
                return f"Incompatible shapes: {fmt_shape(in_dims)} vs. {fmt_shape(out_dims)}"
            return f"Unable to broadcast tensor of shape {fmt_shape(in_dims)} to tensor of shape {fmt_shape(out_dims)}"
    return None


def _broadcast_to_kernel(x, shape):
    target = tuple(shape.tolist())
    problem = _broadcast_to_problem(x.shape, target)
    if problem:
        raise bad(problem)
    return np.broadcast_to(x, target).copy()  # materialised: zero-stride views surprise later consumers


def _broadcast_to_infer(inputs, attrs):
    x, shape = inputs
    target = value_dims(shape)
    if target is None:
        return [(x.dtype, shape_from_tensor(shape))]
    if x.shape._dims is not None:
        if len(x.shape._dims) > len(target):
            raise ValueError(f"Shape must be at most rank {len(target)} but is rank {len(x.shape._dims)}")
        problem = _broadcast_to_problem(x.shape._dims, target)
        if problem:
            raise ValueError(problem)
    return [(x.dtype, TensorShape(target))]


# The gradient (a sum back to the input's shape) is registered by math/summation.py, above this room.
BROADCAST_TO = OpDef("BroadcastTo", _broadcast_to_infer, _broadcast_to_kernel, input_names=("input", "shape"))


def broadcast_to(input, shape, name=None):  # noqa: A002
    """`tf.broadcast_to`: `input` repeated along broadcast dimensions to `shape`."""
    input = convert_to_tensor(input)
    return apply(BROADCAST_TO, (input, index_input(shape, "Tidx", "BroadcastTo", "shape")), None,
                 name or "BroadcastTo")


API = {"": ["reshape", "expand_dims", "squeeze", "broadcast_to"]}
