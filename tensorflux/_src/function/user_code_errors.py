"""TensorFlow's "in user code:" form of an exception raised while tracing converted code.

When staging a tf.function fails inside AutoGraph-converted code, TensorFlow re-raises the error with a
message that lists the user's frames (library frames left out) and then the original error:

    in user code:

        File "model.py", line 12, in step  *
            loss = compute(x)
        File "model.py", line 30, in __init__  **
            if x < 0:

        TypeError: original message

A frame of converted code is marked `*` (its generated helper functions count as the user's function,
only the innermost line is shown); a user frame AutoGraph called without converting it is marked `**`.
The new exception has the original's type when that type can be built from a message alone (builtins
such as TypeError, exceptions with Exception's constructor, TensorFlow's op errors); otherwise it is a
StagingError. Errors from code that was not converted pass unchanged, as in TensorFlow.
"""
import linecache
import os

from ..autograph import api as _autograph_api
from ..autograph.errors import AutoGraphError, PyCTError, StagingError
from ..framework import errors as _errors

__all__ = ["in_user_code", "undefined_output_error"]

_SRC_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_CONVERTED_CALL_FILE = os.path.abspath(_autograph_api.__file__)
_STRING_CONSTRUCTED = (AssertionError, AttributeError, NameError, NotImplementedError, RuntimeError, StopIteration,
                       TypeError, UnboundLocalError, ValueError, PyCTError, AutoGraphError, StagingError,
                       _errors.OperatorNotAllowedInGraphError, _errors.InaccessibleTensorError)


class _MultilineMessageKeyError(KeyError):
    """A KeyError whose text is the full message (KeyError's own str() quotes its argument)."""

    def __init__(self, message, original_key):
        super().__init__(original_key)
        self._message = message

    def __str__(self):
        return self._message


_MultilineMessageKeyError.__name__ = "KeyError"


def _user_frames(tb):
    """[(file, line, function name, mark)] of the traceback's user frames, outermost first; None when no
    frame is converted code."""
    raw = []
    while tb is not None:
        raw.append((tb.tb_frame.f_code, tb.tb_lineno))
        tb = tb.tb_next
    entries, converted_seen = [], False
    for i, (code, line) in enumerate(raw):
        origin = _autograph_api.converted_origin(code)
        if origin is not None:
            converted_seen = True
            name, root = origin
            # generated code run from a temporary file (a function calling a debugger): the user's lines
            filename, shown = _autograph_api.original_location(code, line) or (code.co_filename, line)
            entry = (filename, shown, name, "  *", root)
            if code is not root and entries and entries[-1][4] is root:
                entries[-1] = entry   # a generated helper of the same call: keep the innermost line
            else:
                entries.append(entry)
            continue
        if os.path.abspath(code.co_filename).startswith(_SRC_DIR):
            continue
        called_by_autograph = i > 0 and os.path.abspath(raw[i - 1][0].co_filename) == _CONVERTED_CALL_FILE
        entries.append((code.co_filename, line, code.co_name, "  **" if called_by_autograph else "", None))
    return entries if converted_seen else None


def _message(entries, error):
    lines = ["in user code:", ""]
    for filename, line, name, mark, _ in entries:
        lines.append(f'    File "{filename}", line {line}, in {name}{mark}')
        text = linecache.getline(filename, line).strip()
        lines.append(f"        {text or '<source unavailable>'}")
    lines.append("")
    lines.extend("    " + part for part in f"{type(error).__name__}: {error}".split("\n"))
    lines.append("")
    return "\n".join(lines)


def in_user_code(error):
    """The exception to raise instead of `error` (TensorFlow's "in user code:" form), or None to raise
    `error` unchanged."""
    if getattr(error, "ag_pass_through", False):
        return None
    entries = _user_frames(error.__traceback__)
    if entries is None:
        return None
    message = _message(entries, error)
    kind = type(error)
    if issubclass(kind, _errors.OpError) and kind is not _errors.OpError:
        new = kind(error.node_def, error.op, message)
    elif kind in _STRING_CONSTRUCTED or kind.__init__ is Exception.__init__:
        new = kind(message)
    elif kind is KeyError:
        new = _MultilineMessageKeyError(message, f"{kind.__name__}: {error}")
    else:
        new = StagingError(message)
    new.__suppress_context__ = True
    return new.with_traceback(error.__traceback__)


def undefined_output_error(undefined):
    """The error for a traced function returning a name a tensor `if` left undefined in one branch: as in
    TensorFlow, framed "in user code" at that `if` statement."""
    error = ValueError(undefined.reason or f"'{undefined.symbol_name}' must be defined before it is returned")
    if undefined.site is None:
        return error
    code, line = undefined.site
    origin = _autograph_api.converted_origin(code)
    name = origin[0] if origin is not None else code.co_name
    filename, line = _autograph_api.original_location(code, line) or (code.co_filename, line)
    return ValueError(_message([(filename, line, name, "  *", None)], error))
