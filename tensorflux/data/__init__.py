"""`tf.data`: datasets and iterators."""
from .dataset import Dataset, Iterator

AUTOTUNE = -1

API = {"data": ["Dataset", "Iterator", "AUTOTUNE"], "data.experimental": ["AUTOTUNE"]}
