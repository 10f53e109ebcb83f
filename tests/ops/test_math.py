"""Elementwise math ops against NumPy references: values, dtypes, shapes, errors and static inference."""
import math as pymath

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import tensorflux as tf
from tensorflux._src.ops.math import arith as m, logic as math_logic

F32 = np.float32


def check(result, expected, dtype):
    assert result.dtype is dtype
    expected = np.asarray(expected)
    assert result.shape.as_list() == list(expected.shape)
    np.testing.assert_allclose(result.numpy().astype(np.float64) if dtype.is_floating else result.numpy(),
                               expected, rtol=1e-6, equal_nan=True)


# -- binary arithmetic ---------------------------------------------------------------------------

BINARY = [
    (tf.add, np.add), (tf.subtract, np.subtract), (tf.multiply, np.multiply), (tf.maximum, np.maximum),
    (tf.minimum, np.minimum), (tf.math.squared_difference, lambda a, b: (a - b) ** 2),
]


@pytest.mark.parametrize("fn,ref", BINARY)
@pytest.mark.parametrize("dtype", [tf.float32, tf.float64, tf.int32, tf.int64, tf.float16])
def test_binary_against_numpy(fn, ref, dtype):
    a = np.array([[1, -2, 3], [4, 5, -6]]).astype(dtype.as_numpy_dtype)
    b = np.array([3, 2, -1]).astype(dtype.as_numpy_dtype)
    check(fn(tf.constant(a), tf.constant(b)), ref(a, b), dtype)


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_broadcasting_matches_numpy(data):
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3))
    a = data.draw(hnp.arrays(np.float32, shapes.input_shapes[0], elements=st.floats(-10, 10, width=32)))
    b = data.draw(hnp.arrays(np.float32, shapes.input_shapes[1], elements=st.floats(-10, 10, width=32)))
    for fn, ref in BINARY[:3]:
        r = fn(a, b)
        assert r.shape.as_list() == list(shapes.result_shape)
        np.testing.assert_allclose(r.numpy(), ref(a, b), rtol=1e-6)
    spec = [tf.TensorSpec(shapes.input_shapes[0], tf.float32), tf.TensorSpec(shapes.input_shapes[1], tf.float32)]
    assert m.ADD.infer(spec, {})[0][1].as_list() == list(shapes.result_shape)


def test_python_values_use_the_tensor_dtype_as_a_hint():
    assert tf.add(tf.constant(1.0), 2).dtype is tf.float32
    assert tf.add(1, tf.constant(2, tf.int64)).dtype is tf.int64
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"cannot compute AddV2 as input #1"):
        tf.add(tf.constant(1), 1.5)  # TensorFlow's function path: 1.5 stays float32, then the op rejects it
    with pytest.raises(tf.errors.InvalidArgumentError, match="expected to be a double tensor"):
        tf.add(np.float64(1.5), tf.constant(1.0))  # NumPy values keep their dtype


def test_string_add_concatenates_with_broadcasting():
    r = tf.add(tf.constant(["a", "b"]), "c")
    assert r.dtype is tf.string and r.numpy().tolist() == [b"ac", b"bc"]
    assert (tf.constant("x") + "y").numpy() == b"xy"
    with pytest.raises(tf.errors.InvalidArgumentError, match="Sub"):
        tf.subtract("a", "b")


def test_bool_and_unsigned_rules():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Value for attr 'T' of bool is not in the list"):
        tf.add(True, False)
    assert tf.multiply(tf.constant(True), tf.constant(True)).numpy()
    assert tf.subtract(tf.constant(3, tf.uint8), tf.constant(5, tf.uint8)).numpy() == 254


