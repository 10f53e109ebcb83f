"""Loss scaling for replicas: `tf.nn.compute_average_loss` and `tf.nn.scale_regularization_loss`.

Each replica divides its summed loss by the *global* batch size (its own batch times the number of
replicas), so that summing the replicas' gradients — which the optimizer's all-reduce does — gives the
gradient of the global mean loss, exactly as one process on the global batch would compute it.
"""
from ..framework.tensor import Tensor
from ..ops.convert import convert_to_tensor
from ..ops.math import arith, reduce as math_reduce
from ..ops.shapes import shape_ops, shaping
from . import strategies

__all__ = ["compute_average_loss", "scale_regularization_loss"]


def _replicas():
    context = strategies.get_replica_context()
    return context.num_replicas_in_sync if context is not None else strategies.get_strategy().num_replicas_in_sync


def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None):
    """The sum of the (weighted) per-example losses divided by the global batch size."""
    losses = per_example_loss if isinstance(per_example_loss, Tensor) else convert_to_tensor(per_example_loss)
    if not losses.dtype.is_floating:
        raise TypeError(f"`per_example_loss` must be a floating point tensor (it is averaged over the global "
                        f"batch). Received dtype: {losses.dtype.name}")
    if sample_weight is not None:
        weight = arith.cast(convert_to_tensor(sample_weight), losses.dtype)
        while weight.shape.rank is not None and losses.shape.rank is not None and \
                weight.shape.rank < losses.shape.rank:
            weight = shaping.expand_dims(weight, -1)
        losses = losses * weight
    total = math_reduce.reduce_sum(losses)
    if global_batch_size is None:
        local = shape_ops.shape(losses)[0] if losses.shape.rank else 1
        global_batch_size = arith.cast(local, losses.dtype) * _replicas()
    else:
        global_batch_size = arith.cast(convert_to_tensor(global_batch_size), losses.dtype)
    return total / global_batch_size


def scale_regularization_loss(regularization_loss):
    """The regularization loss divided by the number of replicas (each replica adds its share)."""
    loss = regularization_loss if isinstance(regularization_loss, Tensor) \
        else convert_to_tensor(regularization_loss)
    if not loss.dtype.is_floating:
        raise TypeError(f"`regularization_loss` must be a floating point tensor. Received dtype: {loss.dtype.name}")
    return loss / arith.cast(_replicas(), loss.dtype)


API = {"nn": __all__}
