"""Differential fidelity tests adapted from TensorFlow's "Introduction to tensor slicing" guide
(tensorflow/docs, site/en/guide/tensor_slicing.ipynb).

Every runnable code cell is covered; each test replays the setup it needs (the guide's cells build on each
other) and compares what tensorflux prints with what TensorFlow 2.21 printed for the same adapted code.
The examples are rewritten in our own words (renamed variables, light restructuring); the expected texts
are TensorFlow's outputs. Nothing of the guide was left out.
"""
import os
import sys

import numpy as np
import pytest

import tensorflux as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _fidelity_guide_fn_tensors as fid  # noqa: E402


# Guide cell(s) 8.
EXPECTED_SLICE_1D = """\
tf.Tensor([1 2 3], shape=(3,), dtype=int32)
"""


def test_slice_1d():
    with fid.capture() as out:
        digits = tf.constant([0, 1, 2, 3, 4, 5, 6, 7])
        print(tf.slice(digits, begin=[1], size=[3]))
    fid.check(out, EXPECTED_SLICE_1D)


# Guide cell(s) 10, 12.
EXPECTED_PYTHON_SLICING_1D = """\
tf.Tensor([1 2 3], shape=(3,), dtype=int32)
tf.Tensor([5 6 7], shape=(3,), dtype=int32)
"""


def test_python_slicing_1d():
    with fid.capture() as out:
        digits = tf.constant([0, 1, 2, 3, 4, 5, 6, 7])
        print(digits[1:4])
        print(digits[-3:])
    fid.check(out, EXPECTED_PYTHON_SLICING_1D)


# Guide cell(s) 15.
EXPECTED_PYTHON_SLICING_2D = """\
tf.Tensor(
[[ 1  2]
 [ 6  7]
 [11 12]], shape=(3, 2), dtype=int32)
"""


def test_python_slicing_2d():
    with fid.capture() as out:
        grid = tf.constant([[0, 1, 2, 3, 4],
                            [5, 6, 7, 8, 9],
                            [10, 11, 12, 13, 14],
                            [15, 16, 17, 18, 19]])
        print(grid[:-1, 1:3])
    fid.check(out, EXPECTED_PYTHON_SLICING_2D)


# Guide cell(s) 18.
EXPECTED_SLICE_3D = """\
tf.Tensor([[[25 27]]], shape=(1, 1, 2), dtype=int32)
"""


def test_slice_3d():
    with fid.capture() as out:
        cube = tf.constant([[[1, 3, 5, 7],
                             [9, 11, 13, 15]],
                            [[17, 19, 21, 23],
                             [25, 27, 29, 31]]])
        print(tf.slice(cube, begin=[1, 1, 0], size=[1, 1, 2]))
    fid.check(out, EXPECTED_SLICE_3D)


# Guide cell(s) 21.
EXPECTED_GATHER_VS_STRIDED = """\
tf.Tensor([0 3 6], shape=(3,), dtype=int32)
<tf.Tensor: shape=(3,), dtype=int32, numpy=array([0, 3, 6], dtype=int32)>
"""


def test_gather_vs_strided():
    with fid.capture() as out:
        digits = tf.constant([0, 1, 2, 3, 4, 5, 6, 7])
        print(tf.gather(digits, indices=[0, 3, 6]))
        # the same elements by a stride; the guide shows the cell's value (its repr)
        print(repr(digits[::3]))
    fid.check(out, EXPECTED_GATHER_VS_STRIDED)


# Guide cell(s) 24.
EXPECTED_GATHER_STRINGS = """\
tf.Tensor([b'c' b'a' b't' b's'], shape=(4,), dtype=string)
"""


def test_gather_strings():
    with fid.capture() as out:
        letters = tf.constant(list('abcdefghijklmnopqrstuvwxyz'))
        print(tf.gather(letters, indices=[2, 0, 19, 18]))
    fid.check(out, EXPECTED_GATHER_STRINGS)


# Guide cell(s) 27.
EXPECTED_GATHER_ND_ROWS = """\
tf.Tensor(
[[2 7]
 [3 8]
 [0 5]], shape=(3, 2), dtype=int32)
"""


def test_gather_nd_rows():
    with fid.capture() as out:
        pairs = tf.constant([[0, 5],
                             [1, 6],
                             [2, 7],
                             [3, 8],
                             [4, 9]])
        print(tf.gather_nd(pairs, indices=[[2], [3], [0]]))
    fid.check(out, EXPECTED_GATHER_ND_ROWS)


# Guide cell(s) 29, 30, 31.
EXPECTED_GATHER_ND_NUMPY = """\
tf.Tensor([ 0 16], shape=(2,), dtype=int64)
tf.Tensor(
[[[ 0  1  2]
  [ 6  7  8]]

 [[ 9 10 11]
  [15 16 17]]], shape=(2, 2, 3), dtype=int64)
tf.Tensor(
[[ 0  1  2]
 [ 6  7  8]
 [ 9 10 11]
 [15 16 17]], shape=(4, 3), dtype=int64)
"""


def test_gather_nd_numpy():
    with fid.capture() as out:
        block = np.reshape(np.arange(18), [2, 3, 3])
        print(tf.gather_nd(block, indices=[[0, 0, 0], [1, 2, 1]]))
        # two matrices
        print(tf.gather_nd(block, indices=[[[0, 0], [0, 2]], [[1, 0], [1, 2]]]))
        # one matrix
        print(tf.gather_nd(block, indices=[[0, 0], [0, 2], [1, 0], [1, 2]]))
    fid.check(out, EXPECTED_GATHER_ND_NUMPY)


