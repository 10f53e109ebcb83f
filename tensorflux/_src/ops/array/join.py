"""Joining and splitting: concat (ConcatV2), stack (Pack), unstack (Unpack) and split (Split, SplitV).
Unstack and split return NumPy views of their input.

Each op is one OpDef (TensorFlow's op type name, static inference, vectorised NumPy kernel) plus its
public function with TensorFlow's signature. Things TensorFlow takes as tensors that users compute are
op inputs whose values inference reads with `constant_value`; static configuration are attrs.
"""
import numpy as np

from ...framework import errors
from ...framework.context import state as _state
from ...framework.tensor import Tensor
from ...types.shape import Dimension, TensorShape
from ..convert import convert_to_tensor
from ..conversion_ops import PACK, UNPACK
from ..registry import OpDef, apply
from ..shapes.common import (_UNKNOWN, _eager_const, _holds_tensor, _normalize_dim, bad, convert_same, fmt_shape,
    index_input, static_int, value_dims)
from ..shapes.shape_ops import identity, shape




# ---------------------------------------------------------------------------------------------------
# Joining and splitting: concat, stack, unstack, split
# ---------------------------------------------------------------------------------------------------

def _concat_problem(shapes, axis):
    rank = len(shapes[0])
    if rank == 0:
        return "ConcatOp : Can't concatenate scalars (use tf.stack instead)"
    for i, s in enumerate(shapes[1:], 1):
        if len(s) != rank:
            return (f"ConcatOp : Ranks of all input tensors should match: shape[0] = {fmt_shape(shapes[0])} vs. "
                    f"shape[{i}] = {fmt_shape(s)}")
    if not -rank <= axis < rank:
        return f"ConcatOp : Expected concatenating dimensions in the range [{-rank}, {rank}), but got {axis}"
    a = axis % rank
    for i, s in enumerate(shapes[1:], 1):
        for d in range(rank):
            if d != a and s[d] != shapes[0][d]:
                return (f"ConcatOp : Dimension {d} in both shapes must be equal: shape[0] = "
                        f"{fmt_shape(shapes[0])} vs. shape[{i}] = {fmt_shape(s)}")
    return None


def _concat_kernel(*arrays, axis):
    problem = _concat_problem([a.shape for a in arrays], axis)
    if problem:
        raise bad(problem)
    return np.concatenate(arrays, axis)


def _concat_infer(inputs, attrs):
    axis = attrs["axis"]
    known = [t.shape._dims for t in inputs if t.shape._dims is not None]
    dtype = inputs[0].dtype
    if not known:
        return [(dtype, _UNKNOWN)]
    rank = len(known[0])
    if rank == 0:
        raise ValueError("Can't concatenate scalars (use tf.stack instead)")
    a = _normalize_dim(axis, rank, f"Expected concatenating dimensions in the range [{-rank}, {rank}), "
                                   f"but got {axis}")
    out = list(known[0])
    out[a] = 0
    for dims in (t.shape._dims for t in inputs):
        if dims is None:
            out[a] = None
            continue
        if len(dims) != rank:
            raise ValueError(f"Shape must be rank {rank} but is rank {len(dims)}")
        for d in range(rank):
            if d == a:
                out[a] = None if out[a] is None or dims[d] is None else out[a] + dims[d]
            elif out[d] is None:
                out[d] = dims[d]
            elif dims[d] is not None and dims[d] != out[d]:
                raise ValueError(f"Dimension {d} in both shapes must be equal, but are {out[d]} and {dims[d]}. "
                                 f"Shapes are {fmt_shape(out)} and {fmt_shape(dims)}.")
    return [(dtype, TensorShape(tuple(out)))]


def _concat_grad(op, grad):
    """Each input's gradient is its own piece of `grad` along the concat axis."""
    inputs = op.inputs
    rank = next((t.shape.rank for t in inputs if t.shape.rank is not None), grad.shape.rank)
    axis = op.attrs["axis"]
    if rank is None:
        if axis < 0:
            raise ValueError("The gradient of concat along a negative axis needs inputs of known rank.")
    else:
        axis %= rank
    sizes = [t.shape[axis] if t.shape.rank is not None else None for t in inputs]
    if None in sizes:
        sizes = stack([shape(t)[axis] for t in inputs])
    else:
        sizes = _eager_const(np.array(sizes, dtype=np.int32), "concat_sizes")
    return list(apply(SPLIT_V, (grad, sizes), {"num_split": len(inputs), "axis": axis}, "split"))


CONCAT = OpDef("ConcatV2", _concat_infer, _concat_kernel, grad=_concat_grad, same_dtype=True,
               input_names=("values",), list_input="values")


def concat(values, axis, name="concat"):
    """`tf.concat`: joins tensors along an existing dimension."""
    if not isinstance(values, (list, tuple)):
        values = [values]
    if not values:
        raise ValueError("List argument 'values' to 'ConcatV2' Op with length 0 shorter than minimum length 2.")
    values = convert_same(values)
    if type(axis) is not int:
        axis = static_int(axis, "axis", "Tidx", "ConcatV2")
    if len(values) == 1:  # TensorFlow skips the op for a single tensor
        return identity(values[0], name=name)
    return apply(CONCAT, tuple(values), {"axis": axis}, name)





def stack(values, axis=0, name="stack"):
    """`tf.stack`: joins same-shaped tensors along a new dimension `axis`."""
    if isinstance(values, Tensor):
        values = list(values)
    if type(axis) is not int:
        axis = static_int(axis, "axis")
    if axis == 0 and (not _holds_tensor(values) or _state.graph is not None):
        # a list of plain values is just a constant, as in TensorFlow; in a graph, a list holding tensors
        # is autopacked as TensorFlow does (its constants named `stack/0`), the Pack op below if that fails
        try:
            return convert_to_tensor(values, name=name)
        except (TypeError, ValueError):
            pass
    values = convert_same(values)
    rank = values[0].shape.rank
    if rank is not None and not -rank - 1 <= axis < rank + 1:
        raise ValueError(f"Argument `axis` = {axis} not in range [{-rank - 1}, {rank + 1})")
    return apply(PACK, tuple(values), {"axis": axis}, name)




