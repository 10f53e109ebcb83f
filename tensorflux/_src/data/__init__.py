"""`tf.data`: datasets and iterators."""
from . import methods  # noqa: F401  (attaches the transformations to Dataset)
from .dataset import Dataset, Iterator
from .readers import TextLineDataset
from .transforms import AUTOTUNE, get_single_element

INFINITE_CARDINALITY = Dataset.INFINITE
UNKNOWN_CARDINALITY = Dataset.UNKNOWN

API = {"data": ["Dataset", "Iterator", "TextLineDataset", "AUTOTUNE", "INFINITE_CARDINALITY",
                "UNKNOWN_CARDINALITY"],
       "data.experimental": ["AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "get_single_element"]}

# Modules that add methods to Dataset: imported with the package, so that Dataset is complete however the
# room is first reached (the room loads on first use: namespaces.LAZY_ROOMS).
from . import composite_batching, experimental_ops, grouping, options  # noqa: E402,F401
