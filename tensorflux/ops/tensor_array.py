"""`tf.TensorArray`: a list of same-dtype tensors that can be written inside loops.

Eagerly it is a Python list of tensors (writes update it and return it). While a graph is being built
it is functional: its state is one `variant` tensor (the "flow") produced by TensorList ops, every
`write` returns a new TensorArray around a new flow, and the TensorArray travels through `cond` and
`while_loop` as that flow tensor (it implements `CompositeFlow`). In generated code a flow value is an
immutable Python tuple of NumPy arrays (None for unwritten slots).

    ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
    for i in tf.range(3):
        ta = ta.write(i, tf.cast(i, tf.float32) * 2.0)
    ta.stack()   # [0., 2., 4.]
"""
import numpy as np

from ..framework import errors
from ..framework.context import state as _state
from ..framework.tensor import EagerTensor
from ..types import dtypes as _dt
from ..types.shape import TensorShape
from .control_flow import CompositeFlow
from .convert import convert_to_tensor
from .registry import OpDef, apply

__all__ = ["TensorArray"]

_FLOW = (_dt.variant, TensorShape([]))


def _err(message):
    return errors.InvalidArgumentError(None, None, message)


def _check_index(items, index, dynamic, what="write to"):
    index = int(index)
    if index < 0:
        raise _err(f"Tried to {what} index {index} but array index must be non-negative.")
    if index >= len(items) and not dynamic:
        raise _err(f"Tried to {what} index {index} but array is not resizeable and size is: {len(items)}")
    return index


def _read(items, index, dtype, element_shape):
    index = int(index)
    if index < 0 or index >= len(items):
        raise _err(f"Tried to read from index {index} but array size is: {len(items)}")
    value = items[index]
    if value is None:
        if element_shape is not None and element_shape.is_fully_defined():
            return np.zeros(element_shape.as_list(), dtype=dtype._np)
        raise _err(f"Could not read from TensorArray index {index}. Furthermore, the element shape is not fully "
                   f"defined: {element_shape}. It is possible you are working with a resizeable TensorArray and "
                   f"stop_gradients is not allowing the gradients to be written. If you set the full "
                   f"element_shape property on the forward TensorArray, the proper all-zeros tensor will be "
                   f"returned instead of incurring this error.")
    return value


def _stack(items, dtype, element_shape):
    if not items:
        shape = element_shape.as_list() if element_shape is not None and element_shape.is_fully_defined() else [0]
        return np.zeros([0] + (shape if shape != [0] else []), dtype=dtype._np)
    return np.stack([_read(items, i, dtype, element_shape) for i in range(len(items))])


# -- graph ops (kernels work on tuples) ----------------------------------------------------------------
def _k_reserve(n, *, dtype, element_shape):
    return tuple([None] * int(n))


def _k_set(items, index, value, *, dynamic):
    index = _check_index(items, index, dynamic)
    items = list(items)
    if index >= len(items):
        items.extend([None] * (index + 1 - len(items)))
    items[index] = value
    return tuple(items)


def _k_get(items, index, *, dtype, element_shape):
    return _read(items, index, dtype, element_shape)


def _k_stack(items, *, dtype, element_shape):
    return _stack(items, dtype, element_shape)


def _k_from_tensor(value):
    return tuple(value[i] for i in range(value.shape[0]))


def _k_gather(items, indices, *, dtype, element_shape):
    return np.stack([_read(items, i, dtype, element_shape) for i in np.asarray(indices).ravel()]) \
        if np.size(indices) else np.zeros([0] + (element_shape.as_list() if element_shape.is_fully_defined()
                                                 else []), dtype=dtype._np)


def _k_scatter(items, indices, value, *, dynamic):
    items = list(items)
    for j, i in enumerate(np.asarray(indices).ravel()):
        i = _check_index(items, i, dynamic)
        if i >= len(items):
            items.extend([None] * (i + 1 - len(items)))
        items[i] = value[j]
    return tuple(items)


