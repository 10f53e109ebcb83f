"""Adadelta and Ftrl applying tf.IndexedSlices whose indices repeat, as Keras 3.15 does on TensorFlow 2.21:
the accumulators sum the squared rows of a repeated index (not the square of their sum), and Adadelta
keeps one step per slice. Values recorded under TensorFlow: three steps on a (4, 2) variable of ones
with the gradient IndexedSlices(values=[[1, 2], [3, 4], [0.5, -1]] * step, indices=[1, 1, 3])."""
import numpy as np
import pytest

import tensorflux as tf

TENSORFLOW_STEPS = {
    "Adadelta": {"variable": [[1.0, 1.0], [0.9931992888450623, 0.992786705493927], [1.0, 1.0], [0.994623601436615, 1.0053764581680298]],
                "slots": [[[0.0, 0.0], [6.851249694824219, 13.702499389648438], [0.0, 0.0], [0.17128124833106995, 0.6851249933242798]], [[0.0, 0.0], [4.780159770234604e-07, 4.780159770234604e-07], [0.0, 0.0], [4.780131348525174e-07, 4.780152949024341e-07]]]},
    "Adadelta_rho": {"variable": [[1.0, 1.0], [0.8882102966308594, 0.881424605846405], [1.0, 1.0], [0.9118815660476685, 1.0883175134658813]],
                    "slots": [[[0.0, 0.0], [56.25, 112.5], [0.0, 0.0], [1.40625, 5.625]], [[0.0, 0.0], [0.0037606009282171726, 0.00376085564494133], [0.0, 0.0], [0.0037408408243209124, 0.003756015794351697]]]},
    "Ftrl": {"variable": [[0.0, 0.0], [0.5602264404296875, 0.5681440830230713], [0.0, 0.0], [0.21583889424800873, 0.9622898101806641]],
            "slots": [[[0.10000000149011612, 0.10000000149011612], [140.10000610351562, 280.1000061035156], [0.10000000149011612, 0.10000000149011612], [3.5999999046325684, 14.100000381469727]], [[0.0, 0.0], [-66.31056213378906, -95.08565521240234], [0.0, 0.0], [-4.095254898071289, -36.133949279785156]]]},
    "Ftrl_reg": {"variable": [[-0.03295775130391121, -0.03295775130391121], [0.7296188473701477, 0.7796252369880676], [-0.03295775130391121, -0.03295775130391121], [0.10009874403476715, 0.7603089213371277]],
                "slots": [[[0.20000000298023224, 0.20000000298023224], [140.1999969482422, 280.20001220703125], [0.20000000298023224, 0.20000000298023224], [3.700000047683716, 14.199999809265137]], [[0.18603768944740295, 0.18603768944740295], [-233.71942138671875, -404.46954345703125], [0.18603768944740295, 0.18603768944740295], [-2.7215306758880615, -50.31370544433594]]]},
}
OPTIMIZERS = {
    "Adadelta": lambda: tf.keras.optimizers.Adadelta(1.0),
    "Adadelta_rho": lambda: tf.keras.optimizers.Adadelta(0.5, rho=0.5, epsilon=1e-3),
    "Ftrl": lambda: tf.keras.optimizers.Ftrl(0.1),
    "Ftrl_reg": lambda: tf.keras.optimizers.Ftrl(
        0.1, learning_rate_power=-0.7, initial_accumulator_value=0.2, l1_regularization_strength=0.01,
        l2_regularization_strength=0.05, l2_shrinkage_regularization_strength=0.1, beta=0.2),
}


def _slices(step):
    values = tf.constant([[1., 2.], [3., 4.], [0.5, -1.]]) * tf.cast(step, tf.float32)
    return tf.IndexedSlices(values, tf.constant([1, 1, 3]), tf.constant([4, 2]))


def _run(name, traced):
    optimizer = OPTIMIZERS[name]()
    variable = tf.Variable(tf.ones((4, 2)))

    def step(k):
        optimizer.apply_gradients([(_slices(k), variable)])
    if traced:
        optimizer.build([variable])
        step = tf.function(step)
    for k in range(1, 4):
        step(tf.constant(float(k)) if traced else k)
    return variable, optimizer


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_repeated_indices_as_keras_on_tensorflow(name, traced):
    variable, optimizer = _run(name, traced)
    expected = TENSORFLOW_STEPS[name]
    np.testing.assert_allclose(variable.numpy(), expected["variable"], rtol=1e-5, atol=1e-6)
    slots = [v.numpy() for v in optimizer.variables[2:]]
    assert len(slots) == len(expected["slots"])
    for got, want in zip(slots, expected["slots"]):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-9)


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_slices_without_repeats_equal_the_dense_gradient(name):
    # Without repeated indices the sparse rule is the dense rule on the densified gradient.
    sparse_opt, dense_opt = OPTIMIZERS[name](), OPTIMIZERS[name]()
    a, b = tf.Variable(tf.ones((4, 2))), tf.Variable(tf.ones((4, 2)))
    for k in range(1, 3):
        g = tf.IndexedSlices(tf.constant([[1., 2.], [0.5, -1.]]) * k, tf.constant([1, 3]), tf.constant([4, 2]))
        sparse_opt.apply_gradients([(g, a)])
        dense_opt.apply_gradients([(tf.convert_to_tensor(g), b)])
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-7)
