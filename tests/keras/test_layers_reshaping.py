"""keras reshaping layers (RepeatVector, Permute, UpSampling, ZeroPadding, Cropping, Identity), 1-D pooling,
noise layers and TimeDistributed, against NumPy and against numbers computed with TensorFlow 2.21's Keras
(3.15) on the same inputs and weights."""
import numpy as np
import pytest

import tensorflux as tf

keras = tf.keras
layers = keras.layers

X2 = np.arange(6, dtype=np.float32).reshape(2, 3) - 2
XS = np.arange(2 * 7 * 3, dtype=np.float32).reshape(2, 7, 3) % 5 - 2
IMG = ((np.arange(1 * 3 * 4 * 2, dtype=np.float32).reshape(1, 3, 4, 2) * 7) % 11) / 2
PIC = ((np.arange(2 * 4 * 6 * 3, dtype=np.float32).reshape(2, 4, 6, 3) * 7) % 11)
SEQ = ((np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4) % 7 - 3) / 2).transpose(0, 2, 1)
TD_KERNEL = (np.arange(3 * 2, dtype=np.float32).reshape(3, 2) - 2.5) / 3

# From TF 2.21's Keras on the same inputs (rounded to 6, or for images 5, decimals).
MAX_POOL_SAME = [[[1.0, 2.0, 0.0], [1.0, 2.0, 1.0], [2.0, 2.0, 1.0], [2.0, 1.0, 2.0], [2.0, 1.0, 2.0],
                  [1.0, 2.0, 2.0], [1.0, 2.0, 0.0]],
                 [[2.0, 0.0, 1.0], [2.0, 1.0, 2.0], [2.0, 1.0, 2.0], [1.0, 2.0, 2.0], [1.0, 2.0, 1.0],
                  [2.0, 2.0, 1.0], [2.0, 0.0, 1.0]]]  # pool 3, stride 1
AVG_POOL_SAME = [[[-0.5, 0.5, -1.0], [0.666667, 0.0, -0.666667], [0.0, -0.666667, 0.333333], [-0.5, 0.5, -1.0]],
                 [[0.5, -1.0, 0.0], [0.0, -0.666667, 0.333333], [-0.666667, 0.333333, -0.333333],
                  [0.5, -1.0, 0.0]]]  # pool 3, stride 2
UP2_BILINEAR = [[0.0, 0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 4.5],
                [0.125, 0.125, 0.625, 1.125, 1.625, 2.125, 2.625, 3.125, 3.625, 4.125, 4.625, 4.625],
                [0.375, 0.375, 0.875, 1.375, 1.875, 2.375, 2.875, 3.375, 3.875, 4.375, 4.875, 4.875],
                [0.625, 0.625, 1.125, 1.625, 2.125, 2.625, 3.125, 3.625, 3.66667, 3.70833, 3.75, 3.75],
                [0.875, 0.875, 1.375, 1.875, 2.375, 2.875, 3.375, 3.875, 3.0, 2.125, 1.25, 1.25],
                [1.0, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 2.66667, 1.33333, 0.0, 0.0]]  # size (2, 3), channel 0
UP2_BICUBIC = [[3.24702, 3.45588, 4.15729, 5.12424, 5.44118, 4.20549, 2.24547, 0.95588, 1.11703, 1.88818, 2.45588,
                2.61369],
               [3.53595, 3.58394, 3.81142, 4.10486, 4.04015, 3.14367, 1.86449, 1.08394, 1.35431, 2.06889, 2.58394,
                2.74175],
               [4.14769, 3.85496, 3.07865, 1.94558, 1.07252, 0.89452, 1.05737, 1.35496, 1.85668, 2.45142, 2.85496,
                3.01277],
               [4.60562, 4.14504, 2.87424, 1.03845, -0.23282, -0.05689, 0.81633, 1.64504, 2.26072, 2.79643, 3.14504,
                3.30285],
               [4.84955, 4.41606, 3.22505, 1.50264, 0.29562, 0.41444, 1.17305, 1.91606, 2.51335, 3.05859, 3.41606,
                3.57387],
               [4.96494, 4.54412, 3.39044, 1.72108, 0.54412, 0.63622, 1.3412, 2.04412, 2.63281, 3.1825, 3.54412,
                3.70193]]  # size (2, 3), channel 1
