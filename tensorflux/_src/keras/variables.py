"""`keras.Variable` and Keras' name scopes: the weights a layer tracks, named as Keras 3 names them.

Keras 3 tracks only its own variables: `add_weight` makes one, and a `keras.Variable` assigned to a layer
attribute is one; a plain `tf.Variable` attribute is not a weight (TensorFlow 2.21's Keras leaves it out
of `layer.variables`, `fit` and `.keras` files). A Keras variable has a short `name` (`'kernel'`) and a
`path` naming where it was made (`'dense/kernel'`, `'sequential/dense/kernel'`).

The path comes from Keras' name scope stack: a layer opens a scope named after itself while it builds and
runs, and a layer first opened inside another's scope remembers that parent path, so that reopening it
later (`add_weight` after the first call) gives the same prefix. A layer reopened directly inside its own
scope is not pushed twice.

Here a Keras variable is a `tf.Variable` (ops, tapes, checkpoints and tf.function accept it as one) whose
underlying resource is named by its path (`dense/kernel:0`, as TensorFlow's Keras names the tf.Variable
it wraps); only `name`, `path`, a settable `trainable` and the repr are Keras'.
"""
import numpy as np

import tensorflux as tf

from .naming import to_snake_case, unique_name
from ..state.variables import Variable as _TFVariable

__all__ = ["Variable", "current_path", "layer_scope"]

_SCOPES = []    # open Keras name scopes: (caller, full path), innermost last


def current_path():
    """The path of the innermost open Keras name scope ("" outside any)."""
    return _SCOPES[-1][1] if _SCOPES else ""


class layer_scope:
    """`with layer_scope(layer):` opens `layer`'s name scope (recording where it was first opened)."""

    __slots__ = ("_layer", "_pushed")

    def __init__(self, layer):
        self._layer = layer
        self._pushed = False

    def __enter__(self):
        layer = self._layer
        if _SCOPES and _SCOPES[-1][0] is layer:
            return self
        parent = vars(layer).get("_parent_path")
        if parent is None:
            parent = layer._parent_path = current_path()
        _SCOPES.append((layer, f"{parent}/{layer.name}" if parent else layer.name))
        self._pushed = True
        return self

    def __exit__(self, *exc):
        if self._pushed:
            _SCOPES.pop()
            self._pushed = False
        return False


class group_scope:
    """`with group_scope(["query"]):` adds path segments for the variables made inside (a layer holding
    the weights of a sublayer Keras would have, such as MultiHeadAttention's `query`)."""

    __slots__ = ("_groups",)

    def __init__(self, groups):
        self._groups = groups

    def __enter__(self):
        for group in self._groups:
            parent = current_path()
            _SCOPES.append((None, f"{parent}/{group}" if parent else group))
        return self

    def __exit__(self, *exc):
        del _SCOPES[len(_SCOPES) - len(self._groups):]
        return False


class Variable(_TFVariable):
    """`keras.Variable(initializer, shape=None, dtype=None, trainable=True, autocast=True,
    aggregation="none", synchronization="auto", name=None)`: `initializer` is a value, or a callable
    (an initializer object or name) called with `shape` and `dtype`."""

    __slots__ = ("_short_name", "_path", "_autocast", "_aggregation", "_synchronization", "_constraint")

    def __init__(self, initializer, shape=None, dtype=None, trainable=True, autocast=True, aggregation="none",
                 synchronization="auto", name=None, **kwargs):
        if kwargs:
            raise ValueError(f"Unrecognized keyword arguments passed to Variable: {kwargs}")
        name = name or unique_name(to_snake_case(type(self).__name__))
        if not isinstance(name, str) or "/" in name:
            raise ValueError(f"Argument `name` must be a string and cannot contain character `/`. "
                             f"Received: name={name}")
        if aggregation not in (None, "none", "mean", "sum", "only_first_replica"):
            raise ValueError(f"Invalid value for argument `aggregation`. Expected one of `None`, `'none'`, "
                             f"`'mean'`, `'sum'`, `'only_first_replica'`. Received: aggregation={aggregation}")
        if synchronization not in (None, "none", "on_read", "on_write", "auto"):
            raise ValueError(f"Invalid value for argument `synchronization`. Expected one of `None`, `'none'`, "
                             f"`'on_read'`, `'on_write'`, `'auto'`. Received: synchronization={synchronization}")
        if isinstance(initializer, str):
            from . import initializers as _initializers     # initializers import layers' helpers
            initializer = _initializers.get(initializer)
        if callable(initializer) and not isinstance(initializer, (_TFVariable, tf.Tensor)):
            if shape is None:
                raise ValueError(f"When creating a Variable from an initializer, the `shape` argument should "
                                 f"be specified. Received: initializer={initializer} and shape={shape}")
            shape = tuple(shape)
            dtype = tf.as_dtype(getattr(dtype, "name", dtype) or "float32")
            make = initializer
            initial_value = lambda: make(shape, dtype=dtype)  # noqa: E731
        else:
            initial_value = initializer
            if dtype is not None:
                dtype = tf.as_dtype(getattr(dtype, "name", dtype))
            elif isinstance(initializer, float) or (
                    isinstance(initializer, (list, tuple, np.ndarray)) and np.asarray(initializer).dtype.kind == "f"):
                dtype = tf.float32          # Keras' floatx, not NumPy's float64
        path = current_path()
        path = f"{path}/{name}" if path else name
        # The resource is named by the path (outside any tf.name_scope, as the layer's scope is Keras').
        super().__init__(initial_value, trainable=bool(trainable), dtype=dtype, shape=shape,
                         name=path)
        self._short_name = name
        self._path = path
        self._autocast = bool(autocast)
        self._aggregation = aggregation or "none"
        self._synchronization = synchronization or "none"
        self._constraint = None

    @classmethod
    def _graph_view(cls, handle, like):
        view = super()._graph_view(handle, like)
        for slot in Variable.__slots__:
            setattr(view, slot, getattr(like, slot))
        return view

    @property
    def name(self):
        return self._short_name

    @property
    def path(self):
        return self._path

    @property
    def value(self):
        """The current value (Keras' `variable.value` is a property, not tf.Variable's method)."""
        return self.read_value()

    @property
    def trainable(self):
        return self._trainable

    @trainable.setter
    def trainable(self, value):
        self._trainable = bool(value)

    @property
    def constraint(self):
        """The weight constraint the optimizer applies after each update (set by `add_weight`), or None."""
        return self._constraint

    @constraint.setter
    def constraint(self, value):
        self._constraint = value

    @property
    def aggregation(self):
        return self._aggregation

    @property
    def synchronization(self):
        return self._synchronization

    @property
    def autocast(self):
        return self._autocast

    def __repr__(self):
        shape = tuple(self.shape.as_list()) if self.shape.rank is not None else None
        head = f"<Variable path={self._path}, shape={shape}, dtype={self.dtype.name}"
        try:
            value = self.numpy()
        except Exception:       # inside a traced function the value is symbolic
            return head + ">"
        return f"{head}, value={value}>"

    __str__ = __repr__

    def __deepcopy__(self, memo):
        copy = Variable(self.read_value(), trainable=self._trainable, name=self._short_name)
        copy._path = self._path
        memo[id(self)] = copy
        return copy


API = {"keras": ["Variable"]}
