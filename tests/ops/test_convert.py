"""tf.constant / tf.convert_to_tensor: TensorFlow's conversion rules for Python and NumPy values.

Expected dtypes, values and messages were read from TensorFlow 2.21.
"""
import re

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import tensorflux as tf

C = tf.constant
MIXED = r"^Can't convert Python sequence with mixed types to Tensor\.$"
NON_RECT = r"^Can't convert non-rectangular Python sequence to Tensor\.$"
INT_RANGE = r"^Can't convert Python sequence with out-of-range integer to Tensor\.$"
FLOAT_RANGE = r"^Can't convert Python sequence with a value out of range for a double-precision float\.$"
Dimension = tf.compat.v1.Dimension if hasattr(tf, "compat") else tf.Dimension


def check(t, dtype, value, shape=None):
    assert t.dtype is dtype
    got = t.numpy()
    expected = np.asarray(value, dtype=dtype.as_numpy_dtype if dtype is not tf.string else object)
    assert np.shape(got) == (expected.shape if shape is None else tuple(shape))
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("value,dtype", [
    (1, tf.int32), (2 ** 31 - 1, tf.int32), (-2 ** 31, tf.int32), (2 ** 31, tf.int64), (-2 ** 31 - 1, tf.int64),
    (2 ** 63 - 1, tf.int64), (1.5, tf.float32), (True, tf.bool), ("a", tf.string), (b"a", tf.string),
    (1 + 2j, tf.complex128), ([1, 2], tf.int32), ([1, 2 ** 40], tf.int64), ([1, 2.5], tf.float32),
    ((1, 2.0, 3), tf.float32), ([1, True], tf.int32), ([1.5, True], tf.float32), ([1 + 2j, 1], tf.complex128),
    ([1j, 1.5], tf.complex128), ([1j, True], tf.complex128), (["a", b"b"], tf.string), ([], tf.float32),
    ((), tf.float32), ([[1, 2], (3, 4)], tf.int32), ([2 ** 31, 1.5], tf.float32), ([0.1, 2 ** 70], tf.float32),
    ([1, float("nan")], tf.float32), ([-2 ** 63], tf.int64), ([[2 ** 31], [1]], tf.int64),
    (range(3), tf.int32), (bytearray(b"ab"), tf.int32), (memoryview(b"ab"), tf.int32),
    (Dimension(3), tf.int32), ([Dimension(3)], tf.int32), ([range(2), [1, 2]], tf.int32),
])
def test_python_values_infer_tensorflow_dtypes(value, dtype):
    t = C(value)
    assert t.dtype is dtype
    if dtype is not tf.string:
        expected = np.array(list(value) if isinstance(value, (range, bytearray, memoryview)) else
                            (3 if isinstance(value, Dimension) else [3] if value == [Dimension(3)] else value))
        np.testing.assert_array_equal(t.numpy(), expected.astype(dtype.as_numpy_dtype))


def test_first_numpy_leaf_decides_float_width():
    check(C([np.float64(2.0)]), tf.float64, [2.0])
    check(C([np.float64(1), 2.5]), tf.float64, [1, 2.5])
    check(C([1.0, np.float64(2.0)]), tf.float32, [1, 2])
    check(C([np.float32(2.0), 1.0]), tf.float32, [2, 1])
    check(C([np.float16(2), 1.5]), tf.float16, [2, 1.5])
    check(C([np.float32(1), np.float64(2)]), tf.float32, [1, 2])
    check(C([np.float32(1), True]), tf.float32, [1, 1])
    check(C([np.array(2.0)]), tf.float64, [2.0])
    check(C([np.array(2.0, np.float32)]), tf.float32, [2.0])
    check(C([np.array([1.0], np.float32), [2.0]]), tf.float32, [[1.0], [2.0]])
    check(C([np.complex64(1)]), tf.complex128, [1])


def test_numpy_integers_inside_lists_behave_like_python_ints():
    check(C([np.int64(2), 1]), tf.int32, [2, 1])
    check(C([np.int16(2), np.int16(1)]), tf.int32, [2, 1])
    check(C([np.int8(1), np.uint8(2)]), tf.int32, [1, 2])
    check(C([np.uint64(5)]), tf.int32, [5])
    check(C([np.int32(1), 2.5]), tf.float32, [1, 2.5])
    check(C([np.int64(1), np.int64(2 ** 40)]), tf.int64, [1, 2 ** 40])
    check(C([np.array([1, 2]), np.array([3, 4])]), tf.int32, [[1, 2], [3, 4]])
    check(C([[1, 2], np.array([3.5, 4])]), tf.float32, [[1, 2], [3.5, 4]])
    check(C([1, np.array(2)]), tf.int32, [1, 2])
    check(C([np.array([1, 2], dtype=object)]), tf.int32, [[1, 2]])
    check(C([np.array(["a"]), ["b"]]), tf.string, [[b"a"], [b"b"]])


