"""keras layers_extra: BatchNormalization, LayerNormalization, Embedding, global pooling, Conv1D, DepthwiseConv2D,
Concatenate and Add, against numbers computed with real Keras 3.15 (TensorFlow 2.21) on the same inputs and
weights, and inside `model.fit`."""
import numpy as np
import pytest

import tensorflux as tf

keras = tf.keras

X = (np.arange(24, dtype=np.float32).reshape(4, 6) % 7 - 3) / 2.0
X4 = (np.arange(2 * 3 * 3 * 4, dtype=np.float32).reshape(2, 3, 3, 4) % 5) / 3.0
XS = np.arange(2 * 7 * 3, dtype=np.float32).reshape(2, 7, 3) % 4 - 1.5
K1 = (np.arange(3 * 3 * 2, dtype=np.float32).reshape(3, 3, 2) % 5 - 2) / 4
DK = (np.arange(2 * 2 * 4 * 2, dtype=np.float32).reshape(2, 2, 4, 2) % 3 - 1) / 2
Y = np.array([[1.0], [0.0], [-1.0], [2.0]], np.float32)

# Real Keras outputs (rounded to 6 decimals).
BN_TRAIN = [[-1.822915, -1.148956, -0.29875, 1.673449, 2.341349, 3.009249], [-0.506251, -1.423434, -0.693749, 0.69115, 1.18045, 1.66975], [-0.725695, 0.223434, -1.088748, -0.29115, 0.01955, 0.33025], [-0.945139, -0.051044, 1.281246, -1.273449, -1.141349, -1.009249]]
BN_MM = [0.0375, 0.0, -0.0375, -0.075, -0.025, 0.025]
BN_MV = [1.029688, 1.0625, 1.029688, 0.93125, 0.93125, 0.93125]
BN_INFER = [[-1.757219, -1.27878, -0.610007, 0.285445, 1.306865, 2.514711], [-0.279718, -1.61817, -1.053257, -0.28419, 0.63366, 1.737936], [-0.525968, 0.41817, -1.496507, -0.853824, -0.039544, 0.961161], [-0.772219, 0.07878, 1.162995, -1.423459, -0.712749, 0.184387]]
BN_AXIS1 = [[[[-1.303259, -0.59239, 0.118478, 0.829347], [1.540215, -1.303259, -0.59239, 0.118478], [0.829347, 1.540215, -1.303259, -0.59239]], [[-0.118478, 0.59239, 1.303259, -1.540215], [-0.829347, -0.118478, 0.59239, 1.303259], [-1.540215, -0.829347, -0.118478, 0.59239]], [[1.406481, -1.241012, -0.579139, 0.082734], [0.744607, 1.406481, -1.241012, -0.579139], [0.082734, 0.744607, 1.406481, -1.241012]]], [[[-0.59239, 0.118478, 0.829347, 1.540215], [-1.303259, -0.59239, 0.118478, 0.829347], [1.540215, -1.303259, -0.59239, 0.118478]], [[0.59239, 1.303259, -1.540215, -0.829347], [-0.118478, 0.59239, 1.303259, -1.540215], [-0.829347, -0.118478, 0.59239, 1.303259]], [[-1.241012, -0.579139, 0.082734, 0.744607], [1.406481, -1.241012, -0.579139, 0.082734], [0.744607, 1.406481, -1.241012, -0.579139]]]]
BN_AXIS1_MV = [0.992099, 0.992099, 0.992436]
LN = [[-1.731424, -1.214396, -0.463313, 0.521826, 1.741021, 3.194271], [-0.15528, -1.546086, -0.960248, -0.171677, 0.819627, 2.013664], [-0.487957, 0.447718, -1.40527, -0.753187, 0.087957, 1.118164], [-0.768644, 0.047796, 1.049322, -1.326949, -0.60305, 0.305932]]
LN2 = [[[[-1.219101, -0.565937, 0.064163, 0.753885], [1.090775, -1.131874, -0.513306, 0.13707], [0.513306, 1.131874, -1.090775, -0.479745]], [[-0.064163, 0.565937, 1.219101, -1.096559], [-0.641632, 0.0, 0.641632, 1.370699], [-1.219101, -0.565937, 0.064163, 0.753885]], [[1.090775, -1.131874, -0.513306, 0.13707], [0.513306, 1.131874, -1.090775, -0.479745], [-0.064163, 0.565937, 1.219101, -1.096559]]], [[[-0.565937, 0.064163, 0.753885, 1.096559], [-1.131874, -0.513306, 0.13707, 0.479745], [1.131874, -1.090775, -0.479745, -0.13707]], [[0.565937, 1.219101, -1.096559, -0.753885], [0.0, 0.641632, 1.370699, -1.370699], [-0.565937, 0.064163, 0.753885, 1.096559]], [[-1.131874, -0.513306, 0.13707, 0.479745], [1.131874, -1.090775, -0.479745, -0.13707], [0.565937, 1.219101, -1.096559, -0.753885]]]]
EMB = [[[0.0, 0.1, 0.2], [1.2, 1.3, 1.4]], [[0.6, 0.7, 0.8], [0.6, 0.7, 0.8]]]
GAP = [[0.703704, 0.666667, 0.62963, 0.592593], [0.666667, 0.62963, 0.592593, 0.740741]]
GMP = [[[[1.333333, 1.333333, 1.333333, 1.333333]]], [[[1.333333, 1.333333, 1.333333, 1.333333]]]]
C1V = [[[1.725, -1.45], [-0.025, 0.05], [-1.775, 0.55], [0.475, 0.05], [1.725, -1.45]], [[0.475, 0.05], [1.725, -1.45], [-0.025, 0.05], [-1.775, 0.55], [0.475, 0.05]]]
C1S = [[[-0.525, 0.55], [-0.025, 0.05], [0.475, 0.05], [0.1, 0.425]], [[-0.775, -0.45], [1.725, -1.45], [-1.775, 0.55], [0.6, -0.825]]]
C1C = [[[-0.275, -0.325], [-0.525, 0.925], [1.225, -1.2], [-0.525, -1.2], [1.725, 0.8], [-2.025, 0.3], [0.225, -0.2]], [[-0.025, -0.575], [-0.275, -0.325], [-1.025, 0.8], [1.225, -1.2], [0.475, -1.7], [1.725, 0.8], [-2.025, 0.3]]]
C1R = [[[0.0, 0.55], [1.725, 0.0], [0.0, 0.05], [0.0, 0.55], [0.475, 0.05], [1.725, 0.0], [0.1, 0.425]], [[0.0, 0.0], [0.475, 0.05], [1.725, 0.0], [0.0, 0.05], [0.0, 0.55], [0.475, 0.05], [0.6, 0.0]]]
DW = [[[[0.5, -0.233333, 0.2, -0.2, 0.9, 0.666667, -0.233333, 0.366667], [-0.166667, -0.233333, 0.033333, 0.8, 0.9, 0.5, -0.066667, 1.2], [-0.5, 0.1, 0.7, -0.366667, 0.733333, 0.166667, 0.433333, 1.2]], [[-0.666667, 0.6, 1.366667, -0.533333, 0.066667, 1.0, 1.1, 0.366667], [-0.5, 0.6, 0.366667, -0.366667, 0.066667, 1.666667, 0.433333, 0.366667], [0.0, 0.433333, -0.133333, 0.133333, 1.066667, 0.166667, 0.1, 0.7]], [[-0.166667, -0.4, 0.2, 0.966667, 0.4, 0.666667, 0.433333, 0.533333], [-0.166667, -0.233333, 0.866667, 0.133333, -0.266667, 0.5, 0.433333, 0.7], [-0.333333, 0.1, 0.7, -0.2, 0.4, 1.166667, 0.6, 0.7]]], [[[-0.5, 0.6, 0.366667, -0.366667, 0.066667, 1.666667, 0.433333, 0.366667], [0.5, -0.233333, 0.2, -0.2, 0.9, 0.666667, -0.233333, 0.366667], [-0.666667, 0.266667, -0.133333, 0.3, 0.9, 0.166667, 0.266667, 1.366667]], [[-0.833333, -0.233333, 0.7, 0.133333, 0.066667, 0.333333, 0.1, 1.2], [-0.666667, 0.6, 1.366667, -0.533333, 0.066667, 1.0, 1.1, 0.366667], [-0.166667, 0.6, -0.133333, -0.033333, 0.4, 1.0, -0.066667, 0.866667]], [[0.666667, -0.566667, 0.366667, 0.133333, 0.233333, 0.833333, 0.433333, 0.366667], [-0.166667, -0.4, 0.2, 0.966667, 0.4, 0.666667, 0.433333, 0.533333], [-0.5, 0.1, 0.866667, -0.366667, 0.4, 0.5, 0.433333, 0.7]]]]
FIT_LOSS = [2.21384, 3.043202, 2.151755]
FIT_PRED = [[-2.33508], [0.086618], [1.555665], [2.122506]]
FIT2_LOSS = [1.511175, 1.222084]
FIT_WEIGHTS = [[[-0.99766, -0.912282, -0.828086, -0.747062], [-0.650085, -0.564589, -0.480283, -0.399159], [-0.317134, -0.221297, -0.118323, 0.003725], [0.045568, 0.131064, 0.215369, 0.296494], [0.393394, 0.47889, 0.563195, 0.64432], [0.74122, 0.826716, 0.911021, 0.992146]], [-0.0, -0.0, -0.0, -0.0], [0.892402, 0.813443, 0.734967, 0.657639], [-0.154092, -0.058984, 0.036145, 0.131307], [-0.30607, -0.351644, -0.397915, -0.44555], [1.101789, 1.073275, 1.045562, 1.019252], [[-0.635296], [-0.366051], [-0.096446], [0.174145]], [0.298564]]
FIT2_WEIGHTS = [[[-1.002658, -0.884943, -0.767229], [-0.656779, -0.538932, -0.421086], [-0.295877, -0.178253, -0.060628], [0.033667, 0.151768, 0.269869], [0.4175, 0.533877, 0.650253], [0.758765, 0.875467, 0.992169]], [[[-0.995701, -0.82248], [-0.625752, -0.465157], [-0.255802, -0.107834]], [[0.051448, 0.312189], [0.433944, 0.656965], [0.81644, 1.001742]]], [0.260354, -0.160354], [0.973332, 0.98661], [-0.000741, 4.1e-05], [[0.446332], [-0.196605]], [-0.002836]]


