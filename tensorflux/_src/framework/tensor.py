"""Tensor, the value type every op takes and returns, and EagerTensor, a tensor holding a NumPy value.

Invariant: an EagerTensor's `_value` is an `np.ndarray` or a NumPy scalar (`np.generic`) whose dtype is
one TensorFlow supports; strings are object arrays of `bytes`. EagerTensors are immutable: ops never
write into a tensor's array.

Arithmetic operators on Tensor are installed by `ops.math`/`ops.array` (they call the public ops), so
`x + 1` and `tf.add(x, 1)` are the same code path.
"""
import numpy as np

from ..types import dtypes as _dtypes
from ..types.shape import TensorShape
from ..types.spec import register_tensor_type

__all__ = ["Tensor", "EagerTensor", "Reference", "is_tensor"]

_FROM_NUMPY = _dtypes.FROM_NUMPY
_CPU = "/job:localhost/replica:0/task:0/device:CPU:0"


class Tensor:
    """A multi-dimensional array of one dtype: eager (holds a value) or symbolic (a graph edge)."""

    __slots__ = ("__weakref__",)
    __array_priority__ = 100  # makes `ndarray + tensor` defer to Tensor.__radd__

    # TensorFlow forbids hashing tensors because `==` is elementwise.
    def __hash__(self):
        raise TypeError("Tensor is unhashable. Instead, use tensor.ref() as the key.")

    def ref(self):
        """A hashable reference to this tensor (compares by identity)."""
        return Reference(self)

    def experimental_ref(self):
        return Reference(self)

    def get_shape(self):
        return self.shape

    @property
    def ndim(self):
        return self.shape.rank


register_tensor_type(Tensor)


class Reference:
    """A hashable identity wrapper around a tensor or variable (`tensor.ref()`)."""

    __slots__ = ("_wrapped",)

    def __init__(self, wrapped):
        self._wrapped = wrapped

    def deref(self):
        return self._wrapped

    def __eq__(self, other):
        return isinstance(other, Reference) and other._wrapped is self._wrapped

    def __hash__(self):
        return id(self._wrapped)

    def __repr__(self):
        return f"<Reference wrapping {self._wrapped!r}>"


def _numpy_text(value, is_repr):
    """TensorFlow's text for a value: NumPy's str/repr, but a scalar's repr is its Python value's."""
    if value.ndim == 0:
        return repr(value.item()) if is_repr else str(value[()] if isinstance(value, np.ndarray) else value)
    return repr(value) if is_repr else str(value)


class EagerTensor(Tensor):
    """A tensor with a concrete value, produced by eager execution."""

    __slots__ = ("_value",)

    def __init__(self, value):
        self._value = value

    # -- identity --------------------------------------------------------------------------------
    @property
    def dtype(self):
        return _FROM_NUMPY[self._value.dtype]

    @property
    def shape(self):
        return TensorShape._from_tuple(self._value.shape)

    @property
    def ndim(self):
        return self._value.ndim

    @property
    def device(self):
        return _CPU

    @property
    def backing_device(self):
        return _CPU

    @property
    def name(self):
        raise AttributeError("Tensor.name is undefined when eager execution is enabled.")

    @property
    def op(self):
        raise AttributeError("Tensor.op is undefined when eager execution is enabled.")

    @property
    def graph(self):
        raise AttributeError("Tensor.graph is undefined when eager execution is enabled.")

    @property
    def value_index(self):
        raise AttributeError("Tensor.value_index is undefined when eager execution is enabled.")

    def consumers(self):
        raise NotImplementedError("Tensor.consumers is undefined when eager execution is enabled.")

    def _shape_tuple(self):
        return self._value.shape

    def set_shape(self, shape):
        if not self.shape.is_compatible_with(shape):
            raise ValueError(f"Tensor's shape {self.shape} is not compatible with supplied shape "
                             f"{TensorShape(shape)}.")

    # -- value -----------------------------------------------------------------------------------
    def numpy(self):
        """The value as a NumPy array (a NumPy scalar for rank 0); a copy callers may mutate."""
        v = self._value
        if isinstance(v, np.ndarray):
            if v.ndim == 0:
                return v[()]
            return v.copy()
        return v

    def __array__(self, dtype=None, copy=None):
        """A read-only view of the value (tensors are immutable), or a converted copy."""
        v = self._value
        if dtype is not None and v.dtype != dtype:
            return np.asarray(v).astype(dtype)
        if copy:
            return np.array(v)
        view = v.view() if isinstance(v, np.ndarray) else np.asarray(v)
        view.flags.writeable = False
        return view

    def cpu(self):
        return self

    def __len__(self):
        v = self._value
        if v.ndim == 0:
            raise TypeError("Scalar tensor has no `len()`")
        return v.shape[0]

    def __iter__(self):
        v = self._value
        if v.ndim == 0:
            raise TypeError("Cannot iterate over a scalar tensor.")
        return (EagerTensor(_as_stored(v[i])) for i in range(v.shape[0]))

    def __bool__(self):
        v = self._value
        if v.size == 0:
            return False  # TensorFlow: an empty tensor is falsy (NumPy would raise)
        return bool(v)

    def __int__(self):
        return int(self._value)

    def __float__(self):
        return float(self._value)

    def __complex__(self):
        return complex(self._value)

    def __index__(self):
        # NumPy's own errors, as TensorFlow delegates to the NumPy value too.
        return self.numpy().__index__()

    def __reduce__(self):
        return EagerTensor, (np.array(self._value),)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __format__(self, spec):
        return self.numpy().__format__(spec)

    def __str__(self):
        text = _numpy_text(self._value, False)
        sep = "\n" if "\n" in text else ""
        return f"tf.Tensor({sep}{text}, shape={self.shape}, dtype={self.dtype.name})"

    def __repr__(self):
        text = _numpy_text(self._value, True)
        sep = "\n" if "\n" in text else ""
        return f"<tf.Tensor: shape={self.shape}, dtype={self.dtype.name}, numpy={sep}{text}>"


def _as_stored(value):
    """Normalises a NumPy result for storage: object scalars (bytes) become 0-d object arrays."""
    if isinstance(value, (np.ndarray, np.generic)):
        return value
    return np.array(value, dtype=object)


def is_tensor(x):
    """True for tensors (eager or symbolic) and tensor-like objects such as variables."""
    return isinstance(x, Tensor) or getattr(x, "_is_tensor_like", False)


class VariantTensor(EagerTensor):
    """An eager tensor of dtype `tf.variant` holding a Python value (a TensorArray's item tuple)."""

    __slots__ = ()

    @property
    def dtype(self):
        return _dtypes.variant

    @property
    def shape(self):
        return TensorShape._from_tuple(())

    @property
    def ndim(self):
        return 0

    def _shape_tuple(self):
        return ()

    def numpy(self):
        raise TypeError("A variant tensor (such as a TensorArray's flow) has no NumPy value.")

    def __array__(self, dtype=None, copy=None):
        return self.numpy()

    def __str__(self):
        return "tf.Tensor(<TensorList>, shape=(), dtype=variant)"

    def __repr__(self):
        return "<tf.Tensor: shape=(), dtype=variant, value=<TensorList>>"
