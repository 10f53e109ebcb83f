"""More keras.optimizers: AdamW, Adamax, Adadelta, Ftrl and Lion, and the learning-rate schedules, against
NumPy re-derivations and values printed by TF 2.21's Keras for the same variables and gradients."""
import numpy as np
import pytest

import tensorflux as tf
from tensorflux._src.keras.optimizers import schedules

keras = tf.keras
O = keras.optimizers

GRADS = [np.array([0.3, -1.0, 0.0], "float32"), np.array([0.6, -1.0, 0.05], "float32"),
         np.array([0.9, -1.0, 0.1], "float32"), np.array([1.2, -1.0, 0.15], "float32")]
START = np.array([1.0, -2.0, 3.0], "float32")


def _run(optimizer, traced=False):
    variable = tf.Variable(START)

    def step(gradient):
        optimizer.apply_gradients([(gradient, variable)])

    if traced:
        step = tf.function(step)
    for g in GRADS:
        step(tf.constant(g))
    return variable.numpy()


# The variable after the four steps above, printed by TF 2.21's Keras.
TF_VALUES = [
    (lambda: O.AdamW(learning_rate=0.1), [0.6102819442749023, -1.5970455408096313, 2.7508859634399414]),
    (lambda: O.AdamW(learning_rate=0.05, weight_decay=0.1, amsgrad=True),
     [0.7874394059181213, -1.7617958784103394, 2.818821668624878]),
    (lambda: O.Adamax(learning_rate=0.1), [0.6888984441757202, -1.6000001430511475, 2.839487075805664]),
    (lambda: O.Adamax(learning_rate=0.2, beta_1=0.8, beta_2=0.9),
     [0.3625217378139496, -1.1999998092651367, 2.655797243118286]),
    (lambda: O.Adadelta(learning_rate=1.0), [0.992098867893219, -1.9942554235458374, 2.9946250915527344]),
    (lambda: O.Adadelta(learning_rate=0.5, rho=0.8, epsilon=1e-4),
     [0.9368019700050354, -1.95228111743927, 2.9598121643066406]),
    (lambda: O.Ftrl(learning_rate=0.1), [-0.024093033745884895, -1.1264418363571167, -0.08625645190477371]),
    (lambda: O.Ftrl(learning_rate=0.2, l1_regularization_strength=0.05, l2_regularization_strength=0.1,
                    l2_shrinkage_regularization_strength=0.02, beta=0.5, learning_rate_power=-0.6),
     [-0.23989595472812653, -0.6167919039726257, -0.08966707438230515]),
    (lambda: O.Lion(learning_rate=0.1), [0.5999999046325684, -1.5999999046325684, 2.700000286102295]),
    (lambda: O.Lion(learning_rate=0.1, beta_1=0.5, weight_decay=0.01),
     [0.5966054797172546, -1.5926114320755005, 2.6883182525634766]),
    (lambda: O.SGD(learning_rate=schedules.ExponentialDecay(0.1, 2, 0.5)),
     [0.8401471972465515, -1.7439340353012085, 2.98616099357605]),
    (lambda: O.Adam(learning_rate=schedules.CosineDecay(0.1, 3, alpha=0.1, warmup_target=0.2, warmup_steps=2)),
     [0.4147656261920929, -1.395005702972412, 2.5876004695892334]),
    (lambda: O.SGD(learning_rate=schedules.PiecewiseConstantDecay([1, 2], [0.1, 0.05, 0.01]), momentum=0.9),
     [0.6367300152778625, -1.2801001071929932, 2.975449800491333]),
]


@pytest.mark.parametrize("traced", [False, True])
@pytest.mark.parametrize("make, expected", TF_VALUES)
def test_updates_match_keras(make, expected, traced):
    np.testing.assert_allclose(_run(make(), traced), expected, rtol=1e-6, atol=1e-7)


def test_updates_match_numpy():
    w, m, u = START.astype(np.float64), np.zeros(3), np.zeros(3)
    for t, g in enumerate(GRADS, 1):                                     # Adamax
        m = 0.9 * m + 0.1 * g
        u = np.maximum(0.999 * u, np.abs(g))
        w = w - 0.1 * m / ((1 - 0.9 ** t) * (u + 1e-7))
    np.testing.assert_allclose(_run(O.Adamax(0.1)), w, rtol=1e-5)
    w, acc_g, acc_d = START.astype(np.float64), np.zeros(3), np.zeros(3)
    for g in GRADS:                                                      # Adadelta
        acc_g = 0.95 * acc_g + 0.05 * g * g
        delta = -np.sqrt(acc_d + 1e-7) * g / np.sqrt(acc_g + 1e-7)
        acc_d = 0.95 * acc_d + 0.05 * delta * delta
        w = w + 1.0 * delta
    np.testing.assert_allclose(_run(O.Adadelta(1.0)), w, rtol=1e-5)
    w, m = START.astype(np.float64), np.zeros(3)
    for g in GRADS:                                                      # Lion with decoupled weight decay
        w = w - w * 0.1 * 0.05
        w = w - 0.05 * np.sign(0.9 * m + 0.1 * g)
        m = 0.99 * m + 0.01 * g
    np.testing.assert_allclose(_run(O.Lion(0.05, weight_decay=0.1)), w, rtol=1e-6)
    w, m, v = START.astype(np.float64), np.zeros(3), np.zeros(3)
    for t, g in enumerate(GRADS, 1):                                     # AdamW: decay, then Adam
        w = w - w * 0.004 * 0.01
        m = m + (g - m) * 0.1
        v = v + (g * g - v) * 0.001
        w = w - 0.01 * np.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t) * m / (np.sqrt(v) + 1e-7)
    np.testing.assert_allclose(_run(O.AdamW(0.01)), w, rtol=1e-5)


