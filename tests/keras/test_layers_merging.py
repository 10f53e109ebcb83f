"""Merge layers and their functional helpers (keras.layers.add/.../dot), checked against Keras 3."""
import numpy as np
import pytest

import tensorflux as tf

keras = tf.keras
layers = keras.layers

X = np.arange(6.0, dtype="float32").reshape(2, 3)
Y = np.arange(24.0, dtype="float32").reshape(2, 3, 4)


@pytest.mark.parametrize("helper, expected", [
    ("add", X + (X + 1)), ("subtract", X - (X + 1)), ("multiply", X * (X + 1)),
    ("average", (X + X + 1) / 2), ("maximum", X + 1), ("minimum", X),
])
def test_elementwise_helpers_call_a_new_layer(helper, expected):
    out = getattr(layers, helper)([X, X + 1])
    np.testing.assert_allclose(out.numpy(), expected)


def test_helpers_build_functional_graphs_with_named_layers():
    a, b = keras.Input((3,)), keras.Input((3,))
    merged = layers.concatenate([a, b], axis=-1, name="joined")
    assert merged.shape == (None, 6)
    assert merged._keras_history[0].operation.name == "joined"
    summed = layers.add([a, b])
    model = keras.Model([a, b], [merged, summed])
    out = model([X, X])
    np.testing.assert_allclose(out[0].numpy(), np.concatenate([X, X], -1))
    np.testing.assert_allclose(out[1].numpy(), 2 * X)


def test_dot_of_vectors_keeps_a_trailing_axis():
    out = layers.dot([X, X + 1], axes=1)
    assert out.shape == (2, 1)
    np.testing.assert_allclose(out.numpy()[:, 0], (X * (X + 1)).sum(1))
    cosine = layers.Dot(axes=1, normalize=True)([X, X + 1]).numpy()[:, 0]
    expected = (X * (X + 1)).sum(1) / np.linalg.norm(X, axis=1) / np.linalg.norm(X + 1, axis=1)
    np.testing.assert_allclose(cosine, expected, rtol=1e-6)
    assert layers.dot([keras.Input((3,)), keras.Input((3,))], axes=1).shape == (None, 1)


@pytest.mark.parametrize("axes, shapes, expected", [
    ((1, 1), ((2, 3, 4), (2, 3, 4)), "bki,bkj->bij"),
    (2, ((2, 3, 4), (2, 3, 4)), "bik,bjk->bij"),
    (-1, ((2, 3, 4), (2, 3, 4)), "bik,bjk->bij"),
    (1, ((2, 3), (2, 3, 4)), "bk,bkj->bj"),
])
def test_dot_contracts_the_given_axes_sample_by_sample(axes, shapes, expected):
    rng = np.random.default_rng(0)
    a, b = (rng.random(s).astype("float32") for s in shapes)
    layer = layers.Dot(axes=axes)
    out = layer([a, b])
    np.testing.assert_allclose(out.numpy(), np.einsum(expected, a, b), rtol=1e-5)
    assert layer.compute_output_shape(shapes) == out.shape


def test_dot_rejects_bad_axes_and_inputs():
    with pytest.raises(ValueError, match="should contain two elements"):
        layers.Dot(axes=(1, 2, 3))
    with pytest.raises(ValueError, match="list of 2 inputs"):
        layers.Dot(axes=1)([X])
    with pytest.raises(ValueError, match=r"axis values 3 \(at axis 1\) != 2 \(at axis 1\)"):
        layers.Dot(axes=1)([X, Y[:, :2]])
