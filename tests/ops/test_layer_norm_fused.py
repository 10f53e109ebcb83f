"""The fused layer normalisation (FusedLayerNorm / FusedLayerNormGrad in ops/nn/normalization.py) that
keras.layers.LayerNormalization runs: values and gradients recorded from Keras 3.15 on TensorFlow 2.21,
first and second gradients against finite differences, eager == traced == compiled (jit_compile), the
composite it replaces, and one op each way in a graph."""
import numpy as np
import pytest

import tensorflux as tf
from tensorflux._src.ops.nn.normalization import fused_layer_norm

from helpers import check_gradients

X = ((np.arange(24, dtype=np.float32).reshape(2, 3, 4) % 7 - 3) * 0.5
     + np.linspace(0, 1, 24, dtype=np.float32).reshape(2, 3, 4))
W = np.cos(np.arange(24, dtype=np.float32)).reshape(2, 3, 4)
# keras.layers.LayerNormalization(axis, epsilon=1e-3) on X, gamma = 1 + 0.1·i, beta = -0.2·i, loss Σ y·W
TENSORFLOW = {
    "last": {
        "y": [[[-1.3398276567459106, -0.6912702322006226, 0.135931134223938, 1.1417758464813232], [0.053676605224609375, 0.39580923318862915, 0.8355356454849243, -2.712414503097534], [-1.3398276567459106, -0.6912701725959778, 0.13593101501464844, 1.1417758464813232]], [[0.7555943727493286, 1.1143828630447388, -1.8338720798492432, -1.5822725296020508], [-1.3398277759552002, -0.6912702322006226, 0.13593101501464844, 1.1417756080627441], [1.624934196472168, -1.3325743675231934, -1.049973726272583, -0.6697794795036316]]],
        "dx": [[[-0.23333168029785156, 0.4037826657295227, -0.08991384506225586, -0.08053696155548096], [-0.9855422973632812, -0.08867622911930084, 0.6955116987228394, 0.37870675325393677], [0.7542198300361633, -0.7274706363677979, -0.8087149262428284, 0.7819656729698181]], [[0.11279705166816711, 0.026226699352264404, 0.5016064643859863, -0.6406302452087402], [0.013854026794433594, -0.19208848476409912, 0.32524996995925903, -0.14701509475708008], [0.11612075567245483, 0.38293394446372986, -0.36933577060699463, -0.12971894443035126]]],
        "dgamma": [1.403848648071289, 2.0904011726379395, 1.1011524200439453, -0.6182209849357605],
        "dbeta": [0.4951328635215759, -0.0026115775108337402, -0.49795496463775635, -0.5354808568954468],
    },
    "last_two": {
        "y": [[[-1.5703725814819336, -1.3141282796859741, -0.9463781118392944, -0.46712231636047363], [0.12363928556442261, 0.82590651512146, 1.639679193496704, -3.5388660430908203], [-2.8611297607421875, -2.0718882083892822, -1.1711407899856567, -0.15888762474060059]], [[0.7687870860099792, 1.2183516025543213, -2.2513365745544434, -1.9288042783737183], [-1.5021473169326782, -0.9713656902313232, -0.3364596366882324, 0.402571439743042], [1.2457270622253418, -4.177339553833008, -3.4612159729003906, -2.6409683227539062]]],
        "dx": [[[0.981291651725769, 0.6272609829902649, -0.43259871006011963, -1.1784502267837524], [-0.7348222136497498, 0.7025547027587891, 1.9041751623153687, 1.3049962520599365], [-0.21631787717342377, -1.661424994468689, -1.5449256896972656, 0.2482607364654541]], [[0.3162807822227478, 0.053978562355041504, 1.486161470413208, -0.02723526954650879], [-0.7756634950637817, -0.2968590557575226, 0.7004566192626953, 0.8883451223373413], [-0.4282618761062622, 0.10237181186676025, -1.2266747951507568, -0.7928995490074158]]],
        "dgamma": [[-0.921628475189209, 0.6228296756744385, -0.0214775949716568, 0.6753297448158264], [0.049062252044677734, 0.34004098176956177, 2.0604913234710693, 0.09983229637145996], [0.7471025586128235, 0.8157179355621338, 0.3828433156013489, 0.1161884292960167]],
        "dbeta": [[1.8438539505004883, 1.447749137878418, -0.27940958738327026, -1.7496803998947144], [-1.6113030910491943, 0.008498817682266235, 1.6204869747161865, 1.7426068782806396], [0.26258203387260437, -1.4588594436645508, -1.8390324115753174, -0.5284073352813721]],
    },
}


def _layer(axis):
    layer = tf.keras.layers.LayerNormalization(axis=axis, epsilon=1e-3)
    layer.build((2, 3, 4))
    size = int(np.prod(layer.gamma.shape))
    layer.gamma.assign((1.0 + 0.1 * np.arange(size, dtype=np.float32)).reshape(layer.gamma.shape))
    layer.beta.assign((-0.2 * np.arange(size, dtype=np.float32)).reshape(layer.beta.shape))
    return layer


