"""`keras.metrics`: stateful running summaries (`update_state`, `result`, `reset_state`) kept in variables,
the metric functions, and `get` / the compile() lookup of metric names.

- base.py: `Metric`, `Mean`, `Sum`, `MeanMetricWrapper`, the accuracies, the error means, the confusion-
  matrix metrics (Precision, Recall, AUC, …) and F-scores;
- probabilistic.py: the crossentropy metrics; iou.py: the IoU metrics; regression.py: R2Score and the
  correlations; operating_point.py: PrecisionAtRecall and the other rates at a target rate.
"""
from .base import (AUC, Accuracy, BinaryAccuracy, CategoricalAccuracy, CategoricalHinge, CosineSimilarity,
                   F1Score, FalseNegatives, FalsePositives, FBetaScore, Hinge, KLDivergence, LogCoshError, Mean,
                   MeanAbsoluteError, MeanAbsolutePercentageError, MeanMetricWrapper, MeanSquaredError,
                   MeanSquaredLogarithmicError, Metric, Poisson, Precision, Recall, RootMeanSquaredError,
                   SparseCategoricalAccuracy, SparseTopKCategoricalAccuracy, SquaredHinge, Sum,
                   TopKCategoricalAccuracy, TrueNegatives, TruePositives, accuracy, binary_accuracy,
                   binary_crossentropy, categorical_accuracy, categorical_crossentropy, mae, mean_absolute_error,
                   mean_squared_error, mse, sparse_categorical_accuracy, sparse_categorical_crossentropy)
# The other metric functions: exported by name (the API table below).
from .base import (binary_focal_crossentropy, categorical_hinge, cosine_similarity, hinge, huber,  # noqa: F401
                   kl_divergence, kld, kullback_leibler_divergence, log_cosh, logcosh, mape,
                   mean_absolute_percentage_error, mean_squared_logarithmic_error, msle, poisson,
                   sparse_top_k_categorical_accuracy, squared_hinge, top_k_categorical_accuracy)
from .base import MSE, MAE, MAPE, MSLE, KLD, categorical_focal_crossentropy  # noqa: F401  (Keras' upper-case aliases)
from .probabilistic import BinaryCrossentropy, CategoricalCrossentropy, SparseCategoricalCrossentropy
from .iou import BinaryIoU, IoU, MeanIoU, OneHotIoU, OneHotMeanIoU
from .operating_point import PrecisionAtRecall, RecallAtPrecision, SensitivityAtSpecificity, SpecificityAtSensitivity
from .regression import (ConcordanceCorrelation, PearsonCorrelation, R2Score, concordance_correlation,
                         pearson_correlation)
from ..naming import to_snake_case

# Names `get` resolves to functions (as before); every other metric name resolves to a class below.
_FUNCTIONS = {"accuracy": accuracy, "binary_accuracy": binary_accuracy,
              "categorical_accuracy": categorical_accuracy,
              "sparse_categorical_accuracy": sparse_categorical_accuracy,
              "mean_squared_error": mean_squared_error, "mse": mse,
              "mean_absolute_error": mean_absolute_error, "mae": mae,
              "binary_crossentropy": binary_crossentropy, "categorical_crossentropy": categorical_crossentropy,
              "sparse_categorical_crossentropy": sparse_categorical_crossentropy,
              "pearson_correlation": pearson_correlation, "concordance_correlation": concordance_correlation}
_CLASSES = (Metric, Mean, Sum, MeanMetricWrapper, Accuracy, BinaryAccuracy, CategoricalAccuracy,
            SparseCategoricalAccuracy, MeanSquaredError, MeanAbsoluteError, MeanAbsolutePercentageError,
            MeanSquaredLogarithmicError, RootMeanSquaredError, CosineSimilarity, LogCoshError, Hinge, SquaredHinge,
            CategoricalHinge, KLDivergence, Poisson, TopKCategoricalAccuracy, SparseTopKCategoricalAccuracy,
            Precision, Recall, AUC, TruePositives, FalsePositives, TrueNegatives, FalseNegatives, F1Score,
            FBetaScore, BinaryCrossentropy, CategoricalCrossentropy, SparseCategoricalCrossentropy, R2Score, PearsonCorrelation, ConcordanceCorrelation, IoU, MeanIoU, BinaryIoU, OneHotIoU,
            OneHotMeanIoU, SensitivityAtSpecificity, SpecificityAtSensitivity, PrecisionAtRecall, RecallAtPrecision)
# Keras 3 accepts a metric class by its name or its snake-case name ("auc", "log_cosh_error"), and a few
# short aliases.
_CLASSES_BY_NAME = {**{c.__name__: c for c in _CLASSES[4:]}, **{to_snake_case(c.__name__): c for c in _CLASSES[4:]},
                    "mape": MeanAbsolutePercentageError, "MAPE": MeanAbsolutePercentageError,
                    "msle": MeanSquaredLogarithmicError, "MSLE": MeanSquaredLogarithmicError}
_EXPORTED_FUNCTIONS = list(_FUNCTIONS) + [
    "mean_absolute_percentage_error", "mape", "mean_squared_logarithmic_error", "msle", "binary_focal_crossentropy",
    "hinge", "squared_hinge", "categorical_hinge", "kl_divergence", "kld", "kullback_leibler_divergence",
    "poisson", "huber", "log_cosh", "logcosh", "top_k_categorical_accuracy", "sparse_top_k_categorical_accuracy"]


def get(identifier):
    """A metric function or object from a name, a `Metric`, or a function."""
    if isinstance(identifier, str):
        found = _FUNCTIONS.get(identifier) or _CLASSES_BY_NAME.get(identifier)
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


# "accuracy" stays a compile() identifier (it picks the accuracy kind from the shapes) but is not an exported
# function in Keras.
API = {"keras.metrics": [c.__name__ for c in _CLASSES] + [n for n in _EXPORTED_FUNCTIONS if n != "accuracy"] + ["get"]
       + ["MSE", "MAE", "MAPE", "MSLE", "KLD", "categorical_focal_crossentropy"]}
