"""`keras.layers.Layer`: a callable that owns weights, builds them lazily from the shape of its first input,
and finds its sublayers and weights in the order they were assigned as attributes.

    class Linear(keras.layers.Layer):
        def build(self, input_shape):
            self.w = self.add_weight(shape=(input_shape[-1], 4), initializer="ones")
        def call(self, x):
            return tf.matmul(x, self.w)

`layer(x)` converts `x` to a tensor (floating inputs become the layer's float32), calls `build` once with
`x`'s shape as a tuple, then `call`. The `training` flag is resolved once per call: passed explicitly, else
inherited from the enclosing layer call, else the default of `call`'s own signature.

Masks (keras.masks) flow as in Keras 3: the mask the first input carries is passed as `mask=` to a `call`
that accepts one (unless given); a layer that supports masking (`supports_masking`, true by default when
it overrides `compute_mask`) attaches `compute_mask(inputs, mask)` to its outputs; any other layer given a
masked input warns that it drops the mask.
"""
import functools
import inspect
import warnings

import numpy as np

import tensorflux as tf

from .. import call_errors as _call_errors
from ...framework.context import state as _context_state
from .. import config as _config
from .. import constraints as _constraints
from .. import initializers as _initializers
from .. import keras_tensor
from .. import masks as _masks
from .. import regularizers as _regularizers
from ..naming import to_snake_case, unique_name
from .. import variables as _variables
from ..variables import Variable as _KerasVariable, layer_scope as _layer_scope

_TRAINING = [None]  # training flag of the enclosing layer calls (innermost last)
_CALL_SPECS = {}    # type(layer) -> (call accepts `training`, its default)
_TAKES_MASK = {}    # type(layer) -> whether its call accepts a `mask` argument


def _call_spec(cls):
    spec = _CALL_SPECS.get(cls)
    if spec is None:
        try:
            params = inspect.signature(cls.call).parameters
        except (TypeError, ValueError):
            params = {}
        training = params.get("training")
        spec = (training is not None, None if training is None or training.default is inspect.Parameter.empty
                else training.default)
        _CALL_SPECS[cls] = spec
    return spec


