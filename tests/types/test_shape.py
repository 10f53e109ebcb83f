"""tf.TensorShape and Dimension: unknown dims/rank, merging, compatibility, indexing, text forms, errors.

Expected values were read from TensorFlow 2.21.
"""
import pickle

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tensorflux as tf

S = tf.TensorShape
Dimension = tf.compat.v1.Dimension if hasattr(tf, "compat") else tf.Dimension
dims_strategy = st.one_of(st.none(), st.lists(st.one_of(st.none(), st.integers(0, 4)), max_size=4))


def test_construction():
    assert S([2, None]).as_list() == [2, None]
    assert S((2, 3)) == S([2, 3]) and S(3) == S([3]) and S([]).rank == 0
    assert S(np.array([2, 3])) == S([2, 3]) and S(np.int32(4)) == S([4])
    assert S([np.int64(3)]).as_list() == [3] and type(S([np.int64(3)])[0]) is int
    assert S(S([1])) == S([1]) and S({1: 2}) == S([1])
    assert S([Dimension(2), None]).as_list() == [2, None]
    assert S([tf.constant(3)]) == S([3]) and S(tf.constant([3, 4])) == S([3, 4])


@pytest.mark.parametrize("dims,error,message", [
    ([-1], ValueError, r"^Dimension -1 must be >= 0$"),
    ([1.5], TypeError, r"^Dimension value must be integer or None or have an __index__ method, got value "
                       r"'1\.5' with type '<class 'float'>'$"),
    (["a"], TypeError, r"got value ''a'' with type '<class 'str'>'"),
    ([[1]], TypeError, r"got value '\[1\]' with type '<class 'list'>'"),
    ("ab", TypeError, r"^Failed to convert ''ab'' to a shape: ''a''could not be converted to a dimension\. A "
                      r"shape should either be single dimension \(e\.g\. 10\), or an iterable of dimensions "
                      r"\(e\.g\. \[1, 10, None\]\)\.$"),
])
def test_construction_errors(dims, error, message):
    with pytest.raises(error, match=message):
        S(dims)


def test_rank_dims_and_as_list():
    s = S([1, None])
    assert s.rank == 2 and s.ndims == 2 and type(s.rank) is int
    assert [type(d).__name__ for d in s.dims] == ["Dimension", "Dimension"]
    assert s.dims[0] == 1 and s.dims[1].value is None and repr(s.dims[0]) == "Dimension(1)"
    assert S(None).rank is None and S(None).ndims is None and S(None).dims is None and S([]).dims == []
    assert s.as_list() is not s.as_list()
    with pytest.raises(ValueError, match=r"^as_list\(\) is not defined on an unknown TensorShape\.$"):
        S(None).as_list()


def test_fully_defined_and_num_elements():
    assert S([1, 2]).is_fully_defined() and S([]).is_fully_defined()
    assert not S([1, None]).is_fully_defined() and not S(None).is_fully_defined()
    assert S([2, 3]).num_elements() == 6 and S([]).num_elements() == 1 and S([0, 5]).num_elements() == 0
    assert S([2, None]).num_elements() is None and S(None).num_elements() is None
    with pytest.raises(ValueError, match=r"^Shape \(2, None\) is not fully defined$"):
        S([2, None]).assert_is_fully_defined()


@pytest.mark.parametrize("a,b,expected", [
    ([1, None], [1, 2], True), ([1, None], [2, 2], False), ([1, None], [1], False), ([1, None], None, True),
    (None, [1, 2, 3], True), ([1, None], S([None, 5]), True), ([], [], True), ([], [1], False), ([1], 5, False),
])
def test_is_compatible_with(a, b, expected):
    assert S(a).is_compatible_with(b) is expected


def test_assert_is_compatible_with():
    S([2, None]).assert_is_compatible_with([2, 1])
    with pytest.raises(ValueError, match=r"^Shapes \(2, None\) and \[3, 1\] are incompatible$"):
        S([2, None]).assert_is_compatible_with([3, 1])
    with pytest.raises(ValueError, match=r"^Shapes \(2, None\) and \(3, 1\) are incompatible$"):
        S([2, None]).assert_is_compatible_with(S([3, 1]))


def test_merge_with():
    assert S([1, None]).merge_with([None, 3]) == S([1, 3])
    assert S([1, None]).merge_with(None) == S([1, None]) and S(None).merge_with([1, 2]) == S([1, 2])
    assert S(None).merge_with(None).rank is None
    with pytest.raises(ValueError, match=r"^Shapes \(1, None\) and \(2, 3\) are not compatible$"):
        S([1, None]).merge_with([2, 3])
    with pytest.raises(ValueError, match=r"^Shapes \(1, None\) and \(1,\) are not compatible$"):
        S([1, None]).merge_with([1])
    with pytest.raises(TypeError, match="^Failed to convert ''abc'' to a shape"):
        S([1]).merge_with("abc")


