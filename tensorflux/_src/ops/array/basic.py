"""Array ops: shape manipulation, joining and splitting, padding and tiling, and tensor creators.

Each op is one OpDef (TensorFlow's op type name, static inference, vectorised NumPy kernel) plus its
public function with TensorFlow's signature. Things TensorFlow takes as tensors that users compute
(reshape's shape, tile's multiples, fill's dims, range's bounds, pad's paddings) are op inputs whose
values inference reads with `constant_value`; static configuration (axes, perm, masks) are attrs.

Kernels that only re-view their input (reshape, transpose, squeeze, expand_dims, split, unstack,
reverse) return NumPy views: tensors are immutable, so sharing the buffer is safe and free.

Indexing ops live in `indexing.py`, sorting ops in `sorting.py`, creators (range, zeros, fill, eye,
linspace, one_hot…) in `creation.py`.
"""

import numpy as np

from ...framework import errors
from ...framework.context import state as _state
from ...framework.tensor import EagerTensor, Tensor
from ...types import dtypes as _dt
from ...types.shape import Dimension, TensorShape
from ..convert import constant, convert_n, convert_to_tensor, to_array
from ..infer import infer_unary
from ..registry import OPS, OpDef, apply, constant_value, dtype_error_name

__all__ = ["reshape", "transpose", "expand_dims", "squeeze", "concat", "stack", "unstack", "split", "tile",
           "pad", "shape", "shape_n", "size", "rank", "broadcast_to", "identity", "stop_gradient", "reverse"]

_INDEX_TYPES = (_dt.int32, _dt.int64)
_UNKNOWN = TensorShape(None)


# ---------------------------------------------------------------------------------------------------
# Shared helpers (also used by indexing.py and sorting.py)
# ---------------------------------------------------------------------------------------------------

def bad(message):
    """The InvalidArgumentError a kernel raises (the registry appends ` [Op:Name]`)."""
    return errors.InvalidArgumentError(None, None, message)


def fmt_shape(dims):
    """A shape as TensorFlow's kernels print it: `[2,3]`."""
    return "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"


def attr_type_error(attr, dtype, op_name, allowed=_INDEX_TYPES, param=None):
    """TensorFlow's error for an input whose dtype its op does not accept (e.g. a float shape)."""
    names = ", ".join(dtype_error_name(d) for d in allowed)
    if _state.graph is not None:
        return TypeError(f"Value passed to parameter '{param or attr}' has DataType {dtype.name} not in list "
                         f"of allowed values: {names}")
    return errors.eager_error(
        errors.InvalidArgumentError,
        f"Value for attr '{attr}' of {dtype_error_name(dtype)} is not in the list of allowed values: "
        f"{names}\n\t; NodeDef: {{{{node {op_name}}}}}", op_name)


def index_input(value, attr, op_name, param=None):
    """Converts a shape-like argument (list of ints, TensorShape, tensor) to an int32/int64 tensor."""
    if _state.graph is None and type(value) in (list, tuple) and all(type(v) is int for v in value):
        try:
            return EagerTensor(np.array(value, dtype=np.int32))
        except OverflowError:
            pass
    if type(value) in (list, tuple) and not value:  # an empty shape is int32, not float32's default
        t = convert_to_tensor(np.zeros((0,), dtype=np.int32))
    else:
        t = convert_to_tensor(value)
    if t.dtype not in _INDEX_TYPES:
        raise attr_type_error(attr, t.dtype, op_name, param=param)
    return t


def static_int(value, what, attr="Tidx", op_name=None):
    """A Python int for an argument that must be known when the op is built (an axis, a count)."""
    if type(value) is int:
        return value
    if isinstance(value, (Dimension,)):
        return value.value
    try:
        arr = constant_value(value) if isinstance(value, Tensor) else to_array(value)
    except (TypeError, ValueError):
        raise TypeError(f"`{what}` must be an integer, got {value!r}") from None
    if arr is None:
        raise TypeError(f"`{what}` must be statically known (a Python int or a constant tensor), got "
                        f"{value!r}")
    arr = np.asarray(arr)
    if arr.dtype.kind not in "iu" or arr.dtype == np.bool_:
        if op_name is not None and arr.dtype in _dt.FROM_NUMPY:
            raise attr_type_error(attr, _dt.FROM_NUMPY[arr.dtype], op_name)
        raise TypeError(f"`{what}` must be an integer, got {value!r}")
    if arr.size != 1:
        raise ValueError(f"`{what}` must be a single integer, got {value!r}")
    return int(arr.reshape(()))


