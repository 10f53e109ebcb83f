"""Pruning: drops ops whose outputs no live op or function output uses. Stateful ops always stay.

    a = x + 1; b = x * 2; return a     # `b` is pruned; a tf.print or an assign never is
"""

__all__ = ["prune"]


def prune(ops, outputs, keep_stateful=True):
    producers = {}
    for op in ops:
        for t in op.outputs:
            producers[id(t)] = op
    live = set()
    members = None      # ids of `ops`, made only when some live op has control inputs
    stack = [producers[id(t)] for t in outputs if id(t) in producers]
    if keep_stateful:
        stack += [op for op in ops if op.opdef is not None and op.opdef.stateful]
    while stack:
        op = stack.pop()
        key = id(op)
        if key in live:
            continue        # (an op is pushed once per reader; the test here is the only one needed)
        live.add(key)
        for t in op.inputs:
            p = producers.get(id(t))
            if p is not None:
                stack.append(p)
        if op.control_inputs:
            if members is None:
                members = {id(o) for o in ops}
            for c in op.control_inputs:
                if id(c) in members:
                    stack.append(c)
    return [op for op in ops if id(op) in live or op.type == "Placeholder"]
