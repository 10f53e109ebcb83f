"""TensorFlow's exception classes (`tf.errors`).

`OpError` subclasses carry the failing node and op, like TensorFlow's; eager failures append
TensorFlow's ` [Op:Name]` suffix to the message so users see which op failed.
"""

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


def eager_error(cls, message, op_name):
    """The error an eager op raises: message plus TensorFlow's ` [Op:Name] name: ` suffix."""
    return cls(None, op_name, f"{message} [Op:{op_name}] name: ")
