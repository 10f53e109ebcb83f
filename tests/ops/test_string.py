"""tf.strings ops and TensorFlow's text rendering of tensors, checked against real TensorFlow's outputs."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tensorflux as tf
from tensorflux._src.ops import strings as S


def _b(t):
    return t.numpy()


# -- rendering (summarize_v2: tf.strings.format / tf.print) ------------------------------------------

@pytest.mark.parametrize("value, summarize, text", [
    (np.array([1, 2, 3], np.int32), 3, "[1 2 3]"),
    (np.array([1.0, 2.5], np.float32), 3, "[1 2.5]"),
    (np.float32(3.14159), 3, "3.14159"),
    (np.array([0.1, 1 / 3], np.float32), 3, "[0.1 0.333333343]"),
    (np.array([1e10, 1e-5], np.float32), 3, "[1e+10 1e-05]"),
    (np.array([100000.0, 1234567.0, 16777216.0, 0.0001, -0.0], np.float32), -1,
     "[100000 1234567 16777216 0.0001 -0]"),
    (np.array([0.1, 1 / 3]), 3, "[0.1 0.33333333333333331]"),
    (np.array([1e-40, -1e-40], np.float32), 3, "[0 -0]"),
    (np.array([np.nan, np.inf, -np.inf], np.float32), 3, "[nan inf -inf]"),
    (np.array([True, False]), 3, "[1 0]"),
    (np.array(0.1, np.float16), 3, "0.0999755859"),
    (np.array([1 + 2j], np.complex64), 3, "[?]"),
    (np.arange(10, dtype=np.int32), 3, "[0 1 2 ... 7 8 9]"),
    (np.arange(10, dtype=np.int32), 2, "[0 1 ... 8 9]"),
    (np.arange(10, dtype=np.int32), -1, "[0 1 2 3 4 5 6 7 8 9]"),
    (np.arange(6, dtype=np.int32), 3, "[0 1 2 3 4 5]"),
    (np.arange(4, dtype=np.int32), 0, "[ ...]"),
    (np.int32(5), 0, "..."),
    (np.array([[1, 2], [3, 4]], np.int32), 3, "[[1 2]\n [3 4]]"),
    (np.arange(9, dtype=np.int32).reshape(3, 3), 1, "[[0 ... 2]\n ...\n [6 ... 8]]"),
    (np.arange(24, dtype=np.int32).reshape(2, 3, 4), 3,
     "[[[0 1 2 3]\n  [4 5 6 7]\n  [8 9 10 11]]\n\n [[12 13 14 15]\n  [16 17 18 19]\n  [20 21 22 23]]]"),
    (np.zeros((0, 2), np.float32), 3, "[]"),
    (np.zeros((2, 0), np.float32), 3, "[\n ...]"),
    (np.zeros((2, 0, 3), np.float32), 3, "[\n\n ...]"),
    (np.array([b"a\nb", b'q"', b"it's", b"\x01\x7f", b"\xc3\xa9"], dtype=object), -1,
     '["a\\nb" "q\\"" "it\\\'s" "\\001\\177" "\xe9"]'),
])
def test_summarize_v2_matches_tensorflow(value, summarize, text):
    assert S.summarize_v2(value, summarize) == text


def test_summarize_v2_large_matrix():
    text = S.summarize_v2(np.arange(100, dtype=np.int32).reshape(10, 10), 3)
    assert text.splitlines() == ["[[0 1 2 ... 7 8 9]", " [10 11 12 ... 17 18 19]", " [20 21 22 ... 27 28 29]",
                                 " ...", " [70 71 72 ... 77 78 79]", " [80 81 82 ... 87 88 89]",
                                 " [90 91 92 ... 97 98 99]]"]


@pytest.mark.parametrize("value, summarize, text", [
    (np.arange(10, dtype=np.int32), 3, "0 1 2..."),
    (np.arange(6, dtype=np.int32).reshape(2, 3), 3, "[0 1 2]..."),
    (np.arange(24, dtype=np.int32).reshape(2, 3, 4), 30,
     "[[0 1 2 3][4 5 6 7][8 9 10 11]][[12 13 14 15][16 17 18 19][20 21 22 23]]"),
    (np.int32(-1), 3, "-1"),
    (np.array([b"a\n", b"b"], dtype=object), 3, "a\\n b"),
    (np.array([True, False]), 3, "1 0"),
    (np.float32(0.1), 3, "0.1"),
])
def test_summarize_v1_matches_tensorflow_assert_layout(value, summarize, text):
    assert S.summarize_v1(value, summarize) == text


# -- tf.strings.format -------------------------------------------------------------------------------

def test_format_interleaves_tensors():
    r = tf.strings.format("{} and {}", (tf.constant([1.5, 2.0]), tf.constant("s")))
    assert r.dtype is tf.string and r.shape == () and _b(r) == b'[1.5 2] and "s"'
    assert _b(tf.strings.format("x{}y", [tf.constant([["a"]])])) == b'x[["a"]]y'
    assert _b(tf.strings.format("{}{}", [1, 2])) == b"12"
    assert _b(tf.strings.format("a%b", [])) == b"a%b"
    assert _b(tf.strings.format("<>", [1], placeholder="<>")) == b"1"
    assert _b(tf.strings.format("{}", tf.constant(True))) == b"1"


def test_format_summarize():
    t = tf.constant(np.arange(10, dtype=np.int32))
    assert _b(tf.strings.format("{}", t, summarize=2)) == b"[0 1 ... 8 9]"
    assert _b(tf.strings.format("{}", t, summarize=-1)) == b"[0 1 2 3 4 5 6 7 8 9]"
    assert _b(tf.strings.format("{}", tf.constant(5), summarize=0)) == b"..."
    assert _b(tf.strings.format("{}", tf.constant(1), summarize=None)) == b"1"


def test_format_placeholder_count_errors():
    with pytest.raises(ValueError, match="The template expects 2 tensors, but the inputs only has 1"):
        tf.strings.format("{} {}", [tf.constant(1)])
    with pytest.raises(ValueError, match="The template expects 1 tensors, but the inputs only has 2"):
        tf.strings.format("{}", [tf.constant(1), tf.constant(2)])


def test_format_infer():
    assert S.STRING_FORMAT.infer([tf.TensorSpec(None, tf.float32)], {}) == [(tf.string, tf.TensorShape([]))]


# -- join --------------------------------------------------------------------------------------------

def test_join():
    assert _b(tf.strings.join(["a", "b"])) == b"ab"
    r = tf.strings.join([tf.constant(["a", "b"]), "c"], separator="-")
    assert r.shape == (2,) and r.numpy().tolist() == [b"a-c", b"b-c"]
    assert _b(tf.strings.join([])) == b""
    assert _b(tf.strings.join(tf.constant(["a", "b"]))) == b"ab"


def test_join_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Input shapes do not match: \[2\] vs. \[3\]"):
        tf.strings.join([tf.constant(["a", "b"]), tf.constant(["c", "d", "e"])])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[2,1\] vs. \[2\]"):
        tf.strings.join([tf.constant([["a"], ["b"]]), tf.constant(["c", "d"])])
    with pytest.raises(TypeError, match="Cannot convert 1 to EagerTensor of dtype string"):
        tf.strings.join([1, "a"])
    with pytest.raises(ValueError, match="Tensor conversion requested dtype string for Tensor with dtype int32"):
        tf.strings.join([tf.constant(1), "a"])
    with pytest.raises(TypeError, match="Expected list for 'inputs' argument to 'string_join' Op, not 'abc'"):
        tf.strings.join("abc")


def test_join_infer():
    spec = tf.TensorSpec
    assert S.STRING_JOIN.infer([spec([], tf.string), spec([None, 3], tf.string)], {}) == \
        [(tf.string, tf.TensorShape([None, 3]))]
    assert S.STRING_JOIN.infer([spec(None, tf.string), spec([], tf.string)], {})[0][1].rank is None
    assert S.STRING_JOIN.infer([spec(None, tf.string), spec([2], tf.string)], {})[0][1] == tf.TensorShape([2])
    with pytest.raises(ValueError, match="Input shapes do not match"):
        S.STRING_JOIN.infer([spec([2], tf.string), spec([3], tf.string)], {})


@settings(max_examples=30, deadline=None)
@given(st.lists(st.text(max_size=5), min_size=1, max_size=4), st.text(max_size=2))
def test_join_matches_python(parts, sep):
    r = tf.strings.join([tf.constant([p, p + "x"]) for p in parts], separator=sep)
    assert r.numpy().tolist() == [sep.join(parts).encode(), sep.join(p + "x" for p in parts).encode()]


# -- length ------------------------------------------------------------------------------------------

def test_length():
    r = tf.strings.length(["abc", "é"])
    assert r.dtype is tf.int32 and r.numpy().tolist() == [3, 2]
    assert tf.strings.length(["abc", "é"], unit="UTF8_CHAR").numpy().tolist() == [3, 1]
    assert tf.strings.length("").numpy() == 0


@settings(max_examples=30, deadline=None)
@given(st.lists(st.text(max_size=6), min_size=1, max_size=5))
def test_length_matches_python(texts):
    assert tf.strings.length(texts).numpy().tolist() == [len(t.encode()) for t in texts]
    assert tf.strings.length(texts, unit="UTF8_CHAR").numpy().tolist() == [len(t) for t in texts]


def test_length_errors_and_infer():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Value for attr 'unit' of \"X\" is not in the list"):
        tf.strings.length("abc", unit="X")
    with pytest.raises(TypeError, match="Cannot convert 1 to EagerTensor of dtype string"):
        tf.strings.length(1)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"cannot compute StringLength as input #0\(zero-based\) was expected to be a string"):
        tf.strings.length(tf.constant(1))
    assert S.STRING_LENGTH.infer([tf.TensorSpec([None], tf.string)], {"unit": "BYTE"}) == \
        [(tf.int32, tf.TensorShape([None]))]


# -- as_string ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("value, kwargs, expected", [
    ([1.5, 2.0], {}, [b"1.500000", b"2.000000"]),
    (3.14159265, {"precision": 3}, b"3.142"),
    (1234567.0, {"scientific": True}, b"1.234567e+06"),
    (1234567.0, {"shortest": True}, b"1.23457e+06"),
    (0.1, {"shortest": True}, b"0.1"),
    ([1, 22], {"width": 4}, [b"   1", b"  22"]),
    ([1, 22], {"width": 4, "fill": "0"}, [b"0001", b"0022"]),
    ([-1, 22], {"width": 4, "fill": "0"}, [b"-001", b"0022"]),
    (1, {"width": 4, "fill": "-"}, b"1   "),
    (1, {"width": 4, "fill": "+"}, b"  +1"),
    ([1.5], {"width": 8, "fill": "0", "precision": 2}, [b"00001.50"]),
    (1.5, {"fill": "#", "precision": 0}, b"2."),
    (1.5, {"width": 3, "fill": " "}, b" 1.500000"),
    (1.5, {"precision": 3, "width": 10, "scientific": True}, b" 1.500e+00"),
    ([True, False], {}, [b"true", b"false"]),
    ("ab", {"width": 4}, b"  ab"),
    (complex(1, 2), {}, b"(1.000000,2.000000)"),
    (complex(1, 2), {"precision": 1, "width": 5}, b"(  1.0,  2.0)"),
    ([float("nan"), float("inf"), -float("inf")], {}, [b"nan", b"inf", b"-inf"]),
])
def test_as_string(value, kwargs, expected):
    r = tf.strings.as_string(value, **kwargs)
    assert r.dtype is tf.string
    got = r.numpy().tolist() if r.shape.rank else r.numpy()
    assert got == expected


def test_as_string_dtypes():
    assert tf.strings.as_string(tf.constant(255, tf.uint8)).numpy() == b"255"
    assert tf.strings.as_string(tf.constant(-5, tf.int8)).numpy() == b"-5"
    assert tf.strings.as_string(tf.constant(2 ** 40, tf.int64)).numpy() == b"1099511627776"
    assert tf.strings.as_string(tf.constant(1.5, tf.float16)).numpy() == b"1.500000"
    assert tf.strings.as_string(tf.constant(1.5, tf.bfloat16)).numpy() == b"1.500000"
    assert tf.strings.as_string(tf.constant(3.14159265, tf.float64)).numpy() == b"3.141593"
    assert tf.as_string(1).numpy() == b"1"


@pytest.mark.parametrize("value, kwargs, message", [
    (1.5, {"fill": "x", "width": 4}, 'Fill argument not supported: "x"'),
    (1.5, {"fill": "ab"}, "Fill string must be one or fewer characters"),
    (1, {"precision": 2}, "precision not supported for datatype int32"),
    (1, {"scientific": True}, "scientific and shortest format not supported for datatype int32"),
    (1.0, {"scientific": True, "shortest": True}, "Cannot select both scientific and shortest notation"),
])
def test_as_string_errors(value, kwargs, message):
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        tf.strings.as_string(value, **kwargs)


# -- to_number ---------------------------------------------------------------------------------------

def test_to_number_floats():
    r = tf.strings.to_number(["1.5", "2", " 3", "1e3", "inf", "-nan", "0x10", "+1", " 1 ", "Infinity", "0x1p3",
                              ".5", "1e40"])
    assert r.dtype is tf.float32
    np.testing.assert_array_equal(r.numpy(), np.array(
        [1.5, 2, 3, 1000, np.inf, np.nan, 16, 1, 1, np.inf, 8, 0.5, np.inf], np.float32))
    d = tf.strings.to_number(["0.1"], out_type=tf.float64)
    assert d.dtype is tf.float64 and d.numpy()[0] == 0.1


def test_to_number_ints():
    r = tf.strings.to_number(["12", "-3", " 4 ", "010", "+5"], out_type=tf.int32)
    assert r.dtype is tf.int32 and r.numpy().tolist() == [12, -3, 4, 10, 5]
    assert tf.strings.to_number(["3000000000"], out_type=tf.int64).numpy().tolist() == [3000000000]


@pytest.mark.parametrize("text, out_type", [
    ("abc", tf.float32), ("", tf.float32), ("1.5f", tf.float32), ("1_000", tf.float32),
    ("1.5", tf.int32), ("3000000000", tf.int32), ("0x10", tf.int32), ("-1", tf.uint32),
])
def test_to_number_unparseable(text, out_type):
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=f"StringToNumberOp could not correctly convert string: {text}"):
        tf.strings.to_number([text], out_type=out_type)


def test_to_number_out_type_and_input_errors():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Value for attr 'out_type' of half is not in the list of allowed values: float, "
                             "double, int32, int64, uint32, uint64"):
        tf.strings.to_number("1", out_type=tf.float16)
    with pytest.raises(TypeError, match="Cannot convert 1 to EagerTensor of dtype string"):
        tf.strings.to_number(1)


def test_to_number_infer():
    assert S.STRING_TO_NUMBER.infer([tf.TensorSpec([None, 2], tf.string)], {"out_type": np.dtype(np.int64)}) \
        == [(tf.int64, tf.TensorShape([None, 2]))]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(allow_nan=False, width=32), min_size=1, max_size=5))
def test_as_string_to_number_round_trip(values):
    x = tf.constant(np.array(values, np.float32))
    back = tf.strings.to_number(tf.strings.as_string(x, precision=9, scientific=True))
    np.testing.assert_array_equal(back.numpy(), x.numpy())


# -- case, strip, regex, substr ----------------------------------------------------------------------

def test_upper_lower_strip():
    assert tf.strings.upper(["abé"]).numpy().tolist() == ["abé".upper()[:2].encode() + "é".encode()]
    assert tf.strings.upper(["abé"], encoding="utf-8").numpy().tolist() == ["ABÉ".encode()]
    assert tf.strings.lower("ABC").numpy() == b"abc"
    assert tf.strings.strip([" a ", "\tb\n"]).numpy().tolist() == [b"a", b"b"]
    assert S.STRING_UPPER.infer([tf.TensorSpec(None, tf.string)], {"encoding": ""})[0][1].rank is None


def test_regex_replace_and_full_match():
    assert tf.strings.regex_replace(["aab", "cc"], "a+", "x").numpy().tolist() == [b"xb", b"cc"]
    assert tf.strings.regex_replace(["aab"], "a", "x", replace_global=False).numpy().tolist() == [b"xab"]
    assert tf.strings.regex_replace(["aab"], "(a)(b)", r"\2\1").numpy().tolist() == [b"aba"]
    assert tf.strings.regex_replace("ab", "b", r"[\0]").numpy() == b"a[b]"
    assert tf.strings.regex_replace("ab", tf.constant("b"), tf.constant("c")).numpy() == b"ac"
    assert tf.strings.regex_full_match(["aab", "b"], "a+b").numpy().tolist() == [True, False]
    assert tf.strings.regex_full_match(["aab"], tf.constant("a+b")).numpy().tolist() == [True]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Invalid pattern: \("):
        tf.strings.regex_replace(["aab"], "(", "x")


def test_substr():
    assert tf.strings.substr(["hello", "ab"], 1, 3).numpy().tolist() == [b"ell", b"b"]
    assert tf.strings.substr(["hello"], -3, 2).numpy().tolist() == [b"ll"]
    assert tf.strings.substr("héllo", 1, 2, unit="UTF8_CHAR").numpy() == "él".encode()
    assert tf.strings.substr(["hello", "world"], [0, 1], [1, 2]).numpy().tolist() == [b"h", b"or"]
    with pytest.raises(tf.errors.InvalidArgumentError, match="pos 7 out of range for string b'hello' at index 0"):
        tf.strings.substr(["hello"], 7, 2)
    assert S.SUBSTR.infer([tf.TensorSpec([None], tf.string), tf.TensorSpec([], tf.int32),
                           tf.TensorSpec([], tf.int32)], {"unit": "BYTE"}) == [(tf.string, tf.TensorShape([None]))]
