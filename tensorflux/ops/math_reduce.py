"""Reductions and scans: `tf.reduce_sum/mean/max/min/prod/any/all/logsumexp`, `argmax`/`argmin`, `cumsum`,
`count_nonzero`.

The reduction axes are a static attr (`axis`: None or a tuple of ints; a tensor argument must have a
known value). Results keep the input dtype exactly as TensorFlow does: integer sums wrap, integer means
divide with truncation, and float16/bfloat16 accumulate in float32 before rounding back.
"""
import numpy as np

from ..framework import errors
from ..framework.tensor import Tensor
from ..types import dtypes as _dt
from ..types.shape import TensorShape
from .convert import convert_to_tensor
from .infer import infer_reduce
from .registry import OpDef, apply, constant_value, dtype_error_name, REAL, NUMBER
from . import array as _array
from . import creation as _creation
from . import math as _math

_BOOL = np.dtype(np.bool_)
_NARROW_FLOATS = (np.dtype(np.float16), _dt.bfloat16._np)


_add_reduce = np.add.reduce


def _accumulator(dtype):
    return np.float32 if dtype in _NARROW_FLOATS else dtype


def _reduction_axes(x, axis):
    """`axis` checked against x's rank and made non-negative, with TensorFlow's run-time messages."""
    if axis is None:
        return None
    rank = x.ndim
    seen = []
    for a in axis:
        if not -rank <= a < rank:
            raise errors.InvalidArgumentError(
                None, None, f"Invalid reduction dimension ({a} for input with {rank} dimension(s)")
        a %= rank
        if a in seen:
            raise errors.InvalidArgumentError(
                None, None, f"Invalid reduction arguments: Axes contains duplicate dimension: {a}")
        seen.append(a)
    return tuple(seen)


def _sum_kernel(x, axis=None, keepdims=False):
    if x.dtype in _NARROW_FLOATS:  # half precision accumulates in float32, as TensorFlow's kernels do
        return np.sum(x, axis=_reduction_axes(x, axis), keepdims=keepdims, dtype=np.float32).astype(x.dtype)
    # np.add.reduce is np.sum without its Python-level dispatch (this kernel runs in every loop iteration)
    return _add_reduce(x, _reduction_axes(x, axis), x.dtype, None, keepdims)


def _prod_kernel(x, axis=None, keepdims=False):
    axes = _reduction_axes(x, axis)
    return np.prod(x, axis=axes, keepdims=keepdims, dtype=_accumulator(x.dtype)).astype(x.dtype, copy=False)


def _mean_kernel(x, axis=None, keepdims=False):
    axes = _reduction_axes(x, axis)
    count = x.size if axes is None else int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    if x.dtype.kind in "iu":
        total = np.sum(x, axis=axes, keepdims=keepdims, dtype=x.dtype)
        if count == 0:
            return np.zeros_like(total)
        quotient = total // count
        # C++ integer division truncates toward zero; NumPy's floors.
        return (quotient + ((quotient * count != total) & (total < 0))).astype(x.dtype, copy=False)
    if count == 0:  # 0/0, without NumPy's "Mean of empty slice" warning
        return np.full_like(np.sum(x, axis=axes, keepdims=keepdims, dtype=x.dtype), np.nan)
    with np.errstate(all="ignore"):
        return np.mean(x, axis=axes, keepdims=keepdims, dtype=_accumulator(x.dtype)).astype(x.dtype, copy=False)


def _extreme_kernel(fn, identity_of):
    def kernel(x, axis=None, keepdims=False):
        axes = _reduction_axes(x, axis)
        if x.size == 0:  # TensorFlow reduces empty tensors to the reduction's identity
            return fn(x, axis=axes, keepdims=keepdims, initial=identity_of(x.dtype))
        return fn(x, axis=axes, keepdims=keepdims)
    return kernel


