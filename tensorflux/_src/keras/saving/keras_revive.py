"""Keras 3 configs back into tensorflux objects: the `config.json` of a `.keras` archive written by Keras
3.15 (or by tensorflux, keras_config.py), and compile configs.

A config is untrusted data. Classes are found only through the allow-list of object_registration.py
(`custom_objects`, scopes, registered classes, then the Keras classes tensorflux implements, by class
name); operators of a functional graph only among Keras's operator names; functions only among the
registered ones and Keras's activations; a `__lambda__` (Python bytecode) is refused. Keras writes every constructor
argument of a built-in class; an argument tensorflux's class lacks is dropped when it holds Keras's
default or an inert value (None, False, …) and refused with a ValueError naming it otherwise, so a file
never silently loses behaviour. Functional graphs are replayed from their `inbound_nodes`, each reference
checked; a dangling or circular one raises ValueError.
"""
import inspect

import numpy as np

import tensorflux as tf

from .. import activations as _activations
from ..keras_tensor import _OPERATOR_FUNCTIONS, operation_named
from ..layers.core import refuse_python_bytecode
from ..layers.input_layer import InputLayer
from ..layers.layer import Layer
from ..models.model import Model, Sequential
from ..optimizers.optimizer import Optimizer
from .keras_config import constructor_parameters, keras_module_of
from .object_registration import _GLOBAL_CUSTOM_NAMES, find_class, get_registered_object, in_safe_mode

__all__ = ["revive", "revive_model", "compile_arguments"]

# Keras 3 arguments tensorflux's classes lack, with the values at which leaving them out changes nothing.
_INERT = {"quantization_config": None, "lora_rank": None, "lora_alpha": None, "synchronized": False,
          "renorm": False, "renorm_clipping": None, "renorm_momentum": 0.99, "optional": False, "ragged": False,
          "sparse": False, "seed": None, "input_axes": None, "output_axes": None, "use_ema": False,
          "ema_momentum": 0.99, "ema_overwrite_frequency": None, "gradient_accumulation_steps": None,
          "loss_scale_factor": None, "autocast": True, "dtype": None, "reduction": "sum_over_batch_size",
          "activity_regularizer": None, "kernel_constraint": None, "bias_constraint": None,
          "recurrent_constraint": None, "beta_constraint": None, "gamma_constraint": None,
          "embeddings_constraint": None, "depthwise_constraint": None, "pointwise_constraint": None,
          "use_cudnn": "auto", "zero_output_for_mask": False, "stateful": False, "unroll": False,
          "name": None, "trainable": True, "data_format": None}
_MAX_DEPTH = 200


def _is_builtin(cls):
    return keras_module_of(cls) is not None and cls not in _GLOBAL_CUSTOM_NAMES


def _accepted(cls):
    """The keyword arguments `cls`'s constructors take (None: any, through an open **kwargs)."""
    names = set()
    cell_class = getattr(cls, "_cell_class", None)       # LSTM, GRU…: their **kwargs configure their cell
    if isinstance(cell_class, type):
        names |= _accepted(cell_class) or set()
    for klass in cls.__mro__:
        init = vars(klass).get("__init__")
        if init is None or klass is object:
            continue
        parameters = constructor_parameters(init)
        if parameters is None:
            return None
        names.update(n for n, p in parameters.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))
        if not any(p.kind is p.VAR_KEYWORD for p in parameters.values()):
            return names
    return names


# Values Keras writes after building that mean the default tensorflux's class takes as None (a
# MultiHeadAttention built on (batch, time, features) queries attends over axis 1).
_BUILT_DEFAULTS = {("MultiHeadAttention", "attention_axes"): ([1], (1,))}


def _fit_arguments(cls, config):
    """`config` without the Keras arguments `cls` lacks (see the module docstring)."""
    for (name, key), values in _BUILT_DEFAULTS.items():
        if cls.__name__ == name and config.get(key) in values:
            config = dict(config, **{key: None})
    accepted = _accepted(cls)
    if accepted is None:
        return config
    kept = {}
    for key, value in config.items():
        if key in accepted:
            kept[key] = value
        elif not (value is None or value is False or value == _INERT.get(key, object())):
            raise NotImplementedError(f"tensorflux's {cls.__name__} does not implement the argument `{key}` (the "
                                      f"file sets it to {value!r:.100}).")
    return kept


