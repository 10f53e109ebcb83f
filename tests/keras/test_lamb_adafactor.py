"""keras.optimizers.Lamb and Adafactor against Keras 3.15 (fixtures/keras315_lamb_adafactor.json): the
variables after each of five apply_gradients steps on a [3, 4], a [4] and a zero [2, 3] variable (the zero
one exercises Lamb's trust ratio of 1 and Adafactor's epsilon_2 floor), and get_config(); then slots, names
and a traced training loop."""
import json
import pathlib

import numpy as np
import pytest

import tensorflux as tf

RECORDED = json.loads((pathlib.Path(__file__).parent / "fixtures" / "keras315_lamb_adafactor.json").read_text())
MAKE = {"lamb": lambda: tf.keras.optimizers.Lamb(0.01),
        "lamb_b": lambda: tf.keras.optimizers.Lamb(0.05, beta_1=0.8, beta_2=0.9, epsilon=1e-4),
        "adafactor": lambda: tf.keras.optimizers.Adafactor(0.01),
        "adafactor_abs": lambda: tf.keras.optimizers.Adafactor(0.05, relative_step=False, clip_threshold=0.5,
                                                               beta_2_decay=-0.5)}


@pytest.mark.parametrize("name", sorted(MAKE))
def test_steps_as_keras(name):
    variables = [tf.keras.Variable(np.linspace(-1, 1, 12).reshape(3, 4).astype("float32")),
                 tf.keras.Variable(np.linspace(0.5, -0.5, 4).astype("float32")),
                 tf.keras.Variable(np.zeros((2, 3), "float32"))]
    optimizer = MAKE[name]()
    for t, recorded in enumerate(RECORDED[name]["steps"]):
        grads = [np.cos(np.arange(12) * (t + 1)).reshape(3, 4).astype("float32"),
                 np.sin(np.arange(4) * (t + 2)).astype("float32"),
                 np.sin(np.arange(6) * (t + 1)).reshape(2, 3).astype("float32")]
        optimizer.apply_gradients(zip(grads, variables))
        for variable, want in zip(variables, recorded):
            np.testing.assert_allclose(variable.numpy(), want, rtol=2e-6, atol=2e-7)
    config = optimizer.get_config()
    want = RECORDED[name]["config"]
    assert list(config) == list(want)
    assert {k: v for k, v in config.items() if k != "name"} == {k: v for k, v in want.items() if k != "name"}
    assert type(optimizer).from_config(config).get_config() == config


def test_slots_and_training():
    kernel = tf.keras.Variable(np.ones((3, 4), "float32"))
    bias = tf.keras.Variable(np.ones(4, "float32"))
    optimizer = tf.keras.optimizers.Adafactor()
    optimizer.build([kernel, bias])
    shapes = [tuple(v.shape) for v in optimizer.variables]
    assert shapes == [(), (), (3,), (4,), (3, 4), (), (), (4,)]     # iteration, lr; r, c, v per variable
    assert tf.keras.optimizers.get("adafactor").__class__ is tf.keras.optimizers.Adafactor
    with pytest.raises(ValueError, match="Could not interpret optimizer identifier: lamb"):
        tf.keras.optimizers.get("lamb")     # as Keras 3.15: Lamb is not in its table of names
    rng = np.random.default_rng(0)
    x = rng.standard_normal((32, 4)).astype("float32")
    y = x @ rng.standard_normal((4, 1)).astype("float32")
    for optimizer in (tf.keras.optimizers.Lamb(0.05), tf.keras.optimizers.Adafactor(0.05)):
        model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(8, activation="relu"),
                                     tf.keras.layers.Dense(1)])
        model.compile(optimizer=optimizer, loss="mse")
        losses = model.fit(x, y, epochs=8, batch_size=8, verbose=0).history["loss"]
        assert losses[-1] < losses[0]
