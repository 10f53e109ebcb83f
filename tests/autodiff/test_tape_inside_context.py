"""`GradientTape.gradient` called inside the tape's own `with` block, as TensorFlow 2.21 behaves:
a persistent tape warns (on the "tensorflow" logger, once per calling line of code, as TensorFlow's
`log_first_n` does) and records the gradient's ops,
so the gradient can be differentiated again; a non-persistent tape stops recording for good.
Expected values recorded from TensorFlow 2.21 (x = 3, y = x³: dy/dx = 27, d²y/dx² = 18)."""
import logging

import numpy as np
import pytest

import tensorflux as tf
from tensorflux._src.autodiff.tape import active_tapes

WARNING = ("Calling GradientTape.gradient on a persistent tape inside its context is significantly less efficient "
           "than calling it outside the context (it causes the gradient ops to be recorded on the tape, leading to "
           "increased CPU and memory usage). Only call GradientTape.gradient inside the context if you actually "
           "want to trace the gradient in order to compute higher order derivatives.")


def _warnings(caplog):
    return [r for r in caplog.records if r.name == "tensorflow" and r.levelno == logging.WARNING]


def test_persistent_tape_gradient_inside_context_is_recorded(caplog):
    x = tf.Variable(3.0)
    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        with tf.GradientTape(persistent=True) as tape:
            y = x * x * x
            g = tape.gradient(y, x)
            again = tape.gradient(y, x)
            gg_inside = tape.gradient(g, x)
        gg_outside = tape.gradient(g, x)
    assert float(g) == 27.0 and float(again) == 27.0
    assert float(gg_inside) == 18.0 and float(gg_outside) == 18.0
    texts = [r.getMessage() for r in _warnings(caplog)]
    assert texts == [WARNING] * 3       # one per calling line inside the block, none outside


def test_the_warning_comes_once_per_calling_line(caplog):
    x = tf.Variable(2.0)
    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        with tf.GradientTape(persistent=True) as tape:
            y = x * x
            grads = [tape.gradient(y, x) for _ in range(3)]
    assert [float(g) for g in grads] == [4.0, 4.0, 4.0]
    assert len(_warnings(caplog)) == 1


def test_persistent_tape_gradient_outside_context_does_not_warn(caplog):
    x = tf.Variable(3.0)
    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        with tf.GradientTape(persistent=True) as tape:
            y = x * x * x
        g = tape.gradient(y, x)
        assert tape.gradient(g, x) is None      # the first gradient was not recorded
    assert float(g) == 27.0
    assert _warnings(caplog) == []


def test_non_persistent_tape_stops_recording_when_differentiating_inside(caplog):
    x = tf.Variable(3.0)
    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        with tf.GradientTape() as tape:
            y = x * x
            g = tape.gradient(y, x)
            assert tape not in active_tapes()
            later = g * x
    assert float(g) == 6.0 and float(later) == 18.0
    assert _warnings(caplog) == []
    assert tape.watched_variables() == (x,)
    with pytest.raises(RuntimeError, match="non-persistent GradientTape can only be used to compute one set"):
        tape.gradient(y, x)


def test_persistent_tape_gradient_inside_context_in_a_function(caplog):
    x = tf.Variable([1.0, 2.0])

    @tf.function
    def second_derivative():
        with tf.GradientTape(persistent=True) as tape:
            y = tf.reduce_sum(tf.sin(x) * x)
            g = tape.gradient(y, x)          # cos(x)·x + sin(x)
            gg = tape.gradient(g, x)         # 2cos(x) - x·sin(x)
        return g, gg
    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        g, gg = second_derivative()
    v = np.array([1.0, 2.0], np.float32)
    np.testing.assert_allclose(g.numpy(), np.cos(v) * v + np.sin(v), rtol=1e-6)
    np.testing.assert_allclose(gg.numpy(), 2 * np.cos(v) - v * np.sin(v), rtol=1e-5)
    # TensorFlow 2.21 warns once here: both calls reach `gradient` from the same line of AutoGraph's
    # converted call.
    assert [r.getMessage() for r in _warnings(caplog)] == [WARNING]
