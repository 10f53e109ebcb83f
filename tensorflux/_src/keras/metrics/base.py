"""The core of `keras.metrics`: stateful running summaries (`update_state`, `result`, `reset_state`) kept in variables.

State lives in non-trainable float32 variables, so updates run the same eagerly and inside tf.function.
`Mean` counts each sample once: per-sample values of shape `(n, ...)` add `n` to the count, a scalar adds 1
(or the sum of `sample_weight`). Confusion-matrix metrics (Precision, Recall, AUC, TruePositives…) keep weighted
counts per threshold and count exactly as Keras does, including its bucketing of evenly spaced thresholds.
"""
import numpy as np

import tensorflux as tf

from .. import config as _config

from .. import losses as _losses
from ..naming import to_snake_case, unique_name
from ..losses import squeeze_or_expand_to_same_rank


class Metric:
    """Base class: subclasses make state with `add_variable` and implement update_state/result."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        _config.record_init_arguments(cls)    # so compile() arguments can be saved with a model

    def __init__(self, name=None, dtype=None):
        # Like Keras, a metric without a name gets a unique one: precision, precision_1, …
        self.name = name or unique_name(to_snake_case(type(self).__name__))
        self.dtype = tf.as_dtype(dtype or "float32")
        self._variables = []

    def add_variable(self, shape=(), initializer="zeros", dtype=None, name=None):
        dtype = tf.as_dtype(dtype or self.dtype)
        variable = tf.Variable(lambda: tf.zeros(shape, dtype), trainable=False, dtype=dtype,
                               name=f"{self.name}/{name or 'variable'}")
        self._variables.append(variable)
        return variable

    @property
    def variables(self):
        return list(self._variables)

    def reset_state(self):
        for v in self._variables:
            v.assign(tf.zeros(v.shape, v.dtype))

    def update_state(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must implement `update_state`.")

    def result(self):
        raise NotImplementedError(f"{type(self).__name__} must implement `result`.")

    def __call__(self, *args, **kwargs):
        self.update_state(*args, **kwargs)
        return self.result()

    # Set by keras.saving (which builds on this module): Keras 3's get_config() of a built-in metric.
    _builtin_get_config = None

    def get_config(self):
        """Keras 3's config: a built-in metric gives its name, dtype and arguments; a subclass gets the
        name and dtype to extend."""
        if Metric._builtin_get_config is not None and type(self).__module__.startswith("tensorflux.") and \
                type(self).get_config is Metric.get_config:    # a class writing its own extends the base
            return Metric._builtin_get_config(self)
        return {"name": self.name, "dtype": self.dtype.name}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name}>"


def reduce_to_samplewise_values(values, sample_weight, dtype):
    """Per-sample values (rank ≤ 1, averaging trailing axes) and matching weights."""
    values = tf.cast(values, dtype)
    if sample_weight is not None:
        sample_weight = tf.cast(sample_weight, dtype)
        values, sample_weight = squeeze_or_expand_to_same_rank(values, sample_weight)
        weight_rank, value_rank = sample_weight.shape.rank, values.shape.rank
        if value_rank > weight_rank:
            values = tf.reduce_mean(values, axis=list(range(weight_rank, value_rank)))
        sample_weight = tf.broadcast_to(sample_weight, tf.shape(values))
        values = values * sample_weight
        if weight_rank > 1:
            sample_weight = tf.reduce_mean(sample_weight, axis=list(range(1, weight_rank)))
    if values.shape.rank > 1:
        values = tf.reduce_mean(values, axis=list(range(1, values.shape.rank)))
    return values, sample_weight


class Sum(Metric):
    def __init__(self, name="sum", dtype=None):
        super().__init__(name, dtype)
        self.total = self.add_variable(name="total")

    def update_state(self, values, sample_weight=None):
        values, _ = reduce_to_samplewise_values(values, sample_weight, self.dtype)
        self.total.assign_add(tf.reduce_sum(values))

    def result(self):
        return tf.identity(self.total)


class Mean(Metric):
    def __init__(self, name="mean", dtype=None):
        super().__init__(name, dtype)
        self.total = self.add_variable(name="total")
        self.count = self.add_variable(name="count")

    def update_state(self, values, sample_weight=None):
        values, sample_weight = reduce_to_samplewise_values(values, sample_weight, self.dtype)
        self.total.assign_add(tf.reduce_sum(values))
        if sample_weight is not None:
            count = tf.reduce_sum(sample_weight)
        elif values.shape.rank:
            count = tf.cast(tf.shape(values)[0], self.dtype)
        else:
            count = tf.constant(1.0, self.dtype)
        self.count.assign_add(count)

    def result(self):
        return tf.math.divide_no_nan(self.total, self.count)


class MeanMetricWrapper(Mean):
    """The running mean of `fn(y_true, y_pred)`."""

    def __init__(self, fn, name=None, dtype=None, **kwargs):
        super().__init__(name=name or getattr(fn, "__name__", "mean_metric_wrapper"), dtype=dtype)
        self._fn = fn
        self._fn_kwargs = kwargs

    def update_state(self, y_true, y_pred, sample_weight=None):
        values = self._fn(y_true, y_pred, **self._fn_kwargs)
        return super().update_state(values, sample_weight)


def accuracy(y_true, y_pred):
    y_pred = tf.convert_to_tensor(y_pred)
    y_true = tf.cast(y_true, y_pred.dtype)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    return tf.cast(tf.equal(y_true, y_pred), tf.float32)


def binary_accuracy(y_true, y_pred, threshold=0.5):
    y_pred = tf.convert_to_tensor(y_pred)
    y_true = tf.cast(y_true, y_pred.dtype)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    return tf.cast(tf.equal(y_true, tf.cast(y_pred > threshold, y_true.dtype)), tf.float32)


def categorical_accuracy(y_true, y_pred):
    y_pred = tf.convert_to_tensor(y_pred)
    y_true = tf.convert_to_tensor(y_true)
    return tf.cast(tf.equal(tf.argmax(y_true, -1), tf.argmax(y_pred, -1)), tf.float32)


def sparse_categorical_accuracy(y_true, y_pred):
    y_pred = tf.convert_to_tensor(y_pred)
    y_true = tf.convert_to_tensor(y_true)
    if y_true.shape.rank == y_pred.shape.rank and y_true.shape[-1] == 1:
        y_true = tf.squeeze(y_true, -1)
    predicted = tf.argmax(y_pred, -1)
    if predicted.dtype != y_true.dtype:
        predicted = tf.cast(predicted, y_true.dtype)
    return tf.cast(tf.equal(y_true, predicted), tf.float32)


def _in_top_k(targets, predictions, k):
    """Whether each target class scores among the `k` best: fewer than `k` classes score strictly higher (so
    tied classes straddling the boundary all count as in the top k); a non-finite target score never does."""
    target_scores = tf.gather(predictions, targets, batch_dims=1)
    higher = tf.reduce_sum(tf.cast(predictions > tf.expand_dims(target_scores, -1), tf.int32), axis=-1)
    return tf.logical_and(higher < k, tf.math.is_finite(target_scores))


def _top_k_matches(labels, y_pred, k):
    """`_in_top_k` over any leading axes: `labels` of shape `s`, `y_pred` of shape `s + (classes,)`."""
    matches = _in_top_k(tf.reshape(labels, [-1]), tf.reshape(y_pred, [-1, y_pred.shape[-1]]), k)
    return tf.reshape(tf.cast(matches, tf.float32), tf.shape(labels))


def top_k_categorical_accuracy(y_true, y_pred, k=5):
    y_pred = tf.convert_to_tensor(y_pred)
    labels = tf.cast(tf.argmax(tf.convert_to_tensor(y_true), -1), tf.int32)
    return _top_k_matches(labels, y_pred, k)


def sparse_top_k_categorical_accuracy(y_true, y_pred, k=5, from_sorted_ids=False):
    """With `from_sorted_ids`, `y_pred` holds class ids sorted by score, and a match is among its first k."""
    y_pred = tf.convert_to_tensor(y_pred)
    if from_sorted_ids:
        labels = tf.cast(y_true, y_pred.dtype)
        matches = tf.reduce_any(tf.equal(tf.expand_dims(tf.reshape(labels, [-1]), 1),
                                         tf.reshape(y_pred, [-1, y_pred.shape[-1]])[:, :k]), axis=1)
        return tf.reshape(tf.cast(matches, tf.float32), tf.shape(labels))
    return _top_k_matches(tf.cast(y_true, tf.int32), y_pred, k)


def cosine_similarity(y_true, y_pred, axis=-1):
    """The cosine similarity itself (the loss of that name is its negation)."""
    return -_losses.cosine_similarity(y_true, y_pred, axis=axis)


def _wrapper_class(class_name, fn, default_name):
    def __init__(self, name=default_name, dtype=None, **kwargs):
        MeanMetricWrapper.__init__(self, fn, name=name, dtype=dtype, **kwargs)
    return type(class_name, (MeanMetricWrapper,), {"__init__": __init__})


Accuracy = _wrapper_class("Accuracy", accuracy, "accuracy")
class BinaryAccuracy(MeanMetricWrapper):
    def __init__(self, name="binary_accuracy", dtype=None, threshold=0.5):
        super().__init__(binary_accuracy, name=name, dtype=dtype, threshold=threshold)
        self.threshold = threshold

    def get_config(self):
        return {**super().get_config(), "threshold": self.threshold}


CategoricalAccuracy = _wrapper_class("CategoricalAccuracy", categorical_accuracy, "categorical_accuracy")
SparseCategoricalAccuracy = _wrapper_class("SparseCategoricalAccuracy", sparse_categorical_accuracy,
                                           "sparse_categorical_accuracy")
MeanSquaredError = _wrapper_class("MeanSquaredError", _losses.mean_squared_error, "mean_squared_error")
MeanAbsoluteError = _wrapper_class("MeanAbsoluteError", _losses.mean_absolute_error, "mean_absolute_error")
MeanAbsolutePercentageError = _wrapper_class("MeanAbsolutePercentageError",
                                             _losses.mean_absolute_percentage_error,
                                             "mean_absolute_percentage_error")
MeanSquaredLogarithmicError = _wrapper_class("MeanSquaredLogarithmicError",
                                             _losses.mean_squared_logarithmic_error,
                                             "mean_squared_logarithmic_error")
LogCoshError = _wrapper_class("LogCoshError", _losses.log_cosh, "logcosh")
Hinge = _wrapper_class("Hinge", _losses.hinge, "hinge")
SquaredHinge = _wrapper_class("SquaredHinge", _losses.squared_hinge, "squared_hinge")
CategoricalHinge = _wrapper_class("CategoricalHinge", _losses.categorical_hinge, "categorical_hinge")
KLDivergence = _wrapper_class("KLDivergence", _losses.kl_divergence, "kl_divergence")
Poisson = _wrapper_class("Poisson", _losses.poisson, "poisson")


class CosineSimilarity(MeanMetricWrapper):
    def __init__(self, name="cosine_similarity", dtype=None, axis=-1):
        super().__init__(cosine_similarity, name=name, dtype=dtype, axis=axis)


class TopKCategoricalAccuracy(MeanMetricWrapper):
    def __init__(self, k=5, name="top_k_categorical_accuracy", dtype=None):
        super().__init__(top_k_categorical_accuracy, name=name, dtype=dtype, k=k)
        self.k = k

    def get_config(self):
        return {**super().get_config(), "k": self.k}


class SparseTopKCategoricalAccuracy(MeanMetricWrapper):
    def __init__(self, k=5, name="sparse_top_k_categorical_accuracy", dtype=None, from_sorted_ids=False):
        super().__init__(sparse_top_k_categorical_accuracy, name=name, dtype=dtype, k=k,
                         from_sorted_ids=from_sorted_ids)
        self.k, self.from_sorted_ids = k, from_sorted_ids

    def get_config(self):
        return {**super().get_config(), "k": self.k}     # as Keras 3.15: from_sorted_ids is not written


class RootMeanSquaredError(Mean):
    """The root of the running mean of squared errors (not the mean of per-batch roots)."""

    def __init__(self, name="root_mean_squared_error", dtype=None):
        super().__init__(name=name, dtype=dtype)

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true = tf.cast(y_true, self.dtype)
        y_pred = tf.cast(y_pred, self.dtype)
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        return super().update_state(tf.square(y_pred - y_true), sample_weight)

    def result(self):
        return tf.sqrt(super().result())


mean_squared_error = mse = MSE = _losses.mean_squared_error
mean_absolute_error = mae = MAE = _losses.mean_absolute_error
mean_absolute_percentage_error = mape = MAPE = _losses.mean_absolute_percentage_error
mean_squared_logarithmic_error = msle = MSLE = _losses.mean_squared_logarithmic_error
categorical_focal_crossentropy = _losses.categorical_focal_crossentropy
binary_crossentropy = _losses.binary_crossentropy
categorical_crossentropy = _losses.categorical_crossentropy
sparse_categorical_crossentropy = _losses.sparse_categorical_crossentropy
binary_focal_crossentropy = _losses.binary_focal_crossentropy
hinge = _losses.hinge
squared_hinge = _losses.squared_hinge
categorical_hinge = _losses.categorical_hinge
kl_divergence = kld = KLD = kullback_leibler_divergence = _losses.kl_divergence
poisson = _losses.poisson
huber = _losses.huber
log_cosh = logcosh = _losses.log_cosh


# -- confusion-matrix metrics ---------------------------------------------------------------------------
NEG_INF = -1e10     # the score `top_k` gives to predictions outside the top k


def _as_threshold_list(thresholds, default):
    if thresholds is None:
        return [default]
    thresholds = list(thresholds) if isinstance(thresholds, (list, tuple)) else [thresholds]
    invalid = [t for t in thresholds if t is None or t < 0 or t > 1]
    if invalid:
        raise ValueError(f"Threshold values must be in [0, 1]. Received: {invalid}")
    return thresholds


def _evenly_distributed(thresholds):
    """Whether thresholds are `i / (n - 1)` for i = 0…n-1, which Keras counts by bucketing predictions."""
    count = len(thresholds)
    return count >= 3 and np.allclose(thresholds, np.arange(count, dtype=np.float32) / (count - 1),
                                       atol=_losses.EPSILON)


def _keep_top_k(y_pred, k):
    """`y_pred` with every score outside the top k of its last axis replaced by NEG_INF."""
    indices = tf.math.top_k(y_pred, k).indices
    in_top_k = tf.reduce_sum(tf.one_hot(indices, tf.shape(y_pred)[-1], dtype=y_pred.dtype), axis=-2)
    return y_pred * in_top_k + NEG_INF * (1 - in_top_k)


def update_confusion_matrix(counts, y_true, y_pred, thresholds, evenly_distributed=False, sample_weight=None,
                            top_k=None, class_id=None, multi_label=False, label_weights=None):
    """Adds the weighted true/false positives/negatives at each threshold to `counts`, a dict from "tp", "fp",
    "tn", "fn" to variables of shape `(thresholds,)` (`(thresholds, labels)` with `multi_label`).

    A prediction is positive at a threshold when it is strictly greater; a label when it is non-zero.
    """
    dtype = next(iter(counts.values())).dtype
    y_true, y_pred = tf.cast(y_true, dtype), tf.cast(y_pred, dtype)
    y_pred, y_true = squeeze_or_expand_to_same_rank(y_pred, y_true)
    weights = None
    if sample_weight is not None:
        sample_weight = tf.expand_dims(tf.cast(sample_weight, dtype), -1)
        _, sample_weight = squeeze_or_expand_to_same_rank(y_true, sample_weight, expand_rank_1=False)
    if top_k is not None:
        y_pred = _keep_top_k(y_pred, top_k)
    if class_id is not None:
        if y_pred.shape.rank == 1:
            raise ValueError(f"When class_id is provided, y_pred must be a 2D array with shape (num_samples, "
                             f"num_classes), found shape: {y_pred.shape}")
        y_true, y_pred = y_true[..., class_id:class_id + 1], y_pred[..., class_id:class_id + 1]
    if sample_weight is not None:
        weights = tf.broadcast_to(sample_weight, tf.shape(y_pred))
    if label_weights is not None and not multi_label:
        label_weights = tf.broadcast_to(tf.cast(label_weights, dtype), tf.shape(y_pred))
        weights = label_weights if weights is None else weights * label_weights
    labels = tf.cast(tf.not_equal(y_true, 0), dtype)
    if not multi_label:
        labels, y_pred = tf.reshape(labels, [-1]), tf.reshape(y_pred, [-1])
        weights = None if weights is None else tf.reshape(weights, [-1])
    # One row per threshold: (thresholds, predictions) or, with multi_label, (thresholds, samples, labels).
    threshold_shape = [len(thresholds)] + [1] * y_pred.shape.rank
    if evenly_distributed:
        # Keras clips predictions into [0, 1] and puts each into the bucket ceil(p * (n - 1)) - 1; it is positive
        # at the thresholds up to its bucket. Endpoints pushed past 0 and 1 (AUC's) make every p > 0 count at the
        # first.
        y_pred = tf.clip_by_value(y_pred, 0.0, 1.0)
        buckets = tf.math.ceil(y_pred * (len(thresholds) - 1)) - 1
        if thresholds[0] < 0 or thresholds[-1] > 1:
            buckets = tf.maximum(buckets, 0.0)
        indices = tf.reshape(tf.range(len(thresholds), dtype=dtype), threshold_shape)
        predicted_positive = tf.cast(indices <= tf.expand_dims(buckets, 0), dtype)
    else:
        threshold_values = tf.reshape(tf.constant(np.asarray(thresholds, np.float64), dtype), threshold_shape)
        predicted_positive = tf.cast(tf.expand_dims(y_pred, 0) > threshold_values, dtype)
    positives = labels if weights is None else labels * weights
    negatives = 1.0 - labels if weights is None else (1.0 - labels) * weights
    increments = {"tp": (predicted_positive, positives), "fp": (predicted_positive, negatives),
                  "tn": (1.0 - predicted_positive, negatives), "fn": (1.0 - predicted_positive, positives)}
    for kind, variable in counts.items():
        predicted, actual = increments[kind]
        variable.assign_add(tf.reduce_sum(predicted * tf.expand_dims(actual, 0), axis=1))


class _ConfusionMatrixCount(Metric):
    """The weighted count of one confusion-matrix cell at each of `thresholds` (default 0.5)."""

    _KIND = None

    def __init__(self, thresholds=None, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.init_thresholds = thresholds
        self.thresholds = _as_threshold_list(thresholds, 0.5)
        self._evenly_distributed = _evenly_distributed(self.thresholds)
        self.accumulator = self.add_variable(shape=(len(self.thresholds),), name="accumulator")

    def update_state(self, y_true, y_pred, sample_weight=None):
        update_confusion_matrix({self._KIND: self.accumulator}, y_true, y_pred, self.thresholds,
                                self._evenly_distributed, sample_weight)

    def result(self):
        return self.accumulator[0] if len(self.thresholds) == 1 else tf.identity(self.accumulator)


class TruePositives(_ConfusionMatrixCount):
    _KIND = "tp"

    def __init__(self, thresholds=None, name=None, dtype=None):
        super().__init__(thresholds, name, dtype)


class FalsePositives(_ConfusionMatrixCount):
    _KIND = "fp"

    def __init__(self, thresholds=None, name=None, dtype=None):
        super().__init__(thresholds, name, dtype)


class TrueNegatives(_ConfusionMatrixCount):
    _KIND = "tn"

    def __init__(self, thresholds=None, name=None, dtype=None):
        super().__init__(thresholds, name, dtype)


class FalseNegatives(_ConfusionMatrixCount):
    _KIND = "fn"

    def __init__(self, thresholds=None, name=None, dtype=None):
        super().__init__(thresholds, name, dtype)


class _PrecisionOrRecall(Metric):
    """tp / (tp + the count named by `_OTHER`) at each threshold. With `top_k`, only each sample's k best scores
    can be positive (at any threshold by default); with `class_id`, only that class (column) is scored."""

    _OTHER = None   # ("fp", "false_positives") or ("fn", "false_negatives")

    def __init__(self, thresholds=None, top_k=None, class_id=None, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.init_thresholds, self.top_k, self.class_id = thresholds, top_k, class_id
        self.thresholds = _as_threshold_list(thresholds, 0.5 if top_k is None else NEG_INF)
        self._evenly_distributed = _evenly_distributed(self.thresholds)
        self.true_positives = self.add_variable(shape=(len(self.thresholds),), name="true_positives")
        kind, attribute = self._OTHER
        self._other = self.add_variable(shape=(len(self.thresholds),), name=attribute)
        setattr(self, attribute, self._other)

    def update_state(self, y_true, y_pred, sample_weight=None):
        update_confusion_matrix({"tp": self.true_positives, self._OTHER[0]: self._other}, y_true, y_pred,
                                self.thresholds, self._evenly_distributed, sample_weight, top_k=self.top_k,
                                class_id=self.class_id)

    def result(self):
        value = tf.math.divide_no_nan(self.true_positives, self.true_positives + self._other)
        return value[0] if len(self.thresholds) == 1 else value


class Precision(_PrecisionOrRecall):
    _OTHER = ("fp", "false_positives")

    def __init__(self, thresholds=None, top_k=None, class_id=None, name=None, dtype=None):
        super().__init__(thresholds, top_k, class_id, name, dtype)


class Recall(_PrecisionOrRecall):
    _OTHER = ("fn", "false_negatives")

    def __init__(self, thresholds=None, top_k=None, class_id=None, name=None, dtype=None):
        super().__init__(thresholds, top_k, class_id, name, dtype)


# The spellings Keras accepts for AUC's options, and what each means.
_AUC_CURVES = {"ROC": "ROC", "roc": "ROC", "PR": "PR", "pr": "PR", "PRGAIN": "PRGAIN", "prgain": "PRGAIN"}
_AUC_SUMMATIONS = {name: name.lower() for name in ("interpolation", "Interpolation", "majoring", "Majoring",
                                                    "minoring", "Minoring")}


class AUC(Metric):
    """The area under the ROC or PR curve, approximated from confusion counts at `num_thresholds` thresholds
    (evenly spaced in [0, 1], with the end ones pushed just outside so that 0 and 1 land inside)."""

    def __init__(self, num_thresholds=200, curve="ROC", summation_method="interpolation", name=None, dtype=None,
                 thresholds=None, multi_label=False, num_labels=None, label_weights=None, from_logits=False):
        if thresholds is not None:
            thresholds = sorted(thresholds)
            self.num_thresholds = len(thresholds) + 2
            self._evenly_distributed = _evenly_distributed([0.0] + thresholds + [1.0])
        else:
            if num_thresholds <= 1:
                raise ValueError(f"Argument `num_thresholds` must be an integer > 1. "
                                 f"Received: num_thresholds={num_thresholds}")
            self.num_thresholds = num_thresholds
            thresholds = [(i + 1) / (num_thresholds - 1) for i in range(num_thresholds - 2)]
            self._evenly_distributed = True
        self._thresholds = [0.0 - _losses.EPSILON] + thresholds + [1.0 + _losses.EPSILON]
        if curve not in _AUC_CURVES:
            raise ValueError(f'Invalid AUC curve value: "{curve}". Expected values are ["PR", "ROC", "PRGAIN"]')
        if summation_method not in _AUC_SUMMATIONS:
            raise ValueError(f'Invalid AUC summation method value: "{summation_method}". Expected values are '
                             f'["interpolation", "majoring", "minoring"]')
        self.curve, self.summation_method = _AUC_CURVES[curve], _AUC_SUMMATIONS[summation_method]
        super().__init__(name=name, dtype=dtype)
        self.multi_label, self.num_labels = multi_label, num_labels
        self.label_weights = None if label_weights is None else tf.constant(label_weights, self.dtype)
        self._from_logits = from_logits
        self._built = False
        if not multi_label and num_labels:
            raise ValueError("`num_labels` is needed only when `multi_label` is True.")
        if not multi_label or num_labels:
            self._build([None, num_labels] if multi_label else None)

    @property
    def thresholds(self):
        return list(self._thresholds)

    def _build(self, shape):
        if self.multi_label:
            if len(shape) != 2:
                raise ValueError(f"`y_pred` must have rank 2 when `multi_label=True`. Found rank {len(shape)}. "
                                 f"Full shape received for `y_pred`: {shape}")
            self._num_labels = shape[1]
            variable_shape = (self.num_thresholds, self._num_labels)
        else:
            variable_shape = (self.num_thresholds,)
        self.true_positives = self.add_variable(shape=variable_shape, name="true_positives")
        self.false_positives = self.add_variable(shape=variable_shape, name="false_positives")
        self.true_negatives = self.add_variable(shape=variable_shape, name="true_negatives")
        self.false_negatives = self.add_variable(shape=variable_shape, name="false_negatives")
        self._built = True

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_pred = tf.convert_to_tensor(y_pred)
        if not self._built:
            self._build(list(y_pred.shape))
        if self._from_logits:
            y_pred = tf.sigmoid(y_pred)
        counts = {"tp": self.true_positives, "fp": self.false_positives, "tn": self.true_negatives,
                  "fn": self.false_negatives}
        # With multi_label, label weights average the per-label areas in `result` instead.
        update_confusion_matrix(counts, y_true, y_pred, self._thresholds, self._evenly_distributed, sample_weight,
                                multi_label=self.multi_label,
                                label_weights=None if self.multi_label else self.label_weights)

    def _average_over_labels(self, areas):
        """The area of one label set: the sum of `areas` (per threshold step), averaged over labels."""
        if not self.multi_label:
            return tf.reduce_sum(areas)
        by_label = tf.reduce_sum(areas, axis=0)
        if self.label_weights is None:
            return tf.reduce_mean(by_label)
        return tf.math.divide_no_nan(tf.reduce_sum(by_label * self.label_weights), tf.reduce_sum(self.label_weights))

    def _interpolated_pr_auc(self, tp, fp, fn):
        """Davis & Goadrich's interpolation: precision varies along each step as tp grows linearly in tp + fp."""
        dtp = tp[:-1] - tp[1:]
        predicted_positive = tp + fp
        dp = predicted_positive[:-1] - predicted_positive[1:]
        slope = tf.math.divide_no_nan(dtp, tf.maximum(dp, 0.0))
        intercept = tp[1:] - slope * predicted_positive[1:]
        both_positive = tf.logical_and(predicted_positive[:-1] > 0, predicted_positive[1:] > 0)
        ratio = tf.where(both_positive,
                         tf.math.divide_no_nan(predicted_positive[:-1], tf.maximum(predicted_positive[1:], 0.0)),
                         tf.ones_like(predicted_positive[1:]))
        areas = tf.math.divide_no_nan(slope * (dtp + intercept * tf.math.log(ratio)),
                                      tf.maximum(tp[1:] + fn[1:], 0.0))
        return self._average_over_labels(areas)

    def result(self):
        tp, fp = tf.convert_to_tensor(self.true_positives), tf.convert_to_tensor(self.false_positives)
        tn, fn = tf.convert_to_tensor(self.true_negatives), tf.convert_to_tensor(self.false_negatives)
        if self.curve == "PR" and self.summation_method == "interpolation":
            return self._interpolated_pr_auc(tp, fp, fn)
        recall = tf.math.divide_no_nan(tp, tp + fn)
        if self.curve == "ROC":
            x, y = tf.math.divide_no_nan(fp, fp + tn), recall
        elif self.curve == "PR":
            x, y = recall, tf.math.divide_no_nan(tp, tp + fp)
        else:
            # Precision-recall gain (Flach & Kull): gains are 0 without true positives, and recall gain is
            # floored at 0.
            scale = tf.math.divide_no_nan(tp + fn, tn + fp)
            no_tp = tf.equal(tp, 0.0)
            x = tf.maximum(tf.where(no_tp, 0.0, 1.0 - scale * tf.math.divide_no_nan(fn, tp)), 0.0)
            y = tf.where(no_tp, 1.0, 1.0 - scale * tf.math.divide_no_nan(fp, tp))
        if self.summation_method == "interpolation":
            heights = (y[:-1] + y[1:]) / 2.0
        elif self.summation_method == "minoring":
            heights = tf.minimum(y[:-1], y[1:])
        else:
            heights = tf.maximum(y[:-1], y[1:])
        return self._average_over_labels((x[:-1] - x[1:]) * heights)


