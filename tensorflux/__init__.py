"""tensorflux: TensorFlow 2's eager tensors and tf.function, rebuilt small and fast on NumPy.

Use it as `import tensorflux as tf`. This module only re-exports, in TensorFlow's namespaces; each
module lists its public names in its `API` table (see `_namespaces.py`).
"""
from .types.dtypes import (DType, as_dtype, float16, half, float32, float64, double, bfloat16, int8, int16,
                           int32, int64, uint8, uint16, uint32, uint64, bool, string, complex64, complex128,
                           resource, variant, qint8, quint8, qint16, quint16, qint32)
from .types.shape import TensorShape, Dimension
from .types.spec import TensorSpec
from .framework.tensor import Tensor, is_tensor
from .framework.context import executing_eagerly, init_scope, name_scope, control_dependencies
from .framework import errors
from . import _namespaces

globals().update(_namespaces.TOP_LEVEL)
globals().update({k: v for k, v in _namespaces.NAMESPACES.items() if '.' not in k})
newaxis = None
__version__ = "0.1.0"


def __getattr__(name):
    """Loads `tf.keras` (and other rooms built on this package's public API) on first access."""
    if name in _namespaces.LAZY:
        module = _namespaces.load_lazy(name)
        globals()[name] = module
        return module
    raise AttributeError(f"module 'tensorflux' has no attribute {name!r}")
