"""Questions about where code runs: `tf.get_current_name_scope`, `tf.inside_function` and
`tf.is_symbolic_tensor`."""
from .context import state
from .graph import SymbolicTensor

__all__ = ["get_current_name_scope", "inside_function", "is_symbolic_tensor"]


def get_current_name_scope():
    """The name scope ops are created in now, without its trailing '/' ("" at the top)."""
    graph = state.graph
    stack = graph._name_stack if graph is not None else state.name_stack
    return stack[:-1] if stack.endswith("/") else stack


def inside_function():
    """True while a tf.function (or another graph) is being traced."""
    return state.graph is not None


def is_symbolic_tensor(tensor):
    """True for a graph tensor (one of a function being traced), False for eager tensors and other values."""
    return isinstance(tensor, SymbolicTensor)


API = {"": __all__}
