"""Indexing ops: where, boolean_mask, slice, strided_slice, and `Tensor.__getitem__`.

`tensor[...]` follows TensorFlow: ints (negative too), slices with any step, `tf.newaxis`, `...` and
scalar int32/int64 tensors, combined freely. It always lowers to one StridedSlice op (begin/end/strides
plus five bit masks), so an index means the same thing eagerly and in a traced graph. A bool tensor as
the whole index is `tf.boolean_mask`; lists and arrays of indices are not supported (as in TensorFlow).
Gathering (gather, gather_nd) lives in gather.py.
"""
import builtins
import numbers

import numpy as np

from ...framework import errors
from ...framework.context import state as _state
from ...framework.tensor import EagerTensor, Tensor
from ...types import dtypes as _dt
from ...types.shape import Dimension, TensorShape
from ..math import arith as _math
from ..shapes.common import bad, fmt_shape, index_input, static_int, unknown_vector_dims, value_dims, partial_dims
from .join import concat, stack
from .padding import pad
from ..shapes.shape_ops import shape, shape_of
from ..shapes.shaping import reshape, squeeze
from ..convert import constant, convert_to_tensor
from ..registry import OpDef, apply, constant_value
from .gather import _UNKNOWN, gather
from .where import where


def boolean_mask(tensor, mask, axis=None, name="boolean_mask"):
    """`tf.boolean_mask`: the elements (or slices along `axis`) of `tensor` where `mask` is true."""
    tensor = convert_to_tensor(tensor)
    mask = convert_to_tensor(mask)
    mask_rank = mask.shape.rank
    if mask_rank is None:
        raise ValueError("Number of mask dimensions must be specified, even if some dimensions are None.  "
                         "E.g. shape=[None] is ok, but shape=None is not.")
    if mask_rank == 0:
        raise ValueError("mask cannot be scalar.")
    axis = 0 if axis is None else static_int(axis, "axis")
    dims = tensor.shape._dims
    if dims is not None:
        if axis < 0:
            axis += len(dims)
        covered = tensor.shape[axis:axis + mask_rank]
        if not covered.is_compatible_with(mask.shape):
            raise ValueError(f"Shapes {covered} and {mask.shape} are incompatible")
    # Fold the masked dims into one, so one gather along `axis` does the work; TensorFlow reshapes even for
    # a 1-D mask, which makes its gradient dense (not gather's IndexedSlices), and so does this.
    if mask_rank >= 1:
        lead, tail = (dims[:axis], dims[axis + mask_rank:]) if dims is not None else (None, None)
        if lead is not None and None not in lead and None not in tail:
            folded = list(lead) + [-1] + list(tail)
        else:
            full = shape(tensor)
            folded = concat([full[:axis], [-1], full[axis + mask_rank:]], 0)
        tensor = reshape(tensor, folded)
        mask = reshape(mask, [-1])
    indices = squeeze(where(mask), axis=[1])
    return gather(tensor, indices, axis=axis, name=name)


# ---------------------------------------------------------------------------------------------------
# slice
# ---------------------------------------------------------------------------------------------------

def _slice_bounds(dims, begin, size, static):
    """Per-dim (begin, size) with size -1 resolved; dims/begin/size entries may be None (unknown)."""
    def fail(msg):
        return ValueError(msg) if static else bad(msg)
    out = []
    for i, (d, b, s) in enumerate(zip(dims, begin, size)):
        if b is not None and d is not None and not 0 <= b <= d:
            raise fail(f"Expected begin[{i}] in [0, {d}], but got {b}")
        if s == -1:
            s = None if d is None or b is None else d - b
        elif s is not None and d is not None and b is not None and not 0 <= s <= d - b:
            raise fail(f"Expected size[{i}] in [0, {d - b}], but got {s}")
        elif s is not None and s < 0:
            raise fail(f"Expected size[{i}] >= 0, but got {s}")
        out.append((b, s))
    return out


def _slice_kernel(x, begin, size):
    if begin.ndim != 1 or size.ndim != 1 or len(begin) != x.ndim or len(size) != x.ndim:
        raise bad(f"Expected begin and size arguments to be 1-D tensors of size {x.ndim}, but got shapes "
                  f"{fmt_shape(begin.shape)} and {fmt_shape(size.shape)} instead.")
    bounds = _slice_bounds(x.shape, begin.tolist(), size.tolist(), False)
    return x[tuple(builtins.slice(b, b + s) for b, s in bounds)]


