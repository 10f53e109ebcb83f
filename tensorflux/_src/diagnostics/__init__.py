"""Diagnostics beyond TensorFlow: where a traced function departs from its eager run (`compare.py`, loaded on
first use), and graph views (`dot.py`, which gives FuncGraph its `to_dot`). Exported in `tf.debugging`
(extensions of TensorFlow's namespace)."""
from .dot import show, to_dot

API = {"debugging": ["show"]}

__all__ = ["show", "to_dot"]
