"""Fidelity tests adapted from TensorFlow's guide "Basic training loops"
(tensorflow/docs, site/en/guide/basic_training_loops.ipynb).

Each test replays, in its own words, one runnable example of the guide (with the setup of the earlier
cells it builds on) under tensorflux and compares what it prints with what TensorFlow 2.21 (Keras 3.15)
printed for the same code. A notebook cell whose last line displays a value is adapted to
`print(repr(value))`.

Adaptations and omissions:
- The guide's noise comes from `tf.random.normal`; here it is a fixed Gaussian sample drawn with NumPy
  (`np.random.default_rng(1234)`, identical under both runs), so that the printed losses and weights
  check the training, not TensorFlow's random stream (covered by test_fidelity_guide_random_numbers.py).
- The matplotlib cells (data, predictions, weight history) are left out as plots; the values they
  print ("Current loss: ...") and the recorded weight/bias history are kept.
- `save_weights("my_checkpoint")` runs in pytest's tmp_path (Keras 3 refuses the name: tested).
- `loss=tf.keras.losses.mean_squared_error` raises AttributeError in TF 2.21 (tested); the fit example
  uses `tf.keras.losses.MeanSquaredError()` instead.
"""
import os
import sys
import warnings

import numpy as np
import pytest

import tensorflux as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _fidelity_guide_grads_modules_rng import expect  # noqa: E402

SLOPE = 3.0
INTERCEPT = 2.0
COUNT = 201


def line(inputs):
    return inputs * SLOPE + INTERCEPT


def _data():
    inputs = tf.cast(tf.linspace(-2, 2, COUNT), tf.float32)
    noise = tf.constant(np.random.default_rng(1234).normal(size=COUNT).astype(np.float32))
    return inputs, line(inputs) + noise


class LinearModule(tf.Module):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.w = tf.Variable(5.0)  # fixed start values, as in the guide
        self.b = tf.Variable(0.0)

    def __call__(self, inputs):
        return self.w * inputs + self.b


class LinearKerasModel(tf.keras.Model):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.w = tf.Variable(5.0)
        self.b = tf.Variable(0.0)

    def call(self, inputs):
        return self.w * inputs + self.b


def mse(target, predicted):
    return tf.reduce_mean(tf.square(target - predicted))


def step(model, inputs, targets, learning_rate):
    with tf.GradientTape() as g:
        current = mse(targets, model(inputs))
    d_w, d_b = g.gradient(current, [model.w, model.b])
    model.w.assign_sub(learning_rate * d_w)
    model.b.assign_sub(learning_rate * d_b)


def summary_line(model, current):
    return f"W = {model.w.numpy():1.2f}, b = {model.b.numpy():1.2f}, loss={current:2.5f}"


def fit_by_hand(model, inputs, targets, slopes, intercepts, epochs=range(10)):
    for epoch in epochs:
        step(model, inputs, targets, learning_rate=0.1)
        slopes.append(model.w.numpy())
        intercepts.append(model.b.numpy())
        current = mse(targets, model(inputs))
        print(f"Epoch {epoch:2d}:")
        print("    ", summary_line(model, current))


def test_data_shapes(capsys):
    inputs, targets = _data()
    print(inputs.shape, inputs.dtype, targets.shape, targets.dtype)
    print(inputs[:3].numpy(), inputs[-3:].numpy())
    expect(capsys, """
(201,) <dtype: 'float32'> (201,) <dtype: 'float32'>
[-2.   -1.98 -1.96] [1.96 1.98 2.  ]
""")


def test_module_variables(capsys):
    model = LinearModule()
    print("Variables:", model.variables)
    assert model(3.0).numpy() == 15.0
    expect(capsys, """
Variables: (<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=0.0>, <tf.Variable 'Variable:0' shape=() dtype=float32, numpy=5.0>)
""")


def test_loss_before_training(capsys):
    inputs, targets = _data()
    model = LinearModule()
    print("Current loss: %1.6f" % mse(targets, model(inputs)).numpy())
    expect(capsys, """
Current loss: 10.899422
""")


