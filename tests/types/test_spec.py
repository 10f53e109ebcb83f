"""tf.TensorSpec: construction, from_tensor, compatibility, subtyping, supertypes, equality and text.

Expected values were read from TensorFlow 2.21.
"""
import copy
import pickle

import numpy as np
import pytest

import tensorflux as tf

Spec = tf.TensorSpec


def test_construction_and_properties():
    s = Spec([None], tf.int32)
    assert s.shape == tf.TensorShape([None]) and s.dtype is tf.int32 and s.name is None
    assert Spec([2, 3]).dtype is tf.float32
    assert Spec([2], "float64").dtype is tf.float64 and Spec([2], np.int64).dtype is tf.int64
    assert Spec([2], float).dtype is tf.float32 and Spec(None, tf.int32).shape.rank is None
    assert Spec(tf.TensorShape([1]), tf.int32).shape == [1] and Spec((), tf.int32).shape == []
    assert Spec(3, tf.int32).shape == [3] and Spec([2], tf.resource).dtype is tf.resource
    assert Spec([2], tf.int32, "x").name == "x" and Spec([2], tf.int32, name=b"x").name == b"x"


@pytest.mark.parametrize("spec,text", [
    (Spec([None], tf.int32), "TensorSpec(shape=(None,), dtype=tf.int32, name=None)"),
    (Spec(None, tf.int32), "TensorSpec(shape=<unknown>, dtype=tf.int32, name=None)"),
    (Spec([], tf.string, name="x"), "TensorSpec(shape=(), dtype=tf.string, name='x')"),
    (Spec([2, 3]), "TensorSpec(shape=(2, 3), dtype=tf.float32, name=None)"),
    (Spec([2], tf.int32, name=3), "TensorSpec(shape=(2,), dtype=tf.int32, name=3)"),
    (Spec([2], tf.int32, name="a b"), "TensorSpec(shape=(2,), dtype=tf.int32, name='a b')"),
])
def test_repr_and_str(spec, text):
    assert repr(spec) == text and str(spec) == text


def test_construction_errors():
    with pytest.raises(TypeError, match="Cannot convert the argument `type_value`: 'garbage'"):
        Spec([2], "garbage")
    with pytest.raises(TypeError, match="^Failed to convert ''a'' to a shape"):
        Spec("a")


def test_from_tensor_and_from_spec():
    assert Spec.from_tensor(tf.constant([1, 2])) == Spec([2], tf.int32)
    assert Spec.from_tensor(tf.constant([1, 2]), name="t") == Spec([2], tf.int32, "t")
    assert Spec.from_tensor(tf.constant("a")) == Spec([], tf.string)
    assert Spec.from_tensor(tf.constant([[1.0]])).shape == [1, 1]
    assert Spec.from_spec(Spec([1], tf.int32, "a")) == Spec([1], tf.int32, "a")
    assert Spec.from_spec(Spec([1], tf.int32, "a"), name="b").name == "b"
    for value in (np.zeros(3), [1, 2], 5):
        with pytest.raises(ValueError, match=rf"^`tensor` should be a tf\.Tensor, but got type {type(value)}\.$"):
            Spec.from_tensor(value)


def test_from_tensor_in_a_graph_uses_the_op_name():
    seen = []

    @tf.function
    def f(x):
        seen.append(Spec.from_tensor(x))
        return x

    f(tf.constant([1.0, 2.0]))
    assert seen[0].shape == [2] and seen[0].dtype is tf.float32 and seen[0].name == "x"


@pytest.mark.parametrize("value,expected", [
    (tf.constant([1, 2]), True), (tf.constant([1.0]), False), (tf.constant([[1]]), False),
    (Spec([3], tf.int32), True), (Spec([3], tf.int32, name="z"), True), (Spec(None, tf.int32), True),
    (Spec([3], tf.int64), False), ([1, 2], False), (np.array([1], np.int32), False), (3, False),
    ("a", False), (None, False),
])
def test_is_compatible_with(value, expected):
    assert Spec([None], tf.int32).is_compatible_with(value) is expected


