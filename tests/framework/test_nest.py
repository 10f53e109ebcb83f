"""tf.nest: flatten, pack_sequence_as, map_structure, assert_same_structure, is_nested, and their errors.

Expected values and messages were read from TensorFlow 2.21.
"""
import collections

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tensorflux as tf

Pt = collections.namedtuple("Pt", ["x", "y"])
nest = tf.nest


@pytest.mark.parametrize("structure,flat", [
    ([1, (2, 3), [4, [5]]], [1, 2, 3, 4, 5]),
    ({"b": 1, "a": 2}, [2, 1]),
    ({"b": [1, 2], "a": {"d": 3, "c": 4}}, [4, 3, 1, 2]),
    (Pt(1, (2, 3)), [1, 2, 3]),
    (collections.OrderedDict([("b", 1), ("a", 2)]), [2, 1]),
    (collections.defaultdict(int, {"b": 1, "a": 2}), [2, 1]),
    (5, [5]), (None, [None]), ("ab", ["ab"]), (b"ab", [b"ab"]), ([], []), ((), []), ({}, []),
    ([None, [None]], [None, None]), ({1, 2}, [{1, 2}]), (range(3), [0, 1, 2]),
    ({"a": 1, "b": 2}.keys(), ["a", "b"]), ({"a": 1, "b": 2}.items(), ["a", 1, "b", 2]),
])
def test_flatten(structure, flat):
    assert nest.flatten(structure) == flat


def test_flatten_keeps_arrays_and_tensors_whole():
    arr, t = np.array([1, 2]), tf.constant([1, 2])
    assert nest.flatten(arr)[0] is arr and nest.flatten(t)[0] is t
    assert nest.flatten([1, [2]], expand_composites=True) == [1, 2]


def test_flatten_unsortable_keys():
    with pytest.raises(TypeError, match="'<' not supported between instances of"):
        nest.flatten({1: "a", "b": 2})


def test_pack_sequence_as():
    assert nest.pack_sequence_as([0, (0, 0)], [1, 2, 3]) == [1, (2, 3)]
    packed = nest.pack_sequence_as({"b": 0, "a": 0}, [1, 2])
    assert packed == {"a": 1, "b": 2} and list(packed) == ["b", "a"]  # sorted values, insertion order kept
    assert nest.pack_sequence_as(Pt(0, 0), [1, 2]) == Pt(1, 2)
    ordered = nest.pack_sequence_as(collections.OrderedDict([("b", 0), ("a", 0)]), [1, 2])
    assert type(ordered) is collections.OrderedDict and list(ordered.items()) == [("b", 2), ("a", 1)]
    assert nest.pack_sequence_as(0, [5]) == 5 and nest.pack_sequence_as([], []) == []
    assert nest.pack_sequence_as([[], 0], [1]) == [[], 1]
    assert nest.pack_sequence_as((0, [0, {"x": 0}]), (1, 2, 3)) == (1, [2, {"x": 3}])
    assert nest.pack_sequence_as(range(2), [5, 6]) == [5, 6]


def test_pack_sequence_as_errors():
    with pytest.raises(ValueError, match=r"^The target structure is of type `<class 'int'>`\n  0\nHowever the input "
                                         r"is a sequence \(<class 'list'>\) of length 2\.\n  \[5, 6\]\nnest cannot "
                                         r"guarantee that it is safe to map one to the other\.$"):
        nest.pack_sequence_as(0, [5, 6])
    with pytest.raises(ValueError, match=r"^Could not pack sequence\. Structure had 2 atoms, but flat_sequence had 1 "
                                         r"items\.  Structure: \[0, 0\], flat_sequence: \[1\]\.$"):
        nest.pack_sequence_as([0, 0], [1])
    with pytest.raises(ValueError, match=r"Structure had 3 atoms, but flat_sequence had 2 items"):
        nest.pack_sequence_as([0, [0, 0]], [1, 2])
    with pytest.raises(ValueError, match=r"Structure had 2 atoms, but flat_sequence had 3 items"):
        nest.pack_sequence_as([0, 0], [1, 2, 3])
    with pytest.raises(TypeError, match=r"^Attempted to pack value:\n  5\ninto a structure, but found incompatible "
                                        r"type `<class 'int'>` instead\.$"):
        nest.pack_sequence_as([0], 5)
    with pytest.raises(TypeError, match=r"^Attempted to pack value:\n  ab\ninto a structure"):
        nest.pack_sequence_as([0], "ab")


