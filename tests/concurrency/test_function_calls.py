"""tf.function under concurrent calls: one trace per signature however many threads miss at once, the
waiting callers get the traced function, and the lock-free hit path returns each thread its own result."""
import time

import numpy as np

import tensorflux as tf

from ._threads import THREADS, run_together

SIGNATURES = 4


def test_concurrent_first_calls_trace_each_signature_once():
    traced = []

    @tf.function
    def scale(x):
        traced.append(x.shape.rank)
        time.sleep(0.05)  # a slow trace: every other thread arrives while it is under way
        return x * 2.0

    def call(i):
        rank = i % SIGNATURES
        x = tf.constant(np.full([2] * rank, float(i), np.float32))
        return rank, float(i), scale(x).numpy()

    for rank, value, out in run_together(call):
        np.testing.assert_array_equal(out, np.full([2] * rank, 2 * value, np.float32))
    assert sorted(traced) == list(range(SIGNATURES))
    assert scale.experimental_get_tracing_count() == SIGNATURES


def test_many_calls_from_many_threads_return_each_callers_result():
    calls = 20_000

    @tf.function
    def affine(x, y):
        return x * 3.0 + y

    affine(tf.constant(0.0), tf.constant(0.0))

    def work(i):
        x, y = tf.constant(float(i)), tf.constant(float(-i))
        wrong = 0
        for _ in range(calls):
            wrong += affine(x, y).numpy() != 2.0 * i
        return wrong

    assert run_together(work) == [0] * THREADS
    assert affine.experimental_get_tracing_count() == 1


def test_variables_created_on_the_first_call_are_created_once():
    created = []

    class Counter(tf.Module):
        def __init__(self):
            super().__init__()
            self.total = None

        @tf.function
        def add(self, x):
            if self.total is None:
                self.total = tf.Variable(0.0)
                created.append(self.total)
            time.sleep(0.02)
            self.total.assign_add(x)
            return self.total.read_value()

    counter = Counter()
    run_together(lambda i: [counter.add(tf.constant(1.0)) for _ in range(100)])
    assert len(created) == 1
    assert counter.total.numpy() == 100.0 * THREADS


def test_methods_first_touched_by_many_threads_share_one_function():
    class Model(tf.Module):
        @tf.function
        def double(self, x):
            time.sleep(0.02)
            return 2 * x

    model = Model()
    functions = run_together(lambda i: model.double)
    assert all(f is functions[0] for f in functions)
    assert [int(model.double(tf.constant(i))) for i in range(3)] == [0, 2, 4]


def test_concurrent_get_concrete_function_and_calls_share_traces():
    @tf.function
    def square(x):
        time.sleep(0.02)
        return x * x

    def work(i):
        dtype = tf.int32 if i % 2 else tf.float32
        if i % 4 < 2:
            concrete = square.get_concrete_function(tf.TensorSpec([3], dtype))
            return concrete(tf.constant([1, 2, 3], dtype)).numpy()
        return square(tf.constant([1, 2, 3], dtype)).numpy()

    for out in run_together(work):
        np.testing.assert_array_equal(out, [1, 4, 9])
    assert square.experimental_get_tracing_count() == 2


def test_nested_functions_trace_concurrently():
    @tf.function
    def inner(x):
        time.sleep(0.01)
        return x + 1.0

    @tf.function
    def outer(x):
        return inner(x) * 2.0

    outs = run_together(lambda i: outer(tf.constant(float(i))).numpy())
    assert outs == [2.0 * (i + 1) for i in range(THREADS)]
    assert outer.experimental_get_tracing_count() == 1
