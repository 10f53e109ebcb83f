"""keras preprocessing layers (Rescaling, Normalization, Resizing, CenterCrop) against NumPy and against numbers
computed with TensorFlow 2.21's Keras (3.15) on the same inputs."""
import numpy as np
import pytest

import tensorflux as tf

keras = tf.keras
layers = keras.layers

X = np.array([[1., 2., 3.], [4., 6., 8.], [0., -2., 1.], [3., 3., 3.]], np.float32)
X3 = np.arange(24, dtype=np.float32).reshape(2, 3, 4) ** 1.3
PIC = ((np.arange(2 * 4 * 6 * 3, dtype=np.float32).reshape(2, 4, 6, 3) * 7) % 11)

# From TF 2.21's Keras on the same inputs (rounded to 4-6 decimals).
NORM_DS_MEAN = [[22.028013, 24.447193, 27.00602, 29.663841]]  # adapt on a dataset of batches of 5 rows
NORM_DS_VAR = [[292.1017, 315.4779, 336.0464, 355.2261]]
NORM_AXIS1_MEAN = [[[15.7107], [25.2897], [36.3584]]]
NORM_AXIS1_VAR = [[[196.7734], [266.1876], [321.9767]]]
NORM_AXIS1_OUT = [[[-1.119988, -1.0487, -0.944456, -0.822633], [-1.178458, -1.053396, -0.920555, -0.780875],
                   [-1.194281, -1.056622, -0.914289, -0.767615]],
                  [[0.682832, 0.880533, 1.082853, 1.289559], [0.702939, 0.887688, 1.075727, 1.266928],
                   [0.711712, 0.890999, 1.072866, 1.257231]]]
# Image results: first image, channel 0 unless noted.
RESIZE_BILINEAR = [[2.875, 8.25, 6.75, 5.25], [7.25, 5.75, 4.25, 2.75], [4.75, 3.25, 1.75, 7.125]]
RESIZE_AREA = [[3.66667, 7.83333, 6.16667, 4.83333], [7.16667, 5.83333, 4.16667, 2.83333],
               [5.16667, 3.83333, 2.16667, 6.33333]]
RESIZE_ANTIALIAS = [[5.55102, 5.78571, 4.0], [6.0, 4.21429, 4.44898]]
RESIZE_CROP = [[8.83333, 7.5, 6.16667], [6.33333, 5.0, 3.66667], [3.83333, 2.5, 1.16667]]
RESIZE_UINT8 = [[58, 165, 135, 105], [145, 115, 85, 55], [95, 65, 35, 142]]  # of PIC * 20 as uint8
CENTER_CROP_UP = [[7.0, 6.375, 5.625, 4.875, 4.125, 3.375, 2.625, 2.0],
                  [4.6, 3.975, 4.875, 6.875, 6.125, 5.375, 4.625, 4.0],
                  [1.0, 0.375, 3.75, 9.875, 9.125, 8.375, 7.625, 7.0],
                  [4.0, 3.375, 4.275, 6.275, 5.525, 4.775, 4.025, 3.4],
                  [6.0, 5.375, 4.625, 3.875, 3.125, 2.375, 1.625, 1.0]]  # 5x8 from 4x6, channel 1
CENTER_CROP_TALL = [[8.0, 7.375, 6.625, 5.875, 5.125, 4.375, 3.625, 3.0],
                    [8.0, 7.375, 6.625, 5.875, 5.125, 4.375, 3.625, 3.0]]  # 2x8 from 4x6, channel 2


def close(got, expected, atol=2e-5, rtol=1e-5):
    np.testing.assert_allclose(np.asarray(got), np.asarray(expected, np.float64), rtol=rtol, atol=atol)


# -- Rescaling ----------------------------------------------------------------------------------------
def test_rescaling_integer_images_to_float():
    out = layers.Rescaling(1 / 255.0, offset=-1)(np.array([[0, 127, 255]], np.uint8))
    assert out.dtype == tf.float32
    close(out, [[-1.0, 127 / 255 - 1, 0.0]])


def test_rescaling_per_channel_and_shapes():
    layer = layers.Rescaling([1.0, 2.0], offset=0.5)
    close(layer(np.ones((1, 3, 2), np.float32)), [[[1.5, 2.5]] * 3])
    assert layer.weights == [] and layer.compute_output_shape((None, 3, 2)) == (None, 3, 2)


# -- Normalization --------------------------------------------------------------------------------------
def test_normalization_adapt_on_an_array():
    layer = layers.Normalization()
    layer.adapt(X)
    close(layer.mean, [X.mean(axis=0)])
    close(layer.variance, [X.var(axis=0)])
    close(layer(X), (X - X.mean(axis=0)) / X.std(axis=0), atol=1e-5)
    assert [(w.name.split("/")[-1].split(":")[0], w.shape.as_list(), w.dtype) for w in layer.weights] == [
        ("mean", [3], tf.float32), ("variance", [3], tf.float32), ("count", [], tf.int64)]
    assert layer.trainable_weights == []


