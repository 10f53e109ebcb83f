"""Update fusion: `v.assign_sub(c * g)` runs as one ResourceApplyGradientDescent(v, c, g).

    mul = Mul(c, g)                       # c of rank 0; g of any shape; one dtype
    AssignSubVariableOp(v, mul)           # the Mul's only reader, not a function output
  becomes
    ResourceApplyGradientDescent(v, c, g)   # named as the AssignSub, in its place, with its control inputs

This is TensorFlow's own SGD op, and what a training step's `v.assign_sub(lr * grad)` means. The fused
kernel (ops/state.py) computes `v - c * g` without materialising the product, and writes into the
variable's array when nothing else holds it, where the two ops always allocated the product and a new
array. It gives the two ops' bits (the product rounded first; a NaN `c` computed in the Mul's operand
order) and their errors (`_assign_sub=True`: a shape or dtype the AssignSub would refuse falls back to
exactly the two ops).

Only the op list the code generator emits is rewritten (a pass like the others: the traced graph, which
`get_concrete_function().graph`, GraphDefs and SavedModels show, keeps the user's Mul and AssignSub). The
lowering to numba kernels is not given this op list: its elementwise loops already fuse the product into
the update (it lowers ResourceApplyGradientDescent too, for graphs that hold one, with the same bits).

`ENABLED = False` turns the pass off for functions compiled afterwards (a measurement's A side).
"""
import collections

from ...framework.graph import Operation
from ...ops import state as _state
from .rewrite import Rewrite

__all__ = ["fuse_variable_updates", "ENABLED"]

ENABLED = True
_FUSED_DTYPES = frozenset(("float16", "bfloat16", "float32", "float64", "complex64", "complex128"))


def fuse_variable_updates(ops, outputs):
    """A PassResult whose op list has each fusable Mul + AssignSubVariableOp pair as one update op."""
    rw = Rewrite()
    pairs = _fusable(ops, outputs) if ENABLED else {}
    if not pairs:
        rw.out = list(ops)
        return rw.result()
    muls = {id(mul) for mul, _ in pairs.values()}
    for op in ops:
        if id(op) in muls:
            rw.drop(op)
            continue
        pair = pairs.get(id(op))
        if pair is None:
            rw.keep(op, rw.inputs_of(op))
            continue
        mul, delta_first = pair
        x, y = rw.inputs_of(mul)     # an op before it may have been copied (its control inputs changed)
        c, g = (y, x) if delta_first else (x, y)
        fused = Operation(op.graph, op.name, _state.APPLY_GRADIENT_DESCENT, "ResourceApplyGradientDescent",
                          [rw.inputs_of(op)[0], c, g],
                          {"use_locking": False, "_delta_first": delta_first, "_assign_sub": True}, op.source)
        fused.device = op.device
        # The Mul ran after its own control inputs: the fused op keeps those and the AssignSub's.
        controls = list(rw.controls_of(op))
        controls += [m for m in rw.controls_of(mul) if all(m is not k for k in controls)]
        fused.control_inputs = controls
        rw.substitute(op, fused, "c*g -> variable update")
    return rw.result()


def _fusable(ops, outputs):
    """id(AssignSubVariableOp) -> (its Mul, whether the Mul's scalar is its second operand)."""
    readers = collections.Counter(id(t) for op in ops for t in op.inputs)
    readers.update(id(t) for t in outputs)
    producers = {id(op.outputs[0]): op for op in ops if op.type == "Mul" and len(op.outputs) == 1}
    pairs = {}
    for op in ops:
        if op.type != "AssignSubVariableOp" or len(op.inputs) != 2:
            continue
        delta = op.inputs[1]
        mul = producers.get(id(delta))
        if mul is None or readers[id(delta)] != 1 or len(mul.inputs) != 2:
            continue
        x, y = mul.inputs
        if not (x.dtype is y.dtype is delta.dtype) or delta.dtype.name not in _FUSED_DTYPES:
            continue
        # A scalar times g has g's shape, so the update's delta is g whole.
        if x.shape.rank == 0:
            pairs[id(op)] = (mul, False)
        elif y.shape.rank == 0:
            pairs[id(op)] = (mul, True)
    return pairs