@pytest.mark.parametrize("value,message", [
    ([True, 1], MIXED), ([True, 1.5], MIXED), ([1, "a"], MIXED), (["a", 1], MIXED), ([1, 2.5, 1j], MIXED),
    ([1, 1j], MIXED), ([1.5, 1j], MIXED), ([1, np.bool_(True)], MIXED), ([1.5, np.bool_(True)], MIXED),
    ([1j, np.bool_(True)], MIXED), ([np.float32(1), 1j], MIXED), ([1, None], MIXED), (["a", None], MIXED),
    ([[1, 2], [3, None]], MIXED), ([1, [2]], MIXED), ([[1, 2], [3, [4]]], MIXED), (["a", ["b"]], MIXED),
    ([[1], [[2]]], MIXED), ([1, object()], MIXED), ([[1, 2], C([3, 4])], MIXED),
    ([[1, 2], [3]], NON_RECT), ([[1, 2], 3], NON_RECT), ([[1, 2], []], NON_RECT), ([[1, 2], [3, 4, 5]], NON_RECT),
    ([[1], 2], NON_RECT), ([["a"], ["b", "c"]], NON_RECT),
    (2 ** 63, INT_RANGE), (-2 ** 63 - 1, INT_RANGE), (2 ** 64, INT_RANGE), ([1, 2 ** 63], INT_RANGE),
    ([2 ** 64], INT_RANGE), ([1, -2 ** 63 - 1], INT_RANGE), ([2 ** 70, 1], INT_RANGE), ([2 ** 1100], INT_RANGE),
    ([np.uint64(2 ** 63)], INT_RANGE), ([1, np.uint64(2 ** 63)], INT_RANGE),
    (1e40, FLOAT_RANGE), (-1e40, FLOAT_RANGE), ([1e40], FLOAT_RANGE), ([1.0, 2 ** 1100], FLOAT_RANGE),
    ([np.float16(1), 70000.0], FLOAT_RANGE),
])
def test_python_sequence_errors(value, message):
    with pytest.raises(ValueError, match=message):
        C(value)
    if not any(isinstance(v, tf.Tensor) for v in (value if isinstance(value, list) else [])):
        with pytest.raises(ValueError, match=message):
            tf.convert_to_tensor(value)


def test_quirks_of_tensorflow_sequences():
    check(C([[], [1]]), tf.float32, np.zeros((2, 0)))  # no element is read once a dimension is 0
    check(C([[[]], [[]]]), tf.float32, np.zeros((2, 1, 0)))
    check(C([["a"], "b"]), tf.string, [[b"a"], [b"b"]])  # a str where a list is expected is one
    check(C(float("inf")), tf.float32, np.inf)


@pytest.mark.parametrize("value", [None, [None], [[None]], [None, 1], object(), {"a": 1}, {1, 2}, lambda: 1, int,
                                   (x for x in [1]), [ml_dtypes.bfloat16(1.5)]])
def test_unsupported_values(value):
    leaf = value[0] if isinstance(value, list) and not isinstance(value[0], list) else \
        value[0][0] if isinstance(value, list) else value
    message = rf"^Attempt to convert a value \({re.escape(repr(leaf))}\) with an " \
              rf"unsupported type \({re.escape(repr(type(leaf)))}\) to a Tensor\.$"
    with pytest.raises(ValueError, match=message):
        C(value)
    with pytest.raises(ValueError, match=message):
        tf.convert_to_tensor(value)


