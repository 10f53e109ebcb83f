"""The all-reduce op: sums (or averages) tensors across the workers of the job, eagerly and in graphs.

One op, `CollectiveAllReduce`, takes any number of tensors and returns as many: a whole gradient list is
reduced by one node, which the MPI engine packs into one flat buffer per dtype (see `mpi.py`), so a
training step costs one collective, not one per variable. It is stateful, so graph passes never prune,
fold or reorder it, and every worker runs the same collectives in the same order.

The gradient of a sum across workers with respect to one worker's input is the sum of the upstream
gradients across workers (and 1/N of it for a mean): the backward pass is the same collective.
"""
from ..framework.tensor import Tensor
from ..ops.convert import convert_to_tensor
from ..ops.registry import OpDef, apply
from . import mpi

__all__ = ["all_reduce_tensors"]

_REDUCTIONS = ("SUM", "MEAN")


def _infer(inputs, attrs):
    return [(t.dtype, t.shape) for t in inputs]


def _kernel(*arrays, reduction):
    return tuple(mpi.world().all_reduce(arrays, op=reduction))


def _grad(op, *grads):
    reduction = op.get_attr("reduction")
    present = [g for g in grads if g is not None]
    reduced = iter(all_reduce_tensors(present, reduction) if present else ())
    return [next(reduced) if g is not None else None for g in grads]


ALL_REDUCE = OpDef("CollectiveAllReduce", _infer, _kernel, grad=_grad, stateful=True, multi=True,
                   input_names=("input",))
ALL_REDUCE.none_grads = True


def all_reduce_tensors(tensors, reduction="SUM"):
    """The tensors, each reduced across workers (`reduction` "SUM" or "MEAN"), as a list."""
    if reduction not in _REDUCTIONS:
        raise ValueError(f"`reduction` must be one of {_REDUCTIONS}. Received: {reduction!r}")
    tensors = tuple(t if isinstance(t, Tensor) else convert_to_tensor(t) for t in tensors)
    if not tensors:
        return []
    return list(apply(ALL_REDUCE, tensors, {"reduction": reduction}, "CollectiveAllReduce"))