# Guide cell(s) 33.
EXPECTED_SCATTER_ND = """\
tf.Tensor([ 0  2  0  4  0  6  0  8  0 10], shape=(10,), dtype=int32)
"""


def test_scatter_nd():
    with fid.capture() as out:
        length = tf.constant([10])
        where = tf.constant([[1], [3], [5], [7], [9]])
        values = tf.constant([2, 4, 6, 8, 10])
        print(tf.scatter_nd(indices=where, updates=values, shape=length))
    fid.check(out, EXPECTED_SCATTER_ND)


# Guide cell(s) 35, 37.
EXPECTED_GATHER_THEN_SCATTER = """\
tf.Tensor(
[[ 0  0  2  0  0]
 [ 0  0  0  0  0]
 [ 0 11  0  0  0]
 [ 0  0  0 18  0]], shape=(4, 5), dtype=int32)
"""


def test_gather_then_scatter():
    with fid.capture() as out:
        grid = tf.constant([[0, 1, 2, 3, 4],
                            [5, 6, 7, 8, 9],
                            [10, 11, 12, 13, 14],
                            [15, 16, 17, 18, 19]])
        spots = tf.constant([[0, 2], [2, 1], [3, 3]])
        picked = tf.gather_nd(grid, indices=spots)
        rebuilt = tf.scatter_nd(indices=spots, updates=picked, shape=tf.constant([4, 5]))
        print(rebuilt)
    fid.check(out, EXPECTED_GATHER_THEN_SCATTER)


# Guide cell(s) 39, 40.
EXPECTED_SPARSE_EQUIVALENT = """\
SparseTensor(indices=tf.Tensor(
[[0 2]
 [2 1]
 [3 3]], shape=(3, 2), dtype=int64), values=tf.Tensor([ 2 11 18], shape=(3,), dtype=int32), dense_shape=tf.Tensor([4 5], shape=(2,), dtype=int64))
tf.Tensor(
[[ 0  0  2  0  0]
 [ 0  0  0  0  0]
 [ 0 11  0  0  0]
 [ 0  0  0 18  0]], shape=(4, 5), dtype=int32)
"""


def test_sparse_equivalent():
    with fid.capture() as out:
        sparse = tf.SparseTensor(indices=[[0, 2], [2, 1], [3, 3]],
                                 values=[2, 11, 18],
                                 dense_shape=[4, 5])
        print(sparse)
        dense = tf.sparse.to_dense(sparse)
        print(dense)
    fid.check(out, EXPECTED_SPARSE_EQUIVALENT)


# Guide cell(s) 42.
EXPECTED_TENSOR_SCATTER_ND_ADD = """\
tf.Tensor(
[[2 7 6]
 [9 5 1]
 [4 3 8]], shape=(3, 3), dtype=int32)
"""


def test_tensor_scatter_nd_add():
    with fid.capture() as out:
        almost_magic = tf.constant([[2, 7, 0],
                                    [9, 0, 1],
                                    [0, 3, 8]])
        magic = tf.tensor_scatter_nd_add(almost_magic,
                                         indices=[[0, 2], [1, 1], [2, 0]],
                                         updates=[6, 5, 4])
        print(magic)
    fid.check(out, EXPECTED_TENSOR_SCATTER_ND_ADD)


# Guide cell(s) 44.
EXPECTED_TENSOR_SCATTER_ND_SUB = """\
tf.Tensor(
[[1 0 0]
 [0 1 0]
 [0 0 1]], shape=(3, 3), dtype=int32)
"""


def test_tensor_scatter_nd_sub():
    with fid.capture() as out:
        almost_magic = tf.constant([[2, 7, 0],
                                    [9, 0, 1],
                                    [0, 3, 8]])
        identity = tf.tensor_scatter_nd_sub(
            almost_magic,
            indices=[[0, 0], [0, 1], [1, 0], [1, 1], [1, 2], [2, 1], [2, 2]],
            updates=[1, 7, 9, -1, 1, 3, 7])
        print(identity)
    fid.check(out, EXPECTED_TENSOR_SCATTER_ND_SUB)


# Guide cell(s) 46, 48.
EXPECTED_TENSOR_SCATTER_ND_MIN_MAX = """\
tf.Tensor(
[[-2 -7 -6]
 [-9 -5  1]
 [-4 -3 -8]], shape=(3, 3), dtype=int32)
tf.Tensor(
[[-2 -7  6]
 [-9  5  1]
 [ 4 -3 -8]], shape=(3, 3), dtype=int32)
"""


def test_tensor_scatter_nd_min_max():
    with fid.capture() as out:
        negatives = tf.constant([[-2, -7, 0],
                                 [-9, 0, 1],
                                 [0, -3, -8]])
        lowest = tf.tensor_scatter_nd_min(negatives,
                                          indices=[[0, 2], [1, 1], [2, 0]],
                                          updates=[-6, -5, -4])
        print(lowest)
        highest = tf.tensor_scatter_nd_max(negatives,
                                           indices=[[0, 2], [1, 1], [2, 0]],
                                           updates=[6, 5, 4])
        print(highest)
    fid.check(out, EXPECTED_TENSOR_SCATTER_ND_MIN_MAX)