def test_map_structure():
    assert nest.map_structure(lambda x: x * 2, [1, (2, 3), {"a": 4}]) == [2, (4, 6), {"a": 8}]
    assert nest.map_structure(lambda x, y: x + y, [1, 2], [3, 4]) == [4, 6]
    assert nest.map_structure(lambda x, y: x + y, [1, 2], (3, 4), check_types=False) == [4, 6]
    assert nest.map_structure(lambda x: x + 1, Pt(1, 2)) == Pt(2, 3)
    assert nest.map_structure(lambda x: x, []) == [] and nest.map_structure(lambda x: x, 3) == 3
    assert nest.map_structure(lambda x: x, None) is None
    pairs = nest.map_structure(lambda x, y: (x, y), {"a": 1, "b": 2}, collections.OrderedDict(b=3, a=4))
    assert pairs == {"a": (1, 4), "b": (2, 3)}


def test_map_structure_errors():
    with pytest.raises(ValueError, match="^Must provide at least one structure$"):
        nest.map_structure(lambda x: x)
    with pytest.raises(ValueError, match="^Only valid keyword arguments are `check_types` and `expand_composites`, "
                                         "not: `foo`, `bar`$"):
        nest.map_structure(lambda x: x, [1], check_types=False, foo=2, bar=1)
    with pytest.raises(ValueError, match="don't have the same number of elements"):
        nest.map_structure(lambda x, y: x + y, [1, 2], [3])
    with pytest.raises(TypeError, match="don't have the same sequence type"):
        nest.map_structure(lambda x, y: x + y, [1, 2], (3, 4))


def test_assert_same_structure_accepts():
    nest.assert_same_structure([1, [2]], [3, [4]])
    nest.assert_same_structure([1, 2], (3, 4), check_types=False)
    nest.assert_same_structure({"a": 1}, collections.OrderedDict(a=1))
    nest.assert_same_structure(1, 2)
    nest.assert_same_structure("abc", "d")
    nest.assert_same_structure([], [])