def _k_concat(items, *, dtype, element_shape):
    return np.concatenate([_read(items, i, dtype, element_shape) for i in range(len(items))]) if items else \
        np.zeros([0], dtype=dtype._np)


def _k_length(items):
    return np.int32(len(items))


def _elem(inputs, attrs):
    return [(attrs["dtype"], attrs["element_shape"])]


def _stacked(inputs, attrs):
    return [(attrs["dtype"], TensorShape([None]).concatenate(attrs["element_shape"]))]


def _concatenated(inputs, attrs):
    shape = attrs["element_shape"]
    rest = shape[1:] if shape.rank else TensorShape(None)
    return [(attrs["dtype"], TensorShape([None]).concatenate(rest))]


RESERVE = OpDef("TensorListReserve", lambda i, a: [_FLOW], _k_reserve)
SET_ITEM = OpDef("TensorListSetItem", lambda i, a: [_FLOW], _k_set)
GET_ITEM = OpDef("TensorListGetItem", _elem, _k_get)
STACK = OpDef("TensorListStack", _stacked, _k_stack)
FROM_TENSOR = OpDef("TensorListFromTensor", lambda i, a: [_FLOW], _k_from_tensor)
GATHER = OpDef("TensorListGather", _stacked, _k_gather)
SCATTER = OpDef("TensorListScatterIntoExistingList", lambda i, a: [_FLOW], _k_scatter)
CONCAT = OpDef("TensorListConcatV2", _concatenated, _k_concat)
LENGTH = OpDef("TensorListLength", lambda i, a: [(_dt.int32, TensorShape([]))], _k_length)


class TensorArray:
    """`tf.TensorArray(dtype, size=None, dynamic_size=None, element_shape=None, …)`."""

    def __new__(cls, dtype, size=None, dynamic_size=None, clear_after_read=None, tensor_array_name=None,
                handle=None, flow=None, infer_shape=True, element_shape=None, colocate_with_first_write_call=True,
                name=None):
        if cls is TensorArray:
            cls = _EagerTensorArray if _state.graph is None else _GraphTensorArray
        return object.__new__(cls)

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None, tensor_array_name=None,
                 handle=None, flow=None, infer_shape=True, element_shape=None, colocate_with_first_write_call=True,
                 name=None):
        self._dtype = _dt.as_dtype(dtype)
        self._dynamic_size = bool(dynamic_size)
        self._element_shape = TensorShape(element_shape) if element_shape is not None else TensorShape(None)
        self._infer_shape = infer_shape
        if size is None and not self._dynamic_size and flow is None:
            raise ValueError("Size must be provided if dynamic_size is False.")
        self._init(size if size is not None else 0, flow)

    @property
    def dtype(self):
        return self._dtype

    @property
    def dynamic_size(self):
        return self._dynamic_size

    @property
    def element_shape(self):
        return self._element_shape

    def _convert_value(self, value):
        t = convert_to_tensor(value, dtype_hint=self._dtype)
        if t.dtype is not self._dtype:
            raise errors.InvalidArgumentError(
                None, None, f"TensorArray dtype is {self._dtype.name} but Op is trying to write dtype "
                f"{t.dtype.name} ")
        return t

    def _merge_shape(self, shape):
        if not self._infer_shape:
            return
        if not self._element_shape.is_compatible_with(shape):
            raise ValueError(f"Inconsistent shapes: saw {shape} but expected {self._element_shape} (and "
                             f"infer_shape=True)")
        self._element_shape = self._element_shape.merge_with(shape)

    def close(self, name=None):
        return None

    def __repr__(self):
        return f"<tf.TensorArray dtype={self._dtype.name} element_shape={self._element_shape}>"


