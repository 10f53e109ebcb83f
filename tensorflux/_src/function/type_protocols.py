"""`tf.types.experimental`'s abstract types for callables and tracing: `Callable` (what tf.function and its
concrete functions are), `FunctionType` (a concrete function's `function_type`), `SupportsTracingProtocol`
(objects that give their own TraceType) and `TensorLike` (the values TensorFlow converts to tensors)."""
import abc
import typing

import numpy as np

from ..framework.tensor import Tensor
from .concrete import ConcreteFunction
from .function_type import FunctionType
from .polymorphic import Function

__all__ = ["Callable", "FunctionType", "SupportsTracingProtocol", "TensorLike"]


class Callable(abc.ABC):
    """The base of TensorFlow callables such as those `tf.function` makes: each has a `function_type`
    describing its parameters. tf.function's objects and their concrete functions are instances."""

    @property
    @abc.abstractmethod
    def function_type(self):
        """The callable's FunctionType."""


Callable.register(Function)
Callable.register(ConcreteFunction)


@typing.runtime_checkable
class SupportsTracingProtocol(typing.Protocol):
    """An object that tells tf.function its own TraceType: `__tf_tracing_type__(context)` returns it, and
    tracing keys the function's cache on that type instead of the object's identity."""

    @abc.abstractmethod
    def __tf_tracing_type__(self, context):
        """The TraceType that stands for this object when a function is traced with it."""


# The Python values TensorFlow's ops accept where a tensor is expected (converted with convert_to_tensor).
TensorLike = typing.Union[Tensor, int, float, bool, str, bytes, complex, tuple, list, np.ndarray, np.generic]

API = {"types.experimental": __all__}
