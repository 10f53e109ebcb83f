"""Label sequences for CTC and ordered outputs: `tf.nn.collapse_repeated` (merge runs of a repeated
label), `tf.nn.ctc_unique_labels` (each row's distinct labels in first-seen order, and the index of every
label among them), and `tf.nn.isotonic_regression` (IsotonicRegression: the closest non-increasing
sequence per row by pool-adjacent-violators, with its segments; the gradient averages over each segment).
"""
import collections

import numpy as np

from ...framework import errors
from ...framework.tensor import Tensor
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..convert import convert_to_tensor
from ..registry import OpDef, apply
from ..math import arith as _math
from ..shapes import shaping as _shaping
from ..shapes import shape_ops as _shape_ops
from ..shapes import creators as _creators
from ..array import reorder as _reorder
from ..array import segment as _segment
from ..array import gather as _gather

IsotonicRegression = collections.namedtuple("IsotonicRegression", ["output", "segments"])


def _collapse_kernel(labels, seq_length):
    if labels.ndim != 2:
        raise errors.InvalidArgumentError(None, None, "labels must be [batch, max_len]")
    if seq_length.ndim > 1:
        raise errors.InvalidArgumentError(None, None, f"seq_length must be a scalar or a vector, but has shape "
                                                      f"{list(seq_length.shape)}")
    try:   # one length per row; a scalar or a single length applies to every row, as in TensorFlow
        per_row = np.broadcast_to(seq_length.reshape(-1), (labels.shape[0],))
    except ValueError:
        raise errors.InvalidArgumentError(None, None, f"seq_length holds {seq_length.size} lengths for "
                                                      f"{labels.shape[0]} label rows") from None
    rows, lengths = [], []
    for row, length in zip(labels, per_row):
        kept = [v for i, v in enumerate(row[:int(length)].tolist()) if i == 0 or v != row[i - 1]]
        rows.append(kept)
        lengths.append(len(kept))
    width = max(lengths, default=0)
    out = np.zeros((labels.shape[0], width), labels.dtype)
    for i, kept in enumerate(rows):
        out[i, :len(kept)] = kept
    return out, np.array(lengths, seq_length.dtype)


COLLAPSE_REPEATED = OpDef(
    "CollapseRepeated",
    lambda i, a: [(i[0].dtype, TensorShape([i[0].shape._dims[0] if i[0].shape.rank else None, None])),
                  (i[1].dtype, TensorShape([i[0].shape._dims[0] if i[0].shape.rank else None]))],
    _collapse_kernel, input_names=("labels", "seq_length"), multi=True)


def collapse_repeated(labels, seq_length, name=None):
    """`tf.nn.collapse_repeated`: (labels with consecutive repeats merged, zero-padded to the longest new
    row; the new lengths)."""
    labels = labels if isinstance(labels, Tensor) else convert_to_tensor(labels)
    seq_length = seq_length if isinstance(seq_length, Tensor) else convert_to_tensor(seq_length)
    collapsed, lengths = apply(COLLAPSE_REPEATED, (labels, seq_length), None, name or "collapse_repeated_labels")
    return collapsed, lengths


def _unique_labels_kernel(labels):
    if labels.ndim != 2:
        raise errors.InvalidArgumentError(None, None, "labels must be [batch, max_len]")
    unique = np.zeros(labels.shape, np.int64)
    index = np.zeros(labels.shape, np.int32)
    for r, row in enumerate(labels):
        seen = {}
        for c, value in enumerate(row.tolist()):
            index[r, c] = seen.setdefault(value, len(seen))
        unique[r, :len(seen)] = list(seen)
    return unique, index


CTC_UNIQUE_LABELS = OpDef("CTCUniqueLabels", lambda i, a: [(_dt.int64, i[0].shape), (_dt.int32, i[0].shape)],
                          _unique_labels_kernel, input_names=("labels",), multi=True)


