"""Stale-capture warnings: a Python value a trace read as a constant, changed later, is named once per
function and name (TensorFlow's semantics kept: the traced value is still used); code that is fine never
warns."""
import warnings

import numpy as np
import pytest

import tensorflux as tf

RATE = 2.0
TABLE = [1.0, 2.0]


def caught(fn, *args):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        out = fn(*args)
    return out, [str(w.message) for w in seen if issubclass(w.category, UserWarning)]


def test_a_changed_global_warns_once_with_the_name_values_line_and_remedies():
    global RATE

    @tf.function
    def scale(x):
        return x * RATE

    x = tf.constant(1.0)
    assert caught(scale, x)[1] == []
    RATE = 5.0
    try:
        out, messages = caught(scale, x)
        assert float(out) == 2.0                       # the traced value is still used, as in TensorFlow
        (message,) = messages
        assert "global 'RATE'" in message and "it was 2.0 then and is 5.0 now" in message
        assert f"test_stale_capture.py:{scale.python_function.__code__.co_firstlineno + 2}" in message
        assert "as an argument" in message and "tf.Variable" in message
        assert caught(scale, x)[1] == []               # once per function and name
    finally:
        RATE = 2.0


def test_closure_variables_and_self_attributes():
    factor = 3.0

    @tf.function
    def closure(x):
        return x * factor

    closure(tf.constant(1.0))
    factor = 4.0
    assert any("closure variable 'factor'" in m for m in caught(closure, tf.constant(1.0))[1])

    class Scaler(tf.Module):
        def __init__(self):
            super().__init__()
            self.gain = 1.5

        @tf.function
        def __call__(self, x):
            return x * self.gain

    scaler = Scaler()
    scaler(tf.constant(1.0))
    scaler.gain = 2.5
    out, messages = caught(scaler, tf.constant(1.0))
    assert float(out) == 1.5 and any("attribute self.gain" in m for m in messages)


def test_code_that_is_fine_never_warns():
    global RATE

    @tf.function
    def fine(x):
        return x * RATE + TABLE[0] + np.float32(1.0)

    x = tf.constant(1.0)
    fine(x)
    TABLE.append(3.0)           # mutated in place: same object
    RATE = 2.0                  # rebound to an equal value
    try:
        assert caught(fine, x)[1] == []
    finally:
        TABLE.pop()

    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    data = np.ones((8, 2), np.float32), np.ones((8, 1), np.float32)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        model.fit(*data, epochs=2, verbose=0)
        model.trainable = False
        model.evaluate(*data, verbose=0)
    assert not [w for w in seen if "read the" in str(w.message)]


def test_the_warnings_can_be_switched_off():
    global RATE

    @tf.function
    def scale(x):
        return x * RATE

    scale(tf.constant(1.0))
    tf.debugging.disable_stale_capture_warnings()
    RATE = 7.0
    try:
        assert caught(scale, tf.constant(1.0))[1] == []
    finally:
        RATE = 2.0
        tf.debugging.enable_stale_capture_warnings()
