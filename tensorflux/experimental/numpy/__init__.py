"""`tf.experimental.numpy` (tnp): NumPy's API on tensors. Importing this module loads the `numpy_api` room
(tensorflux/_src/numpy_api), which fills this namespace and `tnp.random` with their API names."""
from ..._src import namespaces as _namespaces
from ..._src import numpy_api as _numpy_api

_namespaces.install(_numpy_api.MODULES, _namespaces.NAMESPACES)