TD_DENSE = [[[1.166667, -0.5], [0.916667, -0.25], [0.666667, 0.0], [1.0, -0.333333]],
            [[0.5, 0.166667], [-1.5, -2.5], [1.166667, -0.5], [0.916667, -0.25]]]


def close(got, expected, atol=2e-5):
    np.testing.assert_allclose(np.asarray(got), np.asarray(expected, np.float64), rtol=1e-5, atol=atol)


# -- RepeatVector and Permute -------------------------------------------------------------------------
def test_repeat_vector():
    layer = layers.RepeatVector(3)
    out = layer(X2)
    assert out.shape == (2, 3, 3)
    close(out, np.repeat(X2[:, None, :], 3, axis=1))
    assert layer.compute_output_shape((None, 3)) == (None, 3, 3)


def test_repeat_vector_arguments_and_rank():
    with pytest.raises(ValueError, match="`n`"):
        layers.RepeatVector(0)
    with pytest.raises(TypeError, match="`n`"):
        layers.RepeatVector(2.0)
    with pytest.raises(ValueError, match="ndim=2"):
        layers.RepeatVector(2)(np.zeros((2, 3, 4), np.float32))


def test_permute():
    x = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    layer = layers.Permute((3, 1, 2))
    close(layer(x), x.transpose(0, 3, 1, 2))
    assert layer.compute_output_shape((None, 3, None, 5)) == (None, 5, 3, None)
    for dims in [(2, 3), (0, 1), (1, 1)]:
        with pytest.raises(ValueError, match="dims"):
            layers.Permute(dims)
    with pytest.raises(ValueError, match="ndim=3"):
        layers.Permute((2, 1))(x)


# -- UpSampling ---------------------------------------------------------------------------------------
def test_upsampling1d_repeats_steps():
    out = layers.UpSampling1D(3)(XS)
    close(out, np.repeat(XS, 3, axis=1))
    assert layers.UpSampling1D(3).compute_output_shape((None, None, 2)) == (None, None, 2)
    assert layers.UpSampling1D(3).compute_output_shape((None, 4, 2)) == (None, 12, 2)
    with pytest.raises(TypeError, match="size"):
        layers.UpSampling1D((3,))


def test_upsampling2d_nearest_repeats_pixels():
    layer = layers.UpSampling2D((2, 3))
    assert layers.UpSampling2D(2).size == (2, 2)
    close(layer(IMG), np.repeat(np.repeat(IMG, 2, axis=1), 3, axis=2))
    assert layer.compute_output_shape((None, None, 4, 2)) == (None, None, 12, 2)


def test_upsampling2d_bilinear_and_bicubic_match_keras():
    close(layers.UpSampling2D((2, 3), interpolation="bilinear")(IMG)[0, :, :, 0], UP2_BILINEAR)
    close(layers.UpSampling2D((2, 3), interpolation="bicubic")(IMG)[0, :, :, 1], UP2_BICUBIC)


def test_upsampling2d_rejects_unknown_interpolation_and_channels_first():
    with pytest.raises(ValueError, match="interpolation"):
        layers.UpSampling2D(interpolation="gaussian")
    with pytest.raises(NotImplementedError, match="data_format"):
        layers.UpSampling2D(data_format="channels_first")


def test_upsampling2d_bilinear_with_unknown_image_size():
    inputs = keras.Input((None, None, 2))
    outputs = layers.UpSampling2D((2, 3), interpolation="bilinear")(inputs)
    assert outputs.shape == (None, None, None, 2)
    close(keras.Model(inputs, outputs).predict(IMG, verbose=0)[0, :, :, 0], UP2_BILINEAR)