@pytest.mark.parametrize("value,dtype,expected", [
    (1, tf.float32, 1.0), (1, tf.float16, 1.0), (1, tf.bfloat16, 1.0), (1, tf.complex64, 1), (1, tf.int64, 1),
    (1, tf.uint8, 1), (-1, tf.uint8, 255), (256, tf.uint8, 0), (2 ** 31, tf.int32, -2 ** 31),
    (2 ** 63, tf.uint64, 2 ** 63), ([2 ** 31], tf.int32, [-2 ** 31]), ([-1], tf.uint32, [2 ** 32 - 1]),
    ([1, 2], tf.uint64, [1, 2]), (1.5, tf.float64, 1.5), (1.5, tf.float16, 1.5), (1.5, tf.complex128, 1.5),
    (1e40, tf.float32, np.inf), (1e40, tf.float64, 1e40), ([1e40], tf.float16, [np.inf]),
    ([70000.0], tf.float16, [np.inf]), (True, tf.int32, 1), (True, tf.float32, 1.0), ([True, False], tf.int64, [1, 0]),
    ([True, 1], tf.int32, [1, 1]), ([1, True], tf.int32, [1, 1]), ("a", tf.string, b"a"), (b"a", tf.string, b"a"),
    (1 + 2j, tf.complex64, 1 + 2j), ([1, 2], tf.float64, [1, 2]), ([1, 2], tf.complex64, [1, 2]),
    ([1.5], tf.complex64, [1.5]), ([1j], tf.complex64, [1j]), ([2 ** 40], tf.int32, [0]),
    (1, "float32", 1.0), (1, np.float64, 1.0), (1, float, 1.0), ([], tf.string, []), ([[], []], tf.int64,
                                                                                         np.zeros((2, 0))),
    (tf.TensorShape([2, 3]), tf.float32, [2, 3]), (tf.TensorShape([2 ** 40]), tf.int32, [0]),
])
def test_dtype_argument_casts_compatible_kinds(value, dtype, expected):
    t = C(value, dtype=dtype)
    assert t.dtype is tf.as_dtype(dtype)
    np.testing.assert_array_equal(t.numpy(), np.asarray(expected, dtype=t.dtype.as_numpy_dtype
                                                         if t.dtype is not tf.string else object))


@pytest.mark.parametrize("value,dtype,name", [
    (1, tf.bool, "bool"), (0, tf.bool, "bool"), (1, tf.string, "string"), (1.5, tf.int32, "int32"),
    (1.0, tf.int32, "int32"), ([1.0, 2.0], tf.int32, "int32"), ([1, 2.5], tf.int32, "int32"),
    ([[1, 2], [3, 4.0]], tf.int32, "int32"), ([1.0, 2.0], tf.int64, "int64"), (1.5, tf.bool, "bool"),
    (1.5, tf.string, "string"), (True, tf.string, "string"), ("a", tf.int32, "int32"), ("1", tf.int32, "int32"),
    (1 + 2j, tf.float32, "float"), (1 + 0j, tf.float32, "float"), ([1j], tf.float64, "double"),
    ("a", tf.float32, "float"), (1j, tf.int32, "int32"), ([1, 2], tf.bool, "bool"), ([0, 1], tf.bool, "bool"),
    ([1, 2], tf.string, "string"), (float("nan"), tf.int32, "int32"), ([True], tf.complex64, "complex64"),
    (1, tf.resource, "resource"), (1, tf.variant, "variant"),
])
def test_dtype_argument_type_errors(value, dtype, name):
    message = rf"^Cannot convert {re.escape(repr(value))} to EagerTensor of dtype {name}$"
    with pytest.raises(TypeError, match=message):
        C(value, dtype=dtype)
    with pytest.raises(TypeError, match=message):
        tf.convert_to_tensor(value, dtype=dtype)


@pytest.mark.parametrize("value,dtype,message", [
    ([1, None], tf.int32, MIXED), (["a", None], tf.string, MIXED), ([1, "a"], tf.int32, MIXED),
    (["a", 1], tf.string, MIXED), ([1.5, "a"], tf.float32, MIXED), ([True, 1], tf.bool, MIXED),
    ([1, 1j], tf.complex64, MIXED), ([[1, 2], [3]], tf.float32, NON_RECT), ([1, 2 ** 63], tf.int64, INT_RANGE),
    (2 ** 63, tf.int64, INT_RANGE), (2 ** 1100, tf.float32, INT_RANGE),
    (None, tf.float32, r"^Attempt to convert a value \(None\) with an unsupported type"),
    ([None], tf.float32, r"^Attempt to convert a value \(None\) with an unsupported type"),
])
def test_dtype_argument_value_errors(value, dtype, message):
    with pytest.raises(ValueError, match=message):
        C(value, dtype=dtype)


def test_dtype_argument_must_be_a_dtype():
    for bad in ("garbage", int):
        with pytest.raises(TypeError, match="Cannot convert the argument `type_value`"):
            C(1, dtype=bad)
        with pytest.raises(TypeError, match="Cannot convert the argument `type_value`"):
            tf.convert_to_tensor(1, dtype=bad)


