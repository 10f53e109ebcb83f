"""Common-subexpression elimination: an op computing what an earlier op already computed is dropped.

    s = x + y; t = x + y; s * t       →   s = x + y; s * s

Two ops compute the same value when neither is stateful or random and they have the same type and
OpDef, the same input tensors (by identity, after the rewrites earlier in the walk), equal attrs and
the same output dtypes and static shapes; the first one stays. Attrs compare by value when they are
plain static values (see `rewrite.plain_key`) and by identity otherwise, so two `If`s merge only when
they hold the very same branch graphs. Constants of at most CSE_CONST_MAX_ELEMENTS elements merge when
their dtype, shape and bytes are equal (so `0.0` and `-0.0` stay apart, and strings compare as bytes).
"""
import numpy as np

from .rewrite import Rewrite, is_random, plain_key

__all__ = ["eliminate_common_subexpressions", "CSE_CONST_MAX_ELEMENTS"]

CSE_CONST_MAX_ELEMENTS = 1000


def eliminate_common_subexpressions(ops):
    """One forward walk over `ops`; returns a PassResult (ops, remap, counts: "op" and "const")."""
    rw = Rewrite()
    seen = {}  # key -> output tensors of the first op with that key
    for op in ops:
        inputs = rw.inputs_of(op)
        key = _key(op, inputs) if rw.replaceable(op) else None
        if key is not None:
            first = seen.get(key)
            if first is not None:
                rw.replace(op, first, "const" if op.type == "Const" else "op")
                continue
        kept = rw.keep(op, inputs)
        if key is not None:
            seen[key] = kept.outputs
    return rw.result()


def _key(op, inputs):
    """What identifies the value `op` computes, or None when it is never merged."""
    if op.type == "Const":
        return _const_key(op)
    if is_random(op.type):
        return None
    attrs = tuple(sorted((name, _attr_key(value)) for name, value in op.attrs.items()))
    outputs = tuple((t.dtype, t.shape._dims) for t in op.outputs)
    return (op.type, id(op.opdef), tuple(id(t) for t in inputs), attrs, outputs)


def _attr_key(value):
    key = plain_key(value)
    # The op list keeps every attr value alive while the walk runs, so its id cannot be reused.
    return key if key is not None else ("identity", id(value))


def _const_key(op):
    value = op.attrs["value"]
    if isinstance(value, np.generic):
        value = np.asarray(value)
    if not isinstance(value, np.ndarray) or value.size > CSE_CONST_MAX_ELEMENTS:
        return None
    dtype = op.outputs[0].dtype
    if value.dtype.kind == "O":
        items = value.ravel().tolist()
        if not all(type(v) is bytes for v in items):
            return None
        content = tuple(items)
    else:
        content = value.tobytes()
    return ("Const", dtype, value.dtype, value.shape, content)
