"""keras Conv1DTranspose, Conv2DTranspose, SeparableConv1D and SeparableConv2D: weight shapes and order,
output shapes, against NumPy loop references and against numbers computed with real Keras 3.15
(TensorFlow 2.21) on the same inputs and weights; gradients against finite differences; `model.fit`."""
import numpy as np
import pytest

import tensorflux as tf
from helpers import numeric_grad

keras = tf.keras
layers = keras.layers


def ramp(shape, scale=1.0, phase=0.0):
    """Deterministic values in [-scale/2, scale/2): the same function produced the Keras values below."""
    n = int(np.prod(shape))
    return (((np.arange(n) * 0.37 + phase) % 1.0 - 0.5) * scale).reshape(shape).astype(np.float32)


def with_ramp_weights(layer, x, scale=1.0):
    """`layer` built by calling it on `x`, its weights then set to ramps (phase 0.1 per weight)."""
    layer(x)
    layer.set_weights([ramp(w.shape, scale, 0.1 * i) for i, w in enumerate(layer.get_weights())])
    return layer


def close(got, expected, atol=2e-5):
    np.testing.assert_allclose(np.asarray(got), np.asarray(expected, np.float64), rtol=1e-5, atol=atol)


X2 = ramp((1, 3, 3, 2), 2.0)
X1 = ramp((1, 4, 2), 2.0, 0.4)
CX = ramp((4, 3, 3, 2), 2.0, 0.25)
FIT_Y = np.array([[0.5], [-1.0], [1.0], [0.0]], np.float32)

# Real Keras outputs (TF 2.21's Keras 3.15, rounded to 6 decimals) for the inputs above and ramp weights.
C2T_VALID = [[[[0.1338, -0.1686], [-0.471, 0.2266], [-0.9544, 0.3012], [-0.6826, -0.2346], [-0.1176, 0.1188], [-0.1542, 0.0442], [-0.5374, -0.339]], [[-0.4206, 0.277], [-0.7654, -0.0678], [-0.6408, 0.1348], [-0.0346, 0.4134], [-0.4392, -0.1628], [-0.5638, -0.3654], [-0.207, -0.0086]], [[-0.4584, -0.482], [-0.2456, 0.5508], [-0.9912, -0.3876], [-0.784, -0.4868], [0.192, 0.7572], [-0.5424, -0.2244], [-0.2864, 0.7316]], [[-0.3106, 0.1582], [-0.673, -0.2042], [-0.456, -0.138], [0.0578, 0.277], [-0.8744, -0.5356], [-0.0514, 0.4382], [-0.6722, -0.1826]], [[-0.6784, -0.2796], [-0.0608, 0.278], [-0.0616, -0.5332], [-0.5592, -0.1996], [-0.2984, -0.2884], [-0.8176, -0.4372], [0.4432, -0.0364]], [[-0.2006, 0.0394], [-0.5806, -0.3406], [-0.1512, 0.2292], [-0.6898, -0.1794], [-0.4896, -0.0884], [0.041, 0.3018], [-0.5974, -0.3366]], [[-0.6006, 0.2594], [-0.2406, -0.0006], [-0.8888, 0.2116], [-0.2874, 0.223], [-0.2224, -0.1412], [-0.6142, -0.3534], [0.0074, -0.1518]]]]
C2T_SAME_OP = [[[[-0.6096, 0.646], [-1.1694, -0.6054], [0.1992, 0.4756]], [[-1.036, -0.2604], [0.2146, 0.8186], [-0.8224, -0.546]], [[-0.284, 0.5796], [-1.6152, -0.1036], [0.328, -0.2068]], [[-0.8336, -0.5156], [-0.1282, 0.3094], [-0.2352, 0.1036]], [[0.6808, 0.0292], [-0.9608, -0.462], [-0.7176, -0.6876]], [[-0.5112, -0.1308], [-0.691, -0.4198], [0.132, 0.5332]]]]
C1T_SAME = [[[-0.3702, -0.2886], [-0.207, 0.0746], [-0.2264, -0.4828], [-0.3786, 0.1734], [-1.0496, 0.1948], [-0.5902, -0.2878], [-0.2128, 0.0124], [-0.0618, -0.009]]]
SEP2_SAME = [[[[-0.617496, 0.157136, 0.694168], [-0.369444, 0.087136, 0.450916]], [[-0.274132, 0.004256, 0.394644], [-0.093654, 0.103852, 0.238358]]]]
SEP1_DILATED = [[[-0.370528, 0.025336], [-0.597872, 0.169064]]]
CONV_FIT_LOSS = [0.570399, 0.568719, 0.567581]
CONV_FIT_PRED = [[0.17497], [0.169258], [0.168141], [0.17497]]


