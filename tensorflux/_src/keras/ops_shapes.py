"""`keras.ops` (and `keras.ops.numpy`): arranging and combining arrays — stacking, splitting, padding,
rolling, moving axes, products (`tensordot`, `kron`, `cross`…), selection and indexing helpers
(`take_along_axis`, `select`, `nonzero`, `slice_update`, `scatter`, `unravel_index`).

Operands are converted with Keras' rules and promoted to Keras' result dtype before the NumPy-named
`tf.experimental.numpy` function runs; indices come back as int32.
"""
import numpy as np

import tensorflux as tf
import tensorflux.experimental.numpy as tnp

from .ops_base import as_dtype, convert_to_tensor, operation, promote


def _stacking(name):
    numpy_fn = getattr(tnp, name)

    def stacking(xs):
        return numpy_fn(promote(*xs))
    stacking.__name__ = stacking.__qualname__ = name
    stacking.__doc__ = f"`keras.ops.{name}`: the tensors joined (promoted to one dtype first)."
    return operation(stacking)


def _splitting(name):
    numpy_fn = getattr(tnp, name)

    def splitting(x, indices_or_sections):
        return numpy_fn(convert_to_tensor(x), indices_or_sections)
    splitting.__name__ = splitting.__qualname__ = name
    splitting.__doc__ = f"`keras.ops.{name}`: NumPy's {name} (equal parts, or cuts at the given indices)."
    return operation(splitting)


hstack, dstack = _stacking("hstack"), _stacking("dstack")


@operation
def vstack(xs):
    """The tensors joined along axis 0 (Keras' TensorFlow backend: 1-D inputs are not made rows first)."""
    return tf.concat(promote(*xs), axis=0)
hsplit, vsplit, dsplit = _splitting("hsplit"), _splitting("vsplit"), _splitting("dsplit")


@operation
def array_split(x, indices_or_sections, axis=0):
    """Splits `x` into `indices_or_sections` parts that may differ in size by one (the first ones longer)."""
    x = convert_to_tensor(x)
    if not isinstance(indices_or_sections, (int, np.integer)):
        return tnp.split(x, indices_or_sections, axis)
    length = x.shape[axis]
    base, extra = divmod(length, int(indices_or_sections))
    return tf.split(x, [base + 1] * extra + [base] * (int(indices_or_sections) - extra), axis=axis)


@operation
def append(x1, x2, axis=None):
    x1, x2 = promote(x1, x2)
    return tnp.append(x1, x2, axis)


@operation
def broadcast_to(x, shape):
    return tf.broadcast_to(convert_to_tensor(x), shape)


@operation
def moveaxis(x, source, destination):
    return tnp.moveaxis(convert_to_tensor(x), source, destination)


@operation
def swapaxes(x, axis1, axis2):
    return tnp.swapaxes(convert_to_tensor(x), axis1, axis2)


@operation
def pad(x, pad_width, mode="constant", constant_values=None):
    """`x` padded by `pad_width` ((before, after) per axis); modes "constant", "reflect", "symmetric"."""
    if constant_values is not None and mode != "constant":
        raise ValueError(f"Argument `constant_values` can only be provided when `mode == 'constant'`. "
                         f"Received: mode={mode}")
    x = convert_to_tensor(x)
    kwargs = {} if constant_values is None else {"constant_values": constant_values}
    return tnp.pad(x, pad_width, mode, **kwargs)


@operation
def roll(x, shift, axis=None):
    return tnp.roll(convert_to_tensor(x), shift, axis)


@operation
def rot90(array, k=1, axes=(0, 1)):
    return tnp.rot90(convert_to_tensor(array), k, axes)


@operation
def diff(a, n=1, axis=-1):
    return tnp.diff(convert_to_tensor(a), n, axis)


@operation
def take_along_axis(x, indices, axis=None):
    return tnp.take_along_axis(convert_to_tensor(x), convert_to_tensor(indices), axis)


@operation
def nonzero(x):
    return tuple(tf.cast(i, tf.int32) for i in tnp.nonzero(convert_to_tensor(x)))


@operation
def select(condlist, choicelist, default=0):
    choices = promote(*choicelist, default)
    return tnp.select([convert_to_tensor(c) for c in condlist], choices[:-1], choices[-1])


def _product(name):
    numpy_fn = getattr(tnp, name)

    def product(x1, x2):
        return numpy_fn(*promote(x1, x2))
    product.__name__ = product.__qualname__ = name
    product.__doc__ = f"`keras.ops.{name}` of the operands promoted as Keras does."
    return operation(product)


inner, outer, vdot, kron = _product("inner"), _product("outer"), _product("vdot"), _product("kron")


@operation
def tensordot(x1, x2, axes=2):
    x1, x2 = promote(x1, x2)
    return tf.tensordot(x1, x2, axes)