def test_truediv_dtypes_follow_tensorflow():
    for src, dst in [(tf.int8, tf.float32), (tf.int16, tf.float32), (tf.uint8, tf.float32), (tf.uint16, tf.float32),
                     (tf.int32, tf.float64), (tf.int64, tf.float64), (tf.uint32, tf.float64),
                     (tf.uint64, tf.float64), (tf.float16, tf.float16), (tf.float32, tf.float32)]:
        r = tf.divide(tf.constant([5], src), tf.constant([2], src))
        assert r.dtype is dst and r.numpy().tolist() == [2.5]
    assert tf.truediv(1, 2).dtype is tf.float64
    r = tf.divide(tf.constant([1, 0, -1]), tf.constant([0, 0, 0]))
    np.testing.assert_array_equal(r.numpy(), [np.inf, np.nan, -np.inf])


def test_truediv_errors():
    with pytest.raises(TypeError, match=r"`x` and `y` must have the same dtype, got tf.int8 != tf.int16"):
        tf.truediv(tf.constant([1], tf.int8), tf.constant([3], tf.int16))
    with pytest.raises(TypeError, match=r"Invalid dtype tf.bool in __truediv__"):
        tf.divide(True, True)


def test_realdiv_on_integers_has_no_kernel():
    assert tf.realdiv(tf.constant([3.0]), 2.0).numpy().tolist() == [1.5]
    with pytest.raises(tf.errors.NotFoundError, match="RealDiv"):
        tf.realdiv(tf.constant([5]), tf.constant([2]))


def test_floordiv_and_floormod():
    x, y = np.array([-7, 7, -7, 5], np.int32), np.array([2, -2, -2, 3], np.int32)
    check(tf.math.floordiv(x, y), np.floor_divide(x, y), tf.int32)
    check(tf.math.floormod(x, y), np.mod(x, y), tf.int32)
    assert tf.math.mod is tf.math.floormod
    r = tf.math.floordiv(tf.constant([-5.0, 5.0, 1.0]), tf.constant([0.0, 2.0, 0.1]))
    np.testing.assert_array_equal(r.numpy(), [-np.inf, 2.0, 10.0])  # floor(x / y), like TensorFlow
    r = tf.math.floormod(tf.constant([-5.0, 5.0, 5.0, -4.0, 5.5]), tf.constant([0.0, -2.0, 2.0, 2.0, np.inf]))
    np.testing.assert_array_equal(r.numpy(), [np.nan, -1.0, 1.0, -0.0, 5.5])
    assert np.signbit(r.numpy()[3])
    for fn, op in [(tf.math.floordiv, "FloorDiv"), (tf.math.floormod, "FloorMod")]:
        with pytest.raises(tf.errors.InvalidArgumentError, match=rf"Integer division by zero \[Op:{op}\]"):
            fn(tf.constant([1, 2]), tf.constant([1, 0]))


def test_truncatediv_and_truncatemod():
    assert tf.truncatediv(tf.constant([-7, 7]), tf.constant([2, -2])).numpy().tolist() == [-3, -3]
    assert tf.truncatemod(tf.constant([-7.0, 7.0]), tf.constant([2.0, -2.0])).numpy().tolist() == [-1.0, 1.0]
    with pytest.raises(tf.errors.InternalError):
        tf.truncatediv(tf.constant([5]), tf.constant([0]))


