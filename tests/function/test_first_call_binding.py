"""A concrete function's first call with eager tensors passed positionally binds them without inspect
(`ConcreteFunction._binds_as_traced`); anything else binds as before, with the same errors."""
import pytest

import tensorflux as tf


def binding(*args):
    """`_binds_as_traced`'s arguments for a call with `args`, as `__call__` makes them."""
    return args, tuple((a.numpy().dtype, a.numpy().shape) for a in args)


def concrete(fn, *args):
    return tf.function(fn).get_concrete_function(*args)


def test_positional_tensors_of_the_traced_specs_run_and_are_remembered():
    cf = concrete(lambda x, n: x * tf.cast(n, tf.float32), tf.TensorSpec([None], tf.float32),
                  tf.TensorSpec([], tf.int32))
    assert cf._binds_as_traced(*binding(tf.constant([1.0, 2.0]), tf.constant(3)))
    assert cf(tf.constant([1.0, 2.0]), tf.constant(3)).numpy().tolist() == [3.0, 6.0]
    assert len(cf._accepted) == 1
    assert cf(tf.constant([1.0]), tf.constant(2)).numpy().tolist() == [2.0]     # another shape: checked once
    assert len(cf._accepted) == 2


def test_a_wrong_dtype_or_shape_on_the_first_call_raises_as_before():
    cf = concrete(lambda x: x + 1.0, tf.TensorSpec([2], tf.float32))
    assert not cf._binds_as_traced(*binding(tf.constant([1, 2]),))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"input #0\(zero-based\) was expected to be a float"):
        cf(tf.constant([1, 2]))
    cf = concrete(lambda x: x + 1.0, tf.TensorSpec([2], tf.float32))
    assert not cf._binds_as_traced(*binding(tf.constant([1.0, 2.0, 3.0]),))
    with pytest.raises(TypeError, match="Can not cast"):
        cf(tf.constant([1.0, 2.0, 3.0]))
    assert not cf._accepted


def test_other_calls_bind_through_the_signature():
    cf = concrete(lambda x, scale=2.0: x * scale, tf.TensorSpec([], tf.float32))
    assert not cf._binds_as_traced(*binding(tf.constant(1.0), tf.constant(3.0)))     # one tensor parameter only
    assert float(cf(tf.constant(1.5))) == 3.0
    assert float(cf(x=tf.constant(2.5))) == 5.0
    with pytest.raises(TypeError):
        cf(tf.constant(1.0), tf.constant(3.0))

    def star(*xs):
        return xs[0] + xs[1]
    cf = concrete(star, tf.constant(1.0), tf.constant(2.0))
    assert not cf._binds_as_traced(*binding(tf.constant(1.0), tf.constant(2.0)))     # *args: bound by the signature
    assert float(cf(tf.constant(1.0), tf.constant(4.0))) == 5.0
