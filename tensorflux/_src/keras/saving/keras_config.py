"""tensorflux models as Keras 3 configs: the `config.json` of a `.keras` archive, in the form Keras 3.15
writes and reads (`{"module": "keras.layers", "class_name": "Dense", "config": {...}, "registered_name":
null, "build_config": {...}}`).

tensorflux objects remember the arguments they were made with (keras.config); a built-in class's config
here is its constructor's defaults overlaid with those arguments, so it lists every argument Keras's
`get_config()` would. Values take Keras's serialized forms: initializers, regularizers, optimizers,
losses and schedules as nested objects under their Keras module, the dtype as a `DTypePolicy`, arrays as
`__numpy__`, slices as `__slice__`. Sequential and functional models get Keras's own layouts (an
`InputLayer` first; `inbound_nodes` of `__keras_tensor__` references by `keras_history`), and a
subclassed or custom class is written under its registered name (`package>Name`).

The reverse, Keras configs to objects, is keras_revive.py.
"""
import functools
import inspect

import numpy as np

import tensorflux as tf

from .. import activations as _activations
from .. import config as _config
from ..keras_tensor import KerasTensor, Operation
from ..layers.input_layer import InputLayer
from ..layers.layer import Layer
from ..models.model import Model, Sequential
from ..metrics.base import Metric
from ..optimizers.optimizer import Optimizer

__all__ = ["keras_model_config", "keras_object", "keras_module_of", "constructor_parameters", "POLICY"]

# The public Keras namespaces and the module Keras writes for their classes.
_NAMESPACES = (("layers", "keras.layers"), ("initializers", "keras.initializers"),
               ("regularizers", "keras.regularizers"), ("constraints", "keras.constraints"),
               ("optimizers.schedules", "keras.optimizers.schedules"), ("optimizers", "keras.optimizers"),
               ("losses", "keras.losses"), ("metrics", "keras.metrics"))
_MODULES = {}       # tensorflux class -> Keras module; filled on first use


def keras_module_of(cls):
    """The module Keras 3 writes for a built-in class (None for classes Keras does not define)."""
    if not _MODULES:
        _MODULES.update({Sequential: "keras", Model: "keras", Model._functional: "keras.src.models.functional"})
        for path, module in _NAMESPACES:
            namespace = tf.keras
            for part in path.split("."):
                namespace = getattr(namespace, part, None)
            if namespace is None:
                continue
            for name in dir(namespace):
                value = getattr(namespace, name)
                if isinstance(value, type) and not name.startswith("_"):
                    _MODULES.setdefault(value, module)
    return _MODULES.get(cls)


def POLICY(name="float32"):
    return {"module": "keras", "class_name": "DTypePolicy", "config": {"name": name}, "registered_name": None}


def _registered_name(cls):
    return getattr(cls, "_registered_name", None) if "_registered_name" in vars(cls) else None


@functools.lru_cache(maxsize=1024)
def constructor_parameters(init):
    """The parameters of the function `init` (None when it has no signature), remembered: a constructor's
    signature does not change, and inspect takes ~0.3 ms to read one (a config asks several per layer)."""
    try:
        return inspect.signature(inspect.unwrap(init)).parameters
    except (TypeError, ValueError):
        return None


def _constructor_defaults(cls):
    """{parameter: default} of `cls`'s constructor and, through its **kwargs, its bases' (the most derived
    wins), stopping at Layer, whose own arguments are written separately."""
    defaults = {}
    for klass in cls.__mro__:
        init = vars(klass).get("__init__")
        if init is None:
            continue
        if klass in (object, Layer):
            break
        parameters = constructor_parameters(init)
        if parameters is None:
            break
        for name, p in list(parameters.items())[1:]:
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.default is not p.empty:
                defaults.setdefault(name, p.default)
        if not any(p.kind is p.VAR_KEYWORD for p in parameters.values()):
            break
    cell_class = getattr(cls, "_cell_class", None)       # LSTM, GRU…: their **kwargs configure their cell
    if isinstance(cell_class, type):
        for name, value in _constructor_defaults(cell_class).items():
            defaults.setdefault(name, value)
    return defaults


