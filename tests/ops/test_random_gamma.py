"""tf.random.gamma / stateless_gamma draw TensorFlow's samples (RandomGamma, StatelessRandomGammaV2) and
differentiate with respect to alpha as it does; expected values printed by TensorFlow 2.21 for the same calls."""
import json

import numpy as np
import pytest

import tensorflux as tf

EXPECTED = json.loads('''{"a": [0.04600071907043457, 0.6202116012573242, 0.16465118527412415, 1.4875922203063965, 1.247285008430481], "b": [[[0.31658735871315, 4.410130500793457], [0.5366461277008057, 2.3546743392944336]], [[0.20496408641338348, 5.656493663787842], [0.4229544699192047, 1.8659379482269287]], [[0.436165988445282, 2.183946132659912], [0.6687609553337097, 4.051000595092773]]], "c": [[[1.1857740295748722, 1.6253954799859986], [0.0019714220362950694, 0.14776943067080806]], [[3.4186807180746728, 1.1336013645113037], [0.022748985551591865, 4.8244938091528e-09]], [[2.1100959725867736, 0.9540681581245261], [4.615305473846486e-08, 3.9993107022112353e-07]], [[7.11434925846164, 1.4809259213587098], [0.002250557356603902, 0.08315606456436306]]], "d": [5.259507656097412, 7.085343837738037], "e": [[0.0669536143541336, 0.22994834184646606, 4.103721618652344], [0.6282354593276978, 1.1978732347488403, 2.927082061767578], [0.18136732280254364, 0.017336418852210045, 2.3492119312286377], [0.047589920461177826, 1.8682763576507568, 1.1670961380004883]], "f": [[0.16621457759274644, 2.066680317464111], [0.37085115152250625, 0.6659231823339294], [0.5953930054939284, 3.1543536559238676]], "g": [[[0.0363665446639061, 1.372541069984436], [0.3398054242134094, 0.40521952509880066], [0.004098550416529179, 2.1944878101348877]], [1.3803178071975708, 2.467434883117676]], "h": [[[0.33134546875953674, 0.590747058391571], [0.07370683550834656, 2.0544826984405518], [0.38603904843330383, 1.5750806331634521]], [2.646871566772461, 2.6136322021484375]], "half": [0.5732421875, 2.275390625, 1.2353515625]}''')


def test_gamma_samples_are_tensorflows():
    tf.random.set_seed(2)
    assert tf.random.gamma([5], 0.5, seed=3).numpy().tolist() == EXPECTED["a"]          # alpha < 1
    assert tf.random.gamma([3, 2], [1.0, 2.5], seed=3).numpy().tolist() == EXPECTED["b"]  # exponential + MT
    got = tf.random.gamma([4], [[3.0], [0.2]], beta=[1.0, 2.0], seed=3, dtype=tf.float64)
    assert got.shape == [4, 2, 2] and got.numpy().tolist() == EXPECTED["c"]
    assert tf.random.gamma([2], 7.5, seed=3).numpy().tolist() == EXPECTED["d"]
    assert tf.random.gamma([3], 2.0, seed=3, dtype=tf.float16).numpy().astype(float).tolist() == EXPECTED["half"]


def test_stateless_gamma_samples_are_tensorflows():
    got = tf.random.stateless_gamma([4, 3], seed=[1, 2], alpha=[0.5, 1.0, 3.0])
    assert got.numpy().tolist() == EXPECTED["e"]
    got = tf.random.stateless_gamma([3, 2], seed=[4, 5], alpha=[1.0, 2.5], beta=2.0, dtype=tf.float64)
    assert got.numpy().tolist() == EXPECTED["f"]
    assert np.array_equal(tf.random.stateless_gamma([2, 3], seed=[9, 9], alpha=[0.5, 1.0, 3.0]).numpy(),
                          tf.random.stateless_gamma([2, 3], seed=[9, 9], alpha=[0.5, 1.0, 3.0]).numpy())
    with pytest.raises(tf.errors.InvalidArgumentError, match="Shape passed in must end with broadcasted shape"):
        tf.random.stateless_gamma([4], seed=[1, 2], alpha=[0.5, 1.0, 3.0])


@pytest.mark.parametrize("key", ["g", "h"])
def test_gradient_with_respect_to_alpha(key):
    alpha = tf.constant([0.5, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(alpha)
        if key == "g":
            samples = tf.random.gamma([3], alpha, seed=3)
        else:
            samples = tf.random.stateless_gamma([3, 2], seed=[1, 1], alpha=alpha)
    samples_expected, grad_expected = EXPECTED[key]
    assert samples.numpy().tolist() == samples_expected
    # TensorFlow evaluates d sample / d alpha in float32; this path in float64, rounded once
    np.testing.assert_allclose(tape.gradient(samples, alpha).numpy(), grad_expected, rtol=2e-6)


def test_gradient_is_the_implicit_reparameterisation():
    # d sample / d alpha keeps the sample's CDF value P(alpha, x) fixed: -(dP/dalpha) / (dP/dx), checked
    # against central differences of tf.math.igamma.
    for a in (0.7, 1.5, 4.0):
        alpha = tf.constant([a], tf.float64)
        with tf.GradientTape() as tape:
            tape.watch(alpha)
            s = tf.random.stateless_gamma([1], seed=[3, 8], alpha=alpha, dtype=tf.float64)
        grad = tape.gradient(s, alpha).numpy()[0]
        x, h = float(s.numpy()[0]), 1e-6
        p = lambda a_, x_: float(tf.math.igamma(tf.constant(a_, tf.float64), tf.constant(x_, tf.float64)))
        d_alpha = (p(a + h, x) - p(a - h, x)) / (2 * h)
        d_x = (p(a, x + h) - p(a, x - h)) / (2 * h)
        assert grad == pytest.approx(-d_alpha / d_x, rel=1e-5)