def test_defaults_names_and_get():
    keras.backend.clear_session()     # optimizer names count per process (adam, adam_1, ...) as in Keras
    adamw = O.AdamW()
    assert adamw.weight_decay == 0.004 and adamw.name == "adam_w"
    assert float(adamw.learning_rate) == pytest.approx(0.001)
    assert (O.Adamax().beta_2, O.Adadelta().rho, O.Lion().beta_2, O.Ftrl().initial_accumulator_value) == \
        (0.999, 0.95, 0.99, 0.1)
    for name, cls in (("adamw", O.AdamW), ("AdamW", O.AdamW), ("adamax", O.Adamax), ("Adadelta", O.Adadelta),
                      ("ftrl", O.Ftrl), ("lion", O.Lion)):
        assert isinstance(O.get(name), cls)


def test_argument_errors():
    with pytest.raises(ValueError, match="`weight_decay` must be a float"):
        O.AdamW(weight_decay=None)
    with pytest.raises(ValueError, match="`beta_1` must be in the"):
        O.Lion(beta_1=0.0)
    with pytest.raises(ValueError, match="`learning_rate_power` needs to be negative or zero"):
        O.Ftrl(learning_rate_power=0.5)
    with pytest.raises(ValueError, match="`l1_regularization_strength` needs to be positive or zero"):
        O.Ftrl(l1_regularization_strength=-1.0)
    with pytest.raises(ValueError, match="`decay_steps` must be > 0"):
        schedules.ExponentialDecay(0.1, 0, 0.5)
    with pytest.raises(ValueError, match="`first_decay_steps` must be > 0"):
        schedules.CosineDecayRestarts(0.1, 0)
    with pytest.raises(ValueError, match="length of boundaries should be 1 less"):
        schedules.PiecewiseConstantDecay([1, 2], [0.1, 0.2])


STEPS = [0, 1, 2, 3, 5, 8, 10, 13, 20, 40]
# The schedules' values at STEPS, printed by TF 2.21's Keras.
SCHEDULE_VALUES = [
    (lambda: schedules.ExponentialDecay(0.1, 3, 0.5),
     [0.1, 0.07937005, 0.06299605, 0.05, 0.03149803, 0.01574901, 0.00992126, 0.00496063, 0.00098431, 9.69e-06]),
    (lambda: schedules.ExponentialDecay(0.1, 3, 0.5, staircase=True),
     [0.1, 0.1, 0.1, 0.05, 0.05, 0.025, 0.0125, 0.00625, 0.0015625, 1.221e-05]),
    (lambda: schedules.PiecewiseConstantDecay([3, 8], [1.0, 0.5, 0.1]),
     [1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1, 0.1, 0.1]),
    (lambda: schedules.PolynomialDecay(0.1, 10),
     [0.1, 0.09001, 0.08002, 0.07003, 0.05005, 0.02008, 0.0001, 0.0001, 0.0001, 0.0001]),
    (lambda: schedules.PolynomialDecay(0.1, 6, 0.01, power=2.0, cycle=True),
     [0.1, 0.0725, 0.05, 0.0325, 0.0125, 0.02, 0.0125, 0.01694445, 0.0125, 0.01020408]),
    (lambda: schedules.InverseTimeDecay(0.1, 4, 0.5),
     [0.1, 0.08888889, 0.08, 0.07272727, 0.06153846, 0.05, 0.04444445, 0.03809524, 0.02857143, 0.01666667]),
    (lambda: schedules.InverseTimeDecay(0.1, 4, 0.5, staircase=True),
     [0.1, 0.1, 0.1, 0.1, 0.06666667, 0.05, 0.05, 0.04, 0.02857143, 0.01666667]),
    (lambda: schedules.CosineDecay(0.1, 10),
     [0.1, 0.09755283, 0.09045085, 0.07938927, 0.05, 0.00954915, 0.0, 0.0, 0.0, 0.0]),
    (lambda: schedules.CosineDecay(0.1, 10, alpha=0.2),
     [0.1, 0.09804226, 0.09236068, 0.08351141, 0.06, 0.02763932, 0.02, 0.02, 0.02, 0.02]),
    (lambda: schedules.CosineDecay(0.0, 10, warmup_target=0.1, warmup_steps=5),
     [0.0, 0.02, 0.04, 0.06, 0.1, 0.07938927, 0.05, 0.00954915, 0.0, 0.0]),
    (lambda: schedules.CosineDecayRestarts(0.1, 4),
     [0.1, 0.08535534, 0.05, 0.01464466, 0.09619398, 0.05, 0.01464466, 0.09903926, 0.05, 0.06913417]),
    (lambda: schedules.CosineDecayRestarts(0.1, 3, t_mul=1.0, m_mul=0.5, alpha=0.1),
     [0.1, 0.0775, 0.0325, 0.055, 0.02125, 0.015625, 0.0184375, 0.01421875, 0.01035156, 0.01000824]),
    (lambda: schedules.CosineDecayRestarts(0.1, 2, t_mul=3.0, m_mul=0.8),
     [0.1, 0.05, 0.08000001, 0.07464102, 0.04, 0.064, 0.06207017, 0.05256921, 0.016, 0.04316779]),
]


