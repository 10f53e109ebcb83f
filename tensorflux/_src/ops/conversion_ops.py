"""The ops `convert_to_tensor` builds graphs with: Pack and Unpack (a list holding tensors converts to their
stack) and Cast (its elements cast to the requested dtype).

They sit in the ops core, below every family, so that conversion can use them directly; `tf.stack`,
`tf.unstack` (array/join.py) and `tf.cast` (math/arith.py) are their public functions. This module
imports no op family and not `convert` itself: its functions take tensors.
"""
import numpy as np

from ..framework import errors
from ..types import dtypes as _dt
from ..types.shape import TensorShape
from .registry import COMPLEX, FLOAT, OpDef, apply, dtype_error_name

__all__ = ["PACK", "UNPACK", "CAST", "pack", "cast_tensor"]

_UNKNOWN = TensorShape(None)
_QUIET = dict(all="ignore")  # TensorFlow computes inf/nan silently where NumPy would warn


def _invalid(message):
    """The InvalidArgumentError a kernel raises (the registry appends ` [Op:Name]`)."""
    return errors.InvalidArgumentError(None, None, message)


def _dims_text(dims):
    """A shape as TensorFlow's kernels print it: `[2,3]`."""
    return "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"


def _normalized_axis(axis, rank, message):
    if not -rank <= axis < rank:
        raise ValueError(message)
    return axis % rank


def _error_name(np_dtype):
    return dtype_error_name(_dt.FROM_NUMPY[np_dtype])


# -- Pack / Unpack ---------------------------------------------------------------------------------------
def _pack_kernel(*arrays, axis):
    first = arrays[0].shape
    for i, a in enumerate(arrays[1:], 1):
        if a.shape != first:
            raise _invalid(f"Shapes of all inputs must match: values[0].shape = {_dims_text(first)} != "
                      f"values[{i}].shape = {_dims_text(a.shape)}")
    rank = len(first) + 1
    if not -rank <= axis < rank:
        raise _invalid(f"axis = {axis} not in [{-rank}, {rank})")
    return np.stack(arrays, axis)


def _pack_infer(inputs, attrs):
    axis = attrs["axis"]
    merged = _UNKNOWN
    for i, t in enumerate(inputs):
        s = t.shape
        if merged._dims is not None and s._dims is not None and len(s._dims) != len(merged._dims):
            raise ValueError(f"Shapes must be equal rank, but are {len(merged._dims)} and {len(s._dims)}")
        if not merged.is_compatible_with(s):
            raise ValueError(f"Shapes of all inputs must match: values[0].shape = {_dims_text(merged._dims)} != "
                             f"values[{i}].shape = {_dims_text(s._dims)}")
        merged = merged.merge_with(s)
    if merged._dims is None:
        return [(inputs[0].dtype, _UNKNOWN)]
    rank = len(merged._dims) + 1
    a = _normalized_axis(axis, rank, f"Argument `axis` = {axis} not in range [{-rank}, {rank})")
    dims = merged._dims
    return [(inputs[0].dtype, TensorShape(dims[:a] + (len(inputs),) + dims[a:]))]


def _pack_grad(op, grad):
    return list(apply(UNPACK, (grad,), {"num": len(op.inputs), "axis": op.attrs["axis"]}, "unstack"))


PACK = OpDef("Pack", _pack_infer, _pack_kernel, grad=_pack_grad, same_dtype=True, input_names=("values",),
             list_input="values")


def _unpack_kernel(x, num, axis):
    if x.shape[axis] != num:
        raise _invalid(f"Input shape axis {axis % x.ndim} must equal {num}, got shape {_dims_text(x.shape)}")
    moved = np.moveaxis(x, axis, 0)
    return tuple(moved[i] for i in range(num))


def _unpack_infer(inputs, attrs):
    x = inputs[0]
    num, axis = attrs["num"], attrs["axis"]
    dims = x.shape._dims
    if dims is None:
        return [(x.dtype, _UNKNOWN)] * num
    a = _normalized_axis(axis, len(dims), f"Argument `axis` = {axis} not in range [{-len(dims)}, {len(dims)})")
    if dims[a] is not None and dims[a] != num:
        raise ValueError(f"Dimension must be {num} but is {dims[a]}")
    out = TensorShape(dims[:a] + dims[a + 1:])
    return [(x.dtype, out)] * num


