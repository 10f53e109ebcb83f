"""Reductions and scans: `tf.reduce_sum/mean/max/min/prod/any/all/logsumexp`, `argmax`/`argmin`, `cumsum`,
`cumprod`, `cumulative_logsumexp`, `count_nonzero`, `reduce_variance/std/euclidean_norm`, `bincount`, and the
norm-based rescalings built on them (`l2_normalize`, `clip_by_norm`, `clip_by_global_norm`, `global_norm`).

The reduction axes are a static attr (`axis`: None or a tuple of ints; a tensor argument must have a
known value). Results keep the input dtype exactly as TensorFlow does: integer sums wrap, integer means
divide with truncation, and float16/bfloat16 accumulate in float32 before rounding back.
"""
import numpy as np

from ...framework import errors
from ...framework.tensor import Tensor
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..convert import convert_to_tensor
from ..infer import infer_reduce
from ..registry import OpDef, apply, constant_value, dtype_error_name, FLOAT, REAL, NUMBER
from ..shapes import shape_ops as _shape_ops
from ..shapes import shaping as _shaping
from ..shapes import creators as _creators
from . import arith as _math
from . import eigen_sum as _eigen_sum
from .summation import SUM, _NARROW_FLOATS, _reduce, _reduction_axes, reduce_sum, static_axis

_BOOL = np.dtype(np.bool_)
_FLOAT32 = np.dtype(np.float32)




def _accumulator(dtype):
    return np.float32 if dtype in _NARROW_FLOATS else dtype


def _prod_kernel(x, axis=None, keepdims=False):
    axes = _reduction_axes(x, axis)
    return np.prod(x, axis=axes, keepdims=keepdims, dtype=_accumulator(x.dtype)).astype(x.dtype, copy=False)


def _mean_kernel(x, axis=None, keepdims=False):
    axes = _reduction_axes(x, axis)
    if axes is None:
        count = x.size
    else:   # a Python product: np.prod of a list costs ~5 us, a sixth of a small float32 Mean
        count = 1
        shape = x.shape
        for a in axes:
            count *= shape[a]
    if count and x.dtype is _FLOAT32:   # TensorFlow's sum (Eigen's order of additions) divided by the count
        return _eigen_sum.reduce_mean(x, axes, keepdims, count)
    if x.dtype.kind in "iu":
        total = np.sum(x, axis=axes, keepdims=keepdims, dtype=x.dtype)
        if count == 0:
            return np.zeros_like(total)
        quotient = total // count
        # C++ integer division truncates toward zero; NumPy's floors.
        return (quotient + ((quotient * count != total) & (total < 0))).astype(x.dtype, copy=False)
    if count == 0:  # 0/0, without NumPy's "Mean of empty slice" warning
        return np.full_like(np.sum(x, axis=axes, keepdims=keepdims, dtype=x.dtype), np.nan)
    if x.dtype == _FLOAT32:     # TensorFlow's sum (Eigen's order of additions) divided by the count
        return _eigen_sum.reduce_mean(x, axes, keepdims)
    with np.errstate(all="ignore"):
        return np.mean(x, axis=axes, keepdims=keepdims, dtype=_accumulator(x.dtype)).astype(x.dtype, copy=False)


def _extreme_kernel(fn, identity_of):
    """Max/Min through the ufunc's reduce (np.max's own loop, without its ~2 µs of Python wrapping)."""
    def kernel(x, axis=None, keepdims=False):
        axes = _reduction_axes(x, axis)
        if x.size == 0:  # TensorFlow reduces empty tensors to the reduction's identity
            return fn(x, axis=axes, keepdims=keepdims, initial=identity_of(x.dtype))
        result = fn(x, axis=axes, keepdims=keepdims)
        if x.dtype.kind == "f" and (result == 0 if result.ndim == 0 else np.count_nonzero(result) != result.size):
            result = _last_zero_sign(x, axes, result)
        return result
    return kernel


