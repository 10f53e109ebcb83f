"""Saves killed at random points leave the previous save whole: a forked child saves a SavedModel and a
`.keras` file over and over (each save holding one number k everywhere: in its variables, in a constant
of its traced graph, in every Keras weight); the parent SIGKILLs it after a random delay, 30 times, and
after each kill both files must load and hold one k throughout — never a mix of two saves."""
import os
import random
import signal
import time

import numpy as np
import pytest

import tensorflux as tf

KILLS = 30
pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")


def _module(k):
    module = tf.Module()
    module.v = tf.Variable(np.full(64, k, np.float32))
    module.w = tf.Variable(np.full(64, k, np.float32))
    constant = tf.constant(np.float32(k))
    module.f = tf.function(lambda: module.v + module.w + constant, input_signature=[])
    return module


def _keras_model():
    model = tf.keras.Sequential([tf.keras.Input((8,)), tf.keras.layers.Dense(16), tf.keras.layers.Dense(4)])
    return model


def _set_all(model, k):
    model.set_weights([np.full(w.shape, k, np.float32) for w in model.get_weights()])


def _save_forever(sm_path, keras_path, model, start):
    k = start
    while True:
        k += 1
        tf.saved_model.save(_module(k), sm_path)
        _set_all(model, k)
        model.save(keras_path)


def _check(sm_path, keras_path):
    """The k of each save on disk (each must be whole and unmixed)."""
    loaded = tf.saved_model.load(sm_path)
    v, w = loaded.v.numpy(), loaded.w.numpy()
    k = v[0]
    assert (v == k).all() and (w == k).all()
    np.testing.assert_array_equal(loaded.f().numpy(), np.full(64, 3 * k, np.float32))
    weights = tf.keras.models.load_model(keras_path).get_weights()
    j = weights[0].flat[0]
    assert all((x == j).all() for x in weights)
    return int(k), int(j)


def test_killed_saves_leave_the_previous_save_whole(tmp_path):
    sm_path, keras_path = str(tmp_path / "sm"), str(tmp_path / "m.keras")
    model = _keras_model()
    tf.saved_model.save(_module(0), sm_path)
    _set_all(model, 0)
    model.save(keras_path)
    rng = random.Random(12)
    seen, survived = set(), 0
    for _ in range(KILLS):
        start = max(_check(sm_path, keras_path))
        pid = os.fork()
        if pid == 0:  # the child saves until it is killed; it never returns into pytest
            try:
                _save_forever(sm_path, keras_path, model, start)
            finally:
                os._exit(1)
        time.sleep(rng.uniform(0.0, 0.25))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        seen.update(_check(sm_path, keras_path))
        survived += 1
    assert survived == KILLS
    assert len(seen) > KILLS // 3        # the kills landed after many different saves, not all before the first
