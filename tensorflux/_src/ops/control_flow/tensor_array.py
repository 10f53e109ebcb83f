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

from ...framework import errors
from ...framework.context import state as _state
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..shapes import shape_ops as _shape_ops
from ..shapes import creators as _creators
from ..math import arith as _math
from .cond_while import CompositeFlow
from ..convert import convert_to_tensor
from ..registry import OpDef, apply

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


# -- gradients: the gradient of a list is a list of item gradients (None = zero) -----------------------
def _k_zeros_list(items):
    return tuple([None] * len(items))


def _k_add_lists(a, b):
    n = max(len(a), len(b))
    a, b = tuple(a) + (None,) * (n - len(a)), tuple(b) + (None,) * (n - len(b))
    return tuple(_add_items(x, y) for x, y in zip(a, b))


def _add_items(x, y):
    """Two items of gradient lists; an item that is itself a tuple (a While history's iteration, a list
    inside a list) adds item by item, not by concatenation."""
    if x is None:
        return y
    if y is None:
        return x
    if isinstance(x, tuple):
        return _k_add_lists(x, y)
    return x + y


def _k_clear_item(items, index):
    items = list(items)
    if int(index) < len(items):
        items[int(index)] = None
    return tuple(items)


def _k_one_item(items, index, value):
    out = [None] * len(items)
    out[int(index)] = value
    return tuple(out)


def _k_stack_like(items, like):
    return np.stack([np.zeros_like(like[i]) if items[i] is None else items[i] for i in range(like.shape[0])]) \
        if like.shape[0] else np.zeros_like(like)


def _k_get_or_zeros(items, index, like):
    i = int(index)
    value = items[i] if i < len(items) else None
    return np.zeros_like(like) if value is None else value


def _k_scatter_rows(items, indices, value):
    out = [None] * len(items)
    for j, i in enumerate(np.asarray(indices).ravel()):
        out[int(i)] = value[j] if out[int(i)] is None else out[int(i)] + value[j]
    return tuple(out)


def _k_gather_like(items, indices, like):
    rows = [items[int(i)] if int(i) < len(items) and items[int(i)] is not None else np.zeros_like(like[j])
            for j, i in enumerate(np.asarray(indices).ravel())]
    return np.stack(rows) if rows else np.zeros_like(like)


def _k_clear_items(items, indices):
    items = list(items)
    for i in np.asarray(indices).ravel():
        if int(i) < len(items):
            items[int(i)] = None
    return tuple(items)


# The gradient ops' own gradients (a gradient through a loop differentiated again reads and builds
# gradient lists): an item read from a list sends its gradient back as a one-item list, and back.
def _one_item_grad(op, grad):
    _, index, value = op.inputs
    return [None, None, apply(GET_OR_ZEROS, (grad, index, value), None, "TensorListGetItemOrZeros")]


def _get_or_zeros_grad(op, grad):
    items, index, _ = op.inputs
    return [apply(ONE_ITEM, (items, index, grad), None, "TensorListOneItem"), None, None]


_LIST = lambda i, a: [_FLOW]  # noqa: E731 - every list-valued op infers the same flow type
ZEROS_LIST = OpDef("TensorListZerosLike", _LIST, _k_zeros_list, grad=lambda op, grad: [None])
ADD_LISTS = OpDef("TensorListAddN", _LIST, _k_add_lists, grad=lambda op, grad: [grad, grad])
CLEAR_ITEM = OpDef("TensorListClearItem", _LIST, _k_clear_item)
ONE_ITEM = OpDef("TensorListOneItem", _LIST, _k_one_item, grad=_one_item_grad)
STACK_LIKE = OpDef("TensorListStackLike", lambda i, a: [(i[1].dtype, i[1].shape)], _k_stack_like)
GET_OR_ZEROS = OpDef("TensorListGetItemOrZeros", lambda i, a: [(i[2].dtype, i[2].shape)], _k_get_or_zeros,
                     grad=_get_or_zeros_grad)
SCATTER_ROWS = OpDef("TensorListScatterRows", _LIST, _k_scatter_rows)
GATHER_LIKE = OpDef("TensorListGatherLike", lambda i, a: [(i[2].dtype, i[2].shape)], _k_gather_like)
CLEAR_ITEMS = OpDef("TensorListClearItems", _LIST, _k_clear_items)
def gradient_zeros(t):
    """Zeros standing for "no gradient" of `t`: an all-None list for a TensorArray flow."""
    if t.dtype is _dt.variant:
        return apply(ZEROS_LIST, (t,), None, "ZerosLike")
    return _creators.zeros_like(t)


def add_gradients(a, b):
    """Sums two gradients (item-wise for TensorArray flows)."""
    if a.dtype is _dt.variant:
        return apply(ADD_LISTS, (a, b), None, "AddN")
    return _math.add(a, b)


def _set_grad(op, grad):
    items, index, value = op.inputs
    return [apply(CLEAR_ITEM, (grad, index), None, "ClearItem"), None,
            apply(GET_OR_ZEROS, (grad, index, value), None, "GetItem")]


