"""Predictions against targets and permutations: `tf.math.in_top_k`/`tf.nn.in_top_k` (InTopKV2: is the
target among the k largest predictions, ties counted in, non-finite rows false), `tf.math.confusion_matrix`
(counts or summed weights per (label, prediction) pair) and `tf.math.invert_permutation`
(InvertPermutation).
"""
import numpy as np

from ...framework import errors
from ...framework.tensor import Tensor
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..convert import convert_to_tensor
from ..registry import OpDef, apply
from ..shapes import shaping as _shaping
from ..math import arith as _math
from ..math import logic as _logic
from ..math import reduce as _reduce
from .join import stack

_INDEX = (_dt.int32, _dt.int64)


def _tensor(x, dtype=None):
    return x if isinstance(x, Tensor) else convert_to_tensor(x, dtype=dtype)


def _in_top_k_kernel(predictions, targets, k):
    k = int(k)
    if predictions.ndim != 2:
        raise errors.InvalidArgumentError(None, None, f"predictions must be 2-dimensional, got {predictions.ndim}")
    if targets.shape != (predictions.shape[0],):
        raise errors.InvalidArgumentError(None, None, "First dimension of predictions "
                                          f"{predictions.shape[0]} must match length of targets {targets.shape[0]}")
    rows = np.arange(predictions.shape[0])
    inside = (targets >= 0) & (targets < predictions.shape[1])
    safe = np.where(inside, targets, 0)
    target_values = predictions[rows, safe]
    # The target is in the top k when fewer than k predictions are strictly larger (ties count in).
    larger = (predictions > target_values[:, None]).sum(axis=1)
    finite = np.isfinite(predictions).all(axis=1)
    return inside & finite & (larger < k)


def _infer_in_top_k(inputs, attrs):
    p = inputs[0].shape
    if p.rank is not None and p.rank != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {p.rank} for 'InTopKV2'")
    return [(_dt.bool, TensorShape([p._dims[0] if p.rank is not None else None]))]


IN_TOP_K = OpDef("InTopKV2", _infer_in_top_k, _in_top_k_kernel, allowed=(_dt.float32,),
                 input_names=("predictions", "targets", "k"))


def in_top_k(targets, predictions, k, name=None):
    """`tf.math.in_top_k`: whether targets[i] is among the k largest of predictions[i] (ties included)."""
    predictions = _tensor(predictions, _dt.float32)
    targets = _tensor(targets)
    if targets.dtype not in _INDEX:
        raise errors.InvalidArgumentError(
            None, "InTopKV2", f"Value for attr 'T' of {targets.dtype.name} is not in the list of allowed values: "
                              "int32, int64 [Op:InTopKV2]")
    k = convert_to_tensor(k, dtype=targets.dtype)
    return apply(IN_TOP_K, (predictions, targets, k), None, name or "InTopKV2")


def _invert_permutation_kernel(x):
    if x.ndim != 1:
        raise errors.InvalidArgumentError(None, None, "invert_permutation expects a 1D vector.")
    n = x.shape[0]
    out = np.full(n, -1, x.dtype)
    for i, value in enumerate(x.tolist()):
        if not 0 <= value < n:
            raise errors.InvalidArgumentError(None, None, f"{value} is not between 0 and {n}")
        if out[value] != -1:
            raise errors.InvalidArgumentError(None, None, f"{value} is duplicated in the input.")
        out[value] = i
    return out


INVERT_PERMUTATION = OpDef("InvertPermutation", lambda i, a: [(i[0].dtype, i[0].shape)], _invert_permutation_kernel,
                           allowed=_INDEX, input_names=("x",))


def invert_permutation(x, name=None):
    """`tf.math.invert_permutation`: y with y[x[i]] = i."""
    return apply(INVERT_PERMUTATION, (_tensor(x),), None, name or "InvertPermutation")


def confusion_matrix(labels, predictions, num_classes=None, weights=None, dtype=_dt.int32, name=None):
    """`tf.math.confusion_matrix`: m[i, j] counts (or sums the weights of) the examples with label i
    predicted as j; `num_classes` defaults to max(labels, predictions) + 1."""
    labels = _math.cast(_tensor(labels), _dt.int64)
    predictions = _math.cast(_tensor(predictions), _dt.int64)
    dtype = _dt.as_dtype(dtype)
    for what, values in (("labels", labels), ("predictions", predictions)):
        known = getattr(values, "_value", None)
        if known is not None and known.size and known.min() < 0:
            raise errors.InvalidArgumentError(None, None, f"`{what}` contains negative values.")
    if num_classes is None:
        num_classes = _math.add(_math.maximum(_reduce.reduce_max(labels), _reduce.reduce_max(predictions)),
                                _math.cast(1, _dt.int64))
    else:
        num_classes = _math.cast(_tensor(num_classes), _dt.int64)
        for what, values in (("labels", labels), ("predictions", predictions)):
            known = getattr(values, "_value", None)
            limit = getattr(num_classes, "_value", None)
            if known is not None and limit is not None and known.size and known.max() >= limit:
                raise errors.InvalidArgumentError(None, None, f"`{what}` out of bound")
    values = _tensor(weights) if weights is not None else _math.cast(_logic.equal(labels, labels), dtype)
    values = _math.cast(values, dtype)
    indices = stack([labels, predictions], axis=1)
    shape = stack([num_classes, num_classes])
    from .scatter import scatter_nd   # a lazy room (namespaces.LAZY_ROOMS)
    return scatter_nd(indices, _shaping.reshape(values, [-1]), shape, name=name)


API = {
    "math": ["in_top_k", "invert_permutation", "confusion_matrix"],
    "nn": ["in_top_k"],
}
