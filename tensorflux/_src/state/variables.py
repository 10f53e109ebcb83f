"""`tf.Variable`: mutable state living in a resource, read and updated only through stateful ops.

A Variable owns a `ResourceHandle` (see `ops/state.py`): reads are `ReadVariableOp` and updates are
`AssignVariableOp`/`AssignAddVariableOp`/`AssignSubVariableOp`, all through `apply()`, so the same code
runs eagerly and inside traced functions (where the handle is captured by reference). `_handle_id` is a
process-unique integer identifying the variable, e.g. for function cache keys.

Variables are tensor-like: `tf.add(v, 1)` reads them through `__tf_tensor__`, and every operator reads
the value and uses the Tensor operator of the same name.
"""
import contextlib
import itertools
import threading
import weakref

import numpy as np


from ..framework.context import init_scope, state as _state
from ..framework.tensor import EagerTensor, Reference, Tensor, _CPU, _numpy_text
from ..ops import state as _ops
from ..ops.shapes.shape_ops import IDENTITY as _IDENTITY
from ..ops.convert import convert_to_tensor
from ..ops.registry import apply
from ..types import dtypes as _dt
from ..types.shape import TensorShape
from . import variable_policies as _policies

__all__ = ["Variable", "initial_values_restored"]

_handle_ids = itertools.count(1)


class _Restoring(threading.local):
    depth = 0


_RESTORING = _Restoring()


@contextlib.contextmanager
def initial_values_restored():
    """Inside, a variable made from a callable initial value with a declared dtype and fully known shape
    starts as zeros instead of calling it: for a loader that assigns every such variable its saved
    value right after making it (a `.keras` archive's model is built, then all its weights assigned or
    the load fails). Drawing 25M random initial values only to overwrite them took longer than reading
    the file. The zeros are `np.zeros`' untouched pages, so they cost no memory until replaced.
    """
    _RESTORING.depth += 1
    try:
        yield
    finally:
        _RESTORING.depth -= 1


def _restored_later(initial_value, dtype, shape):
    """Zeros standing in for the value a loader is about to assign, or None (see initial_values_restored)."""
    if not callable(initial_value) or dtype is None or shape is None:
        return None
    dtype = _dt.as_dtype(dtype)
    shape = TensorShape(shape)
    if not shape.is_fully_defined() or not (dtype.is_floating or dtype.is_integer or dtype.is_complex
                                            or dtype.is_bool):
        return None
    return EagerTensor(np.zeros(shape.as_list(), dtype=dtype.as_numpy_dtype))


def _value_of(initial_value, dtype):
    """The initial value as an eager tensor of `dtype` (a callable is called first, outside any graph).

    A symbolic initial value computed inside a tf.function (`tf.Variable(tf.zeros([3]))`) is lifted: the
    graph evaluates the ops it depends on eagerly, as long as they do not depend on the arguments.
    """
    lift = getattr(getattr(initial_value, "graph", None), "lift_to_eager", None) \
        if isinstance(initial_value, Tensor) and getattr(initial_value, "_value", None) is None else None
    if lift is not None:
        initial_value = lift(initial_value)
    with init_scope():
        if callable(initial_value):
            initial_value = initial_value()
        try:
            value = convert_to_tensor(initial_value, dtype=dtype)
        except ValueError as e:
            if isinstance(initial_value, Tensor):
                raise ValueError(f"initial_value: {e}") from None
            raise
    if getattr(value, "_value", None) is None:
        raise ValueError(f"The initial value of a tf.Variable must be computable outside the function being "
                         f"traced; got the symbolic tensor {value!r}. Create the variable outside "
                         f"tf.function, or pass a callable as initial_value.")
    return value