# -- ZeroPadding and Cropping -------------------------------------------------------------------------
def test_zero_padding1d():
    layer = layers.ZeroPadding1D((1, 3))
    close(layer(XS), np.pad(XS, [(0, 0), (1, 3), (0, 0)]))
    assert layer.compute_output_shape((None, 7, 3)) == (None, 11, 3)
    assert layer.compute_output_shape((None, None, 3)) == (None, None, 3)
    assert layers.ZeroPadding1D(2).padding == (2, 2)
    for bad in [(1, 2, 3), -1]:
        with pytest.raises(ValueError, match="padding"):
            layers.ZeroPadding1D(bad)


def test_zero_padding2d_argument_forms():
    assert layers.ZeroPadding2D(2).padding == ((2, 2), (2, 2))
    assert layers.ZeroPadding2D((1, 2)).padding == ((1, 1), (2, 2))
    layer = layers.ZeroPadding2D(((1, 2), (3, 4)))
    close(layer(IMG), np.pad(IMG, [(0, 0), (1, 2), (3, 4), (0, 0)]))
    assert layer.compute_output_shape((None, 5, None, 2)) == (None, 8, None, 2)
    for bad in [(1, 2, 3), ((1, 2), (3, 4, 5)), -1]:
        with pytest.raises(ValueError, match="padding"):
            layers.ZeroPadding2D(bad)


def test_cropping1d():
    layer = layers.Cropping1D((2, 1))
    close(layer(XS), XS[:, 2:-1])
    assert layers.Cropping1D().cropping == (1, 1)
    assert layer.compute_output_shape((None, None, 3)) == (None, None, 3)
    with pytest.raises(ValueError, match="cropping"):
        layers.Cropping1D((2, 2))(np.zeros((1, 4, 1), np.float32))
    with pytest.raises(ValueError, match="cropping"):
        layers.Cropping1D((2, 2)).compute_output_shape((1, 4, 1))


def test_cropping2d():
    layer = layers.Cropping2D(((1, 2), (0, 1)))
    close(layer(PIC), PIC[:, 1:-2, 0:-1])
    assert layers.Cropping2D(2).cropping == ((2, 2), (2, 2))
    assert layer.compute_output_shape((None, None, 4, 2)) == (None, None, 3, 2)
    with pytest.raises(ValueError, match="cropping"):
        layers.Cropping2D(((2, 2), (0, 1)))(np.zeros((1, 4, 4, 2), np.float32))
    with pytest.raises(ValueError, match="cropping"):
        layers.Cropping2D(-1)


def test_padding_and_cropping_with_unknown_sizes_in_a_functional_model():
    inputs = keras.Input((None, None, 3))
    outputs = layers.Cropping2D(((1, 1), (0, 2)))(layers.ZeroPadding2D(((1, 1), (0, 2)))(inputs))
    assert outputs.shape == (None, None, None, 3)
    close(keras.Model(inputs, outputs).predict(PIC, verbose=0), PIC)


def test_identity():
    layer = layers.Identity()
    close(layer(XS), XS)
    assert layer.compute_output_shape((None, 3)) == (None, 3)


# -- 1-D pooling ----------------------------------------------------------------------------------------
def test_max_pooling1d_defaults_and_numpy():
    layer = layers.MaxPooling1D()
    assert layer.pool_size == (2,) and layer.strides == (2,) and layer.padding == "valid"
    close(layer(XS), XS[:, :6].reshape(2, 3, 2, 3).max(axis=2))


def test_pooling1d_same_padding_matches_keras():
    close(layers.MaxPooling1D(3, 1, "same")(XS), MAX_POOL_SAME)
    close(layers.AveragePooling1D(3, 2, "same")(XS), AVG_POOL_SAME)
    close(layers.AveragePooling1D(2)(XS), XS[:, :6].reshape(2, 3, 2, 3).mean(axis=2))


def test_pooling1d_output_shapes_and_arguments():
    assert layers.MaxPooling1D(3, 2, "same").compute_output_shape((None, 7, 3)) == (None, 4, 3)
    assert layers.MaxPooling1D(3, 2).compute_output_shape((None, 7, 3)) == (None, 3, 3)
    assert layers.AveragePooling1D(3).compute_output_shape((None, None, 3)) == (None, None, 3)
    assert layers.MaxPool1D is layers.MaxPooling1D and layers.AvgPool1D is layers.AveragePooling1D
    with pytest.raises(TypeError):
        layers.AveragePooling1D()  # Keras 3 gives AveragePooling1D no default pool size
    with pytest.raises(ValueError, match="pool_size"):
        layers.MaxPooling1D(0)
    with pytest.raises(ValueError, match="padding"):
        layers.MaxPooling1D(2, padding="causal")