def _lowest(dtype):
    return -np.inf if dtype.kind == "f" or dtype == _dt.bfloat16._np else np.iinfo(dtype).min


def _highest(dtype):
    return np.inf if dtype.kind == "f" or dtype == _dt.bfloat16._np else np.iinfo(dtype).max


def _logical_reduce_kernel(op_name, fn):
    def kernel(x, axis=None, keepdims=False):
        if x.dtype != _BOOL:
            raise errors.InvalidArgumentError(
                None, None, f"cannot compute {op_name} as input #0(zero-based) was expected to be a bool tensor "
                            f"but is a {dtype_error_name(_dt.FROM_NUMPY[x.dtype])} tensor")
        return fn(x, axis=_reduction_axes(x, axis), keepdims=keepdims)
    return kernel


# -- gradients of reductions ----------------------------------------------------------------------
# A reduction's gradient is the output gradient laid back over the reduced axes: reshaped to the
# "kept" shape (reduced axes as size 1) and broadcast to the input's shape. Shapes are decided while
# building the gradient when they are static, and computed by shape ops otherwise.

def _kept_shape(x, axis):
    """x's shape with the reduced axes set to 1: a list when static, else an int32 tensor."""
    dims = x.shape._dims
    if dims is not None:
        rank = len(dims)
        reduced = set(range(rank)) if axis is None else {a % rank for a in axis}
        if x.shape.is_fully_defined():
            return [1 if i in reduced else int(d) for i, d in enumerate(dims)]
        reduced_mask = convert_to_tensor([int(i in reduced) for i in range(rank)], dtype=_dt.int32)
    elif axis is None:
        return _creation.ones_like(_array.shape(x))
    else:  # unknown rank: a position is reduced when it equals some (wrapped) axis
        rank = _array.rank(x)
        axes = _math.floormod(convert_to_tensor(list(axis), dtype=_dt.int32), rank)
        positions = _creation.range(rank)
        hits = _math.equal(_array.expand_dims(positions, 1), _array.expand_dims(axes, 0))
        reduced_mask = _math.cast(reduce_any(hits, axis=1), _dt.int32)
    # shape where kept, 1 where reduced, without a select: shape * (1 - mask) + mask
    return _math.add(_math.multiply(_array.shape(x), _math.subtract(1, reduced_mask)), reduced_mask)


def _static_shape_or_tensor(x):
    return x.shape.as_list() if x.shape.is_fully_defined() else _array.shape(x)


def _kept(op, t):
    """`t` (output-shaped) reshaped so it broadcasts against the input: reduced axes become size 1."""
    if op.attrs.get("keepdims"):
        return t
    return _array.reshape(t, _kept_shape(op.inputs[0], op.attrs.get("axis")))


def _spread(op, kept_grad):
    x = op.inputs[0]
    if x.shape.is_fully_defined() and kept_grad.shape == x.shape:
        return kept_grad
    return _array.broadcast_to(kept_grad, _static_shape_or_tensor(x))


def _sum_grad(op, grad):
    return [_spread(op, _kept(op, grad))]


def _reduced_count(op):
    """How many input elements fed each output element, as a tensor of the gradient's dtype."""
    x, y = op.inputs[0], op.outputs[0]
    if x.shape.is_fully_defined():
        dims = x.shape.as_list()
        axis = op.attrs.get("axis")
        count = int(np.prod(dims if axis is None else [dims[a % len(dims)] for a in axis], dtype=np.int64))
        return convert_to_tensor(np.asarray(count, dtype=y.dtype._np))
    count = _math.floordiv(_array.size(x), _math.maximum(_array.size(y), 1))
    return _math.cast(count, y.dtype)


def _mean_grad(op, grad):
    return [_spread(op, _math.realdiv(_kept(op, grad), _reduced_count(op)))]


