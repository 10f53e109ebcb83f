"""Differential fidelity tests adapted from TensorFlow's "Introduction to Variables" guide
(tensorflow/docs, site/en/guide/variable.ipynb).

Every runnable code cell is covered; each test replays the setup it needs (the guide's cells build on each
other) and compares what tensorflux prints with what TensorFlow 2.21 printed for the same adapted code.
The examples are rewritten in our own words (renamed variables, light restructuring); the expected texts
are TensorFlow's outputs. Cells that only create objects without printing are checked through what the
following cells print about those objects.

Left out: the commented-out `tf.debugging.set_log_device_placement(True)` of the setup cell (it is a
comment in the guide, and its device-placement log lines are TensorFlow log output). The `GPU:0` cell runs
as in the guide on this CPU-only machine (soft device placement falls back to the CPU).
"""
import os
import sys

import tensorflux as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _fidelity_guide_fn_tensors as fid  # noqa: E402


# Guide cell(s) 8, 10.
EXPECTED_CREATE_AND_INSPECT = """\
shape: (2, 2)
dtype: <dtype: 'float32'>
numpy: [[1. 2.]
 [3. 4.]]
<tf.Variable 'Variable:0' shape=(4,) dtype=bool, numpy=array([False, False, False,  True])>
<tf.Variable 'Variable:0' shape=(2,) dtype=complex128, numpy=array([5.+4.j, 6.+1.j])>
"""


def test_create_and_inspect():
    with fid.capture() as out:
        start = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        weights = tf.Variable(start)
        flags = tf.Variable([False, False, False, True])
        complex_numbers = tf.Variable([5 + 4j, 6 + 1j])
        print("shape:", weights.shape)
        print("dtype:", weights.dtype)
        print("numpy:", weights.numpy())
        # the guide only creates these two; show what they hold
        print(flags)
        print(complex_numbers)
    fid.check(out, EXPECTED_CREATE_AND_INSPECT)


# Guide cell(s) 12.
EXPECTED_VARIABLE_AS_TENSOR = """\
variable: <tf.Variable 'Variable:0' shape=(2, 2) dtype=float32, numpy=
array([[1., 2.],
       [3., 4.]], dtype=float32)>

as a tensor: tf.Tensor(
[[1. 2.]
 [3. 4.]], shape=(2, 2), dtype=float32)

argmax per column: tf.Tensor([1 1], shape=(2,), dtype=int64)

reshaped copy: tf.Tensor([[1. 2. 3. 4.]], shape=(1, 4), dtype=float32)
"""


def test_variable_as_tensor():
    with fid.capture() as out:
        weights = tf.Variable(tf.constant([[1.0, 2.0], [3.0, 4.0]]))
        print("variable:", weights)
        print("\nas a tensor:", tf.convert_to_tensor(weights))
        print("\nargmax per column:", tf.math.argmax(weights))
        # a new tensor; the variable keeps its shape
        print("\nreshaped copy:", tf.reshape(weights, [1, 4]))
    fid.check(out, EXPECTED_VARIABLE_AS_TENSOR)


# Guide cell(s) 14.
EXPECTED_ASSIGN_KEEPS_DTYPE_AND_SHAPE = """\
<tf.Variable 'Variable:0' shape=(2,) dtype=float32, numpy=array([1., 2.], dtype=float32)>
ValueError: Cannot assign value to variable ' Variable:0': Shape mismatch.The variable shape (2,), and the assigned value shape (3,) are incompatible.
"""


def test_assign_keeps_dtype_and_shape():
    with fid.capture() as out:
        pair = tf.Variable([2.0, 3.0])
        pair.assign([1, 2])  # stays float32
        print(pair)
        try:
            pair.assign([1.0, 2.0, 3.0])  # would resize the variable
        except Exception as e:
            print(f"{type(e).__name__}: {e}")
    fid.check(out, EXPECTED_ASSIGN_KEEPS_DTYPE_AND_SHAPE)


# Guide cell(s) 16.
EXPECTED_COPIES_DO_NOT_SHARE_MEMORY = """\
[5. 6.]
[2. 3.]
[7. 9.]
[0. 0.]
"""


def test_copies_do_not_share_memory():
    with fid.capture() as out:
        first = tf.Variable([2.0, 3.0])
        second = tf.Variable(first)
        first.assign([5, 6])
        print(first.numpy())
        print(second.numpy())
        print(first.assign_add([2, 3]).numpy())
        print(first.assign_sub([7, 9]).numpy())
    fid.check(out, EXPECTED_COPIES_DO_NOT_SHARE_MEMORY)


# Guide cell(s) 18.
EXPECTED_SAME_NAME_DIFFERENT_VALUES = """\
tf.Tensor(
[[False False]
 [False False]], shape=(2, 2), dtype=bool)
Mark:0 Mark:0
"""


def test_same_name_different_values():
    with fid.capture() as out:
        start = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        mark_one = tf.Variable(start, name="Mark")
        mark_two = tf.Variable(start + 1, name="Mark")
        print(mark_one == mark_two)
        print(mark_one.name, mark_two.name)
    fid.check(out, EXPECTED_SAME_NAME_DIFFERENT_VALUES)


# Guide cell(s) 20.
EXPECTED_NON_TRAINABLE = """\
False
<tf.Variable 'Variable:0' shape=() dtype=int32, numpy=1>
"""


def test_non_trainable():
    with fid.capture() as out:
        counter = tf.Variable(1, trainable=False)
        print(counter.trainable)
        print(counter)
    fid.check(out, EXPECTED_NON_TRAINABLE)


# Guide cell(s) 22.
EXPECTED_DEVICE_CPU = """\
tf.Tensor(
[[22. 28.]
 [49. 64.]], shape=(2, 2), dtype=float32)
"""


def test_device_cpu():
    with fid.capture() as out:
        with tf.device('CPU:0'):
            lhs = tf.Variable([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
            rhs = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
            product = tf.matmul(lhs, rhs)
        print(product)
    fid.check(out, EXPECTED_DEVICE_CPU)


# Guide cell(s) 24.
EXPECTED_DEVICE_CROSS = """\
tf.Tensor(
[[ 1.  4.  9.]
 [ 4. 10. 18.]], shape=(2, 3), dtype=float32)
"""


def test_device_cross():
    with fid.capture() as out:
        with tf.device('CPU:0'):
            table = tf.Variable([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
            row = tf.Variable([[1.0, 2.0, 3.0]])
        with tf.device('GPU:0'):
            scaled = table * row
        print(scaled)
    fid.check(out, EXPECTED_DEVICE_CROSS)
