"""Diagnostics beyond TensorFlow: where a traced function departs from its eager run (`compare.py`), and
graph views (`dot.py`). Exported in `tf.debugging` (extensions of TensorFlow's namespace)."""
from .compare import EquivalenceReport, OpDifference, compare_eager, compare_with_eager
from .dot import show, to_dot

API = {"debugging": ["compare_eager", "show"], "config.experimental": ["compare_with_eager"]}

__all__ = ["compare_eager", "compare_with_eager", "EquivalenceReport", "OpDifference", "show", "to_dot"]