def test_most_specific_compatible_shape_and_supertype():
    assert S([1, 2]).most_specific_compatible_shape([1, 3]) == S([1, None])
    assert S([1, 2]).most_specific_compatible_shape([1, 2]) == S([1, 2])
    assert S([1, 2]).most_specific_compatible_shape([1]).rank is None
    assert S([1, 2]).most_specific_compatible_shape(None).rank is None
    assert S(None).most_specific_compatible_shape([1]).rank is None
    assert S([2, 3]).most_specific_common_supertype([S([2, 4])]) == S([2, None])
    assert S([2, 3]).most_specific_common_supertype([S([2])]).rank is None
    assert S([2, 3]).most_specific_common_supertype([S([2, 3]), S([3, 3])]) == S([None, 3])
    assert S([2, 3]).most_specific_common_supertype([]) == S([2, 3])


def test_is_subtype_of():
    assert S([2, None]).is_subtype_of(S([None, None])) and S([2]).is_subtype_of(S(None))
    assert not S([None, None]).is_subtype_of(S([2, None])) and not S(None).is_subtype_of(S([2]))
    assert S(None).is_subtype_of(S(None)) and not S([1]).is_subtype_of([1])


def test_concatenate_and_add():
    assert S([1, 2]).concatenate([3]) == S([1, 2, 3]) and S([1, 2]).concatenate(3) == S([1, 2, 3])
    assert S([1, 2]).concatenate(None).rank is None and S(None).concatenate([3]).rank is None
    assert S([1, 2]) + [3, None] == S([1, 2, 3, None]) and S([1, 2]) + S([4]) == S([1, 2, 4])
    assert [3] + S([1, 2]) == S([3, 1, 2]) and (3,) + S([1, 2]) == S([3, 1, 2])
    assert (S([1, 2]) + None).rank is None
    with pytest.raises(ValueError, match=r"^Dimension -1 must be >= 0$"):
        S([1, 2]).concatenate([-1])


def test_indexing_and_slicing():
    s = S([1, None, 3])
    assert s[0] == 1 and s[1] is None and s[-1] == 3 and type(s[0]) is int
    assert s[1:] == S([None, 3]) and s[::-1] == S([3, None, 1]) and s[:0] == S([])
    assert S([1, 2])[np.int64(1)] == 2
    with pytest.raises(IndexError):
        s[5]
    with pytest.raises(TypeError):
        S([1, 2])["a"]


@pytest.mark.parametrize("key,expected", [
    (slice(1, None), None), (slice(-3, -1), None), (slice(-3, None), None), (slice(1, -1), None),
    (slice(None, 3), [None] * 3), (slice(2, 5), [None] * 3), (slice(0, 0), []), (slice(2, 1), []),
])
def test_slicing_unknown_rank(key, expected):
    assert S(None)[key] == S(expected)


def test_indexing_unknown_rank():
    assert S(None)[0] is None and S(None)[-1] is None
    with pytest.raises(ValueError, match="^Steps are not yet handled$"):
        S(None)[::2]


@pytest.mark.parametrize("a,b,expected", [
    ([1, 2], [1, 2], True), ([1, 2], (1, 2), True), ([1, 2], [1, 3], False), ([1, None], [1, None], True),
    ([1, 2], [1, 2, 3], False), (None, None, True), (None, [1], False), ([5], 5, True), ([1], [None], False),
    ([], [], True), ([], (), True),
])
def test_equality(a, b, expected):
    assert (S(a) == (S(b) if b is None else b)) is expected
    assert (S(a) != (S(b) if b is None else b)) is (not expected)


def test_equality_with_unconvertible_values():
    assert (S([1]) == "abc") is False and (S([1]) == [1.5]) is False and (S(None) == 5) is False
    assert [1, 2] == S([1, 2])


def test_hash():
    assert hash(S([1, 2])) == hash(S([1, 2])) and hash(S(None)) == hash(S(None))
    assert len({S([1, None]), S([1, None]), S([1])}) == 2


@pytest.mark.parametrize("dims,text,rep", [
    ([2, None], "(2, None)", "TensorShape([2, None])"), ([2], "(2,)", "TensorShape([2])"),
    ([None], "(None,)", "TensorShape([None])"), ([], "()", "TensorShape([])"),
    (None, "<unknown>", "TensorShape(None)"), ([2, 3, 4], "(2, 3, 4)", "TensorShape([2, 3, 4])"),
    ([0], "(0,)", "TensorShape([0])"),
])
def test_str_repr_format(dims, text, rep):
    assert str(S(dims)) == text and repr(S(dims)) == rep and format(S(dims)) == text
    assert f"{S(dims)!s:>12}" == text.rjust(12)


