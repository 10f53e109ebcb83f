"""Reinterpreting and describing tensors without computing: `tf.bitcast` (Bitcast: the same bytes as
another dtype), `tf.guarantee_const` (GuaranteeConst, an identity), `tf.parallel_stack` (graph-only, as in
TensorFlow), `tf.histogram_fixed_width_bins` (the bin of each value), and shape/value facts known before
running: `tf.broadcast_static_shape`, `tf.broadcast_dynamic_shape` (BroadcastArgs), `tf.get_static_value`.
"""
import numpy as np

from ...framework import errors
from ...framework.context import state as _state
from ...framework.tensor import Tensor
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..convert import convert_to_tensor
from ..infer import broadcast_shape
from ..registry import OpDef, apply, constant_value
from ..math import arith as _math
from .join import stack

_BITCAST_TYPES = tuple(d for d in (_dt.bfloat16, _dt.float16, _dt.float32, _dt.float64, _dt.int64, _dt.int32,
                                   _dt.uint8, _dt.int16, _dt.int8, _dt.complex64, _dt.complex128, _dt.uint16,
                                   _dt.uint32, _dt.uint64))


def _tensor(x, dtype=None):
    return x if isinstance(x, Tensor) else convert_to_tensor(x, dtype=dtype)


def _bitcast_kernel(x, type, T=None):  # noqa: A002,N803 - TensorFlow's attr names
    source, target = np.dtype(x.dtype), np.dtype(_dt.as_dtype(type)._np)   # attrs from a GraphDef may hold a NumPy dtype
    if source.itemsize == target.itemsize:
        return x.view(target)
    if source.itemsize > target.itemsize:
        return np.ascontiguousarray(x).view(target).reshape(x.shape + (source.itemsize // target.itemsize,))
    ratio = target.itemsize // source.itemsize
    if x.ndim == 0 or x.shape[-1] != ratio:
        raise errors.InvalidArgumentError(
            None, None, f"Cannot bitcast from {_dt.FROM_NUMPY[source].as_datatype_enum} to {type.as_datatype_enum}")
    return np.ascontiguousarray(x).view(target).reshape(x.shape[:-1])


def _infer_bitcast(inputs, attrs):
    x = inputs[0]
    target = _dt.as_dtype(attrs["type"])   # a DType, or a NumPy dtype in attrs imported from a GraphDef
    source_size, target_size = np.dtype(x.dtype._np).itemsize, np.dtype(target._np).itemsize
    if x.shape.rank is None or source_size == target_size:
        return [(target, x.shape)]
    dims = list(x.shape._dims)
    if source_size > target_size:
        return [(target, TensorShape(dims + [source_size // target_size]))]
    if dims and dims[-1] is not None and dims[-1] != target_size // source_size:
        raise ValueError(f"Cannot bitcast from {x.dtype.as_datatype_enum} to {target.as_datatype_enum}")
    return [(target, TensorShape(dims[:-1]))]


BITCAST = OpDef("Bitcast", _infer_bitcast, _bitcast_kernel, allowed=_BITCAST_TYPES, input_names=("input",))


def bitcast(input, type, name=None):  # noqa: A002 - TensorFlow's names
    """`tf.bitcast`: the same bytes as dtype `type` (a wider type consumes the last dimension, a narrower
    one adds a dimension)."""
    input = _tensor(input)
    type = _dt.as_dtype(type)
    if type not in _BITCAST_TYPES:
        raise TypeError(f"Value for attr 'type' of {type.name} is not in the list of allowed values")
    return apply(BITCAST, (input,), {"T": input.dtype, "type": type}, name or "Bitcast")


GUARANTEE_CONST = OpDef("GuaranteeConst", lambda i, a: [(i[0].dtype, i[0].shape)], lambda x: x,
                        input_names=("input",), grad=lambda op, grad: [grad])


def guarantee_const(input, name=None):  # noqa: A002
    """`tf.guarantee_const` (deprecated in TensorFlow): `input`, promised constant to the runtime."""
    return apply(GUARANTEE_CONST, (_tensor(input),), None, name or "GuaranteeConst")


def parallel_stack(values, name="parallel_stack"):
    """`tf.parallel_stack`: `tf.stack` along a new first axis, only inside a graph (as in TensorFlow)."""
    if _state.graph is None:
        raise RuntimeError("tf.parallel_stack() is not compatible with eager execution.")
    return stack(values, axis=0, name=name)


def histogram_fixed_width_bins(values, value_range, nbins=100, dtype=_dt.int32, name=None):
    """`tf.histogram_fixed_width_bins`: the index of the equal-width bin of `value_range` holding each
    value (values outside the range go to the first or last bin)."""
    values = _tensor(values)
    value_range = _tensor(value_range, values.dtype)
    nbins_t = _tensor(nbins, _dt.int32)
    low, high = value_range[0], value_range[1]
    scaled = _math.divide(_math.subtract(values, low), _math.subtract(high, low))
    scaled = _math.cast(scaled, _dt.float64) if not scaled.dtype.is_floating else scaled
    index = _math.cast(_math.floor(_math.multiply(scaled, _math.cast(nbins_t, scaled.dtype))), _dt.int32)
    index = _math.minimum(_math.maximum(index, 0), _math.subtract(nbins_t, 1))
    return _math.cast(index, dtype, name=name)


def broadcast_static_shape(shape_x, shape_y):
    """`tf.broadcast_static_shape`: the broadcast of two TensorShapes (ValueError when incompatible)."""
    shape_x, shape_y = TensorShape(shape_x), TensorShape(shape_y)
    try:
        return broadcast_shape(shape_x, shape_y)
    except ValueError:
        raise ValueError("Incompatible shapes for broadcasting. Two shapes are compatible if for each dimension "
                         "pair they are either equal or one of them is 1. Received: "
                         f"{tuple(shape_x.as_list()) if shape_x.rank is not None else None} and "
                         f"{tuple(shape_y.as_list()) if shape_y.rank is not None else None}.") from None


def _broadcast_args_kernel(s0, s1):
    try:
        return np.array(np.broadcast_shapes(tuple(s0.tolist()), tuple(s1.tolist())), dtype=s0.dtype)
    except ValueError:
        raise errors.InvalidArgumentError(None, None, f"Incompatible shapes: [{','.join(map(str, s0.tolist()))}] vs. "
                                                      f"[{','.join(map(str, s1.tolist()))}]") from None


def _infer_broadcast_args(inputs, attrs):
    lengths = [t.shape._dims[0] if t.shape.rank == 1 else None for t in inputs]
    length = None if None in lengths else max(lengths)
    return [(inputs[0].dtype, TensorShape([length]))]


BROADCAST_ARGS = OpDef("BroadcastArgs", _infer_broadcast_args, _broadcast_args_kernel, same_dtype=True,
                       allowed=(_dt.int32, _dt.int64), input_names=("s0", "s1"))


def broadcast_dynamic_shape(shape_x, shape_y):
    """`tf.broadcast_dynamic_shape`: the broadcast of two shape vectors, as a tensor (BroadcastArgs)."""
    shape_x = _tensor(shape_x, _dt.int32)
    shape_y = _tensor(shape_y, shape_x.dtype)
    return apply(BROADCAST_ARGS, (shape_x, shape_y), None, "BroadcastArgs")


def get_static_value(tensor, partial=False):
    """`tf.get_static_value`: the NumPy value of `tensor` when it is known without running a graph (an
    eager tensor, a constant, or a value of a constant-foldable graph), else None."""
    if not isinstance(tensor, Tensor):
        return np.asarray(tensor) if tensor is not None else None
    value = constant_value(tensor)
    return None if value is None else np.asarray(value)



API = {
    "": ["bitcast", "guarantee_const", "parallel_stack", "histogram_fixed_width_bins", "broadcast_static_shape",
         "broadcast_dynamic_shape", "get_static_value"],
}
