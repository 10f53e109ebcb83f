"""Variable ops: the resource a variable lives in, and the stateful ops that read and update it.

A variable's state is a `VariableResource`: a small holder whose `.value` is the variable's current NumPy
value (stored like an EagerTensor's `_value`: an ndarray or NumPy scalar of the variable's dtype). The
variable's *handle* is a `ResourceHandle`, an EagerTensor of dtype `tf.resource` and shape () whose
`_value` is that holder, so kernels receive the holder like any other input array.

Invariant: the holder's array is never written into. Assignments REPLACE `.value` with a new array,
because tensors returned by earlier reads share the old one.

Threads: a read is one attribute load, so it always sees a whole value (old or new, never a mix) and takes
no lock. Every update holds the resource's own lock from reading the old value to storing the new one,
so concurrent `assign_add`s (eager or from traced code, which calls these same kernels) never lose an
update and an `assign` is never overwritten by an update that started before it. The lock is per
variable, so updates to different variables never wait for each other.

    ReadVariableOp(handle)              -> the current value
    AssignVariableOp(handle, value)     -> no outputs; value becomes the new state
    AssignAddVariableOp / AssignSubVariableOp(handle, delta)
"""
import threading

import numpy as np

from ..framework import errors
from ..framework.tensor import EagerTensor, _CPU
from ..types import dtypes as _dt
from ..types.shape import TensorShape
from .registry import OpDef, dtype_error_name

__all__ = ["VariableResource", "ResourceHandle", "READ_VARIABLE", "ASSIGN_VARIABLE", "ASSIGN_ADD_VARIABLE",
           "ASSIGN_SUB_VARIABLE", "VAR_IS_INITIALIZED"]


class VariableResource:
    """The mutable state of one variable (see the module invariant)."""

    __slots__ = ("value", "dtype", "shape", "name", "id", "lock")

    def __init__(self, value, dtype, shape, name, id):  # noqa: A002 - the handle id
        self.value = value      # ndarray | np.generic, never mutated in place
        self.dtype = dtype      # NumPy dtype every assigned value must have
        self.shape = shape      # declared shape: a tuple with None for free dims, or None (any shape)
        self.name = name
        self.id = id
        self.lock = threading.Lock()  # held by every update (see the module docstring)

    def __repr__(self):
        return (f'<ResourceHandle(name="{self.name}/{self.id}", device="{_CPU}", container="Anonymous", '
                f'type="tensorflow::Var")>')


_SCALAR = TensorShape(())


class ResourceHandle(EagerTensor):
    """An eager tensor of dtype `tf.resource` whose value is a `VariableResource`.

    `_variable_ref` weakly points back at the owning tf.Variable, so traced functions that capture the
    handle can list their variables without keeping them alive.
    """

    __slots__ = ("_variable_ref",)

    def __init__(self, value, variable_ref=None):
        self._value = value
        self._variable_ref = variable_ref

    @property
    def _variable(self):
        return self._variable_ref() if self._variable_ref is not None else None

    @property
    def _capture_name(self):
        return self._value.name.replace("/", "_").replace(":", "_") + "_resource" if self._value.name else None

    @property
    def dtype(self):
        return _dt.resource

    @property
    def shape(self):
        return _SCALAR

    @property
    def ndim(self):
        return 0

    def _shape_tuple(self):
        return ()

    def numpy(self):
        raise errors.InvalidArgumentError(None, None, "Cannot convert a Tensor of dtype resource to a NumPy "
                                                      "array.")

    def __array__(self, dtype=None, copy=None):
        return self.numpy()

    def __bool__(self):
        raise TypeError("A resource handle has no truth value.")

    def __reduce__(self):
        raise TypeError("Resource handles cannot be pickled.")

    def __repr__(self):
        return f"<tf.Tensor: shape=(), dtype=resource, value={self._value!r}>"

    __str__ = __repr__


# -- inference ---------------------------------------------------------------------------------------

def _infer_read(inputs, attrs):
    shape = attrs["shape"]
    return [(_dt.FROM_NUMPY[attrs["dtype"]], TensorShape(shape))]


def _no_outputs(inputs, attrs):
    return []


def _infer_is_initialized(inputs, attrs):
    return [(_dt.bool, _SCALAR)]


# -- kernels -----------------------------------------------------------------------------------------

def _read_kernel(resource, dtype, shape):
    return resource.value


def _dims(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def _check_dtype(resource, value):
    if value.dtype != resource.dtype:
        raise errors.InvalidArgumentError(
            None, None, f"Trying to assign variable with wrong dtype. Expected "
                        f"{dtype_error_name(_dt.FROM_NUMPY[resource.dtype])} got "
                        f"{dtype_error_name(_dt.FROM_NUMPY[value.dtype])}")


def _assign_kernel(resource, value):
    _check_dtype(resource, value)
    declared = resource.shape
    if declared is not None and not TensorShape(declared).is_compatible_with(TensorShape(value.shape)):
        raise errors.InvalidArgumentError(
            None, None, f"Trying to assign to variable with tensor with wrong shape. Expected "
                        f"{_dims('?' if d is None else d for d in declared)} got {_dims(value.shape)}")
    with resource.lock:  # so an update already under way cannot overwrite this value with its own
        resource.value = value  # the tensor's array is immutable, so the state may share it
    return ()


def _update_kernel(ufunc):
    # Every training step runs one of these per variable: the checks are inlined attribute compares, the
    # error paths called only on a mismatch.
    def kernel(resource, delta):
        if delta.dtype != resource.dtype:
            _check_dtype(resource, delta)
        with resource.lock:  # read-modify-write: no other update may store between the read and the store
            old = resource.value
            try:
                shape = old.shape
            except AttributeError:  # an uninitialised variable's None: reported as before
                shape = np.shape(old)
            if shape != delta.shape:
                raise errors.InvalidArgumentError(
                    None, None, f"Cannot update variable with shape {_dims(np.shape(old))} using a Tensor "
                                f"with shape {_dims(delta.shape)}, shapes must be equal.")
            resource.value = ufunc(old, delta)  # a new array: earlier reads keep the old one
        return ()
    return kernel


def _is_initialized_kernel(resource):
    return np.bool_(resource.value is not None)


def _read_grad(op, grad):
    """A read passes its gradient to the handle: a variable's gradient is the sum over its reads.

    Assignments have no outputs, so nothing flows through them (TensorFlow gives them no gradient).
    """
    return [grad]


READ_VARIABLE = OpDef("ReadVariableOp", _infer_read, _read_kernel, grad=_read_grad, stateful=True,
                      input_names=("resource",))
ASSIGN_VARIABLE = OpDef("AssignVariableOp", _no_outputs, _assign_kernel, stateful=True, multi=True,
                        input_names=("resource", "value"))
ASSIGN_ADD_VARIABLE = OpDef("AssignAddVariableOp", _no_outputs, _update_kernel(np.add), stateful=True,
                            multi=True, input_names=("resource", "value"))
ASSIGN_SUB_VARIABLE = OpDef("AssignSubVariableOp", _no_outputs, _update_kernel(np.subtract), stateful=True,
                            multi=True, input_names=("resource", "value"))
VAR_IS_INITIALIZED = OpDef("VarIsInitializedOp", _infer_is_initialized, _is_initialized_kernel,
                           stateful=True, input_names=("resource",))

API = {}
