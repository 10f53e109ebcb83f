"""Keras 3's names for initializers and regularizers, the Identity/STFT initializers, OrthogonalRegularizer, and
the weight constraints of PReLU and DepthwiseConv2D. Expected values were recorded with TensorFlow 2.21 +
Keras 3.15 (the STFT windows given to Keras as arrays, since its named windows need SciPy)."""
import numpy as np
import pytest

import tensorflux as tf

keras = tf.keras
RECORDED = {'orth_rows': 0.010119001381099224,
            'orth_columns': 0.004967061337083578,
            'orth_config': {'factor': 0.029999999329447746, 'mode': 'rows'},
            'orth_get': {'module': 'keras.regularizers',
                         'class_name': 'OrthogonalRegularizer',
                         'config': {'factor': 0.009999999776482582, 'mode': 'rows'},
                         'registered_name': None},
            'identity': [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
            'identity_gain': [[2.5, 0.0], [0.0, 2.5], [0.0, 0.0]],
            'stft_none': [[[1.0, 1.0, 1.0, 1.0]],
                          [[1.0, 0.4999999701976776, -0.5000000596046448, -1.0]],
                          [[1.0, -0.5000000596046448, -0.49999991059303284, 1.0]]],
            'stft_none_imag': [[[-0.0, -0.0, -0.0, -0.0]],
                               [[-0.0, -0.866025447845459, -0.8660253286361694, 8.742277657347586e-08]],
                               [[-0.0, -0.8660253882408142, 0.866025447845459, -1.7484555314695172e-07]]],
            'stft_hann': [[[0.0, 0.0, 0.0]],
                          [[0.40824827551841736, -1.7845099620217297e-08, -0.40824827551841736]],
                          [[0.8164965510368347, -0.8164965510368347, 0.8164965510368347]],
                          [[0.40824827551841736, 4.868311975769757e-09, -0.40824827551841736]],
                          [[0.0, 0.0, 0.0]]],
            'stft_hamming_spectrum_periodic': [[[0.03703703358769417, 0.03703703358769417, 0.03703703358769417]],
                                               [[0.25, -1.0927847071684482e-08, -0.25]],
                                               [[0.46296295523643494, -0.46296295523643494, 0.46296295523643494]],
                                               [[0.25, 2.9812201596257637e-09, -0.25]]],
            'prelu_alpha': [0.17499999701976776, 0.30000001192092896, 0.0],
            'prelu_config': {'name': 'p_re_lu',
                             'trainable': True,
                             'dtype': {'module': 'keras',
                                       'class_name': 'DTypePolicy',
                                       'config': {'name': 'float32'},
                                       'registered_name': None},
                             'alpha_initializer': {'module': 'keras.initializers',
                                                   'class_name': 'Constant',
                                                   'config': {'value': 0.3},
                                                   'registered_name': None},
                             'alpha_regularizer': None,
                             'alpha_constraint': {'module': 'keras.constraints',
                                                  'class_name': 'NonNeg',
                                                  'config': {},
                                                  'registered_name': None},
                             'shared_axes': None},
            'dw_kernel': [[[[0.00722362007945776], [-0.05538070201873779]], [[-0.05056498199701309], [-0.11798495799303055]]],
                          [[[-0.1661420315504074], [-0.24319346249103546]], [[-0.22393064200878143], [-0.3057977855205536]]]],
            'dw_bias': [0.0, 0.0],
            'dw_config': {'depthwise_constraint': {'module': 'keras.constraints',
                                                   'class_name': 'MaxNorm',
                                                   'config': {'max_value': 0.5, 'axis': [0, 1, 2]},
                                                   'registered_name': None},
                          'bias_constraint': {'module': 'keras.constraints',
                                              'class_name': 'NonNeg',
                                              'config': {},
                                              'registered_name': None}},
            'orth_init_config': {'module': 'keras.initializers',
                                 'class_name': 'Orthogonal',
                                 'config': {'seed': None, 'gain': 1.0},
                                 'registered_name': None},
            'stft_config': {'module': 'keras.initializers',
                            'class_name': 'STFT',
                            'config': {'side': 'imag', 'window': None, 'periodic': False, 'scaling': 'density'},
                            'registered_name': None}}


@pytest.mark.parametrize("name, class_name", [
    ("orthogonal", "Orthogonal"), ("Orthogonal", "Orthogonal"), ("OrthogonalInitializer", "Orthogonal"),
    ("identity", "Identity"), ("IdentityInitializer", "Identity"), ("normal", "RandomNormal"),
    ("uniform", "RandomUniform"), ("one", "Ones"), ("zero", "Zeros"), ("stft", "STFT"), ("STFTInitializer", "STFT"),
    ("initializer", "Initializer")])
def test_initializer_names_as_keras(name, class_name):
    assert type(keras.initializers.get(name)).__name__ == class_name


def test_base_initializer_call_message():
    with pytest.raises(NotImplementedError, match=r"Initializer subclasses must implement the `__call__\(\)` method"):
        keras.initializers.get("Initializer")((2,))


def test_orthogonal_by_name_is_orthogonal_and_serializes_as_keras():
    q = keras.initializers.get("orthogonal")((4, 3)).numpy()
    np.testing.assert_allclose(q.T @ q, np.eye(3), atol=1e-5)
    assert keras.initializers.serialize(keras.initializers.get("OrthogonalInitializer")) == RECORDED["orth_init_config"]
    layer = keras.layers.Dense(3, kernel_initializer="orthogonal")
    layer.build((None, 4))
    assert layer.get_config()["kernel_initializer"] == RECORDED["orth_init_config"]


def test_identity_initializer():
    assert keras.initializers.get("identity")((2, 3)).numpy().tolist() == RECORDED["identity"]
    assert keras.initializers.Identity(gain=2.5)((3, 2)).numpy().tolist() == RECORDED["identity_gain"]
    with pytest.raises(ValueError, match=r"Identity matrix initializer can only be used for 2D matrices\. "
                                         r"Received: shape=\(2, 3, 4\) of rank 3\."):
        keras.initializers.Identity()((2, 3, 4))


def _hann(n, periodic):
    m = n + 1 if periodic else n
    return (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(m) / (m - 1)))[:n]


