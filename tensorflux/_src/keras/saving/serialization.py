"""Keras objects as JSON-able configs and back: what `model.save`, `get_config` of models and
`keras.saving.serialize_keras_object` share.

Plain data stays as is (tuples become lists); arrays, dtypes, slices, `...` get tagged dicts; Keras
objects (layers, initializers, regularizers, optimizers, losses, …) become
`{"class_name", "module", "registered_name", "config"}` with their recorded constructor arguments (see
`keras.config`) or their own `get_config()`; functions are saved by name when they are Keras activations
or registered.

Configs are untrusted data (they come from files). A class is found again only through an allow-list:
`custom_objects`, the registry filled by `@register_keras_serializable`, then the Keras classes
tensorflux implements (those its public `keras` namespaces export) — never by looking a name up in an
arbitrary module, so a config naming `os.system` finds nothing. A function is found only among the
registered ones and Keras's activations. A Keras-style `Lambda` function carrying Python bytecode
(`"class_name": "__lambda__"`) is refused with Keras's safe-mode message; tensorflux never runs bytecode
from a file, even with `safe_mode=False`.
"""
import inspect
import types

import numpy as np

import tensorflux as tf

from .. import activations as _activations
from .. import config as _config
from ..layers.core import refuse_python_bytecode
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


# Array dtypes a config may hold (plain numbers, booleans and text: nothing that carries objects).
_CONFIG_ARRAY_KINDS = "biufcSU"


def deserialize_keras_object(data, custom_objects=None, safe_mode=True):
    if isinstance(data, list):
        return [deserialize_keras_object(v, custom_objects, safe_mode) for v in data]
    if not isinstance(data, dict):
        return data
    if data.get("class_name") == "__lambda__":
        refuse_python_bytecode(safe_mode)
    if "__ndarray__" in data:
        dtype = np.dtype(str(data.get("dtype")))
        if dtype.kind not in _CONFIG_ARRAY_KINDS:
            raise ValueError(f"A config array may not have dtype {dtype} (numbers, booleans and text only).")
        return np.array(data["__ndarray__"], dtype=dtype)
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
        if not isinstance(name, str):
            raise ValueError(f"A saved function is named by a string, not by {type(name).__name__}.")
        fn = get_registered_object(name, custom_objects) or _activations._BY_NAME.get(name)
        if fn is None:
            raise ValueError(f"Could not locate function '{name}'. Pass it in `custom_objects` or register it "
                             f"with `@keras.saving.register_keras_serializable()`.")
        return fn
    if "class_name" in data and "config" in data:
        cls = _find(data, custom_objects)
        if not isinstance(data["config"], dict):
            raise ValueError(f"The config of a '{data['class_name']}' must be a dict, not "
                             f"{type(data['config']).__name__}.")
        config = {k: deserialize_keras_object(v, custom_objects, safe_mode) for k, v in data["config"].items()}
        from_config = getattr(cls, "from_config", None)
        return from_config(config) if from_config is not None else cls(**config)
    return {k: deserialize_keras_object(v, custom_objects, safe_mode) for k, v in data.items()}


# The public Keras namespaces whose classes a config may name (callbacks and utils are not model parts).
_ALLOWED_NAMESPACES = ("layers", "models", "initializers", "regularizers", "constraints", "losses", "metrics",
                       "optimizers", "mixed_precision")
_builtin_classes = {}      # class name -> [classes]; filled on first use


def _builtins():
    if not _builtin_classes:
        from ..models.model import Model
        found = {Model, Model._functional}
        for name in ("Layer", "Model", "Sequential", "Initializer", "Loss", "Metric", "Optimizer"):
            found.add(getattr(tf.keras, name))
        for name in _ALLOWED_NAMESPACES:
            _collect_classes(getattr(tf.keras, name, None), found, depth=2)
        for cls in sorted(found, key=lambda c: (c.__module__, c.__qualname__)):
            _builtin_classes.setdefault(cls.__name__, []).append(cls)
    return _builtin_classes


def _collect_classes(namespace, found, depth):
    if namespace is None:
        return
    for attr in dir(namespace):
        if attr.startswith("_"):
            continue
        value = getattr(namespace, attr)
        if isinstance(value, type):
            found.add(value)
        elif isinstance(value, types.ModuleType) and depth > 0 and "keras" in value.__name__:
            _collect_classes(value, found, depth - 1)


def _find(ref, custom_objects):
    """The class a config names, from the allow-list only: custom objects, registered classes, then the
    Keras classes tensorflux implements (same name; the module decides between namesakes)."""
    if not isinstance(ref, dict) or not isinstance(ref.get("class_name"), str):
        raise ValueError(f"A saved class reference must be an object with a string `class_name`; got {ref!r:.200}.")
    class_name, module, registered = ref["class_name"], ref.get("module"), ref.get("registered_name")
    custom_objects = custom_objects or {}
    for key in (registered, class_name):
        if isinstance(key, str) and (key in custom_objects or key in _REGISTERED):
            return custom_objects.get(key) or _REGISTERED[key]
    candidates = _builtins().get(class_name, [])
    if len(candidates) > 1:
        candidates = [c for c in candidates if c.__module__ == module] or \
            [c for c in candidates if isinstance(module, str) and module.rsplit(".", 1)[-1] in c.__module__] or \
            candidates[:1]
    if not candidates:
        raise ValueError(f"Could not locate class '{class_name:.200}' (module {str(module):.200}). Keras classes are "
                         f"found by name; pass your own classes in `custom_objects` or register them with "
                         f"`@keras.saving.register_keras_serializable()`.")
    return candidates[0]


API = {"keras.saving": __all__}