HEAD = "The two structures don't have the same nested structure.\n\n"
MISMATCHES = [
    ([1, [2]], [3, 4], ValueError,
     HEAD + "First structure: type=list str=[1, [2]]\n\nSecond structure: type=list str=[3, 4]\n\nMore specifically: "
     "Substructure \"type=list str=[2]\" is a sequence, while substructure \"type=int str=4\" is not\n"
     "Entire first structure:\n[., [.]]\nEntire second structure:\n[., .]"),
    ([1, 2], [3, 4, 5], ValueError,
     HEAD + "First structure: type=list str=[1, 2]\n\nSecond structure: type=list str=[3, 4, 5]\n\nMore "
     "specifically: The two structures don't have the same number of elements. First structure: type=list "
     "str=[1, 2]. Second structure: type=list str=[3, 4, 5]\nEntire first structure:\n[., .]\nEntire second "
     "structure:\n[., ., .]"),
    ([1, 2], (3, 4), TypeError,
     HEAD + "First structure: type=list str=[1, 2]\n\nSecond structure: type=tuple str=(3, 4)\n\nMore "
     "specifically: The two namedtuples don't have the same sequence type. First structure type=list str=[1, 2] "
     "has type list, while second structure type=tuple str=(3, 4) has type tuple\nEntire first structure:\n"
     "[., .]\nEntire second structure:\n(., .)"),
    ({"a": 1}, {"b": 1}, ValueError,
     HEAD + "First structure: type=dict str={'a': 1}\n\nSecond structure: type=dict str={'b': 1}\n\nMore "
     "specifically: The two dictionaries don't have the same set of keys. First structure has keys type=list "
     "str=['a'], while second structure has keys type=list str=['b']\nEntire first structure:\n{'a': .}\n"
     "Entire second structure:\n{'b': .}"),
    (Pt(1, 2), (1, 2), TypeError,
     HEAD + "First structure: type=Pt str=Pt(x=1, y=2)\n\nSecond structure: type=tuple str=(1, 2)\n\nMore "
     "specifically: The two namedtuples don't have the same sequence type. First structure type=Pt "
     "str=Pt(x=1, y=2) has type Pt, while second structure type=tuple str=(1, 2) has type tuple\nEntire first "
     "structure:\nPt(x=., y=.)\nEntire second structure:\n(., .)"),
    (1, [2], ValueError,
     HEAD + "First structure: type=int str=1\n\nSecond structure: type=list str=[2]\n\nMore specifically: "
     "Substructure \"type=list str=[2]\" is a sequence, while substructure \"type=int str=1\" is not\nEntire "
     "first structure:\n.\nEntire second structure:\n[.]"),
    ([], (), TypeError,
     HEAD + "First structure: type=list str=[]\n\nSecond structure: type=tuple str=()\n\nMore specifically: The "
     "two namedtuples don't have the same sequence type. First structure type=list str=[] has type list, while "
     "second structure type=tuple str=() has type tuple\nEntire first structure:\n[]\nEntire second "
     "structure:\n()"),
    ([[1, 2]], [[1, 2, 3]], ValueError,
     HEAD + "First structure: type=list str=[[1, 2]]\n\nSecond structure: type=list str=[[1, 2, 3]]\n\nMore "
     "specifically: The two structures don't have the same number of elements. First structure: type=list "
     "str=[1, 2]. Second structure: type=list str=[1, 2, 3]\nEntire first structure:\n[[., .]]\nEntire second "
     "structure:\n[[., ., .]]"),
]


@pytest.mark.parametrize("a,b,error,message", MISMATCHES)
def test_assert_same_structure_errors(a, b, error, message):
    with pytest.raises(error) as info:
        nest.assert_same_structure(a, b)
    assert str(info.value) == message


@pytest.mark.parametrize("value,expected", [
    ([1], True), ((1,), True), ({}, True), (Pt(1, 2), True), (collections.OrderedDict(), True),
    (range(2), True), ("ab", False), (b"ab", False), (1, False), (None, False), (np.array([1]), False),
    (tf.constant([1]), False), ({1, 2}, False),
])
def test_is_nested(value, expected):
    assert nest.is_nested(value) is expected


def test_public_names():
    public = {n for n in dir(nest) if not n.startswith("_")}
    assert {"assert_same_structure", "flatten", "is_nested", "map_structure", "pack_sequence_as"} <= public


leaf = st.integers(-5, 5)
structures = st.recursive(leaf, lambda children: st.one_of(
    st.lists(children, max_size=3), st.tuples(children, children),
    st.dictionaries(st.sampled_from("abcd"), children, max_size=3)), max_leaves=10)


@settings(max_examples=50, deadline=None)
@given(structures)
def test_pack_inverts_flatten(structure):
    flat = nest.flatten(structure)
    assert nest.pack_sequence_as(structure, flat) == structure
    doubled = nest.map_structure(lambda x: x * 2, structure)
    assert nest.flatten(doubled) == [x * 2 for x in flat]
    nest.assert_same_structure(structure, doubled)


def test_is_nested_answers_per_type_and_follows_abc_registration():
    """is_nested caches its answer per type; registering a class with an ABC afterwards must be seen, and a
    proxy whose __class__ claims a sequence type is asked about itself, not cached under its own type."""
    import collections.abc
    from unittest import mock

    class Late:
        def __len__(self):
            return 0

        def __getitem__(self, i):
            raise IndexError

    assert nest.is_nested(Late()) is False
    collections.abc.Sequence.register(Late)
    assert nest.is_nested(Late()) is True
    assert nest.is_nested(mock.Mock(spec=list)) is True
    assert nest.is_nested(mock.Mock()) is False
