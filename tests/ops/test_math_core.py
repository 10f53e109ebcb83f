"""The registry's eager path through add/multiply: conversion rules, dtype errors, operators."""
import numpy as np
import pytest

import tensorflux as tf


def test_add_scalars_and_python_operand_takes_tensor_dtype():
    x = tf.constant(1.5)
    assert (x + 1).dtype is tf.float32
    assert float(1 + x) == 2.5
    assert tf.add(tf.constant(2), 3).numpy() == 5


def test_mixed_tensor_dtypes_never_promote():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"cannot compute AddV2 as input #1\(zero-based\) was expected to be a int32 "
                             r"tensor but is a float tensor \[Op:AddV2\]"):
        tf.constant(1) + tf.constant(1.5)


def test_python_float_next_to_int_tensor_is_type_error():
    with pytest.raises(TypeError, match="Cannot convert 1.5 to EagerTensor of dtype int32"):
        tf.constant(1) + 1.5


def test_broadcast_error_is_tensorflow_style():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Incompatible shapes: \[2\] vs. \[3\]"):
        tf.constant([1, 2]) + tf.constant([1, 2, 3])


def test_numpy_array_next_to_tensor():
    r = tf.constant([1.0]) + np.array([1.0])
    assert r.dtype is tf.float32 and r.numpy().tolist() == [2.0]
    r = np.array([1.0]) + tf.constant([1.0])
    assert isinstance(r, tf.Tensor) and r.dtype is tf.float32