@pytest.mark.parametrize("value,dtype", [
    (np.float64(1.5), tf.float64), (np.int64(3), tf.int64), (np.bool_(True), tf.bool), (np.str_("ab"), tf.string),
    (np.bytes_(b"ab"), tf.string), (np.array([1, 2]), tf.int64), (np.array([1.5]), tf.float64),
    (np.array(["ab", "c"]), tf.string), (np.array([b"ab", b"c"]), tf.string),
    (np.array(["ab", "c"], dtype=object), tf.string), (np.array([b"a", "b"], dtype=object), tf.string),
    (np.array([], dtype=object), tf.string), (np.array([], dtype="<U1"), tf.string),
    (np.zeros((2, 0), dtype=object), tf.string), (np.array(b"a", dtype=object), tf.string),
    (np.array([1, 2], dtype=np.uint16), tf.uint16), (np.array([1 + 1j], dtype=np.complex64), tf.complex64),
    (np.float32(1.5), tf.float32), (np.array(5), tf.int64), (np.arange(6)[::2], tf.int64),
    (np.array([1, 2]).reshape(2, 1).T, tf.int64), (np.array([1, 2], dtype=">i4"), tf.int32),
    (np.array([1.5], dtype=ml_dtypes.bfloat16), tf.bfloat16),
])
def test_numpy_values_keep_their_dtype(value, dtype):
    t = C(value)
    assert t.dtype is dtype and t.shape == np.shape(value)
    if dtype is tf.string:
        expected = np.vectorize(lambda s: s.encode() if isinstance(s, str) else s, otypes=[object])(value) \
            if np.size(value) else np.asarray(value, dtype=object)
        assert np.asarray(t.numpy(), dtype=object).tolist() == np.asarray(expected, dtype=object).tolist()
    else:
        np.testing.assert_array_equal(t.numpy(), value)


@pytest.mark.parametrize("value,message", [
    (np.array([1, "c"], dtype=object), "Unsupported object type int"),
    (np.array([1, 2], dtype=object), "Unsupported object type int"),
    (np.array([None], dtype=object), "Unsupported object type NoneType"),
    (np.array([b"a", None], dtype=object), "Unsupported object type NoneType"),
    (np.array([[1, 2]], dtype=object), "Unsupported object type int"),
    (np.array(["2020"], dtype="datetime64[D]"), "Unsupported numpy type: NPY_DATETIME"),
    (np.datetime64("2020"), "Unsupported numpy type: NPY_DATETIME"),
    (np.array([np.timedelta64(1)]), "Unsupported numpy type: NPY_TIMEDELTA"),
    (np.array([1.0], dtype=np.longdouble), "Unsupported numpy type: NPY_LONGDOUBLE"),
    (np.array([1 + 1j], dtype=np.clongdouble), "Unsupported numpy type: NPY_CLONGDOUBLE"),
    (np.zeros(2, dtype=[("a", "i4")]), "Unsupported numpy data type"),
])
def test_unsupported_numpy_values(value, message):
    with pytest.raises(ValueError, match=rf"^Failed to convert a NumPy array to a Tensor \({message}\)\.$"):
        C(value)


@pytest.mark.parametrize("value,dtype,expected", [
    (np.array([1.5, 2.7]), tf.int32, [1, 2]), (np.array([1, 2]), tf.float32, [1.0, 2.0]),
    (np.array(["a"]), tf.string, [b"a"]), (np.array([300]), tf.uint8, [44]), (np.array([True]), tf.float32, [1.0]),
    (np.array([1 + 2j]), tf.float32, [1.0]), (np.float64(1.5), tf.int32, 1), (np.int64(2 ** 40), tf.int32, 0),
    (np.float32(2.5), tf.float64, 2.5), (np.array(1e40), tf.float32, np.inf), (np.array([1.5]), tf.bool, [True]),
    (np.array([0, 2]), tf.bool, [False, True]), (np.array([b"1.5"]), tf.float32, [1.5]),
    (np.array(["1"]), tf.int32, [1]), (np.array([1, 2], dtype=object), tf.int32, [1, 2]),
    (np.bool_(True), tf.int32, 1), (np.int32(1), tf.bool, True), (np.int64(2 ** 63 - 1), tf.int32, -1),
    (np.array([], dtype=np.int32), tf.string, []),
])
def test_numpy_values_cast_to_dtype(value, dtype, expected):
    t = C(value, dtype=dtype)
    assert t.dtype is dtype
    np.testing.assert_array_equal(t.numpy(), np.asarray(expected, dtype=dtype.as_numpy_dtype
                                                        if dtype is not tf.string else object))