def static_int_tuple(value, what):
    """A tuple of Python ints for a static list argument (perm, reverse axes)."""
    arr = constant_value(value) if isinstance(value, Tensor) else value
    if arr is None:
        raise TypeError(f"`{what}` must be statically known (a list of ints or a constant tensor), got "
                        f"{value!r}")
    arr = np.asarray(arr)
    if arr.dtype.kind not in "iu" and arr.size:
        raise TypeError(f"`{what}` must be a list of integers, got {value!r}")
    return tuple(int(v) for v in arr.reshape(-1))


def convert_same(values):
    """Converts a list for an op taking N tensors of one dtype: the first tensor's dtype, or else the
    first value's (so `[[1], [2.]]` fails on `[2.]`, as in TensorFlow)."""
    if _holds_tensor(values):
        return convert_n(values)
    first = convert_to_tensor(values[0])
    return [first] + [convert_to_tensor(v, dtype=first.dtype) for v in values[1:]]


def shape_of_value(value):
    """The static shape given as a shape argument, as a list of ints, or None when it is not static."""
    if isinstance(value, TensorShape):
        return value.as_list() if value.is_fully_defined() else None
    if isinstance(value, Tensor):
        known = constant_value(value) if value.dtype in _INDEX_TYPES else None
        return None if known is None else [int(v) for v in np.reshape(known, -1)]
    if isinstance(value, (int, np.integer, Dimension)):
        return [int(value)]
    if isinstance(value, (list, tuple)):
        out = []
        for v in value:
            if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
                out.append(int(v))
            elif isinstance(v, Dimension) and v.value is not None:
                out.append(v.value)
            else:
                return None
        return out
    if isinstance(value, np.ndarray) and value.dtype.kind in "iu":
        return [int(v) for v in value.reshape(-1)]
    return None


def value_dims(t, size=None):
    """The value of a 1-D int input as a tuple when static, else None (for inference)."""
    v = constant_value(t)
    if v is None:
        return None
    return tuple(int(d) for d in np.reshape(v, -1))


def unknown_vector_dims(t):
    """Unknown dims, as many as a 1-D shape-like input has elements (unknown rank if that is unknown)."""
    n = t.shape[0] if t.shape.rank == 1 else None
    return _UNKNOWN if n is None else TensorShape((None,) * n)


def _eager_const(arr, name):
    """A constant tensor holding `arr` (a graph Const when building a graph)."""
    if _state.graph is None:
        return EagerTensor(arr)
    return constant(arr, name=name)


def _normalize_dim(axis, rank, msg):
    if not -rank <= axis < rank:
        raise ValueError(msg)
    return axis % rank


# ---------------------------------------------------------------------------------------------------
# Gradient helpers. The modules holding Sum and Slice import this one, so the gradients here reach those
# ops through the registry by TensorFlow's op name rather than by an import that would close a cycle.
# ---------------------------------------------------------------------------------------------------

def shape_of(t):
    """`t`'s shape as a list of ints when fully known statically, else its dynamic int32 shape tensor."""
    if t.shape.is_fully_defined():
        return t.shape.as_list()
    return shape(t)


def _sum_over(x, axes):
    return apply(OPS["Sum"], (x,), {"axis": tuple(axes), "keepdims": False}, "Sum")


def _sum_to_shape_of(grad, x):
    """`grad` (of the broadcast of `x`) summed back to `x`'s shape."""
    gs, xs = grad.shape, x.shape
    if gs.is_fully_defined() and xs.is_fully_defined():
        g, d = gs.as_list(), xs.as_list()
        extra = len(g) - len(d)
        axes = list(range(extra)) + [i + extra for i, n in enumerate(d) if n == 1 and g[i + extra] != 1]
        return reshape(_sum_over(grad, axes), d) if axes else reshape(grad, d)
    return apply(OPS["SumToShape"], (grad, shape(x)), None, "SumToShape")


