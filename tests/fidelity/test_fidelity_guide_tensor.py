"""Differential fidelity tests adapted from TensorFlow's "Introduction to Tensors" guide
(tensorflow/docs, site/en/guide/tensor.ipynb).

Every runnable code cell is covered; each test replays the setup it needs (the guide's cells build on each
other) and compares what tensorflux prints with what TensorFlow 2.21 printed for the same adapted code.
The examples are rewritten in our own words (renamed variables, light restructuring); the expected texts
are TensorFlow's outputs. Where a guide cell ends in a bare expression, whose value the notebook displays,
the test prints `repr()` of that value. Nothing of the guide was left out.
"""
import os
import sys

import numpy as np
import pytest

import tensorflux as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _fidelity_guide_fn_tensors as fid  # noqa: E402


# Guide cell(s) 8, 10, 12.
EXPECTED_SCALAR_VECTOR_MATRIX = """\
tf.Tensor(4, shape=(), dtype=int32)
tf.Tensor([2. 3. 4.], shape=(3,), dtype=float32)
tf.Tensor(
[[1. 2.]
 [3. 4.]
 [5. 6.]], shape=(3, 2), dtype=float16)
"""


def test_scalar_vector_matrix():
    with fid.capture() as out:
        scalar = tf.constant(4)  # int32 by default
        print(scalar)
        vector = tf.constant([2.0, 3.0, 4.0])
        print(vector)
        matrix = tf.constant([[1, 2],
                              [3, 4],
                              [5, 6]], dtype=tf.float16)
        print(matrix)
    fid.check(out, EXPECTED_SCALAR_VECTOR_MATRIX)


# Guide cell(s) 15.
EXPECTED_RANK_3 = """\
tf.Tensor(
[[[ 0  1  2  3  4]
  [ 5  6  7  8  9]]

 [[10 11 12 13 14]
  [15 16 17 18 19]]

 [[20 21 22 23 24]
  [25 26 27 28 29]]], shape=(3, 2, 5), dtype=int32)
"""


def test_rank_3():
    with fid.capture() as out:
        cube = tf.constant([
            [[0, 1, 2, 3, 4],
             [5, 6, 7, 8, 9]],
            [[10, 11, 12, 13, 14],
             [15, 16, 17, 18, 19]],
            [[20, 21, 22, 23, 24],
             [25, 26, 27, 28, 29]]])
        print(cube)
    fid.check(out, EXPECTED_RANK_3)


# Guide cell(s) 19, 20.
EXPECTED_TO_NUMPY = """\
array([[1., 2.],
       [3., 4.],
       [5., 6.]], dtype=float16)
array([[1., 2.],
       [3., 4.],
       [5., 6.]], dtype=float16)
"""


def test_to_numpy():
    with fid.capture() as out:
        matrix = tf.constant([[1, 2],
                              [3, 4],
                              [5, 6]], dtype=tf.float16)
        print(repr(np.array(matrix)))
        print(repr(matrix.numpy()))
    fid.check(out, EXPECTED_TO_NUMPY)


# Guide cell(s) 23.
EXPECTED_BASIC_MATH_FUNCTIONS = """\
tf.Tensor(
[[2 3]
 [4 5]], shape=(2, 2), dtype=int32) 

tf.Tensor(
[[1 2]
 [3 4]], shape=(2, 2), dtype=int32) 

tf.Tensor(
[[3 3]
 [7 7]], shape=(2, 2), dtype=int32) 

"""


def test_basic_math_functions():
    with fid.capture() as out:
        left = tf.constant([[1, 2],
                            [3, 4]])
        right = tf.constant([[1, 1],
                             [1, 1]])
        print(tf.add(left, right), "\n")
        print(tf.multiply(left, right), "\n")
        print(tf.matmul(left, right), "\n")
    fid.check(out, EXPECTED_BASIC_MATH_FUNCTIONS)


# Guide cell(s) 24.
EXPECTED_BASIC_MATH_OPERATORS = """\
tf.Tensor(
[[2 3]
 [4 5]], shape=(2, 2), dtype=int32) 

tf.Tensor(
[[1 2]
 [3 4]], shape=(2, 2), dtype=int32) 

tf.Tensor(
[[3 3]
 [7 7]], shape=(2, 2), dtype=int32) 

"""


