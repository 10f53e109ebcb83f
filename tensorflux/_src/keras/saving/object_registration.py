"""Custom objects, as Keras 3 keeps them: the global dict `get_custom_objects()` (filled by
`@register_keras_serializable(package, name)` under `"package>name"`), `custom_object_scope({...})`
for objects known only inside a `with` block, and `keras.config.enable_unsafe_deserialization()`.

These and the Keras classes tensorflux implements are the only objects a file's config can reach
(`find_class`): a class is found through `custom_objects`, the scopes, the registry, then by class name
among the classes the public `keras` namespaces export (the module decides between namesakes) — never by
looking a name up in an arbitrary module, so a config naming `os.system` finds nothing. Unsafe deserialization changes nothing about what a file can do in tensorflux — it never runs
bytecode from a file — only which refusal message a serialized Python lambda gets.
"""
import inspect
import threading
import types

import tensorflux as tf

__all__ = ["register_keras_serializable", "get_custom_objects", "custom_object_scope", "CustomObjectScope",
           "get_registered_name", "get_registered_object", "enable_unsafe_deserialization"]

_GLOBAL_CUSTOM_OBJECTS = {}       # "package>name" (or a name added by hand) -> class or function
_GLOBAL_CUSTOM_NAMES = {}         # class or function -> "package>name"
_SCOPES = threading.local()       # .stack: the dicts of the custom_object_scopes entered, innermost last
_UNSAFE = [False]                 # keras.config.enable_unsafe_deserialization() was called


def register_keras_serializable(package="Custom", name=None):
    """Decorator: makes a class or function loadable from configs as `"package>name"`."""
    def decorator(arg):
        class_name = name if name is not None else arg.__name__
        registered_name = package + ">" + class_name
        if inspect.isclass(arg) and not hasattr(arg, "get_config"):
            raise ValueError("Cannot register a class that does not have a get_config() method.")
        _GLOBAL_CUSTOM_OBJECTS[registered_name] = arg
        _GLOBAL_CUSTOM_NAMES[arg] = registered_name
        try:
            arg._registered_name = registered_name     # what serialization writes as `registered_name`
        except (AttributeError, TypeError):
            pass
        return arg
    return decorator


def get_custom_objects():
    """The global dict of custom objects (registered ones under `"package>name"`); edit it to add more."""
    return _GLOBAL_CUSTOM_OBJECTS


class CustomObjectScope:
    """`with custom_object_scope({"MyLayer": MyLayer}):` — the objects are found by loads in the block."""

    def __init__(self, *custom_objects):
        self.custom_objects = {}
        for objects in custom_objects:
            if objects is None:
                continue
            if not isinstance(objects, dict):
                raise TypeError(f"Arguments of `custom_object_scope` must be dicts of name: object. Received: "
                                f"{objects!r:.200}")
            self.custom_objects.update(objects)

    def __enter__(self):
        if not hasattr(_SCOPES, "stack"):
            _SCOPES.stack = []
        _SCOPES.stack.append(self.custom_objects)
        return self

    def __exit__(self, *exc):
        _SCOPES.stack.pop()


custom_object_scope = CustomObjectScope


def scoped_objects():
    """The objects of the custom_object_scopes entered on this thread (inner ones win)."""
    merged = {}
    for objects in getattr(_SCOPES, "stack", ()):
        merged.update(objects)
    return merged


def get_registered_name(obj):
    """The name `obj` is saved under: `"package>name"` when registered, else its `__name__`."""
    return _GLOBAL_CUSTOM_NAMES.get(obj, getattr(obj, "__name__", None))


def get_registered_object(name, custom_objects=None, module_objects=None):
    """The object saved as `name`: from the scopes entered, the global custom objects, then the
    `custom_objects` and `module_objects` dicts given; None when none has it."""
    for table in (scoped_objects(), _GLOBAL_CUSTOM_OBJECTS, custom_objects or {}, module_objects or {}):
        if isinstance(name, str) and name in table:
            return table[name]
    return None


def enable_unsafe_deserialization():
    """Keras's switch for loading Python lambdas. tensorflux still refuses bytecode from a file (with a
    message saying so instead of Keras's safe-mode message)."""
    _UNSAFE[0] = True


def in_safe_mode(safe_mode):
    """The safe mode a load runs in: its own `safe_mode` unless unsafe deserialization was enabled."""
    return bool(safe_mode) and not _UNSAFE[0]


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


def find_class(ref, custom_objects):
    """The class a config names, from the allow-list only: custom objects, registered classes, then the
    Keras classes tensorflux implements (same name; the module decides between namesakes)."""
    if not isinstance(ref, dict) or not isinstance(ref.get("class_name"), str):
        raise ValueError(f"A saved class reference must be an object with a string `class_name`; got {ref!r:.200}.")
    class_name, module, registered = ref["class_name"], ref.get("module"), ref.get("registered_name")
    for key in (registered, class_name):
        found = get_registered_object(key, custom_objects)
        if found is not None:
            return found
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
