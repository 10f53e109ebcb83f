"""keras.layers.SpectralNormalization against Keras 3.15 on TensorFlow 2.21 (fixtures/
keras315_spectral_normalization.json): weights (order, trainable), outputs of inference and two training
calls, and the weights after them (the kernel is overwritten, vector_u updated), for a Dense, a Conv2D and
an Embedding with 1 and 3 power iterations; weights set to cos(arange) * 0.5. Then the errors, the config
and a traced training loop."""
import json
import pathlib

import numpy as np
import pytest

import tensorflux as tf

K = tf.keras.layers
RECORDED = json.loads((pathlib.Path(__file__).parent / "fixtures" / "keras315_spectral_normalization.json").read_text())
X = np.sin(np.arange(8, dtype="float32")).reshape(2, 4)
CASES = {"dense": (lambda: K.Dense(3), (2, 4), X),
         "conv": (lambda: K.Conv2D(2, 3), (1, 5, 5, 2), np.cos(np.arange(50, dtype="float32")).reshape(1, 5, 5, 2)),
         "embedding": (lambda: K.Embedding(5, 3), (2, 4), np.array([[0, 1, 2, 4], [3, 3, 1, 0]]))}


@pytest.mark.parametrize("key", sorted(RECORDED))
def test_as_keras(key):
    name, iterations = key[:-1], int(key[-1])
    make, shape, inputs = CASES[name]
    recorded = RECORDED[key]
    layer = K.SpectralNormalization(make(), power_iterations=iterations)
    layer.build(shape)
    assert [[w.path.split("/")[-1], list(w.shape), w.trainable] for w in layer.weights] == recorded["weights"]
    layer.set_weights([np.cos(np.arange(np.prod(w.shape), dtype="float32")).reshape(w.shape) * 0.5
                       for w in layer.weights])
    for field, training in (("infer", False), ("train", True), ("train2", True)):
        np.testing.assert_allclose(layer(inputs, training=training).numpy(), recorded[field], rtol=1e-5, atol=2e-7)
    for got, want in zip(layer.get_weights(), recorded["after"]):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=2e-7)


def test_errors_as_keras():
    with pytest.raises(ValueError, match=r"^`power_iterations` should be greater than zero. Received: "
                                         r"`power_iterations=0`$"):
        K.SpectralNormalization(K.Dense(2), power_iterations=0)
    with pytest.raises(ValueError, match=r"^ReLU object has no attribute 'kernel' nor 'embeddings'$"):
        K.SpectralNormalization(K.ReLU())(X)
    with pytest.raises(ValueError, match="isn't a supported layer type"):
        K.SpectralNormalization("x")


def test_config_round_trip_and_traced_training():
    layer = K.SpectralNormalization(K.Dense(3), power_iterations=2)
    config = layer.get_config()
    assert list(config) == ["name", "trainable", "dtype", "layer", "power_iterations"]
    assert config["layer"]["class_name"] == "Dense" and config["power_iterations"] == 2
    again = K.SpectralNormalization.from_config(config)
    assert again.power_iterations == 2 and isinstance(again.layer, K.Dense)
    model = tf.keras.Sequential([tf.keras.Input((4,)),
                                 K.SpectralNormalization(K.Dense(8, activation="relu"), power_iterations=20),
                                 K.Dense(1)])
    model.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 4)).astype("float32")
    y = x @ rng.standard_normal((4, 1)).astype("float32")
    losses = model.fit(x, y, epochs=3, verbose=0).history["loss"]
    assert np.all(np.isfinite(losses))
    model.layers[0](x, training=True)      # normalizes the kernel the optimizer left (no update after it)
    kernel = model.layers[0].layer.kernel.numpy()
    assert abs(np.linalg.svd(kernel, compute_uv=False)[0] - 1.0) < 1e-3