@pytest.mark.parametrize("value,dtype,message", [
    (np.array([1, 2]), tf.string, r"^Failed to convert a NumPy array to a Tensor \(Unsupported object type int\)\.$"),
    (np.float64(1.5), tf.string, r"\(Unsupported object type float\)\.$"),
    (np.float16(1.0), tf.string, r"\(Unsupported object type float\)\.$"),
    (np.array([True]), tf.string, r"\(Unsupported object type bool\)\.$"),
    (np.array([1j]), tf.string, r"\(Unsupported object type complex\)\.$"),
    (np.int32(1), tf.string, r"\(Unsupported object type int\)\.$"),
    (np.array([1, 2]), tf.resource, r"\(Unexpected numpy data type\)\.$"),
    (np.array(["a"]), tf.int32, r"^invalid literal for int\(\) with base 10: np\.str_\('a'\)$"),
    (np.str_("a"), tf.int32, r"^invalid literal for int\(\) with base 10: np\.str_\('a'\)$"),
    (np.array(["ab"], dtype="S"), tf.int32, r"^invalid literal for int\(\) with base 10: b'ab'$"),
    (np.array(["a"], dtype=object), tf.int32, r"^invalid literal for int\(\) with base 10: 'a'$"),
    (np.array([b"a"]), tf.float32, r"^could not convert string to float: np\.bytes_\(b'a'\)$"),
    (np.array([b"a"], dtype=object), tf.float32, r"^could not convert string to float: b'a'$"),
])
def test_numpy_cast_errors(value, dtype, message):
    with pytest.raises(ValueError, match=message):
        C(value, dtype=dtype)


def test_tensor_shape_and_dimension_conversion():
    check(tf.convert_to_tensor(tf.TensorShape([2, 3])), tf.int32, [2, 3])
    check(tf.convert_to_tensor(tf.TensorShape([2, 3]), dtype=tf.int64), tf.int64, [2, 3])
    check(tf.convert_to_tensor(tf.TensorShape([2 ** 40])), tf.int64, [2 ** 40])
    check(tf.convert_to_tensor(tf.TensorShape([])), tf.int32, np.zeros(0))
    check(C(tf.TensorShape([2, 3])), tf.int32, [2, 3])
    check(C(tf.TensorShape([])), tf.float32, np.zeros(0))  # tf.constant reads a shape as a plain sequence
    check(C(tf.TensorShape([2 ** 40])), tf.int64, [2 ** 40])
    check(tf.convert_to_tensor(Dimension(3)), tf.int32, 3)
    check(tf.convert_to_tensor(Dimension(3), dtype=tf.int64), tf.int64, 3)
    with pytest.raises(ValueError, match=r"^Cannot convert a partially known TensorShape \(2, None\) to a Tensor\.$"):
        tf.convert_to_tensor(tf.TensorShape([2, None]))
    with pytest.raises(ValueError, match=r"^Cannot convert a partially known TensorShape <unknown> to a Tensor\.$"):
        tf.convert_to_tensor(tf.TensorShape(None))
    with pytest.raises(TypeError, match=r"^Cannot convert TensorShape \(2, 3\) to dtype <dtype: 'float32'>\. "
                                        r"Allowed dtypes are tf\.int32 and tf\.int64\.$"):
        tf.convert_to_tensor(tf.TensorShape([2, 3]), dtype=tf.float32)
    with pytest.raises(ValueError, match=r"^Cannot convert TensorShape \(1099511627776,\) to dtype int32; a "
                                         r"dimension is too large\. Consider using tf\.int64\.$"):
        tf.convert_to_tensor(tf.TensorShape([2 ** 40]), dtype=tf.int32)
    with pytest.raises(ValueError, match=r"^Cannot convert unknown Dimension \? to a Tensor\.$"):
        tf.convert_to_tensor(Dimension(None))
    with pytest.raises(TypeError, match=r"^Cannot convert Dimension 3 to dtype <dtype: 'float32'>\. Allowed dtypes "
                                        r"are tf\.int32 and tf\.int64\.$"):
        tf.convert_to_tensor(Dimension(3), dtype=tf.float32)
    with pytest.raises(ValueError, match=MIXED):
        C(tf.TensorShape([2, None]))
    with pytest.raises(ValueError, match="Cannot take the length of shape with unknown rank"):
        C(tf.TensorShape(None))