def test_hand_written_training_loop(capsys):
    inputs, targets = _data()
    model = LinearModule()
    slopes, intercepts = [], []
    print("Starting:")
    print("    ", summary_line(model, mse(targets, model(inputs))))
    fit_by_hand(model, inputs, targets, slopes, intercepts)
    print(repr(slopes[:2]), len(slopes), len(intercepts))
    print("Current loss: %1.6f" % mse(model(inputs), targets).numpy())
    expect(capsys, """
Starting:
     W = 5.00, b = 0.00, loss=10.89942
Epoch  0:
     W = 4.46, b = 0.42, loss=6.82803
Epoch  1:
     W = 4.07, b = 0.76, loss=4.48554
Epoch  2:
     W = 3.79, b = 1.03, loss=3.12686
Epoch  3:
     W = 3.58, b = 1.24, loss=2.33232
Epoch  4:
     W = 3.43, b = 1.41, loss=1.86386
Epoch  5:
     W = 3.31, b = 1.55, loss=1.58543
Epoch  6:
     W = 3.23, b = 1.66, loss=1.41865
Epoch  7:
     W = 3.17, b = 1.75, loss=1.31800
Epoch  8:
     W = 3.13, b = 1.82, loss=1.25684
Epoch  9:
     W = 3.10, b = 1.88, loss=1.21943
[np.float32(4.464653), np.float32(4.073493)] 10 10
Current loss: 1.219435
""")


def test_same_loop_with_keras_model(capsys):
    inputs, targets = _data()
    model = LinearKerasModel()
    fit_by_hand(model, inputs, targets, [], [])
    expect(capsys, """
Epoch  0:
     W = 4.46, b = 0.42, loss=6.82803
Epoch  1:
     W = 4.07, b = 0.76, loss=4.48554
Epoch  2:
     W = 3.79, b = 1.03, loss=3.12686
Epoch  3:
     W = 3.58, b = 1.24, loss=2.33232
Epoch  4:
     W = 3.43, b = 1.41, loss=1.86386
Epoch  5:
     W = 3.31, b = 1.55, loss=1.58543
Epoch  6:
     W = 3.23, b = 1.66, loss=1.41865
Epoch  7:
     W = 3.17, b = 1.75, loss=1.31800
Epoch  8:
     W = 3.13, b = 1.82, loss=1.25684
Epoch  9:
     W = 3.10, b = 1.88, loss=1.21943
""")


def test_keras_save_weights_needs_weights_h5_suffix(tmp_path):
    inputs, targets = _data()
    model = LinearKerasModel()
    model(inputs)
    with pytest.raises(ValueError) as info:
        model.save_weights(str(tmp_path / "my_checkpoint"))
    assert "The filename must end in `.weights.h5`." in str(info.value)


def test_keras_losses_lacks_mean_squared_error_function():
    # The guide compiles with `loss=tf.keras.losses.mean_squared_error`; TF 2.21's tf.keras.losses
    # exports only the class MeanSquaredError, so that line raises.
    with pytest.raises(AttributeError) as info:
        tf.keras.losses.mean_squared_error
    assert str(info.value).endswith("has no attribute 'mean_squared_error'")


def test_keras_compile_and_fit(capsys):
    inputs, targets = _data()
    model = LinearKerasModel()
    model.compile(
        run_eagerly=False,  # fit() traces its train step with tf.function
        optimizer=tf.keras.optimizers.SGD(learning_rate=0.1),
        loss=tf.keras.losses.MeanSquaredError(),  # see the test above
    )
    print(inputs.shape[0])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        history = model.fit(inputs, targets, epochs=10, batch_size=1000)
    print(type(history).__name__)
    # Keras 3 does not track plain tf.Variable attributes: the model has no trainable weights.
    print(model.w.numpy(), model.b.numpy())
    print([str(w.message) for w in caught if issubclass(w.category, UserWarning)])
    expect(capsys, """
201
Epoch 1/10
1/1 ━━━━━━━━━━━━━━━━━━━━ 0s 213ms/step - loss: 10.8994
Epoch 2/10
1/1 ━━━━━━━━━━━━━━━━━━━━ 0s 60ms/step - loss: 10.8994
Epoch 3/10
1/1 ━━━━━━━━━━━━━━━━━━━━ 0s 35ms/step - loss: 10.8994
Epoch 4/10
1/1 ━━━━━━━━━━━━━━━━━━━━ 0s 65ms/step - loss: 10.8994
Epoch 5/10
1/1 ━━━━━━━━━━━━━━━━━━━━ 0s 53ms/step - loss: 10.8994
Epoch 6/10
1/1 ━━━━━━━━━━━━━━━━━━━━ 0s 42ms/step - loss: 10.8994
Epoch 7/10
1/1 ━━━━━━━━━━━━━━━━━━━━ 0s 130ms/step - loss: 10.8994
Epoch 8/10
1/1 ━━━━━━━━━━━━━━━━━━━━ 0s 90ms/step - loss: 10.8994
Epoch 9/10
1/1 ━━━━━━━━━━━━━━━━━━━━ 0s 91ms/step - loss: 10.8994
Epoch 10/10
1/1 ━━━━━━━━━━━━━━━━━━━━ 0s 153ms/step - loss: 10.8994
History
5.0 0.0
['The model does not have any trainable weights.']
""", terminal=True)
