"""`tf.approx_top_k`, `tf.math.approx_max_k`/`approx_min_k` (also under `tf.nn`) as TensorFlow runs them
on a CPU: the ApproxTopK kernel there is exact (the k largest along the last dimension, as top_k), and
TensorFlow registers no CPU kernel for the smallest-k or another reduction dimension, so those raise its
NotFoundError.
"""
import collections

from ...framework import errors
from ...framework.tensor import Tensor
from ..convert import convert_to_tensor
from .sorting import top_k

ApproxTopK = collections.namedtuple("ApproxTopK", ["values", "indices"])
_DATATYPE_NAMES = {"float32": "FLOAT", "float64": "DOUBLE", "float16": "HALF"}  # TensorFlow's DT_ names


def _no_cpu_kernel(dtype, k, reduction_dimension, is_max_k, recall_target, aggregate_to_topk,
                   reduction_input_size_override):
    return errors.NotFoundError(
        None, "ApproxTopK",
        "Could not find device for node: {{node ApproxTopK}} = ApproxTopK[T=DT_" +
        _DATATYPE_NAMES.get(dtype.name, dtype.name.upper()) +
        f", aggregate_to_topk={str(aggregate_to_topk).lower()}, is_max_k={str(is_max_k).lower()}, k={k}, "
        f"recall_target={recall_target:g}, reduction_dimension={reduction_dimension}, "
        f"reduction_input_size_override={reduction_input_size_override}] [Op:ApproxTopK] name: ")


def approx_top_k(input, k, reduction_dimension=-1, recall_target=0.95, is_max_k=True,  # noqa: A002
                 reduction_input_size_override=-1, aggregate_to_topk=True, name=None):
    """`tf.approx_top_k`: (values, indices) of the k largest along `reduction_dimension` (exact on CPU)."""
    input = input if isinstance(input, Tensor) else convert_to_tensor(input)
    rank = input.shape.rank
    last = reduction_dimension == -1 or (rank is not None and reduction_dimension == rank - 1)
    if not is_max_k or not last:
        raise _no_cpu_kernel(input.dtype, k, reduction_dimension, is_max_k, recall_target, aggregate_to_topk,
                             reduction_input_size_override)
    values, indices = top_k(input, k=k, sorted=True, name=name)
    return ApproxTopK(values, indices)


def approx_max_k(operand, k, reduction_dimension=-1, recall_target=0.95, reduction_input_size_override=-1,
                 aggregate_to_topk=True, name=None):
    """`tf.math.approx_max_k`: the k largest values and their indices along `reduction_dimension`."""
    return approx_top_k(operand, k, reduction_dimension, recall_target, True, reduction_input_size_override,
                        aggregate_to_topk, name)


def approx_min_k(operand, k, reduction_dimension=-1, recall_target=0.95, reduction_input_size_override=-1,
                 aggregate_to_topk=True, name=None):
    """`tf.math.approx_min_k`: the k smallest values; TensorFlow has no CPU kernel for it (NotFoundError)."""
    return approx_top_k(operand, k, reduction_dimension, recall_target, False, reduction_input_size_override,
                        aggregate_to_topk, name)


API = {
    "": ["approx_top_k"],
    "math": ["approx_max_k", "approx_min_k"],
    "nn": ["approx_max_k", "approx_min_k"],
}