def _config_of(obj, recorded_only=False):
    """The config Keras would write for a tensorflux object (defaults overlaid by its arguments); with
    `recorded_only`, from its recorded arguments alone (what a built-in layer's own get_config() uses)."""
    cls = type(obj)
    if keras_module_of(cls) is None and not recorded_only:  # a user's class: its get_config(), as in Keras
        return obj.get_config() if hasattr(obj, "get_config") else _config.init_arguments(obj)
    if not recorded_only and isinstance(obj, Optimizer) and "get_config" in vars(cls):
        return obj.get_config()     # a built-in optimizer writing its own config (Muon, the wrappers) is complete
    own = _config.init_arguments(obj)       # what it was made with; get_config() adds current values
    if recorded_only:
        own.update({"name": obj.name, "trainable": obj.trainable} if isinstance(obj, Layer) else {"name": obj.name})
    else:
        own.update(obj.get_config() if hasattr(obj, "get_config") else {})
    config = _constructor_defaults(cls)
    config.update(own)
    config.pop("weights", None)                   # initial weights: Keras never writes them in a config
    own_arguments = _signature_names(cls)
    for key in ("autocast", "input_shape", "input_dim", "batch_input_shape"):
        if key not in own_arguments:                # Layer's keywords, not this class's own arguments
            config.pop(key, None)
    for key, value in _KERAS_ONLY_ARGUMENTS.get(cls.__name__, {}).items():
        config.setdefault(key, getattr(obj, key, value) if key == "activity_regularizer" else value)
    for key in (_METRIC_NOT_WRITTEN if issubclass(cls, Metric) else _NOT_WRITTEN_BY_KERAS).get(cls.__name__, ()):
        config.pop(key, None)
    for key in _WRITTEN_WHEN_SET.get(cls.__name__, ()):
        if config.get(key, 0) is None:
            del config[key]
    if issubclass(cls, Layer):
        config = _standardized(cls.__name__, config)
    config = _in_keras_order(cls, config)
    return _keras_layer_layout(cls.__name__, config) if issubclass(cls, Layer) else config


# Arguments Keras standardizes before its get_config() writes them: a window or step of an N-D layer as an
# N-tuple, `data_format=None` as the image data format, paddings and croppings as pairs per axis, a pooling
# layer's `strides=None` as its pool size, Normalization's axis as a tuple, MultiHeadAttention's
# `value_dim=None` as its key_dim.
_PER_AXIS = ("kernel_size", "strides", "dilation_rate", "pool_size", "output_padding", "size")
_KEEPS_INT_SIZE = ("UpSampling1D",)
_PAIRED = ("padding", "cropping")


def _per_axis(value, rank):
    if isinstance(value, int) and not isinstance(value, bool):
        return (value,) * rank
    if isinstance(value, (list, tuple)) and all(isinstance(v, int) for v in value):
        return tuple(value)
    return value


def _pairs(value, rank):
    if isinstance(value, int) and not isinstance(value, bool):
        return (value, value) if rank == 1 else ((value, value),) * rank
    if isinstance(value, (list, tuple)) and len(value) == rank and rank > 1:
        return tuple((v, v) if isinstance(v, int) else tuple(v) for v in value)
    if isinstance(value, (list, tuple)) and rank == 1:
        return tuple(value)
    return value


def _standardized(class_name, config):
    config = dict(config)
    if "data_format" in config and config["data_format"] is None:
        config["data_format"] = "channels_last"
    rank = {"1D": 1, "2D": 2, "3D": 3}.get(class_name.removesuffix("Transpose")[-2:])
    if rank is not None:
        for key in _PER_AXIS:
            if key in config and not (key == "size" and class_name in _KEEPS_INT_SIZE):
                config[key] = _per_axis(config[key], rank)
        if "pool_size" in config and config.get("strides") is None:
            config["strides"] = config["pool_size"]
        if class_name.startswith(("ZeroPadding", "Cropping")):
            for key in _PAIRED:
                if key in config:
                    config[key] = _pairs(config[key], rank)
    if class_name == "Normalization" and "axis" in config:
        axis = config["axis"]
        config["axis"] = () if axis is None else (axis,) if isinstance(axis, int) else tuple(axis)
    if class_name == "EinsumDense" and isinstance(config.get("output_shape"), int):
        config["output_shape"] = (config["output_shape"],)
    if class_name == "Lambda" and config.get("arguments") is None and "arguments" in config:
        config["arguments"] = {}
    if class_name == "MultiHeadAttention" and config.get("value_dim") is None and "key_dim" in config:
        config["value_dim"] = config["key_dim"]
    return config


# Keras writes a config in its `get_config()` order: the base class's entries first (an optimizer's, an
# initializer's seed), then the constructor's arguments in signature order, then its extra entries.
_OPTIMIZER_FIRST = ("name", "learning_rate", "weight_decay", "clipnorm", "global_clipnorm", "clipvalue", "use_ema",
                    "ema_momentum", "ema_overwrite_frequency", "loss_scale_factor", "gradient_accumulation_steps")


