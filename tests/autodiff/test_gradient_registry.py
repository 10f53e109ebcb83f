"""tf.RegisterGradient and tf.no_gradient: a registered gradient is used by GradientTape, a second
registration and a non-string op type are refused with TensorFlow 2.21's exception classes and texts."""
import numpy as np
import pytest

import tensorflux as tf
from tensorflux._src.ops.registry import OPS, OpDef, apply
from tensorflux._src.autodiff import gradient_registry


def _square_op(name):
    """A test op type defined without a gradient (as a program's own op would be)."""
    return OpDef(name, lambda inputs, attrs: [(inputs[0].dtype, inputs[0].shape)], lambda x: x * x,
                 input_names=("x",))


def _tape_gradient(op):
    x = tf.constant([3.0, -2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = apply(op, (x,), None, op.name) * 2.0
    return tape.gradient(y, x)


@pytest.fixture
def fresh_op(request):
    name = f"H4Square{request.node.name.replace('_', '')}"
    op = _square_op(name)
    yield op
    dict.pop(OPS, name, None)


def test_unregistered_op_raises_tensorflows_lookup_error(fresh_op):
    with pytest.raises(LookupError, match=f"^gradient registry has no entry for: {fresh_op.name}$"):
        _tape_gradient(fresh_op)


def test_registered_gradient_is_used(fresh_op):
    @tf.RegisterGradient(fresh_op.name)
    def _square_grad(op, grad):
        assert op.type == fresh_op.name and len(op.outputs) == 1
        return grad * 2.0 * op.inputs[0]
    assert _square_grad.__name__ == "_square_grad"      # the decorator returns the function, as TF's does
    np.testing.assert_array_equal(_tape_gradient(fresh_op).numpy(), [12.0, -8.0])


def test_no_gradient_makes_inputs_unconnected(fresh_op):
    tf.no_gradient(fresh_op.name)
    assert _tape_gradient(fresh_op) is None


def test_second_registration_and_bad_types_are_refused(fresh_op):
    tf.no_gradient(fresh_op.name)
    with pytest.raises(KeyError, match=f"Registering two gradient with name '{fresh_op.name}'! \\(Previous "
                                       f"registration was in _no_gradient .*gradient_registry.py:\\d+\\)"):
        tf.RegisterGradient(fresh_op.name)(lambda op, grad: grad)
    with pytest.raises(KeyError, match="^\"Registering two gradient with name 'Relu'!"):
        tf.no_gradient("Relu")
    with pytest.raises(TypeError, match="^op_type must be a string$"):
        tf.RegisterGradient(3)
    with pytest.raises(TypeError, match="^op_type must be a string$"):
        tf.no_gradient(3)


def test_gradient_for_an_op_type_not_defined_is_kept():
    name = "H4NotAnOpType"
    try:
        tf.no_gradient(name)
        with pytest.raises(KeyError, match=f"Registering two gradient with name '{name}'"):
            tf.no_gradient(name)
    finally:
        gradient_registry._UNDEFINED_OP_GRADIENTS.pop(name, None)
