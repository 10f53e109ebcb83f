"""Weight constraints are applied by the optimizer after each update, as Keras 3 does: Dense (kernel and
bias) and Embedding trained with MaxNorm, NonNeg and UnitNorm end with the weights Keras 3.15 on
TensorFlow 2.21 ends with (recorded by running the same script there)."""
import numpy as np

import tensorflux as tf

keras = tf.keras

# TensorFlow 2.21 / Keras 3.15 after the same three epochs (Dense) and two epochs (Embedding)
KERNEL = [[0.4755326509475708, 0.17319205403327942], [0.6125428676605225, -0.16625575721263885],
          [0.1966208964586258, 0.7631274461746216]]
BIAS = [0.20290625095367432, 0.06201230734586716]
EMBEDDINGS = [[0.4477338492870331] * 2, [0.4477338492870331] * 2, [0.5472971796989441] * 2,
              [0.5472971796989441] * 2]


def test_dense_and_embedding_constraints_during_fit():
    x = np.array([[1.0, 2.0, -1.0], [0.5, -0.5, 2.0]], np.float32)
    y = np.array([[3.0, -2.0], [1.0, 4.0]], np.float32)
    dense = keras.layers.Dense(2, kernel_initializer="ones", bias_initializer="zeros",
                               kernel_constraint=keras.constraints.MaxNorm(0.8),
                               bias_constraint=keras.constraints.NonNeg())
    model = keras.Sequential([keras.Input((3,)), dense])
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    model.fit(x, y, epochs=3, batch_size=2, verbose=0, shuffle=False)
    np.testing.assert_allclose(dense.kernel.numpy(), KERNEL, rtol=1e-6)
    np.testing.assert_allclose(dense.bias.numpy(), BIAS, rtol=1e-6)

    embedding = keras.layers.Embedding(4, 2, embeddings_initializer="ones",
                                       embeddings_constraint=keras.constraints.UnitNorm())
    m2 = keras.Sequential([keras.Input((2,), dtype="int32"), embedding, keras.layers.Flatten(),
                           keras.layers.Dense(1, kernel_initializer="ones")])
    m2.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    m2.fit(np.array([[0, 1], [2, 3]]), np.array([[1.0], [2.0]], np.float32), epochs=2, verbose=0, shuffle=False)
    np.testing.assert_allclose(embedding.embeddings.numpy(), EMBEDDINGS, rtol=1e-6)


def test_constraint_attributes_configs_and_variables():
    dense = keras.layers.Dense(2, kernel_constraint=keras.constraints.NonNeg())
    dense.build((None, 3))
    assert type(dense.kernel.constraint).__name__ == "NonNeg" and dense.bias.constraint is None
    assert dense.get_config()["kernel_constraint"]["class_name"] == "NonNeg"
    clone = keras.layers.Dense.from_config(dense.get_config())
    assert type(clone.kernel_constraint).__name__ == "NonNeg"
    for layer in (keras.layers.Conv2D(2, 3, kernel_constraint="max_norm"),
                  keras.layers.Conv1D(2, 3, bias_constraint="non_neg"),
                  keras.layers.BatchNormalization(gamma_constraint="non_neg"),
                  keras.layers.LayerNormalization(beta_constraint="unit_norm"),
                  keras.layers.SeparableConv2D(2, 3, pointwise_constraint="non_neg")):
        assert any(type(getattr(layer, a, None)).__name__ in ("MaxNorm", "NonNeg", "UnitNorm")
                   for a in ("kernel_constraint", "bias_constraint", "gamma_constraint", "beta_constraint",
                             "pointwise_constraint"))