# Keras 3.15's get_config() order of the arguments of the layers whose constructor signature gives another one
# (Keras' MaxPooling2D takes (pool_size, strides, padding) but writes pool_size, padding, strides), recorded
# from Keras; the arguments not listed follow in signature order.
_POOLING_ORDER = ("pool_size", "padding", "strides", "data_format")
_KERAS_ARGUMENT_ORDER = {
    **{f"{kind}Pooling{d}D": _POOLING_ORDER for kind in ("Max", "Average") for d in (1, 2, 3)},
    "Bidirectional": ("merge_mode", "layer", "backward_layer"),
    "CenterCrop": ("data_format", "height", "width"),
    "Resizing": ("data_format", "height", "width"),
    "Dropout": ("rate", "seed", "noise_shape"),
    "AlphaDropout": ("rate", "seed", "noise_shape"),
    "SpatialDropout2D": ("rate", "seed", "data_format"),
    "SpatialDropout3D": ("rate", "seed", "data_format"),
    "Normalization": ("axis", "invert", "mean", "variance"),
    "RNN": ("return_sequences", "return_state", "go_backwards", "stateful", "unroll", "zero_output_for_mask", "cell"),
    "LSTMCell": ("units", "activation", "recurrent_activation", "use_bias", "unit_forget_bias"),
    "GRUCell": ("units", "activation", "recurrent_activation", "use_bias", "kernel_initializer",
                "recurrent_initializer", "bias_initializer", "kernel_regularizer", "recurrent_regularizer",
                "bias_regularizer", "kernel_constraint", "recurrent_constraint", "bias_constraint", "dropout",
                "recurrent_dropout", "reset_after"),
}


def _in_keras_order(cls, config):
    ours = cls.__module__.startswith("tensorflux.")     # a user's class of the same name keeps its own order
    order = list(_KERAS_ARGUMENT_ORDER.get(cls.__name__, ())) if ours else []
    for klass in cls.__mro__:
        init = vars(klass).get("__init__")
        if init is None or klass is object:
            continue
        parameters = constructor_parameters(init)
        if parameters is None:
            break
        order += [n for n in parameters if n not in order]
    if issubclass(cls, Metric) and ours and cls.__name__ not in _METRIC_ARGUMENTS_FIRST:
        order = ["name", "dtype"] + [n for n in order if n not in ("name", "dtype")]
    first = _OPTIMIZER_FIRST if issubclass(cls, Optimizer) else ("seed",) if "seed" in config and not \
        issubclass(cls, Layer) else ()
    rank = {name: i for i, name in enumerate(list(first) + [n for n in order if n not in first])}
    keys = sorted(config, key=lambda k: (rank.get(k, len(rank)), list(config).index(k)))
    return {k: config[k] for k in keys}


# Keras 3.15's own get_config() order of the layers whose order tensorflux's signatures do not give
# (after name, trainable and dtype), recorded from Keras. Only these layers (and LSTM/GRU/SimpleRNN, see
# layers/rnn.py) list `activity_regularizer` when it is None; every layer writes a set one right after
# `dtype` (Layer's base config), except those that keep it in place.
_CONV_ORDER = ("filters", "kernel_size", "strides", "padding", "data_format", "dilation_rate", "groups", "activation",
               "use_bias", "kernel_initializer", "bias_initializer", "kernel_regularizer", "bias_regularizer",
               "activity_regularizer", "kernel_constraint", "bias_constraint")
_CONV_TRANSPOSE_ORDER = ("filters", "kernel_size", "strides", "padding", "output_padding", "data_format",
                         "dilation_rate", "activation", "use_bias", "kernel_initializer", "bias_initializer",
                         "kernel_regularizer", "bias_regularizer", "activity_regularizer", "kernel_constraint",
                         "bias_constraint")
_SEPARABLE_ORDER = ("depth_multiplier", "filters", "kernel_size", "strides", "padding", "data_format",
                    "dilation_rate", "activation", "use_bias", "depthwise_initializer", "pointwise_initializer",
                    "bias_initializer", "depthwise_regularizer", "pointwise_regularizer", "bias_regularizer",
                    "activity_regularizer", "depthwise_constraint", "pointwise_constraint", "bias_constraint")
_DEPTHWISE_ORDER = ("depth_multiplier", "kernel_size", "strides", "padding", "data_format", "dilation_rate",
                    "activation", "use_bias", "depthwise_initializer", "bias_initializer", "depthwise_regularizer",
                    "bias_regularizer", "activity_regularizer", "depthwise_constraint", "bias_constraint")
