"""Constructor arguments as configs: every Keras object (layer, optimizer, loss, metric) remembers the
arguments it was created with, so that its config can be written from them.

Keras asks each class to write `get_config()` by hand (and custom layers must, to be saved). Here the
base classes record the arguments of the outermost `__init__` call instead — the most derived
constructor, which is what a user called — bound to parameter names. A built-in layer's `get_config()`
is Keras 3's config made from them (keras.saving.keras_config, read back by `from_config`); a user's
layer that writes no `get_config` gets them after the base entries, as Keras' automatic config.
"""
import functools
import inspect
import weakref

__all__ = ["record_init_arguments", "init_arguments"]

# Kept beside the objects, not in their attributes: attribute walks (sublayers, weights, checkpoints) must
# not find the layers an object was constructed from (a Bidirectional's template layer, say).
_ARGUMENTS = weakref.WeakKeyDictionary()


def record_init_arguments(cls):
    """Wraps `cls.__init__` (when `cls` defines one) so the outermost constructor call of an instance
    records its arguments (a dict by parameter name; **kwargs flattened) for `init_arguments`."""
    init = cls.__dict__.get("__init__")
    if init is None or getattr(init, "_records_arguments", False):
        return
    try:
        signature = inspect.signature(init)
    except (TypeError, ValueError):
        return

    @functools.wraps(init)
    def recording_init(self, *args, **kwargs):
        try:
            recorded = self in _ARGUMENTS
        except TypeError:       # unhashable or not weakly referenceable: its config is its own get_config
            recorded = True
        try:
            bound = None if recorded else signature.bind(self, *args, **kwargs)
        except TypeError:       # a bad call: let __init__ itself raise its error
            bound = None
        if bound is not None:
            arguments = {}
            for name, value in list(bound.arguments.items())[1:]:       # skip self
                kind = signature.parameters[name].kind
                if kind is inspect.Parameter.VAR_KEYWORD:
                    arguments.update(value)
                elif kind is inspect.Parameter.VAR_POSITIONAL:
                    if value:
                        arguments["*args"] = list(value)
                else:
                    arguments[name] = value
            _ARGUMENTS[self] = arguments
        init(self, *args, **kwargs)

    recording_init._records_arguments = True
    cls.__init__ = recording_init


def init_arguments(obj):
    """The recorded constructor arguments of `obj` (a copy; empty when none were recorded)."""
    try:
        return dict(_ARGUMENTS.get(obj, {}))
    except TypeError:       # not weakly referenceable: nothing was recorded
        return {}
