"""Benchmark workloads, written once against TensorFlow's API and run under tensorflux or TensorFlow.

Each workload is `fn(tf)` returning the median seconds per call over repeats (warm caches, warm-up
excluded), or `(seconds, value)` where `value` is the workload's result: bench/run.py checks that the
frameworks' values agree (`summary` below) so that a faster row is never a row doing different work.
bench/jax_workloads.py holds the same workloads written for JAX, under the same names.
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


def summary(value):
    """A short fingerprint of a result for the cross-framework check: size, sum, first and last element
    (of every output, flattened, as float64)."""
    if isinstance(value, (tuple, list)):
        return [x for v in value for x in summary(v)]
    a = np.asarray(value, dtype=np.float64).ravel()
    return [float(a.size), float(a.sum()), float(a[0]), float(a[-1])] if a.size else [0.0]


def agree(a, b, rtol=1e-4, atol=1e-5):
    """Whether two fingerprints describe the same result (float32 work in different operation orders)."""
    return len(a) == len(b) and bool(np.allclose(a, b, rtol=rtol, atol=atol))


def median_time(fn, number, repeat=7, warmup_seconds=0.0):
    """Median seconds per call of `fn` over `repeat` runs of `number` calls, after one warm-up call (or
    as many as `warmup_seconds` takes: steady state, once kernels built on first use are in place)."""
    start = time.perf_counter()
    fn()
    while time.perf_counter() - start < warmup_seconds:
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
    return median_time(lambda: tf.add(x, y), 20000), tf.add(x, y)


@workload("eager [1000] vector mul", "eager")
def eager_vector_mul(tf):
    x = tf.constant(np.arange(1000, dtype=np.float32))
    return median_time(lambda: tf.multiply(x, x), 20000), tf.multiply(x, x)


@workload("eager 256x256 matmul", "eager")
def eager_matmul(tf):
    a = tf.constant(np.random.RandomState(0).rand(256, 256).astype(np.float32))
    return median_time(lambda: tf.matmul(a, a), 500), tf.matmul(a, a)


@workload("import time (fresh process)", "startup")
def import_time(tf):
    import os
    import subprocess
    import sys
    name = tf.__name__
    code = f"import time; t=time.perf_counter(); import {name}; print(time.perf_counter()-t)"
    # As installed: bytecode caches are written by the first (warm-up) run and used by the measured ones.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    runs = [float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
                  .stdout.strip().split()[-1]) for _ in range(4)]
    return statistics.median(runs[1:])


@workload("import + first traced call (fresh process)", "startup")
def first_call_time(tf):
    """A new user's first seconds: import, trace a small function, run it (median of 3 fresh processes
    after a warm-up one). For tensorflux it also checks that the NumPy path imported no numba."""
    import os
    import subprocess
    import sys
    name = tf.__name__
    code = (f"import sys, time; t=time.perf_counter(); import {name} as tf\n"
            "f = tf.function(lambda x: x * 2.0 + 1.0)\n"
            "y = f(tf.constant([1.0, 2.0]))\n"
            "print(time.perf_counter() - t, 'numba' in sys.modules)")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    runs = []
    for _ in range(4):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
        seconds, numba = out.stdout.strip().split()[-2:]
        if name == "tensorflux" and numba == "True":
            raise RuntimeError("numba was imported on the NumPy path")
        runs.append(float(seconds))
    return statistics.median(runs[1:])


# Warm-up of the traced rows compared with jax.jit (whose compile its first call pays, outside the
# median): tensorflux compiles a hot function in the background (after 100 calls, 10 for a loop) and
# switches when the kernel is ready, seconds later on a loaded machine; these rows measure that steady
# state. The jit_compile=False row measures the NumPy path the first calls run. The model rows warm up
# as long: their small products' exact loops, the mid-size products' polling helper and the dropout
# loop are also built in the background once hot.
_STEADY = 8.0


@workload("traced identity call", "function")
def traced_identity(tf):
    f = tf.function(lambda x: x)
    x = tf.constant(1.0)
    return median_time(lambda: f(x), 5000), f(x)


def _chain(tf):
    @tf.function
    def chain(x):
        for _ in range(50):
            x = x * 1.0001
            x = x + 0.0001
        return x
    return chain


@workload("traced 100-op chain, scalar", "function")
def chain_scalar(tf):
    f = _chain(tf)
    x = tf.constant(1.0)
    return median_time(lambda: f(x), 500, warmup_seconds=_STEADY), f(x)


@workload("traced 100-op chain, [1000] vector", "function")
def chain_vector(tf):
    f = _chain(tf)
    x = tf.constant(np.ones(1000, dtype=np.float32))
    return median_time(lambda: f(x), 500, warmup_seconds=_STEADY), f(x)


def _sequential_model(tf):
    class Dense(tf.Module):
        def __init__(self, n_in, n_out, activation=None):
            super().__init__()
            self.w = tf.Variable(tf.random.normal([n_in, n_out], stddev=0.05, seed=1))
            self.b = tf.Variable(tf.zeros([n_out]))
            self.activation = activation

        def __call__(self, x):
            y = tf.matmul(x, self.w) + self.b
            return self.activation(y) if self.activation else y

    class SequentialModel(tf.Module):
        def __init__(self):
            super().__init__()
            self.dense_1 = Dense(784, 128, tf.nn.relu)
            self.dense_2 = Dense(128, 10)

        def __call__(self, x, training=True):
            x = tf.reshape(x, [-1, 784])
            x = self.dense_1(x)
            x = tf.nn.dropout(x, 0.2) if training else x
            return self.dense_2(x)

    return SequentialModel()


_IMAGES = np.random.RandomState(0).rand(60, 28, 28).astype(np.float32)


@workload("SequentialModel forward, eager", "model")
def seq_eager(tf):
    model = _sequential_model(tf)
    x = tf.constant(_IMAGES)
    return median_time(lambda: model(x), 100, warmup_seconds=_STEADY)


@workload("SequentialModel forward, traced", "model")
def seq_traced(tf):
    model = _sequential_model(tf)
    f = tf.function(model)
    x = tf.constant(_IMAGES)
    return median_time(lambda: f(x), 100, warmup_seconds=_STEADY)


@workload("training step (fwd+MSE+tape+SGD), traced", "model")
def train_step(tf):
    model = _sequential_model(tf)
    x = tf.constant(_IMAGES)
    y = tf.constant(np.random.RandomState(1).rand(60, 10).astype(np.float32))
    variables = [model.dense_1.w, model.dense_1.b, model.dense_2.w, model.dense_2.b]

    @tf.function
    def step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x) - y))
        grads = tape.gradient(loss, variables)
        for v, g in zip(variables, grads):
            v.assign_sub(0.01 * g)
        return loss

    return median_time(lambda: step(x, y), 50, warmup_seconds=_STEADY)


@workload("conv2d 3x3 100->100 on [1,200,200,100]", "model")
def conv(tf):
    rs = np.random.RandomState(0)
    x = tf.constant(rs.rand(1, 200, 200, 100).astype(np.float32))
    k = tf.constant(rs.rand(3, 3, 100, 100).astype(np.float32))
    # tensorflux builds its Winograd kernels in a background thread on first use (im2col meanwhile)
    seconds = median_time(lambda: tf.nn.conv2d(x, k, strides=1, padding="SAME"), 5, repeat=5, warmup_seconds=3)
    return seconds, tf.nn.conv2d(x, k, strides=1, padding="SAME")


def _tanh_loop(tf, **options):
    def f(x):
        while tf.reduce_sum(x) > 1:
            x = tf.tanh(x)
        return x
    x = tf.constant([0.61853385, 0.565122664, 0.620023966, 0.718450546, 0.70036608], dtype=tf.float32) * 5
    return tf.function(f, **options), x


@workload("while reduce_sum(x)>1: tanh (traced), per call", "control flow")
def tanh_loop(tf):
    f, x = _tanh_loop(tf)
    return median_time(lambda: f(x), 50, warmup_seconds=_STEADY), f(x)


@workload("while reduce_sum(x)>1: tanh, jit_compile=False", "control flow")
def tanh_loop_uncompiled(tf):
    # The same loop never compiled: tensorflux's generated NumPy code (what the first calls of a fresh
    # process run), TensorFlow's default executor.
    f, x = _tanh_loop(tf, jit_compile=False)
    return median_time(lambda: f(x), 50), f(x)


@workload("fizzbuzz over tf.range(100), traced", "control flow")
def fizzbuzz(tf):
    import io

    @tf.function
    def f(n):
        out = tf.constant(0)
        for i in tf.range(1, n + 1):
            if i % 15 == 0:
                out += 15
            elif i % 3 == 0:
                out += 3
            elif i % 5 == 0:
                out += 5
            else:
                out += 1
        return out
    n = tf.constant(100)
    io.StringIO()
    # steady state, as the other traced rows: the loop compiles in the background after 10 calls
    return median_time(lambda: f(n), 50, warmup_seconds=_STEADY), f(n)


@workload("trace a fresh 20-line fn with if + tf.range loop", "tracing")
def tracing_time(tf):
    def make():
        def g(x, n):
            y = x * 2.0
            if tf.reduce_sum(y) > 0:
                y = y + 1.0
            else:
                y = y - 1.0
            total = tf.zeros_like(y)
            for i in tf.range(n):
                total += y * tf.cast(i, tf.float32)
                if tf.reduce_max(total) > 100.0:
                    total = total / 2.0
            z = tf.tanh(total)
            z = z * y + 1.0
            z = tf.sqrt(tf.abs(z))
            w = tf.reduce_mean(z)
            w = w + tf.reduce_sum(y)
            return z, w
        return tf.function(g)
    x = tf.constant([1.0, 2.0, 3.0])
    n = tf.constant(5)
    return median_time(lambda: make()(x, n), 10, repeat=5), make()(x, n)


_BIG = np.random.RandomState(0).rand(4_000_000).astype(np.float32)


def ten_op_chain(x, tf):
    """The memory-bound chain of 10 elementwise ops (also scaling.py's memory table)."""
    y = x * 1.5
    y = y + 2.0
    y = y * y
    y = y - 1.0
    y = y / 3.0
    y = tf.abs(y)
    y = y + x
    y = y * 0.5
    y = tf.maximum(y, 0.1)
    return y - 0.01


@workload("10 elementwise ops on [4M], traced", "memory-bound")
def big_chain(tf):
    @tf.function
    def f(x):
        return ten_op_chain(x, tf)
    x = tf.constant(_BIG)
    return median_time(lambda: f(x), 5, repeat=5, warmup_seconds=_STEADY), f(x)


@workload("one-pass NumPy floor on [4M] (np.multiply out=)", "memory-bound")
def numpy_floor(tf):
    a = _BIG
    b = np.empty_like(a)
    return median_time(lambda: np.multiply(a, 1.5, out=b), 20, repeat=5)