_RNN_ARGS = ("return_sequences", "return_state", "go_backwards", "stateful", "unroll", "zero_output_for_mask")
_RECURRENT_TAIL = ("kernel_regularizer", "recurrent_regularizer", "bias_regularizer", "activity_regularizer",
                   "kernel_constraint", "recurrent_constraint", "bias_constraint", "dropout", "recurrent_dropout")
_KERAS_KEY_ORDER = {
    **{f"Conv{d}D": _CONV_ORDER for d in (1, 2, 3)},
    **{f"Conv{d}DTranspose": _CONV_TRANSPOSE_ORDER for d in (1, 2, 3)},
    **{f"SeparableConv{d}D": _SEPARABLE_ORDER for d in (1, 2)},
    **{f"DepthwiseConv{d}D": _DEPTHWISE_ORDER for d in (1, 2)},
    "Embedding": ("input_dim", "output_dim", "embeddings_initializer", "embeddings_regularizer", "activity_regularizer",
                  "embeddings_constraint", "mask_zero", "quantization_config"),
    "EinsumDense": ("output_shape", "equation", "activation", "bias_axes", "kernel_initializer", "bias_initializer",
                    "kernel_regularizer", "bias_regularizer", "activity_regularizer", "kernel_constraint",
                    "bias_constraint", "quantization_config"),
    "LSTM": _RNN_ARGS + ("units", "activation", "recurrent_activation", "use_bias", "kernel_initializer",
                         "recurrent_initializer", "bias_initializer", "unit_forget_bias") + _RECURRENT_TAIL + ("seed",),
    "GRU": _RNN_ARGS + ("units", "activation", "recurrent_activation", "use_bias", "kernel_initializer",
                        "recurrent_initializer", "bias_initializer") + _RECURRENT_TAIL + ("reset_after", "seed"),
    "SimpleRNN": _RNN_ARGS + ("units", "activation", "use_bias", "kernel_initializer", "recurrent_initializer",
                              "bias_initializer") + _RECURRENT_TAIL,
    "MultiHeadAttention": ("num_heads", "key_dim", "value_dim", "dropout", "use_bias", "use_gate", "output_shape",
                           "attention_axes", "sliding_window", "kernel_initializer", "bias_initializer",
                           "kernel_regularizer", "bias_regularizer", "activity_regularizer", "kernel_constraint",
                           "bias_constraint", "seed"),
}
_ACTIVITY_KEPT_IN_PLACE = {"MultiHeadAttention", "SimpleRNN"}
_BASE_KEYS = ("name", "trainable", "dtype")


# Layers whose Keras 3.15 get_config() does not start with the base keys (name, trainable, dtype): their
# whole key order, recorded from Keras.
_SPATIAL_DROPOUT_ORDER = ("rate", "seed", "name", "dtype", "data_format")
_KERAS_WHOLE_ORDER = {"ELU": ("name", "alpha", "trainable", "dtype"),
                      **{f"SpatialDropout{d}D": _SPATIAL_DROPOUT_ORDER for d in (1, 2, 3)}}


def _keras_layer_layout(class_name, config):
    """`config` (of a built-in layer) with Keras' placement of `activity_regularizer` and, for the layers
    of `_KERAS_KEY_ORDER`, Keras' order of the other keys (keys Keras does not list keep theirs, after)."""
    if "activity_regularizer" not in config:
        return config
    order = _KERAS_KEY_ORDER.get(class_name)
    activity = config["activity_regularizer"]
    if activity is None and order is None:
        return {k: v for k, v in config.items() if k != "activity_regularizer"}
    head = [k for k in _BASE_KEYS if k in config]
    if activity is not None and class_name not in _ACTIVITY_KEPT_IN_PLACE:
        head.append("activity_regularizer")
    listed = [k for k in (order or ()) if k in config and k not in head]
    rest = [k for k in config if k not in head and k not in listed]
    return {k: config[k] for k in head + listed + rest}


def _signature_names(cls):
    return constructor_parameters(cls.__init__) or {}


