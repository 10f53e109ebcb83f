"""Shapes and arrangement: `reshape`, `transpose`, `stack`, `split`, `pad`, `roll`, `rot90`, `diagonal`, …

All are views in NumPy; here each is an op on the tensor (so differentiable), with NumPy's argument
names and conventions (`axis=None` flattens, split points as indices, `order="C"` only).
"""
import numpy as np

from . import dtypes as _d
from ._tf import linalg, tf
from .reductions import sum as _sum


def _t(a):
    return _d.to_tensor(a)


def _dims(t):
    """The shape as a list, with tensors for unknown dimensions (usable in reshape/broadcast)."""
    dims = t.shape.as_list()
    if None not in dims:
        return dims
    dynamic = tf.shape(t)
    return [d if d is not None else dynamic[i] for i, d in enumerate(dims)]


def reshape(a, newshape, order="C"):
    if order != "C":
        raise ValueError(f"Unsupported order argument {order}")
    newshape = [newshape] if isinstance(newshape, (int, np.integer)) else newshape
    return tf.reshape(_t(a), newshape)


def ravel(a):
    return tf.reshape(_t(a), [-1])


def flatten(a, order="C"):
    if order != "C":
        raise ValueError(f"Unsupported order argument {order}")
    return tf.reshape(_t(a), [-1])


def expand_dims(a, axis):
    return tf.expand_dims(_t(a), axis)


def squeeze(a, axis=None):
    return tf.squeeze(_t(a), axis)


def transpose(a, axes=None):
    a = _t(a)
    return tf.transpose(a, axes if axes is not None else list(range(a.shape.rank))[::-1])


def swapaxes(a, axis1, axis2):
    a = _t(a)
    rank = a.shape.rank
    perm = list(range(rank))
    axis1, axis2 = axis1 % rank, axis2 % rank
    perm[axis1], perm[axis2] = perm[axis2], perm[axis1]
    return tf.transpose(a, perm)


def moveaxis(a, source, destination):
    """`a` with the axes `source` moved to positions `destination` (the others keep their order)."""
    a = _t(a)
    rank = a.shape.rank
    source = [s % rank for s in (source if isinstance(source, (list, tuple)) else [source])]
    destination = [d % rank for d in (destination if isinstance(destination, (list, tuple)) else [destination])]
    if len(source) != len(destination):
        raise ValueError("The lengths of source and destination must equal")
    perm = [i for i in range(rank) if i not in source]
    for d, s in sorted(zip(destination, source)):
        perm.insert(d, s)
    return tf.transpose(a, perm)


def broadcast_to(array, shape):
    return tf.broadcast_to(_t(array), shape)


def broadcast_arrays(*args, **kwargs):
    """The inputs broadcast against each other."""
    tensors = [_t(a) for a in args]
    shape = tf.shape(tensors[0])
    for t in tensors[1:]:
        shape = tf.broadcast_dynamic_shape(shape, tf.shape(t))
    return [tf.broadcast_to(t, shape) for t in tensors]


def _atleast(arys, rank, place):
    out = []
    for a in arys:
        a = _t(a)
        while a.shape.rank < rank:
            a = place(a)
        out.append(a)
    return out[0] if len(out) == 1 else out


def atleast_1d(*arys):
    return _atleast(arys, 1, lambda a: tf.reshape(a, [1]))


def atleast_2d(*arys):
    return _atleast(arys, 2, lambda a: tf.expand_dims(a, 0))


def atleast_3d(*arys):
    def place(a):
        if a.shape.rank == 0:
            return tf.reshape(a, [1, 1, 1])
        if a.shape.rank == 1:
            return tf.reshape(a, [1, -1, 1])
        return tf.expand_dims(a, -1)
    return _atleast(arys, 3, place)


def concatenate(arys, axis=0):
    tensors = _d.promoted(*arys)
    if axis is None:
        tensors, axis = [tf.reshape(t, [-1]) for t in tensors], 0
    return tf.concat(tensors, axis)


def stack(arrays, axis=0):
    return tf.stack(_d.promoted(*arrays), axis)


def hstack(tup):
    tensors = atleast_1d(*tup)
    tensors = tensors if isinstance(tensors, list) else [tensors]
    return concatenate(tensors, 0 if tensors[0].shape.rank == 1 else 1)


def vstack(tup):
    tensors = atleast_2d(*tup)
    return concatenate(tensors if isinstance(tensors, list) else [tensors], 0)


def dstack(tup):
    tensors = atleast_3d(*tup)
    return concatenate(tensors if isinstance(tensors, list) else [tensors], 2)


def split(ary, indices_or_sections, axis=0):
    """NumPy's split: an int cuts `axis` into that many equal parts, a list gives the cut indices."""
    ary = _t(ary)
    if isinstance(indices_or_sections, (int, np.integer)):
        length = ary.shape[axis]
        if length is not None and length % indices_or_sections:
            raise ValueError("array split does not result in an equal division")
        return tf.split(ary, int(indices_or_sections), axis=axis)
    length = ary.shape[axis]
    cuts = [0] + [int(i) for i in indices_or_sections] + [length]
    sizes = [max(min(b, length) - min(a, length), 0) for a, b in zip(cuts[:-1], cuts[1:])]
    return tf.split(ary, sizes, axis=axis)


