"""Keras objects as JSON-able configs and back: what `model.save`, `get_config` of models and
`keras.saving.serialize_keras_object` share.

Plain data stays as is (tuples become lists); arrays, dtypes, slices, `...` get tagged dicts; Keras
objects (layers, initializers, regularizers, optimizers, losses, …) become
`{"class_name", "module", "registered_name", "config"}` with their recorded constructor arguments (see
`keras.config`) or their own `get_config()`; functions are saved by name when they are Keras activations
or registered. Classes are found again through `custom_objects`, the registry filled by
`@register_keras_serializable`, then their module if it is already imported (nothing is imported
while loading).
"""
import inspect
import sys

import numpy as np

import tensorflux as tf

from .. import activations as _activations
from .. import config as _config
from ..layers.layer import Layer

__all__ = ["register_keras_serializable", "get_registered_object", "serialize_keras_object",
           "deserialize_keras_object"]

_REGISTERED = {}      # registered name -> class or function


def register_keras_serializable(package="Custom", name=None):
    """Decorator: lets `load_model` find a custom class or function as `package>name`."""
    def register(obj):
        key = f"{package}>{name or obj.__name__}"
        _REGISTERED[key] = obj
        obj._registered_name = key
        return obj
    return register


def get_registered_object(name, custom_objects=None):
    return (custom_objects or {}).get(name) or _REGISTERED.get(name)


# -- values -> JSON and back ----------------------------------------------------------------------------
def serialize_keras_object(value, where="value"):
    """A JSON-able form of `value`: plain data as is, Keras objects as {"class_name", "module", "config"}."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [serialize_keras_object(v, where) for v in value]
    if isinstance(value, dict):
        return {str(k): serialize_keras_object(v, f"{where}[{k!r}]") for k, v in value.items()}
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return {"__ndarray__": value.tolist(), "dtype": value.dtype.name}
    if isinstance(value, tf.DType):
        return {"__dtype__": value.name}
    if isinstance(value, slice):
        return {"__slice__": [value.start, value.stop, value.step]}
    if value is Ellipsis:
        return {"__ellipsis__": True}
    if isinstance(value, type):
        return {"__class__": _class_ref(value, where)}
    if inspect.isfunction(value) or inspect.isbuiltin(value):
        return {"__function__": _function_name(value, where)}
    config = value.get_config() if isinstance(value, Layer) else _object_config(value)
    if config is None:
        raise ValueError(f"Cannot save {where}: {value!r} (of type {type(value).__name__}) has no config.")
    return {"class_name": type(value).__name__, "module": _class_ref(type(value), where)["module"],
            "registered_name": getattr(type(value), "_registered_name", None),
            "config": serialize_keras_object(config, f"{where}.config")}


def _object_config(value):
    recorded = _config.init_arguments(value)
    if recorded:
        return recorded
    get_config = getattr(value, "get_config", None)
    return get_config() if get_config is not None else None


def _function_name(fn, where):
    registered = getattr(fn, "_registered_name", None)
    if registered:
        return registered
    for name, activation in _activations._BY_NAME.items():
        # a Keras activation, or TensorFlow's function of that name (`activation=tf.nn.relu`)
        if fn is activation or any(getattr(ns, name, None) is fn for ns in (tf.nn, tf.math, tf)):
            return name
    name = getattr(fn, "__name__", "")
    raise ValueError(f"Cannot save {where}: the function {name or fn!r} is neither a Keras activation nor "
                     f"registered with `@keras.saving.register_keras_serializable()` (lambdas, as in a "
                     f"`Lambda` layer, cannot be saved).")


def _class_ref(cls, where):
    return {"module": cls.__module__, "class_name": cls.__qualname__,
            "registered_name": getattr(cls, "_registered_name", None)}


def deserialize_keras_object(data, custom_objects=None):
    if isinstance(data, list):
        return [deserialize_keras_object(v, custom_objects) for v in data]
    if not isinstance(data, dict):
        return data
    if "__ndarray__" in data:
        return np.array(data["__ndarray__"], dtype=data["dtype"])
    if "__dtype__" in data:
        return tf.as_dtype(data["__dtype__"])
    if "__slice__" in data:
        return slice(*data["__slice__"])
    if "__ellipsis__" in data:
        return Ellipsis
    if "__class__" in data:
        return _find(data["__class__"], custom_objects)
    if "__function__" in data:
        name = data["__function__"]
        fn = get_registered_object(name, custom_objects) or _activations._BY_NAME.get(name)
        if fn is None:
            raise ValueError(f"Could not locate function '{name}'. Pass it in `custom_objects` or register it "
                             f"with `@keras.saving.register_keras_serializable()`.")
        return fn
    if "class_name" in data and "config" in data:
        cls = _find(data, custom_objects)
        config = {k: deserialize_keras_object(v, custom_objects) for k, v in data["config"].items()}
        from_config = getattr(cls, "from_config", None)
        return from_config(config) if from_config is not None else cls(**config)
    return {k: deserialize_keras_object(v, custom_objects) for k, v in data.items()}


def _find(ref, custom_objects):
    """The class a config names: custom objects, registered classes, then its (already imported) module."""
    custom_objects = custom_objects or {}
    for key in (ref.get("registered_name"), ref["class_name"]):
        if key and (key in custom_objects or key in _REGISTERED):
            return custom_objects.get(key) or _REGISTERED[key]
    module = sys.modules.get(ref.get("module") or "")
    obj = module
    for part in ref["class_name"].split(".") if module is not None else ():
        obj = getattr(obj, part, None)
    if obj is None or module is None or "<locals>" in ref["class_name"]:
        raise ValueError(f"Could not locate class '{ref['class_name']}' (module {ref.get('module')}). Pass it in "
                         f"`custom_objects`, register it with `@keras.saving.register_keras_serializable()`, or "
                         f"import its module before loading.")
    return obj


API = {"keras.saving": __all__}
