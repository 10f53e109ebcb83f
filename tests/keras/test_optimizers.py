"""keras.optimizers: update rules against NumPy re-derivations, slot creation, tf.function behaviour, errors."""
import numpy as np
import pytest

import tensorflux as tf

keras = tf.keras

GRADS = [np.array([0.3, -1.0, 0.0], "float32"), np.array([0.6, -1.0, 0.05], "float32"),
         np.array([0.9, -1.0, 0.1], "float32"), np.array([1.2, -1.0, 0.15], "float32")]
START = np.array([1.0, -2.0, 3.0], "float32")


def _run(optimizer, steps=4):
    variable = tf.Variable(START)
    for g in GRADS[:steps]:
        optimizer.apply_gradients([(tf.constant(g), variable)])
    return variable.numpy()


def _sgd(lr, momentum=0.0, nesterov=False):
    w, m = START.astype(np.float64), np.zeros(3)
    for g in GRADS:
        if momentum == 0:
            w = w - lr * g
            continue
        m = momentum * m - lr * g
        w = w + (momentum * m - lr * g if nesterov else m)
    return w


def _adam(lr, b1=0.9, b2=0.999, eps=1e-7, amsgrad=False):
    w, m, v, v_hat = START.astype(np.float64), np.zeros(3), np.zeros(3), np.zeros(3)
    for t, g in enumerate(GRADS, 1):
        alpha = lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        m = m + (g - m) * (1 - b1)
        v = v + (g * g - v) * (1 - b2)
        v_hat = np.maximum(v_hat, v)
        w = w - alpha * m / (np.sqrt(v_hat if amsgrad else v) + eps)
    return w


def _nadam(lr, b1=0.9, b2=0.999, eps=1e-7):
    w, m, v, u_product = START.astype(np.float64), np.zeros(3), np.zeros(3), 1.0
    for t, g in enumerate(GRADS, 1):
        u_t = b1 * (1 - 0.5 * 0.96 ** t)
        u_next = b1 * (1 - 0.5 * 0.96 ** (t + 1))
        u_product = u_product * u_t
        m = m + (g - m) * (1 - b1)
        v = v + (g * g - v) * (1 - b2)
        m_hat = u_next * m / (1 - u_product * u_next) + (1 - u_t) * g / (1 - u_product)
        v_hat = v / (1 - b2 ** t)
        w = w - lr * m_hat / (np.sqrt(v_hat) + eps)
    return w


def _rmsprop(lr, rho=0.9, momentum=0.0, eps=1e-7, centered=False):
    w, vel, mom, avg = START.astype(np.float64), np.zeros(3), np.zeros(3), np.zeros(3)
    for g in GRADS:
        vel = rho * vel + (1 - rho) * g * g
        avg = rho * avg + (1 - rho) * g
        denominator = vel - avg * avg + eps if centered else vel + eps
        increment = lr * g / np.sqrt(denominator)
        mom = momentum * mom + increment
        w = w - (mom if momentum else increment)
    return w


def _adagrad(lr, initial=0.1, eps=1e-7):
    w, acc = START.astype(np.float64), np.full(3, initial)
    for g in GRADS:
        acc = acc + g * g
        w = w - lr * g / np.sqrt(acc + eps)
    return w


@pytest.mark.parametrize("make, reference", [
    (lambda: keras.optimizers.SGD(0.1), lambda: _sgd(0.1)),
    (lambda: keras.optimizers.SGD(0.1, momentum=0.9), lambda: _sgd(0.1, 0.9)),
    (lambda: keras.optimizers.SGD(0.1, momentum=0.9, nesterov=True), lambda: _sgd(0.1, 0.9, True)),
    (lambda: keras.optimizers.Adam(0.1), lambda: _adam(0.1)),
    (lambda: keras.optimizers.Adam(0.1, amsgrad=True), lambda: _adam(0.1, amsgrad=True)),
    (lambda: keras.optimizers.Nadam(0.1), lambda: _nadam(0.1)),
    (lambda: keras.optimizers.RMSprop(0.1), lambda: _rmsprop(0.1)),
    (lambda: keras.optimizers.RMSprop(0.1, momentum=0.5, centered=True),
     lambda: _rmsprop(0.1, momentum=0.5, centered=True)),
    (lambda: keras.optimizers.Adagrad(0.1), lambda: _adagrad(0.1)),
])
def test_update_rules_match_numpy(make, reference):
    np.testing.assert_allclose(_run(make()), reference(), rtol=2e-5, atol=2e-6)