class _Reviver:
    def __init__(self, custom_objects, safe_mode):
        self.custom_objects = dict(custom_objects or {})
        self.safe_mode = in_safe_mode(safe_mode)

    def value(self, data, depth=0):
        if depth > _MAX_DEPTH:
            raise ValueError("The config is nested too deeply to be read.")
        if isinstance(data, list):
            return [self.value(v, depth + 1) for v in data]
        if not isinstance(data, dict):
            return data
        kind = data.get("class_name")
        config = data.get("config")
        if kind == "__lambda__":
            refuse_python_bytecode(self.safe_mode)
        if kind in ("__numpy__", "__tensor__") and isinstance(config, dict):
            dtype = np.dtype(str(config.get("dtype")))
            if dtype.kind not in "biufcSU":
                raise ValueError(f"A config array may not have dtype {dtype} (numbers, booleans and text only).")
            array = np.array(config.get("value"), dtype=dtype)
            return tf.constant(array) if kind == "__tensor__" else array
        if kind == "__slice__" and isinstance(config, dict):
            return slice(*(self.value(config.get(k), depth + 1) for k in ("start", "stop", "step")))
        if kind == "__ellipsis__":
            return Ellipsis
        if kind == "__keras_tensor__":
            raise ValueError("A `__keras_tensor__` reference appears outside a functional model's nodes.")
        if kind in ("DTypePolicy", "FloatDTypePolicy") and isinstance(config, dict):
            return str(config.get("name"))
        if kind == "function":
            return self.function(config)
        if isinstance(kind, str) and "config" in data and ("module" in data or "registered_name" in data):
            return self.object(data, depth)
        return {k: self.value(v, depth + 1) for k, v in data.items()}

    def function(self, name):
        if not isinstance(name, str):
            raise ValueError(f"A saved function is named by a string, not by {type(name).__name__}.")
        fn = get_registered_object(name, self.custom_objects) or _activations._BY_NAME.get(name)
        if fn is None:
            raise ValueError(f"Could not locate function '{name:.100}'. Pass it in `custom_objects` or register "
                             f"it with `@keras.saving.register_keras_serializable()`.")
        return fn

    def object(self, data, depth=0):
        if not isinstance(data.get("config"), dict):
            raise ValueError(f"The config of a '{data['class_name']:.100}' must be a dict, not "
                             f"{type(data.get('config')).__name__}.")
        cls = find_class(data, self.custom_objects)
        if isinstance(cls, type) and issubclass(cls, Sequential) and _is_builtin(cls):
            return self.sequential(data["config"], depth)
        if isinstance(cls, type) and issubclass(cls, Model) and (data["class_name"] == "Functional" or (
                "input_layers" in data["config"] and "output_layers" in data["config"])):
            return self.functional(data["config"], depth)
        config = {k: self.value(v, depth + 1) for k, v in data["config"].items()}
        if not isinstance(cls, type):
            raise ValueError(f"'{data['class_name']:.100}' names a function, where a class is expected.")
        if _is_builtin(cls):
            config = _fit_arguments(cls, config)
        from_config = getattr(cls, "from_config", None)
        return from_config(config) if from_config is not None else cls(**config)

    # -- models ------------------------------------------------------------------------------------
    def layer(self, data, depth):
        if not isinstance(data, dict) or not isinstance(data.get("class_name"), str):
            raise ValueError(f"A model config lists {data!r:.100} where a layer is expected.")
        layer = self.object({k: v for k, v in data.items() if k not in ("inbound_nodes", "name")}, depth + 1)
        if not isinstance(layer, Layer):
            raise ValueError(f"A model config lists a {type(layer).__name__} where a layer is expected.")
        return layer

    def sequential(self, config, depth):
        entries = config.get("layers")
        if not isinstance(entries, list):
            raise ValueError("A Sequential config must list its `layers`.")
        model = Sequential(name=config.get("name"), trainable=config.get("trainable", True))
        for entry in entries:
            model.add(self.layer(entry, depth), rebuild=False)
        model._build_from_input_shape()
        shape = config.get("build_input_shape")
        if not model.built and isinstance(shape, list):
            build_on_zeros(model, shape)
        return model

    def functional(self, config, depth):
        entries = config.get("layers")
        if not isinstance(entries, list):
            raise ValueError("A functional config must list its `layers`.")
        operations, pending = {}, []
        for entry in entries:
            if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
                raise ValueError(f"A functional config lists {entry!r:.100} without a name.")
            nodes = entry.get("inbound_nodes", [])
            if not isinstance(nodes, list):
                raise ValueError(f"The `inbound_nodes` of '{entry['name']:.100}' must be a list.")
            if entry.get("class_name") in _OPERATOR_FUNCTIONS and str(entry.get("module")).startswith("keras.src.ops"):
                operations[entry["name"]] = entry["class_name"]
            else:
                operations[entry["name"]] = self.layer(entry, depth)
            pending += [(entry["name"], node) for node in nodes]
        tensors, calls = {}, {}
        for name, operation in operations.items():
            if isinstance(operation, InputLayer):
                tensors[(name, 0, 0)] = operation.output
                calls[name] = 1
        while pending:      # a node runs once every tensor it takes exists (shared layers may wait)
            waiting = []
            for name, node in pending:
                arguments = self.node_arguments(node, tensors)
                if arguments is None:
                    waiting.append((name, node))
                    continue
                args, kwargs = arguments
                operation = operations[name]
                result = operation_named(operation)(*args) if isinstance(operation, str) else \
                    operation(*args, **kwargs)
                index = calls.get(name, 0)
                calls[name] = index + 1
                tensors.update({(name, index, j): t for j, t in enumerate(tf.nest.flatten(result))})
            if len(waiting) == len(pending):
                raise ValueError(f"The functional config's layer '{waiting[0][0]:.100}' takes tensors no other "
                                 f"layer produces.")
            pending = waiting

        def end(ref):
            if isinstance(ref, list) and len(ref) == 3 and isinstance(ref[0], str):
                key = (ref[0], ref[1], ref[2])
                if key not in tensors:
                    raise ValueError(f"The functional config names the model end {ref!r:.100}, which no layer "
                                     f"produces.")
                return tensors[key]
            if isinstance(ref, list):
                return [end(r) for r in ref]
            if isinstance(ref, dict):
                return {k: end(v) for k, v in ref.items()}
            raise ValueError(f"A functional model end must be [layer, node, tensor], not {ref!r:.100}.")
        return Model._functional(end(config.get("input_layers")), end(config.get("output_layers")),
                                 name=config.get("name"), trainable=config.get("trainable", True))

    def node_arguments(self, node, tensors):
        """(args, kwargs) of a saved call with its tensors resolved, or None while one is not made yet."""
        if not isinstance(node, dict):
            raise ValueError(f"A functional node must be a dict, not {type(node).__name__}.")
        missing = []

        def decode(value, depth=0):
            if depth > _MAX_DEPTH:
                raise ValueError("A functional node is nested too deeply.")
            if isinstance(value, dict) and value.get("class_name") == "__keras_tensor__":
                history = (value.get("config") or {}).get("keras_history")
                if not (isinstance(history, list) and len(history) == 3 and isinstance(history[0], str)):
                    raise ValueError(f"A `__keras_tensor__` has a malformed keras_history {history!r:.100}.")
                key = tuple(history)
                if key not in tensors:
                    missing.append(key)
                    return None
                return tensors[key]
            if isinstance(value, list):
                return [decode(v, depth + 1) for v in value]
            if isinstance(value, dict) and "class_name" not in value:
                return {k: decode(v, depth + 1) for k, v in value.items()}
            return self.value(value, depth + 1)
        args = decode(node.get("args", []))
        kwargs = decode(node.get("kwargs", {}))
        if not isinstance(args, list) or not isinstance(kwargs, dict):
            raise ValueError("A functional node's `args` must be a list and its `kwargs` a dict.")
        if missing:
            return None
        # Keras records the defaults it filled in (mask=None, training=False); tensorflux layers take
        # their training mode from the model call.
        kwargs = {k: v for k, v in kwargs.items() if v is not None and k != "training"}
        return args, kwargs


