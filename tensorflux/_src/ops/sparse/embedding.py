"""`tf.nn.embedding_lookup_sparse` and `tf.nn.safe_embedding_lookup_sparse`: per row of a SparseTensor of ids,
the (weighted) embeddings of its ids combined by "sum", "mean" or "sqrtn".

They live with the sparse ops because their input is a SparseTensor (ops.nn sits below this room). Both are
composed of gather and segment sums, so the gradient reaches `params` (as in TensorFlow).
"""
from ...types import dtypes as _dt
from ..array import gather as _gather
from ..array import join as _join
from ..array import segment as _segment
from ..array import where as _where
from ..convert import convert_to_tensor
from ..math import arith as _arith
from ..math import logic as _logic
from ..math import reduce as _reduce
from ..shapes import creators as _creators
from ..shapes import shape_ops as _shape_ops
from ..shapes import shaping as _shaping
from . import arith as _arith_ops
from .conversion import fill_empty_rows
from .sparse_tensor import SparseTensor, as_sparse

__all__ = ["embedding_lookup_sparse", "safe_embedding_lookup_sparse"]

API = {"nn": ["embedding_lookup_sparse", "safe_embedding_lookup_sparse"]}

_COMBINERS = ("sum", "mean", "sqrtn")


def _clip(rows, max_norm):
    if max_norm is None:
        return rows
    norms = _arith.sqrt(_reduce.reduce_sum(rows * rows, axis=-1, keepdims=True))
    # rows longer than max_norm scaled down to it (TensorFlow's clip_by_norm per embedding)
    scale = _arith.minimum(_creators.ones_like(norms), _arith.divide_no_nan(max_norm * _creators.ones_like(norms), norms))
    return rows * scale


def _column(t):
    return _shaping.reshape(t, [-1, 1])


def embedding_lookup_sparse(params, sp_ids, sp_weights, combiner=None, max_norm=None, name=None,
                            allow_fast_lookup=False):
    """Row r of the result combines `params[id]` for the ids stored in row r of `sp_ids`, each times its weight
    in `sp_weights` (1 when None): "sum", "mean" (divided by the weights' sum) or "sqrtn" (by the square root of
    the sum of squared weights). Rows past the last one holding an id are not produced; empty rows are 0."""
    combiner = "mean" if combiner is None else combiner
    if combiner not in _COMBINERS:
        raise ValueError(f"combiner must be one of 'mean', 'sqrtn' or 'sum', got {combiner}")
    if isinstance(params, (list, tuple)):
        params = _join.concat(list(params), axis=0) if len(params) > 1 else params[0]
    params = convert_to_tensor(params)
    ids = as_sparse(sp_ids, "sp_ids")
    segments = _arith.cast(ids.indices[:, 0], _dt.int32)
    rows = _clip(_gather.gather(params, ids.values), max_norm)
    if sp_weights is None:
        weights = None
    else:
        weights = _arith.cast(as_sparse(sp_weights, "sp_weights").values, rows.dtype)
        rows = rows * _shaping.reshape(weights, _join.concat([[-1], _creators.ones_like(
            _shape_ops.shape(rows)[1:])], axis=0))
    if weights is None:   # TensorFlow's sparse segment reductions (mean/sqrtn multiply by the reciprocal)
        positions = _creators.range(_shape_ops.shape(rows)[0])
        reduce_segments = {"sum": _arith_ops.segment_sum, "mean": _arith_ops.segment_mean,
                           "sqrtn": _arith_ops.segment_sqrt_n}[combiner]
        return reduce_segments(rows, positions, segments)
    total = _segment.segment_sum(rows, segments)
    if combiner == "sum":
        return total
    if combiner == "mean":
        divisor = _segment.segment_sum(weights, segments)
    else:
        divisor = _arith.sqrt(_segment.segment_sum(weights * weights, segments))
    shape = _join.concat([_shape_ops.shape(divisor), _creators.ones_like(_shape_ops.shape(total)[1:])], axis=0)
    return _arith.divide_no_nan(total, _shaping.reshape(divisor, shape))


def safe_embedding_lookup_sparse(embedding_weights, sparse_ids, sparse_weights=None, combiner="mean", default_id=None,
                                 max_norm=None, name=None, allow_fast_lookup=False):
    """Like `embedding_lookup_sparse`, after dropping negative ids (and non-positive weights), with a result
    row for every row of `sparse_ids`: a row left empty is the embedding of `default_id`, or zeros."""
    ids = as_sparse(sparse_ids, "sparse_ids")
    keep = _logic.greater_equal(ids.values, _creators.zeros_like(ids.values))
    if sparse_weights is not None:
        weights = as_sparse(sparse_weights, "sparse_weights")
        keep = _logic.logical_and(keep, _logic.greater(weights.values, _creators.zeros_like(weights.values)))
    kept = _shaping.reshape(_where.where(keep), [-1])
    ids = SparseTensor._from_parts(_gather.gather(ids.indices, kept), _gather.gather(ids.values, kept),
                                   ids.dense_shape, ids.shape)
    if sparse_weights is not None:
        weights = SparseTensor._from_parts(ids.indices, _gather.gather(weights.values, kept), ids.dense_shape,
                                           ids.shape)
    filled, empty = fill_empty_rows(ids, 0 if default_id is None else default_id)
    if sparse_weights is not None:
        weights, _ = fill_empty_rows(weights, 1.0)
    result = embedding_lookup_sparse(embedding_weights, filled, weights if sparse_weights is not None else None,
                                     combiner, max_norm)
    if default_id is None:
        mask = _shaping.reshape(_logic.logical_not(empty), [-1, 1])
        result = result * _arith.cast(mask, result.dtype)
    return result
