"""Constant folding: an op whose inputs are all constants is run once, at compile time, and becomes a Const.

    tf.constant(2.0) * tf.constant(3.0) + x     →   Const(6.0) + x

Only ops that compute a value and nothing else are folded: never stateful ops, random ops (stateless
ones included), ops whose attrs hold graphs or functions (If/While branches, calls, custom gradients),
ops without inputs, nor ops producing resources or variants. The outputs must be small — a fully
known static shape of at most FOLD_MAX_ELEMENTS elements each — so the generated module does not
carry large arrays that could have been computed cheaply from small ones. An op whose kernel fails
(or yields an unexpected dtype or shape) stays in the graph: it then fails at run time, naming its node,
as it would have without folding. Results are copied, since a kernel may return a view of its input.
"""
import numpy as np

from ...types import dtypes as _dt
from .rewrite import Rewrite, const_op, const_value, is_random, plain_key

__all__ = ["fold_constants", "FOLD_MAX_ELEMENTS"]

FOLD_MAX_ELEMENTS = 1000


def fold_constants(ops):
    """One forward walk over `ops`; returns a PassResult (ops, remap, counts by folded op type)."""
    rw = Rewrite()
    for op in ops:
        inputs = rw.inputs_of(op)
        if op.type != "Const" and rw.replaceable(op) and _foldable(op, inputs):
            values = _evaluate(op, inputs)
            if values is not None:
                consts = [const_op(op, i, v) for i, v in enumerate(values)]
                for c in consts:
                    rw.add(c)
                rw.replace(op, [c.outputs[0] for c in consts], op.type)
                continue
        rw.keep(op, inputs)
    return rw.result()


def _foldable(op, inputs):
    if not inputs or is_random(op.type) or op.opdef.kernel is None:
        return False
    if any(t.op.type != "Const" for t in inputs):
        return False
    if any(plain_key(v) is None for v in op.attrs.values()):
        return False
    for t in op.outputs:
        dims = t.shape._dims
        if _dt.FROM_NUMPY.get(t.dtype._np) is not t.dtype or dims is None or None in dims:
            return False
        if int(np.prod(dims)) > FOLD_MAX_ELEMENTS:
            return False
    return True


def _evaluate(op, inputs):
    """The op's output arrays (fresh copies matching its static dtypes and shapes), or None."""
    arrays = [const_value(t) for t in inputs]
    try:
        with np.errstate(all="ignore"):
            result = op.opdef.kernel(*arrays, **op.attrs)
    except Exception:  # noqa: BLE001 - the op keeps its run-time error, with its node name
        return None
    results = tuple(result) if op.opdef.multi else (result,)
    if len(results) != len(op.outputs):
        return None
    values = []
    for r, t in zip(results, op.outputs):
        # String kernels may return a bare `bytes` for a scalar; NumPy would make that an 'S' array.
        value = np.array(r, dtype=object) if t.dtype is _dt.string else np.array(r, copy=True)
        if value.dtype != t.dtype._np or value.shape != t.shape._dims:
            return None
        values.append(value)
    return values
