"""The workloads of bench/workloads.py written for JAX, under the same names, for `bench/run.py --compare jax`.

Each does the work its TensorFlow-API twin does: the same shapes, dtypes (float32), operations and
control flow (`lax.while_loop`/`fori_loop`/`cond` where the twin has a traced `while`/`for`/`if`), the same
random dropout in the model workloads (a key threaded through the jitted function, as TensorFlow threads
its generator state), and `block_until_ready()` on every result, because JAX dispatches asynchronously
while tensorflux and TensorFlow return computed values. Warm-up (compilation) is excluded, as it is for
the twins. Results are returned for the cross-framework check where the work is deterministic.

One asymmetry, in JAX's favour: "trace a fresh fn" is timed with `jax.make_jaxpr` (tracing alone), while
its twin times `tf.function` tracing plus the first call's execution.

Runs in JAX's own interpreter (started by bench/worker.py); tensorflux never imports JAX.
"""
import functools

import numpy as np

from workloads import _BIG, _IMAGES, import_time, median_time, numpy_floor

WORKLOADS = {}


def workload(name):
    def register(fn):
        WORKLOADS[name] = fn
        return fn
    return register


def _ready(value):
    """Blocks until `value` (an array or a tuple of arrays) is computed; returns it."""
    import jax
    return jax.block_until_ready(value)


@workload("eager scalar add")
def eager_scalar_add(jax):
    jnp = jax.numpy
    x, y = jnp.asarray(1.0, jnp.float32), jnp.asarray(2.0, jnp.float32)
    return median_time(lambda: _ready(jnp.add(x, y)), 20000), jnp.add(x, y)


@workload("eager [1000] vector mul")
def eager_vector_mul(jax):
    jnp = jax.numpy
    x = jnp.asarray(np.arange(1000, dtype=np.float32))
    return median_time(lambda: _ready(jnp.multiply(x, x)), 20000), jnp.multiply(x, x)


@workload("eager 256x256 matmul")
def eager_matmul(jax):
    jnp = jax.numpy
    a = jnp.asarray(np.random.RandomState(0).rand(256, 256).astype(np.float32))
    return median_time(lambda: _ready(jnp.matmul(a, a)), 500), jnp.matmul(a, a)


workload("import time (fresh process)")(import_time)
@workload("import + first traced call (fresh process)")
def first_call_time(jax):
    import os
    import statistics
    import subprocess
    import sys
    code = ("import time; t=time.perf_counter(); import jax, jax.numpy as jnp\n"
            "f = jax.jit(lambda x: x * 2.0 + 1.0)\n"
            "f(jnp.asarray([1.0, 2.0], jnp.float32)).block_until_ready()\n"
            "print(time.perf_counter() - t)")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    runs = [float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
                  .stdout.strip().split()[-1]) for _ in range(4)]
    return statistics.median(runs[1:])


workload("one-pass NumPy floor on [4M] (np.multiply out=)")(numpy_floor)


@workload("traced identity call")
def traced_identity(jax):
    f = jax.jit(lambda x: x)
    x = jax.numpy.asarray(1.0, jax.numpy.float32)
    return median_time(lambda: _ready(f(x)), 5000), f(x)


def _chain(jax):
    @jax.jit
    def chain(x):
        for _ in range(50):
            x = x * np.float32(1.0001)
            x = x + np.float32(0.0001)
        return x
    return chain


@workload("traced 100-op chain, scalar")
def chain_scalar(jax):
    f = _chain(jax)
    x = jax.numpy.asarray(1.0, jax.numpy.float32)
    return median_time(lambda: _ready(f(x)), 500), f(x)


@workload("traced 100-op chain, [1000] vector")
def chain_vector(jax):
    f = _chain(jax)
    x = jax.numpy.asarray(np.ones(1000, dtype=np.float32))
    return median_time(lambda: _ready(f(x)), 500), f(x)


def _sequential_model(jax):
    """The twin's two Dense layers (784->128 relu, dropout 0.2 when training, 128->10) as a pure function
    of a parameter tuple and a random key; returns (params, forward)."""
    jnp = jax.numpy
    k1, k2 = jax.random.split(jax.random.PRNGKey(1))
    params = (jax.random.normal(k1, (784, 128), jnp.float32) * 0.05, jnp.zeros(128, jnp.float32),
              jax.random.normal(k2, (128, 10), jnp.float32) * 0.05, jnp.zeros(10, jnp.float32))

    def forward(params, x, key, training=True):
        w1, b1, w2, b2 = params
        h = jax.nn.relu(jnp.reshape(x, (-1, 784)) @ w1 + b1)
        if training:
            keep = jax.random.bernoulli(key, 0.8, h.shape)
            h = jnp.where(keep, h / 0.8, 0.0)
        return h @ w2 + b2

    return params, forward


@workload("SequentialModel forward, eager")
def seq_eager(jax):
    params, forward = _sequential_model(jax)
    x = jax.numpy.asarray(_IMAGES)
    state = {"key": jax.random.PRNGKey(0)}

    def call():
        state["key"], sub = jax.random.split(state["key"])
        return _ready(forward(params, x, sub))
    return median_time(call, 100)