@pytest.mark.parametrize("value,shape,expected", [
    (5, [2, 3], np.full((2, 3), 5)), (5.0, [2, 0], np.zeros((2, 0))), ([5], [2, 2], np.full((2, 2), 5)),
    ([1, 2, 3, 4], [2, 2], [[1, 2], [3, 4]]), ([1, 2, 3, 4], [4, 1], [[1], [2], [3], [4]]),
    ([[1, 2]], [2], [1, 2]), (5, (2,), [5, 5]), (5, tf.TensorShape([2]), [5, 5]), (5, 2, [5, 5]),
    ([7], [], 7), (7, [], 7), ("a", [2], [b"a", b"a"]), (True, [2], [True, True]), ([], [0], []),
    (5, [np.int64(2)], [5, 5]), (5, [C(2)], [5, 5]), (5, C([2]), [5, 5]), ([[1, 2], [3, 4]], [4], [1, 2, 3, 4]),
    (np.float32(5), [2], [5, 5]), (np.array([[1, 2]]), [2, 1], [[1], [2]]),
])
def test_shape_argument(value, shape, expected):
    t = C(value, shape=shape)
    assert t.shape == np.shape(expected)
    assert np.asarray(t.numpy(), dtype=object).tolist() == np.asarray(expected, dtype=object).tolist()


def test_shape_argument_with_dtype():
    check(C(5, dtype=tf.float32, shape=[2]), tf.float32, [5, 5])


@pytest.mark.parametrize("value,shape,message", [
    ([1, 2, 3], [2, 2], "Tensor [1 2 3] (converted from [1, 2, 3]) has 3 elements, but got `shape` (2, 2) with 4 "
                        "elements)."),
    ([1, 2], [3], "Tensor [1 2] (converted from [1, 2]) has 2 elements, but got `shape` (3,) with 3 elements)."),
    ([1, 2, 3, 4], [], "Tensor [1 2 3 4] (converted from [1, 2, 3, 4]) has 4 elements, but got `shape` () with 1 "
                       "elements)."),
    (np.array([1, 2, 3]), [2, 2], "Tensor [1 2 3] (converted from [1 2 3]) has 3 elements, but got `shape` (2, 2) "
                                  "with 4 elements)."),
    ([], [2], "Tensor [] (converted from []) has 0 elements, but got `shape` (2,) with 2 elements)."),
])
def test_shape_argument_mismatch(value, shape, message):
    with pytest.raises(TypeError) as info:
        C(value, shape=shape)
    assert str(info.value) == "Eager execution of tf.constant with unsupported shape. " + message


def test_shape_argument_errors():
    with pytest.raises(ValueError, match="^Dimension -1 must be >= 0$"):
        C(5, shape=[-1])
    with pytest.raises(TypeError, match="^Dimension value must be integer or None"):
        C(5, shape=[2.0])
    with pytest.raises(TypeError, match="^Failed to convert ''a'' to a shape"):
        C(5, shape="a")
    with pytest.raises(ValueError, match=r"^Attempt to convert a value \(None\) with an unsupported type"):
        C(5, shape=[None])
    with pytest.raises(TypeError, match="^Cannot convert 5 to EagerTensor of dtype bool$"):
        C(5, shape=[2, 3], dtype=tf.bool)


def test_constant_of_a_tensor():
    t = C([1, 2, 3, 4])
    assert C(t).numpy().tolist() == [1, 2, 3, 4] and C(C(1.0), dtype=tf.float32).dtype is tf.float32
    check(C(t, shape=[2, 2]), tf.int32, [[1, 2], [3, 4]])
    check(C(t, shape=[2, 2], dtype=tf.int32), tf.int32, [[1, 2], [3, 4]])
    check(C(C(5), shape=[2]), tf.int32, [5, 5])
    with pytest.raises(TypeError, match=r"^Expected tensor 1 with dtype tf\.float32, but got dtype tf\.int32\.$"):
        C(C(1), dtype=tf.float32)
    with pytest.raises(TypeError, match=r"^Expected tensor 1\.5 with dtype tf\.int32, but got dtype tf\.float32\.$"):
        C(C(1.5), dtype=tf.int32)
    with pytest.raises(TypeError, match=r"^Eager execution of tf\.constant with unsupported shape\. Tensor \[1 2\] "
                                        r"\(converted from \[1 2\]\) has 2 elements, but got `shape` \(3,\) with 3 "
                                        r"elements\)\.$"):
        C(C([1, 2]), shape=[3])


