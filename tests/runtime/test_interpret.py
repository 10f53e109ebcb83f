"""The first call of a concrete function walks its op list (runtime/interpret.py); the second compiles.
Both must give the same values, effects and errors as the generated code."""
import numpy as np
import pytest

import tensorflux as tf
from tensorflux._src.runtime import interpret


def same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def first_and_second(fn, *args):
    """(first call's outputs, second call's outputs, compiled after the first?, after the second?)."""
    cf = fn.get_concrete_function(*args)
    first = cf(*args)
    compiled_after_first = cf._compiled is not None
    second = cf(*args)
    return first, second, compiled_after_first, cf._compiled is not None


def flat_numpy(values):
    return [np.asarray(v.numpy()) for v in tf.nest.flatten(values)]


def test_first_call_is_interpreted_and_the_second_compiled_with_the_same_bits():
    @tf.function
    def f(x, n):
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
        z = tf.sqrt(tf.abs(tf.tanh(total) * y + 1.0))
        return z, tf.reduce_mean(z) + tf.reduce_sum(y), n * 3
    x, n = tf.constant([1.0, -2.5, 3.0]), tf.constant(7)
    first, second, compiled_first, compiled_second = first_and_second(f, x, n)
    assert not compiled_first and compiled_second
    for a, b in zip(flat_numpy(first), flat_numpy(second)):
        assert same_bits(a, b)
    # TensorFlow 2.21's outputs for the same function and inputs
    assert first[0].numpy().tolist() == [2.0, 2.2360680103302, 2.8284270763397217]
    assert first[1].numpy().item() == 8.35483169555664 and first[2].numpy() == 21


def test_while_with_maximum_iterations_and_a_nested_function_call():
    @tf.function
    def inner(v):
        return v * 0.5 + 1.0

    @tf.function
    def f(x):
        return tf.while_loop(lambda v: tf.reduce_sum(v) < 1e6, lambda v: (inner(v) * 3.0,), (x,),
                             maximum_iterations=4)
    x = tf.constant([1.0, 2.0])
    first, second, compiled_first, _ = first_and_second(f, x)
    assert not compiled_first
    for a, b in zip(flat_numpy(first), flat_numpy(second)):
        assert same_bits(a, b)
    value = np.array([1.0, 2.0], np.float32)
    for _ in range(4):
        value = (value * np.float32(0.5) + np.float32(1.0)) * np.float32(3.0)
    assert same_bits(flat_numpy(first)[0], value)


def test_effects_run_once_per_call_in_order():
    v = tf.Variable(1.0)

    @tf.function
    def f(x):
        v.assign(v * 2.0)
        for _ in tf.range(3):
            v.assign_add(x)
        return v.read_value()
    x = tf.constant(1.0)
    assert f(x).numpy() == 5.0      # interpreted: (1 * 2) + 3
    assert f(x).numpy() == 13.0     # compiled: (5 * 2) + 3
    assert v.numpy() == 13.0


def test_string_outputs_and_dead_ops():
    @tf.function(input_signature=[tf.TensorSpec([], tf.string), tf.TensorSpec([None], tf.float32)])
    def f(s, x):
        unused = tf.reshape(x, [7])     # dead (fails if run): pruned, as TensorFlow's executor never runs it
        del unused
        return tf.strings.join([s, s]), tf.strings.length(s)
    first, second, compiled_first, _ = first_and_second(f, tf.constant("ab"), tf.constant([1.0, 2.0]))
    assert not compiled_first
    assert first[0].numpy() == second[0].numpy() == b"abab"
    assert first[1].numpy() == second[1].numpy() == 2


def test_a_failing_kernel_names_its_node_on_the_interpreted_call_too():
    @tf.function
    def f(x):
        y = x + 1.0
        if tf.reduce_sum(y) > 0:
            y = tf.reshape(y, [3])
        return y
    cf = f.get_concrete_function(tf.TensorSpec([None], tf.float32))
    messages = []
    for _ in range(2):
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            cf(tf.constant([1.0, 2.0]))
        messages.append(str(info.value))
    assert cf._compiled is not None
    assert "node Reshape" in messages[0] and "node Reshape" in messages[1]


def test_graphs_with_generated_only_ops_are_compiled_on_the_first_call():
    @tf.function
    def f(ds):
        total = tf.constant(0, tf.int64)
        for v in ds:
            total += v
        return total
    ds = tf.data.Dataset.range(5)
    cf = f.get_concrete_function(ds)
    assert interpret.plan(cf.graph, cf._trace.flat_outputs, cf.graph.inputs) is None
    assert f(ds).numpy() == 10
    assert cf._compiled is not None


def test_jit_compile_functions_are_not_interpreted():
    pytest.importorskip("numba")

    @tf.function(jit_compile=True)
    def f(x):
        return x * 2.0 + 1.0
    cf = f.get_concrete_function(tf.constant([1.0]))
    assert cf(tf.constant([1.0])).numpy().tolist() == [3.0]
    assert cf._compiled is not None


def test_large_intermediates_are_dropped_after_their_last_use():
    import tracemalloc

    @tf.function
    def f(x):
        y = x * 1.5
        for _ in range(8):      # unrolled: nine ops on 1M floats
            y = y + 1.0
        return y
    x = tf.constant(np.ones(1 << 20, np.float32))
    cf = f.get_concrete_function(x)
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        out = cf(x)                 # interpreted
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert cf._compiled is None
    assert peak < 3.5 * x.numpy().nbytes, peak     # not nine intermediates: two or three at a time
    assert out.numpy()[0] == 9.5