def _run(layer, x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = layer(x)
        loss = tf.reduce_sum(y * W)
    return [y] + tape.gradient(loss, [x, layer.gamma, layer.beta])


@pytest.mark.parametrize("mode", ["eager", "traced", "compiled"])
@pytest.mark.parametrize("name,axis", [("last", -1), ("last_two", [-2, -1])])
def test_layer_values_and_gradients_as_keras(name, axis, mode):
    layer = _layer(axis)
    run = _run if mode == "eager" else tf.function(_run, jit_compile=True if mode == "compiled" else None)
    got = [t.numpy() for t in run(layer, tf.constant(X))]
    want = TENSORFLOW[name]
    for value, key in zip(got, ("y", "dx", "dgamma", "dbeta")):
        np.testing.assert_allclose(value, want[key], rtol=2e-5, atol=2e-5, err_msg=key)


def test_eager_traced_compiled_same_bits():
    layer = _layer(-1)
    x = tf.constant(np.random.default_rng(3).standard_normal((2, 3, 4)).astype(np.float32))
    eager = [t.numpy() for t in _run(layer, x)]
    for jit in (None, True):
        for a, b in zip(eager, [t.numpy() for t in tf.function(_run, jit_compile=jit)(layer, x)]):
            np.testing.assert_array_equal(a, b)


def test_equals_the_composite():
    # The ops the layer composed before (moments, rsqrt, the broadcast products), in the same order; the
    # fused kernel's row means are BLAS products, so the last bit may differ.
    rng = np.random.default_rng(4)
    x = tf.constant(rng.standard_normal((6, 8, 16)).astype(np.float32))
    gamma = tf.constant(rng.standard_normal(16).astype(np.float32))
    beta = tf.constant(rng.standard_normal(16).astype(np.float32))
    mean, variance = tf.nn.moments(x, [-1], keepdims=True)
    inv = tf.math.rsqrt(variance + 1e-3) * gamma
    composite = x * inv + (-mean * inv + beta)
    np.testing.assert_allclose(fused_layer_norm(x, gamma, beta, 2, 1e-3).numpy(), composite.numpy(), rtol=2e-6,
                               atol=2e-6)


@pytest.mark.parametrize("begin_axis", [1, 2])
def test_gradients_match_finite_differences(begin_axis):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((3, 4, 5))
    shape = x.shape[begin_axis:]
    gamma, beta = rng.standard_normal(shape), rng.standard_normal(shape)
    check_gradients(lambda a, g, b: fused_layer_norm(a, g, b, begin_axis, 1e-3), [x, gamma, beta],
                    rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("begin_axis", [1, 2])
def test_second_order_gradients_match_finite_differences(begin_axis):
    rng = np.random.default_rng(6)
    x = rng.standard_normal((3, 4, 5))
    shape = x.shape[begin_axis:]
    gamma, beta = rng.standard_normal(shape), rng.standard_normal(shape)
    weights = tf.constant(rng.standard_normal(x.shape))

    def first(a, g, b):
        with tf.GradientTape() as tape:
            tape.watch([a, g, b])
            loss = tf.reduce_sum(tf.square(fused_layer_norm(a, g, b, begin_axis, 1e-3) * weights))
        da, dg, db = tape.gradient(loss, [a, g, b])
        # every output of the backward reaches the checked scalar
        return tf.reduce_sum(da * weights) + tf.reduce_sum(tf.sin(dg)) + tf.reduce_sum(db * db) + 0.0 * a

    check_gradients(first, [x, gamma, beta], rtol=1e-5, atol=1e-5)   # entries up to ~500


def test_one_op_each_way_in_a_graph():
    layer = _layer(-1)

    @tf.function
    def step(x):
        return _run(layer, x)

    graph = step.get_concrete_function(tf.TensorSpec((2, 3, 4), tf.float32)).graph
    types = [op.type for op in graph.get_operations()]
    assert types.count("FusedLayerNorm") == 1 and types.count("FusedLayerNormGrad") == 1
    assert "Mean" not in types and "Rsqrt" not in types


def test_bad_parameter_shape_names_the_argument():
    with pytest.raises(tf.errors.InvalidArgumentError, match="gamma must have the shape"):
        fused_layer_norm(tf.ones((2, 3)), tf.ones((4,)), tf.zeros((3,)), 1, 1e-3)


def test_float16_is_computed_in_float32():
    x = np.random.default_rng(7).standard_normal((4, 8)).astype(np.float16)
    y = fused_layer_norm(tf.constant(x), tf.ones((8,), tf.float16), tf.zeros((8,), tf.float16), 1, 1e-3)
    assert y.dtype == tf.float16
    w = x.astype(np.float64)
    want = (w - w.mean(-1, keepdims=True)) / np.sqrt(w.var(-1, keepdims=True) + 1e-3)
    np.testing.assert_allclose(y.numpy().astype(np.float64), want, rtol=2e-3, atol=2e-3)
