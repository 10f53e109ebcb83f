"""`get_config()` of the built-in optimizers, losses, metrics, initializers, regularizers and constraints made
with their defaults, key order and values, against Keras 3.15 (fixtures/keras315_object_configs.json);
optimizers from their configs (a learning rate schedule revived); VarianceScaling's input_axes/output_axes;
a Loss subclass's default name."""
import json
import pathlib

import numpy as np
import pytest

import tensorflux as tf
from tensorflux._src.keras.initializers import compute_fans

RECORDED = json.loads((pathlib.Path(__file__).parent / "fixtures" /
                       "keras315_object_configs.json").read_text())


@pytest.mark.parametrize("key", sorted(RECORDED))
def test_get_config_is_keras(key):
    family, name = key.split(".")
    config = getattr(getattr(tf.keras, family), name)().get_config()
    assert list(config) == RECORDED[key]["keys"]
    values = {k: v for k, v in json.loads(json.dumps(config)).items() if k != "name"}   # names count per process
    assert values == {k: v for k, v in RECORDED[key]["values"].items() if k != "name"}


@pytest.mark.parametrize("name", sorted({k.split(".")[1] for k in RECORDED if k.startswith("optimizers.")}))
def test_optimizer_from_its_config(name):
    cls = getattr(tf.keras.optimizers, name)
    schedule = tf.keras.optimizers.schedules.ExponentialDecay(0.1, 10, 0.5)
    optimizer = cls(schedule, clipnorm=1.0)
    config = json.loads(json.dumps(optimizer.get_config()))     # as a file holds it
    assert config["learning_rate"]["class_name"] == "ExponentialDecay"
    again = cls.from_config(config)
    assert again.get_config() == optimizer.get_config()
    plain = cls(0.25)
    plain.learning_rate = 0.125     # the current value is what a config holds
    assert plain.get_config()["learning_rate"] == 0.125
    assert cls.from_config(plain.get_config()).get_config() == plain.get_config()


def test_variance_scaling_axes():
    init = tf.keras.initializers.VarianceScaling(scale=1.0, mode="fan_in", distribution="uniform", seed=3,
                                                 input_axes=[0, 1], output_axes=[2])
    values = init((3, 4, 5)).numpy()
    limit = np.sqrt(3.0 / 12)            # fan_in: the product of axes 0 and 1
    assert np.abs(values).max() <= limit and np.abs(values).max() > 0.9 * limit
    assert compute_fans((2, 3, 4, 5), [0, 2], [3]) == (8, 5)     # Keras 3.15's numbers
    assert compute_fans((3, 4, 5), [0], None) == (12, 15)         # both axes lists or neither
    again = tf.keras.initializers.VarianceScaling.from_config(init.get_config())
    np.testing.assert_array_equal(again((3, 4, 5)).numpy(), values)


def test_a_loss_subclass_is_named_as_keras_names_it():
    class MyHuberish(tf.keras.losses.Loss):
        def call(self, y_true, y_pred):
            return tf.abs(y_true - y_pred)
    assert MyHuberish().name == "my_huberish" and tf.keras.losses.Loss().name == "loss"


def test_optimizers_are_named_uniquely_as_keras_names_them():
    tf.keras.backend.clear_session()       # names count from here, as in a fresh process
    assert [tf.keras.optimizers.Lion().name for _ in range(2)] == ["lion", "lion_1"]
    assert tf.keras.optimizers.Lion(name="mine").name == "mine"
