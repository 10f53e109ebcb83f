"""Dataset.filter traces its predicate once with symbolic arguments, as TensorFlow 2.21 does (outputs and
messages recorded from it): Python side effects run once, and a predicate that does not return a scalar
tf.bool is refused when the dataset is made."""
import pytest

import tensorflux as tf


def test_predicate_traced_once():
    calls = []

    def predicate(x):
        calls.append(x)
        return x % 2 == 0

    kept = list(tf.data.Dataset.range(6).filter(predicate).as_numpy_iterator())
    assert kept == [0, 2, 4]
    assert len(calls) == 1 and not hasattr(calls[0], "numpy")     # one trace, a symbolic tensor


def test_tuple_and_dict_elements():
    pairs = tf.data.Dataset.from_tensor_slices(([1, 2, 3], ["a", "b", "c"]))
    assert list(pairs.filter(lambda a, b: a > 1).as_numpy_iterator()) == [(2, b"b"), (3, b"c")]
    dicts = tf.data.Dataset.from_tensor_slices({"a": [1, 2, 3]})
    assert list(dicts.filter(lambda d: d["a"] > 1).as_numpy_iterator()) == [{"a": 2}, {"a": 3}]
    assert list(tf.data.Dataset.range(3).filter(lambda x: True).as_numpy_iterator()) == [0, 1, 2]


@pytest.mark.parametrize("predicate, spec", [
    (lambda x: x, "TensorSpec(shape=(), dtype=tf.int64, name=None)"),
    (lambda x: tf.reshape(x > 1, [1]), "TensorSpec(shape=(1,), dtype=tf.bool, name=None)"),
])
def test_predicate_must_return_a_bool_scalar(predicate, spec):
    with pytest.raises(ValueError) as info:
        tf.data.Dataset.range(6).filter(predicate)
    assert str(info.value) == ("Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor, but its "
                               f"return type is {spec}.")


def test_window_elements_still_filtered():
    windows = tf.data.Dataset.range(7).window(3).filter(lambda w: True)
    assert list(windows.flat_map(lambda w: w).as_numpy_iterator()) == list(range(7))
