"""Second-order gradients through Keras' recurrent layers, as TensorFlow 2.21 has them on CPU (its layers run
a While of cell ops, differentiable to any order): the fused sequence op (ops/nn/recurrent_kernels.py) has
no gradient of its own backward, so a training call under two recording tapes keeps the cell loop
(eagerly: under tf.function the loop's WhileGrad has no gradient yet). Values recorded from Keras 3.15 on TensorFlow: layer(3, return_sequences=True)
on x = 0.8·sin(0..15) as [2, 4, 2], weight i set to 0.5·cos(k·(1.3 + i)), s = Σ (∂Σy²/∂kernel)²,
then ∂s/∂(kernel, recurrent_kernel, bias)."""
import numpy as np
import pytest

import tensorflux as tf

TENSORFLOW = {
    "LSTM": {
        "first": [[0.00624226, 0.03854164, -0.0162885, -0.0079895, -0.01232524, 0.00958442, 0.12629303, -0.0744599, 0.00506945, 0.0016766, 0.00657889, -0.01005119], [-0.00290303, -0.01601416, 0.02845992, -0.00306295, -0.00797043, 0.00623072, 0.01573925, -0.0274499, 0.13835528, -0.00193575, -0.01807756, 0.04255081]],
        "second": [
            [[0.04106291, 0.02436915, 0.01210192, -0.00770771, -0.00267049, 0.0086963, 0.0004976, 0.0021114, 0.04893979, 0.04701766, 0.01336959, 0.01522861], [0.02047756, 0.01215481, 0.03374149, -0.0150355, -0.00412369, -0.00287047, -0.00893333, -0.00121594, 0.06961939, 0.01204709, 0.00373789, 0.03341861]],
            [[0.00238184, 0.0030172, 0.00190529, 0.00386011, 0.00199658, 0.00046722, 0.02522008, -0.00973787, 0.01243632, 0.00568727, 0.00389068, 0.00327398], [0.00053171, -0.00063138, -0.00100949, -0.00239749, -0.00112992, 0.00023266, -0.01328946, 0.00477181, -0.00473755, -0.00094592, -0.00144793, -0.00172961], [0.0048224, 0.00535471, -0.00025841, 0.00120744, 0.00025537, 0.00197614, 0.01753473, -0.00702643, 0.00643843, 0.00724219, 0.00385386, 0.00107158]],
            [0.02328919, 0.02053261, 0.02448434, 0.01904109, 0.00708226, 0.00791131, 0.08079391, -0.01398614, 0.04318907, 0.04158936, 0.01863219, 0.04090712],
        ],
    },
    "GRU": {
        "first": [[-0.09126656, -0.53609812, 0.09564806, -0.0692912, -0.07227718, 0.02167807, -0.26784062, 0.3290078, 0.10771106], [-0.23375325, -0.44572651, 0.16601603, -0.07276816, -0.06828257, 0.00960035, -0.22585809, 0.1999076, 0.04673136]],
        "second": [
            [[0.42299572, 0.1632372, -0.01660521, 0.04191236, 0.12804274, 0.01932382, 0.52264851, -1.11450005, 0.101976], [0.46945065, 0.27459612, 0.02176648, 0.07205158, 0.09947328, 0.00967047, 0.4889046, -0.4699102, 0.00681527]],
            [[-0.09515651, 0.02774952, 0.03196667, 0.02279929, 0.08692124, 0.01580701, 0.02623469, -0.38302201, 0.05718606], [0.28778502, 0.01827186, -0.01635329, -0.0637905, -0.17564753, -0.03117415, -0.15839213, 0.85077655, -0.10851451], [-0.01469932, 0.05962563, -0.0064192, 0.0412958, 0.073883, 0.01092094, 0.1021123, -0.2586813, 0.03473732]],
            [[-0.2647028, 0.2992208, -0.012371, 0.12570482, 0.42072299, 0.06146362, 0.97695714, -3.24417686, 0.67674994], [-0.2647028, 0.2992208, -0.012371, 0.12570482, 0.42072299, 0.06146362, 0.31092244, -2.15122747, 0.22295824]],
        ],
    },
    "SimpleRNN": {
        "first": [[0.54984605, 0.09060692, 0.70160723], [0.44900283, -0.01223311, 0.69561452]],
        "second": [
            [[-0.99146849, -0.37508217, 2.38734531], [-0.93174273, 1.01724446, 2.40092063]],
            [[-0.83134025, 1.0087862, -0.23117048], [1.53587282, -1.08605409, -0.16695875], [-0.331586, 0.43862021, 1.04008985]],
            [-3.64170241, 0.75861776, -1.40822911],
        ],
    },
}


def _layer(name):
    layer = getattr(tf.keras.layers, name)(3, return_sequences=True)
    x = tf.constant((np.sin(np.arange(16, dtype=np.float32)) * 0.8).reshape(2, 4, 2))
    layer(x)
    for i, w in enumerate(layer.trainable_weights):
        n = int(np.prod(w.shape))
        w.assign((np.cos(np.arange(n, dtype=np.float32) * (1.3 + i)) * 0.5).reshape(w.shape))
    return layer, x


@pytest.mark.parametrize("name", ["LSTM", "GRU", "SimpleRNN"])
def test_second_order_gradients_as_tensorflow(name):
    layer, x = _layer(name)

    def run(x):
        with tf.GradientTape() as outer:
            with tf.GradientTape() as inner:
                y = tf.reduce_sum(layer(x, training=True) ** 2)
            g = inner.gradient(y, layer.trainable_weights[0])
            s = tf.reduce_sum(g ** 2)
        return [g] + outer.gradient(s, layer.trainable_weights)
    got = run(x)
    want = TENSORFLOW[name]
    np.testing.assert_allclose(got[0].numpy(), want["first"], rtol=1e-5, atol=1e-6)
    for value, expected in zip(got[1:], want["second"]):
        np.testing.assert_allclose(value.numpy(), expected, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", ["LSTM", "GRU", "SimpleRNN"])
def test_one_tape_runs_the_fused_op(name):
    layer, x = _layer(name)

    @tf.function
    def step(x):
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(layer(x, training=True) ** 2)
        return tape.gradient(y, layer.trainable_weights[0])
    graph = step.get_concrete_function(tf.TensorSpec(x.shape, tf.float32)).graph
    assert "FusedRecurrentSequence" in [op.type for op in graph.get_operations()]
    np.testing.assert_allclose(step(x).numpy(), TENSORFLOW[name]["first"], rtol=1e-5, atol=1e-6)
