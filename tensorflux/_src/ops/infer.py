"""Shared static inference rules: broadcasting, elementwise ops, reductions.

Each rule takes `(inputs, attrs)` — inputs have `.dtype` and `.shape` — and returns
`[(DType, TensorShape)]`. Unknown dimensions stay None; unknown rank stays unknown.
"""
from ..types import dtypes as _dt
from ..types.shape import TensorShape

__all__ = ["broadcast_shape", "infer_unary", "infer_broadcast", "infer_compare", "infer_reduce",
           "infer_same_as", "normalize_axis"]


def broadcast_shape(a, b):
    """The NumPy/TensorFlow broadcast of two TensorShapes; ValueError when they cannot broadcast."""
    da, db = a._dims, b._dims
    if da == db:        # the common `x * y` of one shape: its own broadcast (TensorShapes are immutable)
        return a
    if da is None or db is None:
        return TensorShape(None)
    n = max(len(da), len(db))
    da = (1,) * (n - len(da)) + da
    db = (1,) * (n - len(db)) + db
    out = []
    for x, y in zip(da, db):
        if x == 1:
            out.append(y)
        elif y == 1:
            out.append(x)
        elif x is None:
            out.append(y)
        elif y is None:
            out.append(x)
        elif x == y:
            out.append(x)
        else:
            raise ValueError(f"Dimensions must be equal, but are {x} and {y} for shapes {a} and {b}.")
    return TensorShape._from_tuple(tuple(out))


def infer_unary(inputs, attrs):
    x = inputs[0]
    return [(x.dtype, x.shape)]


infer_same_as = infer_unary


def infer_broadcast(inputs, attrs):
    shape = inputs[0].shape
    for t in inputs[1:]:
        shape = broadcast_shape(shape, t.shape)
    return [(inputs[0].dtype, shape)]


def infer_compare(inputs, attrs):
    return [(_dt.bool, infer_broadcast(inputs, attrs)[0][1])]


def normalize_axis(axis, rank, what="axis"):
    """A non-negative axis for a tensor of `rank`, or InvalidArgumentError like TensorFlow's."""
    if rank is None:
        return axis
    if not -rank <= axis < max(rank, 1):
        raise ValueError(
            f"Invalid reduction dimension ({axis} for input with {rank} dimension(s)"
            if what == "reduction" else f"{what} {axis} is out of bounds for tensor of rank {rank}")
    return axis % rank if rank else 0


def infer_reduce(inputs, attrs, dtype=None):
    """Reductions with attrs `axis` (None or a tuple of ints) and `keepdims`."""
    x = inputs[0]
    out_dtype = dtype or x.dtype
    axis, keepdims = attrs.get("axis"), attrs.get("keepdims", False)
    dims = x.shape._dims
    if dims is None:
        return [(out_dtype, TensorShape(None))]
    rank = len(dims)
    if axis is None:
        axes = set(range(rank))
    else:
        axes = {normalize_axis(a, rank, "reduction") for a in axis}
    if keepdims:
        shape = tuple(1 if i in axes else d for i, d in enumerate(dims))
    else:
        shape = tuple(d for i, d in enumerate(dims) if i not in axes)
    return [(out_dtype, TensorShape(shape))]
