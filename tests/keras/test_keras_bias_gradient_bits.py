"""The bias gradients of Keras Dense and Conv2D layers carry TensorFlow 2.21's bits: Keras adds those
biases with BiasAdd, whose gradient is BiasAddGrad with its own order of additions (the values below are
the float32 bit patterns TensorFlow 2.21 / Keras 3.15 computed for the same layers, weights and data on
2 CPUs: BiasAddGrad's blocks follow the CPU count, in TensorFlow as here, so the test fixes it at 2)."""
import numpy as np

import tensorflux as tf
from tensorflux._src.ops.nn import bias_add_grad as _bias_add_grad

# TensorFlow 2.21's bias gradients, as uint32 bit patterns (the same computation run in TensorFlow)
_DENSE = [
    3236540322, 3238815225, 3232860910, 3239261121, 1097344834, 3241902280, 3239485423, 1058380968,
    1081373272, 1095390155, 3237171362, 3246571018, 1064303197, 1077811362, 1090694645, 1097402042,
    3242559112, 3239311374, 3247314387, 3242224084, 3244885952, 1087723772, 3247352603, 1100360650,
    1100338662, 1096424468, 3229659148, 1103148753, 3242631134, 3209418538, 3250214844, 1053352627,
    1099021402, 3247578590, 3240708860, 3234437122, 3248016560, 1095104655, 1100854306, 1106942407]
_CONV = [
    1106228518, 1100737605, 3177322464, 1084472948, 3250751928]


def _gradients():
    rs = np.random.RandomState(3)
    x = rs.randn(200, 24).astype(np.float32)
    dense = tf.keras.layers.Dense(40)
    dense.build((None, 24))
    dense.kernel.assign(rs.randn(24, 40).astype(np.float32) * 0.3)
    dense.bias.assign(rs.randn(40).astype(np.float32))
    conv = tf.keras.layers.Conv2D(5, 3)
    conv.build((None, 9, 9, 3))
    conv.kernel.assign(rs.randn(3, 3, 3, 5).astype(np.float32) * 0.3)
    xi = rs.randn(16, 9, 9, 3).astype(np.float32)
    m1 = tf.constant(rs.randn(200, 40).astype(np.float32))
    m2 = tf.constant(rs.randn(16, 7, 7, 5).astype(np.float32))
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(dense(x) * m1) + tf.reduce_sum(conv(xi) * m2)
    gb, gc = tape.gradient(loss, [dense.bias, conv.bias])
    return gb.numpy().view(np.uint32).tolist(), gc.numpy().view(np.uint32).tolist()


def test_dense_and_conv_bias_gradients_have_tensorflows_bits(monkeypatch):
    monkeypatch.setattr(_bias_add_grad, "_threads", lambda: 2)
    dense, conv = _gradients()
    assert dense == _DENSE
    assert conv == _CONV