def _takes_mask(cls):
    takes = _TAKES_MASK.get(cls)
    if takes is None:
        try:
            params = inspect.signature(cls.call).parameters
        except (TypeError, ValueError):
            params = {}
        takes = _TAKES_MASK[cls] = "mask" in params or any(
            p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    return takes


class _graph_scope:
    """While a graph is traced, a layer call's ops sit in the layer's name scope as Keras 3 puts them there:
    Keras enters a TensorFlow name scope of the layer's name twice per call, so the first call's ops are
    `dense_1/MatMul` and a second call's in the same graph `dense_3/MatMul`. Eager calls skip it."""

    __slots__ = ("_layer", "_scope")

    def __init__(self, layer):
        self._layer = layer
        self._scope = None

    def __enter__(self):
        graph = _context_state.graph
        if graph is not None:
            graph.unique_name(self._layer.name)         # the name Keras' first scope takes
            self._scope = graph.name_scope(self._layer.name)
            self._scope.__enter__()
        return self

    def __exit__(self, *exc):
        if self._scope is not None:
            self._scope.__exit__(*exc)
            self._scope = None
        return False


def _mask_of(first):
    """The mask(s) carried by a call's first input (a structure of masks for a structure of inputs), or None."""
    if isinstance(first, (list, tuple, dict)):
        masks = tf.nest.map_structure(_masks.get_mask, first)
        return masks if any(m is not None for m in tf.nest.flatten(masks)) else None
    return _masks.get_mask(first)


def _as_input(x):
    """Arrays and Python numbers become tensors; floating ones are float32 (Keras's default float type)."""
    if isinstance(x, (tf.Tensor, tf.Variable)):
        if x.dtype.is_floating and x.dtype != tf.float32:
            return tf.cast(x, tf.float32)
        return x
    if isinstance(x, dict) or isinstance(x, (list, tuple)) and any(
            isinstance(e, (tf.Tensor, tf.Variable, np.ndarray)) for e in tf.nest.flatten(x)):
        return tf.nest.map_structure(_as_input, x)  # a structure of inputs, not one nested-list array
    if isinstance(x, (np.ndarray, np.generic, list, float, int)):
        array = np.asarray(x)
        if array.dtype.kind == "f":
            return tf.constant(array, tf.float32)
        return tf.constant(array)
    return x


def _shape_of(x):
    shape = getattr(x, "shape", None)
    if shape is None:
        return None
    return tuple(tf.TensorShape(shape).as_list())


_KERAS_PACKAGE = __name__.rsplit(".", 2)[0]     # tensorflux._src.keras


def _is_builtin(cls):
    """Whether `cls` is one of tensorflux's own Keras classes (not a user's subclass)."""
    return cls.__module__.startswith(_KERAS_PACKAGE)


def _writes_get_config(cls):
    """Whether a user's class (or a user base of it) defines its own get_config()."""
    for klass in cls.__mro__:
        if _is_builtin(klass):
            return False
        if "get_config" in vars(klass):
            return True
    return False


class _SymbolicRunStopped(Exception):
    """A plain tf.Variable was made during a symbolic build run (Keras' scratch graph refuses it)."""


# Keras 3 arguments of some layers that tensorflux accepts only at their default values (a layer given
# another value raises NotImplementedError naming the feature; the default is accepted and changes
# nothing, as in Keras): {class name: {argument: (default, feature)}}; _ANY accepts every value.
_ANY = object()
_LORA = "LoRA (low-rank adaptation of the kernel)"
_DEFAULT_ONLY = {
    **{name: {"lora_rank": (None, _LORA), "lora_alpha": (None, _LORA),
              "quantization_config": (None, "quantization")} for name in ("Dense", "Conv1D", "Conv2D", "Conv3D")},
    "Embedding": {"lora_alpha": (None, _LORA), "quantization_config": (None, "quantization")},
    # renorm_momentum only matters with renorm=True, which is refused
    "BatchNormalization": {"renorm": (False, "batch renormalization (renorm=True)"),
                           "renorm_clipping": (None, "batch renormalization (renorm_clipping)"),
                           "renorm_momentum": (_ANY, None)},
    "InputLayer": {"ragged": (False, "ragged Keras inputs (ragged=True)")},
}


def _refuse_unsupported_keras_arguments(cls, kwargs):
    """Removes from `kwargs` the Keras arguments of `cls` listed in _DEFAULT_ONLY; a non-default value raises
    NotImplementedError naming the feature."""
    for klass in cls.__mro__:
        table = _DEFAULT_ONLY.get(klass.__name__)
        if table is None or klass.__module__.split(".")[0] != "tensorflux":
            continue
        for argument, (default, feature) in table.items():
            if argument not in kwargs:
                continue
            value = kwargs.pop(argument)
            if default is not _ANY and value is not default and value != default:
                raise NotImplementedError(f"tensorflux's {klass.__name__} does not implement {feature}. Received: "
                                          f"{argument}={value!r}")
        return


def _check_float32(dtype):
    """Layers compute and keep their weights in float32; other dtypes and mixed-precision policies are not
    implemented (NotImplementedError), names that are no dtype at all are Keras' ValueError."""
    name = getattr(dtype, "name", dtype)
    if isinstance(name, str) and name.startswith(("mixed_", "float8")):
        raise NotImplementedError(f"tensorflux's Keras layers compute in float32 only: the mixed-precision dtype "
                                  f"policy {name!r} is not implemented. Received: dtype={dtype}")
    try:
        as_dtype = tf.as_dtype(name)
    except TypeError:
        raise ValueError(f"Invalid dtype: {dtype}") from None
    if as_dtype != tf.float32:
        raise NotImplementedError(f"tensorflux's Keras layers compute in float32 only: dtype {as_dtype.name} is not "
                                  f"implemented. Received: dtype={dtype}")


def _plain_shape(shape):
    """A build shape as Keras records it: a TensorShape as a tuple, lists and tuples of them likewise."""
    if isinstance(shape, tf.TensorShape):
        return tuple(shape.as_list()) if shape.rank is not None else None
    if isinstance(shape, (list, tuple)) and any(isinstance(s, (list, tuple, tf.TensorShape)) for s in shape):
        return type(shape)(_plain_shape(s) for s in shape)
    return shape


class Layer:
    """Base class of Keras layers (and of `keras.Model`)."""

    def __init__(self, *, activity_regularizer=None, trainable=True, dtype=None, autocast=True, name=None,
                 **kwargs):
        self._name = name if name is not None else unique_name(to_snake_case(type(self).__name__))
        if not isinstance(self._name, str) or "/" in self._name:
            raise ValueError(f"Argument `name` must be a string and cannot contain character `/`. "
                             f"Received: name={name} (of type {type(name)})")
        # Sequential models read these to build before the first call.
        self._input_shape_arg = kwargs.pop("input_shape", None)
        input_dim = kwargs.pop("input_dim", None)
        if input_dim is not None and self._input_shape_arg is None:
            self._input_shape_arg = (input_dim,)
        batch_input_shape = kwargs.pop("batch_input_shape", None)
        if batch_input_shape is not None and self._input_shape_arg is None:
            self._input_shape_arg = tuple(batch_input_shape)[1:]
        if self._input_shape_arg is not None:
            warnings.warn("Do not pass an `input_shape`/`input_dim` argument to a layer. When using Sequential "
                          "models, prefer using an `Input(shape)` object as the first layer in the model "
                          "instead.", stacklevel=2)
        _refuse_unsupported_keras_arguments(type(self), kwargs)
        if kwargs:
            raise ValueError(f"Unrecognized keyword arguments passed to {type(self).__name__}: {kwargs}")
        if isinstance(dtype, dict) and dtype.get("class_name") in ("DTypePolicy", "FloatDTypePolicy"):
            dtype = (dtype.get("config") or {}).get("name")     # a serialized DTypePolicy (get_config's form)
        if dtype is not None:
            _check_float32(dtype)
        self._trainable = bool(trainable)
        self.built = False
        self.autocast = autocast
        self._own_trainable = []       # weights made by add_weight, in creation order
        self._own_non_trainable = []
        self._regularized = []         # (variable, regularizer) pairs
        self._losses = []              # added by add_loss() since the outermost layer call began
        self.activity_regularizer = _regularizers.get(activity_regularizer)
        self._output_shape = None      # shape of the last output, for summary()

    def __init_subclass__(cls, **kwargs):
        # A layer counts as built once its own build() returns, whoever calls it (Keras wraps build alike).
        super().__init_subclass__(**kwargs)
        _config.record_init_arguments(cls)
        build = cls.__dict__.get("build")
        if build is not None and not getattr(build, "_default_build", False):
            @functools.wraps(build)
            def build_then_mark(self, *args, **kwargs):
                if len(args) == 1 and not kwargs and vars(self).get("_build_shapes") is None:
                    # the shape Keras' build_config records, whoever builds the layer (a wrapper, the user)
                    self._build_shapes = _plain_shape(args[0])
                with _layer_scope(self):    # weights (also of sublayers built here) get this layer's path
                    result = build(self, *args, **kwargs)
                self.built = True
                return result
            cls.build = build_then_mark

    # -- identity ------------------------------------------------------------------------------
    @property
    def name(self):
        return self._name

    @property
    def dtype(self):
        return "float32"

    compute_dtype = variable_dtype = dtype

    @property
    def trainable(self):
        return self._trainable

    @trainable.setter
    def trainable(self, value):
        # As Keras 3: the flag of the variables tracked as trainable follows (a frozen layer's weights are
        # not watched by tapes), and so does every sublayer's.
        self._trainable = bool(value)
        for v in self._own_trainable + self._trainable_attribute_variables():
            v.trainable = value
        for layer in self._flat_layers():
            layer.trainable = value

    # -- building and calling ------------------------------------------------------------------
    def build(self, input_shape):
        self.built = True

    build._default_build = True  # a layer whose class does not define build() has nothing to build

    def call(self, *args, **kwargs):
        raise NotImplementedError(f"Layer {type(self).__name__} does not have a `call()` method implemented.")

    # Keras 3 takes only tensors (arrays, converted) as positional arguments, except in the data layers
    # (preprocessing) that accept Python values.
    _allow_non_tensor_positional_args = False

    def _checked_positional(self, args):
        """`args` with arrays made tensors; ValueError (Keras 3's) for any other non-tensor leaf."""
        def convert(x):
            if x is None or isinstance(x, (tf.Tensor, tf.Variable, keras_tensor.KerasTensor)) or tf.is_tensor(x):
                return x
            if isinstance(x, (np.ndarray, np.generic)) or hasattr(x, "__array__"):
                return _as_input(x)
            if self._allow_non_tensor_positional_args:
                return x
            raise ValueError(f"Only input tensors may be passed as positional arguments. The following argument "
                             f"value should be passed as a keyword argument: {x} (of type {type(x)})")
        if self._allow_non_tensor_positional_args and not any(isinstance(a, (list, tuple, dict)) for a in args):
            return args
        return tuple(tf.nest.map_structure(convert, list(args)))

    # A model's input-spec check (`keras.Model` built from inputs sets one), run on every call's inputs.
    _assert_input_compatibility = None

    def __call__(self, *args, **kwargs):
        if args and (len(args) != 1 or not isinstance(args[0], tf.Tensor)):    # one tensor: nothing to check
            args = self._checked_positional(args)
        first = args[0] if args else kwargs.get("inputs")
        if self._assert_input_compatibility is not None and first is not None:
            self._assert_input_compatibility(first)     # before the call, outside its error context (Keras)
        if isinstance(first, keras_tensor.KerasTensor) or (
                isinstance(first, (list, tuple, dict)) and keras_tensor.any_symbolic(first)):
            return self._symbolic_call(first, args, kwargs)
        previous_mask = _mask_of(first) if first is not None else None
        if previous_mask is not None and kwargs.get("mask") is None and _takes_mask(type(self)):
            kwargs["mask"] = previous_mask
        if args:
            args = (_as_input(args[0]),) + args[1:]
            first = args[0]
        elif "inputs" in kwargs:
            kwargs["inputs"] = first = _as_input(kwargs["inputs"])
        else:
            first = None
        if not self.built:
            if getattr(type(self).build, "_default_build", False) and type(self)._build_for is Layer._build_for:
                self._build_by_symbolic_run(args, kwargs)
            self._build_for(first)
        has_training, default = _call_spec(type(self))
        training = kwargs.pop("training", None)
        if training is None:
            training = _TRAINING[-1]
            if training is None:
                training = default
        if has_training and training is not None:
            kwargs["training"] = training
        if len(_TRAINING) == 1:
            self._clear_losses()    # the outermost call starts afresh: losses describe the latest call
        _TRAINING.append(training)
        try:
            with _layer_scope(self), _graph_scope(self):   # weights made in call() get this layer's path
                try:
                    outputs = self.call(*args, **kwargs)
                except Exception as error:
                    raise _call_errors.with_call_context(self, error, args, kwargs) from None
        finally:
            _TRAINING.pop()
        if getattr(self, "activity_regularizer", None) is not None:
            self._add_activity_losses(outputs)
        if previous_mask is not None or type(self).compute_mask is not Layer.compute_mask:
            outputs = self._attach_masks(first, outputs, previous_mask)
        self._output_shape = getattr(outputs, "shape", None)
        return outputs

    # -- masking -------------------------------------------------------------------------------
    @property
    def supports_masking(self):
        """Whether this layer passes masks on (through `compute_mask`): set it, or override compute_mask."""
        value = vars(self).get("_supports_masking")
        return type(self).compute_mask is not Layer.compute_mask if value is None else value

    @supports_masking.setter
    def supports_masking(self, value):
        self._supports_masking = bool(value)

    def compute_mask(self, inputs, previous_mask):
        """The mask of this layer's outputs: by default, the mask its input came with."""
        return previous_mask

    def _attach_masks(self, inputs, outputs, previous_mask):
        if not self.supports_masking:
            if previous_mask is not None:
                warnings.warn(f"Layer '{self._name}' (of type {type(self).__name__}) was passed an input with a mask "
                              f"attached to it. However, this layer does not support masking and will therefore "
                              f"destroy the mask information. Downstream layers will not see the mask.",
                              stacklevel=3)
            return outputs
        flat = tf.nest.flatten(outputs)
        if all(_masks.get_mask(t) is not None for t in flat):
            return outputs          # call() set the masks itself
        masks = self.compute_mask(inputs, previous_mask)
        if masks is None:
            return outputs
        flat = [_masks.with_mask(t, m) if m is not None and _masks.get_mask(t) is None else t
                for t, m in zip(flat, tf.nest.flatten(masks))] + flat[len(tf.nest.flatten(masks)):]
        return tf.nest.pack_sequence_as(outputs, flat)

    def _symbolic_call(self, first, args, kwargs):
        """The functional API: build from the KerasTensors' shapes, then record the call (see keras_tensor)."""
        if not self.built:
            self._build_for(first)
        try:
            outputs = keras_tensor.symbolic_call(self, args, kwargs, self.__call__)
        finally:
            self._clear_losses()    # the symbolic trace's losses are placeholders of a throwaway graph
        if "_first_node" not in vars(self):
            produced = [t for t in tf.nest.flatten(outputs) if isinstance(t, keras_tensor.KerasTensor)]
            if produced:
                self._first_node = produced[0]._keras_history[0]
        return outputs

    def _first_node_or_raise(self, what):
        node = vars(self).get("_first_node")
        if node is None:
            raise AttributeError(f"The layer {self._name} has never been called and thus has no defined {what}.")
        return node

    @property
    def input(self):
        """The KerasTensor(s) this layer was first called on in a functional graph."""
        node = self._first_node_or_raise("input")
        return node.args[0] if node.args else next(iter(node.kwargs.values()))

    @property
    def output(self):
        """The KerasTensor(s) the first functional call of this layer produced."""
        return self._first_node_or_raise("output").structure

    def _build_by_symbolic_run(self, args, kwargs):
        """Keras 3 builds a layer without its own build() whose sublayers are unbuilt by first running
        call() on symbolic stand-ins of the eager inputs (so call's side effects happen twice). As in
        Keras (which runs it in a scratch graph), a plain tf.Variable cannot be made there: the run stops,
        and the eager call builds what is left."""
        flat = tf.nest.flatten((args, kwargs))
        if not any(isinstance(x, tf.Tensor) for x in flat) or \
                any(isinstance(x, tf.Tensor) and getattr(x, "_value", None) is None for x in flat):
            return      # eager inputs only (inside a traced function the call itself is symbolic)
        if all(layer.built for layer in self._flat_layers()):
            return
        tensors = [x for x in flat if isinstance(x, tf.Tensor)]
        runs = []

        def run(*values):
            if runs:    # tf.function traces again after variables were made: once is Keras' run
                raise _SymbolicRunStopped()
            runs.append(True)
            it = iter(values)
            a, k = tf.nest.pack_sequence_as((args, kwargs), [next(it) if isinstance(x, tf.Tensor) else x
                                                              for x in flat])
            with _layer_scope(self):
                self.call(*a, **k)

        def refuse_plain_variables(variable):
            if not isinstance(variable, _KerasVariable):
                raise _SymbolicRunStopped()
        observers = _context_state.variable_observers
        observers.append(refuse_plain_variables)
        try:
            tf.function(run, autograph=False).get_concrete_function(*[tf.TensorSpec(t.shape, t.dtype) for t in tensors])
        except Exception:   # noqa: BLE001 - as Keras: a call that cannot run symbolically is built eagerly
            pass
        finally:
            observers.remove(refuse_plain_variables)
            self._clear_losses()    # losses of the throwaway graph

    def _build_for(self, first):
        shape = tf.nest.map_structure(_shape_of, first) if first is not None else None
        self._build_shapes = shape      # what a saved model is rebuilt from (keras.saving)
        self._build_with_shape(shape)

    def _build_with_shape(self, shape):
        if not getattr(type(self).build, "_default_build", False):
            self.build(shape)
        self.built = True

    def compute_output_shape(self, input_shape):
        raise NotImplementedError(f"Layer {type(self).__name__} should implement `compute_output_shape()`.")

    # -- weights -------------------------------------------------------------------------------
    def add_weight(self, shape=None, initializer=None, dtype=None, trainable=True, autocast=True,
                   regularizer=None, constraint=None, aggregation="none", overwrite_with_gradient=False,
                   name=None):
        """Creates a variable owned by this layer (initialised by `initializer`, glorot_uniform for floats)."""
        if overwrite_with_gradient:
            raise ValueError("tensorflux's Keras layers do not support `overwrite_with_gradient`.")
        shape = () if shape is None else tuple(shape)
        dtype = tf.as_dtype(getattr(dtype, "name", dtype) or "float32")
        if initializer is None:
            initializer = "glorot_uniform" if dtype.is_floating else "zeros"
        initializer = _initializers.get(initializer)
        # A name with slashes ("query/kernel") stands for a sublayer Keras would have: its path gets them.
        *groups, name = (None,) if name is None else str(name).split("/")
        with _layer_scope(self), _variables.group_scope(groups):
            variable = _KerasVariable(initializer, shape=shape, dtype=dtype, trainable=trainable,
                                      autocast=autocast, aggregation=aggregation, name=name)
        (self._own_trainable if trainable else self._own_non_trainable).append(variable)
        if not self._trainable:
            variable.trainable = False      # a frozen layer's new weights are frozen too (as Keras tracks them)
        regularizer = _regularizers.get(regularizer)
        if regularizer is not None:
            self._regularized.append((variable, regularizer))
        # Applied by the optimizer after each update (Keras' _apply_weight_constraints).
        variable.constraint = _constraints.get(constraint)
        return variable

    def _flat_layers(self):
        """Sublayers held directly (also inside lists, tuples, dicts), in attribute assignment order."""
        found, seen = [], set()
        for value in vars(self).values():
            if isinstance(value, Layer):
                items = (value,)
            elif isinstance(value, (list, tuple, dict)):
                items = tf.nest.flatten(value)
            else:
                continue
            for item in items:
                if isinstance(item, Layer) and item is not self and id(item) not in seen:
                    seen.add(id(item))
                    found.append(item)
        return found

    def _attribute_variables(self):
        """Keras variables assigned as attributes (also inside lists, tuples, dicts), not made by add_weight.
        A plain tf.Variable attribute is not a weight: Keras 3 tracks only its own Variables."""
        own = {id(v) for v in self._own_trainable + self._own_non_trainable}
        found = []
        for value in vars(self).values():
            if isinstance(value, _KerasVariable):
                items = (value,)
            elif isinstance(value, (list, tuple, dict)) and value:
                items = [v for v in tf.nest.flatten(value) if isinstance(v, _KerasVariable)]
            else:
                continue
            for v in items:
                if id(v) not in own:
                    own.add(id(v))
                    found.append(v)
        return found

    def _trainable_attribute_variables(self):
        """The attribute variables Keras tracks as trainable: trainable when first seen (remembered, so
        that freezing the layer does not move them among the non-trainable ones)."""
        extra = self._attribute_variables()
        if not extra:
            return []
        tracked = vars(self).setdefault("_tracked_trainable", set())
        tracked.update(id(v) for v in extra if v.trainable)
        return [v for v in extra if id(v) in tracked]

    def _own_variables(self):
        """This layer's own weights in Keras' order: those trainable when tracked, then the others."""
        extra = self._attribute_variables()
        if not extra:
            return self._own_trainable + self._own_non_trainable
        trainable = self._trainable_attribute_variables()
        ids = {id(v) for v in trainable}
        return self._own_trainable + trainable + self._own_non_trainable + [v for v in extra if id(v) not in ids]

    @property
    def weights(self):
        out, seen = [], set()
        for v in self._own_variables():
            if id(v) not in seen:
                seen.add(id(v))
                out.append(v)
        for layer in self._flat_layers():
            for v in layer.weights:
                if id(v) not in seen:
                    seen.add(id(v))
                    out.append(v)
        return out

    @property
    def trainable_weights(self):
        if not self._trainable:
            return []
        return [v for v in self.weights if v.trainable]

    @property
    def non_trainable_weights(self):
        if not self._trainable:
            return self.weights
        return [v for v in self.weights if not v.trainable]

    variables = weights
    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights

    # -- losses ---------------------------------------------------------------------------------
    def add_loss(self, loss):
        """Records `loss` (a tensor, or a nest of tensors) for this call; `fit` adds it to the training loss
        (summed when it is not a scalar). The losses of a layer are cleared when an outermost call begins."""
        losses = tf.nest.flatten(loss)
        for value in losses:
            if not isinstance(value, (tf.Tensor, tf.Variable)):
                raise ValueError(f"`add_loss()` can only be called from inside `build()` or `call()`, on a "
                                 f"tensor input. Received invalid value: {value}")
        self._own_losses().extend(losses)

    def _own_losses(self):
        if "_losses" not in vars(self):   # a subclass that set attributes before Layer.__init__
            self._losses = []
        return self._losses

    def _clear_losses(self):
        self._own_losses().clear()
        for layer in self._flat_layers():
            layer._clear_losses()

    def _add_activity_losses(self, outputs):
        """The activity regulariser's penalty on each output, averaged over the batch (as Keras does)."""
        for output in tf.nest.flatten(outputs):
            if isinstance(output, tf.Tensor):
                batch = tf.cast(tf.shape(output)[0], output.dtype) if output.shape.rank else 1.0
                self.add_loss(self.activity_regularizer(output) / batch)

    def _all_layers(self):
        """This layer, then every sublayer depth first, each once."""
        found, seen, stack = [], set(), [self]
        while stack:
            layer = stack.pop()
            if id(layer) in seen:
                continue
            seen.add(id(layer))
            found.append(layer)
            stack.extend(reversed(layer._flat_layers()))
        return found

    @property
    def losses(self):
        """The losses added (`add_loss`, activity regularisers) by the latest call of this layer and its
        sublayers, then the weight regularisation losses (recomputed from the current weights)."""
        layers = self._all_layers()
        out = [loss for layer in layers for loss in layer._own_losses()]
        out += [regularizer(v) for layer in layers for v, regularizer in layer._regularized]
        return out

    def count_params(self):
        return int(sum(np.prod(v.shape.as_list()) for v in self.weights))

    def get_weights(self):
        return [v.numpy() for v in self.weights]

    def set_weights(self, weights):
        mine = self.weights
        if len(weights) != len(mine):
            raise ValueError(f"You called `set_weights(weights)` on layer '{self._name}' with a weight list of "
                             f"length {len(weights)}, but the layer was expecting {len(mine)} weights.")
        for variable, value in zip(mine, weights):
            value = np.asarray(value)
            if tuple(variable.shape.as_list()) != value.shape:
                raise ValueError(f"Layer {self._name} weight shape {tuple(variable.shape.as_list())} is not "
                                 f"compatible with provided weight shape {value.shape}.")
            variable.assign(value)

    # Set by keras.saving (which builds on this module): Keras 3's config of a built-in layer, and the
    # layer made from one.
    _builtin_get_config = _builtin_from_config = _builtin_serialized = None
    _KERAS_POLICY = {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"},
                     "registered_name": None}

    def get_config(self):
        """Keras 3's config. A built-in layer gives all its arguments (serialized as Keras does); a
        subclass gets the base entries (name, trainable, the DTypePolicy) to extend in its own
        get_config(), or, when it writes none, those followed by the arguments it was made with."""
        cls = type(self)
        if _is_builtin(cls) and Layer._builtin_get_config is not None:
            return Layer._builtin_get_config(self)
        config = {"name": self._name, "trainable": self._trainable,
                  "dtype": {**Layer._KERAS_POLICY, "config": {"name": "float32"}}}
        if self.activity_regularizer is not None:
            config["activity_regularizer"] = self.activity_regularizer
        if _writes_get_config(cls):
            return config
        arguments = _config.init_arguments(self)
        arguments.pop("name", None)
        # Keras' automatic config: the name, the constructor's arguments, then the base entries; the name
        # only when __init__ takes it (as `name` or through a `**kwargs` so spelled), as Keras decides.
        try:
            spec = inspect.getfullargspec(inspect.unwrap(cls.__init__))
            keep_name = spec.varkw == "kwargs" or "name" in spec.args[1:] or "name" in spec.kwonlyargs
        except TypeError:
            keep_name = True
        head = {"name": self._name} if keep_name else {}
        return {**head, **arguments, **{k: v for k, v in config.items() if k != "name"}}

    def _keras_serialized(self, config):
        """`config` with its objects (initializers, inner layers, ...) in Keras 3's serialized form, as
        Keras' own get_config() returns them (for the built-in layers whose get_config() adds current
        values to the recorded ones)."""
        serialized = Layer._builtin_serialized
        return config if serialized is None else serialized(config)

    @classmethod
    def from_config(cls, config):
        """A layer from `get_config()`'s form: a built-in class reads Keras 3's config; another gets
        `cls(**config)`, leaving out the base entries (name, trainable, dtype) its `__init__` does not
        accept."""
        if _is_builtin(cls) and Layer._builtin_from_config is not None:
            return Layer._builtin_from_config(cls, config)
        try:
            parameters = inspect.signature(cls.__init__).parameters
        except (TypeError, ValueError):
            return cls(**config)
        if not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
            config = {k: v for k, v in config.items() if k in parameters or k not in ("name", "trainable", "dtype")}
        return cls(**config)

    def __repr__(self):
        return f"<{type(self).__name__} name={self._name}, built={self.built}>"