def _inverse_permutation(perm):
    inverse = [0] * len(perm)
    for i, p in enumerate(perm):
        inverse[p % len(perm)] = i
    return tuple(inverse)


# ---------------------------------------------------------------------------------------------------
# Reshape
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
    size = None if None in in_dims else int(np.prod(in_dims, dtype=np.int64))
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
    requested = value_dims(shape)
    if requested is None:
        return [(x.dtype, unknown_vector_dims(shape))]
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


# ---------------------------------------------------------------------------------------------------
# Transpose, expand_dims, squeeze
# ---------------------------------------------------------------------------------------------------

def _perm_problem(perm, rank):
    if len(perm) != rank:
        return f"transpose expects a vector of size {rank}. But input(1) is a vector of size {len(perm)}"
    seen = set()
    for p in perm:
        if not -rank <= p < rank:
            return f"{p} is out of range [0 .. {rank})"
        seen.add(p % rank)
    for i in range(rank):
        if i not in seen:
            return f"{i} is missing from {{{','.join(str(p) for p in perm)}}}."
    return None


def _transpose_kernel(x, perm=None):
    if perm is not None:
        problem = _perm_problem(perm, x.ndim)
        if problem:
            raise bad(problem)
    return np.transpose(x, perm)


def _conjugate_transpose_kernel(x, perm=None):
    return np.conj(_transpose_kernel(x, perm))


def _transpose_infer(inputs, attrs):
    x = inputs[0]
    perm = attrs.get("perm")
    dims = x.shape._dims
    if dims is None:
        return [(x.dtype, _UNKNOWN if perm is None else TensorShape((None,) * len(perm)))]
    if perm is None:
        return [(x.dtype, TensorShape(dims[::-1]))]
    if len(perm) != len(dims):
        raise ValueError(f"Dimension must be {len(dims)} but is {len(perm)}")
    problem = _perm_problem(perm, len(dims))
    if problem:
        raise ValueError(problem)
    return [(x.dtype, TensorShape(tuple(dims[p] for p in perm)))]


def _transpose_grad(op, grad):
    perm = op.attrs.get("perm")
    attrs = None if perm is None else {"perm": _inverse_permutation(perm)}
    return [apply(op.opdef, (grad,), attrs, "transpose")]


TRANSPOSE = OpDef("Transpose", _transpose_infer, _transpose_kernel, grad=_transpose_grad)
CONJUGATE_TRANSPOSE = OpDef("ConjugateTranspose", _transpose_infer, _conjugate_transpose_kernel,
                            grad=_transpose_grad)


def transpose(a, perm=None, conjugate=False, name="transpose"):
    """`tf.transpose`: permutes dimensions (reverses them by default); `conjugate` for complex inputs."""
    a = convert_to_tensor(a)
    attrs = None if perm is None else {"perm": static_int_tuple(perm, "perm")}
    op = CONJUGATE_TRANSPOSE if conjugate and a.dtype.is_complex else TRANSPOSE
    return apply(op, (a,), attrs, name)


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
               input_names=("values",))


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


def _pack_kernel(*arrays, axis):
    first = arrays[0].shape
    for i, a in enumerate(arrays[1:], 1):
        if a.shape != first:
            raise bad(f"Shapes of all inputs must match: values[0].shape = {fmt_shape(first)} != "
                      f"values[{i}].shape = {fmt_shape(a.shape)}")
    rank = len(first) + 1
    if not -rank <= axis < rank:
        raise bad(f"axis = {axis} not in [{-rank}, {rank})")
    return np.stack(arrays, axis)


