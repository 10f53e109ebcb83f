"""AutoGraph's exception classes, with TensorFlow's hierarchy (StagingError → AutoGraphError →
PyCTError; UnsupportedLanguageElementError): an error raised while staging converted code whose type cannot carry TensorFlow's
"in user code:" message is re-raised as a StagingError."""

__all__ = ["PyCTError", "AutoGraphError", "StagingError", "UnsupportedLanguageElementError"]


class PyCTError(Exception):
    """Base of the errors of AutoGraph's source-code tools."""


class AutoGraphError(PyCTError):
    """Base of AutoGraph's errors."""


class StagingError(AutoGraphError):
    """Tracing (staging a function into a graph) failed, e.g. by unbounded recursion or an exception
    whose type cannot be re-created with the "in user code:" message."""


class UnsupportedLanguageElementError(PyCTError, NotImplementedError):
    """A construct AutoGraph does not convert (`for`/`while` with `else`): `to_code` and `to_graph` raise it;
    a tf.function runs such a function unconverted, with a warning."""
