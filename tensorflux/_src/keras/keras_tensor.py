"""KerasTensor, the symbolic placeholder of the functional API, and the Node that records each call on it.

    x = keras.Input((4,))                 # a KerasTensor: shape (None, 4), no value
    h = keras.layers.Dense(3)(x) * 2      # a Node for the Dense call, one for the multiplication

Calling a layer (or an operator) on KerasTensors runs nothing: `symbolic_call` traces the call once on
symbolic tensors of the same shapes and dtypes (a throwaway tf.function), wraps the results' shapes in
new KerasTensors, and records a Node (what was called, with which arguments, producing which
KerasTensors). A functional model later replays its Nodes on real tensors. Operators on KerasTensors
become `Operation`s — weightless callables that the model runs like layers (`Add`, `Multiply`, …, as
Keras lists them in `summary()`); any other TensorFlow function refuses a KerasTensor, as in Keras 3.
"""
import weakref

import tensorflux as tf

from . import masks as _masks
from .naming import to_snake_case, unique_name

__all__ = ["KerasTensor", "Node", "Operation", "any_symbolic", "operation_named", "symbolic_call"]

_NOT_A_TENSOR = (
    "A KerasTensor cannot be used as input to a TensorFlow function. A KerasTensor is a symbolic placeholder "
    "for a shape and dtype, used when constructing Keras Functional models or Keras Functions. You can only "
    "use it as input to a Keras layer or a Keras operation (from the namespaces `keras.layers` and "
    "`keras.ops`). You are likely doing something like:\n\n```\nx = Input(...)\n...\ntf_fn(x)  # Invalid.\n```\n\n"
    "What you should do instead is wrap `tf_fn` in a layer:\n\n```\nclass MyLayer(Layer):\n"
    "    def call(self, x):\n        return tf_fn(x)\n\nx = MyLayer()(x)\n```\n")

_CALLS = weakref.WeakKeyDictionary()   # layer or operation -> how many Nodes it has made (node indices)


class Node:
    """One call of a layer or operation on KerasTensors: `operation(*args, **kwargs)` gave `outputs`."""

    __slots__ = ("operation", "args", "kwargs", "outputs", "structure", "index")

    def __init__(self, operation, args, kwargs):
        self.operation, self.args, self.kwargs = operation, args, kwargs
        self.index = _CALLS.get(operation, 0)
        _CALLS[operation] = self.index + 1
        self.outputs, self.structure = [], None

    @property
    def inputs(self):
        return [x for x in tf.nest.flatten((self.args, self.kwargs)) if isinstance(x, KerasTensor)]


class KerasTensor:
    """A symbolic tensor of the functional API: a shape (a tuple, None for unknown dims), a dtype and the
    Node that produced it (`_keras_history`: (node, output index))."""

    def __init__(self, shape, dtype="float32", name=None, history=None):
        self._shape = tuple(None if d is None else int(d) for d in shape)
        self._dtype = tf.as_dtype(getattr(dtype, "name", dtype))
        self.name = name or unique_name("keras_tensor")
        self._keras_history = history

    @property
    def shape(self):
        return self._shape

    @property
    def dtype(self):
        return self._dtype.name

    @property
    def ndim(self):
        return len(self._shape)

    def __repr__(self):
        return (f"<KerasTensor shape={self._shape}, dtype={self._dtype.name}, sparse=False, ragged=False, "
                f"name={self.name}>")

    def __tf_tensor__(self, dtype=None, name=None):
        raise ValueError(_NOT_A_TENSOR)

    def __array__(self, dtype=None, copy=None):
        raise ValueError(_NOT_A_TENSOR)

    def __bool__(self):
        raise TypeError("A symbolic KerasTensor cannot be used as a boolean.")

    # Operators build Operations (named and typed as Keras names them); reflected forms swap the operands.
    def __add__(self, other):
        return operation_named("Add")(self, other)

    def __radd__(self, other):
        return operation_named("Add")(other, self)

    def __sub__(self, other):
        return operation_named("Subtract")(self, other)

    def __rsub__(self, other):
        return operation_named("Subtract")(other, self)

    def __mul__(self, other):
        return operation_named("Multiply")(self, other)

    def __rmul__(self, other):
        return operation_named("Multiply")(other, self)

    def __truediv__(self, other):
        return operation_named("TrueDivide")(self, other)

    def __rtruediv__(self, other):
        return operation_named("TrueDivide")(other, self)

    def __floordiv__(self, other):
        return operation_named("FloorDivide")(self, other)

    def __rfloordiv__(self, other):
        return operation_named("FloorDivide")(other, self)

    def __mod__(self, other):
        return operation_named("Mod")(self, other)

    def __rmod__(self, other):
        return operation_named("Mod")(other, self)

    def __pow__(self, other):
        return operation_named("Power")(self, other)

    def __rpow__(self, other):
        return operation_named("Power")(other, self)

    def __matmul__(self, other):
        return operation_named("Matmul")(self, other)

    def __rmatmul__(self, other):
        return operation_named("Matmul")(other, self)

    def __neg__(self):
        return operation_named("Negative")(self)

    def __abs__(self):
        return operation_named("Absolute")(self)

    def __lt__(self, other):
        return operation_named("Less")(self, other)

    def __le__(self, other):
        return operation_named("LessEqual")(self, other)

    def __gt__(self, other):
        return operation_named("Greater")(self, other)

    def __ge__(self, other):
        return operation_named("GreaterEqual")(self, other)

    def __getitem__(self, key):
        return operation_named("GetItem")(self, key)


