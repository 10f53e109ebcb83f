"""Layer.add_loss / Layer.losses / activity regularisers, and the losses fit adds to the training loss,
as Keras 3 behaves (checked against TF 2.21 / Keras 3.15)."""
import numpy as np
import pytest

import tensorflux as tf

keras = tf.keras


class SumPenalty(keras.layers.Layer):
    def call(self, x):
        self.add_loss(tf.reduce_sum(x))
        return x


class Outer(keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.inner = SumPenalty()

    def call(self, x):
        return self.inner(x)


def _values(losses):
    return [float(v) for v in losses]


def test_losses_are_collected_from_sublayers_and_reset_by_each_outer_call():
    outer = Outer()
    assert outer.losses == []
    outer(np.ones((2, 2), "float32"))
    assert _values(outer.losses) == [4.0] and _values(outer.inner.losses) == [4.0]
    outer(np.ones((1, 2), "float32"))
    assert _values(outer.losses) == [2.0]


def test_add_loss_outside_call_and_invalid_values():
    layer = SumPenalty()
    layer.add_loss(tf.constant(3.0))
    assert _values(layer.losses) == [3.0]
    layer(np.ones((1, 1), "float32"))
    assert _values(layer.losses) == [1.0]
    with pytest.raises(ValueError, match="on a tensor input. Received invalid value: 5.0"):
        layer.add_loss(5.0)


def test_activity_regulariser_is_averaged_over_the_batch_and_listed_before_weight_penalties():
    dense = keras.layers.Dense(2, activity_regularizer=keras.regularizers.L2(0.1), kernel_initializer="ones",
                               kernel_regularizer=keras.regularizers.L2(0.01))
    assert dense.losses == []
    dense(np.ones((2, 3), "float32"))          # outputs are all 3: 0.1 * 4 * 9 / batch 2
    np.testing.assert_allclose(_values(dense.losses), [1.8, 0.06], rtol=1e-6)


def test_symbolic_calls_leave_no_losses_and_models_collect_their_layers_losses():
    inputs = keras.Input((2,))
    model = keras.Model(inputs, SumPenalty()(inputs))
    assert model.losses == []
    model(np.ones((1, 2), "float32"))
    assert _values(model.losses) == [2.0]


def test_fit_adds_layer_losses_and_needs_no_compiled_loss_then():
    inputs = keras.Input((3,))
    model = keras.Model(inputs, SumPenalty()(keras.layers.Dense(1, kernel_initializer="ones")(inputs)))
    model.compile(optimizer=keras.optimizers.SGD(0.0))
    data = np.full((4, 3), 0.5, "float32")
    logs = model.evaluate(data, verbose=0, return_dict=True)
    assert logs["loss"] == pytest.approx(6.0)    # four outputs of 1.5, summed
    model.compile(optimizer="sgd", loss="mse")
    model.compile(optimizer="sgd")               # as Keras 3.15: compiling without a loss keeps the last one
    logs = model.evaluate(data, np.zeros((4, 1), "float32"), verbose=0, return_dict=True)
    assert logs["loss"] == pytest.approx(2.25 + 6.0)


def test_non_scalar_losses_are_summed_by_fit():
    class Raw(keras.layers.Layer):
        def call(self, x):
            self.add_loss(x)
            return x

    inputs = keras.Input((2,))
    model = keras.Model(inputs, Raw()(inputs))
    model.compile("sgd")
    assert model.evaluate(np.ones((2, 2), "float32"), verbose=0) == pytest.approx(4.0)


def test_model_losses_inside_a_custom_tf_function_step():
    inputs = keras.Input((2,))
    model = keras.Model(inputs, SumPenalty()(keras.layers.Dense(2)(inputs)))

    @tf.function
    def step(x):
        out = model(x)
        return tf.reduce_sum(out) + tf.add_n(model.losses)

    x = np.ones((3, 2), "float32")
    assert float(step(x)) == pytest.approx(2 * float(tf.reduce_sum(model(x))), rel=1e-5)