def ctc_unique_labels(labels, name=None):
    """`tf.nn.ctc_unique_labels`: [each row's distinct labels, first-seen order, zero-padded (int64); the
    position of every label among them (int32)]."""
    labels = labels if isinstance(labels, Tensor) else convert_to_tensor(labels)
    unique, index = apply(CTC_UNIQUE_LABELS, (labels,), None, name or "ctc_unique_labels")
    return [unique, index]


def _pav_row(values):
    """Pool adjacent violators for a non-increasing fit: (fitted values, segment id of each element)."""
    means, weights, starts = [], [], []
    for i, v in enumerate(values.tolist()):
        means.append(v)
        weights.append(1)
        starts.append(i)
        while len(means) > 1 and means[-2] < means[-1]:  # a violation: merge the last two blocks
            w = weights[-2] + weights[-1]
            means[-2] = (means[-2] * weights[-2] + means[-1] * weights[-1]) / w
            weights[-2] = w
            del means[-1], weights[-1], starts[-1]
    fitted = np.repeat(means, weights)
    segments = np.repeat(np.arange(len(means)), weights)
    return fitted, segments


def _isotonic_kernel(x, output_dtype=None):
    out_dtype = np.float64 if x.dtype == np.float64 else np.float32
    flat = x.reshape(-1, x.shape[-1]) if x.ndim else x.reshape(1, 1)
    fitted = np.empty(flat.shape, np.float64)
    segments = np.empty(flat.shape, np.int32)
    for r, row in enumerate(flat.astype(np.float64)):
        fitted[r], segments[r] = _pav_row(row)
    return fitted.reshape(x.shape).astype(out_dtype), segments.reshape(x.shape)


def _infer_isotonic(inputs, attrs):
    x = inputs[0]
    out = _dt.float64 if x.dtype == _dt.float64 else _dt.float32
    return [(out, x.shape), (_dt.int32, x.shape)]


def _isotonic_grad(op, grad_output, grad_segments):
    # Each output is the mean of its segment's inputs: an input receives the mean gradient of its segment.
    segments = op.outputs[1]
    grad = grad_output
    width = _shape_ops.shape(segments)[-1]
    flat_segments = _shaping.reshape(segments, [-1, width])
    rows = _shape_ops.shape(flat_segments)[0]
    offsets = _math.multiply(_shaping.expand_dims(_creators.range(0, rows, 1, dtype=_dt.int32), -1), width)
    ids = _shaping.reshape(_math.add(flat_segments, offsets), [-1])
    flat_grad = _shaping.reshape(grad, [-1])
    means = _segment.unsorted_segment_mean(flat_grad, ids, _math.multiply(rows, width))
    result = _shaping.reshape(_gather.gather(means, ids), _shape_ops.shape(grad))
    return [_math.cast(result, op.inputs[0].dtype)]


ISOTONIC_REGRESSION = OpDef("IsotonicRegression", _infer_isotonic, _isotonic_kernel, input_names=("input",),
                            multi=True, grad=_isotonic_grad)
ISOTONIC_REGRESSION.none_grads = True


def isotonic_regression(inputs, decreasing=True, axis=-1):
    """`tf.nn.isotonic_regression`: the non-increasing (or, with decreasing=False, non-decreasing)
    sequence along `axis` closest to `inputs` in squared error, and the segment of each element."""
    inputs = inputs if isinstance(inputs, Tensor) else convert_to_tensor(inputs)
    rank = inputs.shape.rank
    moved = axis not in (-1, None) and rank is not None and axis != rank - 1
    if moved:
        perm = list(range(rank))
        perm[axis], perm[-1] = perm[-1], perm[axis]
        inputs = _reorder.transpose(inputs, perm)
    if decreasing:
        output, segments = apply(ISOTONIC_REGRESSION, (inputs,), None, "IsotonicRegression")
    else:
        output, segments = apply(ISOTONIC_REGRESSION, (_math.negative(inputs),), None, "IsotonicRegression")
        output = _math.negative(output)
    if moved:
        output, segments = _reorder.transpose(output, perm), _reorder.transpose(segments, perm)
    return IsotonicRegression(output, segments) if decreasing else (output, segments)


API = {"nn": ["collapse_repeated", "ctc_unique_labels", "isotonic_regression"]}