def test_basic_math_operators():
    with fid.capture() as out:
        left = tf.constant([[1, 2],
                            [3, 4]])
        right = tf.ones([2, 2], dtype=tf.int32)
        print(left + right, "\n")
        print(left * right, "\n")
        print(left @ right, "\n")
    fid.check(out, EXPECTED_BASIC_MATH_OPERATORS)


# Guide cell(s) 26.
EXPECTED_REDUCE_ARGMAX_SOFTMAX = """\
tf.Tensor(10.0, shape=(), dtype=float32)
tf.Tensor([1 0], shape=(2,), dtype=int64)
tf.Tensor(
[[2.6894143e-01 7.3105860e-01]
 [9.9987662e-01 1.2339458e-04]], shape=(2, 2), dtype=float32)
"""


def test_reduce_argmax_softmax():
    with fid.capture() as out:
        scores = tf.constant([[4.0, 5.0], [10.0, 1.0]])
        print(tf.reduce_max(scores))
        print(tf.math.argmax(scores))
        print(tf.nn.softmax(scores))
    fid.check(out, EXPECTED_REDUCE_ARGMAX_SOFTMAX)


# Guide cell(s) 28, 29, 30.
EXPECTED_CONVERT_TO_TENSOR = """\
<tf.Tensor: shape=(3,), dtype=int32, numpy=array([1, 2, 3], dtype=int32)>
<tf.Tensor: shape=(), dtype=int32, numpy=3>
<tf.Tensor: shape=(), dtype=int64, numpy=3>
"""


def test_convert_to_tensor():
    with fid.capture() as out:
        print(repr(tf.convert_to_tensor([1, 2, 3])))
        print(repr(tf.reduce_max([1, 2, 3])))
        print(repr(tf.reduce_max(np.array([1, 2, 3]))))
    fid.check(out, EXPECTED_CONVERT_TO_TENSOR)


# Guide cell(s) 35, 37.
EXPECTED_SHAPE_VOCABULARY = """\
dtype: <dtype: 'float32'>
rank: 4
shape: (3, 2, 4, 5)
axis 0 length: 3
last axis length: 5
element count: 120
"""


def test_shape_vocabulary():
    with fid.capture() as out:
        zeros4 = tf.zeros([3, 2, 4, 5])
        print("dtype:", zeros4.dtype)
        print("rank:", zeros4.ndim)
        print("shape:", zeros4.shape)
        print("axis 0 length:", zeros4.shape[0])
        print("last axis length:", zeros4.shape[-1])
        print("element count:", tf.size(zeros4).numpy())
    fid.check(out, EXPECTED_SHAPE_VOCABULARY)


# Guide cell(s) 39, 40.
EXPECTED_RANK_AND_SHAPE_OPS = """\
<tf.Tensor: shape=(), dtype=int32, numpy=4>
<tf.Tensor: shape=(4,), dtype=int32, numpy=array([3, 2, 4, 5], dtype=int32)>
"""


def test_rank_and_shape_ops():
    with fid.capture() as out:
        zeros4 = tf.zeros([3, 2, 4, 5])
        print(repr(tf.rank(zeros4)))
        print(repr(tf.shape(zeros4)))
    fid.check(out, EXPECTED_RANK_AND_SHAPE_OPS)


# Guide cell(s) 44, 46, 48.
EXPECTED_SINGLE_AXIS_INDEXING = """\
[ 0  1  1  2  3  5  8 13 21 34]
[0]: 0
[1]: 1
[-1]: 34
[:]: [ 0  1  1  2  3  5  8 13 21 34]
[:4]: [0 1 1 2]
[4:]: [ 3  5  8 13 21 34]
[2:7]: [1 2 3 5 8]
[::2]: [ 0  1  3  8 21]
[::-1]: [34 21 13  8  5  3  2  1  1  0]
"""