def _last_zero_sign(x, axes, result):
    """A max/min that is zero takes the sign of the last zero it reduced, as TensorFlow's reductions keep
    the last of tied values (TF 2.21 on CPU: every all-zero array of 1 to 100003 elements, along any axis;
    with other values around, its 8-lane accumulation can pick another zero of arrays of 16 or more).
    NumPy's own sign is its SIMD blocks' order; the compiled kernels keep the last tie too."""
    axes = tuple(range(x.ndim)) if axes is None else tuple(np.atleast_1d(axes) % max(x.ndim, 1))
    kept = [d for d in range(x.ndim) if d not in axes]
    if not kept:   # a total: one zero result
        flat = x.reshape(-1)
        last = flat[flat.size - 1 - int(np.argmax(flat[::-1] == 0))]
        return np.full(np.shape(result), last, x.dtype) if np.ndim(result) else last
    rows = np.transpose(x, kept + list(axes)).reshape([x.shape[d] for d in kept] + [-1])
    last = rows.shape[-1] - 1 - np.argmax(rows[..., ::-1] == 0, axis=-1)
    negative = np.signbit(np.take_along_axis(rows, last[..., None], axis=-1)[..., 0])
    shape = np.shape(result)
    fixed = np.where(np.reshape(result, negative.shape) == 0, np.where(negative, -0.0, 0.0).astype(x.dtype),
                     np.reshape(result, negative.shape))
    return fixed.reshape(shape) if shape else x.dtype.type(fixed)


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
        return _creators.ones_like(_shape_ops.shape(x))
    else:  # unknown rank: a position is reduced when it equals some (wrapped) axis
        rank = _shape_ops.rank(x)
        axes = _math.floormod(convert_to_tensor(list(axis), dtype=_dt.int32), rank)
        positions = _creators.range(rank)
        hits = _math.equal(_shaping.expand_dims(positions, 1), _shaping.expand_dims(axes, 0))
        reduced_mask = _math.cast(reduce_any(hits, axis=1), _dt.int32)
    # shape where kept, 1 where reduced, without a select: shape * (1 - mask) + mask
    return _math.add(_math.multiply(_shape_ops.shape(x), _math.subtract(1, reduced_mask)), reduced_mask)


def _static_shape_or_tensor(x):
    return x.shape.as_list() if x.shape.is_fully_defined() else _shape_ops.shape(x)


def _kept(op, t):
    """`t` (output-shaped) reshaped so it broadcasts against the input: reduced axes become size 1."""
    if op.attrs.get("keepdims"):
        return t
    return _shaping.reshape(t, _kept_shape(op.inputs[0], op.attrs.get("axis")))


def _spread(op, kept_grad):
    x = op.inputs[0]
    if x.shape.is_fully_defined() and kept_grad.shape == x.shape:
        return kept_grad
    return _shaping.broadcast_to(kept_grad, _static_shape_or_tensor(x))


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
    count = _math.floordiv(_shape_ops.size(x), _math.maximum(_shape_ops.size(y), 1))
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


SUM.grad = _sum_grad  # Sum lives in summation.py, below arith; its gradient needs arith
_SUMMABLE = NUMBER
_ORDERED = REAL
MEAN = OpDef("Mean", infer_reduce, _mean_kernel, allowed=_SUMMABLE, input_names=("input",), grad=_mean_grad)
PROD = OpDef("Prod", infer_reduce, _prod_kernel, allowed=_SUMMABLE, input_names=("input",), grad=_prod_grad)
MAX = OpDef("Max", infer_reduce, _extreme_kernel(np.maximum.reduce, _lowest), allowed=_ORDERED, input_names=("input",),
            grad=_extreme_grad)
MIN = OpDef("Min", infer_reduce, _extreme_kernel(np.minimum.reduce, _highest), allowed=_ORDERED, input_names=("input",),
            grad=_extreme_grad)
ANY = OpDef("Any", infer_reduce, _logical_reduce_kernel("Any", np.any), input_names=("input",))
ALL = OpDef("All", infer_reduce, _logical_reduce_kernel("All", np.all), input_names=("input",))


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
        dims = static_axis(0 if axis is None else axis, op_name=opdef.name)
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
    attrs = {"axis": _static_scan_axis(axis, "Cumsum"), "exclusive": bool(exclusive), "reverse": bool(reverse)}
    return apply(CUMSUM, (x,), attrs, name or "Cumsum")


def _static_scan_axis(axis, op_name):
    """The axis of a scan (Cumsum, Cumprod, CumulativeLogsumexp): one int, as TensorFlow's scalar input."""
    if axis is None:  # TensorFlow converts `axis` to a tensor, which fails on None in both modes
        raise ValueError("`axis`: None values not supported.")
    dims = static_axis(axis, op_name=op_name)
    if len(dims) != 1:
        raise errors.InvalidArgumentError(None, op_name, f"ScanOp: axis must be a scalar, not [{len(dims)}]")
    return dims[0]


