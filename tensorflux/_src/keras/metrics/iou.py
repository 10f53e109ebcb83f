"""Intersection-over-union metrics (`IoU`, `MeanIoU`, `BinaryIoU`, `OneHotIoU`, `OneHotMeanIoU`).

Each keeps a running confusion matrix `total_confusion_matrix[true class, predicted class]` of weighted
counts, in the metric's dtype (int64 by default, as Keras: fractional sample weights are truncated then).
The IoU of a class is `tp / (predicted + actual - tp)`; the result is the mean over the target classes
whose denominator is not zero (a class never seen nor predicted does not count).
"""
import tensorflux as tf

from .base import Metric

__all__ = ["IoU", "MeanIoU", "BinaryIoU", "OneHotIoU", "OneHotMeanIoU"]


class _IoUBase(Metric):
    def __init__(self, num_classes, name=None, dtype=None, ignore_class=None, sparse_y_true=True,
                 sparse_y_pred=True, axis=-1):
        super().__init__(name=name, dtype=dtype or "int64")
        self.num_classes = num_classes
        self.ignore_class = ignore_class
        self.sparse_y_true, self.sparse_y_pred = sparse_y_true, sparse_y_pred
        self.axis = axis
        self.total_cm = self.add_variable(shape=(num_classes, num_classes), name="total_confusion_matrix")

    def _class_ids(self, values, sparse):
        values = tf.convert_to_tensor(values)
        if not sparse:
            values = tf.argmax(values, axis=self.axis)
        return tf.reshape(values, [-1])

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true = self._class_ids(y_true, self.sparse_y_true)
        y_pred = self._class_ids(y_pred, self.sparse_y_pred)
        weights = None if sample_weight is None else tf.reshape(tf.convert_to_tensor(sample_weight), [-1])
        if self.ignore_class is not None:
            keep = tf.not_equal(tf.cast(y_true, tf.int64), self.ignore_class)
            y_true, y_pred = tf.boolean_mask(y_true, keep), tf.boolean_mask(y_pred, keep)
            if weights is not None:
                weights = tf.boolean_mask(weights, keep)
        cells = tf.cast(y_true, tf.int64) * self.num_classes + tf.cast(y_pred, tf.int64)
        counts = tf.math.unsorted_segment_sum(
            tf.ones_like(cells, self.dtype) if weights is None else tf.cast(weights, self.dtype), cells,
            self.num_classes * self.num_classes)
        self.total_cm.assign_add(tf.reshape(counts, (self.num_classes, self.num_classes)))

    def _iou_of(self, target_class_ids):
        matrix = tf.cast(self.total_cm, tf.float32)
        predicted, actual = tf.reduce_sum(matrix, axis=0), tf.reduce_sum(matrix, axis=1)
        true_positives = tf.linalg.diag_part(matrix)
        denominator = predicted + actual - true_positives
        ids = list(target_class_ids)
        true_positives, denominator = tf.gather(true_positives, ids), tf.gather(denominator, ids)
        valid = tf.reduce_sum(tf.cast(tf.not_equal(denominator, 0), tf.float32))
        return tf.math.divide_no_nan(tf.reduce_sum(tf.math.divide_no_nan(true_positives, denominator)), valid)

    def reset_state(self):
        self.total_cm.assign(tf.zeros(self.total_cm.shape, self.total_cm.dtype))


class IoU(_IoUBase):
    """The mean IoU of `target_class_ids`."""

    def __init__(self, num_classes, target_class_ids, name=None, dtype=None, ignore_class=None, sparse_y_true=True,
                 sparse_y_pred=True, axis=-1):
        super().__init__(num_classes, name, dtype, ignore_class, sparse_y_true, sparse_y_pred, axis)
        if max(target_class_ids) >= num_classes:
            raise ValueError(f"Target class id {max(target_class_ids)} is out of range, which is "
                             f"[0, {num_classes}).")
        self.target_class_ids = list(target_class_ids)

    def result(self):
        return self._iou_of(self.target_class_ids)

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype.name, "num_classes": self.num_classes,
                "target_class_ids": self.target_class_ids, "ignore_class": self.ignore_class,
                "sparse_y_true": self.sparse_y_true, "sparse_y_pred": self.sparse_y_pred, "axis": self.axis}


class MeanIoU(_IoUBase):
    """The mean IoU of all the classes."""

    def __init__(self, num_classes, name=None, dtype=None, ignore_class=None, sparse_y_true=True, sparse_y_pred=True,
                 axis=-1):
        super().__init__(num_classes, name, dtype, ignore_class, sparse_y_true, sparse_y_pred, axis)

    def result(self):
        return self._iou_of(range(self.num_classes))

    def get_config(self):
        return {"num_classes": self.num_classes, "name": self.name, "dtype": self.dtype.name,
                "ignore_class": self.ignore_class, "sparse_y_true": self.sparse_y_true,
                "sparse_y_pred": self.sparse_y_pred, "axis": self.axis}


class BinaryIoU(IoU):
    """IoU of binary masks: predictions at or above `threshold` are class 1."""

    def __init__(self, target_class_ids=(0, 1), threshold=0.5, name=None, dtype=None):
        super().__init__(2, target_class_ids, name=name, dtype=dtype)
        self.threshold = threshold

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_pred = tf.convert_to_tensor(y_pred)
        above = tf.cast(y_pred >= tf.cast(self.threshold, y_pred.dtype), tf.int64)
        return super().update_state(tf.cast(y_true, tf.int64), above, sample_weight)

    def get_config(self):
        return {"target_class_ids": self.target_class_ids, "threshold": self.threshold, "name": self.name,
                "dtype": self.dtype.name}


class OneHotIoU(IoU):
    """IoU of one-hot labels (and, unless `sparse_y_pred`, one-hot or probability predictions)."""

    def __init__(self, num_classes, target_class_ids, name=None, dtype=None, ignore_class=None, sparse_y_pred=False,
                 axis=-1):
        super().__init__(num_classes, target_class_ids, name=name, dtype=dtype, ignore_class=ignore_class,
                         sparse_y_true=False, sparse_y_pred=sparse_y_pred, axis=axis)

    def get_config(self):
        return {"num_classes": self.num_classes, "target_class_ids": self.target_class_ids, "name": self.name,
                "dtype": self.dtype.name, "ignore_class": self.ignore_class, "sparse_y_pred": self.sparse_y_pred,
                "axis": self.axis}


class OneHotMeanIoU(MeanIoU):
    """MeanIoU of one-hot labels (and, unless `sparse_y_pred`, one-hot or probability predictions)."""

    def __init__(self, num_classes, name=None, dtype=None, ignore_class=None, sparse_y_pred=False, axis=-1):
        super().__init__(num_classes, name=name, dtype=dtype, ignore_class=ignore_class, sparse_y_true=False,
                         sparse_y_pred=sparse_y_pred, axis=axis)

    def get_config(self):
        return {"num_classes": self.num_classes, "name": self.name, "dtype": self.dtype.name,
                "ignore_class": self.ignore_class, "sparse_y_pred": self.sparse_y_pred, "axis": self.axis}