class Variable:
    """`tf.Variable(initial_value, trainable=True, name=None, dtype=None, shape=None, ...)`."""

    __slots__ = ("_resource", "_handle", "_read_attrs", "_shape", "_dtype", "_name", "_trainable",
                 "_handle_id", "_synchronization", "_aggregation", "__weakref__")
    _is_tensor_like = True
    _is_variable = True
    __array_priority__ = 100

    def _no_inplace(self, other):
        raise RuntimeError("`variable += value` with `tf.Variable`s is not supported. Use "
                           "`variable.assign_add(value)` to modify the variable, or `out = variable + value` if "
                           "you need to get a new output Tensor.")

    __iadd__ = __isub__ = __imul__ = __itruediv__ = _no_inplace

    def __new__(cls, *args, **kwargs):
        # `tf.Variable(...)` makes a ResourceVariable, as in TensorFlow (`type(v).__name__` shows it);
        # subclasses are made as themselves.
        return object.__new__(ResourceVariable if cls is Variable else cls)

    @classmethod
    def _graph_view(cls, handle, like):
        """A Variable reading and writing through `handle`, a resource placeholder of a graph being
        traced: what a tf.function sees for a variable passed as an argument."""
        view = object.__new__(ResourceVariable if cls is Variable else cls)
        view._resource = None
        view._handle = handle
        view._read_attrs = like._read_attrs
        view._shape, view._dtype, view._name = like._shape, like._dtype, like._name
        view._trainable, view._handle_id = like._trainable, like._handle_id
        view._synchronization, view._aggregation = like.synchronization, like.aggregation
        return view

    def __init__(self, initial_value=None, trainable=None, validate_shape=True, caching_device=None,
                 name=None, variable_def=None, dtype=None, import_scope=None, constraint=None,
                 synchronization=None, aggregation=None, shape=None,
                 experimental_enable_variable_lifting=True):
        if initial_value is None:
            raise ValueError("The `initial_value` arg to `tf.Variable` must be specified except when you are "
                             "not providing a `variable_def`. You provided neither.")
        value = _restored_later(initial_value, dtype, shape) if _RESTORING.depth else None
        if value is None:
            value = _value_of(initial_value, dtype)
        if not validate_shape:
            declared = TensorShape(None)
        elif shape is not None:
            declared = TensorShape(shape)
            if not declared.is_compatible_with(value.shape):
                raise ValueError(f"In this `tf.Variable` creation, the initial value's shape ({value.shape}) is "
                                 f"not compatible with the explicitly supplied `shape` argument ({shape}).")
        else:
            declared = value.shape
        self._dtype = value.dtype
        self._shape = declared
        self._name = _state.name_stack + (name or "Variable") + ":0"
        self._synchronization = _policies.synchronization_of(synchronization, name)
        self._aggregation = _policies.aggregation_of(aggregation, name)
        if trainable is None:   # TensorFlow: variables synchronised on read are not trained unless asked
            trainable = self._synchronization != _policies.VariableSynchronization.ON_READ
        self._trainable = bool(trainable)
        self._handle_id = next(_handle_ids)
        dims = None if declared.rank is None else tuple(declared.as_list())
        self._resource = _ops.VariableResource(value._value, value._value.dtype, dims,
                                               self._name[:-2], self._handle_id)
        self._handle = _ops.ResourceHandle(self._resource, weakref.ref(self))
        self._read_attrs = {"dtype": value._value.dtype, "shape": dims}
        for observe in _state.variable_observers:
            observe(self)

    # -- identity --------------------------------------------------------------------------------
    @property
    def dtype(self):
        return self._dtype

    @property
    def shape(self):
        return self._shape

    def get_shape(self):
        return self._shape

    @property
    def name(self):
        return self._name

    @property
    def trainable(self):
        return self._trainable

    @property
    def synchronization(self):
        return getattr(self, "_synchronization", _policies.VariableSynchronization.AUTO)  # views, restored

    @property
    def aggregation(self):
        return getattr(self, "_aggregation", _policies.aggregation_of(None, None))

    @property
    def handle(self):
        return self._handle

    @property
    def device(self):
        return _CPU

    @property
    def constraint(self):
        return None

    @property
    def initial_value(self):
        if _state.graph is None:
            raise RuntimeError("This property is not supported when eager execution is enabled.")
        raise RuntimeError("The initial value of a tensorflux Variable is not kept.")

    # TensorFlow forbids hashing variables because `==` is elementwise.
    def __hash__(self):
        raise TypeError(f"Variable is unhashable. Instead, use variable.ref() as the key. (Variable: {self!r})")

    def ref(self):
        return Reference(self)

    def experimental_ref(self):
        return Reference(self)

    # -- reading ---------------------------------------------------------------------------------
    def _read(self):
        return apply(_ops.READ_VARIABLE, (self._handle,), self._read_attrs, "ReadVariableOp")

    def value(self):
        """The current value, as a tensor (a `ReadVariableOp`)."""
        return self._read()

    def read_value(self):
        """The current value; in a graph, TensorFlow's nodes: `Read/ReadVariableOp` and an `Identity`."""
        graph = _state.graph
        if graph is None:
            return self._read()
        with graph.name_scope("Read"):
            read = self._read()
        return apply(_IDENTITY, (read,), None, "Identity")

    def numpy(self):
        return self._read().numpy()

    def __tf_tensor__(self, dtype=None, name=None):
        if dtype is not None and _dt.as_dtype(dtype) is not self._dtype:
            raise ValueError(f"Incompatible type conversion requested to type {_dt.as_dtype(dtype).name} for "
                             f"`tf.Variable of type {self._dtype.name}. (Variable: {self!r})")
        read = self._read()
        graph = _state.graph
        if graph is not None:   # read as an op's input: TensorFlow names it in that op's scope
            graph.mark_implicit_read(read)
        return read

    def __array__(self, dtype=None, copy=None):
        return self._read().__array__(dtype, copy)

    def __bool__(self):
        return bool(self._read())

    def __int__(self):
        return int(self._read())

    def __float__(self):
        return float(self._read())

    def __complex__(self):
        return complex(self._read())

    def __iter__(self):
        return iter(self._read())

    # -- updating --------------------------------------------------------------------------------
    def _update(self, opdef, value, name, read_value):
        op = apply(opdef, (self._handle, value), None, name)
        if read_value:
            return _UnreadVariable(self)
        return op if _state.graph is not None else None  # in graphs, the assign Operation (as TensorFlow)

    def assign(self, value, use_locking=None, name=None, read_value=True):
        """Replaces the value; returns the variable (unless `read_value=False`)."""
        value = convert_to_tensor(value, dtype=self._dtype)
        if not self._shape.is_compatible_with(value.shape):
            raise ValueError(f"Cannot assign value to variable ' {self._name}': Shape mismatch.The variable "
                             f"shape {self._shape}, and the assigned value shape {value.shape} are incompatible.")
        return self._update(_ops.ASSIGN_VARIABLE, value, name or "AssignVariableOp", read_value)

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        """Adds `delta` to the value; returns the variable (unless `read_value=False`)."""
        delta = convert_to_tensor(delta, dtype=self._dtype)
        return self._update(_ops.ASSIGN_ADD_VARIABLE, delta, name or "AssignAddVariableOp", read_value)

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        """Subtracts `delta` from the value; returns the variable (unless `read_value=False`)."""
        delta = convert_to_tensor(delta, dtype=self._dtype)
        return self._update(_ops.ASSIGN_SUB_VARIABLE, delta, name or "AssignSubVariableOp", read_value)

    def is_initialized(self, name=None):
        return apply(_ops.VAR_IS_INITIALIZED, (self._handle,), None, name or "VarIsInitializedOp")

    # -- text ------------------------------------------------------------------------------------
    def _repr_name(self):
        return self._name

    def __repr__(self):
        head = f"<tf.Variable '{self._repr_name()}' shape={self._shape} dtype={self._dtype.name}"
        if _state.graph is not None:
            return head + ">"
        text = _numpy_text(self._resource.value, True)
        return f"{head}, numpy={chr(10) if chr(10) in text else ''}{text}>"

    __str__ = __repr__

    def __deepcopy__(self, memo):
        copy = Variable(self.read_value(), trainable=self._trainable, name=self._name[:-2],
                        shape=self._shape)
        memo[id(self)] = copy
        return copy

    def __copy__(self):
        return self