# -- noise layers ---------------------------------------------------------------------------------------
NOISE_LAYERS = [lambda: layers.GaussianNoise(0.3), lambda: layers.GaussianDropout(0.2),
                lambda: layers.SpatialDropout1D(0.5)]


@pytest.mark.parametrize("make", NOISE_LAYERS)
def test_noise_layers_pass_inputs_through_outside_training(make):
    layer = make()
    close(layer(XS), XS)
    close(layer(XS, training=False), XS)
    assert layer.compute_output_shape((None, 7, 3)) == (None, 7, 3)


def test_gaussian_noise_statistics_while_training():
    tf.random.set_seed(1)
    out = layers.GaussianNoise(0.3)(np.ones((200, 500), np.float32), training=True).numpy()
    assert abs(out.mean() - 1.0) < 0.01 and abs(out.std() - 0.3) < 0.01


def test_gaussian_dropout_statistics_while_training():
    tf.random.set_seed(2)
    out = layers.GaussianDropout(0.2)(np.ones((200, 500), np.float32), training=True).numpy()
    assert abs(out.mean() - 1.0) < 0.01 and abs(out.std() - np.sqrt(0.2 / 0.8)) < 0.01


def test_noise_arguments_are_checked():
    for bad in [-1, 2.0]:
        with pytest.raises(ValueError, match="stddev"):
            layers.GaussianNoise(bad)
        with pytest.raises(ValueError, match="rate"):
            layers.GaussianDropout(bad + 0.5 if bad > 1 else bad)
        with pytest.raises(ValueError, match="rate"):
            layers.SpatialDropout1D(bad)
    with pytest.raises(NotImplementedError, match="data_format"):
        layers.SpatialDropout2D(0.5, data_format="channels_first")


def test_seeded_noise_repeats_across_fresh_layers_but_not_across_calls():
    x = np.ones((4, 5), np.float32)
    first = layers.GaussianNoise(0.5, seed=7)
    again = layers.GaussianNoise(0.5, seed=7)
    a1, a2 = first(x, training=True).numpy(), first(x, training=True).numpy()
    close(again(x, training=True), a1)
    assert not np.allclose(a1, a2)


def test_spatial_dropout1d_drops_whole_channels():
    tf.random.set_seed(3)
    out = layers.SpatialDropout1D(0.5)(np.ones((8, 5, 6), np.float32), training=True).numpy()
    assert set(np.unique(out)) == {0.0, 2.0}
    assert np.all(out == out[:, :1, :])  # one draw per (example, channel), shared over time


def test_spatial_dropout2d_drops_whole_feature_maps():
    tf.random.set_seed(4)
    out = layers.SpatialDropout2D(0.5)(np.ones((8, 3, 5, 6), np.float32), training=True).numpy()
    assert set(np.unique(out)) == {0.0, 2.0}
    assert np.all(out == out[:, :1, :1, :])
    close(layers.SpatialDropout2D(1.0)(PIC, training=True), np.zeros_like(PIC))


def test_spatial_dropout_checks_rank():
    with pytest.raises(ValueError, match="ndim=3"):
        layers.SpatialDropout1D(0.5)(np.ones((2, 3), np.float32), training=True)
    with pytest.raises(ValueError, match="ndim=4"):
        layers.SpatialDropout2D(0.5)(np.ones((2, 3, 4), np.float32), training=True)


