"""tf.errors: every OpError subclass with its error code, message, str and pickling.

Expected values were read from TensorFlow 2.21.
"""
import pickle

import pytest

import tensorflux as tf

CLASSES = [
    ("CancelledError", 1, "CANCELLED"), ("UnknownError", 2, "UNKNOWN"),
    ("InvalidArgumentError", 3, "INVALID_ARGUMENT"), ("DeadlineExceededError", 4, "DEADLINE_EXCEEDED"),
    ("NotFoundError", 5, "NOT_FOUND"), ("AlreadyExistsError", 6, "ALREADY_EXISTS"),
    ("PermissionDeniedError", 7, "PERMISSION_DENIED"), ("ResourceExhaustedError", 8, "RESOURCE_EXHAUSTED"),
    ("FailedPreconditionError", 9, "FAILED_PRECONDITION"), ("AbortedError", 10, "ABORTED"),
    ("OutOfRangeError", 11, "OUT_OF_RANGE"), ("UnimplementedError", 12, "UNIMPLEMENTED"),
    ("InternalError", 13, "INTERNAL"), ("UnavailableError", 14, "UNAVAILABLE"),
    ("DataLossError", 15, "DATA_LOSS"), ("UnauthenticatedError", 16, "UNAUTHENTICATED"),
]


@pytest.mark.parametrize("name,code,constant", CLASSES)
def test_error_class(name, code, constant):
    cls = getattr(tf.errors, name)
    assert issubclass(cls, tf.errors.OpError) and cls.__mro__[1] is tf.errors.OpError
    assert getattr(tf.errors, constant) == code
    e = cls(None, None, "msg")
    assert e.error_code == code and e.message == "msg" and str(e) == "msg"
    assert e.node_def is None and e.op is None and e.args == () and repr(e) == f"{name}()"
    assert cls("node", None, "msg").node_def == "node"
    assert e.experimental_payloads == {}
    restored = pickle.loads(pickle.dumps(cls(None, None, "boom")))
    assert type(restored) is cls and restored.message == "boom" and restored.error_code == code
    with pytest.raises(TypeError, match="missing 3 required positional arguments: 'node_def', 'op', and 'message'"):
        cls()
    with pytest.raises(cls, match="^bad value$"):
        raise cls(None, None, "bad value")


def test_op_error_base():
    assert tf.errors.OK == 0 and issubclass(tf.errors.OpError, Exception)
    e = tf.errors.OpError(None, None, "m", 3)
    assert e.error_code == 3 and str(e) == "m" and e.op is None and e.node_def is None
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'error_code'"):
        tf.errors.OpError(None, None, "m")


def test_other_exported_errors():
    assert issubclass(tf.errors.OperatorNotAllowedInGraphError, TypeError)


def test_eager_op_failure_raises_invalid_argument_naming_the_op():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[Op:AddV2\]") as info:
        tf.constant([1, 2]) + tf.constant([1, 2, 3])
    assert info.value.error_code == tf.errors.INVALID_ARGUMENT


def test_an_op_without_gradient_raises_a_plain_lookup_error():
    # TensorFlow 2.21 raises LookupError itself (not a subclass) naming the op type.
    x = tf.constant([1.0, 2.0, 1.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y, _ = tf.unique(x)
    with pytest.raises(LookupError) as info:
        tape.gradient(y, x)
    assert type(info.value) is LookupError and "no entry for: Unique" in str(info.value)
