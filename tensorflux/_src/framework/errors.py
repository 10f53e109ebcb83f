"""TensorFlow's exception classes (`tf.errors`).

`OpError` subclasses carry the failing node and op, like TensorFlow's; eager failures append
TensorFlow's ` [Op:Name]` suffix to the message so users see which op failed.
"""

import sys

import numpy as np

__all__ = [
    "OpError", "CancelledError", "UnknownError", "InvalidArgumentError", "DeadlineExceededError",
    "NotFoundError", "AlreadyExistsError", "PermissionDeniedError", "UnauthenticatedError",
    "ResourceExhaustedError", "FailedPreconditionError", "AbortedError", "OutOfRangeError",
    "UnimplementedError", "InternalError", "UnavailableError", "DataLossError",
    "OperatorNotAllowedInGraphError", "InaccessibleTensorError",
    "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND", "ALREADY_EXISTS",
    "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE",
    "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
]

OK, CANCELLED, UNKNOWN, INVALID_ARGUMENT, DEADLINE_EXCEEDED, NOT_FOUND, ALREADY_EXISTS = range(7)
PERMISSION_DENIED, RESOURCE_EXHAUSTED, FAILED_PRECONDITION, ABORTED, OUT_OF_RANGE = range(7, 12)
UNIMPLEMENTED, INTERNAL, UNAVAILABLE, DATA_LOSS, UNAUTHENTICATED = range(12, 17)


class OpError(Exception):
    """The base class of errors raised while running an op."""

    def __init__(self, node_def, op, message, error_code, *args):
        super().__init__()  # TensorFlow keeps `args` empty; the text is in `message`
        self._node_def = node_def
        self._op = op
        self._message = message
        self._error_code = error_code
        self._experimental_payloads = {}

    @property
    def message(self):
        return self._message

    @property
    def op(self):
        return self._op

    @property
    def node_def(self):
        return self._node_def

    @property
    def error_code(self):
        return self._error_code

    @property
    def experimental_payloads(self):
        return self._experimental_payloads

    def __str__(self):
        return self._message

    def __reduce__(self):
        # By value, not by class reference: the classes carry TensorFlow's module name for tracebacks.
        return _restore_error, (self._error_code, self._node_def, self._op, self._message)


def _make(name, code, doc):
    def __init__(self, node_def, op, message, *args):
        OpError.__init__(self, node_def, op, message, code, *args)
    __init__.__qualname__ = f"{name}.__init__"
    return type(name, (OpError,), {"__init__": __init__, "__doc__": doc})


CancelledError = _make("CancelledError", CANCELLED, "An operation was cancelled.")
UnknownError = _make("UnknownError", UNKNOWN, "An unknown error.")
InvalidArgumentError = _make("InvalidArgumentError", INVALID_ARGUMENT, "An op received an invalid argument.")
DeadlineExceededError = _make("DeadlineExceededError", DEADLINE_EXCEEDED, "A deadline expired.")
NotFoundError = _make("NotFoundError", NOT_FOUND, "A requested entity was not found.")
AlreadyExistsError = _make("AlreadyExistsError", ALREADY_EXISTS, "An entity already exists.")
PermissionDeniedError = _make("PermissionDeniedError", PERMISSION_DENIED, "Permission denied.")
UnauthenticatedError = _make("UnauthenticatedError", UNAUTHENTICATED, "No valid credentials.")
ResourceExhaustedError = _make("ResourceExhaustedError", RESOURCE_EXHAUSTED, "A resource was exhausted.")
FailedPreconditionError = _make("FailedPreconditionError", FAILED_PRECONDITION,
                                "The system is not in a state to run the operation.")
AbortedError = _make("AbortedError", ABORTED, "An operation was aborted.")
OutOfRangeError = _make("OutOfRangeError", OUT_OF_RANGE, "An operation iterated past the valid range.")
UnimplementedError = _make("UnimplementedError", UNIMPLEMENTED, "An operation is not implemented.")
InternalError = _make("InternalError", INTERNAL, "An internal invariant was broken.")
UnavailableError = _make("UnavailableError", UNAVAILABLE, "The runtime is unavailable.")
DataLossError = _make("DataLossError", DATA_LOSS, "Unrecoverable data loss or corruption.")
for _cls in (CancelledError, UnknownError, InvalidArgumentError, DeadlineExceededError, NotFoundError,
             AlreadyExistsError, PermissionDeniedError, UnauthenticatedError, ResourceExhaustedError,
             FailedPreconditionError, AbortedError, OutOfRangeError, UnimplementedError, InternalError,
             UnavailableError, DataLossError):
    _cls.__module__ = "tensorflow.python.framework.errors_impl"


