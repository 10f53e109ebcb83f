"""tf.dtypes: every DType's properties, `as_dtype` conversions and errors, equality and hashing.

Expected values were read from TensorFlow 2.21.
"""
import copy
import pickle

import ml_dtypes
import numpy as np
import pytest

import tensorflux as tf

# name: (as_numpy_dtype, is_floating, is_integer, is_complex, is_bool, is_unsigned, is_quantized, size, enum)
TABLE = {
    "float16": (np.float16, True, False, False, False, False, False, 2, 19),
    "float32": (np.float32, True, False, False, False, False, False, 4, 1),
    "float64": (np.float64, True, False, False, False, False, False, 8, 2),
    "bfloat16": (ml_dtypes.bfloat16, True, False, False, False, False, False, 2, 14),
    "int8": (np.int8, False, True, False, False, False, False, 1, 6),
    "int16": (np.int16, False, True, False, False, False, False, 2, 5),
    "int32": (np.int32, False, True, False, False, False, False, 4, 3),
    "int64": (np.int64, False, True, False, False, False, False, 8, 9),
    "uint8": (np.uint8, False, True, False, False, True, False, 1, 4),
    "uint16": (np.uint16, False, True, False, False, True, False, 2, 17),
    "uint32": (np.uint32, False, True, False, False, True, False, 4, 22),
    "uint64": (np.uint64, False, True, False, False, True, False, 8, 23),
    "bool": (np.bool_, False, False, False, True, False, False, 1, 10),
    "string": (object, False, False, False, False, False, False, 0, 7),
    "complex64": (np.complex64, False, False, True, False, False, False, 8, 8),
    "complex128": (np.complex128, False, False, True, False, False, False, 16, 18),
    "qint8": (np.dtype([("qint8", "i1")]), False, False, False, False, False, True, 1, 11),
    "quint8": (np.dtype([("quint8", "u1")]), False, False, False, False, False, True, 1, 12),
    "qint16": (np.dtype([("qint16", "<i2")]), False, False, False, False, False, True, 2, 15),
    "quint16": (np.dtype([("quint16", "<u2")]), False, False, False, False, False, True, 2, 16),
    "qint32": (np.dtype([("qint32", "<i4")]), False, False, False, False, False, True, 4, 13),
}


@pytest.mark.parametrize("name", sorted(TABLE))
def test_dtype_properties(name):
    d = getattr(tf.dtypes, name)
    np_type, floating, integer, is_complex, is_bool, unsigned, quantized, size, enum = TABLE[name]
    assert d.name == name
    assert d.as_numpy_dtype == np_type
    assert (d.is_floating, d.is_integer, d.is_complex, d.is_bool, d.is_unsigned, d.is_quantized) == \
        (floating, integer, is_complex, is_bool, unsigned, quantized)
    assert d.size == size and d.as_datatype_enum == enum
    assert repr(d) == f"tf.{name}" and str(d) == f"<dtype: '{name}'>"
    assert d.base_dtype is d and d.is_numpy_compatible
    assert tf.as_dtype(name) is d and tf.as_dtype(enum) is d and tf.dtypes.DType(enum) == d
    assert d == name and d.is_compatible_with(d) and hash(d) == hash(tf.as_dtype(name))


def test_top_level_and_aliases():
    assert tf.half is tf.float16 and tf.double is tf.float64
    assert tf.as_dtype("half") is tf.float16 and tf.as_dtype("double") is tf.float64
    assert tf.as_dtype("float") is tf.float32
    assert tf.dtypes.DType is tf.DType and isinstance(tf.float32, tf.dtypes.DType)
    assert tf.dtypes.as_dtype is tf.as_dtype
    assert {tf.dtypes.qint8, tf.dtypes.quint8, tf.dtypes.qint16, tf.dtypes.quint16, tf.dtypes.qint32} <= \
        tf.dtypes.QUANTIZED_DTYPES