def test_is_compatible_with_ignores_names():
    assert Spec([None], tf.int32, "a").is_compatible_with(Spec([3], tf.int32, name="z"))
    assert not Spec([], tf.float32).is_compatible_with(np.float32(3))


@pytest.mark.parametrize("a,b,expected", [
    (Spec([2], tf.int32), Spec([None], tf.int32), True),
    (Spec([None], tf.int32), Spec([2], tf.int32), False),
    (Spec([2], tf.int32), Spec(None, tf.int32), True),
    (Spec([2], tf.int32), Spec([2], tf.int64), False),
    (Spec([2], tf.int32, "a"), Spec([2], tf.int32), False),
    (Spec([2], tf.int32), Spec([2], tf.int32, "a"), True),
    (Spec([2], tf.int32, "a"), Spec([None], tf.int32, "a"), True),
    (Spec([2], tf.int32, "a"), Spec([2], tf.int32, "b"), False),
    (Spec([2], tf.int32), 5, False),
])
def test_is_subtype_of(a, b, expected):
    assert a.is_subtype_of(b) is expected


@pytest.mark.parametrize("a,others,expected", [
    (Spec([2], tf.int32), [Spec([3], tf.int32)], Spec([None], tf.int32)),
    (Spec([2], tf.int32), [Spec([3, 1], tf.int32)], Spec(None, tf.int32)),
    (Spec([2], tf.int32), [Spec([2], tf.int64)], None),
    (Spec([2], tf.int32, "a"), [Spec([2], tf.int32, "a")], Spec([2], tf.int32, "a")),
    (Spec([2], tf.int32, "a"), [Spec([2], tf.int32, "b")], None),
    (Spec([2], tf.int32, "a"), [Spec([2], tf.int32)], None),
    (Spec([2], tf.int32), [Spec([2], tf.int32, "a")], None),
    (Spec(None, tf.int32), [Spec([2], tf.int32)], Spec(None, tf.int32)),
    (Spec([2], tf.int32), [], Spec([2], tf.int32)),
    (Spec([2], tf.int32), [5], None),
])
def test_most_specific_common_supertype(a, others, expected):
    assert a.most_specific_common_supertype(others) == expected


def test_most_specific_compatible_type():
    assert Spec([2], tf.int32).most_specific_compatible_type(Spec([3], tf.int32)) == Spec([None], tf.int32)
    assert Spec([2], tf.int32, "a").most_specific_compatible_type(Spec([3], tf.int32, "a")).name == "a"
    with pytest.raises(ValueError, match=r"^No TypeSpec is compatible with both TensorSpec\(shape=\(2,\), "
                                         r"dtype=tf.int32, name=None\) and TensorSpec\(shape=\(3,\), "
                                         r"dtype=tf.int64, name=None\)$"):
        Spec([2], tf.int32).most_specific_compatible_type(Spec([3], tf.int64))
    with pytest.raises(ValueError, match=r"and 5$"):
        Spec([2], tf.int32).most_specific_compatible_type(5)


def test_equality_and_hash():
    assert Spec([2], tf.int32) == Spec([2], tf.int32) and Spec(None, tf.int32) == Spec(None, tf.int32)
    assert Spec([2], tf.int32) != Spec([2], tf.int32, "a") and Spec([2], tf.int32) != Spec([None], tf.int32)
    assert Spec([2], tf.int32) != Spec([2], tf.int64) and (Spec([2], tf.int32) == 5) is False
    assert hash(Spec([2], tf.int32, "a")) == hash(Spec([2], tf.int32, "a"))
    assert len({Spec([2], tf.int32), Spec([2], tf.int32), Spec([2], tf.int32, "x")}) == 2


def test_value_type_pickle_copy():
    assert Spec([2], tf.int32).value_type is tf.Tensor
    s = Spec([2, None], tf.int32, "x")
    assert pickle.loads(pickle.dumps(s)) == s and copy.deepcopy(s) == s