def test_single_axis_indexing():
    with fid.capture() as out:
        fib = tf.constant([0, 1, 1, 2, 3, 5, 8, 13, 21, 34])
        print(fib.numpy())
        print("[0]:", fib[0].numpy())
        print("[1]:", fib[1].numpy())
        print("[-1]:", fib[-1].numpy())
        print("[:]:", fib[:].numpy())
        print("[:4]:", fib[:4].numpy())
        print("[4:]:", fib[4:].numpy())
        print("[2:7]:", fib[2:7].numpy())
        print("[::2]:", fib[::2].numpy())
        print("[::-1]:", fib[::-1].numpy())
    fid.check(out, EXPECTED_SINGLE_AXIS_INDEXING)


# Guide cell(s) 51, 53, 55.
EXPECTED_MULTI_AXIS_INDEXING = """\
[[1. 2.]
 [3. 4.]
 [5. 6.]]
4.0
[1, :]: [3. 4.]
[:, 1]: [2. 4. 6.]
[-1, :]: [5. 6.]
[0, -1]: 2.0
[1:, :]:
[[3. 4.]
 [5. 6.]] 

"""


def test_multi_axis_indexing():
    with fid.capture() as out:
        matrix = tf.constant([[1, 2],
                              [3, 4],
                              [5, 6]], dtype=tf.float16)
        print(matrix.numpy())
        print(matrix[1, 1].numpy())
        print("[1, :]:", matrix[1, :].numpy())
        print("[:, 1]:", matrix[:, 1].numpy())
        print("[-1, :]:", matrix[-1, :].numpy())
        print("[0, -1]:", matrix[0, -1].numpy())
        print("[1:, :]:")
        print(matrix[1:, :].numpy(), "\n")
    fid.check(out, EXPECTED_MULTI_AXIS_INDEXING)


# Guide cell(s) 57.
EXPECTED_INDEX_RANK_3 = """\
tf.Tensor(
[[ 4  9]
 [14 19]
 [24 29]], shape=(3, 2), dtype=int32)
"""


def test_index_rank_3():
    with fid.capture() as out:
        cube = tf.constant([
            [[0, 1, 2, 3, 4],
             [5, 6, 7, 8, 9]],
            [[10, 11, 12, 13, 14],
             [15, 16, 17, 18, 19]],
            [[20, 21, 22, 23, 24],
             [25, 26, 27, 28, 29]]])
        print(cube[:, :, 4])
    fid.check(out, EXPECTED_INDEX_RANK_3)


# Guide cell(s) 61, 62, 64, 65.
EXPECTED_SHAPE_AND_RESHAPE = """\
(3, 1)
[3, 1]
(3, 1)
(1, 3)
"""


def test_shape_and_reshape():
    with fid.capture() as out:
        column = tf.constant([[1], [2], [3]])
        print(column.shape)
        print(column.shape.as_list())
        row = tf.reshape(column, [1, 3])
        print(column.shape)
        print(row.shape)
    fid.check(out, EXPECTED_SHAPE_AND_RESHAPE)


# Guide cell(s) 67, 69.
EXPECTED_FLATTEN = """\
tf.Tensor(
[[[ 0  1  2  3  4]
  [ 5  6  7  8  9]]

 [[10 11 12 13 14]
  [15 16 17 18 19]]

 [[20 21 22 23 24]
  [25 26 27 28 29]]], shape=(3, 2, 5), dtype=int32)
tf.Tensor(
[ 0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17 18 19 20 21 22 23
 24 25 26 27 28 29], shape=(30,), dtype=int32)
"""


def test_flatten():
    with fid.capture() as out:
        cube = tf.constant([
            [[0, 1, 2, 3, 4],
             [5, 6, 7, 8, 9]],
            [[10, 11, 12, 13, 14],
             [15, 16, 17, 18, 19]],
            [[20, 21, 22, 23, 24],
             [25, 26, 27, 28, 29]]])
        print(cube)
        print(tf.reshape(cube, [-1]))
    fid.check(out, EXPECTED_FLATTEN)


# Guide cell(s) 71.
EXPECTED_GOOD_RESHAPES = """\
tf.Tensor(
[[ 0  1  2  3  4]
 [ 5  6  7  8  9]
 [10 11 12 13 14]
 [15 16 17 18 19]
 [20 21 22 23 24]
 [25 26 27 28 29]], shape=(6, 5), dtype=int32) 

tf.Tensor(
[[ 0  1  2  3  4  5  6  7  8  9]
 [10 11 12 13 14 15 16 17 18 19]
 [20 21 22 23 24 25 26 27 28 29]], shape=(3, 10), dtype=int32)
"""