def _pack_infer(inputs, attrs):
    axis = attrs["axis"]
    merged = _UNKNOWN
    for i, t in enumerate(inputs):
        s = t.shape
        if merged._dims is not None and s._dims is not None and len(s._dims) != len(merged._dims):
            raise ValueError(f"Shapes must be equal rank, but are {len(merged._dims)} and {len(s._dims)}")
        if not merged.is_compatible_with(s):
            raise ValueError(f"Shapes of all inputs must match: values[0].shape = {fmt_shape(merged._dims)} != "
                             f"values[{i}].shape = {fmt_shape(s._dims)}")
        merged = merged.merge_with(s)
    if merged._dims is None:
        return [(inputs[0].dtype, _UNKNOWN)]
    rank = len(merged._dims) + 1
    a = _normalize_dim(axis, rank, f"Argument `axis` = {axis} not in range [{-rank}, {rank})")
    dims = merged._dims
    return [(inputs[0].dtype, TensorShape(dims[:a] + (len(inputs),) + dims[a:]))]


def _pack_grad(op, grad):
    return list(apply(UNPACK, (grad,), {"num": len(op.inputs), "axis": op.attrs["axis"]}, "unstack"))


PACK = OpDef("Pack", _pack_infer, _pack_kernel, grad=_pack_grad, same_dtype=True, input_names=("values",))


def _holds_tensor(values):
    for v in values:
        if isinstance(v, Tensor) or hasattr(v, "__tf_tensor__"):
            return True
        if isinstance(v, (list, tuple)) and _holds_tensor(v):
            return True
    return False


def stack(values, axis=0, name="stack"):
    """`tf.stack`: joins same-shaped tensors along a new dimension `axis`."""
    if isinstance(values, Tensor):
        values = list(values)
    if type(axis) is not int:
        axis = static_int(axis, "axis")
    if axis == 0 and not _holds_tensor(values):
        try:  # a list of plain values is just a constant, as in TensorFlow
            return convert_to_tensor(values, name=name)
        except (TypeError, ValueError):
            pass
    values = convert_same(values)
    rank = values[0].shape.rank
    if rank is not None and not -rank - 1 <= axis < rank + 1:
        raise ValueError(f"Argument `axis` = {axis} not in range [{-rank - 1}, {rank + 1})")
    return apply(PACK, tuple(values), {"axis": axis}, name)


def _unpack_kernel(x, num, axis):
    if x.shape[axis] != num:
        raise bad(f"Input shape axis {axis % x.ndim} must equal {num}, got shape {fmt_shape(x.shape)}")
    moved = np.moveaxis(x, axis, 0)
    return tuple(moved[i] for i in range(num))


def _unpack_infer(inputs, attrs):
    x = inputs[0]
    num, axis = attrs["num"], attrs["axis"]
    dims = x.shape._dims
    if dims is None:
        return [(x.dtype, _UNKNOWN)] * num
    a = _normalize_dim(axis, len(dims), f"Argument `axis` = {axis} not in range [{-len(dims)}, {len(dims)})")
    if dims[a] is not None and dims[a] != num:
        raise ValueError(f"Dimension must be {num} but is {dims[a]}")
    out = TensorShape(dims[:a] + dims[a + 1:])
    return [(x.dtype, out)] * num


def _unpack_grad(op, *grads):
    return [apply(PACK, tuple(grads), {"axis": op.attrs["axis"]}, "stack")]


UNPACK = OpDef("Unpack", _unpack_infer, _unpack_kernel, grad=_unpack_grad, multi=True, input_names=("value",))


def unstack(value, num=None, axis=0, name="unstack"):
    """`tf.unstack`: the list of slices of `value` along `axis`."""
    value = convert_to_tensor(value)
    axis = static_int(axis, "axis")
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


# ---------------------------------------------------------------------------------------------------
# Tile, pad, broadcast_to, reverse
# ---------------------------------------------------------------------------------------------------

def _tile_kernel(x, multiples):
    if multiples.ndim != 1 or multiples.shape[0] != x.ndim:
        raise bad(f"Expected multiples argument to be a vector of length {x.ndim} but got length "
                  f"{multiples.shape[0] if multiples.ndim else 0}")
    for i, m in enumerate(multiples.tolist()):
        if m < 0:
            raise bad(f"Expected multiples[{i}] >= 0, but got {m}")
    return np.tile(x, multiples) if x.ndim else x