_BY_CODE = {cls(None, None, "").error_code: cls for cls in (
    CancelledError, UnknownError, InvalidArgumentError, DeadlineExceededError, NotFoundError,
    AlreadyExistsError, PermissionDeniedError, UnauthenticatedError, ResourceExhaustedError,
    FailedPreconditionError, AbortedError, OutOfRangeError, UnimplementedError, InternalError,
    UnavailableError, DataLossError)}


def _restore_error(code, node_def, op, message):
    cls = _BY_CODE.get(code)
    return cls(node_def, op, message) if cls is not None else OpError(node_def, op, message, code)


class OperatorNotAllowedInGraphError(TypeError):
    """A Python operation (bool, iteration) was used on a symbolic tensor."""


class InaccessibleTensorError(ValueError):
    """A tensor from another graph was used."""


# -- eager op errors, as TensorFlow 2.21 words them ------------------------------------------------
# TensorFlow runs each eager op as a one-op function, so a kernel's message starts with that function's
# name; ops with a list length attribute carry it in the name (`ConcatV2_N_2`, `Split_num_split_2`).
_DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"
_LENGTH_ATTRS = {  # op -> (attr, how its value is found: from the input count or from the attrs)
    "ConcatV2": ("N", "inputs"), "Concat": ("N", "inputs"), "Pack": ("N", "inputs"), "AddN": ("N", "inputs"),
    "ShapeN": ("N", "inputs"), "Einsum": ("N", "inputs"), "StringJoin": ("N", "inputs"),
    "DynamicStitch": ("N", "pairs"), "ParallelDynamicStitch": ("N", "pairs"),
    "Split": ("num_split", "num_split"), "SplitV": ("num_split", "num_split"), "Unpack": ("num", "num"),
    "Assert": ("T", "data"),   # a list of types: its length (the data tensors after the condition)
}
# The node name TensorFlow's Python wrapper gives an op when the caller passes none (most pass None).
_DEFAULT_NAMES = {"ConcatV2": "concat", "Pack": "stack", "Unpack": "unstack", "Split": "split",
                  "SplitV": "split", "StridedSlice": "strided_slice/", "EditDistance": "edit_distance"}
# Public functions that convert every argument to a tensor before reaching the op: their errors keep
# the ` name: ` ending even when an argument was a Python list.
_PRECONVERTING = frozenset((
    "add", "__add__", "__radd__", "divide", "truediv", "__truediv__", "__rtruediv__", "divide_no_nan",
    "div_no_nan", "matmul", "__matmul__", "__rmatmul__", "range", "__getitem__", "_getitem"))
_LITERALS = (int, float, bool, complex, str, bytes, type(None))
_CO_VARARGS, _CO_VARKEYWORDS = 0x04, 0x08  # code object flags (as in `inspect`, not imported for two constants)


def eager_error(cls, message, op_name, name=None, *, arrays=None, attrs=None, kernel=True):
    """The error an eager op raises, worded as TensorFlow 2.21's.

    A kernel failure (`kernel=True`) starts with `{{function_node __wrapped__<Op>_device_<CPU>}} `; every
    eager failure ends in ` [Op:<Op>]`, then ` name: <node name>` unless TensorFlow's generated wrapper
    took its slow path, which it does when an op input arrived as a Python list or string rather than
    a tensor. `arrays` are the op's input values, used to recognise such an input among the caller's
    arguments. The text is built here, on the error path only.
    """
    text = f"{message} [Op:{op_name}]"
    if kernel:
        text = f"{{{{function_node __wrapped__{op_name}{_length_part(op_name, arrays, attrs)}_device_{_DEVICE}}}}} " \
               f"{text}"
    entry, chain = _entry_frame(sys._getframe(1))
    if not _took_slow_path(entry, chain, arrays):
        text += f" name: {_shown_name(op_name, entry)}"
    return cls(None, op_name, text)


