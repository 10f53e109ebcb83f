"""Functional models: `keras.Model(inputs, outputs)` over a graph of layer calls on KerasTensors.

    inputs = keras.Input((4,))
    x = keras.layers.Dense(8, activation="relu")(inputs)
    model = keras.Model(inputs, keras.layers.Dense(1)(x) + inputs[:, :1])

The model walks back from its outputs through the Nodes recorded by each symbolic call (see
`keras_tensor`) and keeps them in an order where every Node comes after the Nodes that feed it. Calling
the model replays those Nodes on real tensors: each layer or operation is called exactly as it was on
the KerasTensors, with its KerasTensor arguments replaced by the values computed for them. Inputs and
outputs may be one KerasTensor, a list or a dict; a layer called several times (shared weights) is one
layer with several Nodes. The model is itself a layer, so it can be called on KerasTensors inside a
bigger model.
"""
import tensorflux as tf

from ..layers.input_layer import InputLayer
from ..layers.layer import Layer, _call_spec
from ..keras_tensor import _OPERATOR_FUNCTIONS, KerasTensor, Operation, operation_named
from .model import Model


def is_operation_name(name):
    """True for the Keras class name of an operator a functional model may record (`"Add"`, `"GetItem"`)."""
    return isinstance(name, str) and name in _OPERATOR_FUNCTIONS

__all__ = ["Functional"]


