"""The scalar int64 arguments of dataset transformations (`batch_size`, `buffer_size`, a window's `size`,
`count`) as TensorFlow takes them.

TensorFlow converts each to an int64 tensor: a Python int (or NumPy integer) is accepted, another Python
value fails the conversion (TypeError), a tensor of another dtype is refused with a ValueError naming the
argument, and a non-scalar tensor with the op's InvalidArgumentError. Inside a traced function the argument
may be a symbolic tensor (`ds.batch(n)` with `n` an argument of a tf.function, or `window.padded_batch(
sizes[key])` in `group_by_window`'s reducer): its value exists only when the graph runs, so the dataset
reads it then (`graph_values.deferred`) and checks it then, as TensorFlow's kernels do.
"""
import numpy as np

from ..framework.errors import InvalidArgumentError, eager_error
from ..framework.tensor import Tensor
from ..ops.registry import constant_value
from ..types import dtypes as _dt
from .graph_values import deferred, is_symbolic

__all__ = ["int64_scalar", "run_time_count"]


def int64_scalar(value, what=None, op_name=None):
    """`value` as a Python int, or the symbolic int64 scalar it is when its value is known only when the graph
    runs (a graph constant counts as known)."""
    if isinstance(value, Tensor):
        if value.dtype != _dt.int64 and what is not None:
            raise ValueError(f"{what}: Tensor conversion requested dtype int64 for Tensor with dtype "
                             f"{value.dtype.name}: {value!r}")
        if value.dtype.is_integer and value.shape.rank == 0:
            if not is_symbolic(value):
                return int(value.numpy())
            static = constant_value(value)
            return value if static is None else int(np.asarray(static))
        if value.shape.rank not in (0, None) and what is not None and op_name is not None:
            raise eager_error(InvalidArgumentError, f"{what} must be a scalar", op_name)
    elif isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return int(value)
    raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype int64")


def run_time_count(value, what, op_name, problem):
    """A count argument -> (static, current): `static` is its int when known before the dataset runs (None
    for a symbolic tensor), `current()` its int when the dataset runs. `problem(n)` gives TensorFlow's
    message for a refused value (or None): raised with the op's InvalidArgumentError at once for a static
    value, when the dataset runs for a symbolic one (as TensorFlow's kernel raises it)."""
    number = int64_scalar(value, what, op_name)
    later = deferred([number]) if is_symbolic(number) else None

    def checked(n):
        message = problem(n)
        if message is not None:
            raise eager_error(InvalidArgumentError, message, op_name)
        return n

    if later is None:
        checked(number)
        return number, lambda: number
    return None, lambda: checked(int(later()[0]))