def _prod_grad(op, grad):
    # d prod / d x_i is the product of the other elements. Dividing the product by x_i is wrong when
    # zeros are present, so count them: with no zero it is prod / x_i; with exactly one zero only
    # that element gets the product of the rest; with two or more every element gets 0.
    x = op.inputs[0]
    axis = op.attrs.get("axis")
    is_zero = _math.equal(x, 0)
    safe_x = _math.add(x, _math.cast(is_zero, x.dtype))  # zeros replaced by ones
    nonzero_product = reduce_prod(safe_x, axis, keepdims=True)
    zero_count = reduce_sum(_math.cast(is_zero, _dt.int32), axis, keepdims=True)
    only_zero = _math.logical_and(is_zero, _math.equal(zero_count, 1))
    # MulNoNan selects: a masked-out inf or NaN (an overflowed product) still becomes exactly 0.
    others = _math.add(_math.multiply_no_nan(_math.realdiv(nonzero_product, safe_x),
                                             _math.cast(_math.equal(zero_count, 0), x.dtype)),
                       _math.multiply_no_nan(nonzero_product, _math.cast(only_zero, x.dtype)))
    return [_math.multiply(_math.conj(others), _kept(op, grad))]


def _extreme_grad(op, grad):
    # The gradient is shared equally among all elements equal to the extreme (ties split, as in TF).
    x = op.inputs[0]
    chosen = _math.cast(_math.equal(x, _kept(op, op.outputs[0])), grad.dtype)
    count = reduce_sum(chosen, op.attrs.get("axis"), keepdims=True)
    return [_math.multiply(_math.realdiv(chosen, count), _kept(op, grad))]


_SUMMABLE = NUMBER
_ORDERED = REAL
SUM = OpDef("Sum", infer_reduce, _sum_kernel, allowed=_SUMMABLE, input_names=("input",), grad=_sum_grad)
MEAN = OpDef("Mean", infer_reduce, _mean_kernel, allowed=_SUMMABLE, input_names=("input",), grad=_mean_grad)
PROD = OpDef("Prod", infer_reduce, _prod_kernel, allowed=_SUMMABLE, input_names=("input",), grad=_prod_grad)
MAX = OpDef("Max", infer_reduce, _extreme_kernel(np.max, _lowest), allowed=_ORDERED, input_names=("input",),
            grad=_extreme_grad)
MIN = OpDef("Min", infer_reduce, _extreme_kernel(np.min, _highest), allowed=_ORDERED, input_names=("input",),
            grad=_extreme_grad)
ANY = OpDef("Any", infer_reduce, _logical_reduce_kernel("Any", np.any), input_names=("input",))
ALL = OpDef("All", infer_reduce, _logical_reduce_kernel("All", np.all), input_names=("input",))


def static_axis(axis, what="axis"):
    """A reduction `axis` argument as None or a tuple of ints (tensors must have a known value)."""
    if axis is None:
        return None
    if isinstance(axis, Tensor):
        value = constant_value(axis)
        if value is None:
            raise TypeError(f"`{what}` must be statically known (a Python int, list of ints or a constant "
                            f"tensor), got {axis!r}")
        axis = value
    if isinstance(axis, (list, tuple)) and len(axis) == 0:
        return ()
    arr = np.asarray(axis)
    if arr.dtype.kind not in "iu" or arr.ndim > 1:
        raise TypeError(f"Cannot convert {axis!r} to EagerTensor of dtype int32")
    return tuple(int(a) for a in arr.reshape(-1))


def _reduce(opdef, default_name):
    def fn(input_tensor, axis=None, keepdims=False, name=None):
        if not isinstance(input_tensor, Tensor):
            input_tensor = convert_to_tensor(input_tensor)
        attrs = {"axis": static_axis(axis), "keepdims": bool(keepdims)}
        return apply(opdef, (input_tensor,), attrs, name or default_name)
    fn.__name__ = default_name
    return fn