def _get_item(x, key):
    return x[key]


class Operation:
    """A TensorFlow function applied to KerasTensors (`x * 2`, `x[:, 0]`): in a functional model it runs
    like a layer without weights. Each use is its own Operation, named like Keras's (`add`, `add_1`…)."""

    built = True
    trainable_weights = non_trainable_weights = weights = ()

    def __init__(self, fn):
        self._fn = fn
        self.name = unique_name(to_snake_case(type(self).__name__))
        self._output_shape = None

    def __call__(self, *args):
        if any_symbolic(args):
            return symbolic_call(self, args, {}, self._fn)
        return self._fn(*args)

    def count_params(self):
        return 0


# Keras's class name of each operator's Operation (what summary() shows, and what saving records).
_OPERATOR_FUNCTIONS = {
    "Add": tf.add, "Subtract": tf.subtract, "Multiply": tf.multiply, "TrueDivide": tf.truediv,
    "FloorDivide": tf.math.floordiv, "Mod": tf.math.floormod, "Power": tf.pow, "Matmul": tf.matmul,
    "Negative": tf.negative, "Absolute": tf.abs, "Less": tf.less, "LessEqual": tf.less_equal,
    "Greater": tf.greater, "GreaterEqual": tf.greater_equal, "GetItem": _get_item}
_OPERATION_TYPES = {}   # class name -> the Operation subclass of that name


def operation_named(class_name):
    """A new Operation of the given Keras class name (`"Add"`, `"GetItem"`, …)."""
    cls = _OPERATION_TYPES.get(class_name)
    if cls is None:
        cls = _OPERATION_TYPES[class_name] = type(class_name, (Operation,), {"__module__": __name__})
    return cls(_OPERATOR_FUNCTIONS[class_name])


def any_symbolic(structure):
    return any(isinstance(x, KerasTensor) for x in tf.nest.flatten(structure))


def symbolic_call(operation, args, kwargs, run):
    """KerasTensors for what `run(*args, **kwargs)` returns, found by tracing it once on symbolic tensors
    standing in for the KerasTensors among the arguments; records the call as a Node of `operation`.

    Masks ride along: an argument's mask (a KerasTensor) gets a symbolic stand-in of its own, attached to
    the argument's stand-in, and each output the traced call gave a mask gets a KerasTensor mask — the
    input's own when the layer passed it on unchanged, else a new one."""
    flat = tf.nest.flatten((args, kwargs))
    placeholders = [x for x in flat if isinstance(x, KerasTensor)]
    masked = [(i, m) for i, m in enumerate(getattr(x, "_keras_mask", None) for x in placeholders)
              if isinstance(m, KerasTensor)]
    traced_masks = {}

    def traced(*values):
        inputs = list(values[:len(placeholders)])
        mask_values = values[len(placeholders):]
        for (i, _), mask_value in zip(masked, mask_values):
            inputs[i] = _masks.with_mask(inputs[i], mask_value)
        it = iter(inputs)
        a, k = tf.nest.pack_sequence_as((args, kwargs), [next(it) if isinstance(x, KerasTensor) else x
                                                          for x in flat])
        result = run(*a, **k)
        passed_on = {id(v): m for (_, m), v in zip(masked, mask_values)}
        traced_masks["outputs"] = [_masks.get_mask(t) for t in tf.nest.flatten(result)]
        traced_masks["passed_on"] = [passed_on.get(id(m)) if m is not None else None
                                     for m in traced_masks["outputs"]]
        return result

    specs = [tf.TensorSpec(x.shape, x._dtype) for x in placeholders] + \
        [tf.TensorSpec(m.shape, m._dtype) for _, m in masked]
    result = tf.function(traced).get_concrete_function(*specs).structured_outputs
    node = Node(operation, args, kwargs)

    def wrap(t):
        if not isinstance(t, tf.Tensor) or t.shape.rank is None:
            raise ValueError(f"{type(operation).__name__} '{operation.name}' returned {t!r} when called on "
                             f"KerasTensors; in a functional model it must return tensors of known rank.")
        out = KerasTensor(t.shape.as_list(), t.dtype, history=(node, len(node.outputs)))
        node.outputs.append(out)
        return out

    node.structure = tf.nest.map_structure(wrap, result)
    for out, mask, same in zip(node.outputs, traced_masks.get("outputs", ()), traced_masks.get("passed_on", ())):
        if mask is not None and mask.shape.rank is not None:
            out._keras_mask = same if same is not None else KerasTensor(mask.shape.as_list(), mask.dtype)
    first = node.outputs[0] if node.outputs else None
    operation._output_shape = tf.TensorShape(first.shape) if first is not None else None
    return node.structure