def _slice_infer(inputs, attrs):
    x, begin, size = inputs
    # dims known through tf.shape(...)/tf.stack of scalars count too (TensorFlow's shape refiner; a -1 in a
    # size known only in part stays unknown, as there)
    b, s = value_dims(begin), value_dims(size)
    if b is None:
        b = partial_dims(begin)
    if s is None:
        s = partial_dims(size)
        s = None if s is None else tuple(None if d is None or d < 0 else d for d in s)
    dims = x.shape._dims
    n = len(dims) if dims is not None else len(b) if b is not None else len(s) if s is not None else None
    if n is None:
        n = begin.shape[0] if begin.shape.rank == 1 else None
        return [(x.dtype, _UNKNOWN if n is None else TensorShape((None,) * n))]
    dims = dims or (None,) * n
    for given in (b, s):
        if given is not None and len(given) != n:
            raise ValueError(f"Shape must be rank {n} but is rank {len(given)}")
    bounds = _slice_bounds(dims, b or (None,) * n, s or (None,) * n, True)
    return [(x.dtype, TensorShape(tuple(sz for _, sz in bounds)))]


def _slice_grad(op, grad):
    """`grad` padded back to the input's shape: `begin` before, the rest after."""
    x, begin = op.inputs[0], op.inputs[1]
    in_dims, out_dims, start = shape_of(x), shape_of(op.outputs[0]), constant_value(begin)
    if isinstance(in_dims, list) and isinstance(out_dims, list) and start is not None:
        start = np.reshape(start, -1).tolist()
        paddings = [[b, d - b - o] for b, d, o in zip(start, in_dims, out_dims)]
    else:
        after = _math.subtract(_math.subtract(shape(x, out_type=begin.dtype), begin),
                               shape(grad, out_type=begin.dtype))
        paddings = stack([begin, after], axis=1)
    return [pad(grad, paddings), None, None]


SLICE = OpDef("Slice", _slice_infer, _slice_kernel, grad=_slice_grad, input_names=("input", "begin", "size"))


def slice(input_, begin, size, name=None):  # noqa: A001 - TensorFlow's name
    """`tf.slice`: the block of `size` starting at `begin` (a size of -1 takes the rest)."""
    input_ = convert_to_tensor(input_)
    begin = index_input(begin, "Index", "Slice", "begin")
    size = index_input(size, "Index", "Slice", "size")
    return apply(SLICE, (input_, begin, size), None, name or "Slice")


# ---------------------------------------------------------------------------------------------------
# strided_slice and Tensor.__getitem__
# ---------------------------------------------------------------------------------------------------

_MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")
_FULL = builtins.slice(None)
_EMPTY = builtins.slice(0, 0)


