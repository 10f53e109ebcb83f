"""Element types, shapes and tensor specs: the vocabulary every other room speaks."""
from . import dtypes
from .dtypes import DType, as_dtype
from .shape import TensorShape, Dimension, as_shape, dimension_value
from .spec import TensorSpec
