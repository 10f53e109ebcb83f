"""Metrics at an operating point: the best value of one rate among the thresholds where another rate reaches
a target (`SensitivityAtSpecificity`, `SpecificityAtSensitivity`, `PrecisionAtRecall`, `RecallAtPrecision`).

They keep true/false positives/negatives at `num_thresholds` evenly spaced thresholds in [0, 1] (0.5 alone
for one), counted as Keras counts evenly spaced thresholds (base.update_confusion_matrix); the result is the
largest value of the dependent rate over the thresholds whose constrained rate is at least the target, 0 when
none is.
"""
import numpy as np

import tensorflux as tf

from .base import Metric, update_confusion_matrix

__all__ = ["SensitivityAtSpecificity", "SpecificityAtSensitivity", "PrecisionAtRecall", "RecallAtPrecision"]


def _rates(tp, fp, tn, fn):
    return {"sensitivity": tf.math.divide_no_nan(tp, tp + fn), "specificity": tf.math.divide_no_nan(tn, tn + fp),
            "precision": tf.math.divide_no_nan(tp, tp + fp)}


class _AtOperatingPoint(Metric):
    _CONSTRAINED = _DEPENDENT = _ARGUMENT = None     # rate names, and the target's argument name

    def __init__(self, value, num_thresholds=200, class_id=None, name=None, dtype=None):
        if value < 0 or value > 1:
            raise ValueError(f"Argument `{self._ARGUMENT}` must be in the range [0, 1]. Received: "
                             f"{self._ARGUMENT}={value}")
        if not isinstance(num_thresholds, int) or num_thresholds <= 0:
            raise ValueError(f"Argument `num_thresholds` must be an integer > 0. Received: "
                             f"num_thresholds={num_thresholds}")
        super().__init__(name=name, dtype=dtype)
        self.value, self.num_thresholds, self.class_id = value, num_thresholds, class_id
        self.thresholds = [0.5] if num_thresholds == 1 else \
            (np.arange(num_thresholds) / (num_thresholds - 1)).tolist()
        self.true_positives, self.false_positives, self.true_negatives, self.false_negatives = (
            self.add_variable(shape=(num_thresholds,), name=kind)
            for kind in ("true_positives", "false_positives", "true_negatives", "false_negatives"))

    def update_state(self, y_true, y_pred, sample_weight=None):
        update_confusion_matrix({"tp": self.true_positives, "fp": self.false_positives, "tn": self.true_negatives,
                                 "fn": self.false_negatives}, y_true, y_pred, self.thresholds,
                                evenly_distributed=self.num_thresholds > 1, sample_weight=sample_weight,
                                class_id=self.class_id)

    def result(self):
        rates = _rates(self.true_positives, self.false_positives, self.true_negatives, self.false_negatives)
        feasible = rates[self._CONSTRAINED] >= self.value
        best = tf.reduce_max(tf.where(feasible, rates[self._DEPENDENT], tf.zeros_like(rates[self._DEPENDENT])))
        return tf.where(tf.reduce_any(feasible), best, tf.zeros_like(best))

    def get_config(self):
        return {**super().get_config(), "class_id": self.class_id, "num_thresholds": self.num_thresholds,
                self._ARGUMENT: self.value}


class SensitivityAtSpecificity(_AtOperatingPoint):
    _CONSTRAINED, _DEPENDENT, _ARGUMENT = "specificity", "sensitivity", "specificity"

    def __init__(self, specificity, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(specificity, num_thresholds, class_id, name, dtype)


class SpecificityAtSensitivity(_AtOperatingPoint):
    _CONSTRAINED, _DEPENDENT, _ARGUMENT = "sensitivity", "specificity", "sensitivity"

    def __init__(self, sensitivity, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(sensitivity, num_thresholds, class_id, name, dtype)


class PrecisionAtRecall(_AtOperatingPoint):
    _CONSTRAINED, _DEPENDENT, _ARGUMENT = "sensitivity", "precision", "recall"

    def __init__(self, recall, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(recall, num_thresholds, class_id, name, dtype)


class RecallAtPrecision(_AtOperatingPoint):
    _CONSTRAINED, _DEPENDENT, _ARGUMENT = "precision", "sensitivity", "precision"

    def __init__(self, precision, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(precision, num_thresholds, class_id, name, dtype)