def test_resource_and_variant():
    for d, enum in ((tf.resource, 20), (tf.variant, 21)):
        assert d.size == 0 and not d.is_numpy_compatible and not d.is_numeric
        assert d.as_datatype_enum == enum and tf.as_dtype(d.name) is d
        with pytest.raises(KeyError):
            d.as_numpy_dtype
        with pytest.raises(TypeError, match=rf"^Cannot find minimum value of <dtype: '{d.name}'>\.$"):
            d.min
        with pytest.raises(TypeError, match=rf"^Cannot find maximum value of <dtype: '{d.name}'>\.$"):
            d.max


@pytest.mark.parametrize("d,lo,hi", [
    (tf.int8, -128, 127), (tf.int16, -32768, 32767), (tf.int32, -2 ** 31, 2 ** 31 - 1),
    (tf.int64, -2 ** 63, 2 ** 63 - 1), (tf.uint8, 0, 255), (tf.uint16, 0, 65535),
    (tf.uint32, 0, 2 ** 32 - 1), (tf.uint64, 0, 2 ** 64 - 1),
    (tf.float16, -65504.0, 65504.0), (tf.float32, -3.4028235e38, 3.4028235e38),
    (tf.float64, -1.7976931348623157e308, 1.7976931348623157e308),
    (tf.bfloat16, -3.3895314e38, 3.3895314e38),
])
def test_min_max(d, lo, hi):
    assert d.min == pytest.approx(lo, rel=1e-6) and d.max == pytest.approx(hi, rel=1e-6)
    if d.is_integer:
        assert type(d.min) is int and d.min == lo and d.max == hi


@pytest.mark.parametrize("d", [tf.bool, tf.string, tf.complex64, tf.complex128])
def test_min_max_errors(d):
    with pytest.raises(TypeError, match=rf"^Cannot find minimum value of {d} with type {d}\.$"):
        d.min
    with pytest.raises(TypeError, match=rf"^Cannot find maximum value of {d} with type {d}\.$"):
        d.max


def test_min_max_errors_quantized():
    with pytest.raises(TypeError, match=r"^Cannot find minimum value of <dtype: 'qint8'> with quantized type "
                                        r"<dtype: 'qint8'>\.$"):
        tf.dtypes.qint8.min
    with pytest.raises(TypeError, match="Cannot find maximum value of <dtype: 'quint16'> with quantized"):
        tf.dtypes.quint16.max


def test_limits_are_tensorflow_intensity_ranges():
    assert tf.float32.limits == (0, 1) and tf.float64.limits == (0, 1)
    assert tf.int8.limits == (0, 127) and tf.uint8.limits == (0, 255)
    assert tf.int64.limits == (0, 2 ** 63 - 1) and tf.bool.limits == (0, True)
    for d in (tf.float16, tf.bfloat16, tf.string, tf.complex64, tf.dtypes.qint8):
        with pytest.raises(ValueError, match=rf"^{d} does not have defined limits\.$"):
            d.limits


def test_real_dtype_and_is_numeric():
    assert tf.complex64.real_dtype is tf.float32 and tf.complex128.real_dtype is tf.float64
    assert tf.float32.real_dtype is tf.float32 and tf.string.real_dtype is tf.string
    assert tf.float32.is_numeric and tf.complex64.is_numeric and tf.dtypes.qint8.is_numeric
    assert not tf.bool.is_numeric and not tf.string.is_numeric


