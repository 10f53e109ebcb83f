"""Reverse-mode differentiation over recorded ops — one mechanism for eager tapes and graphs.

A record is anything with `opdef`, `inputs`, `outputs` and `attrs` (graph Operations qualify; eager
execution records `Record`s). `backprop(records, targets, target_grads, sources)` walks the records in
reverse, calls each op's `grad(op, *output_grads)` — written with tensorflux ops, so it computes eagerly
or adds gradient ops to the graph being built — and sums the gradients reaching each source.

A variable's gradient is the gradient of its resource handle: `ReadVariableOp`'s gradient passes the
output gradient to the handle, so every read of the variable contributes.

Sparse gradients: `tf.gather`'s gradient is an `IndexedSlices`. As in TensorFlow, two of them add up by
concatenation, one added to a dense gradient is densified, and an op whose gradient does arithmetic
receives it dense; reads and identities pass it through, so a gathered variable's gradient stays sparse.
`backprop(..., keep_sparse=False)` densifies what it returns (callers other than tape.gradient want
tensors).
"""
from ..framework.graph import OpRecord
from ..framework.indexed_slices import IndexedSlices, densify
from ..ops.array import join as _join
from ..ops.control_flow import tensor_array as _tensor_array
from ..ops.math import arith as _math
from ..types import dtypes as _dt

__all__ = ["Record", "backprop"]


Record = OpRecord  # what the eager tape keeps for each executed op


def _differentiable(t):
    dtype = t.dtype
    return dtype.is_floating or dtype.is_complex or dtype is _dt.resource or dtype is _dt.variant


# Ops whose gradient hands the output gradient on unchanged: an IndexedSlices may pass through them.
_PASS_THROUGH = frozenset(("ReadVariableOp", "Identity"))


def _add(a, b):
    if a is None:
        return b
    if b is None:
        return a
    if isinstance(a, IndexedSlices) or isinstance(b, IndexedSlices):
        return _add_sparse(a, b)
    return _tensor_array.add_gradients(a, b)


def _add_sparse(a, b):
    """Slices plus slices concatenate (rows named twice add up when densified); plus dense is dense.
    `b` arrived later (from an op recorded earlier), and goes first, as TensorFlow orders two gathers."""
    if isinstance(a, IndexedSlices) and isinstance(b, IndexedSlices):
        indices_a = a.indices
        if indices_a.dtype is not b.indices.dtype:
            indices_a = _math.cast(indices_a, b.indices.dtype)
        return IndexedSlices(_join.concat([b.values, a.values], 0), _join.concat([b.indices, indices_a], 0),
                             b.dense_shape if b.dense_shape is not None else a.dense_shape)
    return _tensor_array.add_gradients(densify(a), densify(b))


def backprop(records, targets, target_grads, sources, keep_sparse=False):
    """Gradients of `targets` (seeded with `target_grads`) w.r.t. `sources`; None where unconnected.
    With `keep_sparse`, a source's IndexedSlices gradient is returned as it is (tape.gradient)."""
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
        if rec.opdef.name not in _PASS_THROUGH:
            out_grads = [densify(g) for g in out_grads]
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
    result = [grads.get(id(s)) for s in sources]
    return result if keep_sparse else [densify(g) for g in result]