# Arguments Keras 3.15's `get_config()` writes that tensorflux's classes do not take (with the value that
# means "not used"), and arguments tensorflux's classes take that Keras's do not write (Keras would refuse
# them when loading). Recorded by comparing the configs of both for the same layers.
_CONVOLUTION = {"activity_regularizer": None, "kernel_constraint": None, "bias_constraint": None}
_KERAS_ONLY_ARGUMENTS = {
    "Dense": {"kernel_constraint": None, "bias_constraint": None, "quantization_config": None},
    "EinsumDense": {"activity_regularizer": None, "kernel_constraint": None, "bias_constraint": None,
                    "quantization_config": None},
    "Conv1D": _CONVOLUTION, "Conv2D": _CONVOLUTION, "Conv3D": _CONVOLUTION,
    "Conv1DTranspose": {"activity_regularizer": None}, "Conv2DTranspose": {"activity_regularizer": None},
    "SeparableConv1D": {"activity_regularizer": None}, "SeparableConv2D": {"activity_regularizer": None},
    "DepthwiseConv2D": {"activity_regularizer": None, "bias_constraint": None, "depthwise_constraint": None},
    "Embedding": {"activity_regularizer": None, "quantization_config": None},
    "LSTM": {"activity_regularizer": None}, "GRU": {"activity_regularizer": None},
    "SimpleRNN": {"activity_regularizer": None},
    "BatchNormalization": {"renorm": False, "renorm_clipping": None, "renorm_momentum": 0.99},
    **{name: {"input_axes": None, "output_axes": None} for name in (
        "VarianceScaling", "GlorotUniform", "GlorotNormal", "HeUniform", "HeNormal", "LecunUniform", "LecunNormal")},
}
_NOT_WRITTEN_BY_KERAS = {
    "SimpleRNN": ("recurrent_activation", "seed"), "SimpleRNNCell": ("recurrent_activation",),
    "Embedding": ("lora_rank", "lora_alpha"), "MultiHeadAttention": ("flash_attention",),
    "SpatialDropout1D": ("trainable",),
    # written by Keras only with LoRA enabled, which tensorflux's layers refuse (layer._DEFAULT_ONLY)
    "EinsumDense": ("lora_rank", "lora_alpha", "gptq_unpacked_column_size"),
    **{name: ("lora_rank", "lora_alpha") for name in ("Dense", "Conv1D", "Conv2D", "Conv3D")},
    "SpatialDropout2D": ("trainable",), "SpatialDropout3D": ("trainable",),
    "SparseCategoricalCrossentropy": ("axis",),
    "AdditiveAttention": ("score_mode",), "CategoryEncoding": ("sparse",),
}
# The same for metrics (a metric and a loss may share a class name, not their configs).
_METRIC_NOT_WRITTEN = {"CosineSimilarity": ("axis",), "SparseTopKCategoricalAccuracy": ("from_sorted_ids",)}
# Arguments Keras 3.15 writes only when they are set (not None).
_WRITTEN_WHEN_SET = {"Lambda": ("output_shape", "mask"), "AUC": ("thresholds",)}
# Metrics whose config Keras writes in their signature's order (elsewhere name and dtype come first).
_METRIC_ARGUMENTS_FIRST = ("BinaryIoU",)