class FBetaScore(Metric):
    """(1 + β²)·precision·recall / (β²·precision + recall) per class of `(batch, classes)` inputs, averaged
    ("micro" pools the counts, "macro" means the scores, "weighted" weighs them by class support) or not (None).
    Without `threshold`, each row's highest score is its positive prediction."""

    def __init__(self, average=None, beta=1.0, threshold=None, name="fbeta_score", dtype=None):
        super().__init__(name=name, dtype=dtype)
        if average not in (None, "micro", "macro", "weighted"):
            raise ValueError(f"Invalid `average` argument value. Expected one of: {{None, 'micro', 'macro', "
                             f"'weighted'}}. Received: average={average}")
        if not isinstance(beta, float):
            raise ValueError(f"Invalid `beta` argument value. It should be a Python float. Received: beta={beta} "
                             f"of type '{type(beta)}'")
        if beta <= 0.0:
            raise ValueError(f"Invalid `beta` argument value. It should be > 0. Received: beta={beta}")
        if threshold is not None:
            if not isinstance(threshold, float):
                raise ValueError(f"Invalid `threshold` argument value. It should be a Python float. Received: "
                                 f"threshold={threshold} of type '{type(threshold)}'")
            if threshold > 1.0 or threshold <= 0.0:
                raise ValueError(f"Invalid `threshold` argument value. It should verify 0 < threshold <= 1. "
                                 f"Received: threshold={threshold}")
        self.average, self.beta, self.threshold = average, beta, threshold
        self._axis = None if average == "micro" else 0
        self._built = False

    def _build(self, y_true_shape, y_pred_shape):
        if y_pred_shape.rank != 2 or y_true_shape.rank != 2:
            raise ValueError(f"FBetaScore expects 2D inputs with shape (batch_size, output_dim). Received input "
                             f"shapes: y_pred.shape={y_pred_shape} and y_true.shape={y_true_shape}.")
        shape = () if self.average == "micro" else (y_pred_shape[-1],)
        self.true_positives = self.add_variable(shape=shape, name="true_positives")
        self.false_positives = self.add_variable(shape=shape, name="false_positives")
        self.false_negatives = self.add_variable(shape=shape, name="false_negatives")
        self.intermediate_weights = self.add_variable(shape=shape, name="intermediate_weights")
        self._built = True

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true, y_pred = tf.cast(y_true, self.dtype), tf.cast(y_pred, self.dtype)
        if not self._built:
            self._build(y_true.shape, y_pred.shape)
        if self.threshold is None:
            # The row maximum is positive, unless it is zero (an all-zero row predicts nothing).
            row_max = tf.reduce_max(y_pred, axis=-1, keepdims=True)
            predicted = tf.logical_and(y_pred >= row_max, tf.abs(y_pred) > 1e-9)
        else:
            predicted = y_pred > self.threshold
        predicted = tf.cast(predicted, self.dtype)

        def weighted_sum(values):
            if sample_weight is not None:
                values = values * tf.expand_dims(tf.cast(sample_weight, self.dtype), 1)
            return tf.reduce_sum(values, axis=self._axis)

        self.true_positives.assign_add(weighted_sum(predicted * y_true))
        self.false_positives.assign_add(weighted_sum(predicted * (1 - y_true)))
        self.false_negatives.assign_add(weighted_sum((1 - predicted) * y_true))
        self.intermediate_weights.assign_add(weighted_sum(y_true))

    def result(self):
        epsilon = _losses.EPSILON
        precision = self.true_positives / (self.true_positives + self.false_positives + epsilon)
        recall = self.true_positives / (self.true_positives + self.false_negatives + epsilon)
        beta_squared = self.beta ** 2
        score = precision * recall / (beta_squared * precision + recall + epsilon) * (1 + beta_squared)
        if self.average == "weighted":
            weights = self.intermediate_weights / (tf.reduce_sum(self.intermediate_weights) + epsilon)
            return tf.reduce_sum(score * weights)
        if self.average is not None:
            return tf.reduce_mean(score)
        return score


class F1Score(FBetaScore):
    def __init__(self, average=None, threshold=None, name="f1_score", dtype=None):
        super().__init__(average=average, beta=1.0, threshold=threshold, name=name, dtype=dtype)