def _unpack_grad(op, *grads):
    return [apply(PACK, tuple(grads), {"axis": op.attrs["axis"]}, "stack")]


UNPACK = OpDef("Unpack", _unpack_infer, _unpack_kernel, grad=_unpack_grad, multi=True, input_names=("value",))


# -- Cast --------------------------------------------------------------------------------------------
# How a float that does not fit becomes an integer, per target (x86 conversion, as TensorFlow does it):
# (lowest convertible value, first value past the range, what everything outside becomes).
_FLOAT_TO_INT_RANGE = {
    np.dtype(np.int64): (-2.0 ** 63, 2.0 ** 63, -2 ** 63),
    np.dtype(np.uint64): (-2.0 ** 63, 2.0 ** 64, 2 ** 63),
    np.dtype(np.uint32): (-2.0 ** 31, 2.0 ** 32, 2 ** 31),
}
_INT32_RANGE = (-2.0 ** 31, 2.0 ** 31, -2 ** 31)  # int8/16/32, uint8/16: through int32, then wrapped


def _float_to_int(x, target):
    low, high, outside = _FLOAT_TO_INT_RANGE.get(target, _INT32_RANGE)
    t = np.trunc(np.asarray(x, dtype=np.float64))
    inside = (t >= low) & (t < high)  # False for NaN
    t = np.where(inside, t, float(outside))
    if target == np.uint64:
        upper = t >= 2.0 ** 63
        low_part = np.where(upper, t - 2.0 ** 63, t).astype(np.int64).astype(np.uint64)
        return np.where(upper, low_part + np.uint64(2 ** 63), low_part)
    return t.astype(np.int64).astype(target)


def _cast_kernel(x, DstT):
    src = x.dtype
    if src.kind == "O" or DstT.kind == "O":
        raise errors.UnimplementedError(
            None, None, f"Cast {_error_name(src)} to {_error_name(DstT)} is not supported")
    if src.kind in "iub" and DstT.kind == "f" and DstT.itemsize >= 4:
        # exact or rounded, never overflowing: no floating-point error to quiet (a third of a small cast)
        return np.asarray(x).astype(DstT) if x.ndim else x.astype(DstT)
    with np.errstate(**_QUIET):
        if src.kind == "c" and DstT.kind != "c":
            x = np.real(x)  # TensorFlow keeps only the real part (also when casting to bool)
            src = x.dtype
        if DstT.kind == "b":
            return np.not_equal(x, 0)
        if DstT.kind in "iu" and src.kind not in "iub":
            return _float_to_int(x, DstT)
        return np.asarray(x).astype(DstT) if x.ndim else x.astype(DstT)


def _infer_cast(inputs, attrs):
    return [(_dt.FROM_NUMPY[attrs["DstT"]], inputs[0].shape)]


_CAST_GRAD_TYPES = frozenset(FLOAT + COMPLEX)


def _cast_grad(op, grad):
    # Only float/complex → float/complex casts carry a gradient (cast back); integer sides cut it.
    source = op.inputs[0].dtype
    if source in _CAST_GRAD_TYPES and op.outputs[0].dtype in _CAST_GRAD_TYPES:
        return [cast_tensor(grad, source)]
    return [None]


CAST = OpDef("Cast", _infer_cast, _cast_kernel, grad=_cast_grad)


def pack(tensors, axis=0, name="stack"):
    """The Pack op of `tensors` (tensors of one dtype and shape) along a new dimension `axis`."""
    return apply(PACK, tuple(tensors), {"axis": axis}, name)


def cast_tensor(x, dtype, name=None):
    """The Cast op of the tensor `x` to `dtype` (a DType); `x` itself when it already has that dtype."""
    if x.dtype is dtype:
        return x
    return apply(CAST, (x,), {"DstT": dtype._np}, name or "Cast")
