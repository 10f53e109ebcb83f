"""Inlining: replaces each call of a nested tf.function by a copy of the callee's ops.

A call op carries the callee FuncGraph in its attrs (`graph`, and `outputs`: the callee's output
tensors). Copies get fresh output tensors, so one callee can be inlined several times; `remap` maps the
id of every replaced tensor to its replacement.
"""
from ...framework.graph import Operation, SymbolicTensor

__all__ = ["inline_calls", "CALL_TYPES"]

CALL_TYPES = ("PartitionedCall", "StatefulPartitionedCall")


def _copy(op, inputs, copies):
    new = Operation(op.graph, op.name, op.opdef, op.type, inputs, op.attrs, op.source)
    new.device = op.device
    new.outputs = [SymbolicTensor(new, i, t.dtype, t.shape) for i, t in enumerate(op.outputs)]
    new.control_inputs = [copies.get(id(c), c) for c in op.control_inputs]
    copies[id(op)] = new
    return new


def inline_calls(ops, remap, copy_all=False, copies=None):
    """The flat op list with every call op expanded (recursively)."""
    if not copy_all and not remap and not copies:
        # nothing replaced yet: until a call op appears every op is kept as it is, so a list without one
        # (most graphs) is returned as a copy without the per-op membership tests below
        for op in ops:
            if op.type in CALL_TYPES and "graph" in op.attrs:
                break
        else:
            return list(ops)
    copies = {} if copies is None else copies   # id(original op) -> its copy (for control inputs)
    out = []
    for op in ops:
        if op.type in CALL_TYPES and "graph" in op.attrs:
            callee = op.attrs["graph"]
            inner = {}
            for placeholder, t in zip(callee.inputs, op.inputs):
                inner[id(placeholder)] = remap.get(id(t), t)
            body = [o for o in callee.get_operations() if o.type != "Placeholder"]
            out.extend(inline_calls(body, inner, copy_all=True, copies=copies))
            for t, callee_out in zip(op.outputs, op.attrs["outputs"]):
                remap[id(t)] = inner.get(id(callee_out), callee_out)
            continue
        if copy_all or any(id(t) in remap for t in op.inputs) or any(id(c) in copies for c in op.control_inputs):
            new = _copy(op, [remap.get(id(t), t) for t in op.inputs], copies)
            for old_t, new_t in zip(op.outputs, new.outputs):
                remap[id(old_t)] = new_t
            out.append(new)
        else:
            out.append(op)
    return out