def unstack(value, num=None, axis=0, name="unstack"):
    """`tf.unstack`: the list of slices of `value` along `axis`."""
    value = convert_to_tensor(value)
    axis = static_int(axis, "axis", is_attr=True)
    rank = value.shape.rank
    if rank is not None:
        if not -rank <= axis < rank:
            raise ValueError(f"Argument `axis` = {axis} not in range [{-rank}, {rank})")
        if num is None:
            num = value.shape[axis]
    if num is None:
        raise ValueError(f"Cannot infer argument `num` from shape {value.shape}")
    return list(apply(UNPACK, (value,), {"num": static_int(num, "num"), "axis": axis}, name))


def _split_problem(rank, axis):
    if not -rank <= axis < rank:
        return f"-input rank(-{rank}) <= split_dim < input rank ({rank}), but got {axis}"
    return None


def _split_kernel(x, num_split, axis):
    problem = _split_problem(x.ndim, axis)
    if problem:
        raise bad(problem)
    n = x.shape[axis]
    if n % num_split:
        raise bad(f"Number of ways to split should evenly divide the split dimension, but got split_dim "
                  f"{axis % x.ndim} (size = {n}) and num_split {num_split}")
    return tuple(np.split(x, num_split, axis))


def _split_sizes(sizes, total, static):
    """Resolves one -1 in `sizes` against `total` (None when unknown)."""
    def fail(msg):
        return ValueError(msg) if static else bad(msg)
    sizes = list(sizes)
    holes = [i for i, s in enumerate(sizes) if s == -1]
    if len(holes) > 1:
        raise fail("There can only be one -1 in the input.")
    known = sum(s for s in sizes if s != -1)
    if total is None:
        if holes:
            sizes[holes[0]] = None
        return sizes
    if (not holes and known != total) or (holes and known > total):
        raise fail("Determined shape must either match input shape along split_dim exactly if fully specified, "
                   f"or be less than the size of the input along split_dim if not fully specified.  Got: {known}")
    if holes:
        sizes[holes[0]] = total - known
    return sizes


def _split_v_kernel(x, size_splits, num_split, axis):
    problem = _split_problem(x.ndim, axis)
    if problem:
        raise bad(problem)
    sizes = _split_sizes(size_splits.tolist(), x.shape[axis], False)
    return tuple(np.split(x, np.cumsum(sizes[:-1]), axis))


def _split_infer(inputs, attrs):
    x = inputs[0]
    num, axis = attrs["num_split"], attrs["axis"]
    dims = x.shape._dims
    if dims is None:
        return [(x.dtype, _UNKNOWN)] * num
    problem = _split_problem(len(dims), axis)
    if problem:
        raise ValueError(problem)
    a = axis % len(dims)
    if len(inputs) == 2:
        requested = value_dims(inputs[1])
        sizes = [None] * num if requested is None else _split_sizes(requested, dims[a], True)
    else:
        if dims[a] is not None and dims[a] % num:
            raise ValueError(f"Dimension size must be evenly divisible by {num} but is {dims[a]}")
        sizes = [None if dims[a] is None else dims[a] // num] * num
    return [(x.dtype, TensorShape(dims[:a] + (s,) + dims[a + 1:])) for s in sizes]


def _split_grad(op, *grads):
    joined = apply(CONCAT, tuple(grads), {"axis": op.attrs["axis"]}, "concat") if len(grads) > 1 else grads[0]
    return [joined] + [None] * (len(op.inputs) - 1)


SPLIT = OpDef("Split", _split_infer, _split_kernel, grad=_split_grad, multi=True, input_names=("value",))
SPLIT_V = OpDef("SplitV", _split_infer, _split_v_kernel, grad=_split_grad, multi=True,
                input_names=("value", "size_splits"))


def _min_attr_error(op_name, attr, value, minimum):
    msg = f"Value for attr '{attr}' of {value} must be at least minimum {minimum}\n\t; NodeDef: {{{{node {op_name}}}}}"
    if _state.graph is not None:
        return ValueError(msg)
    return errors.eager_error(errors.InvalidArgumentError, msg, op_name)


def split(value, num_or_size_splits, axis=0, num=None, name="split"):
    """`tf.split`: `num_or_size_splits` equal pieces, or pieces of the listed sizes (one may be -1)."""
    value = convert_to_tensor(value)
    axis = static_int(axis, "axis")
    if isinstance(num_or_size_splits, (int, np.integer, Dimension)) and not isinstance(num_or_size_splits, bool):
        count = int(num_or_size_splits)
        if count < 1:
            raise _min_attr_error("Split", "num_split", count, 1)
        return list(apply(SPLIT, (value,), {"num_split": count, "axis": axis}, name))
    sizes = index_input(num_or_size_splits, "Tlen", "SplitV", "size_splits")
    count = num
    if count is None:
        if sizes.shape.rank != 1 or sizes.shape[0] is None:
            raise ValueError(f"Cannot infer argument `num` from shape {sizes.shape}")
        count = sizes.shape[0]
    if count < 1:
        raise _min_attr_error("SplitV", "num_split", count, 1)
    return list(apply(SPLIT_V, (value, sizes), {"num_split": count, "axis": axis}, name))


API = {"": ["concat", "stack", "unstack", "split"]}
