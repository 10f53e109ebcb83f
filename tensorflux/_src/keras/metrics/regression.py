"""Goodness-of-fit metrics of regressions: `R2Score` (the coefficient of determination over everything seen),
and the per-sample correlations `pearson_correlation` / `concordance_correlation` with their running means
`PearsonCorrelation` / `ConcordanceCorrelation`.

`R2Score` keeps, per output, the weighted sums of targets, of squared targets and of squared residuals and
the weighted count, so its result is that of all the batches at once (not a mean of per-batch scores).
"""
import tensorflux as tf

from .base import Metric, MeanMetricWrapper

__all__ = ["R2Score", "PearsonCorrelation", "ConcordanceCorrelation", "pearson_correlation",
           "concordance_correlation"]

_AGGREGATIONS = (None, "uniform_average", "variance_weighted_average")


class R2Score(Metric):
    """1 - residual sum of squares / total sum of squares, per output of `(batch, outputs)` inputs, then
    averaged (`class_aggregation`); with `num_regressors` p, the adjusted score, where n counts every value
    seen (samples times outputs, as Keras counts them)."""

    def __init__(self, class_aggregation="uniform_average", num_regressors=0, name="r2_score", dtype=None):
        super().__init__(name=name, dtype=dtype)
        if class_aggregation not in _AGGREGATIONS:
            raise ValueError(f"Invalid value for argument `class_aggregation`. Expected one of {_AGGREGATIONS}. "
                             f"Received: class_aggregation={class_aggregation}")
        if num_regressors < 0:
            raise ValueError(f"Invalid value for argument `num_regressors`. Expected a value >= 0. Received: "
                             f"num_regressors={num_regressors}")
        self.class_aggregation, self.num_regressors = class_aggregation, num_regressors
        self.num_samples = self.add_variable(name="num_samples", dtype="int32")
        self._outputs = None      # the per-output sums, made at the first update (their size is the outputs')

    def _made_for(self, outputs):
        if self._outputs is None:
            self._outputs = {key: self.add_variable(shape=(outputs,), name=key)
                             for key in ("squared_sum", "sum", "residual", "count")}
        return self._outputs

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true = tf.cast(y_true, self.dtype)
        y_pred = tf.cast(y_pred, self.dtype)
        if y_true.shape.rank != 2 or y_pred.shape.rank != 2:
            raise ValueError(f"R2Score expects 2D inputs with shape (batch_size, output_dim). Received input "
                             f"shapes: y_pred.shape={tuple(y_pred.shape.as_list())} and "
                             f"y_true.shape={tuple(y_true.shape.as_list())}.")
        sums = self._made_for(y_true.shape[-1])
        weight = tf.ones_like(y_true) if sample_weight is None else \
            tf.broadcast_to(tf.reshape(tf.cast(sample_weight, self.dtype), [-1, 1]), tf.shape(y_true))
        weighted = y_true * weight
        sums["sum"].assign_add(tf.reduce_sum(weighted, axis=0))
        sums["squared_sum"].assign_add(tf.reduce_sum(y_true * weighted, axis=0))
        sums["residual"].assign_add(tf.reduce_sum(tf.square(y_true - y_pred) * weight, axis=0))
        sums["count"].assign_add(tf.reduce_sum(weight, axis=0))
        self.num_samples.assign_add(tf.size(y_true))

    def result(self):
        if self._outputs is None:
            return tf.constant(0.0, self.dtype)
        sums = self._outputs
        mean = sums["sum"] / sums["count"]
        total = sums["squared_sum"] - sums["sum"] * mean
        scores = 1.0 - sums["residual"] / total
        scores = tf.where(tf.math.is_inf(scores), tf.zeros_like(scores), scores)    # a constant target
        if self.class_aggregation == "uniform_average":
            score = tf.reduce_mean(scores)
        elif self.class_aggregation == "variance_weighted_average":
            score = tf.reduce_sum(scores * total) / tf.reduce_sum(total)
        else:
            score = scores
        if self.num_regressors:
            n = tf.cast(self.num_samples, self.dtype)
            p = float(self.num_regressors)
            # The adjustment needs more samples than regressors + 1; otherwise the plain score stands.
            adjusted = 1.0 - (1.0 - score) * (n - 1.0) / (n - p - 1.0)
            score = tf.where(n > p + 1.0, adjusted, score)
        return score

    def get_config(self):
        return {**super().get_config(), "class_aggregation": self.class_aggregation,
                "num_regressors": self.num_regressors}


def _centered(y_true, y_pred, axis):
    y_pred = tf.convert_to_tensor(y_pred)
    y_true = tf.cast(y_true, y_pred.dtype)
    return (y_true - tf.reduce_mean(y_true, axis=axis, keepdims=True),
            y_pred - tf.reduce_mean(y_pred, axis=axis, keepdims=True))


def pearson_correlation(y_true, y_pred, axis=-1):
    """The Pearson correlation of `y_true` and `y_pred` along `axis` (one value per sample)."""
    t, p = _centered(y_true, y_pred, axis)
    covariance = tf.reduce_sum(t * p, axis=axis)
    spread = tf.sqrt(tf.reduce_sum(tf.square(t), axis=axis) * tf.reduce_sum(tf.square(p), axis=axis))
    return covariance / spread


def concordance_correlation(y_true, y_pred, axis=-1):
    """Lin's concordance correlation along `axis`: `2 cov / (var_t + var_p + (mean_t - mean_p)^2)`, 1 only
    when the predictions equal the targets (not merely correlate)."""
    y_pred = tf.convert_to_tensor(y_pred)
    y_true = tf.cast(y_true, y_pred.dtype)
    mean_t = tf.reduce_mean(y_true, axis=axis)
    mean_p = tf.reduce_mean(y_pred, axis=axis)
    t, p = _centered(y_true, y_pred, axis)
    covariance = tf.reduce_mean(t * p, axis=axis)
    spread = tf.reduce_mean(tf.square(t), axis=axis) + tf.reduce_mean(tf.square(p), axis=axis) + \
        tf.square(mean_t - mean_p)
    return 2.0 * covariance / spread


class PearsonCorrelation(MeanMetricWrapper):
    def __init__(self, name="pearson_correlation", dtype=None, axis=-1):
        super().__init__(pearson_correlation, name=name, dtype=dtype, axis=axis)
        self.axis = axis

    def get_config(self):
        return {**super().get_config(), "axis": self.axis}


class ConcordanceCorrelation(MeanMetricWrapper):
    def __init__(self, name="concordance_correlation", dtype=None, axis=-1):
        super().__init__(concordance_correlation, name=name, dtype=dtype, axis=axis)
        self.axis = axis

    def get_config(self):
        return {**super().get_config(), "axis": self.axis}