def _length_part(op_name, arrays, attrs):
    entry = _LENGTH_ATTRS.get(op_name)
    if entry is None:
        return ""
    attr, source = entry
    if source == "inputs":
        value = None if arrays is None else len(arrays)
    elif source == "pairs":
        value = None if arrays is None else len(arrays) // 2
    elif source == "data":
        value = None if arrays is None else len(arrays) - 1
    else:
        value = (attrs or {}).get(source)
    return "" if value is None else f"_{attr}_{value}"


def _shown_name(op_name, entry):
    """The caller's `name=` if it gave one, else the default of TensorFlow's wrapper for the op."""
    if entry is not None:
        local = entry.f_locals
        name = local.get("name")
        if name is None and isinstance(local.get("kwargs"), dict):
            name = local["kwargs"].get("name")
        # a wrapper's own default (`name or "MatMul"`, "range") is not a name TensorFlow would show
        if isinstance(name, str) and name.replace("_", "").lower() != op_name.lower():
            return name
    return _DEFAULT_NAMES.get(op_name, "")


def _took_slow_path(entry, chain, arrays):
    """Whether the public call that failed passed an op input as a Python list or string."""
    if entry is None or not chain.isdisjoint(_PRECONVERTING):
        return False
    literals = [v for v in _arguments(entry) if _is_python_data(v)] + _literal_call_arguments(entry.f_back)
    if not literals or arrays is None:
        return bool(literals)
    for value in literals:
        try:
            candidate = np.asarray(value.encode() if isinstance(value, str) else value)
        except (ValueError, TypeError):
            continue
        for array in arrays:
            if np.shape(array) == candidate.shape and np.array_equal(np.asarray(array), candidate):
                return True
    return False


def _entry_frame(frame):
    """The outermost tensorflux frame of the current call (the public function the user called), and
    the names of the tensorflux functions between it and the failure."""
    entry, chain = None, set()
    while frame is not None:
        if frame.f_globals.get("__name__", "").startswith("tensorflux"):
            entry = frame
            chain.add(frame.f_code.co_name)
        elif entry is not None:
            break
        frame = frame.f_back
    return entry, chain


def _literal_call_arguments(caller):
    """The arguments the user's call expression passed as Python data: list, tuple and string literals, and
    names bound to such values. Read from the call's source text (`co_positions`), since a wrapper may have
    rebound its parameters to tensors by the time its op fails; nothing is evaluated."""
    if caller is None:
        return []
    try:
        import ast
        import linecache
        code = caller.f_code
        line, end_line, col, end_col = list(code.co_positions())[caller.f_lasti // 2]
        lines = linecache.getlines(code.co_filename, caller.f_globals)[line - 1:end_line]
        if not lines or None in (col, end_col):
            return []
        lines[-1] = lines[-1][:end_col]
        lines[0] = lines[0][col:]
        node = ast.parse("".join(lines).strip(), mode="eval").body
    except (SyntaxError, ValueError, IndexError, TypeError):
        return []
    if isinstance(node, ast.Call):
        operands = node.args + [k.value for k in node.keywords if k.arg != "name"]
    elif isinstance(node, ast.BinOp):
        operands = [node.left, node.right]
    else:
        return []
    found = []
    for operand in operands:
        if isinstance(operand, ast.Name):
            value = caller.f_locals.get(operand.id, caller.f_globals.get(operand.id))
        else:
            try:
                value = ast.literal_eval(operand)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                continue
        if _is_python_data(value):
            found.append(value)
    return found


def _arguments(frame):
    code = frame.f_code
    count = code.co_argcount + code.co_kwonlyargcount
    names = list(code.co_varnames[:count])
    if code.co_flags & _CO_VARARGS:
        names.append(code.co_varnames[count])
        count += 1
    keywords = code.co_varnames[count] if code.co_flags & _CO_VARKEYWORDS else None
    for arg in names:
        if arg in ("name", "self") or arg not in frame.f_locals:
            continue
        value = frame.f_locals[arg]
        if arg == names[-1] and code.co_flags & _CO_VARARGS and isinstance(value, tuple):
            yield from value
        else:
            yield value
    if keywords is not None:
        yield from (v for k, v in frame.f_locals.get(keywords, {}).items() if k != "name")


def _is_python_data(value):
    if isinstance(value, (str, bytes)):
        return True
    return isinstance(value, (list, tuple)) and _all_literals(value)


def _all_literals(items):
    for item in items:
        if isinstance(item, (list, tuple)):
            if not _all_literals(item):
                return False
        elif not isinstance(item, _LITERALS):
            return False
    return True