# -- cumprod and cumulative_logsumexp ----------------------------------------------------------------

def _scan_axis(x, axis):
    rank = x.ndim
    if not -rank <= axis < rank:
        raise errors.InvalidArgumentError(
            None, None, f"ScanOp: Expected scan axis in the range [{-rank}, {rank}), but got {axis}")
    return axis % rank


def _shifted(out, axis, first):
    """The exclusive form of a scan: `first` followed by all but the last running value along `axis`."""
    head = np.full_like(np.take(out, [0], axis=axis), first)
    return np.concatenate([head, np.take(out, np.arange(out.shape[axis] - 1), axis=axis)], axis=axis)


def _scan_kernel(accumulate, first):
    def kernel(x, axis=0, exclusive=False, reverse=False):
        axis = _scan_axis(x, axis)
        values = np.flip(x, axis) if reverse else x
        out = accumulate(values.astype(_accumulator(x.dtype), copy=False), axis)
        if exclusive:
            out = _shifted(out, axis, first)
        if reverse:
            out = np.flip(out, axis)
        return np.ascontiguousarray(out).astype(x.dtype, copy=False)
    return kernel


def _cumprod_grad(op, grad):
    # Each input element scales the running products after it; the sum of those (products times their
    # gradients) divided by the element is its gradient. TensorFlow divides with div_no_nan, so elements
    # equal to zero get 0.
    x = op.inputs[0]
    axis, exclusive, reverse = op.attrs.get("axis", 0), op.attrs.get("exclusive", False), op.attrs.get("reverse", False)
    products = cumprod(x, axis, exclusive=exclusive, reverse=reverse)
    summed = cumsum(_math.multiply(products, grad), axis, exclusive=exclusive, reverse=not reverse)
    return [_math.divide_no_nan(summed, x)]


def _cumulative_logsumexp_grad(op, grad):
    # d out_j / d x_i = exp(x_i - out_j) for each running value j that x_i feeds. The signed gradient is
    # split into its positive and negative parts so each sum can be taken in log space.
    x, out = op.inputs[0], op.outputs[0]
    axis, exclusive, reverse = op.attrs.get("axis", 0), op.attrs.get("exclusive", False), op.attrs.get("reverse", False)
    zero = _creators.zeros_like(grad)

    def part(g):  # log(g) where g > 0, -inf elsewhere
        logs = cumulative_logsumexp(_math.subtract(_math.log(_math.maximum(g, zero)), out), axis,
                                    exclusive=exclusive, reverse=not reverse)
        return _math.exp(_math.add(logs, x))
    return [_math.subtract(part(grad), part(_math.negative(grad)))]


CUMPROD = OpDef("Cumprod", _infer_same, _scan_kernel(np.cumprod, 1), allowed=NUMBER, input_names=("x",),
                grad=_cumprod_grad)
CUMULATIVE_LOGSUMEXP = OpDef("CumulativeLogsumexp", _infer_same, _scan_kernel(np.logaddexp.accumulate, -np.inf),
                             allowed=FLOAT, input_names=("x",), grad=_cumulative_logsumexp_grad)


def _scan(opdef, x, axis, exclusive, reverse, name):
    if not isinstance(x, Tensor):
        x = convert_to_tensor(x)
    attrs = {"axis": _static_scan_axis(axis, opdef.name), "exclusive": bool(exclusive), "reverse": bool(reverse)}
    return apply(opdef, (x,), attrs, name)


def cumprod(x, axis=0, exclusive=False, reverse=False, name=None):
    """`tf.math.cumprod`: running products along `axis` (optionally exclusive and/or from the end)."""
    return _scan(CUMPROD, x, axis, exclusive, reverse, name or "Cumprod")


def cumulative_logsumexp(x, axis=0, exclusive=False, reverse=False, name=None):
    """`tf.math.cumulative_logsumexp`: running log(sum(exp(x))) along `axis`, computed stably."""
    return _scan(CUMULATIVE_LOGSUMEXP, x, axis, exclusive, reverse, name or "CumulativeLogsumexp")


# -- variance, standard deviation, euclidean norm -----------------------------------------------------

