"""What Keras 3.15's fit shows a model's step (recorded with TensorFlow 2.21 + Keras 3.15): the batch
dimension the step is traced with, the per-output loss logs of a multi-output model, the warning for
outputs without a loss, and the serialized constraints of layer configs."""
import warnings

import numpy as np
import pytest

import tensorflux as tf

keras = tf.keras


class _Probe(keras.layers.Layer):
    """Records the static batch dimension of each call."""

    def __init__(self, seen, **kwargs):
        super().__init__(**kwargs)
        self.seen = seen

    def call(self, x):
        self.seen.append(x.shape[0])
        return x


@pytest.mark.parametrize("samples, expected", [(10, [None]), (8, [4, None])])
def test_step_batch_dimension_unknown_only_with_a_partial_batch(samples, expected):
    # Keras: a partial last batch leaves the data's batch dimension unknown; equal batches keep it
    # (the None then comes from the symbolic build only).
    seen = []
    model = keras.Sequential([keras.Input((3,)), _Probe(seen), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    model.fit(np.ones((samples, 3), "float32"), np.ones((samples, 1), "float32"), batch_size=4, verbose=0)
    assert sorted(set(seen), key=str) == expected


def _two_outputs():
    image = keras.Input(shape=(4,), name="img_input")
    score = keras.layers.Dense(1, name="score_output")(image)
    klass = keras.layers.Dense(5, name="class_output")(image)
    return keras.Model(inputs=image, outputs=[score, klass])


@pytest.mark.parametrize("samples, run_eagerly, warned", [(100, False, 2), (96, False, 2), (100, True, 4)])
def test_missing_gradients_warned_once_per_trace(samples, run_eagerly, warned):
    # Keras 3.15 warns each time the step is traced (twice: variables are made on the first trace) or,
    # run eagerly, at every step (4 batches).
    rng = np.random.default_rng(6)
    net = _two_outputs()
    net.compile(optimizer="rmsprop", loss=[None, keras.losses.CategoricalCrossentropy()], run_eagerly=run_eagerly)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        history = net.fit(rng.random((samples, 4)), [rng.random((samples, 1)), rng.random((samples, 5))],
                          batch_size=32, epochs=1, verbose=0)
    messages = [str(w.message) for w in caught if "Gradients do not exist" in str(w.message)]
    assert len(messages) == warned
    assert messages[0].startswith("Gradients do not exist for variables ['score_output/kernel', "
                                  "'score_output/bias'] when minimizing the loss.")
    assert sorted(history.history) == ["loss"]      # one loss: no per-output entry


def test_loss_dict_must_name_every_output_of_a_list_output_model():
    rng = np.random.default_rng(6)
    net = _two_outputs()
    net.compile(optimizer="rmsprop", loss={"class_output": keras.losses.CategoricalCrossentropy()})
    with pytest.raises(ValueError, match=r"^Expected keys \['score_output', 'class_output'\] in loss dict, but "
                                         r"found loss.keys\(\)=\['class_output'\]$"):
        net.fit(rng.random((8, 4)), [rng.random((8, 1)), rng.random((8, 5))], verbose=0)


def test_per_output_losses_average_batches_equally_when_traced():
    # Under an unknown batch dimension each batch's per-output loss counts once (Keras' rule); the total
    # loss is weighted by batch size. Run eagerly, the per-output losses are weighted by batch size too.
    rng = np.random.default_rng(1)
    x, y1, y2 = rng.random((10, 4)), rng.random((10, 1)), rng.random((10, 5))
    for run_eagerly in (False, True):
        net = _two_outputs()
        net.compile(optimizer=keras.optimizers.SGD(0.0), loss=["mse", "mse"], run_eagerly=run_eagerly)
        logs = net.fit(x, [y1, y2], batch_size=4, shuffle=False, verbose=0).history
        pred1, pred2 = net.predict(x, verbose=0)
        per_batch = [float(np.mean((pred1[i:i + 4] - y1[i:i + 4]) ** 2)) for i in (0, 4, 8)]
        sizes = [4, 4, 2]
        expected = np.average(per_batch, weights=sizes) if run_eagerly else np.mean(per_batch)
        assert logs["score_output_loss"][0] == pytest.approx(expected, rel=1e-5)


@pytest.mark.parametrize("make, key, class_name", [
    (lambda L: L.Conv2D(2, 3, kernel_constraint="non_neg"), "kernel_constraint", "NonNeg"),
    (lambda L: L.Conv1D(2, 3, bias_constraint="max_norm"), "bias_constraint", "MaxNorm"),
    (lambda L: L.Conv3D(1, 2, kernel_constraint="non_neg"), "kernel_constraint", "NonNeg"),
    (lambda L: L.Conv2DTranspose(2, 3, kernel_constraint="non_neg"), "kernel_constraint", "NonNeg"),
    (lambda L: L.SeparableConv2D(2, 3, pointwise_constraint="non_neg"), "pointwise_constraint", "NonNeg"),
    (lambda L: L.Embedding(3, 2, embeddings_constraint="non_neg"), "embeddings_constraint", "NonNeg"),
    (lambda L: L.BatchNormalization(beta_constraint="non_neg"), "beta_constraint", "NonNeg"),
    (lambda L: L.Dense(2, bias_constraint="unit_norm"), "bias_constraint", "UnitNorm"),
])
def test_constraint_named_by_string_is_serialized_in_get_config(make, key, class_name):
    layer = make(keras.layers)
    entry = layer.get_config()[key]
    assert entry["module"] == "keras.constraints" and entry["class_name"] == class_name
    assert entry["registered_name"] is None
    assert type(getattr(type(layer).from_config(layer.get_config()), key)).__name__ == class_name


def test_one_hot_of_float_numpy_labels():
    # TensorFlow converts a NumPy constant of another dtype to int64 indices (floats truncated); a list
    # or a tensor of floats is rejected.
    hot = tf.one_hot(np.array([8.0, 6.0, 2.5, -1.0], "float32"), depth=10)
    assert hot.dtype == tf.float32
    assert np.argmax(hot.numpy(), axis=1).tolist() == [8, 6, 2, 0]
    assert hot.numpy()[3].sum() == 0.0
    with pytest.raises(tf.errors.InvalidArgumentError, match="Value for attr 'TI' of float"):
        tf.one_hot(tf.constant([1.0]), depth=3)


def test_masked_division_is_silent_even_when_all_warnings_show():
    # TensorFlow computes 0/0 and x/0 without a word; a masked average divides 0 by 0 at masked steps.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = tf.constant([0.0, 1.0, 2.0]) / tf.constant([0.0, 0.0, 4.0])
    assert [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)] == []
    assert np.isnan(result.numpy()[0]) and np.isinf(result.numpy()[1]) and result.numpy()[2] == 0.5


# The first four entries of each weight after one epoch of SGD(0.1) (Keras 3.15 on TensorFlow 2.21).
_MHA_AFTER_FIT = {
    "multi_head_attention/query/kernel": [0.1469, 0.0, 0.6386, 0.1106],
    "multi_head_attention/query/bias": [-0.3914, -0.1583, 0.3111, 0.4743],
    "multi_head_attention/key/kernel": [0.0022, 1.3703, 0.0, 0.3374],
    "multi_head_attention/key/bias": [-0.3202, -0.0432, 0.384, 0.4981],
    "multi_head_attention/value/kernel": [0.0, 0.8447, 1.0388, 0.3312],
    "multi_head_attention/value/bias": [-0.2254, -0.1437, -0.4463, -0.4789],
    "multi_head_attention/attention_output/kernel": [0.0, 0.0116, 1.4877, 0.0],
    "multi_head_attention/attention_output/bias": [-0.1988, 0.2398, -0.2148, 0.3268],
}


def test_multi_head_attention_constraints_applied_after_each_update():
    query = keras.Input((3, 4))
    mha = keras.layers.MultiHeadAttention(2, 2, name="multi_head_attention", kernel_constraint="non_neg",
                                          bias_constraint=keras.constraints.MaxNorm(0.5))
    net = keras.Model(query, mha(query, query))
    rng = np.random.default_rng(0)
    net.set_weights([rng.standard_normal(w.shape).astype("float32") for w in net.get_weights()])
    net.compile(keras.optimizers.SGD(0.1), "mse")
    net.fit(rng.random((8, 3, 4)).astype("float32"), rng.random((8, 3, 4)).astype("float32"), batch_size=4,
            verbose=0, shuffle=False)
    got = {w.path: w.numpy().ravel()[:4] for w in net.weights}
    assert list(got) == list(_MHA_AFTER_FIT)
    for path, expected in _MHA_AFTER_FIT.items():
        np.testing.assert_allclose(got[path], expected, atol=6e-5, err_msg=path)
    # NonNeg clips to +0.0 as Keras' maximum(w, 0) does (w * mask would leave -0.0)
    assert not np.signbit(net.weights[0].numpy()).any()
    config = mha.get_config()
    assert config["kernel_constraint"] == {"module": "keras.constraints", "class_name": "NonNeg", "config": {},
                                           "registered_name": None}
    assert config["bias_constraint"]["config"] == {"max_value": 0.5, "axis": 0}


# The first six entries of each weight after one epoch of SGD(0.1) (Keras 3.15 on TensorFlow 2.21).
_RNN_AFTER_FIT = {
    "LSTM": [[0.3463, 0.8213, 0.3313, 0.0, 0.9059, 0.4443], [0.2064, 0.2824, 0.2989, -0.2766, 0.2325, 0.2814],
             [0.1682, 0.399, 0.1609, -0.6335, 0.4396, 0.2146]],
    "GRU": [[0.349, 0.8185, 0.3302, 0.0001, 0.9028, 0.4478], [0.3495, 0.8186, 0.3298, 0.0001, 0.9013, 0.4467],
            [0.3527, 0.8155, 0.3296, -1.3027, 0.8977, 0.4495]],
    "SimpleRNN": [[0.1636, 0.2517, 0.1517, -0.4089, 0.4364, 0.1394], [0.3289, 0.8165, 0.319, -1.297],
                  [0.3302, 0.8137]],
}


@pytest.mark.parametrize("name, make", [
    ("LSTM", lambda L, C: L.LSTM(2, kernel_constraint="non_neg", recurrent_constraint=C.MaxNorm(0.3),
                                 bias_constraint="unit_norm")),
    ("GRU", lambda L, C: L.GRU(2, kernel_constraint="non_neg", recurrent_constraint="non_neg")),
    ("SimpleRNN", lambda L, C: L.SimpleRNN(2, bias_constraint="non_neg", kernel_constraint=C.MinMaxNorm(0.1, 0.5))),
])
def test_recurrent_constraints_applied_after_each_update(name, make):
    rng = np.random.default_rng(0)
    x, y = rng.random((8, 5, 3)).astype("float32"), rng.random((8, 2)).astype("float32")
    layer = make(keras.layers, keras.constraints)
    net = keras.Sequential([keras.Input((5, 3)), layer])
    net.set_weights([np.random.default_rng(1).standard_normal(w.shape).astype("float32") for w in net.get_weights()])
    net.compile(keras.optimizers.SGD(0.1), "mse")
    net.fit(x, y, batch_size=4, verbose=0, shuffle=False)
    for weight, expected in zip(net.weights, _RNN_AFTER_FIT[name]):
        np.testing.assert_allclose(weight.numpy().ravel()[:6], expected, atol=6e-5, err_msg=weight.path)
    config = layer.get_config()
    again = type(layer).from_config(config)
    for key in ("kernel_constraint", "recurrent_constraint", "bias_constraint"):
        made = getattr(layer.cell, key)
        assert (config[key] is None) == (made is None)
        if made is not None:
            assert config[key]["class_name"] == type(made).__name__ == type(getattr(again.cell, key)).__name__


# Keras 3.15's get_config() keys, in order, for layers made with activity_regularizer=None or "l2".
_KERAS_CONFIG_KEYS = {
    ('Conv2D', None):
        ['name', 'trainable', 'dtype', 'filters', 'kernel_size', 'strides', 'padding', 'data_format',
         'dilation_rate', 'groups', 'activation', 'use_bias', 'kernel_initializer', 'bias_initializer',
         'kernel_regularizer', 'bias_regularizer', 'activity_regularizer', 'kernel_constraint',
         'bias_constraint'],
    ('Conv2D', 'l2'):
        ['name', 'trainable', 'dtype', 'activity_regularizer', 'filters', 'kernel_size', 'strides', 'padding',
         'data_format', 'dilation_rate', 'groups', 'activation', 'use_bias', 'kernel_initializer',
         'bias_initializer', 'kernel_regularizer', 'bias_regularizer', 'kernel_constraint', 'bias_constraint'],
    ('SeparableConv2D', None):
        ['name', 'trainable', 'dtype', 'depth_multiplier', 'filters', 'kernel_size', 'strides', 'padding',
         'data_format', 'dilation_rate', 'activation', 'use_bias', 'depthwise_initializer',
         'pointwise_initializer', 'bias_initializer', 'depthwise_regularizer', 'pointwise_regularizer',
         'bias_regularizer', 'activity_regularizer', 'depthwise_constraint', 'pointwise_constraint',
         'bias_constraint'],
    ('DepthwiseConv2D', None):
        ['name', 'trainable', 'dtype', 'depth_multiplier', 'kernel_size', 'strides', 'padding', 'data_format',
         'dilation_rate', 'activation', 'use_bias', 'depthwise_initializer', 'bias_initializer',
         'depthwise_regularizer', 'bias_regularizer', 'activity_regularizer', 'depthwise_constraint',
         'bias_constraint'],
    ('Embedding', None):
        ['name', 'trainable', 'dtype', 'input_dim', 'output_dim', 'embeddings_initializer',
         'embeddings_regularizer', 'activity_regularizer', 'embeddings_constraint', 'mask_zero',
         'quantization_config'],
    ('Dense', None):
        ['name', 'trainable', 'dtype', 'units', 'activation', 'use_bias', 'kernel_initializer',
         'bias_initializer', 'kernel_regularizer', 'bias_regularizer', 'kernel_constraint', 'bias_constraint',
         'quantization_config'],
    ('Dense', 'l2'):
        ['name', 'trainable', 'dtype', 'activity_regularizer', 'units', 'activation', 'use_bias',
         'kernel_initializer', 'bias_initializer', 'kernel_regularizer', 'bias_regularizer',
         'kernel_constraint', 'bias_constraint', 'quantization_config'],
    ('LSTM', None):
        ['name', 'trainable', 'dtype', 'return_sequences', 'return_state', 'go_backwards', 'stateful', 'unroll',
         'zero_output_for_mask', 'units', 'activation', 'recurrent_activation', 'use_bias',
         'kernel_initializer', 'recurrent_initializer', 'bias_initializer', 'unit_forget_bias',
         'kernel_regularizer', 'recurrent_regularizer', 'bias_regularizer', 'activity_regularizer',
         'kernel_constraint', 'recurrent_constraint', 'bias_constraint', 'dropout', 'recurrent_dropout',
         'seed'],
    ('GRU', 'l2'):
        ['name', 'trainable', 'dtype', 'activity_regularizer', 'return_sequences', 'return_state',
         'go_backwards', 'stateful', 'unroll', 'zero_output_for_mask', 'units', 'activation',
         'recurrent_activation', 'use_bias', 'kernel_initializer', 'recurrent_initializer', 'bias_initializer',
         'kernel_regularizer', 'recurrent_regularizer', 'bias_regularizer', 'kernel_constraint',
         'recurrent_constraint', 'bias_constraint', 'dropout', 'recurrent_dropout', 'reset_after', 'seed'],
    ('SimpleRNN', 'l2'):
        ['name', 'trainable', 'dtype', 'return_sequences', 'return_state', 'go_backwards', 'stateful', 'unroll',
         'zero_output_for_mask', 'units', 'activation', 'use_bias', 'kernel_initializer',
         'recurrent_initializer', 'bias_initializer', 'kernel_regularizer', 'recurrent_regularizer',
         'bias_regularizer', 'activity_regularizer', 'kernel_constraint', 'recurrent_constraint',
         'bias_constraint', 'dropout', 'recurrent_dropout'],
    ('MultiHeadAttention', 'l2'):
        ['name', 'trainable', 'dtype', 'num_heads', 'key_dim', 'value_dim', 'dropout', 'use_bias', 'use_gate',
         'output_shape', 'attention_axes', 'sliding_window', 'kernel_initializer', 'bias_initializer',
         'kernel_regularizer', 'bias_regularizer', 'activity_regularizer', 'kernel_constraint',
         'bias_constraint', 'seed'],
    ('BatchNormalization', None):
        ['name', 'trainable', 'dtype', 'axis', 'momentum', 'epsilon', 'center', 'scale', 'beta_initializer',
         'gamma_initializer', 'moving_mean_initializer', 'moving_variance_initializer', 'beta_regularizer',
         'gamma_regularizer', 'beta_constraint', 'gamma_constraint', 'synchronized', 'renorm',
         'renorm_clipping', 'renorm_momentum'],
    ('EinsumDense', None):
        ['name', 'trainable', 'dtype', 'output_shape', 'equation', 'activation', 'bias_axes',
         'kernel_initializer', 'bias_initializer', 'kernel_regularizer', 'bias_regularizer',
         'activity_regularizer', 'kernel_constraint', 'bias_constraint', 'quantization_config'],
}


_MAKERS = {"Conv2D": lambda L, a: L.Conv2D(2, 3, activity_regularizer=a),
           "SeparableConv2D": lambda L, a: L.SeparableConv2D(2, 3, activity_regularizer=a),
           "DepthwiseConv2D": lambda L, a: L.DepthwiseConv2D(3, activity_regularizer=a),
           "Embedding": lambda L, a: L.Embedding(3, 2, activity_regularizer=a),
           "Dense": lambda L, a: L.Dense(2, activity_regularizer=a),
           "LSTM": lambda L, a: L.LSTM(2, activity_regularizer=a),
           "GRU": lambda L, a: L.GRU(2, activity_regularizer=a),
           "SimpleRNN": lambda L, a: L.SimpleRNN(2, activity_regularizer=a),
           "MultiHeadAttention": lambda L, a: L.MultiHeadAttention(2, 2, activity_regularizer=a),
           "BatchNormalization": lambda L, a: L.BatchNormalization(activity_regularizer=a),
           "EinsumDense": lambda L, a: L.EinsumDense("ab,bc->ac", output_shape=3, activity_regularizer=a)}


@pytest.mark.parametrize("name, activity", list(_KERAS_CONFIG_KEYS), ids=lambda v: str(v))
def test_config_keys_in_keras_order(name, activity):
    # Keras writes a set activity_regularizer right after dtype (MultiHeadAttention and SimpleRNN keep it
    # in place); only some layers list it when None; SimpleRNN drops it (its config says None).
    layer = _MAKERS[name](keras.layers, activity)
    config = layer.get_config()
    assert list(config) == _KERAS_CONFIG_KEYS[(name, activity)]
    if name == "SimpleRNN":
        assert config["activity_regularizer"] is None and layer.activity_regularizer is None
    again = type(layer).from_config(config)
    assert list(again.get_config()) == list(config)