def test_good_reshapes():
    with fid.capture() as out:
        cube = tf.constant([
            [[0, 1, 2, 3, 4],
             [5, 6, 7, 8, 9]],
            [[10, 11, 12, 13, 14],
             [15, 16, 17, 18, 19]],
            [[20, 21, 22, 23, 24],
             [25, 26, 27, 28, 29]]])
        print(tf.reshape(cube, [3*2, 5]), "\n")
        print(tf.reshape(cube, [3, -1]))
    fid.check(out, EXPECTED_GOOD_RESHAPES)


# Guide cell(s) 74.
EXPECTED_BAD_RESHAPES = """\
tf.Tensor(
[[[ 0  1  2  3  4]
  [ 5  6  7  8  9]
  [10 11 12 13 14]]

 [[15 16 17 18 19]
  [20 21 22 23 24]
  [25 26 27 28 29]]], shape=(2, 3, 5), dtype=int32) 

tf.Tensor(
[[ 0  1  2  3  4  5]
 [ 6  7  8  9 10 11]
 [12 13 14 15 16 17]
 [18 19 20 21 22 23]
 [24 25 26 27 28 29]], shape=(5, 6), dtype=int32) 

Caught expected exception InvalidArgumentError
"""


def test_bad_reshapes():
    with fid.capture() as out:
        cube = tf.constant([
            [[0, 1, 2, 3, 4],
             [5, 6, 7, 8, 9]],
            [[10, 11, 12, 13, 14],
             [15, 16, 17, 18, 19]],
            [[20, 21, 22, 23, 24],
             [25, 26, 27, 28, 29]]])
        print(tf.reshape(cube, [2, 3, 5]), "\n")
        print(tf.reshape(cube, [5, 6]), "\n")
        with fid.expect_error(tf.errors.InvalidArgumentError,
                              "Input to reshape is a tensor with 30 values, but the requested shape "
                              "requires a multiple of 7", "[Op:Reshape]"):
            tf.reshape(cube, [7, -1])
    fid.check(out, EXPECTED_BAD_RESHAPES)


# Guide cell(s) 74. The guide prints the error; this compares the whole printed message.
EXPECTED_BAD_RESHAPE_EXACT_MESSAGE = """\
InvalidArgumentError: {{function_node __wrapped__Reshape_device_/job:localhost/replica:0/task:0/device:CPU:0}} Input to reshape is a tensor with 30 values, but the requested shape requires a multiple of 7 [Op:Reshape]
"""


def test_bad_reshape_exact_message():
    with fid.capture() as out:
        cube = tf.constant([
            [[0, 1, 2, 3, 4],
             [5, 6, 7, 8, 9]],
            [[10, 11, 12, 13, 14],
             [15, 16, 17, 18, 19]],
            [[20, 21, 22, 23, 24],
             [25, 26, 27, 28, 29]]])
        try:
            tf.reshape(cube, [7, -1])
        except Exception as e:
            print(f"{type(e).__name__}: {e}")
    fid.check(out, EXPECTED_BAD_RESHAPE_EXACT_MESSAGE)


# Guide cell(s) 78.
EXPECTED_CAST_CHAIN = """\
tf.Tensor([2 3 4], shape=(3,), dtype=uint8)
"""


def test_cast_chain():
    with fid.capture() as out:
        doubles = tf.constant([2.2, 3.3, 4.4], dtype=tf.float64)
        halves = tf.cast(doubles, dtype=tf.float16)
        bytes_ = tf.cast(halves, dtype=tf.uint8)  # drops the fractions
        print(bytes_)
    fid.check(out, EXPECTED_CAST_CHAIN)


# Guide cell(s) 80.
EXPECTED_BROADCAST_SCALAR = """\
tf.Tensor([2 4 6], shape=(3,), dtype=int32)
tf.Tensor([2 4 6], shape=(3,), dtype=int32)
tf.Tensor([2 4 6], shape=(3,), dtype=int32)
"""