def test_normalization_adapt_on_a_dataset_with_uneven_batches_matches_keras():
    rows = X3.reshape(-1, 4)
    layer = layers.Normalization()
    layer.adapt(tf.data.Dataset.from_tensor_slices(rows).batch(5))
    close(layer.mean, NORM_DS_MEAN)
    close(layer.variance, NORM_DS_VAR, atol=1e-3)
    close(layer.variance, [rows.var(axis=0)], atol=1e-3)


def test_normalization_adapt_on_tensors_and_labelled_datasets():
    layer = layers.Normalization()
    layer.adapt(tf.constant(X))
    close(layer.mean, [X.mean(axis=0)])
    labelled = layers.Normalization()
    labelled.adapt(tf.data.Dataset.from_tensor_slices((X, X[:, :1])).batch(3))
    close(labelled.mean, [X.mean(axis=0)])
    with pytest.raises(TypeError, match="adapt"):
        layers.Normalization().adapt([[1.0, 2.0], [3.0, 5.0]])


def test_normalization_other_axes_match_keras():
    layer = layers.Normalization(axis=1)
    layer.adapt(X3)
    close(layer.mean, NORM_AXIS1_MEAN, atol=1e-4)
    close(layer.variance, NORM_AXIS1_VAR, atol=1e-3)
    close(layer(X3), NORM_AXIS1_OUT)
    assert [w.shape.as_list() for w in layer.weights] == [[3], [3], []]

    both = layers.Normalization(axis=(1, 2))
    both.adapt(X3)
    assert both.mean.shape == (1, 3, 4)
    close(both(X3), np.where(X3 > X3.mean(axis=0), 1.0, -1.0), atol=1e-5)  # two samples: +-1 each

    overall = layers.Normalization(axis=None)
    overall.adapt(X3)
    assert overall.mean.shape == (1, 1, 1)
    close(overall(X3), (X3 - X3.mean()) / X3.std(), atol=1e-5)


def test_normalization_readapt_replaces_the_statistics():
    layer = layers.Normalization()
    layer.adapt(X)
    layer.adapt(X * 2)
    close(layer.mean, [2 * X.mean(axis=0)])
    with pytest.raises(ValueError, match="incompatible shape"):
        layer.adapt(np.ones((3, 5), np.float32))


def test_normalization_given_mean_and_variance():
    layer = layers.Normalization(mean=[1.0, 2.0, 3.0], variance=[1.0, 4.0, 0.0])
    out = layer(X)
    # A zero variance divides by Keras's epsilon 1e-7.
    close(out, [[0.0, 0.0, 0.0], [3.0, 2.0, 5e7], [-1.0, -2.0, -2e7], [2.0, 0.5, 0.0]])
    assert layer.weights == []
    close(layers.Normalization(mean=2.0, variance=4.0)(X), (X - 2) / 2)
    close(layers.Normalization(mean=2.0, variance=4.0, invert=True)(X), X * 2 + 2)
    close(layers.Normalization(mean=[1.0, 2.0], variance=[0.0, 4.0], invert=True)([[1.0, 2.0], [3.0, 4.0]]),
          [[1.0000001, 6.0], [1.0000004, 10.0]])


def test_normalization_argument_errors():
    with pytest.raises(ValueError, match="both `mean` and `variance`"):
        layers.Normalization(mean=2.0)
    with pytest.raises(ValueError, match="axis"):
        layers.Normalization(axis=3).adapt(X3)
    with pytest.raises(ValueError, match="known shape"):
        layers.Normalization().build((None, None))
    with pytest.raises(ValueError, match="mean"):
        layers.Normalization(mean=[1.0, 2.0], variance=[1.0, 1.0])(X)
    with pytest.raises(ValueError, match="adapt"):
        layers.Normalization(mean=1.0, variance=1.0).adapt(X)


def test_normalization_set_weights_takes_effect():
    layer = layers.Normalization()
    layer.adapt(X)
    layer.set_weights([np.array([10.0, 20.0, 30.0]), np.array([4.0, 4.0, 4.0]), np.array(0)])
    close(layer(X), (X - [10, 20, 30]) / 2)


def test_normalization_adapted_then_used_in_models():
    layer = layers.Normalization()
    layer.adapt(X)
    inputs = keras.Input((3,))
    model = keras.Model(inputs, layers.Dense(1, kernel_initializer="ones")(layer(inputs)))
    normalized = (X - X.mean(axis=0)) / X.std(axis=0)
    close(model.predict(X, verbose=0), normalized.sum(axis=1, keepdims=True), atol=1e-5)
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    model.fit(X, np.ones((4, 1), np.float32), epochs=1, verbose=0)
    close(layer.mean, [X.mean(axis=0)])  # training leaves the statistics alone

    sequential = keras.Sequential([keras.Input((3,)), layers.Normalization(mean=X.mean(axis=0),
                                                                           variance=X.var(axis=0))])
    assert sequential.compute_output_shape((None, 3)) == (None, 3)
    close(sequential(X), normalized, atol=1e-5)