@pytest.mark.parametrize("key, make, shape", [
    ("stft_none", lambda: keras.initializers.STFT(window=None), (3, 1, 4)),
    ("stft_none_imag", lambda: keras.initializers.STFT(side="imag", window=None), (3, 1, 4)),
    ("stft_hann", lambda: keras.initializers.STFT(), (5, 1, 3)),
    ("stft_hann", lambda: keras.initializers.STFT(window=_hann(5, False)), (5, 1, 3)),
    ("stft_hamming_spectrum_periodic",
     lambda: keras.initializers.STFT(window="hamming", scaling="spectrum", periodic=True), (4, 1, 3))])
def test_stft_initializer(key, make, shape):
    np.testing.assert_allclose(make()(shape).numpy(), np.array(RECORDED[key]), rtol=2e-6, atol=2e-7)


def test_stft_config_and_unsupported_window():
    assert keras.initializers.serialize(keras.initializers.STFT(window=None, side="imag")) == RECORDED["stft_config"]
    with pytest.raises(NotImplementedError, match="STFT's window 'kaiser'"):
        keras.initializers.STFT(window="kaiser")


@pytest.mark.parametrize("mode", ["rows", "columns"])
def test_orthogonal_regularizer(mode):
    w = tf.constant([[1., 2., 0.5], [-1., 0.5, 3.], [0.25, -2., 1.], [0., 1., -1.]])
    value = keras.regularizers.OrthogonalRegularizer(0.02, mode)(w)
    np.testing.assert_allclose(float(value), RECORDED["orth_" + mode], rtol=1e-6)
    assert keras.regularizers.OrthogonalRegularizer(0.03).get_config() == RECORDED["orth_config"]
    assert keras.regularizers.serialize(keras.regularizers.get("orthogonal_regularizer")) == RECORDED["orth_get"]


@pytest.mark.parametrize("argument", ["kernel_regularizer", "bias_regularizer", "activity_regularizer"])
def test_l1_l2_string_is_rejected_as_keras(argument):
    # keras.regularizers.l1_l2 is a public function, but "l1_l2" is not among Keras 3's regularizer names.
    with pytest.raises(ValueError, match=r"^Could not interpret regularizer identifier: l1_l2$"):
        keras.layers.Dense(3, **{argument: "l1_l2"})


@pytest.mark.parametrize("name, class_name", [("l1", "L1"), ("L1", "L1"), ("l1l2", "L1L2"), ("L1L2", "L1L2"),
                                              ("regularizer", "Regularizer"), ("OrthogonalRegularizer",
                                                                               "OrthogonalRegularizer")])
def test_regularizer_names_as_keras(name, class_name):
    assert type(keras.regularizers.get(name)).__name__ == class_name


def test_regularizer_names_are_case_sensitive_as_keras():
    with pytest.raises(ValueError, match="Could not interpret regularizer identifier: L1_L2"):
        keras.regularizers.get("L1_L2")


def test_prelu_alpha_constraint_applied_after_each_update():
    x = np.array([[-1., 2., -3.], [-0.5, 1., -2.]], np.float32)
    layer = keras.layers.PReLU(alpha_initializer=keras.initializers.Constant(0.3), alpha_constraint="non_neg")
    model = keras.Sequential([keras.Input((3,)), layer])
    model.compile(keras.optimizers.SGD(1.0), "mse")
    model.fit(x, np.zeros((2, 3), np.float32), epochs=1, batch_size=2, verbose=0)
    np.testing.assert_allclose(layer.alpha.numpy(), RECORDED["prelu_alpha"], rtol=1e-6)
    assert layer.get_config() == RECORDED["prelu_config"]


def test_depthwise_conv2d_constraints_applied_after_each_update():
    layer = keras.layers.DepthwiseConv2D(2, depthwise_constraint=keras.constraints.MaxNorm(0.5, axis=[0, 1, 2]),
                                         bias_constraint="non_neg", depthwise_initializer="ones",
                                         bias_initializer=keras.initializers.Constant(-1.0))
    model = keras.Sequential([keras.Input((3, 3, 2)), layer, keras.layers.Flatten()])
    model.compile(keras.optimizers.SGD(0.1), "mse")
    x = np.arange(36, dtype=np.float32).reshape(2, 3, 3, 2) / 10
    model.fit(x, np.ones((2, 8), np.float32), epochs=1, batch_size=2, verbose=0)
    np.testing.assert_allclose(layer.kernel.numpy(), RECORDED["dw_kernel"], rtol=1e-5, atol=1e-7)
    np.testing.assert_array_equal(layer.bias.numpy(), RECORDED["dw_bias"])
    assert {k: v for k, v in layer.get_config().items() if "constraint" in k} == RECORDED["dw_config"]