def close(got, expected, atol=2e-5):
    np.testing.assert_allclose(np.asarray(got), np.asarray(expected, np.float64), rtol=1e-5, atol=atol)


# -- BatchNormalization ------------------------------------------------------------------------------
def _bn(**kwargs):
    bn = keras.layers.BatchNormalization(momentum=0.9, **kwargs)
    bn.build((None, 6))
    bn.set_weights([np.linspace(0.5, 1.5, 6), np.linspace(-1, 1, 6), np.zeros(6), np.ones(6)])
    return bn


def test_batch_norm_training_then_inference_matches_keras():
    bn = _bn()
    out = bn(X, training=True)
    assert out.dtype == tf.float32 and out.shape == (4, 6)
    close(out, BN_TRAIN)
    close(bn.moving_mean, BN_MM)
    close(bn.moving_variance, BN_MV)
    close(bn(X, training=False), BN_INFER)
    close(bn(X), BN_INFER)  # the default is inference
    close(bn.moving_mean, BN_MM)  # inference leaves the statistics alone


def test_batch_norm_weights_and_trainable_false_runs_in_inference_mode():
    bn = _bn()
    assert [w.name.split("/")[-1].split(":")[0] for w in bn.weights] == ["gamma", "beta", "moving_mean",
                                                                         "moving_variance"]
    assert len(bn.trainable_weights) == 2 and len(bn.non_trainable_weights) == 2
    bn.trainable = False
    gamma, beta = np.linspace(0.5, 1.5, 6), np.linspace(-1, 1, 6)
    close(bn(X, training=True), X / np.sqrt(1 + 1e-3) * gamma + beta)
    np.testing.assert_array_equal(bn.moving_mean.numpy(), np.zeros(6))