@operation
def cross(x1, x2, axisa=-1, axisb=-1, axisc=-1, axis=None):
    x1, x2 = promote(x1, x2)
    return tnp.cross(x1, x2, axisa, axisb, axisc, axis)


@operation
def unravel_index(indices, shape):
    """The coordinates (int32, one tensor per dimension) of flat `indices` in an array of `shape`."""
    indices = tf.cast(convert_to_tensor(indices), tf.int32)
    return tuple(tf.unstack(tf.unravel_index(indices, tf.constant(list(shape), tf.int32)), axis=0))


@operation
def view(x, dtype=None):
    """The bytes of `x` reinterpreted as `dtype` (the last axis grows or shrinks with the item size)."""
    x = convert_to_tensor(x)
    if dtype is None:
        return x
    dtype = as_dtype(dtype)
    old, new = x.dtype.size, dtype.size
    if old == new:
        return tf.bitcast(x, dtype)
    if old > new:
        result = tf.bitcast(x, dtype)
        return tf.reshape(result, x.shape.as_list()[:-1] + [-1])
    grouped = tf.reshape(x, x.shape.as_list()[:-1] + [-1, new // old])
    return tf.bitcast(grouped, dtype)


@operation
def get_item(x, key):
    return convert_to_tensor(x)[key]


@operation
def slice(inputs, start_indices, shape):  # noqa: A001  (Keras' name)
    return tf.slice(convert_to_tensor(inputs), start_indices, shape)


@operation
def slice_update(inputs, start_indices, updates):
    """`inputs` with the block at `start_indices` replaced by `updates`."""
    inputs = convert_to_tensor(inputs)
    updates = tf.cast(convert_to_tensor(updates), inputs.dtype)
    grids = tf.meshgrid(*[tf.range(d) + tf.cast(s, tf.int32) for d, s in zip(tf.unstack(tf.shape(updates)),
                                                                          start_indices)], indexing="ij")
    return tf.tensor_scatter_nd_update(inputs, tf.stack(grids, -1), updates)


@operation
def scatter(indices, values, shape):
    """A zero tensor of `shape` with `values` added at `indices`."""
    values = convert_to_tensor(values)
    return tf.scatter_nd(convert_to_tensor(indices), values, shape)


@operation
def scatter_update(inputs, indices, updates):
    inputs = convert_to_tensor(inputs)
    return tf.tensor_scatter_nd_update(inputs, convert_to_tensor(indices), tf.cast(convert_to_tensor(updates),
                                                                                      inputs.dtype))


@operation
def view_as_real(x):
    x = convert_to_tensor(x)
    return tf.stack([tf.math.real(x), tf.math.imag(x)], -1)


@operation
def view_as_complex(x):
    x = convert_to_tensor(x)
    return tf.complex(x[..., 0], x[..., 1])


@operation
def saturate_cast(x, dtype):
    return tf.dtypes.saturate_cast(convert_to_tensor(x), as_dtype(dtype))


def vectorize(pyfunc, *, excluded=None, signature=None):
    """`pyfunc` applied to each element (over the leading axis, repeatedly for higher ranks) of its tensor
    arguments, like numpy.vectorize."""
    excluded = set(excluded or ())

    def vectorized(*args):
        tensors = [convert_to_tensor(a) if i not in excluded else a for i, a in enumerate(args)]
        ranks = [t.shape.rank for i, t in enumerate(tensors) if i not in excluded]
        if not ranks or max(ranks) == 0:
            return pyfunc(*args)
        shaped = tnp.broadcast_arrays(*[t for i, t in enumerate(tensors) if i not in excluded])
        it = iter(shaped)
        full = [next(it) if i not in excluded else a for i, a in enumerate(tensors)]
        return tf.stack([vectorized(*[f[j] if i not in excluded else f for i, f in enumerate(full)])
                         for j in range(shaped[0].shape[0])])
    vectorized.__name__ = getattr(pyfunc, "__name__", "vectorized")
    return vectorized


@operation
def slogdet(x):
    """(sign, log |det|) of square matrices."""
    x = convert_to_tensor(x)
    if not x.dtype.is_floating:
        x = tf.cast(x, tf.float32)
    return tuple(tf.linalg.slogdet(x))


API_NUMPY = ["hstack", "vstack", "dstack", "hsplit", "vsplit", "dsplit", "array_split", "append", "broadcast_to",
             "moveaxis", "swapaxes", "pad", "roll", "rot90", "diff", "take_along_axis", "nonzero", "select", "inner",
             "outer", "vdot", "kron", "tensordot", "cross", "unravel_index", "view", "get_item", "vectorize",
             "slogdet"]
API = {"keras.ops": API_NUMPY + ["slice", "slice_update", "scatter", "scatter_update", "view_as_real",
                                 "view_as_complex", "saturate_cast"]}