def test_broadcast_scalar():
    with fid.capture() as out:
        base = tf.constant([1, 2, 3])
        two = tf.constant(2)
        twos = tf.constant([2, 2, 2])
        print(tf.multiply(base, 2))
        print(base * two)
        print(base * twos)
    fid.check(out, EXPECTED_BROADCAST_SCALAR)


# Guide cell(s) 82.
EXPECTED_BROADCAST_OUTER = """\
tf.Tensor(
[[1]
 [2]
 [3]], shape=(3, 1), dtype=int32) 

tf.Tensor([1 2 3 4], shape=(4,), dtype=int32) 

tf.Tensor(
[[ 1  2  3  4]
 [ 2  4  6  8]
 [ 3  6  9 12]], shape=(3, 4), dtype=int32)
"""


def test_broadcast_outer():
    with fid.capture() as out:
        base = tf.constant([1, 2, 3])
        base = tf.reshape(base, [3, 1])
        counts = tf.range(1, 5)
        print(base, "\n")
        print(counts, "\n")
        print(tf.multiply(base, counts))
    fid.check(out, EXPECTED_BROADCAST_OUTER)


# Guide cell(s) 85.
EXPECTED_WITHOUT_BROADCASTING = """\
tf.Tensor(
[[ 1  2  3  4]
 [ 2  4  6  8]
 [ 3  6  9 12]], shape=(3, 4), dtype=int32)
"""


def test_without_broadcasting():
    with fid.capture() as out:
        tall = tf.constant([[1, 1, 1, 1],
                            [2, 2, 2, 2],
                            [3, 3, 3, 3]])
        wide = tf.constant([[1, 2, 3, 4],
                            [1, 2, 3, 4],
                            [1, 2, 3, 4]])
        print(tall * wide)
    fid.check(out, EXPECTED_WITHOUT_BROADCASTING)


# Guide cell(s) 87.
EXPECTED_BROADCAST_TO = """\
tf.Tensor(
[[1 2 3]
 [1 2 3]
 [1 2 3]], shape=(3, 3), dtype=int32)
"""


def test_broadcast_to():
    with fid.capture() as out:
        print(tf.broadcast_to(tf.constant([1, 2, 3]), [3, 3]))
    fid.check(out, EXPECTED_BROADCAST_TO)


# Guide cell(s) 92, 93.
EXPECTED_RAGGED_CONSTANT_FAILS = """\
ValueError: Can't convert non-rectangular Python sequence to Tensor.
"""


def test_ragged_constant_fails():
    with fid.capture() as out:
        rows = [
            [0, 1, 2, 3],
            [4, 5],
            [6, 7, 8],
            [9]]
        try:
            tensor = tf.constant(rows)
        except Exception as e:
            print(f"{type(e).__name__}: {e}")
    fid.check(out, EXPECTED_RAGGED_CONSTANT_FAILS)


# Guide cell(s) 92, 95, 97.
EXPECTED_RAGGED_TENSOR = """\
<tf.RaggedTensor [[0, 1, 2, 3], [4, 5], [6, 7, 8], [9]]>
(4, None)
"""


def test_ragged_tensor():
    with fid.capture() as out:
        rows = [
            [0, 1, 2, 3],
            [4, 5],
            [6, 7, 8],
            [9]]
        jagged = tf.ragged.constant(rows)
        print(jagged)
        print(jagged.shape)
    fid.check(out, EXPECTED_RAGGED_TENSOR)


# Guide cell(s) 100, 103, 106.
EXPECTED_STRING_TENSORS = "tf.Tensor(b'Gray wolf', shape=(), dtype=string)\ntf.Tensor([b'Gray wolf' b'Quick brown fox' b'Lazy dog'], shape=(3,), dtype=string)\n<tf.Tensor: shape=(), dtype=string, numpy=b'\\xf0\\x9f\\xa5\\xb3\\xf0\\x9f\\x91\\x8d'>\n"


def test_string_tensors():
    with fid.capture() as out:
        wolf = tf.constant("Gray wolf")
        print(wolf)
        animals = tf.constant(["Gray wolf",
                               "Quick brown fox",
                               "Lazy dog"])
        print(animals)  # shape (3,): string length is not an axis
        print(repr(tf.constant("🥳👍")))
    fid.check(out, EXPECTED_STRING_TENSORS)


