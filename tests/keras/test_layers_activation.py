"""keras activation layers (ReLU, LeakyReLU, ELU, PReLU, Softmax) against NumPy and against numbers computed
with TensorFlow 2.21's Keras (3.15) on the same inputs and weights, in models and in `model.fit`."""
import numpy as np
import pytest

import tensorflux as tf

keras = tf.keras

XA = np.array([[-3., -1., -0.5, 0., 0.5, 1., 2., 7.]], np.float32)
S = (np.arange(12, dtype=np.float32).reshape(2, 2, 3) % 5) / 2 - 1
FIT_X = (np.arange(8 * 3 * 4, dtype=np.float32).reshape(8, 3, 4) % 9 - 4) / 3
FIT_Y = (np.arange(8, dtype=np.float32).reshape(8, 1) % 3) - 1
FIT_KERNEL = ((np.arange(12, dtype=np.float32) % 5 - 2) / 4).reshape(12, 1)

# From TF 2.21's Keras on the same inputs (rounded to 6 decimals).
RELU_ALL = [[-0.4, -0.2, -0.15, -0.1, -0.05, 0.0, 2.0, 6.0]]  # max_value=6, negative_slope=0.1, threshold=1
LEAKY_DEFAULT = [[-0.9, -0.3, -0.15, 0.0, 0.5, 1.0, 2.0, 7.0]]
ELU_HALF = [[-0.475106, -0.31606, -0.196735, 0.0, 0.5, 1.0, 2.0, 7.0]]
SOFTMAX_AXES12 = [[[0.054831, 0.090402, 0.149047], [0.245737, 0.405152, 0.054831]],
                  [[0.087296, 0.143927, 0.237296], [0.391235, 0.052948, 0.087296]]]
SOFTMAX_MASKED = [[0.268941, 0.0, 0.731059], [0.0, 0.0, 0.0]]
PRELU_FIT_LOSS = [1.12334, 0.105301, 0.009657]
PRELU_FIT_ALPHA = [[0.016978, 0.452043, 0.190233, 0.172814]]


def close(got, expected, atol=2e-5):
    np.testing.assert_allclose(np.asarray(got), np.asarray(expected, np.float64), rtol=1e-5, atol=atol)


# -- ReLU ---------------------------------------------------------------------------------------------
def test_relu_default_is_max_with_zero():
    close(keras.layers.ReLU()(XA), np.maximum(XA, 0))


def test_relu_with_all_options_matches_keras():
    close(keras.layers.ReLU(max_value=6, negative_slope=0.1, threshold=1.0)(XA), RELU_ALL)


def test_relu_gives_zero_at_the_threshold():
    x = np.array([0.0, 0.5, 1.0, 1.5], np.float32)
    close(keras.layers.ReLU(threshold=1.0)(x), [0.0, 0.0, 0.0, 1.5])
    close(keras.layers.ReLU(threshold=1.0, negative_slope=0.5)(x), [-0.5, -0.25, 0.0, 1.5])


def test_relu_caps_at_max_value():
    close(keras.layers.ReLU(max_value=1.5)(XA), np.clip(XA, 0, 1.5))


@pytest.mark.parametrize("kwargs", [{"max_value": -1}, {"negative_slope": -0.1}, {"negative_slope": None},
                                    {"threshold": -1.0}, {"threshold": None}])
def test_relu_rejects_negative_or_missing_arguments(kwargs):
    with pytest.raises(ValueError, match=next(iter(kwargs))):
        keras.layers.ReLU(**kwargs)


# -- LeakyReLU and ELU --------------------------------------------------------------------------------
def test_leaky_relu_default_slope_is_0_3():
    layer = keras.layers.LeakyReLU()
    assert layer.negative_slope == 0.3
    close(layer(XA), LEAKY_DEFAULT)
    close(layer(XA), np.where(XA >= 0, XA, 0.3 * XA))


def test_leaky_relu_accepts_keras2_alpha_with_a_warning():
    with pytest.warns(UserWarning, match="alpha"):
        layer = keras.layers.LeakyReLU(alpha=0.1)
    assert layer.negative_slope == 0.1
    close(layer(XA), np.where(XA >= 0, XA, 0.1 * XA))


@pytest.mark.parametrize("slope", [-0.1, None])
def test_leaky_relu_rejects_bad_slope(slope):
    with pytest.raises(ValueError, match="negative_slope"):
        keras.layers.LeakyReLU(negative_slope=slope)