@pytest.mark.parametrize("value", [[C(1)], [C(1.0), C(2.0)], [C([1, 2]), [3, 4]], [C(1), 2]])
def test_constant_rejects_lists_of_tensors(value):
    with pytest.raises(ValueError, match="Scalar tensor has no `len\\(\\)`"):
        C(value)


def test_convert_to_tensor_of_tensors():
    t = C(1)
    assert tf.convert_to_tensor(t) is t and tf.convert_to_tensor(t, dtype=tf.int32) is t
    assert tf.convert_to_tensor(t, dtype_hint=tf.float32) is t
    with pytest.raises(ValueError, match=r"^Tensor conversion requested dtype float32 for Tensor with dtype int32: "
                                         r"<tf\.Tensor: shape=\(\), dtype=int32, numpy=1>$"):
        tf.convert_to_tensor(t, dtype=tf.float32)
    with pytest.raises(ValueError, match="^Tensor conversion requested dtype int32 for Tensor with dtype float32"):
        tf.convert_to_tensor(C([1.0, 2.0]), dtype=tf.int32)
    # With a name, TensorFlow 2.21 names the argument first (recorded).
    with pytest.raises(ValueError, match=r"^keys: Tensor conversion requested dtype int64 for Tensor with dtype "
                                         r"int32: <tf\.Tensor: shape=\(1,\), dtype=int32, numpy=array\(\[1\], "
                                         r"dtype=int32\)>$"):
        tf.convert_to_tensor(C([1]), dtype=tf.int64, name="keys")


@pytest.mark.parametrize("value,hint,dtype", [
    (1, tf.float32, tf.float32), (1.5, tf.int32, tf.float32), ([1, 2], tf.float64, tf.float64),
    ("a", tf.float32, tf.string), (np.array([1, 2]), tf.float32, tf.float32), (np.int64(1), tf.int32, tf.int32),
    (1, "float64", tf.float64), (1, tf.string, tf.int32), ([1, 2.5], tf.int32, tf.float32),
    (np.array([1.5]), tf.int32, tf.int32), (1, tf.bool, tf.int32), ([2 ** 40], tf.int32, tf.int32),
    (True, tf.int32, tf.int32), (np.array(["a"]), tf.int32, tf.string),
])
def test_dtype_hint(value, hint, dtype):
    assert tf.convert_to_tensor(value, dtype_hint=hint).dtype is dtype


def test_dtype_hint_errors_and_precedence():
    assert tf.convert_to_tensor(1, dtype=tf.float32, dtype_hint=tf.int64).dtype is tf.float32
    with pytest.raises(TypeError, match="Cannot convert the argument `type_value`: 'garbage'"):
        tf.convert_to_tensor(1, dtype_hint="garbage")
    with pytest.raises(ValueError, match=r"^Attempt to convert a value \(None\)"):
        tf.convert_to_tensor(None, dtype_hint=tf.int32)
    with pytest.raises(TypeError, match="preferred_dtype"):
        tf.convert_to_tensor(1, preferred_dtype=tf.float32)


def test_convert_to_tensor_packs_lists_of_tensors():
    check(tf.convert_to_tensor([C(1), 2]), tf.int32, [1, 2])
    check(tf.convert_to_tensor([C(1.0), 2]), tf.float32, [1, 2])
    check(tf.convert_to_tensor([1, C(2.0)]), tf.float32, [1, 2])
    check(tf.convert_to_tensor([[C(1)], [C(2)]]), tf.int32, [[1], [2]])
    check(tf.convert_to_tensor((C(1), C(2))), tf.int32, [1, 2])
    check(tf.convert_to_tensor([[C(1), 2], [3, 4]]), tf.int32, [[1, 2], [3, 4]])
    check(tf.convert_to_tensor([C(1), 2], dtype=tf.float32), tf.float32, [1, 2])
    check(tf.convert_to_tensor([C(1), 2], dtype=tf.int64), tf.int64, [1, 2])
    check(tf.convert_to_tensor([C(1), 2], dtype_hint=tf.float32), tf.float32, [1, 2])
    check(tf.convert_to_tensor([C(1.5), 2], dtype=tf.int32), tf.int32, [1, 2])
    with pytest.raises(TypeError, match="^Cannot convert 2.5 to EagerTensor of dtype int32$"):
        tf.convert_to_tensor([C(1), 2.5])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"cannot compute Pack as input #1\(zero-based\) was "
                                                             r"expected to be a int32 tensor but is a float tensor"):
        tf.convert_to_tensor([C(1), C(2.0)])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Shapes of all inputs must match: values\[0\]\.shape = "
                                                             r"\[2\] != values\[1\]\.shape = \[3\]"):
        tf.convert_to_tensor([C([1, 2]), C([1, 2, 3])])
    with pytest.raises(ValueError, match=r"^Attempt to convert a value \(None\)"):
        tf.convert_to_tensor([C(1), None])


