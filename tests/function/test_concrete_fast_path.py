"""Direct ConcreteFunction calls: the remembered-argument fast path gives the same results and the same
errors as the binding path it skips."""
import numpy as np
import pytest

import tensorflux as tf


def _square():
    return tf.function(lambda x: x * x).get_concrete_function(tf.TensorSpec([None], tf.float32))


def test_repeated_calls_and_other_shapes():
    cf = _square()
    for n in (3, 3, 5, 5):
        x = tf.constant(np.arange(n, dtype=np.float32))
        np.testing.assert_array_equal(cf(x).numpy(), np.arange(n, dtype=np.float32) ** 2)
    assert len(cf._accepted) == 2


def test_wrong_dtype_still_raises_after_a_good_call():
    cf = _square()
    cf(tf.constant([1.0, 2.0]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="expected to be a float tensor but is a int32"):
        cf(tf.constant([1, 2]))
    with pytest.raises(TypeError, match="Can not cast"):
        cf(tf.constant([[1.0]]))


def test_keyword_and_literal_calls_take_the_binding_path():
    f = tf.function(lambda x, k=2.0: x * k)
    cf = f.get_concrete_function(tf.TensorSpec([], tf.float32))
    assert float(cf(tf.constant(3.0))) == 6.0
    assert float(cf(x=tf.constant(4.0))) == 8.0
    assert float(cf(tf.constant(5.0))) == 10.0
    assert len(cf._accepted) == 1


def test_gradient_tape_records_the_call_after_the_fast_path():
    cf = _square()
    x = tf.constant([3.0])
    cf(x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = cf(x)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [6.0])


def test_variable_argument_is_never_remembered():
    v = tf.Variable([1.0, 2.0])
    cf = tf.function(lambda v: v * 2.0).get_concrete_function(v)
    np.testing.assert_array_equal(cf(v).numpy(), [2.0, 4.0])
    np.testing.assert_array_equal(cf(v).numpy(), [2.0, 4.0])
    assert not cf._accepted