class Functional(Model):
    def __init__(self, inputs, outputs, name=None, trainable=True, **kwargs):
        super().__init__(name=name, trainable=trainable, **kwargs)
        self._input_struct = _keras_tensors(inputs, "inputs")
        self._output_struct = _keras_tensors(outputs, "outputs")
        self._flat_inputs = tf.nest.flatten(self._input_struct)
        self._flat_outputs = tf.nest.flatten(self._output_struct)
        for t in self._flat_inputs:
            if not isinstance(t._keras_history[0].operation, InputLayer):
                raise ValueError(f"All `inputs` of a functional model must come from `keras.Input`; "
                                 f"{t.name} is the output of '{t._keras_history[0].operation.name}'.")
        self._nodes, operations = _graph(self._flat_inputs, self._flat_outputs)
        self._operations = operations    # every step, for summary(); Operations hold no weights
        self._functional_layers = [op for op in operations if not isinstance(op, Operation)]
        self._output_shape = tf.TensorShape(self._flat_outputs[0].shape)
        self.built = True

    # -- structure -------------------------------------------------------------------------------
    @property
    def layers(self):
        return list(self._functional_layers)

    @property
    def inputs(self):
        return list(self._flat_inputs)

    @property
    def outputs(self):
        return list(self._flat_outputs)

    @property
    def input(self):
        return self._input_struct

    @property
    def output(self):
        return self._output_struct

    @property
    def input_shape(self):
        return tf.nest.map_structure(lambda t: t.shape, self._input_struct)

    @property
    def output_shape(self):
        return tf.nest.map_structure(lambda t: t.shape, self._output_struct)

    @property
    def output_names(self):
        """Names of the outputs, in flat order: the dict keys, else the name of the layer producing each."""
        if isinstance(self._output_struct, dict):
            return sorted(self._output_struct)
        return [t._keras_history[0].operation.name for t in self._flat_outputs]

    def get_layer(self, name=None, index=None):
        if index is not None and name is not None:
            raise ValueError(f"Provide only a layer name or a layer index. Received: index={index}, name={name}.")
        if index is not None:
            if index >= len(self._functional_layers):
                raise ValueError(f"Was asked to retrieve layer at index {index} but model only has "
                                 f"{len(self._functional_layers)} layers.")
            return self._functional_layers[index]
        if name is not None:
            for layer in self._functional_layers:
                if layer.name == name:
                    return layer
            raise ValueError(f"No such layer: {name}. Existing layers are: "
                             f"{[layer.name for layer in self._functional_layers]}.")
        raise ValueError("Provide either a layer name or layer index at `get_layer`.")

    # -- running -------------------------------------------------------------------------------
    def call(self, inputs, training=None, mask=None):
        values = {}
        for t, value in zip(self._flat_inputs, self._flatten_inputs(inputs)):
            value = tf.convert_to_tensor(value) if not isinstance(value, (tf.Tensor, tf.Variable)) else value
            if value.dtype != t._dtype:
                value = tf.cast(value, t._dtype)
            values[id(t)] = value
        for node in self._nodes:
            args, kwargs = tf.nest.map_structure(
                lambda x: values[id(x)] if isinstance(x, KerasTensor) else x, (node.args, node.kwargs))
            if training is not None and isinstance(node.operation, Layer) and _call_spec(type(node.operation))[0]:
                # As Keras 3 (keras-team/keras#20285): a model called with `training` (fit passes True) hands
                # it to every layer that takes it, over a `training=` recorded when the graph was built.
                kwargs = dict(kwargs, training=training)
            result = node.operation(*args, **kwargs)
            for t, value in zip(node.outputs, tf.nest.flatten(result)):
                values[id(t)] = value
        return tf.nest.pack_sequence_as(self._output_struct, [values[id(t)] for t in self._flat_outputs])

    def _assert_input_compatibility(self, inputs):
        try:
            flat = self._flatten_inputs(inputs)
        except ValueError:
            return                  # a structure mismatch: call() raises it with its own message
        for index, (t, value) in enumerate(zip(self._flat_inputs, flat)):
            self._check_input_shape(index, t, value)

    def _check_input_shape(self, index, expected, value):
        """Keras 3's input-spec check of a functional model: a trailing dimension of 1 is dropped from both
        shapes, then the dimensions are compared pairwise from the first (None matches anything)."""
        shape = getattr(value, "shape", None)
        if shape is None or expected.shape is None:
            return
        try:
            found = tuple(None if d is None else int(d) for d in shape)
        except TypeError:        # unknown rank
            return
        want = tuple(expected.shape)
        left = found[:-1] if found and found[-1] == 1 else found
        right = want[:-1] if want and want[-1] == 1 else want
        for a, b in zip(right, left):
            if a is not None and b is not None and a != b:
                name = expected._keras_history[0].operation.name
                raise ValueError(f"Input {index} with name '{name}' of layer '{self.name}' is incompatible with "
                                 f"the layer: expected shape={want}, found shape={left}")

    def _flatten_inputs(self, inputs):
        """The values for the model's inputs, in flat order, from the structure the caller passed."""
        struct = self._input_struct
        count = len(self._flat_inputs)
        if isinstance(inputs, dict):
            names = [t._keras_history[0].operation.name for t in self._flat_inputs] \
                if not isinstance(struct, dict) else None
            if names is None:
                missing = sorted(set(struct) - set(inputs))
                if missing:
                    raise ValueError(f"Model '{self.name}' expects inputs {sorted(struct)}; missing {missing}.")
                return tf.nest.flatten({k: inputs[k] for k in struct})
            missing = [n for n in names if n not in inputs]
            if missing:
                raise ValueError(f"Model '{self.name}' has inputs named {names}; the dict passed lacks {missing}.")
            return [inputs[n] for n in names]
        if isinstance(inputs, (list, tuple)) and (count > 1 or not isinstance(struct, KerasTensor)):
            if len(inputs) != count:
                raise ValueError(f"Model '{self.name}' expects {count} input(s), but it received {len(inputs)} "
                                 f"input tensors.")
            return list(inputs)
        if count != 1:
            raise ValueError(f"Model '{self.name}' expects {count} inputs, but it received 1 input tensor.")
        return [inputs]

    def compute_output_shape(self, input_shape):
        return self.output_shape

    # Set by keras.saving: Keras 3's config of a functional model and the model made from one.
    _keras_get_config = _keras_from_config = None

    def get_config(self):
        """Keras 3's config (serialized layers with their inbound nodes, input_layers, output_layers)."""
        if Functional._keras_get_config is not None:
            return Functional._keras_get_config(self)
        return self._tensorflux_config()

    def _tensorflux_config(self):
        """The layers and the graph of calls between them: each Node as the layer (by name) or operator
        (by Keras class name) it calls, with its KerasTensor arguments as references
        `{"__keras_tensor__": ["input", i, 0] or ["node", k, output index]}` to earlier results."""
        refs = {id(t): ["input", i, 0] for i, t in enumerate(self._flat_inputs)}
        nodes = []
        for k, node in enumerate(self._nodes):
            refs.update({id(t): ["node", k, j] for j, t in enumerate(node.outputs)})

        def encode(value):
            return {"__keras_tensor__": refs[id(value)]} if isinstance(value, KerasTensor) else value
        for node in self._nodes:
            entry = {"args": tf.nest.map_structure(encode, list(node.args)),
                     "kwargs": tf.nest.map_structure(encode, dict(node.kwargs))}
            if isinstance(node.operation, Operation):
                entry["operation"] = type(node.operation).__name__
            else:
                entry["layer"] = node.operation.name
            nodes.append(entry)
        return {"name": self.name, "trainable": self.trainable, "layers": self.layers, "nodes": nodes,
                "input_names": [t._keras_history[0].operation.name for t in self._flat_inputs],
                "inputs": tf.nest.map_structure(encode, self._input_struct),
                "outputs": tf.nest.map_structure(encode, self._output_struct)}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        """Replays the saved calls on the (already rebuilt) layers to make the same graph; Keras 3's config
        (layers as serialized dicts with `input_layers`) is read by keras.saving."""
        if Functional._keras_from_config is not None and "input_layers" in config:
            return Functional._keras_from_config(config, custom_objects)
        return cls._from_tensorflux_config(config)

    @classmethod
    def _from_tensorflux_config(cls, config):
        """Replays the saved calls on the (already rebuilt) layers to make the same graph.

        The config may come from a file: every reference (layer name, operator name, earlier result) is
        checked and a dangling one raises ValueError naming it."""
        layers = {layer.name: layer for layer in config["layers"] if isinstance(layer, Layer)}
        if len(layers) != len(config["layers"]):
            raise ValueError("A functional model config lists something other than layers in `layers`.")
        values = {}
        for i, name in enumerate(config["input_names"]):
            if not isinstance(layers.get(name), InputLayer):
                raise ValueError(f"The functional model config names the input {name!r:.100}, which is not one of "
                                 f"its Input layers.")
            values[("input", i, 0)] = layers[name].output

        def decode(value):
            if isinstance(value, dict) and "__keras_tensor__" in value:
                ref = value["__keras_tensor__"]
                key = tuple(ref) if isinstance(ref, list) and all(isinstance(r, (str, int)) for r in ref) else None
                if key not in values:
                    raise ValueError(f"The functional model config refers to {ref!r:.100}, which no earlier "
                                     f"step produces.")
                return values[key]
            if isinstance(value, (list, tuple)):
                return [decode(v) for v in value]
            if isinstance(value, dict):
                return {k: decode(v) for k, v in value.items()}
            return value
        for k, entry in enumerate(config["nodes"]):
            args, kwargs = decode(entry["args"]), decode(entry["kwargs"])
            if not isinstance(kwargs, dict) or not isinstance(args, list):
                raise ValueError(f"Step {k} of the functional model config has malformed arguments.")
            if "operation" in entry:
                if not is_operation_name(entry["operation"]):
                    raise ValueError(f"Step {k} of the functional model config calls the operator "
                                     f"{entry['operation']!r:.100}, which Keras does not define.")
                result = operation_named(entry["operation"])(*args)
            else:
                if entry.get("layer") not in layers:
                    raise ValueError(f"Step {k} of the functional model config calls the layer "
                                     f"{entry.get('layer')!r:.100}, which the config does not list.")
                result = layers[entry["layer"]](*args, **kwargs)
            values.update({("node", k, j): t for j, t in enumerate(tf.nest.flatten(result))})
        return cls(decode(config["inputs"]), decode(config["outputs"]), name=config["name"],
                   trainable=config["trainable"])

    # -- summary() -----------------------------------------------------------------------------
    def _summary_steps(self):
        return list(self._operations)

    def _connections(self):
        """{operation: "a[0][0], b[0][0]"} for summary()'s "Connected to" column, or None when the model is
        a plain chain (one input, each step fed by the one before), which Keras prints without it."""
        chain = len(self._flat_inputs) == 1 and len(self._flat_outputs) == 1
        text = {}
        for node in self._nodes:
            sources = node.inputs
            if len(sources) != 1 or node.operation in text:
                chain = False
            sources_text = ", ".join(
                f"{t._keras_history[0].operation.name}[{t._keras_history[0].index}][{t._keras_history[1]}]"
                for t in sources)
            # a shared layer lists the sources of all its calls, as Keras does
            text[node.operation] = text[node.operation] + ", " + sources_text if node.operation in text \
                else sources_text
        if chain:
            return None
        for t in self._flat_inputs:
            text[t._keras_history[0].operation] = "-"
        return text