def test_batch_norm_axis1_no_center_matches_keras():
    bn = keras.layers.BatchNormalization(axis=1, center=False, epsilon=0.01)
    close(bn(X4, training=True), BN_AXIS1)
    close(bn.moving_variance, BN_AXIS1_MV)
    assert bn.beta is None and bn.gamma.shape == (3,)
    assert bn.compute_output_shape((None, 3, 3, 4)) == (None, 3, 3, 4)


def test_batch_norm_matches_numpy_formula():
    x = np.random.RandomState(1).randn(5, 2, 3).astype(np.float32)
    bn = keras.layers.BatchNormalization(momentum=0.5, epsilon=0.1)
    out = bn(x, training=True).numpy()
    mean, var = x.mean(axis=(0, 1)), x.var(axis=(0, 1))
    np.testing.assert_allclose(out, (x - mean) / np.sqrt(var + 0.1), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(bn.moving_mean.numpy(), 0.5 * mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn.moving_variance.numpy(), 0.5 + 0.5 * var, rtol=1e-5)


def test_batch_norm_errors():
    with pytest.raises(ValueError, match="out of bounds"):
        keras.layers.BatchNormalization(axis=3)(X)
    with pytest.raises(ValueError, match="defined dimension"):
        keras.layers.BatchNormalization().build((None, None))


def test_batch_norm_in_fit_matches_keras():
    model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(4),
                              keras.layers.BatchNormalization(momentum=0.8), keras.layers.Dense(1)])
    model.layers[0].set_weights([np.linspace(-1, 1, 24, dtype=np.float32).reshape(6, 4), np.zeros(4, np.float32)])
    model.layers[2].set_weights([np.linspace(-0.5, 0.5, 4, dtype=np.float32).reshape(4, 1), np.zeros(1, np.float32)])
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    history = model.fit(X, Y, batch_size=2, epochs=3, shuffle=False, verbose=0)
    close(history.history["loss"], FIT_LOSS, atol=1e-5)
    for got, expected in zip(model.get_weights(), FIT_WEIGHTS):
        close(got, expected, atol=1e-5)
    close(model.predict(X, verbose=0), FIT_PRED, atol=1e-5)


