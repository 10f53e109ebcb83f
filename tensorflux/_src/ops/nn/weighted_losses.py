"""Elementwise losses and the concatenated ReLU of `tf.nn` built from existing ops:
`weighted_cross_entropy_with_logits` (sigmoid cross-entropy with positives weighted by `pos_weight`),
`log_poisson_loss` (with the Stirling term when `compute_full_loss`) and `crelu`.
"""
import math

from ...framework.tensor import Tensor
from ..convert import convert_to_tensor
from ..math import arith as _math
from ..math import logic as _logic
from ..array import join as _join
from ..array import where as _where
from .activations import relu


def _tensor(x, dtype=None):
    return x if isinstance(x, Tensor) else convert_to_tensor(x, dtype=dtype)


def weighted_cross_entropy_with_logits(labels, logits, pos_weight, name=None):
    """`tf.nn.weighted_cross_entropy_with_logits`: pos_weight * labels * -log(sigmoid(logits)) +
    (1 - labels) * -log(1 - sigmoid(logits)), in the overflow-free form
    (1 - z) x + (1 + (q - 1) z) (log1p(exp(-|x|)) + max(-x, 0))."""
    logits = _tensor(logits)
    labels = _tensor(labels, logits.dtype)
    if not labels.shape.is_compatible_with(logits.shape):
        raise ValueError(f"logits and labels must have the same shape ({logits.shape} vs {labels.shape})")
    pos_weight = _tensor(pos_weight, logits.dtype)
    one = _math.cast(1, logits.dtype)
    log_weight = _math.add(one, _math.multiply(_math.subtract(pos_weight, one), labels))
    softplus_neg = _math.add(_math.log1p(_math.exp(_math.negative(_math.abs(logits)))),
                             relu(_math.negative(logits)))
    return _math.add(_math.multiply(_math.subtract(one, labels), logits), _math.multiply(log_weight, softplus_neg),
                     name=name)


def log_poisson_loss(targets, log_input, compute_full_loss=False, name=None):
    """`tf.nn.log_poisson_loss`: exp(log_input) - targets * log_input, plus Stirling's approximation of
    log(targets!) (for targets > 1) with `compute_full_loss`."""
    log_input = _tensor(log_input)
    targets = _tensor(targets, log_input.dtype)
    if not targets.shape.is_compatible_with(log_input.shape):
        raise ValueError(f"log_input and targets must have the same shape ({log_input.shape} vs {targets.shape})")
    result = _math.subtract(_math.exp(log_input), _math.multiply(log_input, targets))
    if compute_full_loss:
        zeros = _math.multiply(targets, _math.cast(0, targets.dtype))
        keep = _logic.greater(targets, _math.cast(1, targets.dtype))
        # Stirling's term is evaluated on targets > 1 only (1 elsewhere), so no log(0) reaches a gradient.
        safe = _where.where(keep, targets, _math.add(zeros, _math.cast(1, targets.dtype)))
        stirling = _math.add(_math.subtract(_math.multiply(safe, _math.log(safe)), safe),
                             _math.multiply(_math.log(_math.multiply(safe, 2.0 * math.pi)), 0.5))
        result = _math.add(result, _where.where(keep, stirling, zeros))
    return result


def crelu(features, name=None, axis=-1):
    """`tf.nn.crelu`: concat([relu(x), relu(-x)], axis), doubling the size of `axis`."""
    features = _tensor(features)
    return _join.concat([relu(features), relu(_math.negative(features))], axis, name=name or "CRelu")


API = {"nn": ["weighted_cross_entropy_with_logits", "log_poisson_loss", "crelu"]}