reduce_sum = _reduce(SUM, "Sum")
reduce_mean = _reduce(MEAN, "Mean")
reduce_prod = _reduce(PROD, "Prod")
reduce_max = _reduce(MAX, "Max")
reduce_min = _reduce(MIN, "Min")
reduce_any = _reduce(ANY, "Any")
reduce_all = _reduce(ALL, "All")


def reduce_logsumexp(input_tensor, axis=None, keepdims=False, name=None):
    """`tf.math.reduce_logsumexp`: log(sum(exp(x))) computed stably by shifting by the (finite) maximum."""
    name = name or "ReduceLogSumExp"
    if not isinstance(input_tensor, Tensor):
        input_tensor = convert_to_tensor(input_tensor)
    raw_max = reduce_max(input_tensor, axis, keepdims=True, name=f"{name}/Max")
    finite = _math.is_finite(raw_max, name=f"{name}/IsFinite")
    # Infinite maxima shift by 0 instead (TensorFlow uses a select; 0 * inf must not become NaN here).
    shift = _math.multiply_no_nan(raw_max, _math.cast(finite, raw_max.dtype, name=f"{name}/Cast"),
                                  name=f"{name}/MulNoNan")
    exps = _math.exp(_math.subtract(input_tensor, shift, name=f"{name}/Sub"), name=f"{name}/Exp")
    result = _math.log(reduce_sum(exps, axis, keepdims=keepdims, name=f"{name}/Sum"), name=f"{name}/Log")
    if not keepdims:  # drop the kept size-1 axes of the shift (a sum over size-1 axes is the value itself)
        shift = reduce_sum(shift, axis, keepdims=False, name=f"{name}/Sum_1")
    return _math.add(result, shift, name=name)


def count_nonzero(input, axis=None, keepdims=None, dtype=_dt.int64, name=None):  # noqa: A002 - TF's name
    """`tf.math.count_nonzero`: how many elements differ from zero (or from "" for strings)."""
    name = name or "count_nonzero"
    if not isinstance(input, Tensor):
        input = convert_to_tensor(input)
    zero = convert_to_tensor(np.array(b"", dtype=object) if input.dtype is _dt.string
                             else np.zeros((), input.dtype._np), name=f"{name}/zeros")
    nonzero = _math.not_equal(input, zero, name=f"{name}/NotEqual")
    counts = _math.cast(nonzero, dtype, name=f"{name}/Cast")
    return reduce_sum(counts, axis, keepdims=bool(keepdims), name=f"{name}/Sum")


# -- argmax / argmin --------------------------------------------------------------------------------

_ARG_OUTPUT_TYPES = (_dt.int16, _dt.uint16, _dt.int32, _dt.int64)


def _arg_kernel(fn, nan_as):
    def kernel(x, axis=0, output_type=np.dtype(np.int64)):
        rank = x.ndim
        if not -rank <= axis < rank:
            raise errors.InvalidArgumentError(
                None, None, f"Expected dimension in the range [{-rank}, {rank}), but got {axis}")
        if x.shape[axis] == 0:
            raise errors.InvalidArgumentError(
                None, None, f"Reduction axis {axis % rank} is empty in shape [{','.join(map(str, x.shape))}]")
        if x.dtype.kind == "f" or x.dtype == _dt.bfloat16._np:
            # TensorFlow's comparison never selects NaN; as ±inf it is chosen only when nothing beats it.
            x = np.where(np.isnan(x), nan_as, x)
        return np.asarray(fn(x, axis=axis)).astype(output_type)
    return kernel


def _infer_arg(inputs, attrs):
    x = inputs[0]
    out = _dt.FROM_NUMPY[attrs.get("output_type", np.dtype(np.int64))]
    dims = x.shape._dims
    if dims is None:
        return [(out, TensorShape(None))]
    rank = len(dims)
    axis = attrs.get("axis", 0)
    if not -rank <= axis < rank:
        raise ValueError(f"Dimension ({axis}) must be in the range [{-rank}, {rank}), where {rank} is the number "
                         f"of dimensions in the input.")
    axis %= rank
    return [(out, TensorShape(dims[:axis] + dims[axis + 1:]))]