_MAX_BUILD_ELEMENTS = 1 << 24     # elements of the zeros a loaded model is built on (one sample each input)
_MAX_BUILD_INPUTS = 1024


def build_on_zeros(model, shapes):
    """Calls `model` once on zeros of the saved input shape(s) (unknown dimensions taken as 1), within
    limits, so that it creates its weights."""
    budget = [_MAX_BUILD_ELEMENTS, _MAX_BUILD_INPUTS]

    def zeros(shape):
        if isinstance(shape, list) and all(d is None or type(d) is int for d in shape):
            dims = [1 if d is None else d for d in shape]
            if any(d < 0 for d in dims):
                raise ValueError(f"A saved build shape has a negative dimension: {shape!r:.200}.")
            budget[0] -= int(np.prod(dims, dtype=np.float64))
            budget[1] -= 1
            if budget[0] < 0 or budget[1] < 0:
                raise ValueError(f"The saved build shapes ({str(shapes):.200}) exceed the limit of "
                                 f"{_MAX_BUILD_ELEMENTS} elements ({_MAX_BUILD_INPUTS} inputs) a loaded model "
                                 f"is built on.")
            return tf.zeros(dims)
        if isinstance(shape, dict):
            return {k: zeros(v) for k, v in shape.items()}
        if isinstance(shape, list):
            return [zeros(s) for s in shape]
        raise ValueError(f"A saved build shape must be a list of dimensions, not {shape!r:.200}.")
    model(zeros(shapes))


