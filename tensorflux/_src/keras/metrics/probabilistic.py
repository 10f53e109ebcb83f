"""The crossentropy metrics (`BinaryCrossentropy`, `CategoricalCrossentropy`, `SparseCategoricalCrossentropy`):
running means of the loss functions of the same names, with Keras 3's arguments and configs; and the loss
functions keras.metrics also exports under short names (`MSE`, `MAE`, `MAPE`, `MSLE`, `KLD`) and
`categorical_focal_crossentropy`."""
from .. import losses as _losses
from .base import MeanMetricWrapper

__all__ = ["BinaryCrossentropy", "CategoricalCrossentropy", "SparseCategoricalCrossentropy"]


class BinaryCrossentropy(MeanMetricWrapper):
    def __init__(self, name="binary_crossentropy", dtype=None, from_logits=False, label_smoothing=0):
        super().__init__(_losses.binary_crossentropy, name=name, dtype=dtype, from_logits=from_logits,
                         label_smoothing=label_smoothing)
        self.from_logits, self.label_smoothing = from_logits, label_smoothing

    def get_config(self):
        return {**super().get_config(), "from_logits": self.from_logits, "label_smoothing": self.label_smoothing}


class CategoricalCrossentropy(MeanMetricWrapper):
    def __init__(self, name="categorical_crossentropy", dtype=None, from_logits=False, label_smoothing=0, axis=-1):
        super().__init__(_losses.categorical_crossentropy, name=name, dtype=dtype, from_logits=from_logits,
                         label_smoothing=label_smoothing, axis=axis)
        self.from_logits, self.label_smoothing, self.axis = from_logits, label_smoothing, axis

    def get_config(self):
        return {**super().get_config(), "from_logits": self.from_logits, "label_smoothing": self.label_smoothing,
                "axis": self.axis}


class SparseCategoricalCrossentropy(MeanMetricWrapper):
    def __init__(self, name="sparse_categorical_crossentropy", dtype=None, from_logits=False, ignore_class=None,
                 axis=-1):
        super().__init__(_losses.sparse_categorical_crossentropy, name=name, dtype=dtype, from_logits=from_logits,
                         ignore_class=ignore_class, axis=axis)
        self.from_logits, self.ignore_class, self.axis = from_logits, ignore_class, axis

    def get_config(self):
        return {**super().get_config(), "from_logits": self.from_logits, "ignore_class": self.ignore_class,
                "axis": self.axis}

