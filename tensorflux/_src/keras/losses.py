"""`keras.losses`: per-sample loss functions and `Loss` objects that weight and reduce them.

A loss function returns one value per sample (the mean over the last axis); a `Loss` object converts both
arguments to float32, lines up their ranks (`(n,)` labels against `(n, 1)` predictions), applies
`sample_weight`, and reduces with "sum_over_batch_size" (the mean over all values) unless told otherwise.
"""
import numpy as np

import tensorflux as tf

from . import config as _config
from .naming import to_snake_case

EPSILON = 1e-7


def squeeze_or_expand_to_same_rank(x1, x2, expand_rank_1=True):
    """Makes ranks equal when they differ by one trailing dimension of size 1."""
    r1, r2 = x1.shape.rank, x2.shape.rank
    if r1 is None or r2 is None or r1 == r2:
        return x1, x2
    if r1 == r2 + 1 and x1.shape[-1] == 1:
        if r2 == 1 and expand_rank_1:
            x2 = tf.expand_dims(x2, -1)
        else:
            x1 = tf.squeeze(x1, -1)
    if r2 == r1 + 1 and x2.shape[-1] == 1:
        if r1 == 1 and expand_rank_1:
            x1 = tf.expand_dims(x1, -1)
        else:
            x2 = tf.squeeze(x2, -1)
    return x1, x2


def _pair(y_true, y_pred):
    y_pred = tf.convert_to_tensor(y_pred)
    y_true = tf.cast(y_true, y_pred.dtype)
    return squeeze_or_expand_to_same_rank(y_true, y_pred)


