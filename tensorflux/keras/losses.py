"""`keras.losses`: per-sample loss functions and `Loss` objects that weight and reduce them.

A loss function returns one value per sample (the mean over the last axis); a `Loss` object converts both
arguments to float32, lines up their ranks (`(n,)` labels against `(n, 1)` predictions), applies
`sample_weight`, and reduces with "sum_over_batch_size" (the mean over all values) unless told otherwise.
"""
import tensorflux as tf

from . import config as _config

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
        p = tf.clip_by_value(y_pred, EPSILON, 1.0 - EPSILON)
        values = -(y_true * tf.math.log(p) + (1 - y_true) * tf.math.log(1 - p))
    return tf.reduce_mean(values, axis=axis)


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
        self.name = name or type(self).__name__
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


class CategoricalCrossentropy(LossFunctionWrapper):
    def __init__(self, from_logits=False, label_smoothing=0.0, axis=-1, reduction="sum_over_batch_size",
                 name="categorical_crossentropy", dtype=None):
        super().__init__(categorical_crossentropy, reduction=reduction, name=name, dtype=dtype,
                         from_logits=from_logits, label_smoothing=label_smoothing, axis=axis)
        self.from_logits = from_logits


class SparseCategoricalCrossentropy(LossFunctionWrapper):
    def __init__(self, from_logits=False, ignore_class=None, reduction="sum_over_batch_size",
                 name="sparse_categorical_crossentropy", dtype=None):
        super().__init__(sparse_categorical_crossentropy, reduction=reduction, name=name, dtype=dtype,
                         from_logits=from_logits, ignore_class=ignore_class)
        self.from_logits = from_logits

    def call(self, y_true, y_pred):
        return self.fn(y_true, y_pred, **self._fn_kwargs)  # labels have one rank less: no rank matching


mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error

_FUNCTIONS = {"mean_squared_error": mean_squared_error, "mse": mean_squared_error, "MSE": mean_squared_error,
              "mean_absolute_error": mean_absolute_error, "mae": mean_absolute_error, "MAE": mean_absolute_error,
              "binary_crossentropy": binary_crossentropy, "categorical_crossentropy": categorical_crossentropy,
              "sparse_categorical_crossentropy": sparse_categorical_crossentropy}
_CLASSES = (Loss, LossFunctionWrapper, MeanSquaredError, MeanAbsoluteError, BinaryCrossentropy,
            CategoricalCrossentropy, SparseCategoricalCrossentropy)


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


API = {"keras.losses": [c.__name__ for c in _CLASSES] + list(_FUNCTIONS) + ["get"]}
