"""`tnp.experimental_enable_numpy_behavior`: NumPy's methods on tf.Tensor, and float32 for Python floats.

Enabling adds to `tf.Tensor` the NumPy methods TensorFlow adds (`T`, `reshape`, `ravel`, `astype`,
`clip`, `tolist`, `sum`, …; `x.reshape(2, 3)` takes the shape as separate arguments too) wherever
the class does not already have the name, and with `prefer_float32=True` makes Python floats float32
in the `tnp` functions. TensorFlow's promotion of mixed dtypes in the `+`/`*` operators is not
changed here (tensorflux's operators keep TensorFlow's rules: mixed dtypes raise).
"""
from . import creation, dtypes as _d, elementwise, linear, reductions, shaping
from ._tf import Tensor, tf

_PROMOTION_MODES = ("off", "legacy", "safe", "all")


def _shape_args(shape):
    return shape[0] if len(shape) == 1 and isinstance(shape[0], (list, tuple)) else list(shape)


def _reshape(self, *newshape, order="C"):
    return shaping.reshape(self, _shape_args(newshape), order)


def _transpose(self, *axes):
    return shaping.transpose(self, _shape_args(axes) if axes else None)


def _tolist(self):
    return self.numpy().tolist()


def _astype(self, dtype):
    return tf.cast(self, _d.tf_dtype(dtype))


def _item(self, *args):
    values = self.numpy()
    return values.item(*args)


_METHODS = {
    "reshape": _reshape, "transpose": _transpose, "tolist": _tolist, "astype": _astype, "item": _item,
    "ravel": shaping.ravel, "flatten": shaping.flatten, "squeeze": shaping.squeeze, "swapaxes": shaping.swapaxes,
    "repeat": shaping.repeat, "diagonal": shaping.diagonal, "trace": shaping.trace, "clip": elementwise.clip,
    "round": elementwise.around, "conj": elementwise.conj, "sum": reductions.sum, "mean": reductions.mean,
    "max": reductions.max, "min": reductions.min, "std": reductions.std, "var": reductions.var,
    "prod": reductions.prod, "argmax": reductions.argmax, "argmin": reductions.argmin, "all": reductions.all,
    "any": reductions.any, "cumsum": reductions.cumsum, "cumprod": reductions.cumprod, "ptp": reductions.ptp,
    "sort": reductions.sort, "argsort": reductions.argsort, "nonzero": reductions.nonzero,
    "take": reductions.take, "dot": linear.dot, "copy": creation.copy,
}
_PROPERTIES = {
    "T": lambda self: shaping.transpose(self),
    "ndim": lambda self: self.shape.rank,
    "size": lambda self: reductions.size(self),
    "data": lambda self: self,
    "real": lambda self: elementwise.real(self),
    "imag": lambda self: elementwise.imag(self),
}
_added = []


def experimental_enable_numpy_behavior(prefer_float32=False, dtype_conversion_mode="legacy"):
    """Adds NumPy's methods to tf.Tensor (where it lacks them) and sets how `tnp` types Python floats."""
    if dtype_conversion_mode not in _PROMOTION_MODES:
        raise ValueError(f"The provided promotion mode {dtype_conversion_mode} does not exist. Make sure the "
                         f"provided dtype conversion mode is one of {list(_PROMOTION_MODES)}.")
    _d.set_prefer_float32(prefer_float32)
    for name, fn in _METHODS.items():
        if not hasattr(Tensor, name):
            setattr(Tensor, name, fn)
            _added.append(name)
    for name, getter in _PROPERTIES.items():
        if not hasattr(Tensor, name):
            setattr(Tensor, name, property(getter))
            _added.append(name)


API = {"experimental.numpy": ["experimental_enable_numpy_behavior"]}