def reduce_variance(input_tensor, axis=None, keepdims=False, name=None):
    """`tf.math.reduce_variance`: the mean squared deviation from the mean (real-valued for complex input)."""
    name = name or "reduce_variance"
    if not isinstance(input_tensor, Tensor):
        input_tensor = convert_to_tensor(input_tensor)
    if input_tensor.dtype.is_integer:
        raise TypeError(f"Input must be either real or complex. Received integer type "
                        f"<dtype: '{input_tensor.dtype.name}'>.")
    means = reduce_mean(input_tensor, axis, keepdims=True, name=f"{name}/Mean")
    deviations = _math.subtract(input_tensor, means, name=f"{name}/sub")
    if deviations.dtype.is_complex:
        deviations = _math.abs(deviations, name=f"{name}/ComplexAbs")
    return reduce_mean(_math.square(deviations, name=f"{name}/Square"), axis, keepdims=keepdims,
                       name=f"{name}/Mean_1")


def reduce_std(input_tensor, axis=None, keepdims=False, name=None):
    """`tf.math.reduce_std`: the square root of `reduce_variance`."""
    name = name or "reduce_std"
    return _math.sqrt(reduce_variance(input_tensor, axis, keepdims=keepdims, name=f"{name}/reduce_variance"),
                      name=name)


def _euclidean_norm_kernel(x, axis=None, keepdims=False):
    axes = _reduction_axes(x, axis)
    if x.dtype.kind in "iu":  # integer norms are computed exactly enough in float64, then truncated
        squares = np.square(x.astype(np.float64))
        return np.trunc(np.sqrt(np.sum(squares, axis=axes, keepdims=keepdims))).astype(x.dtype)
    work = x.astype(_accumulator(x.dtype), copy=False)
    squares = (work * np.conj(work)) if work.dtype.kind == "c" else np.square(work)
    return np.asarray(np.sqrt(np.sum(squares, axis=axes, keepdims=keepdims))).astype(x.dtype, copy=False)


def _euclidean_norm_grad(op, grad):
    # d ||x|| / dx = x / ||x|| (NaN where the norm is 0, as in TensorFlow).
    x = op.inputs[0]
    return [_spread(op, _math.multiply(_math.divide(x, _kept(op, op.outputs[0])), _kept(op, grad)))]


EUCLIDEAN_NORM = OpDef("EuclideanNorm", infer_reduce, _euclidean_norm_kernel, allowed=NUMBER, input_names=("input",),
                       grad=_euclidean_norm_grad)
reduce_euclidean_norm = _reduce(EUCLIDEAN_NORM, "EuclideanNorm")


# -- normalising and clipping by norm -----------------------------------------------------------------

def _squared_sum(x, axis, name):
    """sum(|x|^2) over `axis`, kept as size-1 axes (real-valued for complex x)."""
    magnitude = _math.abs(x, name=f"{name}/ComplexAbs") if x.dtype.is_complex else x
    return reduce_sum(_math.square(magnitude, name=f"{name}/Square"), axis, keepdims=True, name=f"{name}/Sum")


def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """`tf.math.l2_normalize`: x / sqrt(max(sum(x**2, axis), epsilon))."""
    name = name or "l2_normalize"
    if dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'dim'")
        axis = dim
    if not isinstance(x, Tensor):
        x = convert_to_tensor(x)
    square_sum = _squared_sum(x, static_axis(axis), name)
    if not isinstance(epsilon, Tensor):
        epsilon = convert_to_tensor(epsilon, dtype=square_sum.dtype)
    inverse_norm = _math.rsqrt(_math.maximum(square_sum, epsilon, name=f"{name}/Maximum"), name=f"{name}/Rsqrt")
    if x.dtype.is_complex:
        inverse_norm = _math.cast(inverse_norm, x.dtype)
    return _math.multiply(x, inverse_norm, name=name)


def _positive_mask(t):
    return _math.cast(_math.greater(t, _creators.zeros_like(t)), t.dtype)