@pytest.mark.parametrize("make, expected", SCHEDULE_VALUES)
def test_schedules_match_keras(make, expected):
    schedule = make()
    values = [float(schedule(tf.constant(step, tf.int64))) for step in STEPS]
    np.testing.assert_allclose(values, expected, rtol=1e-5, atol=1e-8)
    traced = tf.function(schedule.__call__)
    np.testing.assert_allclose([float(traced(tf.constant(step, tf.int64))) for step in STEPS], expected,
                               rtol=1e-5, atol=1e-8)


def test_schedules_match_numpy_formulas():
    steps = np.array(STEPS, np.float64)
    exponential = schedules.ExponentialDecay(0.2, 4, 0.3)
    np.testing.assert_allclose([float(exponential(s)) for s in STEPS], 0.2 * 0.3 ** (steps / 4), rtol=1e-5)
    cosine = schedules.CosineDecay(0.2, 16, alpha=0.1)
    done = np.minimum(steps, 16) / 16
    np.testing.assert_allclose([float(cosine(s)) for s in STEPS],
                               0.2 * (0.9 * 0.5 * (1 + np.cos(np.pi * done)) + 0.1), rtol=1e-5)
    polynomial = schedules.PolynomialDecay(0.2, 10, 0.02, power=0.5)
    np.testing.assert_allclose([float(polynomial(s)) for s in STEPS],
                               0.18 * (1 - np.minimum(steps, 10) / 10) ** 0.5 + 0.02, rtol=1e-5, atol=1e-7)


def test_schedule_follows_iterations_and_is_not_settable():
    optimizer = O.SGD(learning_rate=schedules.InverseTimeDecay(0.1, 1, 0.5))
    _run(optimizer)
    # After 4 steps the next rate is 0.1 / (1 + 0.5 * 4), as TF 2.21's Keras reports.
    assert int(optimizer.iterations.numpy()) == 4
    assert float(optimizer.learning_rate) == pytest.approx(0.03333333507180214)
    with pytest.raises(TypeError, match="not settable"):
        optimizer.learning_rate = 0.5
    plain = O.SGD(learning_rate=lambda: 0.25)              # other callables are called without arguments
    np.testing.assert_allclose(_run(plain), START - 0.25 * np.sum(GRADS, axis=0), rtol=1e-6)


def test_schedule_inside_one_tf_function_uses_each_step():
    variable = tf.Variable([0.0])
    optimizer = O.SGD(learning_rate=schedules.PiecewiseConstantDecay([0, 1], [1.0, 0.1, 0.01]))

    @tf.function
    def train_step():
        optimizer.apply_gradients([(tf.constant([1.0]), variable)])

    for _ in range(4):
        train_step()
    np.testing.assert_allclose(variable.numpy(), [-(1.0 + 0.1 + 0.01 + 0.01)], rtol=1e-6)


@pytest.mark.parametrize("make", [lambda: O.AdamW(0.05), lambda: O.Adamax(0.05), lambda: O.Adadelta(1.0),
                                  lambda: O.Ftrl(0.5), lambda: O.Lion(0.01), "adamw", "lion",
                                  lambda: O.Adam(schedules.CosineDecay(0.05, 20, warmup_target=0.1,
                                                                       warmup_steps=4))])
def test_optimizers_train_a_model(make):
    rng = np.random.RandomState(0)
    x = rng.rand(64, 3).astype("float32")
    y = (x @ np.array([[1.0], [2.0], [-1.0]], "float32") + 0.5).astype("float32")
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    model.compile(optimizer=make if isinstance(make, str) else make(), loss="mse")
    history = model.fit(x, y, epochs=6, batch_size=16, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
    assert int(model.optimizer.iterations.numpy()) == 6 * 4
