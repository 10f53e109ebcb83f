"""tf.train.Checkpoint accepts lists, tuples and dicts as TensorFlow 2.21 does (it wraps them as trackable
containers): the keys below are what TensorFlow's `tf.train.list_variables` showed for the same objects."""
import pytest

import tensorflux as tf


@pytest.mark.parametrize("make, keys", [
    (lambda: [tf.Variable(1.0), tf.Variable(2.0)], ["v/0/.ATTRIBUTES/VARIABLE_VALUE", "v/1/.ATTRIBUTES/VARIABLE_VALUE"]),
    (lambda: {"a": tf.Variable(3.0)}, ["v/a/.ATTRIBUTES/VARIABLE_VALUE"]),
    (lambda: (tf.Variable(4.0),), ["v/0/.ATTRIBUTES/VARIABLE_VALUE"]),
    (lambda: [{"x": tf.Variable(6.0)}], ["v/0/x/.ATTRIBUTES/VARIABLE_VALUE"]),
    (lambda: [1, 2], []), (lambda: [], [])])
def test_containers_are_saved_and_restored(tmp_path, make, keys):
    value = make()
    path = tf.train.Checkpoint(v=value).write(str(tmp_path / "ckpt"))
    assert sorted(n for n, _ in tf.train.list_variables(path)) == ["_CHECKPOINTABLE_OBJECT_GRAPH"] + keys
    fresh = make()
    variables = tf.nest.flatten(fresh)
    for v in variables:
        if isinstance(v, tf.Variable):
            v.assign(0.0)
    tf.train.Checkpoint(v=fresh).read(path).assert_consumed()
    assert [float(v.numpy()) for v in variables if isinstance(v, tf.Variable)] == \
        [float(v.numpy()) for v in tf.nest.flatten(value) if isinstance(v, tf.Variable)]


def test_a_plain_value_is_still_refused():
    with pytest.raises(ValueError, match="`Checkpoint` was expecting v to be a trackable object"):
        tf.train.Checkpoint(v=5)
