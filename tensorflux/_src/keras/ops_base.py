"""What every `keras.ops` function shares: conversion with Keras' defaults, Keras 3's dtype promotion,
and the wrapper that turns a call on KerasTensors into a node of a functional model.

Keras promotes as JAX does, on a lattice of dtypes with Python numbers as *weak* types: a Python int
meets an int8 tensor at int8, a Python float meets an integer tensor at floatx (float32) and a float16
tensor at float16, int8 and uint8 meet at int16, float32 and float64 at float64. Alone, a Python float
(or a list of them) is float32 and an int int32; NumPy arrays keep their dtype.
"""
import functools

import numpy as np

import tensorflux as tf

from . import keras_tensor as _keras_tensor

FLOATX = tf.float32
_OPERATION_CLASSES = {}   # Keras' class name of an operation -> its Operation subclass


class _OpsOperation(_keras_tensor.Operation):
    """A `keras.ops` function applied to KerasTensors: a weightless step of a functional model."""

    def __call__(self, *args, **kwargs):
        if _keras_tensor.any_symbolic((args, kwargs)):
            return _keras_tensor.symbolic_call(self, args, kwargs, self._fn)
        return self._fn(*args, **kwargs)


def operation(fn):
    """Makes `fn` a keras.ops function: on KerasTensors it records a node (an Operation named after `fn`
    in CamelCase), otherwise it runs."""
    class_name = "".join(part.capitalize() for part in fn.__name__.split("_"))

    @functools.wraps(fn)
    def op(*args, **kwargs):
        if _keras_tensor.any_symbolic((args, kwargs)):
            cls = _OPERATION_CLASSES.get(class_name)
            if cls is None:
                cls = _OPERATION_CLASSES[class_name] = type(class_name, (_OpsOperation,), {"__module__": __name__})
            return cls(fn)(*args, **kwargs)
        return fn(*args, **kwargs)
    return op


def as_dtype(dtype):
    return tf.as_dtype(getattr(dtype, "name", dtype))


def convert_to_tensor(x, dtype=None, sparse=None, ragged=None):
    """`x` as a tensor: NumPy arrays keep their dtype, Python floats (and lists of them) become float32
    (Keras' floatx) and Python ints int32."""
    if isinstance(x, (tf.Tensor, tf.Variable)):
        return x if dtype is None else tf.cast(x, as_dtype(dtype))
    if dtype is not None:
        return tf.convert_to_tensor(np.asarray(x), as_dtype(dtype)) if not _holds_tensors(x) else \
            tf.cast(tf.convert_to_tensor(x), as_dtype(dtype))
    return tf.convert_to_tensor(x)      # NumPy keeps its dtype; Python values: TensorFlow's float32 / int32


def _holds_tensors(x):
    return isinstance(x, (list, tuple)) and any(isinstance(v, (tf.Tensor, tf.Variable)) or _holds_tensors(v)
                                                for v in x)


# -- Keras 3's promotion lattice (keras/src/backend/common/dtypes.py, JAX's): each type's direct upper bounds.
_WEAK_INT, _WEAK_FLOAT, _WEAK_COMPLEX = "int", "float", "complex"
_LATTICE = {
    "bool": [_WEAK_INT], _WEAK_INT: ["uint8", "int8"], "uint8": ["int16", "uint16"], "uint16": ["int32", "uint32"],
    "uint32": ["int64", "uint64"], "uint64": [_WEAK_FLOAT], "int8": ["int16"], "int16": ["int32"],
    "int32": ["int64"], "int64": [_WEAK_FLOAT], _WEAK_FLOAT: ["bfloat16", "float16", _WEAK_COMPLEX],
    "bfloat16": ["float32"], "float16": ["float32"], "float32": ["float64", "complex64"],
    "float64": ["complex128"], _WEAK_COMPLEX: ["complex64"], "complex64": ["complex128"], "complex128": [],
}


def _upper_bounds(node, memo={}):  # noqa: B006  (a cache of the fixed lattice)
    if node not in memo:
        found = {node}
        for parent in _LATTICE[node]:
            found |= _upper_bounds(parent)
        memo[node] = frozenset(found)
    return memo[node]


def _least_upper_bound(nodes):
    common = frozenset.intersection(*[_upper_bounds(n) for n in nodes])
    for candidate in common:
        if common <= _upper_bounds(candidate):
            return candidate
    raise TypeError(f"Cannot promote the dtypes {sorted(nodes)}")


def _node(x):
    """The lattice node of one operand: a weak type for Python numbers, its dtype's name otherwise."""
    if isinstance(x, bool):
        return "bool"
    if isinstance(x, int):
        return _WEAK_INT
    if isinstance(x, float):
        return _WEAK_FLOAT
    if isinstance(x, complex):
        return _WEAK_COMPLEX
    if isinstance(x, (tf.Tensor, tf.Variable, np.ndarray, np.generic)):
        return tf.as_dtype(x.dtype).name
    if isinstance(x, (str, tf.DType, type, np.dtype)):
        return as_dtype(x).name
    return convert_to_tensor(x).dtype.name


def result_type(*operands):
    """Keras 3's result dtype of operands (tensors, arrays, dtypes, Python numbers), as a tf.DType."""
    found = _least_upper_bound({_node(x) for x in operands})
    return {_WEAK_INT: tf.int32, _WEAK_FLOAT: FLOATX, _WEAK_COMPLEX: tf.complex64}.get(found) or tf.as_dtype(found)


def promote(*operands):
    """The operands as tensors of their Keras result dtype."""
    dtype = result_type(*operands)
    return [tf.cast(convert_to_tensor(x), dtype) if isinstance(x, (tf.Tensor, tf.Variable)) else
            convert_to_tensor(x, dtype) for x in operands]


def floating(x):
    """`x` as a float tensor: integers and booleans become floatx (float32), floats keep their dtype."""
    x = convert_to_tensor(x)
    return x if x.dtype.is_floating or x.dtype.is_complex else tf.cast(x, FLOATX)


def float_promote(*operands):
    """The operands promoted, then made floating (floatx for integer results)."""
    tensors = promote(*operands)
    if tensors[0].dtype.is_floating or tensors[0].dtype.is_complex:
        return tensors
    return [tf.cast(t, FLOATX) for t in tensors]


def axis_arg(axis):
    return list(axis) if isinstance(axis, tuple) else axis


def int32_sum_dtype(x):
    """The dtype Keras sums `x` in: int32 for booleans and narrow integers, uint32 for narrow unsigned."""
    if x.dtype.is_bool or (x.dtype.is_integer and x.dtype.size < 4):
        return tf.uint32 if x.dtype.is_unsigned and not x.dtype.is_bool else tf.int32
    return x.dtype
