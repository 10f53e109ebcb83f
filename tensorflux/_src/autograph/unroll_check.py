"""TensorFlow's check on Python loops that unroll into a graph: "Large unrolled loop detected".

A Python `for`/`while` inside a function being traced runs at trace time and adds its ops to the graph
once per iteration. After 50,000 iterations AutoGraph watches a few more (at most three); if one of them
still creates ops, it logs TensorFlow's warning once, naming the iteration and the new ops, with the
stack of the loop. Loops that create no ops (pure Python counting) are never reported. Eagerly nothing
is checked: ops run immediately and build no graph.
"""
import logging
import traceback

from ..framework.context import state as _state

__all__ = ["PythonLoopChecker"]

_MIN_ITERATIONS = 50000      # TensorFlow's INEFFICIENT_UNROLL_MIN_ITERATIONS
_CHECKED_ITERATIONS = 3      # how many iterations past the threshold are watched
_LOGGER = logging.getLogger("tensorflow")


class PythonLoopChecker:
    """Counts the iterations of one Python loop and warns once when it keeps adding ops to the graph."""

    __slots__ = ("iterations", "_graph", "_ops_before", "_checking")

    def __init__(self):
        self.iterations = 1
        graph = _state.graph
        self._graph = graph if isinstance(getattr(graph, "_ops", None), list) else None
        self._checking = self._graph is not None
        self._ops_before = None

    def before_iteration(self):
        if self._checking and self.iterations > _MIN_ITERATIONS:
            self._ops_before = len(self._graph._ops)

    def after_iteration(self):
        self.iterations += 1
        if self._ops_before is None:
            return
        new_ops = tuple(self._graph._ops[self._ops_before:])
        self._ops_before = None
        if new_ops:
            _LOGGER.warning(
                "Large unrolled loop detected. Did you mean to use a TF loop? The following ops were created "
                "after iteration %s: %s\nSee https://github.com/tensorflow/tensorflow/blob/master/tensorflow/"
                "python/autograph/g3doc/reference/common_errors.md#warning-large-unrolled-loop-detected\n"
                "Location:\n%s", self.iterations, new_ops, "\n".join(traceback.format_stack()))
            self._checking = False
        elif self.iterations > _MIN_ITERATIONS + _CHECKED_ITERATIONS:
            self._checking = False
