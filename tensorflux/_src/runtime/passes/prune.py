"""Pruning: drops ops whose outputs no live op or function output uses. Stateful ops always stay.

    a = x + 1; b = x * 2; return a     # `b` is pruned; a tf.print or an assign never is
"""

__all__ = ["prune"]


def prune(ops, outputs, keep_stateful=True):
    members = {id(op) for op in ops}
    producers = {}
    for op in ops:
        for t in op.outputs:
            producers[id(t)] = op
    live = set()
    stack = [producers[id(t)] for t in outputs if id(t) in producers]
    if keep_stateful:
        stack += [op for op in ops if op.opdef is not None and op.opdef.stateful]
    while stack:
        op = stack.pop()
        if id(op) in live:
            continue
        live.add(id(op))
        for t in op.inputs:
            p = producers.get(id(t))
            if p is not None and id(p) not in live:
                stack.append(p)
        for c in op.control_inputs:
            if id(c) not in live and id(c) in members:
                stack.append(c)
    return [op for op in ops if id(op) in live or op.type == "Placeholder"]