def clip_by_norm(t, clip_norm, axes=None, name=None):
    """`tf.clip_by_norm`: `t * clip_norm / max(l2norm(t, axes), clip_norm)`.

    An all-zero slice stays zero and gets a zero (not NaN) gradient: the norm is taken of 1 there and
    then masked away, which is TensorFlow's select written as arithmetic.
    """
    name = name or "clip_by_norm"
    if not isinstance(t, Tensor):
        t = convert_to_tensor(t)
    clip_norm = clip_norm if isinstance(clip_norm, Tensor) else convert_to_tensor(clip_norm, dtype=t.dtype)
    l2sum = reduce_sum(_math.multiply(t, t, name=f"{name}/mul"), static_axis(axes), keepdims=True,
                       name=f"{name}/Sum")
    positive = _positive_mask(l2sum)
    # 1 where the sum is 0 (sqrt's gradient stays finite), the sum itself elsewhere (NaN stays NaN)
    safe = _math.add(l2sum, _math.subtract(_creators.ones_like(positive), positive))
    l2norm = _math.add(_math.multiply(_math.sqrt(safe, name=f"{name}/Sqrt"), positive),
                       _math.multiply(l2sum, _math.subtract(_creators.ones_like(positive), positive)))
    scaled = _math.multiply(t, clip_norm, name=f"{name}/mul_1")
    clipped = _math.divide(scaled, _math.maximum(l2norm, clip_norm, name=f"{name}/Maximum"), name=f"{name}/truediv")
    result = _shape_ops.identity(clipped, name=name)
    if not result.shape.is_compatible_with(t.shape):
        raise ValueError(f"Shapes {t.shape} and {result.shape} are incompatible")
    return result


def _tensor_list(t_list):
    if isinstance(t_list, (str, bytes, Tensor)) or not isinstance(t_list, (list, tuple)):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    return [None if v is None else (v if isinstance(v, Tensor) else convert_to_tensor(v)) for v in t_list]


def global_norm(t_list, name=None):
    """`tf.linalg.global_norm`: sqrt of the sum of squares of every element of every tensor (None skipped)."""
    name = name or "global_norm"
    values = [v for v in _tensor_list(t_list) if v is not None]
    if not values:
        return convert_to_tensor(np.float32(0.0), name=name)
    squares = [reduce_sum(_math.square(_math.abs(v) if v.dtype.is_complex else v), name=f"{name}/Sum") for v in values]
    total = squares[0] if len(squares) == 1 else _math.add_n(squares, name=f"{name}/AddN")
    return _math.sqrt(total, name=name)


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """`tf.clip_by_global_norm`: scales every tensor by `clip_norm / max(global_norm, clip_norm)`.

    Returns `(list_clipped, global_norm)`; None entries stay None. A non-finite global norm makes every
    clipped value NaN, as in TensorFlow.
    """
    name = name or "clip_by_global_norm"
    values = _tensor_list(t_list)
    if use_norm is None:
        use_norm = global_norm(values, name=f"{name}/global_norm")
    elif not isinstance(use_norm, Tensor):
        use_norm = convert_to_tensor(use_norm)
    clip_norm = clip_norm if isinstance(clip_norm, Tensor) else convert_to_tensor(clip_norm, dtype=use_norm.dtype)
    one = _creators.ones_like(use_norm)
    scale = _math.multiply(clip_norm, _math.minimum(_math.divide(one, use_norm), _math.divide(one, clip_norm)))
    # use_norm - use_norm is NaN exactly when the norm is inf or NaN, which then poisons the scale
    scale = _math.add(scale, _math.subtract(use_norm, use_norm), name=f"{name}/add")
    clipped = []
    for i, v in enumerate(values):
        if v is None:
            clipped.append(None)
            continue
        factor = scale if scale.dtype is v.dtype else _math.cast(scale, v.dtype)
        clipped.append(_shape_ops.identity(_math.multiply(v, factor), name=f"{name}/{name}/_{i}"))
    return clipped, use_norm


# -- bincount -----------------------------------------------------------------------------------------

def _dense_bincount_kernel(arr, size, weights, binary_output=False):
    n = int(size)
    if n < 0:
        raise errors.InvalidArgumentError(None, None, f"size ({n}) must be non-negative")
    if arr.size and arr.min() < 0:
        raise errors.InvalidArgumentError(None, None, "Input arr must be non-negative!")
    if weights.size and weights.shape != arr.shape:
        raise errors.InvalidArgumentError(
            None, None, "`weights` must be the same shape as `arr` or a length-0 `Tensor`, in which case it acts "
                        f"as all weights equal to 1. Received [{','.join(map(str, weights.shape))}]")
    rows = arr.reshape(1, -1) if arr.ndim == 1 else arr
    # one flat bincount: row r's value v lands in bin r * n + v (values >= size are dropped)
    keep = rows < n
    flat = (rows + (np.arange(rows.shape[0]) * n)[:, None])[keep]
    w = None
    if weights.size and not binary_output:
        w = weights.reshape(rows.shape)[keep].astype(np.float64)
    counts = np.bincount(flat, weights=w, minlength=rows.shape[0] * n)
    if binary_output:
        counts = np.minimum(counts, 1)
    out = counts.reshape((n,) if arr.ndim == 1 else (rows.shape[0], n))
    return out.astype(weights.dtype, copy=False)