def _tile_infer(inputs, attrs):
    x, multiples = inputs
    mult = value_dims(multiples)
    dims = x.shape._dims
    if mult is None:
        return [(x.dtype, unknown_vector_dims(multiples) if dims is None else TensorShape((None,) * len(dims)))]
    if dims is None:
        return [(x.dtype, TensorShape((None,) * len(mult)))]
    if len(mult) != len(dims):
        raise ValueError(f"Shape must be rank {len(dims)} but is rank {len(mult)}")
    return [(x.dtype, TensorShape(tuple(None if d is None else d * m for d, m in zip(dims, mult))))]


def _tile_grad(op, grad):
    """View `grad` as [m0, d0, m1, d1, ...] (copy-major, as np.tile lays copies out) and sum the copies."""
    x, multiples = op.inputs
    rank = x.shape.rank if x.shape.rank is not None else (
        multiples.shape[0] if multiples.shape.rank == 1 else None)
    if rank is None:
        raise ValueError("The gradient of tile needs an input of known rank.")
    if rank == 0:
        return [grad, None]
    dims, mult = shape_of(x), value_dims(multiples)
    if isinstance(dims, list) and mult is not None:
        split_shape = [v for pair in zip(mult, dims) for v in pair]
    else:
        pairs = stack([multiples, shape(x, out_type=multiples.dtype)], axis=1)
        split_shape = reshape(pairs, [-1])
    summed = _sum_over(reshape(grad, split_shape), range(0, 2 * rank, 2))
    return [reshape(summed, dims), None]


TILE = OpDef("Tile", _tile_infer, _tile_kernel, grad=_tile_grad, input_names=("input", "multiples"))


def tile(input, multiples, name=None):  # noqa: A002
    """`tf.tile`: repeats `input` `multiples[i]` times along dimension i."""
    input = convert_to_tensor(input)
    return apply(TILE, (input, index_input(multiples, "Tmultiples", "Tile", "multiples")), None, name or "Tile")


def _check_paddings(x, paddings):
    if paddings.ndim != 2 or paddings.shape[0] != x.ndim or paddings.shape[1] != 2:
        raise bad(f"The first dimension of paddings must be the rank of inputs{fmt_shape(paddings.shape)} "
                  f"{fmt_shape(x.shape)}")
    pads = paddings.tolist()
    for before, after in pads:
        if before < 0 or after < 0:
            raise bad(f"Paddings must be non-negative: {before} {after}")
    return pads


def _pad_kernel(x, paddings, constant_values=None):
    pads = _check_paddings(x, paddings)
    if constant_values is None:
        constant_values = b"" if x.dtype == object else 0
    elif np.size(constant_values) != 1:
        raise bad(f"constant_values must be a scalar. Got: {np.size(constant_values)}")
    if x.ndim == 0:
        return x
    return np.pad(x, pads, mode="constant", constant_values=np.reshape(constant_values, ()).item()
                  if isinstance(constant_values, np.ndarray) and constant_values.dtype == object
                  else constant_values)


def _pad_v2_kernel(x, paddings, constant_values):
    return _pad_kernel(x, paddings, constant_values)


def _mirror_pad_kernel(x, paddings, mode):
    pads = _check_paddings(x, paddings)
    offset = 1 if mode == "REFLECT" else 0
    for d, (before, after) in zip(x.shape, pads):
        if before > d - offset or after > d - offset:
            if offset:
                raise bad(f"paddings must be less than the dimension size: {before}, {after} not less than {d}")
            raise bad(f"paddings must be no greater than the dimension size: {before}, {after} greater than {d}")
    if x.ndim == 0:
        return x
    return np.pad(x, pads, mode=mode.lower())


def _pad_infer(inputs, attrs):
    x, paddings = inputs[0], inputs[1]
    pads = constant_value(paddings)
    dims = x.shape._dims
    if pads is None:
        if dims is not None:
            return [(x.dtype, TensorShape((None,) * len(dims)))]
        n = paddings.shape[0] if paddings.shape.rank == 2 else None
        return [(x.dtype, _UNKNOWN if n is None else TensorShape((None,) * n))]
    pads = np.asarray(pads).reshape(-1, 2).tolist()
    if dims is None:
        dims = (None,) * len(pads)
    if len(pads) != len(dims):
        raise ValueError(f"Shape must be rank {len(dims)} but is rank {len(pads)}")
    return [(x.dtype, TensorShape(tuple(None if d is None else d + b + a for d, (b, a) in zip(dims, pads))))]