def _split_at_least(ary, indices_or_sections, axis, rank, name):
    ary = _t(ary)
    if ary.shape.rank < rank:
        raise ValueError(f"{name} only works on arrays of {rank} or more dimensions")
    return split(ary, indices_or_sections, axis)


def hsplit(ary, indices_or_sections):
    ary = _t(ary)
    return _split_at_least(ary, indices_or_sections, 0 if ary.shape.rank == 1 else 1, 1, "hsplit")


def vsplit(ary, indices_or_sections):
    return _split_at_least(ary, indices_or_sections, 0, 2, "vsplit")


def dsplit(ary, indices_or_sections):
    return _split_at_least(ary, indices_or_sections, 2, 3, "dsplit")


def append(arr, values, axis=None):
    """`values` appended to `arr` along `axis` (both flattened for None)."""
    if axis is None:  # TensorFlow's tnp flattens `values` first, so a list is a strong (int64/float64) array
        arr, values = _d.promoted(arr, _d.to_tensor(values))
        return tf.concat([tf.reshape(arr, [-1]), tf.reshape(values, [-1])], 0)
    arr, values = _d.promoted(arr, values)
    return tf.concat([arr, values], axis)


def tile(a, reps):
    a = _t(a)
    reps = [reps] if isinstance(reps, (int, np.integer)) else list(reps)
    if len(reps) < a.shape.rank:
        reps = [1] * (a.shape.rank - len(reps)) + reps
    elif len(reps) > a.shape.rank:
        a = tf.reshape(a, [1] * (len(reps) - a.shape.rank) + _dims(a))
    return tf.tile(a, reps)


def repeat(a, repeats, axis=None):
    a = _t(a)
    if axis is None:
        a, axis = tf.reshape(a, [-1]), 0
    return tf.repeat(a, repeats, axis=axis)


def roll(a, shift, axis=None):
    """`a` rotated by `shift` along `axis` (the flattened array for None, reshaped back)."""
    a = _t(a)
    if axis is None:
        return tf.reshape(tf.roll(tf.reshape(a, [-1]), shift, 0), tf.shape(a))
    return tf.roll(a, shift, axis)


def flip(m, axis=None):
    m = _t(m)
    axes = list(range(m.shape.rank)) if axis is None else (list(axis) if isinstance(axis, (list, tuple)) else [axis])
    return tf.reverse(m, [x % m.shape.rank for x in axes]) if axes else tf.identity(m)


def fliplr(m):
    return flip(m, 1)


def flipud(m):
    return flip(m, 0)


def rot90(m, k=1, axes=(0, 1)):
    """`m` rotated by 90° `k` times in the plane of `axes` (from the first axis towards the second)."""
    m = _t(m)
    if m.shape.rank < 2:
        raise ValueError("Input array must be at least 2-d.")
    k = k % 4
    first, second = axes
    if k == 0:
        return tf.identity(m)
    if k == 2:
        return flip(flip(m, first), second)
    perm = list(range(m.shape.rank))
    perm[first], perm[second] = perm[second], perm[first]
    if k == 1:
        return tf.transpose(flip(m, second), perm)
    return flip(tf.transpose(m, perm), second)


def pad(array, pad_width, mode, **kwargs):
    """`array` padded by `pad_width` ((before, after) per axis, or one pair / one number for all)."""
    array = _t(array)
    mode = mode.upper()
    if mode not in ("CONSTANT", "REFLECT", "SYMMETRIC"):
        raise ValueError(f"Unsupported padding mode: {mode.lower()}")
    widths = np.broadcast_to(np.asarray(pad_width, np.int64), (array.shape.rank, 2)).tolist()
    constant = kwargs.get("constant_values", 0)
    return tf.pad(array, widths, mode, constant_values=tf.cast(constant, array.dtype))


def diagonal(a, offset=0, axis1=0, axis2=1):
    """The `offset`-th diagonal of the planes spanned by `axis1` and `axis2` (it becomes the last axis)."""
    a = _t(a)
    rank = a.shape.rank
    axis1, axis2 = axis1 % rank, axis2 % rank
    if (axis1, axis2) != (rank - 2, rank - 1):
        perm = [i for i in range(rank) if i not in (axis1, axis2)] + [axis1, axis2]
        a = tf.transpose(a, perm)
    rows, cols = a.shape[-2], a.shape[-1]
    if rows is not None and cols is not None and (offset >= cols or -offset >= rows):
        return tf.zeros(a.shape.as_list()[:-2] + [0], a.dtype)
    return linalg.diag_part(a, k=offset)


def trace(a, offset=0, axis1=0, axis2=1, dtype=None):
    """The sum of the `offset`-th diagonal, in the input's dtype unless `dtype` (TensorFlow's tnp does not
    widen narrow integers here, unlike `sum`)."""
    d = diagonal(a, offset, axis1, axis2)
    return _sum(d, axis=-1, dtype=dtype if dtype is not None else _d.np_dtype(d.dtype))


API = {"experimental.numpy": [
    "reshape", "ravel", "flatten", "expand_dims", "squeeze", "transpose", "swapaxes", "moveaxis", "broadcast_to",
    "broadcast_arrays", "atleast_1d", "atleast_2d", "atleast_3d", "concatenate", "stack", "hstack", "vstack",
    "dstack", "split", "hsplit", "vsplit", "dsplit", "append", "tile", "repeat", "roll", "flip", "fliplr",
    "flipud", "rot90", "pad", "diagonal", "trace"]}