def test_pow():
    check(tf.pow(tf.constant([2, 3]), tf.constant([3, 0])), [8, 1], tf.int32)
    check(tf.pow(tf.constant([2.0, 4.0]), 0.5), [np.sqrt(2), 2.0], tf.float32)
    assert np.isnan(tf.pow(tf.constant([-8.0]), 1 / 3).numpy()[0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Integers to negative integer powers are not allowed"):
        tf.pow(tf.constant([2]), tf.constant([-1]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="attr 'T' of uint8"):
        tf.pow(tf.constant([2], tf.uint8), tf.constant([2], tf.uint8))


def test_no_nan_ops():
    r = tf.math.divide_no_nan(tf.constant([1.0, 1.0, np.nan]), tf.constant([0.0, 2.0, 0.0]))
    assert r.numpy().tolist() == [0.0, 0.5, 0.0]
    r = tf.math.divide_no_nan(tf.constant([1]), tf.constant([0]))
    assert r.dtype is tf.float64 and r.numpy().tolist() == [0.0]
    r = tf.math.multiply_no_nan(tf.constant([np.inf, np.nan, 2.0]), tf.constant([0.0, 0.0, 3.0]))
    assert r.numpy().tolist() == [0.0, 0.0, 6.0]


def test_squared_difference_complex_is_magnitude():
    r = tf.math.squared_difference(tf.constant([1 + 1j]), tf.constant([0j]))
    assert r.numpy().tolist() == [2 + 0j]


def test_scalar_mul_and_atan2():
    assert tf.math.scalar_mul(2.0, tf.constant([1.5])).numpy().tolist() == [3.0]
    with pytest.raises(ValueError, match="Only scalar multiply works"):
        tf.math.scalar_mul([1.0, 2.0], tf.constant([1.0, 2.0]))
    check(tf.math.atan2(tf.constant([1.0, -1.0]), tf.constant([-1.0, 1.0])), np.arctan2([1.0, -1.0], [-1.0, 1.0]),
          tf.float32)


# -- unary ---------------------------------------------------------------------------------------

UNARY_FLOAT = [
    (tf.sqrt, np.sqrt, [0.25, 4.0, 9.0]), (tf.math.rsqrt, lambda x: 1 / np.sqrt(x), [0.25, 4.0]),
    (tf.exp, np.exp, [-1.0, 0.0, 2.0]), (tf.math.expm1, np.expm1, [1e-5, 1.0]),
    (tf.math.log, np.log, [0.5, 3.0]), (tf.math.log1p, np.log1p, [1e-6, 2.0]),
    (tf.sin, np.sin, [0.1, 2.0]), (tf.cos, np.cos, [0.1, 2.0]), (tf.tan, np.tan, [0.1, 1.0]),
    (tf.tanh, np.tanh, [-3.0, 0.5]), (tf.sigmoid, lambda x: 1 / (1 + np.exp(-x)), [-3.0, 0.0, 4.0]),
    (tf.floor, np.floor, [-1.5, 1.5]), (tf.math.ceil, np.ceil, [-1.5, 1.5]),
    (tf.math.reciprocal, np.reciprocal, [0.5, -4.0]), (tf.square, np.square, [-3.0, 0.5]),
    (tf.abs, np.abs, [-0.0, -1.5, 2.0]), (tf.negative, np.negative, [1.0, -2.0]),
    (tf.sign, np.sign, [-2.0, 0.0, 3.0]), (tf.math.asin, np.arcsin, [0.5]), (tf.math.acos, np.arccos, [0.5]),
    (tf.math.atan, np.arctan, [2.0]), (tf.math.sinh, np.sinh, [1.0]), (tf.math.cosh, np.cosh, [1.0]),
    (tf.math.asinh, np.arcsinh, [1.0]), (tf.math.acosh, np.arccosh, [2.0]), (tf.math.atanh, np.arctanh, [0.5]),
    (tf.math.rint, np.rint, [0.5, 1.5, -2.5]),
]


@pytest.mark.parametrize("fn,ref,values", UNARY_FLOAT)
@pytest.mark.parametrize("dtype", [tf.float32, tf.float64, tf.float16, tf.bfloat16])
def test_unary_float_against_numpy(fn, ref, values, dtype):
    x = np.array(values, dtype=dtype.as_numpy_dtype)
    r = fn(tf.constant(x))
    assert r.dtype is dtype and r.shape.as_list() == [len(values)]
    tol = 1e-6 if dtype in (tf.float32, tf.float64) else 1e-2
    np.testing.assert_allclose(r.numpy().astype(np.float64), ref(x.astype(np.float64)), rtol=tol, atol=tol)


@pytest.mark.parametrize("fn", [tf.sqrt, tf.exp, tf.math.log, tf.sigmoid, tf.tanh, tf.floor, tf.math.erf,
                                tf.math.is_nan])
def test_float_only_ops_reject_integers(fn):
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Value for attr 'T' of int32 is not in the list of allowed values: bfloat16, half"):
        fn(tf.constant([1]))


def test_integer_unary_ops():
    check(tf.abs(tf.constant([-3, 4])), [3, 4], tf.int32)
    assert tf.abs(tf.constant([-128], tf.int8)).numpy().tolist() == [-128]
    check(tf.sign(tf.constant([-3, 0, 5])), [-1, 0, 1], tf.int32)
    check(tf.square(tf.constant([200], tf.uint8)), [64], tf.uint8)
    check(tf.round(tf.constant([1, 2])), [1, 2], tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Neg"):
        tf.negative(tf.constant(3, tf.uint8))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Abs"):
        tf.abs(tf.constant(3, tf.uint8))
    with pytest.raises(tf.errors.NotFoundError, match="Reciprocal"):
        tf.math.reciprocal(tf.constant([2]))


def test_complex_unary_ops():
    r = tf.abs(tf.constant([3 + 4j]))
    assert r.dtype is tf.float64 and r.numpy().tolist() == [5.0]
    r = tf.abs(tf.constant([3 + 4j], tf.complex64))
    assert r.dtype is tf.float32
    assert tf.sign(tf.constant([3 + 4j, 0j])).numpy().tolist() == [0.6 + 0.8j, 0j]
    np.testing.assert_allclose(tf.math.rsqrt(tf.constant([4j])).numpy(), [0.35355339 - 0.35355339j])
    assert tf.math.conj(tf.constant([1 + 2j])).numpy().tolist() == [1 - 2j]
    x = tf.constant([1.0])
    assert tf.math.conj(x) is x
    assert m.COMPLEX_ABS.infer([tf.TensorSpec([None], tf.complex64)], {})[0][0] is tf.float32


def test_round_is_bankers():
    r = tf.round(tf.constant([0.5, 1.5, 2.5, -0.5, -1.5]))
    assert r.numpy().tolist() == [0.0, 2.0, 2.0, -0.0, -2.0]


def test_sigmoid_is_stable():
    r = tf.sigmoid(tf.constant([-100.0, 0.0, 100.0, -1000.0]))
    # TensorFlow 2.21 prints 0.0 for sigmoid(-100): its CPU kernels flush the subnormal 3.7e-44 to zero.
    assert r.numpy().tolist() == [0.0, 0.5, 1.0, 0.0]
    assert tf.sigmoid(tf.constant([-100.0], tf.float64)).numpy()[0] == pytest.approx(3.72e-44, rel=1e-2)
    r = tf.sigmoid(tf.constant([1j]))
    np.testing.assert_allclose(r.numpy(), 1 / (1 + np.exp(-1j)))


def test_erf_matches_math_erf():
    x = np.concatenate([np.linspace(-6, 6, 241), [0.0, 2.4999, 2.5, 2.5001, 10.0, np.inf, -np.inf]])
    r = tf.math.erf(tf.constant(x))
    expected = [pymath.erf(v) for v in x]
    np.testing.assert_allclose(r.numpy(), expected, rtol=2e-15, atol=1e-16)
    assert np.isnan(tf.math.erf(tf.constant([np.nan])).numpy()[0])
    r16 = tf.math.erf(tf.constant([0.5], tf.float16))
    assert r16.dtype is tf.float16 and abs(float(r16.numpy()[0]) - 0.5205) < 1e-3


def test_special_values():
    np.testing.assert_array_equal(tf.math.rsqrt(tf.constant([0.0])).numpy(), [np.inf])
    np.testing.assert_array_equal(tf.math.log(tf.constant([-1.0, 0.0])).numpy(), [np.nan, -np.inf])
    r = tf.maximum(tf.constant([np.nan, 1.0]), tf.constant([1.0, np.nan]))
    assert np.isnan(r.numpy()).all()
    assert tf.math.is_nan(tf.constant([np.nan, 1.0])).numpy().tolist() == [True, False]
    assert tf.math.is_inf(tf.constant([np.inf, -np.inf, 1.0])).numpy().tolist() == [True, True, False]
    assert tf.math.is_finite(tf.constant([np.inf, np.nan, 1.0])).numpy().tolist() == [False, False, True]


def test_unary_infer_keeps_unknown_dims():
    for op in (m.SQRT, m.NEG, m.ERF, m.ROUND):
        assert op.infer([tf.TensorSpec([None, 3], tf.float32)], {}) == [(tf.float32, tf.TensorShape([None, 3]))]
        assert op.infer([tf.TensorSpec(None, tf.float32)], {})[0][1].rank is None
    assert m.IS_NAN.infer([tf.TensorSpec([None], tf.float32)], {})[0] == (tf.bool, tf.TensorShape([None]))


def test_binary_infer_unknown_and_errors():
    spec = [tf.TensorSpec([None, 3], tf.float32), tf.TensorSpec([1, None], tf.float32)]
    assert m.MUL.infer(spec, {})[0][1].as_list() == [None, 3]
    assert m.ADD.infer([tf.TensorSpec(None, tf.float32), tf.TensorSpec([3], tf.float32)], {})[0][1].rank is None
    assert math_logic.LESS.infer(spec, {})[0][0] is tf.bool
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 3"):
        m.SUB.infer([tf.TensorSpec([2], tf.float32), tf.TensorSpec([3], tf.float32)], {})


# -- comparisons, logic, bitwise --------------------------------------------------------------------

@pytest.mark.parametrize("fn,ref", [(tf.equal, np.equal), (tf.not_equal, np.not_equal), (tf.less, np.less),
                                    (tf.less_equal, np.less_equal), (tf.greater, np.greater),
                                    (tf.greater_equal, np.greater_equal)])
def test_comparisons(fn, ref):
    a, b = np.array([[1.0, 2.0, 3.0]], F32), np.array([[2.0], [1.0]], F32)
    r = fn(a, b)
    assert r.dtype is tf.bool and r.shape.as_list() == [2, 3]
    np.testing.assert_array_equal(r.numpy(), ref(a, b))


def test_comparison_dtype_rules():
    assert tf.equal("a", "a").numpy() and not tf.equal(True, False).numpy()
    with pytest.raises(tf.errors.InvalidArgumentError, match="attr 'T' of string"):
        tf.less("a", "b")
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Incompatible shapes: \[2\] vs. \[3\]"):
        tf.equal(tf.constant([1, 2]), tf.constant([1, 2, 3]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="cannot compute Equal as input #1"):
        tf.equal(tf.constant(1), tf.constant(1.0))


def test_logical_ops():
    a, b = np.array([True, True, False, False]), np.array([True, False, True, False])
    for fn, ref in [(tf.logical_and, np.logical_and), (tf.logical_or, np.logical_or),
                    (tf.math.logical_xor, np.logical_xor)]:
        r = fn(a, b)
        assert r.dtype is tf.bool
        np.testing.assert_array_equal(r.numpy(), ref(a, b))
    np.testing.assert_array_equal(tf.logical_not(a).numpy(), ~a)
    assert tf.logical_and(True, [True, False]).numpy().tolist() == [True, False]
    with pytest.raises(TypeError, match="Cannot convert 1 to EagerTensor of dtype bool"):
        tf.logical_and(1, 0)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"cannot compute LogicalAnd as input #0\(zero-based\) was expected to be a bool"):
        tf.logical_and(tf.constant([1]), tf.constant([0]))


@pytest.mark.parametrize("dtype", [tf.int8, tf.int32, tf.int64, tf.uint8, tf.uint16])
def test_bitwise_against_numpy(dtype):
    a = np.array([6, 5, 0, 127]).astype(dtype.as_numpy_dtype)
    b = np.array([3, 1, 7, 2]).astype(dtype.as_numpy_dtype)
    for fn, ref in [(tf.bitwise.bitwise_and, np.bitwise_and), (tf.bitwise.bitwise_or, np.bitwise_or),
                    (tf.bitwise.bitwise_xor, np.bitwise_xor), (tf.bitwise.left_shift, np.left_shift),
                    (tf.bitwise.right_shift, np.right_shift)]:
        check(fn(a, b), ref(a, b), dtype)
    check(tf.bitwise.invert(a), np.invert(a), dtype)


def test_shifts_clamp_like_tensorflow():
    r = tf.bitwise.left_shift(tf.constant([1, 1, 1, -8]), tf.constant([31, 32, -1, 40]))
    assert r.numpy().tolist() == [-2 ** 31, -2 ** 31, 1, 0]
    r = tf.bitwise.right_shift(tf.constant([-8, 8, 8, 8]), tf.constant([1, 33, -1, 31]))
    assert r.numpy().tolist() == [-4, 0, 8, 0]
    assert tf.bitwise.right_shift(tf.constant([200], tf.uint8), tf.constant([9], tf.uint8)).numpy().tolist() == [1]
    with pytest.raises(tf.errors.InvalidArgumentError, match="attr 'T' of float is not in the list"):
        tf.bitwise.invert(tf.constant(1.0))


# -- cast -----------------------------------------------------------------------------------------

def test_cast_float_to_int_truncates_and_saturates_like_tensorflow():
    v = tf.constant([np.nan, 300.0, -1.0, 1e10, -1e10, 3e9, 2.7, -2.7])
    expected = {
        tf.int8: [0, 44, -1, 0, 0, 0, 2, -2],
        tf.int16: [0, 300, -1, 0, 0, 0, 2, -2],
        tf.uint16: [0, 300, 65535, 0, 0, 0, 2, 65534],
        tf.int32: [-2 ** 31, 300, -1, -2 ** 31, -2 ** 31, -2 ** 31, 2, -2],
        tf.uint32: [2 ** 31, 300, 2 ** 32 - 1, 2 ** 31, 2 ** 31, 3000000000, 2, 2 ** 32 - 2],
        tf.int64: [-2 ** 63, 300, -1, 10 ** 10, -10 ** 10, 3000000000, 2, -2],
        tf.uint64: [2 ** 63, 300, 2 ** 64 - 1, 10 ** 10, 2 ** 64 - 10 ** 10, 3000000000, 2, 2 ** 64 - 2],
    }
    for dtype, values in expected.items():
        r = tf.cast(v, dtype)
        assert r.dtype is dtype and r.numpy().tolist() == values, dtype
    assert tf.cast(tf.constant([np.nan, 300.0], tf.bfloat16), tf.int32).numpy().tolist() == [-2 ** 31, 300]


def test_cast_bool_and_complex():
    assert tf.cast(tf.constant([0, 2]), tf.bool).numpy().tolist() == [False, True]
    assert tf.cast(tf.constant([0.0, 0.1, np.nan]), tf.bool).numpy().tolist() == [False, True, True]
    assert tf.cast(tf.constant([True, False]), tf.float32).numpy().tolist() == [1.0, 0.0]
    assert tf.cast(tf.constant([1 + 2j]), tf.float32).numpy().tolist() == [1.0]
    assert tf.cast(tf.constant([1.7 + 2j]), tf.int32).numpy().tolist() == [1]
    assert tf.cast(tf.constant([0 + 2j]), tf.bool).numpy().tolist() == [False]
    r = tf.cast(tf.constant([1.5]), tf.complex64)
    assert r.dtype is tf.complex64 and r.numpy().tolist() == [1.5 + 0j]


def test_cast_conversions_and_identity():
    assert tf.cast(1.7, tf.int32).numpy() == 1
    assert tf.cast([1, 2], tf.float32).dtype is tf.float32
    x = tf.constant(1.0)
    assert tf.cast(x, tf.float32) is x
    assert tf.cast(tf.constant([300, -129]), tf.int8).numpy().tolist() == [44, 127]
    assert tf.cast(tf.constant([1e6], tf.float64), tf.float16).numpy().tolist() == [np.inf]
    assert tf.dtypes.cast(tf.constant([1.5]), "int32", name="x").numpy().tolist() == [1]
    with pytest.raises(TypeError, match="Cannot convert the argument `type_value`: 'foo'"):
        tf.cast(tf.constant([1]), "foo")
    with pytest.raises(tf.errors.UnimplementedError, match=r"Cast string to float is not supported \[Op:Cast\]"):
        tf.cast(tf.constant(["1"]), tf.float32)
    with pytest.raises(tf.errors.UnimplementedError, match="Cast int32 to string is not supported"):
        tf.cast(tf.constant([1]), tf.string)


def test_cast_infer():
    out = m.CAST.infer([tf.TensorSpec([None, 2], tf.float32)], {"DstT": np.dtype(np.int64)})
    assert out == [(tf.int64, tf.TensorShape([None, 2]))]


def test_saturate_cast():
    assert tf.dtypes.saturate_cast(tf.constant([300.0, -5.0, 7.9]), tf.uint8).numpy().tolist() == [255, 0, 7]
    assert tf.saturate_cast(tf.constant([70000, -70000]), tf.int16).numpy().tolist() == [32767, -32768]


# -- clip_by_value, add_n --------------------------------------------------------------------------

def test_clip_by_value():
    check(tf.clip_by_value(tf.constant([1, 5, 9]), 2, 7), [2, 5, 7], tf.int32)
    check(tf.clip_by_value(tf.constant([1.0, 5.0]), 2, 7), [2.0, 5.0], tf.float32)
    check(tf.clip_by_value(tf.constant([1.0, 5.0]), 7.0, 2.0), [7.0, 7.0], tf.float32)
    check(tf.clip_by_value(tf.constant([[1.0, 5.0], [3.0, 0.0]]), [0.0, 4.0], 4.5), [[1.0, 4.5], [3.0, 4.0]],
          tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Incompatible shapes"):
        tf.clip_by_value(tf.constant([1, 5, 9]), [2, 3], 7)
    with pytest.raises(ValueError, match=r"Shapes \(3,\) and \(2, 3\) are incompatible"):
        tf.clip_by_value(tf.constant([1, 5, 9]), tf.constant([[2], [3]]), 7)


def test_add_n():
    a, b, c = np.arange(6, dtype=np.int32).reshape(2, 3), np.ones((2, 3), np.int32), np.full((2, 3), 5, np.int32)
    check(tf.add_n([a, b, c]), a + b + c, tf.int32)
    x = tf.constant([1.0])
    assert tf.add_n([x]) is x
    assert tf.add_n(tf.constant([1, 2])).numpy() == 3
    with pytest.raises(ValueError, match="at least one Tensor"):
        tf.add_n([])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"must have the same size and shape.  Input 0: \[2\] != input 1: \[\]"):
        tf.add_n([tf.constant([1, 2]), tf.constant(1)])
    with pytest.raises(tf.errors.InvalidArgumentError, match="cannot compute AddN as input #1"):
        tf.add_n([1, 2.0])


def test_add_n_infer():
    spec = [tf.TensorSpec([None, 2], tf.float32), tf.TensorSpec([3, None], tf.float32)]
    assert m.ADD_N.infer(spec, {})[0][1].as_list() == [3, 2]
    with pytest.raises(ValueError, match="Dimension 0 in both shapes must be equal, but are 2 and 3"):
        m.ADD_N.infer([tf.TensorSpec([2], tf.float32), tf.TensorSpec([3], tf.float32)], {})


def test_namespaces():
    for name in ["add", "subtract", "multiply", "divide", "truediv", "pow", "negative", "abs", "sign", "square",
                 "sqrt", "exp", "tanh", "sigmoid", "maximum", "minimum", "round", "floor", "add_n", "equal",
                 "less", "logical_and", "cast", "clip_by_value", "reduce_sum", "matmul", "einsum", "tensordot",
                 "argmax", "cumsum", "realdiv"]:
        assert callable(getattr(tf, name)), name
    for name in ["floordiv", "floormod", "mod", "erf", "ceil", "log", "log1p", "expm1", "rsqrt", "reciprocal",
                 "logical_xor", "is_nan", "is_finite", "is_inf", "divide_no_nan", "squared_difference",
                 "count_nonzero", "reduce_logsumexp", "argmin", "add"]:
        assert callable(getattr(tf.math, name)), name
    assert tf.dtypes.cast is tf.cast and tf.linalg.matmul is tf.matmul
    assert not hasattr(tf, "ceil")  # like TensorFlow, only tf.math.ceil
