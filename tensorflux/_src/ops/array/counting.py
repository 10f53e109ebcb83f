"""Counting positions and segment sizes: `tf.sequence_mask` (positions below each length) and
`tf.math.unsorted_segment_sqrt_n` (segment sums over the square root of the segment sizes, beside the other
segment reductions of `segment.py`). (`tf.math.bincount` lives with the reductions in `math/reduce.py`.)
"""
from ...framework.tensor import Tensor
from ...types import dtypes as _dt
from ..convert import convert_to_tensor
from ..shapes import creators as _creators
from ..shapes import shaping as _shaping
from ..math import arith as _math
from ..math import logic as _logic
from ..math import reduce as _reduce
from . import segment as _segment

def sequence_mask(lengths, maxlen=None, dtype=_dt.bool, name=None):
    """`tf.sequence_mask`: mask[..., j] = j < lengths[...], with `maxlen` columns (default max(lengths))."""
    name = name or "SequenceMask"
    lengths = lengths if isinstance(lengths, Tensor) else convert_to_tensor(lengths)
    if maxlen is None:
        maxlen = _reduce.reduce_max(lengths)
        if maxlen.dtype.is_floating:
            maxlen = _math.cast(maxlen, _dt.int32)
        maxlen = _math.maximum(maxlen, _math.cast(0, maxlen.dtype))
    else:
        maxlen = maxlen if isinstance(maxlen, Tensor) else convert_to_tensor(maxlen)
        if maxlen.shape.rank not in (None, 0):
            raise ValueError(f"Argument `maxlen` must be scalar for sequence_mask, received `maxlen` = {maxlen} "
                             f"with shape '{maxlen.shape}' instead")
    positions = _creators.range(0, maxlen, 1, dtype=maxlen.dtype)
    bound = _shaping.expand_dims(lengths, -1)
    if positions.dtype != bound.dtype:
        bound = _math.cast(bound, positions.dtype) if not bound.dtype.is_floating else bound
        positions = _math.cast(positions, bound.dtype)
    mask = _logic.less(positions, bound)
    return mask if _dt.as_dtype(dtype) == _dt.bool else _math.cast(mask, dtype, name=name)


def unsorted_segment_sqrt_n(data, segment_ids, num_segments, name=None):
    """`tf.math.unsorted_segment_sqrt_n`: segment sums divided by sqrt(segment size) (empty segments 0)."""
    name = name or "UnsortedSegmentSqrtN"
    data = data if isinstance(data, Tensor) else convert_to_tensor(data)
    segment_ids = segment_ids if isinstance(segment_ids, Tensor) else convert_to_tensor(segment_ids)
    counts = _segment._segment_counts(data, segment_ids, num_segments, name)  # max(size, 1), broadcastable
    summed = _segment.unsorted_segment_sum(data, segment_ids, num_segments, name=f"{name}/UnsortedSegmentSum_1")
    return _math.divide(summed, _math.sqrt(counts), name=f"{name}/truediv")



API = {
    "": ["sequence_mask"],
    "math": ["unsorted_segment_sqrt_n"],
}