def _get_grad(op, grad):
    items, index = op.inputs
    return [apply(ONE_ITEM, (items, index, grad), None, "OneItem"), None]


def _stack_grad(op, grad):
    return [apply(SCATTER_ROWS, (op.inputs[0], _range_like(grad), grad), None, "Unstack")]


def _from_tensor_grad(op, grad):
    return [apply(STACK_LIKE, (grad, op.inputs[0]), None, "Stack")]


def _gather_grad(op, grad):
    items, indices = op.inputs
    return [apply(SCATTER_ROWS, (items, indices, grad), None, "Scatter"), None]


def _scatter_grad(op, grad):
    items, indices, value = op.inputs
    return [apply(CLEAR_ITEMS, (grad, indices), None, "ClearItems"), None,
            apply(GATHER_LIKE, (grad, indices, value), None, "Gather")]


def _range_like(t):
    return _creators.range(_shape_ops.shape(t)[0])


# Gradients of the list-gradient ops above, for gradients taken again (the reverse loop of a While
# differentiated a second time runs them): each is the matching read/write of the incoming gradient list.
CLEAR_ITEM.grad = lambda op, grad: [apply(CLEAR_ITEM, (grad, op.inputs[1]), None, "ClearItem"), None]
CLEAR_ITEMS.grad = lambda op, grad: [apply(CLEAR_ITEMS, (grad, op.inputs[1]), None, "ClearItems"), None]
STACK_LIKE.grad = lambda op, grad: [apply(SCATTER_ROWS, (op.inputs[0], _range_like(grad), grad), None, "Unstack"),
                                    None]
SCATTER_ROWS.grad = lambda op, grad: [None, None, apply(GATHER_LIKE, (grad, op.inputs[1], op.inputs[2]), None,
                                                        "Gather")]
GATHER_LIKE.grad = lambda op, grad: [apply(SCATTER_ROWS, (op.inputs[0], op.inputs[1], grad), None, "Scatter"),
                                     None, None]


RESERVE = OpDef("TensorListReserve", lambda i, a: [_FLOW], _k_reserve, grad=lambda op, grad: [None])
SET_ITEM = OpDef("TensorListSetItem", lambda i, a: [_FLOW], _k_set, grad=_set_grad)
GET_ITEM = OpDef("TensorListGetItem", _elem, _k_get, grad=_get_grad)
STACK = OpDef("TensorListStack", _stacked, _k_stack, grad=_stack_grad)
FROM_TENSOR = OpDef("TensorListFromTensor", lambda i, a: [_FLOW], _k_from_tensor, grad=_from_tensor_grad)
GATHER = OpDef("TensorListGather", _stacked, _k_gather, grad=_gather_grad)
SCATTER = OpDef("TensorListScatterIntoExistingList", lambda i, a: [_FLOW], _k_scatter, grad=_scatter_grad)
CONCAT = OpDef("TensorListConcatV2", _concatenated, _k_concat)
LENGTH = OpDef("TensorListLength", lambda i, a: [(_dt.int32, TensorShape([]))], _k_length)


class TensorArray(CompositeFlow):
    """`tf.TensorArray(dtype, size=None, dynamic_size=None, element_shape=None, …)`.

    Its state is the `flow`, a variant tensor threaded through TensorList ops (eagerly too, so a
    GradientTape sees every write). Eagerly, writes also update the TensorArray itself, as TensorFlow's
    eager TensorArray does; in graphs they return a new TensorArray (use `ta = ta.write(...)`).
    """

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
        new = object.__new__(TensorArray)
        new._dtype, new._dynamic_size = self._dtype, self._dynamic_size
        new._element_shape, new._infer_shape = self._element_shape, self._infer_shape
        new._flow = tensors[0]
        return new

    def _attrs(self):
        return {"dtype": self._dtype, "element_shape": self._element_shape}

    def _updated(self, flow, element_shape):
        """The TensorArray after an update: itself when eager (TensorFlow's eager semantics), else a new one."""
        target = self if _state.graph is None else self._with_flow([flow])
        target._flow = flow
        target._merge_shape(element_shape)
        return target

    def write(self, index, value, name=None):
        value = self._convert_value(value)
        flow = apply(SET_ITEM, (self._flow, convert_to_tensor(index, dtype=_dt.int32), value),
                     {"dynamic": self._dynamic_size}, name or "TensorArrayV2Write")
        return self._updated(flow, value.shape)

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
        return self._updated(apply(FROM_TENSOR, (value,), None, name or "TensorArrayUnstack"), value.shape[1:])

    def scatter(self, indices, value, name=None):
        value = self._convert_value(value)
        flow = apply(SCATTER, (self._flow, convert_to_tensor(indices, dtype=_dt.int32), value),
                     {"dynamic": self._dynamic_size}, name or "TensorArrayScatter")
        return self._updated(flow, value.shape[1:])

    def concat(self, name=None):
        return apply(CONCAT, (self._flow,), self._attrs(), name or "TensorArrayV2Concat")

    def size(self, name=None):
        return apply(LENGTH, (self._flow,), None, name or "TensorArrayV2Size")


API = {"": ["TensorArray"]}