# -- LayerNormalization ------------------------------------------------------------------------------
def test_layer_norm_matches_keras():
    ln = keras.layers.LayerNormalization()
    ln.build((None, 6))
    ln.set_weights([np.linspace(0.5, 1.5, 6), np.linspace(-1, 1, 6)])
    close(ln(X), LN)
    ln2 = keras.layers.LayerNormalization(axis=[1, 2], epsilon=0.1)
    out = ln2(X4)
    close(out, LN2)
    assert ln2.gamma.shape == (3, 3) and out.shape == (2, 3, 3, 4)


def test_layer_norm_without_center_and_scale_has_no_weights():
    ln = keras.layers.LayerNormalization(center=False, scale=False, epsilon=0.0)
    x = np.random.RandomState(2).randn(3, 5).astype(np.float32)
    np.testing.assert_allclose(ln(x).numpy(), (x - x.mean(-1, keepdims=True)) / x.std(-1, keepdims=True),
                               rtol=1e-4, atol=1e-5)
    assert ln.weights == []


# -- Embedding ---------------------------------------------------------------------------------------
def test_embedding_lookup_matches_keras_and_casts_float_ids():
    emb = keras.layers.Embedding(5, 3)
    emb.build((None,))
    table = np.arange(15, dtype=np.float32).reshape(5, 3) / 10
    emb.set_weights([table])
    close(emb(np.array([[0, 4], [2, 2]])), EMB)
    close(emb(np.array([[1.0, 3.0]], np.float32)), table[[[1, 3]]])
    assert emb.compute_output_shape((None, 7)) == (None, 7, 3)


