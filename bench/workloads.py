"""Benchmark workloads, written once against TensorFlow's API and run under tensorflux or TensorFlow.

Each workload is `fn(tf) -> (seconds_per_iteration, unit_label)`; medians over repeats, warm caches.
"""
import statistics
import time

import numpy as np

WORKLOADS = {}


def workload(name, group):
    def register(fn):
        WORKLOADS[name] = (group, fn)
        return fn
    return register


def median_time(fn, number, repeat=7):
    """Median seconds per call of `fn` over `repeat` runs of `number` calls (after one warm-up run)."""
    fn()
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        samples.append((time.perf_counter() - t0) / number)
    return statistics.median(samples)


@workload("eager scalar add", "eager")
def eager_scalar_add(tf):
    x, y = tf.constant(1.0), tf.constant(2.0)
    return median_time(lambda: tf.add(x, y), 20000)


@workload("eager [1000] vector mul", "eager")
def eager_vector_mul(tf):
    x = tf.constant(np.arange(1000, dtype=np.float32))
    return median_time(lambda: tf.multiply(x, x), 20000)


@workload("eager 256x256 matmul", "eager")
def eager_matmul(tf):
    a = tf.constant(np.random.RandomState(0).rand(256, 256).astype(np.float32))
    return median_time(lambda: tf.matmul(a, a), 500)
