"""A graph tensor leaked from a finished tf.function trace (through a global, a list, an attribute) and used
by another function: as in TensorFlow 2.21, tracing captures it like any outside tensor, and calling the
function fails with TensorFlow's TypeError (message recorded from TensorFlow)."""
import pytest

import tensorflux as tf

HEAD = ("<tf.Tensor 'add:0' shape=() dtype=int32> is out of scope and cannot be used here. Use return values, "
        "explicit Python locals or TensorFlow collections to access it.\nPlease see "
        "https://www.tensorflow.org/guide/function#all_outputs_of_a_tffunction_must_be_return_values for more "
        "information.\n\n<tf.Tensor 'add:0' shape=() dtype=int32> was defined here:\n")


def test_a_leaked_tensor_is_captured_when_traced_and_rejected_when_called():
    leaked = []

    @tf.function
    def leaky(a):
        leaked.append(a + 1)
        return a + 2

    assert int(leaky(tf.constant(1))) == 3
    traced = []

    @tf.function
    def uses_leak(b):
        traced.append(b)
        return b + leaked[0]

    concrete = uses_leak.get_concrete_function(tf.TensorSpec([], tf.int32))   # tracing succeeds
    assert len(concrete.captured_inputs) == 1 and concrete.captured_inputs[0] is leaked[0]
    with pytest.raises(TypeError) as info:
        uses_leak(tf.constant(2))
    message = str(info.value)
    assert message.startswith(HEAD)
    assert message.endswith(
        f"\n\nThe tensor <tf.Tensor 'add:0' shape=() dtype=int32> cannot be accessed from here, because it was "
        f"defined in FuncGraph(name=leaky, id={id(leaked[0].op.graph)}), which is out of scope.")
    assert len(traced) == 1          # the call reused the trace; the error is the call's


def test_a_leaked_tensor_used_in_a_branch_is_rejected_when_called():
    leaked = []

    @tf.function
    def leaky(a):
        leaked.append(a + 1)
        return a

    leaky(tf.constant(1))

    @tf.function
    def branch_uses_leak(b):
        if b > 0:
            b = b + leaked[0]
        return b

    branch_uses_leak.get_concrete_function(tf.TensorSpec([], tf.int32))   # the branch captures it too
    with pytest.raises(TypeError, match="is out of scope and cannot be used here"):
        branch_uses_leak(tf.constant(2))