def test_embedding_default_initializer_is_uniform_005():
    emb = keras.layers.Embedding(200, 50)
    emb.build(None)
    values = emb.embeddings.numpy()
    assert values.shape == (200, 50) and values.dtype == np.float32
    assert np.abs(values).max() <= 0.05 and np.abs(values).max() > 0.045
    assert emb.weights[0].name.split("/")[-1].startswith("embeddings")


def test_embedding_errors():
    with pytest.raises(ValueError, match="input_dim"):
        keras.layers.Embedding(0, 3)
    with pytest.raises(ValueError, match="output_dim"):
        keras.layers.Embedding(3, -1)
    with pytest.raises(tf.errors.InvalidArgumentError):
        keras.layers.Embedding(3, 2)(np.array([3]))


def test_embedding_gradient_reaches_looked_up_rows():
    emb = keras.layers.Embedding(4, 2, embeddings_initializer="ones")
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(emb(np.array([[1, 1], [3, 1]])))
    grad = tape.gradient(loss, emb.embeddings)
    np.testing.assert_array_equal(tf.convert_to_tensor(grad).numpy(), [[0, 0], [3, 3], [0, 0], [1, 1]])


def test_embedding_conv1d_layer_norm_global_pool_in_fit_matches_keras():
    model = keras.Sequential([keras.Input((5,), dtype="int32"), keras.layers.Embedding(6, 3),
                              keras.layers.Conv1D(2, 2, padding="causal"), keras.layers.LayerNormalization(),
                              keras.layers.GlobalAveragePooling1D(), keras.layers.Dense(1)])
    model.layers[0].set_weights([np.linspace(-1, 1, 18, dtype=np.float32).reshape(6, 3)])
    model.layers[1].set_weights([np.linspace(-1, 1, 12, dtype=np.float32).reshape(2, 3, 2),
                                 np.array([0.1, 0.0], np.float32)])
    model.layers[4].set_weights([np.array([[0.5], [-0.25]], np.float32), np.zeros(1, np.float32)])
    ids = np.array([[0, 1, 2, 3, 4], [5, 4, 3, 2, 1], [1, 1, 2, 2, 0], [3, 0, 5, 1, 2]], np.int32)
    model.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse")
    history = model.fit(ids, Y, batch_size=2, epochs=2, shuffle=False, verbose=0)
    close(history.history["loss"], FIT2_LOSS, atol=1e-5)
    for got, expected in zip(model.get_weights(), FIT2_WEIGHTS):
        close(got, expected, atol=1e-5)


# -- global pooling ----------------------------------------------------------------------------------
def test_global_pooling_matches_keras():
    close(keras.layers.GlobalAveragePooling2D()(X4), GAP)
    out = keras.layers.GlobalMaxPooling2D(keepdims=True)(X4)
    close(out, GMP)
    assert out.shape == (2, 1, 1, 4)
    close(keras.layers.GlobalAveragePooling1D()(X4[0]), X4[0].mean(axis=1))
    close(keras.layers.GlobalMaxPooling1D()(XS), XS.max(axis=1))
    assert keras.layers.GlobalMaxPooling2D().compute_output_shape((None, 5, 5, 3)) == (None, 3)
    assert keras.layers.GlobalAveragePooling2D(keepdims=True).compute_output_shape((None, 5, 5, 3)) == (None, 1, 1, 3)
    assert keras.layers.GlobalAvgPool2D is keras.layers.GlobalAveragePooling2D
    with pytest.raises(NotImplementedError, match="channels_last"):
        keras.layers.GlobalAveragePooling2D(data_format="channels_first")


# -- Conv1D / DepthwiseConv2D ------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs, expected, shape", [
    (dict(padding="valid"), C1V, (None, 5, 2)),
    (dict(padding="same", strides=2), C1S, (None, 4, 2)),
    (dict(padding="causal", dilation_rate=2), C1C, (None, 7, 2)),
    (dict(padding="same", activation="relu"), C1R, (None, 7, 2)),
])
def test_conv1d_matches_keras(kwargs, expected, shape):
    layer = keras.layers.Conv1D(2, 3, **kwargs)
    layer.build((None, 7, 3))
    layer.set_weights([K1, np.array([0.1, -0.2], np.float32)])
    out = layer(XS)
    close(out, expected)
    assert layer.compute_output_shape((None, 7, 3)) == shape == (None,) + tuple(out.shape[1:])


