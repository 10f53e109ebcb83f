"""keras.ops (NumPy-style names and arguments, Keras' dtype rules, nodes of functional models) and
keras.random (global, stateless-int and SeedGenerator seeds). Expected values were printed by
TensorFlow 2.21 / Keras 3.15 running the same calls."""
import numpy as np
import pytest

import tensorflux as tf

keras = tf.keras
ops = keras.ops


def test_numpy_style_arguments_and_dtypes():
    parts = ops.split(np.arange(6.0), [1, 4])
    assert [p.numpy().tolist() for p in parts] == [[0.0], [1.0, 2.0, 3.0], [4.0, 5.0]]
    assert parts[0].dtype == tf.float64                      # NumPy arrays keep their dtype
    summed = ops.sum(np.array([[True, False], [True, True]]), axis=0)
    assert summed.dtype == tf.int32 and summed.numpy().tolist() == [2, 1]
    mean = ops.mean(np.array([1, 2]))
    assert mean.dtype == tf.float32 and float(mean) == 1.5
    added = ops.add(np.array([1, 2], "int32"), 1.5)         # a Python float lifts an int tensor to float32
    assert added.dtype == tf.float32 and added.numpy().tolist() == [2.5, 3.5]
    joined = ops.concatenate([np.ones((1, 2)), np.zeros((1, 2))])    # axis 0 by default
    assert joined.shape == (2, 2) and joined.dtype == tf.float64
    assert ops.shape(np.zeros((2, 3))) == (2, 3)
    assert int(ops.argmax(np.array([[1, 3], [4, 2]]))) == 2  # over the flattened array
    assert ops.tile(np.array([1, 2]), [2, 2]).numpy().tolist() == [[1, 2, 1, 2], [1, 2, 1, 2]]
    hot = ops.one_hot(np.array([0.0, 2.0]), 3)               # integral floats are class indices
    assert hot.dtype == tf.float32 and hot.numpy().tolist() == [[1, 0, 0], [0, 0, 1]]
    assert ops.ones((2,)).dtype == tf.float32
    with pytest.raises(ValueError, match="equal division"):
        ops.split(np.arange(5), 2)


def test_ops_on_keras_tensors_become_model_steps():
    x = keras.Input((4,))
    mask = ops.not_equal(x, 0)
    assert mask.dtype == "bool" and mask.shape == (None, 4)
    model = keras.Model(x, ops.sum(x, axis=1))
    np.testing.assert_array_equal(model(np.ones((2, 4))).numpy(), [4.0, 4.0])
    assert [type(layer).__name__ for layer in model.layers] == ["InputLayer"]


def test_random_seeds():
    assert keras.random.normal((2,), seed=3).shape == (2,)
    np.testing.assert_array_equal(keras.random.normal((3,), seed=3), keras.random.normal((3,), seed=3))
    stream = keras.random.SeedGenerator(1)
    assert np.any(keras.random.uniform((4,), seed=stream).numpy() != keras.random.uniform((4,), seed=stream).numpy())
    dropped = keras.random.dropout(np.ones((1000,), "float32"), 0.5, seed=1).numpy()
    assert sorted(set(dropped.tolist())) == [0.0, 2.0]

    @tf.function
    def draw(batch):        # a shape mixing a symbolic batch size with an int, inside a traced step
        return keras.random.normal((tf.shape(batch)[0], 3), seed=stream)
    assert draw(tf.zeros((5, 1))).shape == (5, 3)
