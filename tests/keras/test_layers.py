"""keras.layers: forward passes against NumPy, lazy building, weight tracking, names, training flag, errors."""
import numpy as np
import pytest

import tensorflux as tf

keras = tf.keras


def _np_conv2d_valid(x, k):
    kh, kw = k.shape[:2]
    out_h, out_w = x.shape[1] - kh + 1, x.shape[2] - kw + 1
    out = np.zeros((x.shape[0], out_h, out_w, k.shape[3]), np.float64)
    for i in range(kh):
        for j in range(kw):
            out += np.einsum("bhwc,cf->bhwf", x[:, i:i + out_h, j:j + out_w, :], k[i, j])
    return out


def test_dense_forward_matches_numpy():
    layer = keras.layers.Dense(3, activation="relu")
    x = np.random.RandomState(0).randn(4, 5).astype("float32")
    out = layer(x)
    kernel, bias = layer.get_weights()
    assert kernel.shape == (5, 3) and bias.shape == (3,)
    np.testing.assert_allclose(out.numpy(), np.maximum(x @ kernel + bias, 0), rtol=1e-5, atol=1e-6)
    assert out.dtype == tf.float32 and out.shape == (4, 3)


def test_dense_initializers_and_rank3_inputs():
    layer = keras.layers.Dense(2, kernel_initializer="ones", bias_initializer=keras.initializers.Constant(0.5))
    out = layer(np.ones((2, 4, 3)))
    np.testing.assert_allclose(out.numpy(), np.full((2, 4, 2), 3.5))
    assert layer.compute_output_shape((None, 4, 3)) == (None, 4, 2)


def test_glorot_uniform_default_is_within_limit():
    layer = keras.layers.Dense(300)
    layer.build((200,))
    kernel = layer.kernel.numpy()
    limit = np.sqrt(6 / (200 + 300))
    assert np.abs(kernel).max() <= limit
    assert abs(kernel.std() - limit / np.sqrt(3)) < 0.01   # a uniform(-a, a) has std a / sqrt(3)
    np.testing.assert_array_equal(layer.bias.numpy(), np.zeros(300))


def test_float64_inputs_are_cast_to_float32():
    out = keras.layers.Dense(2)(tf.ones([2, 3], tf.float64))
    assert out.dtype == tf.float32


def test_custom_layer_builds_lazily_with_input_shape_tuple():
    seen = []

    class Scale(keras.layers.Layer):
        def build(self, input_shape):
            seen.append(input_shape)
            self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones", name="w")

        def call(self, x):
            return x * self.w

    layer = Scale()
    assert not layer.built and layer.weights == []
    layer(tf.ones([2, 3]))
    layer(tf.ones([5, 3]))
    assert seen == [(2, 3)] and layer.built
    # Keras 3 names: a short name, and a path from the layer's name scope.
    assert [(v.name, v.path) for v in layer.weights] == [("w", f"{layer.name}/w")]


def test_explicit_build_marks_built_and_is_not_repeated():
    layer = keras.layers.Dense(2)
    layer.build((None, 3))
    assert layer.built
    layer.set_weights([np.ones((3, 2)), np.zeros(2)])
    np.testing.assert_allclose(layer(np.ones((1, 3))).numpy(), [[3.0, 3.0]])


def test_unique_snake_case_names():
    class MyFancyLayer(keras.layers.Layer):
        def call(self, x):
            return x

    a, b = MyFancyLayer(), MyFancyLayer()
    assert a.name.startswith("my_fancy_layer") and b.name != a.name
    assert keras.layers.Dense(1, name="head").name == "head"


def test_unrecognized_keyword_arguments():
    class MyModel(keras.Model):
        def call(self, x):
            return x

    with pytest.raises(ValueError, match=r"Unrecognized keyword arguments passed to MyModel: \{'dynamic': True\}"):
        MyModel(dynamic=True)
    with pytest.raises(ValueError, match="Unrecognized keyword arguments passed to Dense"):
        keras.layers.Dense(2, foo=1)