def _infer_dense_bincount(inputs, attrs):
    arr, size, weights = inputs
    value = constant_value(size)
    n = None if value is None else int(value)
    if arr.shape.rank is not None and arr.shape.rank not in (1, 2):
        raise ValueError(f"Shape must be at most rank 2 but is rank {arr.shape.rank} for 'DenseBincount'.")
    rows = arr.shape.as_list()[0] if arr.shape.rank == 2 else None
    shape = TensorShape(None) if arr.shape.rank is None else TensorShape([n] if arr.shape.rank == 1 else [rows, n])
    return [(weights.dtype, shape)]


DENSE_BINCOUNT = OpDef("DenseBincount", _infer_dense_bincount, _dense_bincount_kernel,
                       allowed=(_dt.int32, _dt.int64), input_names=("input", "size", "weights"))


def bincount(arr, weights=None, minlength=None, maxlength=None, dtype=_dt.int32, name=None, axis=None,
             binary_output=False):
    """`tf.math.bincount`: how often each value 0..max(arr) occurs (summing `weights` if given).

    The length is max(arr) + 1 (0 for an empty `arr`), raised to `minlength` and capped at `maxlength`;
    with `axis=-1` a rank-2 `arr` is counted row by row.
    """
    name = name or "bincount"
    if weights is not None and binary_output:
        raise ValueError("Arguments `binary_output` and `weights` are mutually exclusive. Please specify only one.")
    if not isinstance(arr, Tensor):
        arr = convert_to_tensor(arr)
    if arr.dtype not in (_dt.int32, _dt.int64):
        arr = _math.cast(arr, _dt.int32, name=f"{name}/Cast")
    if axis in (None, 0):
        if arr.shape.rank != 1:
            arr = _shaping.reshape(arr, [-1], name=f"{name}/Reshape")
    elif axis == -1:
        if arr.shape.rank is not None and arr.shape.rank != 2:
            raise ValueError(f"Unsupported value for argument axis={axis} with a rank {arr.shape.rank} `arr`: "
                             f"axis=-1 needs a rank 2 `arr`.")
    else:
        raise ValueError(f"Unsupported value for argument axis={axis}. Only 0 and -1 are currently supported.")
    size, weights = bincount_size_and_weights(arr, weights, minlength, maxlength, dtype, name)
    return apply(DENSE_BINCOUNT, (arr, size, weights), {"binary_output": bool(binary_output)},
                 f"{name}/DenseBincount")


def bincount_size_and_weights(values, weights, minlength, maxlength, dtype, name):
    """What a bincount op takes besides its values: the number of bins (max(values) + 1, 0 when there are no
    values, raised to `minlength` and capped at `maxlength`) and the weights (an empty tensor of `dtype`
    for none). RaggedBincount (ops/ragged/bincount.py) takes the same."""
    nonempty = _math.cast(_math.greater(_shape_ops.size(values, out_type=values.dtype), 0), values.dtype,
                          name=f"{name}/Cast_1")
    size = _math.multiply(nonempty, _math.add(reduce_max(values, name=f"{name}/Max"), 1), name=f"{name}/mul")
    if minlength is not None:
        size = _math.maximum(size, _math.cast(minlength, values.dtype), name=f"{name}/Maximum")
    if maxlength is not None:
        size = _math.minimum(size, _math.cast(maxlength, values.dtype), name=f"{name}/Minimum")
    if weights is None:
        weights = convert_to_tensor(np.zeros((0,), dtype=_dt.as_dtype(dtype)._np))
    elif not isinstance(weights, Tensor):
        weights = convert_to_tensor(weights)
    return size, weights


API = {
    "": ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_any", "reduce_all",
         "reduce_logsumexp", "argmax", "argmin", "cumsum", "clip_by_norm", "clip_by_global_norm"],
    "math": ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_any",
             "reduce_all", "reduce_logsumexp", "argmax", "argmin", "cumsum", "count_nonzero", "cumprod",
             "cumulative_logsumexp", "reduce_variance", "reduce_std", "reduce_euclidean_norm", "l2_normalize",
             "bincount"],
    "nn": ["l2_normalize"],
    "linalg": ["l2_normalize", "global_norm"],
}
