"""`tf.data`: datasets and iterators."""
from .dataset import Dataset, Iterator

AUTOTUNE = -1
INFINITE_CARDINALITY = Dataset.INFINITE
UNKNOWN_CARDINALITY = Dataset.UNKNOWN

API = {"data": ["Dataset", "Iterator", "AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY"],
       "data.experimental": ["AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY"]}
