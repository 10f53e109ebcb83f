"""`tf.get_logger`: the "tensorflow" logger, set up as TensorFlow sets it up on import.

TensorFlow gives its logger one handler that writes `LEVEL:tensorflow:message` lines to standard error,
so warnings (and INFO records once a user lowers the level, as AutoGraph's verbose logs need) print in
that form. The handler looks up `sys.stderr` on each record, so redirected or captured streams get them.

    tf.get_logger().setLevel("INFO")
"""
import logging
import sys

__all__ = ["get_logger"]

_NAME = "tensorflow"


class _StandardErrorHandler(logging.StreamHandler):
    """A StreamHandler whose stream is whatever `sys.stderr` is when a record is emitted."""

    def __init__(self):
        super().__init__(sys.stderr)

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, _value):
        pass   # always the current sys.stderr


def get_logger():
    """The "tensorflow" logger, with TensorFlow's standard-error handler installed once."""
    logger = logging.getLogger(_NAME)
    if not any(isinstance(h, _StandardErrorHandler) for h in logger.handlers) and not logger.handlers:
        handler = _StandardErrorHandler()
        handler.setFormatter(logging.Formatter(logging.BASIC_FORMAT, None))
        logger.addHandler(handler)
    return logger


get_logger()   # as on `import tensorflow`: the handler exists from the start

API = {
    "": ["get_logger"],
}