def test_len_iter_bool():
    assert len(S([1, None])) == 2 and len(S([])) == 0 and list(S([1, None])) == [1, None]
    assert S([]) and S([0]) and not S(None)
    with pytest.raises(ValueError, match=r"^Cannot take the length of shape with unknown rank\.$"):
        len(S(None))
    with pytest.raises(ValueError, match=r"^Cannot iterate over a shape with unknown rank\.$"):
        list(S(None))


def test_rank_assertions():
    assert S([2, None]).with_rank(2) == S([2, None]) and S(None).with_rank(2) == S([None, None])
    assert S([2, None]).with_rank_at_least(1) == S([2, None]) and S(None).with_rank_at_least(3).rank is None
    assert S([2, None]).with_rank_at_most(3) == S([2, None]) and S(None).with_rank_at_most(3).rank is None
    S([2, None]).assert_has_rank(2)
    S(None).assert_has_rank(3)
    S([2, None]).assert_same_rank([1, 3])
    S([2, None]).assert_same_rank(None)
    cases = [
        (lambda: S([2, None]).with_rank(3), r"^Shape \(2, None\) must have rank 3$"),
        (lambda: S([2, None]).with_rank_at_least(3), r"^Shape \(2, None\) must have rank at least 3$"),
        (lambda: S([2, None]).with_rank_at_most(1), r"^Shape \(2, None\) must have rank at most 1$"),
        (lambda: S([2, None]).assert_has_rank(3), r"^Shape \(2, None\) must have rank 3$"),
        (lambda: S([2, None]).assert_same_rank([1]), r"^Shapes \(2, None\) and \(1,\) must have the same rank$"),
    ]
    for call, message in cases:
        with pytest.raises(ValueError, match=message):
            call()


def test_pickle():
    s = S([1, None])
    assert pickle.loads(pickle.dumps(s)) == s and pickle.loads(pickle.dumps(S(None))).rank is None


@settings(max_examples=40, deadline=None)
@given(dims_strategy, dims_strategy)
def test_merge_and_compatibility_agree(a, b):
    sa, sb = S(a), S(b)
    assert sa.is_compatible_with(sb) == sb.is_compatible_with(sa)
    if sa.is_compatible_with(sb):
        merged = sa.merge_with(sb)
        assert merged.is_compatible_with(sa) and merged.is_compatible_with(sb)
        assert sa.most_specific_compatible_shape(sb).is_compatible_with(merged)
    else:
        with pytest.raises(ValueError):
            sa.merge_with(sb)


def test_dimension_values_and_text():
    assert Dimension(3).value == 3 and Dimension(None).value is None and Dimension(Dimension(3)).value == 3
    assert repr(Dimension(3)) == "Dimension(3)" and str(Dimension(3)) == "3" and str(Dimension(None)) == "?"
    assert int(Dimension(3)) == 3 and float(Dimension(3)) == 3.0 and [1, 2, 3][Dimension(1)] == 2
    assert Dimension(np.int64(3)).value == 3
    assert not Dimension(0) and not Dimension(None) and Dimension(2)
    with pytest.raises(ValueError, match="^Dimension -1 must be >= 0$"):
        Dimension(-1)
    with pytest.raises(TypeError, match="^Dimension value must be integer or None"):
        Dimension(1.5)
    with pytest.raises(TypeError, match="unhashable type: 'Dimension'"):
        hash(Dimension(3))


def test_dimension_arithmetic_propagates_unknown():
    D = Dimension
    assert (D(3) + 1).value == 4 and (1 + D(3)).value == 4 and (D(3) - 1).value == 2 and (5 - D(3)).value == 2
    assert (D(3) * 2).value == 6 and (2 * D(3)).value == 6 and (D(7) // 2).value == 3 and (7 // D(2)).value == 3
    assert (D(7) % 3).value == 1 and (7 % D(3)).value == 1
    assert (D(None) * 2).value is None and (D(3) + None).value is None and (D(3) + D(None)).value is None
    with pytest.raises(ValueError, match="^Dimension -1 must be >= 0$"):
        D(3) - 4
    with pytest.raises(TypeError, match="please use // instead"):
        D(7) / 2
    with pytest.raises(TypeError, match="unsupported operand"):
        D(3) + "a"


def test_dimension_comparisons():
    D = Dimension
    assert (D(3) == 3) is True and (D(3) == D(4)) is False and (D(3) == "a") is False
    assert (D(None) == 3) is None and (D(3) != None) is None and (D(3) == None) is None  # noqa: E711
    assert D(3) < 4 and D(3) <= 3 and D(3) >= 2 and (D(3) > D(None)) is None and (D(None) < 3) is None


def test_dimension_compatibility_and_merge():
    assert Dimension(None).merge_with(4).value == 4 and not Dimension(3).is_compatible_with(4)
    with pytest.raises(ValueError, match="^Dimensions 3 and 4 are not compatible$"):
        Dimension(3).merge_with(4)