def _strided_plan(dims, n, begin, end, strides, masks, static):
    """The NumPy index and the output dims of a strided slice with `n` index entries.

    `dims` may hold None (unknown sizes); `begin`/`end`/`strides` are lists of `n` ints, or None when
    their values are unknown (then only the masks and `dims` shape the result). Raises TensorFlow's errors.
    """
    begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_mask = masks

    def fail(msg):
        return ValueError(msg) if static else bad(msg)

    if ellipsis_mask & (ellipsis_mask - 1):
        raise fail("Multiple ellipses in slice spec not allowed")
    rank = len(dims)
    consumed = sum(1 for i in range(n) if not (ellipsis_mask >> i) & 1 and not (new_axis_mask >> i) & 1)
    index, out = [], []
    d = 0
    for i in range(n):
        bit = 1 << i
        if ellipsis_mask & bit:
            for _ in range(max(rank - consumed, 0)):
                index.append(_FULL)
                out.append(dims[d])
                d += 1
            continue
        if new_axis_mask & bit:
            index.append(None)
            out.append(1)
            continue
        if d >= rank:
            if rank == 0:
                raise fail("Attempting to slice scalar input.")
            raise fail(f"Index out of range using input dim {d}; input has only {rank} dims")
        size = dims[d]
        stride = strides[i] if strides is not None else None
        if stride == 0:
            raise fail(f"strides[{i}] must be non-zero")
        if shrink_mask & bit:
            if stride is not None and stride < 0:
                raise fail("only stride 1 allowed on non-range indexing.")
            b = begin[i] if begin is not None else None
            if b is not None and size is not None:
                if b < 0:
                    b += size
                if not 0 <= b < size:
                    raise fail(f"slice index {b} of dimension {d} out of bounds.")
            index.append(b)
            d += 1
            continue
        b = None if begin is None and not begin_mask & bit else (begin[i] if begin is not None else 0)
        e = None if end is None and not end_mask & bit else (end[i] if end is not None else 0)
        if stride is None or size is None or b is None or e is None:
            index.append(None)
            out.append(None)
            d += 1
            continue
        lo, hi = (0, size) if stride > 0 else (-1, size - 1)
        if begin_mask & bit:
            b = lo if stride > 0 else hi
        else:
            b = min(max(b + size if b < 0 else b, lo), hi)
        if end_mask & bit:
            e = hi if stride > 0 else lo
        else:
            e = min(max(e + size if e < 0 else e, lo), hi)
        length = max(0, -(-(e - b) // stride))
        # NumPy reads a begin of -1 as the last element, so an empty range is spelled 0:0.
        index.append(builtins.slice(b, e if e >= 0 else None, stride) if length else _EMPTY)
        out.append(length)
        d += 1
    while d < rank:  # an implicit trailing ellipsis
        index.append(_FULL)
        out.append(dims[d])
        d += 1
    return tuple(index), tuple(out)


def _strided_slice_kernel(x, begin, end, strides, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
                          shrink_axis_mask=0):
    if begin.ndim != 1 or begin.shape != end.shape or begin.shape != strides.shape:
        raise bad(f"Expected begin, end, and strides to be 1D equal size tensors, but got shapes "
                  f"{fmt_shape(begin.shape)}, {fmt_shape(end.shape)}, and {fmt_shape(strides.shape)} instead.")
    masks = (begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask)
    index, _ = _strided_plan(x.shape, len(begin), begin.tolist(), end.tolist(), strides.tolist(), masks, False)
    return x[index]


def _strided_slice_infer(inputs, attrs):
    x, begin, end, strides = inputs
    dims = x.shape._dims
    if dims is None:
        return [(x.dtype, _UNKNOWN)]
    masks = tuple(attrs.get(m, 0) for m in _MASKS)
    values = [value_dims(t) for t in (begin, end, strides)]
    n = next((len(v) for v in values if v is not None), begin.shape[0] if begin.shape.rank == 1 else None)
    if n is None:
        return [(x.dtype, _UNKNOWN)]
    if any(v is not None and len(v) != n for v in values):
        raise ValueError("Expected begin, end, and strides to be 1D equal size tensors")
    _, out = _strided_plan(dims, n, *values, masks, True)
    return [(x.dtype, TensorShape(out))]


def _strided_slice_grad(op, grad):
    x, begin, end, strides = op.inputs
    dims = shape_of(x)
    if isinstance(dims, list):
        dims = constant(np.array(dims, dtype=begin.dtype._np))
    else:
        dims = shape(x, out_type=begin.dtype)
    return [apply(STRIDED_SLICE_GRAD, (dims, begin, end, strides, grad), op.attrs, "StridedSliceGrad"),
            None, None, None]


STRIDED_SLICE = OpDef("StridedSlice", _strided_slice_infer, _strided_slice_kernel, grad=_strided_slice_grad,
                      input_names=("input", "begin", "end", "strides"))


def _strided_slice_grad_kernel(shape, begin, end, strides, dy, begin_mask=0, end_mask=0, ellipsis_mask=0,
                               new_axis_mask=0, shrink_axis_mask=0):
    """Zeros of `shape` with `dy` written where StridedSlice took its elements."""
    dims = tuple(int(d) for d in np.reshape(shape, -1))
    masks = (begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask)
    index, _ = _strided_plan(dims, len(begin), begin.tolist(), end.tolist(), strides.tolist(), masks, False)
    out = np.zeros(dims, dtype=dy.dtype)
    out[index] = dy
    return out


def _strided_slice_grad_infer(inputs, attrs):
    shape_t, dy = inputs[0], inputs[4]
    dims = value_dims(shape_t)
    return [(dy.dtype, unknown_vector_dims(shape_t) if dims is None else TensorShape(dims))]


def _strided_slice_grad_grad(op, grad):
    _, begin, end, strides, _ = op.inputs
    return [None, None, None, None, apply(STRIDED_SLICE, (grad, begin, end, strides), op.attrs, "StridedSlice")]


STRIDED_SLICE_GRAD = OpDef("StridedSliceGrad", _strided_slice_grad_infer, _strided_slice_grad_kernel,
                           grad=_strided_slice_grad_grad, input_names=("shape", "begin", "end", "strides", "dy"))


def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
                  shrink_axis_mask=0, var=None, name=None):
    """`tf.strided_slice`: a NumPy-style strided slice described by begin/end/strides and bit masks."""
    input_ = convert_to_tensor(input_)
    begin = index_input(begin, "Index", "StridedSlice", "begin")
    end = index_input(end, "Index", "StridedSlice", "end")
    if strides is None:
        strides = _index_constant(np.ones(np.shape(begin._value) if isinstance(begin, EagerTensor)
                                          else (begin.shape[0],), dtype=begin.dtype._np))
    else:
        strides = index_input(strides, "Index", "StridedSlice", "strides")
    attrs = {"begin_mask": int(begin_mask), "end_mask": int(end_mask), "ellipsis_mask": int(ellipsis_mask),
             "new_axis_mask": int(new_axis_mask), "shrink_axis_mask": int(shrink_axis_mask)}
    return apply(STRIDED_SLICE, (input_, begin, end, strides), attrs, name or "StridedSlice")


def _index_constant(arr):
    if _state.graph is None:
        return EagerTensor(arr)
    return constant(arr, name="stack")


_INVALID_INDEX = ("Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar tf.int32/tf.int64 "
                  "tensors are valid indices, got {!r}")


def _check_index(idx):
    """Accepts what TensorFlow accepts as one index: an int or a scalar int32/int64 tensor."""
    if isinstance(idx, (numbers.Integral, Dimension)):
        return
    if isinstance(idx, Tensor) and idx.dtype in (_dt.int32, _dt.int64) and idx.shape.rank in (0, None):
        return
    raise TypeError(_INVALID_INDEX.format(idx))


def _as_index_value(v):
    return v.value if isinstance(v, Dimension) else v


def _getitem(tensor, slice_spec):
    """`tensor[slice_spec]` with TensorFlow's semantics, as one StridedSlice op."""
    if isinstance(slice_spec, Tensor) and slice_spec.dtype is _dt.bool:
        return boolean_mask(tensor, slice_spec)
    if not isinstance(slice_spec, (list, tuple)):
        slice_spec = (slice_spec,)
    begin, end, strides = [], [], []
    begin_mask = end_mask = ellipsis_mask = new_axis_mask = shrink_mask = 0
    for i, s in enumerate(slice_spec):
        bit = 1 << i
        if type(s) is builtins.slice:
            start, stop, step = s.start, s.stop, s.step
            if start is None:
                begin_mask |= bit
                start = 0
            else:
                _check_index(start)
            if stop is None:
                end_mask |= bit
                stop = 0
            else:
                _check_index(stop)
            if step is None:
                step = 1
            else:
                _check_index(step)
            begin.append(_as_index_value(start))
            end.append(_as_index_value(stop))
            strides.append(_as_index_value(step))
        elif s is Ellipsis:
            ellipsis_mask |= bit
            begin.append(0)
            end.append(0)
            strides.append(1)
        elif s is None:
            new_axis_mask |= bit
            begin.append(0)
            end.append(0)
            strides.append(1)
        else:
            _check_index(s)
            if isinstance(s, (bool, np.bool_)):
                raise errors.eager_error(
                    errors.InvalidArgumentError, "Value for attr 'Index' of bool is not in the list of allowed "
                    "values: int16, int32, int64\n\t; NodeDef: {{node StridedSlice}}", "StridedSlice")
            s = _as_index_value(s)
            shrink_mask |= bit
            begin.append(s)
            end.append(s + 1)  # a tensor index makes an `add` node, as in TensorFlow
            strides.append(1)
    if not isinstance(tensor, Tensor):
        tensor = convert_to_tensor(tensor)
    attrs = {"begin_mask": begin_mask, "end_mask": end_mask, "ellipsis_mask": ellipsis_mask,
             "new_axis_mask": new_axis_mask, "shrink_axis_mask": shrink_mask}
    graph = _state.graph
    if graph is None:
        return apply(STRIDED_SLICE, (tensor, _pack_indices(begin), _pack_indices(end), _pack_indices(strides)),
                     attrs, "strided_slice")
    # TensorFlow packs begin/end/strides inside the `strided_slice` name scope (`strided_slice/stack_1`), and
    # the op takes the scope's own name
    with graph.name_scope("strided_slice") as scope:
        return apply(STRIDED_SLICE, (tensor, _pack_indices(begin), _pack_indices(end), _pack_indices(strides)),
                     attrs, scope)


def _pack_indices(values):
    """begin/end/strides of an index: a constant when all are Python ints, else a packed tensor."""
    if all(type(v) is int for v in values):
        try:
            arr = np.array(values, dtype=np.int32)
        except OverflowError:  # an index past the int32 range, as TensorFlow packs it
            arr = np.array(values, dtype=np.int64)
        return EagerTensor(arr) if _state.graph is None else _index_constant(arr)
    return stack([int(v) if isinstance(v, numbers.Integral) and not isinstance(v, Tensor) else v
                  for v in values])


Tensor.__getitem__ = _getitem


API = {"": ["boolean_mask", "slice", "strided_slice"]}
