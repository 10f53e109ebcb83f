"""keras.ops beyond recorded values: sub-namespaces holding the same objects, KerasTensor nodes in the
functional API, gradients, tracing, and round trips (stft/istft, fold/unfold)."""
import numpy as np
import pytest

import tensorflux as tf

ops = tf.keras.ops


def test_sub_namespaces_hold_the_same_objects():
    assert ops.numpy.add is ops.add and ops.nn.relu is ops.relu and ops.linalg.svd is ops.svd
    assert ops.numpy.quantile is ops.quantile and ops.nn.conv is ops.conv
    assert callable(ops.image.resize) and not hasattr(ops, "resize")
    assert ops.numpy.fmax is ops.fmax


def test_functional_model_with_new_ops():
    inputs = tf.keras.Input((4,))
    x = ops.sort(ops.cumprod(ops.abs(inputs), axis=1), axis=1)
    outputs = ops.logsumexp(ops.nn.sparse_plus(x), axis=1)
    model = tf.keras.Model(inputs, outputs)
    data = np.array([[0.5, -1.0, 2.0, 0.25]], np.float32)
    expected = ops.logsumexp(ops.sparse_plus(ops.sort(ops.cumprod(ops.abs(data), axis=1), axis=1)), axis=1)
    np.testing.assert_allclose(model(data).numpy(), expected.numpy(), rtol=1e-6)


@pytest.mark.parametrize("fn", [
    lambda x: ops.sum(ops.nn.celu(x) * ops.hard_silu(x)),
    lambda x: ops.quantile(x, 0.4),
    lambda x: ops.sum(ops.normalize(ops.reshape(x, (1, 3)))),
    lambda x: ops.sum(ops.correlate(x, ops.array([1.0, -0.5]), mode="full")),
    lambda x: ops.sum(ops.sparsemax(x)),
    lambda x: ops.norm(x, ord=3),
])
def test_gradients_match_finite_differences(fn):
    x0 = np.array([0.3, -0.7, 1.1])
    x = tf.Variable(x0)
    with tf.GradientTape() as tape:
        y = fn(x)
    grad = tape.gradient(y, x).numpy()
    eps = 1e-6
    numeric = [(fn(tf.constant(x0 + eps * e)).numpy() - fn(tf.constant(x0 - eps * e)).numpy()) / (2 * eps)
               for e in np.eye(3)]
    np.testing.assert_allclose(grad, numeric, rtol=1e-5, atol=1e-7)


def test_ops_trace_into_tf_function():
    @tf.function
    def f(x):
        total = ops.fori_loop(0, 3, lambda i, s: s + ops.sum(x) * ops.cast(i, "float32"), ops.zeros(()))
        return ops.stack([total, ops.median(x), ops.nanmax(x)])

    x = tf.constant([1.0, 5.0, 2.0])
    np.testing.assert_allclose(f(x).numpy(), [24.0, 2.0, 5.0])


def test_stft_istft_round_trip():
    signal = np.sin(np.linspace(0, 20, 64)).astype(np.float32)
    spectrum = ops.stft(signal, 16, 4, 16)
    restored = ops.istft(spectrum, 16, 4, 16, length=64)
    np.testing.assert_allclose(restored.numpy(), signal, atol=1e-5)


def test_fold_is_the_adjoint_of_unfold():
    image = tf.reshape(tf.range(32.0), [1, 2, 4, 4])
    columns = ops.unfold(image, 2, stride=1)
    assert columns.shape.as_list() == [1, 8, 9]
    counts = ops.fold(ops.unfold(tf.ones([1, 2, 4, 4]), 2, stride=1), (4, 4), 2, stride=1)
    np.testing.assert_allclose(ops.fold(columns, (4, 4), 2, stride=1).numpy(), image.numpy() * counts.numpy())


def test_rearrange_and_jvp():
    x = tf.reshape(tf.range(24), [2, 3, 4])
    assert ops.rearrange(x, "b h (w c) -> b (h w) c", c=2).shape.as_list() == [2, 6, 2]
    np.testing.assert_array_equal(ops.rearrange(x, "b h w -> w b h").numpy(), np.transpose(x.numpy(), (2, 0, 1)))
    outputs, tangent = ops.jvp(lambda a: a * a, (tf.constant([1.0, 2.0]),), (tf.constant([1.0, 0.5]),))
    np.testing.assert_allclose(tangent.numpy(), [2.0, 2.0])


def test_ctc_decode_greedy():
    logits = np.log(np.array([[[0.1, 0.8, 0.1], [0.1, 0.8, 0.1], [0.8, 0.1, 0.1], [0.1, 0.1, 0.8]]], np.float32))
    decoded, scores = ops.ctc_decode(logits, [4])
    assert decoded.numpy().tolist() == [[[1, 2]]]
    np.testing.assert_allclose(scores.numpy(), [[-(3 * np.log(0.8) + np.log(0.8))]], rtol=1e-6)
    with pytest.raises(ValueError, match="greedy"):
        ops.ctc_decode(logits, [4], strategy="beam_search")


def test_errors_name_the_argument():
    with pytest.raises(ValueError, match="`method`"):
        ops.quantile(tf.constant([1.0]), 0.5, method="bogus")
    with pytest.raises(ValueError, match="`mode`"):
        ops.correlate(tf.constant([1.0]), tf.constant([1.0]), mode="bogus")
    with pytest.raises(ValueError, match="`ord`"):
        ops.norm(tf.ones([2, 2]), ord="bogus", axis=(0, 1))


def test_cdist_and_fmax_match_keras():
    # Keras 3.15: ops.cdist([[0,0],[1,1]], [[1,0],[2,2],[0,3]]) and ops.fmax([1, nan], [nan, 2])
    np.testing.assert_allclose(ops.cdist(np.array([[0.0, 0.0], [1.0, 1.0]]),
                                         np.array([[1.0, 0.0], [2.0, 2.0], [0.0, 3.0]])).numpy(),
                               [[1.0, 2.82842712, 3.0], [1.0, 1.41421356, 2.23606798]], rtol=1e-7)
    np.testing.assert_array_equal(ops.fmax(np.array([1.0, np.nan]), np.array([np.nan, 2.0])).numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(ops.fmin(np.array([1.0, np.nan]), np.array([np.nan, 2.0])).numpy(), [1.0, 2.0])
