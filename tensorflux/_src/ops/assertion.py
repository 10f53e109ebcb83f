"""The Assert op (`tf.debugging.Assert`): raises InvalidArgumentError showing its data when its condition is
false. Eagerly it checks at once; in a graph it is a stateful node with no outputs.

It is a family of its own, below array, because array ops check run-time arguments with it (e.g.
`repeat`'s counts), while the `assert_*` checks in logging.py are built from array and math ops.
"""
import numpy as np

from ..framework import errors
from ..framework.context import state as _state
from ..types import dtypes as _dt
from .convert import convert_to_tensor
from .registry import OpDef, apply


def _string():
    """ops/strings.py, imported when an assertion fails (tf.strings is a lazy room: namespaces.LAZY_ROOMS)."""
    from . import strings
    return strings


__all__ = ["ASSERT", "Assert"]


def _no_outputs(inputs, attrs):
    return []


def _assert_kernel(condition, *data, summarize):
    if condition.size != 1:
        raise errors.InvalidArgumentError(
            None, None, f"In[0] expects a scalar, got shape {_string()._dims(condition.shape)}")
    if not condition.reshape(())[()]:
        shown = " ".join("[" + _string().summarize_v1(d, summarize) + "]" for d in data)
        raise errors.InvalidArgumentError(None, None, "assertion failed: " + shown)
    return ()


ASSERT = OpDef("Assert", _no_outputs, _assert_kernel, stateful=True, multi=True,
               input_names=("condition", "data"))


def _summarize_eager(t, summarize):
    """One data item of an eager `Assert` message: comma-separated leading values."""
    value = np.asarray(t._value)
    if value.ndim == 0:
        return str(value[()]) if summarize != 0 else ""
    flat = value.reshape(-1)
    count = flat.size if summarize is None or summarize < 0 else summarize
    items = [str(v) for v in flat[:count]]
    if len(items) < flat.size:
        items.append("...")
    return ", ".join(items)


def Assert(condition, data, summarize=None, name=None):  # noqa: N802 - TensorFlow's name
    """`tf.debugging.Assert`: raises InvalidArgumentError showing `data` when `condition` is false."""
    if _state.graph is None:
        if not condition:
            tensors = [convert_to_tensor(d) for d in data]
            summary = "\n".join(_summarize_eager(t, 3 if summarize is None else summarize) for t in tensors)
            raise errors.InvalidArgumentError(
                None, None, f"Expected '{condition!s}' to be true. Summarized data: {summary}")
        return None
    # TensorFlow opens the scope `name` (default "Assert") and names the op "Assert" inside it, so runtime
    # errors point at node "Assert/Assert"
    with _state.graph.name_scope(name or "Assert"):
        inputs = (convert_to_tensor(condition, dtype=_dt.bool),) + tuple(convert_to_tensor(d) for d in data)
        return apply(ASSERT, inputs, {"summarize": 3 if summarize is None else int(summarize)}, "Assert")


API = {"": ["Assert"], "debugging": ["Assert"]}
