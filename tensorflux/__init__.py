"""tensorflux: TensorFlow 2's public API, rebuilt small and fast on NumPy. Use it as `import tensorflux as tf`.

This module is only the public face. The implementation lives in the private package `tensorflux._src`
(see docs/architecture.md); each public namespace (`tf.math`, `tf.nn`, `tf.keras.layers`, …) is a module
built by `_src/namespaces.py` from the `API` tables of the implementation modules, so it holds exactly
its API names and nothing that an implementation module happened to import.
"""
from ._src.types.dtypes import (DType, as_dtype, float16, half, float32, float64, double, bfloat16, int8,
    int16, int32, int64, uint8, uint16, uint32, uint64, bool, string, complex64, complex128, resource,
    variant, qint8, quint8, qint16, quint16, qint32)
from ._src.types.shape import TensorShape
from ._src.types.spec import TensorSpec
from ._src.framework.tensor import Tensor, is_tensor
from ._src.framework.context import executing_eagerly, init_scope, name_scope, control_dependencies
from ._src import namespaces as _namespaces

globals().update(_namespaces.TOP_LEVEL)
globals().update({k: v for k, v in _namespaces.NAMESPACES.items() if '.' not in k})
newaxis = None
__version__ = _namespaces.NAMESPACES["version"].VERSION


def __getattr__(name):
    """Loads `tf.keras` (a room built on this package's public API) and the names of lazy rooms on first access."""
    if name in _namespaces.LAZY:
        module = _namespaces.load_lazy(name)
        globals()[name] = module
        return module
    if name in _namespaces.TOP_LEVEL_LAZY:     # a name of a room loaded on first use (namespaces.LAZY_ROOMS)
        value = globals()[name] = _namespaces.TOP_LEVEL_LAZY[name]()
        return value
    raise AttributeError(f"module 'tensorflux' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_namespaces.LAZY) | set(_namespaces.TOP_LEVEL_LAZY))