def test_constants_inside_a_function():
    outside = C([1, 2])
    seen = {}

    @tf.function
    def f(x):
        seen["copy"] = C(outside)
        seen["cast"] = C(outside, dtype=tf.float32)
        seen["reshaped"] = C(outside, shape=[2, 1])
        seen["filled"] = C(5, shape=[2, 2])
        seen["named"] = C(3.0, name="foo")
        seen["packed"] = tf.convert_to_tensor([x, 3])
        with pytest.raises(TypeError, match="^Expected any non-tensor type, but got a tensor instead\\.$"):
            C(x)
        with pytest.raises(TypeError, match=r"^Expected Tensor's shape: \(2, 2\), but got \(3,\)\.$"):
            C([1, 2, 3], shape=[2, 2])
        return x

    f(C(1))
    assert seen["copy"].op.type == "Const" and seen["copy"].dtype is tf.int32
    assert seen["cast"].dtype is tf.float32 and seen["reshaped"].shape == [2, 1]
    assert seen["filled"].shape == [2, 2] and seen["named"].name == "foo:0"
    assert seen["packed"].shape == [2] and seen["packed"].dtype is tf.int32 and seen["packed"].op.type == "Pack"


# -- round trips -------------------------------------------------------------------------------------------------
ints = st.integers(-2 ** 31, 2 ** 31 - 1)
floats = st.floats(-1e30, 1e30, allow_nan=False)


def nested(elements, max_rank=3):
    """Rectangular nested lists of `elements`."""
    return hnp.array_shapes(min_dims=1, max_dims=max_rank, max_side=3).flatmap(
        lambda shape: st.lists(elements, min_size=int(np.prod(shape)), max_size=int(np.prod(shape))).map(
            lambda flat: np.array(flat, dtype=object).reshape(shape).tolist()))


@settings(max_examples=40, deadline=None)
@given(nested(ints))
def test_nested_int_lists_round_trip(value):
    t = C(value)
    assert t.dtype is tf.int32 and t.numpy().tolist() == value


@settings(max_examples=40, deadline=None)
@given(nested(st.one_of(ints, floats)))
def test_nested_number_lists_round_trip(value):
    t = C(value)
    flat = np.array(value, dtype=object).ravel().tolist()
    assert t.dtype is (tf.int32 if all(type(v) is int for v in flat) else tf.float32)
    np.testing.assert_array_equal(t.numpy(), np.array(value, dtype=np.float64).astype(t.dtype.as_numpy_dtype))


@settings(max_examples=30, deadline=None)
@given(nested(st.text(max_size=3)))
def test_nested_string_lists_round_trip(value):
    t = C(value)
    assert t.dtype is tf.string
    expected = np.vectorize(lambda s: s.encode(), otypes=[object])(np.array(value, dtype=object))
    assert t.numpy().tolist() == expected.tolist()


@settings(max_examples=40, deadline=None)
@given(hnp.arrays(st.sampled_from([np.float16, np.float32, np.float64, np.int8, np.int16, np.int32, np.int64,
                                   np.uint8, np.uint16, np.uint32, np.uint64, np.bool_, np.complex64,
                                   np.complex128]), hnp.array_shapes(min_dims=0, max_dims=3, max_side=3)))
def test_numpy_arrays_round_trip(arr):
    t = C(arr)
    assert t.dtype is tf.as_dtype(arr.dtype) and t.shape == arr.shape
    np.testing.assert_array_equal(t.numpy(), arr)
    assert np.asarray(t).dtype == arr.dtype
    if arr.size:
        original = arr.copy()
        converted = tf.convert_to_tensor(arr)
        arr[...] = arr.flat[0] if arr.flat[0] != original.flat[-1] else 0  # tensors must not alias the input
        np.testing.assert_array_equal(t.numpy(), original)
        np.testing.assert_array_equal(converted.numpy(), original)