_ARGABLE = REAL + (_dt.bool,)
ARGMAX = OpDef("ArgMax", _infer_arg, _arg_kernel(np.argmax, -np.inf), allowed=_ARGABLE, input_names=("input",))
ARGMIN = OpDef("ArgMin", _infer_arg, _arg_kernel(np.argmin, np.inf), allowed=_ARGABLE, input_names=("input",))


def _arg(opdef, default_name):
    def fn(input, axis=None, output_type=_dt.int64, name=None):  # noqa: A002 - TensorFlow's name
        if not isinstance(input, Tensor):
            input = convert_to_tensor(input)
        output_type = _dt.as_dtype(output_type)
        if output_type not in _ARG_OUTPUT_TYPES:
            allowed = ", ".join(d.name for d in _ARG_OUTPUT_TYPES)
            raise errors.InvalidArgumentError(
                None, opdef.name, f"Value for attr 'output_type' of {dtype_error_name(output_type)} is not in "
                                  f"the list of allowed values: {allowed}")
        dims = static_axis(0 if axis is None else axis)
        if len(dims) != 1:
            raise ValueError(f"`axis` must be a scalar, got {axis!r}")
        attrs = {"axis": dims[0], "output_type": output_type._np}
        return apply(opdef, (input,), attrs, name or default_name)
    fn.__name__ = default_name
    return fn


argmax = _arg(ARGMAX, "ArgMax")
argmin = _arg(ARGMIN, "ArgMin")


# -- cumsum --------------------------------------------------------------------------------------

def _cumsum_kernel(x, axis=0, exclusive=False, reverse=False):
    rank = x.ndim
    if not -rank <= axis < rank:
        raise errors.InvalidArgumentError(
            None, None, f"ScanOp: Expected scan axis in the range [{-rank}, {rank}), but got {axis}")
    axis %= rank
    acc = _accumulator(x.dtype)
    values = np.flip(x, axis) if reverse else x
    out = np.cumsum(values, axis=axis, dtype=acc)
    if exclusive:  # shift by one along the axis, starting from zero
        out = np.concatenate([np.zeros_like(np.take(out, [0], axis=axis)),
                              np.take(out, np.arange(x.shape[axis] - 1), axis=axis)], axis=axis)
    if reverse:
        out = np.flip(out, axis)
    return np.ascontiguousarray(out).astype(x.dtype, copy=False)


def _infer_same(inputs, attrs):
    return [(inputs[0].dtype, inputs[0].shape)]


def _cumsum_grad(op, grad):
    # Each input element feeds the running sums after it (before it, when reversed): sum the other way.
    return [cumsum(grad, op.attrs.get("axis", 0), exclusive=op.attrs.get("exclusive", False),
                   reverse=not op.attrs.get("reverse", False))]


CUMSUM = OpDef("Cumsum", _infer_same, _cumsum_kernel, allowed=NUMBER, input_names=("x",), grad=_cumsum_grad)


def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    """`tf.math.cumsum`: running sums along `axis` (optionally exclusive and/or from the end)."""
    if not isinstance(x, Tensor):
        x = convert_to_tensor(x)
    dims = static_axis(axis)
    if len(dims) != 1:
        raise ValueError(f"`axis` must be a scalar, got {axis!r}")
    attrs = {"axis": dims[0], "exclusive": bool(exclusive), "reverse": bool(reverse)}
    return apply(CUMSUM, (x,), attrs, name or "Cumsum")


API = {
    "": ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_any", "reduce_all",
         "reduce_logsumexp", "argmax", "argmin", "cumsum"],
    "math": ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_any",
             "reduce_all", "reduce_logsumexp", "argmax", "argmin", "cumsum", "count_nonzero"],
}