def revive(data, custom_objects=None, safe_mode=True):
    """The object a Keras config describes (for `deserialize_keras_object` of Keras-form configs)."""
    return _Reviver(custom_objects, safe_mode).value(data)


def builtin_from_config(cls, config):
    """A built-in layer from its Keras 3 config (serialized objects revived, arguments tensorflux's class
    lacks dropped when they hold Keras' "unused" value)."""
    reviver = _Reviver(None, True)
    config = _fit_arguments(cls, {k: reviver.value(v) for k, v in config.items()})
    return cls(**config)


Layer._builtin_from_config = staticmethod(builtin_from_config)
Optimizer._revive = staticmethod(revive)


def sequential_from_config(config):
    """A Sequential model from Keras 3's config of one (what its get_config() returns)."""
    shape = config.get("build_input_shape")
    if isinstance(shape, tuple):
        config = dict(config, build_input_shape=list(shape))
    return _Reviver(None, True).sequential(config, 0)


Sequential._keras_from_config = staticmethod(sequential_from_config)


def _as_json_lists(value):
    if isinstance(value, dict):
        return {k: _as_json_lists(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_as_json_lists(v) for v in value]
    return value


def functional_from_config(config, custom_objects=None):
    """A functional model from Keras 3's config of one (what its get_config() returns)."""
    return _Reviver(custom_objects, True).functional(_as_json_lists(config), 0)


Model._functional._keras_from_config = staticmethod(functional_from_config)


def revive_model(data, custom_objects=None, safe_mode=True):
    """The (built) model of a `.keras` archive's `config.json`."""
    if not isinstance(data, dict):
        raise ValueError(f"A model config must be a JSON object, not {type(data).__name__}.")
    model = _Reviver(custom_objects, safe_mode).object(data)
    if not isinstance(model, Model):
        raise ValueError(f"The config describes a {type(model).__name__}, not a Keras model.")
    build = data.get("build_config")
    shapes = build.get("input_shape") if isinstance(build, dict) else None
    if not model.built and shapes is not None:
        build_on_zeros(model, shapes)
    return model


_COMPILE_KEYS = ("optimizer", "loss", "loss_weights", "metrics", "weighted_metrics", "run_eagerly")


def compile_arguments(data, custom_objects=None, safe_mode=True):
    """`model.compile` arguments from a Keras `compile_config` ({} when there is none)."""
    if not data:
        return {}
    if not isinstance(data, dict):
        raise ValueError(f"A compile config must be a JSON object, not {type(data).__name__}.")
    reviver = _Reviver(custom_objects, safe_mode)
    return {k: reviver.value(data[k]) for k in _COMPILE_KEYS if k in data}