def test_sublayer_and_weight_tracking_order():
    class Block(keras.Model):
        def __init__(self):
            super().__init__()
            self.second = keras.layers.Dense(2, name="b")
            self.first = keras.layers.Dense(3, name="a")
            self.extras = [keras.layers.Dense(1, name="c")]
            self.scale = keras.Variable(1.0, name="scale")
            self.untracked = tf.Variable(2.0)     # Keras 3 tracks its own Variables only

        def call(self, x):
            return self.extras[0](self.second(self.first(x))) * self.scale

    model = Block()
    model(tf.ones([1, 4]))
    # What TensorFlow 2.21 / Keras 3.15 gives for the same model.
    paths = [v.path for v in model.trainable_variables]
    assert paths == ["scale", "block/b/kernel", "block/b/bias", "block/a/kernel", "block/a/bias", "block/c/kernel",
                     "block/c/bias"]
    assert [layer.name for layer in model.layers] == ["b", "a", "c"]
    model.first.trainable = False
    assert len(model.trainable_weights) == 5 and len(model.non_trainable_weights) == 2
    assert [v.path for v in model.weights] == paths       # freezing does not reorder the weights
    assert model.count_params() == 1 + (3 * 2 + 2) + (4 * 3 + 3) + (2 + 1)


def test_flatten_reshape_activation():
    x = np.arange(24, dtype="float32").reshape(2, 3, 4)
    assert keras.layers.Flatten()(x).shape == (2, 12)
    np.testing.assert_array_equal(keras.layers.Flatten()(x).numpy(), x.reshape(2, 12))
    assert keras.layers.Reshape((4, -1))(x).shape == (2, 4, 3)
    assert keras.layers.Reshape((4, -1)).compute_output_shape((None, 3, 4)) == (None, 4, 3)
    np.testing.assert_allclose(keras.layers.Activation("tanh")(x).numpy(), np.tanh(x), rtol=1e-6)


def test_flatten_in_tf_function_with_unknown_batch():
    flatten = keras.layers.Flatten()
    fn = tf.function(lambda x: flatten(x), input_signature=[tf.TensorSpec([None, 2, 3], tf.float32)])
    out = fn(tf.ones([4, 2, 3]))
    assert out.shape == (4, 6)


def test_dropout_training_flag():
    layer = keras.layers.Dropout(0.5)
    x = np.ones((1000,), "float32")
    np.testing.assert_array_equal(layer(x).numpy(), x)         # default: inference
    dropped = layer(x, training=True).numpy()
    assert set(np.unique(dropped)) <= {0.0, 2.0} and 300 < (dropped == 0).sum() < 700
    np.testing.assert_array_equal(keras.layers.Dropout(1.0)(x, training=True).numpy(), np.zeros(1000))
    with pytest.raises(ValueError, match="Expected a float value between 0 and 1. Received: rate=2"):
        keras.layers.Dropout(2)


def test_training_flag_propagates_to_sublayers():
    class Net(keras.Model):
        def __init__(self):
            super().__init__()
            self.drop = keras.layers.Dropout(0.99)

        def call(self, x):
            return self.drop(x)

    net = Net()
    x = np.ones((200,), "float32")
    assert (net(x).numpy() == 1).all()
    assert (net(x, training=True).numpy() == 0).sum() > 150
    assert (net(x, training=False).numpy() == 1).all()


def test_conv2d_matches_numpy_reference():
    rng = np.random.RandomState(1)
    x = rng.rand(2, 6, 7, 3).astype("float32")
    conv = keras.layers.Conv2D(4, 3, activation="relu")
    out = conv(x)
    kernel, bias = conv.get_weights()
    assert kernel.shape == (3, 3, 3, 4)
    np.testing.assert_allclose(out.numpy(), np.maximum(_np_conv2d_valid(x, kernel) + bias, 0), rtol=1e-4,
                               atol=1e-5)
    assert len(conv.trainable_variables) == 2


def test_conv2d_same_padding_and_strides_shapes():
    x = tf.zeros([1, 9, 9, 2])
    for kwargs, shape in [({"padding": "same"}, (1, 9, 9, 5)), ({"strides": 2}, (1, 4, 4, 5)),
                          ({"strides": 2, "padding": "same"}, (1, 5, 5, 5))]:
        conv = keras.layers.Conv2D(5, (3, 3), **kwargs)
        assert conv(x).shape == shape
        assert conv.compute_output_shape((1, 9, 9, 2)) == shape
    with pytest.raises(ValueError, match="padding"):
        keras.layers.Conv2D(2, 3, padding="full")