Model._functional = Functional


def _keras_tensors(structure, what):
    leaves = tf.nest.flatten(structure)
    if not leaves:
        raise ValueError(f"The functional model's `{what}` is empty.")
    for leaf in leaves:
        if not isinstance(leaf, KerasTensor):
            raise ValueError(f"All `{what}` of a functional model must be KerasTensors (from `keras.Input` and "
                             f"layer calls on them). Received: {leaf!r} (of type {type(leaf).__name__})")
    if isinstance(structure, tuple):
        structure = list(structure)
    return structure


def _graph(inputs, outputs):
    """(Nodes computing `outputs` from `inputs`, each after the Nodes that feed it; the layers and
    operations in Keras's order: deepest first — depth counts steps to the furthest output — and, at equal
    depth, in the order a walk back from the outputs first reaches them). The model's weights follow
    this order, so `get_weights()` lists them as Keras does."""
    known = {id(t) for t in inputs}
    input_nodes = {id(t._keras_history[0]): t._keras_history[0] for t in inputs}
    order, done, active, first_seen = [], set(), set(), {}

    def visit(t, path):
        node = t._keras_history[0]
        first_seen.setdefault(node.operation, len(first_seen))
        if id(t) in known:
            return
        if isinstance(node.operation, InputLayer):
            raise ValueError(f"Output {path} is not connected to `inputs`: it depends on the Input "
                             f"'{node.operation.name}', which is not among the model's inputs "
                             f"{[x._keras_history[0].operation.name for x in inputs]}.")
        if id(node) in done:
            return
        if id(node) in active:
            raise ValueError("The functional graph has a cycle.")
        active.add(id(node))
        for source in node.inputs:
            visit(source, path)
        active.discard(id(node))
        done.add(id(node))
        order.append(node)

    for k, t in enumerate(outputs):
        visit(t, f"{k} ({t.name})")
    for node in input_nodes.values():   # an input no output depends on still belongs to the model (first at depth 0)
        first_seen.setdefault(node.operation, -1)
    depth = {}
    for node in reversed(order):                      # consumers before producers
        here = depth.setdefault(id(node), 0)
        for source in node.inputs:
            producer = source._keras_history[0]
            depth[id(producer)] = max(depth.get(id(producer), 0), here + 1)
    operation_depth = {}
    for node in order + list(input_nodes.values()):
        d = depth.get(id(node), 0)
        operation_depth[node.operation] = max(operation_depth.get(node.operation, 0), d)
    operations = sorted(operation_depth, key=lambda op: (-operation_depth[op], first_seen[op]))
    return order, operations