def test_elu_alpha_matches_keras_and_numpy():
    out = keras.layers.ELU(alpha=0.5)(XA)
    close(out, ELU_HALF)
    close(out, np.where(XA > 0, XA, 0.5 * np.expm1(XA)), atol=1e-6)
    close(keras.layers.ELU()(XA), np.where(XA > 0, XA, np.expm1(XA)), atol=1e-6)


# -- Softmax ------------------------------------------------------------------------------------------
def _np_softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def test_softmax_over_one_axis():
    close(keras.layers.Softmax()(S), _np_softmax(S, -1))
    close(keras.layers.Softmax(axis=1)(S), _np_softmax(S, 1))


def test_softmax_over_several_axes_matches_keras():
    out = keras.layers.Softmax(axis=(1, 2))(S)
    close(out, SOFTMAX_AXES12)
    close(np.sum(out, axis=(1, 2)), [1.0, 1.0])


def test_softmax_mask_gives_zero_probability_and_renormalises():
    mask = np.array([[True, False, True], [False, False, False]])
    close(keras.layers.Softmax()(S[0], mask=mask), SOFTMAX_MASKED)


# -- PReLU --------------------------------------------------------------------------------------------
def test_prelu_alpha_shape_follows_shared_axes():
    for shared_axes, shape in [(None, [3, 4]), ([1], [1, 4]), (1, [1, 4]), ([1, 2], [1, 1]), ([-1], [1, 4])]:
        layer = keras.layers.PReLU(shared_axes=shared_axes)
        layer.build((None, 3, 4))
        assert [w.shape.as_list() for w in layer.weights] == [shape], shared_axes
        assert len(layer.trainable_weights) == 1


def test_prelu_starts_as_relu_and_uses_alpha_below_zero():
    close(keras.layers.PReLU()(XA), np.maximum(XA, 0))
    layer = keras.layers.PReLU(alpha_initializer=keras.initializers.Constant(0.25))
    close(layer(XA), np.where(XA > 0, XA, 0.25 * XA))
    assert layer.weights[0].name.split("/")[-1].startswith("alpha")


def test_prelu_unknown_unshared_dimension_is_an_error():
    with pytest.raises(ValueError, match="shared_axes"):
        keras.layers.PReLU().build((None, None, 4))
    layer = keras.layers.PReLU(shared_axes=[1])
    layer.build((None, None, 4))
    assert layer.weights[0].shape.as_list() == [1, 4]


def test_prelu_gradient_reaches_alpha():
    layer = keras.layers.PReLU(alpha_initializer=keras.initializers.Constant(0.25))
    x = tf.constant(XA)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(layer(x))
    (grad,) = tape.gradient(y, layer.trainable_weights)
    close(grad, np.minimum(XA, 0)[0])  # d/d alpha of alpha * min(x, 0); alpha has no batch axis


def test_prelu_trains_in_fit_like_keras():
    model = keras.Sequential([keras.Input((3, 4)),
                              keras.layers.PReLU(alpha_initializer=keras.initializers.Constant(0.25),
                                                 shared_axes=[1]),
                              keras.layers.Flatten(), keras.layers.Dense(1)])
    model.layers[-1].set_weights([FIT_KERNEL, np.array([0.1], np.float32)])
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    history = model.fit(FIT_X, FIT_Y, batch_size=4, epochs=3, shuffle=False, verbose=0)
    close(history.history["loss"], PRELU_FIT_LOSS, atol=1e-5)
    close(model.layers[0].get_weights()[0], PRELU_FIT_ALPHA, atol=1e-5)


# -- shapes and models --------------------------------------------------------------------------------
@pytest.mark.parametrize("make", [keras.layers.ReLU, keras.layers.LeakyReLU, keras.layers.ELU,
                                  lambda: keras.layers.PReLU(shared_axes=[1]), keras.layers.Softmax])
def test_shapes_and_functional_model(make):
    layer = make()
    assert layer.compute_output_shape((None, 5, 3)) == (None, 5, 3)
    inputs = keras.Input((None, 3))
    outputs = layer(inputs)
    assert outputs.shape == (None, None, 3)
    model = keras.Model(inputs, outputs)
    close(model.predict(S, verbose=0), layer(S))


def test_sequential_model_of_activations():
    model = keras.Sequential([keras.Input((8,)), keras.layers.ReLU(threshold=1.0),
                              keras.layers.LeakyReLU(0.5), keras.layers.Softmax()])
    assert model.compute_output_shape((None, 8)) == (None, 8)
    relu = np.where(XA > 1.0, XA, 0.0)
    close(model(XA), _np_softmax(relu, -1))
