"""`tf.experimental`: loaded on first use of `tf.experimental`; `tf.experimental.numpy` (tnp) loads the
NumPy-named functions (the `numpy_api` room) on first access, so `import tensorflux` never pays for them."""
import importlib as _importlib

_LAZY_SUBMODULES = ("numpy",)


def __getattr__(name):
    if name in _LAZY_SUBMODULES:
        return _importlib.import_module(f"{__name__}.{name}")  # the import binds it on this module
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY_SUBMODULES))