def test_conv1d_errors():
    with pytest.raises(ValueError, match="filters"):
        keras.layers.Conv1D(0, 3)
    with pytest.raises(ValueError, match="padding"):
        keras.layers.Conv1D(2, 3, padding="full")
    with pytest.raises(ValueError, match="channel dimension"):
        keras.layers.Conv1D(2, 3).build((None, 7, None))


def test_depthwise_conv2d_matches_keras():
    layer = keras.layers.DepthwiseConv2D(2, depth_multiplier=2, padding="same")
    layer.build((None, 3, 3, 4))
    layer.set_weights([DK, np.arange(8, dtype=np.float32) / 10])
    close(layer(X4), DW)
    assert layer.kernel.shape == (2, 2, 4, 2) and layer.bias.shape == (8,)
    assert layer.compute_output_shape((None, 3, 3, 4)) == (None, 3, 3, 8)
    strided = keras.layers.DepthwiseConv2D(2, strides=2, use_bias=False)
    assert strided(X4).shape == (2, 1, 1, 4) and strided.compute_output_shape((2, 3, 3, 4)) == (2, 1, 1, 4)
    with pytest.raises(ValueError, match="depth_multiplier"):
        keras.layers.DepthwiseConv2D(2, depth_multiplier=0)


def test_depthwise_conv2d_and_batch_norm_train_in_fit():
    tf.random.set_seed(3)
    model = keras.Sequential([keras.Input((6, 6, 2)), keras.layers.DepthwiseConv2D(3, padding="same"),
                              keras.layers.BatchNormalization(), keras.layers.GlobalMaxPooling2D(),
                              keras.layers.Dense(1)])
    rng = np.random.RandomState(0)
    x = rng.randn(16, 6, 6, 2).astype(np.float32)
    y = x.mean(axis=(1, 2, 3))[:, None]
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss="mse")
    before = model.layers[1].moving_variance.numpy().copy()
    history = model.fit(x, y, batch_size=8, epochs=8, verbose=0)
    losses = history.history["loss"]
    assert losses[-1] < losses[0]
    assert not np.allclose(model.layers[1].moving_variance.numpy(), before)


# -- merge layers ------------------------------------------------------------------------------------
def test_concatenate_and_add():
    close(keras.layers.Concatenate(axis=1)([X[:2], X[2:]]), np.concatenate([X[:2], X[2:]], axis=1))
    close(keras.layers.Concatenate()([X4, X4[..., :1]]), np.concatenate([X4, X4[..., :1]], axis=-1))
    close(keras.layers.Add()([X, X * 2, X + 1]), X * 4 + 1)
    assert keras.layers.Concatenate().compute_output_shape([(None, 2, 3), (None, 2, 5)]) == (None, 2, 8)
    with pytest.raises(ValueError, match="matching shapes"):
        keras.layers.Concatenate(axis=1)([X4, X4[:, :, :1, :]])
    with pytest.raises(ValueError, match="list"):
        keras.layers.Concatenate()(X)


def test_merge_layers_in_a_subclassed_model_fit():
    class TwoTower(keras.Model):
        def __init__(self):
            super().__init__()
            self.a = keras.layers.Dense(3, kernel_initializer="ones")
            self.b = keras.layers.Dense(3, kernel_initializer="zeros")
            self.cat = keras.layers.Concatenate()
            self.add = keras.layers.Add()
            self.out = keras.layers.Dense(1, kernel_initializer="ones")

        def call(self, x):
            a, b = self.a(x), self.b(x)
            return self.out(self.cat([a, b, self.add([a, b])]))

    model = TwoTower()
    model.compile(optimizer=keras.optimizers.SGD(0.01), loss="mse")
    history = model.fit(X, Y, batch_size=4, epochs=5, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
    assert model.predict(X, verbose=0).shape == (4, 1)