def test_noise_is_active_inside_fit_only():
    model = keras.Sequential([keras.Input((3,)), layers.GaussianNoise(1.0, seed=5),
                              layers.Dense(1, kernel_initializer="ones", bias_initializer="zeros")])
    model.compile(optimizer=keras.optimizers.SGD(0.0), loss="mse")
    x, y = np.ones((16, 3), np.float32), np.full((16, 1), 3.0, np.float32)
    assert model.evaluate(x, y, verbose=0) == pytest.approx(0.0, abs=1e-6)
    history = model.fit(x, y, batch_size=16, epochs=2, verbose=0)  # noise of variance 3 on each prediction
    assert min(history.history["loss"]) > 0.3
    losses = history.history["loss"]
    assert losses[0] != losses[1]  # a new draw at every step, also inside the compiled train step


# -- TimeDistributed --------------------------------------------------------------------------------------
def _td_dense():
    td = layers.TimeDistributed(layers.Dense(2))
    td.build((None, 4, 3))
    td.set_weights([TD_KERNEL, np.array([0.5, -0.5], np.float32)])
    return td


def test_time_distributed_dense_matches_keras_and_numpy():
    td = _td_dense()
    out = td(SEQ)
    close(out, TD_DENSE)
    close(out, SEQ @ TD_KERNEL + [0.5, -0.5])
    assert [w.name.split("/")[-1].split(":")[0] for w in td.weights] == ["kernel", "bias"]
    assert td.compute_output_shape((None, 4, 3)) == (None, 4, 2)
    assert td.compute_output_shape((None, None, 3)) == (None, None, 2)


def test_time_distributed_conv2d_in_a_functional_model():
    inputs = keras.Input((2, 4, 6, 3))
    td = layers.TimeDistributed(layers.Conv2D(1, 2, kernel_initializer="ones"))
    outputs = td(inputs)
    assert outputs.shape == (None, 2, 3, 5, 1)
    x = PIC[None]
    windows = x[:, :, :-1, :-1] + x[:, :, 1:, :-1] + x[:, :, :-1, 1:] + x[:, :, 1:, 1:]
    close(keras.Model(inputs, outputs).predict(x, verbose=0), windows.sum(axis=-1, keepdims=True))


def test_time_distributed_with_unknown_time_steps():
    td = _td_dense()
    inputs = keras.Input((None, 3))
    outputs = td(inputs)
    assert outputs.shape == (None, None, 2)
    close(keras.Model(inputs, outputs).predict(SEQ, verbose=0), TD_DENSE)


def test_time_distributed_passes_training_to_the_wrapped_layer():
    td = layers.TimeDistributed(layers.Dropout(0.99))
    close(td(SEQ), SEQ)
    tf.random.set_seed(0)
    assert np.count_nonzero(td(np.ones((4, 5, 6), np.float32), training=True).numpy()) < 20


def test_time_distributed_arguments():
    with pytest.raises(ValueError, match="Layer"):
        layers.TimeDistributed(lambda x: x)
    with pytest.raises(ValueError, match="at least 3"):
        layers.TimeDistributed(layers.Dense(2))(X2)


def test_time_distributed_trains_in_a_sequential_model():
    model = keras.Sequential([keras.Input((4, 3)), layers.TimeDistributed(layers.Dense(2)),
                              layers.Flatten(), layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse")
    kernel_before = model.layers[0].get_weights()[0].copy()
    model.fit(SEQ, np.array([[1.0], [-1.0]], np.float32), epochs=2, verbose=0)
    assert not np.allclose(model.layers[0].get_weights()[0], kernel_before)


def test_reshaping_layers_in_a_sequential_model():
    model = keras.Sequential([keras.Input((3,)), layers.RepeatVector(4), layers.Permute((2, 1)),
                              layers.UpSampling1D(2), layers.ZeroPadding1D((2, 1)), layers.Cropping1D((1, 2)),
                              layers.MaxPooling1D(), layers.Identity()])
    assert model.compute_output_shape((None, 3)) == (None, 3, 4)
    upsampled = np.repeat(np.repeat(X2[:, :, None], 4, axis=2), 2, axis=1)      # (2, 6, 4)
    shifted = np.pad(upsampled, [(0, 0), (1, 0), (0, 0)])[:, :6]                 # one zero step in front
    close(model(X2), shifted.reshape(2, 3, 2, 4).max(axis=2))
