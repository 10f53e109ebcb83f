"""The all-reduce of local replicas inside a replica's own traced function: `ReplicaAllReduce`.

A replica of a MirroredStrategy over several local devices that calls a tf.function of its own (Keras'
per-replica train step, run while the replicas run at once: `mirrored_run.py`) cannot pause in
`merge_call` while that function is traced: the replicas' graphs are separate, and no tensor of one may
reach another's graph. So `ReplicaContext.all_reduce` traced there adds this op to the replica's graph,
as TensorFlow's collective ops meet their peers at run time: when the graph runs (in the replica's
thread), the op hands its tensors to the strategy's merge and waits until every local replica has
handed in theirs; the merge (in the thread that called `strategy.run`) reduces them exactly as an
eager all-reduce does (replica 0 + replica 1 + ..., then across the MPI workers), and each replica
resumes with the result. It is stateful, so graph passes never prune, fold or reorder it.

The gradient of a sum across replicas with respect to one replica's input is the sum of the upstream
gradients across replicas (1/N of it for a mean): the backward pass is the same all-reduce.
"""
import numpy as np

from ..framework import errors
from ..framework.tensor import EagerTensor
from ..ops.convert import convert_to_tensor
from ..ops.registry import OpDef, apply
from . import mirrored_run
from .values import PerReplica

__all__ = ["replica_all_reduce", "merge_replica_values"]


def _infer(inputs, attrs):
    return [(t.dtype, t.shape) for t in inputs]


def merge_replica_values(strategy, replica_args):
    """In the caller's thread: every replica's arrays (`replica_args`: one `(arrays, reduction)` per
    replica, in replica order) reduced by the strategy's own all-reduce, as NumPy arrays."""
    reduction = replica_args[0][1]
    if any(len(arrays) != len(replica_args[0][0]) or r != reduction for arrays, r in replica_args):
        raise RuntimeError("The replicas made different all-reduces at one step (the number of tensors or "
                           "the reduction differ): every replica must make the same collective calls.")
    per_tensor = zip(*(args[0] for args in replica_args))
    if reduction == "SUM" and strategy._world.size == 1:
        # What the eager all-reduce computes (AddV2's kernel is np.add), in replica order, without its
        # tensors and nests: this runs while every replica waits.
        totals = []
        for parts in per_tensor:
            total = parts[0]
            for part in parts[1:]:
                total = np.add(total, part)
            totals.append(total)
        return tuple(totals)
    values = [PerReplica([EagerTensor(a) for a in parts]) for parts in per_tensor]
    return tuple(t._value for t in strategy._all_reduce_named(reduction, values))


merge_replica_values.gets_replica_args = True        # mirrored_run hands it the replicas' arguments as they are


def _kernel(*arrays, reduction):
    thread = mirrored_run.current_replica_thread()
    if thread is None:
        raise errors.FailedPreconditionError(
            None, None, "ReplicaAllReduce runs only inside `strategy.run`'s replicas (a function traced in a "
                        "replica and called elsewhere cannot meet its peers).")
    return thread.merge_call(merge_replica_values, (arrays, reduction), {})


def _grad(op, *grads):
    present = [g for g in grads if g is not None]
    reduced = iter(replica_all_reduce(present, op.get_attr("reduction")) if present else ())
    return [next(reduced) if g is not None else None for g in grads]


REPLICA_ALL_REDUCE = OpDef("ReplicaAllReduce", _infer, _kernel, grad=_grad, stateful=True, multi=True,
                           input_names=("input",))
REPLICA_ALL_REDUCE.none_grads = True


def replica_all_reduce(tensors, reduction):
    """The tensors, each reduced across the local replicas at run time (`reduction` "SUM" or "MEAN")."""
    tensors = tuple(convert_to_tensor(t) for t in tensors)
    if not tensors:
        return []
    return list(apply(REPLICA_ALL_REDUCE, tensors, {"reduction": reduction}, "ReplicaAllReduce"))
