"""`tf.saved_model`: saving an object's tf.functions and variables, and loading them back without the
Python program that defined them (`save.py`, `load.py`; the serial form of graphs is `graph_format.py`)."""
from .load import load
from .save import save

__all__ = ["save", "load"]

API = {"saved_model": ["save", "load"]}
