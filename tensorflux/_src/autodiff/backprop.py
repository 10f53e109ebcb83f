"""Reverse-mode differentiation over recorded ops — one mechanism for eager tapes and graphs.

A record is anything with `opdef`, `inputs`, `outputs` and `attrs` (graph Operations qualify; eager
execution records `Record`s). `backprop(records, targets, target_grads, sources)` walks the records in
reverse, calls each op's `grad(op, *output_grads)` — written with tensorflux ops, so it computes eagerly
or adds gradient ops to the graph being built — and sums the gradients reaching each source.

A variable's gradient is the gradient of its resource handle: `ReadVariableOp`'s gradient passes the
output gradient to the handle, so every read of the variable contributes.
"""
from ..framework.graph import OpRecord
from ..ops.control_flow import tensor_array as _tensor_array
from ..types import dtypes as _dt

__all__ = ["Record", "backprop"]


Record = OpRecord  # what the eager tape keeps for each executed op


def _differentiable(t):
    dtype = t.dtype
    return dtype.is_floating or dtype.is_complex or dtype is _dt.resource or dtype is _dt.variant


def _add(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return _tensor_array.add_gradients(a, b)


def backprop(records, targets, target_grads, sources):
    """Gradients of `targets` (seeded with `target_grads`) w.r.t. `sources`; None where unconnected."""
    source_ids = {id(s) for s in sources}
    # Which records lie on a path from a source: forward reachability in recording order.
    reached = set(source_ids)
    relevant = []
    for rec in records:
        if any(id(t) in reached for t in rec.inputs):
            relevant.append(rec)
            for t in rec.outputs:
                reached.add(id(t))
    grads = {}
    for t, g in zip(targets, target_grads):
        if id(t) in reached and _differentiable(t):
            grads[id(t)] = _add(grads.get(id(t)), g)
    for rec in reversed(relevant):
        out_grads = [grads.get(id(t)) for t in rec.outputs]
        if all(g is None for g in out_grads):
            continue
        grad_fn = rec.opdef.grad
        if grad_fn is None:
            if not any(_differentiable(t) for t in rec.outputs):
                continue
            raise LookupError(f"gradient registry has no entry for: {rec.opdef.name}")
        if rec.opdef.none_grads:
            filled = out_grads
        else:
            filled = [g if g is not None else _tensor_array.gradient_zeros(t) if _differentiable(t) else None
                      for g, t in zip(out_grads, rec.outputs)]
        in_grads = grad_fn(rec, *filled)
        if not isinstance(in_grads, (list, tuple)):
            in_grads = [in_grads]
        for t, g in zip(rec.inputs, in_grads):
            if g is None or id(t) not in reached or not _differentiable(t):
                continue
            grads[id(t)] = _add(grads.get(id(t)), g)
    return [grads.get(id(s)) for s in sources]

