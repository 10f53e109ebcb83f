"""`tf.experimental.numpy`: NumPy's function names over tensorflux's op families.

An ndarray is a `tf.Tensor`; functions take tensors, NumPy arrays, Python numbers and nested lists, and
return tensors, so they are differentiable where the underlying op is and they trace into `tf.function`
graphs. Dtypes follow NumPy as TensorFlow's `tnp` does: Python floats are float64 and ints int64 unless
`experimental_enable_numpy_behavior(prefer_float32=True)`, a Python number (or list of them) takes the
kind of the tensor it meets, and functions that need a float turn integers into float64.

The modules: `dtypes` (conversion and promotion), `creation`, `elementwise`, `reductions`, `shaping`,
`linear` (products), `random`, `behavior` (NumPy methods on tf.Tensor). This room is loaded on first
access to `tf.experimental.numpy` (the public face `tensorflux/experimental/numpy`), never by
`import tensorflux`.
"""
from . import behavior, creation, dtypes, elementwise, linear, random, reductions, shaping

# The modules whose API tables make `tf.experimental.numpy` and `tf.experimental.numpy.random`.
MODULES = (dtypes, creation, elementwise, reductions, shaping, linear, random, behavior)
