"""`keras.saving.serialize_keras_object` / `deserialize_keras_object` in Keras 3's form
(`{"module", "class_name", "config", "registered_name"}`; keras_config.py writes it, keras_revive.py reads
it through the allow-list of object_registration.py), and the public names of the custom-object registry.

Configs are untrusted data. A Keras-style `Lambda` function carrying Python bytecode
(`"class_name": "__lambda__"`) is refused with Keras's safe-mode message; tensorflux never runs bytecode
from a file, even with `safe_mode=False`.
"""
from .keras_config import keras_object
from .keras_revive import revive
from .object_registration import (CustomObjectScope, custom_object_scope, enable_unsafe_deserialization,
                                  get_custom_objects, get_registered_name, get_registered_object,
                                  register_keras_serializable)

__all__ = ["serialize_keras_object", "deserialize_keras_object", "register_keras_serializable",
           "get_registered_object", "get_registered_name", "get_custom_objects", "custom_object_scope",
           "CustomObjectScope"]


def serialize_keras_object(obj):
    """`obj` (a Keras object, a registered function, plain data) as Keras 3's JSON-able config."""
    return keras_object(obj)


def deserialize_keras_object(config, custom_objects=None, safe_mode=True, **kwargs):
    """The object a Keras 3 config describes (classes from the allow-list only)."""
    return revive(config, custom_objects, safe_mode)


def serialize(obj):
    """`keras.layers.serialize`, `keras.initializers.serialize`, …: `obj` as Keras 3's config."""
    return keras_object(obj)


def deserialize(config, custom_objects=None, **kwargs):
    """`keras.layers.deserialize`, `keras.initializers.deserialize`, …: the object a Keras 3 config
    describes (a bare class name, such as "GlorotUniform", makes that class with its defaults)."""
    if isinstance(config, str):
        config = {"module": None, "class_name": config, "config": {}, "registered_name": None}
    return revive(config, custom_objects)


_SERIALIZERS = ["serialize", "deserialize"]
API = {"keras.saving": __all__, "keras.utils": __all__, "keras.config": ["enable_unsafe_deserialization"],
       **{f"keras.{namespace}": _SERIALIZERS for namespace in (
           "layers", "initializers", "regularizers", "optimizers", "optimizers.schedules", "losses", "metrics")}}
_ = (CustomObjectScope, custom_object_scope, enable_unsafe_deserialization, get_custom_objects,
     get_registered_name, get_registered_object, register_keras_serializable)     # re-exported by API
