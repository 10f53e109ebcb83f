"""`tf.nn.ctc_loss`: the connectionist temporal classification loss of dense label sequences, as the CTCLoss
op (whose second output is the loss's gradient with respect to the logits, so the op's gradient is that
output scaled by the incoming gradient).

The kernel runs the forward-backward recursion of Graves et al. (2006) in log space, per batch entry over
its own `logit_length` frames, with the blank as the last class (CTCLoss's convention); `ctc_loss` moves
the user's `blank_index` class there first, as TensorFlow does.
"""
import numpy as np

from ...framework import errors
from ...framework.tensor import Tensor
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..convert import convert_to_tensor
from ..registry import OpDef, apply
from ..math import arith as _math
from ..math import logic as _logic
from ..shapes import creators as _creators
from ..shapes import shape_ops as _shape_ops
from ..shapes import shaping as _shaping
from ..array import gather as _gather
from ..array import join as _join
from ..array import reorder as _reorder
from ..array import where as _where

_NEG_INF = -np.inf


def _log_softmax(x):
    shifted = x - x.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


def _logaddexp(*terms):
    result = terms[0]
    for t in terms[1:]:
        result = np.logaddexp(result, t)
    return result


def _one_sequence(log_probs, label):
    """(-log p(label | log_probs), gradient wrt the logits) for one entry: log_probs [T, C], blank C - 1."""
    frames, classes = log_probs.shape
    blank = classes - 1
    extended = np.full(2 * len(label) + 1, blank, np.int64)
    extended[1::2] = label
    s = len(extended)
    # Skipping a blank is allowed between two different labels only.
    can_skip = np.zeros(s, bool)
    can_skip[2:] = (extended[2:] != blank) & (extended[2:] != extended[:-2])
    emit = log_probs[:, extended]  # [T, S]
    alpha = np.full((frames, s), _NEG_INF)
    if frames == 0:
        return np.inf, np.zeros_like(log_probs)
    alpha[0, 0] = emit[0, 0]
    if s > 1:
        alpha[0, 1] = emit[0, 1]
    with np.errstate(invalid="ignore"):
        for t in range(1, frames):
            prev = alpha[t - 1]
            stay = prev
            step = np.concatenate([[_NEG_INF], prev[:-1]])
            skip = np.where(can_skip, np.concatenate([[_NEG_INF, _NEG_INF], prev[:-2]]), _NEG_INF)
            alpha[t] = _logaddexp(stay, step, skip) + emit[t]
        beta = np.full((frames, s), _NEG_INF)
        beta[-1, -1] = emit[-1, -1]
        if s > 1:
            beta[-1, -2] = emit[-1, -2]
        skip_back = np.concatenate([can_skip[2:], [False, False]])  # from s to s + 2
        for t in range(frames - 2, -1, -1):
            nxt = beta[t + 1]
            stay = nxt
            step = np.concatenate([nxt[1:], [_NEG_INF]])
            skip = np.where(skip_back, np.concatenate([nxt[2:], [_NEG_INF, _NEG_INF]]), _NEG_INF)
            beta[t] = _logaddexp(stay, step, skip) + emit[t]
    log_p = _logaddexp(alpha[-1, -1], alpha[-1, -2]) if s > 1 else alpha[-1, -1]
    if not np.isfinite(log_p):
        return np.inf, np.zeros_like(log_probs)
    # Posterior of each extended position at each frame (alpha and beta both include the emission).
    posterior = np.exp(alpha + beta - emit - log_p)
    occupancy = np.zeros_like(log_probs)
    for position in range(s):
        occupancy[:, extended[position]] += posterior[:, position]
    return -log_p, np.exp(log_probs) - occupancy


def _ctc_kernel(inputs, labels_indices, labels_values, sequence_length, preprocess_collapse_repeated=False,
                ctc_merge_repeated=True, ignore_longer_outputs_than_inputs=False):
    if inputs.ndim != 3:
        raise errors.InvalidArgumentError(None, None, "inputs is not a 3-Tensor")
    frames, batch, classes = inputs.shape
    if sequence_length.shape != (batch,):
        raise errors.InvalidArgumentError(
            None, None, f"len(sequence_length) != batch_size.  len(sequence_length):  {sequence_length.shape[0]} "
                        f"batch_size: {batch}")
    labels = [[] for _ in range(batch)]
    for (b, _), value in zip(labels_indices.reshape(-1, 2), labels_values.reshape(-1)):
        if not 0 <= b < batch:
            raise errors.InvalidArgumentError(None, None, f"labels batch index must be between 0 and {batch - 1}")
        if not 0 <= value < classes - 1:
            raise errors.InvalidArgumentError(
                None, None, f"Saw a non-null label (index >= num_classes - 1) following a null label, batch: {b} "
                            f"num_classes: {classes} labels: {value}")
        labels[b].append(int(value))
    log_probs = _log_softmax(inputs.astype(np.float64))
    loss = np.zeros(batch)
    gradient = np.zeros((frames, batch, classes))
    for b in range(batch):
        length = int(sequence_length[b])
        if not 0 <= length <= frames:
            raise errors.InvalidArgumentError(None, None, f"sequence_length({b}) <= {frames}")
        loss[b], gradient[:length, b] = _one_sequence(log_probs[:length, b], labels[b])
    return loss.astype(inputs.dtype), gradient.astype(inputs.dtype)


