"""`tf.saved_model`: TensorFlow's SavedModel format, both ways: `save.py` writes `saved_model.pb` (the
object graph, signatures and the functions as FunctionDefs) with a checkpoint of the variables, `load.py`
reads SavedModels written by TensorFlow or tensorflux; `structures.py` is the StructuredValue coding of
argument and output structures, `restored.py` the loaded objects, `options.py`/`assets.py` the small
public classes. Keras' `.keras` archives share `archive_limits.py`."""
from .load import load
from .save import save

__all__ = ["save", "load"]

API = {"saved_model": ["save", "load"]}