# -- Resizing -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("interpolation, expected", [("bilinear", RESIZE_BILINEAR), ("area", RESIZE_AREA)])
def test_resizing_matches_keras(interpolation, expected):
    layer = layers.Resizing(3, 4, interpolation=interpolation)
    out = layer(PIC)
    assert out.shape == (2, 3, 4, 3)
    close(out[0, :, :, 0], expected)


def test_resizing_nearest_antialias_and_crop_to_aspect_ratio():
    close(layers.Resizing(2, 3, interpolation="nearest")(PIC), PIC[:, 1::2, 1::2])  # half-pixel centres
    close(layers.Resizing(2, 3, antialias=True)(PIC)[0, :, :, 0], RESIZE_ANTIALIAS)
    close(layers.Resizing(3, 3, crop_to_aspect_ratio=True)(PIC)[0, :, :, 0], RESIZE_CROP)
    close(layers.Resizing(4, 4, crop_to_aspect_ratio=True)(PIC), PIC[:, :, 1:5])  # a pure crop


def test_resizing_keeps_integer_dtypes_rounded():
    out = layers.Resizing(3, 4)(PIC.astype(np.uint8) * 20)
    assert out.dtype == tf.uint8
    np.testing.assert_array_equal(out[0, :, :, 0].numpy(), RESIZE_UINT8)


def test_resizing_shapes_and_arguments():
    layer = layers.Resizing(3, 5)
    assert layer.interpolation == "bilinear"
    assert layer.compute_output_shape((None, None, None, 3)) == (None, 3, 5, 3)
    assert layer.compute_output_shape((None, None, 3)) == (3, 5, 3)
    assert layer(PIC[0]).shape == (3, 5, 3)
    with pytest.raises(ValueError, match="interpolation"):
        layers.Resizing(3, 3, interpolation="gaussian")
    with pytest.raises(NotImplementedError, match="pad_to_aspect_ratio"):
        layers.Resizing(3, 3, pad_to_aspect_ratio=True)
    with pytest.raises(NotImplementedError, match="data_format"):
        layers.Resizing(3, 3, data_format="channels_first")


# -- CenterCrop -----------------------------------------------------------------------------------------
def test_center_crop_takes_the_middle():
    out = layers.CenterCrop(3, 3)(PIC)
    close(out, PIC[:, 0:3, 1:4])
    close(layers.CenterCrop(2, 4)(PIC), PIC[:, 1:3, 1:5])
    assert layers.CenterCrop(2, 3)(PIC[0]).shape == (2, 3, 3)
    assert layers.CenterCrop(2, 2)(PIC.astype(np.int32)).dtype == tf.float32


def test_center_crop_of_a_smaller_image_resizes_like_keras():
    close(layers.CenterCrop(5, 8)(PIC)[0, :, :, 1], CENTER_CROP_UP)
    close(layers.CenterCrop(2, 8)(PIC)[0, :, :, 2], CENTER_CROP_TALL)


def test_center_crop_shapes_and_unknown_image_sizes():
    layer = layers.CenterCrop(2, 3)
    assert layer.compute_output_shape((None, None, None, 3)) == (None, 2, 3, 3)
    assert layer.compute_output_shape((5, 6, 3)) == (2, 3, 3)
    inputs = keras.Input((None, None, 3))
    outputs = layer(inputs)
    assert outputs.shape == (None, 2, 3, 3)
    model = keras.Model(inputs, outputs)
    close(model.predict(PIC, verbose=0), PIC[:, 1:3, 1:4])
    smaller = layers.CenterCrop(5, 8)
    close(keras.Model(inputs, smaller(inputs)).predict(PIC, verbose=0)[0, :, :, 1], CENTER_CROP_UP)


def test_preprocessing_pipeline_in_a_sequential_model():
    model = keras.Sequential([keras.Input((4, 6, 3)), layers.CenterCrop(4, 4), layers.Resizing(2, 2),
                              layers.Rescaling(0.1, offset=-0.5)])
    assert model.compute_output_shape((None, 4, 6, 3)) == (None, 2, 2, 3)
    crop = PIC[:, :, 1:5]
    pooled = crop.reshape(2, 2, 2, 2, 2, 3).mean(axis=(2, 4))  # halving with half-pixel centres averages 2x2
    close(model(PIC), pooled * 0.1 - 0.5, atol=1e-5)