class ResourceVariable(Variable):
    """The class of what `tf.Variable(...)` returns: a variable held in a resource (every tensorflux
    variable is one; the subclass exists so that the type prints as TensorFlow's does)."""

    __slots__ = ()


class _UnreadVariable(Variable):
    """What `assign*` returns: the same variable (same resource), shown as TensorFlow shows it."""

    __slots__ = ()

    def __init__(self, variable):
        for slot in Variable.__slots__[:-1]:
            setattr(self, slot, getattr(variable, slot))

    def _repr_name(self):
        return "UnreadVariable"


def _read_then(name):
    """A Variable operator: reads the value and applies the Tensor operator `name` to it."""
    def method(self, *args):
        value = self._read()
        fn = getattr(type(value), name, None)
        if fn is None:
            return NotImplemented
        return fn(value, *args)
    method.__name__ = name
    return method


for _op in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor"):
    setattr(Variable, f"__{_op}__", _read_then(f"__{_op}__"))
    setattr(Variable, f"__r{_op}__", _read_then(f"__r{_op}__"))
for _op in ("neg", "abs", "invert", "pos", "lt", "le", "gt", "ge", "eq", "ne", "getitem", "div", "rdiv"):
    setattr(Variable, f"__{_op}__", _read_then(f"__{_op}__"))
del _op

API = {"": ["Variable"]}