def test_adam_hand_computed_first_steps():
    # Step 1 moves every coordinate with a nonzero gradient by lr (m / sqrt(v) = sign(g) after bias correction).
    opt = keras.optimizers.Adam(learning_rate=0.01)
    w = tf.Variable(2.0)
    opt.apply_gradients([(tf.constant(6.0), w)])
    np.testing.assert_allclose(w.numpy(), 1.99, rtol=1e-6)
    opt.apply_gradients([(tf.constant(6.0), w)])
    np.testing.assert_allclose(w.numpy(), 1.98, rtol=1e-6)
    assert int(opt.iterations.numpy()) == 2


def test_clipping_and_weight_decay():
    v = tf.Variable([3.0, 4.0])
    keras.optimizers.SGD(1.0, clipnorm=1.0).apply_gradients([(tf.constant([3.0, 4.0]), v)])
    np.testing.assert_allclose(v.numpy(), [2.4, 3.2], rtol=1e-6)
    v = tf.Variable([1.0])
    keras.optimizers.SGD(0.5, clipvalue=0.1).apply_gradients([(tf.constant([5.0]), v)])
    np.testing.assert_allclose(v.numpy(), [0.95], rtol=1e-6)
    v = tf.Variable([1.0])
    keras.optimizers.SGD(0.1, weight_decay=0.5).apply_gradients([(tf.constant([0.0]), v)])
    np.testing.assert_allclose(v.numpy(), [0.95], rtol=1e-6)   # w -= w * wd * lr, then the gradient step


def test_slots_created_lazily_and_once():
    opt = keras.optimizers.Adam()
    assert len(opt.variables) == 2 and not opt.built          # iterations, learning_rate
    a, b = tf.Variable([1.0, 2.0], name="a"), tf.Variable(3.0, name="b")
    opt.apply_gradients(zip([tf.constant([1.0, 1.0]), tf.constant(1.0)], [a, b]))
    assert len(opt.variables) == 6
    opt.apply_gradients(zip([tf.constant([1.0, 1.0]), tf.constant(1.0)], [a, b]))
    assert len(opt.variables) == 6
    assert opt.iterations.dtype == tf.int64 and opt.learning_rate.dtype == tf.float32


def test_learning_rate_setter_and_names():
    keras.backend.clear_session()     # optimizer names count per process (adam, adam_1, ...) as in Keras
    opt = keras.optimizers.SGD(0.5)
    opt.learning_rate = 0.25
    np.testing.assert_allclose(opt.learning_rate.numpy(), 0.25)
    assert [keras.optimizers.get(n).name for n in ("sgd", "adam", "nadam", "rmsprop", "adagrad")] == \
        ["sgd_1", "adam", "nadam", "rm_sprop", "adagrad"]   # Keras 3.15: the SGD above is "sgd"


def test_inside_tf_function_matches_eager():
    def train(optimizer, w, steps, compiled):
        def step(x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(tf.square(w * x - 1.0))
            grads = tape.gradient(loss, [w])
            optimizer.apply_gradients(zip(grads, [w]))
        step = tf.function(step) if compiled else step
        for _ in range(steps):
            step(tf.constant([1.0, 2.0]))
        return w.numpy()

    for make in (lambda: keras.optimizers.Nadam(0.05), lambda: keras.optimizers.SGD(0.05, momentum=0.9)):
        eager = train(make(), tf.Variable([0.3, -0.2]), 5, False)
        graph = train(make(), tf.Variable([0.3, -0.2]), 5, True)
        np.testing.assert_allclose(graph, eager, rtol=1e-6)


def test_second_optimizer_in_same_function_breaks_singleton_rule():
    @tf.function
    def step(w, optimizer):
        with tf.GradientTape() as tape:
            loss = tf.square(w)
        optimizer.apply_gradients(zip(tape.gradient(loss, [w]), [w]))

    w = tf.Variable(2.0)
    step(w, keras.optimizers.Adam(1e-2))
    with pytest.raises(ValueError, match="tf.function only supports singleton tf.Variables created on the first"):
        step(w, keras.optimizers.Adam(1e-3))


def test_errors():
    with pytest.raises(ValueError, match=r"Argument\(s\) not recognized: \{'lr': 0.1\}"):
        keras.optimizers.Adam(lr=0.1)
    with pytest.raises(ValueError, match="Could not interpret optimizer identifier: foo"):
        keras.optimizers.get("foo")
    opt = keras.optimizers.Adam()
    opt.apply_gradients([(tf.constant(1.0), tf.Variable(1.0))])
    with pytest.raises(ValueError, match="Unknown variable: .*can only be called for the variables it was"):
        opt.apply_gradients([(tf.constant(1.0), tf.Variable(2.0))])
    with pytest.raises(ValueError, match="No gradients provided for any variable."):
        keras.optimizers.SGD().apply_gradients([(None, tf.Variable(1.0))])
    with pytest.raises(ValueError, match="optimizer must already be built"):
        keras.optimizers.SGD().apply([tf.constant(1.0)])