def _pad_grad(op, grad):
    """The un-padded block of `grad`; the padding value gets no gradient (as in TensorFlow)."""
    x, paddings = op.inputs[0], op.inputs[1]
    pads = constant_value(paddings)
    if pads is not None and x.shape.rank is not None:
        begin = _eager_const(np.asarray(pads).reshape(-1, 2)[:, 0].astype(paddings.dtype._np), "Pad_begin")
    else:
        begin = reshape(paddings[:, 0], [-1])
    size = shape_of(x)
    if isinstance(size, list):
        size = _eager_const(np.array(size, dtype=begin.dtype._np), "Pad_size")
    else:
        size = shape(x, out_type=begin.dtype)
    return [apply(OPS["Slice"], (grad, begin, size), None, "Slice")] + [None] * (len(op.inputs) - 1)


def _mirror_pad_grad_kernel(grad, paddings, mode):
    """Folds the mirrored borders of `grad` back onto the elements they copy (one slice-add per border)."""
    pads = _check_paddings(grad, paddings)
    offset = 1 if mode == "REFLECT" else 0
    out = grad
    for axis, (before, after) in enumerate(pads):
        size = out.shape[axis] - before - after
        if size < 0 or before > size - offset or after > size - offset:
            raise bad(f"MirrorPadGrad: paddings [{before}, {after}] do not fit a dimension of size {size}")

        def part(start, stop):
            index = [slice(None)] * out.ndim
            index[axis] = slice(start, stop)
            return tuple(index)

        core = out[part(before, before + size)].copy()
        if before:
            core[part(offset, offset + before)] += np.flip(out[part(0, before)], axis)
        if after:
            end = size - offset
            core[part(end - after, end)] += np.flip(out[part(before + size, before + size + after)], axis)
        out = core
    return out


def _mirror_pad_grad_infer(inputs, attrs):
    grad, paddings = inputs
    pads = constant_value(paddings)
    dims = grad.shape._dims
    if dims is None or pads is None:
        return [(grad.dtype, _UNKNOWN if dims is None else TensorShape((None,) * len(dims)))]
    pads = np.asarray(pads).reshape(-1, 2).tolist()
    return [(grad.dtype, TensorShape(tuple(None if d is None else d - b - a for d, (b, a) in zip(dims, pads))))]


def _mirror_pad_grad(op, grad):
    return [apply(MIRROR_PAD_GRAD, (grad, op.inputs[1]), {"mode": op.attrs["mode"]}, "MirrorPadGrad"), None]


def _mirror_pad_grad_grad(op, grad):
    return [apply(MIRROR_PAD, (grad, op.inputs[1]), {"mode": op.attrs["mode"]}, "MirrorPad"), None]


PAD = OpDef("Pad", _pad_infer, _pad_kernel, grad=_pad_grad, input_names=("input", "paddings"))
PAD_V2 = OpDef("PadV2", _pad_infer, _pad_v2_kernel, grad=_pad_grad,
               input_names=("input", "paddings", "constant_values"))
MIRROR_PAD = OpDef("MirrorPad", _pad_infer, _mirror_pad_kernel, grad=_mirror_pad_grad,
                   input_names=("input", "paddings"))
MIRROR_PAD_GRAD = OpDef("MirrorPadGrad", _mirror_pad_grad_infer, _mirror_pad_grad_kernel, grad=_mirror_pad_grad_grad,
                        input_names=("input", "paddings"))


def pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None):
    """`tf.pad`: pads each dimension by `paddings[i] = [before, after]` (CONSTANT/REFLECT/SYMMETRIC)."""
    tensor = convert_to_tensor(tensor)
    mode = str(mode).upper()
    if mode not in ("CONSTANT", "REFLECT", "SYMMETRIC"):
        raise ValueError('Value of argument `mode` expected to be one of "CONSTANT", "REFLECT", or "SYMMETRIC". '
                         f"Received `mode` = {mode}")
    pad_op = "Pad" if mode == "CONSTANT" else "MirrorPad"
    paddings = index_input(paddings, "Tpaddings", pad_op, "paddings")
    if mode != "CONSTANT":
        return apply(MIRROR_PAD, (tensor, paddings), {"mode": mode}, name or "MirrorPad")
    if not isinstance(constant_values, Tensor) and np.ndim(constant_values) == 0 and not isinstance(
            constant_values, (str, bytes)) and constant_values == 0:
        return apply(PAD, (tensor, paddings), None, name or "Pad")
    values = convert_to_tensor(constant_values, dtype=tensor.dtype)
    return apply(PAD_V2, (tensor, paddings, values), None, name or "PadV2")


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
        return [(x.dtype, unknown_vector_dims(shape))]
    if x.shape._dims is not None:
        if len(x.shape._dims) > len(target):
            raise ValueError(f"Shape must be at most rank {len(target)} but is rank {len(x.shape._dims)}")
        problem = _broadcast_to_problem(x.shape._dims, target)
        if problem:
            raise ValueError(problem)
    return [(x.dtype, TensorShape(target))]


def _broadcast_to_grad(op, grad):
    return [_sum_to_shape_of(grad, op.inputs[0]), None]


BROADCAST_TO = OpDef("BroadcastTo", _broadcast_to_infer, _broadcast_to_kernel, grad=_broadcast_to_grad,
                     input_names=("input", "shape"))


def broadcast_to(input, shape, name=None):  # noqa: A002
    """`tf.broadcast_to`: `input` repeated along broadcast dimensions to `shape`."""
    input = convert_to_tensor(input)
    return apply(BROADCAST_TO, (input, index_input(shape, "Tidx", "BroadcastTo", "shape")), None,
                 name or "BroadcastTo")


def _reverse_axes(axis, rank, static):
    seen = []
    for i, a in enumerate(axis):
        if not -rank <= a < rank:
            msg = f"'axis'[{i}] = {a} is out of valid range [0, {rank - 1}"
            raise ValueError(msg) if static else bad(msg)
        a %= rank
        if a in seen:
            msg = f"axis {a} specified more than once."
            raise ValueError(msg) if static else bad(msg)
        seen.append(a)
    return tuple(seen)


def _reverse_kernel(x, axis):
    return np.flip(x, _reverse_axes(axis, x.ndim, False)) if axis else x


def _reverse_infer(inputs, attrs):
    x = inputs[0]
    if x.shape._dims is not None:
        _reverse_axes(attrs["axis"], len(x.shape._dims), True)
    return [(x.dtype, x.shape)]


def _reverse_grad(op, grad):
    return [apply(REVERSE, (grad,), {"axis": op.attrs["axis"]}, "ReverseV2")]


REVERSE = OpDef("ReverseV2", _reverse_infer, _reverse_kernel, grad=_reverse_grad, input_names=("tensor", "axis"))


def reverse(tensor, axis, name=None):
    """`tf.reverse`: reverses the listed dimensions."""
    tensor = convert_to_tensor(tensor)
    if np.ndim(constant_value(axis) if isinstance(axis, Tensor) else axis) != 1:
        raise errors.eager_error(errors.InvalidArgumentError,
                                 f"'dims' must be 1-dimension, not {np.ndim(axis)}", "ReverseV2")
    return apply(REVERSE, (tensor,), {"axis": static_int_tuple(axis, "axis")}, name or "ReverseV2")


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
SHAPE_N = OpDef("ShapeN", _shape_n_infer, _shape_n_kernel, multi=True, input_names=("input",))
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
    tensors = [convert_to_tensor(t) for t in input]
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


API = {
    "": ["reshape", "transpose", "expand_dims", "squeeze", "concat", "stack", "unstack", "split", "tile", "pad",
         "shape", "shape_n", "size", "rank", "broadcast_to", "identity", "stop_gradient", "reverse"],
}
