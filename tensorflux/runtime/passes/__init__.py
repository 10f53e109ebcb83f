"""Graph → op-list passes run before codegen, in order: inlining of nested function calls, pruning.

`run_all(graph, outputs)` returns `(ops, outputs)`: the ops to emit, in a valid order, and the output
tensors as seen in that op list (inlining replaces call outputs by the callee's tensors).
"""
from .inline import inline_calls
from .prune import prune

__all__ = ["run_all"]


def run_all(graph, outputs, keep_stateful=True):
    remap = {}
    ops = inline_calls(graph.get_operations(), remap)
    outputs = [remap.get(id(t), t) for t in outputs]
    return prune(ops, outputs, keep_stateful), outputs