class _EagerTensorArray(TensorArray):
    """Eager TensorArray: a Python list of eager tensors."""

    def _init(self, size, flow):
        self._items = [None] * int(size)

    def write(self, index, value, name=None):
        value = self._convert_value(value)
        index = _check_index(self._items, index, self._dynamic_size)
        self._merge_shape(value.shape)
        if index >= len(self._items):
            self._items.extend([None] * (index + 1 - len(self._items)))
        self._items[index] = value._value
        return self

    def read(self, index, name=None):
        return EagerTensor(_read(self._items, index, self._dtype, self._element_shape))

    def stack(self, name=None):
        return EagerTensor(_stack(self._items, self._dtype, self._element_shape))

    def gather(self, indices, name=None):
        return EagerTensor(_k_gather(self._items, np.asarray(convert_to_tensor(indices)), dtype=self._dtype,
                                     element_shape=self._element_shape))

    def unstack(self, value, name=None):
        value = self._convert_value(value)
        self._merge_shape(value.shape[1:])
        self._items = list(_k_from_tensor(value._value))
        return self

    def scatter(self, indices, value, name=None):
        value = self._convert_value(value)
        self._merge_shape(value.shape[1:])
        self._items = list(_k_scatter(self._items, np.asarray(convert_to_tensor(indices)), value._value,
                                      dynamic=self._dynamic_size))
        return self

    def concat(self, name=None):
        return EagerTensor(_k_concat(self._items, dtype=self._dtype, element_shape=self._element_shape))

    def size(self, name=None):
        return EagerTensor(np.int32(len(self._items)))


class _GraphTensorArray(TensorArray, CompositeFlow):
    """Graph TensorArray: a `variant` flow tensor threaded through TensorList ops."""

    def _init(self, size, flow):
        if flow is not None:
            self._flow = flow
        else:
            self._flow = apply(RESERVE, (convert_to_tensor(size, dtype=_dt.int32),),
                               {"dtype": self._dtype, "element_shape": self._element_shape}, "TensorArrayV2")

    @property
    def flow(self):
        return self._flow

    def _flow_tensors(self):
        return [self._flow]

    def _with_flow(self, tensors):
        new = object.__new__(_GraphTensorArray)
        new._dtype, new._dynamic_size = self._dtype, self._dynamic_size
        new._element_shape, new._infer_shape = self._element_shape, self._infer_shape
        new._flow = tensors[0]
        return new

    def _attrs(self):
        return {"dtype": self._dtype, "element_shape": self._element_shape}

    def write(self, index, value, name=None):
        value = self._convert_value(value)
        new = self._with_flow([apply(SET_ITEM, (self._flow, convert_to_tensor(index, dtype=_dt.int32), value),
                                     {"dynamic": self._dynamic_size}, name or "TensorArrayV2Write")])
        new._merge_shape(value.shape)
        return new

    def read(self, index, name=None):
        return apply(GET_ITEM, (self._flow, convert_to_tensor(index, dtype=_dt.int32)), self._attrs(),
                     name or "TensorArrayV2Read")

    def stack(self, name=None):
        return apply(STACK, (self._flow,), self._attrs(), name or "TensorArrayV2Stack")

    def gather(self, indices, name=None):
        return apply(GATHER, (self._flow, convert_to_tensor(indices, dtype=_dt.int32)), self._attrs(),
                     name or "TensorArrayV2Gather")

    def unstack(self, value, name=None):
        value = self._convert_value(value)
        new = self._with_flow([apply(FROM_TENSOR, (value,), None, name or "TensorArrayUnstack")])
        new._merge_shape(value.shape[1:])
        return new

    def scatter(self, indices, value, name=None):
        value = self._convert_value(value)
        new = self._with_flow([apply(SCATTER, (self._flow, convert_to_tensor(indices, dtype=_dt.int32), value),
                                     {"dynamic": self._dynamic_size}, name or "TensorArrayScatter")])
        new._merge_shape(value.shape[1:])
        return new

    def concat(self, name=None):
        return apply(CONCAT, (self._flow,), self._attrs(), name or "TensorArrayV2Concat")

    def size(self, name=None):
        return apply(LENGTH, (self._flow,), None, name or "TensorArrayV2Size")



API = {"": ["TensorArray"]}