def _infer_ctc(inputs, attrs):
    x = inputs[0]
    if x.shape.rank is not None and x.shape.rank != 3:
        raise ValueError(f"Shape must be rank 3 but is rank {x.shape.rank} for 'CTCLoss'")
    batch = x.shape._dims[1] if x.shape.rank is not None else None
    return [(x.dtype, TensorShape([batch])), (x.dtype, x.shape if x.shape.rank is not None else TensorShape([None] * 3))]


def _ctc_grad(op, grad_loss, grad_gradient):
    # The op's second output is d loss / d inputs per batch entry; chain it with the loss's gradient.
    if grad_loss is None:
        return [None, None, None, None]
    return [_math.multiply(op.outputs[1], _shaping.expand_dims(_shaping.expand_dims(grad_loss, 0), -1)),
            None, None, None]


CTC_LOSS = OpDef("CTCLoss", _infer_ctc, _ctc_kernel, allowed=(_dt.float32, _dt.float64),
                 input_names=("inputs", "labels_indices", "labels_values", "sequence_length"), multi=True,
                 grad=_ctc_grad)
CTC_LOSS.none_grads = True


def _dense_to_sparse(labels, label_length):
    """(indices [n, 2] int64, values [n] int32) of the first label_length[b] labels of each row."""
    width = _shape_ops.shape(labels, out_type=_dt.int32)[-1]
    positions = _creators.range(0, width, 1, dtype=label_length.dtype)
    mask = _logic.less(_shaping.expand_dims(positions, 0), _shaping.expand_dims(label_length, 1))
    indices = _where.where(mask)
    values = _gather.gather_nd(labels, indices)
    return indices, _math.cast(values, _dt.int32)


def ctc_loss(labels, logits, label_length, logit_length, logits_time_major=True, unique=None, blank_index=None,
             name=None):
    """`tf.nn.ctc_loss` (dense labels): -log p(labels | logits) per batch entry. `labels` [batch, max_len]
    with `label_length`, `logits` [frames, batch, classes] (batch-major with `logits_time_major=False`)
    with `logit_length`; `blank_index` (default 0, negative counts from the end) is the blank class."""
    if isinstance(labels, Tensor) and labels.dtype == _dt.variant:
        raise TypeError("tf.nn.ctc_loss takes dense labels in tensorflux (SparseTensor is not implemented)")
    logits = logits if isinstance(logits, Tensor) else convert_to_tensor(logits)
    labels = labels if isinstance(labels, Tensor) else convert_to_tensor(labels)
    if label_length is None:
        raise ValueError("label_length must be provided for dense labels.")
    label_length = _math.cast(label_length if isinstance(label_length, Tensor) else convert_to_tensor(label_length),
                              _dt.int32)
    logit_length = _math.cast(logit_length if isinstance(logit_length, Tensor) else convert_to_tensor(logit_length),
                              _dt.int32)
    if not logits_time_major:
        logits = _reorder.transpose(logits, [1, 0, 2])
    classes = logits.shape._dims[-1] if logits.shape.rank is not None else None
    blank = 0 if blank_index is None else int(blank_index)
    if blank < 0:
        if classes is None:
            raise ValueError("A negative blank_index needs a static number of classes")
        blank += classes
    labels = _math.cast(labels, _dt.int32)
    if classes is None or blank != classes - 1:
        # Move the blank class last (CTCLoss's blank) and shift the labels above it down by one.
        logits = _join.concat([logits[..., :blank], logits[..., blank + 1:], logits[..., blank:blank + 1]], axis=-1)
        labels = _math.subtract(labels, _math.cast(_logic.greater(labels, blank), _dt.int32))
    indices, values = _dense_to_sparse(labels, label_length)
    loss, _ = apply(CTC_LOSS, (logits, indices, values, logit_length),
                    {"preprocess_collapse_repeated": False, "ctc_merge_repeated": True,
                     "ignore_longer_outputs_than_inputs": True}, name or "CTCLoss")
    return loss


API = {"nn": ["ctc_loss"]}