def keras_object(value, tuples=False):
    """`value` in Keras 3's JSON form (see the module docstring); with `tuples`, tuples stay tuples (as
    a `get_config()` returns them, before JSON)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, tuple) and tuples:
        return tuple(keras_object(v, tuples) for v in value)
    if isinstance(value, (list, tuple)):
        return [keras_object(v, tuples) for v in value]
    if isinstance(value, dict):
        return {str(k): keras_object(v, tuples) for k, v in value.items()}
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return {"class_name": "__numpy__", "config": {"value": value.tolist(), "dtype": value.dtype.name}}
    if isinstance(value, (tf.Tensor, tf.Variable)):
        return {"class_name": "__tensor__", "config": {"value": value.numpy().tolist(), "dtype": value.dtype.name}}
    if isinstance(value, tf.DType):
        return value.name
    if isinstance(value, slice):
        return {"class_name": "__slice__", "config": {"start": keras_object(value.start),
                                                       "stop": keras_object(value.stop),
                                                       "step": keras_object(value.step)}}
    if value is Ellipsis:
        return {"class_name": "__ellipsis__", "config": {}}
    if inspect.isfunction(value) or inspect.isbuiltin(value):
        return _function(value)
    if isinstance(value, Layer):
        return layer_entry(value, tuples)
    if isinstance(value, type):
        raise ValueError(f"Cannot save the class {value.__name__} in a Keras config (save an instance).")
    return _object_entry(value)


def _function(fn):
    registered = getattr(fn, "_registered_name", None)
    if registered:
        return {"module": fn.__module__, "class_name": "function", "config": registered,
                "registered_name": "function"}
    for name, activation in _activations._BY_NAME.items():
        if fn is activation or any(getattr(ns, name, None) is fn for ns in (tf.nn, tf.math, tf)):
            return name
    if getattr(fn, "__name__", None) == "<lambda>" and hasattr(fn, "__code__"):
        return _lambda_entry(fn)
    # Keras writes any other function by its name alone; loading finds it only among the registered ones.
    return {"module": "builtins", "class_name": "function", "config": fn.__name__, "registered_name": "function"}


def _lambda_entry(fn):
    """Keras 3's form of a lambda (a `Lambda` layer's function): its bytecode, base64 in lines of 76, with its
    defaults and closure values. Written for Keras to read; tensorflux itself never loads it (files are data,
    never code: keras_revive refuses `__lambda__`, whatever `safe_mode` says)."""
    import base64
    import marshal
    closure = fn.__closure__
    return {"class_name": "__lambda__", "config": {
        "code": base64.encodebytes(marshal.dumps(fn.__code__)).decode("ascii"),
        "defaults": None if fn.__defaults__ is None else [keras_object(v) for v in fn.__defaults__],
        "closure": None if closure is None else [keras_object(cell.cell_contents) for cell in closure]}}


def _object_entry(obj):
    cls = type(obj)
    module = keras_module_of(cls)
    config = _config_of(obj)
    if config is None:
        raise ValueError(f"Cannot save {obj!r} (of type {cls.__name__}): it has no config.")
    if isinstance(obj, Optimizer) and obj._schedule is not None:
        config["learning_rate"] = obj._schedule
    if "activation" in config and config["activation"] is None:
        config["activation"] = "linear"
    return {"module": module or _module_name(cls), "class_name": cls.__name__,
            "config": {k: keras_object(v) for k, v in config.items()},
            "registered_name": None if module else (_registered_name(cls) or cls.__name__)}


# -- layers and models ------------------------------------------------------------------------------------
def _build_config(layer):
    """Keras's `build_config`: the shape of the one tensor argument the layer was first called with, as
    `{"input_shape": shape}`, or with several (attention's query and value) `{"shapes_dict":
    {"query_shape": ..., "value_shape": ...}}`, keyed by the call's parameter names; None when unknown."""
    node = vars(layer).get("_first_node")
    if node is not None:
        try:
            bound = inspect.signature(type(layer).call).bind(None, *node.args, **node.kwargs).arguments
        except TypeError:
            bound = None
        if bound:
            shapes = {f"{name}_shape": tf.nest.map_structure(lambda t: list(t.shape), value)
                      for name, value in list(bound.items())[1:]
                      if value is not None and tf.nest.flatten(value)
                      and all(isinstance(t, KerasTensor) for t in tf.nest.flatten(value))}
            if len(shapes) > 1:
                return {"shapes_dict": shapes}
    shape = _input_shape_of(layer)
    return None if shape is None else {"input_shape": shape}


def _input_shape_of(layer):
    """The input shape(s) a layer was built for (None when unknown)."""
    node = vars(layer).get("_first_node")
    if node is not None and node.args:
        first = node.args[0]
        return tf.nest.map_structure(lambda t: list(t.shape) if isinstance(t, KerasTensor) else None, first)
    shapes = getattr(layer, "_build_shapes", None)
    return keras_object(shapes)


def _layer_config(layer, recorded_only=False, tuples=False):
    config = dict(_config_of(layer, recorded_only))
    builtin = keras_module_of(type(layer)) is not None
    if not builtin and not recorded_only:   # a user's get_config() is written as it is, as Keras does
        return {k: keras_object(v, tuples) for k, v in config.items()}
    for key in ("activation", "recurrent_activation"):
        if builtin and key in config and config[key] is None:
            config[key] = "linear"
    ordered = {"name": config.pop("name", layer.name), "trainable": config.pop("trainable", layer.trainable),
               "dtype": POLICY()}
    if "trainable" in _NOT_WRITTEN_BY_KERAS.get(type(layer).__name__, ()):
        del ordered["trainable"]
    config.pop("dtype", None)
    ordered.update({k: keras_object(_as_object(k, v) if builtin else v, tuples) for k, v in config.items()})
    whole = _KERAS_WHOLE_ORDER.get(type(layer).__name__) if builtin else None
    if whole is not None:      # the base keys elsewhere than first, as Keras writes them
        if type(layer).__name__.startswith("SpatialDropout"):     # its dtype's name, not the policy
            ordered["dtype"] = layer.dtype
        listed = [k for k in whole if k in ordered]
        ordered = {k: ordered[k] for k in listed + [k for k in ordered if k not in listed]}
    return ordered


def builtin_layer_get_config(layer):
    """What `get_config()` of a built-in layer returns: Keras 3's config of it (name, trainable, the
    DTypePolicy, then every constructor argument in Keras's order, objects serialized, tuples kept)."""
    return _layer_config(layer, recorded_only=True, tuples=True)


Layer._builtin_get_config = staticmethod(builtin_layer_get_config)


def builtin_serialized(config):
    """`config`'s values as a built-in layer's get_config() returns them in Keras 3: objects (named ones
    included) as their serialized dicts, inner layers as layer entries, tuples kept."""
    return {k: keras_object(_as_object(k, v), tuples=True) for k, v in config.items()}


Layer._builtin_serialized = staticmethod(builtin_serialized)


def builtin_optimizer_get_config(optimizer):
    """What `get_config()` of a built-in optimizer returns in Keras 3: every argument in Keras' order, the
    learning rate as it is now (a schedule serialized)."""
    config = dict(_config_of(optimizer, recorded_only=True))
    config["learning_rate"] = optimizer._config_learning_rate()
    return builtin_serialized(config)


Optimizer._builtin_get_config = staticmethod(builtin_optimizer_get_config)


def builtin_metric_get_config(metric):
    """What `get_config()` of a built-in metric returns in Keras 3: its name and dtype's name, then its
    arguments (BinaryIoU: arguments first), as Keras writes them."""
    config = dict(_config_of(metric, recorded_only=True))
    config["dtype"] = metric.dtype.name
    return builtin_serialized(config)


Metric._builtin_get_config = staticmethod(builtin_metric_get_config)

_SHAPE_KEYS = ("batch_shape", "input_shape", "build_input_shape")


def _shapes_as_tuples(value, key=None, tensor=False):
    """A config with its shapes (and a node's positional `args`) as tuples, as `get_config()` returns them
    (JSON makes them lists)."""
    if isinstance(value, dict):
        tensor = value.get("class_name") == "__keras_tensor__"
        return {k: _shapes_as_tuples(v, k, tensor and k == "config") for k, v in value.items()}
    if isinstance(value, list):
        items = [_shapes_as_tuples(v) for v in value]
        return tuple(items) if key in _SHAPE_KEYS or key == "args" else items
    return value


def _tensor_shapes_as_tuples(value):
    if isinstance(value, dict):
        if value.get("class_name") == "__keras_tensor__" and isinstance(value.get("config"), dict):
            config = dict(value["config"])
            if isinstance(config.get("shape"), list):
                config["shape"] = tuple(config["shape"])
            return dict(value, config=config)
        return {k: _tensor_shapes_as_tuples(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_tensor_shapes_as_tuples(v) for v in value)
    return value


def functional_get_config(model):
    """What a functional model's `get_config()` returns: Keras 3's config (serialized layers with their
    inbound nodes, input_layers and output_layers)."""
    return _tensor_shapes_as_tuples(_shapes_as_tuples(_functional_entry(model)["config"]))


def sequential_get_config(model):
    """What `Sequential.get_config()` returns: Keras 3's config (serialized layers, an InputLayer first)."""
    return _shapes_as_tuples(_sequential_entry(model)["config"])


Sequential._keras_get_config = staticmethod(sequential_get_config)
Model._functional._keras_get_config = staticmethod(functional_get_config)


def _module_name(cls):
    """The module Keras writes for a user's class (None for `__main__`, as Keras writes it)."""
    return None if cls.__module__ == "__main__" else cls.__module__


def _as_object(key, value):
    """A named initializer, regularizer or constraint ("glorot_uniform", "l2", "non_neg") as the object
    Keras would write."""
    if not isinstance(value, str):
        return value
    from .. import constraints, initializers, regularizers
    try:
        if key.endswith("_initializer"):
            return initializers.get(value)
        if key.endswith("_regularizer"):
            return regularizers.get(value)
        if key.endswith("_constraint"):
            return constraints.get(value)
    except ValueError:
        pass
    return value


def layer_entry(layer, tuples=False):
    """A layer (or model) as Keras 3 serializes it (with `tuples`, as a get_config() holds it: tuples
    kept)."""
    if isinstance(layer, Sequential):
        return _sequential_entry(layer)
    if isinstance(layer, Model._functional):
        return _functional_entry(layer)
    cls = type(layer)
    module = keras_module_of(cls)
    if isinstance(layer, InputLayer):
        return _input_entry(layer.batch_shape, layer.dtype, layer.name)
    entry = {"module": module or _module_name(cls), "class_name": cls.__name__,
             "config": _layer_config(layer, tuples=tuples),
             "registered_name": None if module else (_registered_name(cls) or cls.__name__)}
    builds = not getattr(cls.build, "_default_build", False) or isinstance(layer, Model)
    if layer.built and builds:
        build_config = _build_config(layer)
        if build_config is not None:
            entry["build_config"] = _as_tuples(build_config) if tuples else build_config
    return entry


def _as_tuples(value):
    if isinstance(value, dict):
        return {k: _as_tuples(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return tuple(_as_tuples(v) for v in value)
    return value


def _input_entry(batch_shape, dtype, name):
    return {"module": "keras.layers", "class_name": "InputLayer",
            "config": {"batch_shape": list(batch_shape), "dtype": dtype, "sparse": False, "ragged": False,
                       "name": name, "optional": False}, "registered_name": None}


def _sequential_entry(model):
    shape = list(model._input_shape) if model._input_shape is not None else None
    layers = []
    if shape is not None:
        given = getattr(model, "_input_layer", None)
        layers.append(layer_entry(given) if given is not None else _input_entry(shape, "float32", "input_layer"))
    layers += [layer_entry(layer) for layer in model.layers]
    if shape is None:
        built = getattr(model, "_build_shapes", None)
        shape = list(built) if isinstance(built, (list, tuple)) else None
    config = {"name": model.name, "trainable": model.trainable, "dtype": POLICY(), "layers": layers}
    if shape is not None:
        config["build_input_shape"] = shape
    entry = {"module": "keras", "class_name": "Sequential", "config": config, "registered_name": None}
    if shape is not None:
        entry["build_config"] = {"input_shape": shape}
    return entry


def _functional_entry(model):
    nodes_of = {}       # operation -> its Nodes in this model, in call order (Keras re-indexes per model)
    for node in model._nodes:
        nodes_of.setdefault(node.operation, []).append(node)
    for calls in nodes_of.values():
        calls.sort(key=lambda n: n.index)
    position = {id(n): i for calls in nodes_of.values() for i, n in enumerate(calls)}

    def history(t):
        node, index = t._keras_history
        return [node.operation.name, position.get(id(node), 0), index]

    def encode(value):
        if isinstance(value, KerasTensor):
            return {"class_name": "__keras_tensor__",
                    "config": {"shape": list(value.shape), "dtype": value._dtype.name, "keras_history": history(value)}}
        if isinstance(value, (list, tuple)):
            return [encode(v) for v in value]
        if isinstance(value, dict):
            return {k: encode(v) for k, v in value.items()}
        return keras_object(value)
    layers = []
    for operation in model._operations:
        if isinstance(operation, Operation):
            name = type(operation).__name__
            entry = {"module": "keras.src.ops.numpy", "class_name": name, "config": {"name": operation.name},
                     "registered_name": name}
        else:
            entry = layer_entry(operation)
        entry["name"] = operation.name
        entry["inbound_nodes"] = [{"args": encode(list(n.args)), "kwargs": encode(dict(n.kwargs))}
                                  for n in nodes_of.get(operation, [])]
        layers.append(entry)

    def ends(structure):
        return tf.nest.map_structure(history, structure)
    config = {"name": model.name, "trainable": model.trainable, "layers": layers,
              "input_layers": ends(model._input_struct), "output_layers": ends(model._output_struct)}
    return {"module": "keras.src.models.functional", "class_name": "Functional", "config": config,
            "registered_name": "Functional", "build_config": {"input_shape": None}}


def _compile_config(model):
    arguments = dict(getattr(model, "_compile_arguments", {}))
    return {"optimizer": keras_object(model.optimizer), "loss": keras_object(arguments.get("loss")),
            "loss_weights": keras_object(arguments.get("loss_weights")),
            "metrics": keras_object(arguments.get("metrics")),
            "weighted_metrics": keras_object(arguments.get("weighted_metrics")),
            "run_eagerly": bool(arguments.get("run_eagerly", False)), "steps_per_execution": 1,
            "jit_compile": False}


def keras_model_config(model):
    """The `config.json` of a `.keras` archive for `model`."""
    entry = layer_entry(model)
    if not isinstance(model, (Sequential, Model._functional)) and "build_config" not in entry:
        shapes = getattr(model, "_build_shapes", None)
        if shapes is not None:
            entry["build_config"] = {"input_shape": keras_object(shapes)}
    entry["compile_config"] = _compile_config(model) if getattr(model, "compiled", False) else {}
    return entry
