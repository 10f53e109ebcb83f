"""`keras.metrics`: stateful running summaries (`update_state`, `result`, `reset_state`) kept in variables.

State lives in non-trainable float32 variables, so updates run the same eagerly and inside tf.function.
`Mean` counts each sample once: per-sample values of shape `(n, ...)` add `n` to the count, a scalar adds 1
(or the sum of `sample_weight`).
"""
import tensorflux as tf

from . import config as _config

from . import losses as _losses
from .naming import to_snake_case
from .losses import squeeze_or_expand_to_same_rank


class Metric:
    """Base class: subclasses make state with `add_variable` and implement update_state/result."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        _config.record_init_arguments(cls)    # so compile() arguments can be saved with a model

    def __init__(self, name=None, dtype=None):
        self.name = name or to_snake_case(type(self).__name__)
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

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype.name}

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


def _wrapper_class(class_name, fn, default_name):
    def __init__(self, name=default_name, dtype=None, **kwargs):
        MeanMetricWrapper.__init__(self, fn, name=name, dtype=dtype, **kwargs)
    return type(class_name, (MeanMetricWrapper,), {"__init__": __init__})


Accuracy = _wrapper_class("Accuracy", accuracy, "accuracy")
BinaryAccuracy = _wrapper_class("BinaryAccuracy", binary_accuracy, "binary_accuracy")
CategoricalAccuracy = _wrapper_class("CategoricalAccuracy", categorical_accuracy, "categorical_accuracy")
SparseCategoricalAccuracy = _wrapper_class("SparseCategoricalAccuracy", sparse_categorical_accuracy,
                                           "sparse_categorical_accuracy")
MeanSquaredError = _wrapper_class("MeanSquaredError", _losses.mean_squared_error, "mean_squared_error")
MeanAbsoluteError = _wrapper_class("MeanAbsoluteError", _losses.mean_absolute_error, "mean_absolute_error")

mean_squared_error = mse = _losses.mean_squared_error
mean_absolute_error = mae = _losses.mean_absolute_error
binary_crossentropy = _losses.binary_crossentropy
categorical_crossentropy = _losses.categorical_crossentropy
sparse_categorical_crossentropy = _losses.sparse_categorical_crossentropy

_FUNCTIONS = {"accuracy": accuracy, "binary_accuracy": binary_accuracy,
              "categorical_accuracy": categorical_accuracy,
              "sparse_categorical_accuracy": sparse_categorical_accuracy,
              "mean_squared_error": mean_squared_error, "mse": mse,
              "mean_absolute_error": mean_absolute_error, "mae": mae,
              "binary_crossentropy": binary_crossentropy, "categorical_crossentropy": categorical_crossentropy,
              "sparse_categorical_crossentropy": sparse_categorical_crossentropy}
_CLASSES = (Metric, Mean, Sum, MeanMetricWrapper, Accuracy, BinaryAccuracy, CategoricalAccuracy,
            SparseCategoricalAccuracy, MeanSquaredError, MeanAbsoluteError)


def get(identifier):
    """A metric function or object from a name, a `Metric`, or a function."""
    if isinstance(identifier, str):
        found = _FUNCTIONS.get(identifier) or {c.__name__: c for c in _CLASSES[4:]}.get(identifier)
        if found is not None:
            return found() if isinstance(found, type) else found
    elif callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret metric identifier: {identifier}")


def metric_for_compile(identifier, y_true, y_pred):
    """What `compile(metrics=[...])` makes of one entry; "accuracy" picks its kind from the shapes."""
    if str(identifier).lower() in ("accuracy", "acc"):
        if y_pred.shape[-1] == 1:
            metric = BinaryAccuracy(name=str(identifier))
        elif y_true.shape.rank < y_pred.shape.rank or (y_true.shape[-1] == 1 and y_pred.shape[-1] != 1):
            metric = SparseCategoricalAccuracy(name=str(identifier))
        else:
            metric = CategoricalAccuracy(name=str(identifier))
        return metric
    metric = get(identifier)
    if not isinstance(metric, Metric):
        metric = MeanMetricWrapper(metric)
    if isinstance(identifier, str):
        metric.name = identifier
    return metric


API = {"keras.metrics": [c.__name__ for c in _CLASSES] + list(_FUNCTIONS) + ["get"]}
