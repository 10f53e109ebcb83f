"""EinsumDense, CategoryEncoding, Discretization, Pipeline, Wrapper and InputSpec against values recorded
from Keras 3.15 (constant 0.1 initializers, the same inputs)."""
import numpy as np
import pytest

import tensorflux as tf

L = tf.keras.layers
ONE = tf.keras.initializers.Constant(0.1)
X = np.arange(2 * 3 * 4, dtype="float32").reshape(2, 3, 4) / 10


def test_einsum_dense_matches_keras():
    layer = L.EinsumDense("abc,cd->abd", output_shape=(None, 5), bias_axes="d", kernel_initializer=ONE,
                          bias_initializer=ONE)
    out = layer(X)
    assert out.shape.as_list() == [2, 3, 5] and layer.kernel.shape == (4, 5) and layer.bias.shape == (5,)
    np.testing.assert_allclose(out.numpy()[0, 0], [0.16] * 5, rtol=1e-6)
    layer = L.EinsumDense("ab,bcd->acd", output_shape=(2, 3), kernel_initializer=ONE)
    out = layer(X[:, 0])
    assert out.shape.as_list() == [2, 2, 3] and layer.kernel.shape == (4, 2, 3)
    np.testing.assert_allclose(out.numpy(), [[[0.06] * 3] * 2, [[0.54] * 3] * 2], rtol=1e-5)
    layer = L.EinsumDense("abc,cde->abde", output_shape=(None, 2, 3), bias_axes="de", kernel_initializer=ONE,
                          bias_initializer=ONE)
    assert layer(X).shape.as_list() == [2, 3, 2, 3] and layer.bias.shape == (2, 3)
    assert layer.compute_output_shape((None, 3, 4)) == (None, None, 2, 3)   # Keras keeps the None
    with pytest.raises(ValueError, match="Invalid einsum equation"):
        L.EinsumDense("abc", (2,))(X)


@pytest.mark.parametrize("mode, data, expected", [
    ("multi_hot", [[0, 1], [3, 3]], [[1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]]),
    ("one_hot", [0, 3, 1], [[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], [0.0, 1.0, 0.0, 0.0]]),
    ("count", [[0, 1], [3, 3]], [[1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 2.0]]),
])
def test_category_encoding_matches_keras(mode, data, expected):
    assert L.CategoryEncoding(4, output_mode=mode)(np.array(data)).numpy().tolist() == expected


def test_category_encoding_count_weights():
    out = L.CategoryEncoding(4, output_mode="count")(np.array([[0, 1], [3, 3]]),
                                                    count_weights=np.array([[0.5, 1.0], [2.0, 1.0]]))
    assert out.numpy().tolist() == [[0.5, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 3.0]]


def test_discretization_matches_keras():
    layer = L.Discretization(bin_boundaries=[0.0, 1.0, 2.5])
    out = layer(np.array([[-1.0, 0.0, 0.5, 1.0, 3.0]]))
    assert out.numpy().tolist() == [[0, 1, 1, 2, 3]] and out.dtype == tf.int32
    adapted = L.Discretization(num_bins=3)
    adapted.adapt(np.array([0.0, 1.0, 2.0, 3.0, 4.0, 5.0]))
    np.testing.assert_allclose(adapted.bin_boundaries, [1.0, 3.0], rtol=1e-6)   # Keras: [0.99999994, 3.0]
    assert adapted(np.array([0.0, 2.0, 5.0])).numpy().tolist() == [0, 1, 2]
    one_hot = L.Discretization(bin_boundaries=[0.0, 1.0], output_mode="one_hot")
    assert one_hot(np.array([-1.0, 0.5, 2.0])).numpy().tolist() == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0],
                                                                    [0.0, 0.0, 1.0]]
    with pytest.raises(ValueError, match="call `adapt"):
        L.Discretization(num_bins=2)(np.array([1.0]))


def test_pipeline_and_wrapper():
    pipeline = L.Pipeline([L.Rescaling(2.0), L.Rescaling(0.5, offset=1.0)])
    assert pipeline(np.array([1.0, 2.0])).numpy().tolist() == [2.0, 3.0]
    dataset = tf.data.Dataset.from_tensor_slices(np.array([1.0, 2.0])).map(pipeline)
    assert [float(v) for v in dataset] == [2.0, 3.0]
    wrapper = L.Wrapper(L.Dense(2, kernel_initializer="ones"))
    assert wrapper(np.ones((1, 3), np.float32)).numpy().tolist() == [[3.0, 3.0]]
    with pytest.raises(ValueError, match="isn't a supported layer type"):
        L.Wrapper(3)


def test_input_spec():
    spec = L.InputSpec(ndim=2, axes={-1: 3})
    assert repr(spec) == "InputSpec(ndim=2, axes={-1: 3})"
    assert spec.get_config() == {"dtype": None, "shape": None, "ndim": 2, "max_ndim": None, "min_ndim": None,
                                 "axes": {-1: 3}, "optional": False}
    assert L.InputSpec.from_config(spec.get_config()).axes == {-1: 3}


def test_depthwise_conv1d_matches_keras():
    x = np.arange(2 * 6 * 3, dtype="float32").reshape(2, 6, 3) / 10
    layer = L.DepthwiseConv1D(3, depth_multiplier=2, depthwise_initializer=ONE, bias_initializer=ONE)
    out = layer(x)
    assert out.shape.as_list() == [2, 4, 6] and tuple(layer.kernel.shape) == (3, 3, 2)
    np.testing.assert_allclose(out.numpy()[0], [[0.19, 0.19, 0.22, 0.22, 0.25, 0.25],
                                                [0.28, 0.28, 0.31, 0.31, 0.34, 0.34],
                                                [0.37, 0.37, 0.40, 0.40, 0.43, 0.43],
                                                [0.46, 0.46, 0.49, 0.49, 0.52, 0.52]], rtol=2e-6)
    same = L.DepthwiseConv1D(2, strides=2, padding="same", depthwise_initializer=ONE, use_bias=False)
    assert same(x).shape.as_list() == [2, 3, 3] and same.compute_output_shape((2, 6, 3)) == (2, 3, 3)


def test_reversible_embedding_matches_keras():
    layer = L.ReversibleEmbedding(5, 3, embeddings_initializer=ONE)
    np.testing.assert_allclose(layer(np.array([[1, 2]])).numpy(), [[[0.1] * 3] * 2], rtol=1e-6)
    np.testing.assert_allclose(layer(np.ones((1, 3), "float32"), reverse=True).numpy(), [[0.3] * 5], rtol=1e-6)
    assert [w.name for w in layer.weights] == ["embeddings"]
    untied = L.ReversibleEmbedding(5, 3, tie_weights=False, embeddings_initializer=ONE, logit_soft_cap=0.2)
    untied(np.array([0]))
    assert [(w.name, tuple(w.shape)) for w in untied.weights] == [("embeddings", (5, 3)), ("reverse_embeddings", (3, 5))]
    np.testing.assert_allclose(untied(np.ones((1, 3), "float32"), reverse=True).numpy(), [[0.18102966] * 5], rtol=1e-6)