def mean_squared_error(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    return tf.reduce_mean(tf.square(y_true - y_pred), axis=-1)


def mean_absolute_error(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    return tf.reduce_mean(tf.abs(y_true - y_pred), axis=-1)


def _check_same_shape(target, output):
    if target.shape.rank != output.shape.rank:
        raise ValueError(f"Arguments `target` and `output` must have the same rank (ndim). Received: "
                         f"target.shape={target.shape}, output.shape={output.shape}")
    if not target.shape.is_compatible_with(output.shape):
        raise ValueError(f"Arguments `target` and `output` must have the same shape. Received: "
                         f"target.shape={target.shape}, output.shape={output.shape}")


def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    y_pred = tf.convert_to_tensor(y_pred)
    y_true = tf.cast(y_true, y_pred.dtype)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    _check_same_shape(y_true, y_pred)
    if from_logits:
        values = tf.nn.sigmoid_cross_entropy_with_logits(labels=y_true, logits=y_pred)
    else:
        values = _elementwise_binary_crossentropy(y_true, y_pred)
    return tf.reduce_mean(values, axis=axis)


def _elementwise_binary_crossentropy(y_true, probabilities):
    p = tf.clip_by_value(probabilities, EPSILON, 1.0 - EPSILON)
    return -(y_true * tf.math.log(p) + (1 - y_true) * tf.math.log(1 - p))


def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    y_pred = tf.convert_to_tensor(y_pred)
    y_true = tf.cast(y_true, y_pred.dtype)
    if label_smoothing:
        classes = tf.cast(tf.shape(y_true)[-1], y_pred.dtype)
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / classes
    _check_same_shape(y_true, y_pred)
    if from_logits:
        return tf.nn.softmax_cross_entropy_with_logits(labels=y_true, logits=y_pred, axis=axis)
    p = y_pred / tf.reduce_sum(y_pred, axis, keepdims=True)  # rows must sum to 1 for a cross entropy
    p = tf.clip_by_value(p, EPSILON, 1.0 - EPSILON)
    return -tf.reduce_sum(y_true * tf.math.log(p), axis)


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, ignore_class=None, axis=-1):
    y_pred = tf.convert_to_tensor(y_pred)
    if axis != -1 and axis != y_pred.shape.rank - 1:
        raise ValueError(f"Only axis=-1 is currently supported. Received: axis={axis}")     # Keras 3's rule
    labels = tf.cast(y_true, tf.int64)
    if labels.shape.rank == y_pred.shape.rank and labels.shape[-1] == 1:
        labels = tf.squeeze(labels, -1)
    if labels.shape.rank != y_pred.shape.rank - 1:
        raise ValueError(f"Argument `output` must have rank (ndim) `target.ndim - 1`. Received: "
                         f"target.shape={labels.shape}, output.shape={y_pred.shape}")
    if ignore_class is not None:
        keep = tf.not_equal(labels, ignore_class)
        labels = tf.where(keep, labels, tf.zeros_like(labels))
    logits = y_pred if from_logits else tf.math.log(tf.clip_by_value(y_pred, EPSILON, 1.0 - EPSILON))
    values = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    if ignore_class is not None:
        values = tf.where(keep, values, tf.zeros_like(values))
    return values


def binary_focal_crossentropy(y_true, y_pred, apply_class_balancing=False, alpha=0.25, gamma=2.0,
                              from_logits=False, label_smoothing=0.0, axis=-1):
    """Binary crossentropy scaled by `(1 - p_t)^gamma`, which down-weights well-classified samples."""
    y_pred = tf.convert_to_tensor(y_pred)
    y_true = tf.cast(y_true, y_pred.dtype)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    if from_logits:
        y_pred = tf.sigmoid(y_pred)
    _check_same_shape(y_true, y_pred)
    crossentropy = _elementwise_binary_crossentropy(y_true, y_pred)
    p_t = y_true * y_pred + (1 - y_true) * (1 - y_pred)    # the probability given to the true class
    values = tf.pow(1.0 - p_t, gamma) * crossentropy
    if apply_class_balancing:
        values = (y_true * alpha + (1 - y_true) * (1 - alpha)) * values
    return tf.reduce_mean(values, axis=axis)


def huber(y_true, y_pred, delta=1.0):
    """Quadratic for errors up to `delta`, linear beyond."""
    y_true, y_pred = _pair(y_true, y_pred)
    delta = tf.cast(delta, y_pred.dtype)
    error = y_pred - y_true
    abs_error = tf.abs(error)
    values = tf.where(abs_error <= delta, 0.5 * tf.square(error), delta * abs_error - 0.5 * tf.square(delta))
    return tf.reduce_mean(values, axis=-1)


def log_cosh(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    x = y_pred - y_true
    # log(cosh(x)) = x + log(1 + exp(-2x)) - log(2), which does not overflow for large |x|.
    return tf.reduce_mean(x + tf.math.softplus(-2.0 * x) - tf.cast(tf.math.log(2.0), x.dtype), axis=-1)


def kl_divergence(y_true, y_pred):
    y_pred = tf.convert_to_tensor(y_pred)
    y_true = tf.clip_by_value(tf.cast(y_true, y_pred.dtype), EPSILON, 1.0)
    y_pred = tf.clip_by_value(y_pred, EPSILON, 1.0)
    return tf.reduce_sum(y_true * tf.math.log(y_true / y_pred), axis=-1)


def poisson(y_true, y_pred):
    y_pred = tf.convert_to_tensor(y_pred)
    y_true = tf.cast(y_true, y_pred.dtype)
    return tf.reduce_mean(y_pred - y_true * tf.math.log(y_pred + EPSILON), axis=-1)


def l2_normalize(x, axis=-1):
    """`x / ||x||`, with the inverse norm capped at 1/EPSILON so that zero vectors stay zero."""
    inverse_norm = tf.math.rsqrt(tf.reduce_sum(tf.square(x), axis=axis, keepdims=True))
    return x * tf.minimum(inverse_norm, 1.0 / EPSILON)


def cosine_similarity(y_true, y_pred, axis=-1):
    """The negated cosine similarity, so that minimizing it aligns the vectors (-1 when they point alike)."""
    y_true, y_pred = _pair(y_true, y_pred)
    return -tf.reduce_sum(l2_normalize(y_true, axis) * l2_normalize(y_pred, axis), axis=axis)


def _binary_labels_to_signs(y_true):
    """Labels that are all 0 or 1 become -1 or 1; other labels are taken to be signs already."""
    is_binary = tf.reduce_all(tf.logical_or(tf.equal(y_true, 0), tf.equal(y_true, 1)))
    return tf.where(is_binary, 2.0 * y_true - 1.0, y_true)


def hinge(y_true, y_pred):
    y_pred = tf.convert_to_tensor(y_pred)
    y_true = _binary_labels_to_signs(tf.cast(y_true, y_pred.dtype))
    return tf.reduce_mean(tf.maximum(1.0 - y_true * y_pred, 0.0), axis=-1)


def squared_hinge(y_true, y_pred):
    y_pred = tf.convert_to_tensor(y_pred)
    y_true = _binary_labels_to_signs(tf.cast(y_true, y_pred.dtype))
    return tf.reduce_mean(tf.square(tf.maximum(1.0 - y_true * y_pred, 0.0)), axis=-1)


def categorical_hinge(y_true, y_pred):
    """`max(0, 1 + best wrong score - true score)` for one-hot `y_true`."""
    y_pred = tf.convert_to_tensor(y_pred)
    y_true = tf.cast(y_true, y_pred.dtype)
    positive = tf.reduce_sum(y_true * y_pred, axis=-1)
    negative = tf.reduce_max((1.0 - y_true) * y_pred, axis=-1)
    return tf.maximum(negative - positive + 1.0, 0.0)


def mean_absolute_percentage_error(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    relative = tf.abs((y_true - y_pred) / tf.maximum(tf.abs(y_true), EPSILON))
    return 100.0 * tf.reduce_mean(relative, axis=-1)


def mean_squared_logarithmic_error(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    difference = tf.math.log(tf.maximum(y_pred, EPSILON) + 1.0) - tf.math.log(tf.maximum(y_true, EPSILON) + 1.0)
    return tf.reduce_mean(tf.square(difference), axis=-1)


def categorical_focal_crossentropy(y_true, y_pred, alpha=0.25, gamma=2.0, from_logits=False, label_smoothing=0.0,
                                   axis=-1):
    """Categorical crossentropy with each class's term scaled by `alpha * (1 - p) ** gamma`, so confident
    correct predictions count little; predictions are normalized to sum to one over `axis`."""
    y_pred = tf.convert_to_tensor(y_pred)
    y_true = tf.cast(y_true, y_pred.dtype)
    if label_smoothing:
        classes = tf.cast(tf.shape(y_true)[-1], y_pred.dtype)
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / classes
    if from_logits:
        y_pred = tf.nn.softmax(y_pred, axis=axis)
    p = y_pred / tf.reduce_sum(y_pred, axis=axis, keepdims=True)
    p = tf.clip_by_value(p, EPSILON, 1.0 - EPSILON)
    return tf.reduce_sum(alpha * tf.pow(1.0 - p, gamma) * -y_true * tf.math.log(p), axis=axis)


def categorical_generalized_cross_entropy(y_true, y_pred, q):
    """`(1 - p_y ** q) / q` of the probability `p_y` of each integer label: robust to noisy labels (q -> 0
    approaches crossentropy, q = 1 the mean absolute error)."""
    y_pred = tf.convert_to_tensor(y_pred)
    labels = tf.cast(y_true, tf.int32)
    p_y = tf.reduce_sum(tf.one_hot(labels, tf.shape(y_pred)[-1], dtype=y_pred.dtype) * y_pred, axis=-1)
    return (1.0 - tf.pow(p_y, q)) / q


def dice(y_true, y_pred, axis=None):
    """1 - the Dice coefficient `2 |y ∩ p| / (|y| + |p|)` of soft masks, summed over `axis` (all axes when
    None, giving one value for the batch)."""
    y_pred = tf.convert_to_tensor(y_pred)
    y_true = tf.cast(y_true, y_pred.dtype)
    overlap = tf.reduce_sum(y_true * y_pred, axis=axis)
    total = tf.reduce_sum(y_true, axis=axis) + tf.reduce_sum(y_pred, axis=axis)
    return 1.0 - 2.0 * overlap / (total + EPSILON)


def tversky(y_true, y_pred, alpha=0.5, beta=0.5, axis=None):
    """1 - the Tversky index `tp / (tp + alpha * fn + beta * fp)` of soft masks, summed over `axis` (all
    axes when None); alpha = beta = 0.5 is the Dice loss."""
    y_pred = tf.convert_to_tensor(y_pred)
    y_true = tf.cast(y_true, y_pred.dtype)
    true_positives = tf.reduce_sum(y_true * y_pred, axis=axis)
    false_negatives = tf.reduce_sum(y_true * (1.0 - y_pred), axis=axis)
    false_positives = tf.reduce_sum((1.0 - y_true) * y_pred, axis=axis)
    return 1.0 - true_positives / (true_positives + alpha * false_negatives + beta * false_positives + EPSILON)


def ctc(y_true, y_pred):
    """The connectionist temporal classification loss of integer label sequences `(batch, max_length)`, padded
    with the blank 0 (the label lengths are the non-zero counts), against logits `(batch, steps, classes)`
    over every step."""
    y_true, y_pred = tf.convert_to_tensor(y_true), tf.convert_to_tensor(y_pred)
    if y_true.shape.rank != 2:
        raise ValueError(f"Targets `y_true` are expected to be a tensor of shape `(batch_size, max_length)` in "
                         f"integer format. Received: y_true.shape={tuple(y_true.shape.as_list())}")
    if y_pred.shape.rank != 3:
        raise ValueError(f"Logits `y_pred` are expected to be a tensor of shape `(batch_size, max_length, "
                         f"num_classes)`. Received: y_pred.shape={tuple(y_pred.shape.as_list())}")
    labels = tf.cast(y_true, tf.int32)
    label_length = tf.reduce_sum(tf.cast(tf.not_equal(labels, 0), tf.int32), axis=-1)
    shape = tf.shape(y_pred)
    logit_length = tf.fill([shape[0]], shape[1])
    return tf.nn.ctc_loss(labels=labels, logits=y_pred, label_length=label_length, logit_length=logit_length,
                          blank_index=0, logits_time_major=False)


def circle(y_true, y_pred, ref_labels=None, ref_embeddings=None, remove_diagonal=True, gamma=80, margin=0.4):
    """The circle loss of embeddings `y_pred` (one row per sample, compared by cosine distance `1 - x . r`
    with the reference rows, the batch itself by default): `softplus(logsumexp(positive terms) +
    logsumexp(negative terms))`, where pairs of the same label (not a row with itself, with
    `remove_diagonal`) are pulled in and the others pushed out, each weighted by how far it is from its
    optimum. A row with no positive pair has loss 0."""
    y_pred = tf.convert_to_tensor(y_pred)
    labels = tf.cast(y_true, tf.int32)
    references = y_pred if ref_embeddings is None else tf.cast(ref_embeddings, y_pred.dtype)
    reference_labels = labels if ref_labels is None else tf.cast(ref_labels, tf.int32)
    distances = tf.maximum(1.0 - tf.matmul(y_pred, references, transpose_b=True), 0.0)
    same = tf.equal(tf.reshape(labels, [-1, 1]), tf.reshape(reference_labels, [1, -1]))
    positive, negative = same, tf.logical_not(same)
    if remove_diagonal:
        shape = tf.shape(distances)
        positive = tf.logical_and(positive, tf.logical_not(tf.cast(tf.eye(shape[0], shape[1]), tf.bool)))
    positive_weights = tf.maximum((margin + distances) * tf.cast(positive, y_pred.dtype), 0.0)
    negative_weights = tf.maximum((1.0 + margin - distances) * tf.cast(negative, y_pred.dtype), 0.0)
    pulled = -gamma * positive_weights * (margin - distances)
    pushed = gamma * negative_weights * (1.0 - margin - distances)
    excluded = tf.fill(tf.shape(distances), tf.constant(-np.inf, y_pred.dtype))
    return tf.math.softplus(tf.reduce_logsumexp(tf.where(positive, pulled, excluded), axis=1)
                            + tf.reduce_logsumexp(tf.where(negative, pushed, excluded), axis=1))


def reduce_weighted_values(values, sample_weight=None, reduction="sum_over_batch_size"):
    """Weights per-sample loss values and reduces them to a scalar ("sum_over_batch_size", "sum") or not."""
    if sample_weight is not None:
        sample_weight = tf.cast(sample_weight, values.dtype)
        values, sample_weight = squeeze_or_expand_to_same_rank(values, sample_weight)
        values = values * sample_weight
    if reduction in (None, "none") or values.shape.rank == 0:
        return values
    total = tf.reduce_sum(values)
    if reduction == "sum":
        return total
    return tf.math.divide_no_nan(total, tf.cast(tf.size(values), values.dtype))


_REDUCTIONS = ("sum_over_batch_size", "sum", "none", None, "mean")


class Loss:
    """Base class: subclasses implement `call(y_true, y_pred)` returning per-sample values."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        _config.record_init_arguments(cls)    # so compile() arguments can be saved with a model

    def __init__(self, name=None, reduction="sum_over_batch_size", dtype=None):
        if reduction not in _REDUCTIONS:
            raise ValueError(f"Invalid value for argument `reduction`. Expected one of {_REDUCTIONS}. "
                             f"Received: reduction={reduction}")
        self.name = name or to_snake_case(type(self).__name__)     # as Keras: MyLoss() is "my_loss"
        self.reduction = "sum_over_batch_size" if reduction == "mean" else reduction
        self.dtype = tf.as_dtype(dtype or "float32")

    def __call__(self, y_true, y_pred, sample_weight=None):
        y_pred = tf.nest.map_structure(lambda t: _to_dtype(t, self.dtype), y_pred)
        y_true = tf.nest.map_structure(lambda t: _to_dtype(t, self.dtype), y_true)
        return reduce_weighted_values(self.call(y_true, y_pred), sample_weight, self.reduction)

    def call(self, y_true, y_pred):
        raise NotImplementedError(f"{type(self).__name__} must implement `call(y_true, y_pred)`.")

    def get_config(self):
        return {"name": self.name, "reduction": self.reduction}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def _to_dtype(t, dtype):
    t = tf.convert_to_tensor(t)
    return t if t.dtype == dtype else tf.cast(t, dtype)


class LossFunctionWrapper(Loss):
    """A `Loss` around a function `fn(y_true, y_pred, **kwargs)`."""

    def __init__(self, fn, reduction="sum_over_batch_size", name=None, dtype=None, **kwargs):
        super().__init__(name=name or getattr(fn, "__name__", None), reduction=reduction, dtype=dtype)
        self.fn = fn
        self._fn_kwargs = kwargs

    def call(self, y_true, y_pred):
        if isinstance(y_true, tf.Tensor) and isinstance(y_pred, tf.Tensor):
            y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        return self.fn(y_true, y_pred, **self._fn_kwargs)


class MeanSquaredError(LossFunctionWrapper):
    def __init__(self, reduction="sum_over_batch_size", name="mean_squared_error", dtype=None):
        super().__init__(mean_squared_error, reduction=reduction, name=name, dtype=dtype)


class MeanAbsoluteError(LossFunctionWrapper):
    def __init__(self, reduction="sum_over_batch_size", name="mean_absolute_error", dtype=None):
        super().__init__(mean_absolute_error, reduction=reduction, name=name, dtype=dtype)


class BinaryCrossentropy(LossFunctionWrapper):
    def __init__(self, from_logits=False, label_smoothing=0.0, axis=-1, reduction="sum_over_batch_size",
                 name="binary_crossentropy", dtype=None):
        super().__init__(binary_crossentropy, reduction=reduction, name=name, dtype=dtype,
                         from_logits=from_logits, label_smoothing=label_smoothing, axis=axis)
        self.from_logits = from_logits

    def get_config(self):
        return {**super().get_config(), "from_logits": self.from_logits,
                "label_smoothing": self._fn_kwargs["label_smoothing"], "axis": self._fn_kwargs["axis"]}


class CategoricalCrossentropy(LossFunctionWrapper):
    def __init__(self, from_logits=False, label_smoothing=0.0, axis=-1, reduction="sum_over_batch_size",
                 name="categorical_crossentropy", dtype=None):
        super().__init__(categorical_crossentropy, reduction=reduction, name=name, dtype=dtype,
                         from_logits=from_logits, label_smoothing=label_smoothing, axis=axis)
        self.from_logits = from_logits

    def get_config(self):
        return {**super().get_config(), "from_logits": self.from_logits,
                "label_smoothing": self._fn_kwargs["label_smoothing"], "axis": self._fn_kwargs["axis"]}


class SparseCategoricalCrossentropy(LossFunctionWrapper):
    def __init__(self, from_logits=False, ignore_class=None, reduction="sum_over_batch_size",
                 name="sparse_categorical_crossentropy", dtype=None, axis=-1):
        super().__init__(sparse_categorical_crossentropy, reduction=reduction, name=name, dtype=dtype,
                         from_logits=from_logits, ignore_class=ignore_class, axis=axis)
        self.from_logits = from_logits

    def get_config(self):
        # as Keras 3.15: `axis` is not written
        return {**super().get_config(), "from_logits": self.from_logits,
                "ignore_class": self._fn_kwargs["ignore_class"]}

    def call(self, y_true, y_pred):
        return self.fn(y_true, y_pred, **self._fn_kwargs)  # labels have one rank less: no rank matching


class BinaryFocalCrossentropy(LossFunctionWrapper):
    def __init__(self, apply_class_balancing=False, alpha=0.25, gamma=2.0, from_logits=False, label_smoothing=0.0,
                 axis=-1, reduction="sum_over_batch_size", name="binary_focal_crossentropy", dtype=None):
        super().__init__(binary_focal_crossentropy, reduction=reduction, name=name, dtype=dtype,
                         apply_class_balancing=apply_class_balancing, alpha=alpha, gamma=gamma,
                         from_logits=from_logits, label_smoothing=label_smoothing, axis=axis)
        self.from_logits = from_logits
        self.apply_class_balancing, self.alpha, self.gamma = apply_class_balancing, alpha, gamma

    def get_config(self):
        return {**super().get_config(), "from_logits": self.from_logits,
                "label_smoothing": self._fn_kwargs["label_smoothing"], "axis": self._fn_kwargs["axis"],
                "apply_class_balancing": self.apply_class_balancing, "alpha": self.alpha, "gamma": self.gamma}


class Huber(LossFunctionWrapper):
    def __init__(self, delta=1.0, reduction="sum_over_batch_size", name="huber_loss", dtype=None):
        super().__init__(huber, reduction=reduction, name=name, dtype=dtype, delta=delta)


class CosineSimilarity(LossFunctionWrapper):
    def __init__(self, axis=-1, reduction="sum_over_batch_size", name="cosine_similarity", dtype=None):
        super().__init__(cosine_similarity, reduction=reduction, name=name, dtype=dtype, axis=axis)


class CategoricalFocalCrossentropy(LossFunctionWrapper):
    def __init__(self, alpha=0.25, gamma=2.0, from_logits=False, label_smoothing=0.0, axis=-1,
                 reduction="sum_over_batch_size", name="categorical_focal_crossentropy", dtype=None):
        super().__init__(categorical_focal_crossentropy, reduction=reduction, name=name, dtype=dtype, alpha=alpha,
                         gamma=gamma, from_logits=from_logits, label_smoothing=label_smoothing, axis=axis)
        self.from_logits, self.alpha, self.gamma = from_logits, alpha, gamma

    def get_config(self):
        return {**super().get_config(), "from_logits": self.from_logits,
                "label_smoothing": self._fn_kwargs["label_smoothing"], "axis": self._fn_kwargs["axis"],
                "alpha": self.alpha, "gamma": self.gamma}


class CategoricalGeneralizedCrossEntropy(LossFunctionWrapper):
    def __init__(self, q=0.5, reduction="sum_over_batch_size", name="categorical_generalized_cross_entropy",
                 dtype=None):
        if not 0 < q < 1:
            raise ValueError("q must be in the interval (0, 1)")
        super().__init__(categorical_generalized_cross_entropy, reduction=reduction, name=name, dtype=dtype, q=q)
        self.q = q

    def call(self, y_true, y_pred):
        return self.fn(y_true, y_pred, q=self.q)   # integer labels have one rank less: no rank matching

    def get_config(self):
        return {**super().get_config(), "q": self.q}


class Dice(LossFunctionWrapper):
    def __init__(self, reduction="sum_over_batch_size", name="dice", axis=None, dtype=None):
        super().__init__(dice, reduction=reduction, name=name, dtype=dtype, axis=axis)
        self.axis = axis

    def get_config(self):
        return {**super().get_config(), "axis": self.axis}


class Tversky(LossFunctionWrapper):
    def __init__(self, alpha=0.5, beta=0.5, reduction="sum_over_batch_size", name="tversky", axis=None, dtype=None):
        super().__init__(tversky, reduction=reduction, name=name, dtype=dtype, alpha=alpha, beta=beta, axis=axis)
        self.alpha, self.beta, self.axis = alpha, beta, axis

    def get_config(self):
        return {**super().get_config(), "alpha": self.alpha, "beta": self.beta, "axis": self.axis}


class CTC(LossFunctionWrapper):
    def __init__(self, reduction="sum_over_batch_size", name="ctc", dtype=None):
        super().__init__(ctc, reduction=reduction, name=name, dtype=dtype)

    def call(self, y_true, y_pred):
        return self.fn(y_true, y_pred)     # labels and logits have different ranks: no rank matching


class Reduction:
    """Keras 2's names of the reductions (`tf.keras.losses.Reduction`), kept by Keras 3 as a legacy class."""

    AUTO = "auto"
    NONE = "none"
    SUM = "sum"
    SUM_OVER_BATCH_SIZE = "sum_over_batch_size"

    @classmethod
    def all(cls):
        return (cls.AUTO, cls.NONE, cls.SUM, cls.SUM_OVER_BATCH_SIZE)

    @classmethod
    def validate(cls, key):
        if key not in cls.all():
            raise ValueError(f'Invalid Reduction Key: {key}. Expected keys are "{cls.all()}"')


class Circle(LossFunctionWrapper):
    def __init__(self, gamma=80.0, margin=0.4, remove_diagonal=True, reduction="sum_over_batch_size", name="circle",
                 dtype=None):
        super().__init__(circle, reduction=reduction, name=name, dtype=dtype, gamma=gamma, margin=margin,
                         remove_diagonal=remove_diagonal)
        self.gamma, self.margin, self.remove_diagonal = gamma, margin, remove_diagonal

    def call(self, y_true, y_pred):
        return self.fn(y_true, y_pred, **self._fn_kwargs)     # labels (n,) against embeddings (n, d)

    def __call__(self, y_true, y_pred, sample_weight=None):
        # As Keras: only the rows with a positive loss count, so "sum_over_batch_size" is their mean.
        values = self.call(_to_dtype(y_true, self.dtype), _to_dtype(y_pred, self.dtype))
        mask = tf.cast(values > 0, values.dtype)
        if self.reduction == "sum_over_batch_size":
            mask = mask * tf.math.divide_no_nan(tf.cast(tf.size(mask), mask.dtype), tf.reduce_sum(mask))
        weights = mask if sample_weight is None else mask * tf.cast(sample_weight, mask.dtype)
        return reduce_weighted_values(values, weights, self.reduction)

    def get_config(self):
        return {**super().get_config(), "gamma": self.gamma, "margin": self.margin,
                "remove_diagonal": self.remove_diagonal}


def _plain_loss_class(class_name, fn):
    """A `Loss` class around `fn`, which takes no options; its default name is the function's."""
    def __init__(self, reduction="sum_over_batch_size", name=fn.__name__, dtype=None):
        LossFunctionWrapper.__init__(self, fn, reduction=reduction, name=name, dtype=dtype)
    return type(class_name, (LossFunctionWrapper,), {"__init__": __init__})


LogCosh = _plain_loss_class("LogCosh", log_cosh)
KLDivergence = _plain_loss_class("KLDivergence", kl_divergence)
Poisson = _plain_loss_class("Poisson", poisson)
Hinge = _plain_loss_class("Hinge", hinge)
SquaredHinge = _plain_loss_class("SquaredHinge", squared_hinge)
CategoricalHinge = _plain_loss_class("CategoricalHinge", categorical_hinge)
MeanAbsolutePercentageError = _plain_loss_class("MeanAbsolutePercentageError", mean_absolute_percentage_error)
MeanSquaredLogarithmicError = _plain_loss_class("MeanSquaredLogarithmicError", mean_squared_logarithmic_error)

mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
mape = MAPE = mean_absolute_percentage_error
msle = MSLE = mean_squared_logarithmic_error
kld = KLD = kullback_leibler_divergence = kl_divergence
logcosh = log_cosh
bce = BCE = binary_crossentropy

# Keras's string names: every function by its name, plus the short aliases.
_FUNCTIONS = {fn.__name__: fn for fn in (
    mean_squared_error, mean_absolute_error, binary_crossentropy, categorical_crossentropy,
    sparse_categorical_crossentropy, binary_focal_crossentropy, huber, log_cosh, kl_divergence, poisson,
    cosine_similarity, hinge, squared_hinge, categorical_hinge, mean_absolute_percentage_error,
    mean_squared_logarithmic_error, categorical_focal_crossentropy, categorical_generalized_cross_entropy, dice,
    tversky, ctc, circle)}
_FUNCTIONS.update({"mse": mse, "MSE": mse, "mae": mae, "MAE": mae, "mape": mape, "MAPE": mape, "msle": msle,
                   "MSLE": msle, "kld": kld, "KLD": kld, "bce": bce, "BCE": bce})
_CLASSES = (Loss, LossFunctionWrapper, MeanSquaredError, MeanAbsoluteError, BinaryCrossentropy,
            CategoricalCrossentropy, SparseCategoricalCrossentropy, BinaryFocalCrossentropy, Huber, LogCosh,
            KLDivergence, Poisson, CosineSimilarity, Hinge, SquaredHinge, CategoricalHinge,
            MeanAbsolutePercentageError, MeanSquaredLogarithmicError, CategoricalFocalCrossentropy,
            CategoricalGeneralizedCrossEntropy, Dice, Tversky, CTC, Circle)


def get(identifier):
    """A loss from a name ("mse", "MeanSquaredError"…), a `Loss`, or a function."""
    if identifier is None:
        return None
    if isinstance(identifier, str):
        fn = _FUNCTIONS.get(identifier)
        if fn is not None:
            return fn
        cls = {c.__name__: c for c in _CLASSES[2:]}.get(identifier)
        if cls is not None:
            return cls()
    elif callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret loss identifier: {identifier}")


# tf.keras (TF 2.21) also names two functions as Keras 2 did; `get` does not accept these names.
_LEGACY_ALIASES = ["logcosh", "kullback_leibler_divergence"]

# "bce"/"BCE" stay loss identifiers for compile() (as in Keras) but, as in Keras, are not exported names;
# nor are the long function names TF 2.21's tf.keras.losses lacks (`mean_squared_error`: it has only `mse`).
API = {"keras.losses": [c.__name__ for c in _CLASSES if c is not LossFunctionWrapper]
       + [name for name in _FUNCTIONS if name not in ("bce", "BCE", "mean_squared_error", "mean_absolute_error",
          "mean_absolute_percentage_error", "mean_squared_logarithmic_error", "kl_divergence", "log_cosh")]
       + _LEGACY_ALIASES + ["get", "Reduction"]}
