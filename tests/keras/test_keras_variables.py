"""Keras 3 variables and layer calls: what TensorFlow 2.21 / Keras 3.15 gave for the same code (recorded by
running these snippets under TensorFlow): variable names and paths, which variables a layer tracks, the
positional-argument rule, the error context of a failing call, the symbolic build run, base configs."""
import numpy as np
import pytest

import tensorflux as tf

keras = tf.keras


def test_paths_follow_keras_name_scopes():
    keras.backend.clear_session()
    stack = keras.Sequential([keras.layers.Dense(2)])
    stack(tf.ones((1, 3)))
    assert [w.path for w in stack.weights] == ["sequential/dense/kernel", "sequential/dense/bias"]
    assert [w.name for w in stack.weights] == ["kernel", "bias"]

    class M(keras.Model):
        def __init__(self):
            super().__init__()
            self.d = keras.layers.Dense(2)

        def call(self, x):
            return self.d(x)

    model = M()
    model(tf.ones((1, 3)))
    assert [w.path for w in model.weights] == ["m/dense_1/kernel", "m/dense_1/bias"]

    inputs = keras.Input((3,))
    functional = keras.Model(inputs, keras.layers.Dense(2)(inputs))
    assert [w.path for w in functional.weights] == ["dense_2/kernel", "dense_2/bias"]


def test_keras_variable_alone_and_as_attribute():
    keras.backend.clear_session()
    v = keras.Variable(np.ones(2, np.float32), name="abc")
    assert (v.name, v.path) == ("abc", "abc")
    assert repr(keras.Variable(3)) == "<Variable path=variable, shape=(), dtype=int32, value=3>"
    with pytest.raises(ValueError, match="cannot contain character `/`"):
        keras.Variable(1.0, name="a/b")

    class N(keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.v = keras.Variable(1.0, name="x")
            self.plain = tf.Variable(2.0)       # not a Keras weight
            self.d = keras.layers.Dense(1)

        def call(self, x):
            return self.d(x) * self.v * self.plain

    n = N()
    n(tf.ones((1, 2)))
    assert [(w.name, w.path) for w in n.weights] == [("x", "x"), ("kernel", "n/dense/kernel"),
                                                     ("bias", "n/dense/bias")]


def test_unnamed_weights_and_tape():
    keras.backend.clear_session()

    class L(keras.layers.Layer):
        def build(self, shape):
            self.w = self.add_weight(shape=(3,), name="w")
            self.u = self.add_weight(shape=(3,))

        def call(self, x):
            return x * self.w

    layer = L()
    with tf.GradientTape() as tape:
        y = layer(tf.ones((1, 3)))
    assert [(w.name, w.path) for w in layer.weights] == [("w", "l/w"), ("variable", "l/variable")]
    assert tape.gradient(y, layer.w).numpy().tolist() == [1.0, 1.0, 1.0]
    assert len(tape.watched_variables()) == 1


def test_frozen_layer_freezes_its_new_weights():
    dense = keras.layers.Dense(1, trainable=False)
    dense(tf.ones((1, 2)))
    assert [w.trainable for w in dense.weights] == [False, False]
    dense.trainable = True
    assert [w.trainable for w in dense.weights] == [True, True]


def test_only_tensors_positionally():
    dense = keras.layers.Dense(2)
    with pytest.raises(ValueError) as info:
        dense([[2.0, 2.0]])
    assert str(info.value) == ("Only input tensors may be passed as positional arguments. The following argument "
                               "value should be passed as a keyword argument: 2.0 (of type <class 'float'>)")
    assert dense(np.ones((1, 2))).shape == (1, 2)        # arrays are converted
    assert keras.layers.Rescaling(2.0)(3.0).numpy() == 6.0   # a data layer takes Python values


def test_failing_call_names_the_layer_and_its_arguments():
    class FlexibleDense(keras.layers.Layer):
        def build(self, input_shape):
            self.w = tf.Variable(tf.ones([input_shape[-1], 3]))

        def call(self, inputs, training=None, flag=3):
            return tf.matmul(inputs, self.w)

    layer = FlexibleDense()
    layer(tf.ones((2, 3)))
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        layer(tf.ones((1, 4)), training=True, flag="x")
    message = str(info.value)
    assert message.startswith("Exception encountered when calling FlexibleDense.call().\n\n\x1b[1m")
    assert message.endswith("\x1b[0m\n\nArguments received by FlexibleDense.call():\n"
                            "  • inputs=tf.Tensor(shape=(1, 4), dtype=float32)\n  • training=True\n  • flag='x'")

    class Bad(keras.layers.Layer):
        def call(self, x, y):
            raise KeyError("boom")

    with pytest.raises(KeyError) as info:
        Bad()(tf.ones((2, 2)), [tf.ones(1), None])
    assert info.value.args[0] == (
        "Exception encountered when calling Bad.call().\n\n\x1b[1mboom\x1b[0m\n\nArguments received by "
        "Bad.call():\n  • x=tf.Tensor(shape=(2, 2), dtype=float32)\n  • y=['tf.Tensor(shape=(1,), "
        "dtype=float32)', 'None']")


def test_symbolic_build_run_before_the_first_eager_call():
    events = []

    class Plain(keras.layers.Layer):        # builds a plain tf.Variable: the symbolic run stops there
        def build(self, shape):
            events.append(("build", tf.executing_eagerly()))
            self.w = tf.Variable(tf.ones([shape[-1], 2]))

        def call(self, x):
            return tf.matmul(x, self.w)

    class Outer(keras.Model):
        def __init__(self):
            super().__init__()
            self.a = Plain()
            self.b = keras.layers.Dense(2)

        def call(self, x):
            events.append(("call", tf.executing_eagerly()))
            return self.b(self.a(x))

    Outer()(tf.ones((1, 3)))
    # Keras 3.15: call and build run symbolically first, then again eagerly.
    assert events == [("call", False), ("build", False), ("call", True), ("build", True)]


def test_base_and_automatic_configs():
    class WithConfig(keras.layers.Layer):
        def __init__(self, units=32, **kwargs):
            super().__init__(**kwargs)
            self.units = units

        def get_config(self):
            config = super().get_config()
            config.update({"units": self.units})
            return config

    class Automatic(keras.layers.Layer):
        def __init__(self, units=32, **kw):
            super().__init__(**kw)
            self.units = units

    policy = {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"}, "registered_name": None}
    layer = WithConfig(64, name="base_config_linear")
    assert layer.get_config() == {"name": "base_config_linear", "trainable": True, "dtype": policy, "units": 64}
    copy = WithConfig.from_config(layer.get_config())
    assert (copy.units, copy.name, copy.trainable) == (64, "base_config_linear", True)
    config = Automatic(5).get_config()
    assert list(config) == ["units", "trainable", "dtype"] and config["units"] == 5