@workload("SequentialModel forward, traced")
def seq_traced(jax):
    params, forward = _sequential_model(jax)

    @jax.jit
    def f(params, x, key):
        key, sub = jax.random.split(key)
        return forward(params, x, sub), key

    x = jax.numpy.asarray(_IMAGES)
    state = {"key": jax.random.PRNGKey(0)}

    def call():
        out, state["key"] = _ready(f(params, x, state["key"]))
        return out
    return median_time(call, 100)


@workload("training step (fwd+MSE+tape+SGD), traced")
def train_step(jax):
    jnp = jax.numpy
    params, forward = _sequential_model(jax)

    # The parameters are donated, so the update is in place as the twin's assign_sub is.
    @functools.partial(jax.jit, donate_argnums=0)
    def step(params, x, y, key):
        key, sub = jax.random.split(key)
        loss, grads = jax.value_and_grad(lambda p: jnp.mean(jnp.square(forward(p, x, sub) - y)))(params)
        return tuple(p - 0.01 * g for p, g in zip(params, grads)), key, loss

    x = jnp.asarray(_IMAGES)
    y = jnp.asarray(np.random.RandomState(1).rand(60, 10).astype(np.float32))
    state = {"params": params, "key": jax.random.PRNGKey(0)}

    def call():
        state["params"], state["key"], loss = _ready(step(state["params"], x, y, state["key"]))
        return loss
    return median_time(call, 50)


@workload("conv2d 3x3 100->100 on [1,200,200,100]")
def conv(jax):
    rs = np.random.RandomState(0)
    x = jax.numpy.asarray(rs.rand(1, 200, 200, 100).astype(np.float32))
    k = jax.numpy.asarray(rs.rand(3, 3, 100, 100).astype(np.float32))
    f = jax.jit(lambda x, k: jax.lax.conv_general_dilated(x, k, (1, 1), "SAME",
                                                          dimension_numbers=("NHWC", "HWIO", "NHWC")))
    return median_time(lambda: _ready(f(x, k)), 5, repeat=5, warmup_seconds=3), f(x, k)


@workload("while reduce_sum(x)>1: tanh (traced), per call")
def tanh_loop(jax):
    jnp = jax.numpy
    f = jax.jit(lambda x: jax.lax.while_loop(lambda x: jnp.sum(x) > 1, jnp.tanh, x))
    x = jnp.asarray([0.61853385, 0.565122664, 0.620023966, 0.718450546, 0.70036608], jnp.float32) * 5
    return median_time(lambda: _ready(f(x)), 50), f(x)


@workload("fizzbuzz over tf.range(100), traced")
def fizzbuzz(jax):
    jnp, lax = jax.numpy, jax.lax
    as_int = lambda v: lambda: jnp.int32(v)  # noqa: E731

    @jax.jit
    def f(n):
        def body(i, out):
            return out + lax.cond(i % 15 == 0, as_int(15), lambda: lax.cond(
                i % 3 == 0, as_int(3), lambda: lax.cond(i % 5 == 0, as_int(5), as_int(1))))
        return lax.fori_loop(1, n + 1, body, jnp.int32(0))
    n = jnp.asarray(100, jnp.int32)
    return median_time(lambda: _ready(f(n)), 50), f(n)


def _fresh_traceable(jax):
    """A new Python function object each time (so no trace cache can answer), the twin's 19 lines."""
    jnp, lax = jax.numpy, jax.lax

    def g(x, n):
        y = x * 2.0
        y = lax.cond(jnp.sum(y) > 0, lambda y: y + 1.0, lambda y: y - 1.0, y)
        total = jnp.zeros_like(y)

        def body(i, total):
            total = total + y * i.astype(jnp.float32)
            return lax.cond(jnp.max(total) > 100.0, lambda t: t / 2.0, lambda t: t, total)
        total = lax.fori_loop(0, n, body, total)
        z = jnp.tanh(total)
        z = z * y + 1.0
        z = jnp.sqrt(jnp.abs(z))
        w = jnp.mean(z)
        w = w + jnp.sum(y)
        return z, w
    return g


@workload("trace a fresh 20-line fn with if + tf.range loop")
def tracing_time(jax):
    jnp = jax.numpy
    x = jnp.asarray([1.0, 2.0, 3.0], jnp.float32)
    n = jnp.asarray(5, jnp.int32)
    seconds = median_time(lambda: jax.make_jaxpr(_fresh_traceable(jax))(x, n), 10, repeat=5)
    return seconds, jax.jit(_fresh_traceable(jax))(x, n)


@workload("10 elementwise ops on [4M], traced")
def big_chain(jax):
    jnp = jax.numpy

    @jax.jit
    def f(x):
        y = x * 1.5
        y = y + 2.0
        y = y * y
        y = y - 1.0
        y = y / 3.0
        y = jnp.abs(y)
        y = y + x
        y = y * 0.5
        y = jnp.maximum(y, 0.1)
        return y - 0.01
    x = jnp.asarray(_BIG)
    return median_time(lambda: _ready(f(x)), 5, repeat=5), f(x)