def test_conv2d_eager_and_function_agree():
    conv = keras.layers.Conv2D(3, 2)
    image = tf.random.uniform([1, 5, 5, 2])
    fn = tf.function(lambda x: conv(x))
    np.testing.assert_array_equal(conv(image).numpy(), fn(image).numpy())


def test_pooling_layers():
    x = np.arange(32, dtype="float32").reshape(1, 4, 4, 2)
    np.testing.assert_array_equal(keras.layers.MaxPooling2D()(x).numpy(),
                                  x.reshape(1, 2, 2, 2, 2, 2).max(axis=(2, 4)))
    np.testing.assert_allclose(keras.layers.AveragePooling2D(2)(x).numpy(),
                               x.reshape(1, 2, 2, 2, 2, 2).mean(axis=(2, 4)))


def test_dense_errors():
    with pytest.raises(ValueError, match="positive integer"):
        keras.layers.Dense(0)
    with pytest.raises(ValueError, match="Could not interpret activation function identifier: foo"):
        keras.layers.Dense(2, activation="foo")
    layer = keras.layers.Dense(2)
    layer.build((None, 3))
    with pytest.raises(ValueError, match="was expecting 2 weights"):
        layer.set_weights([np.ones((3, 2))])


def test_layer_without_call_raises():
    with pytest.raises(NotImplementedError):
        keras.layers.Layer()(tf.ones([1]))


@pytest.mark.parametrize("name, reference", [
    ("relu", lambda x: np.maximum(x, 0)), ("sigmoid", lambda x: 1 / (1 + np.exp(-x))), ("tanh", np.tanh),
    ("softplus", lambda x: np.log1p(np.exp(x))), ("softsign", lambda x: x / (1 + np.abs(x))),
    ("swish", lambda x: x / (1 + np.exp(-x))), ("exponential", np.exp), ("linear", lambda x: x),
    ("elu", lambda x: np.where(x > 0, x, np.exp(x) - 1)), ("leaky_relu", lambda x: np.where(x > 0, x, 0.2 * x)),
    ("hard_sigmoid", lambda x: np.clip(x + 3, 0, 6) / 6),
    ("softmax", lambda x: np.exp(x) / np.exp(x).sum(-1, keepdims=True))])
def test_activations_match_numpy(name, reference):
    x = np.array([[-2.0, -0.5, 0.0, 0.7, 3.0]], "float32")
    np.testing.assert_allclose(keras.activations.get(name)(tf.constant(x)).numpy(), reference(x), rtol=1e-5,
                               atol=1e-6)


def test_relu_options():
    x = tf.constant([-2.0, 0.5, 3.0, 7.0])
    out = keras.activations.relu(x, negative_slope=0.1, max_value=5.0, threshold=1.0)
    np.testing.assert_allclose(out.numpy(), [-0.3, -0.05, 3.0, 5.0], rtol=1e-6)


@pytest.mark.parametrize("name, std", [("glorot_normal", np.sqrt(2 / 500)), ("he_normal", np.sqrt(2 / 200)),
                                       ("he_uniform", np.sqrt(2 / 200)), ("lecun_uniform", np.sqrt(1 / 200)),
                                       ("random_normal", 0.05)])
def test_initializer_scales(name, std):
    values = keras.initializers.get(name)((200, 300)).numpy()
    assert values.dtype == np.float32 and values.shape == (200, 300)
    assert abs(values.std() - std) < 0.05 * std


def test_seeded_initializer_is_repeatable_and_errors():
    init = keras.initializers.GlorotUniform(seed=3)
    np.testing.assert_array_equal(init((3, 3)).numpy(), init((3, 3)).numpy())
    with pytest.raises(ValueError, match="Could not interpret initializer identifier"):
        keras.initializers.get("nope")
    with pytest.raises(ValueError, match="mode"):
        keras.initializers.VarianceScaling(mode="fan_sideways")


def test_initializers_get_dtype_by_keyword_as_keras_passes_it():
    # Keras 3 calls initializer(shape, dtype=dtype), so plain TF functions such as tf.random.normal (whose
    # second positional argument is `mean`) work as initializers.
    layer = tf.keras.layers.Dense(3, kernel_initializer=tf.random.normal, bias_initializer=tf.zeros)
    layer.build((None, 2))
    assert layer.kernel.shape == (2, 3) and layer.kernel.dtype == tf.float32
    np.testing.assert_array_equal(layer.bias.numpy(), np.zeros(3, np.float32))
