"""GradientTapes belong to the thread that opened them: each thread's tape records only that thread's
operations, so concurrent tapes (eager and inside tf.function) give each thread its own gradients."""
import threading

import numpy as np

import tensorflux as tf

from ._threads import THREADS, run_together


def test_concurrent_eager_tapes_give_each_thread_its_gradient():
    shared = tf.Variable(2.0)

    def work(i):
        x = tf.constant(float(i + 1))
        wrong = 0
        for _ in range(300):
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = x * x * shared   # d/dx = 2 x shared, d/dshared = x^2
            dx, dv = tape.gradient(y, [x, shared])
            wrong += dx.numpy() != 4.0 * (i + 1) or dv.numpy() != (i + 1) ** 2
        return wrong

    assert run_together(work, switch_interval=1e-5) == [0] * THREADS


def test_concurrent_traced_training_steps_on_separate_variables():
    variables = [tf.Variable(np.zeros(2, np.float32)) for _ in range(THREADS)]
    target = tf.constant([1.0, -1.0])

    @tf.function
    def step(v):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(v - target))
        v.assign_sub(0.25 * tape.gradient(loss, v))   # halves the distance to target each step

    def work(i):
        for _ in range(60):
            step(variables[i])

    run_together(work)
    for v in variables:
        np.testing.assert_allclose(v.numpy(), [1.0, -1.0], atol=1e-6)


def test_a_tape_does_not_record_other_threads_operations():
    x, v = tf.constant(3.0), tf.Variable(1.0)
    results = {}

    def other_thread():
        results["square"] = x * x
        results["scaled"] = v * 5.0   # a trainable variable read while this thread has no tape

    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        worker = threading.Thread(target=other_thread)
        worker.start()
        worker.join()
        mine = x * 2.0
    assert tape.gradient(results["square"], x) is None
    assert tape.gradient(results["scaled"], v) is None
    assert tape.watched_variables() == ()
    assert tape.gradient(mine, x).numpy() == 2.0