@pytest.mark.parametrize("value,expected", [
    (np.float32, tf.float32), (np.dtype("float32"), tf.float32), (np.float16, tf.float16),
    (np.int64, tf.int64), (np.intc, tf.int32), (np.longlong, tf.int64), (np.ulonglong, tf.uint64),
    (np.uint, tf.uint64), (np.half, tf.float16), (np.bool_, tf.bool), (np.complex64, tf.complex64),
    (np.dtype(">i4"), tf.int32), (np.dtype("float32").newbyteorder(">"), tf.float32),
    (np.dtype("<U3"), tf.string), (np.dtype("S3"), tf.string), (np.str_, tf.string), (np.bytes_, tf.string),
    (np.object_, tf.string), (np.dtype(object), tf.string), (ml_dtypes.bfloat16, tf.bfloat16),
    (np.dtype(ml_dtypes.bfloat16), tf.bfloat16), (np.dtype([("qint8", "i1")]), tf.dtypes.qint8),
    (float, tf.float32), (bool, tf.bool), (object, tf.string),
    (1, tf.float32), (3, tf.int32), (1.0, tf.float32), (True, tf.float32), (np.int32(3), tf.int32),
    (np.zeros(3), tf.float64), (np.zeros(3, np.int8), tf.int8), (np.array(["a"]), tf.string),
    (np.float64(2.0), tf.float64), (np.str_("float32"), tf.float32), (tf.float32, tf.float32),
])
def test_as_dtype(value, expected):
    assert tf.as_dtype(value) is expected


@pytest.mark.parametrize("value", [
    int, str, bytes, complex, list, None, [1], "foo", "Float32", b"float32", 0, 99, np.void, np.longdouble,
    np.dtype("datetime64[s]"), tf.TensorSpec([], tf.int64),
])
def test_as_dtype_errors(value):
    with pytest.raises(TypeError, match=r"^Cannot convert the argument `type_value`: .* to a TensorFlow DType\.$"):
        tf.as_dtype(value)


def test_as_dtype_error_text_and_tensor_argument():
    with pytest.raises(TypeError, match=r"^Cannot convert the argument `type_value`: 'foo' to a TensorFlow DType"):
        tf.as_dtype("foo")
    with pytest.raises(TypeError, match=r"<tf.Tensor: shape=\(\), dtype=int32, numpy=1> to a TensorFlow DType"):
        tf.as_dtype(tf.constant(1))


def test_dtype_constructor_from_enum():
    assert tf.dtypes.DType(3) == tf.int32
    with pytest.raises(TypeError, match="^1000 does not correspond to a valid tensorflow::DataType$"):
        tf.dtypes.DType(1000)
    with pytest.raises(ValueError, match="invalid literal for int"):
        tf.dtypes.DType("float32")


@pytest.mark.parametrize("other,equal", [
    (tf.float32, True), ("float32", True), (np.float32, True), (np.dtype("float32"), True), (float, True),
    (1, True), ("float64", False), (tf.float64, False), ("garbage", False), (None, False), (3.5, False),
    (int, False),
])
def test_equality(other, equal):
    assert (tf.float32 == other) is equal
    assert (tf.float32 != other) is (not equal)


def test_equality_is_symmetric_with_numpy_types_and_strings():
    assert np.float32 == tf.float32
    assert tf.int32 != int and tf.string != str


def test_hashable_and_usable_as_keys():
    table = {tf.float32: 1, tf.int32: 2}
    assert table[tf.as_dtype("float32")] == 1 and table[tf.dtypes.DType(3)] == 2
    assert len({tf.float32, tf.as_dtype(np.float32), tf.dtypes.DType(1)}) == 1


def test_ordering_is_undefined():
    with pytest.raises(TypeError, match="'<' not supported"):
        tf.float32 < tf.float64


def test_is_compatible_with():
    assert tf.float32.is_compatible_with("float32") and tf.float32.is_compatible_with(np.float32)
    assert not tf.float32.is_compatible_with(tf.float64) and not tf.float32.is_compatible_with(3)
    with pytest.raises(TypeError, match="Cannot convert the argument `type_value`: 'garbage'"):
        tf.float32.is_compatible_with("garbage")


def test_trace_type_protocol():
    assert tf.float32.is_subtype_of(tf.float32) and not tf.float32.is_subtype_of(tf.float64)
    assert tf.float32.most_specific_common_supertype([tf.float32]) is tf.float32
    assert tf.float32.most_specific_common_supertype([tf.float64]) is None


def test_pickle_and_copy_keep_identity():
    for d in [getattr(tf.dtypes, name) for name in TABLE] + [tf.resource, tf.variant]:
        assert pickle.loads(pickle.dumps(d)) is d
        assert copy.copy(d) is d and copy.deepcopy(d) is d