# Guide cell(s) 108.
EXPECTED_STRINGS_SPLIT_SCALAR = """\
tf.Tensor([b'Gray' b'wolf'], shape=(2,), dtype=string)
"""


def test_strings_split_scalar():
    with fid.capture() as out:
        wolf = tf.constant("Gray wolf")
        print(tf.strings.split(wolf, sep=" "))
    fid.check(out, EXPECTED_STRINGS_SPLIT_SCALAR)


# Guide cell(s) 109.
EXPECTED_STRINGS_SPLIT_VECTOR = """\
<tf.RaggedTensor [[b'Gray', b'wolf'], [b'Quick', b'brown', b'fox'], [b'Lazy', b'dog']]>
"""


def test_strings_split_vector():
    with fid.capture() as out:
        animals = tf.constant(["Gray wolf",
                               "Quick brown fox",
                               "Lazy dog"])
        print(tf.strings.split(animals))
    fid.check(out, EXPECTED_STRINGS_SPLIT_VECTOR)


# Guide cell(s) 112.
EXPECTED_STRINGS_TO_NUMBER = """\
tf.Tensor([  1.  10. 100.], shape=(3,), dtype=float32)
"""


def test_strings_to_number():
    with fid.capture() as out:
        numbers = tf.constant("1 10 100")
        print(tf.strings.to_number(tf.strings.split(numbers, " ")))
    fid.check(out, EXPECTED_STRINGS_TO_NUMBER)


# Guide cell(s) 114.
EXPECTED_BYTES_SPLIT_DECODE_RAW = """\
single bytes: tf.Tensor([b'D' b'u' b'c' b'k'], shape=(4,), dtype=string)
byte values: tf.Tensor([ 68 117  99 107], shape=(4,), dtype=uint8)
"""


def test_bytes_split_decode_raw():
    with fid.capture() as out:
        pieces = tf.strings.bytes_split(tf.constant("Duck"))
        codes = tf.io.decode_raw(tf.constant("Duck"), tf.uint8)
        print("single bytes:", pieces)
        print("byte values:", codes)
    fid.check(out, EXPECTED_BYTES_SPLIT_DECODE_RAW)


# Guide cell(s) 115.
EXPECTED_UNICODE_SPLIT_DECODE = "\nutf-8 scalar: tf.Tensor(b'\\xe3\\x82\\xa2\\xe3\\x83\\x92\\xe3\\x83\\xab \\xf0\\x9f\\xa6\\x86', shape=(), dtype=string)\n\ncharacters: tf.Tensor([b'\\xe3\\x82\\xa2' b'\\xe3\\x83\\x92' b'\\xe3\\x83\\xab' b' ' b'\\xf0\\x9f\\xa6\\x86'], shape=(5,), dtype=string)\n\ncode points: tf.Tensor([ 12450  12498  12523     32 129414], shape=(5,), dtype=int32)\n"


def test_unicode_split_decode():
    with fid.capture() as out:
        duck = tf.constant("アヒル 🦆")
        characters = tf.strings.unicode_split(duck, "UTF-8")
        code_points = tf.strings.unicode_decode(duck, "UTF-8")
        print("\nutf-8 scalar:", duck)
        print("\ncharacters:", characters)
        print("\ncode points:", code_points)
    fid.check(out, EXPECTED_UNICODE_SPLIT_DECODE)


# Guide cell(s) 119.
EXPECTED_SPARSE_TENSOR = """\
SparseTensor(indices=tf.Tensor(
[[0 0]
 [1 2]], shape=(2, 2), dtype=int64), values=tf.Tensor([1 2], shape=(2,), dtype=int32), dense_shape=tf.Tensor([3 4], shape=(2,), dtype=int64)) 

tf.Tensor(
[[1 0 0 0]
 [0 0 2 0]
 [0 0 0 0]], shape=(3, 4), dtype=int32)
"""


def test_sparse_tensor():
    with fid.capture() as out:
        sparse = tf.sparse.SparseTensor(indices=[[0, 0], [1, 2]],
                                        values=[1, 2],
                                        dense_shape=[3, 4])
        print(sparse, "\n")
        print(tf.sparse.to_dense(sparse))
    fid.check(out, EXPECTED_SPARSE_TENSOR)
