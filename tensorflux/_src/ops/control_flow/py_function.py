"""Python functions inside graphs: `tf.py_function` and `tf.numpy_function`.

Both are stateful ops whose kernel calls back into Python every time the graph runs (eagerly: at once).
`py_function` hands the callback eager tensors; `numpy_function` hands it NumPy arrays. Output dtypes
come from `Tout`; output shapes are unknown statically, as in TensorFlow.

    @tf.py_function(Tout=tf.float32)
    def py_plus(x, y):
        return x + y       # runs eagerly on every call of an enclosing tf.function
"""
import numpy as np

from ...framework import nest
from ...framework.tensor import EagerTensor, Tensor
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..convert import convert_to_tensor, to_array
from ..registry import OpDef, apply

__all__ = ["py_function", "numpy_function"]


def _infer(inputs, attrs):
    return [(dtype, TensorShape(None)) for dtype in attrs["Tout"]]


def _results(values, tout, as_tensors):
    if values is None and not tout:
        return ()    # a callback run for its effect (Tout empty) returns None
    values = values if isinstance(values, (list, tuple)) else [values]
    if len(values) != len(tout):
        raise ValueError(f"The callback returned {len(values)} values, but Tout lists {len(tout)} dtypes.")
    out = []
    for v, dtype in zip(values, tout):
        if isinstance(v, Tensor):
            if v.dtype is not dtype:
                raise TypeError(f"The callback returned a {v.dtype.name} tensor where Tout expects {dtype.name}")
            out.append(v._value)
        else:
            out.append(to_array(v if not isinstance(v, np.ndarray) or v.dtype == dtype._np else v, dtype))
    return tuple(out)


def _py_kernel(*arrays, func, Tout):
    return _results(func(*[EagerTensor(a) for a in arrays]), Tout, True)


def _numpy_kernel(*arrays, func, Tout):
    return _results(func(*arrays), Tout, False)


PY_FUNC = OpDef("EagerPyFunc", _infer, _py_kernel, stateful=True, multi=True)
NUMPY_FUNC = OpDef("PyFunc", _infer, _numpy_kernel, stateful=True, multi=True)


def _wrap(opdef, default_name, func, inp, Tout, name):
    if func is None:  # decorator form: @tf.py_function(Tout=...)
        return lambda f: (lambda *args: _wrap(opdef, default_name, f, list(args), Tout, name))
    single = not isinstance(Tout, (list, tuple))
    tout = (_dt.as_dtype(Tout),) if single else tuple(_dt.as_dtype(t) for t in Tout)
    inputs = tuple(convert_to_tensor(x) for x in nest.flatten(inp))
    outs = apply(opdef, inputs, {"func": func, "Tout": tout}, name or default_name)
    if not tout and not isinstance(outs, (list, tuple)):
        return outs     # no outputs, in a graph: the Operation itself, as TensorFlow returns it
    return outs[0] if single else list(outs)


def py_function(func=None, inp=None, Tout=None, name=None):
    """Runs `func` eagerly on tensors each time the op executes (in graphs: on every call)."""
    return _wrap(PY_FUNC, "EagerPyFunc", func, inp, Tout, name)


def numpy_function(func=None, inp=None, Tout=None, stateful=True, name=None):
    """Runs `func` on NumPy arrays each time the op executes."""
    return _wrap(NUMPY_FUNC, "PyFunc", func, inp, Tout, name)


API = {"": ["py_function", "numpy_function"]}