def transposed_length(size, kernel, stride, padding, output_padding, dilation):
    kernel = (kernel - 1) * dilation + 1
    if padding == "valid":
        extra = max(kernel, stride) - kernel if output_padding is None else output_padding
        return (size - 1) * stride + kernel + extra
    return size * stride if output_padding is None else (size - 1) * stride + kernel % 2 + output_padding


def conv_transpose_reference(x, kernel, bias, strides, padding, output_padding=(None, None), dilation=(1, 1)):
    """2-D transposed convolution by scattering each input pixel through the kernel, then cropping the
    full result the way the forward convolution's padding would have been placed."""
    batch, height, width, _ = x.shape
    kh, kw, filters, _ = kernel.shape
    sizes = (height, width)
    full = [(n - 1) * s + (k - 1) * d + 1 for n, k, s, d in zip(sizes, (kh, kw), strides, dilation)]
    scattered = np.zeros((batch, *full, filters))
    for i in range(height):
        for j in range(width):
            for a in range(kh):
                for b in range(kw):
                    scattered[:, i * strides[0] + a * dilation[0], j * strides[1] + b * dilation[1]] += \
                        x[:, i, j] @ kernel[a, b].T
    out_sizes = [transposed_length(n, k, s, padding, p, d)
                 for n, k, s, p, d in zip(sizes, (kh, kw), strides, output_padding, dilation)]
    out = np.zeros((batch, *out_sizes, filters))
    starts = [max(f - o, 0) // 2 if padding == "same" else 0 for f, o in zip(full, out_sizes)]
    rows = min(out_sizes[0], full[0] - starts[0])
    cols = min(out_sizes[1], full[1] - starts[1])
    out[:, :rows, :cols] = scattered[:, starts[0]:starts[0] + rows, starts[1]:starts[1] + cols]
    return out + (0 if bias is None else bias)


def separable_reference(x, depthwise, pointwise, bias, strides, padding, dilation=(1, 1)):
    """Depthwise convolution (channel c, multiplier m -> channel c * M + m), then a 1x1 convolution."""
    batch, height, width, channels = x.shape
    kh, kw, _, multiplier = depthwise.shape
    effective = [(k - 1) * d + 1 for k, d in zip((kh, kw), dilation)]
    if padding == "same":
        out_sizes = [-(-n // s) for n, s in zip((height, width), strides)]
        totals = [max((o - 1) * s + k - n, 0) for o, s, k, n in zip(out_sizes, strides, effective, (height, width))]
        x = np.pad(x, [(0, 0), (totals[0] // 2, totals[0] - totals[0] // 2),
                       (totals[1] // 2, totals[1] - totals[1] // 2), (0, 0)])
    else:
        out_sizes = [(n - k) // s + 1 for n, k, s in zip((height, width), effective, strides)]
    depth = np.zeros((batch, *out_sizes, channels, multiplier))
    for i in range(out_sizes[0]):
        for j in range(out_sizes[1]):
            for a in range(kh):
                for b in range(kw):
                    pixel = x[:, i * strides[0] + a * dilation[0], j * strides[1] + b * dilation[1]]
                    depth[:, i, j] += pixel[:, :, None] * depthwise[a, b]
    depth = depth.reshape(batch, *out_sizes, channels * multiplier)
    return np.einsum("nhwk,kf->nhwf", depth, pointwise.reshape(pointwise.shape[-2:])) + \
        (0 if bias is None else bias)


# -- weights ---------------------------------------------------------------------------------------
def test_weights_have_keras_shapes_and_order():
    def shapes(layer, x):
        layer(x)
        return [tuple(w.shape.as_list()) for w in layer.weights]

    assert shapes(layers.Conv2DTranspose(4, (3, 2)), X2) == [(3, 2, 4, 2), (4,)]
    assert shapes(layers.Conv2DTranspose(4, 3, use_bias=False), X2) == [(3, 3, 4, 2)]
    assert shapes(layers.Conv1DTranspose(5, 3), X1) == [(3, 5, 2), (5,)]
    assert shapes(layers.SeparableConv2D(4, 3, depth_multiplier=3), X2) == [(3, 3, 2, 3), (1, 1, 6, 4), (4,)]
    assert shapes(layers.SeparableConv1D(4, 2, depth_multiplier=2, use_bias=False), X1) == [(2, 2, 2), (1, 4, 4)]
    separable = layers.SeparableConv2D(4, 3)
    separable(X2)
    assert [w.name.split("/")[-1].split(":")[0] for w in separable.weights] == \
        ["depthwise_kernel", "pointwise_kernel", "bias"]
    assert layers.Convolution2DTranspose is layers.Conv2DTranspose
    assert layers.SeparableConvolution1D is layers.SeparableConv1D


# -- numerics ----------------------------------------------------------------------------------------
def test_conv2d_transpose_matches_keras_and_reference():
    valid = with_ramp_weights(layers.Conv2DTranspose(2, 3, strides=2), X2)
    out = valid(X2)
    assert out.shape == (1, 7, 7, 2)
    close(out, C2T_VALID)
    close(out, conv_transpose_reference(X2, *valid.get_weights(), (2, 2), "valid"), atol=1e-5)
    same = with_ramp_weights(layers.Conv2DTranspose(2, 3, strides=(2, 1), padding="same", output_padding=(1, 0)), X2)
    out = same(X2)
    assert out.shape == (1, 6, 3, 2)
    close(out, C2T_SAME_OP)
    close(out, conv_transpose_reference(X2, *same.get_weights(), (2, 1), "same", (1, 0)), atol=1e-5)


def test_conv1d_transpose_matches_keras_and_reference():
    layer = with_ramp_weights(layers.Conv1DTranspose(2, 3, strides=2, padding="same"), X1)
    out = layer(X1)
    assert out.shape == (1, 8, 2)
    close(out, C1T_SAME)
    kernel, bias = layer.get_weights()
    close(out, conv_transpose_reference(X1[:, None], kernel[None], bias, (1, 2), "same")[:, 0], atol=1e-5)


def test_separable_convs_match_keras_and_reference():
    layer = with_ramp_weights(layers.SeparableConv2D(3, 2, strides=2, padding="same", depth_multiplier=2), X2)
    out = layer(X2)
    assert out.shape == (1, 2, 2, 3)
    close(out, SEP2_SAME)
    close(out, separable_reference(X2, *layer.get_weights(), (2, 2), "same"), atol=1e-5)
    layer1 = with_ramp_weights(layers.SeparableConv1D(2, 2, dilation_rate=2), X1)
    out = layer1(X1)
    assert out.shape == (1, 2, 2)
    close(out, SEP1_DILATED)
    depthwise, pointwise, bias = layer1.get_weights()
    close(out, separable_reference(X1[:, None], depthwise[None], pointwise[None], bias, (1, 1), "valid",
                                   (1, 2))[:, 0], atol=1e-5)


X_WIDE = ramp((2, 4, 5, 3), 2.0, 0.7)


@pytest.mark.parametrize("kwargs", [
    {"kernel_size": 3, "strides": 2},
    {"kernel_size": (3, 2), "strides": (2, 3), "padding": "same"},
    {"kernel_size": 3, "strides": (3, 2), "output_padding": (2, 1)},
    {"kernel_size": 3, "strides": 2, "padding": "same", "output_padding": 1},
    {"kernel_size": 2, "strides": 3, "padding": "same"},
    {"kernel_size": 3, "dilation_rate": 2, "padding": "same"},
    {"kernel_size": (2, 3), "dilation_rate": (2, 1)},
    {"kernel_size": 1, "strides": 3},
])
def test_conv2d_transpose_configurations_match_reference(kwargs):
    layer = with_ramp_weights(layers.Conv2DTranspose(2, **kwargs), X_WIDE)
    out = layer(X_WIDE)
    assert out.shape == layer.compute_output_shape(X_WIDE.shape)
    strides = layer.strides
    padding = kwargs.get("padding", "valid")
    output_padding = layer.output_padding or (None, None)
    close(out, conv_transpose_reference(X_WIDE, *layer.get_weights(), strides, padding, output_padding,
                                        layer.dilation_rate), atol=1e-5)


@pytest.mark.parametrize("kwargs", [
    {"kernel_size": 3},
    {"kernel_size": (2, 3), "strides": (2, 1), "padding": "same", "depth_multiplier": 2},
    {"kernel_size": 2, "dilation_rate": 2, "padding": "same"},
    {"kernel_size": 3, "strides": 2, "depth_multiplier": 3},
])
def test_separable_conv2d_configurations_match_reference(kwargs):
    layer = with_ramp_weights(layers.SeparableConv2D(4, **kwargs), X_WIDE)
    out = layer(X_WIDE)
    assert out.shape == layer.compute_output_shape(X_WIDE.shape)
    close(out, separable_reference(X_WIDE, *layer.get_weights(), layer.strides, kwargs.get("padding", "valid"),
                                   layer.dilation_rate), atol=1e-5)


def test_activation_is_applied_after_bias():
    linear = with_ramp_weights(layers.Conv2DTranspose(2, 3, strides=2), X2)
    relu = layers.Conv2DTranspose(2, 3, strides=2, activation="relu")
    relu(X2)
    relu.set_weights(linear.get_weights())
    close(relu(X2), np.maximum(np.asarray(linear(X2)), 0))


# -- shapes and models -------------------------------------------------------------------------------
def test_output_shapes_with_unknown_batch_and_sizes():
    assert layers.Conv2DTranspose(4, 3, strides=2).compute_output_shape((None, 4, 5, 3)) == (None, 9, 11, 4)
    assert layers.Conv2DTranspose(4, 3, strides=2, padding="same").compute_output_shape((None, None, 5, 3)) == \
        (None, None, 10, 4)
    assert layers.Conv1DTranspose(2, 4, strides=3, output_padding=1).compute_output_shape((None, 6, 3)) == \
        (None, 20, 2)
    assert layers.SeparableConv2D(3, 3, strides=2).compute_output_shape((None, 7, 8, 2)) == (None, 3, 3, 3)
    assert layers.SeparableConv1D(3, 2, padding="same").compute_output_shape((None, None, 2)) == (None, None, 3)
    images = keras.Input((4, 5, 3))
    up = layers.Conv2DTranspose(4, 3, strides=2)(images)
    assert up.shape == (None, 9, 11, 4)
    assert layers.SeparableConv2D(2, 3)(up).shape == (None, 7, 9, 2)
    assert layers.Conv1DTranspose(2, 3, strides=2, padding="same")(keras.Input((6, 3))).shape == (None, 12, 2)
    assert layers.SeparableConv1D(2, 3)(keras.Input((6, 3))).shape == (None, 4, 2)


def test_functional_model_with_unknown_spatial_sizes_runs_on_several_sizes():
    images = keras.Input((None, None, 2))
    layer = layers.Conv2DTranspose(2, 3, strides=2)
    model = keras.Model(images, layer(images))
    assert model.output_shape == (None, None, None, 2)
    for x in (X2, ramp((2, 2, 4, 2), 2.0)):
        out = model.predict(x, verbose=0)
        close(out, conv_transpose_reference(x, *layer.get_weights(), (2, 2), "valid"), atol=1e-5)


def test_training_in_fit_matches_keras():
    model = keras.Sequential([keras.Input((3, 3, 2)), layers.Conv2DTranspose(3, 2, strides=2, activation="relu"),
                              layers.SeparableConv2D(2, 3, depth_multiplier=2), layers.GlobalAveragePooling2D(),
                              layers.Dense(1)])
    model.set_weights([ramp(w.shape, 1.0, 0.1 * i) for i, w in enumerate(model.get_weights())])
    model.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse")
    losses = model.fit(CX, FIT_Y, batch_size=2, epochs=3, shuffle=False, verbose=0).history["loss"]
    assert losses[-1] < losses[0]
    close(losses, CONV_FIT_LOSS, atol=1e-5)
    close(model.predict(CX, verbose=0), CONV_FIT_PRED, atol=1e-5)


def test_regularizers_add_losses():
    transposed = layers.Conv2DTranspose(2, 3, kernel_regularizer=keras.regularizers.L2(0.5), bias_regularizer="l1")
    transposed(X2)
    assert len(transposed.losses) == 2
    close(transposed.losses[0], 0.5 * (transposed.get_weights()[0] ** 2).sum(), atol=1e-5)
    separable = layers.SeparableConv1D(2, 2, depthwise_regularizer="l2", pointwise_regularizer="l2")
    separable(X1)
    assert len(separable.losses) == 2


# -- gradients ---------------------------------------------------------------------------------------
def tape_and_numeric_gradients(layer, x, weight_index):
    """d sum(layer(x) * upstream) / d (x, weight) from the tape and from central differences."""
    upstream = ramp(layer(x).shape, 1.0, 0.3)
    inputs = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(inputs)
        loss = tf.reduce_sum(layer(inputs) * upstream)
    grad_x, grad_w = tape.gradient(loss, [inputs, layer.trainable_weights[weight_index]])
    weights = layer.get_weights()

    def loss_of_input(value):
        return float(tf.reduce_sum(layer(value.astype(np.float32)) * upstream))

    def loss_of_weight(value):
        layer.set_weights(weights[:weight_index] + [value.astype(np.float32)] + weights[weight_index + 1:])
        return loss_of_input(x)

    numeric_x = numeric_grad(loss_of_input, x.astype(np.float64), eps=1e-3)
    numeric_w = numeric_grad(loss_of_weight, weights[weight_index].astype(np.float64), eps=1e-3)
    layer.set_weights(weights)
    return (grad_x.numpy(), numeric_x), (grad_w.numpy(), numeric_w)


@pytest.mark.parametrize("make", [
    lambda: layers.Conv2DTranspose(2, 3, strides=2, padding="same", output_padding=1),
    lambda: layers.SeparableConv2D(2, 2, strides=2, padding="same", depth_multiplier=2),
])
def test_gradients_match_finite_differences(make):
    layer = with_ramp_weights(make(), X2)
    for tape_grad, numeric in tape_and_numeric_gradients(layer, X2, 0):
        np.testing.assert_allclose(tape_grad, numeric, rtol=1e-2, atol=2e-3)


# -- argument errors ---------------------------------------------------------------------------------
@pytest.mark.parametrize("make, argument", [
    (lambda: layers.Conv2DTranspose(0, 3), "filters"),
    (lambda: layers.Conv2DTranspose(2, 0), "kernel_size"),
    (lambda: layers.Conv2DTranspose(2, (1, 2, 3)), "kernel_size"),
    (lambda: layers.Conv2DTranspose(2, 3, strides=2, output_padding=2), "output_padding"),
    (lambda: layers.Conv2DTranspose(2, 3, strides=2, dilation_rate=2), "dilation_rate"),
    (lambda: layers.Conv1DTranspose(2, 3, padding="causal"), "padding"),
    (lambda: layers.SeparableConv2D(2, 3, depth_multiplier=0), "depth_multiplier"),
    (lambda: layers.SeparableConv1D(-1, 3), "filters"),
    (lambda: layers.SeparableConv2D(2, 3, strides=0), "strides"),
    (lambda: layers.SeparableConv2D(2, 3, strides=2, dilation_rate=2), "dilation_rate"),
])
def test_bad_or_unsupported_arguments_raise_value_error(make, argument):
    with pytest.raises(ValueError, match=argument):
        make()


def test_channels_first_is_not_implemented():
    with pytest.raises(NotImplementedError, match="data_format"):
        layers.Conv2DTranspose(2, 3, data_format="channels_first")


def test_unknown_channels_raise_value_error():
    with pytest.raises(ValueError, match="channel dimension"):
        layers.Conv2DTranspose(2, 3).build((None, 4, 4, None))
